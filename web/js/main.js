// @ts-check
// Boot: the only module that touches document at top level.  Builds the
// views into index.html's containers, wires them to the player, opens the
// session the URL names (or the default scenario), and renders once per
// animation frame.  What it wires lives in modules: the query string and
// permalinks (urlstate.js), write tokens (tokens.js), shortcuts (keys.js),
// the PNG export (paint.js), the banner (views/banner.js).

import { api } from './api.js';
import { fill, breakAtUnderscores } from './dom.js';
import { createPlayer } from './state.js';
import { stepSentence, snapshotLine } from './format.js';
import { exportPng as paintPng } from './paint.js';
import { setTexts, texts } from './texts.js';
import { setSourceLines } from './sourcelines.js';
import { readQuery, viewLink as linkTo, snapshotLink as snapshotLinkTo, addressFor, createUrlKeeper } from './urlstate.js';
import { browserStorage, createTokens } from './tokens.js';
import { bindKeys } from './keys.js';
import { lazyView } from './lazy.js';
import { createBanner } from './views/banner.js';
import { createTabs } from './views/tabs.js';
import { createLectureKeeper } from './lecture.js';
import { createPicture } from './views/picture.js';
import { createTimeline } from './views/timeline.js';
import { createOverview } from './views/overview.js';
import { createExplain } from './views/explain.js';
import { createCaches } from './views/caches.js';
import { createBreakpoints } from './views/breakpoints.js';
import { createTraceOpen } from './views/trace.js';
import { createScenarioMenu } from './views/scenariomenu.js';
import { createKernelMenu } from './views/kernelmenu.js';
import { createQuestion } from './views/question.js';
import { createScore } from './predict.js';
import { createLessonPlayer } from './views/lesson.js';
import { createExercise } from './views/exercise.js';
import { createCourseMenu } from './views/coursemenu.js';
import { createCourseStart } from './views/coursestart.js';
import { createGlossary } from './views/glossary.js';
import { createSolved } from './course.js';
import { hasRace } from './race.js';

/**
 * How long the views of a reload wait for early.js's answers before they
 * are built anyway: its answers come within a few tens of ms of this
 * module starting.  A new session's come later, and its views are built
 * at once, while they are awaited (built after them, they delayed the
 * first state by 40-80 ms: docs/benchmarks.md, "UI").
 */
const EARLY_WAIT_MS = 100;
const doc = document, win = window;
const $ = (id) => doc.getElementById(id);
const t0 = performance.now();
const debug = { firstDrawMs: /** @type {number|null} */ (null), player: null, frames: 0 };
win.__slublab = debug;

// Start what the first picture needs before building anything: the words,
// and for a plain page the default scenario's session.
// an offline copy (web/offline/loader.js) says which session and step to open
const query = readQuery(/** @type {any} */ (win).__slublabOffline?.query ?? win.location.search);
// an offline copy offers only what works without the server (docs/export.md)
const offlineCopy = !!(/** @type {any} */ (win).__slublabOffline);
const words = api.texts();
// (web/early.js may have asked for it already, while the modules loaded)
// (a test on a loaded machine sets a longer wait: tests/browser/early.test.mjs)
const earlyIn = api.earlyAnswers(/** @type {any} */ (win).__slublabEarlyWaitMs ?? EARLY_WAIT_MS);
const early = api.earlySession(query.fresh) ?? (query.fresh ? api.createSession({ scenario: query.fresh }) : null);
early?.catch(() => {});
// The views are built once early.js's answers are in (a reload's come
// while this module loads), or after EARLY_WAIT_MS: the page then lays out
// and paints them once, with the first state, not empty and then again,
// and the answers are not kept waiting behind that empty frame.
await earlyIn;

const storage = browserStorage(win);
const tokens = createTokens(storage);

const player = createPlayer();
debug.player = player;
let version = '';
let offlineMax = 0; // the most events an offline copy holds (GET /api/health)
let view = 'lab';

// ---- views
const picture = createPicture($('picture'), { onSelect: (sel) => { player.select(sel); showTab('inspect'); }, onTerm: (id) => glossary.show(id), win });
debug.picture = picture;
// the slab rows drawn, in viewport coordinates, whatever draws them (tests read it)
debug.slabRows = () => picture.slabRows();
const timeline = createTimeline($('controls'), player, { onTerm: (id) => glossary.show(id) });
const overview = createOverview($('overview'), player, { api });
/** Runs made at a choice point (the Explain panel's forks): the run each came from. */
const choiceBacks = new Map();
const explain = createExplain($('tab-explain'), {
  async onFork(option) {
    const m = player.get();
    if (!m.session) return;
    const from = { id: m.session.id, token: m.session.token ?? null, at: m.at };
    try {
      const f = await api.forkChoice(from.id, from.at, option);
      choiceBacks.set(f.id, { ...from, text: f.choice.text });
      await player.open({ id: f.id, token: f.token, at: f.position, cache: m.cacheId });
    } catch (err) { player.showError(err); }
  },
  async onBack(b) {
    await player.open({ id: b.id, token: b.token, at: player.get().at, cache: player.get().cacheId }).catch(() => {});
  },
  backOf: (id) => choiceBacks.get(id) ?? null,
});
// Tabs and panels a first visit may not open load when they first render.
const lazy = (load, make) => lazyView(load, make, schedule);
const stats = lazy(() => import('./views/stats.js'), (x) => x.createStats($('tab-counters'), player));
const caches = createCaches($('caches'), player);
const inspector = lazy(() => import('./views/inspector.js'), (x) => x.createInspector($('tab-inspect'), player));
const statetable = lazy(() => import('./views/statetable.js'), (x) => x.createStateTable($('tab-table')));
const opsform = lazy(() => import('./views/opsform.js'), (x) => x.createOpsForm($('ops'), player));
const gfpview = lazy(() => import('./views/gfp.js'), (x) => x.createGfp($('tab-gfp'), { api, scenario: () => player.get().session?.info?.scenario?.name ?? '' }));
const pages = lazy(() => import('./views/pages.js'), (x) => x.createPages($('tab-pages'), {
  onDecode: (mask, order) => { showTab('gfp'); gfpview.render(player.get()); const ask = () => (gfpview.view ? gfpview.view.ask(mask, order) : setTimeout(ask, 20)); ask(); },
}));
// the presenter's lecture: the follow link that outlives scenario switches
const lecture = createLectureKeeper(api, storage);
// the follow link's address: where the server says students reach it, not where this page was opened
let publicUrl = '';
const banner = createBanner($('banner'), player, { origin: () => publicUrl || win.location.origin, presenter: () => presenting(), lecture: () => lecture.id(), snapshot: () => snapInfo, predict: () => player.get().predict });
const breakpoints = createBreakpoints($('breakpoints'), player);
// the race lab: loads when a session's events carry steps (docs/teaching.md)
const race = lazy(() => import('./views/race.js'), (x) => x.createRace($('race'), player, { api }));
let raceEvents = null, raceShown = false;
// Views used now and then load when first opened.
let snapshotsP = null, editorP = null, compareP = null;
const snapshots = () => (snapshotsP ??= import('./views/snapshots.js').then((x) => x.createSnapshots($('tab-share'), player, {
  storage, viewLink, snapshotLink, exportPng, openSnapshot, version: () => version, offlineMax: () => offlineMax, offline: () => offlineCopy,
})));
const editor = () => (editorP ??= import('./views/scenario.js').then((x) => x.createScenarioEditor($('scenario-editor'), player, { storage, onRun: () => {
  menu.showing(player.get().session?.info?.scenario?.name ?? '', 'custom');
  showView('lab');
} })));
// the header's Scenario menu: a shipped scenario picked starts a session of it
const menu = createScenarioMenu($('scenario-select'), {
  onPick: (name) => { player.create(name).then(() => { snapInfo = null; showView('lab'); }).catch(() => {}); },
});
/** GET /api/kernels, once it has answered: the Kernel menu's and the compare view's releases. */
let kernelList = null;
// the header's Kernel menu: the shipped scenario shown, anew on the release picked
const kernelMenu = createKernelMenu($('kernel-select'), {
  onPick: (kernel) => {
    const name = /** @type {HTMLSelectElement} */ ($('scenario-select')).value;
    if (name) player.create(name, { kernel }).then(() => { snapInfo = null; showView('lab'); }).catch(() => {});
  },
});
// predict mode's questions, the score kept per session, and this browser's
// follower token of a lecture: the server issues it when the page joins (its answers carry it)
const score = createScore(storage);
const joined = new Map();
const follower = (id) => {
  const key = `slublab.follower.${id}`;
  let t = null;
  try { t = storage?.getItem(key) ?? null; } catch { t = null; }
  if (t) return Promise.resolve(t);
  if (!joined.has(id)) {
    joined.set(id, api.joinLecture(id).then((r) => {
      try { storage?.setItem(key, r.token); } catch { /* private mode: kept for this page */ }
      return r.token;
    }, (err) => { joined.delete(id); throw err; }));
  }
  return /** @type {Promise<string>} */ (joined.get(id));
};
const question = createQuestion($('question'), player, {
  api, score, scoreEl: $('score'), follower, words: () => texts().questions,
  // a lesson keeps one score across its scenarios
  scoreId: (sid) => { const w = lessonView.where(); return w ? `lesson:${w.id}` : sid; },
  presenterLecture: () => (presenting() && lecture.id() && lecture.token() && lecture.session() === player.get().session?.id
    ? { id: /** @type {string} */ (lecture.id()), token: /** @type {string} */ (lecture.token()) } : null),
});
// the course: lessons played over the lab, exercises above the scenario editor
const solved = createSolved(storage);
const glossary = createGlossary(/** @type {HTMLDialogElement} */ ($('glossary')));
$('glossary-open').addEventListener('click', () => glossary.show());
let lessonList = /** @type {any[]} */ ([]);
const lessonView = createLessonPlayer($('lesson'), player, {
  api, showTab: (t) => { if (TABS.includes(t)) showTab(t); },
  onChange: () => { courseMenu.showing(lessonView.where()?.id ?? null); if (lessonView.active()) courseStart.hide(); updateUrl(); },
  course: () => ({ lessons: lessonList, exercises: exerciseList }),
  onExercise: (id) => { lessonView.stop(); openExercise(id).catch((err) => player.showError(err)); },
  linkTerms: (el) => glossary.link(el),
  onApplied: () => schedule(),
  onShowSpot: () => { spotKey = ''; schedule(); },
});
// a first visit's way in: the course beside the lab
const courseStart = createCourseStart($('course-start'), {
  onLesson: (id) => { showView('lab'); lessonView.open(id, 1).catch((err) => player.showError(err)); },
  score: () => score.total('lesson:'),
});
const exerciseView = createExercise($('exercise'), player, {
  api, editor: () => editor(), solved, onChange: () => { updateUrl(); fillExercises(); },
  onRun: () => { menu.showing(player.get().session?.info?.scenario?.name ?? '', 'custom'); showView('lab'); },
  // the attempt opens on its own: no lesson slide or breakpoint left over
  beforeRun: () => { if (lessonView.active()) lessonView.stop(); for (const b of player.get().breakpoints) player.removeBreakpoint(b.key); },
});
// the header's Lessons menu: the lessons, and the exercises in a group of their own
const courseMenu = createCourseMenu(/** @type {HTMLSelectElement} */ ($('course-select')), {
  onLesson: (id) => { showView('lab'); lessonView.open(id, 1).catch((err) => player.showError(err)); },
  onExercise: (id) => openExercise(id).catch((err) => player.showError(err)),
});
let exerciseList = /** @type {any[]} */ ([]);
function fillExercises() { courseMenu.exercises(exerciseList, (id) => solved.has(id)); }
/** Show exercise @id above the editor, with the lab on its preset. */
async function openExercise(id) {
  const ex = await exerciseView.open(id);
  showView('scenario');
  await player.create(ex.preset).catch(() => {});
  menu.showing(ex.preset?.name ?? '', 'custom');
}
let cmpView = null, cmpFrom = null;
const compare = () => (compareP ??= import('./views/compare.js').then((x) => (cmpView = x.createCompare($('compare-view'), {
  win, variants: () => Object.keys(player.get().session?.info?.settings?.variants ?? {}), kernels: () => kernelList, onChange: () => updateUrl(),
}))));
let catalogue = null;
/** What the compare view compares for the lab's session: its shipped scenario when the session is just that, else the session. */
async function labSource() {
  const info = player.get().session?.info;
  if (!info) return 'fresh-slab-fill';
  catalogue ??= api.scenarios().then((r) => r.scenarios, () => []);
  const shipped = (await catalogue).some((x) => x.name === info.scenario?.name && x.title === info.scenario?.title);
  return shipped && !info.parent && (info.batches ?? 1) === 1 ? info.scenario.name : `session:${info.id}`;
}

// ---- tabs and views
const TABS = ['explain', 'counters', 'inspect', 'table', 'share', 'pages', 'gfp'];
const tabs = createTabs($('tablist'), Object.fromEntries(TABS.map((x) => [x, $(`tab-${x}`)])), {
  onShow(t) {
    if (t === 'share') snapshots();
    schedule();
    if (t === 'counters') setTimeout(() => stats.view?.resize(), 0);
  },
});
const showTab = (t) => tabs.show(t);

const VIEWS = ['lab', 'compare', 'scenario'];
/** Show page @v; @cmp: the comparison a link asks for (compare page). */
function showView(v, cmp = null) {
  view = v;
  for (const x of VIEWS) {
    $(`${x}-view`).hidden = x !== v;
    $(`viewbtn-${x}`).setAttribute('aria-pressed', String(x === v));
  }
  if (v === 'compare') {
    // a link's comparison; else the lab's session, anew when the lab moved on to another
    const id = player.get().session?.id ?? null;
    compare().then(async (c) => {
      if (cmp) return c.start(cmp.source, cmp.axis, { op: cmp.op, atStep: cmp.atStep });
      if (c.ready() && cmpFrom === id) return c.redraw();
      cmpFrom = id;
      return c.start(await labSource(), c.urlState()?.axis ?? 'variant:DEFERRED_FREELIST');
    });
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
if (offlineCopy) for (const x of ['compare', 'scenario']) $(`viewbtn-${x}`).hidden = true; // both run the server's engine

const presenting = () => doc.body.classList.contains('presenter');
function setPresenter(on) {
  doc.documentElement.classList.toggle('presenter', on);
  doc.body.classList.toggle('presenter', on);
  $('presenter').setAttribute('aria-pressed', String(on));
  picture.setScale(1);
  if (on) showTab('explain');
  schedule();
  updateUrl();
}
$('presenter').addEventListener('click', () => setPresenter(!presenting()));

// ---- the projector theme (high contrast): the button's choice (kept), else the
// lecture's when following one, else the system's (prefers-contrast: more)
const THEME_KEY = 'slublab.theme';
let themeChoice = /** @type {string|null} */ (null);
try { themeChoice = storage?.getItem(THEME_KEY) ?? null; } catch { themeChoice = null; }
const moreContrast = win.matchMedia?.('(prefers-contrast: more)');
function theme() {
  const m = player.get();
  return (m.following && m.lectureView?.theme) || themeChoice || (moreContrast?.matches ? 'projector' : 'normal');
}
let themeShown = '';
function applyTheme() {
  const t = theme();
  if (t === themeShown) return;
  themeShown = t;
  doc.documentElement.classList.toggle('projector', t === 'projector');
  $('theme').setAttribute('aria-pressed', String(t === 'projector'));
  picture.redraw();
}
$('theme').addEventListener('click', () => {
  themeChoice = theme() === 'projector' ? 'normal' : 'projector';
  try { storage?.setItem(THEME_KEY, themeChoice); } catch { /* private mode */ }
  applyTheme();
  schedule();
});
moreContrast?.addEventListener?.('change', () => { applyTheme(); schedule(); });
applyTheme();
// the presenter's breakpoints and theme, for the lecture's followers
let viewSent = '';
function sendView(m) {
  const id = lecture.id(), token = lecture.token();
  if (!presenting() || m.following || !id || !token) return;
  const view = { breakpoints: m.breakpoints.map((b) => b.key).filter((k) => /^[A-Za-z0-9_:./-]{1,80}$/.test(k)).slice(0, 16), theme: theme() };
  const key = `${id} ${JSON.stringify(view)}`;
  if (key === viewSent) return;
  viewSent = key;
  api.setLectureView(id, token, view).catch(() => { viewSent = ''; });
}

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

let lastSay = '', wordsFailed = false, menuFor = /** @type {string|null} */ (null);
function render() {
  debug.renderStart = performance.now(); // bench/static-lab.mjs: render()'s own time in a step
  const m = player.get();
  const tab = tabs.current();
  if (!Object.keys(texts().sentences).length && !wordsFailed) return;
  if (m.session?.token) tokens.keep(m.session.id, m.session.token);
  if (m.session?.info && m.session.id !== menuFor) { menuFor = m.session.id; menu.showing(m.session.info.scenario?.name ?? ''); }
  if (m.session?.info) kernelMenu.showing(m.session.info.settings, !!(/** @type {HTMLSelectElement} */ ($('scenario-select')).value));
  if (presenting() && m.session?.id && !m.following && lecture.session() !== m.session.id) lecture.sync(m.session.id).then((changed) => { if (changed) schedule(); });
  applyTheme();
  sendView(m);
  banner.render(m);
  question.render(m);
  if (!m.cur) return;
  // the canvases first, while the page's style is as the last frame left it:
  // drawn after the DOM writes below, their text would make the browser
  // recompute the page's style in the middle of the step
  if (view === 'lab') picture.render(m, false, { duration: m.playing ? Math.min(600, player.interval() * 0.85) : 500 });
  if (view === 'lab') overview.render(m);
  const say = stepSentence(m, player.opEvents);
  if (say !== lastSay) {
    lastSay = say;
    fill($('narration'), breakAtUnderscores(doc, say));
  }
  timeline.render(m);
  explain.render(m, say);
  caches.render(m);
  breakpoints.render(m);
  if (raceEvents !== m.events) { raceEvents = m.events; raceShown = hasRace(m.events.values()); }
  if (raceShown) race.render(m);
  else if (!$('race').hidden) $('race').hidden = true;
  if ($('ops').closest('details').open) opsform.render(m);
  if (tab === 'counters') stats.render(m);
  if (tab === 'inspect') inspector.render(m);
  if (tab === 'table') statetable.render(m);
  if (tab === 'pages') pages.render(m);
  if (tab === 'gfp') gfpview.render(m);
  lessonView.render(m);
  doc.body.classList.toggle('has-sheet', lessonView.active() || !$('question').hidden);
  spotlight();
  if (debug.firstDrawMs === null) {
    debug.firstDrawMs = performance.now(); // since navigation start
    debug.bootMs = performance.now() - t0; // since this module ran
    doc.body.dataset.ready = '1';
  }
  if (doc.body.dataset.at !== String(m.at)) doc.body.dataset.at = String(m.at);
  updateUrl();
}

// ---- a slide's spotlight: outlined, and scrolled into view once per slide
// shown (on a phone above the slide's sheet), whatever the event highlights
let spotKey = '';
function spotlight() {
  const sp = view === 'lab' ? lessonView.spot() : null;
  const el = sp ? doc.querySelector(sp.selector) : null;
  for (const x of doc.querySelectorAll('.spot')) if (x !== el) x.classList.remove('spot');
  if (!sp || !el) return;
  if (el.matches('#cache-table .more')) caches.showAll(); // a column the narrow table leaves out
  el.classList.add('spot');
  if (sp.key === spotKey) return;
  spotKey = sp.key;
  const sheet = $('sheet').getBoundingClientRect();
  const phone = win.getComputedStyle($('sheet')).position === 'fixed';
  const r = el.getBoundingClientRect();
  const room = phone ? sheet.top : win.innerHeight;
  // already in view (the part above the sheet): leave the page where it is.
  // A spotlight taller than the window (a whole tab) whose top shows is left
  // too: 'nearest' would align its top with the window's top.
  if (r.top >= 0 && r.top + Math.min(r.height, 40) <= room && (phone || r.bottom <= room || r.height > room)) {
    if (phone || r.height <= room) el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  } else {
    el.scrollIntoView({ block: phone || r.height > room ? 'start' : 'center', inline: 'nearest' });
  }
  if (!phone) keepSlideInView(el);
}

/**
 * Where the window holds both, the slide's title stays in view beside @spot:
 * the whole spotlight if it fits with the title, else its top.
 */
function keepSlideInView(spot) {
  const t = $('lesson-slide-title')?.getBoundingClientRect(), r = spot.getBoundingClientRect();
  if (!t || !t.height) return;
  for (const shown of [r.height, Math.min(r.height, 40)]) {
    const top = Math.min(t.top, r.top), bottom = Math.max(t.bottom, r.top + shown);
    if (bottom - top + 16 > win.innerHeight) continue;
    if (top < 0) win.scrollBy(0, top - 8);
    else if (bottom > win.innerHeight) win.scrollBy(0, bottom - win.innerHeight + 8);
    return;
  }
}

// ---- URLs: the view state in the query string
/** The view as urlstate.js writes it. */
function viewState() {
  const m = player.get();
  return { session: m.session?.id ?? null, at: m.at, cacheId: m.cacheId, tab: tabs.current(), selection: m.selection, presenter: presenting(), following: !!m.following,
    predict: m.predict, lesson: lessonView.where(), exercise: exerciseView.id() };
}
const viewLink = () => linkTo(win.location.origin, viewState());
const snapshotLink = (id, note) => snapshotLinkTo(win.location.origin, viewState(), id, note);
const updateUrl = createUrlKeeper(win, () => addressFor(viewState(), view, cmpView?.urlState() ?? null));

// ---- snapshots
let snapInfo = /** @type {{ text: string, warn: boolean }|null} */ (null);
async function openSnapshot(id, note) {
  const sn = await api.snapshot(id);
  snapInfo = snapshotLine(sn, id, note ?? storage?.getItem(`slublab.note.${id}`) ?? sn.note ?? '');
  menu.showing(sn.scenario ?? '', null);
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
  paintPng(doc, { title: $('narration').textContent ?? '', topo: sc.topo, grid: picture.gridCanvas() }, `slublab-step${player.get().at}.png`);
}

// ---- keys, and `?`: the list of keys over the page (the left panel's list, copied once)
const help = /** @type {HTMLDialogElement} */ ($('keys-help'));
function toggleHelp() {
  if (help.open) { help.close(); return; }
  const list = $('keys-help-list');
  if (!list.firstChild) list.append(/** @type {Node} */ (doc.querySelector('.keys dl')?.cloneNode(true)));
  help.showModal();
}
$('keys-help-close').addEventListener('click', () => help.close());
bindKeys(doc, {
  page: () => view,
  run: (c) => (c.target === 'page' ? toggleHelp() : c.target === 'compare' ? compare().then((x) => x[c.name](...c.args))
    : c.target === 'question' ? question[c.name](...c.args)
      : c.target === 'lesson' ? lessonView[c.name](...c.args)
        : player[c.name](...c.args)),
  open: () => ({ question: question.open(), lesson: lessonView.active() }),
});

// ---- boot
async function boot() {
  // The words load alongside the session; the first render waits for both.
  let loaded = false;
  const wordsIn = words.then(setTexts, () => { wordsFailed = true; });
  player.subscribe(() => { if (!loaded) wordsIn.then(() => { loaded = true; schedule(); }); });
  // Not needed for the first picture: asked once it is drawn.
  const later = () => {
    api.health().then((r) => {
      version = r.version; offlineMax = r.offline_max_events ?? 0; $('version').textContent = `engine ${r.version}`;
      if (r.public_url && /^https?:\/\//.test(r.public_url)) { publicUrl = r.public_url; schedule(); }
    }).catch(() => {});
    api.scenarios().then((r) => { menu.fill(r.scenarios); schedule(); }).catch(() => {});
    api.kernels().then((r) => { kernelList = r; kernelMenu.fill(r); }).catch(() => {});
    api.sourceLines().then((r) => { setSourceLines(r); schedule(); }).catch(() => {});
    api.lessons().then((r) => {
      lessonList = r.lessons ?? [];
      courseMenu.lessons(lessonList);
      if (plain && !lessonView.active()) courseStart.show(lessonList);
      lessonView.redraw();
    }).catch(() => courseMenu.lessons([]));
    api.exercises().then((r) => { exerciseList = r.exercises ?? []; fillExercises(); lessonView.redraw(); }).catch(() => courseMenu.exercises([]));
  };
  createTraceOpen($('trace-open'), { doc, win, open: async (id, token) => {
    tokens.keep(id, token);
    await player.open({ id, token, at: 0 });
    snapInfo = null;
    showView('lab');
    menu.showing(player.get().session?.info?.scenario?.name ?? '', 'custom');
  } });
  const q = query;
  // a plain visit (nothing named in the address) is offered the course
  const plain = !(/** @type {any} */ (win).__slublabOffline) && !win.location.search.slice(1);
  if (q.tab && TABS.includes(q.tab)) showTab(q.tab);
  if (q.presenter) setPresenter(true);
  if (q.predict) player.setPredict(true);
  try {
    if (q.lesson) {
      await lessonView.open(q.lesson, q.slide);
    } else if (q.exercise) {
      await openExercise(q.exercise);
    } else if (q.lecture) {
      await player.followLecture(q.lecture);
      follower(q.lecture).catch(() => {}); // joining: the token its answers will carry
    } else if (q.follow) {
      await player.open({ id: q.follow, follow: true });
    } else if (q.snapshot) {
      await openSnapshot(q.snapshot, q.note);
    } else if (q.session) {
      await player.open({ id: q.session, token: tokens.get(q.session), at: q.at, cache: q.cache });
    } else {
      const r = await early;
      await player.open({ id: r.id, token: r.token, at: 0 });
    }
    if (q.cache != null) player.setCache(q.cache);
    if (q.sel) {
      player.select(q.sel);
      if (!q.tab) showTab('inspect');
    }
    if (q.view === 'compare') {
      cmpFrom = player.get().session?.id ?? null;
      showView('compare', q.compare);
    }
    if (q.play) player.play();
  } catch (err) {
    // the banner shows the error
    if (!player.get().error) player.showError(err);
  }
  later();
}
boot();
