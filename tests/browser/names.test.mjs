// Browser tests of one set of names and of snapshots a reader can go on
// from: slabs are named S0, S1, ... as the engine numbers them (state JSON,
// picture, inspector, narration, the scenarios' descriptions), with the
// address on hover; a snapshot opens at its step and steps on to the end of
// the run; the Share tab's publish switch.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/names.test.mjs
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

const JSON_POST = { method: 'POST', headers: { 'Content-Type': 'application/json' } };

test('the state names each cache\'s slabs S0, S1, ... in order of creation', async () => {
  const s = await api(base, '/api/sessions', { ...JSON_POST, body: JSON.stringify({ scenario: 'free-storm' }) });
  const info = await api(base, `/api/sessions/${s.id}`);
  const end = info.events;
  const { state } = await api(base, `/api/sessions/${s.id}/state?at=${end}`);
  assert.ok(state.slabs.length >= 7);
  // addresses grow with creation in this scenario: the names follow them
  const byAddr = [...state.slabs].sort((a, b) => (BigInt(a.addr) < BigInt(b.addr) ? -1 : 1));
  assert.deepEqual(byAddr.map((x) => x.name), byAddr.map((_, i) => `S${i}`));
  // a name stays the slab's from one position to the next
  const mid = (await api(base, `/api/sessions/${s.id}/state?at=${Math.floor(end / 2)}`)).state;
  for (const sl of mid.slabs) assert.equal(state.slabs.find((x) => x.addr === sl.addr)?.name, sl.name);
});

test('picture, inspector and narration call the slabs S<n>, as the description does, with the address on hover', async (t) => {
  const page = await lab('/?scenario=free-storm');
  await shotOnFailure(t, page, async () => {
    const desc = await page.evaluate(() => window.__slublab.player.get().session.info.scenario.description);
    assert.match(desc, /flushed to its slab \(sheaf_flush 4\); S0 had been full/);
    assert.match(desc, /repeats this with S5/);
    // step to the first barn_put_fail flush: the spare goes back to S0
    const s = await model(page);
    const events = await api(base, `/api/sessions/${s.id}/events?from=0&to=400`);
    const flushes = (events.events ?? events).filter((e) => e.fn === '__slab_free' && e.label === 'add_partial');
    assert.equal(flushes.length, 2);
    await page.evaluate((at) => window.__slublab.player.seek(at), flushes[0].seq + 1);
    await waitAt(page, flushes[0].seq + 1);
    const say = await page.textContent('#narration');
    assert.match(say, /\bS0\b/, `narration: ${say}`);
    assert.doesNotMatch(say, /…[0-9a-f]{5}/, `narration names a slab by address: ${say}`);
    // the partial list's chip of S0 is named and shows its address on hover
    const chip = page.locator('svg g.chip[aria-label^="partial slab S0:"]');
    await chip.first().waitFor();
    const addr = flushes[0].moves.find((m) => m.to.slab)?.to.slab;
    assert.equal(await chip.first().locator('title').textContent(), `slab S0 at ${addr}`);
    await chip.first().click();
    const h3 = page.locator('#tab-inspect h3');
    await h3.waitFor();
    assert.equal(await h3.textContent(), 'Slab S0');
    assert.equal(await h3.getAttribute('title'), addr);
    // the slab map's labels: S0 ... S6 drawn, as the state names them
    const next = flushes[1].seq + 1;
    await page.evaluate((at) => window.__slublab.player.seek(at), next);
    await waitAt(page, next);
    assert.match(await page.textContent('#narration'), /\bS5\b/);
  });
});

test('objects are called by the scenario\'s names (o0, o1, ...) in narration and inspector, with the address on hover', async (t) => {
  const page = await lab('/?scenario=free-storm');
  await shotOnFailure(t, page, async () => {
    const s = await model(page);
    const events = await api(base, `/api/sessions/${s.id}/events?from=0&to=400`);
    const list = events.events ?? events;
    // the event that hands the first object to its caller
    const first = list.find((e) => e.fn === 'alloc_from_pcs' && e.moves.some((m) => m.kind === 'object' && m.to.type === 'user'));
    const addr = first.moves.find((m) => m.kind === 'object').id;
    await page.evaluate((at) => window.__slublab.player.seek(at), first.seq + 1);
    await waitAt(page, first.seq + 1);
    const say = await page.textContent('#narration');
    assert.match(say, /\bo0\b/, `narration: ${say}`);
    await page.click('#tabbtn-inspect');
    await page.evaluate((a) => window.__slublab.player.select({ kind: 'object', id: a }), addr);
    const h3 = page.locator('#tab-inspect h3');
    await page.waitForFunction(() => /Object/.test(document.querySelector('#tab-inspect h3')?.textContent ?? ''));
    assert.equal(await h3.textContent(), 'Object o0');
    assert.equal(await h3.getAttribute('title'), addr);
    // freed, it keeps its name: the first flush sends o0..o3 back to their slab
    const flush = list.find((e) => e.fn === 'sheaf_flush_unused');
    await page.evaluate((at) => window.__slublab.player.seek(at), flush.seq + 1);
    await waitAt(page, flush.seq + 1);
    const names = await page.evaluate((ids) => ids.map((id) => window.__slublab.player.get().cur.names[id]),
      flush.moves.filter((m) => m.kind === 'object').map((m) => m.id));
    assert.deepEqual(names, ['o0', 'o1', 'o2', 'o3']);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a snapshot opens at its step and the reader steps on to the end of the run', async (t) => {
  const s = await api(base, '/api/sessions', { ...JSON_POST, body: JSON.stringify({ scenario: 'free-storm' }) });
  const snap = await api(base, '/api/snapshots', { ...JSON_POST, body: JSON.stringify({ session: s.id, at: 40 }) });
  const page = await lab(`/?snapshot=${snap.id}`);
  await shotOnFailure(t, page, async () => {
    await waitAt(page, 40);
    assert.equal((await model(page)).end, s.events);
    await press(page, 'ArrowRight');
    await waitAt(page, 41);
    await press(page, 'End');
    await waitAt(page, s.events);
  });
  await page.close();
});

test('Share tab: a publish switch lists one\'s snapshot for everyone; others\' unpublished ones stay unlisted', async (t) => {
  const page = await lab('/?scenario=default');
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    const hidden = await api(base, '/api/snapshots', { ...JSON_POST, body: JSON.stringify({ session: m.id, at: 2, title: 'someone else\'s, unpublished' }) });
    const shown = await api(base, '/api/snapshots', { ...JSON_POST, body: JSON.stringify({ session: m.id, at: 3, title: 'someone else\'s, published' }) });
    await api(base, `/api/snapshots/${shown.id}/published`, { method: 'PUT', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${shown.token}` }, body: '{"published":true}' });
    await page.click('#tabbtn-share');
    await page.fill('#snap-title', 'mine to publish');
    await page.click('#snap-save');
    await page.waitForFunction(() => /mine to publish/.test(document.querySelector('#snap-list').textContent));
    const listed = await page.textContent('#snap-list');
    assert.doesNotMatch(listed, /unpublished/);
    assert.match(listed, /someone else's, published/);
    // only one's own snapshots have a switch
    assert.equal(await page.locator(`#snap-pub-${shown.id}`).count(), 0);
    const id = await page.evaluate(() => document.querySelector('#snap-list li .snap-publish').id.replace('snap-pub-', ''));
    const publicIds = async () => (await api(base, '/api/snapshots?limit=1000')).snapshots.map((x) => x.id);
    assert.ok(!(await publicIds()).includes(id));
    await page.check(`#snap-pub-${id}`);
    await page.waitForFunction(() => /Published/.test(document.querySelector('#snap-msg').textContent));
    assert.ok((await publicIds()).includes(id));
    assert.ok(!(await publicIds()).includes(hidden.id));
    await page.uncheck(`#snap-pub-${id}`);
    await page.waitForFunction(() => /no longer published/.test(document.querySelector('#snap-msg').textContent));
    assert.ok(!(await publicIds()).includes(id));
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
