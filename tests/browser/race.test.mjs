// Browser tests of the race lab (docs/teaching.md, "The race lab"): the
// shipped race-irq-alloc shows one lane per context; a schedule where the
// task runs to its end before the interrupt has no retry; dragging the
// interrupt's chip between the task's reads and its cmpxchg and running it
// shows the lost compare (a cmpxchg_fail step, marked) and
// cmpxchg_double_cpu_fail > 0; the keyboard moves a chip back (Alt+→) and
// Enter runs it; a schedule the engine refuses shows the server's message;
// and race-no-tid (the NO_TID counterfactual) shows the object handed out
// twice; and the shortest bad schedule `slublab explore -o` writes opens
// in the lab, uploaded in Your scenario, with its report and its chips.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/race.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, shotOnFailure, api, model, labFixture, ROOT } from './helpers.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'slublab-race-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

let browser, base;
labFixture((f) => ({ browser, base } = f));

async function lab(path) {
  const page = await openPage(browser.ctx, base + path);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForSelector('#race:not([hidden]) .race-table');
  return page;
}

/** The chips' texts, in order. */
const chips = (page) => page.$$eval('#race-chips li[data-i]', (els) => els.map((e) => e.firstChild.textContent.trim()));

/** Drag chip @from onto the place before chip @to (pointer events, as a mouse does). */
async function dragChip(page, from, to) {
  const a = await page.locator(`#race-chip-${from}`).boundingBox();
  const b = await page.locator(`#race-chip-${to}`).boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  for (let k = 1; k <= 8; k++) await page.mouse.move(a.x + (b.x + 3 - a.x) * k / 8, b.y + b.height / 2);
  await page.mouse.up();
}

/** Run the chips' schedule and wait for the new session, shown at the race's start. */
async function runSchedule(page, how = () => page.click('#race-run')) {
  const before = (await model(page)).id;
  await how();
  await page.waitForFunction((id) => { const m = window.__slublab.player.get(); return m.session?.id !== id && !m.busy && m.allEvents; }, before);
  await page.waitForSelector('#race:not([hidden]) .race-table');
}

/** Step to the race's end; the counters and the lanes there. */
async function atEnd(page) {
  await page.evaluate(() => window.__slublab.player.endPos());
  await page.waitForFunction(() => { const m = window.__slublab.player.get(); return m.at === m.end; });
  await page.waitForTimeout(50);
  return page.evaluate(() => ({
    kinds: [...document.querySelectorAll('#race-lanes .race-step')].map((b) => b.dataset.kind),
    lost: [...document.querySelectorAll('#race-lanes .race-step.lost')].map((b) => b.dataset.kind),
    counter: Number(document.querySelector('[data-counter="cmpxchg_double_cpu_fail"] b')?.textContent ?? 'NaN'),
    lanes: [...document.querySelectorAll('#race-lanes tr[data-ctx]')].map((r) => r.dataset.ctx),
  }));
}

test('race-irq-alloc: lanes, a drag that makes the interrupt win, the retry and its counter', async (t) => {
  const page = await lab('/?scenario=race-irq-alloc');
  await shotOnFailure(t, page, async () => {
    const sc = (await api(base, '/api/scenarios/race-irq-alloc')).scenario;
    const race = sc.ops.find((o) => o.op === 'race');
    const ids = race.contexts.map((c) => c.id);
    assert.equal(ids.length, 2);
    const [A, I] = ids;
    const shipped = await atEnd(page);
    assert.deepEqual(shipped.lanes, ids, 'one lane per context, in the scenario\'s order');

    // the task runs to its end first: nothing to retry
    await page.fill('#race-sched-text', `${A} ${A} ${A}* ${I}*`);
    assert.deepEqual(await chips(page), [A, A, `${A}*`, `${I}*`]);
    await runSchedule(page);
    const calm = await atEnd(page);
    assert.ok(!calm.kinds.includes('cmpxchg_fail'), calm.kinds.join(' '));
    assert.equal(calm.counter, 0);
    assert.equal(await page.inputValue('#race-sched-text'), `${A} ${A} ${A}* ${I}*`);

    // drag the interrupt between the task's two reads and the rest of it
    await dragChip(page, 3, 2);
    assert.deepEqual(await chips(page), [A, A, `${I}*`, `${A}*`]);
    assert.match(await page.textContent('#race-msg'), /Changed/);
    await runSchedule(page);
    const m = await model(page);
    assert.ok(m.at > 0 && m.at < m.end, 'the new session opens at the race');
    const lost = await atEnd(page);
    assert.ok(lost.lost.includes('cmpxchg_fail'), `a cmpxchg_fail step, marked: ${lost.kinds.join(' ')}`);
    assert.ok(lost.counter > 0, `cmpxchg_double_cpu_fail ${lost.counter}`);
    // the failed compare is a step of the task, and after it the task reads again
    const seq = await page.$eval(`#race-lanes tr[data-ctx="${A}"] .race-step.lost`, (b) => Number(b.dataset.seq));
    const after = await page.$$eval(`#race-lanes tr[data-ctx="${A}"] .race-step`, (bs, s) => bs.filter((b) => Number(b.dataset.seq) > s).map((b) => b.dataset.kind), seq);
    assert.ok(after.some((k) => k.startsWith('read')), `reads after the failed compare: ${after.join(' ')}`);

    // on the failed step: the counter is marked, the compared words lit
    await page.click(`#race-lanes .race-step[data-seq="${seq}"]`);
    await page.waitForSelector('[data-counter="cmpxchg_double_cpu_fail"].bumped');
    assert.ok(await page.$('#race-words tr.cf'), 'the words the compare found changed are lit');
    assert.match(await page.textContent('#narration'), /cmpxchg fails/);

    // the keyboard: select the interrupt's chip, Alt+→ puts it last, Enter runs
    await page.focus('#race-chip-0');
    for (let k = 0; k < 2; k++) await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#race-chip-2', 'aria-selected'), 'true');
    const at = (await model(page)).at;
    await page.keyboard.press('Alt+ArrowRight');
    assert.equal((await model(page)).at, at, 'arrows in the bar move chips, not the player');
    assert.deepEqual(await chips(page), [A, A, `${A}*`, `${I}*`]);
    await runSchedule(page, () => page.keyboard.press('Enter'));
    assert.equal((await atEnd(page)).counter, 0);
    assert.deepEqual(page.errors, []);
  });
});

test('a schedule the engine refuses: the server\'s message, the lab stays', async (t) => {
  const page = await lab('/?scenario=race-irq-alloc');
  page.allow.push(/status of 4\d\d/);
  await shotOnFailure(t, page, async () => {
    const A = (await chips(page))[0];
    const id = (await model(page)).id;
    await page.fill('#race-sched-text', `${A}* ${A}`);
    await page.click('#race-run');
    await page.waitForSelector('#race-msg.err');
    const msg = await page.textContent('#race-msg');
    assert.match(msg, /did not run this schedule: .+/);
    assert.ok(msg.includes(A), msg);
    assert.equal((await model(page)).id, id);
    assert.deepEqual(page.errors, []);
  });
});

test('race-no-tid: the object handed out twice, reported', async (t) => {
  const page = await lab('/?scenario=race-no-tid');
  await shotOnFailure(t, page, async () => {
    await atEnd(page);
    const report = await page.textContent('#race-report');
    assert.match(report, /NO_TID \(not a kernel\).*lost/, 'the lost update, reported under the lanes');
    assert.match(report, /validate_slab_cache.*violation/, 'and the validator\'s verdict');
    // the step that lost the update is marked in its lane, and its narration says so
    const seq = await page.$eval('#race-lanes .race-step.reported', (b) => Number(b.dataset.seq));
    assert.equal(await page.$eval('#race-lanes .race-step.reported', (b) => b.dataset.kind), 'cmpxchg');
    await page.click(`#race-lanes .race-step[data-seq="${seq}"]`);
    await page.waitForFunction((s) => window.__slublab.player.get().at === s + 1, seq);
    await page.waitForFunction(() => /the cmpxchg succeeds.*NO_TID \(not a kernel\).*update is lost/.test(document.querySelector('#narration').textContent));
    assert.equal(await page.$eval('[data-counter="cmpxchg_double_cpu_fail"] b', (b) => b.textContent), '0', 'no retry: nothing caught it');
    assert.deepEqual(page.errors, []);
  });
});

test('explore\'s shortest bad schedule, uploaded in Your scenario, opens in the race view', async (t) => {
  const bin = process.env.SLUBLAB_BIN || join(ROOT, 'build/slublab');
  const file = join(tmp, 'bad.json');
  const run = spawnSync(bin, ['explore', join(ROOT, 'scenarios/race-no-tid.json'), '-o', file], { encoding: 'utf8' });
  assert.equal(run.status, 1, `explore exits 1 when a schedule breaks an invariant: ${run.stderr}`);
  const out = run.stdout;
  const bad = /shortest bad schedule: (.+)/.exec(out)?.[1]?.trim();
  assert.ok(bad, out);
  const page = await openPage(browser.ctx, base + '/?scenario=race-irq-alloc');
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-scenario');
    await page.setInputFiles('#sc-file', file);
    await page.waitForFunction(() => document.querySelector('#scenario-text')?.value.includes('explored-bad-schedule'));
    await page.click('#sc-run');
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'explored-bad-schedule');
    await page.waitForSelector('#race:not([hidden]) .race-table');
    assert.equal(await page.inputValue('#race-sched-text'), bad);
    await atEnd(page);
    assert.match(await page.textContent('#race-report'), /NO_TID \(not a kernel\)/);
    // the uploaded scenario runs again with another schedule: the page kept what it sent
    const A = (await chips(page))[0];
    await page.fill('#race-sched-text', `${A}* I*`);
    await runSchedule(page);
    await atEnd(page);
    assert.equal((await page.textContent('#race-report')).trim(), '', 'a safe schedule: no report');
    assert.deepEqual(page.errors, []);
  });
});
