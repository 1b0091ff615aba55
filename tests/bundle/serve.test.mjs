// tests/bundle/serve.test.mjs: how the server sends the bundle
// (server/http/static.c): the precompressed file the client's
// Accept-Encoding takes, an ETag and a 304 for it, `immutable` for the
// content-hashed names under assets/ and `no-cache` for the rest.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

import { start, tmpdir } from '../api/lib.mjs';

let srv, entry;
const dir = tmpdir();

before(async () => {
  srv = await start({ dir });
  const html = await (await fetch(srv.url + '/')).text();
  entry = /<script type="module" src="(assets\/main-\w+\.js)">/.exec(html)?.[1];
});
after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// GET @p: { status, headers, body } with the body's bytes as they came
// (node's fetch would inflate them)
const get = (p, headers = {}) => new Promise((ok, fail) => {
  http.get(srv.url + p, { headers: { 'Accept-Encoding': 'identity', ...headers } }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => ok({ status: res.statusCode, headers: new Headers(res.headers), body: Buffer.concat(chunks) }));
  }).on('error', fail);
});

test('the page served is the bundle', () => {
  assert.ok(entry, 'index.html loads the bundle\'s entry');
});

test('the encoding is the one Accept-Encoding takes', async () => {
  const plain = (await get('/' + entry)).body;
  const br = await get('/' + entry, { 'Accept-Encoding': 'gzip, deflate, br' });
  assert.equal(br.headers.get('content-encoding'), 'br');
  assert.equal(br.headers.get('vary'), 'Accept-Encoding');
  const brBytes = br.body;
  assert.ok(brBytes.length < plain.length / 2);
  assert.ok(brotliDecompressSync(brBytes).equals(plain));
  const gz = await get('/' + entry, { 'Accept-Encoding': 'br;q=0, gzip;q=0.8' });
  assert.equal(gz.headers.get('content-encoding'), 'gzip');
  assert.ok(gunzipSync(gz.body).equals(plain));
  const none = await get('/' + entry, { 'Accept-Encoding': 'deflate' });
  assert.equal(none.headers.get('content-encoding'), null);
  assert.ok(none.body.equals(plain));
});

test('hashed names are immutable, the rest revalidated by ETag', async () => {
  const a = await get('/' + entry, { 'Accept-Encoding': 'br' });
  assert.match(a.headers.get('cache-control'), /immutable/);
  for (const p of ['/', '/css/app.css', '/data/texts.json']) {
    const r = await get(p, { 'Accept-Encoding': 'gzip' });
    assert.equal(r.status, 200, p);
    assert.equal(r.headers.get('cache-control'), 'no-cache', p);
    const etag = r.headers.get('etag');
    assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+-gz"$/, p);
    const again = await get(p, { 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
    assert.equal(again.status, 304, p);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.get('etag'), etag);
    // another encoding is another ETag: the gzip one does not match the plain file
    assert.equal((await get(p, { 'If-None-Match': etag })).status, 200, p);
  }
  assert.equal((await get('/', { 'If-None-Match': '*' })).status, 304);
});

test('errors are never compressed nor cached', async () => {
  const r = await get('/assets/nope-ABCDEFGH.js', { 'Accept-Encoding': 'br, gzip' });
  assert.equal(r.status, 404);
  assert.equal(r.headers.get('content-encoding'), null);
  assert.equal(r.headers.get('etag'), null);
  assert.equal(r.headers.get('cache-control'), 'no-store');
});
