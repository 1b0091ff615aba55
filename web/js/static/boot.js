// The static lab's first script (docs/teaching.md): the UI as the server
// ships it, with no server behind it.  A classic script that index.html
// runs before the UI's modules: it starts the Worker that runs the
// server's routes in WebAssembly (worker.js) and puts a fetch() in front of
// the page's, which answers the UI's /api/ requests from the Worker with
// the server's JSON and status codes; every other request goes out as
// before.  What needs a server (following a lecture, the class tally;
// for now trace replay and the offline HTML copy) is answered 501
// `needs_server`, with how to start one.
(function () {
  'use strict';
  const here = new URL('.', document.currentScript.src); // static/
  const base = new URL('..', here).pathname; // the folder the lab is served from
  const worker = new Worker(new URL('worker.js', here), { type: 'module' });
  const waiting = new Map();
  let next = 1;
  worker.onmessage = (e) => {
    const w = waiting.get(e.data.id);
    waiting.delete(e.data.id);
    if (w) w(e.data);
  };
  const ask = (msg) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    worker.postMessage({ id, ...msg });
  });

  const SERVER = 'Start one with ./scripts/run serve in a slublab checkout (or slublab serve), ' +
    'then open the address it prints; docs/teaching.md says when a class needs it.';
  const NEEDS_SERVER = [
    [/^\/api\/lectures(\/|$)/, 'Lectures (following a presenter, the class tally) need a slublab server that the whole class reaches; this lab runs in your browser alone.'],
    [/^\/api\/sessions\/[^/]+\/follow$/, 'Following a session needs a slublab server; this lab runs in your browser alone.'],
    [/^\/api\/traces(\/|$)/, 'Replaying a kernel trace needs a slublab server for now; this lab runs in your browser alone.'],
    [/^\/api\/sessions\/[^/]+\/export\.html$/, 'The offline HTML copy is written by a slublab server for now; this lab runs in your browser alone.'],
  ];
  const realFetch = window.fetch.bind(window);
  /** The API path of @url ("/api/..."), or null when it is not the lab's API. */
  function apiPath(url) {
    if (url.origin !== location.origin) return null;
    for (const prefix of ['/', base]) {
      if (url.pathname.startsWith(`${prefix}api/`)) return url.pathname.slice(prefix.length - 1);
    }
    return null;
  }
  window.fetch = async (input, init) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const path = apiPath(url);
    if (path === null) return realFetch(input, init);
    for (const [re, why] of NEEDS_SERVER) {
      if (re.test(path)) {
        const body = JSON.stringify({ error: { code: 'needs_server', message: `${why} ${SERVER}` } });
        return new Response(body, { status: 501, headers: { 'Content-Type': 'application/json' } });
      }
    }
    const headers = {};
    for (const h of ['authorization', 'if-none-match']) {
      const v = req.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : new Uint8Array(await req.arrayBuffer());
    const a = await ask({ method: req.method, target: path + url.search, headers, body });
    const out = new Headers();
    if (a.contentType) out.set('Content-Type', a.contentType);
    if (a.disposition) out.set('Content-Disposition', a.disposition);
    const empty = a.status === 204 || a.status === 304 || req.method === 'HEAD';
    return new Response(empty ? null : a.body, { status: a.status, headers: out });
  };
  // what the UI says instead of a follow link (web/js/views/banner.js)
  window.slublabStatic = {
    followers: `Students cannot follow this page: it runs in your browser alone. ${SERVER}`,
  };
})();
