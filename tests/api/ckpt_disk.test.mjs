// The checkpoint disk tier (docs/api.md, "Sessions, checkpoints and
// limits"): a trace session built by server A keeps machine images in the
// store; server B on the same database (a restart of A on SQLite, a second
// server beside A on PostgreSQL, when SLUBLAB_TEST_PG is set) opens the
// session from them without replaying its log from the start, seeks from
// them, and gives states byte for byte equal to server C, which keeps no
// images (--stored-checkpoint-ops 0) and replays the log.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { api, isPg, sqlite, start, tmpdir } from '../api/lib.mjs';
import { synthTrace } from '../js/synth-trace.mjs';

const ALLOCS = 30000; // 60,000 events and operations
const EVERY = 4000;   // operations between stored images, at least
const small = ['--session-memory', '24', '--stored-checkpoint-ops', String(EVERY)];
let a, b, c, id, token, db;

// Poll trace job @job on @srv until it is done; its last answer.
async function done(srv, job) {
  const end = Date.now() + 300000;
  for (;;) {
    const r = await api(srv.url, 'GET', `/api/traces/${job}`);
    assert.equal(r.status, 200, r.text);
    if (r.json.state === 'done' || r.json.state === 'failed') return r.json;
    assert.ok(Date.now() < end, `still ${r.json.state}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

before(async () => {
  const dir = tmpdir();
  a = await start({ dir, args: small });
  const up = await api(a.url, 'POST', '/api/traces', {
    raw: synthTrace(ALLOCS, 3000), headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(up.status, 202, up.text);
  const job = await done(a, up.json.id);
  assert.equal(job.state, 'done', JSON.stringify(job.error));
  id = job.session.id;
  token = job.session.token;
  db = a.db;
});
after(async () => { await a?.stop(); await b?.stop(); await c?.stop(); });

const info = async (srv) => {
  const r = await api(srv.url, 'GET', `/api/sessions/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.json;
};

test('the build keeps images in the store, spaced by operations', async () => {
  const s = await info(a);
  assert.ok(s.ops >= 2 * ALLOCS, `${s.ops} operations`);
  const ck = s.checkpoints;
  // images at least EVERY operations apart (the thinned ones between), and the end
  assert.ok(ck.written >= 2 && ck.written <= 2 * Math.ceil(s.ops / EVERY) + 1, JSON.stringify(ck));
  assert.equal(ck.stored, ck.written);
  assert.equal(ck.build_loaded, false);
  assert.equal(ck.build_replayed, s.ops);
  assert.equal(Number(sqlite(db, 'SELECT count(*) FROM ckpts')), ck.written);
  assert.ok(Number(sqlite(db, 'SELECT count(*) FROM ckpt_pages')) > 0, 'pages are stored');
  // the session's row names the images' owner, so they go with it
  assert.match(sqlite(db, `SELECT ckpts FROM sessions WHERE id = '${id}'`), /^[0-9a-f]{32}$/);
});

test('another server opens the session from the store, without replaying the log', async () => {
  if (!isPg(db)) { await a.stop(); a = null; } // SQLite: a restart on the same file
  b = await start({ dir: tmpdir(), db, args: small });
  const s = await info(b);
  const ck = s.checkpoints;
  assert.equal(ck.build_loaded, true, JSON.stringify(ck));
  assert.equal(ck.build_replayed, 0, 'no operation of the log was replayed to open it');
  assert.ok(ck.stored >= 2, JSON.stringify(ck));
  assert.equal(ck.written, 0, 'nothing written again');
});

test('its seeks equal a server that keeps no images, and load images on the way', async () => {
  c = await start({ dir: tmpdir(), db, args: ['--session-memory', '24', '--stored-checkpoint-ops', '0'] });
  const s = await info(b);
  const n = s.events;
  const fresh = await info(c);
  assert.equal(fresh.events, n);
  assert.equal(fresh.checkpoints.build_loaded, false);
  assert.equal(fresh.checkpoints.build_replayed, s.ops);
  let x = 11;
  const at = new Set([0, 1, Math.floor(n / 2), n - 1, n]);
  while (at.size < 12) { x = (x * 48271) % 2147483647; at.add(x % n); }
  for (const p of [...at].sort((u, v) => v - u)) {
    const one = await api(b.url, 'GET', `/api/sessions/${id}/state?at=${p}`);
    const two = await api(c.url, 'GET', `/api/sessions/${id}/state?at=${p}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(two.status, 200, two.text);
    assert.ok(one.text === two.text, `the state at ${p} differs from a replay's`);
  }
  const after = (await info(b)).checkpoints;
  assert.ok(after.loaded >= 2, `seeks loaded ${after.loaded} images`);
  assert.equal((await info(c)).checkpoints.loaded, 0);
});

test('the images go with the last session using them', async () => {
  const del = await api(b.url, 'DELETE', `/api/sessions/${id}`, { token });
  assert.ok(del.status === 200 || del.status === 204, del.text);
  assert.equal(Number(sqlite(db, 'SELECT count(*) FROM ckpts')), 0);
  assert.equal(Number(sqlite(db, 'SELECT count(*) FROM ckpt_pages')), 0);
});
