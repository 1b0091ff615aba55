// Unit tests of the page allocator's words in the UI: every event of the
// page allocator scenarios (their golden streams) gets a specific sentence
// with its page facts filled in, and the pages view's pure helpers (the
// gauge's range, where free pages stand against the watermarks, a decision
// in words).  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { narrate, hasSentence } from '../../web/js/format.js';
import { setTexts } from '../../web/js/texts.js';
import { gaugeRange, zoneStanding, decisionText } from '../../web/js/views/pages.js';

setTexts(JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url))));

const stream = (name) => readFileSync(new URL(`../golden/${name}.jsonl`, import.meta.url), 'utf8')
  .split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.fn);

test('every event of the page allocator scenarios gets a specific sentence', () => {
  for (const name of ['gfp-atomic-below-min', 'order-fallback', 'dma-cache', 'gfp-renumbered-layout']) {
    const events = stream(name);
    assert.ok(events.length > 0, name);
    for (const e of events) {
      assert.ok(hasSentence(e.fn, e.label), `${name}: no sentence for ${e.fn}/${e.label}`);
      const s = narrate(e, { call: 'kmem_cache_alloc' });
      assert.ok(!/undefined|NaN|null/.test(s), `${name}: ${s}`);
    }
  }
});

test('page facts are filled in from the event', () => {
  const events = stream('gfp-atomic-below-min');
  const reserve = events.find((e) => e.fn === '__zone_watermark_ok' && e.label === 'reserve' && e.cache === 0);
  assert.match(narrate(reserve), /Normal has 100 free pages, .* GFP_ATOMIC\|__GFP_NOWARN\|__GFP_NORETRY\|__GFP_COMP may use lower the bar to 48/);
  const slab = events.find((e) => e.fn === 'new_slab' && e.label === 'oo');
  assert.match(narrate(slab), /from Normal on node 0 \(slow path: 100 free pages against a threshold of 48\)/);
  const fail = events.find((e) => e.fn === 'warn_alloc' && e.label === 'page_allocation_failure');
  assert.match(narrate(fail), /page allocation failure: order:0, mode:GFP_KERNEL\|__GFP_COMP$|mode:GFP_KERNEL\|__GFP_COMP\.$/);
  const dma = stream('dma-cache').find((e) => e.fn === 'new_slab');
  assert.match(narrate(dma), /from DMA on node 0/);
});

test('the gauge, the standing and the decision in words', () => {
  const z = { pages: 4096, free_pages: 100, watermarks: { min: 128, low: 160, high: 192 } };
  assert.equal(gaugeRange(z), 384);
  assert.equal(gaugeRange({ ...z, free_pages: 4000 }), 4096);
  assert.match(zoneStanding(z), /^at or below min/);
  assert.match(zoneStanding({ ...z, free_pages: 150 }), /^between min and low/);
  assert.match(zoneStanding({ ...z, free_pages: 170 }), /^between low and high/);
  assert.match(zoneStanding({ ...z, free_pages: 1000 }), /^above high/);
  const slab = stream('gfp-atomic-below-min').find((e) => e.fn === 'new_slab' && e.label === 'oo');
  assert.equal(decisionText(slab.page),
    'GFP_ATOMIC|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP at order 0 was served by Normal on node 0, the preferred zone, on the slow path, held to the min watermark: 100 free pages less 0 had to exceed 48. ALLOC flags 0x830 (WMARK_MIN|NON_BLOCK|MIN_RESERVE|KSWAPD).');
  const failed = stream('gfp-renumbered-layout').find((e) => e.fn === 'new_slab' && e.label === 'nomem');
  assert.match(decisionText(failed.page), /^No page for GFP_ATOMIC.*\|0x820\)\.$/);
});
