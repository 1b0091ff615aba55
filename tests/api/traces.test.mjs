// tests/api/traces.test.mjs: POST /api/traces and GET /api/traces/ID
// against a real server: a kernel trace (the committed slice of a real
// capture) is uploaded plain and gzip, replayed in the background with its
// progress readable (a large synthetic trace shows the session's build
// advancing), and opened as a session whose replay agrees with
// `slublab replay`, stored as an op log its forks share and the last of
// them deletes; bad uploads fail with their status, and no temporary
// file is left behind.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';

import { BIN, api, isError, raw, sqlite, start, statusOf, tmpdir } from './lib.mjs';
import { synthTrace } from '../js/synth-trace.mjs';

const SLICE = path.resolve('tests/data/kmem-trace-slice.txt.gz');
const dir = tmpdir();
const uploads = path.join(dir, 'tmp');
let srv;

before(async () => {
  fs.mkdirSync(uploads);
  process.env.TMPDIR = uploads; // the server's temporary files go here
  srv = await start({ dir });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function upload(bytes, query = '') {
  const send = () => api(srv.url, 'POST', `/api/traces${query}`, {
    raw: bytes, headers: { 'content-type': 'application/octet-stream' },
  });
  try {
    return await send();
  } catch (e) {
    // the kept-alive connection the request went out on was closed under it
    // (no answer at all, so no job was made): send it once more, on a new one
    if (!/UND_ERR_SOCKET|ECONNRESET|EPIPE/.test(`${e.cause?.code ?? ''}`)) throw e;
    return send();
  }
}

// Poll a job until it is done or failed; returns every state seen and the last body.
async function wait(id, ms = 120000) {
  const seen = [];
  const end = Date.now() + ms;
  for (;;) {
    const r = await api(srv.url, 'GET', `/api/traces/${id}`);
    assert.equal(r.status, 200, r.text);
    if (!seen.length || seen[seen.length - 1].state !== r.json.state) seen.push(r.json);
    if (r.json.state === 'done' || r.json.state === 'failed') return { seen, last: r.json };
    if (Date.now() > end) throw new Error(`job ${id} still ${r.json.state}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

// The cache table at the end of `slublab replay` of the same trace.
function cliCaches(file) {
  const out = execFileSync(BIN, ['replay', file], { encoding: 'utf8' });
  const rows = {};
  let inTable = false;
  for (const line of out.split('\n')) {
    if (/^cache +objects/.test(line)) { inTable = true; continue; }
    const f = line.trim().split(/ +/);
    if (inTable && f.length === 7) rows[f[0]] = { objects: Number(f[1]), total: Number(f[2]) };
  }
  return rows;
}

describe('trace uploads', () => {
  let job;

  test('gzip upload: 202, then progress, then a session', async () => {
    const bytes = fs.readFileSync(SLICE);
    const r = await upload(bytes);
    assert.equal(r.status, 202, r.text);
    assert.match(r.json.id, /^[a-z2-7]{10}$/);
    assert.equal(r.json.state, 'replaying');
    assert.equal(r.json.bytes, bytes.length);
    assert.equal(r.json.links.self, `/api/traces/${r.json.id}`);
    const { seen, last } = await wait(r.json.id);
    job = last;
    assert.equal(last.state, 'done', JSON.stringify(last.error));
    assert.equal(last.error, null);
    assert.equal(last.progress, 1);
    assert.equal(last.events, 1488);
    for (const s of seen) assert.ok(s.progress >= 0 && s.progress <= 1);
    assert.match(last.report, /1500 lines: 1488 kmem events/);
    assert.match(last.session.id, /^[a-z2-7]{10}$/);
    assert.match(last.session.token, /^[0-9a-f]{32}$/);
  });

  test('frees made through kfree_rcu: counted as the trace text counts them, and said why they replay as plain frees', () => {
    const text = zlib.gunzipSync(fs.readFileSync(SLICE)).toString();
    const want = text.split('\n').filter((l) => / (kmem_cache_free|kfree): .*call_site=(rcu_do_batch|rcu_core|kfree_rcu|kvfree_rcu|rcu_free_sheaf)/.test(l)).length;
    assert.ok(want > 0, 'the slice has frees from the RCU callbacks');
    assert.equal(job.rcu_frees, want);
    assert.match(job.report, new RegExp(`^  ${want} +frees the kernel made through kfree_rcu .*replayed as plain frees .*no grace period`, 'm'));
  });

  test('the session replays what `slublab replay` does', async () => {
    const s = await api(srv.url, 'GET', `/api/sessions/${job.session.id}`);
    assert.equal(s.status, 200, s.text);
    assert.equal(s.json.scenario.name, 'kernel-trace');
    assert.equal(s.json.machine.cpus, 2);
    const st = await api(srv.url, 'GET', `/api/sessions/${job.session.id}/state?at=${s.json.events}`);
    assert.equal(st.status, 200, st.text);
    const want = cliCaches(SLICE);
    assert.ok(Object.keys(want).length > 30);
    let compared = 0;
    for (const c of st.json.state.caches) {
      if (!want[c.name]) continue;
      assert.equal(c.objects, want[c.name].objects, `${c.name} objects`);
      assert.equal(c.total_objects, want[c.name].total, `${c.name} total_objects`);
      compared++;
    }
    assert.equal(compared, Object.keys(want).length);
    // its token writes: the session takes more operations
    const ops = await api(srv.url, 'POST', `/api/sessions/${job.session.id}/ops`, {
      token: job.session.token, body: { ops: [{ op: 'kmalloc', cpu: 0, size: 64, name: 'x' }] },
    });
    assert.equal(ops.status, 200, ops.text);
  });

  test('a large trace: each phase named, building reported as operations applied', async () => {
    // 200k events: the session's build lasts long enough to be polled
    const r = await upload(synthTrace(100000));
    assert.equal(r.status, 202, r.text);
    const samples = [];
    const end = Date.now() + 300000;
    let last;
    for (;;) {
      last = (await api(srv.url, 'GET', `/api/traces/${r.json.id}`)).json;
      samples.push(last);
      if (last.state === 'done' || last.state === 'failed') break;
      assert.ok(Date.now() < end, `still ${last.state}`);
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal(last.state, 'done', JSON.stringify(last.error));
    for (const s of samples.slice(0, -1)) {
      assert.equal(s.session, null, 'no session before done');
      assert.equal(s.phase, s.state === 'replaying' ? 'replaying the trace' : 'building the session');
      assert.ok(s.phase_progress >= 0 && s.phase_progress <= 1, `${s.phase_progress}`);
    }
    const building = samples.filter((s) => s.state === 'building');
    assert.ok(building.length > 0, 'the building phase is seen (it takes seconds)');
    const total = building[0].ops_total;
    assert.equal(total, 200001, 'the cache and 200k operations recorded');
    let prev = -1;
    for (const s of building) {
      assert.equal(s.progress, 1, 'the replay share stays at 1');
      assert.equal(s.ops_total, total);
      assert.ok(s.ops >= 0 && s.ops <= total);
      assert.ok(s.ops === total || s.ops % 1024 === 0, `reported every 1024 operations (${s.ops})`);
      assert.ok(Math.abs(s.phase_progress - s.ops / total) < 1e-12, `${s.phase_progress} is ${s.ops} / ${total}`);
      assert.ok(s.phase_progress >= prev, `monotonic: ${prev} then ${s.phase_progress}`);
      prev = s.phase_progress;
    }
    assert.ok(building.some((s) => s.phase_progress > 0 && s.phase_progress < 1),
      `a share between 0 and 1 is seen: ${building.map((s) => s.ops).join(' ')}`);
    assert.equal(last.phase, null);
    assert.equal(last.phase_progress, 1);
    assert.equal(last.ops, total);
    assert.equal(last.ops_total, total);
    assert.match(last.session.id, /^[a-z2-7]{10}$/);
    const info = await api(srv.url, 'GET', `/api/sessions/${last.session.id}`);
    assert.equal(info.status, 200, info.text);
    assert.equal(info.json.ops, total, 'the session holds every recorded operation');
  });

  test('the machine\'s caches from its /proc/slabinfo, sent before the trace (?slabinfo=N)', async () => {
    const slabinfo = fs.readFileSync(path.resolve('tests/data/proc-slabinfo.txt'));
    const r = await upload(Buffer.concat([slabinfo, fs.readFileSync(SLICE)]), `?slabinfo=${slabinfo.length}`);
    assert.equal(r.status, 202, r.text);
    const { last } = await wait(r.json.id);
    assert.equal(last.state, 'done', JSON.stringify(last.error));
    assert.equal(last.events, 1488, 'the trace after the slabinfo, every event of it');
    const end = (await api(srv.url, 'GET', `/api/sessions/${last.session.id}`)).json.events;
    const st = (await api(srv.url, 'GET', `/api/sessions/${last.session.id}/state?at=${end}`)).json.state;
    // each line: name active num objsize objperslab pagesperslab ...
    for (const name of ['filp', 'task_struct', 'names_cache']) {
      const f = slabinfo.toString().split('\n').find((l) => l.startsWith(`${name} `)).trim().split(/ +/);
      const c = st.caches.find((x) => x.name === name);
      assert.ok(c, `${name} is in the session`);
      assert.equal(c.objs_per_slab, Number(f[4]), `${name}: objects a slab as slabinfo says`);
      assert.equal(1 << c.order, Number(f[5]), `${name}: pages a slab as slabinfo says`);
    }
    // not a slabinfo, or all of the body: refused
    const bad = await upload(Buffer.concat([Buffer.from('hello\n'), fs.readFileSync(SLICE)]), '?slabinfo=6');
    assert.equal(bad.status, 202, bad.text);
    const b = await wait(bad.json.id);
    assert.equal(b.last.state, 'failed');
    assert.equal(b.last.error.code, 'unprocessable');
    assert.match(b.last.error.message, /not a \/proc\/slabinfo version 2\.1 file/);
    const whole = await upload(slabinfo, `?slabinfo=${slabinfo.length}`);
    assert.equal(whole.status, 400, whole.text);
  });

  test('plain text upload: the same events', async () => {
    const r = await upload(zlib.gunzipSync(fs.readFileSync(SLICE)));
    assert.equal(r.status, 202, r.text);
    const { last } = await wait(r.json.id);
    assert.equal(last.state, 'done');
    assert.equal(last.events, 1488);
  });

  test('garbage: failed, with the report', async () => {
    const r = await upload(Buffer.from('this is\nnot a trace\n'));
    assert.equal(r.status, 202);
    const { last } = await wait(r.json.id);
    assert.equal(last.state, 'failed');
    assert.equal(last.error.code, 'unprocessable');
    assert.match(last.error.message, /no kmem events/);
    assert.match(last.report, /\b2 +unreadable lines/);
    assert.equal(last.session, null);
  });

  test('a gzip stream cut short: failed, says so', async () => {
    const bytes = fs.readFileSync(SLICE);
    const r = await upload(bytes.subarray(0, bytes.length >> 1));
    assert.equal(r.status, 202);
    const { last } = await wait(r.json.id);
    assert.equal(last.state, 'failed');
    assert.match(last.error.message, /cut short/);
  });

  test('bad requests', async () => {
    let r = await upload(Buffer.alloc(0));
    assert.equal(r.status, 400);
    assert.ok(isError(r, 'bad_request'));
    r = await upload(fs.readFileSync(SLICE), '?model=nonesuch');
    assert.equal(r.status, 400);
    assert.ok(isError(r, 'bad_request'));
    r = await upload(fs.readFileSync(SLICE), '?cpus=65');
    assert.equal(r.status, 400);
    r = await api(srv.url, 'GET', '/api/traces/zzzzzzzzzz');
    assert.equal(r.status, 404);
    assert.ok(isError(r, 'not_found'));
    r = await api(srv.url, 'GET', '/api/traces/NOT-AN-ID');
    assert.equal(r.status, 404);
    r = await api(srv.url, 'DELETE', '/api/traces/zzzzzzzzzz');
    assert.equal(r.status, 404, 'DELETE of no such trace');
    r = await api(srv.url, 'PUT', '/api/traces/zzzzzzzzzz');
    assert.equal(r.status, 405);
  });

  test('over 256 MiB: 413 before the body is sent', async () => {
    const host = new URL(srv.url).host;
    const resp = await raw(srv.url, `POST /api/traces HTTP/1.1\r\nHost: ${host}\r\n` +
      'Content-Length: 268435457\r\n\r\n');
    assert.equal(statusOf(resp), 413, resp);
    assert.match(resp, /"code":"too_large"/);
    assert.match(resp, /256 MiB/);
  });

  test('more operations than a session may hold: session_limit, early', async () => {
    const small = await start({ args: ['--max-ops', '200'] });
    try {
      const r = await api(small.url, 'POST', '/api/traces', { raw: fs.readFileSync(SLICE) });
      assert.equal(r.status, 202);
      let job;
      for (let i = 0; i < 600; i++) {
        job = (await api(small.url, 'GET', `/api/traces/${r.json.id}`)).json;
        if (job.state === 'failed' || job.state === 'done') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(job.state, 'failed');
      assert.equal(job.error.code, 'session_limit');
      assert.match(job.error.message, /more than 200 operations/);
    } finally {
      await small.stop();
    }
  });

  test('every replay place taken: the next upload is 503 before its body is sent, Retry-After: 5', async () => {
    const net = await import('node:net');
    const { port, host } = new URL(srv.url);
    // two uploads that have sent their headers and a first byte, and hold
    // the two replay places while the rest "arrives"
    const holders = [0, 1].map(() => {
      const sock = net.connect(Number(port), '127.0.0.1');
      sock.on('error', () => {});
      sock.on('connect', () => sock.write(`POST /api/traces HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 1000000\r\n\r\nx`));
      return sock;
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const resp = await raw(srv.url, `POST /api/traces HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 1000000\r\n\r\n`, 3000);
      assert.equal(statusOf(resp), 503, resp);
      assert.match(resp, /\r\nRetry-After: 5\r\n/i);
      assert.match(resp, /"code":"busy"/);
    } finally {
      for (const s of holders) s.destroy();
    }
    // the places come back when the holders go
    let r;
    for (let i = 0; i < 50; i++) {
      r = await upload(fs.readFileSync(SLICE));
      if (r.status === 202) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(r.status, 202, r.text);
    await wait(r.json.id);
  });

  test('a gzip that expands past --max-trace-text fails as too_large, early', async () => {
    const small = await start({ args: ['--max-trace-text', '1'] });
    try {
      const bomb = zlib.gzipSync(Buffer.alloc(64 << 20, '# a comment line that repeats and repeats\n'));
      assert.ok(bomb.length < 1 << 20, `a small upload (${bomb.length} bytes)`);
      const r = await api(small.url, 'POST', '/api/traces', { raw: bomb, headers: { 'content-type': 'application/gzip' } });
      assert.equal(r.status, 202, r.text);
      let job;
      for (let i = 0; i < 300; i++) {
        job = (await api(small.url, 'GET', `/api/traces/${r.json.id}`)).json;
        if (job.state === 'failed' || job.state === 'done') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(job.state, 'failed');
      assert.equal(job.error.code, 'too_large');
      assert.match(job.error.message, /passes 1 MiB/);
    } finally {
      await small.stop();
    }
  });

  test('the uploader may delete the trace: its job stops, or its session goes', async () => {
    // a finished one: the session it made is deleted with it
    let r = await upload(fs.readFileSync(SLICE));
    assert.equal(r.status, 202, r.text);
    assert.match(r.json.token, /^[0-9a-f]{32}$/);
    const { last } = await wait(r.json.id);
    assert.equal(last.state, 'done');
    assert.equal(last.token, undefined, 'the upload token is given once, to the uploader');
    let del = await api(srv.url, 'DELETE', `/api/traces/${r.json.id}`);
    assert.equal(del.status, 403, 'not without its token');
    del = await api(srv.url, 'DELETE', `/api/traces/${r.json.id}`, { token: last.session.token });
    assert.equal(del.status, 403, 'nor with the session\'s');
    del = await api(srv.url, 'DELETE', `/api/traces/${r.json.id}`, { token: r.json.token });
    assert.equal(del.status, 204, del.text);
    assert.equal((await api(srv.url, 'GET', `/api/traces/${r.json.id}`)).status, 404);
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${last.session.id}`)).status, 404, 'its session is gone');

    // a running one: it stops and makes no session
    r = await upload(zlib.gzipSync(synthTrace(300000)));
    assert.equal(r.status, 202, r.text);
    del = await api(srv.url, 'DELETE', `/api/traces/${r.json.id}`, { token: r.json.token });
    assert.equal(del.status, 204, del.text);
    assert.equal((await api(srv.url, 'GET', `/api/traces/${r.json.id}`)).status, 404);
    const before = (await api(srv.url, 'GET', '/api/sessions?limit=1')).json.total;
    await new Promise((res) => setTimeout(res, 1500));
    assert.equal((await api(srv.url, 'GET', '/api/sessions?limit=1')).json.total, before, 'no session appeared');
    if (!process.env.SLUBLAB_TEST_PG) {
      assert.equal(sqlite(srv.db, 'SELECT count(*) FROM oplogs WHERE log NOT IN'
        + ' (SELECT log FROM sessions WHERE log IS NOT NULL)'), '0', 'no op log chunk left by the deleted jobs');
    }
  });

  test('a trace session replays an op log in the store, shared by its forks, deleted with the last', async () => {
    const r = await upload(fs.readFileSync(SLICE));
    assert.equal(r.status, 202, r.text);
    const { last } = await wait(r.json.id);
    assert.equal(last.state, 'done', JSON.stringify(last.error));
    const { id, token } = last.session;
    const info = await api(srv.url, 'GET', `/api/sessions/${id}`);
    const half = Math.floor(info.json.events / 2);
    const logOf = (sid) => sqlite(srv.db, `SELECT log FROM sessions WHERE id = '${sid}'`);
    const chunks = (log) => Number(sqlite(srv.db, `SELECT count(*) FROM oplogs WHERE log = '${log}'`));
    let log = null;
    if (!process.env.SLUBLAB_TEST_PG) {
      log = logOf(id);
      assert.match(log, /^[a-z0-9]{10}$/, 'the session names its op log');
      assert.ok(chunks(log) > 0, 'the log is in the database');
      assert.ok(Number(sqlite(srv.db, `SELECT length(c.text) FROM sessions s JOIN scenarios c ON c.id = s.scenario WHERE s.id = '${id}'`)) < 4096,
        'the scenario holds the machine, not the operations');
    }
    const fork = await api(srv.url, 'POST', `/api/sessions/${id}/fork`, { body: { at: half } });
    assert.equal(fork.status, 201, fork.text);
    const a = await api(srv.url, 'GET', `/api/sessions/${id}/state?at=${half}`);
    const b = await api(srv.url, 'GET', `/api/sessions/${fork.json.id}/state?at=${half}`);
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(b.json.state, a.json.state, 'the fork shows the same state');
    if (log) assert.equal(logOf(fork.json.id), log, 'the fork replays the same log');
    // compare runs the op log again under each side (session/rerun.c), no longer a 422
    const cmp = await api(srv.url, 'GET', `/api/compare?session=${id}&variant=BARN_REFILL`);
    assert.equal(cmp.status, 200, cmp.text);
    assert.equal(cmp.json.session, id);
    assert.ok(cmp.json.rows.length > 50);
    // without a cache, `slublab compare TRACE` compares the one /api/compare picks
    const cli = JSON.parse(execFileSync(BIN, ['compare', SLICE, '--variant', 'BARN_REFILL', '--json'], { encoding: 'utf8' }));
    assert.equal(cli.cache, cmp.json.cache, 'the CLI and the API compare the same cache');
    let del = await api(srv.url, 'DELETE', `/api/sessions/${id}`, { token });
    assert.equal(del.status, 204, del.text);
    if (log) assert.ok(chunks(log) > 0, 'the log stays while the fork replays it');
    del = await api(srv.url, 'DELETE', `/api/sessions/${fork.json.id}`, { token: fork.json.token });
    assert.equal(del.status, 204, del.text);
    if (log) assert.equal(chunks(log), 0, 'the log goes with the last session');
  });

  test('no temporary file left behind', async () => {
    assert.deepEqual(fs.readdirSync(uploads).filter((f) => f.startsWith('slublab-trace-')), []);
  });
});
