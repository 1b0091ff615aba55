// tests/abuse/abuse.test.mjs: `slublab serve` tried as an attacker would,
// against a live server (ctest runs it in the release and the ASan trees).
//
// One test per way in that was found open (framing a proxy could read
// another way, errors that were not JSON, unknown query arguments taken as
// nothing, a gzip bomb of blank lines, CPU-heavy writes without a limit),
// then the ones that held, so that none comes back.  Throughout, a monitor
// asks GET /api/health every 50 ms and reads the server's VmRSS: health
// must answer within 100 ms (each late answer is printed; two late in a row
// fail, one alone can be the host's scheduler) and the RSS stay under
// --memory-mb.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';

import { api, session, start, tmpdir } from '../api/lib.mjs';

const MEMORY_MB = 128;
const HEALTH_MS = 100;

let srv;
let host;
let monitor; // a worker thread: the test's own work must not delay its clock
const dir = tmpdir('slublab-abuse-');
// made before the server starts, so that making it costs the host nothing while health is timed
const bomb = zlib.gzipSync(Buffer.alloc(64 << 20, '\n'), { level: 9 });

// Health's time and the server's RSS every 50 ms, on its own connection and
// its own thread; 'stop' answers with what it saw.
const monitorSource = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const st = { samples: 0, worstMs: 0, worstRssKb: 0, slow: [], stalls: [] };
let busy = true; // until a first second of answers: the thread's fetch is warmed up, not timed
let born = Date.now();
let last = 0; // the previous sample's time, ms
const ask = async (timed) => {
  const t0 = performance.now();
  const r = await fetch(workerData.url + '/api/health');
  await r.text();
  const ms = performance.now() - t0;
  if (!timed) return;
  const at = ((Date.now() - born) / 1000).toFixed(1);
  st.samples++;
  st.worstMs = Math.max(st.worstMs, ms);
  if (ms > workerData.limitMs || r.status !== 200) {
    st.slow.push(Math.round(ms) + ' ms (' + r.status + ') at ' + at + ' s');
    // one late answer can be the host's scheduler; two in a row are the server
    if (last > workerData.limitMs) st.stalls.push(Math.round(last) + ' ms then ' + Math.round(ms) + ' ms at ' + at + ' s');
  }
  last = ms;
  const m = /VmRSS:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/' + workerData.pid + '/status', 'utf8'));
  if (m) st.worstRssKb = Math.max(st.worstRssKb, Number(m[1]));
};
(async () => {
  while (Date.now() - born < 1000) await ask(false);
  born = Date.now();
  busy = false;
})();
const timer = setInterval(async () => {
  if (busy) return;
  busy = true;
  try {
    await ask(true);
  } catch (e) {
    st.stalls.push(String(e));
  } finally {
    busy = false;
  }
}, 50);
parentPort.on('message', () => { clearInterval(timer); parentPort.postMessage(st); });
`;

function watch(target) {
  monitor = new Worker(monitorSource, { eval: true, workerData: { url: target.url, pid: target.proc.pid, limitMs: HEALTH_MS } });
}

function monitorResult() {
  return new Promise((resolve) => {
    monitor.once('message', (st) => { monitor.terminate(); monitor = null; resolve(st); });
    monitor.postMessage('stop');
  });
}

before(async () => {
  srv = await start({ dir, args: ['--memory-mb', String(MEMORY_MB), '--header-timeout', '2', '--timeout', '5'] });
  host = new URL(srv.url).host;
  watch(srv);
});

after(async () => {
  if (monitor) await monitor.terminate();
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Send @bytes on a new connection: {text, status, closed} once the server
// closed it or @ms passed (closed false: it was kept open).
function send(bytes, ms = 1500) {
  const u = new URL(srv.url);
  return new Promise((resolve) => {
    const sock = net.connect(Number(u.port), u.hostname);
    let data = '';
    const done = (closed) => {
      clearTimeout(timer);
      sock.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      resolve({ text: data, status: m ? Number(m[1]) : 0, closed });
    };
    const timer = setTimeout(() => done(false), ms);
    sock.on('data', (d) => { data += d.toString('latin1'); });
    sock.on('error', () => done(true));
    sock.on('close', () => done(true));
    sock.on('connect', () => sock.write(bytes));
  });
}

// The one response in @text: its head, body, and how many status lines came.
function parse(text) {
  const at = text.indexOf('\r\n\r\n');
  return {
    head: at < 0 ? text : text.slice(0, at),
    body: at < 0 ? '' : text.slice(at + 4),
    statusLines: (text.match(/^HTTP\/1\.[01] \d{3}/gm) || []).length,
  };
}

// The body is the API's error: {"error":{"code":CODE,"message":...}}.
function assertJsonError(text, code, what) {
  const { head, body } = parse(text);
  assert.match(head, /\r\nContent-Type: application\/json/i, `${what}: a JSON body (${head.split('\r\n')[0]})`);
  let j;
  assert.doesNotThrow(() => { j = JSON.parse(body); }, `${what}: the body parses as JSON: ${body.slice(0, 120)}`);
  assert.equal(typeof j.error?.message, 'string', `${what}: an error message`);
  if (code) assert.equal(j.error.code, code, `${what}: code`);
  return j.error;
}

const json = (s) => `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(s)}\r\n`;

describe('parsing: a request read one way only', () => {
  test('two Content-Length headers with different values: 400 in JSON, the connection closed', async () => {
    const body = '{"scenario":"default"}';
    const r = await send(`POST /api/sessions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nContent-Length: 2\r\n\r\n${body}`);
    assert.equal(r.status, 400, r.text.slice(0, 200));
    assert.match(assertJsonError(r.text, 'bad_request', 'two lengths').message, /Content-Length/);
    assert.ok(r.closed, 'the connection is closed');
  });

  test('Transfer-Encoding: chunked with Content-Length: 400 in JSON, the connection closed', async () => {
    const r = await send(`POST /api/sessions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      'Transfer-Encoding: chunked\r\nContent-Length: 30\r\n\r\n16\r\n{"scenario":"default"}\r\n0\r\n\r\n');
    assert.equal(r.status, 400, r.text.slice(0, 200));
    assert.match(assertJsonError(r.text, 'bad_request', 'TE with CL').message, /Transfer-Encoding/);
    assert.ok(r.closed, 'the connection is closed');
  });

  test('HTTP/1.1 without Host: 400 in JSON (RFC 9112, 3.2)', async () => {
    const r = await send('GET /api/health HTTP/1.1\r\n\r\n');
    assert.equal(r.status, 400, r.text.slice(0, 200));
    assert.match(assertJsonError(r.text, 'bad_request', 'no Host').message, /Host/);
    assert.ok(r.closed, 'the connection is closed');
  });

  test('two Host headers on HTTP/1.1: 400 in JSON', async () => {
    const r = await send(`GET /api/health HTTP/1.1\r\nHost: ${host}\r\nHost: other.example\r\n\r\n`);
    assert.equal(r.status, 400, r.text.slice(0, 200));
    assertJsonError(r.text, 'bad_request', 'two Hosts');
  });

  test('Content-Length: -1: one 400, the connection closed (libmicrohttpd answers it: docs/deploy.md)', async () => {
    const r = await send(`POST /api/sessions HTTP/1.1\r\nHost: ${host}\r\nContent-Length: -1\r\n\r\n`);
    assert.equal(r.status, 400);
    assert.ok(r.closed, 'the connection is closed');
  });

  test('HTTP/1.0 without Host is still answered', async () => {
    const r = await send('GET /api/health HTTP/1.0\r\n\r\n');
    assert.equal(r.status, 200, r.text.slice(0, 200));
  });

  test('Authorization: the scheme in any case (RFC 9110, 11.1)', async () => {
    const s = await session(srv.url);
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const r = await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { body: {}, headers: { authorization: `${scheme} ${s.token}` } });
      assert.equal(r.status, 200, `${scheme}: ${r.text}`);
    }
    const r = await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { body: {}, headers: { authorization: `Basic ${s.token}` } });
    assert.equal(r.status, 403, 'another scheme is no bearer token');
  });
});

describe('errors: every answer of the API in JSON', () => {
  test('a request target of 40 KB: 414 in JSON', async () => {
    const r = await send(`GET /api/health?${'a'.repeat(40000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    assert.equal(r.status, 414, r.text.slice(0, 200));
    assertJsonError(r.text, 'uri_too_long', '414');
  });

  test('a header of 30 KB: 431 in JSON', async () => {
    const r = await send(`GET /api/health HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'b'.repeat(30000)}\r\n\r\n`);
    assert.equal(r.status, 431, r.text.slice(0, 200));
    assertJsonError(r.text, 'headers_too_large', '431 (one big header)');
  });

  test('300 small headers: 431 in JSON', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `X-${i}: v\r\n`).join('');
    const r = await send(`GET /api/health HTTP/1.1\r\nHost: ${host}\r\n${many}\r\n`);
    assert.equal(r.status, 431, r.text.slice(0, 200));
    assertJsonError(r.text, 'headers_too_large', '431 (many headers)');
  });

  test('an unknown query argument is a 400 naming it, not an answer to another question', async () => {
    const s = await session(srv.url);
    for (const [p, name] of [['/api/sessions?stpe=5', 'stpe'], [`/api/sessions/${s.id}/state?att=3`, 'att'], ['/api/health?x=1', 'x'], ['/api/scenarios?limit=2', 'limit']]) {
      const r = await api(srv.url, 'GET', p);
      assert.equal(r.status, 400, `${p}: ${r.text}`);
      assert.equal(r.json.error.code, 'bad_request');
      assert.match(r.json.error.message, new RegExp(`"${name}"`), p);
    }
    const ok = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=3`);
    assert.equal(ok.status, 200, 'a declared argument still works');
  });

  test('a malformed declared argument is a 400 naming it', async () => {
    for (const [p, name] of [['/api/sessions?limit=ten', 'limit'], ['/api/gfp?mask=GFP_KERNEL&order=99', 'order'], ['/api/snapshots/import?new_id=yes', 'new_id']]) {
      const r = await api(srv.url, p.includes('import') ? 'POST' : 'GET', p, p.includes('import') ? { body: {} } : {});
      assert.equal(r.status, 400, `${p}: ${r.text}`);
      assert.match(r.json.error.message, new RegExp(`"${name}"`), p);
    }
  });

  test('the UI\'s own query strings are still taken', async () => {
    const r = await fetch(`${srv.url}/?lesson=x&slide=2`);
    await r.arrayBuffer();
    assert.ok(r.status === 200 || r.status === 404, `a static file with a query: ${r.status}`);
    const l = await api(srv.url, 'GET', '/api/snapshots?limit=5&offset=0');
    assert.equal(l.status, 200);
  });
});

describe('cost: every request bounded', () => {
  test('a gzip of nothing but newlines fails at once as too_large, naming the ratio', async () => {
    const t0 = Date.now();
    const r = await api(srv.url, 'POST', '/api/traces', { raw: bomb, headers: { 'content-type': 'application/gzip' } });
    assert.equal(r.status, 202, r.text);
    let job;
    for (let i = 0; i < 300; i++) {
      job = (await api(srv.url, 'GET', `/api/traces/${r.json.id}`)).json;
      if (job.state === 'failed' || job.state === 'done') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(job.state, 'failed', `the replay place is given back within 30 s (${Date.now() - t0} ms): ${JSON.stringify(job)}`);
    assert.equal(job.error.code, 'too_large');
    assert.match(job.error.message, /times its compressed size/);
  });


});

describe('what held, kept', () => {
  test('a write from another origin: 403; a body that is not JSON: 415', async () => {
    let r = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: 'default' }, headers: { origin: 'http://evil.example' } });
    assert.equal(r.status, 403);
    r = await api(srv.url, 'POST', '/api/sessions', { raw: '{"scenario":"default"}', headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 415);
    assert.equal(r.json.error.code, 'unsupported_media_type');
  });

  test('an upload over the cap: 413 at once, before the body', async () => {
    const r = await send(`POST /api/sessions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n`);
    assert.equal(r.status, 413);
    assertJsonError(r.text, 'too_large', '413');
  });

  test('slowloris: headers that never end are cut at --header-timeout', async () => {
    const u = new URL(srv.url);
    const t0 = Date.now();
    const closed = await new Promise((resolve) => {
      const sock = net.connect(Number(u.port), u.hostname);
      let timer;
      sock.on('connect', () => {
        sock.write('GET /api/health HTTP/1.1\r\n');
        timer = setInterval(() => sock.write('X-a: b\r\n'), 300);
      });
      sock.on('close', () => { clearInterval(timer); resolve(true); });
      sock.on('error', () => {});
      setTimeout(() => { clearInterval(timer); sock.destroy(); resolve(false); }, 8000);
    });
    assert.ok(closed, 'the server hung up');
    assert.ok(Date.now() - t0 < 6000, `within the timeout (${Date.now() - t0} ms)`);
  });

  test('path traversal: no file outside web/', async () => {
    for (const p of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/js/../../package.json']) {
      const r = await send(`GET ${p} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      assert.ok(r.status === 400 || r.status === 404, `${p}: ${r.status}`);
      assert.doesNotMatch(r.text, /root:|"devDependencies"/);
    }
  });

  test('a write without its token: 403; a presenter\'s position cannot be taken', async () => {
    const s = await session(srv.url);
    let r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { body: { ops: [] } });
    assert.equal(r.status, 403);
    r = await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { body: { to: 3 }, token: 'x'.repeat(32) });
    assert.equal(r.status, 403);
  });

  test('a scenario past the operation limit: 429, and the server stays up', async () => {
    const scn = JSON.parse(fs.readFileSync('scenarios/default.json', 'utf8'));
    scn.ops = [{ op: 'repeat', times: 100000000, ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'a' }] }];
    scn.expect = [];
    const r = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: scn } });
    assert.ok(r.status === 429 || r.status === 400, r.text);
    assert.equal((await api(srv.url, 'GET', '/api/health')).status, 200);
  });

  test('health answered within 100 ms and the RSS stayed under --memory-mb throughout', async () => {
    const st = await monitorResult();
    console.log(`# health: ${st.samples} answers, worst ${st.worstMs.toFixed(1)} ms, over ${HEALTH_MS} ms: ${st.slow.length ? st.slow.join('; ') : 'none'}; RSS at most ${(st.worstRssKb / 1024).toFixed(0)} MiB`);
    assert.ok(st.samples > 20, `health was asked (${st.samples} times)`);
    assert.deepEqual(st.stalls, [], `health within ${HEALTH_MS} ms, never late twice in a row (worst ${st.worstMs.toFixed(1)} ms)`);
    assert.ok(st.worstRssKb < MEMORY_MB * 1024, `RSS ${st.worstRssKb} kB under --memory-mb ${MEMORY_MB}`);
  });
});

// Servers of their own, with small bounds, after the monitor's verdict:
// reaching the bound is the point, and they are not the server it watches.
describe('cost: bounds reached, on servers of their own', () => {
  // the defaults a class meets, --timeout included (the watched server's is 5 s)
  test('a class of 300 behind one address, importing a snapshot each at once: every one accepted', async () => {
    const own = await start({});
    try {
      const s = await session(own.url, { scenario: 'free-storm' });
      const snap = (await api(own.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 40 } })).json;
      const file = (await api(own.url, 'GET', `/api/snapshots/${snap.id}/export`)).text;
      const statuses = {};
      const one = async () => {
        const r = await api(own.url, 'POST', '/api/snapshots/import?new_id=1', { raw: file });
        statuses[r.status] = (statuses[r.status] || 0) + 1;
      };
      for (let i = 0; i < 300; i += 30) await Promise.all(Array.from({ length: 30 }, one));
      assert.deepEqual(statuses, { 201: 300 }, 'no seat meets the limit');
    } finally {
      await own.stop();
    }
  });

  // tests/api/hall.test.mjs: a hall of 300 behind one address meets none of these
  test('one client flooding a lecture with joins, then with answers on the tokens it made: 429s at the defaults', async () => {
    const own = await start({});
    try {
      const s = await session(own.url, { scenario: 'free-storm' });
      const l = (await api(own.url, 'POST', '/api/lectures', { body: { session: s.id } })).json;
      // joins: --join-rate 600 a minute, by address (a minute's turn may let 1200 through)
      const tokens = [];
      let refused = null;
      for (let i = 0; i < 1500 && !refused; i += 50) {
        const rs = await Promise.all(Array.from({ length: 50 }, () =>
          api(own.url, 'POST', `/api/lectures/${l.id}/followers`, { body: {} })));
        for (const r of rs) {
          if (r.status === 201) tokens.push(r.json.token);
          else refused = refused || r;
        }
      }
      assert.ok(refused, `a join refused at last (${tokens.length} accepted)`);
      assert.ok(tokens.length >= 600 && tokens.length <= 1200, `${tokens.length} joins accepted`);
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.json.error.code, 'rate_limited');
      assert.match(refused.json.error.message, /--join-rate/);
      assert.match(refused.headers.get('retry-after') || '', /^\d+$/);
      // answers: each token's own two a second, and the address's --answer-rate 600 over all of them
      let ok = 0;
      refused = null;
      const t0 = Date.now();
      for (let i = 0; i < 6000 && !refused; i += 100) {
        const rs = await Promise.all(Array.from({ length: 100 }, (_, k) => api(own.url, 'POST', `/api/lectures/${l.id}/answers`,
          { body: { at: 1, choice: 'barn_full', token: tokens[(i + k) % tokens.length] } })));
        for (const r of rs) {
          if (r.status === 200) ok++;
          else if (r.status === 429 && /--answer-rate/.test(r.text)) refused = refused || r;
        }
      }
      const windows = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1;
      assert.ok(refused, `an answer refused by the address's rate at last (${ok} accepted)`);
      assert.ok(ok <= 600 * windows, `${ok} answers passed in ${windows} seconds`);
      assert.equal(refused.json.error.code, 'rate_limited');
      assert.equal((await api(own.url, 'GET', '/api/health')).status, 200);
    } finally {
      await own.stop();
    }
  });

  test('a replay past --max-trace-cpu fails as too_large, naming the CPU time', async () => {
    const small = await start({ args: ['--max-trace-cpu', '1'] });
    try {
      // plain text, so no ratio applies: 64 M blank lines cost more than a second to read
      const r = await api(small.url, 'POST', '/api/traces', { raw: Buffer.alloc(64 << 20, '\n'), headers: { 'content-type': 'text/plain' } });
      assert.equal(r.status, 202, r.text);
      let job;
      for (let i = 0; i < 300; i++) {
        job = (await api(small.url, 'GET', `/api/traces/${r.json.id}`)).json;
        if (job.state === 'failed' || job.state === 'done') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(job.state, 'failed', JSON.stringify(job));
      assert.equal(job.error.code, 'too_large');
      assert.match(job.error.message, /1 s of CPU time/);
    } finally {
      await small.stop();
    }
  });

  test('a flood of imports from one address is refused with 429 and Retry-After', async () => {
    const small = await start({ args: ['--heavy-cpu', '1', '--quota', '0'] });
    try {
      const s = await session(small.url, { scenario: 'free-storm' });
      const snap = (await api(small.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 40 } })).json;
      const file = (await api(small.url, 'GET', `/api/snapshots/${snap.id}/export`)).text;
      let refused = null, accepted = 0;
      for (let i = 0; i < 3000 && !refused; i++) {
        const r = await api(small.url, 'POST', '/api/snapshots/import?new_id=1', { raw: file });
        if (r.status === 201) accepted++;
        else refused = r;
      }
      assert.ok(refused, `refused at last (${accepted} accepted)`);
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.json.error.code, 'rate_limited');
      assert.match(refused.headers.get('retry-after') || '', /^\d+$/);
      // a token's own bucket: a write that carries one is held to a quarter
      const r = await api(small.url, 'POST', `/api/sessions/${s.id}/ops`, { body: { ops: [] }, token: s.token });
      assert.equal(r.status, 429, 'the address is out, whatever the token');
    } finally {
      await small.stop();
    }
  });
});
