/*
 * bench.h: `slublab bench NAME`, benchmarks that measure, never assert.
 *
 * Each benchmark compares what there is to compare in one run (a variant
 * before and after, the engine and glibc), repeats rounds and reports
 * medians, because this machine is shared and noisy.  Targets live in
 * docs/benchmarks.md, not in tests.
 */
#ifndef SLUBLAB_BENCH_BENCH_H
#define SLUBLAB_BENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct bench_opts {
    bool json;
    unsigned rounds;   /* measured rounds; the median is reported */
    double scale;      /* work multiplier (1.0 = the documented size) */
    const char *trace; /* --trace FILE (replay-trace); NULL: its default */
};

/* Monotonic nanoseconds. */
uint64_t bench_now_ns(void);
/* Median of @n values (sorts @v). */
double bench_median(double *v, unsigned n);

int bench_fresh_slab(const struct bench_opts *o);
int bench_fastpath(const struct bench_opts *o);
int bench_free_bulk(const struct bench_opts *o);
int bench_gfp_equiv(const struct bench_opts *o);
int bench_replay_trace(const struct bench_opts *o);
/* A machine of 4 CPUs on 2 nodes holding @live kmalloc objects of eight
 * sizes, one in seven of those allocated freed; NULL on failure. */
struct sim *bench_big_machine(unsigned live);
int bench_image(const struct bench_opts *o);
int bench_clone(const struct bench_opts *o);

#endif /* SLUBLAB_BENCH_BENCH_H */
