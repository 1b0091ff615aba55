// The scenario's object names at each position (GET .../state's "names").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, api, session } from './lib.mjs';

let srv;
before(async () => { srv = await start(); });
after(async () => { await srv.stop(); });

const namesAt = async (id, at) => {
  const r = await api(srv.url, 'GET', `/api/sessions/${id}/state?at=${at}`);
  assert.equal(r.status, 200, r.text);
  return r.json;
};


const scenario = {
  format: 1, name: 'names', seed: 1, machine: { cpus: 1, nodes: 1, mem_mb_per_node: 64 },
  caches: [{ name: 'A', object_size: 64 }],
  ops: [
    { op: 'alloc', cpu: 0, cache: 'A', name: 'a' },
    { op: 'free', cpu: 0, name: 'a' },
    { op: 'alloc', cpu: 0, cache: 'A', name: 'b' },
    { op: 'alloc_bulk', cpu: 0, cache: 'A', count: 3, name: 'x' },
    { op: 'alloc', cpu: 0, cache: 'A' },
  ],
};

test('a name shows from its allocation until its address is handed out again', async () => {
  const s = await session(srv.url, { scenario });
  // walk every position, noting where each name appears and disappears
  const seen = new Map(); // name -> { first, last, addr }
  const byAt = [];
  for (let at = 0; at <= s.events; at++) {
    const d = await namesAt(s.id, at);
    byAt.push(d.names);
    for (const [addr, name] of Object.entries(d.names)) {
      assert.match(addr, /^0x[0-9a-f]+$/);
      const e = seen.get(name) ?? { first: at, last: at, addr };
      e.last = at;
      assert.equal(e.addr, addr, `${name} keeps one address`);
      seen.set(name, e);
    }
  }
  assert.deepEqual([...seen.keys()].sort(), ['a', 'b', 'x[0]', 'x[1]', 'x[2]']);
  assert.equal(byAt[0] && Object.keys(byAt[0]).length, 0, 'nothing is named before the first op');
  // the event that hands "a" to its caller is narrated with the name already
  const ev = await api(srv.url, 'GET', `/api/sessions/${s.id}/events?from=0&to=${s.events}`);
  const handed = ev.json.events.find((e) => e.moves.some((m) => m.kind === 'object' && m.id === seen.get('a').addr && m.to.type === 'user'));
  assert.ok(handed);
  assert.ok(seen.get('a').first <= handed.seq + 1 && handed.seq + 1 <= seen.get('a').last);
  assert.equal((await namesAt(s.id, handed.seq + 1)).names[seen.get('a').addr], 'a');
  // "a" was freed and its address given to "b" (LIFO sheaf): a keeps its name while free
  assert.equal(seen.get('a').addr, seen.get('b').addr, 'the next allocation reuses the freed object');
  assert.equal(seen.get('a').last + 1, seen.get('b').first, 'the name passes from a to b at the allocation of b');
  const freeEnd = byAt.findIndex((n, at) => at > seen.get('a').first && !Object.values(n).includes('a'));
  assert.ok(freeEnd > seen.get('a').first);
  // the end: every named object, the unnamed last one not named
  const end = byAt[s.events];
  assert.deepEqual(Object.values(end).sort(), ['b', 'x[0]', 'x[1]', 'x[2]']);
  const last = await namesAt(s.id, s.events);
  assert.equal(Object.keys(last.names).length, 4);
});

test('a failed append leaves the names as they were', async () => {
  const s = await session(srv.url, { scenario });
  const before = await namesAt(s.id, s.events);
  const bad = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, {
    token: s.token,
    body: { ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'c' }, { op: 'free', cpu: 0, name: 'nosuch' }] },
  });
  assert.equal(bad.status, 422, bad.text);
  const again = await namesAt(s.id, s.events);
  assert.deepEqual(again.names, before.names);
  // and an append that works names its object from there on
  const ok = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, {
    token: s.token, body: { ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'c' }] },
  });
  assert.equal(ok.status, 200, ok.text);
  const info = await api(srv.url, 'GET', `/api/sessions/${s.id}`);
  const end = await namesAt(s.id, info.json.events);
  assert.ok(Object.values(end.names).includes('c'));
  assert.deepEqual(Object.values(end.names).filter((n) => n !== 'c').sort(), Object.values(before.names).sort());
});

test('free-storm: the spare flushed at the 49th free holds o0..o3, as its description says', async () => {
  const s = await session(srv.url, { scenario: 'free-storm' });
  const ev = await api(srv.url, 'GET', `/api/sessions/${s.id}/events?from=0&to=${s.events}`);
  const flush = ev.json.events.find((e) => e.fn === 'sheaf_flush_unused');
  assert.ok(flush, 'a flush happens');
  const d = await namesAt(s.id, flush.seq + 1);
  const names = flush.moves.filter((m) => m.kind === 'object').map((m) => d.names[m.id]);
  assert.deepEqual(names, ['o0', 'o1', 'o2', 'o3']);
  const info = await api(srv.url, 'GET', `/api/sessions/${s.id}`);
  assert.match(info.json.scenario.description, /o0\.\.o3/);
});
