// Unit tests of the pure parts of web/js/state.js, ops.js and api.js:
// operation boundaries, markers, breakpoints, building operations from the
// form, and pointing at a scenario error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { opBoundary, markersFromEvents, markersFromSeries, makeBreakpoint, hits, createPlayer, keepBreakpoints, playedSpeed, RATE_WINDOW_MS, SPEEDS } from '../../web/js/state.js';
import { buildOp, locateInJson, OP_KINDS } from '../../web/js/ops.js';
import { errorWhere } from '../../web/js/api.js';
import { setTexts } from '../../web/js/texts.js';

setTexts(JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url))));

const events = JSON.parse(readFileSync(new URL('./fixtures/default-events.json', import.meta.url))).events;
const byseq = new Map(events.map((e) => [e.seq, e]));

test('opBoundary: positions just after each operation', () => {
  // op 0 is event 0, op 1 is events 1..10, op 2 is event 11.
  assert.equal(opBoundary(byseq, 0, 35, 1), 1);
  assert.equal(opBoundary(byseq, 1, 35, 1), 11);
  assert.equal(opBoundary(byseq, 5, 35, 1), 11);
  assert.equal(opBoundary(byseq, 11, 35, -1), 1);
  assert.equal(opBoundary(byseq, 5, 35, -1), 1);
  assert.equal(opBoundary(byseq, 1, 35, -1), 0);
  assert.equal(opBoundary(byseq, 35, 35, 1), 35);
  assert.equal(opBoundary(new Map(), 5, 35, 1), null, 'unknown without the events');
});

test('markers from events and from counter series agree on new slabs', () => {
  const mk = markersFromEvents(events);
  const slabs = mk.filter((m) => m.kind === 'new_slab').map((m) => m.at);
  assert.deepEqual(slabs, [5, 27]);
  const positions = Array.from({ length: 36 }, (_, i) => i);
  const series = positions.map((p) => events.filter((e) => e.seq < p).reduce((n, e) => n + (e.stats.alloc_slab ?? 0), 0));
  const fromSeries = markersFromSeries({ positions, interval: 1, series: { alloc_slab: series } });
  assert.deepEqual(fromSeries.map((m) => m.at), slabs);
});

test('breakpoints: notable kinds, counters and functions', () => {
  const discard = makeBreakpoint({ kind: 'notable', name: 'discard' });
  assert.equal(discard.fn, 'discard_slab');
  assert.equal(discard.title, 'a slab is discarded');
  assert.ok(hits(discard, { fn: 'discard_slab', label: 'empty', stats: {} }));
  const bpf = makeBreakpoint({ kind: 'counter', name: 'barn_put_fail' });
  assert.equal(bpf.title, 'barn_put_fail increases');
  assert.ok(hits(bpf, { fn: 'x', stats: { barn_put_fail: 1 } }));
  assert.ok(!hits(bpf, { fn: 'x', stats: {} }));
  const fl = makeBreakpoint({ kind: 'fn', name: 'new_slab', label: 'oo' });
  assert.ok(hits(fl, events[3]));
  assert.ok(!hits(fl, events[4]));
  assert.ok(!hits(fl, null));
  assert.throws(() => makeBreakpoint({ kind: 'notable', name: 'nope' }));
});

test('buildOp: form values to scenario operations', () => {
  assert.deepEqual(buildOp('alloc', { cpu: '1', cache: 'A', node: '', name: 'x' }).op, { op: 'alloc', cpu: 1, cache: 'A', name: 'x' });
  assert.deepEqual(buildOp('free', { cpu: '0', object: '0xFFFF888100000040' }, () => 'A').op,
    { op: 'free', cpu: 0, addr: '0xffff888100000040', cache: 'A' });
  assert.deepEqual(buildOp('create', { name: 'B', object_size: '128', flags: 'SLAB_RED_ZONE, SLAB_POISON' }).op,
    { op: 'create', name: 'B', object_size: 128, flags: ['SLAB_RED_ZONE', 'SLAB_POISON'] });
  assert.match(buildOp('alloc', { cpu: '0' }).error, /needs cache/);
  assert.match(buildOp('alloc_bulk', { cpu: '0', cache: 'A', count: 'x' }).error, /whole number/);
  assert.match(buildOp('free', { cpu: '0', object: 'zz' }).error, /not an address/);
  assert.match(buildOp('nope', {}).error, /unknown/);
  assert.deepEqual(buildOp('alloc_pages', { cpu: '0', node: '', gfp: 'GFP_ATOMIC', order: '3', name: 'rx' }).op,
    { op: 'alloc_pages', cpu: 0, gfp: 'GFP_ATOMIC', order: 3, name: 'rx' });
  assert.match(buildOp('alloc_pages', { order: 'big' }).error, /order must be a whole number/);
  assert.ok(OP_KINDS.every((k) => k.required.every((r) => k.fields.includes(r))));
});

test('buildOp: an operation on a cache where none exists yet says so', () => {
  for (const kind of ['alloc', 'alloc_bulk', 'flush_all', 'shrink', 'destroy', 'prefill']) {
    assert.match(buildOp(kind, { cpu: '0', cache: '', count: '2', name: 'x' }, null, { at: 0, caches: 0 }).error,
      /no cache exists yet at step 0: create one first/, kind);
  }
  assert.match(buildOp('alloc', { cpu: '0', cache: '' }, null, { at: 7, caches: 0 }).error, /at step 7/);
  // with caches alive, an empty choice is only a missing value
  assert.equal(buildOp('alloc', { cpu: '0', cache: '' }, null, { at: 3, caches: 1 }).error, 'alloc needs cache');
  // a create needs no cache
  assert.deepEqual(buildOp('create', { name: 'A', object_size: '64' }, null, { at: 0, caches: 0 }).op, { op: 'create', name: 'A', object_size: 64 });
});

test('locateInJson and errorWhere point at the operation and key', () => {
  const text = '{\n "format": 1,\n "ops": [\n  {"op": "alloc", "cpu": 0},\n  {"op": "repeat", "times": 2, "ops": [{"op": "free", "cpux": 1}]}\n ]\n}';
  const w = errorWhere('scenario: ops[1].ops[0]: unknown key "cpux" (free takes cpu, cache, name, addr)');
  assert.deepEqual(w, { path: 'ops[1].ops[0]', op: 1, key: 'cpux', line: null, column: null });
  const r = locateInJson(text, w.path, w.key);
  assert.equal(text.slice(r.start, r.end), '"cpux"');
  const whole = locateInJson(text, 'ops[0]');
  assert.equal(text.slice(whole.start, whole.end), '{"op": "alloc", "cpu": 0}');
  assert.equal(locateInJson(text, 'ops[5]'), null);
  assert.equal(errorWhere('x.json: line 7, column 12: not valid JSON').line, 7);
});

test('a player without a session does nothing and says so through get()', async () => {
  const p = createPlayer();
  assert.equal(p.get().session, null);
  await p.seek(3);
  await p.step(1);
  p.play();
  assert.equal(p.get().playing, false);
  p.faster();
  assert.equal(p.get().speed, 8);
  p.slower(); p.slower();
  assert.equal(p.get().speed, 2);
});

test('playedSpeed: the speed measured over a whole window, and the fastest speed reached', () => {
  // @rate steps per second for @ms, ending at 10,000
  const steps = (rate, ms) => Array.from({ length: Math.floor((rate * ms) / 1000) }, (_, i) => 10000 - ms + Math.round((i * 1000) / rate));
  // not a whole window yet: nothing measured
  assert.deepEqual(playedSpeed(steps(62, RATE_WINDOW_MS - 100), 128, 10000), { rate: null, limit: null });
  // slow speeds are always reached
  assert.deepEqual(playedSpeed(steps(1, 4000), 2, 10000), { rate: null, limit: null });
  // 128 asked, 62 played (the machine alone): 64 is reached (at 0.9 of it), 128 is not
  const alone = playedSpeed(steps(62, 3000), 128, 10000);
  assert.ok(Math.abs(alone.rate - 62) <= 1, String(alone.rate));
  assert.equal(alone.limit, 64);
  // 64 asked, 22 played (ten followers): 16 is the fastest reached
  assert.equal(playedSpeed(steps(22, 3000), 64, 10000).limit, 16);
  // reached: no limit
  const full = playedSpeed(steps(32, 3000), 32, 10000);
  assert.ok(Math.abs(full.rate - 32) <= 1 && full.limit === null, JSON.stringify(full));
  // nothing reached at all: the slowest that always is
  assert.equal(playedSpeed(steps(1, 3000), 8, 10000).limit, 2);
  assert.ok(SPEEDS.includes(playedSpeed(steps(5, 3000), 16, 10000).limit));
});

test('the speed menu offers no speed faster than the one reached', () => {
  const p = createPlayer();
  p.get().speedLimit = 16; // what measureRate() sets when 32 is not reached
  for (let i = 0; i < 6; i++) p.faster();
  assert.equal(p.get().speed, 16);
  p.setSpeed(128);
  assert.equal(p.get().speed, 16);
  p.slower();
  assert.equal(p.get().speed, 8);
});

test('keepBreakpoints: a new session keeps the breakpoints its model counts', () => {
  const put = makeBreakpoint({ kind: 'notable', name: 'barn_put_fail' });
  const fast = makeBreakpoint({ kind: 'counter', name: 'alloc_fastpath' });
  const fn = makeBreakpoint({ kind: 'fn', name: 'new_slab' });
  assert.deepEqual(keepBreakpoints([put, fast, fn], ['alloc_fastpath', put.counter]), [put, fast, fn]);
  assert.deepEqual(keepBreakpoints([put, fast, fn], ['alloc_fastpath']), [fast, fn]);
});
