// @ts-check
// Snapshot -> rectangles.  Two scenes: the structure (CPUs and their
// sheaves, what is held elsewhere, each node's barn, partial list and page
// allocator), drawn as SVG, and the slab grid (every slab as a row of
// object cells, grouped by node and list), drawn on a canvas.  Plus the
// anchors an animation travels between, and hit testing.  Pure.

import { objectIndex, S } from './model.js';
import { lo48 } from './format.js';

/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./model.js').CacheView} CacheView */
/**
 * @typedef {{ id: number, role: string, cpu?: number, node?: number, x: number, y: number,
 *             w: number, h: number, size: number, capacity: number }} SheafBox
 * @typedef {{ x: number, y: number, w: number, h: number }} Rect
 */

const SHEAF_ROLES = ['main', 'spare', 'rcu_free'];
const BARN_TYPES = ['barn_full', 'barn_empty', 'barn_partial'];

/**
 * What each CPU's caller got and gave back during the operation so far:
 * objects moved to the caller ("user") and from it, by the events of one
 * operation up to the current step, in order.  An object got and given
 * back within the operation counts as neither.
 * @param {import('./types.js').Event[]} events
 * @returns {Map<number, { got: string[], gave: string[] }>}
 */
export function callerHands(events) {
  /** @type {Map<number, { got: Set<string>, gave: Set<string> }>} */
  const by = new Map();
  const of = (cpu) => { let x = by.get(cpu); if (!x) by.set(cpu, x = { got: new Set(), gave: new Set() }); return x; };
  for (const e of events) {
    for (const m of e.moves ?? []) {
      if (m.kind !== 'object') continue;
      if (m.to.type === 'user') {
        const x = of(m.to.cpu ?? e.cpu);
        if (!x.gave.delete(m.id)) x.got.add(m.id);
      } else if (m.from.type === 'user') {
        const x = of(m.from.cpu ?? e.cpu);
        if (!x.got.delete(m.id)) x.gave.add(m.id);
      }
    }
  }
  const out = new Map();
  for (const [cpu, x] of by) if (x.got.size || x.gave.size) out.set(cpu, { got: [...x.got], gave: [...x.gave] });
  return out;
}

/** The narrowest a CPU box of up to four CPUs is drawn: its three stacks 48 apart, with a margin. */
export const CPU_MIN_W = 8 + 3 * 48 + 8;

/**
 * The structure scene.
 * @param {Snapshot} snap
 * @param {CacheView} v
 * @param {{ width?: number, hands?: Map<number, { got: string[], gave: string[] }>, tight?: boolean }} [opts]
 *   hands: what each CPU's caller got and gave back in the operation so far (callerHands);
 *   tight: empty boxes drawn small (an empty caller's pocket, the held-elsewhere
 *   row when it holds no sheaf, a barn without sheaves), for a projector's short screen
 */
export function topoScene(snap, v, opts = {}) {
  const W = opts.width ?? 1200, gap = 10, tight = !!opts.tight;
  const cache = v.cache;
  /** @type {Map<number, SheafBox>} */
  const sheafById = new Map();
  const byId = new Map(v.sheaves.map((s) => [s.id, s]));
  const mk = (sh, role, x, y, w, h, extra = {}) => {
    const b = { id: sh.id, role, x, y, w, h, size: sh.size, capacity: Math.max(sh.capacity, sh.size, 1), ...extra };
    sheafById.set(sh.id, b);
    return b;
  };

  // objects with their slabs when of this cache (the inspector shows those)
  const inCache = (list) => (list ?? []).map((addr) => ({ addr, slab: v.slabOf(addr)?.addr ?? null }));

  // ---- CPUs
  const nCpu = snap.nr_cpus;
  const compact = nCpu > 4;
  // a CPU box holds its three stacks side by side (and its title above them):
  // CPUs that would be narrower than that share the width in rows instead
  const fit = Math.max(1, Math.min(nCpu, Math.floor((W + gap) / (CPU_MIN_W + gap))));
  const cw = compact ? 180 : Math.min(290, (W - gap * (fit - 1)) / fit);
  // too narrow for the caller's pocket beside the three stacks (its words and an address): it goes under them
  const below = !compact && cw - 8 - (8 + 3 * 48 + 4) < 90;
  // a cache of the hybrid model (6.18) with sheaves has a cpu slab too: its
  // row goes under the sheaves, and the CPU box grows by one row
  const both = !!cache?.sheaf_capacity && !!cache?.cpus?.some((c) => c?.cpu_slab);
  const rowH = (below ? 150 : compact ? 128 : 150) - 62 + 34;
  // tight: a pocket under the stacks is one line high while no CPU's caller holds anything
  const pocketH = tight && below && ![...(opts.hands?.values() ?? [])].some((x) => x.got.length || x.gave.length) ? 22 : 40;
  const ch = (compact ? 128 : below ? 162 + pocketH : 150) + (both ? rowH : 0);
  const perRow = Math.max(1, Math.floor((W + gap) / (cw + gap)));
  const cpus = [];
  for (let c = 0; c < nCpu; c++) {
    const x = (c % perRow) * (cw + gap), y = Math.floor(c / perRow) * (ch + gap);
    const info = cache?.cpus?.[c];
    const sw = compact ? 26 : 38, sp = compact ? 36 : 48, sh = (below ? 150 : ch - (both ? rowH : 0)) - 62;
    // legacy model: the cpu slab with its lockless freelist, and the CPU partial list;
    // hybrid model: those under the sheaves when the cache has both
    const legacy = info?.cpu_slab ? legacyCpu(info.cpu_slab, cache, v, x, y + (both ? rowH : 0), sw, sp, sh) : null;
    const stacks = legacy && !both ? [] : SHEAF_ROLES.map((role, k) => {
      const ref = info?.[role];
      const box = { role, cpu: c, x: x + 8 + k * sp, y: y + 26, w: sw, h: sh, sheaf: null };
      if (ref && byId.has(ref.id)) box.sheaf = mk(byId.get(ref.id), role, box.x, box.y, sw, sh, { cpu: c });
      return box;
    });
    const px = x + 8 + 3 * sp + 4;
    cpus.push({ cpu: c, node: snap.cpu_node[c] ?? 0, x, y, w: cw, h: ch, stacks, compact, legacy,
      caller: { ...(below ? { x: x + 8, y: y + 26 + sh + 34 + (both ? rowH : 0), w: cw - 16, h: pocketH } : { x: px, y: y + 26, w: Math.max(24, x + cw - 8 - px), h: Math.min(44, sh / 2) }),
        got: inCache(opts.hands?.get(c)?.got), gave: inCache(opts.hands?.get(c)?.gave) },
      stats: info?.stats ?? {} });
  }
  let y = Math.ceil(nCpu / perRow) * (ch + gap);

  // ---- held elsewhere: in flight, prefilled, RCU, other places
  const flightSheaves = v.sheaves.filter((s) => s.place.type === 'inflight');
  const prefill = v.sheaves.filter((s) => s.place.type === 'prefill');
  const rcuSheaves = v.sheaves.filter((s) => s.place.type === 'rcu_pending');
  const known = new Set([...SHEAF_ROLES, ...BARN_TYPES, 'inflight', 'prefill', 'rcu_pending']);
  const other = v.sheaves.filter((s) => !known.has(s.place.type));
  // tight: a row of two lines of words while none of them holds a sheaf
  const hh = tight && !flightSheaves.length && !prefill.length && !rcuSheaves.length && !other.length ? 42 : 80;
  // a narrow picture (a phone) has them in two rows of two, each wide enough for its words
  // (tight: one row of four equal boxes down to the width of their short words)
  const two = W < (tight ? 380 : 460);
  const cut = tight ? [0.25, 0.5, 0.75] : [0.4, 0.64, 0.82];
  const part = (a, b, r = 0) => ({ x: W * a + (a ? gap / 2 : 0), y: y + r * (hh + gap), w: W * (b - a) - (a ? gap / 2 : 0) - (b < 1 ? gap / 2 : 0), h: hh });
  // Objects in flight and waiting for RCU, as the legend counts them (the
  // cache view's states): those in such sheaves and the loose ones together.
  const held = (list) => list.reduce((n, s) => n + s.size, 0);
  const count = (code, list) => {
    const objects = v.counts?.[code] ?? 0;
    return { objects, loose: Math.max(0, objects - held(list)) };
  };
  const hold = {
    y, h: hh,
    flight: { ...(two ? part(0, 0.5) : part(0, cut[0])), sheaves: /** @type {SheafBox[]} */ ([]), ...count(S.inflight, flightSheaves) },
    prefill: { ...(two ? part(0.5, 1) : part(cut[0], cut[1])), sheaves: /** @type {SheafBox[]} */ ([]) },
    rcu: { ...(two ? part(0, 0.5, 1) : part(cut[1], cut[2])), sheaves: /** @type {SheafBox[]} */ ([]), ...count(S.rcu_pending, rcuSheaves) },
    other: { ...(two ? part(0.5, 1, 1) : part(cut[2], 1)), sheaves: /** @type {SheafBox[]} */ ([]) },
  };
  const row = (box, list, role) => list.forEach((s, i) => {
    const w = 22, step = Math.min(w + 6, (box.w - 16) / Math.max(list.length, 1));
    box.sheaves.push(mk(s, role, box.x + 8 + i * Math.max(step, 4), box.y + 38, Math.min(w, Math.max(step - 2, 3)), box.h - 42));
  });
  row(hold.flight, flightSheaves, 'inflight');
  row(hold.prefill, prefill, 'prefill');
  row(hold.rcu, rcuSheaves, 'rcu_pending');
  row(hold.other, other, 'other');
  y += (two ? 2 : 1) * (hh + gap);

  // ---- nodes: barn, partial list, page allocator
  const nNode = snap.nr_nodes;
  // two nodes side by side only when each keeps room for its labels and the order axis
  const perLine = nNode === 1 || (W - gap) / 2 < 440 ? 1 : 2;
  const nw = (W - gap * (perLine - 1)) / perLine, nh = 176;
  const nodes = [];
  for (let n = 0; n < nNode; n++) {
    const x = (n % perLine) * (nw + gap), ny = y + Math.floor(n / perLine) * (nh + gap);
    // tight: a barn without sheaves gives a share of its width to the partial list and the pages
    const bare = tight && !v.sheaves.some((s) => BARN_TYPES.includes(s.place.type) && (s.place.node ?? 0) === n);
    const bs = bare ? 0.34 : 0.46, more = (0.46 - bs) / 2;
    const barn = { x: x + 8, y: ny + 24, w: nw * bs, h: nh - 32, full: /** @type {SheafBox[]} */ ([]),
      empty: /** @type {SheafBox[]} */ ([]), partial: /** @type {SheafBox|null} */ (null),
      info: cache?.nodes?.[n]?.barn ?? { nr_full: 0, nr_empty: 0, partial: null } };
    const inBarn = (t) => v.sheaves.filter((s) => s.place.type === t && (s.place.node ?? 0) === n)
      .sort((a, b) => (a.place.slot ?? 0) - (b.place.slot ?? 0));
    const lane = (list, role, ly, into) => {
      const avail = barn.w - 100, w = 14;
      const step = Math.min(w + 4, avail / Math.max(list.length, 1));
      list.forEach((s, i) => into.push(mk(s, role, barn.x + 8 + i * step, ly, Math.min(w, step), 44, { node: n })));
    };
    lane(inBarn('barn_full'), 'barn_full', barn.y + 22, barn.full);
    lane(inBarn('barn_empty'), 'barn_empty', barn.y + 86, barn.empty);
    const bp = inBarn('barn_partial')[0];
    if (bp) barn.partial = mk(bp, 'barn_partial', barn.x + barn.w - 40, barn.y + 22, 22, 108, { node: n });
    const plSlabs = v.slabs.filter((s) => s.node === n && s.place.type === 'node_partial');
    const pl = { x: x + nw * (bs + 0.02) + 8, y: ny + 24, w: nw * (0.24 + more), h: nh - 32, nr: cache?.nodes?.[n]?.nr_partial ?? plSlabs.length,
      min: cache?.min_partial ?? 0, chips: /** @type {Array<Rect & {addr: string, inuse: number, objects: number}>} */ ([]) };
    const chipW = 12, chipH = 22, perChip = Math.max(1, Math.floor((pl.w - 16) / (chipW + 3)));
    plSlabs.slice(0, perChip * 3).forEach((s, i) => pl.chips.push({ addr: s.addr, inuse: s.inuse, objects: s.objects,
      x: pl.x + 8 + (i % perChip) * (chipW + 3), y: pl.y + 46 + Math.floor(i / perChip) * (chipH + 4), w: chipW, h: chipH }));
    const zone = (snap.zones || []).find((z) => z.node === n);
    const zb = { x: x + nw * (0.74 - more) + 8, y: ny + 24, w: nw * (0.26 + more) - 16, h: nh - 32, zone, orders: /** @type {any[]} */ ([]) };
    if (zone) {
      const bw = (zb.w - 16) / zone.nr_free.length, max = Math.max(1, ...zone.nr_free.map((c) => Math.log2(1 + c)));
      zone.nr_free.forEach((c, o) => {
        const bh = (Math.log2(1 + c) / max) * (zb.h - 64);
        zb.orders.push({ order: o, count: c, x: zb.x + 8 + o * bw, y: zb.y + zb.h - 22 - bh, w: Math.max(2, bw - 2), h: bh });
      });
    }
    nodes.push({ node: n, x, y: ny, w: nw, h: nh, barn, plist: pl, zone: zb, narrow: nw < 520 });
  }
  y += Math.ceil(nNode / perLine) * (nh + gap);
  return { w: W, h: y, cpus, hold, nodes, sheafById, tight };
}

/**
 * Legacy model: a CPU's cpu slab (its lockless freelist filling it, against
 * the objects per slab) and its partial list (one chip per slab, head first).
 */
function legacyCpu(cs, cache, v, x, y, sw, sp, sh) {
  const objs = Math.max(1, cache?.objs_per_slab ?? 1);
  const slab = { x: x + 8, y: y + 26, w: sw, h: sh, addr: cs.slab, freelist: cs.freelist.length, objects: objs, tid: cs.tid };
  const lane = { x: x + 8 + sp, y: y + 26, w: 2 * sp - 6, h: sh, chips: /** @type {Array<Rect & {addr: string, inuse: number, objects: number, free: number}>} */ ([]) };
  const chipW = 10, step = Math.min(chipW + 3, (lane.w - 4) / Math.max(cs.partial.length, 1));
  cs.partial.forEach((addr, i) => {
    const s = v.slabs.find((sl) => sl.addr === addr);
    lane.chips.push({ addr, inuse: s?.inuse ?? 0, objects: s?.objects ?? objs, free: s?.freelist.length ?? 0,
      x: lane.x + 2 + i * Math.max(step, 3), y: lane.y + 16, w: Math.max(2, Math.min(chipW, step - 1)), h: sh - 16 });
  });
  return { slab, partial: lane, count: cs.partial.length, limit: cache?.cpu_partial_slabs ?? 0 };
}

const GROUP_ORDER = ['cpu_slab', 'cpu_partial', 'node_partial', 'node_full', 'full', 'inflight'];
const GROUP_TITLE = {
  node_partial: 'partial list', node_full: 'full list', full: 'full, on no list', inflight: 'in flight',
  cpu_slab: 'cpu slabs', cpu_partial: 'CPU partial lists',
};

/**
 * The slab grid scene: every slab of the cache as a row of cells.
 * @param {CacheView} v
 * @param {{ width?: number, maxHeight?: number, cell?: number, collapsed?: Set<string>,
 *           collapseFull?: boolean, maxCell?: number }} [opts] maxCell: the largest cell (18 unless asked: the projector)
 */
export function gridScene(v, opts = {}) {
  const W = opts.width ?? 900, gap = 6, labelW = 92, headH = 20;
  const c = v.cache;
  const groups = new Map();
  for (const s of v.slabs) {
    const key = `${s.node}:${s.place.type}`;
    if (!groups.has(key)) groups.set(key, { key, node: s.node, type: s.place.type, slabs: [] });
    groups.get(key).slabs.push(s);
  }
  const rank = (t) => { const i = GROUP_ORDER.indexOf(t); return i < 0 ? 99 : i; };
  const list = [...groups.values()].sort((a, b) => a.node - b.node || rank(a.type) - rank(b.type) || a.type.localeCompare(b.type));
  const objs = c ? c.objs_per_slab : 1;
  const isFull = (s) => { const a = v.codes.get(s.addr); return !!a && a.every((x) => x === S.user); };
  const collapsed = (g, s) => (opts.collapsed?.has(g.key)) || (opts.collapseFull && isFull(s));

  /** @param {number} cell @param {number} cols */
  const place = (cell, cols) => {
    const rowsPer = Math.ceil(objs / cols);
    const rowH = Math.max(rowsPer * cell, 12);
    const rowW = labelW + cols * cell;
    const perLine = Math.max(1, Math.floor((W + gap) / (rowW + gap)));
    const chipW = 22, chipH = 10, chipsPer = Math.max(1, Math.floor((W + 4) / (chipW + 4)));
    let y = 0;
    const out = [], slabs = [];
    for (const g of list) {
      const gy = y;
      y += headH;
      const open = g.slabs.filter((s) => !collapsed(g, s));
      const shut = g.slabs.filter((s) => collapsed(g, s));
      open.forEach((s, i) => {
        const x = (i % perLine) * (rowW + gap), yy = y + Math.floor(i / perLine) * (rowH + gap);
        slabs.push({ addr: s.addr, group: g.key, x, y: yy, w: rowW, h: rowH, cx: x + labelW, cy: yy, cell, cols, rows: rowsPer, collapsed: false });
      });
      y += Math.ceil(open.length / perLine) * (rowH + gap);
      shut.forEach((s, i) => {
        slabs.push({ addr: s.addr, group: g.key, x: (i % chipsPer) * (chipW + 4), y: y + Math.floor(i / chipsPer) * (chipH + 4),
          w: chipW, h: chipH, cx: 0, cy: 0, cell: 0, cols, rows: rowsPer, collapsed: true });
      });
      y += Math.ceil(shut.length / chipsPer) * (chipH + 4);
      out.push({ key: g.key, node: g.node, type: g.type, y: gy, h: y - gy,
        title: `node ${g.node} · ${GROUP_TITLE[g.type] ?? g.type.replace(/_/g, ' ')} (${g.slabs.length})`,
        count: g.slabs.length, closed: !!opts.collapsed?.has(g.key) });
      y += gap;
    }
    return { w: W, h: Math.max(y, 40), groups: out, slabs, cell, labelW, headH };
  };
  // Columns per slab row: up to 64, fewer (rows wrap) when that allows bigger cells.
  const widest = Math.max(1, Math.min(objs, 64, Math.floor((W - labelW) / 4)));
  const colChoices = [widest, 32, 16].filter((x, i, a) => x <= widest && a.indexOf(x) === i);
  if (opts.cell) return index(place(opts.cell, widest));
  let best = null;
  for (const cell of [64, 56, 48, 40, 34, 28, 24, 21, 18, 16, 14, 12, 10, 9, 8, 7, 6, 5, 4].filter((x) => x <= (opts.maxCell ?? 18) || x <= 4)) {
    for (const cols of colChoices) {
      if (labelW + cols * cell > W && cell > 4) continue;
      const p = place(cell, cols);
      best = p;
      if (p.h <= (opts.maxHeight ?? 600)) return index(p);
    }
  }
  return index(/** @type {any} */ (best ?? place(4, widest)));
}

function index(g) {
  g.byAddr = new Map(g.slabs.map((s) => [s.addr, s]));
  return g;
}

/**
 * Centre of object @addr's cell in grid @g, or of its collapsed slab chip.
 * @returns {{ x: number, y: number } | null}
 */
export function cellCenter(g, v, addr) {
  const slab = v.slabOf(addr);
  if (!slab || !v.cache) return null;
  const r = g.byAddr.get(slab.addr);
  if (!r) return null;
  if (r.collapsed) return { x: r.x + r.w / 2, y: r.y + r.h / 2 };
  const i = objectIndex(v.cache, slab, addr);
  if (i < 0) return null;
  return { x: r.cx + (i % r.cols + 0.5) * r.cell, y: r.cy + (Math.floor(i / r.cols) + 0.5) * r.cell };
}

/**
 * What is at (@x, @y) of grid @g: an object cell, a slab, a group header, or null.
 * @returns {{ kind: 'object', addr: string, slab: string, index: number } | { kind: 'slab', slab: string } |
 *           { kind: 'group', key: string } | null}
 */
export function hitGrid(g, v, x, y) {
  for (const r of g.slabs) {
    if (x < r.x || x >= r.x + r.w || y < r.y || y >= r.y + r.h) continue;
    if (r.collapsed || x < r.cx) return { kind: 'slab', slab: r.addr };
    const col = Math.floor((x - r.cx) / r.cell), row = Math.floor((y - r.cy) / r.cell);
    const i = row * r.cols + col;
    const slab = v.slabs.find((s) => s.addr === r.addr);
    if (!slab || !v.cache || col >= r.cols || i >= slab.objects) return { kind: 'slab', slab: r.addr };
    return { kind: 'object', addr: objectAddrOf(v, slab, i), slab: r.addr, index: i };
  }
  for (const gr of g.groups) if (y >= gr.y && y < gr.y + g.headH) return { kind: 'group', key: gr.key };
  return null;
}

/** The address of object @i of @slab in cache view @v. */
export function objectAddrOf(v, slab, i) {
  const c = v.cache;
  const base = lo48(slab.addr) + (c.red_left_pad || 0) + i * c.slab_size;
  return slab.addr.slice(0, -12) + base.toString(16).padStart(12, '0');
}

/**
 * Where a move starts or ends: a point in one of the two scenes.
 * @param {{ topo: any, grid: any, view: CacheView }} sc
 * @param {'object'|'slab'|'sheaf'} kind
 * @param {string|number} id
 * @param {import('./types.js').Place} p
 * @param {number} cpu the event's CPU
 * @returns {{ scene: 'topo'|'grid', x: number, y: number } | null}
 */
export function anchor(sc, kind, id, p, cpu) {
  const { topo, grid, view } = sc;
  const center = (r) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });
  const T = (pt) => (pt ? { scene: /** @type {'topo'} */ ('topo'), ...pt } : null);
  const G = (pt) => (pt ? { scene: /** @type {'grid'} */ ('grid'), ...pt } : null);
  const cpuBox = topo.cpus[p.cpu ?? cpu] ?? topo.cpus[0];
  const node = topo.nodes[p.node ?? cpuBox?.node ?? 0] ?? topo.nodes[0];
  if (kind === 'object') {
    if (p.type === 'slab') return G(cellCenter(grid, view, String(id)));
    if (p.sheaf && topo.sheafById.has(p.sheaf)) {
      const b = topo.sheafById.get(p.sheaf);
      const slot = Math.min(p.slot ?? b.size - 1, b.capacity - 1);
      return T({ x: b.x + b.w / 2, y: b.y + b.h - ((Math.max(slot, 0) + 0.5) / b.capacity) * b.h });
    }
    if (p.type === 'user') return cpuBox ? T(center(cpuBox.caller)) : null;
    if (p.type === 'cpu_freelist' && cpuBox?.legacy) return T(center(cpuBox.legacy.slab));
    if (p.type === 'rcu_pending') return T(center(topo.hold.rcu));
    if (p.type === 'inflight') return T(center(topo.hold.flight));
    if (SHEAF_ROLES.includes(p.type) && cpuBox) {
      const st = cpuBox.stacks.find((s) => s.role === p.type);
      return st ? T(center(st)) : null;
    }
    if (BARN_TYPES.includes(p.type) && node) return T(center(node.barn));
    return null;
  }
  if (kind === 'slab') {
    if (p.type === 'pages' || p.type === 'none') return node?.zone ? T(center(node.zone)) : null;
    if (p.type === 'cpu_slab' && cpuBox?.legacy) return T(center(cpuBox.legacy.slab));
    if (p.type === 'cpu_partial' && cpuBox?.legacy) return T(center(cpuBox.legacy.partial));
    const r = grid.byAddr.get(String(id));
    return r ? G(center(r)) : node ? T(center(node.plist)) : null;
  }
  const b = topo.sheafById.get(Number(id));
  if (b && (p.type !== 'none')) return T(center(b));
  return null;
}

/**
 * The tracks an event's moves travel: from anchors in the scenes before,
 * to anchors in the scenes after.  Moves with neither end drawn are dropped.
 * @param {import('./types.js').Event} e
 * @param {{ topo: any, grid: any, view: CacheView }} before
 * @param {{ topo: any, grid: any, view: CacheView }} after
 * @param {number} [max] most tracks kept (large bulk moves are thinned)
 */
export function planMoves(e, before, after, max = 400) {
  const out = [];
  if (!e) return out;
  const moves = e.moves.length > max ? e.moves.filter((_, i) => i % Math.ceil(e.moves.length / max) === 0) : e.moves;
  for (const m of moves) {
    const a = anchor(before, m.kind, m.id, m.from, e.cpu);
    const b = anchor(after, m.kind, m.id, m.to, e.cpu);
    if (!a && !b) continue;
    out.push({ kind: m.kind, id: m.id, from: m.from.type, to: m.to.type, a, b });
  }
  return out;
}

/** Points of slab @addr's freelist in grid @g, in freelist order. */
export function freelistPath(g, v, addr) {
  const s = v.slabs.find((x) => x.addr === addr);
  if (!s) return [];
  return s.freelist.map((a) => cellCenter(g, v, a)).filter(Boolean);
}

/**
 * Where the timeline's markers go so that none hides another: each wants
 * to be centred at its step's x; markers too close to share a row take the
 * next row (up to @maxLanes), and in a row they still touch, a run of them
 * is pushed apart side by side, centred on where they want to be and kept
 * inside the track.  Markers that cannot fit at all (more than the rows
 * hold) are left out: @keep says which were placed.
 * @param {number[]} xs wanted centres, px from the track's left, ascending
 * @param {number[]} widths each marker's width, px
 * @param {number} width the track's width, px
 * @param {{ gap?: number, maxLanes?: number, overhang?: number }} [o]
 *   gap: px between markers; overhang: px a marker may stick out past either end
 * @returns {{ left: number[], lane: number[], lanes: number, keep: boolean[] }}
 */
export function spreadMarkers(xs, widths, width, o = {}) {
  const gap = o.gap ?? 2, maxLanes = Math.max(1, o.maxLanes ?? 3), over = o.overhang ?? 0;
  const n = xs.length;
  const lane = new Array(n).fill(0), keep = new Array(n).fill(true), left = new Array(n).fill(0);
  // 1. rows: the first row with room, else the row whose last marker ends first
  /** @type {number[]} where each row's last marker ends (once pushed clear of the one before) */
  const ends = [];
  for (let i = 0; i < n; i++) {
    const l = xs[i] - widths[i] / 2;
    let k = ends.findIndex((e) => e + gap <= l);
    if (k < 0 && ends.length < maxLanes) k = ends.length;
    if (k < 0) k = ends.indexOf(Math.min(...ends));
    lane[i] = k;
    ends[k] = (ends[k] != null ? Math.max(l, ends[k] + gap) : l) + widths[i];
  }
  const lanes = Math.max(1, ends.length);
  // 2. in each row, runs of touching markers side by side (the clusters of a
  // label placer): a run sits centred on its markers' wanted places, inside the track
  const lo = -over, hi = width + over;
  const clamp = (r) => Math.max(lo, Math.min(hi - r.size, r.want));
  for (let k = 0; k < lanes; k++) {
    const idx = [];
    for (let i = 0; i < n; i++) if (lane[i] === k) idx.push(i);
    // more than the row holds: leave out every other marker until it fits
    let total = idx.reduce((sum, i) => sum + widths[i] + gap, -gap);
    while (idx.length > 1 && total > hi - lo) {
      for (let j = idx.length - 1; j > 0 && total > hi - lo; j -= 2) {
        keep[idx[j]] = false;
        total -= widths[idx[j]] + gap;
        idx.splice(j, 1);
      }
    }
    /** @type {{ first: number, count: number, size: number, want: number, start: number }[]} */
    const runs = [];
    for (let j = 0; j < idx.length; j++) {
      const i = idx[j];
      let run = { first: j, count: 1, size: widths[i], want: xs[i] - widths[i] / 2, start: 0 };
      for (;;) {
        run.start = clamp(run);
        const prev = runs[runs.length - 1];
        if (!prev || prev.start + prev.size + gap <= run.start) break;
        runs.pop();
        // the merged run's wanted start: the mean, over its markers, of wanted left minus offset in the run
        const want = (prev.want * prev.count + (run.want - prev.size - gap) * run.count) / (prev.count + run.count);
        run = { first: prev.first, count: prev.count + run.count, size: prev.size + gap + run.size, want, start: 0 };
      }
      runs.push(run);
    }
    for (const r of runs) {
      let x = r.start;
      for (let j = r.first; j < r.first + r.count; j++) { left[idx[j]] = x; x += widths[idx[j]] + gap; }
    }
  }
  return { left, lane, lanes, keep };
}
