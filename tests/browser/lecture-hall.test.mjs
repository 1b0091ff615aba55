// The lecture hall: the presenter view on a projector's screen (the slab
// rows beside the structure, read from window.__slublab.slabRows()), the
// one keyboard model (a ticked checkbox or a chosen menu hands the keys
// back to the lab; `?` shows the list of keys), and the class's answers
// (one per follower's token, only the arms the question offers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { labFixture, openPage, shotOnFailure, waitAt, press, model, startServer, OUT } from './helpers.mjs';

let base, browser;
labFixture((f) => { base = f.base; browser = f.browser; });

async function lab(path, viewport) {
  const page = await openPage(browser.ctx, base + path, viewport);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

for (const [width, height] of [[1280, 720], [1366, 768], [1920, 1080]]) {
  test(`presenter view at ${width}x${height}: free-storm after 30 steps shows slab rows of objects at least 16 px, no sideways scrolling`, async (t) => {
    const page = await lab('/?scenario=free-storm&presenter=1', { width, height });
    await shotOnFailure(t, page, async () => {
      await press(page, 'ArrowRight', 30);
      await waitAt(page, 30);
      await page.waitForTimeout(300);
      const rows = await page.evaluate(() => window.__slublab.slabRows());
      const inView = (c) => c.x >= 0 && c.y >= 0 && c.x + c.width <= width && c.y + c.height <= height;
      const good = rows.filter((r) => r.cells.filter((c) => c.height >= 16 && inView(c)).length >= 4);
      assert.ok(good.length >= 1, `a slab row with four object cells of 16 px on screen: ${JSON.stringify(rows.map((r) => ({ y: r.y, n: r.cells.length, h: r.cells[0]?.height })))}`);
      const sw = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.equal(sw, width, 'no sideways scrolling');
      if (width >= 1920) {
        // the slabs have the room: their column is at least 40% of the picture, and its cells 24 px
        const col = await page.evaluate(() => document.querySelector('#lab-view .grid-wrap').getBoundingClientRect().width);
        assert.ok(col >= 0.4 * width, `the slab column is ${Math.round(col)} px of ${width}`);
        assert.ok(good.some((r) => r.cells.every((c) => c.height >= 24)), 'cells of 24 px at 1920x1080');
      } else {
        // the common projector modes: the slab column at least 40% of the picture, its cells 28 px
        const col = await page.evaluate(() => document.querySelector('#lab-view .grid-wrap').getBoundingClientRect().width);
        assert.ok(col >= 0.4 * width, `the slab column is ${Math.round(col)} px of ${width}`);
        assert.ok(good.some((r) => r.cells.every((c) => c.height >= 28)), `cells of 28 px at ${width}x${height}: ${JSON.stringify(good.map((r) => r.cells[0]?.height))}`);
      }
      // the structure's words stay inside their boxes (2 px from the right edge)
      if (width < 1920) {
        const words = await page.evaluate(() => [...document.querySelectorAll('#lab-view svg.topo text')].filter((t) => t.textContent.trim()).map((t) => {
          const rect = t.parentNode.querySelector(':scope > rect'), a = t.getBoundingClientRect();
          const out = rect && a.left >= rect.getBoundingClientRect().left && a.left < rect.getBoundingClientRect().right && a.right > rect.getBoundingClientRect().right - 2;
          return { t: t.textContent, out };
        }));
        assert.deepEqual(words.filter((w) => w.out).map((w) => w.t), [], 'no word runs into its box\'s edge');
      }
      // the step counter stays on the button row
      const row = await page.evaluate(() => {
        const box = (s) => document.querySelector(s).getBoundingClientRect();
        const pos = box('#position'), play = box('#play');
        return { pos: [pos.top, pos.bottom, pos.right], play: [play.top, play.bottom] };
      });
      assert.ok(row.pos[0] < row.play[1] && row.pos[1] > row.play[0], `the counter (${row.pos.map(Math.round)}) is on the buttons' row (${row.play.map(Math.round)})`);
      assert.ok(row.pos[2] <= width, 'the counter is inside the screen');
      // the sentence and the structure's CPUs and barn are on the screen with them
      const on = await page.evaluate(() => ['#narration', '#lab-view svg.topo'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
      }));
      assert.deepEqual(on, [true, true], 'the sentence and the structure are on the screen');
      await page.screenshot({ path: join(OUT, `lecture-presenter-${width}x${height}.png`) });
      // step 40 decides without moving anything (__pcs_replace_empty_main): the deciding CPU is outlined
      await press(page, 'ArrowRight', 10);
      await waitAt(page, 40);
      assert.ok(await page.evaluate(() => document.querySelectorAll('#lab-view svg.topo .touched').length) >= 1, 'what step 40 touched is outlined');
    });
    await page.close();
  });
}

/**
 * The structure's CPU boxes in the page: for each, what is drawn outside its
 * box (a stack, a word) and which of its words overlap one another.
 */
function cpuBoxesClipped() {
  const out = [];
  for (const g of document.querySelectorAll('#lab-view svg.topo g.cpu')) {
    const box = g.querySelector(':scope > rect.box').getBoundingClientRect();
    const name = g.querySelector('text').textContent;
    const say = (e) => e.textContent.slice(0, 24);
    const parts = [...g.querySelectorAll('rect, text')].filter((e) => !e.matches(':scope > rect.box'));
    for (const e of parts) {
      const r = e.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1))
        out.push(`${name}: ${e.tagName} "${say(e)}" outside its box (${Math.round(r.left)}-${Math.round(r.right)} in ${Math.round(box.left)}-${Math.round(box.right)})`);
    }
    const words = [...g.querySelectorAll('text')].map((t) => ({ t: t.textContent, r: t.getBoundingClientRect() })).filter((w) => w.t.trim() && w.r.width);
    for (let i = 0; i < words.length; i++) {
      for (let j = i + 1; j < words.length; j++) {
        const a = words[i].r, b = words[j].r;
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left), y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 1 && y > Math.min(a.height, b.height) / 2) out.push(`${name}: "${words[i].t}" overlaps "${words[j].t}"`);
      }
    }
  }
  return out;
}

// four CPUs in a row (flush-order) and eight in rows of compact boxes (maple):
// at the projectors' sizes every CPU box holds its title, stacks and their words
for (const [width, height] of [[1280, 720], [1920, 1080]]) {
  for (const scenario of ['flush-order', 'maple-prefill-kfree-rcu']) {
    test(`presenter view at ${width}x${height}: ${scenario}'s CPU boxes hold their titles, stacks and words`, async (t) => {
      const page = await lab(`/?scenario=${scenario}&presenter=1`, { width, height });
      await shotOnFailure(t, page, async () => {
        await press(page, 'ArrowRight', 30);
        await waitAt(page, 30);
        await page.waitForTimeout(300);
        const n = await page.evaluate(() => document.querySelectorAll('#lab-view svg.topo g.cpu').length);
        assert.equal(n, scenario === 'flush-order' ? 4 : 8);
        assert.deepEqual(await page.evaluate(cpuBoxesClipped), []);
        // the slab rows keep their room beside it
        const rows = await page.evaluate(() => window.__slublab.slabRows());
        assert.ok(rows.some((r) => r.cells.length >= 4 && r.cells.every((c) => c.height >= 24)), `slab cells of 24 px: ${JSON.stringify(rows.map((r) => r.cells[0]?.height))}`);
        if (width === 1920) await page.screenshot({ path: join(OUT, `lecture-presenter-${scenario}-${width}x${height}.png`) });
      });
      await page.close();
    });
  }
}

test('normal view at 1280x720: the header on one line, the caches table in its panel, the structure inside the picture', async (t) => {
  const page = await lab('/?scenario=free-storm', { width: 1280, height: 720 });
  await shotOnFailure(t, page, async () => {
    await press(page, 'ArrowRight', 30);
    await waitAt(page, 30);
    const r = await page.evaluate(() => {
      const top = document.querySelector('header.top');
      const kids = [...top.children].filter((e) => e.getClientRects().length);
      const button = top.querySelector('#presenter').getBoundingClientRect();
      const pic = document.querySelector('#picture').getBoundingClientRect();
      const boxes = [...document.querySelectorAll('#lab-view svg.topo rect.box')].map((b) => b.getBoundingClientRect());
      const svg = document.querySelector('#lab-view svg.topo').getBoundingClientRect();
      const caches = document.querySelector('#caches');
      return { header: top.getBoundingClientRect().height, row: button.height, tops: kids.map((e) => Math.round(e.getBoundingClientRect().top)),
        right: Math.max(...boxes.map((b) => b.right)), svgRight: svg.right, picRight: pic.right, caches: [caches.scrollWidth, caches.clientWidth] };
    });
    // one row: as tall as a button and the header's padding, every item on the same line
    assert.ok(r.header <= r.row + 16, `the header is ${r.header} px for ${r.row} px buttons: ${JSON.stringify(r.tops)}`);
    assert.ok(Math.max(...r.tops) - Math.min(...r.tops) <= 8, `one line: ${JSON.stringify(r.tops)}`);
    // the boxes' outlines are drawn inside the picture, not on its edge
    assert.ok(r.right <= r.svgRight - 0.5 && r.right <= r.picRight - 0.5, `the boxes end at ${r.right}, the picture at ${r.picRight}`);
    // the ranked caches fit their panel (the other columns on demand)
    assert.ok(r.caches[0] <= r.caches[1] + 1, `the caches table is ${r.caches[0]} px in ${r.caches[1]} px`);
    // 1440x900 with a lesson open (its long name in the menu): still one row, High contrast on it
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${base}/?lesson=02-fast-paths-and-sheaves&slide=3`);
    await page.waitForSelector('#lesson[data-applied="3"]', { timeout: 20000 });
    const tops = await page.evaluate(() => [...document.querySelector('header.top').children].filter((e) => e.getClientRects().length)
      .map((e) => `${e.id || e.tagName}:${Math.round(e.getBoundingClientRect().top)}`));
    const ys = tops.map((x) => Number(x.split(':').pop()));
    assert.ok(Math.max(...ys) - Math.min(...ys) <= 8, `one line at 1440x900: ${tops.join(' ')}`);
  });
  await page.close();
});

/**
 * Where the lines of #narration break inside a word other than after an
 * underscore ("kmem_cac|he_alloc"): the words around each such break.
 */
function midWordBreaks() {
  const el = document.getElementById('narration');
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const bad = [];
  let last = null, gap = '';
  for (let n; (n = walk.nextNode());) {
    for (let i = 0; i < n.length; i++) {
      const r = document.createRange();
      r.setStart(n, i);
      r.setEnd(n, i + 1);
      const b = r.getClientRects()[0];
      if (!b || !b.width) { gap += n.data[i]; continue; }
      const c = { ch: n.data[i], top: b.top };
      if (last && c.top > last.top + 4 && !/\s/.test(gap + last.ch + c.ch) && last.ch !== '_' && last.ch !== '-')
        bad.push(`${last.ch}|${c.ch} in "${el.textContent}"`);
      last = c;
      gap = '';
    }
  }
  return bad;
}

test('presenter at 1280x720: the sentence breaks identifiers only after an underscore', async (t) => {
  const page = await lab('/?scenario=default&presenter=1', { width: 1280, height: 720 });
  await shotOnFailure(t, page, async () => {
    let lines = 0;
    for (let at = 1; at <= 12; at++) {
      await press(page, 'ArrowRight');
      await waitAt(page, at);
      await page.waitForFunction(() => document.getElementById('narration').textContent.length > 0);
      assert.deepEqual(await page.evaluate(midWordBreaks), [], `step ${at}`);
      lines = Math.max(lines, await page.evaluate(() => {
        const el = document.getElementById('narration');
        return Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight));
      }));
    }
    assert.ok(lines >= 3, `the sentences wrap (${lines} lines), so the breaks were tested`);
  });
  await page.close();
});

test('keys: Space after ticking a breakpoint plays and leaves it ticked; → after choosing a scenario steps and keeps it; ? shows the keys', async (t) => {
  const page = await lab('/?scenario=free-storm', { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    // before: the focused checkbox took Space and unticked itself; nothing played
    await page.click('#bp-new_slab');
    assert.equal(await page.isChecked('#bp-new_slab'), true);
    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.__slublab.player.get().playing || window.__slublab.player.get().at > 0);
    assert.equal(await page.isChecked('#bp-new_slab'), true, 'the breakpoint stays ticked');
    await page.keyboard.press(' ');
    await page.waitForFunction(() => !window.__slublab.player.get().playing);
    // before: the focused menu took → and switched to the next scenario
    await page.focus('#scenario-select');
    await page.selectOption('#scenario-select', 'spare-and-barn');
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'spare-and-barn' && window.__slublab.player.get().at === 0);
    await waitAt(page, 0);
    await page.keyboard.press('ArrowRight');
    await waitAt(page, 1);
    await page.keyboard.press('ArrowRight');
    await waitAt(page, 2);
    assert.equal((await model(page)).scenario, 'spare-and-barn');
    assert.equal(await page.inputValue('#scenario-select'), 'spare-and-barn');
    // a shut menu with the focus: its arrows step the lab, they do not choose
    await page.focus('#kernel-select');
    const kernel = await page.inputValue('#kernel-select');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await waitAt(page, 3);
    assert.equal(await page.inputValue('#kernel-select'), kernel);
    // ? shows every key over the page; Esc closes it; q is predict mode
    await page.keyboard.press('?');
    await page.waitForSelector('#keys-help[open]');
    const keys = await page.textContent('#keys-help');
    for (const k of ['Space', '→', 'Home', 'End', 'b', 'n', 'q', '?', ']']) assert.ok(keys.includes(k), k);
    assert.equal((await model(page)).at, 3);
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(200);
    assert.equal((await model(page)).at, 3, 'the keys wait while the list is open');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#keys-help:not([open])', { state: 'hidden' });
    await page.keyboard.press('q');
    await page.waitForSelector('#predict[aria-pressed="true"]');
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('compare: a scenario chosen while it loads stays chosen; ids are unique across the page', async (t) => {
  const page = await lab('/?scenario=free-storm', { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    // the comparison takes a second to load (a slow server), so the choice is made while it loads
    await page.route(/\/api\/compare\?/, async (r) => { await new Promise((res) => setTimeout(res, 1000)); await r.continue(); });
    await page.click('#viewbtn-compare');
    // chosen at once, before the comparison of the lab's scenario has loaded
    await page.waitForSelector('#cmp-scenario option[value="spare-and-barn"]', { state: 'attached' });
    await page.selectOption('#cmp-scenario', 'spare-and-barn');
    await page.waitForSelector('#cmp-table tbody tr');
    await page.waitForTimeout(500);
    assert.equal(await page.inputValue('#cmp-scenario'), 'spare-and-barn', 'the choice made while it loaded');
    const dups = await page.evaluate(() => {
      const seen = new Map();
      for (const el of document.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) ?? 0) + 1);
      return [...seen].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${n}`);
    });
    assert.deepEqual(dups, [], 'every id once');
    // Compare runs the choice
    await page.click('#cmp-run');
    await page.waitForFunction(() => /spare-and-barn/.test(document.querySelector('#cmp-msg')?.textContent ?? ''));
    assert.equal(await page.inputValue('#cmp-scenario'), 'spare-and-barn');
  });
  await page.close();
});

test('a follower shows the presenter\'s breakpoints, ticked and read-only, and its projector theme', async (t) => {
  const presenter = await lab('/?scenario=free-storm&presenter=1', { width: 1280, height: 720 });
  let student = null;
  await shotOnFailure(t, presenter, async () => {
    await presenter.waitForFunction(() => /\?lecture=\w+/.test(document.querySelector('#follow-url')?.textContent ?? ''));
    const link = await presenter.getAttribute('#follow-url', 'href');
    student = await openPage(browser.ctx, link, { width: 1024, height: 768 });
    await student.waitForSelector('body[data-ready="1"]');
    // before: the follower's breakpoints stayed its own (none)
    await presenter.click('#bp-barn_put_fail');
    await presenter.click('#theme');
    await student.waitForFunction(() => document.querySelector('#bp-barn_put_fail')?.checked, null, { timeout: 8000 });
    assert.equal(await student.isDisabled('#bp-barn_put_fail'), true, 'read-only');
    assert.equal(await student.isChecked('#bp-new_slab'), false);
    await student.waitForFunction(() => document.documentElement.classList.contains('projector'), null, { timeout: 8000 });
    assert.match(await student.textContent('#bp-list'), /barn_put_fail/);
    // and back
    await presenter.click('#bp-barn_put_fail');
    await student.waitForFunction(() => !document.querySelector('#bp-barn_put_fail')?.checked, null, { timeout: 8000 });
    assert.deepEqual(student.errors, []);
    await presenter.click('#theme'); // the normal theme again, for the pages after (the choice is kept)
    await student.waitForFunction(() => !document.documentElement.classList.contains('projector'), null, { timeout: 8000 });
  });
  await student?.close();
  await presenter.close();
});

test('the follow link uses the address the server is reached at (--public-url), not the page\'s', async (t) => {
  // the teacher's page is on 127.0.0.1; the class reaches the lab at another address
  const other = await startServer(['--public-url', 'http://192.0.2.10:8123/']);
  const page = await openPage(browser.ctx, `${other.url}/?scenario=spare-and-barn&presenter=1`, { width: 1280, height: 720 });
  try {
    await shotOnFailure(t, page, async () => {
      await page.waitForFunction(() => /\?lecture=\w+/.test(document.querySelector('#follow-url')?.textContent ?? ''));
      await page.waitForFunction(() => /^http:\/\/192\.0\.2\.10:8123\/\?lecture=/.test(document.querySelector('#follow-url')?.textContent ?? ''), null, { timeout: 5000 });
      assert.match(await page.getAttribute('#follow-url', 'href'), /^http:\/\/192\.0\.2\.10:8123\/\?lecture=\w+$/);
    });
  } finally {
    await page.close();
    await other.stop();
  }
});

test('presenter at 1280x720 with a question open: the count of answers and Reveal are on the screen', async (t) => {
  const page = await lab('/?scenario=free-storm&presenter=1&predict=1', { width: 1280, height: 720 });
  await shotOnFailure(t, page, async () => {
    await page.waitForFunction(() => window.__slublab.player.get().allEvents);
    // one press at a time, each waited for: a press after the question opened would reveal it
    for (let i = 0; i < 40; i++) {
      const at = await page.evaluate(() => window.__slublab.player.get().at);
      await press(page, 'ArrowRight');
      await page.waitForFunction((a) => { const m = window.__slublab.player.get(); return m.question !== null || m.at !== a; }, at);
      if (await page.evaluate(() => window.__slublab.player.get().question !== null)) break;
    }
    await page.waitForSelector('#q-skip');
    // the tally is asked every second once the lecture exists: slow on a loaded machine
    await page.waitForSelector('#q-choices-total', { timeout: 30000 });
    const seen = await page.evaluate(() => ['#q-skip', '#q-choices-total'].map((s) => {
      const el = document.querySelector(s), r = el.getBoundingClientRect();
      // on the screen, and the topmost thing at its middle (not scrolled away under the pane's edge)
      const top = document.elementFromPoint(r.left + Math.min(20, r.width / 2), r.top + r.height / 2);
      return r.top >= 0 && r.bottom <= innerHeight && !!top && (el === top || el.contains(top));
    }));
    assert.deepEqual(seen, [true, true], 'Reveal and the count of answers are visible');
  });
  await page.close();
});
