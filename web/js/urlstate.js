// @ts-check
// The view state in the query string: what a URL asks the page to open
// (a session at a step, a snapshot, a presenter to follow, a new session
// of a scenario, or a comparison at a step) and the links that reopen the
// current view (permalinks).  Pure apart from createUrlKeeper, which is handed the
// window it writes to.

/**
 * @typedef {{ kind: string, id: string|number, slab?: string }} Selection
 * @typedef {{ session: string|null, at: number, cacheId: number, tab: string,
 *             selection: Selection|null, presenter: boolean, predict?: boolean,
 *             lesson?: { id: string, slide: number }|null, exercise?: string|null }} ViewState
 */

/** A selection from its query form "kind:id" or "kind:id:slab". @returns {Selection} */
export function parseSelection(text) {
  const [kind, id, slab] = text.split(':');
  return { kind, id: kind === 'sheaf' ? Number(id) : id, slab: slab ?? (kind === 'slab' ? id : undefined) };
}

/** The query form of a selection (parseSelection reads it back). */
export function selectionParam(sel) {
  return `${sel.kind}:${sel.id}${sel.slab && sel.slab !== sel.id ? ':' + sel.slab : ''}`;
}

/**
 * @typedef {{ source: string, axis: string, op: number, atStep: boolean }} CompareState
 *   source: a shipped scenario's name or "session:ID"; axis: "variant:NAME"
 *   or "model:A,B"; op: the scenario operation both sides stand at;
 *   atStep: the counter table shows that step (else the end).
 */

/** The comparison a query string asks for (cmp, axis, op, counters), or null. @returns {CompareState|null} */
export function readCompare(q) {
  const source = q.get('cmp');
  if (!source) return null;
  const op = Number(q.get('op') ?? 0);
  return { source, axis: q.get('axis') || 'variant:DEFERRED_FREELIST', op: Number.isFinite(op) && op > 0 ? Math.floor(op) : 0,
    atStep: q.get('counters') === 'step' };
}

/** The query string of comparison @c on the compare page (readCompare reads it back). */
export function compareParams(c) {
  const p = new URLSearchParams({ view: 'compare', cmp: c.source, axis: c.axis, op: String(c.op) });
  if (c.atStep) p.set('counters', 'step');
  return p;
}

/**
 * What the query string asks for.  `fresh` names the scenario of a new
 * session when the URL names no existing one (the page starts it before
 * building anything), else null.  A comparison's link opens the lab on what
 * it compares: its scenario, or its session.
 * @param {URLSearchParams|string} search
 */
export function readQuery(search) {
  const q = typeof search === 'string' ? new URLSearchParams(search) : search;
  const sel = q.get('sel');
  const compare = readCompare(q);
  const named = ['follow', 'lecture', 'snapshot', 'session', 'lesson', 'exercise'].some((k) => q.has(k));
  const cmpSession = !named && compare?.source.startsWith('session:') ? compare.source.slice(8) : null;
  return {
    fresh: named || cmpSession ? null : (q.get('scenario') || compare?.source || 'default'),
    follow: q.get('follow') || null,
    lecture: q.get('lecture') || null,
    snapshot: q.get('snapshot') || null,
    note: q.get('note') ?? undefined,
    session: q.get('session') || cmpSession,
    at: Number(q.get('at') ?? 0),
    cache: q.get('cache') != null ? Number(q.get('cache')) : undefined,
    tab: q.get('tab') || null,
    sel: sel ? parseSelection(sel) : null,
    presenter: !!q.get('presenter'),
    view: q.get('view') || null,
    play: !!q.get('play'),
    predict: !!q.get('predict'),
    lesson: q.get('lesson') || null,
    slide: Math.max(1, Math.floor(Number(q.get('slide') ?? 1)) || 1),
    exercise: q.get('exercise') || null,
    compare,
  };
}

/**
 * The query string of a view: session, step, cache, tab (unless the
 * default), selection and presenter mode.
 * @param {ViewState} v
 */
export function viewParams(v) {
  const p = new URLSearchParams();
  if (v.session) p.set('session', v.session);
  p.set('at', String(v.at));
  p.set('cache', String(v.cacheId));
  if (v.tab !== 'explain') p.set('tab', v.tab);
  if (v.selection) p.set('sel', selectionParam(v.selection));
  if (v.presenter) p.set('presenter', '1');
  if (v.predict) p.set('predict', '1');
  return p;
}

/**
 * The query string of a lesson's slide: the lesson and the slide (which
 * says where the lab stands), with presenter and predict mode.
 * @param {{ lesson: { id: string, slide: number }, presenter?: boolean, predict?: boolean }} v
 */
export function lessonParams(v) {
  const p = new URLSearchParams({ lesson: v.lesson.id, slide: String(v.lesson.slide) });
  if (v.presenter) p.set('presenter', '1');
  if (v.predict) p.set('predict', '1');
  return p;
}

/**
 * The query string of a link to view @v: as viewParams, but a link copied
 * from the Share tab reopens the lab at the step, not the Share tab (the
 * tab the link was made in is no part of what it shows).
 * @param {ViewState} v
 */
export function linkParams(v) {
  return viewParams(v.tab === 'share' ? { ...v, tab: 'explain' } : v);
}

/** The link that reopens view @v (its session at its step). */
export function viewLink(origin, v) {
  return `${origin}/?${linkParams(v)}`;
}

/** The permalink of snapshot @id shown as view @v, with an optional note. */
export function snapshotLink(origin, v, id, note) {
  const p = linkParams(v);
  p.delete('session'); p.delete('at');
  p.set('snapshot', id);
  if (note) p.set('note', note.slice(0, 500));
  return `${origin}/?${p}`;
}

/**
 * The URL the address bar shows for view @v on page @page ('lab',
 * 'compare', 'scenario'), or null to leave it as it is (a follower's URL
 * stays the presenter's link; no session yet).  On the compare page, the
 * comparison @cmp when there is one.
 * @param {ViewState & { following: boolean }} v
 * @param {string} page
 * @param {CompareState|null} [cmp]
 */
export function addressFor(v, page, cmp = null) {
  if (v.following) return null;
  if (v.lesson && page === 'lab') return `/?${lessonParams({ ...v, lesson: v.lesson })}`;
  if (v.exercise && page === 'scenario') return `/?${new URLSearchParams({ exercise: v.exercise })}`;
  if (page === 'compare') return cmp ? `/?${compareParams(cmp)}` : '/?view=compare';
  if (v.session) return `/?${viewParams(v)}`;
  return null;
}

/**
 * Keep the address bar in step with the view, at most once per @delay ms
 * of quiet.
 * @param {{ history: History }} win
 * @param {() => string|null} address what addressFor says now
 */
export function createUrlKeeper(win, address, delay = 400) {
  let timer = /** @type {any} */ (0);
  return function update() {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const url = address();
      if (url) win.history.replaceState(null, '', url);
    }, delay);
  };
}
