/*
 * kmalloc.c: the kmalloc size classes (kernel: kmalloc_caches, kmalloc_index,
 * kmalloc, kfree).
 *
 * kmalloc(size) rounds the size up to one of 13 classes, kmalloc-8 to
 * kmalloc-8k, and allocates from that cache; the caches are created on their
 * first use, with SLAB_KMALLOC (natural alignment).  kmalloc(0) returns
 * ZERO_SIZE_PTR; sizes above 8 KiB go straight to the page allocator in the
 * kernel and are refused here.  kfree finds the cache from the object's slab.
 * A __GFP_DMA request on a machine with a ZONE_DMA uses the dma-kmalloc-*
 * classes instead, created with SLAB_CACHE_DMA so their slabs come from
 * ZONE_DMA (kernel: kmalloc_type, KMALLOC_DMA); the reclaimable and cgroup
 * classes are not modelled.
 *
 * krealloc(p, size) keeps the object while the new size fits in it, and
 * otherwise kmallocs a new one, copies and frees the old.  Since 6.11/6.12
 * (__do_krealloc: "mm: krealloc: consider spare memory for __GFP_ZERO",
 * "mm/slub: Improve redzone check and zeroing for krealloc()") a resize in
 * place zeroes the spare bytes for __GFP_ZERO and, on a cache that keeps
 * requested sizes, moves the kmalloc red zone to the new size; 6.1 and 6.8
 * return the object untouched.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define ZERO_SIZE_PTR ((sim_addr_t)16)
#define KMALLOC_MAX_CACHE_SIZE 8192u

/* Class index for @size (kernel: kmalloc_index), or -1 beyond 8 KiB. */
int kmalloc_index(unsigned size)
{
    unsigned long r = kmalloc_size_roundup(size);

    for (unsigned i = 0; i < NR_KMALLOC_SIZES; i++)
        if (kmalloc_sizes[i] == r)
            return (int)i;
    return -1;
}

static void kmalloc_name(unsigned size, bool dma, char *buf, size_t len)
{
    const char *prefix = dma ? "dma-" : "";

    if (size >= 1024)
        snprintf(buf, len, "%skmalloc-%uk", prefix, size / 1024);
    else
        snprintf(buf, len, "%skmalloc-%u", prefix, size);
}

/* The cache for class @i (the DMA class when @dma), created on first use.
 * Returns its id, or -1 if a cache of that name was created by the user
 * first. */
static int kmalloc_cache(struct sim *sim, int i, bool dma)
{
    int *slot = dma ? &sim->kmalloc_dma_cache[i] : &sim->kmalloc_cache[i];
    struct sim_cache_args a;
    char msg[128];
    int id;

    if (*slot >= 0)
        return *slot;
    memset(&a, 0, sizeof(a));
    kmalloc_name(kmalloc_sizes[i], dma, a.name, sizeof(a.name));
    a.object_size = kmalloc_sizes[i];
    a.flags = SIM_SLAB_KMALLOC | (dma ? SIM_SLAB_CACHE_DMA : 0);
    if (kmem_cache_create(sim, &a, &id, msg, sizeof(msg)))
        return -1;
    *slot = id;
    return id;
}

/* kmalloc: 0 with the result filled, or -EINVAL for sizes it cannot serve. */
int kmalloc(struct sim *sim, unsigned size, int node, uint32_t gfp, struct sim_result *res)
{
    int i, id;

    if (size == 0) {
        res->addr = ZERO_SIZE_PTR;
        res->cache = -1;
        return 0;
    }
    if (size > KMALLOC_MAX_CACHE_SIZE) {
        snprintf(res->message, sizeof(res->message),
                "kmalloc(%u): sizes above %u bytes bypass SLUB (kmalloc_large) and are not "
                "modelled",
                size, KMALLOC_MAX_CACHE_SIZE);
        return -EINVAL;
    }
    i = kmalloc_index(size);
    id = kmalloc_cache(sim, i, (gfp & SIM_GFP_DMA) && sim->cfg.dma_bytes);
    if (id < 0) {
        snprintf(res->message, sizeof(res->message),
                "kmalloc(%u): a user cache already has the name of its kmalloc cache", size);
        return -EINVAL;
    }
    res->cache = id;
    sim->req_size = size;
    res->addr = kmem_cache_alloc_node(sim, sim->caches[id], node, gfp);
    sim->req_size = 0;
    return 0;
}

/* kfree: NULL and ZERO_SIZE_PTR are ignored; misuse is reported. */
void kfree(struct sim *sim, sim_addr_t obj)
{
    struct slab *slab;

    if (obj <= ZERO_SIZE_PTR)
        return;
    slab = slab_of(sim, obj);
    if (!slab) {
        sim_result_msg(sim, SIM_MISUSE,
                "WARNING: kfree: 0x%llx is neither a slab object nor a large kmalloc "
                "(free_large_kmalloc: invalid pointer)",
                (unsigned long long)obj);
        ev_report_result(sim, NULL, "kfree", "misuse");
        return;
    }
    kmem_cache_free(sim, sim->caches[slab->cache], obj);
}

/* krealloc's in-place resize of @p, an object of @s (kernel: __do_krealloc
 * when new_size <= ks). */
static void krealloc_in_place(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
                              sim_addr_t p, unsigned new_size, uint32_t gfp, bool modern)
{
    unsigned ks = s->object_size, orig = get_orig_size(sim, s, p);

    ev_begin(sim, s, "__do_krealloc", "in_place", slab->node);
    if (modern && (gfp & SIM_GFP_ZERO)) {
        if (orig < new_size)
            mem_fill(sim, p + orig, 0, new_size - orig);
        else
            mem_fill(sim, p + new_size, 0, ks - new_size);
    }
    if (modern && slub_debug_orig_size(s)) {
        set_orig_size(sim, s, p, new_size);
        if ((s->flags & SIM_SLAB_RED_ZONE) && new_size < ks)
            mem_fill(sim, p + new_size, 0xcc /* SLUB_RED_ACTIVE */, ks - new_size);
    }
    ev_end(sim);
}

/* krealloc: 0 with the result filled (the object, maybe moved), or -EINVAL
 * for a size kmalloc cannot serve. */
int krealloc(struct sim *sim, sim_addr_t p, unsigned new_size, uint32_t gfp, struct sim_result *res)
{
    bool modern = sim->cfg.release != SIM_RELEASE_6_1 && sim->cfg.release != SIM_RELEASE_6_8;
    struct kmem_cache *s;
    struct slab *slab;
    sim_addr_t q;
    unsigned copy;
    int err;

    if (p > ZERO_SIZE_PTR && !new_size) {
        kfree(sim, p);
        res->addr = ZERO_SIZE_PTR;
        return 0;
    }
    if (p <= ZERO_SIZE_PTR)
        return kmalloc(sim, new_size, SIM_NUMA_NO_NODE, gfp, res);
    slab = slab_of(sim, p);
    if (!slab || slab_obj_index(sim->caches[slab->cache], slab, p) < 0) {
        sim_result_msg(sim, SIM_MISUSE, "krealloc: 0x%llx is not an object of a slab",
                       (unsigned long long)p);
        ev_report_result(sim, NULL, "__do_krealloc", "misuse");
        return 0;
    }
    s = sim->caches[slab->cache];
    if (new_size <= s->object_size) {
        krealloc_in_place(sim, s, slab, p, new_size, gfp, modern);
        res->addr = p;
        res->cache = s->id;
        return 0;
    }
    copy = modern ? get_orig_size(sim, s, p) : s->object_size;
    if ((err = kmalloc(sim, new_size, SIM_NUMA_NO_NODE, gfp, res)) || !res->addr)
        return err;
    q = res->addr;
    ev_begin(sim, s, "__do_krealloc", "copy", slab->node);
    for (unsigned off = 0; off < copy;) {
        uint8_t buf[256];
        unsigned n = copy - off < sizeof(buf) ? copy - off : (unsigned)sizeof(buf);

        SIM_BUG_ON(mem_read(sim, p + off, buf, n));
        SIM_BUG_ON(mem_write(sim, q + off, buf, n));
        off += n;
    }
    ev_end(sim);
    kfree(sim, p);
    res->addr = q;
    return 0;
}
