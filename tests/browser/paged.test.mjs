// Browser test of a paged state (docs/api.md, "Paged states"): a session
// whose states list more than the server's limit comes without slabs,
// sheaves and queued objects; the page says so, draws the chosen cache from
// its page (GET .../state/objects), and loads another cache's page when
// that cache is chosen, and the inspector finds a slab of it.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/paged.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, shotOnFailure, api, inkedPixels, labFixture, ROOT } from './helpers.mjs';

let browser, base;
labFixture((f) => ({ browser, base } = f));

const JSON_POST = { method: 'POST', headers: { 'Content-Type': 'application/json' } };
// 24,000 objects in each of two caches, then every other one freed: 24,000
// free objects on freelists, past the limit of 16,384 listed items.
const BIG = JSON.parse(readFileSync(join(ROOT, 'tests/data/paged.json'), 'utf8'));

const shown = (page) => page.evaluate(() => {
  const st = window.__slublab.player.get().cur?.state;
  return st && { paged: !!st.paged, page: st.page ?? null, slabs: st.slabs.length,
    caches: st.slabs.map((s) => s.cache).filter((c, i, a) => a.indexOf(c) === i),
    ids: Object.fromEntries(st.caches.map((c) => [c.name, c.id])), counts: Object.fromEntries(st.caches.map((c) => [c.name, c.slabs])),
    free: st.slabs.reduce((n, s) => n + s.freelist.length, 0) };
});

test('a big session: the paged state is drawn, says so, and loads the chosen cache', async (t) => {
  const s = await api(base, '/api/sessions', { ...JSON_POST, body: JSON.stringify({ scenario: BIG }) });
  const info = await api(base, `/api/sessions/${s.id}`);
  const st = await api(base, `/api/sessions/${s.id}/state?at=${info.events}`);
  assert.ok(st.state.paged, 'the server pages this state');
  const page = await openPage(browser.ctx, `${base}/?session=${s.id}&at=${info.events}`, { width: 1280, height: 900 });
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]');
    await page.waitForSelector(`body[data-at="${info.events}"]`, { timeout: 20000 });
    await page.waitForSelector('#paged-banner');
    assert.match(await page.textContent('#paged-banner'), /A big state \(\d+ slabs, \d+ sheaves, \d+ listed objects\): its lists load one cache at a time; showing cache \S+/);
    let v = await shown(page);
    assert.ok(v.paged && v.page, 'the state is paged and one cache page is merged');
    assert.deepEqual(v.caches, [v.page.cache], 'only the chosen cache\'s slabs are listed');
    const name = Object.keys(v.ids).find((k) => v.ids[k] === v.page.cache);
    assert.equal(v.slabs, v.counts[name], `all of cache ${name}'s slabs`);
    assert.ok(v.free > 1000, `its freelists are there (${v.free} objects)`);
    assert.ok(await inkedPixels(page, 'canvas.slabmap') > 5000, 'the slab map is drawn');

    // choose the other cache: its page loads and replaces the lists
    const other = name === 'A' ? 'B' : 'A';
    await page.evaluate((id) => window.__slublab.player.setCache(id), v.ids[other]);
    await page.waitForFunction((id) => window.__slublab.player.get().cur?.state.page?.cache === id, v.ids[other]);
    v = await shown(page);
    assert.deepEqual(v.caches, [v.ids[other]]);
    assert.equal(v.slabs, v.counts[other]);
    assert.match(await page.textContent('#paged-banner'), new RegExp(`showing cache ${other}\\b`));

    // the inspector shows a slab of the page, with its free objects
    const slab = await page.evaluate(() => window.__slublab.player.get().cur.state.slabs.find((x) => x.freelist.length > 0));
    await page.click('#tabbtn-inspect');
    await page.evaluate((addr) => window.__slublab.player.select({ kind: 'slab', id: addr, slab: addr }), slab.addr);
    const h3 = page.locator('#tab-inspect h3');
    await page.waitForFunction((name) => document.querySelector('#tab-inspect h3')?.textContent === `Slab ${name}`, slab.name);
    assert.equal(await h3.getAttribute('title'), slab.addr);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
