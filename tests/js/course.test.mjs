// Unit tests of the course's pure helpers: predict mode's questions
// (web/js/predict.js: a question from an event's branch record, its prompt's
// placeholders, why the other arms were not taken, the score kept per
// session, the tally's bars), the lesson markup (web/js/markup.js), the
// slides and exercises (web/js/course.js), and their keys and URLs.
// Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { questionFor, fillPrompt, whyNot, branchAhead, predictStops, branchOf, createScore, scoreText, tallyBars, newVoterId, verdict } from '../../web/js/predict.js';
import { parseMarkup } from '../../web/js/markup.js';
import { slideRun, clampSlide, slideBreakpoint, attemptScenario, judgeAttempt, goalText, createSolved, onward, spotSelector, spotLabel } from '../../web/js/course.js';
import { findTerms, GLOSSARY } from '../../web/js/glossary.js';
import { keyCommand } from '../../web/js/keys.js';
import { readQuery, addressFor } from '../../web/js/urlstate.js';
import { makeBreakpoint } from '../../web/js/state.js';
import { setTexts } from '../../web/js/texts.js';

const TEXTS = JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url)));
setTexts(TEXTS);

/** A storage in memory, as localStorage behaves. */
function memStorage() {
  const m = new Map();
  return { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)), removeItem: (k) => m.delete(k), m };
}

const WORDS = {
  free_main_full: {
    prompt: 'CPU {cpu} frees {obj} into {cache} on node {node}, and its main sheaf is full. What happens?',
    arms: {
      swap_spare: { text: 'main and the empty spare swap', when: 'the spare sheaf of CPU {cpu} is empty.' },
      barn_put: { text: 'the full main goes to the barn', when: 'the spare is full and the barn has room' },
    },
  },
};
const EVENT = {
  seq: 41, op: 7, cpu: 1, node: 0, cache: 2, fn: 'barn_put', label: 'full', report: null, stats: {},
  moves: [{ kind: 'object', id: '0xffff888100000ec0', from: { type: 'user' }, to: { type: 'main', cpu: 1, slot: 0, sheaf: 4 } }],
  branches: [{ point: 'free_main_full', arms: ['swap_spare', 'barn_put', 'barn_put_fail'], taken: 'barn_put' }],
};

test('a question is the branch record: its arms are the choices, its taken arm the answer', () => {
  const q = questionFor(EVENT, WORDS, { cacheName: 'kmalloc-64', names: { '0xffff888100000ec0': 'o7' } });
  assert.equal(q.at, 41);
  assert.equal(q.point, 'free_main_full');
  assert.equal(q.taken, 'barn_put');
  assert.deepEqual(q.choices.map((c) => c.arm), ['swap_spare', 'barn_put', 'barn_put_fail']);
  assert.equal(q.prompt, 'CPU 1 frees o7 into kmalloc-64 on node 0, and its main sheaf is full. What happens?');
  assert.equal(q.choices[0].text, 'main and the empty spare swap');
  assert.equal(q.choices[0].when, 'the spare sheaf of CPU 1 is empty.', 'an arm\'s words have placeholders too');
  // an arm without words falls back to its name, and so does a point
  assert.equal(q.choices[2].text, 'barn put fail');
  assert.equal(q.choices[2].when, '');
  const bare = questionFor({ ...EVENT, branches: [{ point: 'new_point', arms: ['a_b', 'c'], taken: 'c' }] }, WORDS);
  assert.equal(bare.prompt, 'What happens next at new point?');
  assert.deepEqual(bare.choices.map((c) => c.text), ['a b', 'c']);
  assert.equal(questionFor({ ...EVENT, branches: undefined }, WORDS), null);
  assert.equal(questionFor({ ...EVENT, branches: [] }, WORDS), null);
  assert.equal(branchOf(null), null);
});

test('the prompt\'s placeholders: an object without a scenario name is its short address', () => {
  assert.equal(fillPrompt('CPU {cpu} frees {obj} ({cache})', EVENT, { cacheName: 'demo' }), 'CPU 1 frees …00ec0 (demo)');
  assert.equal(fillPrompt('on CPU {cpu}', { ...EVENT, cpu: -1 }), 'on CPU ?');
  assert.equal(fillPrompt('{obj}', { ...EVENT, moves: [] }), 'the object');
});

test('why an arm was not taken comes from its "when"', () => {
  assert.equal(whyNot({ arm: 'swap_spare', text: 'x', when: 'the spare sheaf is empty.' }), 'It happens when the spare sheaf is empty; here it did not.');
  assert.equal(whyNot({ arm: 'x', text: 'x', when: '' }), 'Here the kernel did not take it.');
});

test('branchAhead finds the first event with a record not yet passed', () => {
  const events = new Map([[0, { seq: 0 }], [1, { seq: 1, branches: [] }], [2, EVENT], [3, { seq: 3 }], [4, EVENT]]);
  assert.equal(branchAhead(events, 0, 5, new Set()), 2);
  assert.equal(branchAhead(events, 0, 2, new Set()), null, 'the end is excluded');
  assert.equal(branchAhead(events, 0, 5, new Set([2])), 4);
  assert.equal(branchAhead(events, 3, 4, new Set()), null);
});

test('predict mode does not stop on its own at points marked "often" (every free, kfree_rcu, page allocation)', () => {
  const point = EVENT.branches[0].point;
  const events = new Map([[0, { seq: 0 }], [1, EVENT], [2, { ...EVENT, seq: 2, branches: [{ ...EVENT.branches[0], point: 'other' }] }]]);
  assert.equal(predictStops(EVENT, {}), true);
  assert.equal(predictStops(EVENT, { [point]: { often: true } }), false);
  assert.equal(predictStops({ seq: 3 }, {}), false);
  assert.equal(branchAhead(events, 0, 3, new Set(), { [point]: { often: true } }), 2);
  assert.equal(branchAhead(events, 0, 3, new Set(), {}), 1);
});

test('the score counts each question of a session once and is kept in storage', () => {
  const st = memStorage();
  const s = createScore(st);
  assert.deepEqual(s.get('a'), { right: 0, asked: 0 });
  assert.equal(s.record('a', 12, false), true);
  assert.equal(s.record('a', 30, true), true);
  assert.equal(s.record('a', 30, false), false, 'answered before: not counted again');
  assert.equal(s.record('b', 12, true), true);
  assert.deepEqual(s.get('a'), { right: 1, asked: 2 });
  assert.equal(s.answered('a', 30), true);
  assert.equal(s.answered('a', 31), false);
  const again = createScore(st);
  assert.deepEqual(again.get('a'), { right: 1, asked: 2 });
  assert.deepEqual(again.get('b'), { right: 1, asked: 1 });
  assert.equal(scoreText(again.get('a')), '1/2 right');
  again.reset('a');
  assert.deepEqual(createScore(st).get('a'), { right: 0, asked: 0 });
  st.setItem('slublab.score', 'not json');
  assert.deepEqual(createScore(st).get('a'), { right: 0, asked: 0 });
  assert.deepEqual(createScore(null).get('a'), { right: 0, asked: 0 });
});

test('the tally\'s bars follow the question\'s choices', () => {
  const q = questionFor(EVENT, WORDS);
  const bars = tallyBars(q, { at: 41, counts: { barn_put: 3, swap_spare: 1, stray: 5 }, total: 4 });
  assert.deepEqual(bars.map((b) => [b.arm, b.n, b.frac]), [['swap_spare', 1, 0.25], ['barn_put', 3, 0.75], ['barn_put_fail', 0, 0]]);
  assert.deepEqual(tallyBars(q, null).map((b) => b.n), [0, 0, 0]);
  const ids = new Set(Array.from({ length: 50 }, () => newVoterId()));
  assert.equal(ids.size, 50);
  for (const id of ids) assert.match(id, /^[0-9a-f]{16}$/);
});

test('every question point in texts.json has a prompt and words for each arm', () => {
  assert.ok(Object.keys(TEXTS.questions ?? {}).length >= 12, 'the questions\' words are there');
  for (const [point, q] of Object.entries(TEXTS.questions ?? {})) {
    assert.equal(typeof q.prompt, 'string', point);
    assert.doesNotMatch(q.prompt, /\{(?!(cpu|node|cache|obj)\})[^}]*\}/, `${point}: unknown placeholder`);
    for (const [arm, a] of Object.entries(q.arms ?? {})) {
      assert.ok(a.text && a.when, `${point}/${arm}`);
      assert.doesNotMatch(a.text + a.when, /\{(?!(cpu|node|cache|obj)\})[^}]*\}/, `${point}/${arm}: unknown placeholder`);
    }
  }
});

test('lesson markup: paragraphs, `code` and **bold**, and nothing is HTML', () => {
  assert.deepEqual(parseMarkup('Each CPU keeps a **main** sheaf.\n\nStep and watch `main` fill.'), [
    [{ kind: 'text', text: 'Each CPU keeps a ' }, { kind: 'bold', text: 'main' }, { kind: 'text', text: ' sheaf.' }],
    [{ kind: 'text', text: 'Step and watch ' }, { kind: 'code', text: 'main' }, { kind: 'text', text: ' fill.' }],
  ]);
  assert.deepEqual(parseMarkup('<img src=x onerror=alert(1)>'), [[{ kind: 'text', text: '<img src=x onerror=alert(1)>' }]]);
  assert.deepEqual(parseMarkup('a `b` c **d `e`** `**f**`'), [[{ kind: 'text', text: 'a ' }, { kind: 'code', text: 'b' },
    { kind: 'text', text: ' c ' }, { kind: 'bold', text: 'd `e`' }, { kind: 'text', text: ' ' }, { kind: 'code', text: '**f**' }]]);
  assert.deepEqual(parseMarkup('left `open and **open'), [[{ kind: 'text', text: 'left `open and **open' }]]);
  assert.deepEqual(parseMarkup('one\nline\n\n\n\ntwo  \n \nthree'), [[{ kind: 'text', text: 'one line' }], [{ kind: 'text', text: 'two' }], [{ kind: 'text', text: 'three' }]]);
  assert.deepEqual(parseMarkup(''), []);
});

test('a slide runs the scenario of the last slide that names one', () => {
  const lesson = { slides: [{ scenario: 'a', at: 1 }, { at: 5 }, { scenario: 'b', kernel: '6.12', at: 0 }, { at: 3 }] };
  assert.equal(slideRun(lesson, 1).scenario, 'a');
  assert.equal(slideRun(lesson, 2).key, slideRun(lesson, 1).key, 'one session for both');
  assert.equal(slideRun(lesson, 4).scenario, 'b');
  assert.equal(slideRun(lesson, 4).kernel, '6.12');
  assert.notEqual(slideRun(lesson, 3).key, slideRun(lesson, 1).key);
  assert.notEqual(slideRun({ slides: [{ scenario: 'a' }, { scenario: 'a', variants: { X: true } }] }, 2).key,
    slideRun({ slides: [{ scenario: 'a' }] }, 1).key, 'variants make another session');
  assert.equal(slideRun({ slides: [{ at: 1 }] }, 1), null);
  assert.equal(clampSlide(lesson, 0), 1);
  assert.equal(clampSlide(lesson, 9), 4);
  assert.equal(clampSlide(lesson, 'x'), 1);
});

test('a slide\'s breakpoints are those the Breakpoints panel makes', () => {
  assert.deepEqual(slideBreakpoint('barn_put_fail'), { kind: 'notable', name: 'barn_put_fail' });
  assert.deepEqual(slideBreakpoint('counter:sheaf_flush'), { kind: 'counter', name: 'sheaf_flush' });
  assert.deepEqual(slideBreakpoint('fn:__slab_free/discard'), { kind: 'fn', name: '__slab_free', label: 'discard' });
  assert.deepEqual(slideBreakpoint('fn:new_slab'), { kind: 'fn', name: 'new_slab', label: undefined });
  for (const t of ['new_slab', 'discard', 'barn_put_fail', 'sheaf_flush', 'grace_period', 'cpu_partial_drain', 'counter:alloc_slab', 'fn:__slab_free/discard']) {
    assert.ok(makeBreakpoint(slideBreakpoint(t)).key, t);
  }
});

const EX = { id: 'x', max_ops: 3, preset: { name: 'p', caches: [{ name: 'demo', size: 64 }], ops: [{ op: 'alloc', cache: 'demo', as: 'a' }], expect: [{ at: 'end', metric: 'm', op: '==', value: 9 }] },
  goal: [{ metric: 'barn_put_fail', op: '>=', value: 1 }, { metric: 'alloc_slab', op: '==', value: 2 }] };

test('an exercise\'s attempt is the preset with the student\'s operations and the goal at the end', () => {
  const ops = [{ op: 'free', cache: 'demo', obj: 'a' }];
  const sc = attemptScenario(EX, ops);
  assert.deepEqual(sc.ops, ops);
  assert.deepEqual(sc.caches, EX.preset.caches);
  assert.deepEqual(sc.expect, [{ metric: 'barn_put_fail', op: '>=', value: 1, at: 'end' }, { metric: 'alloc_slab', op: '==', value: 2, at: 'end' }]);
  assert.equal(EX.preset.expect.length, 1, 'the preset is left as it was');
});

test('an attempt is judged by the server\'s expects and the operations it added', () => {
  const ok = [{ at: 'end', metric: 'barn_put_fail', op: '>=', value: 1, ok: true, seen: 2, message: null },
    { at: 'end', metric: 'alloc_slab', op: '==', value: 2, ok: true, seen: 2, message: null }];
  let j = judgeAttempt(EX, { ops: 12, expects: ok }, 10);
  assert.deepEqual([j.met, j.used, j.within, j.solved], [true, 2, true, true]);
  j = judgeAttempt(EX, { ops: 14, expects: ok }, 10);
  assert.deepEqual([j.met, j.used, j.within, j.solved], [true, 4, false, false]);
  j = judgeAttempt(EX, { ops: 11, expects: [ok[0], { ...ok[1], ok: false, seen: 1, message: 'alloc_slab is 1' }] }, 10);
  assert.deepEqual([j.met, j.within, j.solved], [false, true, false]);
  assert.equal(goalText(j.goals[1]), 'alloc_slab == 2: not met (seen 1): alloc_slab is 1');
  assert.equal(goalText(j.goals[0]), 'barn_put_fail >= 1: met (seen 2)');
  j = judgeAttempt(EX, { ops: 11 }, 10);
  assert.equal(j.met, false, 'no expects answered: not met');
  assert.equal(goalText(j.goals[0]), 'barn_put_fail >= 1: not met (not seen)');
});

test('solved exercises are kept in storage', () => {
  const st = memStorage();
  const s = createSolved(st);
  assert.equal(s.has('x'), false);
  s.add('x'); s.add('x'); s.add('y');
  assert.deepEqual(createSolved(st).list(), ['x', 'y']);
  st.setItem('slublab.solved', '{"no":1}');
  assert.deepEqual(createSolved(st).list(), []);
});

test('the keys of predict mode, of a question and of a lesson', () => {
  const c = (key, open = {}, page = 'lab', on = null) => { const r = keyCommand({ key }, page, on, open); return r && [r.target, r.name, ...r.args]; };
  assert.deepEqual(c('q'), ['player', 'togglePredict']);
  assert.deepEqual(c('?'), ['page', 'help'], '? shows the list of keys');
  assert.deepEqual(c('1', { question: true }), ['question', 'choose', 0]);
  assert.deepEqual(c('4', { question: true }), ['question', 'choose', 3]);
  assert.deepEqual(c('5', { question: true }), ['question', 'choose', 4], 'a point may have five arms');
  assert.equal(c('0', { question: true }), null);
  assert.equal(c('1'), null, 'no question open');
  assert.equal(c('1', { question: true }, 'lab', 'field'), null, 'typing in a field');
  assert.deepEqual(c(']', { lesson: true }), ['lesson', 'next']);
  assert.deepEqual(c('[', { lesson: true }), ['lesson', 'prev']);
  assert.deepEqual(c('PageDown', { lesson: true }), ['lesson', 'next']);
  assert.equal(c(']'), null, 'no lesson open');
  assert.deepEqual(c('n', { lesson: true }), ['player', 'toMarker', 1], 'n and p keep their meaning');
  assert.equal(c('1', { question: true }, 'compare'), null);
  const html = readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8');
  const keys = html.slice(html.indexOf('id="keys-title"'), html.indexOf('</dl>', html.indexOf('id="keys-title"')));
  for (const kbd of ['q', '?', '1', '2', ']', '[']) assert.ok(keys.includes(`<kbd>${kbd}</kbd>`), kbd);
});

test('a lesson\'s and an exercise\'s URLs', () => {
  const q = readQuery('?lesson=03-barn&slide=4&predict=1');
  assert.equal(q.lesson, '03-barn');
  assert.equal(q.slide, 4);
  assert.equal(q.predict, true);
  assert.equal(q.fresh, null, 'the lesson says what to run');
  assert.equal(readQuery('?lesson=a&slide=0').slide, 1);
  assert.equal(readQuery('?lesson=a').slide, 1);
  assert.equal(readQuery('?exercise=barn-put-fail').exercise, 'barn-put-fail');
  assert.equal(readQuery('?exercise=barn-put-fail').fresh, null);
  const v = { session: 's1', at: 12, cacheId: 0, tab: 'explain', selection: null, presenter: false, following: false };
  assert.equal(addressFor({ ...v, lesson: { id: '03-barn', slide: 2 } }, 'lab'), '/?lesson=03-barn&slide=2');
  assert.equal(addressFor({ ...v, lesson: { id: '03-barn', slide: 2 }, presenter: true, predict: true }, 'lab'), '/?lesson=03-barn&slide=2&presenter=1&predict=1');
  assert.equal(addressFor({ ...v, predict: true }, 'lab'), '/?session=s1&at=12&cache=0&predict=1');
  assert.equal(addressFor({ ...v, exercise: 'e1' }, 'scenario'), '/?exercise=e1');
  assert.equal(addressFor({ ...v, exercise: 'e1' }, 'lab'), '/?session=s1&at=12&cache=0');
});

test('the verdict after a reveal ends in one full stop (it ended in two when the choice\'s words had one)', () => {
  const q = { taken: 'swap_spare', choices: [{ arm: 'swap_spare', text: 'Main and the spare swap: the spare\'s objects serve the allocation.' }, { arm: 'barn_full', text: 'The barn gives a full sheaf' }] };
  assert.equal(verdict(q, 'swap_spare'), 'Right: Main and the spare swap: the spare\'s objects serve the allocation.');
  assert.equal(verdict(q, 'barn_full'), 'Not this time: the kernel took "Main and the spare swap: the spare\'s objects serve the allocation".');
  assert.equal(verdict(q, null), 'The kernel took: Main and the spare swap: the spare\'s objects serve the allocation.');
  assert.equal(verdict({ ...q, taken: 'barn_full' }, 'barn_full'), 'Right: The barn gives a full sheaf.');
});

test('a lesson leads on: the next lesson and its exercises; none after the last', () => {
  const ls = [{ id: 'a', title: 'A' }, { id: '03-the-barn', title: 'Barn' }];
  const xs = [{ id: 'barn-get', title: 'G' }, { id: 'remote-free', title: 'R' }];
  assert.deepEqual(onward(ls, xs, 'a'), { next: ls[1], exercises: [] });
  assert.deepEqual(onward(ls, xs, '03-the-barn'), { next: null, exercises: [xs[0]] });
});

test('a slide\'s spotlight: where it is and its words, else the tab, else the picture', () => {
  assert.equal(spotSelector({ spotlight: 'barn:0' }), '#picture [data-spot="barn:0"]');
  assert.equal(spotSelector({ spotlight: 'column:objs_per_slab' }), '#caches th[data-spot="column:objs_per_slab"]');
  assert.equal(spotSelector({ tab: 'counters' }), '#tab-counters');
  assert.equal(spotSelector({}), '#picture');
  assert.equal(spotSelector({ spotlight: 'question' }), '#question');
  assert.equal(spotLabel({ spotlight: 'barn:1' }), "node 1's barn");
  assert.equal(spotLabel({ tab: 'inspect' }), 'Inspector');
  assert.equal(spotLabel({ spotlight: 'hold:flight' }), 'in flight');
});

test('the glossary finds whole words, the longer term first, each once', () => {
  const hits = findTerms('The barn and the partial list; sheaves, a partial sheaf, the barn again, barns.');
  assert.deepEqual(hits.map((x) => x.id), ['barn', 'partial-list', 'sheaf', 'partial-sheaf']);
  assert.deepEqual(findTerms('barnyard, subarn'), []);
  assert.equal(new Set(GLOSSARY.map((t) => t.id)).size, GLOSSARY.length, 'ids unique');
});

test('the course\'s score: the lessons\' scores added up, a session\'s apart', () => {
  const mem = new Map();
  const st = { getItem: (k) => mem.get(k) ?? null, setItem: (k, v) => mem.set(k, v) };
  const sc = createScore(st);
  sc.record('lesson:01', 's1@3', true);
  sc.record('lesson:01', 's2@3', false);
  sc.record('lesson:03', 's3@7', true);
  sc.record('s9', 4, true);
  assert.deepEqual(sc.total('lesson:'), { right: 2, asked: 3 });
  assert.deepEqual(createScore(st).total('lesson:'), { right: 2, asked: 3 }, 'kept in the browser');
});
