// tests/api/gfp.test.mjs: GET /api/gfp (the UI's gfp decoder) against a
// real server: the decoded table's flags, a scenario's zones, the coupled
// translation on the renumbered layout, every bad input a 4xx with the
// error body; and the zones of a session's state (watermarks, user pages)
// and the page decision on its events.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { api, isError, serverFixture, session } from './lib.mjs';

const fx = serverFixture();

const gfp = (q) => api(fx.srv.url, 'GET', `/api/gfp?${q}`);

describe('GET /api/gfp', () => {
  test('the decoded table, as slublab gfp --json', async () => {
    const rows = [
      ['GFP_KERNEL', 0, 'task', '0x840', 'WMARK_MIN|CPUSET|KSWAPD'],
      ['GFP_ATOMIC', 0, 'task', '0x830', 'WMARK_MIN|NON_BLOCK|MIN_RESERVE|KSWAPD'],
      ['GFP_ATOMIC', 3, 'task', '0xa30', 'WMARK_MIN|NON_BLOCK|MIN_RESERVE|HIGHATOMIC|KSWAPD'],
      ['GFP_NOWAIT', 0, 'task', '0x850', 'WMARK_MIN|NON_BLOCK|CPUSET|KSWAPD'],
      ['GFP_KERNEL', 0, 'rt', '0x860', 'WMARK_MIN|MIN_RESERVE|CPUSET|KSWAPD'],
    ];
    for (const [mask, order, context, hex, names] of rows) {
      const r = await gfp(`mask=${encodeURIComponent(mask)}&order=${order}&context=${context}`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.slow.hex, hex, mask);
      assert.equal(r.json.slow.names, names, mask);
      assert.equal(r.json.context, context);
    }
    const r = await gfp('mask=0xdc0');
    assert.equal(r.json.names, 'GFP_KERNEL|__GFP_ZERO');
    assert.equal(r.json.zone, 'Normal');
    assert.equal(r.json.migratetype, 'Unmovable');
    assert.equal(r.json.can_reclaim, true);
    assert.deepEqual(r.json.zonelist.map((z) => [z.zone, z.fast_threshold, z.slow_threshold]),
      [['Normal', 320, 256]]);
    const mem = await gfp(`mask=${encodeURIComponent('GFP_KERNEL|__GFP_MEMALLOC')}`);
    assert.equal(mem.json.retry.hex, '0x804');
    assert.equal(mem.json.zonelist[0].retry_threshold, null);
  });

  test("a scenario's zones", async () => {
    const r = await gfp(`mask=${encodeURIComponent('GFP_KERNEL|GFP_DMA')}&scenario=dma-cache`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.zone, 'DMA');
    assert.deepEqual(r.json.zonelist.map((z) => z.zone), ['DMA']);
    const k = await gfp('mask=GFP_KERNEL&scenario=dma-cache');
    assert.deepEqual(k.json.zonelist.map((z) => z.zone), ['Normal', 'DMA32', 'DMA']);
    assert.deepEqual(k.json.zonelist.map((z) => z.lowmem_reserve), [0, 64, 320]);
    assert.match(k.json.fast.names, /NOFRAGMENT/);
  });

  test('the coupled form on the renumbered layout', async () => {
    const c = await gfp('mask=GFP_ATOMIC&scenario=gfp-renumbered-layout');
    assert.equal(c.status, 200, c.text);
    assert.equal(c.json.translate, 'coupled');
    assert.equal(c.json.alloc_layout, 'renumbered-forced');
    assert.equal(c.json.slow.names, 'WMARK_MIN|NON_BLOCK|CPUSET|0x820');
    assert.equal(c.json.zonelist[0].slow_threshold, 128);
    const e = await gfp('mask=GFP_ATOMIC&scenario=gfp-renumbered-layout&variant=GFP_TRANSLATE%3Dexplicit');
    assert.equal(e.json.slow.hex, '0x3010');
    assert.equal(e.json.slow.kernel_hex, '0x830');
    assert.equal(e.json.zonelist[0].slow_threshold, 48);
  });

  test('bad input: 4xx and the error body', async () => {
    const cases = [
      ['', 400, /which mask/],
      ['mask=GFP_BOGUS', 400, /not a gfp mask/],
      [`mask=${encodeURIComponent('GFP_DMA|GFP_DMA32')}`, 400, /GFP_ZONE_BAD/],
      ['mask=0x200', 400, /unused/],
      ['mask=GFP_KERNEL&order=11', 400, /order/],
      ['mask=GFP_KERNEL&context=irq', 400, /context/],
      ['mask=GFP_KERNEL&node=1', 400, /node/],
      ['mask=GFP_KERNEL&scenario=nope', 404, /no scenario/],
      ['mask=GFP_KERNEL&variant=GFP_TRANSLATE%3Dsideways', 400, /variant/],
    ];
    for (const [q, status, re] of cases) {
      const r = await gfp(q);
      assert.equal(r.status, status, q);
      assert.ok(isError(r), q);
      assert.match(r.json.error.message, re, q);
    }
  });
});

describe('zones in sessions', () => {
  test('state zones carry watermarks and user pages; events carry the page decision', async () => {
    const s = await session(fx.srv.url, { scenario: 'gfp-atomic-below-min' });
    const st = await api(fx.srv.url, 'GET', `/api/sessions/${s.id}/state?at=${s.events}`);
    assert.equal(st.status, 200);
    const z = st.json.state.zones[0];
    assert.equal(z.name, 'Normal');
    assert.deepEqual(z.watermarks, { min: 128, low: 160, high: 192, promo: 224 });
    assert.equal(z.user_pages, 3996);
    assert.equal(z.free_pages, 99);
    const ev = await api(fx.srv.url, 'GET', `/api/sessions/${s.id}/events?from=0&to=${s.events}`);
    const reserve = ev.json.events.find((e) => e.fn === '__zone_watermark_ok' && e.label === 'reserve');
    assert.ok(reserve, 'a reserve event');
    assert.equal(reserve.page.threshold, 48);
    const slab = ev.json.events.find((e) => e.fn === 'new_slab' && e.label === 'oo');
    assert.equal(slab.page.zone, 'Normal');
    assert.equal(slab.page.alloc_flags_names, 'WMARK_MIN|NON_BLOCK|MIN_RESERVE|KSWAPD');
  });
});
