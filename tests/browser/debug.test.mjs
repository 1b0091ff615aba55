// The debugging tools in the page: a kmalloc object's requested size and
// red zone in the inspector, and the caches table's validate button, which
// finds the bytes written past the request and counts SLUB's reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openPage, shotOnFailure, api, waitAt, model, press, OUT, labFixture } from './helpers.mjs';

let base, browser;
labFixture((f) => { ({ base, browser } = f); });

const SIZES = [[1280, 720], [1440, 900], [1024, 768], [390, 844]];

test('inspector shows the requested size and kmalloc red zone; validate counts two reports', async (t) => {
  for (const [width, height] of SIZES) {
    const page = await openPage(browser.ctx, `${base}/?scenario=debug-kmalloc-redzone`, { width, height });
    await page.waitForSelector('body[data-ready="1"]');
    await shotOnFailure(t, page, async () => {
      await press(page, 'ArrowRight', 8);
      await waitAt(page, 8);
      const m = await model(page);
      const st = await api(base, `/api/sessions/${m.id}/state?at=8`);
      const p = Object.entries(st.names).find(([, n]) => n === 'p')[0];
      await page.evaluate(() => window.__slublab.player.setCache(
        window.__slublab.player.get().cur.state.caches.find((c) => c.name === 'kmalloc-32').id));
      const slab = st.state.slabs.find((s) => s.cache === st.state.caches.find((c) => c.name === 'kmalloc-32').id).addr;
      await page.evaluate(([id, s]) => window.__slublab.player.select({ kind: 'object', id, slab: s }), [p, slab]);
      await page.click('#tabbtn-inspect');
      await page.waitForSelector('#hexdump');
      await page.waitForFunction(() => /requested size/.test(document.querySelector('#tab-inspect')?.textContent ?? ''));
      const text = await page.textContent('#tab-inspect');
      assert.match(text, /requested size18 of 32 bytes/);
      assert.match(text, /kmalloc red zonebytes 18\.\.31: ab ab cc cc cc cc cc cc cc cc cc cc cc cc/);
      await page.screenshot({ path: join(OUT, `debug-inspector-${width}x${height}.png`), fullPage: width < 600 });
      await page.click('#cache-table button[data-validate="kmalloc-32"]');
      // the errors column, wherever the table puts it (the row's first cell is the name, a th)
      await page.waitForFunction(() => {
        const i = [...document.querySelectorAll('#cache-table thead button.sort')].map((b) => b.dataset.col).indexOf('slab_errors') - 1;
        return i >= 0 && [...document.querySelectorAll('#cache-table tr[data-cache]')]
          .some((r) => r.textContent.startsWith('▶ kmalloc-32') && r.querySelectorAll('td')[i]?.textContent === '2');
      });
      await page.screenshot({ path: join(OUT, `debug-validated-${width}x${height}.png`), fullPage: width < 600 });
    });
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});
