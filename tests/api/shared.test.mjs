// tests/api/shared.test.mjs: sessions with the same inputs share one run
// (docs/api.md, "Shared timelines"): a class that opens one scenario holds
// one timeline in memory, each student keeps their own position, and the
// first change a student makes gives them a run of their own (fork on
// write) without touching anyone else's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { start, api, session, tmpdir } from './lib.mjs';

let srv;
const dir = tmpdir('slublab-shared-');

function rssMiB(pid) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(m[1]) / 1024;
}
const sanitized = () => fs.readFileSync(`/proc/${srv.proc.pid}/maps`, 'utf8').includes('libasan');

before(async () => {
  // a budget for two timelines of 128 MiB at most: far fewer than the class below
  srv = await start({ dir, args: ['--memory-mb', '256', '--session-memory', '128', '--max-sessions', '64'] });
});
after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('forty students on maple: forty live sessions on one run, each with its own position', async (t) => {
  const before = rssMiB(srv.proc.pid);
  const class40 = [];
  for (let i = 0; i < 40; i++) class40.push(await session(srv.url, { scenario: 'maple-prefill-kfree-rcu' }));
  const list = (await api(srv.url, 'GET', '/api/sessions?limit=1')).json;
  assert.equal(list.memory.budget, 256 * 1024 * 1024);
  assert.equal(list.sessions_live, 40, 'every student stays in memory');
  assert.equal(list.live, 1, 'on one run');
  const grown = rssMiB(srv.proc.pid);
  t.diagnostic(`resident ${before.toFixed(0)} -> ${grown.toFixed(0)} MiB for 40 sessions`);
  if (!sanitized()) assert.ok(grown - before < 200, `40 sessions took ${(grown - before).toFixed(0)} MiB`);
  // each student moves on their own: positions are theirs, states agree
  const at = (i) => 1000 + 37 * i;
  await Promise.all(class40.map((s, i) => api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: at(i), state: false } })));
  for (const i of [0, 17, 39]) {
    const got = (await api(srv.url, 'GET', `/api/sessions/${class40[i].id}`)).json;
    assert.equal(got.position, at(i));
  }
  const a = await api(srv.url, 'GET', `/api/sessions/${class40[3].id}/state?at=5000`);
  const b = await api(srv.url, 'GET', `/api/sessions/${class40[30].id}/state?at=5000`);
  assert.equal(a.status, 200);
  assert.equal(a.text, b.text);

  // one student writes: their copy takes the shared checkpoints, not new ones
  const grownBefore = rssMiB(srv.proc.pid);
  const w = class40[5];
  const app = await api(srv.url, 'POST', `/api/sessions/${w.id}/ops`, { token: w.token, body: [{ op: 'create', name: 'mine', object_size: 64 }] });
  assert.equal(app.status, 200, app.text);
  const forked = rssMiB(srv.proc.pid);
  t.diagnostic(`resident ${grownBefore.toFixed(0)} -> ${forked.toFixed(0)} MiB for one student's copy of maple`);
  if (!sanitized()) assert.ok(forked - grownBefore < 30, `the copy took ${(forked - grownBefore).toFixed(0)} MiB`);
  assert.equal((await api(srv.url, 'GET', '/api/sessions?limit=1')).json.live, 2);
  // a student who appends in the middle of the run forks there: the fork
  // takes the run's checkpoints up to that point too
  const mid = class40[7];
  const beforeFork = rssMiB(srv.proc.pid);
  const f = await api(srv.url, 'POST', `/api/sessions/${mid.id}/ops`, { token: mid.token, body: { at: 40000, ops: [{ op: 'create', name: 'late', object_size: 96 }] } });
  assert.equal(f.status, 201, f.text);
  const afterFork = rssMiB(srv.proc.pid);
  t.diagnostic(`resident ${beforeFork.toFixed(0)} -> ${afterFork.toFixed(0)} MiB for a fork at 40000`);
  if (!sanitized()) assert.ok(afterFork - beforeFork < 10, `the fork took ${(afterFork - beforeFork).toFixed(0)} MiB`);
  const forkState = await api(srv.url, 'GET', `/api/sessions/${f.json.id}/state?at=30000`);
  assert.equal(forkState.text, (await api(srv.url, 'GET', `/api/sessions/${class40[8].id}/state?at=30000`)).text);
  for (const at of [0, 777, 5000, 60000]) {
    const mine = await api(srv.url, 'GET', `/api/sessions/${w.id}/state?at=${at}`);
    const theirs = await api(srv.url, 'GET', `/api/sessions/${class40[6].id}/state?at=${at}`);
    assert.equal(mine.text, theirs.text, `the same state at ${at} before the write`);
  }
});

test('the first change forks: the writer gets a run of its own, the others see nothing', async () => {
  const s1 = await session(srv.url);
  const s2 = await session(srv.url);
  const end = (await api(srv.url, 'GET', `/api/sessions/${s2.id}`)).json.events;
  const runsBefore = (await api(srv.url, 'GET', '/api/sessions?limit=1')).json.live;
  const app = await api(srv.url, 'POST', `/api/sessions/${s1.id}/ops`, { token: s1.token, body: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'mine' }] });
  assert.equal(app.status, 200, app.text);
  assert.ok(app.json.events > end);
  const other = (await api(srv.url, 'GET', `/api/sessions/${s2.id}`)).json;
  assert.equal(other.events, end, 'the other session did not change');
  const names1 = (await api(srv.url, 'GET', `/api/sessions/${s1.id}/names`)).text;
  const names2 = (await api(srv.url, 'GET', `/api/sessions/${s2.id}/names`)).text;
  assert.match(names1, /"mine"/);
  assert.doesNotMatch(names2, /"mine"/);
  const runsAfter = (await api(srv.url, 'GET', '/api/sessions?limit=1')).json.live;
  assert.equal(runsAfter, runsBefore + 1, `runs ${runsBefore} -> ${runsAfter}`);
  // the writer appends again on its own run: no second copy
  const again = await api(srv.url, 'POST', `/api/sessions/${s1.id}/ops`, { token: s1.token, body: [{ op: 'free', cpu: 0, name: 'mine' }] });
  assert.equal(again.status, 200, again.text);
  // a new student on the same scenario still shares the untouched run
  const s3 = await session(srv.url);
  assert.equal((await api(srv.url, 'GET', `/api/sessions/${s3.id}/state?at=${end}`)).text,
    (await api(srv.url, 'GET', `/api/sessions/${s2.id}/state?at=${end}`)).text);
});

test('a shared run outlives a deleted session; the last one gives it back', async () => {
  const a = await session(srv.url, { scenario: 'free-storm' });
  const b = await session(srv.url, { scenario: 'free-storm' });
  assert.equal((await api(srv.url, 'DELETE', `/api/sessions/${a.id}`, { token: a.token })).status, 204);
  assert.equal((await api(srv.url, 'GET', `/api/sessions/${b.id}/state?at=10`)).status, 200);
  assert.equal((await api(srv.url, 'DELETE', `/api/sessions/${b.id}`, { token: b.token })).status, 204);
});
