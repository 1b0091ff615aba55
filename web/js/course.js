// @ts-check
// The course's files as the UI reads them (docs/lessons.md): which
// scenario a slide runs, the breakpoints a slide names, an exercise's
// check (the scenario it sends, and what the answer means), and the
// solved exercises kept in the browser.  Pure: no DOM, no fetch.

/**
 * What slide @k (1-based) of @lesson runs: the scenario of the last slide
 * up to it that names one, with that slide's kernel and variants.  Two
 * slides with the same key share one session.
 * @param {{ slides: any[] }} lesson
 * @param {number} k
 * @returns {{ scenario: string, kernel?: string, variants?: object, key: string }|null}
 */
export function slideRun(lesson, k) {
  for (let i = Math.min(k, lesson.slides.length) - 1; i >= 0; i--) {
    const s = lesson.slides[i];
    if (s.scenario) {
      const r = { scenario: s.scenario, kernel: s.kernel, variants: s.variants };
      return { ...r, key: JSON.stringify([s.scenario, s.kernel ?? null, s.variants ?? null]) };
    }
  }
  return null;
}

/** Slide number @k kept within lesson @lesson's 1..n. */
export function clampSlide(lesson, k) {
  return Math.max(1, Math.min(lesson.slides.length, Math.floor(Number(k)) || 1));
}

/**
 * A slide's breakpoint: a notable kind ("barn_put_fail"), "counter:NAME"
 * or "fn:FN[/LABEL]", as makeBreakpoint (state.js) takes it.
 * @param {string} text
 * @returns {{ kind: 'notable'|'counter'|'fn', name: string, label?: string }}
 */
export function slideBreakpoint(text) {
  if (text.startsWith('counter:')) return { kind: 'counter', name: text.slice(8) };
  if (text.startsWith('fn:')) {
    const [name, label] = text.slice(3).split('/');
    return { kind: 'fn', name, label: label || undefined };
  }
  return { kind: 'notable', name: text };
}

/**
 * The scenario an exercise's check runs: the preset with the student's
 * operations (only the operations are taken from the editor) and the
 * goal as expectations at "end".
 * @param {{ preset: any, goal: any[] }} ex
 * @param {any[]} ops
 */
export function attemptScenario(ex, ops) {
  return { ...ex.preset, ops, expect: ex.goal.map((g) => ({ ...g, at: 'end' })) };
}

/**
 * What the check's answer means: each goal held or not (with the value
 * the engine saw), how many operations the student added (the attempt's
 * operations less the preset's own), and whether that is within max_ops.
 * @param {{ max_ops: number, goal: any[] }} ex
 * @param {{ ops: number, expects?: any[] }} answer POST /api/sessions
 * @param {number} presetOps the operations of a session of the preset alone
 */
export function judgeAttempt(ex, answer, presetOps) {
  const expects = answer.expects ?? [];
  const goals = ex.goal.map((g, i) => {
    const x = expects.find((e) => e.metric === g.metric && e.op === g.op && e.value === g.value) ?? expects[i] ?? null;
    return { ...g, ok: !!x?.ok, seen: x?.seen ?? null, message: x?.message ?? null };
  });
  const used = Math.max(0, answer.ops - presetOps);
  const met = goals.length > 0 && goals.every((g) => g.ok);
  const within = used <= ex.max_ops;
  return { goals, used, met, within, solved: met && within };
}

/** One goal as words: "barn_put_fail >= 1: yes (seen 2)". */
export function goalText(g) {
  const seen = g.seen === null || g.seen === undefined ? 'not seen' : `seen ${g.seen}`;
  return `${g.metric} ${g.op} ${g.value}: ${g.ok ? 'met' : 'not met'} (${seen})${g.message && !g.ok ? `: ${g.message}` : ''}`;
}

const SOLVED_KEY = 'slublab.solved';

/** The exercises solved in this browser (their ids), kept in @storage. */
export function createSolved(storage) {
  /** @type {string[]} */
  let ids = [];
  try { ids = JSON.parse(storage?.getItem(SOLVED_KEY) ?? '[]') ?? []; } catch { ids = []; }
  if (!Array.isArray(ids)) ids = [];
  return {
    has: (id) => ids.includes(id),
    add(id) {
      if (ids.includes(id)) return;
      ids = [...ids, id];
      try { storage?.setItem(SOLVED_KEY, JSON.stringify(ids)); } catch { /* private mode */ }
    },
    list: () => ids.slice(),
  };
}

/**
 * The exercises that practise lesson @id's matter, offered on its last
 * slide (ids of lessons/exercises/).
 * @type {Record<string, string[]>}
 */
export const LESSON_EXERCISES = {
  '03-the-barn': ['barn-get', 'barn-put-fail'],
  '04-slow-path-and-partial-lists': ['refill-new-slab', 'discard-on-cpu1'],
  '05-numa-and-remote-frees': ['remote-free'],
  '06-kfree-rcu-flood': ['rcu-sheaf-to-barn'],
  '09-debugging': ['double-free-report'],
  '10-page-allocator': ['page-allocator-slowpath'],
  '11-legacy-per-cpu-slabs': ['cpu-partial-drain'],
  '13-races': ['race-bad-schedule'],
};

/**
 * Where a student goes after lesson @id: the next lesson of @lessons (the
 * server's list, in the course's order) or null after the last, and the
 * exercises of @exercises that practise it.
 * @param {{ id: string, title: string }[]} lessons
 * @param {{ id: string, title: string }[]} exercises
 * @param {string} id
 */
export function onward(lessons, exercises, id) {
  const i = lessons.findIndex((l) => l.id === id);
  const want = LESSON_EXERCISES[id] ?? [];
  return {
    next: i >= 0 && i + 1 < lessons.length ? lessons[i + 1] : null,
    exercises: exercises.filter((x) => want.includes(x.id)),
  };
}

/**
 * Where slide @s's spotlight is on the page (a CSS selector): its
 * "spotlight" (docs/lessons.md), else its tab, else the picture.
 * @param {{ spotlight?: string, tab?: string }} s
 */
export function spotSelector(s) {
  const spot = s.spotlight ?? (s.tab ? `tab:${s.tab}` : 'picture');
  const [kind, arg] = spot.split(':');
  if (kind === 'tab') return `#tab-${arg}`;
  if (kind === 'column') return `#caches th[data-spot="${spot}"]`;
  if (arg !== undefined) return `#picture [data-spot="${spot}"]`;
  return { picture: '#picture', slabs: '#picture .grid-wrap', question: '#question', caches: '#caches', breakpoints: '#breakpoints',
    timeline: '#controls', narration: '#narration', moves: '#event-moves', race: '#race' }[kind] ?? '#picture';
}

const TAB_NAMES = { explain: 'Explain', counters: 'Counters', inspect: 'Inspector', table: 'Table', share: 'Share', pages: 'Pages', gfp: 'gfp' };
const HOLD_NAMES = { flight: 'in flight', prefill: 'prefilled', rcu: 'pending RCU', other: 'other places' };

/** Slide @s's spotlight in words, as the screen names it: "Counters", "node 0's barn". */
export function spotLabel(s) {
  const spot = s.spotlight ?? (s.tab ? `tab:${s.tab}` : 'picture');
  const [kind, arg] = spot.split(':');
  switch (kind) {
    case 'tab': return TAB_NAMES[arg] ?? arg;
    case 'column': return `the Caches column ${arg}`;
    case 'cpu': return `CPU ${arg}`;
    case 'node': return `node ${arg}`;
    case 'barn': return `node ${arg}'s barn`;
    case 'partial': return `node ${arg}'s partial list`;
    case 'pages': return `node ${arg}'s pages`;
    case 'hold': return HOLD_NAMES[arg] ?? arg;
    case 'moves': return 'the step\'s moves';
    case 'race': return 'the race';
    default: return `the ${kind}`;
  }
}
