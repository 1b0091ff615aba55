/*
 * sim_image_compat.h: the engine's serialized machine (engine/slub.h's
 * sim_image_*), declared weak until the engine provides it, so that the
 * checkpoint disk tier builds and stays off (ckpt_disk_available() false)
 * on an engine without it.  Not a public header; goes once engine/slub.h
 * declares these.
 */
#ifndef SLUBLAB_SERVER_SESSION_SIM_IMAGE_COMPAT_H
#define SLUBLAB_SERVER_SESSION_SIM_IMAGE_COMPAT_H

#include <stddef.h>
#include <stdint.h>

#include "slub.h"

struct sim_image_page {
    sim_addr_t addr;
    const uint8_t *bytes; /* SIM_PAGE_SIZE, into the machine */
};

struct sim_image {
    void *meta;
    size_t meta_len;
    struct sim_image_page *pages;
    size_t nr_pages;
};

__attribute__((weak)) int sim_image_save(const struct sim *sim, struct sim_image *out);
__attribute__((weak)) void sim_image_release(struct sim_image *img);
__attribute__((weak)) int sim_image_load(const void *meta, size_t meta_len,
                                         int (*page)(void *arg, sim_addr_t addr, uint8_t *dst),
                                         void *arg, struct sim **out);
__attribute__((weak)) const char *sim_image_tag(void);

#endif /* SLUBLAB_SERVER_SESSION_SIM_IMAGE_COMPAT_H */
