// @ts-check
// The glossary: every term the lessons and the views use, a sentence or
// two each, and the kernel function, field or constant it comes from.
// Pure data and lookups: no DOM (views/glossary.js shows it).

/**
 * @typedef {{ id: string, term: string, words: string, from: string, also?: string[] }} Term
 *   also: other spellings a slide may use (matched whole words, any case)
 */

/** @type {Term[]} */
export const GLOSSARY = [
  { id: 'cache', term: 'cache', words: 'A pool of objects of one size and kind (kmalloc-64, maple_node): its slabs, its per-CPU sheaves and its per-node lists. The Caches table lists the lab\'s caches.', from: 'struct kmem_cache, kmem_cache_create()', also: ['caches'] },
  { id: 'object', term: 'object', words: 'One allocation: what kmem_cache_alloc returns and kmem_cache_free takes back. The picture names the scenario\'s objects o0, o1, … and shows each by its address; a new allocation that reuses a freed object is called "o1 (the same object as o0)".', from: 'kmem_cache_alloc(), kmem_cache_free()' },
  { id: 'slab', term: 'slab', words: 'One or more contiguous pages cut into objects of one cache. A slab is full, partial (some objects free) or empty.', from: 'struct slab, allocate_slab()', also: ['slabs'] },
  { id: 'object_size', term: 'object_size', words: 'The size the cache\'s users asked for, in bytes; the Caches table\'s "obj size" column.', from: 'kmem_cache->object_size' },
  { id: 'slab_size', term: 'slab_size', words: 'The bytes one object takes in its slab: object_size rounded up to the alignment, plus any debug metadata; the Caches table\'s "stride" column.', from: 'kmem_cache->size, calculate_sizes()' },
  { id: 'objs_per_slab', term: 'objs_per_slab', words: 'How many objects one slab holds: the slab\'s bytes divided by slab_size; the Caches table\'s "obj/slab" column.', from: 'oo_objects(s->oo), calculate_sizes()' },
  { id: 'order', term: 'order', words: 'A slab is 2^order pages: order 0 is one page, order 1 two, order 3 eight. SLUB picks the order so that little of the slab is wasted.', from: 'calculate_order(), oo_order()' },
  { id: 'freelist', term: 'freelist', words: 'A slab\'s chain of free objects: each free object holds a pointer to the next one. Its head is the object the slab gives out next; the Inspector lists a slab\'s freelist from its head.', from: 'slab->freelist, get_freepointer()' },
  { id: 'free-pointer', term: 'free pointer', words: 'The pointer to the next free object that SLUB writes inside a free object, at the cache\'s offset; with hardening it is stored XORed with a secret and the address (the Inspector decodes it).', from: 'set_freepointer(), freelist_ptr_encode(), kmem_cache->offset' },
  { id: 'sheaf', term: 'sheaf', words: 'An array of free objects of one cache, up to its capacity, that a CPU allocates from and frees into without locks: allocation pops the last object, free pushes one.', from: 'struct slab_sheaf, alloc_from_pcs(), free_to_pcs()', also: ['sheaves'] },
  { id: 'main', term: 'main sheaf', words: 'The sheaf a CPU allocates from and frees into first.', from: 'slub_percpu_sheaves->main', also: ['main'] },
  { id: 'spare', term: 'spare sheaf', words: 'A CPU\'s second sheaf: when main is empty (or full) and the spare is not, the two swap, with no lock and no counter.', from: 'slub_percpu_sheaves->spare, __pcs_replace_empty_main()', also: ['spare'] },
  { id: 'partial-sheaf', term: 'partial sheaf', words: 'A sheaf that is neither full nor empty. The barn keeps only full and empty sheaves; a partial one stays on its CPU or is flushed back to slabs.', from: 'sheaf_flush_unused(), struct slab_sheaf->size' },
  { id: 'barn', term: 'barn', words: 'A node\'s store of full and empty sheaves, shared by its CPUs under a spinlock: a CPU whose main and spare are empty takes a full sheaf there, one whose sheaves are full leaves one.', from: 'struct node_barn, barn_replace_empty_sheaf(), barn_put_full_sheaf()' },
  { id: 'max-full-sheaves', term: 'MAX_FULL_SHEAVES', words: 'How many full sheaves a barn keeps (10). A CPU whose full sheaf finds the barn at this limit flushes the sheaf\'s objects back to their slabs instead (barn_put_fail).', from: 'MAX_FULL_SHEAVES, barn_replace_full_sheaf()' },
  { id: 'max-empty-sheaves', term: 'MAX_EMPTY_SHEAVES', words: 'How many empty sheaves a barn keeps (10); past it an empty sheaf is freed.', from: 'MAX_EMPTY_SHEAVES, barn_put_empty_sheaf()' },
  { id: 'partial-list', term: 'partial list', words: 'Each node\'s list of slabs that have some objects free. Refills take objects from it before asking the page allocator for a new slab.', from: 'kmem_cache_node->partial, get_partial_node()' },
  { id: 'min-partial', term: 'min_partial', words: 'How many slabs a node\'s partial list keeps even when they are empty; an empty slab beyond it goes back to the page allocator (discard_slab).', from: 'kmem_cache->min_partial, set_min_partial()' },
  { id: 'node', term: 'node', words: 'A NUMA node: a set of CPUs and the memory closest to them. Each node has its own partial list and barn.', from: 'struct kmem_cache_node, numa_mem_id()' },
  { id: 'remote-free', term: 'remote free', words: 'A free of an object whose slab is on another node than the freeing CPU\'s: it skips the sheaves and goes straight to its slab.', from: 'free_to_pcs() fallback, __slab_free()', also: ['remote'] },
  { id: 'remote-node-defrag-ratio', term: 'remote_node_defrag_ratio', words: 'How willing a refill is to take partial slabs from other nodes: 0 keeps refills on the local node; the kernel keeps it in tenths of a percent (1000 by default; sysfs shows 100).', from: 'kmem_cache->remote_node_defrag_ratio, get_any_partial()' },
  { id: 'refill', term: 'refill', words: 'Filling an empty sheaf from slabs: from the node\'s partial list first, then from a new slab.', from: 'refill_sheaf(), __refill_objects()' },
  { id: 'refill-nonblocking', term: 'REFILL_NONBLOCKING', words: 'A variant of the lab: whether a CPU may refill a sheaf when the caller may not block (the kernel\'s change "allow sheaf refill if blocking is not allowed").', from: 'gfpflags_allow_blocking(), __pcs_replace_empty_main()' },
  { id: 'in-flight', term: 'in flight', words: 'The picture\'s box of what an unfinished operation holds: the sheaf a refill is filling, a sheaf on its way to the barn, objects taken and not yet handed over. Click a sheaf there to list its objects.', from: 'the lab\'s own accounting of objects and sheaves' },
  { id: 'rcu-free', term: 'rcu_free sheaf', words: 'A CPU\'s sheaf for kfree_rcu: objects freed with kfree_rcu collect there; a full one waits for an RCU grace period before its objects may be reused.', from: 'slub_percpu_sheaves->rcu_free, __kfree_rcu_sheaf()', also: ['rcu', 'rcu box'] },
  { id: 'rcu-pending', term: 'pending RCU', words: 'The picture\'s box of rcu_free sheaves waiting for their grace period; after it they go to the barn or their objects back to slabs.', from: 'rcu_free_sheaf(), call_rcu()', also: ['waiting for RCU'] },
  { id: 'grace-period', term: 'grace period', words: 'The time after which no CPU can still be reading an object RCU readers might hold; only then may a kfree_rcu\'d object be reused.', from: 'call_rcu(), synchronize_rcu()' },
  { id: 'prefilled', term: 'prefilled sheaf', words: 'A sheaf a caller takes with kmem_cache_prefill_sheaf before a critical section, so its allocations there cannot fail; the picture\'s "prefilled" box shows the ones out.', from: 'kmem_cache_prefill_sheaf(), kmem_cache_alloc_from_sheaf()', also: ['prefilled', 'prefill'] },
  { id: 'other', term: 'other places', words: 'The picture\'s "other" box: sheaves held somewhere the other boxes do not name (bulk operations\' detached sheaves, say).', from: 'the lab\'s own accounting of sheaves' },
  { id: 'cpu-slab', term: 'cpu slab', words: 'Before sheaves (6.1 to 6.17): the slab a CPU allocated from, frozen, with a lockless freelist of its own.', from: 'kmem_cache_cpu->slab, ___slab_alloc()' },
  { id: 'cpu-partial', term: 'CPU partial list', words: 'Before sheaves: a CPU\'s own short list of partial slabs, drained to the node when it grows too long.', from: 'kmem_cache_cpu->partial, put_cpu_partial()' },
  { id: 'notable', term: 'notable event', words: 'An event worth stopping at (a barn exchange, a new slab, a discard); the timeline marks each with a "+" button, and n / p jump between them.', from: 'the lab\'s own marks over SLUB\'s counters', also: ['the timeline\'s marks', '+ marks'] },
  { id: 'counter', term: 'counter', words: 'SLUB\'s statistics, one per event kind (alloc_fastpath, barn_get, …), as /sys/kernel/slab/CACHE/ shows them with CONFIG_SLUB_STATS; the Counters tab draws them.', from: 'stat(), enum stat_item' },
  { id: 'gfp', term: 'gfp flags', words: 'What an allocation may do to find memory: sleep (GFP_KERNEL), not sleep (GFP_ATOMIC), which zones. The gfp tab decodes them.', from: 'gfp_t, include/linux/gfp_types.h' },
  { id: 'zone', term: 'zone', words: 'A range of a node\'s memory that the page allocator manages as one (ZONE_DMA, ZONE_DMA32, ZONE_NORMAL), with its free blocks per order and its watermarks; the gfp flags say which zones an allocation may use.', from: 'struct zone, gfp_zone()', also: ['zones', 'ZONE_NORMAL', 'ZONE_DMA'] },
  { id: 'kswapd', term: 'kswapd', words: 'The per-node kernel thread that reclaims memory in the background once a zone falls below its low watermark; an allocation wakes it and goes on. The lab has nothing to reclaim, so waking it frees no page.', from: 'wakeup_kswapd(), wake_all_kswapds(), kswapd()' },
  { id: 'watermark', term: 'watermark', words: 'A zone\'s min, low and high free-page levels: below low kswapd wakes; below min only callers that may dig into reserves get pages.', from: 'zone->_watermark, zone_watermark_ok()' },
  { id: 'red-zone', term: 'red zone', words: 'With slab_debug, bytes around an object filled with a known pattern; a write past the object changes them and SLUB reports it on free.', from: 'SLAB_RED_ZONE, check_object()' },
  { id: 'poison', term: 'poison', words: 'With slab_debug, a free object\'s bytes filled with 0x6b (and 0xa5 at the end): a use after free shows as a changed byte.', from: 'SLAB_POISON, POISON_FREE, init_object()' },
  { id: 'tid', term: 'tid', words: 'Before sheaves: a per-CPU transaction id bumped by every fast-path operation, compared with the freelist in one cmpxchg so an interrupted operation retries.', from: 'kmem_cache_cpu->tid, next_tid()' },
];

/** The term with id @id, or null. */
export function termById(id) {
  return GLOSSARY.find((t) => t.id === id) ?? null;
}

/** Words a slide or view may use for @t, longest first (the term, then its other spellings). */
export function termWords(t) {
  return [t.term, ...(t.also ?? [])].sort((a, b) => b.length - a.length);
}

/**
 * The terms found in @text, each once with where it starts: whole words,
 * any case; a longer term wins over a shorter one inside it ("partial list"
 * over "partial").
 * @param {string} text
 * @param {Term[]} [list]
 * @returns {{ id: string, start: number, end: number }[]}
 */
export function findTerms(text, list = GLOSSARY) {
  const low = text.toLowerCase();
  /** @type {{ id: string, start: number, end: number }[]} */
  const hits = [];
  const all = list.flatMap((t) => termWords(t).map((w) => ({ id: t.id, w: w.toLowerCase() }))).sort((a, b) => b.w.length - a.w.length);
  for (const { id, w } of all) {
    if (hits.some((x) => x.id === id)) continue;
    for (let i = low.indexOf(w); i >= 0; i = low.indexOf(w, i + 1)) {
      const before = i === 0 ? ' ' : low[i - 1], after = low[i + w.length] ?? ' ';
      if (/[a-z0-9_]/.test(before) || /[a-z0-9_]/.test(after)) continue;
      if (hits.some((x) => i < x.end && x.start < i + w.length)) continue;
      hits.push({ id, start: i, end: i + w.length });
      break;
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}
