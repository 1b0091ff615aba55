// tests/api/routes.test.mjs: every route of docs/api.md against a real
// server, and the promises the server makes: stepping forward then back
// gives byte-identical states, seeking equals replaying from the start,
// forks leave their parent intact, every error class has its status and
// body, snapshots round-trip, and a restart loses nothing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { BIN, api, freshDb, isError, isPg, raw, schemaVersion, session, sqlite, start, statusOf, tmpdir } from './lib.mjs';

let srv;
const dir = tmpdir();

before(async () => {
  srv = await start({ dir, args: ['--max-ops', '1000000', '--max-cpus', '8'] });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// The state member of a state response, as raw text (no reformatting).
function stateText(text) {
  // {"at":N,"event":{...},"state":{...},"names":{...}}: the state's own bytes
  const i = text.indexOf(',"state":'), j = text.lastIndexOf(',"names":{');
  return text.slice(i + 9, j);
}

describe('basics', () => {
  test('health', async () => {
    const r = await api(srv.url, 'GET', '/api/health');
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json), ['status', 'version', 'offline_max_events', 'public_url', 'states_rendered']);
    assert.equal(r.json.status, 'ok');
    // the follow links' base: the address it listens on (127.0.0.1 here), not the page's
    assert.equal(r.json.public_url, srv.url.replace(/\/$/, ''));
    assert.equal(r.json.offline_max_events, 250000);
    assert.match(r.headers.get('content-type'), /^application\/json/);
    assert.equal(r.headers.get('content-security-policy'), "default-src 'self'");
    assert.equal(r.headers.get('cache-control'), 'no-store');
  });

  test('scenarios are listed and readable', async () => {
    const r = await api(srv.url, 'GET', '/api/scenarios');
    assert.equal(r.status, 200);
    const names = r.json.scenarios.map((s) => s.name);
    assert.ok(names.includes('default'));
    const one = await api(srv.url, 'GET', '/api/scenarios/default');
    assert.equal(one.status, 200);
    assert.equal(one.json.scenario.name, 'default');
    assert.equal((await api(srv.url, 'GET', '/api/scenarios/nope')).status, 404);
  });

  test('the UI and the vendor file are served with their types', async () => {
    const page = await fetch(srv.url + '/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type'), /^text\/html/);
    assert.equal(page.headers.get('content-security-policy'), "default-src 'self'");
    const html = await page.text();
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
    const chart = await fetch(srv.url + '/vendor/chart.umd.js');
    assert.equal(chart.status, 200);
    assert.match(chart.headers.get('content-type'), /^text\/javascript/);
    assert.ok((await chart.text()).length > 10000);
    assert.equal((await fetch(srv.url + '/vendor/chart.js')).status, 404);
    assert.equal((await fetch(srv.url + '/nope.html')).status, 404);
  });

  test('connections are kept alive', async () => {
    // two requests on one socket: the second is answered too
    const req = 'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n';
    const text = await raw(srv.url, req + req, 1500);
    assert.equal((text.match(/HTTP\/1\.1 200/g) || []).length, 2);
    assert.doesNotMatch(text, /Connection: close/i);
  });
});

describe('sessions', () => {
  let s;
  before(async () => {
    s = await session(srv.url);
  });

  test('create, describe, list', async () => {
    assert.match(s.id, /^[a-z2-7]{10}$/);
    assert.match(s.token, /^[0-9a-f]{32}$/);
    assert.equal(s.events, 35);
    const info = await api(srv.url, 'GET', `/api/sessions/${s.id}`);
    assert.equal(info.status, 200);
    assert.equal(info.json.events, 35);
    assert.equal(info.json.scenario.name, 'default');
    assert.equal(info.json.machine.cpus, 2);
    assert.ok(!('token' in info.json), 'the token is never shown again');
    const list = await api(srv.url, 'GET', '/api/sessions?limit=5');
    assert.equal(list.status, 200);
    assert.ok(list.json.sessions.some((x) => x.id === s.id));
  });

  test('the machine shows its zones and watermark parameters', async () => {
    // the default machine: one Normal zone, min_free_kbytes computed by the engine
    const def = await api(srv.url, 'GET', `/api/sessions/${s.id}`);
    const m = def.json.machine;
    assert.deepEqual(def.json.links, {
      self: `/api/sessions/${s.id}`, state: `/api/sessions/${s.id}/state`,
      stream: `/api/sessions/${s.id}/follow`, follow: `/?follow=${s.id}`, view: `/?session=${s.id}`,
    });
    assert.equal(m.mem_mb_per_node, 64, 'the old keys stay');
    assert.equal(m.dma_mb, 0);
    assert.equal(m.dma32_mb, 0);
    assert.equal(m.watermark_scale_factor, 10);
    assert.equal(m.kswapd, false);
    assert.equal(m.cma, true);
    // min_free_kbytes is shared among the zones as their min watermarks (4 KiB pages,
    // each share rounded down): compare with the zones of the session's state
    const zonesOf = async (id) => (await api(srv.url, 'GET', `/api/sessions/${id}/state?at=0`)).json.state.zones;
    const minSum = (zones) => zones.reduce((a, z) => a + z.watermarks.min, 0);
    let zones = await zonesOf(s.id);
    assert.deepEqual(zones.map((z) => z.name), ['Normal']);
    assert.equal(minSum(zones), m.min_free_kbytes / 4);
    // a scenario with DMA and DMA32 zones and its own min_free_kbytes
    const scn = JSON.parse(fs.readFileSync('scenarios/dma-cache.json', 'utf8'));
    const d = await session(srv.url, { scenario: scn });
    const dm = (await api(srv.url, 'GET', `/api/sessions/${d.id}`)).json.machine;
    assert.equal(dm.dma_mb, scn.machine.dma_mb);
    assert.equal(dm.dma32_mb, scn.machine.dma32_mb);
    assert.equal(dm.min_free_kbytes, scn.config.min_free_kbytes);
    zones = await zonesOf(d.id);
    assert.deepEqual(zones.map((z) => z.name).sort(), ['DMA', 'DMA32', 'Normal']);
    const sum = minSum(zones);
    assert.ok(sum <= dm.min_free_kbytes / 4 && sum > dm.min_free_kbytes / 4 - zones.length,
      `min watermarks ${sum} share ${dm.min_free_kbytes} KiB`);
    // the configuration keys reach the machine
    const cfg = { ...scn, config: { ...scn.config, watermark_scale_factor: 200, kswapd: true, cma: false } };
    const k = await session(srv.url, { scenario: cfg });
    const km = (await api(srv.url, 'GET', `/api/sessions/${k.id}`)).json.machine;
    assert.equal(km.watermark_scale_factor, 200);
    assert.equal(km.kswapd, true);
    assert.equal(km.cma, false);
  });

  test('an inline scenario with settings', async () => {
    const scn = JSON.parse(fs.readFileSync('scenarios/fast-paths.json', 'utf8'));
    const r = await session(srv.url, {
      scenario: scn, seed: 7, variants: { BARN_REFILL: 'before' },
      ops: [{ op: 'alloc', cpu: 0, cache: scn.caches[0].name, name: 'extra' }],
    });
    const info = await api(srv.url, 'GET', `/api/sessions/${r.id}`);
    assert.equal(info.json.settings.seed, 7);
    assert.equal(info.json.settings.variants.BARN_REFILL, 'before');
    assert.equal(info.json.batches, 2);
    const names = await api(srv.url, 'GET', `/api/sessions/${r.id}/names`);
    assert.ok('extra' in names.json);
  });

  test('state at every position equals the replay from the start (run --snapshot)', async () => {
    const end = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=35`);
    assert.equal(end.status, 200);
    const cli = execFileSync(BIN, ['run', 'scenarios/default.json', '--snapshot'], { encoding: 'utf8' }).trim();
    assert.equal(stateText(end.text), cli);
    // and a second session, built separately, agrees everywhere
    const t = await session(srv.url);
    for (let at = 0; at <= 35; at++) {
      const a = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${at}`);
      const b = await api(srv.url, 'GET', `/api/sessions/${t.id}/state?at=${35 - (35 - at)}`);
      assert.equal(a.text, b.text, `position ${at}`);
      assert.equal(a.json.at, at);
      assert.equal(a.json.state.seq, at);
    }
  });

  test('a deeper session: the end equals run --snapshot, positions agree across sessions', async () => {
    const scn = JSON.parse(fs.readFileSync('scenarios/default.json', 'utf8'));
    scn.ops.push({ op: 'repeat', times: 3000, ops: [
      { op: 'alloc', cpu: 0, cache: 'A', name: 'a{i}' }, { op: 'alloc', cpu: 1, cache: 'A', name: 'b{i}' },
      { op: 'free', cpu: 1, name: 'a{i}' }] });
    scn.expect = [];
    const file = path.join(dir, 'deeper.json');
    fs.writeFileSync(file, JSON.stringify(scn));
    const d = await session(srv.url, { scenario: scn });
    assert.ok(d.events > 9000, `${d.events} events`);
    const end = await api(srv.url, 'GET', `/api/sessions/${d.id}/state?at=${d.events}`);
    const cli = execFileSync(BIN, ['run', file, '--snapshot'], { encoding: 'utf8' }).trim();
    assert.equal(stateText(end.text), cli);
    // a second session reaches each position by other checkpoints and cursors
    const e = await session(srv.url, { scenario: scn });
    const positions = [0, 1, 35, 4097, d.events - 1, 777, 6000, 6001, 5999, 12, d.events];
    for (const at of positions) {
      const a = await api(srv.url, 'GET', `/api/sessions/${d.id}/state?at=${at}`);
      const b = await api(srv.url, 'GET', `/api/sessions/${e.id}/state?at=${at}`);
      assert.equal(a.status, 200);
      assert.equal(a.text, b.text, `position ${at}`);
    }
  });

  test('stepping forward then back gives byte-identical states', async () => {
    const auth = { token: s.token };
    const fwd = [];
    let r = await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { ...auth, body: { to: 0 } });
    assert.equal(r.status, 200);
    fwd[0] = JSON.stringify(r.json.state);
    for (let i = 1; i <= 35; i++) {
      r = await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { ...auth, body: { by: 'event', dir: 'next' } });
      assert.equal(r.status, 200);
      assert.equal(r.json.position, i);
      fwd[i] = JSON.stringify(r.json.state);
    }
    for (let i = 34; i >= 0; i--) {
      r = await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { ...auth, body: { by: 'event', dir: 'prev' } });
      assert.equal(r.json.position, i);
      assert.equal(JSON.stringify(r.json.state), fwd[i], `position ${i}`);
    }
    // by operation: boundaries only, and back again
    const bounds = [0];
    for (;;) {
      r = await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { ...auth, body: { by: 'op', state: false } });
      if (r.json.position === bounds[bounds.length - 1]) break;
      bounds.push(r.json.position);
    }
    assert.equal(bounds[bounds.length - 1], 35);
    assert.equal(bounds.length, 14); // 13 operations
    const back = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=35&by=op&dir=prev&count=13`);
    assert.equal(back.json.at, 0);
  });

  test('events, series, search, names, op log', async () => {
    const ev = await api(srv.url, 'GET', `/api/sessions/${s.id}/events?from=10&to=13`);
    assert.equal(ev.status, 200);
    assert.deepEqual(ev.json.events.map((e) => e.seq), [10, 11, 12]);
    const series = await api(srv.url, 'GET', `/api/sessions/${s.id}/series?counters=alloc_fastpath,free_fastpath&points=8`);
    assert.equal(series.status, 200);
    assert.equal(series.json.positions.at(-1), 35);
    assert.equal(series.json.series.alloc_fastpath.at(-1), 6);
    assert.equal(series.json.series.free_fastpath.at(-1), 6);
    const found = await api(srv.url, 'GET', `/api/sessions/${s.id}/search?fn=free_to_pcs&from=0`);
    assert.equal(found.json.found, true);
    assert.equal(found.json.event.fn, 'free_to_pcs');
    const next = await api(srv.url, 'GET', `/api/sessions/${s.id}/search?fn=free_to_pcs&from=${found.json.at}`);
    assert.ok(next.json.at > found.json.at);
    const prev = await api(srv.url, 'GET', `/api/sessions/${s.id}/search?fn=free_to_pcs&from=${next.json.at}&dir=prev`);
    assert.equal(prev.json.at, found.json.at);
    const obj = found.json.event.moves[0].id;
    const hist = await api(srv.url, 'GET', `/api/sessions/${s.id}/search?object=${obj}&from=0`);
    assert.equal(hist.json.found, true);
    const none = await api(srv.url, 'GET', `/api/sessions/${s.id}/search?fn=no_such_function`);
    assert.equal(none.json.found, false);
    const log = await api(srv.url, 'GET', `/api/sessions/${s.id}/ops`);
    assert.equal(log.json.batches.length, 1);
    assert.equal(log.json.batches[0].ops_end, 13);
  });

  test('slab bytes and decoded free pointers', async () => {
    const st = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=35`);
    const slab = st.json.state.slabs.find((x) => x.freelist.length > 0);
    const r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=35&bytes=${slab.addr}`);
    assert.equal(r.status, 200);
    assert.equal(r.json.slab.addr, slab.addr);
    assert.equal(r.json.slab.bytes.length, 2 * 4096);
    assert.equal(r.json.slab.freeptrs.length, slab.freelist.length);
    // the decoded pointer of each free object is the next one on the freelist
    for (let i = 0; i + 1 < slab.freelist.length; i++)
      assert.equal(r.json.slab.freeptrs[i].decoded, slab.freelist[i + 1]);
  });

  test('appending operations, and an operation at an earlier position forks', async () => {
    const t = await session(srv.url);
    const before = await api(srv.url, 'GET', `/api/sessions/${t.id}/state?at=20`);
    const app = await api(srv.url, 'POST', `/api/sessions/${t.id}/ops`, {
      token: t.token, body: { ops: [{ op: 'alloc', cpu: 1, cache: 'A', name: 'z' }, { op: 'free', cpu: 0, name: 'z' }] },
    });
    assert.equal(app.status, 200);
    assert.equal(app.json.from, 35);
    assert.ok(app.json.events > 35);
    const single = await api(srv.url, 'POST', `/api/sessions/${t.id}/ops`, {
      token: t.token, body: { op: 'kmalloc', cpu: 0, size: 100, name: 'k' },
    });
    assert.equal(single.status, 200);
    const end = single.json.events;
    const fork = await api(srv.url, 'POST', `/api/sessions/${t.id}/ops`, {
      token: t.token, body: { at: 20, ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'f' }] },
    });
    assert.equal(fork.status, 201);
    assert.equal(fork.json.parent, t.id);
    assert.notEqual(fork.json.id, t.id);
    // the original is unchanged
    const info = await api(srv.url, 'GET', `/api/sessions/${t.id}`);
    assert.equal(info.json.events, end);
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${t.id}/state?at=20`)).text, before.text);
    // the fork agrees with the original up to where it forked
    for (const at of [0, 5, 19, 20]) {
      const a = await api(srv.url, 'GET', `/api/sessions/${t.id}/state?at=${at}`);
      const b = await api(srv.url, 'GET', `/api/sessions/${fork.json.id}/state?at=${at}`);
      assert.equal(a.text, b.text, `position ${at}`);
    }
    // POST fork (no token needed) leaves the original intact too
    const f2 = await api(srv.url, 'POST', `/api/sessions/${t.id}/fork`, { body: { at: 7 } });
    assert.equal(f2.status, 201);
    assert.equal(f2.json.position, 7);
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${t.id}`)).json.events, end);
  });

  test('follow: the presenter position arrives over server-sent events', async () => {
    const t = await session(srv.url);
    const ctl = new AbortController();
    const r = await fetch(`${srv.url}/api/sessions/${t.id}/follow`, { signal: ctl.signal });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^text\/event-stream/);
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    const seen = [];
    const want = async (at) => {
      const deadline = Date.now() + 5000;
      while (!seen.includes(at) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value);
        for (const m of buf.matchAll(/data: (\{[^\n]*\})/g)) seen.push(JSON.parse(m[1]).at);
        buf = buf.slice(buf.lastIndexOf('\n\n') + 2);
      }
      assert.ok(seen.includes(at), `follower saw ${JSON.stringify(seen)}, not ${at}`);
    };
    await want(0);
    const info = await api(srv.url, 'GET', `/api/sessions/${t.id}`);
    assert.equal(info.json.followers, 1);
    await api(srv.url, 'POST', `/api/sessions/${t.id}/step`, { token: t.token, body: { to: 12, state: false } });
    await want(12);
    await api(srv.url, 'POST', `/api/sessions/${t.id}/step`, { token: t.token, body: { to: 30, state: false } });
    await want(30);
    ctl.abort();
  });

  test('a long replay in one session does not hold up another', async () => {
    const scn = JSON.parse(fs.readFileSync('scenarios/default.json', 'utf8'));
    // long enough that 20 seeks on a loaded 2-core machine finish well within it
    scn.ops = [{ op: 'repeat', times: 400000, ops: [
      { op: 'alloc', cpu: 0, cache: 'A', name: 'x' }, { op: 'free', cpu: 0, name: 'x' }] }];
    scn.expect = [];
    let longDone = 0;
    const long = api(srv.url, 'POST', '/api/sessions', { body: { scenario: scn } }).then((r) => {
      longDone = Date.now();
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    // positions no one asked for yet: each is a seek on a worker
    for (let at = 5; at <= 24; at++)
      assert.equal((await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${at}&bytes=0xffff888100000000`)).status, 200);
    const quickDone = Date.now();
    assert.equal((await long).status, 201);
    assert.ok(quickDone <= longDone, `the short requests waited for the long replay (${quickDone - longDone} ms)`);
  });

  test('delete needs the token', async () => {
    const t = await session(srv.url);
    assert.equal((await api(srv.url, 'DELETE', `/api/sessions/${t.id}`)).status, 403);
    assert.equal((await api(srv.url, 'DELETE', `/api/sessions/${t.id}`, { token: t.token })).status, 204);
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${t.id}`)).status, 404);
  });

  test('compare', async () => {
    const r = await api(srv.url, 'GET', '/api/compare?scenario=default&variant=DEFERRED_FREELIST');
    assert.equal(r.status, 200);
    const cli = JSON.parse(execFileSync(BIN, ['compare', 'scenarios/default.json', '--variant', 'DEFERRED_FREELIST', '--json'], { encoding: 'utf8' }));
    assert.deepEqual(r.json.rows, cli.rows);
    assert.equal(r.json.baseline, 'DEFERRED_FREELIST=before');
  });

  test('the legacy model: sessions by era, compare across models, bad models refused', async () => {
    const scn = JSON.parse(fs.readFileSync('scenarios/legacy-cpu-partial-refill.json', 'utf8'));
    const r = await session(srv.url, { scenario: scn, model: 'legacy:ERA_DELAYED_FREEZE' });
    const info = await api(srv.url, 'GET', `/api/sessions/${r.id}`);
    assert.equal(info.json.settings.model, 'legacy:ERA_DELAYED_FREEZE');
    assert.equal(info.json.settings.variants.CPU_PARTIAL_DIRECT_LOAD, 'before');
    for (const v of ['DEFERRED_FREELIST', 'BARN_REFILL', 'REFILL_RETURN']) /* sheaf-era changes */
      assert.ok(!(v in info.json.settings.variants), `${v} is not a variant of the legacy model`);
    // the counters each model counts, as the engine lists them
    assert.ok(info.json.counters.includes('cpu_partial_drain') && info.json.counters.includes('engine_pages_in'));
    assert.ok(!info.json.counters.includes('barn_get'), 'no barn_get before sheaves');
    const sh = await session(srv.url, { scenario: scn, model: 'sheaves' });
    const shInfo = await api(srv.url, 'GET', `/api/sessions/${sh.id}`);
    assert.ok(shInfo.json.counters.includes('barn_get') && shInfo.json.counters.includes('alloc_fastpath'));
    assert.ok(!shInfo.json.counters.includes('cpu_partial_drain'), 'no CPU partial lists with sheaves');
    // the same state as the CLI with that era
    const end = await api(srv.url, 'GET', `/api/sessions/${r.id}/state?at=${info.json.events}`);
    const cli = execFileSync(BIN, ['run', 'scenarios/legacy-cpu-partial-refill.json', '--model', 'legacy:ERA_DELAYED_FREEZE', '--snapshot'], { encoding: 'utf8' }).trim();
    assert.equal(stateText(end.text), cli);
    const cpu1 = end.json.state.caches[0].cpus[1].cpu_slab;
    assert.match(cpu1.slab, /^0x/);
    assert.equal(cpu1.freelist.length, 7);
    assert.deepEqual(cpu1.partial, []);
    // an era that contradicts the variant, an unknown era: 400 with the reason
    const bad = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: scn, model: 'legacy:ERA_DIRECT_LOAD', variants: { CPU_PARTIAL_DIRECT_LOAD: 'before' } } });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error.message, /ERA_DIRECT_LOAD is CPU_PARTIAL_DIRECT_LOAD=after/);
    const unknown = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: scn, model: 'legacy:ERA_X' } });
    assert.equal(unknown.status, 400);
    const cmp = await api(srv.url, 'GET', '/api/compare?scenario=legacy-vs-sheaves&model=legacy,sheaves');
    assert.equal(cmp.status, 200);
    const want = JSON.parse(execFileSync(BIN, ['compare', 'scenarios/legacy-vs-sheaves.json', '--model', 'legacy,sheaves', '--json'], { encoding: 'utf8' }));
    assert.deepEqual(cmp.json.rows, want.rows);
    assert.equal(cmp.json.rows.find((x) => x.metric === 'sheaf_refill').in_baseline, false);
    const nope = await api(srv.url, 'GET', '/api/compare?scenario=legacy-vs-sheaves&model=legacy:ERA_X,sheaves');
    assert.equal(nope.status, 400);
  });
});

describe('snapshots and diff', () => {
  test('save, open, export, import, diff empty, delete', async () => {
    const s = await session(srv.url);
    const snap = await api(srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 20, title: 'after the refill' } });
    assert.equal(snap.status, 201);
    assert.match(snap.json.id, /^[a-z2-7]{8}$/);
    assert.equal(snap.json.links.permalink, `/?snapshot=${snap.json.id}`);
    assert.deepEqual(snap.json.links, { self: `/api/snapshots/${snap.json.id}`,
      export: `/api/snapshots/${snap.json.id}/export`, permalink: `/?snapshot=${snap.json.id}` });
    const got = await api(srv.url, 'GET', `/api/snapshots/${snap.json.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.json.status, 'verified');
    assert.equal(got.json.read_only, false);
    assert.equal(got.json.position, 20);
    const live = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=20`);
    assert.deepEqual(got.json.state, live.json);
    // unlisted until published; its author's list (by its token) has it
    const list = await api(srv.url, 'GET', '/api/snapshots');
    assert.ok(!list.json.snapshots.some((x) => x.id === snap.json.id));
    const mine = await api(srv.url, 'POST', '/api/snapshots/list', { body: { tokens: { [snap.json.id]: snap.json.token } } });
    assert.ok(mine.json.snapshots.some((x) => x.id === snap.json.id && x.mine && !x.published));

    const exp = await api(srv.url, 'GET', `/api/snapshots/${snap.json.id}/export`);
    assert.equal(exp.status, 200);
    assert.match(exp.headers.get('content-disposition'), /attachment/);
    assert.equal(exp.json.format, 'slublab-snapshot');
    // importing the same document again finds it; with new_id it is a copy
    const same = await api(srv.url, 'POST', '/api/snapshots/import', { raw: exp.text });
    assert.equal(same.status, 200);
    assert.equal(same.json.existing, true);
    const copy = await api(srv.url, 'POST', '/api/snapshots/import?new_id=1', { raw: exp.text });
    assert.equal(copy.status, 201);
    const diff = await api(srv.url, 'GET', `/api/diff?a=${snap.json.id}&b=${copy.json.id}`);
    assert.equal(diff.status, 200);
    assert.equal(diff.json.total, 0);
    for (const k of ['objects', 'slabs', 'sheaves', 'caches', 'counters', 'files']) assert.deepEqual(diff.json[k], []);
    const copied = await api(srv.url, 'GET', `/api/snapshots/${copy.json.id}`);
    assert.equal(copied.json.status, 'verified');
    // a different document under a taken id is a conflict
    const other = JSON.parse(exp.text);
    other.position = 10;
    const conflict = await api(srv.url, 'POST', '/api/snapshots/import', { body: other });
    assert.equal(conflict.status, 409);
    assert.ok(isError(conflict, 'conflict'));

    const opened = await api(srv.url, 'POST', `/api/snapshots/${snap.json.id}/open`);
    assert.equal(opened.status, 201);
    assert.equal(opened.json.position, 20);
    const reopened = await api(srv.url, 'GET', `/api/sessions/${opened.json.id}/state?at=20`);
    assert.deepEqual(reopened.json, live.json);

    assert.equal((await api(srv.url, 'DELETE', `/api/snapshots/${copy.json.id}`)).status, 403);
    assert.equal((await api(srv.url, 'DELETE', `/api/snapshots/${copy.json.id}`, { token: copy.json.token })).status, 204);
    assert.equal((await api(srv.url, 'GET', `/api/snapshots/${copy.json.id}`)).status, 404);
  });

  test('diff between positions names the moves', async () => {
    const s = await session(srv.url);
    const d = await api(srv.url, 'GET', `/api/diff?a=${s.id}@12&b=${s.id}@19`);
    assert.equal(d.status, 200);
    assert.ok(d.json.objects.length > 0);
    assert.match(d.json.objects[0].text, /^object 0x[0-9a-f]+ moved from .* to /);
    assert.ok(d.json.counters.some((c) => c.counter === 'free_fastpath' && c.delta === 4));
    const slabs = await api(srv.url, 'GET', `/api/diff?a=${s.id}@19&b=${s.id}@33`);
    assert.ok(slabs.json.slabs.some((x) => /moved from partial to full/.test(x.text)), JSON.stringify(slabs.json.slabs));
    assert.ok(slabs.json.slabs.some((x) => /appeared/.test(x.text)));
    const same = await api(srv.url, 'GET', `/api/diff?a=${s.id}@20&b=${s.id}@20`);
    assert.equal(same.json.total, 0);
  });

  test('a snapshot from another engine whose replay differs is shown read-only', async () => {
    const s = await session(srv.url);
    const snap = await api(srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 12 } });
    const exp = JSON.parse((await api(srv.url, 'GET', `/api/snapshots/${snap.json.id}/export`)).text);
    exp.engine = '0.0.1-old';
    exp.state.state.caches[0].stats.alloc_fastpath = 999; // what an older engine might have said
    delete exp.id;
    const imp = await api(srv.url, 'POST', '/api/snapshots/import', { body: exp });
    assert.equal(imp.status, 201);
    const got = await api(srv.url, 'GET', `/api/snapshots/${imp.json.id}`);
    assert.equal(got.json.status, 'stored');
    assert.equal(got.json.read_only, true);
    assert.match(got.json.warning, /engine 0\.0\.1-old/);
    assert.equal(got.json.state.state.caches[0].stats.alloc_fastpath, 999);
  });
});

describe('errors', () => {
  let s;
  before(async () => {
    s = await session(srv.url);
  });

  test('400 malformed JSON and bad fields', async () => {
    let r = await api(srv.url, 'POST', '/api/sessions', { raw: '{"scenario":' });
    assert.equal(r.status, 400);
    assert.ok(isError(r, 'bad_json'));
    r = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: 42 } });
    assert.equal(r.status, 400);
    assert.ok(isError(r, 'bad_request'));
    r = await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=x`);
    assert.equal(r.status, 400);
  });

  test('403 without the write token', async () => {
    const r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { body: [{ op: 'flush_all', cache: 'A' }] });
    assert.equal(r.status, 403);
    assert.ok(isError(r, 'forbidden'));
  });

  test('404 and 405', async () => {
    let r = await api(srv.url, 'GET', '/api/sessions/zzzzzzzzzz');
    assert.equal(r.status, 404);
    assert.ok(isError(r, 'not_found'));
    r = await api(srv.url, 'GET', '/api/nothing');
    assert.equal(r.status, 404);
    r = await api(srv.url, 'PUT', '/api/sessions');
    assert.equal(r.status, 405);
    assert.ok(isError(r, 'method_not_allowed'));
    assert.match(r.headers.get('allow'), /POST/);
    assert.match(r.headers.get('allow'), /GET/);
  });

  test('409 when the end moved (if_end)', async () => {
    const r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { token: s.token, body: { if_end: 3, ops: [] } });
    assert.equal(r.status, 409);
    assert.ok(isError(r, 'conflict'));
  });

  test('413 for a body over 1 MiB', async () => {
    const r = await api(srv.url, 'POST', '/api/sessions', { raw: ' '.repeat((1 << 20) + 1) });
    assert.equal(r.status, 413);
    assert.ok(isError(r, 'too_large'));
  });

  test('422 for no live object, an impossible CPU or node, the server machine limit', async () => {
    let r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { token: s.token, body: [{ op: 'free', cpu: 0, name: 'ghost' }] });
    assert.equal(r.status, 422);
    assert.ok(isError(r, 'unprocessable'));
    r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { token: s.token, body: [{ op: 'alloc', cpu: 2, cache: 'A' }] });
    assert.equal(r.status, 422);
    r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { token: s.token, body: [{ op: 'alloc', cpu: 0, node: 1, cache: 'A' }] });
    assert.equal(r.status, 422);
    const big = JSON.parse(fs.readFileSync('scenarios/default.json', 'utf8'));
    big.machine.cpus = 16; // the server allows 8
    r = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: big } });
    assert.equal(r.status, 422);
    // the session did not change
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${s.id}`)).json.events, 35);
  });

  test('429 past the session operation limit', async () => {
    const r = await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, {
      token: s.token,
      body: [{ op: 'repeat', times: 1000000, ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'x' }] }],
    });
    assert.equal(r.status, 429);
    assert.ok(isError(r, 'session_limit'));
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${s.id}`)).json.events, 35);
  });
});

describe('restart', () => {
  test('sessions and snapshots survive a restart', async () => {
    const s = await session(srv.url);
    await api(srv.url, 'POST', `/api/sessions/${s.id}/ops`, { token: s.token, body: [{ op: 'alloc', cpu: 1, cache: 'A', name: 'r' }] });
    await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: 17, state: false } });
    const forked = await api(srv.url, 'POST', `/api/sessions/${s.id}/fork`, { body: { at: 22 } });
    const states = {};
    for (const at of [0, 17, 30, 36]) states[at] = (await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${at}`)).text;
    const fstate = (await api(srv.url, 'GET', `/api/sessions/${forked.json.id}/state?at=22`)).text;
    const snap = await api(srv.url, 'POST', '/api/snapshots', { body: { session: s.id, at: 30 } });
    const snapBefore = await api(srv.url, 'GET', `/api/snapshots/${snap.json.id}`);

    const st = await srv.stop();
    assert.equal(st.code, 0);
    if (!isPg(srv.db)) assert.equal(sqlite(srv.db, 'PRAGMA integrity_check'), 'ok');
    srv = await start({ dir, db: srv.db, args: ['--max-ops', '1000000', '--max-cpus', '8'] });

    const info = await api(srv.url, 'GET', `/api/sessions/${s.id}`);
    assert.equal(info.status, 200);
    assert.equal(info.json.position, 17);
    assert.equal(info.json.batches, 2);
    for (const at of Object.keys(states))
      assert.equal((await api(srv.url, 'GET', `/api/sessions/${s.id}/state?at=${at}`)).text, states[at], `position ${at}`);
    assert.equal((await api(srv.url, 'GET', `/api/sessions/${forked.json.id}/state?at=22`)).text, fstate);
    const snapAfter = await api(srv.url, 'GET', `/api/snapshots/${snap.json.id}`);
    assert.deepEqual(snapAfter.json, snapBefore.json);
    // the token still works
    assert.equal((await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: 1, state: false } })).status, 200);
  });

  test('the schema is versioned', async () => {
    assert.equal(schemaVersion(srv.db), '12');
    if (!isPg(srv.db)) assert.equal(sqlite(srv.db, 'PRAGMA journal_mode'), 'wal');
  });

  test('a database from a newer slublab is refused', async () => {
    const db = freshDb(dir, 'newer');
    if (isPg(db)) {
      sqlite(db, 'CREATE TABLE slublab_schema (version INTEGER NOT NULL); INSERT INTO slublab_schema VALUES (99)');
    } else {
      sqlite(db, 'PRAGMA user_version = 99');
    }
    await assert.rejects(start({ dir, db }), /schema version 99/);
  });
});
