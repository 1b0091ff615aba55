// The static lab's first script (docs/teaching.md): the UI as the server
// ships it, with no server behind it.  A classic script that index.html
// runs before the UI's modules: it starts the Worker that runs the
// server's routes in WebAssembly (worker.js) and puts a fetch() in front of
// the page's, which answers the UI's /api/ requests from the Worker with
// the server's JSON and status codes; every other request goes out as
// before.  What needs a server (following a lecture, the class tally) is
// answered 501 `needs_server`, with how to start one; a session or snapshot made elsewhere, the module's 404 with where it
// lives and the same words.  The offline HTML copy is written by the module as the server
// writes it, from the UI's files in this folder (uiFiles()), sent to the
// Worker with the first such request.  A trace upload, which the UI sends
// with an XMLHttpRequest (views/trace.js) for its progress, goes the same
// way; while the Worker replays it, the job's GET /api/traces/ID is
// answered here from what the Worker said of it last (traces.js).
(function () {
  'use strict';
  const here = new URL('.', document.currentScript.src); // static/
  const base = new URL('..', here).pathname; // the folder the lab is served from
  const worker = new Worker(new URL('worker.js', here), { type: 'module' });
  // The module and the shipped files are fetched from here, the first
  // script of the page, not once the Worker's own modules have loaded:
  // the module compiles while it downloads (where it comes as
  // application/wasm) and goes to the Worker compiled, the files as bytes.
  // Whatever fails here, the Worker fetches it itself.
  const wasm = fetch(new URL('slublab-api.wasm', here)).then((r) => {
    if (!r.ok) throw new Error(`slublab-api.wasm: ${r.status}`);
    return WebAssembly.compileStreaming && (r.headers.get('Content-Type') || '').startsWith('application/wasm')
      ? WebAssembly.compileStreaming(r) : r.arrayBuffer().then((b) => WebAssembly.compile(b));
  }).catch(() => null);
  const shipped = fetch(new URL('files.json', here)).then((r) => (r.ok ? r.arrayBuffer() : null)).catch(() => null);
  Promise.all([wasm, shipped]).then(([module, files]) => {
    worker.postMessage({ start: { module, files } }, files ? [files] : []);
  });
  const waiting = new Map();
  let next = 1;
  /** path of a trace job the Worker is replaying -> its last answer */
  const running = new Map();
  worker.onmessage = (e) => {
    if (e.data.trace) running.set(e.data.trace, e.data.answer);
    if (e.data.traceEnd) running.delete(e.data.traceEnd);
    if (e.data.running) running.set(e.data.running.path, e.data.running.answer);
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
  ];
  // a session or snapshot the module does not hold was made elsewhere: say where it lives
  const ELSEWHERE = [
    [/^no such session/, 'Sessions of this lab live in the browser tab that started them: a link to someone else\'s session, or to follow one, needs a slublab server.'],
    [/^no such snapshot/, 'Snapshots of this lab are kept in the browser that saved or imported them: import the snapshot\'s exported JSON here (Share), or open the link on a slublab server.'],
  ];
  const realFetch = window.fetch.bind(window);
  const BOOT = '<script src="static/boot.js"></script>\n'; // what export-static adds to index.html
  /**
   * The files of the UI that an HTML export embeds (server/present/export_html.c
   * reads what it needs under its web directory): the bundle's files that
   * .manifest.json names (assets/*.js, css/app.css, offline/loader.js,
   * data/*.json...), index.html as the bundle has it; path under the data
   * directory -> bytes.
   */
  async function uiFiles() {
    const get = async (p) => {
      const r = await realFetch(new URL(p, new URL('..', here)));
      if (!r.ok) throw new Error(`${p}: ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    };
    const dec = new TextDecoder();
    const manifest = JSON.parse(dec.decode(await get('.manifest.json')));
    const names = Object.keys(manifest.sizes).filter((p) => p !== 'index.html');
    const out = {};
    await Promise.all(names.map(async (p) => { out[`web/${p}`] = await get(p); }));
    out['web/index.html'] = new TextEncoder().encode(dec.decode(await get('index.html')).replace(BOOT, ''));
    return out;
  }
  let uiSent = null; // the UI's files, once fetched for the Worker
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
    if (req.method === 'GET' && running.has(path)) {
      const a = running.get(path);
      return new Response(a.body.slice(), { status: a.status, headers: { 'Content-Type': a.contentType } });
    }
    const headers = {};
    for (const h of ['authorization', 'if-none-match']) {
      const v = req.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : new Uint8Array(await req.arrayBuffer());
    let files;
    if (/^\/api\/sessions\/[^/]+\/export\.html$/.test(path)) {
      const first = !uiSent; // the one request that sends them; any other waits for it
      if (first) uiSent = uiFiles();
      try {
        const f = await uiSent;
        if (first) files = f;
      } catch (e) {
        uiSent = null;
        const msg = JSON.stringify({ error: { code: 'not_found', message: `The offline copy needs the UI's files in this folder: ${e.message}` } });
        return new Response(msg, { status: 404, headers: { 'Content-Type': 'application/json' } });
      }
    }
    const a = await ask({ method: req.method, target: path + url.search, headers, body, files });
    const out = new Headers();
    if (a.contentType) out.set('Content-Type', a.contentType);
    if (a.disposition) out.set('Content-Disposition', a.disposition);
    if (a.status === 404 && a.contentType.startsWith('application/json')) {
      const j = JSON.parse(new TextDecoder().decode(a.body));
      const why = ELSEWHERE.find(([re]) => re.test(j.error?.message ?? ''));
      if (why) a.body = JSON.stringify({ error: { ...j.error, message: `${j.error.message}. ${why[1]} ${SERVER}` } });
    }
    const empty = a.status === 204 || a.status === 304 || req.method === 'HEAD';
    return new Response(empty ? null : a.body, { status: a.status, headers: out });
  };
  // XMLHttpRequest to the lab's API (a trace upload) through the fetch() above
  const RealXhr = window.XMLHttpRequest;
  window.XMLHttpRequest = class extends RealXhr {
    #lab = null;
    open(method, url, ...rest) {
      const u = new URL(url, location.href);
      this.#lab = apiPath(u) === null ? null : { method, url: u.href, headers: {}, status: 0, text: '' };
      if (!this.#lab) super.open(method, url, ...rest);
    }
    setRequestHeader(name, value) {
      if (this.#lab) this.#lab.headers[name] = value;
      else super.setRequestHeader(name, value);
    }
    get status() { return this.#lab ? this.#lab.status : super.status; }
    get responseText() { return this.#lab ? this.#lab.text : super.responseText; }
    get readyState() { return this.#lab ? (this.#lab.status ? 4 : 1) : super.readyState; }
    send(body) {
      const lab = this.#lab;
      if (!lab) return super.send(body);
      const size = body && typeof body === 'object' && 'size' in body ? body.size : 0;
      window.fetch(lab.url, { method: lab.method, headers: lab.headers, body: body ?? null }).then(async (res) => {
        if (size && this.upload.onprogress) this.upload.onprogress(new ProgressEvent('progress', { lengthComputable: true, loaded: size, total: size }));
        lab.text = await res.text();
        lab.status = res.status;
        if (this.onload) this.onload(new ProgressEvent('load'));
      }, () => { if (this.onerror) this.onerror(new ProgressEvent('error')); });
    }
  };
  // what the UI says instead of a follow link (web/js/views/banner.js) and of
  // snapshots everyone sees (web/js/views/snapshots.js)
  window.slublabStatic = {
    followers: `Students cannot follow this page, nor answer its questions together (the class tally): it runs in your browser alone. ${SERVER}`,
    snapshots: 'Those saved or imported in this browser. This lab runs in your browser alone: a snapshot\'s link opens in this browser only, and publishing lists it here only. ' +
      `To hand one on, export its JSON; the other imports it (Import a snapshot JSON). ${SERVER}`,
  };
})();
