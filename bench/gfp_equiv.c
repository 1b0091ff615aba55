/*
 * gfp_equiv.c: `slublab bench gfp-equiv`, the full sweep of gfp_to_alloc_flags.
 *
 * Brendan Jackman's 2026 change replaced the coupled gfp_to_alloc_flags
 * (two bits copied from the gfp mask, valid because __GFP_HIGH ==
 * ALLOC_MIN_RESERVE and __GFP_KSWAPD_RECLAIM == ALLOC_KSWAPD) by explicit
 * tests, and reported the cost as "a wash".  This sweep evaluates both
 * forms for every mask of the 24 defined non-debug bits, orders 0, 1, 3 and
 * 9, and the eight contexts (realtime, in task, CMA), and both forms of
 * alloc_flags_nofragment for every zone type with and without ZONE_DMA32.
 * It counts disagreements (there must be none: the test suite's fast form
 * is tests/engine/test_gfp.c) and times each form over the sweep; --scale
 * takes a fraction of the masks.  The engine's functions are out-of-line
 * calls that take the layout, so the times are the engine's, not the
 * kernel's inlined code.
 */
#include "bench.h"

#include <stdlib.h>

#include "slub.h"
#include "cli/cli.h"

#define NR_MASKS (1u << 24)

static const unsigned orders[] = {0, 1, 3, 9};

/* One pass of @translate over @masks masks: the flags summed (so the calls
 * stay), and the time in *ns. */
static uint64_t sweep(unsigned translate, uint32_t masks, uint64_t *ns)
{
    uint64_t sum = 0, t0 = bench_now_ns();

    for (uint32_t gfp = 0; gfp < masks; gfp++)
        for (unsigned c = 0; c < 8; c++) {
            struct sim_gfp_ctx ctx = {.rt_or_dl = c & 1, .in_task = (c >> 1) & 1,
                    .cma = (c >> 2) & 1};

            for (unsigned o = 0; o < 4; o++)
                sum += sim_gfp_to_alloc_flags(gfp, orders[o], &ctx, translate, 0);
        }
    *ns = bench_now_ns() - t0;
    return sum;
}

/* Disagreements between the forms over @masks masks. */
static uint64_t compare(uint32_t masks)
{
    uint64_t bad = 0;

    for (uint32_t gfp = 0; gfp < masks; gfp++) {
        for (unsigned c = 0; c < 8; c++) {
            struct sim_gfp_ctx ctx = {.rt_or_dl = c & 1, .in_task = (c >> 1) & 1,
                    .cma = (c >> 2) & 1};

            for (unsigned o = 0; o < 4; o++)
                bad += sim_gfp_to_alloc_flags(gfp, orders[o], &ctx, SIM_BEFORE, 0) !=
                        sim_gfp_to_alloc_flags(gfp, orders[o], &ctx, SIM_AFTER, 0);
        }
        for (unsigned z = 0; z < SIM_NR_ZONE_TYPES; z++)
            for (unsigned d = 0; d < 2; d++)
                bad += sim_alloc_flags_nofragment(gfp, z, d, SIM_BEFORE, 0) !=
                        sim_alloc_flags_nofragment(gfp, z, d, SIM_AFTER, 0);
    }
    return bad;
}

int bench_gfp_equiv(const struct bench_opts *o)
{
    double scale = o->scale > 1.0 ? 1.0 : o->scale;
    uint32_t masks = (uint32_t)(NR_MASKS * scale);
    double *cns = calloc(o->rounds, sizeof(double)), *ens = calloc(o->rounds, sizeof(double));
    uint64_t bad, csum = 0, esum = 0, evals;
    double c, e;

    if (!cns || !ens) {
        free(cns);
        free(ens);
        return cli_usage_error("bench", "gfp-equiv: out of memory");
    }
    masks = masks ? masks : 1;
    bad = compare(masks);
    evals = (uint64_t)masks * 8 * 4;
    for (unsigned r = 0; r < o->rounds; r++) {
        uint64_t ns;

        csum = sweep(SIM_BEFORE, masks, &ns);
        cns[r] = (double)ns / (double)evals;
        esum = sweep(SIM_AFTER, masks, &ns);
        ens[r] = (double)ns / (double)evals;
    }
    c = bench_median(cns, o->rounds);
    e = bench_median(ens, o->rounds);
    if (o->json)
        printf("{\"rows\":[{\"masks\":%u,\"evaluations\":%llu,\"nofragment_evaluations\":%llu,"
               "\"disagreements\":%llu,\"coupled_ns\":%.3f,\"explicit_ns\":%.3f,"
               "\"ratio\":%.3f,\"checksums_equal\":%s}]}\n",
                masks, (unsigned long long)evals, (unsigned long long)masks * 8,
                (unsigned long long)bad, c, e, e / c, csum == esum ? "true" : "false");
    else
        printf("masks %u (bits 0..23), %llu gfp_to_alloc_flags and %llu alloc_flags_nofragment "
               "pairs compared\ndisagreements %llu\n"
               "coupled  %.3f ns per call (median of %u rounds)\n"
               "explicit %.3f ns per call\nratio explicit/coupled %.3f\n",
                masks, (unsigned long long)evals, (unsigned long long)masks * 8,
                (unsigned long long)bad, c, o->rounds, e, e / c);
    free(cns);
    free(ens);
    return bad || csum != esum ? CLI_FAIL : CLI_OK;
}
