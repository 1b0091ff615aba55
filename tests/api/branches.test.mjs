// The branch points through the API and the prose for them: GET
// /api/branches answers the engine's table (every point with its deciding
// function, every arm with the events it leads to); web/data/texts.json has,
// under "questions", a prompt for every point and a text and a condition
// for every arm of it, and nothing for points or arms the engine does not
// have; a session's events carry branch records whose arms are the table's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, api } from './lib.mjs';

const TEXTS = path.resolve('web/data/texts.json');
const PLACEHOLDERS = new Set(['cpu', 'node', 'cache', 'obj']);

let srv, table;
before(async () => {
  srv = await start();
  const r = await api(srv.url, 'GET', '/api/branches');
  assert.equal(r.status, 200);
  table = r.json.points;
});
after(async () => { await srv?.stop(); });

test('GET /api/branches: points with their function and arms with event patterns', () => {
  assert.ok(Array.isArray(table) && table.length >= 12);
  const names = table.map((p) => p.point);
  assert.equal(new Set(names).size, names.length, 'point names are unique');
  for (const name of ['alloc_main_empty', 'free_main_full', 'free_path', 'refill_source',
    'slab_free_outcome', 'new_slab_order', 'rcu_sheaf', 'grace_period', 'legacy_alloc_slowpath',
    'put_cpu_partial', 'watermark', 'zone_fallback'])
    assert.ok(names.includes(name), `${name} is a point`);
  for (const p of table) {
    assert.match(p.fn, /^[_a-z0-9]+$/, `${p.point}: fn`);
    assert.ok(p.arms.length >= 2, `${p.point}: at least two arms`);
    for (const a of p.arms) {
      assert.match(a.arm, /^[a-z_]+$/);
      assert.ok(a.events.length >= 1, `${p.point}=${a.arm}: events`);
      for (const e of a.events) assert.match(e, /^[_a-z0-9]+(\/[_a-z0-9]+)?$/, `${p.point}=${a.arm}: ${e}`);
    }
  }
});

test('texts.json questions: prose for every point and arm, and no other', () => {
  const q = JSON.parse(fs.readFileSync(TEXTS, 'utf8')).questions;
  assert.ok(q && typeof q === 'object');
  assert.deepEqual(Object.keys(q).sort(), table.map((p) => p.point).sort());
  const checkText = (where, s) => {
    assert.equal(typeof s, 'string', where);
    assert.ok(s.trim().length > 10, `${where}: says something`);
    for (const m of s.matchAll(/\{([^}]*)\}/g))
      assert.ok(PLACEHOLDERS.has(m[1]), `${where}: unknown placeholder {${m[1]}}`);
  };
  for (const p of table) {
    const entry = q[p.point];
    checkText(`${p.point}.prompt`, entry.prompt);
    assert.deepEqual(Object.keys(entry.arms).sort(), p.arms.map((a) => a.arm).sort(),
      `${p.point}: the arms with prose are the engine's`);
    for (const a of p.arms) {
      checkText(`${p.point}.${a.arm}.text`, entry.arms[a.arm].text);
      checkText(`${p.point}.${a.arm}.when`, entry.arms[a.arm].when);
    }
  }
});

test('a session\'s events: branch records with the table\'s arms, the arm taken among them', async () => {
  const c = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: 'spare-and-barn' } });
  assert.equal(c.status, 201);
  const r = await api(srv.url, 'GET', `/api/sessions/${c.json.id}/events?from=0&to=1000`);
  assert.equal(r.status, 200);
  const byName = Object.fromEntries(table.map((p) => [p.point, p]));
  const withBranches = r.json.events.filter((e) => e.branches);
  assert.ok(withBranches.length > 0);
  const seen = new Set();
  for (const e of withBranches) {
    for (const b of e.branches) {
      const p = byName[b.point];
      assert.ok(p, `${b.point} is in the table`);
      assert.deepEqual(b.arms, p.arms.map((a) => a.arm));
      assert.ok(b.arms.includes(b.taken));
      seen.add(b.point);
    }
  }
  // spare-and-barn empties and fills main sheaves by design
  for (const name of ['alloc_main_empty', 'free_main_full', 'free_path'])
    assert.ok(seen.has(name), `${name} recorded`);
  // events without a decision carry no key at all
  assert.ok(r.json.events.some((e) => !('branches' in e)));
});
