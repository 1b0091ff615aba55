// @ts-check
// The static lab's Web Worker: the server's routes in WebAssembly
// (slublab-api.wasm over the shipped files of files.json, both beside this
// file: boot.js fetches them as the page starts and hands them over, the
// module compiled, in its first message), answering the requests boot.js posts from the page, one at a time
// and in order, as {id, status, contentType, disposition, body}.
//
// Snapshots outlive the tab: each one saved or imported is kept in this
// browser's IndexedDB as its export (GET /api/snapshots/ID/export, the
// JSON the server writes), and imported again under its own id when the
// lab next starts, so its link opens in this browser after a reload.
import { compileApi, openApi } from './api.js';
import { isTraceUpload, traceBody } from './traces.js';

const enc = new TextEncoder(), dec = new TextDecoder();

/** The snapshot store, or null where IndexedDB is not offered. */
function openDb() {
  return new Promise((resolve) => {
    if (!self.indexedDB) { resolve(null); return; }
    const req = indexedDB.open('slublab-static', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('snapshots', { keyPath: 'id' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
  });
}
/** Run @fn on the snapshots store in a transaction of @mode; resolves to its request's result. */
function inStore(db, mode, fn) {
  return new Promise((resolve, reject) => {
    const r = fn(db.transaction('snapshots', mode).objectStore('snapshots'));
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/** What boot.js fetched for this Worker: the module compiled and files.json's bytes, each null when it could not. */
let started = (/** @type {(s: {module: WebAssembly.Module|null, files: ArrayBuffer|null}) => void} */ (() => {}));
const start = new Promise((resolve) => { started = resolve; });

const ready = (async () => {
  const given = await start;
  const wasm = compileApi(given.module ?? fetch(new URL('slublab-api.wasm', import.meta.url)));
  const files = (given.files ? Promise.resolve(JSON.parse(dec.decode(given.files)))
    : fetch(new URL('files.json', import.meta.url)).then((r) => r.json()))
    .then((texts) => new Map(Object.entries(texts).map(([p, t]) => [p, enc.encode(t)])));
  // a running trace job's answers, for the page to give its GETs (traces.js)
  const onTrace = (path, a) => self.postMessage({ trace: path, answer: a });
  const [api, db] = await Promise.all([files.then((f) => openApi(wasm, f, { onTrace })), openDb()]);
  if (db) {
    for (const s of await inStore(db, 'readonly', (st) => st.getAll()).catch(() => []))
      api.call('POST', '/api/snapshots/import', { body: s.export });
  }
  return { api, db };
})();

/** Keep or forget the snapshot request @msg made, by its answer @a. */
async function remember(db, api, msg, a) {
  const path = msg.target.split('?')[0];
  let id = null;
  if (msg.method === 'POST' && (path === '/api/snapshots' || path === '/api/snapshots/import') && a.status < 300)
    id = JSON.parse(dec.decode(a.body)).id;
  if (id) {
    const x = api.call('GET', `/api/snapshots/${encodeURIComponent(id)}/export`);
    if (x.status === 200) await inStore(db, 'readwrite', (st) => st.put({ id, export: dec.decode(x.body) }));
  } else if (msg.method === 'DELETE' && /^\/api\/snapshots\/[^/]+$/.test(path) && a.status === 204) {
    await inStore(db, 'readwrite', (st) => st.delete(decodeURIComponent(path.split('/')[3])));
  }
}

self.onmessage = async (/** @type {MessageEvent} */ e) => {
  if (e.data.start) { started(e.data.start); return; }
  const { id, method, target, headers, body, files } = e.data;
  try {
    const { api, db } = await ready;
    if (files) api.addFiles(files); // the UI's files, for the HTML export (boot.js)
    const upload = isTraceUpload(method, target);
    const a = api.call(method, target, { headers, body: upload ? await traceBody(body, target, api.traceMax()) : body });
    if (db) await remember(db, api, e.data, a).catch(() => {});
    const job = upload && a.status === 202 ? `/api/traces/${JSON.parse(dec.decode(a.body)).id}` : null;
    const running = job ? { path: job, answer: api.call('GET', job) } : null;
    self.postMessage({ id, ...a, running }, { transfer: [a.body.buffer] });
    if (job) setTimeout(() => { api.work(); self.postMessage({ traceEnd: job }); });
  } catch (err) {
    const msg = JSON.stringify({ error: { code: 'internal', message: `the lab in this page failed: ${err && err.message}` } });
    self.postMessage({ id, status: 500, contentType: 'application/json', disposition: '', encoding: '', body: enc.encode(msg) });
  }
};
