// Browser test of the Caches view on a real trace (tests/data's sample of a
// 6.18 machine): the caches ranked by what they did over the run, busiest
// first, with the API's numbers; sortable; choosing a row draws that cache
// and stops the picture following the events' cache, the box turns it back
// on; at a barn_put_fail the picture, the sentence and the counters all
// name the cache of that event.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, startBrowser, openPage, shotOnFailure, api, model, waitAt, ROOT, OUT } from './helpers.mjs';

const SAMPLE = join(ROOT, 'tests/data/kmem-trace-sample.txt.gz');
let server, browser, base, sid;

before(async () => {
  server = await startServer();
  base = server.url;
  browser = await startBrowser();
  const up = await api(base, '/api/traces', { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: readFileSync(SAMPLE) });
  for (const end = Date.now() + 60000; !sid && Date.now() < end;) {
    const j = await api(base, `/api/traces/${up.id}`);
    if (j.state === 'failed') throw new Error(JSON.stringify(j.error));
    if (j.state === 'done') sid = j.session.id;
    else await new Promise((res) => setTimeout(res, 100));
  }
});
after(async () => {
  await browser?.stop();
  await server?.stop();
});

const rows = (page) => page.$$eval('#cache-table tbody tr', (trs) => trs.map((tr) => {
  const cells = [...tr.children].map((x) => x.textContent.replace(/^▶ /, ''));
  const head = [...document.querySelectorAll('#cache-table thead button')].map((b) => b.dataset.col);
  return Object.fromEntries(head.map((k, i) => [k, cells[i]]));
}));

test('the caches of a real trace, ranked by allocations, each row drawing its cache', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?session=${sid}`, { width: 1440, height: 900 });
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    const want = await api(base, `/api/sessions/${sid}/caches`);
    await page.waitForFunction(() => !document.querySelector('#cache-table tbody')?.textContent.includes('…'));
    const got = await rows(page);
    assert.equal(got[0].name, want.caches[0].name, 'the busiest cache first');
    assert.equal(got[0].name, 'names_cache');
    for (const c of want.caches.slice(0, 8)) {
      const r = got.find((x) => x.name === c.name);
      assert.equal(Number(r.allocs), c.allocs, `${c.name} allocs`);
      assert.equal(Number(r.barn_get_fail), c.barn_get_fail, `${c.name} barn_get_fail`);
    }
    // sort by barn put failures, a column of "all columns"
    await page.check('#cache-all');
    // the head is drawn anew with the body: a click that lands on a head being
    // replaced (the ranking arriving) is lost, so click until the sort shows
    const sorted = '#cache-table thead th[aria-sort="descending"] button[data-col="barn_put_fail"]';
    for (let i = 0; i < 10 && !(await page.$(sorted)); i++) {
      await page.click('#cache-table thead button[data-col="barn_put_fail"]');
      await page.waitForTimeout(300);
    }
    await page.waitForSelector(sorted);
    const byPut = (await rows(page)).map((r) => Number(r.barn_put_fail));
    assert.deepEqual(byPut, [...byPut].sort((a, b) => b - a));
    // a row opens its cache, and the picture stops following the events'
    await page.click('#cache-table tbody tr[data-cache] th button >> text=filp');
    const filp = want.caches.find((c) => c.name === 'filp').cache;
    await page.waitForFunction((id) => window.__slublab.player.get().cacheId === id, filp);
    assert.equal(await page.isChecked('#cache-follow'), false);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('at a barn_put_fail, the picture, the sentence and the counters name that event\'s cache', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?session=${sid}`, { width: 1440, height: 900 });
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    const hit = await api(base, `/api/sessions/${sid}/search?label=barn_put_fail&from=0`);
    assert.ok(hit.found, 'the sample has a barn_put_fail');
    const info = await api(base, `/api/sessions/${sid}/state?at=${hit.at}`);
    const name = info.state.caches.find((c) => c.id === hit.event.cache).name;
    assert.notEqual(hit.event.cache, 0, 'not the first cache: following is what draws it');
    await page.evaluate((at) => window.__slublab.player.seek(at), hit.at);
    await waitAt(page, hit.at, 15000);
    assert.equal((await model(page)).cacheId, hit.event.cache, `the picture draws ${name}`);
    await page.waitForFunction((n) => document.querySelector('#narration')?.textContent.includes(n), name);
    await page.click('#tabbtn-counters');
    await page.waitForFunction((n) => document.querySelector('#counter-caption')?.textContent.includes(n), name);
    assert.match(await page.textContent('#chart-title'), /all caches summed/);
    // the table whole, for docs/record-a-trace.md (docs/img/caches-view.png)
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.evaluate(() => {
      const shot = document.createElement('div');
      shot.id = 'caches-shot';
      shot.style.cssText = 'position: absolute; left: 0; top: 0; z-index: 50; background: #fff; padding: 8px; width: max-content';
      const rows = document.querySelector('#caches').cloneNode(true);
      rows.removeAttribute('id');
      for (const tr of [...rows.querySelectorAll('tbody tr')].slice(16)) tr.remove(); // the busiest sixteen
      shot.append(rows);
      document.body.append(shot);
    });
    await page.locator('#caches-shot').screenshot({ path: join(OUT, 'caches-view.png') });
    await page.evaluate(() => document.querySelector('#caches-shot').remove());
    for (const [w, hgt] of [[1440, 900], [1280, 720], [1024, 768], [390, 844]]) {
      await page.setViewportSize({ width: w, height: hgt });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(OUT, `caches-${w}x${hgt}.png`), fullPage: false });
    }
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
