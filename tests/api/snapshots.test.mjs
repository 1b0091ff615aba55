// tests/api/snapshots.test.mjs: a snapshot is replayed to check it once
// per engine version, not on every GET: the verdict is kept in the store.
// Shown without timings: once checked, a snapshot whose stored inputs are
// then broken still reads as verified; a verdict of another engine version
// is checked again, and then the broken inputs show.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api, serverFixture, session, sqlite, start } from './lib.mjs';

const fx = serverFixture();

test('a snapshot is checked once, and again for another engine version', async () => {
  const s = await session(fx.srv.url, { scenario: 'free-storm' });
  const snap = await api(fx.srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 40, title: 't' } });
  assert.equal(snap.status, 201, snap.text);
  const id = snap.json.id;
  assert.equal(sqlite(fx.srv.db, `SELECT count(*) FROM snapshots WHERE id = '${id}' AND check_engine IS NULL`), '1', 'not checked before it is read');

  const first = await Promise.all(Array.from({ length: 8 }, () => api(fx.srv.url, 'GET', `/api/snapshots/${id}`)));
  for (const r of first) {
    assert.equal(r.status, 200);
    assert.equal(r.json.status, 'verified');
  }
  const engine = first[0].json.engine.current;
  assert.equal(sqlite(fx.srv.db, `SELECT check_engine || '/' || check_status FROM snapshots WHERE id = '${id}'`), `${engine}/verified`);

  // break the stored inputs: a replay would now fail
  sqlite(fx.srv.db, `UPDATE snapshots SET batches = '[{"ops":[{"op":"explode"}],"limit":null}]' WHERE id = '${id}'`);
  const again = await api(fx.srv.url, 'GET', `/api/snapshots/${id}`);
  assert.equal(again.json.status, 'verified', 'the kept verdict is used: no replay');
  assert.deepEqual(again.json.state, first[0].json.state);

  // a verdict of another engine version is not this engine's: checked again
  sqlite(fx.srv.db, `UPDATE snapshots SET check_engine = '0.0.0-other' WHERE id = '${id}'`);
  const rechecked = await api(fx.srv.url, 'GET', `/api/snapshots/${id}`);
  assert.equal(rechecked.json.status, 'stored');
  assert.equal(rechecked.json.read_only, true);
  assert.match(rechecked.json.warning, /no longer replay/);
  assert.equal(sqlite(fx.srv.db, `SELECT check_engine || '/' || check_status FROM snapshots WHERE id = '${id}'`), `${engine}/stored`);
});

test('a snapshot kept before state answers carried object names still verifies', async () => {
  const s = await session(fx.srv.url, { scenario: 'free-storm' });
  const snap = (await api(fx.srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 60 } })).json;
  const stored = sqlite(fx.srv.db, `SELECT state FROM snapshots WHERE id = '${snap.id}'`);
  const doc = JSON.parse(stored);
  assert.ok(Object.keys(doc.names).length > 0, 'free-storm names its objects at 60');
  // as an older slublab stored it: the same answer without "names"
  delete doc.names;
  const old = JSON.stringify(doc).replaceAll("'", "''");
  sqlite(fx.srv.db, `UPDATE snapshots SET state = '${old}' WHERE id = '${snap.id}'`);
  const r = await api(fx.srv.url, 'GET', `/api/snapshots/${snap.id}`);
  assert.equal(r.json.status, 'verified', r.text);
  // while a stored state that really differs does not
  const other = (await api(fx.srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 61 } })).json;
  doc.at = 61;
  sqlite(fx.srv.db, `UPDATE snapshots SET state = '${JSON.stringify(doc).replaceAll("'", "''")}' WHERE id = '${other.id}'`);
  assert.equal((await api(fx.srv.url, 'GET', `/api/snapshots/${other.id}`)).json.status, 'stored');
});

test('a snapshot is listed for everyone only once its author publishes it', async () => {
  const s = await session(fx.srv.url, { scenario: 'free-storm' });
  const a = (await api(fx.srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 10, title: 'a' } })).json;
  const b = (await api(fx.srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 20, title: 'b' } })).json;
  const pub = async () => (await api(fx.srv.url, 'GET', '/api/snapshots?limit=1000')).json.snapshots.map((x) => x.id);
  assert.ok(!(await pub()).includes(a.id) && !(await pub()).includes(b.id), 'unlisted until published');

  // publishing needs the token
  const put = (id, token, published) => api(fx.srv.url, 'PUT', `/api/snapshots/${id}/published`, { token, body: { published } });
  assert.equal((await put(a.id, null, true)).status, 403);
  assert.equal((await put(a.id, b.token, true)).status, 403);
  assert.equal((await put(a.id, a.token, 'yes')).status, 400);
  assert.equal((await put('nosuchsnap', a.token, true)).status, 404);
  const r = await put(a.id, a.token, true);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, { id: a.id, published: true });
  assert.ok((await pub()).includes(a.id));
  assert.ok(!(await pub()).includes(b.id));
  assert.equal((await api(fx.srv.url, 'GET', `/api/snapshots/${a.id}`)).json.published, true);

  // a browser's list: the published ones and those whose tokens it holds
  const list = async (tokens) => (await api(fx.srv.url, 'POST', '/api/snapshots/list', { body: { tokens } })).json;
  const ofB = await list({ [b.id]: b.token });
  assert.deepEqual(ofB.snapshots.filter((x) => [a.id, b.id].includes(x.id)).map((x) => [x.id, x.mine, x.published]),
    [[b.id, true, false], [a.id, false, true]]);
  const forged = await list({ [b.id]: a.token });
  assert.ok(!forged.snapshots.some((x) => x.id === b.id), 'an id with a wrong token lists nothing');
  assert.equal((await api(fx.srv.url, 'POST', '/api/snapshots/list', { body: { tokens: [b.id] } })).status, 400);

  // taken back
  assert.equal((await put(a.id, a.token, false)).status, 200);
  assert.ok(!(await pub()).includes(a.id));
});

test('a snapshot keeps the whole run: opened at its step, it steps on to the end', async () => {
  const s = await session(fx.srv.url, { scenario: 'free-storm' });
  const snap = (await api(fx.srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 40 } })).json;
  const opened = await api(fx.srv.url, 'POST', `/api/snapshots/${snap.id}/open`, { body: {} });
  assert.equal(opened.status, 201, opened.text);
  assert.equal(opened.json.position, 40);
  assert.equal(opened.json.events, s.events, 'the reader can go on to the end of the run');
  const end = await api(fx.srv.url, 'GET', `/api/sessions/${opened.json.id}/state?at=${s.events}`);
  const live = await api(fx.srv.url, 'GET', `/api/sessions/${s.id}/state?at=${s.events}`);
  assert.deepEqual(end.json, live.json);
  assert.equal((await api(fx.srv.url, 'GET', `/api/snapshots/${snap.id}`)).json.status, 'verified');
});

test('a database of schema 3 migrates: its snapshots are kept, unpublished', async () => {
  const db = `${fx.dir}/old.db`;
  const old = await start({ dir: fx.dir, db });
  const s = await session(old.url);
  const snap = (await api(old.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 5 } })).json;
  await old.stop();
  // back to schema 3: as a database written before publishing existed
  sqlite(db, 'ALTER TABLE snapshots DROP COLUMN note; ALTER TABLE snapshots DROP COLUMN log; DROP TABLE answers; DROP TABLE ckpts; DROP TABLE ckpt_pages; ALTER TABLE sessions DROP COLUMN ckpts; DROP TABLE trace_jobs; DROP TABLE lectures; DROP INDEX snapshots_published; ALTER TABLE snapshots DROP COLUMN published; ALTER TABLE sessions DROP COLUMN engine; DROP TABLE oplogs; ALTER TABLE sessions DROP COLUMN log; ALTER TABLE sessions DROP COLUMN overview; PRAGMA user_version = 3;');
  const srv2 = await start({ dir: fx.dir, db });
  try {
    assert.equal(sqlite(db, 'PRAGMA user_version'), '12');
    const got = await api(srv2.url, 'GET', `/api/snapshots/${snap.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.json.published, false);
    assert.equal((await api(srv2.url, 'PUT', `/api/snapshots/${snap.id}/published`, { token: snap.token, body: { published: true } })).status, 200);
  } finally {
    await srv2.stop();
  }
});
