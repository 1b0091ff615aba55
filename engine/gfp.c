/*
 * gfp.c: names of gfp bits and cache flags, as the kernel prints them.
 *
 * Scenarios and outputs spell masks the way the kmem tracepoints do
 * ("GFP_KERNEL|__GFP_ZERO"): composite masks first, longest first, then the
 * remaining single bits, in the kernel's order.  Bit values are those of
 * include/linux/gfp_types.h for a kernel with KASAN_HW_TAGS=n, LOCKDEP=n and
 * SLAB_OBJ_EXT=y (so __GFP_NO_OBJ_EXT is bit 24).  Parsing also takes every
 * single-bit name another modelled release prints (gfp_layout.c: the names of
 * bits this kernel defines as 0, such as __GFP_NOLOCKDEP, add nothing) and the
 * "0x.." token a tracepoint prints for bits it has no name for.  What the bits
 * make the page allocator do is alloc_flags.c's business.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct name_bits {
    const char *name;
    uint32_t bits;
};

/* In the order of the kernel's tracepoints (include/trace/events/mmflags.h):
 * printing takes the first entry whose bits are all set, then the next. */
static const struct name_bits gfp_names[] = {
    {"GFP_TRANSHUGE", SIM_GFP_TRANSHUGE},
    {"GFP_TRANSHUGE_LIGHT", SIM_GFP_TRANSHUGE_LIGHT},
    {"GFP_HIGHUSER_MOVABLE", SIM_GFP_HIGHUSER_MOVABLE},
    {"GFP_HIGHUSER", SIM_GFP_HIGHUSER},
    {"GFP_USER", SIM_GFP_KERNEL | SIM_GFP_HARDWALL},
    {"GFP_KERNEL_ACCOUNT", SIM_GFP_KERNEL | SIM_GFP_ACCOUNT},
    {"GFP_KERNEL", SIM_GFP_KERNEL},
    {"GFP_NOFS", SIM_GFP_RECLAIM | SIM_GFP_IO},
    {"GFP_ATOMIC", SIM_GFP_ATOMIC},
    {"GFP_NOIO", SIM_GFP_RECLAIM},
    {"GFP_NOWAIT", SIM_GFP_NOWAIT},
    {"GFP_DMA", SIM_GFP_DMA},
    {"__GFP_HIGHMEM", SIM_GFP_HIGHMEM},
    {"GFP_DMA32", SIM_GFP_DMA32},
    {"__GFP_HIGH", SIM_GFP_HIGH},
    {"__GFP_IO", SIM_GFP_IO},
    {"__GFP_FS", SIM_GFP_FS},
    {"__GFP_NOWARN", SIM_GFP_NOWARN},
    {"__GFP_RETRY_MAYFAIL", SIM_GFP_RETRY_MAYFAIL},
    {"__GFP_NOFAIL", SIM_GFP_NOFAIL},
    {"__GFP_NORETRY", SIM_GFP_NORETRY},
    {"__GFP_COMP", SIM_GFP_COMP},
    {"__GFP_ZERO", SIM_GFP_ZERO},
    {"__GFP_NOMEMALLOC", SIM_GFP_NOMEMALLOC},
    {"__GFP_MEMALLOC", SIM_GFP_MEMALLOC},
    {"__GFP_HARDWALL", SIM_GFP_HARDWALL},
    {"__GFP_THISNODE", SIM_GFP_THISNODE},
    {"__GFP_RECLAIMABLE", SIM_GFP_RECLAIMABLE},
    {"__GFP_MOVABLE", SIM_GFP_MOVABLE},
    {"__GFP_ACCOUNT", SIM_GFP_ACCOUNT},
    {"__GFP_WRITE", SIM_GFP_WRITE},
    {"__GFP_RECLAIM", SIM_GFP_RECLAIM},
    {"__GFP_DIRECT_RECLAIM", SIM_GFP_DIRECT_RECLAIM},
    {"__GFP_KSWAPD_RECLAIM", SIM_GFP_KSWAPD_RECLAIM},
    {"__GFP_ZEROTAGS", SIM_GFP_ZEROTAGS},
    {"__GFP_NO_OBJ_EXT", SIM_GFP_NO_OBJ_EXT},
    /* accepted when parsing, never printed (the names above win) */
    {"__GFP_DMA", SIM_GFP_DMA},
    {"__GFP_DMA32", SIM_GFP_DMA32},
};

#define NR_GFP_NAMES (sizeof(gfp_names) / sizeof(gfp_names[0]))

/* Bits of the name or "0x.." token @p[0..len); false when unknown.  @arg is unused. */
static bool gfp_token(const void *arg, const char *p, size_t len, uint32_t *bits)
{
    (void)arg;
    if (len > 2 && len < 11 && !strncmp(p, "0x", 2) && isxdigit((unsigned char)p[2])) {
        char hex[12], *end;
        unsigned long v;

        memcpy(hex, p, len);
        hex[len] = 0;
        v = strtoul(hex + 2, &end, 16);
        *bits = (uint32_t)v;
        return !*end && v <= 0xffffffffu;
    }
    for (size_t i = 0; i < NR_GFP_NAMES; i++)
        if (strlen(gfp_names[i].name) == len && !strncmp(gfp_names[i].name, p, len)) {
            *bits = gfp_names[i].bits;
            return true;
        }
    return gfp_name_known(p, len, bits);
}

int gfp_text_parse(const char *text,
                   bool (*token)(const void *arg, const char *p, size_t len, uint32_t *bits),
                   const void *arg, uint32_t *out)
{
    uint32_t mask = 0, bits;
    const char *p = text;

    if (!text || !*text)
        return -EINVAL;
    while (*p) {
        size_t len = strcspn(p, "|");

        if (!token(arg, p, len, &bits))
            return -EINVAL;
        mask |= bits;
        p += len;
        if (*p == '|' && !*++p)
            return -EINVAL;
    }
    *out = mask;
    return 0;
}

int sim_gfp_parse(const char *text, uint32_t *out)
{
    if (!text || !*text)
        return -EINVAL;
    if (!strncmp(text, "0x", 2)) {
        char *end;
        unsigned long v = strtoul(text + 2, &end, 16);

        if (end == text + 2 || *end || v > 0xffffffffu)
            return -EINVAL;
        *out = (uint32_t)v;
        return 0;
    }
    return gfp_text_parse(text, gfp_token, NULL, out);
}

size_t gfp_text_add(char *buf, size_t len, size_t n, const char *name)
{
    return n + (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s",
                                n ? "|" : "", name);
}

size_t gfp_text_rest(char *buf, size_t len, size_t n, uint32_t left)
{
    char hex[16];

    if (!left)
        return n;
    snprintf(hex, sizeof(hex), "0x%x", left);
    return gfp_text_add(buf, len, n, hex);
}

size_t sim_gfp_format(uint32_t gfp, char *buf, size_t len)
{
    size_t n = 0;
    uint32_t left = gfp;

    if (len)
        buf[0] = 0;
    if (!gfp)
        return (size_t)snprintf(buf, len, "0x0");
    for (size_t i = 0; i < NR_GFP_NAMES && left; i++) {
        const struct name_bits *nb = &gfp_names[i];

        if ((left & nb->bits) != nb->bits)
            continue;
        n = gfp_text_add(buf, len, n, nb->name);
        left &= ~nb->bits;
    }
    return gfp_text_rest(buf, len, n, left);
}

int sim_gfp_check(uint32_t gfp, char *msg, size_t len)
{
    char names[256];

    if (gfp & ~SIM_GFP_BITS_MASK) {
        snprintf(msg, len, "gfp 0x%x has bits no kernel defines (0x%x; bit 9 is unused since 6.3)",
                gfp, gfp & ~SIM_GFP_BITS_MASK);
        return -EINVAL;
    }
    sim_gfp_format(gfp, names, sizeof(names));
    if (sim_gfp_zone(gfp) < 0) {
        snprintf(msg, len, "gfp %s asks for two zones at once (GFP_ZONE_BAD)", names);
        return -EINVAL;
    }
    if ((gfp & SIM_GFP_MOVABLE) && (gfp & SIM_GFP_RECLAIMABLE)) {
        snprintf(msg, len, "gfp %s is both __GFP_MOVABLE and __GFP_RECLAIMABLE", names);
        return -EINVAL;
    }
    return 0;
}

static const struct name_bits flag_names[] = {
    {"SLAB_CONSISTENCY_CHECKS", SIM_SLAB_CONSISTENCY_CHECKS},
    {"SLAB_RED_ZONE", SIM_SLAB_RED_ZONE},
    {"SLAB_POISON", SIM_SLAB_POISON},
    {"SLAB_KMALLOC", SIM_SLAB_KMALLOC},
    {"SLAB_HWCACHE_ALIGN", SIM_SLAB_HWCACHE_ALIGN},
    {"SLAB_CACHE_DMA", SIM_SLAB_CACHE_DMA},
    {"SLAB_STORE_USER", SIM_SLAB_STORE_USER},
    {"SLAB_RECLAIM_ACCOUNT", SIM_SLAB_RECLAIM_ACCOUNT},
    {"SLAB_TYPESAFE_BY_RCU", SIM_SLAB_TYPESAFE_BY_RCU},
    {"SLAB_TRACE", SIM_SLAB_TRACE},
    {"SLAB_NO_OBJ_EXT", SIM_SLAB_NO_OBJ_EXT},
    {"SLAB_NOLEAKTRACE", SIM_SLAB_NOLEAKTRACE},
};

const char *sim_flag_name(uint32_t flag)
{
    for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
        if (flag_names[i].bits == flag)
            return flag_names[i].name;
    return NULL;
}

uint32_t sim_flag_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
        if (!strcmp(flag_names[i].name, name))
            return flag_names[i].bits;
    return 0;
}
