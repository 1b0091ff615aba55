// @ts-check
// The page allocator beneath the slabs: every zone's free pages against its
// min, low and high watermarks (drawn as lines), its free blocks per order,
// and, when the current event asked the page allocator for pages, how it
// decided: which zone served them, on which path, held to which watermark.
// Everything shown comes from the state and the event; nothing is decided here.

import { h, s, fill } from '../dom.js';

const W = 320, GAUGE_H = 22, BARS_H = 54;

/** The gauge's range: enough to show the watermarks and the free pages near them. */
export function gaugeRange(z) {
  const high = z.watermarks?.high ?? 0;
  return Math.max(1, Math.min(z.pages, Math.max(2 * high, Math.ceil(z.free_pages * 1.1))));
}

/** Which side of its watermarks a zone's free pages are on. */
export function zoneStanding(z) {
  const w = z.watermarks ?? { min: 0, low: 0, high: 0 };
  if (z.free_pages <= w.min) return 'at or below min: only requests with reserves (GFP_ATOMIC, __GFP_MEMALLOC) get pages';
  if (z.free_pages <= w.low) return 'between min and low: the fast path fails, the slow path wakes kswapd and tests min';
  if (z.free_pages <= w.high) return 'between low and high: allocations pass; kswapd, once woken, reclaims up to high';
  return 'above high: every request passes its watermark';
}

/** Why the page allocator decided as it did, in words, from an event's page object. */
export function decisionText(p) {
  if (!p) return '';
  const what = `${p.gfp_names} at order ${p.order}`;
  if (!p.addr) return `No page for ${what}: the last zone tried, ${p.zone} on node ${p.node}, had ${p.free} free pages and needed more than ${p.threshold} (${p.alloc_flags_names}).`;
  const where = p.zone === p.preferred_zone && p.node === p.preferred_node ? `${p.zone} on node ${p.node}, the preferred zone`
    : `${p.zone} on node ${p.node}, not the preferred ${p.preferred_zone} on node ${p.preferred_node}`;
  const bar = p.mark === 'none' ? 'no watermark at all (the block is pfmemalloc)'
    : `the ${p.mark} watermark: ${p.free} free pages less ${2 ** p.order - 1} had to exceed ${p.threshold}`;
  return `${what} was served by ${where}, on the ${p.path} path, held to ${bar}. ALLOC flags ${p.alloc_flags} (${p.alloc_flags_names}).`;
}

export function createPages(root, { onDecode } = {}) {
  const doc = root.ownerDocument;
  let key = '';
  const gauge = (z) => {
    const r = gaugeRange(z), x = (v) => Math.min(W, (W * v) / r);
    const w = z.watermarks ?? { min: 0, low: 0, high: 0 };
    const line = (name, v) => s(doc, 'g', { class: `wm wm-${name}` },
      s(doc, 'title', null, `${name} watermark: ${v} pages`),
      s(doc, 'line', { x1: x(v), x2: x(v), y1: 0, y2: GAUGE_H }));
    return [s(doc, 'svg', { class: 'gauge', width: W, height: GAUGE_H, viewBox: `0 0 ${W} ${GAUGE_H}`, role: 'img',
      'aria-label': `${z.free_pages} free pages; watermarks min ${w.min}, low ${w.low}, high ${w.high}` },
      s(doc, 'rect', { class: 'track', x: 0, y: 3, width: W, height: GAUGE_H - 6 }),
      s(doc, 'rect', { class: 'free', x: 0, y: 3, width: x(z.free_pages), height: GAUGE_H - 6 }),
      line('min', w.min), line('low', w.low), line('high', w.high)),
    h(doc, 'p', { class: 'tiny legend' },
      h(doc, 'span', { class: 'key-free' }, `free ${z.free_pages}`), ' · ',
      h(doc, 'span', { class: 'key-min' }, `min ${w.min}`), ' · ',
      h(doc, 'span', { class: 'key-low' }, `low ${w.low}`), ' · ',
      h(doc, 'span', { class: 'key-high' }, `high ${w.high}`),
      ` (scale 0..${r} pages)`)];
  };
  const bars = (z) => {
    const max = Math.max(1, ...z.nr_free), bw = W / 11;
    return s(doc, 'svg', { class: 'orders', width: W, height: BARS_H, viewBox: `0 0 ${W} ${BARS_H}`, role: 'img',
      'aria-label': `free blocks per order: ${z.nr_free.map((n, o) => `order ${o}: ${n}`).join(', ')}` },
      z.nr_free.map((n, o) => {
        const hgt = n ? Math.max(2, ((BARS_H - 22) * Math.log2(1 + n)) / Math.log2(1 + max)) : 0;
        return s(doc, 'g', null,
          s(doc, 'rect', { x: o * bw + 2, y: BARS_H - 12 - hgt, width: bw - 4, height: hgt }),
          s(doc, 'text', { x: o * bw + bw / 2, y: BARS_H - 14 - hgt, class: 'tiny num', 'text-anchor': 'middle' }, String(n)),
          s(doc, 'text', { x: o * bw + bw / 2, y: BARS_H - 1, class: 'tiny', 'text-anchor': 'middle' }, `o${o}`));
      }));
  };
  return {
    render(m) {
      const k = `${m.session?.id}@${m.at}`;
      if (k === key || !m.cur) return;
      key = k;
      const st = m.cur.state, p = m.cur.event?.page;
      fill(root,
        h(doc, 'h3', null, 'This step'),
        p ? h(doc, 'div', { id: 'page-decision', class: 'decision' },
          h(doc, 'p', null, decisionText(p)),
          onDecode ? h(doc, 'button', { type: 'button', id: 'page-decode', onclick: () => onDecode(p.gfp_names, p.order) }, `Decode ${p.gfp_names} in the gfp tab`) : null)
          : h(doc, 'p', { id: 'page-decision', class: 'decision none' }, 'This step did not ask the page allocator for pages. new_slab and the page allocator\'s own events show their decision here.'),
        h(doc, 'h3', null, 'Zones'),
        (st.zones ?? []).map((z) => h(doc, 'section', { class: 'zone', dataset: { node: String(z.node), zone: z.name } },
          h(doc, 'h4', null, `Node ${z.node} · ${z.name} · ${z.pages} pages`, p && p.addr && p.node === z.node && p.zone === z.name ? h(doc, 'span', { class: 'served' }, ' · served this step') : null),
          h(doc, 'p', { class: 'zone-line' }, `${z.free_pages} free, ${z.user_pages ?? 0} held by other users; ${zoneStanding(z)}.`),
          gauge(z), bars(z),
          h(doc, 'p', { class: 'tiny' }, `lowmem reserve against requests for DMA/DMA32/Normal/Movable: ${Object.values(z.lowmem_reserve ?? {}).join('/')}`))));
    },
  };
}
