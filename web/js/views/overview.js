// @ts-check
// The whole run at a glance: a strip under the player of four tracks drawn
// from GET /api/sessions/ID/overview (docs/api.md): allocations and frees
// per bucket (fast path and slow path stacked), barn traffic (gets and
// puts, and their failures) and the slab pages in use (min-max band and
// mean).  The server keeps those summaries while it builds the session, so
// one request draws a run of any length; nothing here replays or sums
// events.  Drag across the strip to zoom in (the server answers a finer
// level), click to go to that step; Zoom out and Whole run go back.  From
// the keyboard the strip is a slider: arrows move its cursor a bucket (ten
// with Shift), Enter goes there, + and - zoom around it, 0 shows the whole
// run.  Each track is scaled to its own largest bucket in view.  A run
// shorter than MIN_EVENTS has no strip: the scrubber shows it whole.

import { h, fill, setText, setAttr } from '../dom.js';

const TRACKS = [
  { label: 'alloc', parts: [['alloc_fastpath', 'alloc_cpu_sheaf'], ['alloc_slowpath']], colors: ['#0b5fa5', '#c0510a'] },
  { label: 'free', parts: [['free_fastpath', 'free_cpu_sheaf'], ['free_slowpath']], colors: ['#117733', '#c0510a'] },
  { label: 'barn', parts: [['barn_get', 'barn_put'], ['barn_get_fail', 'barn_put_fail']], colors: ['#5f4b8b', '#8b0000'] },
  { label: 'slab pages', pages: true, colors: ['#c9d8e8', '#7a9cc0', '#0b3d6b'] },
];
const TRACK_H = 20;
const MIN_BRUSH_PX = 5;
export const MIN_EVENTS = 1000;

/**
 * @param {HTMLElement} root
 * @param {any} player  state.js's player (get, seek)
 * @param {{ api: any }} o
 */
export function createOverview(root, player, { api }) {
  const doc = root.ownerDocument;
  const win = /** @type {Window} */ (doc.defaultView);
  const canvas = /** @type {HTMLCanvasElement} */ (h(doc, 'canvas', {
    id: 'overview-strip', tabindex: '0', role: 'slider', 'aria-valuemin': '0', 'aria-valuemax': '0', 'aria-valuenow': '0',
    'aria-label': 'Overview of the run: drag to zoom, click to go to a step; arrows move, Enter goes, + and - zoom, 0 shows the whole run',
  }));
  const btn = (id, label, title, fn) => h(doc, 'button', { type: 'button', id, title, onclick: fn }, label);
  const zoomOut = btn('overview-out', 'Zoom out', 'Show four times as much of the run (-)', () => zoom(4));
  const whole = btn('overview-whole', 'Whole run', 'Show the whole run (0)', () => setView(null));
  const info = h(doc, 'span', { id: 'overview-info', class: 'overview-info', 'aria-live': 'polite' });
  const key = (color, text) => h(doc, 'span', { class: 'overview-key' }, h(doc, 'span', { class: `swatch sw-${color}` }), text);
  const legend = h(doc, 'span', { class: 'overview-legend' },
    key('fast', 'fast path'), key('slow', 'slow path'), key('fail', 'barn full/empty'), key('pages', 'slab pages: least–most, mean'));
  fill(root, h(doc, 'div', { class: 'overview-bar' }, h(doc, 'span', { class: 'overview-title', title: 'every counter summed over all caches' }, 'Whole run, all caches'), info, legend, zoomOut, whole), canvas);

  /** @type {{ from: number, to: number } | null} the range asked for; null: the whole run */
  let view = null;
  /** the last answer, and the request it answers */
  let data = null, dataKey = '', wantKey = '', pending = false;
  let cursor = -1; // the keyboard's bucket, or -1
  /** @type {{ x0: number, x1: number } | null} */
  let brush = null;
  let last = null; // the model last rendered

  // The strip's width, read when it resizes (ResizeObserver, below), not in
  // the middle of a step: reading layout after the step's DOM writes would
  // make the browser lay the page out twice in that frame.
  let measuredW = 0;
  const width = () => Math.max(50, Math.floor(measuredW || (measuredW = canvas.clientWidth || root.clientWidth) || 600));
  const buckets = () => Math.min(4096, Math.max(16, Math.floor(width() / 2)));

  /** The step at pixel @x of the answer drawn. */
  function posAt(x) {
    if (!data) return 0;
    const f = Math.max(0, Math.min(1, x / width()));
    return Math.round(data.from + f * (data.to - data.from));
  }
  const xAt = (pos) => (data && data.to > data.from ? ((pos - data.from) / (data.to - data.from)) * width() : 0);

  function setView(v) {
    const end = last?.end ?? 0;
    if (v && (v.to - v.from < 2 || (v.from <= 0 && v.to >= end))) v = v.to - v.from < 2 ? { from: v.from, to: v.from + 2 } : null;
    view = v;
    cursor = -1;
    fetchIfNeeded();
  }

  /** Zoom by @factor (4: out, 1/4: in) around @center (default: the middle of the view). */
  function zoom(factor, center) {
    const end = last?.end ?? 0;
    const from = view?.from ?? 0, to = view?.to ?? end;
    const c = center ?? (from + to) / 2;
    const span = Math.max(2, Math.round((to - from) * factor));
    let f = Math.max(0, Math.round(c - span / 2));
    const t = Math.min(end, f + span);
    f = Math.max(0, t - span);
    setView(span >= end ? null : { from: f, to: t });
  }

  function fetchIfNeeded() {
    const m = last;
    const id = m?.session?.id;
    if (!id) return;
    const n = buckets();
    const key = `${id}|${m.end}|${view?.from ?? 0}|${view?.to ?? 'end'}|${n}`;
    if (key === dataKey || key === wantKey || pending) return;
    wantKey = key;
    pending = true;
    api.overview(id, { from: view?.from, to: view?.to, buckets: n }).then((r) => {
      pending = false;
      if (wantKey !== key) return fetchIfNeeded();
      data = r;
      dataKey = key;
      root.hidden = false;
      root.dataset.from = String(r.from);
      root.dataset.to = String(r.to);
      root.dataset.width = String(r.width);
      root.dataset.level = String(r.level);
      describe();
      draw();
      fetchIfNeeded();
    }, () => {
      pending = false;
      dataKey = key; // not asked again until something changes
      data = null;
      root.hidden = true; // a server without overviews
    });
  }

  function sumOf(names, i) {
    let v = 0;
    for (const n of names) v += data.counters[n]?.[i] ?? 0;
    return v;
  }

  // The tracks are drawn once per answer into @layer; a step only copies
  // it and draws the cursor, so the strip costs the player nothing.
  const layer = doc.createElement('canvas');
  let layerKey = '';

  function drawLayer(w, hgt, dpr) {
    layer.width = canvas.width;
    layer.height = canvas.height;
    const g = layer.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, hgt);
    if (!data || !data.buckets) return;
    const n = data.buckets;
    // bucket i spans x0..x1 (the last one clipped at the end)
    const bx = (i) => xAt(data.from + i * data.width);
    const bw = (i) => Math.max(1, xAt(Math.min(data.to, data.from + (i + 1) * data.width)) - bx(i));
    TRACKS.forEach((tr, k) => {
      const y0 = k * TRACK_H, inner = TRACK_H - 3;
      g.fillStyle = k % 2 ? '#fafafa' : '#f1f1f1';
      g.fillRect(0, y0, w, TRACK_H);
      if (tr.pages) {
        const { min, max, mean } = data.slab_pages;
        const top = Math.max(1, ...max.filter((v) => v !== null));
        for (let i = 0; i < n; i++) {
          if (max[i] === null) continue;
          const base = y0 + TRACK_H - 1;
          const yMax = base - (max[i] / top) * inner, yMin = base - (min[i] / top) * inner;
          // the area up to the least, the band from least to most, the mean
          g.fillStyle = tr.colors[0];
          g.fillRect(bx(i), yMin, bw(i), base - yMin);
          g.fillStyle = tr.colors[1];
          g.fillRect(bx(i), yMax, bw(i), Math.max(1, yMin - yMax));
          g.fillStyle = tr.colors[2];
          g.fillRect(bx(i), base - (mean[i] / top) * inner - 0.5, bw(i), 1.5);
        }
        return;
      }
      const vals = [];
      let top = 1;
      for (let i = 0; i < n; i++) {
        const a = sumOf(tr.parts[0], i), b = sumOf(tr.parts[1], i);
        vals.push([a, b]);
        top = Math.max(top, a + b);
      }
      for (let i = 0; i < n; i++) {
        const [a, b] = vals[i];
        const ha = (a / top) * inner, hb = (b / top) * inner;
        g.fillStyle = tr.colors[0];
        g.fillRect(bx(i), y0 + TRACK_H - 1 - ha, bw(i), ha);
        g.fillStyle = tr.colors[1];
        g.fillRect(bx(i), y0 + TRACK_H - 1 - ha - hb, bw(i), hb);
      }
    });
    // labels, over the tracks' left end
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'top';
    TRACKS.forEach((tr, k) => {
      const tw = g.measureText(tr.label).width;
      g.fillStyle = 'rgba(255,255,255,0.85)';
      g.fillRect(2, k * TRACK_H + 1, tw + 6, 13);
      g.fillStyle = '#111';
      g.fillText(tr.label, 5, k * TRACK_H + 2);
    });
  }

  function draw() {
    const w = width(), hgt = TRACKS.length * TRACK_H;
    const dpr = win.devicePixelRatio || 1;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(hgt * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(hgt * dpr);
      canvas.style.height = `${hgt}px`;
    }
    const key = `${dataKey}|${canvas.width}x${canvas.height}`;
    if (key !== layerKey) {
      layerKey = key;
      drawLayer(w, hgt, dpr);
    }
    const g = canvas.getContext('2d');
    if (!g) return;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, canvas.width, canvas.height);
    if (!data || !data.buckets) return;
    g.drawImage(layer, 0, 0);
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const span = data.to - data.from;
    const bx = (i) => xAt(data.from + i * data.width);
    const bw = (i) => Math.max(1, xAt(Math.min(data.to, data.from + (i + 1) * data.width)) - bx(i));
    // the brush, the keyboard's cursor, the current step
    if (brush) {
      g.fillStyle = 'rgba(11,95,165,0.18)';
      g.fillRect(Math.min(brush.x0, brush.x1), 0, Math.abs(brush.x1 - brush.x0), hgt);
    }
    if (cursor >= 0) {
      g.strokeStyle = '#c0510a';
      g.lineWidth = 2;
      g.strokeRect(bx(cursor) + 1, 1, Math.max(2, bw(cursor) - 2), hgt - 2);
    }
    const at = last?.at ?? 0;
    if (at >= data.from && at <= data.to && span > 0) {
      g.fillStyle = '#111';
      g.fillRect(Math.min(w - 2, xAt(at)) - 1, 0, 2, hgt);
    }
  }

  function describe() {
    const m = last;
    if (!m) return;
    const from = data?.from ?? 0, to = data?.to ?? m.end;
    setText(info, data ? (view
      ? `steps ${from}–${to} of ${m.end}, ${data.buckets} buckets of ${data.width}`
      : `${m.end} steps, ${data.buckets} buckets of ${data.width}`) : '');
    const pos = cursor >= 0 && data ? Math.min(data.to, data.from + cursor * data.width) : m.at;
    setAttr(canvas, 'aria-valuemin', String(from));
    setAttr(canvas, 'aria-valuemax', String(to));
    setAttr(canvas, 'aria-valuenow', String(pos));
    setAttr(canvas, 'aria-valuetext', `step ${pos} of ${m.end}${view ? `, zoomed to steps ${from} to ${to}` : ''}`);
    zoomOut.toggleAttribute('disabled', !view);
    whole.toggleAttribute('disabled', !view);
  }

  // ---- pointer: drag zooms, a click goes to the step
  canvas.addEventListener('pointerdown', (ev) => {
    if (!data) return;
    const x = ev.offsetX;
    brush = { x0: x, x1: x };
    canvas.setPointerCapture?.(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (!brush) return;
    brush.x1 = Math.max(0, Math.min(width(), ev.offsetX));
    draw();
  });
  const endBrush = (ev) => {
    if (!brush) return;
    const b = brush;
    brush = null;
    b.x1 = Math.max(0, Math.min(width(), ev.offsetX));
    if (Math.abs(b.x1 - b.x0) < MIN_BRUSH_PX) {
      draw();
      player.seek(Math.min(last?.end ?? 0, posAt(b.x1)));
      return;
    }
    const a = posAt(Math.min(b.x0, b.x1)), z = posAt(Math.max(b.x0, b.x1));
    setView({ from: a, to: z });
    draw();
  };
  canvas.addEventListener('pointerup', endBrush);
  canvas.addEventListener('pointercancel', () => { brush = null; draw(); });

  // ---- keys: the strip is a slider over its buckets
  canvas.addEventListener('keydown', (ev) => {
    if (!data || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const n = data.buckets;
    const cur = cursor >= 0 ? cursor : Math.max(0, Math.min(n - 1, Math.floor((( last?.at ?? 0) - data.from) / data.width)));
    const centre = () => Math.min(data.to, data.from + cur * data.width + data.width / 2);
    let done = true;
    if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
      const d = (ev.key === 'ArrowLeft' ? -1 : 1) * (ev.shiftKey ? 10 : 1);
      cursor = Math.max(0, Math.min(n - 1, cur + d));
    } else if (ev.key === 'Home') cursor = 0;
    else if (ev.key === 'End') cursor = n - 1;
    else if (ev.key === 'Enter' || ev.key === ' ') {
      player.seek(Math.min(last?.end ?? 0, data.from + cur * data.width));
    } else if (ev.key === '+' || ev.key === '=') zoom(1 / 4, centre());
    else if (ev.key === '-') zoom(4, centre());
    else if (ev.key === '0' || ev.key === 'Escape') setView(null);
    else done = false;
    if (!done) return;
    ev.preventDefault();
    ev.stopPropagation(); // not the player's shortcuts
    describe();
    draw();
  });
  canvas.addEventListener('blur', () => { cursor = -1; draw(); });
  if (win.ResizeObserver) new win.ResizeObserver(() => { measuredW = canvas.clientWidth || root.clientWidth; fetchIfNeeded(); draw(); }).observe(root);

  let drawnAt = -1;
  return {
    render(m) {
      const sameSession = last?.session?.id === m.session?.id;
      if (!sameSession) { view = null; data = null; dataKey = ''; cursor = -1; }
      last = m;
      if (view && view.to > m.end) view = null;
      if (m.end < MIN_EVENTS) {
        root.hidden = true;
        return;
      }
      fetchIfNeeded();
      if (m.at !== drawnAt) { drawnAt = m.at; draw(); }
      describe();
    },
  };
}
