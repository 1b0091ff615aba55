// Unit tests of the race lab's model (web/js/race.js) on a hand-made race
// in the shape docs/events.md gives step events (fixtures/race-handmade.json):
// the schedule's tokens and their reordering, lanes in the order the steps
// ran, the words' values at a position, the lost compare and its counter,
// and the step sentences.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  parseSchedule, scheduleText, moveItem, findRaces, hasRace, raceAt, raceOpOf, withSchedule, coverage,
  raceState, stepWords, wordName, kindShort, ranSchedule, contextName, valueName,
} from '../../web/js/race.js';

const fx = JSON.parse(readFileSync(new URL('./fixtures/race-handmade.json', import.meta.url), 'utf8'));
const other = { seq: 39, op: 4, cpu: 0, node: 0, cache: 0, fn: 'slab_alloc_node', label: 'fastpath', moves: [], stats: {}, report: null };
const after = { ...other, seq: fx.events.at(-1).seq + 1, op: 6 };
const events = [other, ...fx.events, after];

test('a schedule splits into tokens and joins back', () => {
  const t = parseSchedule(' A A  I* A>1 I! 9x ');
  assert.deepEqual(t.map((x) => x.kind), ['step', 'step', 'run', 'migrate', 'arrive', 'bad']);
  assert.equal(t[3].cpu, 1);
  assert.equal(t[2].ctx, 'I');
  assert.equal(scheduleText(t), 'A A I* A>1 I! 9x');
  assert.deepEqual(parseSchedule(''), []);
});

test('moving a chip: the others keep their order, the ends clamp', () => {
  assert.deepEqual(moveItem(['a', 'b', 'c', 'd'], 2, 0), ['c', 'a', 'b', 'd']);
  assert.deepEqual(moveItem(['a', 'b', 'c', 'd'], 0, 9), ['b', 'c', 'd', 'a']);
  assert.deepEqual(moveItem(['a', 'b'], 5, 0), ['a', 'b']);
  const src = ['a', 'b'];
  moveItem(src, 0, 1);
  assert.deepEqual(src, ['a', 'b'], 'the list given is left alone');
});

test('races are the step events grouped by op, contexts in order of first step', () => {
  assert.ok(hasRace(events));
  assert.ok(!hasRace([other, after]));
  const races = findRaces(events);
  assert.equal(races.length, 1);
  assert.equal(races[0].op, 5);
  assert.deepEqual(races[0].ctxs, ['A', 'I']);
  assert.equal(races[0].steps.length, fx.events.length);
  // at the start, inside, and after the race: the same race is shown
  for (const at of [0, fx.events[3].seq, after.seq + 1]) assert.equal(raceAt(races, at)?.index, 0);
  assert.equal(raceAt([], 3), null);
});

test('the race op of a scenario, and a copy with another schedule', () => {
  const sc = { format: 1, ops: [{ op: 'alloc' }, { op: 'repeat', count: 2, ops: [{ op: 'race', schedule: 'x' }] }, { ...fx.race }] };
  assert.equal(raceOpOf(sc, 0).schedule, 'x');
  assert.equal(raceOpOf(sc, 1).schedule, 'A A I* A*');
  assert.equal(raceOpOf(sc, 2), null);
  const c = withSchedule(sc, 1, 'I* A*');
  assert.equal(raceOpOf(c, 1).schedule, 'I* A*');
  assert.equal(raceOpOf(sc, 1).schedule, 'A A I* A*', 'the scenario given is left alone');
  assert.throws(() => withSchedule(sc, 4, 'A'), /no race number 5/);
});

test('the schedule\'s tokens cover the steps that ran; a schedule of another run does not', () => {
  const steps = findRaces(events)[0].steps;
  const c = coverage(parseSchedule(fx.race.schedule), steps);
  assert.deepEqual(c?.counts, [1, 1, 6, 6]);
  assert.deepEqual(c?.rest, []);
  const short = coverage(parseSchedule('A A'), steps);
  assert.deepEqual(short?.counts, [1, 1]);
  assert.deepEqual(short?.rest, [{ ctx: 'I', count: 6 }, { ctx: 'A', count: 6 }]);
  assert.equal(coverage(parseSchedule('I* A*'), steps), null);
});

test('lanes: one per context, cells in the order the steps ran, the current one marked', () => {
  const race = findRaces(events)[0];
  const fail = fx.events.find((e) => e.step.kind === 'cmpxchg_fail');
  const st = raceState(race, fx.race, fail.seq + 1);
  assert.deepEqual(st.lanes.map((l) => l.id), ['A', 'I']);
  assert.equal(st.lanes[0].def?.kind, 'task');
  assert.equal(st.lanes[1].cpu, 0);
  const cols = st.lanes.flatMap((l) => l.cells.map((c) => c.col)).sort((a, b) => a - b);
  assert.deepEqual(cols, [...Array(fx.events.length).keys()], 'every step in one lane, each column once');
  const cur = st.lanes[0].cells.find((c) => c.when === 'current');
  assert.equal(cur?.kind, 'cmpxchg_fail');
  assert.ok(cur?.lost);
  assert.equal(st.lanes[1].cells.filter((c) => c.when === 'done').length, 6);
  assert.ok(st.lanes[1].done && !st.lanes[0].done);
  assert.equal(st.current?.seq, fail.seq);
});

test('words: values as of the position, lit by the current step', () => {
  const race = findRaces(events)[0];
  const first = fx.events[0].seq;
  const before = raceState(race, fx.race, first);
  assert.ok(!before.started);
  const tid0 = before.words.find((w) => w.word === 'c->tid');
  assert.equal(tid0.value, '0x0', 'before the race: the value the first step saw');
  assert.equal(tid0.lit, null);
  assert.equal(before.words[0].word, 'c->tid', 'words in the lab\'s order');

  const cas = fx.events.find((e) => e.step.ctx === 'I' && e.step.kind === 'cmpxchg');
  const st = raceState(race, fx.race, cas.seq + 1);
  const fl = st.words.find((w) => w.word === 'c->freelist');
  assert.equal(fl.lit, 'write');
  assert.equal(fl.by, 'I');
  assert.equal(fl.old, '0xffff888100000000');
  assert.equal(fl.value, '0xffff888100000200');
  // what A read is now stale
  const a = st.lanes[0];
  assert.ok(a.held.some((h) => h.word === 'c->freelist' && h.stale));
  assert.ok(a.held.some((h) => h.word === 'c->tid' && h.stale));

  const fail = fx.events.find((e) => e.step.kind === 'cmpxchg_fail');
  const lost = raceState(race, fx.race, fail.seq + 1);
  assert.equal(lost.words.find((w) => w.word === 'c->tid').lit, 'fail');
  assert.equal(lost.counters.cmpxchg_double_cpu_fail, 1);
  assert.deepEqual(lost.bumped, ['cmpxchg_double_cpu_fail']);
  assert.equal(lost.lost.length, 1);
  assert.equal(raceState(race, fx.race, fail.seq).counters.cmpxchg_double_cpu_fail, 0);
  assert.ok(lost.lanes[0].held.some((h) => h.word === 'c->tid' && h.value === '0x0' && h.stale), 'at its failed compare A still holds what it read');

  const end = raceState(race, fx.race, after.seq + 1);
  assert.ok(end.finished && !end.current);
  assert.equal(end.words.find((w) => w.word === 'c->tid').value, '0x200');
});

test('a race the scenario does not describe: contexts from the steps', () => {
  const st = raceState(findRaces(events)[0], null, 0);
  assert.deepEqual(st.lanes.map((l) => [l.id, l.def]), [['A', null], ['I', null]]);
});

test('step sentences: the lost compare says what changed since the context read it', () => {
  const fail = fx.events.find((e) => e.step.kind === 'cmpxchg_fail');
  const names = { '0xffff888100000000': 'x0', '0xffff888100000200': 'x1' };
  const s = stepWords(fail, { prior: fx.events, names });
  assert.match(s, /^A, step 3, in slab_alloc_node: the cmpxchg fails: /, 'steps are numbered from 0, as the engine\'s messages do');
  assert.match(s, /c->freelist \(CPU 0\) is x1, not the x0 it read/);
  assert.match(s, /c->tid \(CPU 0\) is 0x100, not the 0x0 it read/);
  assert.match(s, /cmpxchg_double_cpu_fail \+1/);
  const cas = fx.events.find((e) => e.step.ctx === 'I' && e.step.kind === 'cmpxchg');
  assert.match(stepWords(cas, { names }), /writes c->freelist \(CPU 0\) x0 → x1, c->tid \(CPU 0\) 0x0 → 0x100/);
  const next = fx.events.find((e) => e.step.kind === 'read_next');
  assert.match(stepWords(next), /object->next of …00000 = …00200/);
  for (const e of fx.events) assert.ok(!/undefined|NaN/.test(stepWords(e, { prior: fx.events })), stepWords(e));
  assert.equal(wordName({ word: 'slab->freelist', slab: '0xffff888100000000' }, { slabName: () => 'S0' }), 'slab->freelist of S0');
  assert.equal(kindShort('cmpxchg_fail'), 'cmpxchg ✗');
  assert.equal(kindShort('read_tid'), 'read tid');
});

test('the schedule of a run, read back from its steps', () => {
  const steps = findRaces(events)[0].steps;
  assert.equal(ranSchedule(steps), 'A A I* A*');
  assert.deepEqual(coverage(parseSchedule(ranSchedule(steps)), steps)?.rest, []);
  const mig = [{ ...steps[0] }, { ...steps[1], cpu: 1, step: { ...steps[1].step, kind: 'migrate' } }, steps[2]];
  assert.equal(ranSchedule(mig), 'A A>1 I*');
  assert.equal(ranSchedule([...mig, steps[0]]), 'A A>1 I* A*');
});

test('contexts are named by what the scenario says of them', () => {
  assert.equal(contextName('A', { id: 'A', kind: 'task', cpu: 0 }), 'A (task on CPU 0)');
  assert.equal(contextName('I', { id: 'I', kind: 'irq', cpu: 1 }), 'I (interrupt on CPU 1)');
  assert.equal(contextName('B', { id: 'B', cpu: 1 }), 'B (CPU 1)');
  assert.equal(contextName('B', undefined), 'B');
});

test('values: a slab by its name, a tid as it is, an object by the scenario\'s name', () => {
  const slabName = (a) => (a === '0xffff888100000000' ? 'S0' : null);
  const names = { '0xffff888100000000': 'first', '0xffff888100000040': 'y' };
  assert.equal(valueName({ word: 'c->slab' }, '0xffff888100000000', { names, slabName }), 'S0');
  assert.equal(valueName({ word: 'c->freelist' }, '0xffff888100000040', { names, slabName }), 'y');
  assert.equal(valueName({ word: 'c->tid' }, '0x4', { names }), '0x4');
  assert.equal(valueName({ word: 'pcs->lock' }, 'held', { names }), 'held');
  assert.equal(valueName({ word: 'object->next' }, '0xffff8881000000c0', { names }), '…000c0');
  assert.equal(valueName({ word: 'slab->freelist' }, '0x0', { names }), 'NULL');
  assert.equal(valueName({ word: 'pcs->lock' }, '0x0', { names }), '0x0');
});

test('a step run whole: the events it ran belong to it, and it stays current over them', () => {
  const [a0, a1, ...rest] = fx.events;
  const slow = { ...other, seq: a1.seq + 1, op: a1.op, fn: '___slab_alloc', label: 'new_slab', ctx: 'A' };
  const shift = (e) => ({ ...e, seq: e.seq + 1 });
  const evs = [a0, a1, slow, ...rest.map(shift), { ...after, seq: after.seq + 1 }];
  const race = findRaces(evs)[0];
  assert.equal(race.steps.length, fx.events.length, 'not a step');
  assert.equal(race.follows.get(slow.seq), a1.seq);
  const st = raceState(race, fx.race, slow.seq + 1);
  assert.equal(st.current?.seq, a1.seq);
  const cell = st.lanes[0].cells.find((c) => c.e.seq === a1.seq);
  assert.equal(cell?.when, 'current');
  assert.equal(cell?.follows, 1);
  assert.equal(raceState(race, fx.race, slow.seq + 2).lanes[0].cells.find((c) => c.e.seq === a1.seq)?.when, 'done');
});

test('a migrated task\'s compare: the word on its new CPU against what it read on the old one', () => {
  const read = { seq: 1, op: 1, cpu: 0, fn: 'f', stats: {}, step: { ctx: 'A', index: 0, kind: 'read_tid', reads: [{ word: 'c->tid', cpu: 0, value: '0x2' }] } };
  const fail = { seq: 3, op: 1, cpu: 1, fn: 'f', stats: {}, step: { ctx: 'A', index: 2, kind: 'cmpxchg_fail', reads: [{ word: 'c->tid', cpu: 1, value: '0x3' }] } };
  assert.match(stepWords(fail, { prior: [read, fail] }), /c->tid \(CPU 1\) is 0x3, but it read 0x2 on CPU 0; it starts again/);
});

test('a lock found taken: who holds it', () => {
  const lock = { seq: 1, op: 1, cpu: 0, fn: 'alloc_from_pcs', stats: {}, step: { ctx: 'A', index: 0, kind: 'lock', reads: [], writes: [{ word: 'pcs->lock', cpu: 0, old: '0x0', new: '0x1' }] } };
  const fail = { seq: 3, op: 1, cpu: 0, fn: 'alloc_from_pcs', stats: {}, step: { ctx: 'I', index: 1, kind: 'trylock_fail', reads: [{ word: 'pcs->lock', cpu: 0, value: '0x1' }], writes: [] } };
  assert.equal(stepWords(fail, { prior: [lock] }), 'I, step 1, in alloc_from_pcs: the trylock fails: pcs->lock (CPU 0) is held by A (taken at its step 0)');
  const spin = { ...fail, step: { ...fail.step, kind: 'spin', reads: [{ word: 'barn->lock', node: 0, value: '0x1' }] } };
  assert.match(stepWords(spin, { prior: [lock] }), /spins: barn->lock \(node 0\) = 0x1/);
});

test('a lock found held lights the lock as held, not as a failed compare', () => {
  const lock = { seq: 1, op: 1, cpu: 0, fn: 'alloc_from_pcs', stats: {}, step: { ctx: 'A', index: 0, kind: 'lock', reads: [], writes: [{ word: 'pcs->lock', cpu: 0, old: '0x0', new: '0x1' }] } };
  const fail = { seq: 2, op: 1, cpu: 0, fn: 'alloc_from_pcs', stats: {}, step: { ctx: 'I', index: 1, kind: 'trylock_fail', reads: [{ word: 'pcs->lock', cpu: 0, value: '0x1' }], writes: [] } };
  const race = findRaces([lock, fail])[0];
  const st = raceState(race, null, 3);
  assert.equal(st.words[0].lit, 'held');
  assert.equal(st.words[0].by, 'I');
  assert.deepEqual(st.lost.map((e) => e.step.kind), ['trylock_fail']);
  assert.equal(raceState(race, null, 2).words[0].lit, 'write');
});

test('the shipped races\' golden streams: every event narrated, the lanes and the lost steps as the scenarios say', async () => {
  const { narrate, hasSentence } = await import('../../web/js/format.js');
  const { setTexts } = await import('../../web/js/texts.js');
  setTexts(JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url), 'utf8')));
  const stream = (name) => readFileSync(new URL(`../golden/${name}.jsonl`, import.meta.url), 'utf8')
    .split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.fn);
  const lostIn = { 'race-irq-alloc': ['cmpxchg_fail'], 'race-migrate': ['cmpxchg_fail'], 'race-remote-free': ['cmpxchg_fail'],
    'race-sheaves-trylock': ['trylock_fail'], 'race-barn-lock': ['spin'], 'race-no-tid': [] };
  for (const [name, lost] of Object.entries(lostIn)) {
    const evs = stream(name);
    const races = findRaces(evs);
    assert.equal(races.length, 1, name);
    const sc = JSON.parse(readFileSync(new URL(`../../scenarios/${name}.json`, import.meta.url), 'utf8'));
    const def = raceOpOf(sc, 0);
    assert.deepEqual(races[0].ctxs.slice().sort(), def.contexts.map((c) => c.id).sort(), name);
    assert.deepEqual(coverage(parseSchedule(def.schedule), races[0].steps)?.counts.length, parseSchedule(def.schedule).length, `${name}: the schedule covers the steps`);
    const end = raceState(races[0], def, evs.at(-1).seq + 1);
    assert.deepEqual(end.lost.map((e) => e.step.kind), lost, name);
    for (const e of evs) {
      const s = narrate(e, { prior: evs });
      assert.ok(!/undefined|NaN|\[object/.test(s), `${name}: ${s}`);
      if (e.step) assert.match(s, new RegExp(`^CPU \\d, ${e.step.ctx}, step ${e.step.index}, in ${e.fn}: `), s);
      else if (e.fn === 'validate_slab_cache') assert.ok(hasSentence(e.fn, e.label));
    }
  }
  const noTid = stream('race-no-tid');
  const lostUpdate = noTid.find((e) => e.step && e.report);
  assert.ok(lostUpdate, 'NO_TID: a step reports the lost update');
  assert.match(narrate(lostUpdate, { prior: noTid }), /^CPU 0, A, step \d+, in __slab_alloc_node: the cmpxchg succeeds.*NO_TID \(not a kernel\): A's cmpxchg compared c->freelist .* lost/);
});

test('the code panel points at the step of each race step whose function it outlines', async () => {
  const { outlineFor } = await import('../../web/js/outline.js');
  const { setTexts } = await import('../../web/js/texts.js');
  setTexts(JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url), 'utf8')));
  let n = 0;
  for (const name of ['race-irq-alloc', 'race-migrate', 'race-remote-free', 'race-sheaves-trylock', 'race-barn-lock', 'race-no-tid']) {
    const evs = readFileSync(new URL(`../golden/${name}.jsonl`, import.meta.url), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const e of evs.filter((x) => x.step)) {
      const o = outlineFor(e.fn, e.label);
      if (!o) continue; // irq_enter, set_task_cpu: no outline
      assert.ok(o.step >= 0 && o.step < o.steps.length, `${name}: ${e.fn}/${e.label} has no step in the outline`);
      n++;
    }
  }
  assert.ok(n >= 40, `${n} steps outlined`);
  assert.match(outlineFor('__slab_alloc_node', 'cmpxchg_fail').steps[4], /cmpxchg_double_cpu_fail/);
});
