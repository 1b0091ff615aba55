// The page's first requests go out while its modules load (web/early.js):
// with the UI's entry module held back, the new session's POST (which
// answers the session's description and its first state too: ?first=1) is
// sent before the module arrives, once, and the page draws that session as
// before, asking for nothing more before its first state; a server whose
// answer lacks them gets the session's and its first state's GETs after
// the POST, each once.  A lab reloaded (`?session=ID&at=N`) asks for its
// session and state before the module arrives too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, api, model, labFixture } from './helpers.mjs';

let base, browser;
labFixture((f) => { ({ base, browser } = f); });

// the entry module: the bundle's assets/main-HASH.js, or the development page's js/main.js
const ENTRY = /\/(?:assets\/main-[A-Z0-9]+|js\/main)\.js$/;
const HOLD_MS = 2000;

/** Open @path with the entry module held back @HOLD_MS: the API requests before it arrived, and all of them. */
async function openHeld(path) {
  const page = await openPage(browser.ctx, null, { width: 1280, height: 720 });
  const sent = [];
  let released = false;
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/')) sent.push({ what: `${r.method()} ${u.pathname}${u.search}`, early: !released });
  });
  await page.route(ENTRY, async (route) => {
    await new Promise((ok) => { setTimeout(ok, HOLD_MS); });
    released = true;
    await route.continue();
  });
  await page.goto(base + path);
  await page.waitForSelector('body[data-ready="1"]');
  return { page, sent };
}

for (const [path, scenario] of [['/', 'default'], ['/?scenario=maple-prefill-kfree-rcu', 'maple-prefill-kfree-rcu']]) {
  test(`${path}: the session's POST goes out before the UI's module arrives, once, and is the one API request before the first state`, async (t) => {
    // the run built beforehand: its POST answers well within HOLD_MS
    await api(base, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario }) });
    const { page, sent } = await openHeld(path);
    await shotOnFailure(t, page, async () => {
      const m = await model(page);
      assert.equal(m.scenario, scenario);
      assert.equal(m.at, 0);
      const s = `/api/sessions/${m.id}`;
      const early = sent.filter((x) => x.early).map((x) => x.what);
      assert.deepEqual(early, ['POST /api/sessions?first=1'], JSON.stringify(sent));
      // its answer carried the session and its first state: neither is asked for
      for (const w of [`GET ${s}`, `GET ${s}/state?at=0`]) assert.equal(sent.filter((x) => x.what === w).length, 0, `${w}: ${JSON.stringify(sent)}`);
      assert.equal(sent.filter((x) => x.what.startsWith('POST /api/sessions')).length, 1, JSON.stringify(sent));
      // the first state came with the POST's answer: no API request went out before it came
      const before = await page.evaluate(() => {
        const api = performance.getEntriesByType('resource').filter((r) => new URL(r.name).pathname.startsWith('/api/'));
        const post = api.find((r) => new URL(r.name).search === '?first=1');
        return api.filter((r) => r.startTime < post.responseEnd).map((r) => new URL(r.name).pathname + new URL(r.name).search);
      });
      assert.deepEqual(before, ['/api/sessions?first=1']);
      assert.deepEqual(page.errors, []);
    });
    await page.close();
  });
}

test('/: a server whose POST answers without the session and its state gets their GETs after it, each once', async (t) => {
  const page = await openPage(browser.ctx, null, { width: 1280, height: 720 });
  const sent = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/')) sent.push(`${r.method()} ${u.pathname}${u.search}`);
  });
  // the answer of a server before ?first=1: the new session alone
  await page.route('**/api/sessions?first=1', async (route) => {
    const res = await route.fetch();
    const { session, state, ...created } = await res.json();
    assert.ok(session && state, 'this server answers ?first=1');
    await route.fulfill({ response: res, json: created });
  });
  await page.goto(`${base}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    assert.equal(m.scenario, 'default');
    assert.equal(m.at, 0);
    const s = `/api/sessions/${m.id}`;
    assert.equal(sent[0], 'POST /api/sessions?first=1', JSON.stringify(sent));
    for (const w of ['POST /api/sessions?first=1', `GET ${s}`, `GET ${s}/state?at=0`]) {
      assert.equal(sent.filter((x) => x === w).length, 1, `${w}: ${JSON.stringify(sent)}`);
    }
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a reloaded lab (?session=ID&at=N) asks for its session and state before the module arrives', async (t) => {
  const s = await api(base, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: 'default' }) });
  const { page, sent } = await openHeld(`/?session=${s.id}&at=5`);
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    assert.equal(m.id, s.id);
    assert.equal(m.at, 5);
    const p = `/api/sessions/${s.id}`;
    assert.deepEqual(sent.filter((x) => x.early).map((x) => x.what).sort(), [`GET ${p}`, `GET ${p}/state?at=5`].sort());
    assert.ok(!sent.some((x) => x.what.startsWith('POST')), JSON.stringify(sent));
    for (const w of [`GET ${p}`, `GET ${p}/state?at=5`]) assert.equal(sent.filter((x) => x.what === w).length, 1, w);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('an address that opens something else sends nothing early', async (t) => {
  const s = await api(base, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: 'default' }) });
  const { page, sent } = await openHeld(`/?follow=${s.id}`);
  await shotOnFailure(t, page, async () => {
    assert.deepEqual(sent.filter((x) => x.early), []);
    assert.equal((await model(page)).following, s.id);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a reloaded lab builds its views once its first answers are in: nothing is laid out empty before them', async (t) => {
  const s = await api(base, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: 'default' }) });
  const page = await openPage(browser.ctx, null, { width: 1280, height: 720 });
  // the page's wait for its answers, past what this test's polling of a
  // loaded machine takes (100 ms otherwise: js/main.js)
  await page.addInitScript(() => { window.__slublabEarlyWaitMs = 10000; });
  let seen = null;
  // the state's answer held until the UI's module has run: its views wait for it
  await page.route(`**/api/sessions/${s.id}/state?at=0`, async (route) => {
    for (let i = 0; i < 500 && !(await page.evaluate(() => !!window.__slublab).catch(() => false)); i++) await new Promise((ok) => { setTimeout(ok, 5); });
    seen = await page.evaluate(() => ({ module: !!window.__slublab, controls: document.querySelector('#controls').childElementCount }));
    await route.continue();
  });
  await page.goto(`${base}/?session=${s.id}&at=0`);
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    assert.deepEqual(seen, { module: true, controls: 0 });
    assert.ok(await page.evaluate(() => document.querySelector('#controls').childElementCount) > 0);
    assert.equal((await model(page)).id, s.id);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
