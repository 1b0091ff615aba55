// tests/api/guard.test.mjs: who may change the lab, and who may hold its
// connections: writes only from the lab's own pages (Origin, Host, a JSON
// content type; server/http/guard.c), a per-address connection limit, and
// a deadline for a request's headers however slowly they trickle in
// (server/http/watch.c).  Every loop is bounded in count and time and
// talks only to loopback addresses.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import { api, raw, start, statusOf, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv;

before(async () => {
  srv = await start({ dir, args: ['--allow-origin', 'https://Lab.Example.edu'] });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// fetch sets Host itself: a request with another Host goes out raw.
const withHost = (host, origin) => {
  const body = '{"scenario":"default"}';
  return raw(srv.url, `POST /api/sessions HTTP/1.1\r\nHost: ${host}\r\n${origin ? `Origin: ${origin}\r\n` : ''}` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
};

const create = (headers, body = '{"scenario":"default"}') =>
  api(srv.url, 'POST', '/api/sessions', { raw: body, headers: { 'content-type': 'application/json', ...headers } });

describe('writes only from the lab\'s own pages', () => {
  test('a page of another site cannot create a session (Origin)', async () => {
    const r = await create({ origin: 'https://evil.example' });
    assert.equal(r.status, 403);
    assert.equal(r.json.error.code, 'forbidden');
    assert.match(r.json.error.message, /Origin "https:\/\/evil\.example"/);
  });

  test('nor change one, nor delete one', async () => {
    const s = (await create({})).json;
    const auth = { authorization: `Bearer ${s.token}` };
    let r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { raw: '[]', headers: { ...auth, 'content-type': 'application/json', origin: 'http://127.0.0.1.evil.example' } });
    assert.equal(r.status, 403);
    r = await api(srv.url, 'DELETE', `/api/sessions/${s.id}`, { headers: { ...auth, origin: 'null' } });
    assert.equal(r.status, 403, 'a sandboxed page (Origin: null) is not the lab either');
    r = await api(srv.url, 'GET', `/api/sessions/${s.id}`);
    assert.equal(r.status, 200, 'the session is still there');
  });

  test('a DNS name rebound to 127.0.0.1 is refused (Host)', async () => {
    const text = await withHost(`rebound.evil.example:${new URL(srv.url).port}`);
    assert.equal(statusOf(text), 403);
    assert.match(text, /Host \\"rebound\.evil\.example:\d+\\" is not an address/);
    assert.equal(statusOf(await withHost(`127.0.0.1:${new URL(srv.url).port}`)), 201, 'its own address is fine');
  });

  test('a form or a simple cross-site request cannot send JSON (415)', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const headers = type ? { 'content-type': type } : {};
      const r = await fetch(srv.url + '/api/sessions', { method: 'POST', headers, body: '{"scenario":"default"}' });
      assert.equal(r.status, 415, `Content-Type ${type}`);
      assert.equal((await r.json()).error.code, 'unsupported_media_type');
    }
  });

  test('the lab\'s own pages, tools without an Origin and --allow-origin may write', async () => {
    const port = new URL(srv.url).port;
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, 'https://lab.example.EDU', undefined]) {
      const r = await create(origin ? { origin } : {});
      assert.equal(r.status, 201, `Origin ${origin}`);
    }
    const text = await withHost('lab.example.edu', 'https://lab.example.edu');
    assert.equal(statusOf(text), 201, 'the allowed origin\'s host (default port) is an address of the lab');
    const charset = await create({ 'content-type': 'application/json; charset=utf-8' });
    assert.equal(charset.status, 201);
  });

  test('reads are not checked: a link from anywhere opens the lab', async () => {
    const r = await api(srv.url, 'GET', '/api/health', { headers: { origin: 'https://evil.example' } });
    assert.equal(r.status, 200);
  });

  test('a bad --allow-origin stops the server with a message', async () => {
    await assert.rejects(start({ dir, db: `${dir}/bad.db`, args: ['--allow-origin', 'lab.example.edu/x'] }), /--allow-origin: "lab\.example\.edu\/x" is not an origin/);
  });
});

// Open @n connections from @local that send one byte of a request every
// @every ms and never finish it; resolves to the sockets and a stop().
function slowClients(url, local, n, every) {
  const port = Number(new URL(url).port);
  const socks = [];
  let closed = 0;
  for (let i = 0; i < n; i++) {
    const sock = net.connect({ port, host: '127.0.0.1', localAddress: local });
    sock.on('error', () => {});
    sock.on('close', () => { closed++; });
    sock.on('connect', () => sock.write('G'));
    socks.push(sock);
  }
  const timer = setInterval(() => {
    for (const s of socks) if (!s.destroyed && s.writable) s.write('E');
  }, every);
  return {
    closed: () => closed,
    stop() {
      clearInterval(timer);
      for (const s of socks) s.destroy();
    },
  };
}

describe('slow clients', () => {
  test('1,700 slow connections from 127.0.0.2 leave the lab answering on 127.0.0.1', async () => {
    // the defaults: at most 1200 connections from one address (a lecture hall behind one NAT), 2000 in all
    const slow = slowClients(srv.url, '127.0.0.2', 1700, 1000);
    try {
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(slow.closed() >= 400, `the connections past the per-address limit are refused (${slow.closed()} closed)`);
      const t0 = Date.now();
      while (Date.now() - t0 < 5000) {
        const t = Date.now();
        const r = await fetch(srv.url + '/api/health', { signal: AbortSignal.timeout(1000) });
        assert.equal(r.status, 200);
        assert.ok(Date.now() - t < 1000, 'health answers within 1 s');
        await new Promise((res) => setTimeout(res, 200));
      }
    } finally {
      slow.stop();
    }
  });

  test('a connection that trickles its headers is closed at the deadline', async () => {
    const d = tmpdir();
    const s2 = await start({ dir: d, args: ['--header-timeout', '2', '--timeout', '60'] });
    try {
      const slow = slowClients(s2.url, '127.0.0.1', 10, 300);
      const t0 = Date.now();
      while (slow.closed() < 10 && Date.now() - t0 < 8000) await new Promise((r) => setTimeout(r, 100));
      slow.stop();
      assert.equal(slow.closed(), 10, 'every trickling connection was closed');
      assert.ok(Date.now() - t0 < 5000, `within the 2 s deadline and a second of watching (${Date.now() - t0} ms), not the 60 s idle timeout`);
      assert.equal((await api(s2.url, 'GET', '/api/health')).status, 200);
    } finally {
      await s2.stop();
      fs.rmSync(d, { recursive: true, force: true });
    }
  });
});
