// tests/api/export.test.mjs: GET /api/sessions/ID/export: /proc/slabinfo
// text and a tar of the /sys/kernel/slab tree at a position, the same bytes
// and files as `slublab export --at N` (the CLI and the server number
// positions alike), errors as JSON.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';

import { BIN, api, isError, session, start, tmpdir } from './lib.mjs';

const SCN = path.resolve('tests/data/export.json');
const dir = tmpdir();
let srv;
let s;
let nrEvents;

before(async () => {
  srv = await start({ dir });
  s = await session(srv.url, { scenario: JSON.parse(fs.readFileSync(SCN, 'utf8')) });
  nrEvents = (await api(srv.url, 'GET', `/api/sessions/${s.id}`)).json.events;
});
after(async () => {
  await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function cli(...args) {
  return execFileSync(BIN, ['export', SCN, ...args], { encoding: 'utf8' });
}

// Every entry under @root: "path kind content" lines, links by their target.
function listing(root) {
  const out = [];
  const walk = (rel) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const p = path.join(rel, name);
      const st = fs.lstatSync(path.join(root, p));
      if (st.isSymbolicLink()) out.push(`${p} -> ${fs.readlinkSync(path.join(root, p))}`);
      else if (st.isDirectory()) { out.push(`${p}/`); walk(p); }
      else out.push(`${p} = ${fs.readFileSync(path.join(root, p), 'utf8').trimEnd()}`);
    }
  };
  walk('');
  return out;
}

async function download(at, format) {
  const q = at === undefined ? '' : `&at=${at}`;
  const r = await fetch(`${srv.url}/api/sessions/${s.id}/export?format=${format}${q}`);
  return { status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) };
}

test('slabinfo at the end is what slublab export prints', async () => {
  assert.ok(nrEvents > 1000, `the scenario has events (${nrEvents})`);
  const r = await download(undefined, 'slabinfo');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/plain/);
  assert.match(r.headers.get('content-disposition'), /^attachment; filename="slabinfo-/);
  assert.equal(r.bytes.toString('utf8'), cli());
  assert.match(r.bytes.toString('utf8'), /^slabinfo - version: 2\.1\n/);
});

test('slabinfo at positions matches slublab export --at', async () => {
  for (const at of [0, 1, 5, 777, Math.floor(nrEvents / 2), nrEvents - 1, nrEvents]) {
    const r = await download(at, 'slabinfo');
    assert.equal(r.status, 200, `at=${at}`);
    assert.equal(r.bytes.toString('utf8'), cli('--at', String(at)), `at=${at}`);
  }
});

test('the sysfs tar unpacks to the tree slublab export writes', async () => {
  for (const at of [900, nrEvents]) {
    const r = await download(at, 'sysfs');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/x-tar');
    assert.match(r.headers.get('content-disposition'), new RegExp(`filename="slab-${s.id}-${at}\\.tar"`));
    const t = fs.mkdtempSync(path.join(dir, 'tar-'));
    fs.writeFileSync(path.join(t, 'x.tar'), r.bytes);
    execFileSync('tar', ['-xf', 'x.tar'], { cwd: t });
    const c = fs.mkdtempSync(path.join(dir, 'cli-'));
    cli('--at', String(at), '--sysfs', path.join(c, 'slab'));
    const got = listing(path.join(t, 'slab'));
    assert.deepEqual(got, listing(path.join(c, 'slab')), `at=${at}`);
    assert.ok(got.includes('dentry_alias -> :0000192'), 'an alias is a symbolic link in the tar');
    assert.ok(got.some((l) => /^plain\/alloc_fastpath = \d+ C3=\d+$/.test(l)), 'counter files');
  }
});

test('bad requests get JSON errors', async () => {
  let r = await api(srv.url, 'GET', `/api/sessions/${s.id}/export`);
  assert.equal(r.status, 400);
  assert.ok(isError(r, 'bad_request'));
  r = await api(srv.url, 'GET', `/api/sessions/${s.id}/export?format=xml`);
  assert.equal(r.status, 400);
  r = await api(srv.url, 'GET', `/api/sessions/${s.id}/export?format=slabinfo&at=${nrEvents + 1}`);
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /beyond the end/);
  r = await api(srv.url, 'GET', `/api/sessions/${s.id}/export?format=slabinfo&at=-1`);
  assert.equal(r.status, 400);
  r = await api(srv.url, 'GET', '/api/sessions/zzzzzzzzzz/export?format=slabinfo');
  assert.equal(r.status, 404);
  assert.ok(isError(r, 'not_found'));
});

test('report.md and report.svg are what slublab report -o writes, named to sit side by side', async () => {
  for (const at of [900, nrEvents]) {
    const md = await fetch(`${srv.url}/api/sessions/${s.id}/report.md?at=${at}`);
    assert.equal(md.status, 200);
    assert.match(md.headers.get('content-type'), /^text\/markdown/);
    const name = `report-${s.id}-${at}`;
    assert.match(md.headers.get('content-disposition'), new RegExp(`filename="${name}\\.md"`));
    const svg = await fetch(`${srv.url}/api/sessions/${s.id}/report.svg?at=${at}`);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(svg.headers.get('content-disposition'), new RegExp(`filename="${name}-objects\\.svg"`));
    const c = fs.mkdtempSync(path.join(dir, 'report-'));
    execFileSync(BIN, ['report', SCN, '--at', String(at), '-o', path.join(c, `${name}.md`)]);
    assert.equal(await md.text(), fs.readFileSync(path.join(c, `${name}.md`), 'utf8'));
    assert.equal(await svg.text(), fs.readFileSync(path.join(c, `${name}-objects.svg`), 'utf8'));
  }
  const r = await api(srv.url, 'GET', `/api/sessions/${s.id}/report.md?at=${nrEvents + 1}`);
  assert.equal(r.status, 400);
  assert.ok(isError(r, 'bad_request'));
});

test('compare format=md and svg are what slublab compare --md -o writes', async () => {
  const q = 'scenario=fresh-slab-fill&variant=DEFERRED_FREELIST';
  const md = await fetch(`${srv.url}/api/compare?${q}&format=md`);
  assert.equal(md.status, 200);
  assert.match(md.headers.get('content-disposition'), /filename="compare-fresh-slab-fill\.md"/);
  const svg = await fetch(`${srv.url}/api/compare?${q}&format=svg`);
  assert.match(svg.headers.get('content-disposition'), /filename="compare-fresh-slab-fill-counters\.svg"/);
  const c = fs.mkdtempSync(path.join(dir, 'cmp-'));
  execFileSync(BIN, ['compare', 'scenarios/fresh-slab-fill.json', '--variant', 'DEFERRED_FREELIST',
    '--md', '-o', path.join(c, 'compare-fresh-slab-fill.md')]);
  assert.equal(await md.text(), fs.readFileSync(path.join(c, 'compare-fresh-slab-fill.md'), 'utf8'));
  assert.equal(await svg.text(), fs.readFileSync(path.join(c, 'compare-fresh-slab-fill-counters.svg'), 'utf8'));
  const json = await api(srv.url, 'GET', `/api/compare?${q}&format=json`);
  assert.equal(json.status, 200);
  assert.ok(Array.isArray(json.json.rows));
  const bad = await api(srv.url, 'GET', `/api/compare?${q}&format=pdf`);
  assert.equal(bad.status, 400);
});

// The offline copy's data: base64 of a gzip-compressed JSON document.
function offlineData(html) {
  const m = /<script type="application\/octet-stream" id="slublab-data" data-encoding="gzip\+base64">([^<]*)<\/script>/.exec(html);
  assert.ok(m, 'the data document is there, compressed');
  return JSON.parse(zlib.gunzipSync(Buffer.from(m[1], 'base64')).toString('utf8'));
}

// The state at @at as the offline copy holds it: the whole one at or before,
// then the deltas (server/present/json_delta.h), with the event kept apart.
function offlineState(data, at) {
  let k = at;
  while (Array.isArray(data.states[k])) k--;
  const doc = structuredClone(data.states[k]);
  for (let i = k + 1; i <= at; i++) {
    for (const op of data.states[i]) {
      const p = op[0];
      let o = doc;
      for (const c of p.slice(0, -1)) o = o[c];
      if (op.length === 1) delete o[p.at(-1)];
      else if (op.length === 3) o[p.at(-1)].length = op[2];
      else o[p.at(-1)] = structuredClone(op[1]);
    }
  }
  return { at: doc.at, event: at ? data.events[at - 1] : null, state: doc.state, names: doc.names,
    ...(doc.names_more ? { names_more: doc.names_more } : {}) };
}

test('export.html: one file holding the UI, Chart.js and the session', async () => {
  const fs2 = await session(srv.url, { scenario: 'free-storm' });
  const end = (await api(srv.url, 'GET', `/api/sessions/${fs2.id}`)).json.events;
  const r = await fetch(`${srv.url}/api/sessions/${fs2.id}/export.html?at=7`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/html/);
  assert.match(r.headers.get('content-disposition'), new RegExp(`filename="slublab-${fs2.id}\\.html"`));
  const html = await r.text();
  assert.ok(!/<script[^>]+src=/.test(html) && !/<link[^>]+href=/.test(html), 'nothing loads from elsewhere');
  const json = (idName) => JSON.parse(new RegExp(`<script type="application/json" id="${idName}">([^]*?)</script>`).exec(html)[1]);
  const files = json('slublab-files');
  if (files['js/main.js']) {
    // the page is the modules (no bundle built)
    assert.ok(files['js/main.js'] && files['js/views/stats.js'] && /Chart\.js/.test(files['vendor/chart.umd.js']));
  } else {
    // the page is the bundle: its entry, its lazy views, Chart.js
    const code = (re) => Object.entries(files).find(([p]) => re.test(p))?.[1];
    assert.ok(code(/^assets\/main-\w+\.js$/) && code(/^assets\/stats-\w+\.js$/) && /Chart\.js/.test(code(/^assets\/chart\.umd-\w+\.js$/)));
    assert.ok(!Object.keys(files).some((p) => p.startsWith('js/')), 'not the modules as well');
  }
  const data = offlineData(html);
  assert.equal(data.format, 2);
  assert.equal(data.at, 7);
  assert.equal(data.events.length, end);
  assert.equal(data.states.length, end + 1);
  assert.ok(!Array.isArray(data.states[0]), 'the first state is whole');
  assert.ok(data.states.slice(1).filter(Array.isArray).length > end / 2, 'most states are deltas');
  for (const at of [0, 1, 7, 100, end]) {
    const st = await api(srv.url, 'GET', `/api/sessions/${fs2.id}/state?at=${at}`);
    assert.deepEqual(offlineState(data, at), st.json, `the state at ${at} is what the API answers`);
  }
  const ev = await api(srv.url, 'GET', `/api/sessions/${fs2.id}/events?from=0&to=${end}`);
  assert.deepEqual(data.events, ev.json.events);
  assert.equal(data.info.id, fs2.id);
  assert.equal(data.health.offline_max_events, 250000);
  const e = await api(srv.url, 'GET', `/api/sessions/${fs2.id}/export.html?at=${end + 1}`);
  assert.equal(e.status, 400);
});

test('export.html of a longer session: whole states every 2000, every position as the API answers it', async () => {
  // the export scenario, its states far larger than free-storm's
  const r = await fetch(`${srv.url}/api/sessions/${s.id}/export.html`);
  assert.equal(r.status, 200);
  const html = await r.text();
  const data = offlineData(html);
  assert.equal(data.states.length, nrEvents + 1);
  const whole = data.states.map((x, i) => (Array.isArray(x) ? -1 : i)).filter((i) => i >= 0);
  assert.ok(whole.length < nrEvents / 10, `${whole.length} whole states of ${nrEvents + 1}`);
  assert.equal(whole[0], 0);
  assert.equal(data.keyframe, 2000);
  const rawLen = Buffer.byteLength(JSON.stringify(data.states));
  const picks = [0, 1, 2, Math.floor(nrEvents / 3), nrEvents - 1, nrEvents, ...whole.slice(1, 3).flatMap((k) => [k - 1, k, k + 1])];
  for (const at of picks.filter((x) => x >= 0 && x <= nrEvents)) {
    const st = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${at}`);
    assert.deepEqual(offlineState(data, at), st.json, `the state at ${at}`);
  }
  assert.ok(html.length < rawLen, `the file (${html.length} bytes) is smaller than its states alone (${rawLen})`);
});

test('export.html: a session longer than an offline copy holds is refused with the limit', async () => {
  const long = { format: 1, name: 'long-run', caches: [{ name: 'A', object_size: 64 }],
    ops: [{ op: 'repeat', times: 125001, ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'x' }, { op: 'free', cpu: 0, cache: 'A', name: 'x' }] }] };
  const l = await session(srv.url, { scenario: long });
  assert.ok(l.events > 250000, `${l.events} events`);
  const e = await api(srv.url, 'GET', `/api/sessions/${l.id}/export.html`);
  assert.equal(e.status, 422);
  assert.match(e.json.error.message, /too long for an offline copy: \d+ events, at most 250000/);
});
