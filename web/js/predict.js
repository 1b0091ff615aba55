// @ts-check
// Predict mode's questions (docs/lessons.md, "Questions"): a question is
// built from the branch record an event carries (its branches[0]: the
// branch point, every arm the code could take, and the arm it took) and
// the words of texts.json's "questions".  Nothing here decides what the
// kernel does: the choices are the recorded arms, the answer the recorded
// arm taken.  Also the score a page keeps per session.  Pure: no DOM.

import { fillTemplate } from './format.js';

/**
 * @typedef {{ point: string, arms: string[], taken: string }} BranchRecord
 * @typedef {{ arm: string, text: string, when: string }} Choice
 * @typedef {{ at: number, point: string, prompt: string, choices: Choice[], taken: string }} Question
 */

/** The branch record of event @e that a question asks about, or null. @returns {BranchRecord|null} */
export function branchOf(e) {
  const b = e?.branches?.[0];
  return b && typeof b.point === 'string' && Array.isArray(b.arms) && b.arms.length ? b : null;
}

/**
 * Fill a question's prompt (or an arm's words): {cpu}, {node}, {cache} (the cache's name),
 * {obj} (the scenario's name for the object, else its short address), and
 * the narration's placeholders (format.js fillTemplate).
 * @param {string} tpl
 * @param {any} e the event the question is about
 * @param {{ cacheName?: string, names?: Record<string, string> }} [ctx]
 */
export function fillPrompt(tpl, e, ctx = {}) {
  const cpu = e && e.cpu >= 0 ? String(e.cpu) : '?';
  return fillTemplate(tpl.replace(/\{cpu\}/g, cpu), e, ctx).replace(/\s+/g, ' ').trim();
}

/** An arm's name as words when texts.json has none: "spare_from_barn_empty" -> "spare from barn empty". */
const armWords = (arm) => arm.replace(/_/g, ' ');

/**
 * The question about event @e (the event stepping forward from position
 * @e.seq shows), from its branch record and the words @q (texts.json's
 * "questions"); null when @e carries no record.  A point or an arm
 * without words falls back to its name.
 * @param {any} e
 * @param {Record<string, any>} q
 * @param {{ cacheName?: string, names?: Record<string, string> }} [ctx]
 * @returns {Question|null}
 */
export function questionFor(e, q, ctx = {}) {
  const b = branchOf(e);
  if (!b) return null;
  const words = q?.[b.point];
  const prompt = words?.prompt ? fillPrompt(words.prompt, e, ctx) : `What happens next at ${armWords(b.point)}?`;
  const choices = b.arms.map((arm) => {
    const a = words?.arms?.[arm];
    return { arm, text: a?.text ? fillPrompt(a.text, e, ctx) : armWords(arm), when: a?.when ? fillPrompt(a.when, e, ctx) : '' };
  });
  return { at: e.seq, point: b.point, prompt, choices, taken: b.taken };
}

/** Why @c was not the answer: "It happens when <when>; here it did not." */
export function whyNot(c) {
  return c.when ? `It happens when ${c.when.replace(/[.\s]+$/, '')}; here it did not.` : 'Here the kernel did not take it.';
}

/**
 * Whether predict mode stops at event @e on its own (a lesson's slide asks
 * wherever it says): at every branch record but those of points that come
 * with every free, kfree_rcu or page allocation (texts.json marks them
 * "often"), which would stop the lab at nearly every step.
 * @param {any} e
 * @param {Record<string, any>} q texts.json's "questions"
 */
export function predictStops(e, q) {
  const b = branchOf(e);
  return !!b && q?.[b.point]?.often !== true;
}

/** The position of the first event in [@from, @to) where predict mode stops (predictStops) and not in @passed, or null. */
export function branchAhead(events, from, to, passed, q) {
  for (let p = from; p < to; p++) {
    const e = events.get(p);
    if (e && predictStops(e, q) && !passed.has(p)) return p;
  }
  return null;
}

// ---- the score

const SCORE_KEY = 'slublab.score';

/**
 * The score of predictions (right/asked), one per session id, kept in
 * @storage under slublab.score.  Each question (a session's position)
 * counts once: answering it again does not change the score.
 * @param {Storage|null} storage
 */
export function createScore(storage) {
  /** @type {Record<string, { right: number, asked: number, seen: (number|string)[] }>} */
  let all = {};
  try { all = JSON.parse(storage?.getItem(SCORE_KEY) ?? '{}') ?? {}; } catch { all = {}; }
  const keep = () => { try { storage?.setItem(SCORE_KEY, JSON.stringify(all)); } catch { /* private mode */ } };
  const of = (id) => all[id] ?? { right: 0, asked: 0, seen: [] };
  return {
    /** The score of session @id: {right, asked}. */
    get(id) { const s = of(id); return { right: s.right, asked: s.asked }; },
    /** Whether the question at @at (a position, or "SESSION@POSITION" in a lesson's score) of score @id was answered. */
    answered(id, at) { return of(id).seen.includes(at); },
    /**
     * Count an answer to the question at @at of session @id, right or not;
     * false when that question was counted before.
     */
    record(id, at, right) {
      const s = of(id);
      if (s.seen.includes(at)) return false;
      all[id] = { right: s.right + (right ? 1 : 0), asked: s.asked + 1, seen: [...s.seen, at].slice(-500) };
      keep();
      return true;
    },
    reset(id) { delete all[id]; keep(); },
    /** The scores whose ids start with @prefix added up ("lesson:": the course's, in this browser). */
    total(prefix) {
      return Object.entries(all).filter(([k]) => k.startsWith(prefix))
        .reduce((a, [, s]) => ({ right: a.right + s.right, asked: a.asked + s.asked }), { right: 0, asked: 0 });
    },
  };
}

/**
 * The sentence after question @q is revealed, @chosen the arm picked (or
 * null): one full stop at its end, whether or not the choice's words have one.
 * @param {Question} q @param {string|null} chosen
 */
export function verdict(q, chosen) {
  const taken = (q.choices.find((c) => c.arm === q.taken)?.text ?? q.taken).replace(/[.\s]+$/, '');
  if (!chosen) return `The kernel took: ${taken}.`;
  return chosen === q.taken ? `Right: ${taken}.` : `Not this time: the kernel took "${taken}".`;
}

/** The score as words: "2/3 right" (right of asked). */
export function scoreText(s) {
  return `${s.right}/${s.asked} right`;
}

// ---- the presenter's tally

/**
 * Bars of the followers' answers (GET /api/lectures/ID/answers): one per
 * choice, in the question's order, with its count and share of the total.
 * @param {Question} q
 * @param {{ counts?: Record<string, number>, total?: number }|null} r
 */
export function tallyBars(q, r) {
  const total = r?.total ?? 0;
  return q.choices.map((c) => {
    const n = r?.counts?.[c.arm] ?? 0;
    return { arm: c.arm, text: c.text, n, frac: total ? n / total : 0 };
  });
}

/** A random id for this browser as a voter (kept in storage by the caller). */
export function newVoterId(rand = Math.random) {
  let s = '';
  for (let i = 0; i < 16; i++) s += Math.floor(rand() * 16).toString(16);
  return s;
}
