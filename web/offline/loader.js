// An offline copy of one session: the loader of the single HTML file that
// GET /api/sessions/ID/export.html writes (docs/export.md).  A classic
// script, not a module: it runs from file:// with no server.
//
// The file holds two documents: #slublab-files (the UI's code: the bundle
// or the ES modules, and Chart.js, as JSON text) and #slublab-data (the session as the API served
// it: its description, every event, the state at every position, names,
// log), a JSON document gzip-compressed and in base64.  The loader
//   1. inflates the data (DecompressionStream, in the browser itself);
//   2. answers the UI's API requests from it (a fetch() in front of the
//      real one): the same JSON the server would send, so the UI runs
//      unchanged; requests that would change the session get a 403;
//   3. loads Chart.js and the modules from blob: URLs, with an import map
//      so that their imports (static and dynamic) find each other;
//   4. starts the entry (js/main.js, or the bundle's) on the session at the
//      exported position.
// States are stored as the server's json_delta.h operations from the one
// before, every `keyframe`-th (and any the operations would not shorten)
// whole: the state at N is the whole one at or before N with the deltas up
// to N applied, to a working copy kept for the next step.  Everything here
// only selects, applies and sums what the data holds: series are sums of
// the events' counter deltas, searches match the events' fields.
(async function () {
  'use strict';
  const realFetch = window.fetch.bind(window);
  const files = JSON.parse(document.getElementById('slublab-files').textContent);
  const packed = document.getElementById('slublab-data');
  let data;
  if (packed.dataset.encoding === 'gzip+base64') {
    const bytes = await (await realFetch(`data:application/octet-stream;base64,${packed.textContent.trim()}`)).blob();
    data = JSON.parse(await new Response(bytes.stream().pipeThrough(new DecompressionStream('gzip'))).text());
  } else {
    data = JSON.parse(packed.textContent);
  }
  packed.textContent = '';
  const id = data.info.id;
  const end = data.events.length;

  // ---- the states: whole ones (objects) and deltas (arrays of operations)
  const copy = (v) => (v !== null && typeof v === 'object' ? structuredClone(v) : v);
  function applyDelta(doc, ops) {
    for (const op of ops) {
      const path = op[0];
      let o = doc;
      for (let i = 0; i < path.length - 1; i++) o = o[path[i]];
      const last = path[path.length - 1];
      if (op.length === 1) delete o[last];
      else if (op.length === 3) (path.length ? o[last] : o).length = op[2];
      else o[last] = copy(op[1]);
    }
  }
  let work = null, workAt = -1; // a state being stepped through
  function stateAt(at) {
    if (!(work && workAt <= at && !data.states.slice(workAt + 1, at + 1).some((x) => !Array.isArray(x)))) {
      let k = at;
      while (k > 0 && Array.isArray(data.states[k])) k--;
      work = structuredClone(data.states[k]);
      workAt = k;
    }
    for (; workAt < at; workAt++) applyDelta(work, data.states[workAt + 1]);
    // the event that led here is kept once, with the events
    return { at: work.at, event: at > 0 ? data.events[at - 1] : null, state: work.state, names: work.names, ...(work.names_more ? { names_more: work.names_more } : {}), ...(work.same_as ? { same_as: work.same_as } : {}) };
  }

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
      return json(200, stateAt(at));
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
    if (path === `${base}/overview`) {
      // the server's answer, from the events: sums per bucket, and the slab pages after each event
      const from0 = Math.min(end, num(q('from'), 0)), to0 = Math.min(end, Math.max(from0, num(q('to'), end)));
      const want = Math.max(1, Math.min(4096, num(q('buckets'), 1000)));
      const width = Math.max(1, Math.ceil((to0 - from0) / want));
      const from = Math.floor(from0 / width) * width, to = Math.min(end, Math.ceil(to0 / width) * width);
      const n = Math.ceil((to - from) / width);
      const counters = {}, min = [], max = [], mean = [];
      const named = (q('counters') ?? '').split(',').filter(Boolean);
      const pagesAt = (p) => total('engine_pages_in', p) - total('engine_pages_out', p);
      for (let i = 0; i < n; i++) {
        const a = from + i * width, b = Math.min(to, a + width);
        let lo = Infinity, hi = -Infinity, sum = 0;
        for (let p = a + 1; p <= b; p++) {
          const v = pagesAt(p);
          lo = Math.min(lo, v); hi = Math.max(hi, v); sum += v;
        }
        min.push(b > a ? lo : null); max.push(b > a ? hi : null); mean.push(b > a ? sum / (b - a) : null);
        for (let p = a; p < b; p++) {
          for (const [k, v] of Object.entries(data.events[p].stats ?? {})) {
            if (named.length && !named.includes(k)) continue;
            (counters[k] ??= new Array(n).fill(0))[i] += v;
          }
        }
      }
      for (const k of named) counters[k] ??= new Array(n).fill(0);
      return json(200, { from, to, events: end, width, level: 0, merge: 1, buckets: n, source: 'offline', counters, slab_pages: { min, max, mean } });
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
  // The bundle's assets/ (its entry main-HASH.js, its chunks and Chart.js
  // as chart.umd-HASH.js), or the modules of js/ and vendor/chart.umd.js.
  const chartFile = Object.keys(files).find((p) => /^(vendor\/chart\.umd|assets\/chart\.umd-\w+)\.js$/.test(p));
  const entry = Object.keys(files).find((p) => /^(js\/main|assets\/main-\w+)\.js$/.test(p));
  const chart = document.createElement('script');
  chart.src = blob(files[chartFile]);
  document.head.append(chart);
  const imports = {};
  for (const [p, src] of Object.entries(files)) {
    if (p === chartFile || !/^(js|assets)\//.test(p)) continue;
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
  main.textContent = `import 'slublab/${entry}';`;
  document.head.append(main);
})();
