// The compare view: both sides stepped by scenario operation (the server's
// operation boundaries, not the events the page has loaded), opened on the
// scenario or session the lab shows, a warning when the two runs cannot
// differ, a link that reopens the same comparison at the same step, and
// counters at the current step.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { openPage, shotOnFailure, api, model, labFixture } from './helpers.mjs';

let server, browser, base;
labFixture((f) => ({ server, browser, base } = f));

async function lab(path) {
  const page = await openPage(browser.ctx, base + path);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

const caption = (page) => page.textContent('#cmp-caption');
const pos = (page) => page.textContent('#cmp-pos');

/** Wait until both sides stand at scenario operation @op of @total. */
async function bothAt(page, op, total, timeout = 60000) {
  await page.waitForFunction(([o, n]) => document.querySelector('#cmp-pos')?.textContent === `operation ${o} of ${n}`
    && [...document.querySelectorAll('#compare-view section.side')].every((s) => s.dataset.op === String(o)), [op, total], { timeout });
}

/** Each side's scenario operation, as the server's state at the side's position says. */
async function sideOps(page) {
  const sides = await page.$$eval('#compare-view section.side', (xs) => xs.map((s) => ({ id: s.dataset.session, at: s.dataset.at })));
  return Promise.all(sides.map(async (s) => (await api(base, `/api/sessions/${s.id}/state?at=${s.at}`)).state.op));
}

/** Run the comparison chosen in the form. */
async function runCompare(page, scenario, axis) {
  if (scenario) await page.selectOption('#cmp-scenario', scenario);
  await page.selectOption('#cmp-axis', axis);
  await page.click('#cmp-run');
  const [, v] = axis.split(':');
  await page.waitForFunction((x) => (document.querySelector('#cmp-caption')?.textContent ?? '').includes(x), v.split(',')[0]);
  await page.waitForFunction(() => /^operation 0 of \d+$/.test(document.querySelector('#cmp-pos')?.textContent ?? ''));
}

test('compare steps both sides by scenario operation: maple with BARN_REFILL, End, then ten ◀◀ Op', async (t) => {
  const page = await lab('/?scenario=maple-prefill-kfree-rcu');
  await shotOnFailure(t, page, async () => {
    const total = (await model(page)).ops;
    assert.ok(total > 100000);
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr', { timeout: 60000 });
    await runCompare(page, 'maple-prefill-kfree-rcu', 'variant:BARN_REFILL');
    assert.equal(await pos(page), `operation 0 of ${total}`);
    await page.click('#cmp-end');
    await bothAt(page, total, total);
    for (let i = 0; i < 10; i++) await page.click('#cmp-back');
    await bothAt(page, total - 10, total);
    assert.deepEqual(await sideOps(page), [total - 10, total - 10]);
    // forward by one from there, and again both agree
    await page.click('#cmp-fwd');
    await bothAt(page, total - 9, total);
    assert.deepEqual(await sideOps(page), [total - 9, total - 9]);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('compare opened from a scenario shows it in its menu, and Compare compares what is shown', async (t) => {
  const page = await lab('/?scenario=spare-and-barn');
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr');
    await page.waitForFunction(() => document.querySelectorAll('#cmp-scenario option').length > 5);
    assert.equal(await page.inputValue('#cmp-scenario'), 'spare-and-barn');
    assert.match(await caption(page), /^spare-and-barn, /);
    // change only the axis
    await runCompare(page, null, 'variant:BARN_REFILL');
    assert.match(await caption(page), /^spare-and-barn, cache .*BARN_REFILL=before \(baseline\)/);
    assert.equal(await page.inputValue('#cmp-scenario'), 'spare-and-barn');
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a variant that cannot change the run says so', async (t) => {
  const page = await lab('/?scenario=free-storm');
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr');
    await runCompare(page, 'free-storm', 'variant:CPU_PARTIAL_DIRECT_LOAD');
    await page.waitForSelector('#cmp-warning:not([hidden])');
    assert.match(await page.textContent('#cmp-warning'), /CPU_PARTIAL_DIRECT_LOAD does not change what the sheaves model does.*identical/);
    // a comparison that differs has no warning
    await runCompare(page, 'free-storm', 'model:legacy,sheaves');
    assert.equal(await page.isHidden('#cmp-warning'), true);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a comparison is a link: the same runs at the same step, with counters at that step', async (t) => {
  const page = await lab('/?scenario=default');
  let url;
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr');
    await runCompare(page, 'default', 'variant:BARN_REFILL');
    const total = (await model(page)).ops;
    for (let i = 0; i < 3; i++) await page.click('#cmp-fwd');
    await bothAt(page, 3, total);
    // the counters at this step, not the end totals
    await page.check('#cmp-at-step');
    await page.waitForFunction(() => /at operation 3/.test(document.querySelector('#cmp-caption')?.textContent ?? ''));
    const sides = await page.$$eval('#compare-view section.side', (xs) => xs.map((s) => ({ id: s.dataset.session, at: s.dataset.at })));
    const st = await api(base, `/api/sessions/${sides[0].id}/state?at=${sides[0].at}`);
    const cache = st.state.caches.find((c) => c.name === 'A');
    const cell = async (m) => page.$$eval(`#cmp-table tr[data-metric="${m}"] td`, (tds) => tds.map((x) => x.textContent));
    assert.equal((await cell('alloc_fastpath'))[0], String(cache.stats.alloc_fastpath ?? 0));
    const end = await api(base, '/api/compare?scenario=default&variant=BARN_REFILL');
    assert.notEqual(String(end.rows.find((r) => r.metric === 'alloc_fastpath').baseline), (await cell('alloc_fastpath'))[0]);
    await page.waitForFunction(() => /[?&]op=3(&|$)/.test(location.search) && /counters=step/.test(location.search));
    url = page.url();
    const q = new URL(url).searchParams;
    assert.equal(q.get('view'), 'compare');
    assert.equal(q.get('cmp'), 'default');
    assert.equal(q.get('axis'), 'variant:BARN_REFILL');
  });
  await page.close();
  const again = await openPage(browser.ctx, url);
  await shotOnFailure(t, again, async () => {
    await again.waitForSelector('#cmp-table tbody tr');
    const total = (await api(base, '/api/compare?scenario=default&variant=BARN_REFILL&open=1', { method: 'POST' }).then((r) => api(base, `/api/sessions/${r.runs[0].id}`))).ops;
    await bothAt(again, 3, total);
    assert.equal(await again.inputValue('#cmp-scenario'), 'default');
    assert.equal(await again.inputValue('#cmp-axis'), 'variant:BARN_REFILL');
    assert.equal(await again.isChecked('#cmp-at-step'), true);
    assert.match(await caption(again), /^default, cache A: BARN_REFILL=before \(baseline\) vs BARN_REFILL=after \(patched\), at operation 3/);
    assert.deepEqual(again.errors, []);
  });
  await again.close();
});

test('compare a session of the user\'s own: its scenario and appended operations', async (t) => {
  const mine = {
    format: 1, name: 'mine', title: 'my own', machine: { cpus: 2 }, caches: [{ name: 'M', object_size: 192 }],
    ops: [{ op: 'repeat', times: 40, ops: [{ op: 'alloc', cpu: 0, cache: 'M', name: 'a{i}' }] },
      { op: 'repeat', times: 40, ops: [{ op: 'free', cpu: 1, name: 'a{i}' }] }],
  };
  const s = await api(base, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: mine }) });
  const more = await api(base, `/api/sessions/${s.id}/ops`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify([{ op: 'repeat', times: 5, ops: [{ op: 'alloc', cpu: 1, cache: 'M', name: 'b{i}' }] }]) });
  assert.ok(more);
  const info = await api(base, `/api/sessions/${s.id}`);
  const page = await lab(`/?session=${s.id}`);
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr');
    assert.equal(await page.inputValue('#cmp-scenario'), `session:${s.id}`);
    assert.match(await caption(page), /^mine, cache M: /);
    await page.waitForFunction((n) => document.querySelector('#cmp-pos')?.textContent === `operation 0 of ${n}`, info.ops);
    await page.click('#cmp-end');
    await bothAt(page, info.ops, info.ops);
    // the table counts the appended allocations
    const want = await api(base, `/api/compare?session=${s.id}&variant=DEFERRED_FREELIST`);
    const cells = await page.$$eval('#cmp-table tr[data-metric="objects"] td', (tds) => tds.map((x) => x.textContent));
    assert.equal(cells[0], String(want.rows.find((r) => r.metric === 'objects').baseline));
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
