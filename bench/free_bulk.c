/*
 * free_bulk.c: `slublab bench free-bulk`, after the 2015 "slub: introducing
 * detached freelist" series.
 *
 * Per bulk size, objects come from one kmem_cache_alloc_bulk, so
 * neighbours share slabs as in the series' test, and go back with one
 * kmem_cache_free_bulk into a cache whose sheaves cannot take them (a
 * cache created with SLAB_NO_OBJ_EXT has none, like the kernel's boot
 * caches).  DETACHED_FREELIST before (every object updates its slab on its
 * own) and after (objects of one slab go back in one update) run side by
 * side; the report gives slab updates per object (engine_slab_updates, a
 * count that does not depend on the machine) and ns per object (median of
 * the rounds).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#include "slub.h"
#include "cli/cli.h"

#define OBJECTS_PER_ROUND 200000u

struct fb_result {
    double ns_per_object;
    double updates_per_object;
};

static int fb_measure(unsigned bulk, unsigned variant, unsigned rounds, struct fb_result *out)
{
    struct sim_config cfg;
    struct sim *sim;
    struct sim_result *res = malloc(sizeof(*res));
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    sim_addr_t *objs = malloc(bulk * sizeof(*objs));
    double *ns = calloc(rounds, sizeof(double));
    unsigned iters = OBJECTS_PER_ROUND / bulk + 1;
    uint64_t upd0, upd1;
    int ret = -1, cache;

    sim_config_default(&cfg);
    cfg.variant[SIM_VAR_DETACHED_FREELIST] = (uint8_t)variant;
    if (!res || !objs || !ns || sim_create(&cfg, &sim))
        goto out_free;
    snprintf(op.create.name, sizeof(op.create.name), "bulk");
    op.create.object_size = 256;
    op.create.flags = SIM_SLAB_NO_OBJ_EXT; /* no sheaves */
    if (sim_apply(sim, &op, res) || res->status != SIM_OK)
        goto out;
    cache = res->cache;
    upd0 = sim_stat(sim, cache, SIM_ENGINE_SLAB_UPDATES, -1);
    for (unsigned r = 0; r < rounds; r++) {
        uint64_t spent = 0;

        for (unsigned i = 0; i < iters; i++) {
            struct sim_op a = {.kind = SIM_OP_ALLOC_BULK, .cache = cache, .count = bulk,
                    .out = objs, .node = SIM_NUMA_NO_NODE};
            struct sim_op f = {.kind = SIM_OP_FREE_BULK, .cache = cache, .count = bulk,
                    .in = objs, .node = SIM_NUMA_NO_NODE};
            uint64_t t0;

            if (sim_apply(sim, &a, res) || res->count != bulk)
                goto out;
            t0 = bench_now_ns();
            if (sim_apply(sim, &f, res) || res->status != SIM_OK)
                goto out;
            spent += bench_now_ns() - t0;
        }
        ns[r] = (double)spent / ((double)iters * bulk);
    }
    upd1 = sim_stat(sim, cache, SIM_ENGINE_SLAB_UPDATES, -1);
    out->ns_per_object = bench_median(ns, rounds);
    out->updates_per_object = (double)(upd1 - upd0) / ((double)rounds * iters * bulk);
    ret = 0;
out:
    sim_destroy(sim);
out_free:
    free(res);
    free(objs);
    free(ns);
    return ret;
}

int bench_free_bulk(const struct bench_opts *o)
{
    static const unsigned sizes[] = {1, 2, 3, 4, 8, 16, 30, 32, 34, 48, 64, 128, 158, 250};

    if (o->json)
        printf("{\"rows\":[");
    else
        printf("%-6s %14s %14s %12s %12s %8s\n", "bulk", "before upd/obj", "after upd/obj",
                "before ns", "after ns", "ns ratio");
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct fb_result b, a;

        if (fb_measure(sizes[i], SIM_BEFORE, o->rounds, &b) ||
                fb_measure(sizes[i], SIM_AFTER, o->rounds, &a))
            return cli_usage_error("bench", "free-bulk: the engine refused a step");
        if (o->json)
            printf("%s{\"bulk\":%u,\"before_slab_updates_per_object\":%.3f,"
                   "\"after_slab_updates_per_object\":%.3f,\"before_ns_per_object\":%.2f,"
                   "\"after_ns_per_object\":%.2f}",
                    i ? "," : "", sizes[i], b.updates_per_object, a.updates_per_object,
                    b.ns_per_object, a.ns_per_object);
        else
            printf("%-6u %14.3f %14.3f %12.2f %12.2f %8.2f\n", sizes[i], b.updates_per_object,
                    a.updates_per_object, b.ns_per_object, a.ns_per_object,
                    a.ns_per_object / b.ns_per_object);
        fflush(stdout);
    }
    if (o->json)
        printf("]}\n");
    return CLI_OK;
}
