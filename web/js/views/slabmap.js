// @ts-check
// The slab grid on a canvas: every slab of the cache as a row of object
// cells, drawn in one pass, zoomed and panned with the wheel, a drag or
// the buttons; hit testing is arithmetic (layout.hitGrid).  The freelist
// of the slab under the pointer (or selected) is drawn as arrows in
// freelist order.

import { sizeCanvas } from '../dom.js';
import { paintGrid } from '../paint.js';
import { hitGrid, freelistPath, cellCenter } from '../layout.js';
import { slabName, objName } from '../format.js';

/**
 * @param {{ onSelect: (hit: any) => void, onHover: (hit: any) => void, onToggleGroup: (key: string) => void,
 *           onView: () => void }} o
 */
export function createSlabmap(canvas, o) {
  const view = { k: 1, tx: 0, ty: 0 };
  /** @type {any} */ let grid = null;
  /** @type {any} */ let cv = null;
  let size = { w: 300, h: 200 };
  let hoverSlab = null, selSlab = null, selObj = null;
  canvas.setAttribute('role', 'img');
  canvas.tabIndex = 0;

  const toGrid = (x, y) => ({ x: (x - view.tx) / view.k, y: (y - view.ty) / view.k });
  const local = (ev) => { const r = canvas.getBoundingClientRect(); return { x: ev.clientX - r.left, y: ev.clientY - r.top }; };

  function clampView() {
    if (!grid) return;
    const minTy = Math.min(0, size.h - grid.h * view.k - 8);
    const minTx = Math.min(0, size.w - grid.w * view.k);
    view.ty = Math.max(minTy, Math.min(0, view.ty));
    view.tx = Math.max(minTx, Math.min(0, view.tx));
  }

  function draw() {
    const ctx = sizeCanvas(canvas, size.w, size.h);
    ctx.clearRect(0, 0, size.w, size.h);
    if (!grid || !cv) return;
    if (!grid.slabs.length) {
      ctx.fillStyle = '#333';
      ctx.font = '14px sans-serif';
      const say = cv.cache ? `No slab of cache ${cv.cache.name} yet: step forward (→).` : 'No cache yet: step forward (→).';
      // a narrow grid (beside the structure on a projector) gets the words on two lines
      const cut = say.indexOf(': ');
      if (ctx.measureText(say).width <= size.w - 24 || cut < 0) ctx.fillText(say, 12, 24);
      else { ctx.fillText(say.slice(0, cut + 1), 12, 24); ctx.fillText(say.slice(cut + 2), 12, 44); }
      return;
    }
    ctx.save();
    ctx.translate(view.tx, view.ty);
    ctx.scale(view.k, view.k);
    paintGrid(ctx, grid, cv, { y0: -view.ty / view.k, y1: (size.h - view.ty) / view.k });
    for (const addr of [selSlab, hoverSlab]) {
      if (!addr) continue;
      const r = grid.byAddr.get(addr);
      if (!r) continue;
      ctx.strokeStyle = addr === selSlab ? '#000' : '#555';
      ctx.lineWidth = 2 / view.k;
      ctx.strokeRect(r.x - 1, r.y - 1, r.w + 2, r.h + 2);
      arrows(ctx, freelistPath(grid, cv, addr));
    }
    if (selObj) {
      const p = cellCenter(grid, cv, selObj);
      if (p) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 2.5 / view.k;
        const hs = Math.max(grid.cell, 6) / 2 + 1.5;
        ctx.strokeRect(p.x - hs, p.y - hs, hs * 2, hs * 2);
      }
    }
    ctx.restore();
  }

  function arrows(ctx, pts) {
    if (pts.length < 1) return;
    ctx.strokeStyle = '#000';
    ctx.fillStyle = '#000';
    ctx.lineWidth = 1.5 / view.k;
    const head = Math.max(3, grid.cell / 2.5);
    ctx.beginPath();
    ctx.arc(pts[0].x, pts[0].y, head / 1.5, 0, 7);
    ctx.fill();
    for (let i = 1; i < pts.length; i++) {
      const a = pts[i - 1], b = pts[i];
      const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
      const bend = a.y === b.y ? -Math.min(grid.cell * 1.2, len / 3) : 0;
      const mx = (a.x + b.x) / 2 - (dy / len) * bend, my = (a.y + b.y) / 2 + (dx / len) * bend;
      ctx.beginPath();
      ctx.moveTo(a.x, a.y);
      ctx.quadraticCurveTo(mx, my, b.x, b.y);
      ctx.stroke();
      const ang = Math.atan2(b.y - my, b.x - mx);
      ctx.beginPath();
      ctx.moveTo(b.x, b.y);
      ctx.lineTo(b.x - head * Math.cos(ang - 0.5), b.y - head * Math.sin(ang - 0.5));
      ctx.lineTo(b.x - head * Math.cos(ang + 0.5), b.y - head * Math.sin(ang + 0.5));
      ctx.closePath();
      ctx.fill();
    }
  }

  // ---- input
  let drag = null;
  canvas.addEventListener('pointerdown', (ev) => {
    drag = { x: ev.clientX, y: ev.clientY, tx: view.tx, ty: view.ty, moved: false };
    canvas.setPointerCapture?.(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (drag) {
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 4) drag.moved = true;
      if (drag.moved) {
        view.tx = drag.tx + dx; view.ty = drag.ty + dy;
        clampView(); draw(); o.onView();
        return;
      }
    }
    if (!grid) return;
    const p = local(ev), g = toGrid(p.x, p.y);
    const hit = hitGrid(grid, cv, g.x, g.y);
    const slab = hit && 'slab' in hit ? hit.slab : null;
    canvas.style.cursor = hit ? 'pointer' : drag ? 'grabbing' : 'grab';
    if (slab !== hoverSlab) { hoverSlab = slab; draw(); }
    // the address on hover: the picture names slabs S0, S1, ... as the engine does
    const oname = hit?.kind === 'object' && cv?.names?.[hit.addr] ? objName(hit.addr, cv.names, cv.same) : undefined;
    const title = hit?.kind === 'object' ? `object ${oname ? `${oname} at ` : ''}${hit.addr} in slab ${slabName(hit.slab)} at ${hit.slab}`
      : slab ? `slab ${slabName(slab)} at ${slab}` : '';
    if (canvas.title !== title) canvas.title = title;
    o.onHover(hit);
  });
  canvas.addEventListener('pointerup', (ev) => {
    const d = drag;
    drag = null;
    if (!d || d.moved || !grid) return;
    const p = local(ev), g = toGrid(p.x, p.y);
    const hit = hitGrid(grid, cv, g.x, g.y);
    if (hit?.kind === 'group') o.onToggleGroup(hit.key);
    else if (hit) o.onSelect(hit);
  });
  canvas.addEventListener('pointerleave', () => { if (hoverSlab) { hoverSlab = null; draw(); } o.onHover(null); });
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const p = local(ev);
    if (ev.ctrlKey || ev.metaKey) zoomAt(p.x, p.y, Math.exp(-ev.deltaY / 300));
    else { view.ty -= ev.deltaY; view.tx -= ev.deltaX; clampView(); draw(); o.onView(); }
  }, { passive: false });

  function zoomAt(x, y, f) {
    const k = Math.max(0.5, Math.min(8, view.k * f));
    view.tx = x - ((x - view.tx) / view.k) * k;
    view.ty = y - ((y - view.ty) / view.k) * k;
    view.k = k;
    clampView(); draw(); o.onView();
  }

  return {
    view,
    /**
     * @param {any} g gridScene
     * @param {{ w: number, h: number, selection: any, label: string }} c
     */
    render(g, v, c) {
      grid = g; cv = v; size = { w: c.w, h: c.h };
      const sel = c.selection;
      selSlab = sel && (sel.kind === 'slab' || sel.kind === 'object') ? sel.slab ?? null : null;
      selObj = sel && sel.kind === 'object' ? sel.id : null;
      clampView();
      draw();
      // after drawing: a changed attribute would have the page's style recomputed for the canvas's text
      if (canvas.getAttribute('aria-label') !== c.label) canvas.setAttribute('aria-label', c.label);
    },
    zoomIn: () => zoomAt(size.w / 2, 0, 1.25),
    zoomOut: () => zoomAt(size.w / 2, 0, 0.8),
    reset() { view.k = 1; view.tx = 0; view.ty = 0; draw(); o.onView(); },
    /** Grid coordinates -> canvas CSS pixels. */
    toScreen: (pt) => ({ x: pt.x * view.k + view.tx, y: pt.y * view.k + view.ty }),
    /** Bring grid point @pt into view. */
    reveal(pt) {
      if (!pt) return;
      const y = pt.y * view.k + view.ty;
      if (y < 0 || y > size.h) { view.ty = size.h / 3 - pt.y * view.k; clampView(); draw(); o.onView(); }
    },
  };
}
