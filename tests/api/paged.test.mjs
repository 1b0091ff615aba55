// A big state is paged by cache (docs/api.md "Paged states"): the state
// keeps caches, counters and zones and says how much it left out; the
// pages of every cache (GET .../state/objects) give back every slab, sheaf
// and queued object, consistent with the caches' own counts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { start, api, session, isError } from './lib.mjs';

let srv;
before(async () => { srv = await start(); });
after(async () => { await srv.stop(); });

const N = 12000; // objects freed in each cache
// 2N objects of each of two caches, then every other one freed: half-full
// slabs whose freelists list 2N objects, over the paging limit (16,384).
const bigScenario = JSON.parse(fs.readFileSync('tests/data/paged.json', 'utf8'));

test('a big state is paged, and its pages give back every slab and object', async () => {
  const s = await session(srv.url, { scenario: bigScenario });
  const at = s.events;
  const r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${at}`);
  assert.equal(r.status, 200, r.text);
  const st = r.json.state;
  const size = JSON.stringify(st).length;
  assert.ok(size < 64 * 1024, `the paged state is small (${size} bytes)`);
  const p = st.paged;
  assert.ok(p, 'the state says it is paged');
  assert.equal(p.by, 'cache');
  assert.ok(p.items > p.limit, `${p.items} items over the limit ${p.limit}`);
  assert.equal(p.items, p.slabs + p.sheaves + p.objects + p.rcu_pending);
  assert.deepEqual([st.slabs, st.sheaves, st.rcu_pending], [[], [], []]);
  assert.ok(st.caches.length >= 2 && st.zones.length >= 1, 'caches and zones stay');

  let slabs = 0, sheaves = 0, objects = 0, rcu = 0;
  for (const c of st.caches) {
    let from = 0, pages = 0, total = 0;
    for (;;) {
      const q = await api(srv.url, 'GET', `/api/sessions/${s.id}/state/objects?at=${at}&cache=${c.id}&from=${from}&count=100`);
      assert.equal(q.status, 200, q.text);
      const pg = q.json;
      assert.equal(pg.at, at);
      assert.equal(pg.cache, c.id);
      assert.equal(pg.from, from);
      assert.ok(pg.slabs.length <= 100);
      for (const sl of pg.slabs) {
        assert.equal(sl.cache, c.id);
        assert.equal(sl.freelist.length, sl.objects - sl.inuse, `slab ${sl.name} lists its free objects`);
        objects += sl.freelist.length;
      }
      slabs += pg.slabs.length;
      total += pg.slabs.length;
      if (from === 0) {
        for (const sh of pg.sheaves) {
          assert.equal(sh.cache, c.id);
          assert.equal(sh.objects.length, sh.size);
          objects += sh.objects.length;
        }
        sheaves += pg.sheaves.length;
        rcu += pg.rcu_pending.length;
      }
      pages++;
      if (pg.next === null) { assert.equal(total, pg.slabs_total); break; }
      assert.equal(pg.next, from + 100);
      from = pg.next;
    }
    assert.equal(total, c.slabs, `cache ${c.name}: its pages list as many slabs as it counts`);
    if (c.name === 'A') assert.ok(pages > 1, 'cache A takes more than one page');
  }
  assert.equal(slabs, p.slabs);
  assert.equal(sheaves, p.sheaves);
  assert.equal(rcu, p.rcu_pending);
  // sheaf objects and freelists share the snapshot's object list
  assert.ok(objects <= p.objects && objects >= N, `${objects} objects found of ${p.objects}`);

  // a small position of the same session is not paged
  const small = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=10`);
  assert.equal(small.json.state.paged, undefined);
  assert.ok(small.json.state.slabs.length > 0);
});

test('object pages refuse what they cannot answer', async () => {
  const s = await session(srv.url);
  let r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state/objects?at=3`);
  assert.equal(r.status, 400);
  assert.ok(isError(r, 'bad_request'));
  r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state/objects?at=3&cache=999`);
  assert.equal(r.status, 404, r.text);
  assert.ok(isError(r, 'not_found'));
  r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state/objects?at=${s.events + 1}&cache=0`);
  assert.equal(r.status, 400, r.text);
  for (const count of [0, 5000]) {
    r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state/objects?cache=0&count=${count}`);
    assert.equal(r.status, 400, r.text);
  }
  // at the session's position (0: no cache yet) when "at" is left out
  r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state/objects?cache=0`);
  assert.equal(r.status, 404, r.text);
  // a small state's page is its lists
  r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state/objects?at=${s.events}&cache=0`);
  assert.equal(r.status, 200, r.text);
  const full = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${r.json.at}`);
  assert.deepEqual(r.json.slabs, full.json.state.slabs.filter((x) => x.cache === 0));
  assert.deepEqual(r.json.sheaves, full.json.state.sheaves.filter((x) => x.cache === 0));
});
