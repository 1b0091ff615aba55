/*
 * bench.c: the `slublab bench` command: its option table (cli.h), timing
 * helpers, the table of benchmarks and the big machine the image and
 * clone benchmarks share.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "slub.h"

uint64_t bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double bench_median(double *v, unsigned n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const struct {
    const char *name;
    int (*run)(const struct bench_opts *o);
    const char *summary;
} benches[] = {
        {"fresh-slab", bench_fresh_slab,
         "kmem_cache_alloc_bulk of whole fresh slabs, DEFERRED_FREELIST before/after"},
        {"fastpath", bench_fastpath,
         "alloc+free pairs on the sheaf fast path, events off/on, against glibc"},
        {"free-bulk", bench_free_bulk,
         "kmem_cache_free_bulk to slabs, DETACHED_FREELIST before/after"},
        {"gfp-equiv", bench_gfp_equiv,
         "gfp_to_alloc_flags coupled == explicit over every 24-bit mask, and their speed"},
        {"replay-trace", bench_replay_trace,
         "a kernel kmem trace replayed, events off: parse only, text, gzip"},
        {"image", bench_image,
         "a machine of ~300k objects as an image: meta size, save and load against sim_clone"},
        {"clone", bench_clone,
         "sim_clone+sim_destroy of a machine of ~300k objects: pages shared, some or all written"},
};

/* What the command line gives; bench_main() turns it into struct bench_opts. */
struct bench_args {
    const char *name, *scale, *trace;
    bool json;
    struct cli_u64 rounds;
};

static const struct cli_opt bench_table_opts[] = {
        {CLI_TO(struct bench_args, json), .name = "json",
         .help = "one JSON object: {\"rows\":[...]}"},
        {CLI_TO(struct bench_args, rounds), .name = "rounds", .arg = "N", .min = 1, .max = 1000,
         .help = "measured rounds per configuration (default 5); medians are shown"},
        {CLI_TO(struct bench_args, scale), .name = "scale", .arg = "X",
         .help = "multiply the amount of work (default 1.0)"},
        {CLI_TO(struct bench_args, trace), .name = "trace", .arg = "FILE",
         .help = "replay-trace: the trace (default: the shared sample, else the slice in "
                 "tests/data)"},
        {0},
};

/* The benchmarks, between the description and the options of --help. */
static void bench_list(FILE *f)
{
    for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
        fprintf(f, "  %-12s %s\n", benches[i].name, benches[i].summary);
}

static int bench_main(int argc, char **argv)
{
    struct bench_args args = {0};
    struct bench_opts o = {.json = false, .rounds = 5, .scale = 1.0};
    int ret;

    if (!cli_parse(&cmd_bench, argc, argv, &args, &ret))
        return ret;
    o.json = args.json;
    o.trace = args.trace;
    if (args.rounds.given)
        o.rounds = (unsigned)args.rounds.value;
    if (args.scale) {
        char *end;

        o.scale = strtod(args.scale, &end);
        if (end == args.scale || *end || !(o.scale > 0.0) || o.scale > 100.0)
            return cli_usage_error("bench", "--scale must be in (0, 100]");
    }
    for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
        if (!strcmp(benches[i].name, args.name))
            return benches[i].run(&o);
    return cli_usage_error("bench", "no benchmark \"%s\" (slublab bench --help)", args.name);
}

const struct cli_command cmd_bench = {
        .name = "bench",
        .pos = {.name = "NAME",
                .offset = offsetof(struct bench_args, name),
                .what = "benchmark",
                .missing = "which benchmark? (slublab bench --help)"},
        .groups = {{bench_table_opts, 0}},
        .more_help = bench_list,
        .run = bench_main,
};

/* The machine of the image and clone benchmarks (see bench.h). */
struct sim *bench_big_machine(unsigned live)
{
    static const unsigned sizes[] = {32, 64, 96, 128, 256, 512, 1024, 4096};
    struct sim_config cfg;
    struct sim_result *res = malloc(sizeof(*res));
    struct sim *sim = NULL;
    unsigned held = 0;

    sim_config_default(&cfg);
    cfg.nr_cpus = 4;
    cfg.nr_nodes = 2;
    cfg.cpu_node[2] = cfg.cpu_node[3] = 1;
    cfg.mem_per_node = 1ull << 30;
    if (!res || sim_create(&cfg, &sim)) {
        free(res);
        return NULL;
    }
    for (uint64_t i = 0; held < live; i++) {
        struct sim_op op = {.kind = SIM_OP_KMALLOC,
                            .cpu = (unsigned)(i % 4),
                            .node = SIM_NUMA_NO_NODE,
                            .size = sizes[(i / 64) % 8]};

        if (sim_apply(sim, &op, res) || res->status != SIM_OK)
            break;
        if (i % 7 == 6) {
            op.kind = SIM_OP_KFREE;
            op.addr = res->addr;
            if (sim_apply(sim, &op, res))
                break;
        } else {
            held++;
        }
    }
    free(res);
    return sim;
}
