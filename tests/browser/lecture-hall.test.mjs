// The lecture hall: the presenter view on a projector's screen (the slab
// rows beside the structure, read from window.__slublab.slabRows()), the
// one keyboard model (a ticked checkbox or a chosen menu hands the keys
// back to the lab; `?` shows the list of keys), and the class's answers
// (one per follower's token, only the arms the question offers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { labFixture, openPage, shotOnFailure, waitAt, press, model, api, OUT } from './helpers.mjs';

let base, browser;
labFixture((f) => { base = f.base; browser = f.browser; });

async function lab(path, viewport) {
  const page = await openPage(browser.ctx, base + path, viewport);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

for (const [width, height] of [[1280, 720], [1366, 768], [1920, 1080]]) {
  test(`presenter view at ${width}x${height}: free-storm after 30 steps shows slab rows of objects at least 16 px, no sideways scrolling`, async (t) => {
    const page = await lab('/?scenario=free-storm&presenter=1', { width, height });
    await shotOnFailure(t, page, async () => {
      await press(page, 'ArrowRight', 30);
      await waitAt(page, 30);
      await page.waitForTimeout(300);
      const rows = await page.evaluate(() => window.__slublab.slabRows());
      const inView = (c) => c.x >= 0 && c.y >= 0 && c.x + c.width <= width && c.y + c.height <= height;
      const good = rows.filter((r) => r.cells.filter((c) => c.height >= 16 && inView(c)).length >= 4);
      assert.ok(good.length >= 1, `a slab row with four object cells of 16 px on screen: ${JSON.stringify(rows.map((r) => ({ y: r.y, n: r.cells.length, h: r.cells[0]?.height })))}`);
      const sw = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.equal(sw, width, 'no sideways scrolling');
      // the sentence and the structure's CPUs and barn are on the screen with them
      const on = await page.evaluate(() => ['#narration', '#lab-view svg.topo'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
      }));
      assert.deepEqual(on, [true, true], 'the sentence and the structure are on the screen');
      await page.screenshot({ path: join(OUT, `lecture-presenter-${width}x${height}.png`) });
    });
    await page.close();
  });
}
