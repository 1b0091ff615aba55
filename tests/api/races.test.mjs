// tests/api/races.test.mjs: requests that race each other: creates that
// race for the last live-session places (--max-sessions), and an append
// that races a DELETE of its session.  Bounded in count; loopback only.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';

import { api, session, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv;

before(async () => {
  srv = await start({ dir, args: ['--max-sessions', '16', '--workers', '8'] });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('60 creates at once: never more than --max-sessions live, and none refused while none is held', async () => {
  for (let round = 0; round < 3; round++) {
    const rs = await Promise.all(Array.from({ length: 60 }, () => api(srv.url, 'POST', '/api/sessions', { body: { scenario: 'default' } })));
    const statuses = rs.map((r) => r.status);
    assert.deepEqual([...new Set(statuses)], [201], `round ${round}: ${statuses.join(' ')}`);
    const list = await api(srv.url, 'GET', '/api/sessions?limit=1');
    assert.ok(list.json.live <= 16, `round ${round}: ${list.json.live} live sessions, at most 16`);
  }
});

test('an append racing a DELETE of its session is 200 or 404, never 500', async () => {
  const seen = { 200: 0, 404: 0 };
  for (let i = 0; i < 150; i++) {
    const s = await session(srv.url);
    const auth = { token: s.token };
    const [app, del] = await Promise.all([
      api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { ...auth, body: [{ op: 'alloc', cpu: 0, cache: 'A' }] }),
      api(srv.url, 'DELETE', `/api/sessions/${s.id}`, auth),
    ]);
    assert.ok(app.status === 200 || app.status === 404, `append: ${app.status} ${app.text}`);
    assert.ok(del.status === 204 || del.status === 404, `delete: ${del.status} ${del.text}`);
    seen[app.status]++;
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${s.id}`)).status, 404, 'the session is gone');
  }
  assert.equal(seen[200] + seen[404], 150);
});

test('twenty sessions on one timeline write at once: each gets its own copy, nobody sees another\'s', async () => {
  const class20 = [];
  for (let i = 0; i < 20; i++) class20.push(await session(srv.url, { scenario: 'fresh-slab-fill' }));
  const quiet = await session(srv.url, { scenario: 'fresh-slab-fill' });
  const end = (await api(srv.url, 'GET', `/api/sessions/${quiet.id}`)).json.events;
  const rs = await Promise.all(class20.map((s, i) => api(srv.url, 'POST', `/api/sessions/${s.id}/ops`,
    { token: s.token, body: [{ op: 'create', name: `c${i}`, object_size: 32 + 8 * i }] })));
  for (const r of rs) assert.equal(r.status, 200, r.text);
  for (let i = 0; i < 20; i++) {
    const st = (await api(srv.url, 'GET', `/api/sessions/${class20[i].id}/state?at=${rs[i].json.events}`)).json.state;
    const caches = st.caches.map((c) => c.name);
    assert.ok(caches.includes(`c${i}`), `session ${i} has its cache`);
    assert.ok(!caches.includes(`c${(i + 1) % 20}`), `session ${i} has no other's cache`);
  }
  assert.equal((await api(srv.url, 'GET', `/api/sessions/${quiet.id}`)).json.events, end, 'the untouched session is as it was');
});
