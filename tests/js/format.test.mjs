// Unit tests of web/js/format.js, counters.js and outline.js: sentences,
// numbers, CSV, colours.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  narrate, opCall, placeName, shortAddr, objName, moveGroups, addrAdd, lo48, toCSV, STATES,
  fmtChange, stepText, hexLines, statsText, hasSentence, sysfsLine, opNumber, positionText, stepDetail,
} from '../../web/js/format.js';
import { counterMeaning, COUNTER_NAMES, SHEAVES_COUNTERS, chartCountersFor, modelCounters, DEFAULT_CHART } from '../../web/js/counters.js';
import { outlineFor, outlined } from '../../web/js/outline.js';
import { setTexts } from '../../web/js/texts.js';

setTexts(JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url))));

import { contrast } from './contrast.mjs';

const BACKGROUND = '#ffffff';
const fixture = (name) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const events = fixture('default-events.json').events;

test('addresses: short form, low bits and addition keep the high part', () => {
  assert.equal(shortAddr('0xffff888100000ec0'), '…00ec0');
  assert.equal(lo48('0xffff888100000ec0'), 0x888100000ec0);
  assert.equal(addrAdd('0xffff888100000000', 0x40), '0xffff888100000040');
  assert.equal(addrAdd('0xffff888100000fc0', 0x40), '0xffff888100001000');
  assert.equal(addrAdd('0x1000', 16), '0x1010');
});

test('objects: the scenario\'s name from the state answer, else the short address', () => {
  const names = { '0xffff888100000ec0': 'o1' };
  assert.equal(objName('0xffff888100000ec0', names), 'o1');
  assert.equal(objName('0xffff888100000f00', names), '…00f00');
  assert.equal(objName('0xffff888100000ec0'), '…00ec0');
  const e = { seq: 10, op: 1, cpu: 0, node: 0, cache: 0, fn: 'alloc_from_pcs', label: 'fastpath',
    moves: [{ kind: 'object', id: '0xffff888100000ec0', from: { type: 'main', cpu: 0 }, to: { type: 'user' } }], stats: {}, report: null };
  assert.match(narrate(e, { names }), /\(o1\)/);
  assert.match(narrate(e), /\(…00ec0\)/);
});

test('objects: a name that reuses a freed object says whose it was (the state\'s same_as)', () => {
  const names = { '0xffff888100000ec0': 'o1' }, same = { '0xffff888100000ec0': 'o0' };
  assert.equal(objName('0xffff888100000ec0', names, same), 'o1 (the same object as o0)');
  assert.equal(objName('0xffff888100000f00', names, same), '…00f00');
  const e = { seq: 10, op: 1, cpu: 0, node: 0, cache: 0, fn: 'alloc_from_pcs', label: 'fastpath',
    moves: [{ kind: 'object', id: '0xffff888100000ec0', from: { type: 'main', cpu: 0 }, to: { type: 'user' } }], stats: {}, report: null };
  assert.match(narrate(e, { names, same }), /\(o1\) goes to the caller; o1 is the same object as o0\.$/);
  assert.doesNotMatch(narrate(e, { names }), /same object/);
});

test('narration: the issue\'s example sentence, word for word', () => {
  const e = { seq: 1, op: 1, cpu: 1, node: 0, cache: 0, fn: '__pcs_replace_full_main', label: 'swap_spare',
    moves: [], stats: {}, report: null };
  assert.equal(narrate(e, { call: 'kmem_cache_free', spareEmpty: true }),
    'CPU 1 kmem_cache_free: the main sheaf is full, so it swaps with the empty spare.');
});

test('narration: every event of the default scenario gets a specific sentence', () => {
  for (const e of events) {
    assert.ok(hasSentence(e.fn, e.label), `no sentence for ${e.fn}/${e.label}`);
    const s = narrate(e, { call: 'kmem_cache_alloc', cacheName: 'A' });
    assert.match(s, /^CPU \d kmem_cache_alloc: .+\.$/);
    assert.ok(!s.includes('undefined') && !s.includes('NaN'), s);
  }
  const fast = events.find((e) => e.fn === 'alloc_from_pcs');
  assert.match(narrate(fast, { call: 'kmem_cache_alloc' }), /top object of the main sheaf \(…[0-9a-f]{5}\) goes to the caller/);
  const refill = events.find((e) => e.fn === 'refill_sheaf');
  assert.match(narrate(refill), /refilled with 60 objects/);
});

test('narration: unknown pairs fall back to the moves in words', () => {
  const e = { seq: 9, op: 2, cpu: 0, node: 0, cache: 0, fn: 'some_new_fn', label: 'x',
    moves: [{ kind: 'object', id: '0x10', from: { type: 'main', cpu: 0 }, to: { type: 'user' } }], stats: {}, report: null };
  assert.equal(narrate(e), 'CPU 0: some_new_fn (x): 1 object moves from CPU 0\'s main sheaf to the caller on CPU 0.');
  assert.equal(narrate(null), 'The start: nothing has happened yet.');
});

test('opCall names the API call from an operation\'s events', () => {
  const byOp = (op) => events.filter((e) => e.op === op);
  assert.equal(opCall(byOp(0)), 'kmem_cache_create');
  assert.equal(opCall(byOp(1)), 'kmem_cache_alloc');
  assert.equal(opCall(byOp(6)), 'kmem_cache_free');
  assert.equal(opCall(byOp(1), () => 'kmalloc-64'), 'kmalloc');
  assert.equal(opCall([{ fn: 'pcs_flush_all' }, { fn: 'barn_shrink' }]), 'kmem_cache_shrink');
  assert.equal(opCall([]), '');
});

test('places in words', () => {
  assert.equal(placeName({ type: 'main', cpu: 1 }), 'CPU 1\'s main sheaf');
  assert.equal(placeName({ type: 'barn_full', node: 0 }), 'node 0\'s barn (full list)');
  assert.equal(placeName({ type: 'something_new' }), 'something new');
});

test('CSV escapes commas, quotes and newlines', () => {
  assert.equal(toCSV([['a', 'b,c'], ['"q"', 'x\ny'], [1, null]]), 'a,"b,c"\n"""q""","x\ny"\n1,\n');
});

test('palette: every state has a glyph and graphics contrast of at least 3:1', () => {
  const glyphs = new Set(STATES.map((s) => s.glyph));
  assert.equal(glyphs.size, STATES.length, 'each state has its own glyph');
  for (const s of STATES) assert.ok(contrast(s.ink, BACKGROUND) >= 3, `${s.key} ink ${s.ink}: ${contrast(s.ink, BACKGROUND).toFixed(2)}`);
  assert.ok(Math.abs(contrast('#000000', '#ffffff') - 21) < 1e-9);
});

test('numbers: change column, step text, stats text, sysfs line', () => {
  assert.equal(fmtChange(60, 0, -100), '-100.0%');
  assert.equal(fmtChange(4, 64), '+1500.0%');
  assert.equal(fmtChange(0, 0, null), '0.0%');
  assert.equal(fmtChange(0, 3, null), 'new', 'a zero baseline: new, not n/a (which means a kernel lacks the counter)');
  assert.equal(fmtChange(19192, 19200), '+0.04%', 'a change never reads +0.0%');
  assert.equal(stepText(12, 240, { fn: 'alloc_from_pcs', label: 'fastpath', cpu: 0 }), 'step 12 of 240: alloc_from_pcs fastpath on CPU 0');
  assert.equal(statsText({ alloc_fastpath: 1 }), 'alloc_fastpath +1');
  assert.equal(sysfsLine('x', 56, [56, 0]), '56 C0=56');
});

test('hex dump lines', () => {
  const l = hexLines('00112233445566778899aabbccddeeff0011', '0xffff888100000000');
  assert.equal(l.length, 2);
  assert.equal(l[1].addr, '0xffff888100000010');
  assert.deepEqual(l[1].bytes, ['00', '11']);
});

test('counters: every sheaves-era counter has a meaning; outlines name their steps', () => {
  assert.equal(SHEAVES_COUNTERS.length, 31);
  for (const n of COUNTER_NAMES) assert.ok(!counterMeaning(n).includes('does not describe'), n);
  for (const e of events) {
    const o = outlineFor(e.fn, e.label);
    assert.ok(o, `no outline for ${e.fn}`);
    assert.ok(o.step >= 0 && o.step < o.steps.length, `${e.fn}/${e.label} has no step`);
  }
  assert.equal(outlineFor('nope', null), null);
  assert.ok(outlined().length > 40);
});

test('templates agree in number: one object returns, two objects return', () => {
  const mk = (n) => ({ seq: 1, op: 1, cpu: 0, node: 0, cache: 0, fn: '__slab_free', label: 'keep', stats: {}, report: null,
    moves: Array.from({ length: n }, (_, i) => ({ kind: 'object', id: `0x${(0x1000 + i * 64).toString(16)}`, from: { type: 'inflight' }, to: { type: 'slab', slab: '0xffff888100001000' } })) });
  assert.equal(narrate(mk(1)), 'CPU 0: 1 object returns to slab …01000, which stays where it is.');
  assert.equal(narrate(mk(2)), 'CPU 0: 2 objects return to slab …01000, which stays where it is.');
});

test('counters of the session\'s model: the server\'s list, the chart kept to what the model counts', () => {
  assert.deepEqual(modelCounters({ counters: ['alloc_fastpath', 'cpu_partial_drain'] }), ['alloc_fastpath', 'cpu_partial_drain']);
  assert.deepEqual(modelCounters(null), SHEAVES_COUNTERS); // an older server that does not say
  const legacy = COUNTER_NAMES.filter((c) => !/^(sheaf_|barn_|free_rcu_sheaf)/.test(c));
  // the default chart on a legacy session: barn_put_fail gives way to cpu_partial_drain
  assert.deepEqual(chartCountersFor(DEFAULT_CHART.slice(0, 4), legacy),
    ['alloc_fastpath', 'free_fastpath', 'alloc_slab', 'cpu_partial_drain']);
  assert.deepEqual(chartCountersFor(DEFAULT_CHART.slice(0, 4), SHEAVES_COUNTERS), DEFAULT_CHART.slice(0, 4));
  // a user's choice is kept where the model counts it, and not topped up past four
  assert.deepEqual(chartCountersFor(['sheaf_flush', 'free_slowpath', 'alloc_slowpath', 'alloc_slab', 'free_fastpath'], legacy),
    ['free_slowpath', 'alloc_slowpath', 'alloc_slab', 'free_fastpath']);
});

test('operations are counted from 1 in the header and the Explain tab alike', () => {
  // fresh-slab-fill: operation index 0 is the create (event 0), index 1 the alloc (events 1..10)
  const create = { seq: 0, op: 0, fn: 'kmem_cache_create', label: '', stats: {} };
  const mid = { seq: 5, op: 1, fn: 'alloc_from_new_slab', label: '', stats: { alloc_slab: 1 } };
  const last = { seq: 10, op: 1, fn: 'alloc_from_pcs', label: 'fastpath', stats: { alloc_fastpath: 1 } };
  assert.equal(opNumber(null), 0);
  assert.equal(opNumber(create), 1);
  assert.equal(opNumber(last), 2);
  assert.equal(positionText(0, 11, null, 2), 'step 0 / 11 · op 0 / 2');
  assert.equal(positionText(1, 11, create, 2), 'step 1 / 11 · op 1 / 2');
  assert.equal(positionText(6, 11, mid, 2), 'step 6 / 11 · op 2 / 2', 'inside an operation: the one in progress');
  assert.equal(positionText(11, 11, last, 2), 'step 11 / 11 · op 2 / 2');
  assert.equal(stepDetail(11, last, 2), 'Step 11, in operation 2 of 2: alloc_from_pcs (fastpath); alloc_fastpath +1.');
  assert.equal(stepDetail(1, create, 2), 'Step 1, in operation 1 of 2: kmem_cache_create; no counter changed.');
  for (const [at, e] of [[1, create], [6, mid], [11, last]]) {
    const head = /op (\d+) \/ (\d+)/.exec(positionText(at, 11, e, 2));
    const detail = /Step (\d+), in operation (\d+) of (\d+)/.exec(stepDetail(at, e, 2));
    assert.deepEqual([detail[2], detail[3]], [head[1], head[2]]);
    assert.equal(Number(detail[1]), at);
  }
});

test('kmallocRequest: the requested size after the tracks and the kmalloc red zone past it', async () => {
  const { kmallocRequest } = await import('../../web/js/model.js');
  // a 32-byte kmalloc cache with SLAB_STORE_USER and SLAB_RED_ZONE: free
  // pointer outside (offset 40 >= inuse 40), tracks at 48, orig_size at 112
  const cache = { flags: ['SLAB_KMALLOC', 'SLAB_STORE_USER', 'SLAB_RED_ZONE'], object_size: 32, inuse: 40, offset: 40 };
  const bytes = new Array(200).fill('5a');
  for (let i = 0; i < 32; i++) bytes[8 + i] = i < 18 ? '6b' : 'cc';
  bytes[8 + 112] = '12'; bytes[8 + 113] = '00'; bytes[8 + 114] = '00'; bytes[8 + 115] = '00';
  const r = kmallocRequest(cache, bytes.join(''), '0xffff888100000000', '0xffff888100000008');
  assert.equal(r.requested, 18);
  assert.deepEqual(r.redzone, new Array(14).fill('cc'));
  assert.equal(kmallocRequest({ ...cache, flags: ['SLAB_KMALLOC'] }, bytes.join(''), '0xffff888100000000', '0xffff888100000008'), null);
  assert.equal(kmallocRequest({ ...cache, flags: ['SLAB_KMALLOC', 'SLAB_STORE_USER'] }, bytes.join(''), '0xffff888100000000', '0xffff888100000008').redzone, null);
});

test('moves: runs between the same two places kept together, in the event\'s order', () => {
  const obj = (id, to) => ({ kind: 'object', id, from: { type: 'slab', slab: '0xffff888100000000' }, to });
  const e = { seq: 5, op: 1, cpu: 0, node: 0, cache: 0, fn: 'alloc_from_new_slab', label: 'whole', stats: {}, report: null,
    moves: [obj('0xffff888100000e00', { type: 'inflight', sheaf: 3 }), obj('0xffff888100000800', { type: 'inflight', sheaf: 3 }),
      obj('0xffff888100000200', { type: 'user', cpu: 0 }), { kind: 'sheaf', id: 3, from: { type: 'inflight' }, to: { type: 'main', cpu: 0 } }] };
  const g = moveGroups(e, { '0xffff888100000200': 'o1' }, { '0xffff888100000200': 'o0' });
  assert.deepEqual(g.map((x) => x.items), [['…00e00', '…00800'], ['o1 (the same object as o0)'], ['#3']]);
  assert.match(g[0].head, /^2 objects: slab .* → sheaf #3 \(in flight\)$/);
  assert.equal(g[2].head, '1 sheaf: the operation in progress → CPU 0\'s main sheaf');
  assert.deepEqual(moveGroups(null), []);
});
