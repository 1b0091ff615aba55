// tests/api/snapshot-roundtrip.test.mjs: a snapshot of every kind of
// session (a scenario with appended operations, a replayed kernel trace, a
// fork of it with operations of its own, a race, a machine imported from a
// sysfs tree) is exported from one server and imported into another with a
// fresh database: it verifies there, opens with the same number of events,
// and gives the same state at every position compared; its note travels.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { BIN, api, isPg, sqlite, start, tmpdir } from './lib.mjs';

const SLICE = path.resolve('tests/data/kmem-trace-slice.txt.gz');
const dirA = tmpdir();
const dirB = tmpdir();
let a;
let b;

before(async () => {
  [a, b] = await Promise.all([start({ dir: dirA }), start({ dir: dirB })]);
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  fs.rmSync(dirA, { recursive: true, force: true });
  fs.rmSync(dirB, { recursive: true, force: true });
});

async function created(r) {
  assert.equal(r.status, 201, r.text);
  return r.json;
}

async function traceSession() {
  const up = await api(a.url, 'POST', '/api/traces', {
    raw: fs.readFileSync(SLICE), headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(up.status, 202, up.text);
  for (const end = Date.now() + 60000; Date.now() < end;) {
    const j = (await api(a.url, 'GET', `/api/traces/${up.json.id}`)).json;
    if (j.state === 'done') return j.session;
    assert.notEqual(j.state, 'failed', JSON.stringify(j.error));
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('the trace did not finish replaying');
}

// The positions compared: both ends, the snapshot's, and a spread between.
function positions(events, at) {
  const set = new Set([0, 1, at, events]);
  for (let i = 1; i < 12; i++) set.add(Math.floor((events * i) / 12));
  return [...set].filter((p) => p <= events).sort((x, y) => x - y);
}

async function stateAt(url, id, at) {
  const r = await api(url, 'GET', `/api/sessions/${id}/state?at=${at}`);
  assert.equal(r.status, 200, r.text);
  return { event: r.json.event, state: r.json.state };
}

// Snapshot @sid of server A at @at, export, import into B, open: same events and states.
async function roundTrip(kind, sid, at) {
  const note = `${kind}: the barn at ${at}, read by a reviewer`;
  const snap = await created(await api(a.url, 'POST', '/api/snapshots', { body: { session: sid, at, title: kind, note } }));
  const exp = await api(a.url, 'GET', `/api/snapshots/${snap.id}/export`);
  assert.equal(exp.status, 200, exp.text);
  assert.equal(exp.json.note, note, `${kind}: the note is in the export`);

  const imp = await created(await api(b.url, 'POST', '/api/snapshots/import', { raw: exp.text }));
  const got = await api(b.url, 'GET', `/api/snapshots/${imp.id}`);
  assert.equal(got.status, 200, got.text);
  assert.equal(got.json.status, 'verified', `${kind}: ${got.json.warning}`);
  assert.equal(got.json.note, note, `${kind}: the note came along`);

  const openA = await created(await api(a.url, 'POST', `/api/snapshots/${snap.id}/open`));
  const openB = await created(await api(b.url, 'POST', `/api/snapshots/${imp.id}/open`));
  const whole = (await api(a.url, 'GET', `/api/sessions/${sid}`)).json.events;
  assert.equal(openA.events, whole, `${kind}: the snapshot keeps the whole run`);
  assert.equal(openB.events, openA.events, `${kind}: the same events after the import`);
  assert.equal(openB.position, at);
  for (const p of positions(openA.events, at))
    assert.deepEqual(await stateAt(b.url, openB.id, p), await stateAt(a.url, sid, p), `${kind}: the state at ${p}`);
  return { exp: exp.json, events: openB.events, openA };
}

test('a scenario session with appended operations', async () => {
  const s = await created(await api(a.url, 'POST', '/api/sessions', { body: { scenario: 'free-storm' } }));
  const more = await api(a.url, 'POST', `/api/sessions/${s.id}/ops`, {
    token: s.token, body: { ops: [{ op: 'kmalloc', cpu: 1, size: 96, name: 'late' }, { op: 'kfree', cpu: 0, name: 'late' }] },
  });
  assert.equal(more.status, 200, more.text);
  const { exp } = await roundTrip('scenario', s.id, 40);
  assert.equal(exp.log, undefined, 'a scenario session has no op log to carry');
});

test('a replayed kernel trace, and a fork of it with operations of its own', async () => {
  const t = await traceSession();
  const { exp, events, openA } = await roundTrip('trace', t.id, 700);
  assert.ok(events > 1000, `the trace's ${events} events`);
  assert.equal(exp.log.format, 'slublab-oplog');
  assert.equal(exp.log.events, events);

  const f = await created(await api(a.url, 'POST', `/api/sessions/${t.id}/fork`, { body: { at: 900 } }));
  const more = await api(a.url, 'POST', `/api/sessions/${f.id}/ops`, {
    token: f.token, body: { ops: [{ op: 'kmalloc', cpu: 0, size: 192, name: 'mine' }] },
  });
  assert.equal(more.status, 200, more.text);
  const fork = await roundTrip('trace fork', f.id, 850);

  // the snapshot keeps the log when the sessions that made it are gone
  const kept = await created(await api(a.url, 'POST', '/api/snapshots', { body: { session: t.id, at: 5 } }));
  for (const x of [f, t, openA, fork.openA]) assert.equal((await api(a.url, 'DELETE', `/api/sessions/${x.id}`, { token: x.token })).status, 204);
  if (!isPg(a.db)) assert.equal(sqlite(a.db, 'SELECT count(*) FROM sessions WHERE log IS NOT NULL'), '0', 'no session refers to the log');
  const reopened = await created(await api(a.url, 'POST', `/api/snapshots/${kept.id}/open`));
  assert.equal(reopened.events, events);
});

test('a race scenario', async () => {
  const s = await created(await api(a.url, 'POST', '/api/sessions', { body: { scenario: 'race-irq-alloc' } }));
  await roundTrip('race', s.id, Math.floor(s.events / 2));
});

test('a machine imported from a sysfs tree', async () => {
  const scenario = JSON.parse(execFileSync(BIN, ['import', '--sysfs', 'tests/data/sys-kernel-slab.tar.gz'], { encoding: 'utf8' }));
  scenario.ops = [{ op: 'kmalloc', cpu: 0, size: 64, name: 'x' }, { op: 'kmalloc', cpu: 1, size: 512, name: 'y' }, { op: 'kfree', cpu: 1, name: 'x' }];
  const s = await created(await api(a.url, 'POST', '/api/sessions', { body: { scenario } }));
  await roundTrip('imported image', s.id, Math.floor(s.events / 2));
});

test('an export whose log does not add up is refused, and leaves nothing behind', async () => {
  const t = await traceSession();
  const snap = await created(await api(a.url, 'POST', '/api/snapshots', { body: { session: t.id, at: 10 } }));
  const exp = (await api(a.url, 'GET', `/api/snapshots/${snap.id}/export`)).json;
  exp.log.events += 1;
  const r = await api(b.url, 'POST', '/api/snapshots/import', { body: exp });
  assert.equal(r.status, 400, r.text);
  assert.match(r.json.error.message, /chunks hold \d+ operations and \d+ events/);
  exp.log.events -= 1;
  exp.log.chunks[0].data = 'not base64!';
  const bad = await api(b.url, 'POST', '/api/snapshots/import', { body: exp });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.json.error.message, /not base64/);
});

test('a diff of unrelated snapshots is refused, one across scenarios that share a cache is marked', async () => {
  const snapOf = async (scenario, at) => {
    const s = await created(await api(a.url, 'POST', '/api/sessions', { body: { scenario } }));
    return (await created(await api(a.url, 'POST', '/api/snapshots', { body: { session: s.id, at } }))).id;
  };
  const [storm, race, def, fill, def2] = await Promise.all([snapOf('free-storm', 20), snapOf('race-irq-alloc', 5), snapOf('default', 10), snapOf('fresh-slab-fill', 10), snapOf('default', 20)]);
  const refused = await api(a.url, 'GET', `/api/diff?a=${storm}&b=${race}`);
  assert.equal(refused.status, 422, refused.text);
  assert.match(refused.json.error.message, /a is scenario "free-storm" and b is scenario "race-irq-alloc", with no cache in common: a diff matches objects by address/);
  const marked = await api(a.url, 'GET', `/api/diff?a=${def}&b=${fill}`);
  assert.equal(marked.status, 200, marked.text);
  assert.equal(marked.json.related, false);
  assert.match(marked.json.warning, /a is scenario "default" and b is scenario "fresh-slab-fill"/);
  const same = await api(a.url, 'GET', `/api/diff?a=${def}&b=${def2}`);
  assert.equal(same.status, 200, same.text);
  assert.equal(same.json.related, true);
  assert.equal(same.json.warning, null);
});

test('an import may be larger than other bodies: a trace\'s log travels in it', async () => {
  const big = JSON.stringify({ format: 'slublab-snapshot', version: 1, pad: 'x'.repeat(2 << 20) });
  const imp = await api(b.url, 'POST', '/api/snapshots/import', { raw: big, headers: { 'content-type': 'application/json' } });
  assert.equal(imp.status, 400, 'read, and refused for what it says, not for its size');
  const other = await api(b.url, 'POST', '/api/sessions', { raw: big, headers: { 'content-type': 'application/json' } });
  assert.equal(other.status, 413);
});
