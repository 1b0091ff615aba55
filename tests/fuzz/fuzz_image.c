/*
 * fuzz_image.c: libFuzzer target for sim_image_load() (engine/image.c).
 *
 * Each input is an image's meta without its checksum: the target seals it
 * (image_seal), so the fuzzer reaches the parser and the checks behind the
 * checksum instead of failing on it.  Pages are filled with bytes taken from
 * the input.  A load either fails with -EINVAL or gives a machine whose
 * validator verdict is the one the meta recorded; such a machine must then
 * take a few dozen operations on every cache and CPU (allocations, frees,
 * kmalloc, flush, shrink, grace periods, alloc_pages) without reaching a
 * SIM_BUG_ON; saved, it loads again and saves to the same bytes.  The seed
 * corpus (tests/fuzz/corpus/image) holds the meta of small machines of each
 * model.  Run from the repository root; see CMakeLists.txt (SLUBLAB_FUZZ).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct pages {
    const uint8_t *data;
    size_t size;
};

static int fill(void *arg, sim_addr_t addr, uint8_t *dst)
{
    const struct pages *p = arg;

    for (unsigned i = 0; i < SIM_PAGE_SIZE; i++)
        dst[i] = p->size ? p->data[(addr / SIM_PAGE_SIZE + i) % p->size] : 0;
    return 0;
}

/* A few operations on every cache and CPU of a loaded machine. */
static void exercise(struct sim *sim)
{
    const struct sim_config *cfg = sim_get_config(sim);
    sim_addr_t held[64];
    unsigned n = 0;
    struct sim_result res;

    for (unsigned c = 0; c < sim_nr_caches(sim); c++) {
        for (unsigned cpu = 0; cpu < cfg->nr_cpus && cpu < 4; cpu++) {
            struct sim_op op = {
                    .kind = SIM_OP_ALLOC, .cache = (int)c, .cpu = cpu, .node = SIM_NUMA_NO_NODE};

            if (sim_apply(sim, &op, &res) == 0 && res.status == SIM_OK && n < 64)
                held[n++] = res.addr;
        }
    }
    for (unsigned kind = 0; kind < 4; kind++) {
        struct sim_op op = {
                .kind = SIM_OP_KMALLOC, .size = 64u << (2 * kind), .node = SIM_NUMA_NO_NODE};

        if (sim_apply(sim, &op, &res) == 0 && res.status == SIM_OK && n < 64)
            held[n++] = res.addr;
    }
    for (unsigned i = 0; i < n; i++) {
        struct sim_op op = {.kind = SIM_OP_KFREE,
                            .addr = held[i],
                            .cpu = i % cfg->nr_cpus,
                            .node = SIM_NUMA_NO_NODE};

        sim_apply(sim, &op, &res);
    }
    for (unsigned c = 0; c < sim_nr_caches(sim); c++) {
        struct sim_op op = {.kind = SIM_OP_FLUSH_ALL, .cache = (int)c, .node = SIM_NUMA_NO_NODE};

        sim_apply(sim, &op, &res);
        op.kind = SIM_OP_SHRINK;
        sim_apply(sim, &op, &res);
    }
    {
        struct sim_op op = {.kind = SIM_OP_RCU_BARRIER, .node = SIM_NUMA_NO_NODE};

        sim_apply(sim, &op, &res);
        op = (struct sim_op){.kind = SIM_OP_ALLOC_PAGES, .order = 3, .node = SIM_NUMA_NO_NODE};
        sim_apply(sim, &op, &res);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pages pages = {data, size};
    struct sim_image again;
    struct sim *sim = NULL;
    uint8_t *meta;
    int ret;

    if (size > (1u << 20))
        return 0;
    meta = malloc(size + 8);
    if (!meta)
        return 0;
    memcpy(meta, data, size);
    memset(meta + size, 0, 8);
    image_seal(meta, size + 8);
    ret = sim_image_load(meta, size + 8, fill, &pages, &sim);
    if (ret) {
        if (ret != -EINVAL && ret != -ENOMEM)
            abort();
        free(meta);
        return 0;
    }
    /* saved again, it loads, and saves to the same bytes (the input's own
     * varints may be longer than need be, so not always to the input) */
    if (sim_image_save(sim, &again))
        abort();
    {
        struct sim *twice = NULL;
        struct sim_image third;

        if (sim_image_load(again.meta, again.meta_len, fill, &pages, &twice) ||
            sim_image_save(twice, &third))
            abort();
        if (third.meta_len != again.meta_len || memcmp(third.meta, again.meta, again.meta_len))
            abort();
        sim_image_release(&third);
        sim_destroy(twice);
    }
    sim_image_release(&again);
    exercise(sim);
    sim_destroy(sim);
    free(meta);
    return 0;
}
