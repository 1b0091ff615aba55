// An offline copy of one session: the loader of the single HTML file that
// GET /api/sessions/ID/export.html writes (docs/export.md).  A classic
// script, not a module: it runs from file:// with no server.
//
// The file holds two JSON documents: #slublab-files (the UI's ES modules
// and Chart.js, as text) and #slublab-data (the session as the API served
// it: its description, every event, the state at every position, names,
// log).  The loader
//   1. answers the UI's API requests from the data (a fetch() in front of
//      the real one): the same JSON the server would send, so the UI runs
//      unchanged; requests that would change the session get a 403;
//   2. loads Chart.js and the modules from blob: URLs, with an import map
//      so that their imports (static and dynamic) find each other;
//   3. starts js/main.js on the session at the exported position.
// Everything here only selects and sums what the data holds: series are
// sums of the events' counter deltas, searches match the events' fields.
(function () {
  'use strict';
  const files = JSON.parse(document.getElementById('slublab-files').textContent);
  const data = JSON.parse(document.getElementById('slublab-data').textContent);
  const id = data.info.id;
  const end = data.events.length;

  // ---- the API, from the data
  const json = (status, body) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  const error = (status, code, message) => json(status, { error: { code, message } });
  const num = (v, dflt) => (v === null || v === '' || !/^\d+$/.test(v) ? dflt : Number(v));

  /** Counter totals (every cache and CPU) after each position, from the events' deltas. */
  let totals = null;
  function total(counter, at) {
    if (!totals) totals = new Map();
    let t = totals.get(counter);
    if (!t) {
      t = new Float64Array(end + 1);
      for (let i = 0; i < end; i++) t[i + 1] = t[i] + (data.events[i].stats?.[counter] ?? 0);
      totals.set(counter, t);
    }
    return t[at];
  }

  function matches(e, q) {
    if (q.fn && e.fn !== q.fn) return false;
    if (q.label && e.label !== q.label) return false;
    if (q.counter && !(e.stats && q.counter in e.stats)) return false;
    if (q.object && !(e.moves ?? []).some((m) => m.id === q.object)) return false;
    return true;
  }

  /** The next or previous operation boundary from @at (the server's step by=op). */
  const isBoundary = (p) => p <= 0 || p >= end || data.events[p - 1].op !== data.events[p].op;
  function opStep(at, dir) {
    let p = at;
    if (dir === 'next') {
      do p++; while (p < end && !isBoundary(p));
      return Math.min(p, end);
    }
    do p--; while (p > 0 && !isBoundary(p));
    return Math.max(p, 0);
  }

  function answer(method, url) {
    const u = new URL(url, 'http://offline.invalid/');
    const q = (k) => u.searchParams.get(k);
    const path = u.pathname;
    if (path.endsWith('/data/texts.json')) return json(200, data.texts);
    if (path.endsWith('/data/source-lines.json') && data.sourceLines) return json(200, data.sourceLines);
    if (method !== 'GET') return error(403, 'forbidden', 'This is an offline copy of a session: it cannot be changed.');
    if (path === '/api/health') return json(200, data.health);
    if (path === '/api/scenarios') return json(200, data.scenarios);
    // no course offline: predict mode asks from the embedded events alone
    if (path === '/api/lessons') return json(200, { lessons: [] });
    if (path === '/api/exercises') return json(200, { exercises: [] });
    if (path.startsWith('/api/scenarios/')) return json(200, data.scenario);
    const base = `/api/sessions/${id}`;
    if (path === base) return json(200, { ...data.info, position: data.at });
    if (path === `${base}/ops`) return json(200, data.log);
    if (path === `${base}/names`) return json(200, data.names);
    if (path === `${base}/state`) {
      if (q('bytes')) return error(404, 'not_found', 'An offline copy holds no slab bytes.');
      let at = num(q('at'), data.at);
      if (q('by') === 'op') at = opStep(at, q('dir') === 'prev' ? 'prev' : 'next');
      else if (q('by') === 'event') at = Math.max(0, Math.min(end, at + (q('dir') === 'prev' ? -1 : 1) * num(q('count'), 1)));
      if (at > end) return error(400, 'bad_request', `at: ${at} is beyond the end (${end} events)`);
      return json(200, data.states[at]);
    }
    if (path === `${base}/events`) {
      const from = Math.min(end, num(q('from'), 0)), to = Math.min(end, Math.max(from, num(q('to'), from)));
      return json(200, { from, to, events: data.events.slice(from, to) });
    }
    if (path === `${base}/series`) {
      const counters = (q('counters') ?? '').split(',').filter(Boolean);
      const from = Math.min(end, num(q('from'), 0)), to = Math.min(end, Math.max(from, num(q('to'), end)));
      const points = Math.max(2, Math.min(2000, num(q('points'), 200), to - from + 1));
      const positions = [];
      for (let i = 0; i < points; i++) {
        const p = from + Math.floor((i * (to - from)) / (points - 1));
        if (!positions.length || positions[positions.length - 1] !== p) positions.push(p);
      }
      const series = {};
      for (const c of counters) series[c] = positions.map((p) => total(c, p));
      return json(200, { from, to, source: 'offline', interval: 1, positions, series });
    }
    if (path === `${base}/search`) {
      const crit = { fn: q('fn'), label: q('label'), counter: q('counter'), object: q('object') };
      const from = num(q('from'), data.at);
      let hit = null;
      if (q('dir') === 'prev') {
        for (let s = Math.min(end, from - 1) - 1; s >= 0 && !hit; s--) if (matches(data.events[s], crit)) hit = data.events[s];
      } else {
        for (let s = from; s < end && !hit; s++) if (matches(data.events[s], crit)) hit = data.events[s];
      }
      return json(200, hit ? { found: true, at: hit.seq + 1, event: hit }
        : { found: false, at: null, event: null, scanned_to: q('dir') === 'prev' ? 0 : end, complete: true });
    }
    return error(404, 'not_found', `An offline copy does not answer ${path}.`);
  }

  const realFetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input.url;
    if (/^(blob|data):/.test(url)) return realFetch(input, init);
    return answer((init?.method ?? 'GET').toUpperCase(), url);
  };
  // no live presenter to follow
  window.EventSource = undefined;
  // the UI keeps the step in the URL; a file:// page may not change its URL
  const replaceState = history.replaceState.bind(history);
  history.replaceState = (state, title, url) => {
    try { replaceState(state, title, url); } catch { /* keep the file's URL */ }
  };
  window.__slublabOffline = { query: `?session=${encodeURIComponent(id)}&at=${data.at}` };

  // ---- the code: Chart.js, then the modules behind an import map
  const blob = (text) => URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
  const chart = document.createElement('script');
  chart.src = blob(files['vendor/chart.umd.js']);
  document.head.append(chart);
  const imports = {};
  for (const [p, src] of Object.entries(files)) {
    if (!p.startsWith('js/')) continue;
    const dir = p.slice(0, p.lastIndexOf('/') + 1);
    // Relative module paths become "slublab/<path>", which the import map
    // resolves: every quoted "./x.js" or "../x.js", so that paths handed to
    // import() in a variable (main.js's lazy views) are found too.
    const out = src.replace(/(['"])(\.{1,2}\/[\w./-]+\.js)\1/g,
      (all, quote, rel) => `${quote}slublab/${new URL(rel, `http://x/${dir}`).pathname.slice(1)}${quote}`);
    imports[`slublab/${p}`] = blob(out);
  }
  const map = document.createElement('script');
  map.type = 'importmap';
  map.textContent = JSON.stringify({ imports });
  document.head.append(map);
  const main = document.createElement('script');
  main.type = 'module';
  main.textContent = "import 'slublab/js/main.js';";
  document.head.append(main);
})();
