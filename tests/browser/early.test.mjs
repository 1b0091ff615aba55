// The page's first requests go out while its modules load (web/early.js):
// with the UI's entry module held back, the new session's POST, then the
// session's and its first state's GETs, are sent before the module arrives,
// each once, and the page draws that session as before.  A lab reloaded
// (`?session=ID&at=N`) asks for its session and state before the module
// arrives too.
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
  test(`${path}: the session's POST and its state's GET go out before the UI's module arrives, each once`, async (t) => {
    // the run built beforehand: its POST answers well within HOLD_MS
    await api(base, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario }) });
    const { page, sent } = await openHeld(path);
    await shotOnFailure(t, page, async () => {
      const m = await model(page);
      assert.equal(m.scenario, scenario);
      assert.equal(m.at, 0);
      const s = `/api/sessions/${m.id}`;
      const early = sent.filter((x) => x.early).map((x) => x.what);
      assert.deepEqual(early.slice(0, 3).sort(), [`GET ${s}`, `GET ${s}/state?at=0`, 'POST /api/sessions'].sort(), JSON.stringify(sent));
      assert.equal(early[0], 'POST /api/sessions');
      // asked for once: the page took what went out early
      for (const w of ['POST /api/sessions', `GET ${s}`, `GET ${s}/state?at=0`]) {
        assert.equal(sent.filter((x) => x.what === w).length, 1, `${w}: ${JSON.stringify(sent)}`);
      }
      assert.deepEqual(page.errors, []);
    });
    await page.close();
  });
}

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
