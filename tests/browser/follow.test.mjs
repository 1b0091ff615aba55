// Browser tests of follow mode under load: a hundred followers (a few
// pages, the rest node clients that read the event stream and fetch the
// state a page would) follow a presenter playing at 16 steps a second
// (how closely is bench/follow-lag.mjs's figure).
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/follow.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, model, labFixture } from './helpers.mjs';
import { trail, nodeFollower } from './followers.mjs';

let server, browser, base;
labFixture((f) => ({ server, browser, base } = f));

async function lab(path) {
  const page = await openPage(browser.ctx, base + path);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

/*
 * How far behind followers stay is a benchmark (bench/follow-lag.mjs,
 * docs/benchmarks.md): a wall-clock bound here would fail whenever ctest runs
 * this beside other suites on 2 cores.  What the test holds them to cannot
 * depend on the machine's speed: every follower moves while the presenter
 * plays and reaches the presenter's last step once it stops (before the fix a follower stayed at 0
 * while the presenter reached 142).
 */
const SETTLE_MS = 60000; /* a bound on the catching up, not a measurement */

/** What is wrong with follower trail @ft, given the presenter's last step @final, or null. */
function wrong(ft, final) {
  const last = ft[ft.length - 1][1];
  if (last !== final) return `shows ${last}, the presenter stopped at ${final}`;
  if (!ft.some(([, a]) => a > 0 && a < final)) return 'moved only when the presenter stopped';
  return null;
}

test('a hundred followers keep up with a presenter playing at 16 steps a second', async (t) => {
  const presenter = await lab('/?scenario=order-fallback&presenter=1');
  await shotOnFailure(t, presenter, async () => {
    const pm = await model(presenter);
    assert.ok(pm.end >= 300, `order-fallback has ${pm.end} events`);
    const pages = [];
    for (let i = 0; i < 3; i++) pages.push(await lab(`/?follow=${pm.id}`));
    for (const p of pages) await trail(p);
    const nodes = [];
    t.after(() => { for (const f of nodes) f.stop(); }); // a failure leaves no stream open
    for (let i = 0; i < 97; i++) nodes.push(nodeFollower(`${base}/api/sessions/${pm.id}/follow`, (d) => `${base}/api/sessions/${d.session}/state?at=${d.at}`));
    // every follower has opened (its first state shown) before the presenter plays
    const opened = Date.now() + 10000;
    while (nodes.some((f) => f.shown < 0) && Date.now() < opened) await new Promise((ok) => setTimeout(ok, 50));
    assert.ok(nodes.every((f) => f.shown === 0), 'some node followers never opened');
    await presenter.evaluate(() => { const p = window.__slublab.player; p.setSpeed(16); p.play(); });
    await presenter.waitForTimeout(10000);
    await presenter.evaluate(() => window.__slublab.player.pause());
    const final = await presenter.evaluate(() => window.__slublab.player.get().at);
    assert.ok(final >= 30, `the presenter reached only step ${final} in 10 s`);
    // every follower catches up with where the presenter stopped
    const settled = Date.now() + SETTLE_MS;
    const last = (tr) => tr[tr.length - 1][1];
    const behind = async () => (await Promise.all(pages.map((p) => p.evaluate(() => window.__trail)))).some((tr) => last(tr) !== final) ||
      nodes.some((f) => last(f.trail) !== final);
    while ((await behind()) && Date.now() < settled) await new Promise((ok) => setTimeout(ok, 200));
    const report = [];
    for (const [i, p] of pages.entries()) {
      const bad = wrong(await p.evaluate(() => window.__trail), final);
      if (bad) report.push(`page ${i}: ${bad}`);
      assert.deepEqual(p.errors, []);
    }
    for (const [i, f] of nodes.entries()) {
      f.stop();
      assert.equal(f.error, null, `node follower ${i}: ${f.error}`);
      const bad = wrong(f.trail, final);
      if (bad) report.push(`node ${i}: ${bad}`);
    }
    assert.deepEqual(report.slice(0, 10), [], `${report.length} followers did not follow the presenter to step ${final}`);
    // the presenter's page rendered each step before moving to it: the stream brought those states
    assert.ok(nodes.every((f) => f.inline > 0), `node followers given states by the stream: ${nodes.map((f) => f.inline).join(' ')}`);
    for (const p of pages) await p.close();
  });
  await presenter.close();
});

test('followers of the lecture link follow the presenter to a new scenario', async (t) => {
  const presenter = await lab('/?scenario=default&presenter=1');
  await shotOnFailure(t, presenter, async () => {
    await presenter.waitForSelector('#follow-url[href*="lecture="]');
    const url = await presenter.getAttribute('#follow-url', 'href');
    const student = await lab(url.replace(/^https?:\/\/[^/]+/, ''));
    const first = await model(student);
    assert.equal(first.id, (await model(presenter)).id);
    assert.ok(first.following);
    await presenter.evaluate(() => window.__slublab.player.seek(7));
    await student.waitForSelector('body[data-at="7"]', { timeout: 3000 });
    // the presenter switches scenario: a new session, the same link
    await presenter.selectOption('#scenario-select', 'free-storm');
    await presenter.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'free-storm');
    const pm = await model(presenter);
    assert.notEqual(pm.id, first.id);
    assert.equal(await presenter.getAttribute('#follow-url', 'href'), url, 'the follow link outlives the switch');
    await student.waitForFunction((id) => window.__slublab.player.get().session?.id === id, pm.id, { timeout: 3000 });
    assert.equal((await model(student)).scenario, 'free-storm');
    assert.match(await student.textContent('#banner'), /Following the presenter live/);
    // the presenter's page rendered step 11 before moving there: the student shows it without asking
    const asked = [];
    student.on('request', (r) => { if (/\/state\?at=11(&|$)/.test(r.url())) asked.push(r.url()); });
    await presenter.evaluate(() => window.__slublab.player.seek(11));
    await student.waitForSelector('body[data-at="11"]', { timeout: 3000 });
    assert.deepEqual(asked, [], 'the student fetched the state the stream brought');
    assert.deepEqual(student.errors, []);
    await student.close();
  });
  await presenter.close();
});

test('the presenter view keeps the scenario picker, the breakpoints and the speed', async (t) => {
  const page = await lab('/?scenario=default&presenter=1');
  await shotOnFailure(t, page, async () => {
    await page.setViewportSize({ width: 1280, height: 720 });
    for (const sel of ['#scenario-select', '#breakpoints', '#bp-barn_put_fail', '.speed']) {
      assert.ok(await page.isVisible(sel), `${sel} is hidden in the presenter view`);
    }
    await page.check('#bp-barn_put_fail');
    await page.selectOption('#bp-counter', 'alloc_fastpath');
    await page.click('#bp-add-counter');
    const before = await page.evaluate(() => window.__slublab.player.get().breakpoints.map((b) => b.key));
    assert.equal(before.length, 2);
    // a scenario switch keeps the breakpoints the new session's model counts
    await page.selectOption('#scenario-select', 'free-storm');
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'free-storm');
    assert.deepEqual(await page.evaluate(() => window.__slublab.player.get().breakpoints.map((b) => b.key)), before);
    assert.ok(await page.isChecked('#bp-barn_put_fail'));
    // the speed buttons work in the presenter view
    const speed = await page.evaluate(() => window.__slublab.player.get().speed);
    await page.click('#speed-up');
    assert.notEqual(await page.evaluate(() => window.__slublab.player.get().speed), speed);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
