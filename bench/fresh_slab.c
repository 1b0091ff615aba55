/*
 * fresh_slab.c: `slublab bench fresh-slab`, after the kernel's
 * slub_bulk_bench as used for "mm/slub: defer freelist construction until
 * after bulk allocation from a new slab".
 *
 * Per object size, a private cache; one kmem_cache_alloc_bulk per batch of
 * exactly one slab's objects.  Warm-up rounds allocate the whole total and
 * free it (then shrink, so sheaves and partial slabs hold nothing); the
 * measured window allocates the whole total in batches with nothing freed
 * in between, so every batch comes from a fresh slab, timing only the
 * allocations.  DEFERRED_FREELIST before and after run side by side in
 * the same process, with freelist randomization off and on; the median of
 * the rounds is reported in ns per object.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#include "slub.h"
#include "cli/cli.h"

#define TOTAL_BYTES (64ull << 20)
#define WARMUP      2

struct fresh_run {
    struct sim *sim;
    int cache;
    unsigned batch;
    size_t nr;        /* objects in the total */
    sim_addr_t *objs; /* [nr] */
};

static int run_setup(struct fresh_run *r, unsigned size, unsigned variant, bool random)
{
    struct sim_config cfg;
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    struct sim_result *res = malloc(sizeof(*res));
    struct sim_geometry g;

    if (!res)
        return -1;
    sim_config_default(&cfg);
    cfg.mem_per_node = 4 * TOTAL_BYTES; /* room for the total and the slab overhead */
    cfg.freelist_random = random;
    cfg.variant[SIM_VAR_DEFERRED_FREELIST] = (uint8_t)variant;
    memset(r, 0, sizeof(*r));
    snprintf(op.create.name, sizeof(op.create.name), "bench-%u", size);
    op.create.object_size = size;
    if (sim_create(&cfg, &r->sim) || sim_apply(r->sim, &op, res) || res->status != SIM_OK ||
            sim_cache_geometry(&op.create, cfg.nr_cpus, &g)) {
        free(res);
        return -1;
    }
    r->cache = res->cache;
    free(res);
    r->batch = g.objects;
    r->nr = (size_t)(TOTAL_BYTES / size) / r->batch * r->batch;
    r->objs = malloc(r->nr * sizeof(*r->objs));
    return r->objs ? 0 : -1;
}

/* Allocate the total in slab-sized batches; returns ns spent in alloc_bulk,
 * or 0 on failure. */
static uint64_t alloc_total(struct fresh_run *r, struct sim_result *res)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC_BULK, .cache = r->cache, .node = SIM_NUMA_NO_NODE,
            .count = r->batch};
    uint64_t spent = 0;

    for (size_t i = 0; i < r->nr; i += r->batch) {
        uint64_t t0;

        op.out = r->objs + i;
        t0 = bench_now_ns();
        if (sim_apply(r->sim, &op, res) || res->count != r->batch)
            return 0;
        spent += bench_now_ns() - t0;
    }
    return spent ? spent : 1;
}

static int free_total(struct fresh_run *r, struct sim_result *res)
{
    struct sim_op op = {.kind = SIM_OP_FREE, .cache = r->cache, .node = SIM_NUMA_NO_NODE};

    for (size_t i = 0; i < r->nr; i++) {
        op.addr = r->objs[i];
        if (sim_apply(r->sim, &op, res) || res->status != SIM_OK)
            return -1;
    }
    op.kind = SIM_OP_SHRINK;
    return sim_apply(r->sim, &op, res);
}

static void run_release(struct fresh_run *r)
{
    sim_destroy(r->sim);
    free(r->objs);
}

/* Median ns per object over the rounds, or a negative value on failure. */
static double measure(unsigned size, unsigned variant, bool random, unsigned rounds,
        struct sim_result *res)
{
    struct fresh_run r;
    double *v = calloc(rounds, sizeof(double)), med = -1;
    unsigned i;

    if (!v || run_setup(&r, size, variant, random)) {
        free(v);
        return -1;
    }
    for (i = 0; i < WARMUP; i++)
        if (!alloc_total(&r, res) || free_total(&r, res))
            goto out;
    for (i = 0; i < rounds; i++) {
        uint64_t ns = alloc_total(&r, res);

        if (!ns || free_total(&r, res))
            goto out;
        v[i] = (double)ns / (double)r.nr;
    }
    med = bench_median(v, rounds);
out:
    run_release(&r);
    free(v);
    return med;
}

int bench_fresh_slab(const struct bench_opts *o)
{
    static const unsigned sizes[] = {16, 32, 64, 128, 256, 512};
    struct sim_result *res = malloc(sizeof(*res));
    bool first = true;

    if (!res)
        return cli_usage_error("bench", "out of memory");
    if (o->json)
        printf("{\"rows\":[");
    else
        printf("%-8s %-6s %12s %12s %8s\n", "obj_size", "random", "before ns/obj",
                "after ns/obj", "ratio");
    for (int random = 0; random <= 1; random++) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            double before = measure(sizes[i], SIM_BEFORE, random, o->rounds, res);
            double after = measure(sizes[i], SIM_AFTER, random, o->rounds, res);

            if (before < 0 || after < 0) {
                free(res);
                return cli_usage_error("bench", "fresh-slab: the engine refused a step");
            }
            if (o->json)
                printf("%s{\"obj_size\":%u,\"random\":%s,\"before_ns_per_object\":%.2f,"
                       "\"after_ns_per_object\":%.2f}",
                        first ? "" : ",", sizes[i], random ? "true" : "false", before, after);
            else
                printf("%-8u %-6s %12.2f %12.2f %8.2f\n", sizes[i], random ? "on" : "off",
                        before, after, after / before);
            first = false;
            fflush(stdout);
        }
    }
    if (o->json)
        printf("]}\n");
    free(res);
    return CLI_OK;
}
