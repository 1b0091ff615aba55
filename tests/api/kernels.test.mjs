// The kernel release through the API: GET /api/kernels lists the table and
// the default; a session's "kernel" picks a release (X.Y.Z as X.Y), is
// echoed in its settings, survives a restart of the server, keeps the
// scenario's explicit variants, and is refused when unknown or when the
// model contradicts it; GET /api/compare?kernel=A,B runs one workload on two
// releases, n/a (in_baseline/in_patched false) where one lacks a counter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, tmpdir } from './lib.mjs';
import path from 'node:path';
import zlib from 'node:zlib';
import fs from 'node:fs';
import { api } from './lib.mjs';

let srv, db;
before(async () => { db = path.join(tmpdir(), 'k.db'); srv = await start({ db }); });
after(async () => { await srv?.stop(); });

async function call(method, p, body) {
  const r = await fetch(srv.url + p, { method, headers: body ? { 'Content-Type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, json: await r.json() };
}

test('GET /api/kernels: every release, oldest first, with its model, and the default', async () => {
  const r = await call('GET', '/api/kernels');
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.kernels.map((k) => k.name), ['6.1', '6.8', '6.12', '6.18', '6.19', '7.0', '7.1', '7.2', '7.3']);
  assert.equal(r.json.default, '7.3');
  const by = Object.fromEntries(r.json.kernels.map((k) => [k.name, k]));
  assert.equal(by['6.8'].model, 'legacy:ERA_DELAYED_FREEZE');
  assert.equal(by['7.0'].model, 'sheaves');
  assert.equal(by['7.0'].variants.REFILL_NONBLOCKING, 'after');
  assert.equal(by['6.19'].variants.REFILL_NONBLOCKING, 'before');
  assert.equal(by['7.3'].variants.BARN_REFILL, 'before');
});

test('a session\'s kernel: X.Y.Z as X.Y, in its settings, the default without one', async () => {
  let r = await call('POST', '/api/sessions', { scenario: 'free-storm', kernel: '6.12.57' });
  assert.equal(r.status, 201);
  let info = await call('GET', `/api/sessions/${r.json.id}`);
  assert.equal(info.json.settings.kernel, '6.12');
  assert.equal(info.json.settings.variants.CPU_PARTIAL_DIRECT_LOAD, 'after');
  assert.ok(info.json.counters.includes('cpu_partial_free'));
  r = await call('POST', '/api/sessions', { scenario: 'free-storm' });
  info = await call('GET', `/api/sessions/${r.json.id}`);
  assert.equal(info.json.settings.kernel, '7.3');
  assert.equal(info.json.settings.variants.BARN_REFILL, 'before');
  // a model alone: an experiment, no release
  r = await call('POST', '/api/sessions', { scenario: 'free-storm', model: 'legacy' });
  info = await call('GET', `/api/sessions/${r.json.id}`);
  assert.equal(info.json.settings.kernel, null);
});

test('a session\'s kernel keeps the scenario\'s explicit variants; a settings variant overrides', async () => {
  let r = await call('POST', '/api/sessions', { scenario: 'maple-prefill-kfree-rcu', kernel: '7.2' });
  assert.equal(r.status, 201);
  let info = await call('GET', `/api/sessions/${r.json.id}`);
  assert.equal(info.json.settings.variants.BARN_REFILL, 'after'); /* the scenario teaches it */
  r = await call('POST', '/api/sessions', { scenario: 'maple-prefill-kfree-rcu', kernel: '7.2', variants: { BARN_REFILL: 'before' } });
  info = await call('GET', `/api/sessions/${r.json.id}`);
  assert.equal(info.json.settings.variants.BARN_REFILL, 'before');
});

test('an unknown kernel and a contradicting model are 400s that say why', async () => {
  let r = await call('POST', '/api/sessions', { scenario: 'free-storm', kernel: '6.13' });
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /kernel.*6\.1, 6\.8, 6\.12, 6\.18, 6\.19, 7\.0, 7\.1, 7\.2, 7\.3/);
  r = await call('POST', '/api/sessions', { scenario: 'free-storm', kernel: '7.2', model: 'legacy:ERA_DIRECT_LOAD' });
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /contradicts kernel 7\.2/);
  r = await call('POST', '/api/sessions', { scenario: 'free-storm', kernel: '6.12', model: 'legacy:ERA_DIRECT_LOAD' });
  assert.equal(r.status, 201);
});

test('a session\'s kernel survives a restart of the server', async () => {
  const r = await call('POST', '/api/sessions', { scenario: 'free-storm', kernel: '6.8' });
  const before = await call('GET', `/api/sessions/${r.json.id}/state?at=40`);
  await srv.stop();
  srv = await start({ db });
  const info = await call('GET', `/api/sessions/${r.json.id}`);
  assert.equal(info.json.settings.kernel, '6.8');
  const after2 = await call('GET', `/api/sessions/${r.json.id}/state?at=40`);
  assert.deepEqual(after2.json.state.caches, before.json.state.caches);
});

test('GET /api/compare?kernel=6.12,7.2: two releases, n/a where one lacks a counter', async () => {
  const r = await call('GET', '/api/compare?scenario=free-storm&kernel=6.12,7.2');
  assert.equal(r.status, 200);
  assert.equal(r.json.baseline, 'kernel 6.12');
  assert.equal(r.json.patched, 'kernel 7.2');
  const row = Object.fromEntries(r.json.rows.map((x) => [x.metric, x]));
  assert.equal(row.sheaf_refill.in_baseline, false);
  assert.equal(row.cpu_partial_free.in_patched, false);
  assert.equal(row.alloc_slowpath.baseline, 7);
  assert.equal(row.alloc_slowpath.patched, 0);
  const bad = await call('GET', '/api/compare?scenario=free-storm&kernel=6.12,9.9');
  assert.equal(bad.status, 400);
  const two = await call('GET', '/api/compare?scenario=free-storm&kernel=6.12,7.2&model=legacy,sheaves');
  assert.equal(two.status, 400);
});

/* Upload @text as a kmem trace; the description of the session it becomes. */
async function traceSession(text, query = '') {
  const up = await api(srv.url, 'POST', `/api/traces${query}`, { raw: Buffer.from(text), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(up.status, 202, up.text);
  for (let i = 0; i < 600; i++) {
    const r = await api(srv.url, 'GET', `/api/traces/${up.json.id}`);
    if (r.json.state === 'failed') throw new Error(JSON.stringify(r.json.error));
    if (r.json.state === 'done') return (await call('GET', `/api/sessions/${r.json.session.id}`)).json;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error('the trace job did not finish');
}

test('an uploaded trace replays on the release of its "# kernel:" line, unless ?kernel= says otherwise', async () => {
  const slice = zlib.gunzipSync(fs.readFileSync('tests/data/kmem-trace-slice.txt.gz')).toString();
  const lines = slice.split('\n');
  const withKernel = (v) => [...lines.slice(0, 3), `# kernel: ${v}`, ...lines.slice(3)].join('\n');
  let info = await traceSession(withKernel('6.13.4-amd64'));
  assert.equal(info.settings.kernel, '6.12'); /* the newest release at or below 6.13 */
  info = await traceSession(withKernel('6.18.44-fc-v782'), '?kernel=7.0');
  assert.equal(info.settings.kernel, '7.0');
  info = await traceSession(slice);
  assert.equal(info.settings.kernel, '7.3'); /* no line: the default */
  const bad = await api(srv.url, 'POST', '/api/traces?kernel=6.13', { raw: Buffer.from(slice), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(bad.status, 400);
});
