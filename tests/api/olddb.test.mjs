// Old work opens as it was made: a database written by an older slublab
// (tests/data/db-73eec0e/) opens with today's server, and every stored
// session shows the states that server showed, its snapshot verified.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { api, start, tmpdir } from './lib.mjs';

const fixture = path.resolve('tests/data/db-73eec0e');
const expected = JSON.parse(fs.readFileSync(path.join(fixture, 'expected.json'), 'utf8'));
const dir = tmpdir();
let srv;

before(async () => {
  const db = path.join(dir, 'old.db');
  fs.copyFileSync(path.join(fixture, 'slublab.sqlite'), db); // the fixture itself stays as it was
  srv = await start({ dir, db });
});
after(async () => {
  await srv?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// What the engine changed on purpose since 73eec0e, applied to the older
// server's answers (the fixture itself stays as it was): TID_STEP is
// roundup_pow_of_two(CONFIG_NR_CPUS), the lab's 64, where it was the next
// power of two at or above the machine's CPUs, so a legacy CPU's tid,
// cpu + k * step, now steps by 64.
function today(state) {
  let step = 1;
  while (step < state.nr_cpus) step *= 2;
  for (const c of state.caches ?? []) {
    for (const cpu of c.cpus ?? []) {
      if (cpu.cpu_slab && typeof cpu.cpu_slab.tid === 'number') {
        const k = (cpu.cpu_slab.tid - cpu.cpu) / step;
        cpu.cpu_slab.tid = cpu.cpu + k * 64;
      }
    }
  }
  return state;
}

test('every stored session shows the states the older server showed', async () => {
  assert.ok(expected.sessions.length >= 5);
  for (const s of expected.sessions) {
    const info = await api(srv.url, 'GET', `/api/sessions/${s.id}`);
    assert.equal(info.status, 200, `${s.id}: ${info.text}`);
    assert.equal(info.json.events, s.events, `${JSON.stringify(s.request)}: its end`);
    assert.equal(info.json.ops, s.ops);
    for (const [at, state] of Object.entries(s.states)) {
      const r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${at}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.state, today(structuredClone(state)), `${JSON.stringify(s.request)} at ${at}`);
    }
  }
});

test('a session records the engine that made it; the older ones say they predate that record', async () => {
  const old = (await api(srv.url, 'GET', `/api/sessions/${expected.sessions[0].id}`)).json;
  assert.equal(old.engine.made, null, 'made before sessions recorded it');
  assert.match(old.engine.current, /^\d+\.\d+\.\d+/);
  const made = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: 'default' } });
  assert.equal(made.status, 201, made.text);
  const info = (await api(srv.url, 'GET', `/api/sessions/${made.json.id}`)).json;
  assert.equal(info.engine.made, info.engine.current);
  // and it keeps that record across a restart (the store has it)
  await srv.stop();
  srv = await start({ dir, db: srv.db });
  assert.equal((await api(srv.url, 'GET', `/api/sessions/${made.json.id}`)).json.engine.made, info.engine.current);
});

test('its snapshot verifies, and the sessions keep the model and variants they were made with', async () => {
  for (const sn of expected.snapshots) {
    const r = await api(srv.url, 'GET', `/api/snapshots/${sn.id}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 'verified', r.text);
  }
  const first = expected.sessions[0];
  const info = (await api(srv.url, 'GET', `/api/sessions/${first.id}`)).json;
  // made on the sheaves model with every variant after: still so, not today's default (7.3)
  assert.equal(info.settings.model, first.settings.model);
  for (const [k, v] of Object.entries(first.settings.variants)) assert.equal(info.settings.variants[k], v, k);
});
