// Browser tests of the page allocator view and the gfp decoder: the real
// server, Debian's Chromium through playwright-core (as ui.test.mjs).
// Failures leave screenshots in test-output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { openPage, shotOnFailure, api, waitAt, model, labFixture } from './helpers.mjs';

let server, browser, base;
labFixture((f) => ({ server, browser, base } = f));

async function lab(path) {
  const page = await openPage(browser.ctx, base + path);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

test('the Pages tab: watermarks as lines, free blocks per order, and why a slab got its pages', async (t) => {
  const first = await lab('/?scenario=gfp-atomic-below-min');
  const id = (await model(first)).id;
  await first.close();
  // the slab that GFP_ATOMIC got from below the min watermark
  const hit = await api(base, `/api/sessions/${id}/search?fn=new_slab&label=oo&from=0`);
  assert.ok(hit.found);
  const page = await lab(`/?session=${id}&at=${hit.at}&tab=pages`);
  await shotOnFailure(t, page, async () => {
    await waitAt(page, hit.at);
    await page.waitForSelector('#page-decision');
    const why = await page.textContent('#page-decision');
    assert.match(why, /served by Normal on node 0, the preferred zone, on the slow path, held to the min watermark/);
    assert.match(why, /had to exceed 48/);
    const zone = page.locator('section.zone[data-zone="Normal"]');
    assert.equal(await zone.count(), 1);
    assert.match(await zone.locator('h4').textContent(), /served this step/);
    assert.match(await zone.locator('.zone-line').textContent(), /^99 free, 3996 held by other users; at or below min/);
    // three watermark lines, in order, left of the free pages' end or not
    const xs = await zone.locator('svg.gauge .wm line').evaluateAll((ls) => ls.map((l) => Number(l.getAttribute('x1'))));
    assert.equal(xs.length, 3);
    assert.ok(xs[0] < xs[1] && xs[1] < xs[2], `min < low < high: ${xs}`);
    const freeW = Number(await zone.locator('svg.gauge rect.free').getAttribute('width'));
    assert.ok(freeW < xs[0], 'the free pages end left of the min line');
    assert.equal(await zone.locator('svg.orders rect').count(), 11);
    // the state's own numbers
    const st = await api(base, `/api/sessions/${id}/state?at=${hit.at}`);
    assert.match(await zone.locator('svg.gauge').getAttribute('aria-label'),
      new RegExp(`^${st.state.zones[0].free_pages} free pages; watermarks min 128, low 160, high 192$`));
    // a step that did not ask for pages says so
    await page.keyboard.press('ArrowRight');
    await waitAt(page, hit.at + 1);
    await page.waitForFunction(() => document.querySelector('#page-decision')?.classList.contains('none'));
    // back, and on to the gfp tab with the decision's mask
    await page.keyboard.press('ArrowLeft');
    await waitAt(page, hit.at);
    await page.click('#page-decode');
    await page.waitForSelector('#tab-gfp:not([hidden]) #gfp-flags');
    await page.waitForFunction(() => document.querySelector('#gfp-mask').value.startsWith('GFP_ATOMIC'));
    await page.waitForFunction(() => /GFP_ATOMIC\|__GFP_NOWARN/.test(document.querySelector('#gfp-summary')?.textContent ?? ''));
    assert.match(await page.textContent('#gfp-flags'), /slow path0x830WMARK_MIN\|NON_BLOCK\|MIN_RESERVE\|KSWAPD/);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('the gfp tab decodes masks through the server, and says why a mask is bad', async (t) => {
  const page = await lab('/?scenario=dma-cache&tab=gfp');
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('#gfp-flags');
    // the default mask on the scenario's machine: Normal, DMA32, DMA
    const rows = await page.locator('#gfp-zones tbody th').allTextContents();
    assert.deepEqual(rows, ['Normal (node 0)', 'DMA32 (node 0)', 'DMA (node 0)']);
    assert.match(await page.textContent('#gfp-flags'), /fast path0x901WMARK_LOW\|NOFRAGMENT\|KSWAPD/);
    // high-order GFP_ATOMIC
    await page.fill('#gfp-mask', 'GFP_ATOMIC');
    await page.selectOption('#gfp-order', '3');
    await page.click('#gfp-decode');
    await page.waitForFunction(() => /order 3/.test(document.querySelector('#gfp-summary')?.textContent ?? ''));
    assert.match(await page.textContent('#gfp-flags'), /slow path0xa30WMARK_MIN\|NON_BLOCK\|MIN_RESERVE\|HIGHATOMIC\|KSWAPD/);
    // a realtime task's GFP_KERNEL digs into the reserve
    await page.fill('#gfp-mask', 'GFP_KERNEL');
    await page.selectOption('#gfp-order', '0');
    await page.selectOption('#gfp-context', 'rt');
    await page.click('#gfp-decode');
    await page.waitForFunction(() => /rt context/.test(document.querySelector('#gfp-summary')?.textContent ?? ''));
    assert.match(await page.textContent('#gfp-flags'), /slow path0x860WMARK_MIN\|MIN_RESERVE\|CPUSET\|KSWAPD/);
    // GFP_DMA: ZONE_DMA alone
    await page.fill('#gfp-mask', 'GFP_KERNEL|GFP_DMA');
    await page.press('#gfp-mask', 'Enter');
    await page.waitForFunction(() => /highest zone DMA,/.test(document.querySelector('#gfp-summary')?.textContent ?? ''));
    assert.deepEqual(await page.locator('#gfp-zones tbody th').allTextContents(), ['DMA (node 0)']);
    // a bad mask: the server's reason, shown as an alert
    await page.fill('#gfp-mask', 'GFP_DMA|GFP_DMA32');
    await page.click('#gfp-decode');
    await page.waitForSelector('#gfp-error:not([hidden])');
    assert.match(await page.textContent('#gfp-error'), /GFP_ZONE_BAD/);
    assert.equal(await page.locator('#gfp-flags').count(), 0);
  });
  await page.close();
});

test('alloc_pages from "Do an operation": the Pages tab shows the pages held and the fast-path decision', async (t) => {
  const page = await lab('/?scenario=default&tab=pages');
  await shotOnFailure(t, page, async () => {
    const m0 = await model(page);
    await page.keyboard.press('End');
    await waitAt(page, m0.end);
    await page.locator('details:has(#ops) > summary').click();
    await page.selectOption('#op-kind', 'alloc_pages');
    await page.fill('#op-order', '9');
    await page.fill('#op-gfp', 'GFP_KERNEL|__GFP_MOVABLE');
    await page.click('#op-run');
    await page.waitForFunction((end) => { const m = window.__slublab.player.get(); return m.end > end && m.at === m.end && !m.playing; }, m0.end, { timeout: 10000 });
    await page.waitForFunction(() => /held by other users/.test(document.querySelector('section.zone .zone-line')?.textContent ?? ''));
    assert.match(await page.textContent('section.zone .zone-line'), /, 512 held by other users; above high/);
    assert.match(await page.textContent('#page-decision'), /^GFP_KERNEL\|__GFP_MOVABLE at order 9 was served by Normal on node 0, the preferred zone, on the fast path, held to the low watermark/);
    assert.match(await page.textContent('#narration'), /another user of the page allocator gets an order-9 block from Normal on the fast path/);
  });
  await page.close();
});
