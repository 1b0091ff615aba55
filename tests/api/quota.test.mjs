// tests/api/quota.test.mjs: one client address may create at most --quota
// sessions, snapshots and traces an hour (429 `quota`, Retry-After until
// the hour turns); others are not held back; behind --trusted-proxy the
// client is the address X-Forwarded-For ends with, and only there.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';

import { api, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv;

before(async () => {
  srv = await start({ dir, args: ['--quota', '4', '--trusted-proxy', '127.0.0.1'] });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// POST /api/sessions from @local with @headers: resolves to {status, json}.
function createFrom(local, headers = {}) {
  const u = new URL(srv.url);
  const body = '{"scenario":"default"}';
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port: u.port, path: '/api/sessions', method: 'POST', localAddress: local,
      headers: { host: u.host, 'content-type': 'application/json', 'content-length': body.length, ...headers },
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('the fifth creation in an hour from one address is 429 quota; other addresses go on', async () => {
  const first = await createFrom('127.0.0.2');
  assert.equal(first.status, 201);
  const snap = await api(srv.url, 'POST', '/api/snapshots', { body: { session: first.json.id, at: 2 } });
  assert.equal(snap.status, 201, 'a snapshot from another address');
  for (let i = 0; i < 3; i++) assert.equal((await createFrom('127.0.0.2')).status, 201);
  const over = await createFrom('127.0.0.2');
  assert.equal(over.status, 429);
  assert.equal(over.json.error.code, 'quota');
  assert.match(over.json.error.message, /127\.0\.0\.2 may create at most 4/);
  const retry = Number(over.headers['retry-after']);
  assert.ok(retry >= 1 && retry <= 3600, `Retry-After ${over.headers['retry-after']}`);
  // a client that is not the proxy cannot pass as another
  assert.equal((await createFrom('127.0.0.2', { 'x-forwarded-for': '10.9.9.9' })).status, 429);
  // another address is not held back
  assert.equal((await createFrom('127.0.0.3')).status, 201);
});

test('behind the trusted proxy, each forwarded client has its own quota', async () => {
  for (let i = 0; i < 4; i++) assert.equal((await createFrom('127.0.0.1', { 'x-forwarded-for': '198.51.100.7' })).status, 201);
  const over = await createFrom('127.0.0.1', { 'x-forwarded-for': '203.0.113.1, 198.51.100.7' });
  assert.equal(over.status, 429, 'the address the proxy added is the last one');
  assert.equal((await createFrom('127.0.0.1', { 'x-forwarded-for': '198.51.100.8' })).status, 201);
});
