// Unit tests of web/js/model.js and web/js/layout.js: object states from a
// snapshot, the scenes, hit testing and animation anchors.  The fixtures are
// answers of GET /api/sessions/ID/state and /events for the shipped
// scenarios (engine 0.1.0), saved as they came.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cacheView, describeObject, objectAddr, objectIndex, allocatedObjects, perCpuStats, S } from '../../web/js/model.js';
import { topoScene, gridScene, cellCenter, hitGrid, planMoves, anchor, freelistPath, spreadMarkers, callerHands } from '../../web/js/layout.js';
import { setTexts } from '../../web/js/texts.js';

setTexts(JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url))));

const fixture = (name) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));

test('cacheView: every object of the default scenario at step 20 is classified', () => {
  const { state } = fixture('default-at20.json');
  const v = cacheView(state, 0);
  assert.equal(v.slabs.length, 1);
  const slab = v.slabs[0];
  const codes = v.codes.get(slab.addr);
  assert.equal(codes.length, 64);
  // The state: 4 free on the slab's freelist, 59 in CPU 0's main sheaf, 1 allocated ("first").
  assert.equal(v.counts[S.free], slab.freelist.length);
  const main = state.sheaves.find((s) => s.place.type === 'main' && s.place.cpu === 0);
  assert.equal(v.counts[S.main], main.size);
  assert.equal(v.counts[S.user], 64 - slab.freelist.length - main.size);
  const top = main.objects[main.objects.length - 1];
  const d = describeObject(v, top);
  assert.equal(d.state, 'main');
  assert.equal(d.slot, main.size - 1);
  assert.equal(d.slab, slab.addr);
  assert.equal(objectAddr(v.cache, slab, d.index), top);
  assert.equal(describeObject(v, slab.freelist[0]).freelistPos, 0);
  assert.equal(allocatedObjects(v).length, v.counts[S.user]);
});

test('objectIndex rejects addresses between objects and past the end', () => {
  const { state } = fixture('default-at20.json');
  const v = cacheView(state, 0);
  const slab = v.slabs[0];
  assert.equal(objectIndex(v.cache, slab, slab.addr), 0);
  assert.equal(objectIndex(v.cache, slab, '0xffff888100000008'), -1);
  assert.equal(objectIndex(v.cache, slab, '0xffff888100001000'), -1);
  assert.equal(v.slabOf('0xffff888100000fff').addr, slab.addr);
  assert.equal(v.slabOf('0xffff888100001000'), null);
});

test('objects in flight: mid-refill objects sit in the in-flight sheaf', () => {
  const { state } = fixture('default-at6.json');
  const v = cacheView(state, 0);
  assert.equal(v.counts[S.inflight], 60);
  const topo = topoScene(state, v);
  assert.equal(topo.hold.flight.sheaves.length, 1);
  assert.equal(topo.hold.flight.sheaves[0].size, 60);
  // the in-flight box counts what the legend counts: the sheaf's objects too
  assert.equal(topo.hold.flight.objects, v.counts[S.inflight]);
  assert.equal(topo.hold.flight.loose, 0);
  assert.equal(topo.hold.rcu.objects, v.counts[S.rcu_pending]);
});

test('objects in flight: loose ones and those in a sheaf add up, as the legend counts them', () => {
  const { state } = fixture('default-at6.json');
  const sheaf = state.sheaves.find((s) => s.place.type === 'inflight');
  // take one object out of the sheaf: it is in flight on its own now
  const loose = sheaf.objects[sheaf.objects.length - 1];
  const st = { ...state, inflight: [loose],
    sheaves: state.sheaves.map((s) => (s === sheaf ? { ...s, size: s.size - 1, objects: s.objects.slice(0, -1) } : s)) };
  const v = cacheView(st, 0);
  const topo = topoScene(st, v);
  assert.equal(v.counts[S.inflight], 60);
  assert.equal(topo.hold.flight.objects, 60);
  assert.equal(topo.hold.flight.loose, 1);
});

test('topoScene: CPUs, stacks, barns and zones are laid out without overlap', () => {
  const { state } = fixture('free-storm-at240.json');
  const v = cacheView(state, 0);
  const t = topoScene(state, v, { width: 1200 });
  assert.equal(t.cpus.length, state.nr_cpus);
  assert.equal(t.nodes.length, state.nr_nodes);
  assert.equal(t.nodes[0].barn.full.length, 10, 'ten full sheaves in the barn');
  for (const c of t.cpus) for (const s of c.stacks) {
    assert.ok(s.x >= c.x && s.x + s.w <= c.x + c.w, 'stack inside its CPU box');
  }
  const [a, b] = t.cpus;
  assert.ok(a.x + a.w <= b.x || a.y + a.h <= b.y, 'CPU boxes do not overlap');
  assert.ok(t.h > 0 && t.w === 1200);
  for (const s of t.sheafById.values()) assert.ok(s.w > 0 && s.h > 0);
  assert.equal(t.nodes[0].zone.orders.length, 11);
});

test('gridScene: cell size shrinks to fit, hit testing finds the object', () => {
  const { state } = fixture('free-storm-at240.json');
  const v = cacheView(state, 0);
  const big = gridScene(v, { width: 900, maxHeight: 2000 });
  const small = gridScene(v, { width: 900, maxHeight: 60 });
  assert.ok(big.cell > small.cell);
  assert.equal(big.slabs.length, v.slabs.length);
  for (const g of [big, small]) {
    const s = v.slabs[0];
    const addr = objectAddr(v.cache, s, 3);
    const p = cellCenter(g, v, addr);
    const hit = hitGrid(g, v, p.x, p.y);
    assert.deepEqual(hit, { kind: 'object', addr, slab: s.addr, index: 3 });
  }
  const r = big.slabs[0];
  assert.deepEqual(hitGrid(big, v, r.x + 2, r.y + 2), { kind: 'slab', slab: r.addr });
  assert.equal(hitGrid(big, v, -5, -5), null);
});

test('gridScene: collapsing full slabs and closed groups', () => {
  const { state } = fixture('remote-free-end.json');
  const v = cacheView(state, 0);
  const open = gridScene(v, { width: 900 });
  const key = open.groups[0].key;
  const shut = gridScene(v, { width: 900, collapsed: new Set([key]) });
  assert.ok(shut.slabs.filter((s) => s.group === key).every((s) => s.collapsed));
  assert.ok(shut.groups[0].closed);
  const hit = hitGrid(shut, v, shut.slabs[0].x + 1, shut.slabs[0].y + 1);
  assert.equal(hit.kind, 'slab');
  assert.equal(hitGrid(open, v, 5, open.groups[0].y + 5).kind, 'group');
});

test('planMoves: a refill\'s objects travel from slab cells into the in-flight sheaf', () => {
  const before = fixture('default-at5.json');
  const after = fixture('default-at6.json');
  const sc = (st) => {
    const v = cacheView(st.state, 0);
    return { view: v, topo: topoScene(st.state, v), grid: gridScene(v, { width: 900 }) };
  };
  const a = sc(before), b = sc(after);
  const tracks = planMoves(after.event, a, b);
  assert.equal(tracks.length, 60);
  // The slab is in flight with its objects: the start is a cell in the grid after (the slab
  // is new, so before it had no cells and the start falls back to nothing drawn).
  for (const t of tracks) {
    assert.ok(t.b && t.b.scene === 'topo', 'ends in the in-flight sheaf');
  }
  const few = planMoves(after.event, a, b, 10);
  assert.ok(few.length <= 10);
  assert.equal(planMoves(null, a, b).length, 0);
});

test('anchors: user, pages and sheaves', () => {
  const { state } = fixture('default-at20.json');
  const v = cacheView(state, 0);
  const sc = { view: v, topo: topoScene(state, v), grid: gridScene(v, {}) };
  const u = anchor(sc, 'object', '0x1', { type: 'user' }, 1);
  const cpu1 = sc.topo.cpus[1].caller;
  assert.ok(u.x >= cpu1.x && u.x <= cpu1.x + cpu1.w);
  assert.equal(anchor(sc, 'slab', '0xdead', { type: 'pages', node: 0 }, 0).scene, 'topo');
  assert.equal(anchor(sc, 'sheaf', 1, { type: 'main', cpu: 0 }, 0).scene, 'topo');
  assert.equal(anchor(sc, 'sheaf', 1, { type: 'none' }, 0), null);
  const slab = v.slabs[0];
  assert.equal(freelistPath(sc.grid, v, slab.addr).length, slab.freelist.length);
});

test('perCpuStats spreads a cache\'s counters per CPU', () => {
  const { state } = fixture('default-at20.json');
  const st = perCpuStats(state.caches[0]);
  assert.equal(st.alloc_fastpath.length, state.nr_cpus);
  assert.equal(st.alloc_fastpath.reduce((a, b) => a + b, 0), state.caches[0].stats.alloc_fastpath);
});

test('a fresh slab in flight: free objects not on a freelist yet are "fresh", not allocated', () => {
  const { state } = fixture('default-at6.json');
  const v = cacheView(state, 0);
  const slab = v.slabs[0];
  // 60 objects handed to the in-flight sheaf, 4 kept by the slab with no freelist built yet.
  assert.equal(slab.freelist.length, 0);
  assert.equal(v.counts[S.fresh], slab.objects - slab.inuse);
  assert.equal(v.counts[S.user], 0);
  const last = objectAddr(v.cache, slab, slab.objects - 1);
  assert.equal(describeObject(v, last).state, 'fresh');
});

/** Do any two placed markers overlap (same row, closer than @gap)? */
function overlaps(r, widths, gap = 2) {
  for (let i = 0; i < r.left.length; i++) {
    for (let j = i + 1; j < r.left.length; j++) {
      if (!r.keep[i] || !r.keep[j] || r.lane[i] !== r.lane[j]) continue;
      if (r.left[i] < r.left[j] + widths[j] + gap - 1e-9 && r.left[j] < r.left[i] + widths[i] + gap - 1e-9) return [i, j];
    }
  }
  return null;
}

test('spreadMarkers: markers far apart stay where their step is, in one row', () => {
  const r = spreadMarkers([10, 100, 200], [18, 18, 18], 300);
  assert.deepEqual(r.left, [1, 91, 191]);
  assert.deepEqual(r.lane, [0, 0, 0]);
  assert.equal(r.lanes, 1);
  assert.deepEqual(r.keep, [true, true, true]);
});

test('spreadMarkers: free-storm\'s barn_put_fail and sheaf_flush one step apart both show, at every width', () => {
  const at = [5, 30, 55, 80, 105, 130, 155, 236, 237, 245, 246], end = 253;
  for (const W of [1400, 1000, 370, 200]) {
    const xs = at.map((a) => (a / end) * W), widths = at.map(() => 18);
    const r = spreadMarkers(xs, widths, W, { maxLanes: 2, overhang: 8 });
    assert.equal(overlaps(r, widths), null, `${W}px`);
    assert.ok(r.keep.every(Boolean), `${W}px: every marker is drawn`);
    assert.ok(r.lanes <= 2);
    for (let i = 0; i < xs.length; i++) {
      assert.ok(r.left[i] >= -8 && r.left[i] + 18 <= W + 8, `${W}px: marker ${i} inside the track`);
      // none moves further than its run needs
      assert.ok(Math.abs(r.left[i] + 9 - xs[i]) <= 40, `${W}px: marker ${i} stays near step ${at[i]}`);
    }
    // 236 and 237: in two rows, or side by side in order
    const a = at.indexOf(236), b = at.indexOf(237);
    assert.ok(r.lane[a] !== r.lane[b] || r.left[a] < r.left[b]);
  }
});

test('spreadMarkers: a run pushed apart is centred on its steps and kept inside the track', () => {
  const one = spreadMarkers([50, 50, 50], [10, 10, 10], 200, { maxLanes: 1, gap: 0 });
  assert.deepEqual(one.left, [35, 45, 55]);
  const edge = spreadMarkers([199, 200], [10, 10], 200, { maxLanes: 1, gap: 0 });
  assert.deepEqual(edge.left, [180, 190]);
  const start = spreadMarkers([0, 1], [10, 10], 200, { maxLanes: 1, gap: 0, overhang: 5 });
  assert.deepEqual(start.left, [-5, 5]);
  // a second row takes what the first has no room for
  const two = spreadMarkers([50, 51, 52], [10, 10, 10], 200, { maxLanes: 2, gap: 0 });
  assert.deepEqual(two.lane, [0, 1, 0]);
  assert.equal(overlaps(two, [10, 10, 10], 0), null);
});

test('spreadMarkers: more markers than the rows hold leaves some out, and the rest do not overlap', () => {
  const n = 300, W = 370;
  const xs = Array.from({ length: n }, (_, i) => (i / n) * W), widths = xs.map(() => 18);
  const r = spreadMarkers(xs, widths, W, { maxLanes: 2, overhang: 8 });
  assert.equal(overlaps(r, widths), null);
  const kept = r.keep.filter(Boolean).length;
  assert.ok(kept > 20 && kept <= 2 * Math.floor((W + 16 + 2) / 20), `${kept} kept`);
  for (let i = 0; i < n; i++) if (r.keep[i]) assert.ok(r.left[i] >= -8 - 1e-9 && r.left[i] + 18 <= W + 8 + 1e-9);
});

test('callerHands: what each CPU\'s caller got and gave back in the operation so far', () => {
  const ev = (cpu, moves) => ({ cpu, moves });
  const to = (id, type, cpu) => ({ kind: 'object', id, from: { type: 'main', cpu }, to: { type } });
  const from = (id, type) => ({ kind: 'object', id, from: { type: 'user' }, to: { type } });
  assert.deepEqual([...callerHands([])], []);
  // "the top object goes to the caller"
  const one = callerHands([ev(0, []), ev(0, [to('0xa', 'user', 0)])]);
  assert.deepEqual(one.get(0), { got: ['0xa'], gave: [] });
  assert.equal(one.has(1), false);
  // a free on CPU 1, and a sheaf move that is no caller's
  const two = callerHands([ev(1, [from('0xb', 'main'), { kind: 'sheaf', id: 3, from: { type: 'main', cpu: 1 }, to: { type: 'user' } }])]);
  assert.deepEqual(two.get(1), { got: [], gave: ['0xb'] });
  // got and given back in one operation: neither
  assert.deepEqual([...callerHands([ev(0, [to('0xc', 'user', 0)]), ev(0, [from('0xc', 'slab')])])], []);
  // a move that names its CPU wins over the event's
  assert.deepEqual(callerHands([ev(0, [{ kind: 'object', id: '0xd', from: { type: 'slab' }, to: { type: 'user', cpu: 1 } }])]).get(1).got, ['0xd']);
});

test('topoScene: the caller pocket holds what the hands say, with the slab of objects of the cache', () => {
  const { state } = fixture('default-at6.json');
  const v = cacheView(state, 0);
  const addr = state.sheaves.find((s) => s.place.type === 'inflight').objects[0];
  const topo = topoScene(state, v, { hands: new Map([[0, { got: [addr], gave: [] }], [1, { got: [], gave: ['0x1'] }]]) });
  assert.deepEqual(topo.cpus[0].caller.got, [{ addr, slab: v.slabOf(addr).addr }]);
  assert.deepEqual(topo.cpus[1].caller.gave, [{ addr: '0x1', slab: null }]);
  assert.deepEqual(topoScene(state, v).cpus[0].caller.got, []);
});
