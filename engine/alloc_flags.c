/*
 * alloc_flags.c: what a gfp mask asks of the page allocator.
 *
 * A gfp mask is the caller's vocabulary; the page allocator works in its own
 * ALLOC_* flags (mm/internal.h).  The translation (kernel: gfp_to_alloc_flags,
 * alloc_flags_nofragment, __gfp_pfmemalloc_flags, gfp_zone, gfp_migratetype)
 * decides the highest zone, the pageblock type, which watermark is tested and
 * how deep into the reserves the request may dig.  From v6.3 until 2026 two
 * ALLOC bits were copied straight from the gfp mask, relying on __GFP_HIGH ==
 * ALLOC_MIN_RESERVE and __GFP_KSWAPD_RECLAIM == ALLOC_KSWAPD ("coupled",
 * GFP_TRANSLATE before); Brendan Jackman's 2026 change tests each bit instead
 * ("explicit", after).  On the kernel's layout both forms give identical flags
 * for every mask; on a renumbered layout the coupled form sets bits that mean
 * nothing, so the machine refuses it unless the layout is RENUMBERED_FORCED.
 * Every function takes the layout so the lesson can be run, not just told.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The kernel's compile-time guards of the coupled form. */
_Static_assert(SIM_GFP_HIGH == SIM_ALLOC_MIN_RESERVE, "__GFP_HIGH must equal ALLOC_MIN_RESERVE");
_Static_assert(SIM_GFP_KSWAPD_RECLAIM == SIM_ALLOC_KSWAPD,
        "__GFP_KSWAPD_RECLAIM must equal ALLOC_KSWAPD");

static const struct alloc_layout layouts[] = {
    [SIM_ALLOC_LAYOUT_KERNEL] = {SIM_ALLOC_MIN_RESERVE, SIM_ALLOC_KSWAPD, SIM_ALLOC_WMARK_MASK,
            SIM_ALLOC_NO_WATERMARKS, SIM_ALLOC_OOM, SIM_ALLOC_NON_BLOCK, SIM_ALLOC_CPUSET,
            SIM_ALLOC_CMA, SIM_ALLOC_NOFRAGMENT, SIM_ALLOC_HIGHATOMIC},
    [SIM_ALLOC_LAYOUT_RENUMBERED] = {0x1000, 0x2000, SIM_ALLOC_WMARK_MASK,
            SIM_ALLOC_NO_WATERMARKS, SIM_ALLOC_OOM, SIM_ALLOC_NON_BLOCK, SIM_ALLOC_CPUSET,
            SIM_ALLOC_CMA, SIM_ALLOC_NOFRAGMENT, SIM_ALLOC_HIGHATOMIC},
    [SIM_ALLOC_LAYOUT_RENUMBERED_FORCED] = {0x1000, 0x2000, SIM_ALLOC_WMARK_MASK,
            SIM_ALLOC_NO_WATERMARKS, SIM_ALLOC_OOM, SIM_ALLOC_NON_BLOCK, SIM_ALLOC_CPUSET,
            SIM_ALLOC_CMA, SIM_ALLOC_NOFRAGMENT, SIM_ALLOC_HIGHATOMIC},
};

/* The bit values of @layout (the kernel's for an unknown one). */
const struct alloc_layout *alloc_layout_of(unsigned layout)
{
    return &layouts[layout <= SIM_ALLOC_LAYOUT_RENUMBERED_FORCED ? layout : 0];
}

static const char *const layout_names[] = {"kernel", "renumbered", "renumbered-forced"};

const char *sim_alloc_layout_name(unsigned layout)
{
    return name_of(layout_names, SIM_ALLOC_LAYOUT_RENUMBERED_FORCED + 1, layout);
}

int sim_alloc_layout_lookup(const char *name)
{
    return name_lookup(layout_names, SIM_ALLOC_LAYOUT_RENUMBERED_FORCED + 1, name);
}

static const char *const context_names[] = {"task", "atomic", "rt"};

const char *sim_gfp_context_name(unsigned c)
{
    return name_of(context_names, SIM_CTX_RT + 1, c);
}

int sim_gfp_context_lookup(const char *name)
{
    return name_lookup(context_names, SIM_CTX_RT + 1, name);
}

struct sim_gfp_ctx sim_gfp_ctx_of(enum sim_gfp_context c, bool cma)
{
    struct sim_gfp_ctx ctx = {.in_task = c != SIM_CTX_ATOMIC, .rt_or_dl = c == SIM_CTX_RT,
            .cma = cma};

    return ctx;
}

static const char *const zone_names[SIM_NR_ZONE_TYPES] = {"DMA", "DMA32", "Normal", "Movable"};

const char *sim_zone_name(unsigned type)
{
    return type < SIM_NR_ZONE_TYPES ? zone_names[type] : NULL;
}

static const char *const mt_names[] = {"Unmovable", "Movable", "Reclaimable", "HighAtomic"};

const char *sim_migratetype_name(unsigned mt)
{
    return mt <= SIM_MIGRATE_HIGHATOMIC ? mt_names[mt] : NULL;
}

int sim_gfp_zone(uint32_t gfp)
{
    uint32_t z = gfp & (SIM_GFP_DMA | SIM_GFP_HIGHMEM | SIM_GFP_DMA32);

    if (z & (z - 1))
        return -EINVAL; /* GFP_ZONE_BAD: two zone modifiers */
    if (z == SIM_GFP_DMA)
        return SIM_ZONE_DMA;
    if (z == SIM_GFP_DMA32)
        return SIM_ZONE_DMA32;
    if (z == SIM_GFP_HIGHMEM && (gfp & SIM_GFP_MOVABLE))
        return SIM_ZONE_MOVABLE;
    return SIM_ZONE_NORMAL; /* no ZONE_HIGHMEM on 64-bit */
}

unsigned sim_gfp_migratetype(uint32_t gfp)
{
    return (gfp & (SIM_GFP_MOVABLE | SIM_GFP_RECLAIMABLE)) >> 3;
}

/* gfp_to_alloc_flags_cma */
static unsigned add_cma(uint32_t gfp, unsigned f, const struct sim_gfp_ctx *ctx,
        const struct alloc_layout *l)
{
    if (ctx->cma && sim_gfp_migratetype(gfp) == SIM_MIGRATE_MOVABLE)
        f |= l->cma;
    return f;
}

/* The two bits the coupled form copies and the explicit form tests. */
static unsigned translate_bits(uint32_t gfp, uint32_t which, unsigned translate,
        const struct alloc_layout *l)
{
    unsigned f = 0;

    if (translate == SIM_BEFORE)
        return gfp & which;
    if ((which & SIM_GFP_HIGH) && (gfp & SIM_GFP_HIGH))
        f |= l->min_reserve;
    if ((which & SIM_GFP_KSWAPD_RECLAIM) && (gfp & SIM_GFP_KSWAPD_RECLAIM))
        f |= l->kswapd;
    return f;
}

unsigned sim_gfp_to_alloc_flags(uint32_t gfp, unsigned order, const struct sim_gfp_ctx *ctx,
        unsigned translate, unsigned layout)
{
    const struct alloc_layout *l = alloc_layout_of(layout);
    unsigned f = SIM_ALLOC_WMARK_MIN | l->cpuset;

    f |= translate_bits(gfp, SIM_GFP_HIGH | SIM_GFP_KSWAPD_RECLAIM, translate, l);
    if (!(gfp & SIM_GFP_DIRECT_RECLAIM)) {
        if (!(gfp & SIM_GFP_NOMEMALLOC)) {
            f |= l->non_block;
            /* high-order GFP_ATOMIC only (the 2025 fix) */
            if (order > 0 && (f & l->min_reserve))
                f |= l->highatomic;
        }
        if (f & l->min_reserve)
            f &= ~l->cpuset; /* ignore cpuset mems rather than fail */
    } else if (ctx->rt_or_dl && ctx->in_task) {
        f |= l->min_reserve;
    }
    return add_cma(gfp, f, ctx, l);
}

unsigned sim_alloc_flags_nofragment(uint32_t gfp, unsigned zone_type, bool dma32,
        unsigned translate, unsigned layout)
{
    const struct alloc_layout *l = alloc_layout_of(layout);
    unsigned f = translate_bits(gfp, SIM_GFP_KSWAPD_RECLAIM, translate, l);

    if (zone_type == SIM_ZONE_NORMAL && dma32)
        f |= l->nofragment;
    return f;
}

unsigned sim_gfp_pfmemalloc_flags(uint32_t gfp, const struct sim_gfp_ctx *ctx, unsigned layout)
{
    const struct alloc_layout *l = alloc_layout_of(layout);

    if (gfp & SIM_GFP_NOMEMALLOC)
        return 0;
    if (gfp & SIM_GFP_MEMALLOC)
        return l->no_watermarks;
    if (!ctx->in_task && ctx->pf_memalloc)
        return l->no_watermarks; /* serving a softirq for a reclaiming task */
    if (ctx->in_task) {
        if (ctx->pf_memalloc)
            return l->no_watermarks;
        if (ctx->oom_victim)
            return l->oom;
    }
    return 0;
}

long sim_effective_min(unsigned flags, long mark, unsigned layout)
{
    const struct alloc_layout *l = alloc_layout_of(layout);
    long min = mark;

    if (flags & (l->non_block | l->min_reserve | l->highatomic | l->oom)) {
        if (flags & l->min_reserve) {
            min -= min / 2;
            if (flags & l->non_block)
                min -= min / 4;
        }
        if (flags & l->oom)
            min -= min / 2;
    }
    return min;
}

struct flag_name {
    const char *name;
    unsigned offset; /* of the bit in struct alloc_layout */
};

#define LAYOUT_FIELD(f) offsetof(struct alloc_layout, f)

static const struct flag_name alloc_names[] = {
    {"NO_WATERMARKS", LAYOUT_FIELD(no_watermarks)},
    {"OOM", LAYOUT_FIELD(oom)},
    {"NON_BLOCK", LAYOUT_FIELD(non_block)},
    {"MIN_RESERVE", LAYOUT_FIELD(min_reserve)},
    {"CPUSET", LAYOUT_FIELD(cpuset)},
    {"CMA", LAYOUT_FIELD(cma)},
    {"NOFRAGMENT", LAYOUT_FIELD(nofragment)},
    {"HIGHATOMIC", LAYOUT_FIELD(highatomic)},
    {"KSWAPD", LAYOUT_FIELD(kswapd)},
};

#define NR_ALLOC_NAMES (sizeof(alloc_names) / sizeof(alloc_names[0]))

static unsigned layout_bit(const struct alloc_layout *l, unsigned offset)
{
    unsigned v;

    memcpy(&v, (const char *)l + offset, sizeof(v));
    return v;
}

size_t sim_alloc_flags_format(unsigned flags, unsigned layout, char *buf, size_t len)
{
    static const char *const wmark[] = {"WMARK_MIN", "WMARK_LOW", "WMARK_HIGH", "WMARK_3"};
    const struct alloc_layout *l = alloc_layout_of(layout);
    unsigned left = flags & ~l->wmark_mask;
    size_t n = 0;

    if (len)
        buf[0] = 0;
    if (!(flags & l->no_watermarks))
        n += (size_t)snprintf(buf, len, "%s", wmark[flags & l->wmark_mask]);
    /* in ascending bit order, as the table of the kernel's header */
    for (unsigned bit = 1; bit && left; bit <<= 1) {
        const char *name = NULL;

        if (!(left & bit))
            continue;
        for (size_t i = 0; i < NR_ALLOC_NAMES; i++)
            if (layout_bit(l, alloc_names[i].offset) == bit)
                name = alloc_names[i].name;
        if (!name)
            continue;
        n = gfp_text_add(buf, len, n, name);
        left &= ~bit;
    }
    return gfp_text_rest(buf, len, n, left);
}

unsigned sim_alloc_flags_to_kernel(unsigned flags, unsigned layout)
{
    const struct alloc_layout *from = alloc_layout_of(layout), *to = &layouts[0];
    unsigned out = flags & from->wmark_mask;

    for (size_t i = 0; i < NR_ALLOC_NAMES; i++)
        if (flags & layout_bit(from, alloc_names[i].offset))
            out |= layout_bit(to, alloc_names[i].offset);
    return out;
}
