// @ts-check
// Canvas painting shared by the slab map, the legend and the PNG export:
// one object cell with its state's colour and glyph, the structure scene
// drawn without SVG (the PNG export cannot load SVG as an image under the
// page's Content-Security-Policy), and the PNG export itself.

import { STATES, RED_ZONE, slabName, plural } from './format.js';
import { objectAddrOf } from './layout.js';
import { S } from './model.js';
import { h, sizeCanvas, download } from './dom.js';

/**
 * Paint one object cell.
 * @param {number} x @param {number} y @param {number} size
 * @param {number} code index into STATES
 * @param {{ redZone?: boolean, poison?: boolean }} [debug]
 */
export function paintCell(ctx, x, y, size, code, debug) {
  const st = STATES[code] ?? STATES[STATES.length - 1];
  const s = size - (size >= 6 ? 1 : 0);
  ctx.fillStyle = st.color;
  ctx.fillRect(x, y, s, s);
  if (s >= 4) paintGlyph(ctx, x, y, s, st, debug);
}

/** The glyph of state @st over a filled cell of side @s. */
function paintGlyph(ctx, x, y, s, st, debug) {
  const c = s / 2;
  ctx.fillStyle = '#ffffff';
  ctx.strokeStyle = '#ffffff';
  const t = Math.max(1, s / 6);
  switch (st.glyph) {
    case 'hollow':
      ctx.strokeStyle = st.ink;
      ctx.lineWidth = 1;
      ctx.strokeRect(x + 0.5, y + 0.5, s - 1, s - 1);
      if (debug?.poison && s >= 6) {
        ctx.fillStyle = st.ink;
        ctx.fillRect(x + c - 0.5, y + c - 0.5, 1, 1);
      }
      break;
    case 'corner':
      ctx.strokeStyle = st.ink;
      ctx.lineWidth = 1;
      ctx.setLineDash([2, 2]);
      ctx.strokeRect(x + 0.5, y + 0.5, s - 1, s - 1);
      ctx.setLineDash([]);
      break;
    case 'bar': ctx.fillRect(x + 1, y + c - t / 2, s - 2, t); break;
    case 'vbar': ctx.fillRect(x + c - t / 2, y + 1, t, s - 2); break;
    case 'stripe':
      ctx.lineWidth = t;
      ctx.beginPath(); ctx.moveTo(x, y + s); ctx.lineTo(x + s, y); ctx.stroke();
      break;
    case 'ring': ctx.fillRect(x + s / 4, y + s / 4, s / 2, s / 2); break;
    case 'dot': ctx.beginPath(); ctx.arc(x + c, y + c, s / 5, 0, 7); ctx.fill(); break;
    case 'tri':
      ctx.beginPath(); ctx.moveTo(x + c, y + 1.5); ctx.lineTo(x + s - 1.5, y + s - 1.5); ctx.lineTo(x + 1.5, y + s - 1.5);
      ctx.closePath(); ctx.fill();
      break;
    case 'diamond':
      ctx.beginPath(); ctx.moveTo(x + c, y + 1.5); ctx.lineTo(x + s - 1.5, y + c); ctx.lineTo(x + c, y + s - 1.5);
      ctx.lineTo(x + 1.5, y + c); ctx.closePath(); ctx.fill();
      break;
    case 'cross':
      ctx.lineWidth = t;
      ctx.beginPath(); ctx.moveTo(x + 1, y + 1); ctx.lineTo(x + s - 1, y + s - 1);
      ctx.moveTo(x + s - 1, y + 1); ctx.lineTo(x + 1, y + s - 1); ctx.stroke();
      break;
    case 'question': ctx.fillRect(x + s - s / 3, y, s / 3, s / 3); break;
    default: break;
  }
  if (debug?.redZone && s >= 5) {
    ctx.fillStyle = RED_ZONE;
    ctx.fillRect(x, y, 1, s);
    ctx.fillRect(x + s - 1, y, 1, s);
  }
}

const ROLE_CODE = { main: S.main, spare: S.spare, rcu_free: S.rcu_free, barn_full: S.barn, barn_empty: S.barn, barn_partial: S.barn, prefill: S.prefill, inflight: S.inflight, rcu_pending: S.rcu_pending, other: S.other };

/** A sheaf as a stack: outline of its capacity, filled up to its size. */
function paintSheaf(ctx, b) {
  const st = STATES[ROLE_CODE[b.role] ?? S.other];
  ctx.strokeStyle = '#333';
  ctx.lineWidth = 1;
  ctx.strokeRect(b.x + 0.5, b.y + 0.5, b.w - 1, b.h - 1);
  const fh = (b.size / b.capacity) * (b.h - 2);
  ctx.fillStyle = st.color;
  ctx.fillRect(b.x + 1, b.y + b.h - 1 - fh, b.w - 2, fh);
}

/**
 * The structure scene on a canvas (for the PNG export).
 * @param {any} t a topoScene()
 */
export function paintTopo(ctx, t) {
  ctx.font = '12px sans-serif';
  ctx.textBaseline = 'top';
  const box = (r, title) => {
    ctx.strokeStyle = '#555';
    ctx.lineWidth = 1;
    ctx.strokeRect(r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1);
    ctx.fillStyle = '#111';
    if (title) ctx.fillText(title, r.x + 6, r.y + 5);
  };
  for (const c of t.cpus) {
    box(c, `CPU ${c.cpu} · node ${c.node}`);
    for (const st of c.stacks) {
      if (st.sheaf) paintSheaf(ctx, st.sheaf);
      else { ctx.setLineDash([3, 3]); box(st); ctx.setLineDash([]); }
      ctx.fillStyle = '#111';
      ctx.fillText(st.role === 'rcu_free' ? 'rcu' : st.role, st.x, st.y + st.h + 3);
      if (st.sheaf) ctx.fillText(`${st.sheaf.size}/${st.sheaf.capacity}`, st.x, st.y + st.h + 16);
    }
    if (c.legacy) {
      const b = c.legacy.slab, p = c.legacy.partial;
      box(b);
      const fh = (b.freelist / b.objects) * (b.h - 2);
      ctx.fillStyle = STATES[S.cpu_freelist].color;
      ctx.fillRect(b.x + 1, b.y + b.h - 1 - fh, b.w - 2, fh);
      ctx.fillStyle = '#111';
      ctx.fillText('cpu slab', b.x, b.y + b.h + 3);
      if (b.addr) ctx.fillText(`${b.freelist}/${b.objects}`, b.x, b.y + b.h + 16);
      box(p, `partial ${c.legacy.count}/${c.legacy.limit}`);
      for (const chip of p.chips) {
        ctx.strokeStyle = '#333';
        ctx.strokeRect(chip.x + 0.5, chip.y + 0.5, chip.w - 1, chip.h - 1);
        const ch = (chip.inuse / Math.max(1, chip.objects)) * (chip.h - 2);
        ctx.fillStyle = STATES[S.user].color;
        ctx.fillRect(chip.x + 1, chip.y + chip.h - 1 - ch, chip.w - 2, ch);
      }
    }
    box(c.caller, 'caller');
  }
  const hold = t.hold;
  box(hold.flight, `in flight: ${plural(hold.flight.sheaves.length, 'sheaf', 'sheaves')}, ${plural(hold.flight.objects, 'object')}`);
  box(hold.prefill, 'prefilled sheaves');
  box(hold.rcu, `RCU pending: ${plural(hold.rcu.sheaves.length, 'sheaf', 'sheaves')}, ${plural(hold.rcu.objects, 'object')}`);
  box(hold.other, 'other places');
  for (const b of [...hold.flight.sheaves, ...hold.prefill.sheaves, ...hold.rcu.sheaves, ...hold.other.sheaves]) paintSheaf(ctx, b);
  for (const n of t.nodes) {
    box(n, `node ${n.node}`);
    box(n.barn, `barn: ${n.barn.info.nr_full} full, ${n.barn.info.nr_empty} empty`);
    for (const b of [...n.barn.full, ...n.barn.empty]) paintSheaf(ctx, b);
    if (n.barn.partial) paintSheaf(ctx, n.barn.partial);
    box(n.plist, `partial list: ${n.plist.nr}`);
    for (const chip of n.plist.chips) {
      ctx.strokeStyle = '#333';
      ctx.strokeRect(chip.x + 0.5, chip.y + 0.5, chip.w - 1, chip.h - 1);
      const fh = (chip.inuse / Math.max(1, chip.objects)) * (chip.h - 2);
      ctx.fillStyle = STATES[S.user].color;
      ctx.fillRect(chip.x + 1, chip.y + chip.h - 1 - fh, chip.w - 2, fh);
    }
    box(n.zone, n.zone.zone ? `pages: ${n.zone.zone.free_pages} free` : 'pages');
    ctx.fillStyle = '#555';
    for (const o of n.zone.orders) ctx.fillRect(o.x, o.y, o.w, o.h);
  }
}

/**
 * The slab grid scene on a canvas.
 * @param {any} g a gridScene()
 * @param {{ y0: number, y1: number }} [seen] the grid's rows in view (grid units):
 *   rows wholly outside are not drawn (a large cache's thousands of off-screen cells)
 */
export function paintGrid(ctx, g, v, seen) {
  const out = (y, hh) => !!seen && (y + hh < seen.y0 || y > seen.y1);
  const flags = v.cache?.flags ?? [];
  const debug = { redZone: flags.includes('SLAB_RED_ZONE'), poison: flags.includes('SLAB_POISON') };
  ctx.textBaseline = 'middle';
  // the projector's big cells (28 px and more) carry bigger words
  const big = g.cell >= 28;
  for (const gr of g.groups) {
    if (out(gr.y, g.headH)) continue;
    ctx.fillStyle = '#111';
    ctx.font = `bold ${big ? 16 : 13}px sans-serif`;
    ctx.fillText(`${gr.closed ? '▸' : '▾'} ${gr.title}`, 2, gr.y + g.headH / 2);
  }
  const slabById = new Map(v.slabs.map((s) => [s.addr, s]));
  // One path per state: thousands of cells cost a few fills, not thousands.
  const paths = STATES.map(() => new Path2D());
  const glyphs = [], named = [];
  const cell = g.cell, side = cell - (cell >= 6 ? 1 : 0);
  for (const r of g.slabs) {
    const slab = slabById.get(r.addr);
    const codes = v.codes.get(r.addr);
    if (!slab || !codes || out(r.y, r.h)) continue;
    if (r.collapsed) {
      ctx.fillStyle = STATES[S.user].color;
      const fw = (slab.inuse / Math.max(1, slab.objects)) * r.w;
      ctx.fillRect(r.x, r.y, fw, r.h);
      ctx.strokeStyle = '#333';
      ctx.strokeRect(r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1);
      continue;
    }
    ctx.fillStyle = '#111';
    ctx.font = `${big ? 16 : Math.min(12, Math.max(9, r.h - 2))}px ui-monospace, monospace`;
    ctx.fillText(`${slab.name ?? slabName(r.addr)} ${slab.inuse}/${slab.objects}`, r.x + 2, r.y + Math.min(r.h, big ? 20 : 14) / 2, g.labelW - 4);
    for (let i = 0; i < codes.length; i++) {
      const x = r.cx + (i % r.cols) * cell, y = r.cy + Math.floor(i / r.cols) * cell;
      paths[codes[i]].rect(x, y, side, side);
      // cells big enough to read carry the scenario's name of their object
      const name = side >= NAMED_CELL && v.names ? v.names[objectAddrOf(v, slab, i)] : undefined;
      if (name) named.push(x, y, codes[i], name);
      else if (side >= 4) glyphs.push(x, y, codes[i]);
    }
  }
  STATES.forEach((st, i) => { ctx.fillStyle = st.color; ctx.fill(paths[i]); });
  for (let k = 0; k < glyphs.length; k += 3) paintGlyph(ctx, glyphs[k], glyphs[k + 1], side, STATES[glyphs[k + 2]], debug);
  paintNames(ctx, named, side, debug);
}

const NAMED_CELL = 14; // the smallest cell that shows a name instead of its glyph

/** Names in cells [x, y, code, name, ...]: the state's glyph colours, shrunk to fit. */
function paintNames(ctx, named, side, debug) {
  ctx.textAlign = 'center';
  for (let k = 0; k < named.length; k += 4) {
    const x = named[k], y = named[k + 1], st = STATES[named[k + 2]], name = named[k + 3];
    if (st.glyph === 'hollow' || st.glyph === 'corner') paintGlyph(ctx, x, y, side, st, debug);
    ctx.fillStyle = st.glyph === 'hollow' || st.glyph === 'corner' ? st.ink : '#ffffff';
    ctx.font = `${side >= 36 ? Math.min(20, Math.floor(side / 3)) : side >= 26 ? 12 : side >= 18 ? 9 : 8}px ui-monospace, monospace`;
    ctx.fillText(name, x + side / 2, y + side / 2, side - 2);
  }
  ctx.textAlign = 'start';
}

const EXPORT_HEAD = 40; // the title line above the picture

/**
 * The view as one picture on @canvas: the step's sentence, the structure
 * scene below it and the slab grid (as drawn on screen) below that.
 * @param {HTMLCanvasElement} canvas
 * @param {{ title: string, topo: any, grid: HTMLCanvasElement|null }} v topo is a topoScene()
 */
export function paintView(canvas, v) {
  const { title, topo, grid } = v;
  const w = Math.max(topo.w, grid ? grid.clientWidth : 0);
  const ctx = sizeCanvas(canvas, w, EXPORT_HEAD + topo.h + (grid ? grid.clientHeight : 0));
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, canvas.height);
  ctx.fillStyle = '#000';
  ctx.font = 'bold 15px sans-serif';
  ctx.textBaseline = 'top';
  ctx.fillText(title, 6, 8, w - 12);
  ctx.save(); ctx.translate(0, EXPORT_HEAD); paintTopo(ctx, topo); ctx.restore();
  if (grid) ctx.drawImage(grid, 0, EXPORT_HEAD + topo.h, grid.clientWidth, grid.clientHeight);
  return canvas;
}

/**
 * Offer the view (paintView) as a PNG download named @name.
 * @param {Document} doc
 * @param {{ title: string, topo: any, grid: HTMLCanvasElement|null }} v
 * @param {string} name
 */
export function exportPng(doc, v, name) {
  const c = paintView(/** @type {HTMLCanvasElement} */ (h(doc, 'canvas')), v);
  c.toBlob((blob) => { if (blob) download(doc, name, blob); }, 'image/png');
}
