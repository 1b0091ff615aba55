// tests/api/retention.test.mjs: --keep-days deletes sessions not changed
// for that many days and snapshots older than that, when the server starts
// (and hourly); without it nothing is deleted.  Time is moved by editing
// the stored timestamps, not by waiting.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';

import { api, daysAgo, freshDb, session, sqlite, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('--keep-days 2: what is 3 days old goes, what is new stays; without it all stays', async () => {
  const db = freshDb(dir, 'keep');
  let srv = await start({ dir, db });
  const old = await session(srv.url);
  const fresh = await session(srv.url);
  const oldSnap = (await api(srv.url, 'POST', '/api/snapshots', { body: { session: old.id, at: 3 } })).json;
  const freshSnap = (await api(srv.url, 'POST', '/api/snapshots', { body: { session: fresh.id, at: 3 } })).json;
  await srv.stop();

  const back = daysAgo(db, 3);
  sqlite(db, `UPDATE sessions SET created = ${back}, updated = ${back} WHERE id = '${old.id}'`);
  sqlite(db, `UPDATE snapshots SET created = ${back} WHERE id = '${oldSnap.id}'`);

  srv = await start({ dir, db }); // no --keep-days: kept
  assert.equal((await api(srv.url, 'GET', `/api/sessions/${old.id}`)).status, 200);
  assert.equal((await api(srv.url, 'GET', `/api/snapshots/${oldSnap.id}`)).status, 200);
  await srv.stop();

  srv = await start({ dir, db, args: ['--keep-days', '2'] });
  try {
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${old.id}`)).status, 404, 'the old session is gone');
    assert.equal((await api(srv.url, 'GET', `/api/snapshots/${oldSnap.id}`)).status, 404, 'the old snapshot is gone');
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${fresh.id}`)).status, 200, 'the new session stays');
    assert.equal((await api(srv.url, 'GET', `/api/snapshots/${freshSnap.id}`)).status, 200, 'the new snapshot stays');
    assert.equal(sqlite(db, `SELECT count(*) FROM batches WHERE session = '${old.id}'`), '0', 'its operations went with it');
  } finally {
    await srv.stop();
  }
});
