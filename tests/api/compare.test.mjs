// GET /api/compare beyond the shipped scenarios: a session's inputs (its
// scenario, shipped or not, and the operations appended since) run under
// the two settings; open=1 keeps both runs as sessions; a comparison whose
// two runs are the same says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start } from './lib.mjs';

let srv;
before(async () => { srv = await start(); });
after(async () => { await srv?.stop(); });

async function call(method, path, body, token) {
  const headers = body ? { 'Content-Type': 'application/json' } : {};
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(srv.url + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const text = await r.text();
  return { status: r.status, type: r.headers.get('content-type'), json: text && r.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null, text };
}

// A scenario of the user's own, not a shipped one.
const MINE = {
  format: 1, name: 'mine', title: 'my own', machine: { cpus: 2 },
  caches: [{ name: 'M', object_size: 192 }],
  ops: [{ op: 'repeat', times: 40, ops: [{ op: 'alloc', cpu: 0, cache: 'M', name: 'a{i}' }] },
    { op: 'repeat', times: 40, ops: [{ op: 'free', cpu: 1, name: 'a{i}' }] }],
};
const MORE = [{ op: 'repeat', times: 30, ops: [{ op: 'alloc', cpu: 1, cache: 'M', name: 'b{i}' }] }];

/** The end counters of cache @name in session @id, as the compare rows name them. */
async function endCounters(id, name) {
  const info = (await call('GET', `/api/sessions/${id}`)).json;
  const st = (await call('GET', `/api/sessions/${id}/state?at=${info.events}`)).json;
  const c = st.state.caches.find((x) => x.name === name);
  return { ...c.stats, objects: c.objects, slabs: c.slabs, total_objects: c.total_objects };
}

test('session=ID reruns a user scenario and its appended operations under both settings', async () => {
  const made = await call('POST', '/api/sessions', { scenario: MINE });
  assert.equal(made.status, 201);
  const { id } = made.json;
  const alone = await call('GET', `/api/compare?session=${id}&variant=DEFERRED_FREELIST`);
  assert.equal(alone.status, 200, alone.text);
  const added = await call('POST', `/api/sessions/${id}/ops`, MORE, made.json.token);
  assert.equal(added.status, 200, added.text);

  const r = await call('GET', `/api/compare?session=${id}&variant=DEFERRED_FREELIST`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.session, id);
  assert.equal(r.json.scenario, 'mine');
  assert.equal(r.json.cache, 'M');
  // each side is the session's inputs with one variant set: the same as a
  // session made from them with that setting
  for (const [side, value] of [['baseline', 'before'], ['patched', 'after']]) {
    const twin = await call('POST', '/api/sessions', { scenario: MINE, variants: { DEFERRED_FREELIST: value }, ops: MORE });
    assert.equal(twin.status, 201);
    const want = await endCounters(twin.json.id, 'M');
    for (const m of ['alloc_fastpath', 'alloc_slowpath', 'free_fastpath', 'objects', 'total_objects', 'engine_freeptr_writes']) {
      assert.equal(r.json.rows.find((x) => x.metric === m)[side], want[m] ?? 0, `${side} ${m}`);
    }
  }
  // the 30 appended allocations are counted: more than the scenario alone
  const n = (doc) => doc.rows.find((x) => x.metric === 'alloc_fastpath').baseline + doc.rows.find((x) => x.metric === 'alloc_slowpath').baseline;
  assert.equal(n(r.json), n(alone.json) + 30);

  // Markdown too
  const md = await call('GET', `/api/compare?session=${id}&variant=DEFERRED_FREELIST&format=md`);
  assert.equal(md.status, 200);
  assert.match(md.text, /^# slublab comparison: mine, cache M/);
});

test('session=ID with open=1 keeps both runs as sessions that step like any other', async () => {
  const made = await call('POST', '/api/sessions', { scenario: 'default', ops: [{ op: 'alloc', cpu: 1, cache: 'A', name: 'zz' }] });
  const r = await call('POST', `/api/compare?session=${made.json.id}&model=sheaves,legacy&open=1`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.runs.length, 2);
  const [a, b] = r.json.runs;
  assert.match(a.token, /^[0-9a-f]{32}$/);
  const ia = (await call('GET', `/api/sessions/${a.id}`)).json, ib = (await call('GET', `/api/sessions/${b.id}`)).json;
  assert.equal(ia.settings.model, 'sheaves');
  assert.match(ib.settings.model, /^legacy/);
  assert.equal(ia.parent, made.json.id);
  // the source's 13 scenario operations and the appended one, on both
  assert.equal(ia.ops, made.json.ops);
  assert.equal(ib.ops, made.json.ops);
  const end = await endCounters(a.id, 'A');
  assert.equal(r.json.rows.find((x) => x.metric === 'alloc_fastpath').baseline, end.alloc_fastpath ?? 0);
});

test('a forked session: only the operations up to the fork are rerun', async () => {
  const made = await call('POST', '/api/sessions', { scenario: 'default' });
  const fork = await call('POST', `/api/sessions/${made.json.id}/fork`, { at: 11 });
  assert.equal(fork.status, 201);
  const r = await call('POST', `/api/compare?session=${fork.json.id}&variant=BARN_REFILL&open=1`);
  assert.equal(r.status, 200, r.text);
  const info = (await call('GET', `/api/sessions/${r.json.runs[0].id}`)).json;
  assert.equal(info.ops, fork.json.ops);
  assert.ok(fork.json.ops < made.json.ops);
});

test('compare: errors for sessions', async () => {
  let r = await call('GET', '/api/compare?session=nosuchsess&variant=BARN_REFILL');
  assert.equal(r.status, 404);
  assert.equal(r.json.error.code, 'not_found');
  r = await call('GET', '/api/compare?session=abc&scenario=default&variant=BARN_REFILL');
  assert.equal(r.status, 400);
  r = await call('GET', '/api/compare?variant=BARN_REFILL');
  assert.equal(r.status, 400);
  r = await call('GET', '/api/compare?scenario=default&variant=BARN_REFILL&open=yes');
  assert.equal(r.status, 400);
});

test('a variant that does not apply to the model: a warning, and identical runs', async () => {
  const r = await call('GET', '/api/compare?scenario=free-storm&variant=CPU_PARTIAL_DIRECT_LOAD');
  assert.equal(r.status, 200);
  assert.equal(r.json.identical, true);
  assert.match(r.json.warning, /CPU_PARTIAL_DIRECT_LOAD does not change what the sheaves model does/);
  assert.ok(r.json.rows.every((x) => x.baseline === x.patched));
  const md = await call('GET', '/api/compare?scenario=free-storm&variant=CPU_PARTIAL_DIRECT_LOAD&format=md');
  assert.match(md.text, /> \*\*Warning:\*\* CPU\\_PARTIAL\\_DIRECT\\_LOAD does not change what the sheaves model does/);
  // a variant that applies and changes the run: no warning
  const ok = await call('GET', '/api/compare?scenario=maple-prefill-kfree-rcu&variant=BARN_REFILL');
  assert.equal(ok.json.identical, false);
  assert.equal(ok.json.warning, null);
  // one that applies but makes no difference here: identical, said so
  const same = await call('GET', '/api/compare?scenario=free-storm&variant=BARN_REFILL');
  assert.equal(same.json.identical, true);
  assert.match(same.json.warning, /the two runs are identical \(the same \d+ operations and \d+ events\)/);
});

test('open=1 makes sessions, so only a POST may ask for it', async () => {
  const got = await call('GET', '/api/compare?scenario=default&variant=BARN_REFILL&open=1');
  assert.equal(got.status, 405, got.text);
  assert.match(got.json.error.message, /POST \/api\/compare/);
  const post = await call('POST', '/api/compare?scenario=default&variant=BARN_REFILL');
  assert.equal(post.status, 400, post.text);
  const list = async () => (await call('GET', '/api/sessions?limit=1')).json.total;
  const before = await list();
  assert.equal((await call('GET', '/api/compare?scenario=default&variant=BARN_REFILL')).status, 200);
  assert.equal(await list(), before, 'a GET made no session');
});

test('variant names in any case; a typo of a variant or a counter lists the names and offers the nearest', async () => {
  const ok = await call('GET', '/api/compare?scenario=barn-refill&variant=barn_refill');
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.baseline, 'BARN_REFILL=before');
  const typo = await call('GET', '/api/compare?scenario=barn-refill&variant=BARN_REFIL');
  assert.equal(typo.status, 400);
  assert.match(typo.json.error.message, /^variant: unknown variant "BARN_REFIL": did you mean "BARN_REFILL"\? The variants are: DEFERRED_FREELIST, BARN_REFILL, /);
  const s = await call('POST', '/api/sessions', { scenario: 'barn-refill' });
  assert.equal(s.status, 201, s.text);
  const series = await call('GET', `/api/sessions/${s.json.id}/series?counters=alloc_fastpath,barn_get_fial`);
  assert.equal(series.status, 400);
  assert.match(series.json.error.message, /unknown counter "barn_get_fial": did you mean "barn_get_fail"\? The counters are: alloc_fastpath, .*, engine_/);
});

test('a counter the kernel lacks is marked so, not a 0 like any other', async () => {
  // default runs 7.3 (sheaves): free_frozen is a legacy-only counter, no sysfs file there
  const r = await call('GET', '/api/compare?scenario=default&variant=deferred_freelist');
  assert.equal(r.status, 200, r.text);
  const frozen = r.json.rows.find((x) => x.metric === 'free_frozen');
  assert.equal(frozen.in_baseline, false);
  assert.equal(frozen.in_patched, false);
  const fast = r.json.rows.find((x) => x.metric === 'alloc_fastpath');
  assert.equal(fast.in_baseline, undefined, 'a counter both have carries no marks');
});
