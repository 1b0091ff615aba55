// @ts-check
// The player: one session, the current position, the states around it
// (fetched from the server, which answers from checkpoints, so stepping
// back costs the same as forward), the events near it, play/pause,
// breakpoints and the follow stream.  No DOM: views read get() and call
// the actions; subscribe() tells them when to render.

import { api, ApiError } from './api.js';
import { NOTABLE, DEFAULT_CHART, chartCountersFor, modelCounters } from './counters.js';
import { learnSlabNames } from './format.js';
import { branchAhead, predictStops } from './predict.js';
import { texts } from './texts.js';

/** @typedef {import('./types.js').StateResponse} StateResponse */
/** @typedef {import('./types.js').Event} Event */

export const SPEEDS = [0.5, 1, 2, 4, 8, 16, 32, 64, 128];
// The speed playing reaches is measured over this long (from 4 steps/s up;
// slower ones are always reached) and a speed counts as reached at this share of it.
export const RATE_WINDOW_MS = 2000;
export const RATE_REACHED = 0.9;

/**
 * The speed a player actually plays at, from @times (the Date.now() of the
 * steps shown since it began playing at @speed, oldest first) at @now:
 * rate, the steps per second in the last RATE_WINDOW_MS (null until a
 * whole window has passed, or below 4 steps/s); and limit, when @speed is
 * not reached, the fastest of SPEEDS that is (else null).
 * @param {number[]} times @param {number} speed @param {number} now
 * @returns {{ rate: number|null, limit: number|null }}
 */
export function playedSpeed(times, speed, now) {
  if (speed < 4 || !times.length || now - times[0] < RATE_WINDOW_MS) return { rate: null, limit: null };
  const recent = times.filter((t) => t >= now - RATE_WINDOW_MS);
  const rate = recent.length > 1 ? ((recent.length - 1) * 1000) / Math.max(1, now - recent[0]) : 0;
  if (rate >= RATE_REACHED * speed) return { rate, limit: null };
  return { rate, limit: SPEEDS.filter((s) => s < speed && (s < 4 || rate >= RATE_REACHED * s)).pop() ?? SPEEDS[0] };
}
const ALL_EVENTS_MAX = 5000; // load every event of runs up to this long
const WINDOW = 400; // else this many events each side of the position
const CACHE_MAX = 96;
const PAGES_MAX = 32; // cache pages of paged states kept
const PAGE_SLABS = 4096; // slabs in one page, the most the server gives
const PUBLISH_MS = 100; // stepping by hand, the presenter tells the server its position at most this often

/**
 * @typedef {{ key: string, title: string, fn?: string, label?: string, counter?: string }} Breakpoint
 */

/**
 * A breakpoint for a notable kind, a counter or a function (and label).
 * @param {{ kind: 'notable'|'counter'|'fn', name: string, label?: string }} b
 * @returns {Breakpoint}
 */
export function makeBreakpoint(b) {
  if (b.kind === 'notable') {
    const n = NOTABLE.find((x) => x.key === b.name);
    if (!n) throw new Error(`no notable event ${b.name}`);
    return { key: `notable:${n.key}`, title: n.key === 'discard' ? 'a slab is discarded' : `${n.title}`, ...n.search };
  }
  if (b.kind === 'counter') return { key: `counter:${b.name}`, title: `${b.name} increases`, counter: b.name };
  return { key: `fn:${b.name}/${b.label ?? ''}`, title: `${b.name}${b.label ? ' ' + b.label : ''} runs`, fn: b.name, label: b.label || undefined };
}

/**
 * The breakpoints a session whose model counts @counters keeps: all but
 * those on a counter it does not have (a legacy kernel has no barn).
 * @param {Breakpoint[]} bps
 * @param {string[]} counters
 */
export function keepBreakpoints(bps, counters) {
  const has = new Set(counters);
  return bps.filter((b) => !b.counter || has.has(b.counter));
}

/** Does event @e hit breakpoint @b? */
export function hits(b, e) {
  if (!e) return false;
  if (b.counter) return (e.stats?.[b.counter] ?? 0) > 0;
  return e.fn === b.fn && (!b.label || e.label === b.label);
}

/**
 * Positions just after an operation boundary, from a run of events.
 * @param {Map<number, Event>} events by seq
 * @param {number} at the position
 * @param {number} end the number of events
 * @param {1|-1} dir
 * @returns {number|null} null when the events needed are not loaded
 */
export function opBoundary(events, at, end, dir) {
  const isBoundary = (q) => {
    if (q <= 0 || q >= end) return true;
    const a = events.get(q - 1), b = events.get(q);
    if (!a || !b) return null;
    return a.op !== b.op;
  };
  for (let q = at + dir; dir > 0 ? q <= end : q >= 0; q += dir) {
    const r = isBoundary(q);
    if (r === null) return null;
    if (r) return q;
  }
  return dir > 0 ? end : 0;
}

/** Marker positions of notable events, from events. */
export function markersFromEvents(events) {
  const out = [];
  for (const e of events) {
    for (const n of NOTABLE) {
      const s = n.search;
      const hit = s.counter ? (e.stats?.[s.counter] ?? 0) > 0 : e.fn === s.fn;
      if (hit) out.push({ at: e.seq + 1, kind: n.key, title: n.title, glyph: n.glyph });
    }
  }
  return out;
}

/** Marker positions from counter series {positions, series}: where a counter rose. */
export function markersFromSeries(sr) {
  const out = [];
  for (const n of NOTABLE) {
    const s = n.counter && sr.series[n.counter];
    if (!s) continue;
    for (let i = 1; i < s.length; i++) if (s[i] > s[i - 1]) out.push({ at: sr.positions[i], kind: n.key, title: n.title, glyph: n.glyph, approx: sr.interval > 1 });
  }
  return out.sort((a, b) => a.at - b.at);
}

export function createPlayer() {
  const subs = new Set();
  const m = {
    session: null, // {id, token, info}
    end: 0, ops: 0, at: 0,
    cur: /** @type {StateResponse|null} */ (null),
    prev: /** @type {StateResponse|null} */ (null),
    step: 0, // bumps on each position change: views animate when it is +1/-1 of the previous
    dir: 0,
    cacheId: 0,
    followCache: true, // the picture draws the cache of the current event, until a cache is chosen
    events: /** @type {Map<number, Event>} */ (new Map()),
    allEvents: false,
    markers: /** @type {any[]} */ ([]),
    series: null,
    chartCounters: DEFAULT_CHART.slice(0, 4),
    playing: false, speed: 4, by: /** @type {'event'|'op'} */ ('event'),
    // what playing reaches (playedSpeed()): the steps per second measured
    // while playing (null: not yet), and the fastest speed offered, lowered
    // to what is reached whenever a faster one is not
    playRate: /** @type {number|null} */ (null), speedLimit: SPEEDS[SPEEDS.length - 1],
    breakpoints: /** @type {Breakpoint[]} */ ([]),
    hitBreakpoint: /** @type {Breakpoint|null} */ (null),
    selection: null,
    bytes: null,
    following: /** @type {string|null} */ (null),
    lecture: /** @type {string|null} */ (null), // the lecture followed: its session may change
    lectureView: /** @type {{ breakpoints?: string[], theme?: string }|null} */ (null), // its presenter's breakpoints and theme
    busy: false,
    error: /** @type {string|null} */ (null),
    notice: /** @type {string|null} */ (null),
    // predict mode (docs/lessons.md): stepping forward stops before each
    // event that carries a branch record and asks about it
    predict: false,
    question: /** @type {number|null} */ (null), // the position a question is open at
    passing: /** @type {number|null} */ (null), // the question's position while a step reveals it
    version: 0,
  };
  /** Positions whose question was answered or passed in this session: stepping goes on through them. */
  let passed = new Set();
  /** Positions a lesson asked about (player.ask): stepping forward to one not yet passed asks again. */
  let asked = new Set();
  /** @type {Map<string, Promise<StateResponse>>} */
  const cache = new Map();
  let playTimer = 0, publishTimer = 0, seekToken = 0;
  /** @type {number|null} */
  let pending = null; // the position a seek in flight goes to: keys pressed meanwhile step from it
  /** @type {EventSource|null} */
  let follow = null;

  const emit = () => { m.version++; for (const f of subs) f(m); };
  const fail = (err) => { m.error = err instanceof ApiError || err instanceof Error ? err.message : String(err); m.busy = false; emit(); };

  function fetchState(at, id = m.session.id) {
    const key = `${id}@${at}`;
    let p = cache.get(key);
    if (p) { cache.delete(key); cache.set(key, p); return p; }
    p = api.state(id, { at });
    p.catch(() => cache.delete(key));
    return keepState(key, p);
  }
  /** Keep state @p (a promise) as @key's, the least recently used going past CACHE_MAX. */
  function keepState(key, p) {
    cache.delete(key);
    cache.set(key, p);
    while (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value);
    return p;
  }

  // A big state comes paged (state.paged): its slabs, sheaves and queued
  // kfree_rcu objects arrive one cache at a time.  The views draw one cache,
  // so the chosen cache's page is merged into the state they get.
  /** @type {Map<string, Promise<any>>} */
  const pages = new Map();
  function fetchPage(id, at, cacheId) {
    const key = `${id}@${at}#${cacheId}`;
    let p = pages.get(key);
    if (p) { pages.delete(key); pages.set(key, p); return p; }
    p = api.stateObjects(id, { at, cache: cacheId, count: PAGE_SLABS });
    p.catch(() => pages.delete(key));
    pages.set(key, p);
    while (pages.size > PAGES_MAX) pages.delete(pages.keys().next().value);
    return p;
  }
  /** @param {StateResponse} r */
  async function withPage(r, id, cacheId) {
    if (!r.state.paged || !r.state.caches.some((c) => c.id === cacheId)) return r;
    const pg = await fetchPage(id, r.at, cacheId);
    const page = { cache: cacheId, slabs: pg.slabs.length, slabs_total: pg.slabs_total };
    return { ...r, state: { ...r.state, slabs: pg.slabs, sheaves: pg.sheaves, rcu_pending: pg.rcu_pending, page } };
  }

  let eventsLoading = /** @type {{ key: string, p: Promise<void> }|null} */ (null);
  function loadEvents(around) {
    const key = `${m.session.id}/${m.end}/${m.end <= ALL_EVENTS_MAX ? 'all' : Math.floor(around / WINDOW)}`;
    if (eventsLoading?.key === key) return eventsLoading.p;
    const p = loadEventsNow(around).finally(() => { if (eventsLoading?.p === p) eventsLoading = null; });
    eventsLoading = { key, p };
    return p;
  }

  async function loadEventsNow(around) {
    const id = m.session.id;
    if (m.end <= ALL_EVENTS_MAX) {
      if (m.allEvents && m.events.size === m.end) return;
      const evs = new Map();
      for (let from = 0; from < m.end; from += 1000) {
        const r = await api.events(id, from, Math.min(m.end, from + 1000));
        for (const e of r.events) evs.set(e.seq, e);
      }
      if (m.session?.id !== id) return;
      m.events = evs;
      m.allEvents = true;
      m.markers = markersFromEvents([...evs.values()]);
      return;
    }
    const from = Math.max(0, around - WINDOW), to = Math.min(m.end, around + WINDOW);
    const have = m.events.has(from) && m.events.has(Math.max(from, to - 1));
    if (have) return;
    const evs = new Map();
    for (let f = from; f < to; f += 1000) {
      const r = await api.events(id, f, Math.min(to, f + 1000));
      for (const e of r.events) evs.set(e.seq, e);
    }
    if (m.session?.id === id) { m.events = evs; m.allEvents = false; }
  }

  async function loadSeries() {
    const id = m.session.id;
    const names = [...new Set([...m.chartCounters, ...NOTABLE.map((n) => n.counter).filter(Boolean)])];
    const r = await api.series(id, names, 0, m.end, Math.min(m.end + 1, 1000));
    if (m.session?.id !== id) return;
    m.series = r;
    if (!m.allEvents) m.markers = markersFromSeries(r);
  }

  // The presenter's position goes to the server one move at a time, the
  // latest one last: while playing, each as soon as the last is answered
  // (the followers hear every step the server has time for), stepping by
  // hand at most once per PUBLISH_MS.  A throttle, not a debounce, so that
  // followers move while the presenter plays at any speed.
  let published = /** @type {{ id: string, at: number }|null} */ (null), publishing = false;
  function publish() {
    if (!m.session?.token || m.following) return;
    if (publishing || publishTimer) return;
    const { id, token } = m.session;
    const at = m.at;
    if (published?.id === id && published.at === at) return;
    publishing = true;
    published = { id, at };
    api.step(id, token, { to: at, state: false }).catch(() => {}).finally(() => {
      publishing = false;
      if (m.playing) publish();
      else publishTimer = setTimeout(() => { publishTimer = 0; publish(); }, PUBLISH_MS);
    });
  }

  /**
   * Go to position @at.  Resolves once the state is shown.
   * @param {number} at
   * @param {{ publish?: boolean }} [o]
   */
  async function seek(at, o = {}) {
    if (!m.session) return;
    at = Math.max(0, Math.min(m.end, Math.round(at)));
    const mine = ++seekToken;
    pending = at;
    try {
      const full = await fetchState(at);
      if (mine !== seekToken) return;
      const has = (id) => id != null && id >= 0 && full.state.caches.some((c) => c.id === id);
      // the cache of the event that led here (a barn_put_fail breakpoint on buffer_head draws buffer_head)
      if (m.followCache && has(full.event?.cache)) m.cacheId = full.event.cache;
      const cacheId = has(m.cacheId) || !full.state.caches.length ? m.cacheId : full.state.caches[0].id;
      const r = await withPage(full, m.session.id, cacheId);
      if (mine !== seekToken) return;
      pending = null;
      learnSlabNames(r.state);
      m.prev = m.cur;
      m.dir = m.cur ? Math.sign(r.at - m.cur.at) * (Math.abs(r.at - m.cur.at) === 1 ? 1 : 2) : 0;
      m.cur = r;
      m.at = r.at;
      if (m.question !== null && m.question !== m.at) m.question = null;
      if (m.passing !== null && m.passing !== m.at) m.passing = null;
      m.step++;
      m.error = null;
      if (m.bytes && m.bytes.at !== at) m.bytes = null;
      if (!m.cur.state.caches.some((c) => c.id === m.cacheId) && m.cur.state.caches.length) m.cacheId = m.cur.state.caches[0].id;
      if (o.publish !== false) publish();
      emit();
      if (!m.allEvents && (!m.events.has(at) || !m.events.has(Math.max(0, at - 1)))) loadEvents(at).then(emit, fail);
    } catch (err) {
      if (mine === seekToken) { pending = null; fail(err); }
    }
  }

  function stopPlay() {
    clearTimeout(playTimer);
    playTimer = 0;
    if (m.playing) { m.playing = false; emit(); }
  }

  async function stepBy(dir, by = m.by) {
    if (!m.session) return;
    const from = pending ?? m.at;
    // stepping on from an open question passes it (the presenter reveals by stepping)
    if (dir > 0 && m.question !== null && m.question === from) { passed.add(from); m.question = null; m.passing = from; }
    if (by === 'event') return forward(from, from + dir);
    const local = opBoundary(m.events, from, m.end, dir);
    if (local !== null) return forward(from, local);
    try {
      const r = await api.state(m.session.id, { at: from, by: 'op', dir: dir > 0 ? 'next' : 'prev' });
      cache.set(`${m.session.id}@${r.at}`, Promise.resolve(r));
      return forward(from, r.at);
    } catch (err) { fail(err); }
  }

  /**
   * Go from @from to @to; forward in predict mode, stop instead before
   * the first event between them that carries a branch record, and ask.
   */
  function forward(from, to) {
    if (!m.following && to > from) {
      const p = m.predict ? branchAhead(m.events, from, to, passed, texts().questions) : null;
      // a question a lesson asked and left unanswered: open again when the student comes back to it
      const held = [...asked].filter((x) => x >= from && x <= to && !passed.has(x)).sort((a, b) => a - b)[0] ?? null;
      const q = p === null ? held : held === null ? p : Math.min(p, held);
      if (q !== null) return q === m.at ? ask(q) : seek(q).then(() => { if (m.at === q) ask(q); });
    }
    return seek(to);
  }

  /** Open the question about event seq @at (at position @at); stops playing. */
  function ask(at) {
    m.question = at;
    clearTimeout(playTimer);
    playTimer = 0;
    m.playing = false;
    emit();
  }

  /** A follower in predict mode asks when the presenter's position reaches an event with a branch record. */
  function askHere() {
    if (m.predict && m.question === null && !passed.has(m.at) && predictStops(m.events.get(m.at), texts().questions)) ask(m.at);
  }

  function interval() { return 1000 / m.speed; }

  /** @type {number[]} */ let playTimes = []; // when each step was shown, playing at m.speed
  function restartRate() { playTimes = []; m.playRate = null; }
  /** A step was shown while playing: measure the speed, and offer no more than is reached. */
  function measureRate() {
    const now = Date.now();
    playTimes.push(now);
    while (playTimes.length > 1 && now - playTimes[1] > RATE_WINDOW_MS) playTimes.shift();
    const { rate, limit } = playedSpeed(playTimes, m.speed, now);
    m.playRate = rate;
    if (limit !== null) {
      m.speedLimit = limit;
      m.speed = limit;
      restartRate();
    }
  }

  function tick() {
    if (!m.playing) return;
    if (m.at >= m.end) { stopPlay(); return; }
    const t0 = Date.now();
    // prefetch a few states ahead
    for (let k = 1; k <= 4 && m.at + k <= m.end; k++) fetchState(m.at + k);
    stepBy(1).then(() => {
      if (m.question !== null) { stopPlay(); return; }
      const b = m.breakpoints.find((bp) => hits(bp, m.cur?.event));
      if (b) {
        m.hitBreakpoint = b;
        m.notice = `Stopped at a breakpoint: ${b.title} (step ${m.at}).`;
        stopPlay();
        emit();
        return;
      }
      if (!m.playing) return;
      measureRate();
      playTimer = setTimeout(tick, Math.max(0, interval() - (Date.now() - t0)));
    });
  }

  /** Follow the stream at @url (a session's or a lecture's). */
  function attachFollow(url) {
    detachFollow();
    if (!globalThis.EventSource) return;
    follow = new EventSource(url);
    follow.addEventListener('position', (ev) => {
      try {
        wanted = JSON.parse(/** @type {MessageEvent} */ (ev).data);
      } catch (err) { fail(err); return; }
      // the state there, when the presenter's page had rendered it: shown without a fetch
      if (wanted?.state && wanted.session) {
        keepState(`${wanted.session}@${wanted.at}`, Promise.resolve(wanted.state));
        delete wanted.state;
      }
      // the presenter changed the view (breakpoints, theme): read it once
      const lec = m.lecture;
      if (lec && typeof wanted?.view === 'number' && wanted.view !== viewRev) {
        viewRev = wanted.view;
        api.lecture(lec).then((l) => { if (m.lecture === lec) { m.lectureView = l.view ?? null; emit(); } }, () => {});
      }
      catchUp();
    });
  }

  // A follower shows the latest position announced: one fetch at a time,
  // skipping the positions announced while it was busy, so that it never
  // queues states it has no time to show.
  /** @type {{ session: string, at: number, events: number, ops: number, state?: any }|null} */
  let wanted = null, catching = false, viewRev = 0;
  async function catchUp() {
    if (catching) return;
    catching = true;
    try {
      while (wanted && m.following) {
        const d = wanted;
        if (m.lecture && d.session && d.session !== m.session?.id) {
          // the presenter switched scenario: the lecture shows a new session
          await load({ id: d.session, follow: true, at: d.at });
          if (wanted === d) wanted = null;
          continue;
        }
        if (!d.session && m.lecture) { wanted = null; continue; } // no session yet
        if (d.events !== m.end || d.ops !== m.ops) {
          m.end = d.events; m.ops = d.ops;
          m.allEvents = false;
          loadEvents(d.at).then(emit, () => {});
          loadSeries().then(emit, () => {});
        }
        if (d.at !== m.at) await seek(d.at, { publish: false });
        askHere();
        if (wanted === d) wanted = null;
      }
    } catch (err) { fail(err); }
    catching = false;
  }

  function detachFollow() {
    if (follow) follow.close();
    follow = null;
    wanted = null;
  }

  /**
   * Load session @o.id and show it at @o.at, keeping the follow stream and
   * the breakpoints (those the session's model counts).
   * @param {{ id: string, token?: string|null, at?: number, cache?: number, follow?: boolean }} o
   */
  async function load(o) {
    m.busy = true; m.error = null; m.notice = null;
    emit();
    // The description and the first state in parallel: the first picture waits for nothing else.
    const guess = o.follow && o.at == null ? null : (o.at ?? 0);
    const [info] = await Promise.all([api.session(o.id), guess != null ? fetchState(guess, o.id).catch(() => null) : null]);
    m.session = { id: o.id, token: o.token ?? null, info };
    const counters = modelCounters(info);
    m.chartCounters = chartCountersFor(m.chartCounters, counters);
    m.breakpoints = keepBreakpoints(m.breakpoints, counters);
    m.end = info.events; m.ops = info.ops;
    m.events = new Map(); m.allEvents = false; m.markers = []; m.series = null;
    m.cur = null; m.prev = null; m.selection = null; m.bytes = null; m.hitBreakpoint = null;
    m.question = null; m.passing = null; passed = new Set(); asked = new Set();
    m.following = o.follow ? o.id : null;
    if (o.cache != null) m.cacheId = o.cache;
    const at = o.at ?? (o.follow ? info.position : 0);
    const evs = loadEvents(at);
    await seek(at, { publish: false });
    m.busy = false;
    emit();
    await evs;
    if (m.following) askHere();
    emit();
    loadSeries().then(emit, fail);
  }

  const player = {
    get: () => m,
    subscribe(fn) { subs.add(fn); return () => subs.delete(fn); },
    emit,

    /**
     * Show session @id (with its write token when we have one) at @at.
     * @param {{ id: string, token?: string|null, at?: number, cache?: number, follow?: boolean }} o
     */
    async open(o) {
      stopPlay();
      detachFollow();
      m.lecture = null;
      try {
        await load({ ...o, at: o.follow ? undefined : o.at });
        if (o.follow) attachFollow(api.followUrl(o.id));
      } catch (err) { fail(err); throw err; }
    },

    /**
     * Follow lecture @id: the session it shows now, then whichever session
     * the presenter switches to.
     * @param {string} id
     */
    async followLecture(id) {
      stopPlay();
      detachFollow();
      try {
        const l = await api.lecture(id);
        m.lecture = id;
        m.lectureView = l.view ?? null;
        if (l.session) await load({ id: l.session, follow: true, at: l.position });
        else { m.following = id; emit(); }
        attachFollow(api.lectureFollowUrl(id));
      } catch (err) { fail(err); throw err; }
    },

    /** Start a session of a shipped scenario name or a scenario object. */
    async create(scenario, settings = {}) {
      const r = await api.createSession({ scenario, ...settings });
      await player.open({ id: r.id, token: r.token, at: 0 });
      return r;
    },

    seek,
    step: stepBy,
    home: () => seek(0),
    endPos: () => seek(m.end),
    play() {
      if (!m.session || m.playing) return;
      if (m.at >= m.end) return;
      m.playing = true; m.hitBreakpoint = null; m.notice = null;
      restartRate();
      emit();
      tick();
    },
    pause: stopPlay,
    toggle() { m.playing ? stopPlay() : player.play(); },
    setSpeed(s) {
      const speed = Math.max(SPEEDS[0], Math.min(m.speedLimit, s));
      if (speed !== m.speed) { m.speed = speed; restartRate(); }
      emit();
    },
    faster() { const i = SPEEDS.findIndex((s) => s >= m.speed); player.setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, i + 1)]); },
    slower() { const i = SPEEDS.findIndex((s) => s >= m.speed); player.setSpeed(SPEEDS[Math.max(0, i - 1)]); },
    setBy(by) { m.by = by; emit(); },
    interval,
    /** Follow the current event's cache (@on), or keep the one chosen. */
    followEventCache(on) {
      m.followCache = on;
      const c = m.cur?.event?.cache;
      if (on && c != null && c >= 0 && c !== m.cacheId && m.cur?.state.caches.some((x) => x.id === c)) player.setCache(c, { follow: true });
      else emit();
    },
    /** Draw cache @id; a cache chosen by hand stops following the events' (o.follow keeps it). */
    setCache(id, o = {}) {
      if (!o.follow) m.followCache = false;
      m.cacheId = id; m.selection = null; m.bytes = null; emit();
      const cur = m.cur, sid = m.session?.id;
      if (cur?.state.paged && cur.state.page?.cache !== id) {
        withPage(cur, sid, id).then((r) => {
          if (m.cur === cur && m.cacheId === id && m.session?.id === sid) { m.cur = r; emit(); }
        }, fail);
      }
    },
    select(sel) {
      m.selection = sel;
      emit();
      if (sel && (sel.kind === 'object' || sel.kind === 'slab') && sel.slab) player.loadBytes(sel.slab);
    },
    async loadBytes(slab) {
      const at = m.at, id = m.session.id;
      try {
        const r = await api.state(id, { at, bytes: slab });
        if (m.session.id === id && m.at === at) { m.bytes = { at, slab, ...r.slab }; emit(); }
      } catch (err) { fail(err); }
    },
    setChartCounters(names) {
      m.chartCounters = names;
      loadSeries().then(emit, fail);
    },
    /** Go to the next (@dir 1) or previous (-1) notable event's marker, if any. */
    toMarker(dir) {
      const list = m.markers.filter((x) => (dir > 0 ? x.at > m.at : x.at < m.at));
      const t = dir > 0 ? list[0] : list[list.length - 1];
      if (t) return seek(t.at);
      return undefined;
    },
    addBreakpoint(b) { if (!m.breakpoints.some((x) => x.key === b.key)) m.breakpoints = [...m.breakpoints, b]; emit(); },
    removeBreakpoint(key) { m.breakpoints = m.breakpoints.filter((b) => b.key !== key); emit(); },
    /** Jump to the next event (after the position) that hits a breakpoint; false when none. */
    async runToBreakpoint() {
      if (!m.session) return false;
      if (!m.breakpoints.length) { m.notice = 'No breakpoint is set: add one under Breakpoints, then b runs to it.'; emit(); return false; }
      stopPlay();
      const found = [];
      for (const b of m.breakpoints) {
        const p = { fn: b.fn, label: b.label, counter: b.counter, from: m.at };
        const r = await api.search(m.session.id, p);
        if (r.found) found.push({ at: r.at, b });
      }
      if (!found.length) { m.notice = 'No breakpoint is hit after this step.'; emit(); return false; }
      found.sort((a, b) => a.at - b.at);
      if (m.predict && !m.following) {
        const q = branchAhead(m.events, m.at, found[0].at, passed, texts().questions);
        if (q !== null) { await seek(q); if (m.at === q) ask(q); return true; }
      }
      m.hitBreakpoint = found[0].b;
      m.notice = `Stopped at a breakpoint: ${found[0].b.title} (step ${found[0].at}).`;
      await seek(found[0].at);
      return true;
    },
    /** Events of the same operation as the event at seq @seq, when loaded. */
    opEvents(seq) {
      const e = m.events.get(seq);
      if (!e) return [];
      const out = [];
      for (let s = seq; m.events.get(s)?.op === e.op; s--) out.unshift(m.events.get(s));
      for (let s = seq + 1; m.events.get(s)?.op === e.op; s++) out.push(m.events.get(s));
      return out;
    },
    /** Loaded events that moved @id (object, slab or sheaf), newest last. */
    history(id) {
      const out = [];
      for (const e of m.events.values()) if (e.moves.some((mv) => String(mv.id) === String(id))) out.push(e);
      return out.sort((a, b) => a.seq - b.seq);
    },
    /**
     * Apply operations at the position: at the end they extend the session; earlier, the
     * server forks a new one.  Then play the new events.
     * @param {any[]} ops
     */
    async apply(ops) {
      if (!m.session) return null;
      stopPlay();
      let { id, token } = m.session;
      const at = m.at;
      let r;
      if (!token) {
        const f = await api.fork(id, at);
        id = f.id; token = f.token;
        r = await api.ops(id, token, { ops });
      } else {
        r = await api.ops(id, token, at < m.end ? { ops, at } : { ops });
      }
      const newId = r.id || id;
      const newToken = r.token || token;
      const forked = newId !== m.session.id;
      await player.open({ id: newId, token: newToken, at: r.from, cache: m.cacheId });
      m.notice = forked ? `Forked a new session at step ${at}; the new operations follow.` : null;
      if (r.new_warnings?.length) m.notice = `${m.notice ?? ''} ${r.new_warnings.map((w) => w.message).join(' ')}`.trim();
      emit();
      player.play();
      return { id: newId, token: newToken, forked, from: r.from, events: r.events };
    },
    /** Fork at the position and switch to the new session (stops following). */
    async fork() {
      const f = await api.fork(m.session.id, m.at);
      await player.open({ id: f.id, token: f.token, at: f.position, cache: m.cacheId });
      return f;
    },
    /** Predict mode on or off (docs/lessons.md). */
    setPredict(on) {
      m.predict = !!on;
      if (!on && m.question !== null) m.question = null;
      if (on && m.following) askHere();
      emit();
    },
    togglePredict() { player.setPredict(!m.predict); },
    /** Open the question at position @at (a lesson's ask slide), predict mode or not. */
    ask(at) { if (m.session && at === m.at) { asked.add(at); ask(at); } },
    /** Leave the open question: as answered (@reveal: step on to show its event) or not. */
    reveal(step = true) {
      const q = m.question;
      if (q === null) return Promise.resolve();
      passed.add(q);
      m.question = null;
      if (step && !m.following) m.passing = q;
      emit();
      return step && !m.following ? seek(q + 1) : Promise.resolve();
    },
    stopFollowing() { detachFollow(); m.following = null; m.lecture = null; emit(); },
    dismiss() { m.error = null; m.notice = null; emit(); },
    /** Show @err (an Error or a message) in the banner, as when an action of the player fails. */
    showError(err) { fail(err); },
  };
  return player;
}
