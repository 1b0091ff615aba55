// A step at one of the kernel's own choice points (docs/engine.md#choice-points):
// lesson 04's last slide opens `flush-order` at flush_all()'s order, the
// Explain panel says the kernel may take another order here and offers it
// as a run of its own; that run flushes CPU 2 first, so free_add_partial
// counts C1=1 C2=2 against the lab's C1=2 C2=1, and a button leads back.
// The lab's keys still step with the focus on the fork's buttons.
// Screenshots at four sizes (docs/img/screen-choice-fork.png is the first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, shotOnFailure, waitAt, model, labFixture, OUT, ROOT } from './helpers.mjs';

let base, browser;
labFixture((f) => { ({ base, browser } = f); });

const LESSON = '04-slow-path-and-partial-lists';
const SLIDE = 8;
const SIZES = [[1280, 720], [1440, 900], [1024, 768], [390, 844]];

/** free_add_partial of CPUs 1 and 2 at the page's position. */
const perCpu = (page) => page.evaluate(() => {
  const cpus = window.__slublab.player.get().cur.state.caches[0].cpus;
  return [1, 2].map((c) => cpus[c].stats.free_add_partial ?? 0);
});

test('lesson 04: the choice at flush_all, its fork and the way back', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?lesson=${LESSON}&slide=${SLIDE}`, { width: 1280, height: 720 });
  await shotOnFailure(t, page, async () => {
    await waitAt(page, 32, 10000);
    await page.waitForSelector('#choice:not([hidden])');
    assert.match(await page.textContent('#choice'),
      /The kernel may run flush_all\(\)'s per-CPU flushes in another order here: one of 2 orders\. The lab takes its default\. This run: flush_all: CPUs 1, 2: order 1 of 2\./);
    const fork = page.locator('#choice button.choice-fork');
    assert.equal(await fork.count(), 1);
    assert.equal(await fork.textContent(), 'The kernel may flush CPU 2 first: see that run');
    const lab = await model(page);
    // the lab's keys with the focus on the button: → steps, ← steps back, nothing forks
    await fork.focus();
    await page.keyboard.press('ArrowRight');
    await waitAt(page, 33);
    await page.keyboard.press('ArrowLeft');
    await waitAt(page, 32);
    // Space plays (and pauses) there, as on any button: it does not open the other run
    await page.keyboard.press('Space');
    await page.waitForFunction(() => window.__slublab.player.get().playing);
    await page.keyboard.press('Space');
    await page.waitForFunction(() => !window.__slublab.player.get().playing);
    assert.equal((await model(page)).id, lab.id);
    await page.evaluate(() => window.__slublab.player.seek(32));
    await waitAt(page, 32);
    await page.locator('#choice button.choice-fork').screenshot({ path: join(OUT, 'choice-fork-button.png') });
    await page.waitForTimeout(700); // the step's move animates for 500 ms: the picture at rest for docs/img
    await page.screenshot({ path: join(OUT, 'choice-fork-1280x720.png') });
    copyFileSync(join(OUT, 'choice-fork-1280x720.png'), join(ROOT, 'docs/img/screen-choice-fork.png'));

    await page.locator('#choice button.choice-fork').click();
    await page.waitForFunction((id) => window.__slublab.player.get().session?.id !== id, lab.id);
    await waitAt(page, 32);
    const forked = await model(page);
    assert.equal(forked.parent, lab.id);
    assert.match(await page.textContent('#choice'), /This run takes another than the lab's own\. This run: flush_all: CPUs 2, 1: order 2 of 2\./);
    assert.match(await page.textContent('#choice-back'), /The run the kernel might make instead: flush_all: CPUs 2, 1: order 2 of 2\./);
    await page.screenshot({ path: join(OUT, 'choice-forked-1280x720.png') });
    await page.keyboard.press('End');
    await waitAt(page, forked.end);
    assert.deepEqual(await perCpu(page), [1, 2]);
    await page.click('#tabbtn-counters');
    await page.waitForFunction(() => /free_add_partial/.test(document.querySelector('#tab-counters')?.textContent ?? ''));
    await page.screenshot({ path: join(OUT, 'choice-forked-counters-1280x720.png') });

    await page.click('#tabbtn-explain');
    await page.click('#choice-back-btn');
    await page.waitForFunction((id) => window.__slublab.player.get().session?.id === id, lab.id);
    await waitAt(page, forked.end);
    assert.deepEqual(await perCpu(page), [2, 1]);
    assert.ok(await page.locator('#choice-back').isHidden());
  });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the choice at four sizes', async (t) => {
  for (const [width, height] of SIZES.slice(1)) {
    const page = await openPage(browser.ctx, `${base}/?lesson=${LESSON}&slide=${SLIDE}`, { width, height });
    await shotOnFailure(t, page, async () => {
      await waitAt(page, 32, 10000);
      const fork = page.locator('#choice button.choice-fork');
      await fork.waitFor();
      const box = await fork.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= width, `the button inside the ${width} px width`);
      // on screen and not under the lesson's sheet (a phone's) or anything else
      const top = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('button.choice-fork') !== null,
        [box.x + box.width / 2, box.y + box.height / 2]);
      assert.ok(top, `the fork button is uncovered at ${width}x${height}`);
      await page.screenshot({ path: join(OUT, `choice-fork-${width}x${height}.png`) });
    });
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});
