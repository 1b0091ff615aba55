/*
 * clone.c: `slublab bench clone`, what a checkpoint copy costs now that page
 * bytes are shared copy-on-write between a machine and its clones
 * (engine/mem.c).
 *
 * One machine of 4 CPUs on 2 nodes with ~300,000 live objects (at --scale
 * 1), built as `slublab bench image` builds it.  Each round times, on the
 * same machine: sim_clone() then sim_destroy() (what a seek pays to copy its
 * checkpoint and drop it), and the same with one byte rewritten in every
 * page of the clone in between, which copies every page as a clone did when
 * it copied them all up front (the cost before sharing, plus the walk), and
 * with one byte rewritten in one page in 64 (a replay that writes a little).
 * Medians over the rounds; the ratio is of the medians.
 */
#include "bench.h"

#include <stdlib.h>

#include "slub.h"

#define LIVE_OBJECTS 300000u

/* Clone @sim, rewrite one byte in every @stride-th of its @n pages (none if
 * @stride is 0), destroy the clone.  Milliseconds, or a negative number. */
static double clone_round(const struct sim *sim, const sim_addr_t *pages, size_t n,
                          size_t stride)
{
    uint64_t t0 = bench_now_ns();
    struct sim *copy = NULL;

    if (sim_clone(sim, &copy))
        return -1;
    for (size_t i = 0; stride && i < n; i += stride) {
        uint8_t b;

        if (sim_read_bytes(copy, pages[i], &b, 1) || sim_write_bytes(copy, pages[i], &b, 1)) {
            sim_destroy(copy);
            return -1;
        }
    }
    sim_destroy(copy);
    return (double)(bench_now_ns() - t0) / 1e6;
}

int bench_clone(const struct bench_opts *o)
{
    static const size_t strides[] = {0, 64, 1}; /* shared, 1 page in 64 written, all written */
    unsigned live = (unsigned)(LIVE_OBJECTS * o->scale);
    unsigned rounds = o->rounds;
    double *t[3] = {calloc(rounds, sizeof(double)), calloc(rounds, sizeof(double)),
                    calloc(rounds, sizeof(double))};
    double med[3];
    struct sim *sim = bench_big_machine(live);
    struct sim_image img = {0};
    sim_addr_t *pages = NULL;
    int ret = 1;

    if (!sim || !t[0] || !t[1] || !t[2] || sim_image_save(sim, &img))
        goto out;
    pages = malloc((img.nr_pages ? img.nr_pages : 1) * sizeof(*pages));
    if (!pages)
        goto out;
    for (size_t i = 0; i < img.nr_pages; i++)
        pages[i] = img.pages[i].addr;
    /* the three variants in turn, so the machine's load hits them alike */
    for (unsigned r = 0; r < rounds; r++)
        for (int v = 0; v < 3; v++)
            if ((t[v][r] = clone_round(sim, pages, img.nr_pages, strides[v])) < 0)
                goto out;
    for (int v = 0; v < 3; v++)
        med[v] = bench_median(t[v], rounds);
    if (o->json)
        printf("{\"rows\":[{\"live_objects\":%u,\"pages\":%zu,\"host_bytes\":%llu,"
               "\"clone_destroy_ms\":%.2f,\"clone_write_1_in_64_destroy_ms\":%.2f,"
               "\"clone_write_all_destroy_ms\":%.2f}]}\n",
               live, img.nr_pages, (unsigned long long)sim_host_bytes(sim), med[0], med[1],
               med[2]);
    else
        printf("live objects %u, %zu pages (%.1f MiB), host bytes %.1f MiB\n"
               "sim_clone+sim_destroy %.2f ms; with 1 page in 64 written %.2f ms; with every "
               "page written %.2f ms (%.1fx the shared clone) (medians of %u)\n",
               live, img.nr_pages, (double)img.nr_pages * SIM_PAGE_SIZE / (1 << 20),
               (double)sim_host_bytes(sim) / (1 << 20), med[0], med[1], med[2],
               med[0] > 0 ? med[2] / med[0] : 0.0, rounds);
    ret = 0;
out:
    if (ret)
        fprintf(stderr, "bench clone: the machine could not be built, saved or cloned\n");
    free(pages);
    sim_image_release(&img);
    sim_destroy(sim);
    for (int v = 0; v < 3; v++)
        free(t[v]);
    return ret;
}
