// Browser tests of a lecture that never breaks: keys whatever has the focus,
// one numbering of operations, timeline markers that never hide each other,
// the in-flight box and the caller pocket agreeing with the state, the
// scenario menu and the operation form after a custom scenario, the offline
// copy's refusal shown, and the Share tab's permalinks and snapshot list.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/lecture.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, api, waitAt, model, press, labFixture } from './helpers.mjs';

let server, browser, base;
labFixture((f) => ({ server, browser, base } = f));

async function lab(path = '/', viewport) {
  const page = await openPage(browser.ctx, base + path, viewport);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

const SIZES = [{ width: 1440, height: 900 }, { width: 1024, height: 768 }, { width: 390, height: 844 }];

test('Space plays and pauses after a click on a button; keys stay a field\'s while typing', async (t) => {
  const page = await lab('/?scenario=free-storm');
  await shotOnFailure(t, page, async () => {
    // the focus stays on the button just clicked
    await page.click('#presenter');
    assert.equal(await page.getAttribute('#presenter', 'aria-pressed'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'presenter');
    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.__slublab.player.get().playing);
    assert.equal(await page.getAttribute('#presenter', 'aria-pressed'), 'true', 'Space did not press the focused button');
    await page.keyboard.press(' ');
    await page.waitForFunction(() => !window.__slublab.player.get().playing);
    assert.equal(await page.getAttribute('#presenter', 'aria-pressed'), 'true');
    await page.click('#presenter');
    // a tab, a summary, a zoom button: the arrows step, Space plays
    await press(page, 'Home');
    await waitAt(page, 0);
    for (const sel of ['#zoom-in', 'details.panel > summary']) {
      await page.focus(sel);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press(' ');
      await page.waitForFunction(() => window.__slublab.player.get().playing);
      await page.keyboard.press(' ');
      await page.waitForFunction(() => !window.__slublab.player.get().playing);
    }
    assert.ok((await model(page)).at >= 2);
    // the tab list's arrows move between tabs and do not step
    const at = (await model(page)).at;
    await page.focus('#tabbtn-explain');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tabbtn-counters', 'aria-selected'), 'true');
    await page.waitForTimeout(150);
    assert.equal((await model(page)).at, at, 'the arrow on a tab did not step');
    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.__slublab.player.get().playing);
    await page.keyboard.press(' ');
    await page.waitForFunction(() => !window.__slublab.player.get().playing);
    // a text field keeps its keys
    await page.click('#tabbtn-share');
    await page.waitForSelector('#snap-note');
    await page.click('#snap-note');
    const before = (await model(page)).at;
    await page.keyboard.type('a b');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.inputValue('#snap-note'), 'a b');
    assert.equal((await model(page)).playing, false);
    assert.equal((await model(page)).at, before);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('operations are numbered one way: the header and the Explain tab name the same operation', async (t) => {
  const page = await lab('/?scenario=fresh-slab-fill');
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    assert.equal(await page.textContent('#position'), `step 0 / ${m.end} · op 0 / ${m.ops}`);
    for (let at = 1; at <= m.end; at++) {
      await press(page, 'ArrowRight');
      await waitAt(page, at);
      const st = await api(base, `/api/sessions/${m.id}/state?at=${at}`);
      const head = /op (\d+) \/ (\d+)/.exec(await page.textContent('#position'));
      await page.waitForFunction((a) => document.querySelector('#event-detail').textContent.includes(`Step ${a},`), at);
      const detail = /Step (\d+), in operation (\d+) of (\d+)/.exec(await page.textContent('#event-detail'));
      assert.ok(head && detail, `step ${at}: "${await page.textContent('#position')}" / "${await page.textContent('#event-detail')}"`);
      assert.equal(Number(head[1]), st.event.op + 1, `step ${at}: the header counts operations from 1`);
      assert.equal(Number(detail[1]), at);
      assert.equal(detail[2], head[1], `step ${at}: header and Explain agree`);
      assert.equal(detail[3], head[2]);
    }
    assert.equal(await page.textContent('#position'), `step ${m.end} / ${m.end} · op ${m.ops} / ${m.ops}`);
  });
  await page.close();
});

test('timeline markers one step apart both stay visible and clickable (free-storm)', async (t) => {
  for (const size of SIZES) {
    const page = await lab('/?scenario=free-storm', size);
    await shotOnFailure(t, page, async () => {
      await page.waitForFunction(() => window.__slublab.player.get().markers.length > 0);
      await page.waitForSelector('.markers .mk-barn_put_fail');
      const marks = await page.evaluate(() => window.__slublab.player.get().markers.map((x) => ({ at: x.at, kind: x.kind })));
      const put = marks.find((x) => x.kind === 'barn_put_fail');
      const flush = marks.find((x) => x.kind === 'sheaf_flush' && x.at === put.at + 1);
      assert.ok(put && flush, 'a barn_put_fail with a sheaf_flush one step later');
      const boxes = await page.evaluate(() => [...document.querySelectorAll('.markers .mark')].map((b) => {
        const r = b.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return { label: b.getAttribute('aria-label'), x: r.left, y: r.top, w: r.width, h: r.height, top: hit === b };
      }));
      // every marker is on top where it is drawn, and no two overlap
      for (const b of boxes) assert.ok(b.top && b.w > 0, `${size.width}: ${b.label} is visible and clickable`);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i], b = boxes[j];
          const overlap = a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
          assert.ok(!overlap, `${size.width}: "${a.label}" and "${b.label}" overlap`);
        }
      }
      const label = (x) => boxes.find((b) => b.label.includes(`at step ${x.at}`) && b.label.includes(x.kind === 'sheaf_flush' ? 'sheaf flush' : 'barn_put_fail'));
      assert.ok(label(put) && label(flush), 'both markers are drawn');
      // a click on each goes to its step
      await page.click(`.markers .mark[aria-label="sheaf flush at step ${flush.at}"]`);
      await waitAt(page, flush.at);
      await page.click(`.markers .mark[aria-label="barn_put_fail at step ${put.at}"]`);
      await waitAt(page, put.at);
      // the marker rows leave the picture below them alone
      const rows = await page.evaluate(() => {
        const m = document.querySelector('.markers').getBoundingClientRect();
        const last = Math.max(...[...document.querySelectorAll('.markers .mark')].map((b) => b.getBoundingClientRect().bottom));
        const next = document.querySelector('#narration').getBoundingClientRect().top;
        return { last, next, top: m.top };
      });
      assert.ok(rows.last <= rows.next + 0.5, `${size.width}: the markers end (${rows.last}) above the narration (${rows.next})`);
      assert.deepEqual(page.errors, []);
    });
    await page.close();
  }
});

test('the in-flight box counts the objects the legend counts (fresh-slab-fill, step 6)', async (t) => {
  for (const size of SIZES) {
    const page = await lab('/?scenario=fresh-slab-fill', size);
    await shotOnFailure(t, page, async () => {
      const m = await model(page);
      await press(page, 'ArrowRight', 6);
      await waitAt(page, 6);
      const st = await api(base, `/api/sessions/${m.id}/state?at=6`);
      const inSheaves = st.state.sheaves.filter((s) => s.place.type === 'inflight').reduce((n, s) => n + s.size, 0);
      assert.ok(inSheaves > 0, 'a sheaf in flight holds objects at step 6');
      await page.waitForFunction(() => /in flight \(\d+\)/.test(document.querySelector('.legend')?.textContent ?? ''));
      const legend = Number(/in flight \((\d+)\)/.exec(await page.textContent('.legend'))[1]);
      assert.equal(legend, inSheaves + st.state.inflight.length);
      const box = await page.textContent('#picture g.hold[data-hold="flight"]');
      assert.match(box, new RegExp(`\\b${legend} objects?\\b`), `${size.width}: "${box}" counts ${legend} objects`);
    });
    await page.close();
  }
});

test('the caller pocket shows the object the caller was handed', async (t) => {
  const page = await lab('/?scenario=default');
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    await press(page, 'ArrowRight', 11);
    await waitAt(page, 11);
    const st = await api(base, `/api/sessions/${m.id}/state?at=11`);
    const mv = st.event.moves.find((x) => x.to.type === 'user');
    assert.ok(mv, 'step 11 hands an object to the caller');
    const pocket = `#picture g.caller[data-cpu="${st.event.cpu}"]`;
    await page.waitForSelector(`${pocket}.touched`);
    const text = await page.textContent(pocket);
    assert.ok(text.includes(mv.id.slice(-5)), `the caller pocket "${text}" names ${mv.id}`);
    // the object in the pocket is a button that selects it for the inspector
    await page.click(`${pocket} [data-object="${mv.id}"]`);
    await page.waitForFunction((id) => window.__slublab.player.get().selection?.id === id, mv.id);
    // the other CPU's caller holds nothing: its pocket says so
    const other = await page.textContent(`#picture g.caller[data-cpu="${1 - st.event.cpu}"]`);
    assert.doesNotMatch(other, /…/);
    // a free: the object leaves the caller, and the pocket says where it went
    const end = m.end;
    let freeAt = null;
    for (let at = 12; at <= end && freeAt == null; at++) {
      const s = await api(base, `/api/sessions/${m.id}/state?at=${at}`);
      if (s.event.moves.some((x) => x.from.type === 'user')) freeAt = at;
    }
    assert.ok(freeAt, 'the default scenario frees an object');
    await page.evaluate((a) => window.__slublab.player.seek(a), freeAt);
    await waitAt(page, freeAt);
    const sf = await api(base, `/api/sessions/${m.id}/state?at=${freeAt}`);
    const out = sf.event.moves.find((x) => x.from.type === 'user');
    await page.waitForFunction(([sel, id]) => document.querySelector(sel)?.textContent.includes(id.slice(-5)),
      [`#picture g.caller[data-cpu="${sf.event.cpu}"]`, out.id]);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('your own scenario: the Scenario menu says custom; an operation with no cache says why', async (t) => {
  const page = await lab('/?scenario=default');
  await shotOnFailure(t, page, async () => {
    await page.waitForFunction(() => document.querySelector('#scenario-select').options.length > 2);
    assert.equal(await page.inputValue('#scenario-select'), 'default');
    await page.click('#viewbtn-scenario');
    await page.waitForFunction(() => /"name": "default"/.test(document.querySelector('#scenario-text')?.value ?? ''));
    const mine = { format: 1, name: 'mine', caches: [{ name: 'A', object_size: 64 }], ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'x' }] };
    await page.fill('#scenario-text', JSON.stringify(mine));
    await page.click('#sc-run');
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'mine');
    await page.waitForSelector('#viewbtn-lab[aria-pressed="true"]');
    await page.waitForFunction(() => document.querySelector('#scenario-select').value === '');
    assert.match(await page.evaluate(() => document.querySelector('#scenario-select').selectedOptions[0].textContent), /mine/);
    // back to a shipped one: the menu follows
    await page.selectOption('#scenario-select', 'free-storm');
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'free-storm');
    assert.equal(await page.inputValue('#scenario-select'), 'free-storm');
    // step 0: no cache exists yet
    await press(page, 'Home');
    await waitAt(page, 0);
    await page.click('details.panel:has(#ops) > summary');
    await page.waitForSelector('#op-run');
    await page.selectOption('#op-kind', 'alloc');
    await page.click('#op-run');
    await page.waitForFunction(() => /./.test(document.querySelector('#ops .msg').textContent));
    assert.match(await page.textContent('#ops .msg'), /no cache exists yet at step 0: create one first/);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('offline copy: the Share tab says the limit, and a session too long for one says why instead of a silent cancel', async (t) => {
  const big = { format: 1, name: 'long-run', caches: [{ name: 'A', object_size: 64 }],
    ops: [{ op: 'repeat', times: 125001, ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'x' }, { op: 'free', cpu: 0, cache: 'A', name: 'x' }] }] };
  const s = await api(base, '/api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ scenario: big }) });
  assert.ok(s.events > 250000, `${s.events} events`);
  const page = await lab(`/?session=${s.id}&at=5`);
  page.allow.push(/status of 422/);
  await shotOnFailure(t, page, async () => {
    await waitAt(page, 5);
    await page.waitForFunction(() => /engine/.test(document.getElementById('version')?.textContent ?? ''));
    await page.click('#tabbtn-share');
    await page.waitForSelector('#export-html');
    assert.match(await page.textContent('#export-html-limit'), /up to 250,000 steps/);
    let downloads = 0;
    page.on('download', () => { downloads++; });
    await page.click('#export-html');
    await page.waitForFunction(() => /too long for an offline copy/.test(document.querySelector('#snap-msg')?.textContent ?? ''));
    assert.match(await page.textContent('#snap-msg'), /: 250,0\d\d steps, at most 250,000\./);
    await page.waitForTimeout(300);
    assert.equal(downloads, 0);
  });
  await page.close();
});

test('share tab: permalinks reopen the lab at the step; recent snapshots are this browser\'s', async (t) => {
  const page = await lab('/?scenario=default');
  await shotOnFailure(t, page, async () => {
    await press(page, 'ArrowRight', 7);
    await waitAt(page, 7);
    const m = await model(page);
    // someone else's snapshot of the same session
    const other = await api(base, '/api/snapshots', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ session: m.id, at: 3, title: 'not from this browser' }) });
    await page.click('#tabbtn-share');
    await page.fill('#snap-title', 'mine at seven');
    await page.click('#snap-save');
    await page.waitForFunction(() => /Saved snapshot/.test(document.querySelector('#snap-msg').textContent));
    await page.waitForFunction(() => /mine at seven/.test(document.querySelector('#snap-list').textContent));
    const listed = await page.textContent('#snap-list');
    assert.doesNotMatch(listed, /not from this browser/);
    assert.ok(other.id);
    for (const btn of ['#snap-copy', '#view-copy']) {
      await page.click(btn);
      const url = await page.inputValue('#permalink');
      assert.doesNotMatch(url, /tab=share/, `${btn}: ${url}`);
      const p2 = await openPage(browser.ctx, url);
      await p2.waitForSelector('body[data-ready="1"]');
      await waitAt(p2, 7);
      assert.equal(await p2.getAttribute('#tabbtn-explain', 'aria-selected'), 'true');
      assert.equal(await p2.isHidden('#tab-share'), true);
      assert.equal(await p2.getAttribute('#viewbtn-lab', 'aria-pressed'), 'true');
      assert.deepEqual(p2.errors, []);
      await p2.close();
    }
    // a reload of the page itself keeps its tab (the address bar is not a permalink)
    await page.waitForFunction(() => /tab=share/.test(location.search));
  });
  await page.close();
});
