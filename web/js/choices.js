// @ts-check
// The kernel's own choices in words (docs/engine.md#choice-points): what an
// event's `choice` says the kernel may do at that step, and each option
// not taken as a fork ("the kernel may flush CPU 2 first").  Pure: the
// Explain panel (views/explain.js) draws it.

/** What the kernel decides at a choice point of @kind, for "The kernel may … here". */
const MAY = {
  flush_order: 'run flush_all()\'s per-CPU flushes in another order',
  rcu_worker: 'run kfree_rcu\'s unbound worker on another CPU',
  remote_draw: 'draw get_cycles() the other way',
};

/**
 * The sentence that says a step is at a choice point.
 * @param {{ kind: string, options: number, taken: number }} c
 */
export function choiceSentence(c) {
  const n = c.options.toLocaleString('en-US');
  const what = c.kind === 'flush_order' ? `one of ${n} orders` : c.kind === 'rcu_worker' ? `one of ${n} choices` : `one of ${n} draws`;
  return `The kernel may ${MAY[c.kind] ?? 'take another option'} here: ${what}. ${c.taken ? 'This run takes another than the lab\'s own' : 'The lab takes its default'}.`;
}

/**
 * An option's fork in words, from its sentence (the engine's sim_choice_text()).
 * @param {string} kind @param {string} text
 */
export function optionWords(kind, text) {
  let m;
  if (kind === 'flush_order' && (m = /CPUs ([\d, ]+)/.exec(text))) {
    const cpus = m[1].split(', ');
    return `the kernel may flush CPU ${cpus[0]} first${cpus.length > 2 ? ` (${cpus.join(', ')})` : ''}`;
  }
  if (kind === 'rcu_worker' && (m = /worker on CPU (\d+)/.exec(text))) return `the kernel may run the worker on CPU ${m[1]}`;
  if (kind === 'rcu_worker' && /each batch/.test(text)) return 'the kernel may run each batch on the CPU that queued it';
  if (kind === 'remote_draw' && (m = /partial slabs (searched|skipped)/.exec(text))) {
    return m[1] === 'searched' ? 'the kernel may search another node\'s partial slabs' : 'the kernel may skip another node\'s partial slabs';
  }
  return `the kernel may take: ${text}`;
}
