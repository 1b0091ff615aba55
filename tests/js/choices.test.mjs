// web/js/choices.js: a choice point in words, and each option's fork.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choiceSentence, optionWords } from '../../web/js/choices.js';

test('the sentence names the decision and how many options', () => {
  assert.equal(choiceSentence({ kind: 'flush_order', options: 24, taken: 0 }),
    'The kernel may run flush_all()\'s per-CPU flushes in another order here: one of 24 orders. The lab takes its default.');
  assert.equal(choiceSentence({ kind: 'rcu_worker', options: 4, taken: 2 }),
    'The kernel may run kfree_rcu\'s unbound worker on another CPU here: one of 4 choices. This run takes another than the lab\'s own.');
  assert.match(choiceSentence({ kind: 'remote_draw', options: 2, taken: 0 }), /draw get_cycles\(\) the other way here: one of 2 draws/);
});

test('each option in words, from the engine\'s sentence', () => {
  assert.equal(optionWords('flush_order', 'flush_all: CPUs 2, 1: order 2 of 2'), 'the kernel may flush CPU 2 first');
  assert.equal(optionWords('flush_order', 'flush_all: CPUs 3, 0, 1: order 5 of 6'), 'the kernel may flush CPU 3 first (3, 0, 1)');
  assert.equal(optionWords('rcu_worker', 'kfree_rcu_work: the unbound worker on CPU 1, the objects queued on CPU 0: one of 2 CPUs'),
    'the kernel may run the worker on CPU 1');
  assert.equal(optionWords('rcu_worker', 'kfree_rcu_work: one unbound worker on CPU 2 for every batch of this grace period: one of 5 choices'),
    'the kernel may run the worker on CPU 2');
  assert.equal(optionWords('rcu_worker', 'kfree_rcu_work: each batch of this grace period on the CPU that queued it: one of 5 choices'),
    'the kernel may run each batch on the CPU that queued it');
  assert.equal(optionWords('remote_draw', 'get_any_partial: get_cycles() % 1024 > remote_node_defrag_ratio: another node\'s partial slabs skipped: one of 2 draws'),
    'the kernel may skip another node\'s partial slabs');
  assert.equal(optionWords('other', 'x'), 'the kernel may take: x');
});
