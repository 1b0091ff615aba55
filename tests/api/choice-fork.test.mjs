// tests/api/choice-fork.test.mjs: the kernel's own choices through the API.
// A step at a choice point carries `choice` even at the default, with where
// it is and the options not taken, while `slublab run --events` keeps
// leaving the default out; POST .../fork with `option` makes a session of
// the same inputs taking that option there, positioned at the step, whose
// counters differ as `slublab run --outcomes` says; a step at no choice
// point, an option out of range and a token-less session all answer.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, test } from 'node:test';

import { BIN, api, isError, session, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv;
let s;
const AT = 32; // flush-order: the step after flush_all() chose CPU 1 first

before(async () => {
  srv = await start({ dir });
  s = await session(srv.url, { scenario: 'flush-order' });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** free_add_partial per CPU at the end of session @id: [C1, C2]. */
async function freeAddPartial(id, events) {
  const st = await api(srv.url, 'GET', `/api/sessions/${id}/state?at=${events}`);
  assert.equal(st.status, 200);
  const cpus = st.json.state.caches[0].cpus;
  return [1, 2].map((c) => cpus[c].stats.free_add_partial ?? 0);
}

test('a step at a choice point says so at the default, with the other options', async () => {
  const st = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${AT}`);
  assert.equal(st.status, 200);
  assert.deepEqual(st.json.event.choice, {
    kind: 'flush_order', options: 2, taken: 0, text: 'flush_all: CPUs 1, 2: order 1 of 2', op: 3, nth: 0,
    others: [{ option: 1, text: 'flush_all: CPUs 2, 1: order 2 of 2' }],
  });
  const before = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${AT - 1}`);
  assert.equal(before.json.event.choice, undefined);
  const evs = await api(srv.url, 'GET', `/api/sessions/${s.id}/events?from=0&to=${s.events}`);
  assert.deepEqual(evs.json.events.filter((e) => e.choice).map((e) => e.seq), [AT - 1]);
  // the command line's stream (and the golden one) still leaves the default out
  const out = execFileSync(BIN, ['run', 'scenarios/flush-order.json', '--events'], { encoding: 'utf8' });
  assert.ok(!out.includes('"choice"'));
});

test('a fork at the choice takes the other option: the run --outcomes lists', async () => {
  const f = await api(srv.url, 'POST', `/api/sessions/${s.id}/fork`, { body: { at: AT, option: 1 } });
  assert.equal(f.status, 201);
  assert.equal(f.json.parent, s.id);
  assert.equal(f.json.position, AT);
  assert.equal(f.json.events, s.events);
  assert.deepEqual(f.json.choice, { kind: 'flush_order', op: 3, nth: 0, option: 1, text: 'flush_all: CPUs 2, 1: order 2 of 2' });
  const st = await api(srv.url, 'GET', `/api/sessions/${f.json.id}/state?at=${AT}`);
  assert.equal(st.json.event.choice.taken, 1);
  assert.deepEqual(st.json.event.choice.others, [{ option: 0, text: 'flush_all: CPUs 1, 2: order 1 of 2' }]);
  assert.equal(st.json.event.cpu, 2); // CPU 2's flush runs first
  assert.deepEqual(await freeAddPartial(s.id, s.events), [2, 1]);
  assert.deepEqual(await freeAddPartial(f.json.id, f.json.events), [1, 2]);
  const outcomes = execFileSync(BIN, ['run', 'scenarios/flush-order.json', '--outcomes'], { encoding: 'utf8' });
  assert.match(outcomes, /--- outcome 2 of 2: op 3: flush_all: CPUs 2, 1: order 2 of 2\n(.*\n)*free_add_partial 3 C1=1 C2=2\n/);
  // the fork's scenario says which choice it takes
  const info = await api(srv.url, 'GET', `/api/sessions/${f.json.id}`);
  assert.equal(info.json.scenario.name, 'flush-order');
  // and back: option 0 there is the lab's own run again
  const back = await api(srv.url, 'POST', `/api/sessions/${f.json.id}/fork`, { body: { at: AT, option: 0 } });
  assert.equal(back.status, 201);
  assert.deepEqual(await freeAddPartial(back.json.id, back.json.events), [2, 1]);
});

test('a fork with an option needs a step at a choice point and an option it has', async () => {
  const none = await api(srv.url, 'POST', `/api/sessions/${s.id}/fork`, { body: { at: AT - 1, option: 1 } });
  assert.equal(none.status, 422);
  assert.ok(isError(none, 'unprocessable'));
  assert.match(none.json.error.message, /no choice point/);
  const far = await api(srv.url, 'POST', `/api/sessions/${s.id}/fork`, { body: { at: AT, option: 2 } });
  assert.equal(far.status, 400);
  assert.match(far.json.error.message, /has 2 options/);
  const zero = await api(srv.url, 'POST', `/api/sessions/${s.id}/fork`, { body: { at: 0, option: 1 } });
  assert.equal(zero.status, 422);
  const neg = await api(srv.url, 'POST', `/api/sessions/${s.id}/fork`, { body: { at: AT, option: -1 } });
  assert.equal(neg.status, 400);
});
