// @ts-check
// The static lab's Web Worker: the server's routes in WebAssembly
// (slublab-api.wasm over the shipped files of files.json, both beside this
// file), answering the requests boot.js posts from the page, one at a time
// and in order, as {id, status, contentType, disposition, body}.
import { openApi } from './api.js';

const enc = new TextEncoder();

const ready = (async () => {
  const [wasm, texts] = await Promise.all([
    fetch(new URL('slublab-api.wasm', import.meta.url)).then((r) => r.arrayBuffer()),
    fetch(new URL('files.json', import.meta.url)).then((r) => r.json()),
  ]);
  const files = new Map(Object.entries(texts).map(([p, t]) => [p, enc.encode(t)]));
  return openApi(wasm, files);
})();

self.onmessage = async (/** @type {MessageEvent} */ e) => {
  const { id, method, target, headers, body } = e.data;
  try {
    const api = await ready;
    const a = api.call(method, target, { headers, body });
    self.postMessage({ id, ...a }, { transfer: [a.body.buffer] });
  } catch (err) {
    const msg = JSON.stringify({ error: { code: 'internal', message: `the lab in this page failed: ${err && err.message}` } });
    self.postMessage({ id, status: 500, contentType: 'application/json', disposition: '', encoding: '', body: enc.encode(msg) });
  }
};
