// tests/api/retention.test.mjs: --keep-days deletes sessions not changed
// for that many days and snapshots older than that, when the server starts
// (and hourly); without it nothing is deleted.  The rows of trace jobs
// (kept for the servers sharing a store) go after --keep-trace-days (7 by
// default), and a job left running by a server that stopped is failed
// after 10 minutes without a write.  Time is moved by editing the stored
// timestamps, not by waiting.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';

import { api, daysAgo, freshDb, isPg, session, sqlite, start, tmpdir } from './lib.mjs';

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

test('trace jobs\' rows: finished ones expire after --keep-trace-days, a stopped server\'s running ones fail', async () => {
  const db = freshDb(dir, 'jobs');
  let srv = await start({ dir, db });
  await srv.stop();
  // rows as servers write them, aged by hand
  const row = (id, state, days, cancel = 0) => sqlite(db, 'INSERT INTO trace_jobs (id, state, cancel,' +
    ` created, updated) VALUES ('${id}', '${state}', ${cancel}, ${daysAgo(db, days)}, ${daysAgo(db, days)})`);
  const minutes = (m) => m / 1440;
  row('olddone001', 'done', 8);
  row('oldfail001', 'failed', 8);
  row('newdone001', 'done', 6);
  row('stalejob01', 'replaying', minutes(11));
  row('stalejob02', 'building', 3);
  row('livejob001', 'replaying', minutes(1));
  row('cancelled1', 'replaying', minutes(11), 1); // a DELETE nobody acted on
  row('cancelled2', 'replaying', minutes(1), 1); // one its server may still act on
  const state = (id) => sqlite(db, `SELECT state FROM trace_jobs WHERE id = '${id}'`);

  srv = await start({ dir, db, args: ['--keep-trace-days', '0'] }); // finished rows kept
  try {
    assert.equal(state('olddone001'), 'done');
    assert.equal(state('stalejob01'), 'failed', 'the stopped server\'s job failed');
    assert.equal(state('stalejob02'), 'failed');
    assert.match(sqlite(db, "SELECT code || ': ' || message FROM trace_jobs WHERE id = 'stalejob01'"),
      /^internal: the server that ran the replay stopped/);
    assert.equal(state('livejob001'), 'replaying', 'a job written a minute ago runs on');
    assert.equal(state('cancelled1'), '', 'a cancel request nobody acted on goes');
    assert.equal(state('cancelled2'), 'replaying');
    if (isPg(db)) { // the other servers answer from the row
      const r = await api(srv.url, 'GET', '/api/traces/stalejob01');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.state, 'failed');
      assert.match(r.json.error.message, /server that ran the replay stopped/);
      assert.equal((await api(srv.url, 'GET', '/api/traces/cancelled2')).status, 404, 'deleted: gone');
    }
  } finally {
    await srv.stop();
  }

  srv = await start({ dir, db }); // the default: 7 days
  try {
    assert.equal(state('olddone001'), '', 'a job finished 8 days ago is forgotten');
    assert.equal(state('oldfail001'), '');
    assert.equal(state('newdone001'), 'done', 'one finished 6 days ago is kept');
    assert.equal(state('stalejob01'), 'failed', 'failed just now: kept');
    assert.equal(state('livejob001'), 'replaying');
  } finally {
    await srv.stop();
  }
  srv = await start({ dir, db, args: ['--keep-trace-days', '5'] });
  await srv.stop();
  assert.equal(state('newdone001'), '', '--keep-trace-days 5: the 6-day-old row goes');
});
