/*
 * freelist.c: free pointers stored inside free objects.
 *
 * A free object holds the address of the next free object of its slab at object
 * + s->offset (kernel: get_freepointer, set_freepointer).  With
 * CONFIG_SLAB_FREELIST_HARDENED the stored word is the pointer XOR the cache's
 * secret XOR the byte-swapped storage address (kernel:
 * freelist_ptr_encode/decode, since 5.7), so NULL is not stored as zero.  Every
 * read and write is counted (engine_freeptr_reads/_writes): this is what the
 * DEFERRED_FREELIST change saves.
 */
#include "internal.h"

#include <setjmp.h>

static uint64_t bswap64(uint64_t x)
{
    return __builtin_bswap64(x);
}

/* The word stored for @next in a free pointer living at @at. */
uint64_t freeptr_encode(const struct sim *sim, const struct kmem_cache *s, sim_addr_t next,
        sim_addr_t at)
{
    if (!sim->cfg.freelist_hardened)
        return next;
    return next ^ s->random ^ bswap64(at);
}

/* The pointer a stored word @stored at @at decodes to. */
sim_addr_t freeptr_decode(const struct sim *sim, const struct kmem_cache *s, uint64_t stored,
        sim_addr_t at)
{
    return freeptr_encode(sim, s, stored, at); /* XOR is its own inverse */
}

/* Next free object after @obj (kernel: get_freepointer).  An unreadable
 * word decodes to SIM_NULL; the validator reports such chains. */
sim_addr_t get_freepointer(struct sim *sim, struct kmem_cache *s, sim_addr_t obj)
{
    sim_addr_t at = obj + s->offset;
    uint64_t stored;

    stat_add(sim, s, SIM_ENGINE_FREEPTR_READS, 1);
    if (mem_read_u64(sim, at, &stored))
        return SIM_NULL;
    return freeptr_decode(sim, s, stored, at);
}

/* Store @next as the free pointer of @obj (kernel: set_freepointer).
 * The kernel's BUG_ON(object == fp) is checked by callers before any
 * state changes, so here it can only be a bug of the engine. */
void set_freepointer(struct sim *sim, struct kmem_cache *s, sim_addr_t obj, sim_addr_t next)
{
    sim_addr_t at = obj + s->offset;

    SIM_BUG_ON(obj == next);
    stat_add(sim, s, SIM_ENGINE_FREEPTR_WRITES, 1);
    SIM_BUG_ON(mem_write_u64(sim, at, freeptr_encode(sim, s, next, at)));
}

/* Read a free pointer without counting it (snapshots and validation). */
sim_addr_t peek_freepointer(const struct sim *sim, const struct kmem_cache *s, sim_addr_t obj,
        uint64_t *stored_out)
{
    sim_addr_t at = obj + s->offset;
    uint64_t stored = 0;

    if (mem_read_u64(sim, at, &stored)) {
        if (stored_out)
            *stored_out = 0;
        return SIM_NULL;
    }
    if (stored_out)
        *stored_out = stored;
    return freeptr_decode(sim, s, stored, at);
}

int sim_read_freeptr(const struct sim *sim, int cache, sim_addr_t obj, struct sim_freeptr *fp)
{
    const struct kmem_cache *s;
    uint64_t stored;

    if (cache < 0 || (unsigned)cache >= sim->nr_caches)
        return -EINVAL;
    s = sim->caches[cache];
    if (mem_read_u64(sim, obj + s->offset, &stored))
        return -EINVAL;
    fp->at = obj + s->offset;
    fp->stored = stored;
    fp->decoded = freeptr_decode(sim, s, stored, fp->at);
    return 0;
}

/* True when @obj is on @slab's freelist (kernel: on_freelist).  The walk
 * stops after slab->objects steps, so a cycle cannot trap it. */
bool on_freelist(const struct sim *sim, const struct kmem_cache *s, const struct slab *slab,
                 sim_addr_t obj)
{
    sim_addr_t p = slab->freelist;

    for (unsigned n = 0; p && n <= slab->objects; n++) {
        if (p == obj)
            return true;
        p = peek_freepointer(sim, s, p, NULL);
    }
    return false;
}

/*
 * A corrupted free pointer of @obj would make the kernel dereference
 * garbage (kernel: get_freepointer on a non-debug cache).  If the word
 * does not decode to NULL or an object of @slab, stop the machine with a
 * "the kernel would fault here" event instead of following it.  Returns
 * only when the pointer is sound.
 */
void check_freepointer_or_oops(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
                               sim_addr_t obj)
{
    uint64_t stored;
    sim_addr_t next = peek_freepointer(sim, s, obj, &stored);

    if (!next || slab_obj_index(s, slab, next) >= 0)
        return;
    if (sim->ev.open)
        ev_end(sim);
    sim_result_msg(sim, SIM_CRASHED,
                   "BUG: unable to handle page fault for address: 0x%llx\n"
                   "#PF: supervisor read access in kernel mode\n"
                   "RIP: get_freepointer: the free pointer of 0x%llx in %s (stored word 0x%llx at "
                   "0x%llx) decodes to garbage; the kernel would fault here",
                   (unsigned long long)(next + s->offset), (unsigned long long)obj, s->name,
                   (unsigned long long)stored, (unsigned long long)(obj + s->offset));
    ev_report_result(sim, s, "get_freepointer", "fault");
    sim->halted = true;
    longjmp(sim->oom_jmp, 2);
}

/* The kernel follows every free pointer of @head's chain while taking it
 * (legacy model: a cpu freelist): a corrupt one faults before anything
 * moves. */
void check_chain(struct sim *sim, struct kmem_cache *s, const struct slab *slab, sim_addr_t head)
{
    for (unsigned n = 0; head && n < slab->objects; n++) {
        check_freepointer_or_oops(sim, s, slab, head);
        head = peek_freepointer(sim, s, head, NULL);
    }
}

/* Put the chain at @head (objects of @slab, sitting at @from) in flight.
 * Returns its length. */
unsigned chain_to_inflight(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
                           sim_addr_t head, struct sim_place from)
{
    unsigned n = 0;

    for (sim_addr_t p = head; p && n < slab->objects; n++) {
        inflight_add(sim, p, from);
        p = peek_freepointer(sim, s, p, NULL);
    }
    return n;
}
