/*
 * watermark.c: the three lines each zone keeps free, and the test against them.
 *
 * At start-up every zone gets min, low, high (and promo) watermarks from
 * min_free_kbytes, shared among the zones in proportion to their size (kernel:
 * __setup_per_zone_wmarks), and a lowmem reserve protecting a lower zone from
 * requests that could have used a higher one (kernel:
 * setup_per_zone_lowmem_reserve, ratios DMA 256, DMA32 256, Normal 32).  The
 * watermark test (kernel: __zone_watermark_ok) subtracts what an allocation of
 * the order cannot use, cuts the mark by the reserves the ALLOC flags grant
 * (MIN_RESERVE half, NON_BLOCK a further quarter, OOM half again) and, above
 * order 0, wants a free block of that order.  The model has no highatomic
 * reserve, no CMA pages and no watermark boost: those terms are 0.
 * min_free_kbytes and watermark_scale_factor are machine parameters.
 */
#include "internal.h"

static unsigned long int_sqrt(unsigned long x)
{
    unsigned long r = 0;

    while ((r + 1) * (r + 1) <= x)
        r++;
    return r;
}

static const unsigned lowmem_reserve_ratio[SIM_NR_ZONE_TYPES] = {256, 256, 32, 0};

static unsigned long nr_free_buffer_pages(const struct sim *sim)
{
    unsigned long lowmem = 0;

    for (unsigned i = 0; i < sim->nr_zones; i++)
        if (sim->zones[i].type != SIM_ZONE_MOVABLE)
            lowmem += sim->zones[i].pages;
    return lowmem;
}

/* The machine's min_free_kbytes, or sqrt(16 * lowmem KiB) clamped to
 * 128..262144 when the config leaves it 0 (kernel: calculate_min_free_kbytes). */
unsigned long sim_min_free_kbytes(const struct sim *sim)
{
    unsigned long kbytes = sim->cfg.min_free_kbytes;

    if (!kbytes) {
        kbytes = int_sqrt(nr_free_buffer_pages(sim) * (PAGE_SIZE / 1024) * 16);
        kbytes = kbytes < 128 ? 128 : kbytes > 262144 ? 262144 : kbytes;
    }
    return kbytes;
}

unsigned sim_watermark_scale_factor(const struct sim *sim)
{
    return sim->cfg.watermark_scale_factor ? sim->cfg.watermark_scale_factor : 10;
}

/* Per-zone watermarks and lowmem reserves of every zone (kernel:
 * calculate_min_free_kbytes, __setup_per_zone_wmarks,
 * setup_per_zone_lowmem_reserve).  Cannot fail. */
void setup_per_zone_wmarks(struct sim *sim)
{
    unsigned long lowmem = nr_free_buffer_pages(sim), pages_min;
    unsigned factor = sim_watermark_scale_factor(sim);

    pages_min = sim_min_free_kbytes(sim) / (PAGE_SIZE / 1024);
    for (unsigned i = 0; i < sim->nr_zones; i++) {
        struct zone *z = &sim->zones[i];
        unsigned long share = (unsigned long)((uint64_t)pages_min * z->pages / lowmem);
        unsigned long scaled = (unsigned long)((uint64_t)z->pages * factor / 10000);
        unsigned long gap = share / 4 > scaled ? share / 4 : scaled;

        z->wmark[SIM_WMARK_MIN] = share;
        z->wmark[SIM_WMARK_LOW] = share + gap;
        z->wmark[SIM_WMARK_HIGH] = share + 2 * gap;
        z->wmark[SIM_WMARK_PROMO] = share + 3 * gap;
    }
    for (unsigned n = 0; n < sim->cfg.nr_nodes; n++) {
        for (unsigned t = 0; t < SIM_NR_ZONE_TYPES; t++) {
            int zi = sim->zone_of_type[n][t];
            unsigned long upper = 0;

            if (zi < 0)
                continue;
            for (unsigned j = t + 1; j < SIM_NR_ZONE_TYPES; j++) {
                int uj = sim->zone_of_type[n][j];

                upper += uj >= 0 ? sim->zones[uj].pages : 0;
                sim->zones[zi].lowmem_reserve[j] =
                        lowmem_reserve_ratio[t] ? upper / lowmem_reserve_ratio[t] : 0;
            }
        }
    }
}

/*
 * Whether @z may serve 2^@order pages for a request whose highest zone is
 * @highest_zone, against watermark @mark with ALLOC flags @flags (kernel:
 * __zone_watermark_ok).  *@threshold gets the value the usable free pages
 * had to exceed.  Cannot fail.
 */
bool zone_watermark_ok(const struct sim *sim, const struct zone *z, unsigned order,
        unsigned long mark, unsigned highest_zone, unsigned flags, long *threshold)
{
    long free = (long)z->free_pages - ((1l << order) - 1);
    long min = sim_effective_min(flags, (long)mark, sim->cfg.alloc_layout);

    /* no highatomic reserve and no CMA pages to subtract in this model */
    *threshold = min + (long)z->lowmem_reserve[highest_zone];
    if (free <= *threshold)
        return false;
    if (order == 0)
        return true;
    for (unsigned o = order; o <= MAX_PAGE_ORDER; o++)
        if (zone_nr_free(z, o))
            return true; /* every free block is of a usable type here */
    return false;
}
