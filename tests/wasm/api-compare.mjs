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
// Then the shipped kernel trace fixtures (tests/data, tests/fuzz/corpus/ktrace),
// each uploaded to both (POST /api/traces, gzip or plain, one after the
// machine's /proc/slabinfo), replayed (the server's job thread; the module's
// slublab_api_work()), and compared: the job's answer and report, the
// session, its events and its state at several positions.
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
    return s.replace(/\{([A-Z]+)\}/g, (_, k) => this.ids[k] || k);
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
    const body = r.raw ?? (r.body === undefined ? null : this.fill(JSON.stringify(r.body)));
    const headers = {};
    const key = (/** @type {string} */ k) => ({ session: 'SID', snapshot: 'NID' })[k] ?? k;
    if (r.token) headers.authorization = `Bearer ${this.tokens[key(r.token)]}`;
    const a = await this.send(r.method, this.fill(r.path), headers, body);
    if (r.keep && a.status < 300) {
      const j = JSON.parse(a.text);
      this.ids[key(r.keep)] = j.id;
      this.tokens[key(r.keep)] = j.token;
    }
    if (r.session && a.status === 200) { // a trace job's session, once done
      const j = JSON.parse(a.text);
      this.ids[r.session] = j.session ? j.session.id : '';
      this.tokens[r.session] = j.session ? j.session.token : '';
    }
    if (r.wait) await this.wait(this.fill(r.path));
    return { status: a.status, type: a.type, text: this.normalize(a.text) };
  }
}

// The trace fixtures: [name, body, query].
const slabinfo = fs.readFileSync('tests/data/proc-slabinfo.txt');
const traces = [
  ['kmem-trace-slice.txt.gz', fs.readFileSync('tests/data/kmem-trace-slice.txt.gz'), ''],
  ['kmem-trace-slice.txt', gunzipSync(fs.readFileSync('tests/data/kmem-trace-slice.txt.gz')), ''],
  ['kmem-trace-sample.txt.gz', fs.readFileSync('tests/data/kmem-trace-sample.txt.gz'), ''],
  ['proc-slabinfo.txt + kmem-trace-slice.txt.gz',
    Buffer.concat([slabinfo, fs.readFileSync('tests/data/kmem-trace-slice.txt.gz')]), `?slabinfo=${slabinfo.length}`],
  ...fs.readdirSync('tests/fuzz/corpus/ktrace').sort().map((f) =>
    [`fuzz/corpus/ktrace/${f}`, fs.readFileSync(path.join('tests/fuzz/corpus/ktrace', f)), '']),
];
/** The requests of one trace fixture; {TID} the job, {TSID} its session. */
function traceRequests([name, body, query]) {
  return [
    { method: 'POST', path: `/api/traces${query}`, raw: new Uint8Array(body), keep: 'TID', name, wait: true },
    { method: 'GET', path: '/api/traces/{TID}', session: 'TSID' },
    { method: 'GET', path: '/api/sessions/{TSID}', positions: true },
  ];
}
/** Once a trace's session is open: its events and states at @n's quarters. */
function positionRequests(/** @type {number} */ n) {
  const at = [...new Set([0, 1, Math.floor(n / 4), Math.floor(n / 2), Math.floor((3 * n) / 4), n])];
  return [
    ...at.map((i) => ({ method: 'GET', path: `/api/sessions/{TSID}/state?at=${i}` })),
    { method: 'GET', path: `/api/sessions/{TSID}/events?from=0&to=${Math.min(n, 200)}` },
    ...(n > 200 ? [{ method: 'GET', path: `/api/sessions/{TSID}/events?from=${n - 200}&to=${n}` }] : []),
    { method: 'GET', path: '/api/sessions/{TSID}/caches' },
    { method: 'DELETE', path: '/api/traces/{TID}', token: 'TID' },
  ];
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
      const type = typeof body === 'string' ? 'application/json' : 'application/octet-stream';
      const res = await fetch(native.url + target, {
        method,
        headers: { ...headers, ...(body !== null ? { 'content-type': type } : {}) },
        body,
      });
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    }),
    new Side('wasm', async (method, target, headers, body) => {
      const a = api.call(method, target, { headers, body });
      return { status: a.status, type: a.contentType || null, text: dec.decode(a.body) };
    }),
  ];
  // a trace job ends: the server's thread, polled; the module's, run
  sides[0].wait = async (target) => {
    const id = sides[0].ids.TID;
    for (let i = 0; i < 600 && id; i++) {
      const j = await (await fetch(`${native.url}/api/traces/${id}`)).json();
      if (j.state === 'done' || j.state === 'failed') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${target}: the server's job did not end`);
  };
  sides[1].wait = async () => { api.work(); };
  const queue = [...requests, ...traces.flatMap(traceRequests)];
  for (let q = 0; q < queue.length; q++) {
    const r = queue[q];
    const [n, w] = [await sides[0].run(r), await sides[1].run(r)];
    const what = `${r.method} ${r.path}${r.name ? ` (${r.name})` : ''}`;
    if (r.positions && n.status === 200 && n.text === w.text)
      queue.splice(q + 1, 0, ...positionRequests(JSON.parse(n.text).events));
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
