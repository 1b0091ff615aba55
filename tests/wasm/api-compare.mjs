// The API in WebAssembly answers as the server does (docs/wasm.md): a list
// of requests (a scenario session created, stepped both ways, its state at
// several positions, seeks, the overview, the lessons and a lesson, a
// comparison of two variants, a snapshot and its export) goes to a native
// `slublab serve --db mem: --stored-checkpoint-ops 0` (the configuration
// wasm/api.c opens the module with) over HTTP and to build/wasm/slublab-api.wasm
// through web/js/static/api.js (the static lab's own host), and every
// answer's status, type and body must be the same bytes once the ids and
// tokens each side drew, and the clock's times, are named alike.
//   node tests/wasm/api-compare.mjs SLUBLAB API.wasm
// Prints one line per request and "N passed, N failed"; exits 1 on a difference.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { openApi } from '../../web/js/static/api.js';

const [bin, wasmFile] = process.argv.slice(2);
if (!bin || !wasmFile) {
  process.stderr.write('usage: node tests/wasm/api-compare.mjs SLUBLAB API.wasm\n');
  process.exit(2);
}
const MEMORY_MB = '512';

/**
 * The files the API reads, as the native server finds them from the build
 * tree: scenarios/ and lessons/ (with exercises/), the UI's bundle as web/
 * and Chart.js as vendor/ (an HTML export carries both).
 */
function shippedFiles() {
  const files = new Map();
  const walk = (dir, as) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), `${as}/${e.name}`);
      else files.set(`${as}/${e.name}`, new Uint8Array(fs.readFileSync(path.join(dir, e.name))));
    }
  };
  walk('scenarios', 'scenarios');
  walk('lessons', 'lessons');
  walk(path.join(path.dirname(bin), 'web'), 'web');
  walk('node_modules/chart.js/dist', 'vendor');
  return files;
}

// {method, path, body?, token?: 'session' | 'snapshot', keep?: 'session' | 'snapshot'};
// {SID} and {NID} in paths and bodies stand for the session's and the snapshot's ids.
const requests = [
  { method: 'GET', path: '/api/health' },
  { method: 'GET', path: '/api/scenarios' },
  { method: 'GET', path: '/api/scenarios/default' },
  { method: 'GET', path: '/api/kernels' },
  { method: 'POST', path: '/api/sessions', body: { scenario: 'barn-refill', seed: 1 }, keep: 'session' },
  { method: 'GET', path: '/api/sessions/{SID}' },
  { method: 'GET', path: '/api/sessions/{SID}/state?at=0' },
  { method: 'POST', path: '/api/sessions/{SID}/step', body: {}, token: 'session' },
  { method: 'POST', path: '/api/sessions/{SID}/step', body: { by: 'op', dir: 'next', count: 3 }, token: 'session' },
  { method: 'POST', path: '/api/sessions/{SID}/step', body: { by: 'event', dir: 'prev' }, token: 'session' },
  { method: 'GET', path: '/api/sessions/{SID}/state?at=12' },
  { method: 'GET', path: '/api/sessions/{SID}/state?at=40' },
  { method: 'POST', path: '/api/sessions/{SID}/step', body: { to: 30 }, token: 'session' },
  { method: 'GET', path: '/api/sessions/{SID}/state?at=30&by=op&dir=prev&count=2' },
  { method: 'GET', path: '/api/sessions/{SID}/events?from=0&to=20' },
  { method: 'GET', path: '/api/sessions/{SID}/overview?buckets=64' },
  { method: 'GET', path: '/api/sessions/{SID}/series?counters=ALLOC_FASTPATH,FREE_FASTPATH&points=16' },
  { method: 'GET', path: '/api/sessions/{SID}/caches' },
  { method: 'GET', path: '/api/sessions/{SID}/names' },
  { method: 'GET', path: '/api/sessions/{SID}/search?fn=barn_get_full_or_empty_sheaf&from=0' },
  { method: 'GET', path: '/api/lessons' },
  { method: 'GET', path: '/api/lessons/03-the-barn' },
  { method: 'GET', path: '/api/exercises' },
  { method: 'GET', path: '/api/compare?scenario=default&variant=DEFERRED_FREELIST' },
  { method: 'GET', path: '/api/compare?scenario=barn-refill&model=legacy,sheaves' },
  { method: 'POST', path: '/api/snapshots', body: { session: '{SID}', at: 20, title: 'after the refill' }, keep: 'snapshot' },
  { method: 'GET', path: '/api/snapshots/{NID}' },
  { method: 'GET', path: '/api/snapshots/{NID}/export' },
  { method: 'GET', path: '/api/sessions/{SID}/export?format=slabinfo&at=20' },
  { method: 'GET', path: '/api/sessions/{SID}/export.html?at=20' },
  { method: 'GET', path: '/api/sessions/nosuchsession/state' },
  { method: 'GET', path: '/api/no/such/route' },
  { method: 'DELETE', path: '/api/sessions/{SID}', token: 'session' },
];

/** Each side's ids and tokens, and the names they are compared under. */
class Side {
  constructor(name, send) {
    this.name = name;
    this.send = send;
    this.ids = {}; // SID, NID -> the id this side got
    this.tokens = {};
  }
  fill(s) {
    return s.replace(/\{(SID|NID)\}/g, (_, k) => this.ids[k] || k);
  }
  normalize(text) {
    // an HTML export's data, inflated: it holds what is compared below
    let t = text.replace(/(data-encoding="gzip\+base64">)([A-Za-z0-9+/=\s]+)</g,
      (_, tag, b64) => `${tag}${gunzipSync(Buffer.from(b64, 'base64')).toString()}<`);
    for (const [k, v] of Object.entries(this.ids)) t = t.split(v).join(`<${k}>`);
    for (const [k, v] of Object.entries(this.tokens)) t = t.split(v).join(`<${k}-token>`);
    // the clock's times; the server's own address (the module has none);
    // memory measured on the host (wasm32's pointers are half as wide)
    return t
      .replace(/"(created|updated)":"[0-9T:.Z-]+"/g, '"$1":"-"')
      .replace(/"public_url":"[^"]*"/g, '"public_url":"-"')
      .replace(/"(bytes|used|peak|resident)":\d+/g, '"$1":"-"');
  }
  async run(r) {
    const body = r.body === undefined ? null : this.fill(JSON.stringify(r.body));
    const headers = {};
    if (r.token) headers.authorization = `Bearer ${this.tokens[r.token === 'session' ? 'SID' : 'NID']}`;
    const a = await this.send(r.method, this.fill(r.path), headers, body);
    if (r.keep && a.status < 300) {
      const j = JSON.parse(a.text);
      const k = r.keep === 'session' ? 'SID' : 'NID';
      this.ids[k] = j.id;
      this.tokens[k] = j.token;
    }
    return { status: a.status, type: a.type, text: this.normalize(a.text) };
  }
}

async function startNative() {
  const proc = spawn(bin, ['serve', '--port', '0', '--db', 'mem:', '--stored-checkpoint-ops', '0', '--quiet',
    '--memory-mb', MEMORY_MB], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/(http:\/\/\S+)/);
      if (m) resolve(m[1].replace(/\/$/, ''));
    });
    proc.on('exit', (code) => reject(new Error(`slublab serve exited (${code})`)));
  });
  return { proc, url };
}

const native = await startNative();
let passed = 0, failed = 0;
try {
  const api = await openApi(fs.readFileSync(wasmFile), shippedFiles(), { memoryMb: Number(MEMORY_MB) });
  const dec = new TextDecoder();
  const sides = [
    new Side('native', async (method, target, headers, body) => {
      const res = await fetch(native.url + target, {
        method,
        headers: { ...headers, ...(body !== null ? { 'content-type': 'application/json' } : {}) },
        body,
      });
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    }),
    new Side('wasm', async (method, target, headers, body) => {
      const a = api.call(method, target, { headers, body });
      return { status: a.status, type: a.contentType || null, text: dec.decode(a.body) };
    }),
  ];
  for (const r of requests) {
    const [n, w] = [await sides[0].run(r), await sides[1].run(r)];
    const what = `${r.method} ${r.path}`;
    if (n.status === w.status && n.type === w.type && n.text === w.text) {
      passed++;
      console.log(`ok   ${what}: ${n.status}, ${n.text.length} bytes`);
      continue;
    }
    failed++;
    console.log(`FAIL ${what}: native ${n.status} ${n.type}, wasm ${w.status} ${w.type}`);
    let i = 0;
    while (i < n.text.length && n.text[i] === w.text[i]) i++;
    console.log(`  first difference at byte ${i}:\n  native: ${n.text.slice(Math.max(0, i - 60), i + 100)}\n  wasm:   ${w.text.slice(Math.max(0, i - 60), i + 100)}`);
  }
} finally {
  native.proc.kill('SIGTERM');
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
