// @ts-check
// The stat counters by sysfs name, in kernel order; what bumps each is in
// data/texts.json (the counters of docs/events.md and docs/engine.md).  Pure: no DOM.

import { texts } from './texts.js';

/** Every counter name the UI knows, in kernel order (engine/stats.c); meanings are in texts.json. */
const NAMES = ('alloc_fastpath alloc_slowpath free_rcu_sheaf free_rcu_sheaf_fail free_fastpath free_slowpath ' +
  'free_add_partial free_remove_partial alloc_slab alloc_node_mismatch free_slab order_fallback cmpxchg_double_fail ' +
  'sheaf_flush sheaf_refill sheaf_alloc sheaf_free barn_get barn_get_fail barn_put barn_put_fail sheaf_prefill_fast ' +
  'sheaf_prefill_slow sheaf_prefill_oversize sheaf_return_fast sheaf_return_slow free_frozen alloc_from_partial ' +
  'alloc_refill cpuslab_flush deactivate_full deactivate_empty deactivate_to_head deactivate_to_tail ' +
  'deactivate_remote_frees deactivate_bypass cmpxchg_double_cpu_fail cpu_partial_alloc cpu_partial_free ' +
  'cpu_partial_node cpu_partial_drain alloc_cpu_sheaf free_cpu_sheaf engine_freeptr_reads engine_freeptr_writes engine_pages_in engine_pages_out ' +
  'engine_slab_updates').split(' ');

/** Every counter name the UI knows, in kernel order. */
export const COUNTER_NAMES = NAMES;
/** The counters of the sheaves era plus the engine ones (what the table shows by default). */
export const SHEAVES_COUNTERS = COUNTER_NAMES.slice(0, 26).concat(COUNTER_NAMES.slice(COUNTER_NAMES.indexOf('engine_freeptr_reads')));

/**
 * The counters the session's model counts, as the server lists them
 * (GET /api/sessions/{id} "counters"); the sheaves era's when it does not say.
 * @param {{ counters?: string[] }|null|undefined} info
 * @returns {string[]}
 */
export function modelCounters(info) {
  return info?.counters ?? SHEAVES_COUNTERS;
}

/**
 * What bumps counter @name, in one sentence.
 * @param {string} name
 */
export function counterMeaning(name) {
  return texts().counters[name] ?? 'A counter this version of the UI does not describe yet.';
}

/** Counters a teacher usually wants on the chart first: the first four the model counts. */
export const DEFAULT_CHART = ['alloc_fastpath', 'free_fastpath', 'alloc_slab', 'barn_put_fail', 'cpu_partial_drain'];

/**
 * The chart's counters for a session whose model counts @names: those of
 * @chosen it counts, topped up from DEFAULT_CHART to four.
 * @param {string[]} chosen
 * @param {string[]} names
 */
export function chartCountersFor(chosen, names) {
  const has = new Set(names);
  const out = chosen.filter((c) => has.has(c));
  for (const c of DEFAULT_CHART) if (out.length < 4 && has.has(c) && !out.includes(c)) out.push(c);
  return out;
}

/** Notable kinds of events for the timeline markers and breakpoints. */
export const NOTABLE = [
  { key: 'new_slab', title: 'new slab', counter: 'alloc_slab', search: { counter: 'alloc_slab' }, glyph: '+' },
  { key: 'discard', title: 'slab discarded', counter: 'engine_pages_out', search: { fn: 'discard_slab' }, glyph: '−' },
  { key: 'barn_put_fail', title: 'barn_put_fail', counter: 'barn_put_fail', search: { counter: 'barn_put_fail' }, glyph: '!' },
  { key: 'sheaf_flush', title: 'sheaf flush', counter: 'sheaf_flush', search: { counter: 'sheaf_flush' }, glyph: '↓' },
  { key: 'grace_period', title: 'grace period', counter: null, search: { fn: 'rcu_grace_period' }, glyph: 'R' },
  { key: 'cpu_partial_drain', title: 'CPU partial drain', counter: 'cpu_partial_drain', search: { counter: 'cpu_partial_drain' }, glyph: '⇊' },
];
