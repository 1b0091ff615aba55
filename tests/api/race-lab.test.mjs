// tests/api/race-lab.test.mjs: the race lab through the API: a session of a
// race scenario answers its races (where the first step is, the contexts
// and the schedule); its events carry ctx and step; a new session with the
// schedule replaced shows another outcome; a schedule the engine cannot run
// is a 422 naming the token; a seek into the middle of a race replays its
// steps from the op log.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { api, serverFixture } from './lib.mjs';

const fx = serverFixture();

const scenario = () => JSON.parse(fs.readFileSync('scenarios/race-irq-alloc.json', 'utf8'));

test('a race session answers its races, and its events carry the steps', async () => {
  const made = await api(fx.srv.url, 'POST', '/api/sessions', { body: { scenario: 'race-irq-alloc' } });
  assert.equal(made.status, 201);
  const info = await api(fx.srv.url, 'GET', `/api/sessions/${made.json.id}`);
  assert.equal(info.status, 200);
  assert.equal(info.json.races.length, 1);
  const race = info.json.races[0];
  assert.equal(race.schedule, 'A A I* A*');
  assert.equal(race.cache, 'c');
  assert.deepEqual(race.contexts.map((c) => [c.id, c.cpu, c.kind]), [['A', 0, 'task'], ['I', 0, 'irq']]);
  assert.deepEqual(race.contexts[0].ops, [{ op: 'alloc', name: 'x' }]);
  const evs = await api(fx.srv.url, 'GET', `/api/sessions/${made.json.id}/events?from=${race.at}&to=${race.at + 14}`);
  assert.equal(evs.status, 200);
  const steps = evs.json.events.map((e) => e.step);
  assert.ok(steps.every((s) => s), 'every event from "at" on is a step');
  assert.deepEqual(steps.map((s) => `${s.ctx}${s.index}:${s.kind}`).slice(0, 3),
    ['A0:read_tid', 'A1:read_freelist', 'I0:irq_enter']);
  const fail = evs.json.events.find((e) => e.label === 'cmpxchg_fail');
  assert.equal(fail.ctx, 'A');
  assert.equal(fail.stats.cmpxchg_double_cpu_fail, 1);
  assert.deepEqual(fail.step.reads.map((w) => w.word), ['c->freelist', 'c->tid']);
  // a state in the middle of the race (after race.at + 5 events: the last
  // is the fifth step, I's third), replayed from the log, step included
  const mid = await api(fx.srv.url, 'GET', `/api/sessions/${made.json.id}/state?at=${race.at + 5}`);
  assert.equal(mid.status, 200);
  assert.equal(mid.json.event.step.ctx, 'I');
  assert.equal(mid.json.event.step.index, 2);
  // a session without races answers an empty list
  const plain = await api(fx.srv.url, 'POST', '/api/sessions', { body: { scenario: 'default' } });
  assert.deepEqual((await api(fx.srv.url, 'GET', `/api/sessions/${plain.json.id}`)).json.races, []);
});

test('another schedule is another session; one the engine cannot run is a 422 naming the token', async () => {
  const s = scenario();
  s.ops[2].schedule = 'A* I*';
  const made = await api(fx.srv.url, 'POST', '/api/sessions', { body: { scenario: s } });
  assert.equal(made.status, 201);
  const fails = made.json.expects.find((e) => e.metric === 'c.cpu0.cmpxchg_double_cpu_fail');
  assert.equal(fails.seen, 0, 'A before I: no retry');
  assert.equal((await api(fx.srv.url, 'GET', `/api/sessions/${made.json.id}`)).json.races[0].schedule, 'A* I*');
  s.ops[2].schedule = 'I* I';
  const refused = await api(fx.srv.url, 'POST', '/api/sessions', { body: { scenario: s } });
  assert.equal(refused.status, 422);
  assert.match(refused.json.error.message, /schedule token "I": context I has finished/);
  s.ops[2].schedule = 'Q';
  const unparsed = await api(fx.srv.url, 'POST', '/api/sessions', { body: { scenario: s } });
  assert.equal(unparsed.status, 400);
  assert.match(unparsed.json.error.message, /token "Q": no context named "Q"/);
});
