/*
 * fastpath.c: `slublab bench fastpath`: alloc+free pairs on the sheaf fast
 * path (alloc_from_pcs, free_to_pcs) with the event callback off and on,
 * and glibc malloc/free on the same pattern, in the same run.
 *
 * The engine machine has one 64-byte cache whose main sheaf holds objects
 * after a first allocation, so every pair is one pop and one push.  The
 * glibc loop keeps one object live as well and touches it, so neither side
 * can be optimised into nothing.  The legacy model's fast path (a pop from
 * and a push onto the cpu slab's lockless freelist, chained through the
 * objects' free pointers) runs the same pattern, events off.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#include "slub.h"
#include "cli/cli.h"

#define PAIRS 2000000ul

static void count_event(const struct sim_event *ev, void *arg)
{
    *(uint64_t *)arg += ev->nr_moves;
}

/* Pairs per second on the engine, or a negative value on failure. */
static double engine_pairs(bool events, bool legacy, unsigned long pairs)
{
    struct sim_config cfg;
    struct sim *sim;
    struct sim_result *res = malloc(sizeof(*res));
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    struct sim_op alloc = {.kind = SIM_OP_ALLOC, .node = SIM_NUMA_NO_NODE};
    struct sim_op fr = {.kind = SIM_OP_FREE, .node = SIM_NUMA_NO_NODE};
    uint64_t moves = 0, t0, t1;
    double rate = -1;

    sim_config_default(&cfg);
    if (legacy)
        cfg.model = SIM_MODEL_LEGACY;
    if (!res || sim_create(&cfg, &sim)) {
        free(res);
        return -1;
    }
    snprintf(op.create.name, sizeof(op.create.name), "fast");
    op.create.object_size = 64;
    if (sim_apply(sim, &op, res) || res->status != SIM_OK)
        goto out;
    alloc.cache = fr.cache = res->cache;
    if (sim_apply(sim, &alloc, res) || !res->addr) /* the refill, untimed */
        goto out;
    if (events)
        sim_set_event_cb(sim, count_event, &moves);
    t0 = bench_now_ns();
    for (unsigned long i = 0; i < pairs; i++) {
        if (sim_apply(sim, &alloc, res) || !res->addr)
            goto out;
        fr.addr = res->addr;
        if (sim_apply(sim, &fr, res) || res->status != SIM_OK)
            goto out;
    }
    t1 = bench_now_ns();
    rate = (double)pairs * 1e9 / (double)(t1 - t0);
out:
    sim_destroy(sim);
    free(res);
    return rate;
}

/* Called through volatile pointers: a compiler that sees malloc and free
 * may drop the pair altogether (clang does), and time an empty loop. */
static void *(*volatile glibc_malloc)(size_t) = malloc;
static void (*volatile glibc_free)(void *) = free;

static double glibc_pairs(unsigned long pairs)
{
    void *volatile keep = malloc(64);
    uint64_t t0, t1;

    t0 = bench_now_ns();
    for (unsigned long i = 0; i < pairs; i++) {
        char *p = glibc_malloc(64);

        if (!p)
            return -1;
        p[0] = (char)i;
        glibc_free(p);
    }
    t1 = bench_now_ns();
    free(keep);
    return (double)pairs * 1e9 / (double)(t1 - t0);
}

int bench_fastpath(const struct bench_opts *o)
{
    enum { NR = 4 };
    static const char *const impls[NR] = {"engine_events_off", "engine_events_on", "glibc",
            "engine_legacy_events_off"};
    double *v[NR];
    double med[NR];
    unsigned long pairs = (unsigned long)((double)PAIRS * o->scale);

    if (pairs < 1000)
        pairs = 1000;
    for (int k = 0; k < NR; k++)
        v[k] = calloc(o->rounds, sizeof(double));
    if (!v[0] || !v[1] || !v[2] || !v[3]) {
        for (int k = 0; k < NR; k++)
            free(v[k]);
        return cli_usage_error("bench", "out of memory");
    }
    for (unsigned r = 0; r < o->rounds; r++) { /* interleaved: the same noise for all */
        v[0][r] = engine_pairs(false, false, pairs);
        v[1][r] = engine_pairs(true, false, pairs);
        v[2][r] = glibc_pairs(pairs);
        v[3][r] = engine_pairs(false, true, pairs);
        if (v[0][r] < 0 || v[1][r] < 0 || v[2][r] < 0 || v[3][r] < 0) {
            for (int k = 0; k < NR; k++)
                free(v[k]);
            return cli_usage_error("bench", "fastpath: a step failed");
        }
    }
    for (int k = 0; k < NR; k++) {
        med[k] = bench_median(v[k], o->rounds);
        free(v[k]);
    }
    if (o->json) {
        printf("{\"rows\":[");
        for (int k = 0; k < NR; k++)
            printf("%s{\"impl\":\"%s\",\"pairs_per_sec\":%.0f}", k ? "," : "", impls[k], med[k]);
        printf("]}\n");
    } else {
        printf("%-24s %16s %10s\n", "impl", "pairs/s", "vs glibc");
        for (int k = 0; k < NR; k++)
            printf("%-24s %16.0f %10.2f\n", impls[k], med[k], med[k] / med[2]);
    }
    return CLI_OK;
}
