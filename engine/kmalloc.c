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
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define ZERO_SIZE_PTR ((sim_addr_t)16)
#define KMALLOC_MAX_CACHE_SIZE 8192u

static const unsigned kmalloc_sizes[] = {8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048,
        4096, 8192};

/* Class index for @size (kernel: kmalloc_index), or -1 beyond 8 KiB. */
int kmalloc_index(unsigned size)
{
    unsigned long r = kmalloc_size_roundup(size);

    for (unsigned i = 0; i < sizeof(kmalloc_sizes) / sizeof(kmalloc_sizes[0]); i++)
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
    res->addr = kmem_cache_alloc_node(sim, sim->caches[id], node, gfp);
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
