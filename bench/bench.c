/*
 * bench.c: the `slublab bench` command: option parsing, timing helpers and
 * the table of benchmarks.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

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
};

void cli_bench_usage(FILE *f)
{
    fputs("usage: slublab bench NAME [--json] [--rounds N] [--scale X]\n"
          "\n"
          "Benchmarks (figures and targets: docs/benchmarks.md):\n",
            f);
    for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
        fprintf(f, "  %-12s %s\n", benches[i].name, benches[i].summary);
    fputs("\n"
          "  --json       one JSON object: {\"rows\":[...]}\n"
          "  --rounds N   measured rounds per configuration (default 5); medians are shown\n"
          "  --scale X    multiply the amount of work (default 1.0)\n"
          "  --trace FILE replay-trace: the trace (default: the shared sample, else the\n"
          "               slice in tests/data)\n",
            f);
}

int cli_bench(int argc, char **argv)
{
    struct bench_opts o = {.json = false, .rounds = 5, .scale = 1.0};
    const char *name = NULL;

    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            cli_bench_usage(stdout);
            return CLI_OK;
        } else if (!strcmp(argv[i], "--json")) {
            o.json = true;
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            uint64_t v;

            if (!cli_parse_u64(argv[++i], &v) || v < 1 || v > 1000)
                return cli_usage_error("bench", "--rounds must be 1..1000");
            o.rounds = (unsigned)v;
        } else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
            char *end;

            o.scale = strtod(argv[++i], &end);
            if (*end || !(o.scale > 0.0) || o.scale > 100.0)
                return cli_usage_error("bench", "--scale must be in (0, 100]");
        } else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
            o.trace = argv[++i];
        } else if (!name && argv[i][0] != '-') {
            name = argv[i];
        } else {
            return cli_usage_error("bench", "unexpected argument \"%s\"", argv[i]);
        }
    }
    if (!name)
        return cli_usage_error("bench", "which benchmark? (slublab bench --help)");
    for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
        if (!strcmp(benches[i].name, name))
            return benches[i].run(&o);
    return cli_usage_error("bench", "no benchmark \"%s\" (slublab bench --help)", name);
}
