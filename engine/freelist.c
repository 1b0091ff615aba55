/*
 * freelist.c: free pointers stored inside free objects.
 *
 * A free object holds the address of the next free object of its slab at
 * object + s->offset (kernel: get_freepointer, set_freepointer).  With
 * CONFIG_SLAB_FREELIST_HARDENED the stored word is the pointer XOR the
 * cache's secret XOR the byte-swapped storage address (kernel:
 * freelist_ptr_encode/decode, since 5.7), so NULL is not stored as zero.
 * Every read and write is counted (engine_freeptr_reads/_writes): this is
 * what the DEFERRED_FREELIST change saves.
 */
#include "internal.h"

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
