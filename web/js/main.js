// @ts-check
// Boot: the only module that touches document at top level.  Builds the
// views into index.html's containers, opens the session the URL names (or
// the default scenario), routes keys, renders once per animation frame.

import { api } from './api.js';
import { createPlayer } from './state.js';
import { h, fill, download, sizeCanvas } from './dom.js';
import { narrate, opCall } from './format.js';
import { paintTopo } from './paint.js';
import { setTexts, texts } from './texts.js';
import { createPicture } from './views/picture.js';
import { createTimeline } from './views/timeline.js';
import { createExplain } from './views/explain.js';
import { createCaches } from './views/caches.js';
import { createBreakpoints } from './views/breakpoints.js';
import { createTraceOpen } from './views/trace.js';

const doc = document, win = window;
const $ = (id) => doc.getElementById(id);
const t0 = performance.now();
const debug = { firstDrawMs: /** @type {number|null} */ (null), player: null, frames: 0 };
win.__slublab = debug;

// Start what the first picture needs before building anything: the words,
// and for a plain page the default scenario's session.
// an offline copy (web/offline/loader.js) says which session and step to open
const query = new URLSearchParams(/** @type {any} */ (win).__slublabOffline?.query ?? win.location.search);
const words = api.texts();
const early = ['follow', 'snapshot', 'session'].some((k) => query.has(k)) ? null
  : api.createSession({ scenario: query.get('scenario') || 'default' });
early?.catch(() => {});

let storage = null;
try { storage = win.localStorage; storage.getItem('x'); } catch { storage = null; }
const tokens = () => { try { return JSON.parse(storage?.getItem('slublab.tokens') ?? '{}'); } catch { return {}; } };
const keepToken = (id, token) => {
  if (!storage || !id || !token) return;
  const all = tokens();
  all[id] = token;
  const ids = Object.keys(all);
  if (ids.length > 200) delete all[ids[0]];
  storage.setItem('slublab.tokens', JSON.stringify(all));
};

const player = createPlayer();
debug.player = player;
let version = '';
let tab = 'explain';
let view = 'lab';

// ---- views
const picture = createPicture($('picture'), { onSelect: (sel) => { player.select(sel); showTab('inspect'); }, win });
debug.picture = picture;
const timeline = createTimeline($('controls'), player);
const explain = createExplain($('tab-explain'));
/** A view whose module loads the first time it renders (tabs and panels shown on demand). */
function lazy(path, make) {
  let view = null, p = null;
  return {
    render(m) {
      if (view) return view.render(m);
      p ??= import(path).then((x) => { view = make(x); schedule(); });
      return undefined;
    },
    get view() { return view; },
  };
}
const stats = lazy('./views/stats.js', (x) => x.createStats($('tab-counters'), player));
const caches = createCaches($('caches'), player);
const inspector = lazy('./views/inspector.js', (x) => x.createInspector($('tab-inspect'), player));
const statetable = lazy('./views/statetable.js', (x) => x.createStateTable($('tab-table')));
const opsform = lazy('./views/opsform.js', (x) => x.createOpsForm($('ops'), player));
const gfpview = lazy('./views/gfp.js', (x) => x.createGfp($('tab-gfp'), { api, scenario: () => player.get().session?.info?.scenario?.name ?? '' }));
const pages = lazy('./views/pages.js', (x) => x.createPages($('tab-pages'), {
  onDecode: (mask, order) => { showTab('gfp'); gfpview.render(player.get()); const ask = () => (gfpview.view ? gfpview.view.ask(mask, order) : setTimeout(ask, 20)); ask(); },
}));
const breakpoints = createBreakpoints($('breakpoints'), player);
// Views used now and then load when first opened.
let snapshotsP = null, editorP = null, compareP = null;
const snapshots = () => (snapshotsP ??= import('./views/snapshots.js').then((x) => x.createSnapshots($('tab-share'), player, {
  storage, viewLink, snapshotLink, exportPng, openSnapshot, version: () => version,
})));
const editor = () => (editorP ??= import('./views/scenario.js').then((x) => x.createScenarioEditor($('scenario-view'), player, { storage, onRun: () => showView('lab') })));
const compare = () => (compareP ??= import('./views/compare.js').then((x) => x.createCompare($('compare-view'), { win, variants: () => Object.keys(player.get().session?.info?.settings?.variants ?? {}) })));

// ---- tabs and views
const TABS = ['explain', 'counters', 'inspect', 'table', 'share', 'pages', 'gfp'];
function showTab(t) {
  tab = t;
  if (t === 'share') snapshots();
  for (const x of TABS) {
    const b = $(`tabbtn-${x}`), p = $(`tab-${x}`);
    b.setAttribute('aria-selected', String(x === t));
    b.tabIndex = x === t ? 0 : -1;
    p.hidden = x !== t;
  }
  schedule();
  if (t === 'counters') setTimeout(() => stats.view?.resize(), 0);
}
for (const x of TABS) $(`tabbtn-${x}`).addEventListener('click', () => showTab(x));
$('tablist').addEventListener('keydown', (ev) => {
  const i = TABS.indexOf(tab);
  if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
    ev.preventDefault();
    const n = TABS[(i + (ev.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
    showTab(n);
    $(`tabbtn-${n}`).focus();
  }
});

const VIEWS = ['lab', 'compare', 'scenario'];
function showView(v) {
  view = v;
  for (const x of VIEWS) {
    $(`${x}-view`).hidden = x !== v;
    $(`viewbtn-${x}`).setAttribute('aria-pressed', String(x === v));
  }
  if (v === 'compare') {
    compare().then((c) => (c.ready() ? c.redraw() : c.start(player.get().session?.info?.scenario?.name ?? 'fresh-slab-fill', 'variant:DEFERRED_FREELIST')));
  }
  if (v === 'lab') picture.redraw();
  if (v === 'scenario') {
    const name = player.get().session?.info?.scenario?.name;
    const shipped = [...$('scenario-select').options].some((o) => o.value && o.value === name);
    editor().then((ed) => { if (shipped) ed.prefill(name); });
  }
  updateUrl();
}
for (const x of VIEWS) $(`viewbtn-${x}`).addEventListener('click', () => showView(x));

function setPresenter(on) {
  doc.documentElement.classList.toggle('presenter', on);
  doc.body.classList.toggle('presenter', on);
  $('presenter').setAttribute('aria-pressed', String(on));
  picture.setScale(1);
  if (on) showTab('explain');
  schedule();
  updateUrl();
}
$('presenter').addEventListener('click', () => setPresenter(!doc.body.classList.contains('presenter')));

// ---- rendering, at most once per frame
let queued = false;
function schedule() {
  if (queued) return;
  queued = true;
  win.requestAnimationFrame(() => { queued = false; render(); });
}
player.subscribe(schedule);
$('ops').closest('details')?.addEventListener('toggle', schedule);
win.addEventListener('resize', () => { picture.redraw(); schedule(); });

function sentenceOf(m) {
  const e = m.cur?.event;
  if (!e) return narrate(null);
  const cacheName = (id) => m.cur.state.caches.find((c) => c.id === id)?.name ?? '';
  let spareEmpty;
  if (m.prev && m.prev.at === m.at - 1) {
    const c = m.prev.state.caches.find((x) => x.id === e.cache);
    spareEmpty = !c?.cpus?.[e.cpu]?.spare?.size;
  }
  const pagesOf = (a) => { const sl = m.cur.state.slabs.find((x) => x.addr === a); return sl ? 2 ** sl.order : null; };
  return narrate(e, { call: opCall(player.opEvents(e.seq), cacheName), cacheName: cacheName(e.cache), spareEmpty, pagesOf });
}

let lastSay = '', wordsFailed = false;
function render() {
  const m = player.get();
  if (!Object.keys(texts().sentences).length && !wordsFailed) return;
  if (m.session?.token) keepToken(m.session.id, m.session.token);
  banner(m);
  if (!m.cur) return;
  const say = sentenceOf(m);
  if (say !== lastSay) {
    lastSay = say;
    $('narration').textContent = say;
  }
  timeline.render(m);
  if (view === 'lab') picture.render(m, false, { duration: m.playing ? Math.min(600, player.interval() * 0.85) : 500 });
  explain.render(m, say);
  caches.render(m);
  breakpoints.render(m);
  if ($('ops').closest('details').open) opsform.render(m);
  if (tab === 'counters') stats.render(m);
  if (tab === 'inspect') inspector.render(m);
  if (tab === 'table') statetable.render(m);
  if (tab === 'pages') pages.render(m);
  if (tab === 'gfp') gfpview.render(m);
  if (debug.firstDrawMs === null) {
    debug.firstDrawMs = performance.now(); // since navigation start
    debug.bootMs = performance.now() - t0; // since this module ran
    doc.body.dataset.ready = '1';
  }
  doc.body.dataset.at = String(m.at);
  updateUrl();
}

function banner(m) {
  const b = $('banner');
  const parts = [];
  if (m.error) parts.push(h(doc, 'p', { class: 'err', role: 'alert' }, m.error, ' ', h(doc, 'button', { type: 'button', onclick: () => player.dismiss() }, 'Dismiss')));
  if (m.notice) parts.push(h(doc, 'p', { class: 'notice' }, m.notice, ' ', h(doc, 'button', { type: 'button', onclick: () => player.dismiss() }, 'OK')));
  if (m.following) parts.push(h(doc, 'p', { class: 'follow' }, 'Following the presenter live. ',
    h(doc, 'button', { type: 'button', id: 'explore', onclick: async () => { await player.fork(); } }, 'Fork and explore on my own')));
  if (doc.body.classList.contains('presenter') && m.session?.id) {
    const url = `${win.location.origin}/?follow=${m.session.id}`;
    parts.push(h(doc, 'p', { class: 'follow-link' }, 'Students follow at ', h(doc, 'a', { href: url, id: 'follow-url' }, url)));
  }
  if (snapInfo) parts.push(h(doc, 'p', { class: snapInfo.warn ? 'err' : 'notice', id: 'snap-banner' }, snapInfo.text));
  const key = parts.map((p) => p.textContent).join('|');
  if (b.dataset.key !== key) { b.dataset.key = key; fill(b, ...parts); b.hidden = !parts.length; }
}

// ---- URLs: the view state in the query string
function viewParams() {
  const m = player.get();
  const p = new URLSearchParams();
  if (m.session?.id) p.set('session', m.session.id);
  p.set('at', String(m.at));
  p.set('cache', String(m.cacheId));
  if (tab !== 'explain') p.set('tab', tab);
  if (m.selection) p.set('sel', `${m.selection.kind}:${m.selection.id}${m.selection.slab && m.selection.slab !== m.selection.id ? ':' + m.selection.slab : ''}`);
  if (doc.body.classList.contains('presenter')) p.set('presenter', '1');
  return p;
}
function viewLink() { return `${win.location.origin}/?${viewParams()}`; }
function snapshotLink(id, note) {
  const p = viewParams();
  p.delete('session'); p.delete('at');
  p.set('snapshot', id);
  if (note) p.set('note', note.slice(0, 500));
  return `${win.location.origin}/?${p}`;
}
let urlTimer = 0;
function updateUrl() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const m = player.get();
    if (m.following) return;
    if (view === 'compare') { win.history.replaceState(null, '', '/?view=compare'); return; }
    if (m.session?.id) win.history.replaceState(null, '', `/?${viewParams()}`);
  }, 400);
}

// ---- snapshots
let snapInfo = /** @type {{ text: string, warn: boolean }|null} */ (null);
async function openSnapshot(id, note) {
  const sn = await api.snapshot(id);
  const n = note ?? storage?.getItem(`slublab.note.${id}`) ?? '';
  const warn = sn.warning || (sn.engine?.stored && sn.engine.stored !== sn.engine.current ? `made with engine ${sn.engine.stored}` : '');
  snapInfo = { text: `Snapshot “${sn.title || id}” (step ${sn.position})${n ? ': ' + n : ''}${warn ? ' · Warning: ' + warn : ''}`, warn: !!warn };
  if (sn.read_only) {
    await player.open({ id: (await api.openSnapshot(id).catch(() => ({ id: null }))).id ?? '', at: sn.position }).catch(() => {});
    return;
  }
  const r = await api.openSnapshot(id);
  await player.open({ id: r.id, token: r.token, at: r.position });
}

// ---- PNG export of the view
function exportPng() {
  const sc = picture.scenes();
  if (!sc) return;
  const grid = $('picture').querySelector('canvas.slabmap');
  const w = Math.max(sc.topo.w, grid ? grid.clientWidth : 0);
  const head = 40;
  const c = h(doc, 'canvas');
  const ctx = sizeCanvas(c, w, head + sc.topo.h + (grid ? grid.clientHeight : 0));
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, c.height);
  ctx.fillStyle = '#000';
  ctx.font = 'bold 15px sans-serif';
  ctx.textBaseline = 'top';
  ctx.fillText($('narration').textContent ?? '', 6, 8, w - 12);
  ctx.save(); ctx.translate(0, head); paintTopo(ctx, sc.topo); ctx.restore();
  if (grid) ctx.drawImage(grid, 0, head + sc.topo.h, grid.clientWidth, grid.clientHeight);
  c.toBlob((blob) => { if (blob) download(doc, `slublab-step${player.get().at}.png`, blob); }, 'image/png');
}

// ---- keys
doc.addEventListener('keydown', (ev) => {
  const t = ev.target;
  if (t && (t.closest('input, textarea, select, [contenteditable]') && !(t instanceof HTMLInputElement && t.type === 'range' && ev.key === ' '))) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (view === 'compare') {
    const map = { ArrowRight: (c) => c.step(1), ArrowLeft: (c) => c.step(-1), Home: (c) => c.home(), End: (c) => c.end() };
    if (map[ev.key]) { ev.preventDefault(); compare().then(map[ev.key]); }
    return;
  }
  if (view !== 'lab') return;
  const act = {
    ' ': () => player.toggle(),
    ArrowRight: () => player.step(1, ev.shiftKey ? 'op' : 'event'),
    ArrowLeft: () => player.step(-1, ev.shiftKey ? 'op' : 'event'),
    Home: () => player.home(),
    End: () => player.endPos(),
    '+': () => player.faster(), '=': () => player.faster(),
    '-': () => player.slower(), _: () => player.slower(),
    b: () => player.runToBreakpoint(),
    n: () => $('next-mark').click(),
    p: () => $('prev-mark').click(),
  }[ev.key];
  if (act && !(t instanceof HTMLButtonElement && ev.key === ' ')) { ev.preventDefault(); act(); }
});

// ---- boot
async function boot() {
  const q = query;
  // The words load alongside the session; the first render waits for both.
  let loaded = false;
  const wordsIn = words.then(setTexts, () => { wordsFailed = true; });
  player.subscribe(() => { if (!loaded) wordsIn.then(() => { loaded = true; schedule(); }); });
  // Not needed for the first picture: asked once it is drawn.
  const later = () => {
    api.health().then((r) => { version = r.version; $('version').textContent = `engine ${r.version}`; }).catch(() => {});
    api.scenarios().then((r) => {
      const sel = $('scenario-select');
      for (const s of r.scenarios) sel.append(h(doc, 'option', { value: s.name, title: s.title }, s.name));
      sel.value = player.get().session?.info?.scenario?.name ?? '';
    }).catch(() => {});
  };
  createTraceOpen($('trace-open'), { doc, win, open: async (id, token) => {
    keepToken(id, token);
    await player.open({ id, token, at: 0 });
    snapInfo = null;
    showView('lab');
    /** @type {any} */ ($('scenario-select')).value = '';
  } });
  $('scenario-select').addEventListener('change', (ev) => {
    const name = ev.target.value;
    if (name) player.create(name).then(() => { snapInfo = null; showView('lab'); }).catch(() => {});
  });
  if (q.get('tab') && TABS.includes(q.get('tab') ?? '')) showTab(q.get('tab'));
  if (q.get('presenter')) setPresenter(true);
  const cache = q.get('cache') != null ? Number(q.get('cache')) : undefined;
  try {
    if (q.get('follow')) {
      await player.open({ id: /** @type {string} */ (q.get('follow')), follow: true });
    } else if (q.get('snapshot')) {
      await openSnapshot(/** @type {string} */ (q.get('snapshot')), q.get('note') ?? undefined);
    } else if (q.get('session')) {
      const id = /** @type {string} */ (q.get('session'));
      await player.open({ id, token: tokens()[id] ?? null, at: Number(q.get('at') ?? 0), cache });
    } else {
      const r = await early;
      await player.open({ id: r.id, token: r.token, at: 0 });
    }
    if (cache != null) player.setCache(cache);
    const sel = q.get('sel');
    if (sel) {
      const [kind, id, slab] = sel.split(':');
      player.select({ kind, id: kind === 'sheaf' ? Number(id) : id, slab: slab ?? (kind === 'slab' ? id : undefined) });
      if (!q.get('tab')) showTab('inspect');
    }
    const name = player.get().session?.info?.scenario?.name;
    if (name) /** @type {any} */ ($('scenario-select')).value = name;
    if (q.get('view') === 'compare') showView('compare');
    if (q.get('play')) player.play();
  } catch (err) {
    // the banner shows the error
    if (!player.get().error) { player.get().error = err.message; player.emit(); }
  }
  later();
}
boot();
