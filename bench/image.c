/*
 * image.c: `slublab bench image`, what a machine costs as an image
 * (engine/image.c, docs/image.md) beside a sim_clone() of it.
 *
 * One machine of 4 CPUs on 2 nodes with ~300,000 live objects (at --scale
 * 1): eight kmalloc caches of 32 to 4096 bytes filled in turn from every
 * CPU, then one object in seven freed, so slabs are full, partial and in
 * sheaves.  Reported: the meta size and page count of its image and its
 * host bytes; then the median over the rounds of sim_clone(),
 * sim_image_save(), sim_image_load() (pages copied in by a cursor over the
 * saved list, as a store would read them) and, apart, one sim_validate(),
 * which save and load each run once.
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slub.h"

#define LIVE_OBJECTS 300000u

/* Pages in address order: a cursor over the saved list. */
struct cursor {
    const struct sim_image *img;
    size_t next;
};

static int fill_page(void *arg, sim_addr_t addr, uint8_t *dst)
{
    struct cursor *c = arg;

    if (c->next >= c->img->nr_pages || c->img->pages[c->next].addr != addr)
        return -ENOENT;
    memcpy(dst, c->img->pages[c->next++].bytes, SIM_PAGE_SIZE);
    return 0;
}

int bench_image(const struct bench_opts *o)
{
    unsigned live = (unsigned)(LIVE_OBJECTS * o->scale);
    unsigned rounds = o->rounds;
    double *t_clone = calloc(rounds, sizeof(double)), *t_save = calloc(rounds, sizeof(double));
    double *t_load = calloc(rounds, sizeof(double)), *t_valid = calloc(rounds, sizeof(double));
    struct sim *sim = bench_big_machine(live);
    struct sim_image img = {0};
    int ret = 1;

    if (!sim || !t_clone || !t_save || !t_load || !t_valid)
        goto out;
    for (unsigned r = 0; r < rounds; r++) {
        struct sim *copy = NULL, *loaded = NULL;
        struct cursor cur;
        uint64_t t0;

        t0 = bench_now_ns();
        if (sim_clone(sim, &copy))
            goto out;
        t_clone[r] = (double)(bench_now_ns() - t0) / 1e6;
        sim_destroy(copy);
        sim_image_release(&img);
        t0 = bench_now_ns();
        if (sim_image_save(sim, &img))
            goto out;
        t_save[r] = (double)(bench_now_ns() - t0) / 1e6;
        cur = (struct cursor){.img = &img};
        t0 = bench_now_ns();
        if (sim_image_load(img.meta, img.meta_len, fill_page, &cur, &loaded))
            goto out;
        t_load[r] = (double)(bench_now_ns() - t0) / 1e6;
        sim_destroy(loaded);
        t0 = bench_now_ns();
        sim_validate(sim, SIM_VALIDATE_OP, NULL);
        t_valid[r] = (double)(bench_now_ns() - t0) / 1e6;
    }
    if (o->json)
        printf("{\"rows\":[{\"live_objects\":%u,\"meta_bytes\":%zu,\"pages\":%zu,"
               "\"host_bytes\":%llu,\"clone_ms\":%.2f,\"save_ms\":%.2f,\"load_ms\":%.2f,"
               "\"validate_ms\":%.2f}]}\n",
               live, img.meta_len, img.nr_pages, (unsigned long long)sim_host_bytes(sim),
               bench_median(t_clone, rounds), bench_median(t_save, rounds),
               bench_median(t_load, rounds), bench_median(t_valid, rounds));
    else
        printf("live objects %u\nmeta %zu bytes, %zu pages (%.1f MiB), host bytes %.1f MiB\n"
               "sim_clone %.2f ms, sim_image_save %.2f ms, sim_image_load %.2f ms, "
               "sim_validate %.2f ms (medians of %u)\n",
               live, img.meta_len, img.nr_pages, (double)img.nr_pages * SIM_PAGE_SIZE / (1 << 20),
               (double)sim_host_bytes(sim) / (1 << 20), bench_median(t_clone, rounds),
               bench_median(t_save, rounds), bench_median(t_load, rounds),
               bench_median(t_valid, rounds), rounds);
    ret = 0;
out:
    if (ret)
        fprintf(stderr, "bench image: the machine could not be built, cloned, saved or loaded\n");
    sim_image_release(&img);
    sim_destroy(sim);
    free(t_clone);
    free(t_save);
    free(t_load);
    free(t_valid);
    return ret;
}
