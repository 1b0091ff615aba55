// tests/api/hostile.test.mjs: a catalogue of malformed and hostile
// requests, each answered with the right status (and, under /api/, the
// error body), then slow and abandoned clients, live-session exhaustion
// and eviction; the server must be healthy after all of it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import { api, isError, raw, session, start, statusOf, tmpdir } from './lib.mjs';

let srv;
let s; // a session the catalogue pokes at
const dir = tmpdir();

before(async () => {
  srv = await start({ dir, args: ['--timeout', '2', '--max-ops', '100000', '--max-cpus', '8'] });
  s = await session(srv.url);
});

after(async () => {
  if (srv) {
    const st = await srv.stop();
    assert.equal(st.code, 0, 'the server exits cleanly after the catalogue');
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

const inline = (patch) => {
  const scn = JSON.parse(fs.readFileSync('scenarios/default.json', 'utf8'));
  patch(scn);
  return JSON.stringify({ scenario: scn });
};
const ops = (list) => JSON.stringify(list);
const nest = (n) => '['.repeat(n) + ']'.repeat(n);

// [name, method, path (SID = the session), body (string or undefined), status, code, auth]
// auth: true = the session's token, a string = that header value, undefined = none.
const catalogue = [
  ['empty body', 'POST', '/api/sessions', '', 400, 'bad_json'],
  ['unterminated object', 'POST', '/api/sessions', '{', 400, 'bad_json'],
  ['unterminated array', 'POST', '/api/sessions', '[', 400, 'bad_json'],
  ['trailing garbage', 'POST', '/api/sessions', '{"scenario":"default"} x', 400, 'bad_json'],
  ['null body', 'POST', '/api/sessions', 'null', 400, 'bad_request'],
  ['number body', 'POST', '/api/sessions', '123', 400, 'bad_request'],
  ['string body', 'POST', '/api/sessions', '"default"', 400, 'bad_request'],
  ['scenario of the wrong type', 'POST', '/api/sessions', '{"scenario":5}', 400, 'bad_request'],
  ['scenario that does not exist', 'POST', '/api/sessions', '{"scenario":"nope"}', 422, 'unprocessable'],
  ['negative seed', 'POST', '/api/sessions', '{"scenario":"default","seed":-1}', 400, 'bad_request'],
  ['fractional seed', 'POST', '/api/sessions', '{"scenario":"default","seed":1.5}', 400, 'bad_request'],
  ['huge seed', 'POST', '/api/sessions', '{"scenario":"default","seed":1e300}', 400, 'bad_request'],
  ['overflowing number', 'POST', '/api/sessions', '{"scenario":"default","seed":1e999}', 400, 'bad_request'],
  ['seed as a string', 'POST', '/api/sessions', '{"scenario":"default","seed":"1"}', 400, 'bad_request'],
  ['unknown model', 'POST', '/api/sessions', '{"scenario":"default","model":"slab"}', 400, 'bad_request'],
  ['unknown variant', 'POST', '/api/sessions', '{"scenario":"default","variants":{"X":"after"}}', 400, 'bad_request'],
  ['variant of the wrong type', 'POST', '/api/sessions', '{"scenario":"default","variants":{"BARN_REFILL":1}}', 400, 'bad_request'],
  ['unknown key', 'POST', '/api/sessions', '{"scenario":"default","bogus":1}', 400, 'bad_request'],
  ['duplicate key', 'POST', '/api/sessions', '{"scenario":"default","scenario":"default"}', 400, 'bad_request'],
  ['inline scenario without format', 'POST', '/api/sessions', '{"scenario":{"name":"x"}}', 400, 'bad_request'],
  ['repeat beyond the format limit', 'POST', '/api/sessions', inline((x) => { x.ops = [{ op: 'repeat', times: 1e9, ops: [] }]; }), 400, 'bad_request'],
  ['1000 CPUs', 'POST', '/api/sessions', inline((x) => { x.machine.cpus = 1000; }), 400, 'bad_request'],
  ['CPU beyond the machine', 'POST', '/api/sessions', inline((x) => { x.ops[0].cpu = 5; }), 422, 'unprocessable'],
  ['more CPUs than the server allows', 'POST', '/api/sessions', inline((x) => { x.machine.cpus = 32; }), 422, 'unprocessable'],
  ['a terabyte per node', 'POST', '/api/sessions', inline((x) => { x.machine.mem_mb_per_node = 1048576; }), 422, 'unprocessable'],
  ['a scenario past the operation limit', 'POST', '/api/sessions', inline((x) => { x.ops = [{ op: 'repeat', times: 200000, ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'a' }] }]; x.expect = []; }), 429, 'session_limit'],
  ['ops that are not an array', 'POST', '/api/sessions', '{"scenario":"default","ops":{}}', 400, 'bad_request'],
  ['JSON nested 10000 deep', 'POST', '/api/sessions', nest(10000), 400, 'bad_json'],
  ['a NUL byte in the body', 'POST', '/api/sessions', '{"scenario":"def\u0000ault"}', 400, 'bad_json'],
  ['a \\u0000 escape in a string', 'POST', '/api/sessions', '{"scenario":"default\\u0000x"}', 400, 'bad_request'],
  ['invalid UTF-8 in a key', 'POST', '/api/sessions', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), 422, 'unprocessable'],
  ['invalid UTF-8 in a value', 'POST', '/api/sessions', Buffer.from('{"scenario":"\xff"}', 'latin1'), 422, 'unprocessable'],
  ['an overlong UTF-8 form', 'POST', '/api/sessions', Buffer.from([0x7b, 0x22, 0x73, 0x63, 0x65, 0x6e, 0x61, 0x72, 0x69, 0x6f, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]), 422, 'unprocessable'],
  ['40 query arguments', 'GET', `/api/sessions/SID/state?${Array.from({ length: 40 }, (_, i) => `x${i}=1`).join('&')}&at=3`, undefined, 400, 'bad_request'],
  ['a repeated query argument', 'GET', '/api/sessions/SID/state?at=1&at=2', undefined, 400, 'bad_request'],
  ['a query argument that is not UTF-8', 'GET', '/api/sessions/SID/state?at=%ff', undefined, 400, 'bad_request'],
  ['negative bulk count', 'POST', '/api/sessions/SID/ops', ops([{ op: 'alloc_bulk', cpu: 0, cache: 'A', count: -3 }]), 400, 'bad_request', true],
  ['zero bulk count', 'POST', '/api/sessions/SID/ops', ops([{ op: 'alloc_bulk', cpu: 0, cache: 'A', count: 0 }]), 400, 'bad_request', true],
  ['unknown operation', 'POST', '/api/sessions/SID/ops', ops([{ op: 'explode', cpu: 0 }]), 400, 'bad_request', true],
  ['operation without cpu', 'POST', '/api/sessions/SID/ops', ops([{ op: 'alloc', cache: 'A' }]), 400, 'bad_request', true],
  ['operation that is not an object', 'POST', '/api/sessions/SID/ops', ops([7]), 400, 'bad_request', true],
  ['free of nothing live', 'POST', '/api/sessions/SID/ops', ops([{ op: 'free', cpu: 0, name: 'ghost' }]), 422, 'unprocessable', true],
  ['cache that does not exist', 'POST', '/api/sessions/SID/ops', ops([{ op: 'alloc', cpu: 0, cache: 'nope' }]), 422, 'unprocessable', true],
  ['CPU 99', 'POST', '/api/sessions/SID/ops', ops([{ op: 'alloc', cpu: 99, cache: 'A' }]), 422, 'unprocessable', true],
  ['node 7 of 1', 'POST', '/api/sessions/SID/ops', ops([{ op: 'alloc', cpu: 0, node: 7, cache: 'A' }]), 422, 'unprocessable', true],
  ['kmalloc of 0 bytes', 'POST', '/api/sessions/SID/ops', ops([{ op: 'kmalloc', cpu: 0, size: 0 }]), 400, 'bad_request', true],
  ['kmalloc of a gigabyte', 'POST', '/api/sessions/SID/ops', ops([{ op: 'kmalloc', cpu: 0, size: 1e9 }]), 400, 'bad_request', true],
  ['a repeat past the session limit', 'POST', '/api/sessions/SID/ops', ops([{ op: 'repeat', times: 500000, ops: [{ op: 'flush_all', cache: 'A' }] }]), 429, 'session_limit', true],
  ['ops without a token', 'POST', '/api/sessions/SID/ops', ops([]), 403, 'forbidden'],
  ['ops with a wrong token', 'POST', '/api/sessions/SID/ops', ops([]), 403, 'forbidden', 'Bearer 00000000000000000000000000000000'],
  ['ops with an empty bearer', 'POST', '/api/sessions/SID/ops', ops([]), 403, 'forbidden', 'Bearer '],
  ['ops with basic auth', 'POST', '/api/sessions/SID/ops', ops([]), 403, 'forbidden', 'Basic YTpi'],
  ['step without a token', 'POST', '/api/sessions/SID/step', '{"to":1}', 403, 'forbidden'],
  ['step beyond the end', 'POST', '/api/sessions/SID/step', '{"to":1000000}', 400, 'bad_request', true],
  ['step with a negative count', 'POST', '/api/sessions/SID/step', '{"count":-1}', 400, 'bad_request', true],
  ['step by bananas', 'POST', '/api/sessions/SID/step', '{"by":"banana"}', 400, 'bad_request', true],
  ['step to and by at once', 'POST', '/api/sessions/SID/step', '{"to":1,"by":"op"}', 400, 'bad_request', true],
  ['state at -1', 'GET', '/api/sessions/SID/state?at=-1', undefined, 400, 'bad_request'],
  ['state at abc', 'GET', '/api/sessions/SID/state?at=abc', undefined, 400, 'bad_request'],
  ['state at 10^23', 'GET', '/api/sessions/SID/state?at=99999999999999999999999', undefined, 400, 'bad_request'],
  ['state beyond the end', 'GET', '/api/sessions/SID/state?at=36', undefined, 400, 'bad_request'],
  ['bytes of a non-address', 'GET', '/api/sessions/SID/state?bytes=zz', undefined, 400, 'bad_request'],
  ['bytes of no slab', 'GET', '/api/sessions/SID/state?at=35&bytes=0x1000', undefined, 404, 'not_found'],
  ['events backwards', 'GET', '/api/sessions/SID/events?from=9&to=3', undefined, 400, 'bad_request'],
  ['series of an unknown counter', 'GET', '/api/sessions/SID/series?counters=nope', undefined, 400, 'bad_request'],
  ['series of too many points', 'GET', '/api/sessions/SID/series?points=100000', undefined, 400, 'bad_request'],
  ['search for nothing', 'GET', '/api/sessions/SID/search', undefined, 400, 'bad_request'],
  ['search for a non-address', 'GET', '/api/sessions/SID/search?object=xyz', undefined, 400, 'bad_request'],
  ['search in a bad direction', 'GET', '/api/sessions/SID/search?fn=x&dir=up', undefined, 400, 'bad_request'],
  ['fork beyond the end', 'POST', '/api/sessions/SID/fork', '{"at":99999}', 400, 'bad_request'],
  ['session id in capitals', 'GET', '/api/sessions/ABCDEFGHIJ', undefined, 404, 'not_found'],
  ['session id of 300 characters', 'GET', `/api/sessions/${'a'.repeat(300)}`, undefined, 404, 'not_found'],
  ['session that does not exist', 'GET', '/api/sessions/aaaaaaaaaa/state', undefined, 404, 'not_found'],
  ['delete with a wrong token', 'DELETE', '/api/sessions/SID', undefined, 403, 'forbidden', 'Bearer nope'],
  ['PUT a session', 'PUT', '/api/sessions', '{}', 405, 'method_not_allowed'],
  ['DELETE health', 'DELETE', '/api/health', undefined, 405, 'method_not_allowed'],
  ['PATCH the page', 'PATCH', '/', '{}', 405, 'method_not_allowed'],
  ['POST a static file', 'POST', '/index.html', '{}', 405, 'method_not_allowed'],
  ['unknown API route', 'GET', '/api/../../etc/passwd', undefined, 404, 'not_found'],
  ['diff of nothing', 'GET', '/api/diff', undefined, 400, 'bad_request'],
  ['diff of a missing snapshot', 'GET', '/api/diff?a=aaaaaaaa&b=bbbbbbbb', undefined, 404, 'not_found'],
  ['diff of a malformed position', 'GET', '/api/diff?a=SID@x&b=SID@1', undefined, 400, 'bad_request'],
  ['compare of nothing', 'GET', '/api/compare', undefined, 400, 'bad_request'],
  ['compare of an unknown variant', 'GET', '/api/compare?scenario=default&variant=BOGUS', undefined, 400, 'bad_request'],
  ['compare on both axes', 'GET', '/api/compare?scenario=default&variant=BARN_REFILL&model=a,b', undefined, 400, 'bad_request'],
  ['a GET that would make sessions (compare open=1)', 'GET', '/api/compare?scenario=default&variant=BARN_REFILL&open=1', undefined, 405, 'method_not_allowed'],
  ['import of junk', 'POST', '/api/snapshots/import', '{"format":"x"}', 400, 'bad_request'],
  ['import of an invalid scenario', 'POST', '/api/snapshots/import', JSON.stringify({ format: 'slublab-snapshot', version: 1, position: 0, engine: 'x', scenario_text: { format: 9 }, batches: [{ ops: null, limit: null }], state: {} }), 400, 'bad_request'],
  ['snapshot of no session', 'POST', '/api/snapshots', '{"session":"aaaaaaaaaa"}', 404, 'not_found'],
  ['snapshot with a title of the wrong type', 'POST', '/api/snapshots', '{"session":"SID","title":5}', 400, 'bad_request'],
  ['delete a snapshot that does not exist', 'DELETE', '/api/snapshots/aaaaaaaa', undefined, 404, 'not_found'],
  ['a body of 1 MiB and a byte', 'POST', '/api/sessions', ' '.repeat((1 << 20) + 1), 413, 'too_large'],
  ['a hundred query arguments', 'GET', `/api/health?${Array.from({ length: 100 }, (_, i) => `k${i}=${i}`).join('&')}`, undefined, 400, 'bad_request'],
  ['hidden static file', 'GET', '/.git/config', undefined, 404, 'not_found'],
  ['unknown static type', 'GET', '/index.exe', undefined, 404, 'not_found'],
];

describe('catalogue', () => {
  test('has at least 50 entries', () => {
    assert.ok(catalogue.length >= 50, `${catalogue.length} entries`);
  });
  for (const [name, method, p, body, status, code, auth] of catalogue) {
    test(name, async () => {
      const headers = {};
      if (auth === true) headers.authorization = `Bearer ${s.token}`;
      else if (typeof auth === 'string') headers.authorization = auth;
      const r = await api(srv.url, method, p.replaceAll('SID', s.id), { raw: body, headers });
      assert.equal(r.status, status, `${method} ${p}: ${r.text.slice(0, 300)}`);
      if (code) assert.ok(isError(r, code), `error body: ${r.text.slice(0, 300)}`);
      assert.match(r.headers.get('content-type') || '', /^application\/json/);
    });
  }
});

// Requests fetch() would clean up before sending.
const rawCatalogue = [
  ['path traversal', 'GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [400, 404]],
  ['encoded path traversal', 'GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [400, 404]],
  ['traversal out of web/', 'GET /js/../../package.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [400, 404]],
  ['traversal out of the vendor directory', 'GET /vendor/../package.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [400, 404]],
  ['an encoded NUL', 'GET /index.html%00.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [400, 404]],
  ['a backslash path', 'GET /..\\..\\etc\\passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [400, 404]],
  ['a garbage request line', 'GARBAGE\r\n\r\n', [0, 400, 505]],
  ['an absurd Content-Length', 'POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n', [413]],
  ['a chunked body over the cap', null, [413]],
  ['a URL of 100 KB', `GET /api/health?${'a'.repeat(100000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, [0, 400, 414, 431]],
  ['a header of 100 KB', `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(100000)}\r\nConnection: close\r\n\r\n`, [0, 400, 413, 431]],
  ['HTTP/1.0', 'GET /api/health HTTP/1.0\r\n\r\n', [200]],
];

// Every answer is valid UTF-8 JSON, whatever the request held.
const strictText = (buf) => new TextDecoder('utf-8', { fatal: true }).decode(buf);

describe('input edges', () => {
  test('too many, repeated and non-UTF-8 query arguments are named, not dropped', async () => {
    let r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?${Array.from({ length: 40 }, (_, i) => `x${i}=1`).join('&')}&at=3`);
    assert.match(r.json.error.message, /at most 32 query arguments/);
    r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=1&at=2`);
    assert.match(r.json.error.message, /query argument "at" is given twice/);
  });

  test('JSON nested 100,000 deep is said to be too deep', async () => {
    const r = await api(srv.url, 'POST', '/api/sessions', { raw: nest(100000) });
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /nested deeper than 256 levels/);
  });

  test('"default\\u0000x" is not taken as "default"', async () => {
    const r = await api(srv.url, 'POST', '/api/sessions', { raw: '{"scenario":"default\\u0000x"}' });
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /u0000/);
  });

  test('a title that is not UTF-8 is refused, naming the field, and never stored', async () => {
    const body = Buffer.concat([Buffer.from(`{"session":"${s.id}","at":3,"title":"ok `), Buffer.from([0xff]), Buffer.from('"}')]);
    const r = await fetch(srv.url + '/api/snapshots', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(r.status, 422);
    assert.match((await r.json()).error.message, /^title: not valid UTF-8/);
    const list = Buffer.from(await (await fetch(srv.url + '/api/snapshots')).arrayBuffer());
    assert.doesNotThrow(() => strictText(list), 'the snapshot list stays UTF-8');
  });

  test('an error quoting bytes that are not UTF-8 is still UTF-8', async () => {
    for (const p of ['/api/scenarios/%ff%fe', '/api/sessions/%ff%fe%fd%fc%fb%fa%f9%f8', `/api/sessions/${s.id}/search?fn=%ff%fe`, '/api/compare?scenario=%c0%af&variant=BARN_REFILL']) {
      const r = await fetch(srv.url + p);
      assert.ok(r.status >= 400 && r.status < 500, `${p}: ${r.status}`);
      const text = strictText(Buffer.from(await r.arrayBuffer()));
      assert.doesNotThrow(() => JSON.parse(text), `${p}: JSON`);
    }
  });
});

// A write must name the server's own address in Host (guard.h): the
// catalogue's "Host: x" becomes the server's address when it is sent.
const hosted = (bytes) => bytes.replaceAll('\r\nHost: x\r\n', `\r\nHost: ${new URL(srv.url).host}\r\n`);

describe('raw requests', () => {
  for (const [name, bytes, statuses] of rawCatalogue) {
    test(name, async () => {
      let text;
      if (bytes === null) {
        const chunk = 'x'.repeat(65536);
        let body = '';
        for (let i = 0; i < 20; i++) body += `${chunk.length.toString(16)}\r\n${chunk}\r\n`;
        text = await raw(srv.url, hosted(`POST /api/sessions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body}0\r\n\r\n`), 5000);
      } else {
        text = await raw(srv.url, hosted(bytes), 5000);
      }
      assert.ok(statuses.includes(statusOf(text)), `${name}: got ${JSON.stringify(text.slice(0, 200))}`);
      assert.doesNotMatch(text, /root:/, 'no file outside web/ is ever served');
    });
  }
});

describe('slow and abandoned clients', () => {
  test('a client that stalls mid-headers does not block others and is timed out', async () => {
    const sock = net.connect(Number(new URL(srv.url).port), '127.0.0.1');
    await new Promise((r) => sock.on('connect', r));
    sock.write('GET /api/health HTTP/1.1\r\nHost: x\r\n'); // and never the blank line
    const closed = new Promise((r) => sock.on('close', () => r(Date.now())));
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) assert.equal((await api(srv.url, 'GET', '/api/health')).status, 200);
    const t = await closed;
    assert.ok(t - t0 < 10000, 'the stalled connection is closed by the timeout');
  });

  test('a client that stalls mid-body does not block others', async () => {
    const sock = net.connect(Number(new URL(srv.url).port), '127.0.0.1');
    await new Promise((r) => sock.on('connect', r));
    sock.write(hosted(`POST /api/sessions/${s.id}/ops HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n[{"op":`));
    for (let i = 0; i < 10; i++)
      assert.equal((await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${i}`)).status, 200);
    sock.destroy();
  });

  test('200 connections opened and abandoned', async () => {
    const socks = [];
    for (let i = 0; i < 200; i++) {
      const sock = net.connect(Number(new URL(srv.url).port), '127.0.0.1');
      sock.on('error', () => {});
      if (i % 2) sock.on('connect', () => sock.write(hosted('POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{')));
      socks.push(sock);
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await api(srv.url, 'GET', '/api/health')).status, 200);
    for (const sock of socks) sock.destroy();
  });

  test('a follower that vanishes is dropped', async () => {
    const ctl = new AbortController();
    const follow = () => fetch(`${srv.url}/api/sessions/${s.id}/follow`, { signal: ctl.signal });
    // the slow clients above leave kept-alive connections the server closed:
    // a GET that went out on one is sent again, as api() and browsers do
    const r = await follow().catch(follow);
    await r.body.getReader().read();
    ctl.abort();
    assert.equal((await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: 3, state: false } })).status, 200);
  });
});

describe('after all that', () => {
  test('the server is healthy and the session intact', async () => {
    assert.equal((await api(srv.url, 'GET', '/api/health')).json.status, 'ok');
    const info = await api(srv.url, 'GET', `/api/sessions/${s.id}`);
    assert.equal(info.json.events, 35);
    assert.equal(info.json.batches, 1);
  });
});

describe('session memory limit', () => {
  test('429 when a session needs more memory than it may have', async () => {
    const tight = await start({ dir, db: `${dir}/tight.db`, args: ['--session-memory', '8'] });
    try {
      const scn = JSON.parse(fs.readFileSync('scenarios/default.json', 'utf8'));
      scn.caches = [{ name: 'P', object_size: 4096 }];
      scn.ops = [{ op: 'repeat', times: 4000, ops: [{ op: 'alloc', cpu: 0, cache: 'P', name: 'p{i}' }] }];
      scn.expect = [];
      const r = await api(tight.url, 'POST', '/api/sessions', { body: { scenario: scn } });
      assert.equal(r.status, 429, r.text);
      assert.ok(isError(r, 'session_limit'));
      assert.match(r.json.error.message, /8 MiB/);
      // a session that fits is fine, and its checkpoints were thinned to fit
      scn.ops[0].times = 1000;
      const ok = await api(tight.url, 'POST', '/api/sessions', { body: { scenario: scn } });
      assert.equal(ok.status, 201, ok.text);
      const info = await api(tight.url, 'GET', `/api/sessions/${ok.json.id}`);
      assert.ok(info.json.memory.bytes <= 8 << 20, JSON.stringify(info.json.memory));
      const last = await api(tight.url, 'GET', `/api/sessions/${ok.json.id}/state?at=${ok.json.events - 1}`);
      assert.equal(last.status, 200);
    } finally {
      await tight.stop();
    }
  });
});

describe('live-session limits', () => {
  let small;
  before(async () => {
    // no stored tier (--stored-checkpoint-ops 0): an evicted session is
    // rebuilt by replaying it, which is what holds the only slot below
    small = await start({ dir, db: `${dir}/small.db`, args: ['--max-sessions', '1', '--stored-checkpoint-ops', '0'] });
  });
  after(async () => {
    if (small) await small.stop();
  });

  test('idle sessions are evicted and restored on demand', async () => {
    const a = await session(small.url);
    const sa = (await api(small.url, 'GET', `/api/sessions/${a.id}/state?at=20`)).text;
    const b = await session(small.url); // evicts a
    assert.equal((await api(small.url, 'GET', '/api/sessions')).json.live, 1);
    assert.equal((await api(small.url, 'GET', `/api/sessions/${a.id}/state?at=20`)).text, sa); // restores a, evicts b
    assert.equal((await api(small.url, 'GET', `/api/sessions/${b.id}`)).status, 200);
  });

  test('503 when every live session is busy', async () => {
    // a session whose replay takes a while: restoring it holds the only slot
    const scn = JSON.parse(fs.readFileSync('scenarios/default.json', 'utf8'));
    scn.ops = [{ op: 'repeat', times: 300000, ops: [
      { op: 'alloc', cpu: 0, cache: 'A', name: 'x' }, { op: 'free', cpu: 0, name: 'x' }] }];
    scn.expect = [];
    const slow = await session(small.url, { scenario: scn });
    const quick = await session(small.url); // evicts slow
    const restoring = api(small.url, 'GET', `/api/sessions/${slow.id}`);
    await new Promise((r) => setTimeout(r, 150));
    const busy = await api(small.url, 'GET', `/api/sessions/${quick.id}`);
    assert.equal(busy.status, 503, busy.text);
    assert.ok(isError(busy, 'busy'));
    assert.equal(busy.headers.get('retry-after'), '1');
    assert.equal((await restoring).status, 200);
  });
});
