// Two servers on one PostgreSQL store: each serves the sessions the other
// made, and a copy held in memory is built again from the store once the
// other server appended to it.  Run by tests/pg/run.sh (SLUBLAB_TEST_PG set).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { PG, api, freshDb, session, start, tmpdir } from '../api/lib.mjs';

let a, b;
before(async () => {
  assert.ok(PG, 'SLUBLAB_TEST_PG names a PostgreSQL server (tests/pg/run.sh)');
  const dir = tmpdir();
  const db = freshDb(dir, 'multi');
  a = await start({ dir, db });
  b = await start({ dir, db });
});
after(async () => { await a?.stop(); await b?.stop(); });

const info = async (srv, id) => (await api(srv.url, 'GET', `/api/sessions/${id}`)).json;
const alloc = (name) => [{ op: 'alloc', cpu: 0, cache: 'A', name }];

test('a session made on one server is served by the other, appends included', async () => {
  const s = await session(a.url);
  const onB = await info(b, s.id);
  assert.equal(onB.events, s.events, 'B builds it from the store');
  // B now holds a copy; A appends
  const r = await api(a.url, 'POST', `/api/sessions/${s.id}/ops`, { token: s.token, body: alloc('x') });
  assert.equal(r.status, 200, r.text);
  const again = await info(b, s.id);
  assert.equal(again.events, r.json.events, 'B sees the operations A appended');
  assert.equal(again.batches, 2);
  // and the other way round, with the write token the store keeps
  const r2 = await api(b.url, 'POST', `/api/sessions/${s.id}/ops`, { token: s.token, body: alloc('y') });
  assert.equal(r2.status, 200, r2.text);
  assert.equal((await info(a, s.id)).events, r2.json.events);
  const st = await api(a.url, 'GET', `/api/sessions/${s.id}/state?at=${r2.json.events}`);
  assert.deepEqual(Object.values(st.json.names).filter((n) => n === 'x' || n === 'y').sort(), ['x', 'y']);
  // a wrong token is refused on either
  assert.equal((await api(b.url, 'POST', `/api/sessions/${s.id}/ops`, { token: '0'.repeat(32), body: alloc('z') })).status, 403);
});

test('snapshots and lectures made on one server open on the other', async () => {
  const s = await session(a.url, { scenario: 'free-storm' });
  const snap = await api(a.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 30 } });
  assert.equal(snap.status, 201, snap.text);
  const got = await api(b.url, 'GET', `/api/snapshots/${snap.json.id}`);
  assert.equal(got.status, 200, got.text);
  assert.equal(got.json.status, 'verified');
  const del = await api(b.url, 'DELETE', `/api/sessions/${s.id}`, { token: s.token });
  assert.equal(del.status, 204, del.text);
  assert.equal((await api(b.url, 'GET', `/api/sessions/${s.id}`)).status, 404);
});
