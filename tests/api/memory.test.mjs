// tests/api/memory.test.mjs: a request's memory is bounded by the server's
// budgets, whatever its size on paper: the 170-byte scenario of N
// caches on 64 CPUs (memory grows with N x CPUs x checkpoints) is refused
// at --session-memory, live timelines fit --memory-mb as measured (not as
// many as --session-memory says each may grow to), and a deleted big
// session gives its memory back.  Resident memory is read from /proc.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';

import { api, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv;

// Under AddressSanitizer resident memory is the sanitizer's (shadow memory,
// quarantine), not the lab's: the bounds are checked on the release build.
const sanitized = () => fs.readFileSync(`/proc/${srv.proc.pid}/maps`, 'utf8').includes('libasan');
const rssMiB = () => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${srv.proc.pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
};
const caches = (n) => ({
  scenario: { format: 1, name: 'cb', machine: { cpus: 64 }, ops: [{ op: 'repeat', times: n, ops: [{ op: 'create', name: 'c{i}', object_size: 64 }] }] },
});

before(async () => {
  srv = await start({ dir, args: ['--memory-mb', '256', '--session-memory', '64', '--workers', '4'] });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('4,000 caches on 64 CPUs: 429 at the session\'s budget, three at once, resident memory bounded', async (t) => {
  const rs = await Promise.all([0, 1, 2].map(() => api(srv.url, 'POST', '/api/sessions', { body: caches(4000) })));
  for (const r of rs) {
    assert.equal(r.status, 429, r.text);
    assert.match(r.json.error.message, /needs more than its 64 MiB of memory/);
  }
  const rss = rssMiB();
  t.diagnostic(`resident ${rss.toFixed(0)} MiB after three 4,000-cache requests`);
  if (sanitized()) return t.skip('resident memory under ASan is the sanitizer\'s');
  assert.ok(rss < 512, `resident ${rss.toFixed(0)} MiB after three such requests (budget 3 x 64 MiB)`);
});

test('live timelines fit --memory-mb, measured: 600-cache ones evict each other, small ones do not', async (t) => {
  const list = await api(srv.url, 'GET', '/api/sessions?limit=1');
  assert.equal(list.json.memory.budget, 256 * 1024 * 1024);
  const made = [];
  // a seed each: no two have the same inputs, so none shares a timeline
  for (let i = 0; i < 8; i++) {
    const r = await api(srv.url, 'POST', '/api/sessions', { body: { ...caches(600), seed: 100 + i } });
    assert.equal(r.status, 201, r.text);
    made.push(r.json);
    const now = (await api(srv.url, 'GET', '/api/sessions?limit=1')).json;
    assert.ok(now.memory.used <= now.memory.budget, `${now.memory.used} bytes held, budget ${now.memory.budget}`);
  }
  const after8 = await api(srv.url, 'GET', '/api/sessions?limit=1');
  assert.ok(after8.json.live < 8, `${after8.json.live} live: the budget evicted some`);
  const rss = rssMiB();
  t.diagnostic(`resident ${rss.toFixed(0)} MiB with eight 600-cache sessions made, ${after8.json.live} live, ${(after8.json.memory.used / 1048576).toFixed(0)} MiB charged`);
  if (!sanitized()) assert.ok(rss < 512, `resident ${rss.toFixed(0)} MiB with eight 600-cache sessions made`);
  // small timelines are charged what they hold, not the 64 MiB they may
  // grow to: twenty of them stay live under the same budget
  const small = [];
  for (let i = 0; i < 20; i++) {
    const r = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: 'default', seed: 500 + i } });
    assert.equal(r.status, 201, r.text);
    small.push(r.json);
  }
  const s20 = (await api(srv.url, 'GET', '/api/sessions?limit=1')).json;
  assert.ok(s20.live >= 20, `${s20.live} live timelines after twenty small sessions`);
  for (const s of small) assert.equal((await api(srv.url, 'DELETE', `/api/sessions/${s.id}`, { token: s.token })).status, 204);
  // an evicted one comes back on demand
  const back = await api(srv.url, 'GET', `/api/sessions/${made[0].id}/state?at=5`);
  assert.equal(back.status, 200);
  for (const s of made) assert.equal((await api(srv.url, 'DELETE', `/api/sessions/${s.id}`, { token: s.token })).status, 204);
});

test('deleting a big session gives its memory back', async (t) => {
  const before = rssMiB();
  const r = await api(srv.url, 'POST', '/api/sessions', { body: caches(900) });
  assert.equal(r.status, 201, r.text);
  const grown = rssMiB();
  assert.equal((await api(srv.url, 'DELETE', `/api/sessions/${r.json.id}`, { token: r.json.token })).status, 204);
  // the keeper may still be storing the run's end (server/session/keeper.c):
  // its copy of the machine goes when it is done, within moments
  let after = rssMiB();
  for (let i = 0; i < 30 && !sanitized() && after >= grown - (grown - before) / 2; i++) {
    await new Promise((ok) => { setTimeout(ok, 100); });
    after = rssMiB();
  }
  t.diagnostic(`resident ${before.toFixed(0)} -> ${grown.toFixed(0)} -> ${after.toFixed(0)} MiB`);
  if (sanitized()) return t.skip('resident memory under ASan is the sanitizer\'s');
  assert.ok(grown - before > 20, `the session took memory (${before.toFixed(0)} -> ${grown.toFixed(0)} MiB)`);
  assert.ok(after < grown - (grown - before) / 2, `most of it came back (${grown.toFixed(0)} -> ${after.toFixed(0)} MiB)`);
});
