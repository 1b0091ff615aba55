// A cache validated through the API (POST .../ops {"op":"validate"}): SLUB's
// reports come back as warnings, and the state's cache counts them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, api, session } from './lib.mjs';

let srv;
before(async () => { srv = await start(); });
after(async () => { await srv.stop(); });

const scenario = {
  format: 1, name: 'kmalloc-rz', seed: 1, kernel: '7.3',
  caches: [{ name: 'K', object_size: 32, flags: ['SLAB_KMALLOC', 'SLAB_STORE_USER', 'SLAB_RED_ZONE'] }],
  ops: [
    { op: 'alloc', cpu: 0, cache: 'K', size: 18, name: 'p' },
    { op: 'write', name: 'p', offset: 18, count: 2, value: 171 },
  ],
};

test('validate finds the kmalloc red zone overwritten, and the state counts two reports', async () => {
  const s = await session(srv.url, { scenario });
  const before = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${s.events}`);
  assert.equal(before.json.state.caches[0].slab_errors, undefined, 'no report yet');
  const r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { body: [{ op: 'validate', cache: 'K' }], token: s.token });
  assert.equal(r.status, 200, r.text);
  assert.match(JSON.stringify(r.json.new_warnings), /kmalloc Redzone overwritten/);
  const after = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${r.json.events}`);
  assert.equal(after.json.state.caches[0].slab_errors, 2);
  const again = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { body: [{ op: 'validate', cache: 'K' }], token: s.token });
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.json.new_warnings, [], 'the bytes were restored: the second walk is clean');
});
