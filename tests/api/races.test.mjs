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
