// tests/api/overview.test.mjs: GET /api/sessions/ID/overview against a
// replay of the same scenario (`slublab run --events`): every bucket's
// counter sums are the sums of the replay's events in its range, the sums
// over buckets are the counters' totals, the slab pages' min/max/mean are
// those of the events in the bucket; a restarted server answers from the
// store without rebuilding the session.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { BIN, api, isError, session, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv;
let s;
let events; // the replay's events, in order
let pages; // slab pages in use after each event

before(async () => {
  srv = await start({ dir });
  s = await session(srv.url, { scenario: 'free-storm' });
  const out = execFileSync(BIN, ['run', 'scenarios/free-storm.json', '--events'], { encoding: 'utf8' });
  events = out.split('\n').filter((l) => l.startsWith('{"seq"')).map((l) => JSON.parse(l));
  let used = 0;
  pages = events.map((e) => {
    used += (e.stats.engine_pages_in || 0) - (e.stats.engine_pages_out || 0);
    return used;
  });
});
after(async () => {
  await srv?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// What the replay says about events [a, b).
function expected(a, b) {
  const sums = {};
  for (const e of events.slice(a, b))
    for (const [k, v] of Object.entries(e.stats)) sums[k] = (sums[k] || 0) + v;
  const p = pages.slice(a, b);
  return { sums, min: Math.min(...p), max: Math.max(...p), mean: p.reduce((x, y) => x + y, 0) / p.length };
}

function checkAgainstReplay(o) {
  assert.ok(o.buckets > 0);
  for (let i = 0; i < o.buckets; i++) {
    const a = o.from + i * o.width;
    const b = Math.min(a + o.width, o.events);
    const want = expected(a, b);
    for (const [name, arr] of Object.entries(o.counters))
      assert.equal(arr[i], want.sums[name] || 0, `${name} in bucket ${i} [${a}, ${b})`);
    assert.equal(o.slab_pages.min[i], want.min, `pages min, bucket ${i}`);
    assert.equal(o.slab_pages.max[i], want.max, `pages max, bucket ${i}`);
    assert.ok(Math.abs(o.slab_pages.mean[i] - want.mean) < 0.01, `pages mean, bucket ${i}`);
  }
}

describe('overview', () => {
  test('the whole run: sums over buckets are the totals, each bucket is its events', async () => {
    assert.ok(events.length > 100, 'the replay has events');
    for (const buckets of [4096, 100, 10, 3, 1]) {
      const r = await api(srv.url, 'GET', `/api/sessions/${s.id}/overview?buckets=${buckets}`);
      assert.equal(r.status, 200);
      const o = r.json;
      assert.equal(o.events, events.length);
      assert.equal(o.from, 0);
      assert.equal(o.to, events.length);
      assert.ok(o.buckets <= buckets, `${o.buckets} buckets for ${buckets}`);
      assert.equal(o.source, 'memory');
      const total = expected(0, events.length).sums;
      // every counter the run changed is there, and only those
      assert.deepEqual(Object.keys(o.counters).sort(), Object.keys(total).filter((k) => total[k]).sort());
      for (const [name, arr] of Object.entries(o.counters))
        assert.equal(arr.reduce((x, y) => x + y, 0), total[name], name);
      checkAgainstReplay(o);
    }
    // the finest level of a short run: one event a bucket
    const fine = await api(srv.url, 'GET', `/api/sessions/${s.id}/overview?buckets=4096`);
    assert.equal(fine.json.width, 1);
    assert.equal(fine.json.level, 0);
  });

  test('a range answers a finer level; counters can be named', async () => {
    const whole = await api(srv.url, 'GET', `/api/sessions/${s.id}/overview?buckets=8`);
    const r = await api(srv.url, 'GET', `/api/sessions/${s.id}/overview?from=100&to=150&buckets=8&counters=free_fastpath,barn_put`);
    assert.equal(r.status, 200);
    const o = r.json;
    assert.ok(o.width < whole.json.width, `width ${o.width} < ${whole.json.width}`);
    assert.ok(o.from <= 100 && o.to >= 150 && o.buckets <= 8);
    assert.deepEqual(Object.keys(o.counters), ['free_fastpath', 'barn_put']);
    checkAgainstReplay(o);
  });

  test('bad requests', async () => {
    for (const [q, status] of [['buckets=0', 400], ['buckets=5000', 400], ['counters=nope', 400], ['from=9&to=3', 400]]) {
      const r = await api(srv.url, 'GET', `/api/sessions/${s.id}/overview?${q}`);
      assert.equal(r.status, status, q);
      assert.ok(isError(r, 'bad_request'), q);
    }
    const none = await api(srv.url, 'GET', '/api/sessions/aaaaaaaaaa/overview');
    assert.equal(none.status, 404);
  });

  test('a restarted server answers from the store, without rebuilding', async () => {
    const before = await api(srv.url, 'GET', `/api/sessions/${s.id}/overview?buckets=50`);
    await srv.stop();
    srv = await start({ dir, db: srv.db });
    const r = await api(srv.url, 'GET', `/api/sessions/${s.id}/overview?buckets=50`);
    assert.equal(r.status, 200);
    assert.equal(r.json.source, 'store');
    assert.deepEqual({ ...r.json, source: 'memory' }, before.json);
    // nothing was rebuilt to answer it
    const health = await api(srv.url, 'GET', '/api/sessions');
    assert.equal(health.json.live, 0);
  });
});

test('replay --db keeps the overview with the session: the server answers it before building, the same as after', async () => {
  const d = tmpdir();
  const db = `${d}/trace.db`;
  try {
    execFileSync(BIN, ['replay', 'tests/data/kmem-trace-sample.txt.gz', '--db', db], { encoding: 'utf8' });
    const t = await start({ dir: d, db });
    try {
      const id = (await api(t.url, 'GET', '/api/sessions?limit=1')).json.sessions[0].id;
      const stored = await api(t.url, 'GET', `/api/sessions/${id}/overview?buckets=64`);
      assert.equal(stored.status, 200);
      assert.equal(stored.json.source, 'store');
      assert.ok(stored.json.events > 10000, `${stored.json.events} events`);
      assert.equal((await api(t.url, 'GET', '/api/sessions')).json.live, 0, 'not built to answer');
      const info = await api(t.url, 'GET', `/api/sessions/${id}`); // builds it
      assert.equal(info.json.events, stored.json.events);
      const built = await api(t.url, 'GET', `/api/sessions/${id}/overview?buckets=64`);
      assert.equal(built.json.source, 'memory');
      assert.deepEqual({ ...stored.json, source: 'memory' }, built.json);
    } finally {
      await t.stop();
    }
  } finally {
    fs.rmSync(d, { recursive: true, force: true });
  }
});
