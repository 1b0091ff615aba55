// @ts-check
// The server's routes, run in this thread by slublab-api.wasm (wasm/api.c,
// docs/wasm.md): open it over the shipped files, then call it as the
// server would be called.  Used by the static lab's Worker (worker.js) and
// by tests/wasm/api-compare.mjs, which holds its answers to the native
// server's byte for byte.
import { makeWasi } from './wasi.js';

/** @typedef {{status: number, contentType: string, body: Uint8Array, disposition: string, encoding: string}} ApiAnswer */

const enc = new TextEncoder(), dec = new TextDecoder();

/**
 * Compile @wasm: a Response (or a promise of one) compiles while it
 * downloads where it comes as application/wasm, else from its bytes.
 * @param {BufferSource | WebAssembly.Module | Response | Promise<Response | WebAssembly.Module>} wasm
 * @returns {Promise<WebAssembly.Module>}
 */
export async function compileApi(wasm) {
  const got = await wasm;
  let module;
  if (got instanceof WebAssembly.Module) {
    performance.mark('slublab-api:compiled'); // compiled elsewhere (boot.js), handed over
    return got;
  }
  if (!(got instanceof Response)) module = await WebAssembly.compile(got);
  else if (WebAssembly.compileStreaming && (got.headers.get('Content-Type') || '').startsWith('application/wasm'))
    module = await WebAssembly.compileStreaming(got);
  else module = await WebAssembly.compile(await got.arrayBuffer());
  performance.mark('slublab-api:compiled');
  return module;
}

/**
 * Instantiate the module and open its API over @files (path under the data
 * directory -> bytes: scenarios/*.json, lessons/...), with @memoryMb MiB for
 * live sessions.  While work() runs a trace job, @onTrace hears the job's
 * GET /api/traces/ID answer as it changes (wasm/api.c).  The marks
 * slublab-api:compiled, :instantiated and :opened time the start
 * (bench/static-lab.mjs reads them).
 * @param {BufferSource | WebAssembly.Module | Response | Promise<Response | WebAssembly.Module>} wasm
 *   (as compileApi() takes it)
 * @param {Map<string, Uint8Array>} files
 * @param {{memoryMb?: number, log?: (fd: number, line: string) => void,
 *   onTrace?: (path: string, a: ApiAnswer) => void}} [opts]
 */
export async function openApi(wasm, files, opts = {}) {
  const module = await compileApi(wasm);
  const host = makeWasi(files, { root: '/data', log: opts.log });
  /** @type {any} */
  let ex = null;
  const slublab = {
    trace_changed(/** @type {number} */ id, /** @type {number} */ status, /** @type {number} */ body, /** @type {number} */ len) {
      const a = { status, contentType: 'application/json', body: new Uint8Array(ex.memory.buffer, body, len).slice(), disposition: '', encoding: '' };
      if (opts.onTrace) opts.onTrace(`/api/traces/${cstr(id)}`, a);
    },
  };
  const instance = await WebAssembly.instantiate(module, { ...host.imports, slublab });
  performance.mark('slublab-api:instantiated');
  ex = instance.exports;
  host.setMemory(ex.memory);
  ex._initialize();

  /** @param {Uint8Array} data  a copy in the module's memory; free with ex.slublab_api_free() */
  const put = (data) => {
    const p = ex.slublab_api_alloc(data.length);
    new Uint8Array(ex.memory.buffer, p, data.length).set(data);
    return p;
  };
  const dir = put(enc.encode('/data\0'));
  const ret = ex.slublab_api_init(dir, opts.memoryMb || 512);
  ex.slublab_api_free(dir);
  if (ret !== 0) throw new Error(`slublab-api: opening the API failed (${ret | 0})`);
  performance.mark('slublab-api:opened');

  function cstr(/** @type {number} */ p) {
    const m = new Uint8Array(ex.memory.buffer);
    let end = p;
    while (m[end]) end++;
    return dec.decode(m.subarray(p, end));
  }
  return {
    /** Run the trace jobs the last calls started, to their end (POST /api/traces); how many ran. */
    work() {
      return ex.slublab_api_work();
    },
    /** The largest trace POST /api/traces takes here, in bytes (a larger one is answered 413). */
    traceMax() {
      return ex.slublab_api_trace_max() >>> 0;
    },
    /**
     * Add files under the data directory (path -> bytes), read by the
     * requests that follow: the UI's files an HTML export carries (web/...).
     * @param {Record<string, Uint8Array>} more
     */
    addFiles(more) {
      for (const [p, data] of Object.entries(more)) host.addFile(p, data);
    },
    /**
     * Answer one request: @target is the path and query, percent-encoded as
     * in a URL; @headers may hold authorization and if-none-match.
     * @param {string} method
     * @param {string} target
     * @param {{headers?: Record<string, string>, body?: Uint8Array | string | null}} [req]
     * @returns {ApiAnswer}
     */
    call(method, target, req = {}) {
      let head = `${method} ${target}\n`;
      for (const [k, v] of Object.entries(req.headers || {})) head += `${k}: ${v}\n`;
      const body = typeof req.body === 'string' ? enc.encode(req.body) : req.body || new Uint8Array(0);
      const text = new Uint8Array(enc.encode(`${head}\n`).length + body.length);
      const h = enc.encode(`${head}\n`);
      text.set(h);
      text.set(body, h.length);
      const p = put(text);
      const a = ex.slublab_api_call(p, text.length);
      ex.slublab_api_free(p);
      const v = new DataView(ex.memory.buffer);
      const bodyPtr = v.getUint32(a + 8, true), len = v.getUint32(a + 12, true);
      return {
        status: v.getUint32(a, true),
        contentType: cstr(v.getUint32(a + 4, true)),
        body: new Uint8Array(ex.memory.buffer, bodyPtr, len).slice(),
        disposition: cstr(v.getUint32(a + 16, true)),
        encoding: cstr(v.getUint32(a + 20, true)),
      };
    },
  };
}

/** GET /api/sessions/ID/state?at=N (nothing else in its query): [id, N], else null. */
function stateRead(/** @type {{method: string, target: string}} */ msg) {
  const m = msg.method === 'GET' && /^\/api\/sessions\/([^/?]+)\/state\?at=(\d+)$/.exec(msg.target);
  return m ? [m[1], Number(m[2])] : null;
}
/** A position publish: POST /api/sessions/ID/step {"to": N, "state": false} (web/js/state.js). */
function isPublish(/** @type {{method: string, target: string, body?: any}} */ msg) {
  if (msg.method !== 'POST' || !/^\/api\/sessions\/[^/?]+\/step$/.test(msg.target)) return false;
  const text = typeof msg.body === 'string' ? msg.body : msg.body instanceof Uint8Array ? dec.decode(msg.body) : '';
  return /^\{"to":\d+,"state":false\}$/.test(text);
}

/**
 * The order the static lab's Worker answers the page's requests in, so
 * that a step's state is not kept waiting by work the step did not ask for:
 *  - a position publish (isPublish) waits until nothing else does: a state
 *    read with ?at= does not depend on the session's position (the server
 *    answers it from its cache even while a move holds the session,
 *    route_state()), so it may overtake; any other request first lets the
 *    publishes waiting before it run, in order;
 *  - when nothing waits, the state of the position after the last one read
 *    (in the direction the page went) is computed, its answer dropped: it
 *    lands in the session's cache of renderings (session_cache_put()), so
 *    that the next step's read is answered from there.
 * @run(msg) starts answering one request; @warm(target) answers a GET
 * nobody asked for; @later(fn) runs fn in a later task.
 * @param {(msg: any) => void} run
 * @param {(target: string) => void} warm
 * @param {(fn: () => void) => void} [later]
 */
export function requestOrder(run, warm, later = (fn) => { setTimeout(fn, 0); }) {
  /** @type {any[]} */
  const publishes = [];
  /** @type {Map<string, number>} */
  const lastAt = new Map();
  let next = /** @type {string|null} */ (null), idle = false, arrived = 0;
  function flush() {
    while (publishes.length) run(publishes.shift());
  }
  function whenIdle() {
    if (idle) return;
    idle = true;
    const seen = arrived;
    later(() => {
      idle = false;
      if (arrived !== seen) { whenIdle(); return; } // a request came meanwhile: wait for the next quiet moment
      if (next !== null) {
        const t = next;
        next = null;
        warm(t);
        if (publishes.length) whenIdle();
        return;
      }
      flush();
    });
  }
  return {
    /** A request from the page. */
    take(/** @type {any} */ msg) {
      arrived++;
      if (isPublish(msg)) {
        publishes.push(msg);
      } else {
        const read = stateRead(msg);
        if (!read) {
          flush();
          if (msg.method !== 'GET') next = null; // the session may have changed
        } else {
          const [id, at] = read, before = lastAt.get(id);
          lastAt.set(id, at);
          const to = before !== undefined && at < before ? at - 1 : at + 1;
          next = to >= 0 ? `/api/sessions/${id}/state?at=${to}` : null;
        }
        run(msg);
      }
      whenIdle();
    },
  };
}
