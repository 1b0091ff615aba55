// tests/api/caches.test.mjs: GET /api/sessions/ID/caches ranks the caches
// of a replayed kernel trace as a reviewer asks: its allocations per cache
// are the trace's own kmem_cache_alloc lines per name=, counted here from the
// text; the ranking follows ?sort=; a range's rows add up to the run's; an
// unknown column is refused with the list and the nearest.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';

import { api, start, tmpdir } from './lib.mjs';

const SLICE = path.resolve('tests/data/kmem-trace-slice.txt.gz');
const dir = tmpdir();
let srv;
let sid;

before(async () => {
  srv = await start({ dir });
  const up = await api(srv.url, 'POST', '/api/traces', {
    raw: fs.readFileSync(SLICE), headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(up.status, 202, up.text);
  for (const end = Date.now() + 60000; !sid && Date.now() < end;) {
    const j = (await api(srv.url, 'GET', `/api/traces/${up.json.id}`)).json;
    assert.notEqual(j.state, 'failed', JSON.stringify(j.error));
    if (j.state === 'done') sid = j.session.id;
    else await new Promise((res) => setTimeout(res, 100));
  }
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// kmem_cache_alloc lines per name=, from the trace's text.
function allocLines() {
  const counts = {};
  for (const line of zlib.gunzipSync(fs.readFileSync(SLICE)).toString('utf8').split('\n')) {
    const m = / kmem_cache_alloc: .* name=(\S+)/.exec(line);
    if (m) counts[m[1]] = (counts[m[1]] ?? 0) + 1;
  }
  return counts;
}

test('the allocations of each cache are the trace\'s own, busiest first', async () => {
  const r = await api(srv.url, 'GET', `/api/sessions/${sid}/caches`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.sort, 'allocs');
  assert.deepEqual(r.json.columns, ['allocs', 'frees', 'alloc_slowpath', 'free_slowpath', 'barn_get_fail', 'barn_put_fail', 'alloc_slab', 'free_slab', 'objects']);
  const want = allocLines();
  const got = Object.fromEntries(r.json.caches.map((c) => [c.name, c]));
  let compared = 0;
  for (const [name, n] of Object.entries(want)) {
    if (/^kmalloc-/.test(name)) continue; // kmalloc() lines land there too
    assert.equal(got[name]?.allocs, n, `${name}: ${n} kmem_cache_alloc lines`);
    compared++;
  }
  assert.ok(compared >= 10, `${compared} caches compared`);
  for (let i = 1; i < r.json.caches.length; i++) assert.ok(r.json.caches[i - 1].allocs >= r.json.caches[i].allocs);
});

test('sort by any column; a range adds up to the whole run', async () => {
  const whole = (await api(srv.url, 'GET', `/api/sessions/${sid}/caches`)).json;
  const byFail = await api(srv.url, 'GET', `/api/sessions/${sid}/caches?sort=barn_get_fail`);
  assert.equal(byFail.status, 200, byFail.text);
  const f = byFail.json.caches.map((c) => c.barn_get_fail);
  assert.deepEqual(f, [...f].sort((a, b) => b - a));
  const mid = Math.floor(whole.to / 2);
  const [a, b] = await Promise.all([`from=0&to=${mid}`, `from=${mid}&to=${whole.to}`].map(async (q) => (await api(srv.url, 'GET', `/api/sessions/${sid}/caches?${q}`)).json));
  assert.equal(a.to, mid);
  for (const c of whole.caches) {
    const x = a.caches.find((y) => y.name === c.name)?.allocs ?? 0;
    const y = b.caches.find((z) => z.name === c.name)?.allocs ?? 0;
    assert.equal(x + y, c.allocs, `${c.name}: the halves add up`);
  }
  const bad = await api(srv.url, 'GET', `/api/sessions/${sid}/caches?sort=barn_get_fial`);
  assert.equal(bad.status, 400);
  assert.match(bad.json.error.message, /did you mean "barn_get_fail"\? The columns are: allocs, frees, /);
});

test('GET /api/compare takes the trace session: its run again under each side, object for object', async () => {
  const end = (await api(srv.url, 'GET', `/api/sessions/${sid}`)).json.events;
  const st = (await api(srv.url, 'GET', `/api/sessions/${sid}/state?at=${end}`)).json.state;
  const filp = st.caches.find((c) => c.name === 'filp');
  const r = await api(srv.url, 'GET', `/api/compare?session=${sid}&variant=barn_refill&cache=filp`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.baseline, 'BARN_REFILL=before');
  const row = (m) => r.json.rows.find((x) => x.metric === m);
  // the baseline is the session's own settings: the session's end, as the lab shows it
  assert.equal(row('objects').baseline, filp.objects);
  assert.equal(row('total_objects').baseline, filp.total_objects);
  const k = await api(srv.url, 'GET', `/api/compare?session=${sid}&kernel=6.18,7.3`);
  assert.equal(k.status, 200, k.text);
  assert.equal(k.json.cache, 'names_cache', 'by default, the cache that handed out the most objects');
  assert.match(k.json.rows.find((x) => x.metric === 'alloc_fastpath').note, /counts objects taken from the CPU slab's freelist/);
  const md = await fetch(`${srv.url}/api/compare?session=${sid}&kernel=6.18,7.3&format=md`);
  assert.equal(md.status, 200);
  assert.match(await md.text(), /Left out: \d+ counters that are 0 in both runs/);
  const kept = await api(srv.url, 'POST', `/api/compare?session=${sid}&variant=BARN_REFILL&open=1`);
  assert.equal(kept.status, 422, kept.text);
});
