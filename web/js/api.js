// @ts-check
// Every request to the server, and one place for its errors (docs/api.md).

export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {{ body?: any, token?: string|null, raw?: boolean }} [o]
 */
async function request(method, path, o = {}) {
  // a GET that early.js sent while the modules loaded is taken once
  const early = method === 'GET' && !o.token ? earlyGets()?.[path] : undefined;
  if (early) {
    delete earlyGets()[path];
    const a = await early.catch(() => null);
    if (a) return answerOf(a, o.raw);
  }
  /** @type {Record<string, string>} */
  const headers = {};
  let body;
  if (o.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  }
  if (o.token) headers.Authorization = `Bearer ${o.token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body });
  } catch (err) {
    throw new ApiError(0, 'network', `the server cannot be reached (${err.message})`);
  }
  if (res.status === 204) return null;
  return answer(res.status, await res.text(), o.raw);
}

/** An answer early.js kept, {status, text} or {status, json} (already parsed), as answer() reads it. */
function answerOf(a, raw) {
  return a.json !== undefined && !raw ? answer(a.status, '', false, a.json) : answer(a.status, a.text ?? JSON.stringify(a.json), raw);
}

/** An answer of status @status and body @text (or its JSON @parsed): its JSON (or @raw, its text), or an ApiError. */
function answer(status, text, raw, parsed = undefined) {
  if (status === 204) return null;
  let json = parsed ?? null;
  try {
    if (parsed === undefined) json = text ? JSON.parse(text) : null;
  } catch {
    throw new ApiError(status, 'bad_json', `the server sent something that is not JSON (${status})`);
  }
  if (status < 200 || status > 299) {
    const e = json && json.error;
    throw new ApiError(status, e?.code ?? 'error', e?.message ?? `HTTP ${status}`);
  }
  return raw ? text : json;
}

/**
 * What early.js sent before the modules ran (window.__slublabEarly):
 * {scenario, create, gets}, the POST /api/sessions of a new session of
 * `scenario` and the GETs that follow it (or what the POST's answer
 * carried for them), each a promise of {status, text} or {status, json}.
 * @typedef {{ status: number, text?: string, json?: any }} EarlyAnswer
 * @returns {{ scenario: string, create: Promise<EarlyAnswer>, gets: Record<string, Promise<EarlyAnswer>> }|undefined}
 */
const earlyStart = () => /** @type {any} */ (globalThis).__slublabEarly;
const earlyGets = () => earlyStart()?.gets;

/**
 * A file the server offers as a download (an export, a report, the offline
 * copy): its bytes and the name the server gives it (Content-Disposition),
 * or an ApiError with the server's reason, so that a refusal is shown
 * instead of a download the browser cancels without a word.
 * @param {string} url
 * @returns {Promise<{ blob: Blob, name: string|null }>}
 */
async function fetchFile(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new ApiError(0, 'network', `the server cannot be reached (${err.message})`);
  }
  if (!res.ok) {
    let e = null;
    try { e = JSON.parse(await res.text())?.error ?? null; } catch { /* not JSON: the status says it */ }
    throw new ApiError(res.status, e?.code ?? 'error', e?.message ?? `HTTP ${res.status}`);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? null;
  return { blob: await res.blob(), name };
}

const q = (params) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') s.set(k, String(v));
  const t = s.toString();
  return t ? `?${t}` : '';
};
const S = (id) => `/api/sessions/${encodeURIComponent(id)}`;
/** Scenario objects sent to POST /api/sessions, by the session's id: the race view runs them again with another schedule. */
const sent = new Map();
const L = (id) => `/api/lectures/${encodeURIComponent(id)}`;

export const api = {
  health: () => request('GET', '/api/health'),
  fetchFile,
  /** The UI's words: sentence templates, outlines, counter meanings (web/data/texts.json). */
  texts: () => request('GET', '/data/texts.json'),
  /** Where each kernel function is defined, per release (web/data/source-lines.json). */
  sourceLines: () => request('GET', '/data/source-lines.json'),
  scenarios: () => request('GET', '/api/scenarios'),
  scenario: (name) => request('GET', `/api/scenarios/${encodeURIComponent(name)}`),
  /**
   * The new session of shipped scenario @scenario that early.js asked for,
   * answered as createSession() answers (taken once), or null when it
   * asked for none, or another, or has not run yet (then it will not: the
   * page asks for what it needs itself).  main.js calls it once as it
   * starts, with null when the address names no new session.
   * @param {string|null} scenario
   */
  earlySession(scenario) {
    const e = earlyStart();
    if (!e) /** @type {any} */ (globalThis).__slublabEarly = { scenario: null, create: null, gets: {} };
    if (!e?.create || scenario === null || e.scenario !== scenario) return null;
    const p = e.create;
    e.create = null;
    return p.then((a) => answerOf(a, false),
      (err) => { throw new ApiError(0, 'network', `the server cannot be reached (${err.message})`); });
  },
  /**
   * Resolves once every request early.js sent has been answered (or has
   * failed), or after @ms, whichever comes first; at once when it sent
   * none.  Call it before earlySession(), which takes the POST's.
   * @param {number} ms
   * @returns {Promise<void>}
   */
  earlyAnswers(ms) {
    const e = earlyStart();
    // a session being made: the server builds its run meanwhile, and the
    // views are best built while it does
    if (e?.create) return Promise.resolve();
    const all = Object.values(e?.gets ?? {});
    if (!all.length) return Promise.resolve();
    return Promise.race([Promise.allSettled(all).then(() => {}), new Promise((ok) => { setTimeout(ok, ms); })]);
  },
  /** @param {{ scenario: string|object, seed?: number, kernel?: string, model?: string, variants?: object, ops?: any[] }} body */
  createSession: (body) => request('POST', '/api/sessions', { body }).then((r) => {
    if (r?.id && body?.scenario && typeof body.scenario === 'object') sent.set(r.id, body.scenario);
    return r;
  }),
  /** The scenario object this page made session @id of, or null (a shipped one is asked by name). */
  sentScenario: (id) => sent.get(id) ?? null,
  /** The releases the engine models: {default, kernels: [{name, model, variants}]}. */
  kernels: () => request('GET', '/api/kernels'),
  session: (id) => request('GET', S(id)),
  /** @param {{ at?: number, bytes?: string, by?: string, dir?: string, count?: number }} p */
  state: (id, p) => request('GET', `${S(id)}/state${q(p)}`),
  /** One cache's page of a paged state: @p {at, cache, from, count} (docs/api.md, "Paged states"). */
  stateObjects: (id, p) => request('GET', `${S(id)}/state/objects${q(p)}`),
  events: (id, from, to) => request('GET', `${S(id)}/events${q({ from, to })}`),
  series: (id, counters, from, to, points) => request('GET', `${S(id)}/series${q({ counters: counters.join(','), from, to, points })}`),
  /** The run's counters per bucket, from the summaries the server keeps: @p {from, to, buckets, counters}. */
  overview: (id, p) => request('GET', `${S(id)}/overview${q(p)}`),
  /** The caches of events [from, to) ranked (GET .../caches): allocations, frees, slow paths, barn failures, slabs. */
  caches: (id, p) => request('GET', `${S(id)}/caches${q(p)}`),
  /** @param {{ fn?: string, label?: string, counter?: string, object?: string, from?: number, dir?: string }} p */
  search: (id, p) => request('GET', `${S(id)}/search${q(p)}`),
  log: (id) => request('GET', `${S(id)}/ops`),
  ops: (id, token, body) => request('POST', `${S(id)}/ops`, { body, token }),
  step: (id, token, body) => request('POST', `${S(id)}/step`, { body, token }),
  fork: (id, at) => request('POST', `${S(id)}/fork`, { body: at == null ? {} : { at } }),
  /** The run that takes option @option at the kernel's choice of the step to @at (201; docs/api.md). */
  forkChoice: (id, at, option) => request('POST', `${S(id)}/fork`, { body: { at, option } }),
  names: (id) => request('GET', `${S(id)}/names`),
  /** Where a download of the state at @at is: format slabinfo or sysfs (docs/export.md). */
  exportUrl: (id, format, at) => `${S(id)}/export${q({ format, at })}`,
  followUrl: (id) => `${S(id)}/follow`,
  /** A lecture: the presenter's follow link that outlives sessions (201 with its token). */
  createLecture: (session) => request('POST', '/api/lectures', { body: session ? { session } : {} }),
  lecture: (id) => request('GET', L(id)),
  /** Point lecture @id at session @session (the lecture's token). */
  setLecture: (id, token, session) => request('POST', L(id), { body: { session }, token }),
  lectureFollowUrl: (id) => `${L(id)}/follow`,
  /** The presenter's view of lecture @id for its followers: {breakpoints: [KEY], theme} (the lecture's token). */
  setLectureView: (id, token, view) => request('PUT', `${L(id)}/view`, { body: view, token }),
  /** A follower joins lecture @id: {lecture, token}, the token its answers carry. */
  joinLecture: (id) => request('POST', `${L(id)}/followers`, { body: {} }),
  /** A follower's answer to the question at position @body.at: {at, choice, token} (the follower's token). */
  answerLecture: (id, body) => request('POST', `${L(id)}/answers`, { body }),
  /** The tally of the answers to the question at @at: {at, counts: {ARM: n}, total} (the lecture's token). */
  lectureAnswers: (id, token, at) => request('GET', `${L(id)}/answers${q({ at })}`, { token }),
  /** The course (docs/lessons.md): the lessons' list, one lesson, the exercises' list, one exercise. */
  lessons: () => request('GET', '/api/lessons'),
  lesson: (id) => request('GET', `/api/lessons/${encodeURIComponent(id)}`),
  exercises: () => request('GET', '/api/exercises'),
  exercise: (id) => request('GET', `/api/exercises/${encodeURIComponent(id)}`),
  /** Compare two runs; with open: 1 also keep both as sessions (a POST: it makes them). */
  compare: (p) => request(p.open ? 'POST' : 'GET', `/api/compare${q(p)}`),
  /** Where the comparison report is: format md (Markdown) or svg (its chart). */
  compareUrl: (p, format) => `/api/compare${q({ ...p, format })}`,
  /** Where the Markdown report (format md) or its chart (svg) of the state at @at is. */
  reportUrl: (id, format, at) => `${S(id)}/report.${format}${q({ at })}`,
  /** Where the offline copy of a session is: one HTML file that opens at @at. */
  offlineUrl: (id, at) => `${S(id)}/export.html${q({ at })}`,
  /** @param {{ mask: string, order?: string|number, context?: string, scenario?: string, variant?: string }} p */
  gfp: (p) => request('GET', `/api/gfp${q(p)}`),
  createSnapshot: (body) => request('POST', '/api/snapshots', { body }),
  /** The newest @limit published snapshots (50 when not given; at most 1000). */
  snapshots: (limit) => request('GET', `/api/snapshots${q({ limit })}`),
  /** The newest @limit snapshots that are published or whose token @tokens ({id: token}) holds. */
  snapshotsFor: (tokens, limit) => request('POST', `/api/snapshots/list${q({ limit })}`, { body: { tokens } }),
  /** Publish snapshot @id (its token) or take it back. */
  publishSnapshot: (id, token, published) => request('PUT', `/api/snapshots/${encodeURIComponent(id)}/published`, { body: { published }, token }),
  snapshot: (id) => request('GET', `/api/snapshots/${encodeURIComponent(id)}`),
  exportSnapshot: (id) => request('GET', `/api/snapshots/${encodeURIComponent(id)}/export`, { raw: true }),
  importSnapshot: (text) => request('POST', '/api/snapshots/import?new_id=1', { body: text }),
  openSnapshot: (id) => request('POST', `/api/snapshots/${encodeURIComponent(id)}/open`, { body: {} }),
};

/**
 * Where a scenario error points: "scenario: ops[3].ops[1]: unknown key "cpux""
 * -> { op: 3, path: 'ops[3].ops[1]', key: 'cpux' }.
 * @param {string} message
 */
export function errorWhere(message) {
  const path = /((?:ops|caches|expect)\[\d+\](?:\.ops\[\d+\])*)/.exec(message);
  const key = /key "([^"]+)"/.exec(message);
  const line = /line (\d+), column (\d+)/.exec(message);
  const op = path ? Number(/\[(\d+)\]/.exec(path[1])?.[1]) : null;
  return { path: path ? path[1] : null, op, key: key ? key[1] : null,
    line: line ? Number(line[1]) : null, column: line ? Number(line[2]) : null };
}
