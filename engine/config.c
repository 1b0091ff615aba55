/*
 * config.c: a machine's configuration, its names, and the checks that decide
 * whether it makes a machine.
 *
 * struct sim_config is plain data the caller fills (sim_config_default()
 * first); this file gives its enums their names and parses them back (variants,
 * models, eras, RCU modes), and says whether a config is one sim_create()
 * accepts.  Everything here reads only a config: no machine state, no other
 * engine file.
 *
 * The sheaves model is SLUB of 7.x (every cache on sheaves); the hybrid model
 * is 6.18-6.19 (per-CPU slabs everywhere, sheaves on the caches that ask);
 * the legacy model is SLUB with per-CPU slabs and per-CPU partial lists, in
 * three eras that differ in how a CPU
 * partial slab becomes the CPU slab (docs/engine.md, the legacy model):
 * ERA_FROZEN_PARTIAL (6.1-6.7, partial slabs stay frozen), ERA_DELAYED_FREEZE
 * (6.8, "slub: delay freezing of partial slabs": unlock, freeze_slab, relock)
 * and ERA_DIRECT_LOAD (6.9-6.17, commit 90b1e56641bb "directly load freelist
 * from cpu partial slab in the likely case").  The last step is also the
 * variant CPU_PARTIAL_DIRECT_LOAD, so the two spellings name the same machines:
 * an explicit era sets the variant, and a config whose era and variant disagree
 * is refused.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sim_config_default(struct sim_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->nr_cpus = 2;
    cfg->nr_nodes = 1;
    cfg->mem_per_node = 64ull << 20;
    cfg->seed = 1;
    for (unsigned i = 0; i < SIM_NR_VARIANTS; i++)
        cfg->variant[i] = SIM_AFTER;
    cfg->model = SIM_MODEL_SHEAVES;
    cfg->freelist_hardened = true;
    cfg->freelist_random = false;
    cfg->cma = true;
}

/* 0 when sim_create() accepts @cfg, else -EINVAL. */
int config_check(const struct sim_config *cfg)
{
    if (cfg->nr_cpus < 1 || cfg->nr_cpus > SIM_MAX_CPUS)
        return -EINVAL;
    if (cfg->nr_nodes < 1 || cfg->nr_nodes > SIM_MAX_NODES)
        return -EINVAL;
    for (unsigned c = 0; c < cfg->nr_cpus; c++)
        if (cfg->cpu_node[c] >= cfg->nr_nodes)
            return -EINVAL;
    if (cfg->mem_per_node < (uint64_t)PAGE_SIZE * CHUNK_PAGES ||
        cfg->mem_per_node % ((uint64_t)PAGE_SIZE * CHUNK_PAGES) ||
        cfg->mem_per_node > (64ull << 30))
        return -EINVAL;
    for (unsigned v = 0; v < SIM_NR_VARIANTS; v++)
        if (cfg->variant[v] > SIM_AFTER)
            return -EINVAL;
    if (sim_model_error(cfg))
        return -EINVAL;
    if (cfg->present_cpus > cfg->nr_cpus)
        return -EINVAL;
    if (cfg->rcu_mode > SIM_RCU_RANDOM ||
        (cfg->rcu_mode != SIM_RCU_MANUAL && (cfg->rcu_gap < 1 || cfg->rcu_gap > 1000000)))
        return -EINVAL;
    if (sim_zones_check(cfg, NULL, 0))
        return -EINVAL;
    return 0;
}

/* 0 when @cfg's zones and ALLOC layout make a machine; else -EINVAL with why. */
int sim_zones_check(const struct sim_config *cfg, char *msg, size_t len)
{
    const uint64_t mib = 1ull << 20;
    const char *why = NULL;

    if (cfg->dma_bytes % (4 * mib) || cfg->dma_bytes > 16 * mib)
        why = "ZONE_DMA must be 0, 4, 8, 12 or 16 MiB";
    else if (cfg->dma32_bytes % (4 * mib) || cfg->dma32_bytes > 4080 * mib)
        why = "ZONE_DMA32 must be a multiple of 4 MiB up to 4080 MiB";
    else if (cfg->watermark_scale_factor > 3000)
        why = "watermark_scale_factor must be at most 3000";
    else if (cfg->min_free_kbytes > 262144)
        why = "min_free_kbytes must be at most 262144";
    else if (cfg->reclaim_pages > (1u << 24))
        why = "reclaim_pages must be at most 16777216";
    else if (cfg->alloc_layout > SIM_ALLOC_LAYOUT_RENUMBERED_FORCED)
        why = "unknown ALLOC layout";
    else if (cfg->alloc_layout == SIM_ALLOC_LAYOUT_RENUMBERED &&
             cfg->variant[SIM_VAR_GFP_TRANSLATE] == SIM_BEFORE)
        why = "GFP_TRANSLATE=before (coupled) needs __GFP_HIGH == ALLOC_MIN_RESERVE and "
              "__GFP_KSWAPD_RECLAIM == ALLOC_KSWAPD, which the renumbered layout breaks "
              "(the kernel's BUILD_BUG_ON); use alloc_layout renumbered-forced to run it anyway";
    if (why && msg)
        snprintf(msg, len, "%s", why);
    return why ? -EINVAL : 0;
}

const struct sim_config *sim_get_config(const struct sim *sim)
{
    return &sim->cfg;
}

/* ---- Variants ------------------------------------------------------------ */

static const char *const variant_names[SIM_NR_VARIANTS] = {
        [SIM_VAR_DEFERRED_FREELIST] = "DEFERRED_FREELIST",
        [SIM_VAR_BARN_REFILL] = "BARN_REFILL",
        [SIM_VAR_REFILL_RETURN] = "REFILL_RETURN",
        [SIM_VAR_DETACHED_FREELIST] = "DETACHED_FREELIST",
        [SIM_VAR_GFP_TRANSLATE] = "GFP_TRANSLATE",
        [SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] = "CPU_PARTIAL_DIRECT_LOAD",
        [SIM_VAR_REFILL_NONBLOCKING] = "REFILL_NONBLOCKING",
        [SIM_VAR_BULK_FREE_PARTITION] = "BULK_FREE_PARTITION",
};

const char *sim_variant_name(unsigned v)
{
    return name_of(variant_names, SIM_NR_VARIANTS, v);
}

int sim_variant_lookup(const char *name)
{
    return name_lookup(variant_names, SIM_NR_VARIANTS, name);
}

int sim_variant_value_lookup(unsigned v, const char *text)
{
    if (!strcmp(text, "before"))
        return SIM_BEFORE;
    if (!strcmp(text, "after"))
        return SIM_AFTER;
    if (v == SIM_VAR_GFP_TRANSLATE && !strcmp(text, "coupled"))
        return SIM_BEFORE;
    if (v == SIM_VAR_GFP_TRANSLATE && !strcmp(text, "explicit"))
        return SIM_AFTER;
    return -1;
}

bool sim_variant_in_model(unsigned v, enum sim_model m)
{
    switch (v) {
    case SIM_VAR_DEFERRED_FREELIST: /* the sheaf era's slab and refill changes */
    case SIM_VAR_REFILL_RETURN:
        return m == SIM_MODEL_SHEAVES;
    case SIM_VAR_BARN_REFILL: /* prefilled sheaves: the hybrid's sheaf caches have them */
    case SIM_VAR_REFILL_NONBLOCKING: /* an empty main sheaf's refill: so do they */
    case SIM_VAR_BULK_FREE_PARTITION: /* a bulk free into sheaves: so do they */
        return m == SIM_MODEL_SHEAVES || m == SIM_MODEL_HYBRID;
    case SIM_VAR_CPU_PARTIAL_DIRECT_LOAD: /* the cpu slab layer */
        return m == SIM_MODEL_LEGACY || m == SIM_MODEL_HYBRID;
    default: /* DETACHED_FREELIST, and any change below the per-CPU layer */
        return v < SIM_NR_VARIANTS;
    }
}

/* ---- Models and the legacy model's eras ---------------------------------- */

static const char *const model_names[] = {
        [SIM_MODEL_SHEAVES] = "sheaves",
        [SIM_MODEL_LEGACY] = "legacy",
        [SIM_MODEL_HYBRID] = "hybrid",
};

const char *sim_model_name(enum sim_model m)
{
    return name_of(model_names, SIM_MODEL_HYBRID + 1, (unsigned)m);
}

int sim_model_lookup(const char *name)
{
    return name_lookup(model_names, SIM_MODEL_HYBRID + 1, name);
}

static const char *const era_names[] = {
        [SIM_ERA_DEFAULT] = "default",
        [SIM_ERA_FROZEN_PARTIAL] = "ERA_FROZEN_PARTIAL",
        [SIM_ERA_DELAYED_FREEZE] = "ERA_DELAYED_FREEZE",
        [SIM_ERA_DIRECT_LOAD] = "ERA_DIRECT_LOAD",
};

const char *sim_legacy_era_name(enum sim_legacy_era era)
{
    return name_of(era_names, SIM_ERA_DIRECT_LOAD + 1, (unsigned)era);
}

/* "ERA_DIRECT_LOAD", "era_direct_load" or "DIRECT_LOAD"; -1 when unknown. */
static int era_lookup(const char *name)
{
    for (int e = SIM_ERA_FROZEN_PARTIAL; e <= SIM_ERA_DIRECT_LOAD; e++)
        if (!strcasecmp(name, era_names[e]) || !strcasecmp(name, era_names[e] + 4))
            return e;
    return -1;
}

enum sim_legacy_era sim_legacy_era(const struct sim_config *cfg)
{
    if (cfg->legacy_era != SIM_ERA_DEFAULT)
        return cfg->legacy_era;
    return cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] == SIM_BEFORE ? SIM_ERA_DELAYED_FREEZE
                                                                       : SIM_ERA_DIRECT_LOAD;
}

int sim_model_parse(const char *text, struct sim_config *cfg)
{
    const char *colon = strchr(text, ':');
    char model[16];
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    int m, era;

    if (sim_release_lookup(text) != SIM_RELEASE_NONE)
        return sim_release_apply(sim_release_lookup(text), cfg);
    if (n >= sizeof(model))
        return -EINVAL;
    memcpy(model, text, n);
    model[n] = 0;
    if ((m = sim_model_lookup(model)) < 0)
        return -EINVAL;
    if (!colon) {
        cfg->release = SIM_RELEASE_NONE;
        cfg->model = (enum sim_model)m;
        cfg->legacy_era = SIM_ERA_DEFAULT;
        return 0;
    }
    if (m != SIM_MODEL_LEGACY || (era = era_lookup(colon + 1)) < 0)
        return -EINVAL;
    cfg->release = SIM_RELEASE_NONE;
    cfg->model = SIM_MODEL_LEGACY;
    cfg->legacy_era = (enum sim_legacy_era)era;
    cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] =
            era == SIM_ERA_DIRECT_LOAD ? SIM_AFTER : SIM_BEFORE;
    return 0;
}

size_t sim_model_format(const struct sim_config *cfg, char *buf, size_t len)
{
    int n;

    if (sim_release_name(cfg->release))
        n = snprintf(buf, len, "%s", sim_release_name(cfg->release));
    else if (cfg->model == SIM_MODEL_LEGACY)
        n = snprintf(buf, len, "legacy:%s", sim_legacy_era_name(sim_legacy_era(cfg)));
    else
        n = snprintf(buf, len, "%s", sim_model_name(cfg->model) ? sim_model_name(cfg->model) : "?");
    return n < 0 ? 0 : (size_t)n;
}

const char *sim_model_error(const struct sim_config *cfg)
{
    uint8_t direct = cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD];

    if (cfg->model != SIM_MODEL_SHEAVES && cfg->model != SIM_MODEL_LEGACY &&
        cfg->model != SIM_MODEL_HYBRID)
        return "unknown model (expected sheaves, legacy or hybrid)";
    if ((unsigned)cfg->legacy_era > SIM_ERA_DIRECT_LOAD)
        return "unknown legacy era";
    if ((unsigned)cfg->release >= SIM_NR_RELEASES)
        return "unknown release";
    if (cfg->model == SIM_MODEL_HYBRID && sim_legacy_era(cfg) != SIM_ERA_DIRECT_LOAD)
        return "the hybrid model (6.18, 6.19) has the cpu slabs of ERA_DIRECT_LOAD only "
               "(CPU_PARTIAL_DIRECT_LOAD=after)";
    if (cfg->legacy_era == SIM_ERA_DEFAULT)
        return NULL;
    if (cfg->model != SIM_MODEL_LEGACY && cfg->model != SIM_MODEL_HYBRID)
        return "an era (legacy:ERA_...) belongs to the legacy model";
    if (cfg->legacy_era == SIM_ERA_DIRECT_LOAD && direct != SIM_AFTER)
        return "legacy:ERA_DIRECT_LOAD is CPU_PARTIAL_DIRECT_LOAD=after, not before";
    if (cfg->legacy_era != SIM_ERA_DIRECT_LOAD && direct != SIM_BEFORE)
        return cfg->legacy_era == SIM_ERA_DELAYED_FREEZE
                       ? "legacy:ERA_DELAYED_FREEZE is CPU_PARTIAL_DIRECT_LOAD=before, not after"
                       : "legacy:ERA_FROZEN_PARTIAL predates CPU_PARTIAL_DIRECT_LOAD: it needs "
                         "=before";
    return NULL;
}

/* ---- Releases ------------------------------------------------------------- */

/*
 * The table of releases (docs/engine.md keeps it in words, with the commits
 * that separate them).  A release is a model, an era and the value of each
 * variant.  6.1's cpu partial slabs are frozen as in ERA_FROZEN_PARTIAL, and
 * like every kernel before "mm/slub: fix bulk alloc and free stats" (6.8) it
 * counts bulk allocations and frees per batch, which that era does too; 6.8 is
 * ERA_DELAYED_FREEZE, bulk counted per object.  6.18 and 6.19 are the hybrid
 * model: the cpu slabs of ERA_DIRECT_LOAD under every cache, sheaves (before
 * every sheaf-era change) on the caches created with a sheaf_capacity.
 * REFILL_NONBLOCKING is fb1091febd66, merged for 7.0-rc3: 6.18 and 6.19
 * refilled a sheaf cache's empty main sheaf only when the gfp allowed
 * blocking, 7.0 on whenever it allowed spinning.  7.2's gfp_to_alloc_flags()
 * still copies __GFP_HIGH and __GFP_KSWAPD_RECLAIM across (GFP_TRANSLATE
 * before); 7.3's alloc_flags_slowpath() tests each bit, and its
 * free_to_pcs_bulk() partitions other nodes' objects in place
 * (BULK_FREE_PARTITION; the legacy rows have no sheaves, so no matter).
 * The rows of 6.1, 6.12, 7.2 and 7.3 were checked against those kernels'
 * sources; the others by reading only.
 */
#define B SIM_BEFORE
#define A SIM_AFTER
struct release_row {
    const char *name;
    enum sim_model model;
    enum sim_legacy_era era;
    uint8_t variant[SIM_NR_VARIANTS];
};

/* clang-format off */
static const struct release_row releases[SIM_NR_RELEASES] = {
        /* variants: DEFERRED_FREELIST, BARN_REFILL, REFILL_RETURN, DETACHED_FREELIST,
         * GFP_TRANSLATE, CPU_PARTIAL_DIRECT_LOAD, REFILL_NONBLOCKING, BULK_FREE_PARTITION */
        [SIM_RELEASE_6_1] = {"6.1", SIM_MODEL_LEGACY, SIM_ERA_FROZEN_PARTIAL, {A, A, A, A, B, B, A, B}},
        [SIM_RELEASE_6_8] = {"6.8", SIM_MODEL_LEGACY, SIM_ERA_DELAYED_FREEZE, {A, A, A, A, B, B, A, B}},
        [SIM_RELEASE_6_12] = {"6.12", SIM_MODEL_LEGACY, SIM_ERA_DIRECT_LOAD, {A, A, A, A, B, A, A, B}},
        [SIM_RELEASE_6_18] = {"6.18", SIM_MODEL_HYBRID, SIM_ERA_DIRECT_LOAD, {B, B, B, A, B, A, B, B}},
        [SIM_RELEASE_6_19] = {"6.19", SIM_MODEL_HYBRID, SIM_ERA_DIRECT_LOAD, {B, B, B, A, B, A, B, B}},
        [SIM_RELEASE_7_0] = {"7.0", SIM_MODEL_SHEAVES, SIM_ERA_DEFAULT, {B, B, B, A, B, A, A, B}},
        [SIM_RELEASE_7_1] = {"7.1", SIM_MODEL_SHEAVES, SIM_ERA_DEFAULT, {B, B, B, A, B, A, A, B}},
        [SIM_RELEASE_7_2] = {"7.2", SIM_MODEL_SHEAVES, SIM_ERA_DEFAULT, {A, B, A, A, B, A, A, B}},
        [SIM_RELEASE_7_3] = {"7.3", SIM_MODEL_SHEAVES, SIM_ERA_DEFAULT, {A, B, A, A, A, A, A, A}},
};
/* clang-format on */
#undef A
#undef B
_Static_assert(SIM_NR_VARIANTS == 8, "a new variant needs its value in every release");

const char *sim_release_name(enum sim_release r)
{
    return (unsigned)r < SIM_NR_RELEASES ? releases[r].name : NULL;
}

enum sim_release sim_release_lookup(const char *name)
{
    for (unsigned r = 1; r < SIM_NR_RELEASES; r++)
        if (!strcmp(releases[r].name, name))
            return (enum sim_release)r;
    return SIM_RELEASE_NONE;
}

int sim_release_apply(enum sim_release r, struct sim_config *cfg)
{
    const struct release_row *row;

    if (r == SIM_RELEASE_NONE || (unsigned)r >= SIM_NR_RELEASES)
        return -EINVAL;
    row = &releases[r];
    memcpy(cfg->variant, row->variant, sizeof(cfg->variant));
    cfg->model = row->model;
    cfg->legacy_era = row->era;
    cfg->release = r;
    return 0;
}

enum sim_release sim_release_newest(void)
{
    return (enum sim_release)(SIM_NR_RELEASES - 1);
}

/* "X.Y" of a release's name as two numbers. */
static void release_version(enum sim_release r, unsigned *major, unsigned *minor)
{
    const char *dot = strchr(releases[r].name, '.');

    *major = (unsigned)atoi(releases[r].name);
    *minor = dot ? (unsigned)atoi(dot + 1) : 0;
}

/* Digits at *@p as a number below 1000, advancing *@p; false when none. */
static bool version_part(const char **p, unsigned *out)
{
    unsigned v = 0, n = 0;

    while (**p >= '0' && **p <= '9' && n < 4) {
        v = v * 10 + (unsigned)(**p - '0');
        (*p)++;
        n++;
    }
    *out = v;
    return n > 0 && n < 4;
}

enum sim_release sim_kernel_lookup(const char *text, bool at_or_below)
{
    const char *p = text;
    enum sim_release best = SIM_RELEASE_NONE;
    unsigned major, minor, patch, rm, rn;

    if (!version_part(&p, &major) || *p++ != '.' || !version_part(&p, &minor))
        return SIM_RELEASE_NONE;
    if (*p == '.') {
        p++;
        if (!version_part(&p, &patch))
            return SIM_RELEASE_NONE;
    }
    if (*p && (*p == '.' || !at_or_below))
        return SIM_RELEASE_NONE; /* "-amd64", "+deb13": only from a recorded uname -r */
    for (unsigned r = 1; r < SIM_NR_RELEASES; r++) {
        release_version((enum sim_release)r, &rm, &rn);
        if (rm == major && rn == minor)
            return (enum sim_release)r;
        if (at_or_below && (rm < major || (rm == major && rn < minor)))
            best = (enum sim_release)r; /* rows are in version order */
    }
    return best;
}

size_t sim_release_list(char *buf, size_t len)
{
    size_t n = 0;

    if (len)
        buf[0] = 0;
    for (unsigned r = 1; r < SIM_NR_RELEASES && n < len; r++) {
        int k = snprintf(buf + n, len - n, "%s%s", r > 1 ? ", " : "", releases[r].name);

        if (k < 0)
            break;
        n += (size_t)k;
    }
    return n < len ? n : (len ? len - 1 : 0);
}

const char *sim_release_model_conflict(enum sim_release r, const struct sim_config *model)
{
    const struct release_row *row;

    if (r == SIM_RELEASE_NONE || (unsigned)r >= SIM_NR_RELEASES)
        return "unknown release";
    row = &releases[r];
    if (model->release != SIM_RELEASE_NONE && model->release != r)
        return "it names another release";
    if (model->model != row->model)
        return row->model == SIM_MODEL_LEGACY ? "that kernel has per-CPU slabs (the legacy model)"
                                              : "that kernel has sheaves (the sheaves model)";
    if (model->legacy_era != SIM_ERA_DEFAULT && model->legacy_era != row->era)
        return "that kernel is another era of the legacy model";
    return NULL;
}

unsigned sim_release_overrides(enum sim_release r, const struct sim_config *cfg, char *buf,
                               size_t len)
{
    unsigned count = 0;
    size_t n = 0;

    if (len)
        buf[0] = 0;
    if (r == SIM_RELEASE_NONE || (unsigned)r >= SIM_NR_RELEASES)
        return 0;
    for (unsigned v = 0; v < SIM_NR_VARIANTS; v++) {
        int k;

        if (!sim_variant_in_model(v, cfg->model) || cfg->variant[v] == releases[r].variant[v])
            continue;
        count++;
        if (n >= len)
            continue;
        k = snprintf(buf + n, len - n, "%s%s=%s", count > 1 ? "," : "", variant_names[v],
                     cfg->variant[v] == SIM_AFTER ? "after" : "before");
        if (k > 0)
            n += (size_t)k;
    }
    return count;
}

/* ---- RCU modes ----------------------------------------------------------- */

static const char *const rcu_mode_names[] = {
        [SIM_RCU_MANUAL] = "manual",
        [SIM_RCU_PERIODIC] = "periodic",
        [SIM_RCU_RANDOM] = "random",
};

const char *sim_rcu_mode_name(enum sim_rcu_mode m)
{
    return name_of(rcu_mode_names, SIM_RCU_RANDOM + 1, (unsigned)m);
}

int sim_rcu_mode_lookup(const char *name)
{
    return name_lookup(rcu_mode_names, SIM_RCU_RANDOM + 1, name);
}

/* One group of slab_debug= at @str: its flags into *flags, its cache list
 * (or NULL) into *caches.  Returns where the next group starts, or NULL
 * (kernel: parse_slub_debug_flags). */
static const char *slab_debug_group(const char *str, uint32_t *flags, const char **caches,
                                    bool *higher_order_off, char *bad)
{
    while (*str == ';')
        str++;
    if (*str == ',') {
        /* no letters but a cache list: full debugging for those caches */
        *flags = SIM_SLAB_CONSISTENCY_CHECKS | SIM_SLAB_RED_ZONE | SIM_SLAB_POISON |
                 SIM_SLAB_STORE_USER;
    } else {
        *flags = 0;
        for (; *str && *str != ',' && *str != ';'; str++) {
            switch (*str | 0x20) {
            case '-' | 0x20:
                *flags = 0;
                break;
            case 'f':
                *flags |= SIM_SLAB_CONSISTENCY_CHECKS;
                break;
            case 'z':
                *flags |= SIM_SLAB_RED_ZONE;
                break;
            case 'p':
                *flags |= SIM_SLAB_POISON;
                break;
            case 'u':
                *flags |= SIM_SLAB_STORE_USER;
                break;
            case 't':
                *flags |= SIM_SLAB_TRACE;
                break;
            case 'a': /* SLAB_FAILSLAB: fault injection, not modelled */
                break;
            case 'o':
                *higher_order_off = true;
                break;
            default:
                if (bad && !*bad)
                    *bad = *str;
            }
        }
    }
    *caches = *str == ',' ? str + 1 : NULL;
    while (*str && *str != ';')
        str++;
    while (*str == ';')
        str++;
    return *str ? str : NULL;
}

int sim_slab_debug_parse(const char *str, struct sim_config *cfg, char *msg, size_t len)
{
    uint32_t all =
            SIM_SLAB_CONSISTENCY_CHECKS | SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER;
    uint32_t global = all, flags;
    bool global_changed = false, listed = false, off = false;
    const char *p = str, *caches;
    char bad = 0;

    if (strlen(str) >= sizeof(cfg->slab_debug_blocks)) {
        snprintf(msg, len, "slab_debug=%s: longer than %zu characters", str,
                 sizeof(cfg->slab_debug_blocks) - 1);
        return -EINVAL;
    }
    while (*p && p) {
        p = slab_debug_group(p, &flags, &caches, &off, &bad);
        if (!caches) {
            global = flags;
            global_changed = true;
        } else {
            listed = true;
        }
        if (!p)
            break;
    }
    if (bad) {
        snprintf(msg, len, "slab_debug=%s: option '%c' unknown (F Z P U T A O -)", str, bad);
        return -EINVAL;
    }
    /* a group with caches alone leaves the other caches as they were */
    if (listed && !global_changed)
        global = 0;
    cfg->slab_debug = *str ? global : all;
    cfg->slab_debug_no_higher_order = off;
    snprintf(cfg->slab_debug_blocks, sizeof(cfg->slab_debug_blocks), "%s", listed ? str : "");
    return 0;
}

/* The flags cache @name gets from slab_debug= (kernel: kmem_cache_flags):
 * those of the first group whose list names it, else slab_debug's. */
uint32_t kmem_cache_flags(const struct sim_config *cfg, uint32_t flags, const char *name)
{
    uint32_t global = cfg->slab_debug, block;
    const char *next = cfg->slab_debug_blocks[0] ? cfg->slab_debug_blocks : NULL;
    bool off = false;
    size_t nlen = strlen(name);

    if (flags & SIM_SLAB_NOLEAKTRACE)
        global &= ~SIM_SLAB_STORE_USER;
    while (next) {
        const char *it;

        next = slab_debug_group(next, &block, &it, &off, NULL);
        if (!it)
            continue;
        while (*it && *it != ';') {
            const char *end = strchr(it, ',');
            const char *semi = strchr(it, ';');
            const char *star;
            size_t cmp;

            if (!end || (semi && semi < end))
                end = semi ? semi : it + strlen(it);
            star = memchr(it, '*', (size_t)(end - it));
            cmp = star ? (size_t)(star - it)
                       : (nlen > (size_t)(end - it) ? nlen : (size_t)(end - it));
            if (!strncmp(name, it, cmp))
                return flags | block;
            if (!*end || *end == ';')
                break;
            it = end + 1;
        }
    }
    return flags | global;
}
