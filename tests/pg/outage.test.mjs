// A PostgreSQL store that is not there, or goes away under a running
// server: a clear message at start, 503 `unavailable` while it is away
// (the server keeps running and serves what needs no database), and
// everything back once it returns.  This test stops and starts a cluster
// of its own (tests/pg/cluster.sh), not the one the other tests share.
// Run by tests/pg/run.sh (SLUBLAB_TEST_PG set).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { BIN, PG, api, session, sqlite, start, tmpdir } from '../api/lib.mjs';

const cluster = path.resolve(path.dirname(new URL(import.meta.url).pathname), 'cluster.sh');
let dir, url;
before(() => {
  assert.ok(PG, 'SLUBLAB_TEST_PG names a PostgreSQL server (tests/pg/run.sh)');
  dir = tmpdir('slublab-pg-outage-');
  url = execFileSync(cluster, ['start', dir], { encoding: 'utf8' }).trim();
});
after(() => {
  if (dir) {
    spawnSync(cluster, ['stop', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a connection string that leads nowhere: a clear message and a failing exit status, no crash', () => {
  for (const db of ['postgresql://postgres@%2Fnonexistent%2Fsocket/slublab',
    'postgresql://nohost.invalid/slublab', 'postgresql://postgres@%2Ftmp/no?sslmode=bogus']) {
    const r = spawnSync(BIN, ['serve', '--port', '0', '--db', db, '--quiet'], { encoding: 'utf8', timeout: 30000 });
    assert.equal(r.signal, null, `${db}: ${r.stderr}`);
    assert.ok(r.status > 0, `${db}: ${r.stderr}`);
    assert.match(r.stderr, /cannot connect/, db);
    assert.equal(r.stdout, '', 'it never listened');
  }
  // a database that is not there (the server is)
  const r = spawnSync(BIN, ['serve', '--port', '0', '--db', url.replace(/\/postgres$/, '/nosuchdb'), '--quiet'],
    { encoding: 'utf8', timeout: 30000 });
  assert.ok(r.status > 0, r.stderr);
  assert.match(r.stderr, /cannot connect.*database "nosuchdb" does not exist/s);
});

test('the database stopped under a running server: 503 unavailable, then back when it is', async () => {
  const srv = await start({ db: url });
  try {
    const s = await session(srv.url);
    const snap = await api(srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 5 } });
    assert.equal(snap.status, 201, snap.text);

    execFileSync(cluster, ['stop', dir]);
    // what needs the store: 503 with the reason and a Retry-After, never a crash
    const needs = [
      ['POST', '/api/sessions', { body: { scenario: 'default' } }],
      ['GET', `/api/snapshots/${snap.json.id}`, {}],
      ['GET', '/api/sessions', {}],
      ['POST', '/api/snapshots', { body: { session: s.id, at: 3 } }],
      ['GET', '/api/sessions/aaaaaaaaaa', {}],
    ];
    for (const [method, p, opts] of needs) {
      const r = await api(srv.url, method, p, opts);
      assert.equal(r.status, 503, `${method} ${p}: ${r.text}`);
      assert.equal(r.json.error.code, 'unavailable', `${method} ${p}`);
      assert.match(r.json.error.message, /database is unavailable/);
      assert.ok(Number(r.headers.get('retry-after')) > 0);
    }
    // what does not: answered as ever
    assert.equal((await api(srv.url, 'GET', '/api/health')).status, 200);
    assert.equal((await api(srv.url, 'GET', '/api/scenarios')).status, 200);
    assert.equal(srv.proc.exitCode, null, 'the server runs on');

    execFileSync(cluster, ['resume', dir]);
    const again = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: 'default' } });
    assert.equal(again.status, 201, again.text);
    const got = await api(srv.url, 'GET', `/api/snapshots/${snap.json.id}`);
    assert.equal(got.status, 200, got.text);
    const ops = await api(srv.url, 'POST', `/api/sessions/${again.json.id}/ops`,
      { token: again.json.token, body: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'back' }] });
    assert.equal(ops.status, 200, ops.text);
  } finally {
    assert.equal((await srv.stop()).code, 0, srv.stderr());
  }
});

test('a follower on B hears A again once the database is back (the listening connection is opened again)', async () => {
  const a = await start({ db: url });
  const b = await start({ db: url });
  try {
    const s = await session(a.url);
    const ctl = new AbortController();
    const r = await fetch(`${b.url}/api/sessions/${s.id}/follow`, { signal: ctl.signal });
    const reader = r.body.getReader();
    let text = '';
    (async () => {
      try { for (;;) { const c = await reader.read(); if (c.done) return; text += Buffer.from(c.value).toString(); } } catch { /* aborted */ }
    })();
    execFileSync(cluster, ['stop', dir]);
    execFileSync(cluster, ['resume', dir]);
    // B opens its listening connection again within a second or so; step
    // on A until B's follower hears a move (each step is a new position)
    let heard = false;
    for (let i = 1; i <= 60 && !heard; i++) {
      const to = i % 30 + 1;
      const st = await api(a.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to, state: false } });
      if (st.status !== 200) continue; // A's own connection may be the one reopened now
      await new Promise((res) => setTimeout(res, 500));
      heard = text.includes(`"at":${to},`);
    }
    ctl.abort();
    assert.ok(heard, `B's follower heard nothing after the database came back: ${text}; B: ${b.stderr()}`);
    assert.match(b.stderr(), /listening again/);
  } finally {
    await a.stop();
    await b.stop();
  }
});

test('a move made on A while the database is away is stored and reaches B\'s follower once it is back', async () => {
  const a = await start({ db: url });
  const b = await start({ db: url });
  try {
    const s = await session(a.url);
    const ctl = new AbortController();
    const r = await fetch(`${b.url}/api/sessions/${s.id}/follow`, { signal: ctl.signal });
    assert.equal(r.status, 200);
    const reader = r.body.getReader();
    let text = '';
    (async () => {
      try { for (;;) { const c = await reader.read(); if (c.done) return; text += Buffer.from(c.value).toString(); } } catch { /* aborted */ }
    })();
    const first = await api(a.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: 3, state: false } });
    assert.equal(first.status, 200, first.text);
    for (let i = 0; i < 100 && !text.includes('"at":3,'); i++) await new Promise((res) => setTimeout(res, 100));
    assert.ok(text.includes('"at":3,'), `B's follower heard the move before the outage: ${text}`);

    execFileSync(cluster, ['stop', dir]);
    // A holds the session: the presenter goes on stepping, unstored and unsent
    const moved = await api(a.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: 17, state: false } });
    assert.equal(moved.status, 200, moved.text);
    await new Promise((res) => setTimeout(res, 1500));
    assert.ok(!text.includes('"at":17,'), 'nothing reached B while the database was away');

    execFileSync(cluster, ['resume', dir]);
    // no further move on A: the move made during the outage arrives by itself
    for (let i = 0; i < 200 && !text.includes('"at":17,'); i++) await new Promise((res) => setTimeout(res, 100));
    ctl.abort();
    assert.ok(text.includes('"at":17,'), `B's follower never heard the move made during the outage: ${text}; A: ${a.stderr()}`);
    assert.equal(sqlite(url, `SELECT position FROM sessions WHERE id = '${s.id}'`), '17', 'the position is stored');
    // a follower that joins B now starts there too (from the store)
    const late = await fetch(`${b.url}/api/sessions/${s.id}/follow`);
    const lr = late.body.getReader();
    const firstMsg = Buffer.from((await lr.read()).value).toString();
    await lr.cancel();
    assert.match(firstMsg, /"at":17,/);
  } finally {
    await a.stop();
    await b.stop();
  }
});
