/*
 * gfp_layout.c: the gfp names and bit values of each kernel release, as its
 * kmem tracepoints print them.
 *
 * The engine's own mask (gfp.c) has the bits of a 6.12-7.x kernel built with
 * KASAN_HW_TAGS=n and LOCKDEP=n, plus __GFP_NO_OBJ_EXT at bit 24.  A trace
 * from another kernel may print names this mask has no room for, and other
 * values behind the same name.  A layout is one release's table (its gfp era)
 * with the three configs that move bits (KASAN_HW_TAGS, LOCKDEP,
 * SLAB_OBJ_EXT): the names its show_gfp_flags() walks, in that order, each
 * with its value there.  The eras (docs/engine.md, gfp masks):
 *
 *   6.1   fixed values; __GFP_ATOMIC is bit 9; KASAN's two skip-poison bits
 *   6.8   fixed values; __GFP_ATOMIC gone (6.3), __GFP_SKIP_KASAN (6.4)
 *   6.12  bits numbered by an enum ("mm: enumerate all gfp flags"), so a
 *         config that is off takes its bit away from those after it;
 *         __GFP_NO_OBJ_EXT exists but is not printed by name
 *   6.18  every single bit printed from the enum, __GFP_NOLOCKDEP and
 *         __GFP_NO_OBJ_EXT included (6.18 to 7.2: 7.2.13 still has it, so
 *         7.0 and 7.1 between them are taken to have it too)
 *   7.x   as 6.18 without __GFP_NO_OBJ_EXT (7.3)
 *
 * The tables of 6.1, 6.12, 6.18, 7.2 and 7.3 are checked against
 * tests/gfp/ (captured from those kernels); 6.8, 7.0 and 7.1 were read only.
 * sim_gfp_layout_to_engine() carries a mask over by name: names the engine's
 * kernel defines as 0 (config off, or __GFP_ATOMIC, gone since 6.3, whose
 * work !__GFP_DIRECT_RECLAIM does in gfp_to_alloc_flags()) carry nothing.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum gfp_era { ERA_6_1, ERA_6_8, ERA_6_12, ERA_6_18, ERA_7 };

static const struct {
    const char *release;
    enum gfp_era era;
} release_eras[] = {
        {"6.1", ERA_6_1},   {"6.8", ERA_6_8},   {"6.12", ERA_6_12},
        {"6.18", ERA_6_18}, {"6.19", ERA_6_18}, {"7.0", ERA_6_18},
        {"7.1", ERA_6_18},  {"7.2", ERA_6_18},  {"7.3", ERA_7},
};

/* Which config a bit needs to exist. */
enum { NEED_NONE, NEED_KASAN, NEED_LOCKDEP, NEED_OBJ_EXT };

/* One single-bit flag, in the order of the kernel's enum (6.12 on).  @engine
 * is its bit in the engine's mask (0: the engine's kernel defines it as 0);
 * @hex61 and @hex68 its fixed value in the eras before the enum (0: absent);
 * @from and @to the eras that have it. */
struct gfp_flag {
    const char *name;
    uint32_t engine;
    uint32_t hex61, hex68;
    unsigned char need;
    unsigned char from, to;
};

#define GENERAL(n, bit)                                                     \
    {                                                                       \
        n, 1u << (bit), 1u << (bit), 1u << (bit), NEED_NONE, ERA_6_1, ERA_7 \
    }
static const struct gfp_flag flags[] = {
        GENERAL("__GFP_DMA", 0),
        GENERAL("__GFP_HIGHMEM", 1),
        GENERAL("__GFP_DMA32", 2),
        GENERAL("__GFP_MOVABLE", 3),
        GENERAL("__GFP_RECLAIMABLE", 4),
        GENERAL("__GFP_HIGH", 5),
        GENERAL("__GFP_IO", 6),
        GENERAL("__GFP_FS", 7),
        GENERAL("__GFP_ZERO", 8),
        {"__GFP_ATOMIC", 0, 0x200u, 0, NEED_NONE, ERA_6_1, ERA_6_1}, /* the enum's UNUSED slot */
        GENERAL("__GFP_DIRECT_RECLAIM", 10),
        GENERAL("__GFP_KSWAPD_RECLAIM", 11),
        GENERAL("__GFP_WRITE", 12),
        GENERAL("__GFP_NOWARN", 13),
        GENERAL("__GFP_RETRY_MAYFAIL", 14),
        GENERAL("__GFP_NOFAIL", 15),
        GENERAL("__GFP_NORETRY", 16),
        GENERAL("__GFP_MEMALLOC", 17),
        GENERAL("__GFP_COMP", 18),
        GENERAL("__GFP_NOMEMALLOC", 19),
        GENERAL("__GFP_HARDWALL", 20),
        GENERAL("__GFP_THISNODE", 21),
        GENERAL("__GFP_ACCOUNT", 22),
        GENERAL("__GFP_ZEROTAGS", 23),
        {"__GFP_SKIP_ZERO", 0, 0x1000000u, 0x1000000u, NEED_KASAN, ERA_6_1, ERA_7},
        {"__GFP_SKIP_KASAN", 0, 0, 0x2000000u, NEED_KASAN, ERA_6_8, ERA_7},
        {"__GFP_SKIP_KASAN_UNPOISON", 0, 0x2000000u, 0, NEED_KASAN, ERA_6_1, ERA_6_1},
        {"__GFP_SKIP_KASAN_POISON", 0, 0x4000000u, 0, NEED_KASAN, ERA_6_1, ERA_6_1},
        {"__GFP_NOLOCKDEP", 0, 0x8000000u, 0x4000000u, NEED_LOCKDEP, ERA_6_1, ERA_7},
        {"__GFP_NO_OBJ_EXT", SIM_GFP_NO_OBJ_EXT, 0, 0, NEED_OBJ_EXT, ERA_6_12, ERA_6_18},
};
#undef GENERAL
#define NR_FLAGS (sizeof(flags) / sizeof(flags[0]))

/* The composite names, in the order every era prints them first. */
enum composite {
    C_TRANSHUGE,
    C_TRANSHUGE_LIGHT,
    C_HIGHUSER_MOVABLE,
    C_HIGHUSER,
    C_USER,
    C_KERNEL_ACCOUNT,
    C_KERNEL,
    C_NOFS,
    C_ATOMIC,
    C_NOIO,
    C_NOWAIT,
    C_DMA,
    C_DMA32,
    C_RECLAIM,
    NR_COMPOSITES
};
static const char *const composite_names[NR_COMPOSITES] = {"GFP_TRANSHUGE",
                                                           "GFP_TRANSHUGE_LIGHT",
                                                           "GFP_HIGHUSER_MOVABLE",
                                                           "GFP_HIGHUSER",
                                                           "GFP_USER",
                                                           "GFP_KERNEL_ACCOUNT",
                                                           "GFP_KERNEL",
                                                           "GFP_NOFS",
                                                           "GFP_ATOMIC",
                                                           "GFP_NOIO",
                                                           "GFP_NOWAIT",
                                                           "GFP_DMA",
                                                           "GFP_DMA32",
                                                           "__GFP_RECLAIM"};

/* The print order of the eras before 6.18 after the composites (their
 * mmflags.h lists the single bits by hand; 6.18 and later walk the enum). */
static const char *const listed_by_hand[] = {"__GFP_HIGHMEM",
                                             "GFP_DMA32",
                                             "__GFP_HIGH",
                                             "__GFP_ATOMIC",
                                             "__GFP_IO",
                                             "__GFP_FS",
                                             "__GFP_NOWARN",
                                             "__GFP_RETRY_MAYFAIL",
                                             "__GFP_NOFAIL",
                                             "__GFP_NORETRY",
                                             "__GFP_COMP",
                                             "__GFP_ZERO",
                                             "__GFP_NOMEMALLOC",
                                             "__GFP_MEMALLOC",
                                             "__GFP_HARDWALL",
                                             "__GFP_THISNODE",
                                             "__GFP_RECLAIMABLE",
                                             "__GFP_MOVABLE",
                                             "__GFP_ACCOUNT",
                                             "__GFP_WRITE",
                                             "__GFP_RECLAIM",
                                             "__GFP_DIRECT_RECLAIM",
                                             "__GFP_KSWAPD_RECLAIM",
                                             "__GFP_ZEROTAGS",
                                             "__GFP_SKIP_ZERO",
                                             "__GFP_SKIP_KASAN_POISON",
                                             "__GFP_SKIP_KASAN_UNPOISON",
                                             "__GFP_SKIP_KASAN"};

static bool has_config(const struct sim_gfp_layout *l, unsigned need)
{
    return need == NEED_NONE || (need == NEED_KASAN && (l->config & SIM_GFP_CFG_KASAN_HW_TAGS)) ||
           (need == NEED_LOCKDEP && (l->config & SIM_GFP_CFG_LOCKDEP)) ||
           (need == NEED_OBJ_EXT && (l->config & SIM_GFP_CFG_SLAB_OBJ_EXT));
}

static bool flag_exists(const struct sim_gfp_layout *l, const struct gfp_flag *f)
{
    return l->era >= f->from && l->era <= f->to && has_config(l, f->need);
}

/* Value of flags[i] in @l; 0 where the release or its config lacks it. */
static uint32_t flag_value(const struct sim_gfp_layout *l, size_t i)
{
    unsigned bit = 0;

    if (!flag_exists(l, &flags[i]))
        return 0;
    if (l->era == ERA_6_1)
        return flags[i].hex61;
    if (l->era == ERA_6_8)
        return flags[i].hex68;
    for (size_t j = 0; j < i; j++) /* the enum: every earlier bit that exists, bit 9 too */
        bit += flag_exists(l, &flags[j]) || !strcmp(flags[j].name, "__GFP_ATOMIC");
    return 1u << bit;
}

static int flag_index(const char *name, size_t len)
{
    for (size_t i = 0; i < NR_FLAGS; i++)
        if (strlen(flags[i].name) == len && !strncmp(flags[i].name, name, len))
            return (int)i;
    return -1;
}

static uint32_t value_of(const struct sim_gfp_layout *l, const char *name)
{
    int i = flag_index(name, strlen(name));

    return i < 0 ? 0 : flag_value(l, (size_t)i);
}

/* As include/linux/gfp_types.h of @l's release defines the composite. */
static uint32_t composite_value(const struct sim_gfp_layout *l, enum composite c)
{
    const uint32_t reclaim =
            value_of(l, "__GFP_DIRECT_RECLAIM") | value_of(l, "__GFP_KSWAPD_RECLAIM");
    const uint32_t kernel = reclaim | value_of(l, "__GFP_IO") | value_of(l, "__GFP_FS");
    const uint32_t user = kernel | value_of(l, "__GFP_HARDWALL");
    const uint32_t highuser = user | value_of(l, "__GFP_HIGHMEM");
    const uint32_t movable =
            highuser | value_of(l, "__GFP_MOVABLE") | value_of(l, "__GFP_SKIP_KASAN") |
            value_of(l, "__GFP_SKIP_KASAN_POISON") | value_of(l, "__GFP_SKIP_KASAN_UNPOISON");
    const uint32_t light = (movable | value_of(l, "__GFP_COMP") | value_of(l, "__GFP_NOMEMALLOC") |
                            value_of(l, "__GFP_NOWARN")) &
                           ~reclaim;

    switch (c) {
    case C_TRANSHUGE:
        return light | value_of(l, "__GFP_DIRECT_RECLAIM");
    case C_TRANSHUGE_LIGHT:
        return light;
    case C_HIGHUSER_MOVABLE:
        return movable;
    case C_HIGHUSER:
        return highuser;
    case C_USER:
        return user;
    case C_KERNEL_ACCOUNT:
        return kernel | value_of(l, "__GFP_ACCOUNT");
    case C_KERNEL:
        return kernel;
    case C_NOFS:
        return reclaim | value_of(l, "__GFP_IO");
    case C_ATOMIC:
        return value_of(l, "__GFP_HIGH") | value_of(l, "__GFP_ATOMIC") |
               value_of(l, "__GFP_KSWAPD_RECLAIM");
    case C_NOIO:
    case C_RECLAIM:
        return reclaim;
    case C_NOWAIT: /* __GFP_NOWARN joined it after 6.1 */
        return value_of(l, "__GFP_KSWAPD_RECLAIM") |
               (l->era == ERA_6_1 ? 0 : value_of(l, "__GFP_NOWARN"));
    case C_DMA:
        return value_of(l, "__GFP_DMA");
    case C_DMA32:
        return value_of(l, "__GFP_DMA32");
    default:
        return 0;
    }
}

int sim_gfp_layout_of(const char *release, unsigned config, struct sim_gfp_layout *out)
{
    if (!release ||
        (config & ~(SIM_GFP_CFG_KASAN_HW_TAGS | SIM_GFP_CFG_LOCKDEP | SIM_GFP_CFG_SLAB_OBJ_EXT)))
        return -EINVAL;
    for (size_t i = 0; i < sizeof(release_eras) / sizeof(release_eras[0]); i++)
        if (!strcmp(release_eras[i].release, release)) {
            out->era = release_eras[i].era;
            out->config = config;
            return 0;
        }
    return -EINVAL;
}

/* The @i-th entry of @l's print list in a flat numbering: composites, then
 * the singles (by hand before 6.18, the enum after).  NULL past the end;
 * entries the release or config lacks are skipped by the caller. */
static const char *entry(const struct sim_gfp_layout *l, size_t i, uint32_t *bits)
{
    size_t n;

    if (l->era < ERA_6_18) {
        /* GFP_DMA, then __GFP_HIGHMEM before GFP_DMA32 */
        n = (size_t)C_DMA + 1; /* the composites up to GFP_DMA, in their enum order */
        if (i < n) {
            *bits = composite_value(l, (enum composite)i);
            return composite_names[i];
        }
        i -= n;
        if (i >= sizeof(listed_by_hand) / sizeof(listed_by_hand[0]))
            return NULL;
        if (!strcmp(listed_by_hand[i], "GFP_DMA32"))
            *bits = composite_value(l, C_DMA32);
        else if (!strcmp(listed_by_hand[i], "__GFP_RECLAIM"))
            *bits = composite_value(l, C_RECLAIM);
        else {
            int f = flag_index(listed_by_hand[i], strlen(listed_by_hand[i]));

            *bits = f < 0 || !flag_exists(l, &flags[f]) ? 0 : flag_value(l, (size_t)f);
            if (!*bits)
                return "";
        }
        return listed_by_hand[i];
    }
    if (i < NR_COMPOSITES) {
        *bits = composite_value(l, (enum composite)i);
        return composite_names[i];
    }
    i -= NR_COMPOSITES;
    if (i >= NR_FLAGS)
        return NULL;
    *bits = flag_value(l, i);
    return *bits ? flags[i].name : "";
}

size_t sim_gfp_layout_nr_names(const struct sim_gfp_layout *l)
{
    size_t n = 0;
    uint32_t bits;
    const char *name;

    for (size_t i = 0; (name = entry(l, i, &bits)); i++)
        n += *name != 0;
    return n;
}

const char *sim_gfp_layout_name(const struct sim_gfp_layout *l, size_t k, uint32_t *bits)
{
    const char *name;
    uint32_t b;

    for (size_t i = 0; (name = entry(l, i, &b)); i++)
        if (*name && !k--) {
            *bits = b;
            return name;
        }
    return NULL;
}

/* Value of the name or hex token @p[0..len) in @l; false when unknown. */
static bool token_value(const void *arg, const char *p, size_t len, uint32_t *v)
{
    const struct sim_gfp_layout *l = arg;
    const char *name;
    uint32_t b;

    if (len > 2 && !strncmp(p, "0x", 2) && isxdigit((unsigned char)p[2])) {
        char hex[16], *end;
        unsigned long x;

        if (len - 2 >= sizeof(hex))
            return false;
        memcpy(hex, p + 2, len - 2);
        hex[len - 2] = 0;
        x = strtoul(hex, &end, 16);
        if (*end || x > 0xffffffffu)
            return false;
        *v = (uint32_t)x;
        return true;
    }
    for (size_t i = 0; (name = entry(l, i, &b)); i++)
        if (*name && strlen(name) == len && !strncmp(name, p, len)) {
            *v = b;
            return true;
        }
    return false;
}

int sim_gfp_layout_parse(const struct sim_gfp_layout *l, const char *text, uint32_t *out)
{
    return gfp_text_parse(text, token_value, l, out);
}

size_t sim_gfp_layout_format(const struct sim_gfp_layout *l, uint32_t raw, char *buf, size_t len)
{
    size_t n = 0;
    uint32_t left = raw, bits;
    const char *name;

    if (len)
        buf[0] = 0;
    if (!raw)
        return (size_t)snprintf(buf, len, "none");
    for (size_t i = 0; left && (name = entry(l, i, &bits)); i++) {
        if (!*name || !bits || (left & bits) != bits)
            continue;
        n = gfp_text_add(buf, len, n, name);
        left &= ~bits;
    }
    return gfp_text_rest(buf, len, n, left);
}

uint32_t sim_gfp_layout_to_engine(const struct sim_gfp_layout *l, uint32_t raw, uint32_t *unknown)
{
    uint32_t engine = 0, left = raw;

    for (size_t i = 0; i < NR_FLAGS; i++) {
        uint32_t v = flag_value(l, i);

        if (v && (raw & v)) {
            engine |= flags[i].engine;
            left &= ~v;
        }
    }
    if (unknown)
        *unknown = left;
    return engine;
}

bool gfp_name_known(const char *name, size_t len, uint32_t *engine)
{
    int i = flag_index(name, len);

    if (i >= 0) {
        *engine = flags[i].engine;
        return true;
    }
    return false;
}
