// Trace jobs on two servers sharing one PostgreSQL store: a trace uploaded
// to A is replayed there, and B answers GET /api/traces/ID from the job's
// row in the store: its progress while it runs, then the session it made,
// which B opens.  B also takes the uploader's DELETE: the job stops on A
// (told by a message, or, when none came, by the row's flag at A's next
// write), and what it wrote goes.  Run by tests/pg/run.sh (SLUBLAB_TEST_PG
// set).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { PG, api, freshDb, sqlite, start, tmpdir } from '../api/lib.mjs';
import { synthTrace } from '../js/synth-trace.mjs';

const SLICE = path.resolve('tests/data/kmem-trace-slice.txt.gz');
let a, b;
before(async () => {
  assert.ok(PG, 'SLUBLAB_TEST_PG names a PostgreSQL server (tests/pg/run.sh)');
  const dir = tmpdir();
  const db = freshDb(dir, 'traces');
  a = await start({ dir, db });
  b = await start({ dir, db });
});
after(async () => { await a?.stop(); await b?.stop(); });

const upload = (srv, bytes) => api(srv.url, 'POST', '/api/traces', {
  raw: bytes, headers: { 'content-type': 'application/octet-stream' },
});

// Poll @id on @srv until it is done or failed; every answer seen.
async function poll(srv, id, ms = 300000) {
  const seen = [];
  const end = Date.now() + ms;
  for (;;) {
    const r = await api(srv.url, 'GET', `/api/traces/${id}`);
    assert.equal(r.status, 200, r.text);
    seen.push(r.json);
    if (r.json.state === 'done' || r.json.state === 'failed') return seen;
    assert.ok(Date.now() < end, `still ${r.json.state}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

test('a trace replayed on A: B reads its progress and its result, and opens its session', async (t) => {
  const r = await upload(a, synthTrace(150000));
  assert.equal(r.status, 202, r.text);
  // the row is there before the 202: B knows the job at once
  const first = await api(b.url, 'GET', `/api/traces/${r.json.id}`);
  assert.equal(first.status, 200, first.text);
  assert.equal(first.json.id, r.json.id);
  assert.equal(first.json.bytes, r.json.bytes);

  const seen = await poll(b, r.json.id);
  const last = seen.at(-1);
  assert.equal(last.state, 'done', JSON.stringify(last.error));
  // B saw the job advance, not only its end
  const running = seen.filter((x) => x.state === 'replaying' || x.state === 'building');
  assert.ok(running.length >= 2, `B saw ${running.length} answers while it ran`);
  const marks = running.map((x) => x.progress + x.phase_progress + (x.state === 'building' ? 1 : 0));
  assert.ok(marks.at(-1) > marks[0], `B's progress moved: ${marks[0]} -> ${marks.at(-1)}`);
  for (let i = 1; i < marks.length; i++) assert.ok(marks[i] >= marks[i - 1], 'progress never goes back');
  t.diagnostic(`B saw ${running.length} answers while the job ran (states: ${[...new Set(running.map((x) => x.state))].join(', ')})`);

  // the same document on both servers once it is done
  const onA = (await api(a.url, 'GET', `/api/traces/${r.json.id}`)).json;
  assert.deepEqual(last, onA);
  // and B opens the session A made
  const s = await api(b.url, 'GET', `/api/sessions/${last.session.id}`);
  assert.equal(s.status, 200, s.text);
  assert.equal(s.json.events, (await api(a.url, 'GET', `/api/sessions/${last.session.id}`)).json.events);
});

test('a failed job reads the same on both; a deleted one is gone from both', async () => {
  const bad = await upload(a, Buffer.from('# tracer: nop\nnot a kmem line\n'));
  assert.equal(bad.status, 202, bad.text);
  const seen = await poll(b, bad.json.id);
  assert.equal(seen.at(-1).state, 'failed');
  assert.equal(seen.at(-1).error.code, 'unprocessable');
  assert.deepEqual(seen.at(-1), (await api(a.url, 'GET', `/api/traces/${bad.json.id}`)).json);

  const r = await upload(a, fs.readFileSync(SLICE));
  assert.equal(r.status, 202, r.text);
  await poll(b, r.json.id);
  const del = await api(a.url, 'DELETE', `/api/traces/${r.json.id}`, { token: r.json.token });
  assert.equal(del.status, 204, del.text);
  assert.equal((await api(a.url, 'GET', `/api/traces/${r.json.id}`)).status, 404);
  assert.equal((await api(b.url, 'GET', `/api/traces/${r.json.id}`)).status, 404);
  // a job nobody ran
  assert.equal((await api(b.url, 'GET', '/api/traces/aaaaaaaaaa')).status, 404);
});

// Op log chunks no session replays: those of a job still running, or left behind.
const orphanChunks = () => Number(sqlite(a.db, 'SELECT count(*) FROM oplogs o WHERE NOT EXISTS' +
  ' (SELECT 1 FROM sessions s WHERE s.log = o.log)'));
const sessionCount = () => Number(sqlite(a.db, 'SELECT count(*) FROM sessions'));

// Wait for @what() to be true, up to @ms.
async function until(what, ms, why) {
  const end = Date.now() + ms;
  while (!(await what())) {
    assert.ok(Date.now() < end, why);
    await new Promise((res) => setTimeout(res, 50));
  }
}

// A job on A that has stored op log chunks and is still replaying; its upload's answer.
async function runningJob() {
  assert.equal(orphanChunks(), 0, 'no chunks left from before');
  const trace = synthTrace(1500000);
  let r;
  // the last test's job may still hold its replay place for a moment after
  // it reads done: a busy server answers 503 (or closes) before the body
  for (let i = 0; i < 50; i++) {
    r = await upload(a, trace).catch((e) => ({ status: 0, text: String(e) }));
    if (r.status !== 503 && r.status !== 0) break;
    await new Promise((res) => setTimeout(res, 200));
  }
  assert.equal(r.status, 202, r.text);
  await until(async () => orphanChunks() > 0, 120000, 'the job stored no op log chunk');
  const now = await api(b.url, 'GET', `/api/traces/${r.json.id}`);
  assert.equal(now.json.state, 'replaying', 'still replaying: the trace is long enough');
  return r.json;
}

// After a delete: @id is 404 on both, the job's chunks are gone and it made no session.
async function goneEverywhere(id, sessionsBefore) {
  assert.equal((await api(b.url, 'GET', `/api/traces/${id}`)).status, 404, 'B forgets it at once');
  await until(async () => (await api(a.url, 'GET', `/api/traces/${id}`)).status === 404, 10000,
    'A still answers for the job');
  await until(async () => orphanChunks() === 0, 30000, 'the job\'s op log chunks stay');
  // the job stopped: no session appears later, and its row is gone (A deleted it)
  await new Promise((res) => setTimeout(res, 500));
  assert.equal(sessionCount(), sessionsBefore, 'the cancelled job made no session');
  assert.equal(sqlite(a.db, `SELECT count(*) FROM trace_jobs WHERE id = '${id}'`), '0');
}

test('a running job on A deleted through B: it stops on A, is gone from both, its op log too', async () => {
  const before = sessionCount();
  const job = await runningJob();
  // the row keeps the token's hash, never the token
  const owner = sqlite(a.db, `SELECT owner FROM trace_jobs WHERE id = '${job.id}'`);
  assert.match(owner, /^[0-9a-f]{64}$/);
  assert.notEqual(owner, job.token);
  assert.equal(sqlite(a.db, `SELECT count(*) FROM trace_jobs WHERE token = '${job.token}'`), '0');
  // B checks the token against the row
  const none = await api(b.url, 'DELETE', `/api/traces/${job.id}`);
  assert.equal(none.status, 403, none.text);
  const wrong = await api(b.url, 'DELETE', `/api/traces/${job.id}`, { token: 'f'.repeat(32) });
  assert.equal(wrong.status, 403, wrong.text);
  assert.equal((await api(a.url, 'GET', `/api/traces/${job.id}`)).json.state, 'replaying');

  const del = await api(b.url, 'DELETE', `/api/traces/${job.id}`, { token: job.token });
  assert.equal(del.status, 204, del.text);
  await goneEverywhere(job.id, before);
  // deleting it again: gone
  assert.equal((await api(b.url, 'DELETE', `/api/traces/${job.id}`, { token: job.token })).status, 404);
  assert.equal((await api(a.url, 'DELETE', `/api/traces/${job.id}`, { token: job.token })).status, 404);
});

test('no message reaches A: the row\'s flag stops the job at A\'s next write', async () => {
  const before = sessionCount();
  const job = await runningJob();
  // what B does, without the NOTIFY: the flag alone
  sqlite(a.db, `UPDATE trace_jobs SET cancel = 1 WHERE id = '${job.id}'`);
  await goneEverywhere(job.id, before);
});

test('a finished job on A deleted through B: its session is gone from both', async () => {
  const r = await upload(a, fs.readFileSync(SLICE));
  assert.equal(r.status, 202, r.text);
  const last = (await poll(b, r.json.id)).at(-1);
  assert.equal(last.state, 'done', JSON.stringify(last.error));
  const sid = last.session.id;
  assert.equal((await api(a.url, 'GET', `/api/sessions/${sid}`)).status, 200); // A holds it
  const del = await api(b.url, 'DELETE', `/api/traces/${r.json.id}`, { token: r.json.token });
  assert.equal(del.status, 204, del.text);
  for (const srv of [a, b]) {
    await until(async () => (await api(srv.url, 'GET', `/api/traces/${r.json.id}`)).status === 404,
      10000, 'the job is still there');
    await until(async () => (await api(srv.url, 'GET', `/api/sessions/${sid}`)).status === 404,
      10000, 'its session is still there');
  }
  await until(async () => orphanChunks() === 0, 10000, 'its op log stays');
});
