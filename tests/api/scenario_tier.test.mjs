// The stored tier of a scenario session (docs/api.md, "Checkpoints in the
// database"): its build keeps machine images of its run in the store, the
// last with the run's state (op log, timeline, names, expects, warnings,
// races); a session evicted from memory (--max-sessions 1 and a second
// session) comes back from them without running its scenario again
// (checkpoints.build_replayed 0), with the same states, byte for byte, the
// same information, and operations appended after it as on a fresh replay.
// On PostgreSQL when SLUBLAB_TEST_PG is set (lib.mjs).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { api, start } from '../api/lib.mjs';

let srv, fresh;
before(async () => {
  srv = await start({ args: ['--max-sessions', '1'] });
  fresh = await start({ args: ['--stored-checkpoint-ops', '0'] }); // keeps no images: replays
});
after(async () => { await srv?.stop(); await fresh?.stop(); });

const info = async (url, id) => {
  const r = await api(url, 'GET', `/api/sessions/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.json;
};
const make = async (url, body) => {
  const r = await api(url, 'POST', '/api/sessions', { body });
  assert.equal(r.status, 201, r.text);
  return r.json;
};
// What a rebuild must give back: all of the information but what the
// session holds in memory (and `created`, which the store keeps to the
// millisecond of its insert, a little after the session made it).
const same = (s) => ({ ...s, checkpoints: undefined, memory: undefined, created: undefined });

// Positions spread over [0, n], the ends among them.
function positions(n, count) {
  const at = new Set([0, 1, Math.floor(n / 2), n - 1, n]);
  let x = 7;
  while (at.size < Math.min(count, n + 1)) { x = (x * 48271) % 2147483647; at.add(x % (n + 1)); }
  return [...at].sort((u, v) => v - u);
}

// The largest shipped scenario on its own seed, one with misuse warnings, one with a race.
for (const [scenario, seed] of [['maple-prefill-kfree-rcu', 4242], ['double-free', 5], ['race-barn-lock', 3]]) {
  test(`an evicted ${scenario} session comes back from the store, not from operation 0`, async () => {
    const a = await make(srv.url, { scenario, seed });
    let first = await info(srv.url, a.id);
    assert.equal(first.checkpoints.build_loaded, false);
    assert.equal(first.checkpoints.build_replayed, first.ops, 'the first build runs every operation');
    // the end of a run is stored after the open answered, by a thread of
    // its own (server/session/keeper.c): it is there within seconds
    for (let i = 0; i < 100 && first.checkpoints.stored < 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      first = await info(srv.url, a.id);
    }
    assert.ok(first.checkpoints.stored >= 1, JSON.stringify(first.checkpoints));
    const at = positions(first.events, 16);
    const states = new Map();
    for (const p of at) states.set(p, (await api(srv.url, 'GET', `/api/sessions/${a.id}/state?at=${p}`)).text);
    const names = (await api(srv.url, 'GET', `/api/sessions/${a.id}/names?at=${first.events}`)).text;
    // what reads the packed timeline (series, the overview) and the sealed names
    const packed = [
      '/series?counters=alloc_fastpath,free_fastpath,alloc_slowpath&points=500',
      '/overview?buckets=300&counters=alloc_fastpath,free_fastpath',
    ];
    const read = async () => Promise.all(packed.map(async (p) => {
      const r = await api(srv.url, 'GET', `/api/sessions/${a.id}${p}`);
      assert.equal(r.status, 200, r.text);
      return r.text;
    }));
    const packedBefore = await read();

    await make(srv.url, { scenario, seed: seed + 1 }); // the only place in memory goes to it

    const again = await info(srv.url, a.id);
    assert.equal(again.checkpoints.build_loaded, true, JSON.stringify(again.checkpoints));
    assert.equal(again.checkpoints.build_replayed, 0, 'no operation ran again to bring it back');
    assert.equal(again.checkpoints.written, 0, 'nothing written again');
    assert.deepEqual(same(again), same(first));
    if (scenario === 'double-free') assert.ok(again.warnings.count > 0, 'its warnings came back');
    if (scenario === 'race-barn-lock') assert.ok(again.races.length > 0, 'its races came back');
    for (const p of at) {
      const r = await api(srv.url, 'GET', `/api/sessions/${a.id}/state?at=${p}`);
      assert.equal(r.status, 200, r.text);
      assert.ok(r.text === states.get(p), `the state at ${p} differs after the rebuild`);
    }
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${a.id}/names?at=${first.events}`)).text, names);
    assert.deepEqual(await read(), packedBefore);
  });
}

// A class of 300 on their own seeds stays resident in 1 GiB only if a run
// between requests holds a few MB: its timeline packed, its names sealed,
// few copies of the machine (docs/architecture.md).
test('a maple-prefill-kfree-rcu run holds at most 3 MiB between requests, built or brought back', async () => {
  const scenario = 'maple-prefill-kfree-rcu';
  const a = await make(srv.url, { scenario, seed: 31 });
  const built = await info(srv.url, a.id);
  for (let k = 0; k < 12; k++) {
    const r = await api(srv.url, 'GET', `/api/sessions/${a.id}/state?at=${Math.floor(built.events * k / 12)}`);
    assert.equal(r.status, 200, r.text);
  }
  const used = await info(srv.url, a.id);
  await make(srv.url, { scenario, seed: 32 }); // evicts a
  const back = await info(srv.url, a.id);
  assert.equal(back.checkpoints.build_loaded, true);
  for (const [what, s] of [['built', built], ['after 12 states', used], ['brought back', back]]) {
    assert.ok(s.memory.bytes <= 3 * 1048576, `${what}: ${s.memory.bytes} bytes`);
  }
});

test('operations appended to a session that came back from the store run as on a replay', async () => {
  const scenario = 'maple-prefill-kfree-rcu';
  const a = await make(srv.url, { scenario, seed: 77 });
  await make(srv.url, { scenario, seed: 78 }); // evicts a
  const b = await make(fresh.url, { scenario, seed: 77 });
  const more = [{ op: 'alloc', cpu: 3, cache: 'maple_node', name: 'late' }, { op: 'free', cpu: 5, name: 'late' }];
  for (const [url, s] of [[srv.url, a], [fresh.url, b]]) {
    const r = await api(url, 'POST', `/api/sessions/${s.id}/ops`, { body: more, token: s.token });
    assert.equal(r.status, 200, r.text);
  }
  const one = await info(srv.url, a.id), two = await info(fresh.url, b.id);
  assert.equal(one.checkpoints.build_loaded, true);
  assert.equal(one.events, two.events);
  for (const p of [two.events, two.events - 1, Math.floor(two.events / 3)]) {
    const x = await api(srv.url, 'GET', `/api/sessions/${a.id}/state?at=${p}`);
    const y = await api(fresh.url, 'GET', `/api/sessions/${b.id}/state?at=${p}`);
    assert.ok(x.text === y.text, `the state at ${p} differs from a replay's`);
  }
});
