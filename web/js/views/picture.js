// @ts-check
// The picture of the allocator: the structure (SVG) above the slab grid
// (canvas), with a layer of tokens in which every event's moves travel:
// objects from slab cells into sheaves and out to the caller, sheaves into
// the barn, slabs between lists, to and from the page allocator.  Tokens
// move by the Web Animations API (transform and opacity only), so the
// compositor runs them without repainting the page each frame.

import { h, s, fill, sizeCanvas, reducedMotion } from '../dom.js';
import { cacheView, S } from '../model.js';
import { topoScene, gridScene, planMoves, cellCenter, callerHands } from '../layout.js';
import { paintCell } from '../paint.js';
import { STATES, RED_ZONE } from '../format.js';
import { createTopology } from './topology.js';
import { createSlabmap } from './slabmap.js';

const DEST_CODE = { user: S.user, slab: S.free, main: S.main, spare: S.spare, rcu_free: S.rcu_free, barn_full: S.barn,
  barn_empty: S.barn, barn_partial: S.barn, prefill: S.prefill, inflight: S.inflight, rcu_pending: S.rcu_pending,
  cpu_freelist: S.cpu_freelist };

/** Places an event touched, as keys the structure highlights. */
export function touchedKeys(e) {
  const out = new Set();
  if (!e) return out;
  for (const m of e.moves) {
    for (const p of [m.from, m.to]) {
      if (m.kind === 'sheaf') out.add(`sheaf:${m.id}`);
      if (p.sheaf) out.add(`sheaf:${p.sheaf}`);
      const node = p.node ?? (e.node >= 0 ? e.node : 0);
      if (p.type === 'user') out.add(`caller:${p.cpu ?? e.cpu}`);
      else if (p.type.startsWith('barn_')) out.add(`barn:${node}`);
      else if (p.type === 'node_partial') out.add(`plist:${node}`);
      else if (p.type === 'pages') out.add(`pages:${node}`);
      else if (p.type === 'inflight') out.add('flight');
      else if (p.type === 'rcu_pending') out.add('rcu');
      else if (p.type === 'prefill') out.add('prefill');
      else if (p.type === 'cpu_slab' || p.type === 'cpu_freelist') out.add(`cpuslab:${p.cpu ?? e.cpu}`);
      else if (p.type === 'cpu_partial') out.add(`cpupartial:${p.cpu ?? e.cpu}`);
    }
  }
  // a decision that moves nothing (__pcs_replace_empty_main choosing): the CPU that decides
  if (!e.moves.length && e.cpu >= 0) out.add(`cpu:${e.cpu}`);
  return out;
}

/**
 * The events of the current step's operation up to that step, as far as
 * they are loaded (the current event at least), oldest first.
 * @param {any} m the player's model
 */
export function opSoFar(m, max = 5000) {
  const e = m.cur?.event;
  if (!e) return [];
  const out = [e];
  for (let q = e.seq - 1; q >= 0 && out.length < max; q--) {
    const x = m.events.get(q);
    if (!x || x.op !== e.op) break;
    out.push(x);
  }
  return out.reverse();
}

/**
 * @param {{ onSelect: (sel: any) => void, onTerm?: (id: string) => void, win: Window & typeof globalThis, idPrefix?: string }} o
 *   onTerm: the glossary at term @id, which the structure's labels link to
 *   idPrefix: before the ids of its controls, where a page shows more than one picture (compare)
 */
export function createPicture(root, o) {
  const doc = root.ownerDocument, win = o.win, id = (x) => `${o.idPrefix ?? ''}${x}`;
  const opts = { collapseFull: false, animate: true, collapsed: new Set(), scale: 1 };
  const svg = s(doc, 'svg', { class: 'topo' });
  const canvas = h(doc, 'canvas', { class: 'slabmap' });
  const tokens = h(doc, 'div', { class: 'tokens', 'aria-hidden': 'true' });
  const gridWrap = h(doc, 'div', { class: 'grid-wrap' }, canvas);
  const stage = h(doc, 'div', { class: 'stage' }, svg, gridWrap, tokens);
  const legend = h(doc, 'ul', { class: 'legend', 'aria-label': 'Legend of object states' });
  const cbCollapse = h(doc, 'input', { type: 'checkbox', id: id('opt-collapse') });
  const cbAnimate = h(doc, 'input', { type: 'checkbox', id: id('opt-animate'), checked: true });
  const bar = h(doc, 'div', { class: 'pic-bar', role: 'toolbar', 'aria-label': 'Picture' },
    h(doc, 'button', { type: 'button', id: id('zoom-in'), onclick: () => map.zoomIn() }, 'Zoom in'),
    h(doc, 'button', { type: 'button', id: id('zoom-out'), onclick: () => map.zoomOut() }, 'Zoom out'),
    h(doc, 'button', { type: 'button', id: id('zoom-reset'), onclick: () => map.reset() }, 'Fit'),
    h(doc, 'label', null, cbCollapse, ' Collapse full slabs'),
    h(doc, 'label', null, cbAnimate, ' Animate moves'));
  // a replayed trace whose release was guessed says so here, where the picture is read
  const kernelNote = h(doc, 'p', { class: 'pic-note', id: id('pic-kernel'), hidden: true });
  fill(root, bar, kernelNote, stage, legend);
  cbCollapse.addEventListener('change', () => { opts.collapseFull = cbCollapse.checked; memo.key = ''; redraw(); });
  cbAnimate.addEventListener('change', () => { opts.animate = cbAnimate.checked; });

  const topo = createTopology(svg, { onSelect: o.onSelect, onTerm: o.onTerm });
  const map = createSlabmap(canvas, {
    onSelect: (hit) => o.onSelect(hit.kind === 'object' ? { kind: 'object', id: hit.addr, slab: hit.slab } : { kind: 'slab', id: hit.slab, slab: hit.slab }),
    onHover: () => {},
    onToggleGroup: (key) => { opts.collapsed.has(key) ? opts.collapsed.delete(key) : opts.collapsed.add(key); memo.key = ''; redraw(); },
    onView: () => {},
  });

  /** @type {any} */ const memo = { key: '', scenes: null, prevKey: '', prevScenes: null };
  /** @type {any} */ let last = null;
  let lastStep = -1;
  const live = new Set();

  const scenesFor = (resp, cacheId, tw, w, gh, hands) => {
    const v = cacheView(resp.state, cacheId);
    v.names = resp.names ?? {}; // the scenario's object names at this position
    v.same = resp.same_as ?? {}; // ... and the first name of each object a later name reuses
    const gw = measured.beside ? w - besideWidth(w) - BESIDE_GAP : measured.k > 1 ? w : tw;
    return { view: v, topo: topoScene(resp.state, v, { width: tw, hands, tight: measured.tight }), grid: gridScene(v, { width: gw - 4, maxHeight: gh - 8, maxCell: measured.beside ? (measured.share ? 64 : 28) : 18, collapsed: opts.collapsed, collapseFull: opts.collapseFull }) };
  };

  // Sizes are measured when the stage resizes (never in the middle of a step,
  // where reading layout would force the browser to lay out the page again).
  const measured = { w: 0, max: 300, k: 1, fit: 0, beside: false, objs: 0, share: 0, tight: false };
  function measure() {
    measured.w = stage.clientWidth;
    // the stylesheet may draw the structure larger (the presenter view: --topo-scale)
    const cs = win.getComputedStyle(stage);
    const k = parseFloat(cs.getPropertyValue('--topo-scale'));
    measured.k = Number.isFinite(k) && k > 0 ? k : 1;
    // ... and ask it to fit the pane's height (the projector): the height it may take, or 0
    measured.fit = cs.getPropertyValue('--topo-fit').trim() === '1' ? root.clientHeight - 4 : 0;
    // ... and draw the slab rows beside it, not under it (the projector's wide, short screen)
    measured.beside = measured.fit > 0 && cs.getPropertyValue('--topo-beside').trim() === '1';
    // ... giving the rows at least this share of the stage (a large projector: --slab-share)
    const share = parseFloat(cs.getPropertyValue('--slab-share'));
    measured.share = Number.isFinite(share) && share > 0 && share < 1 ? share : 0;
    // ... and drawing the structure's empty boxes small (a projector's short screen: --topo-tight)
    measured.tight = measured.beside && cs.getPropertyValue('--topo-tight').trim() === '1';
    // The grid may grow up to the wrapper's CSS max-height; it shrinks to its content.
    const max = parseFloat(win.getComputedStyle(gridWrap).maxHeight);
    measured.max = measured.beside ? measured.fit : Number.isFinite(max) ? max : 300;
  }
  /*
   * Beside the slab rows, the structure's width: the stage less what a slab
   * row of 16 objects a row needs (the cache's objects when fewer) at 18 px
   * cells, at most 45% of the stage and at least 240 px, or the stylesheet's
   * --slab-share of it when more (a large projector, where the empty boxes
   * of the structure would take the room); the rows' cells grow into what
   * the structure leaves.
   */
  const BESIDE_GAP = 10;
  function besideWidth(w) {
    const cols = Math.max(1, Math.min(16, measured.objs || 16));
    const need = Math.max(w * measured.share, Math.min(w * 0.45, Math.max(240, 92 + cols * 18 + 12)));
    return Math.max(300, Math.floor(w - need - BESIDE_GAP));
  }
  if (win.ResizeObserver) {
    const ro = new win.ResizeObserver(() => {
      const w = stage.clientWidth;
      // the width, or the pane's height when the structure fits it (a banner came or went)
      if (w && (Math.abs(w - measured.w) > 0.5 || (measured.fit && Math.abs(root.clientHeight - 4 - measured.fit) > 0.5))) { measure(); memo.key = ''; redraw(); }
    });
    ro.observe(stage);
    ro.observe(root);
  }
  function sizes() {
    if (!measured.w) measure();
    const w = Math.max(320, measured.w || 800);
    const sw = measured.beside ? besideWidth(w) : w; // the structure's drawn width
    return { w, sw, tw: Math.max(300, sw / (opts.scale * measured.k)), gh: Math.max(120, measured.max) };
  }
  let gridH = 120;

  // Before the first picture nothing is measured (a layout of the page while
  // it boots): the first render measures (sizes()).
  function redraw() {
    if (!last) { measured.w = 0; return; }
    measure();
    render(last.m, true);
  }

  let legendKey = null;
  const legendCounts = [];
  function legendItems(v) {
    const flags = v.cache?.flags ?? [];
    const key = flags.join();
    if (key !== legendKey) {
      legendKey = key;
      legendCounts.length = 0;
      const items = STATES.map((st, i) => {
        const c = h(doc, 'canvas', { role: 'img', 'aria-label': st.name });
        paintCell(sizeCanvas(c, 16, 16), 1, 1, 15, i);
        const n = h(doc, 'span');
        legendCounts.push(n);
        return h(doc, 'li', { title: st.desc }, c, ` ${st.name} (`, n, ')');
      });
      if (flags.includes('SLAB_RED_ZONE')) {
        const c = h(doc, 'canvas', { role: 'img', 'aria-label': 'red zone' });
        paintCell(sizeCanvas(c, 16, 16), 1, 1, 15, S.user, { redZone: true });
        items.push(h(doc, 'li', { title: 'red zones on both sides of each object (SLAB_RED_ZONE)' }, c, ' red zone (edges)'));
      }
      if (flags.includes('SLAB_POISON')) items.push(h(doc, 'li', { title: 'free objects are poisoned (SLAB_POISON)' }, '· poisoned when free (dot)'));
      fill(legend, ...items);
    }
    legendCounts.forEach((n, i) => { const t = String(v.counts[i]); if (n.textContent !== t) n.textContent = t; });
  }

  /** Position of a scene point on the stage (CSS pixels). */
  function stagePoint(pt, geo) {
    if (!pt) return null;
    if (pt.scene === 'topo') return { x: geo.svgX + pt.x * geo.svgK, y: geo.svgY + pt.y * geo.svgK };
    const q = map.toScreen(pt);
    return { x: geo.gridX + q.x, y: geo.gridY + q.y };
  }

  /** Where the two scenes sit on the stage, by arithmetic from the CSS (no layout reads). */
  function geometry() {
    const { w, sw } = sizes();
    const t = memo.scenes.topo;
    const k = sw / t.w, th = t.h * k;
    if (measured.beside) return { w, h: Math.max(th, gridH + 2), svgX: 0, svgY: 0, svgK: k, gridX: sw + BESIDE_GAP + 1, gridY: 1, cell: memo.scenes.grid.cell };
    return { w, h: th + 4 + gridH + 2, svgX: 0, svgY: 0, svgK: k, gridX: 1, gridY: th + 5, cell: memo.scenes.grid.cell };
  }

  function stopAnimation() {
    if (!live.size) return;
    for (const an of live) an.cancel();
    live.clear();
    tokens.replaceChildren();
  }

  function startAnimation(tracks, duration) {
    stopAnimation();
    // Shorter than a few frames is not seen, only paid for: fast playback jumps.
    if (!tracks.length || duration < 60 || !tokens.animate) return;
    const geo = geometry(), n = tracks.length;
    const cs = Math.max(6, Math.min(14, geo.cell * map.view.k));
    const spread = n > 1 ? 0.35 : 0;
    for (let i = 0; i < n; i++) {
      const tr = tracks[i];
      const a = stagePoint(tr.a, geo), b = stagePoint(tr.b, geo);
      const p = a ?? b, q = b ?? a;
      const el = h(doc, 'div', { class: `tok tok-${tr.kind}` });
      const w = tr.kind === 'object' ? cs : tr.kind === 'slab' ? 64 : 18, hh = tr.kind === 'object' ? cs : tr.kind === 'slab' ? 14 : 36;
      el.style.width = `${w}px`;
      el.style.height = `${hh}px`;
      if (tr.kind === 'object') el.style.background = STATES[DEST_CODE[tr.to] ?? S.other].color;
      const at = (x, y, o) => ({ transform: `translate(${x - w / 2}px, ${y - hh / 2}px)`, opacity: o });
      const frames = a && b
        ? [at(p.x, p.y, 1), at((p.x + q.x) / 2, Math.min(p.y, q.y) - 30, 1), at(q.x, q.y, 1)]
        : [at(p.x, p.y, a ? 1 : 0), at(q.x, q.y, a ? 0 : 1)];
      tokens.append(el);
      const an = el.animate(frames, { duration: duration * (1 - spread), delay: n > 1 ? (i / (n - 1)) * spread * duration : 0,
        easing: 'ease-in-out', fill: 'both' });
      live.add(an);
      an.finished.then(() => { el.remove(); live.delete(an); }, () => {});
    }
  }

  /**
   * @param {any} m the player's model
   * @param {{ duration?: number }} [c]
   */
  function render(m, force = false, c = {}) {
    last = { m };
    const desc = m.session?.info?.scenario?.description ?? '';
    const guessed = desc.startsWith('Release guessed: ') ? desc : ''; // the server's words (ktrace_replay.c)
    if (kernelNote.textContent !== guessed) { kernelNote.textContent = guessed; kernelNote.hidden = !guessed; }
    if (!m.cur) return;
    const objs = m.cur.state.caches.find((x) => x.id === m.cacheId)?.objs_per_slab ?? 0; // the rows' width beside the structure
    if (objs !== measured.objs) { measured.objs = objs; memo.key = ''; }
    const { tw, gh, w, sw } = sizes();
    // what the callers hold: the operation's events so far (more once the events around load)
    const so = opSoFar(m);
    const key = `${m.session?.id}@${m.cur.at}/${so.length}/${m.cacheId}/${Math.round(tw)}/${Math.round(w)}/${Math.round(gh)}/${measured.fit}/${opts.collapseFull}/${[...opts.collapsed].join(',')}`;
    if (key !== memo.key) {
      const same = memo.at === m.cur.at;
      if (!same) { memo.prevScenes = memo.scenes; memo.prevAt = memo.at; }
      memo.scenes = scenesFor(m.cur, m.cacheId, tw, w, gh, callerHands(so));
      // too tall for the projector's pane: lay it out wider and draw it smaller
      // (a wider layout is shorter: the CPUs' pockets beside their stacks, the
      // held-elsewhere boxes in one row), as large as fits, the normal size at least
      const fits = (lw) => topoScene(m.cur.state, memo.scenes.view, { width: lw, hands: callerHands(so), tight: measured.tight }).h * (sw / lw) <= measured.fit;
      if (measured.fit > 0 && tw < sw && !fits(tw)) {
        let lo = tw, hi = sw; // lo does not fit; hi fits, or nothing wider would
        for (let i = 0; i < 7 && hi - lo > 4; i++) { const mid = (lo + hi) / 2; if (fits(mid)) hi = mid; else lo = mid; }
        memo.scenes = scenesFor(m.cur, m.cacheId, hi, w, gh, callerHands(so));
      }
      memo.key = key;
      memo.at = m.cur.at;
    }
    const { view, topo: t, grid } = memo.scenes;
    const e = m.cur.event;
    const cnt = view.counts;
    const label = view.cache ? `Slabs of cache ${view.cache.name}: ${view.slabs.length} slabs, ${STATES.map((st, i) => `${cnt[i]} ${st.name}`).filter((x) => !x.startsWith('0 ')).join(', ')}.` : 'No cache.';
    const hh = Math.round(Math.max(120, Math.min(gh, grid.h + 12)));
    if (hh !== gridH) { gridH = hh; gridWrap.style.height = `${hh}px`; }
    const cols = measured.beside ? `${sw}px minmax(0, 1fr)` : '';
    if (stage.style.gridTemplateColumns !== cols) stage.style.gridTemplateColumns = cols;
    // the grid before the structure's DOM changes (its text would have the page's style recomputed)
    map.render(grid, view, { w: (measured.beside ? w - sw - BESIDE_GAP : w) - 2, h: hh, selection: m.selection, label });
    topo.render(t, { selection: m.selection, touched: touchedKeys(m.dir === -1 ? m.prev?.event : e), scale: opts.scale, names: view.names });
    // drawn larger than its pane (the presenter view): show what the step touched
    if (measured.k > 1 && m.step !== lastStep) svg.querySelector('.touched')?.scrollIntoView({ block: 'nearest' });
    legendItems(view);
    if (m.step !== lastStep) {
      const was = lastStep;
      lastStep = m.step;
      const adjacent = Math.abs(m.dir) === 1 && m.prev && was >= 0;
      if (adjacent && opts.animate && !reducedMotion(win) && memo.prevScenes && memo.prevAt === m.prev.at) {
        const ev = m.dir === 1 ? e : m.prev.event;
        const moved = m.dir === 1 ? ev : ev && { ...ev, moves: ev.moves.map((mv) => ({ ...mv, from: mv.to, to: mv.from })) };
        const scA = m.prev.state.caches.some((x) => x.id === m.cacheId) ? memo.prevScenes : null;
        if (moved && scA) startAnimation(planMoves(moved, scA, memo.scenes), c.duration ?? 450);
      } else {
        stopAnimation();
      }
    }
  }

  return {
    render,
    redraw,
    /** Page coordinates of object @addr's cell (for tests and tours), or null. */
    cellClientPoint(addr) {
      const sc = memo.scenes;
      if (!sc) return null;
      const p = cellCenter(sc.grid, sc.view, addr);
      if (!p) return null;
      map.reveal(p);
      const q = map.toScreen(p), r = canvas.getBoundingClientRect();
      return { x: r.left + q.x, y: r.top + q.y };
    },
    setScale(k) { opts.scale = k; memo.key = ''; redraw(); },
    /**
     * The slab rows drawn, in viewport coordinates (for tests): each row's
     * box and its object cells, only the cells wholly on screen (inside the
     * canvas and every scrolling box around it), and only rows with such a cell.
     */
    slabRows() {
      const sc = memo.scenes;
      if (!sc || !sc.view.cache) return [];
      let clip = canvas.getBoundingClientRect();
      clip = { l: clip.left, t: clip.top, r: clip.right, b: clip.bottom };
      for (let el = canvas.parentElement; el; el = el.parentElement) {
        const st = win.getComputedStyle(el);
        if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
        const r = el.getBoundingClientRect();
        clip = { l: Math.max(clip.l, r.left), t: Math.max(clip.t, r.top), r: Math.min(clip.r, r.right), b: Math.min(clip.b, r.bottom) };
      }
      clip = { l: Math.max(clip.l, 0), t: Math.max(clip.t, 0), r: Math.min(clip.r, win.innerWidth), b: Math.min(clip.b, win.innerHeight) };
      const c0 = canvas.getBoundingClientRect(), k = map.view.k;
      const inside = (x, y, w, hh) => x >= clip.l - 0.5 && y >= clip.t - 0.5 && x + w <= clip.r + 0.5 && y + hh <= clip.b + 0.5;
      const out = [];
      for (const r of sc.grid.slabs) {
        if (r.collapsed) continue;
        const n = sc.view.cache.objs_per_slab, cells = [];
        for (let i = 0; i < n; i++) {
          const p = map.toScreen({ x: r.cx + (i % r.cols) * r.cell, y: r.cy + Math.floor(i / r.cols) * r.cell });
          const cell = { x: c0.left + p.x, y: c0.top + p.y, width: r.cell * k, height: r.cell * k };
          if (inside(cell.x, cell.y, cell.width, cell.height)) cells.push(cell);
        }
        const q = map.toScreen({ x: r.x, y: r.y });
        if (cells.length) out.push({ x: c0.left + q.x, y: c0.top + q.y, width: r.w * k, height: r.h * k, cells });
      }
      return out;
    },
    /** The picture as one canvas (structure above, slab grid below) for the PNG export. */
    scenes: () => memo.scenes,
    /** The slab grid's canvas, as drawn (the PNG export copies it). */
    gridCanvas: () => canvas,
    animating: () => live.size > 0,
    slabmap: map,
  };
}
