// tests/api/snapshots.test.mjs: a snapshot is replayed to check it once
// per engine version, not on every GET: the verdict is kept in the store.
// Shown without timings: once checked, a snapshot whose stored inputs are
// then broken still reads as verified; a verdict of another engine version
// is checked again, and then the broken inputs show.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';

import { api, session, sqlite, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv;

before(async () => {
  srv = await start({ dir });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a snapshot is checked once, and again for another engine version', async () => {
  const s = await session(srv.url, { scenario: 'free-storm' });
  const snap = await api(srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 40, title: 't' } });
  assert.equal(snap.status, 201, snap.text);
  const id = snap.json.id;
  assert.equal(sqlite(srv.db, `SELECT count(*) FROM snapshots WHERE id = '${id}' AND check_engine IS NULL`), '1', 'not checked before it is read');

  const first = await Promise.all(Array.from({ length: 8 }, () => api(srv.url, 'GET', `/api/snapshots/${id}`)));
  for (const r of first) {
    assert.equal(r.status, 200);
    assert.equal(r.json.status, 'verified');
  }
  const engine = first[0].json.engine.current;
  assert.equal(sqlite(srv.db, `SELECT check_engine || '/' || check_status FROM snapshots WHERE id = '${id}'`), `${engine}/verified`);

  // break the stored inputs: a replay would now fail
  sqlite(srv.db, `UPDATE snapshots SET batches = '[{"ops":[{"op":"explode"}],"limit":null}]' WHERE id = '${id}'`);
  const again = await api(srv.url, 'GET', `/api/snapshots/${id}`);
  assert.equal(again.json.status, 'verified', 'the kept verdict is used: no replay');
  assert.deepEqual(again.json.state, first[0].json.state);

  // a verdict of another engine version is not this engine's: checked again
  sqlite(srv.db, `UPDATE snapshots SET check_engine = '0.0.0-other' WHERE id = '${id}'`);
  const rechecked = await api(srv.url, 'GET', `/api/snapshots/${id}`);
  assert.equal(rechecked.json.status, 'stored');
  assert.equal(rechecked.json.read_only, true);
  assert.match(rechecked.json.warning, /no longer replay/);
  assert.equal(sqlite(srv.db, `SELECT check_engine || '/' || check_status FROM snapshots WHERE id = '${id}'`), `${engine}/stored`);
});
