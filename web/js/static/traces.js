// @ts-check
// Kernel trace uploads in the static lab's Worker (docs/wasm.md, "Trace
// upload"): POST /api/traces goes to the module (wasm/api.c) as it goes to
// a server, with a gzip trace inflated here by the browser's
// DecompressionStream, and only as much of it as the module takes (one
// byte more, so that it answers 413 with its cap).  The module's job runs
// once the 202 is posted (api.work()); meanwhile the page answers the
// job's GET /api/traces/ID from what the module said last (boot.js).

/** True for the request that uploads a trace. */
export function isTraceUpload(/** @type {string} */ method, /** @type {string} */ target) {
  return method === 'POST' && target.split('?')[0] === '/api/traces';
}

/**
 * The first @max bytes of what gzip @data inflates to, or null where this
 * browser cannot inflate it (the module then inflates it, with zlib).
 * @param {Uint8Array} data @param {number} max
 */
async function inflate(data, max) {
  if (typeof DecompressionStream === 'undefined') return null;
  const reader = new Blob([data]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  const chunks = [];
  let total = 0;
  try {
    while (total < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
  } catch {
    return null; /* e.g. members after the first, which zlib reads */
  } finally {
    reader.cancel().catch(() => {});
  }
  const out = new Uint8Array(Math.min(total, max));
  let off = 0;
  for (const c of chunks) {
    if (off >= out.length) break;
    out.set(c.subarray(0, out.length - off), off);
    off += c.length;
  }
  return out;
}

/**
 * The body to hand the module for an upload of @body to @target: the
 * machine's /proc/slabinfo first when ?slabinfo=N says so, then the trace's
 * text; at most @max + 1 bytes.
 * @param {Uint8Array} body @param {string} target @param {number} max
 */
export async function traceBody(body, target, max) {
  const n = Number(new URLSearchParams(target.split('?')[1] ?? '').get('slabinfo')) || 0;
  const trace = body.subarray(Math.min(n, body.length));
  if (trace[0] === 0x1f && trace[1] === 0x8b) {
    const text = await inflate(trace, max + 1 - (body.length - trace.length));
    if (text) {
      const out = new Uint8Array(body.length - trace.length + text.length);
      out.set(body.subarray(0, body.length - trace.length));
      out.set(text, body.length - trace.length);
      return out;
    }
  }
  return body.length > max + 1 ? body.subarray(0, max + 1) : body;
}
