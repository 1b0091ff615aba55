// Browser test of the Kernel menu: it lists the releases the server models
// (GET /api/kernels) and shows the one the session runs; picking one starts
// a session of the scenario on that release, whose counters are those of
// `slublab run --kernel X.Y` for the same scenario.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/kernel.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { openPage, shotOnFailure, api, waitAt, model, labFixture, ROOT } from './helpers.mjs';

let browser, base;
labFixture((f) => ({ browser, base } = f));

const BIN = process.env.SLUBLAB_BIN || join(ROOT, 'build/slublab');

/** The counters of each cache at the end of `slublab run FILE --kernel K`. */
function cliCounters(file, kernel) {
  const r = spawnSync(BIN, ['run', file, '--kernel', kernel, '--json'], { cwd: ROOT, encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, r.stderr); /* 1: an expect of the scenario failed */
  return Object.fromEntries(JSON.parse(r.stdout).caches.map((c) => [c.name, c.stats]));
}

for (const [scenario, kernel] of [['free-storm', '6.12'], ['refill-gate', '6.19'], ['free-storm', '7.0']]) {
  test(`Kernel menu: ${scenario} on ${kernel} counts as slublab run --kernel ${kernel}`, async (t) => {
    const page = await openPage(browser.ctx, `${base}/?scenario=${scenario}`);
    await shotOnFailure(t, page, async () => {
      await page.waitForSelector('body[data-ready="1"]');
      const first = await model(page);
      // the menu lists the server's releases and shows the one the session runs
      const listed = await api(base, '/api/kernels');
      assert.equal(listed.default, '7.3');
      await page.waitForFunction((n) => document.querySelectorAll('#kernel-select option').length === n + 1,
        listed.kernels.length);
      const runs = (await api(base, `/api/sessions/${first.id}`)).settings.kernel;
      assert.equal(runs, scenario === 'refill-gate' ? '7.0' : '7.3'); /* its "kernel" key, else the default */
      await page.waitForFunction((k) => document.querySelector('#kernel-select').value === k, runs);
      assert.equal(await page.isDisabled('#kernel-select'), false);
      await page.selectOption('#kernel-select', kernel);
      await page.waitForFunction((id) => { const m = window.__slublab.player.get(); return m.session?.id && m.session.id !== id; }, first.id);
      const s = await model(page);
      assert.equal(s.scenario, scenario);
      const info = await api(base, `/api/sessions/${s.id}`);
      assert.equal(info.settings.kernel, kernel);
      assert.equal(await page.inputValue('#kernel-select'), kernel);
      // the page's own state at the end: every cache's counters as the CLI's
      await page.evaluate(() => window.__slublab.player.endPos());
      await waitAt(page, s.end, 15000);
      const ui = await page.evaluate(() => Object.fromEntries(window.__slublab.player.get().cur.state.caches.map((c) => [c.name, c.stats])));
      assert.deepEqual(ui, cliCounters(`scenarios/${scenario}.json`, kernel));
    });
  });
}

test('Kernel menu: a kernel that contradicts the model is refused by the API, an unknown one listed', async () => {
  const post = (body) => fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  let r = await post({ scenario: 'free-storm', kernel: '7.2', model: 'legacy' });
  assert.equal(r.status, 400);
  assert.match((await r.json()).error.message, /contradicts kernel 7\.2/);
  r = await post({ scenario: 'free-storm', kernel: '6.13' });
  assert.equal(r.status, 400);
  assert.match((await r.json()).error.message, /6\.1, 6\.8, 6\.12, 6\.18, 6\.19, 7\.0, 7\.1, 7\.2, 7\.3/);
  r = await post({ scenario: 'free-storm', kernel: '6.12.57', variants: { GFP_TRANSLATE: 'after' } });
  assert.equal(r.status, 201);
  const info = await api(base, `/api/sessions/${(await r.json()).id}`);
  assert.equal(info.settings.kernel, '6.12');
  assert.equal(info.settings.variants.GFP_TRANSLATE, 'after');
});
