/*
 * ktrace_replay.c: a kmem trace as engine operations (see ktrace_replay.h).
 *
 * Two tables (ktrace_tables.c) make each event cost one hash lookup or two:
 *  - caches, by the name the tracepoint prints.  A cache is created on the
 *    engine at its first allocation: from --sysfs (object_size, align,
 *    flags, ctor, sheaf_capacity as the kernel shows them; a name that is
 *    an alias resolves to its merged cache), else from the event itself:
 *    object_size = bytes_req and the smallest alignment for which the
 *    engine's slab_size equals bytes_alloc (s->size).  Plain kmalloc-N
 *    names go to the engine's kmalloc classes.  A name nothing describes
 *    is remembered as unknown, so its later events are counted quickly.
 *  - pointers: the hashed ptr= value (stable within one boot) to the
 *    engine object allocated for it, its cache, and for kmalloc above
 *    8 KiB a mark that it never was a slab object.
 *
 * The machine's CPU count is --cpus, else the header's "#P:", else the
 * highest [CPU] in the trace + 1 (a first pass reads the trace for it).
 * CPUs beyond the machine are folded modulo its count and counted.
 */
#include "ktrace/ktrace_replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfiles/kcache_defaults.h"
#include "ktrace/ktrace_internal.h"
#include "scenario/kernel.h"
#include "scenario/scenario_write.h"

#define KMALLOC_MAX_CACHE_SIZE 8192u
#define PROGRESS_LINES         (64u << 10)

/* ---- recording ---- */

static void record_obj_name(char *buf, size_t len, uint64_t obj)
{
    snprintf(buf, len, "o%" PRIu64, obj);
}

static void record(struct ktrace_replay *kr, cJSON *op)
{
    if (op) {
        cJSON_AddItemToArray(kr->ops, op);
        kr->nr_recorded++;
    }
}

static cJSON *record_op(const char *kind, unsigned cpu)
{
    cJSON *op = cJSON_CreateObject();

    if (!op)
        return NULL;
    cJSON_AddStringToObject(op, "op", kind);
    cJSON_AddNumberToObject(op, "cpu", cpu);
    return op;
}

static void record_gfp_node(cJSON *op, const struct sim_op *s)
{
    if (s->gfp && s->gfp != SIM_GFP_KERNEL) {
        char buf[256];

        sim_gfp_format(s->gfp, buf, sizeof(buf));
        cJSON_AddStringToObject(op, "gfp", buf);
    }
    if (s->node != SIM_NUMA_NO_NODE)
        cJSON_AddNumberToObject(op, "node", s->node);
}

static void record_create(struct ktrace_replay *kr, const struct sim_cache_args *a,
                          const struct sysfs_cache *sc)
{
    const char **names = NULL;
    size_t n = 0;

    if (sc) { /* the other names of the merged cache; the traced one names it */
        names = calloc(sc->nr_aliases + 1, sizeof(*names));
        if (!names)
            return;
        names[n++] = sc->name;
        for (size_t i = 0; i < sc->nr_aliases; i++)
            names[n++] = sc->aliases[i];
    }
    {
        struct sim_cache_args b = *a; /* a trace may print names a scenario cannot use */

        scenario_write_name(a->name, b.name, sizeof(b.name));
        record(kr, scenario_write_cache(&b, names, n, true));
    }
    free(names);
}

/* ---- applying ---- */

static void note_engine(struct ktrace_replay *kr, const struct sim_result *res, const char *what)
{
    if (!kr->first_engine[0])
        snprintf(kr->first_engine, sizeof(kr->first_engine), "line %" PRIu64 " (%s): %.200s",
                 kr->n.lines, what, res->message);
}

/* sim_apply() and the bookkeeping of its outcome; true when the op was carried out. */
static bool apply(struct ktrace_replay *kr, const struct sim_op *op, struct sim_result *res,
                  const char *what)
{
    uint64_t before = sim_event_count(kr->sim);
    int ret = sim_apply(kr->sim, op, res);

    if (!ret && kr->o->on_op && !kr->on_op_err) {
        kr->on_op_err = kr->o->on_op(op, sim_event_count(kr->sim) - before, kr->o->on_op_arg);
        kr->nr_recorded++;
    }
    if (ret) {
        kr->n.sim_rejected++;
        note_engine(kr, res, what);
        return false;
    }
    if (kr->o->validate) {
        struct sim_report rep;

        if (sim_validate(kr->sim, SIM_VALIDATE_OP, &rep)) {
            if (!kr->n.violations)
                snprintf(kr->validate_msg, sizeof(kr->validate_msg), "line %" PRIu64 ": %.150s",
                         kr->n.lines, rep.msg[0]);
            kr->n.violations += rep.violations;
        }
    }
    if (res->status == SIM_FAILED) {
        kr->n.sim_failed++;
        note_engine(kr, res, what);
        return false;
    }
    if (res->status == SIM_MISUSE || res->status == SIM_CRASHED) {
        kr->n.sim_misuse++;
        note_engine(kr, res, what);
        return false;
    }
    return true;
}

static void remember_unknown(struct ktrace_replay *kr, const char *name, size_t len)
{
    if (kr->nr_unknown < KTRACE_MAX_UNKNOWN)
        snprintf(kr->unknown[kr->nr_unknown++], SIM_NAME_MAX, "%.*s", (int)len, name);
}

/* A plain kmalloc-N name: its size, else 0. */
static unsigned kmalloc_name_size(const char *n, size_t len)
{
    unsigned v = 0;
    size_t i = 8;

    if (len < 9 || memcmp(n, "kmalloc-", 8))
        return 0;
    while (i < len && n[i] >= '0' && n[i] <= '9' && v < 100000)
        v = v * 10 + (unsigned)(n[i++] - '0');
    if (i < len && n[i] == 'k' && i + 1 == len)
        v *= 1024;
    else if (i != len)
        return 0;
    return v <= KMALLOC_MAX_CACHE_SIZE ? v : 0;
}

/* Arguments of a cache seen only in the trace: object_size and the
 * smallest alignment that gives slab_size == bytes_alloc. */
static void args_from_event(struct ktrace_replay *kr, const struct ktrace_event *ev,
                            struct sim_cache_args *a)
{
    unsigned req =
            ev->bytes_req && ev->bytes_req <= ev->bytes_alloc ? ev->bytes_req : ev->bytes_alloc;

    a->object_size = req;
    for (unsigned align = 0; align <= 4096; align = align ? align * 2 : 8) {
        struct sim_geometry g;

        a->align = align;
        if (!sim_cache_geometry(a, kr->cfg.present_cpus ? kr->cfg.present_cpus : kr->cfg.nr_cpus,
                                &g) &&
            g.size == ev->bytes_alloc)
            return;
    }
    a->align = 0;
    a->object_size = ev->bytes_alloc;
}

/* Without --sysfs, what the trace's release gives a known cache at creation
 * (kcache_defaults.c): sheaf capacity, free-pointer offset, flags, align. */
static void release_defaults(struct ktrace_replay *kr, const char *name, size_t len,
                             struct sim_cache_args *a)
{
    const struct kcache_default *d = kcache_default_find(kr->cfg.release, name, len);

    if (d)
        kcache_default_apply(d, a, false);
}

/* The cache of an allocation event, created on its first use. */
static struct ktrace_cache *cache_for_alloc(struct ktrace_replay *kr, const struct ktrace_event *ev,
                                            unsigned cpu)
{
    char by_size[32];
    const char *name = ev->name ? ev->name : "(no name=)";
    size_t len;

    if (!ev->name && ev->kind == KTRACE_ALLOC && ev->bytes_alloc) {
        /* an older kernel's kmem_cache_alloc names no cache: one per object size */
        snprintf(by_size, sizeof(by_size), "size-%u", ev->bytes_alloc);
        name = by_size;
        kr->n.unnamed++;
    }
    len = ev->name ? ev->name_len : strlen(name);
    uint64_t h = ktrace_hash_name(name, len);
    struct ktrace_cache *c = ktrace_cache_find(kr, name, len, h);
    const struct sysfs_cache *sc = NULL;
    struct sim_op op;
    struct sim_result res;
    int id = -1;

    if (c)
        return c;
    memset(&op, 0, sizeof(op));
    op.kind = SIM_OP_CREATE;
    op.cpu = cpu;
    op.node = SIM_NUMA_NO_NODE;
    if ((!ev->name && name != by_size) || len >= SIM_NAME_MAX) {
        /* nothing to create it from */
    } else if (kmalloc_name_size(name, len)) {
        id = -2; /* resolved by the first kmalloc */
    } else if (kr->o->sysfs && ev->name) {
        sc = sysfs_slab_find(kr->o->sysfs, name, len);
        if (sc && sc->kernel[SYSFS_SLAB_SIZE] != ev->bytes_alloc) {
            /* the tree and the trace disagree: another machine or boot (task_struct
             * depends on the CPU's FPU state size); the tree's geometry is used */
            if (kr->n.size_mismatch < KTRACE_MAX_UNKNOWN)
                snprintf(kr->mismatch[kr->n.size_mismatch], SIM_NAME_MAX, "%.*s", (int)len, name);
            kr->n.size_mismatch++;
        }
        if (sc) {
            op.create = sc->args;
            snprintf(op.create.name, sizeof(op.create.name), "%.*s", (int)len, name);
            op.create.sheaf_capacity = sc->sheaf_capacity;
            if (sc->kmalloc)
                op.create.flags |= SIM_SLAB_KMALLOC;
        }
    } else {
        snprintf(op.create.name, sizeof(op.create.name), "%.*s", (int)len, name);
        args_from_event(kr, ev, &op.create);
        release_defaults(kr, name, len, &op.create);
        sc = NULL;
    }
    if (id == -1 && op.create.name[0]) {
        if (apply(kr, &op, &res, "kmem_cache_create")) {
            id = res.cache;
            kr->n.caches_created++;
            if (kr->ops)
                record_create(kr, &op.create, sc);
        }
    }
    if (id == -1)
        remember_unknown(kr, name, len);
    return ktrace_cache_add(kr, name, len, h, id);
}

/*
 * @ptr comes back from an allocation while the engine still holds it: the
 * kernel freed it without a traced free (kfree_rcu through an rcu_free
 * sheaf, kmem_cache_free_bulk).  Free the engine object now, on the same
 * CPU, so the cache's counts follow the kernel's.
 */
static void free_untraced(struct ktrace_replay *kr, uint64_t ptr, unsigned cpu)
{
    struct ktrace_ptr *p = ktrace_ptr_find(kr, ptr);
    struct sim_op op;
    struct sim_result res;
    uint64_t obj;

    if (!p)
        return;
    kr->n.realloc_live++;
    if (p->kind == PTR_LARGE) {
        ktrace_ptr_remove(kr, p);
        return;
    }
    memset(&op, 0, sizeof(op));
    op.kind = SIM_OP_FREE;
    op.cpu = cpu;
    op.cache = p->cache;
    op.addr = p->addr;
    op.node = SIM_NUMA_NO_NODE;
    obj = p->obj;
    ktrace_ptr_remove(kr, p);
    if (!apply(kr, &op, &res, "untraced free"))
        return;
    if (kr->ops) {
        cJSON *j = record_op("free", cpu);
        char nm[32];

        if (j) {
            record_obj_name(nm, sizeof(nm), obj);
            cJSON_AddStringToObject(j, "name", nm);
        }
        record(kr, j);
    }
}

/* Track the object @res made for @ev->ptr, in cache @cache, and record the op: a
 * kmalloc with its size, else an alloc from the cache called @name.  0 or -ENOMEM. */
static int note_alloc(struct ktrace_replay *kr, const struct ktrace_event *ev,
                      const struct sim_op *op, const struct sim_result *res, int cache,
                      const char *name)
{
    struct ktrace_ptr *p = ktrace_ptr_insert(kr, ev->ptr);

    if (!p)
        return -ENOMEM;
    p->addr = res->addr;
    p->cache = cache;
    p->kind = PTR_SLAB;
    p->obj = kr->next_obj++;
    if (kr->ops) {
        cJSON *j = record_op(op->kind == SIM_OP_KMALLOC ? "kmalloc" : "alloc", op->cpu);
        char nm[32];

        if (j) {
            char cn[SIM_NAME_MAX];

            if (op->kind == SIM_OP_KMALLOC) {
                cJSON_AddNumberToObject(j, "size", op->size);
            } else {
                scenario_write_name(name, cn, sizeof(cn));
                cJSON_AddStringToObject(j, "cache", cn);
            }
            record_gfp_node(j, op);
            record_obj_name(nm, sizeof(nm), p->obj);
            cJSON_AddStringToObject(j, "name", nm);
        }
        record(kr, j);
    }
    return 0;
}

static int do_alloc(struct ktrace_replay *kr, const struct ktrace_event *ev, struct sim_op *op)
{
    struct ktrace_cache *c = cache_for_alloc(kr, ev, op->cpu);
    struct sim_result res;
    unsigned ksize;

    if (!c)
        return -ENOMEM;
    if (c->id == -1) {
        kr->n.unknown_cache++;
        return 0;
    }
    ksize = c->id == -2 ? kmalloc_name_size(c->name, c->len) : 0;
    if (ksize) {
        op->kind = SIM_OP_KMALLOC;
        op->size = ksize;
    } else {
        op->kind = SIM_OP_ALLOC;
        op->cache = c->id;
    }
    if (!apply(kr, op, &res, "kmem_cache_alloc"))
        return 0;
    if (c->id == -2)
        c->id = res.cache;
    kr->n.applied[KTRACE_ALLOC]++;
    return note_alloc(kr, ev, op, &res, op->kind == SIM_OP_KMALLOC ? res.cache : c->id, c->name);
}

static int do_kmalloc(struct ktrace_replay *kr, const struct ktrace_event *ev, struct sim_op *op)
{
    struct sim_result res;
    struct ktrace_ptr *p;

    if (ev->bytes_alloc > KMALLOC_MAX_CACHE_SIZE) {
        kr->n.large_kmalloc++;
        if (ev->ptr) {
            p = ktrace_ptr_insert(kr, ev->ptr);
            if (!p)
                return -ENOMEM;
            p->kind = PTR_LARGE;
            p->addr = 0;
            p->cache = -1;
        }
        return 0;
    }
    op->kind = SIM_OP_KMALLOC;
    op->size = ev->bytes_alloc ? ev->bytes_alloc : 1;
    if (!apply(kr, op, &res, "kmalloc"))
        return 0;
    kr->n.applied[KTRACE_KMALLOC]++;
    return note_alloc(kr, ev, op, &res, res.cache, NULL);
}

static int do_free(struct ktrace_replay *kr, const struct ktrace_event *ev, struct sim_op *op)
{
    struct ktrace_ptr *p = ev->ptr ? ktrace_ptr_find(kr, ev->ptr) : NULL;
    struct sim_result res;
    uint64_t obj;

    if (ev->kind == KTRACE_KFREE && !ev->ptr) {
        kr->n.kfree_null++;
        return 0;
    }
    if (ktrace_is_rcu_call_site(ev->call_site, ev->call_site_len))
        kr->n.rcu_frees++;
    if (!p) {
        if (ev->kind == KTRACE_KFREE)
            kr->n.kfree_before++;
        else
            kr->n.free_before++;
        return 0;
    }
    if (p->kind == PTR_LARGE) {
        kr->n.large_kfree++;
        ktrace_ptr_remove(kr, p);
        return 0;
    }
    if (ev->kind == KTRACE_FREE) {
        if (ev->name) {
            uint64_t h = ktrace_hash_name(ev->name, ev->name_len);
            struct ktrace_cache *c = ktrace_cache_find(kr, ev->name, ev->name_len, h);

            if (!c || c->id != p->cache)
                kr->n.cache_mismatch++;
        }
        op->kind = SIM_OP_FREE;
        op->cache = p->cache;
    } else {
        op->kind = SIM_OP_KFREE;
    }
    op->addr = p->addr;
    obj = p->obj;
    ktrace_ptr_remove(kr, p); /* gone in the kernel whatever the engine says */
    if (!apply(kr, op, &res, ev->kind == KTRACE_FREE ? "kmem_cache_free" : "kfree"))
        return 0;
    kr->n.applied[ev->kind]++;
    if (kr->ops) {
        cJSON *j = record_op(ev->kind == KTRACE_FREE ? "free" : "kfree", op->cpu);
        char nm[32];

        if (j) {
            record_obj_name(nm, sizeof(nm), obj);
            cJSON_AddStringToObject(j, "name", nm);
        }
        record(kr, j);
    }
    return 0;
}

/* Keeps @name[0..len) among the gfp names not understood, once. */
static void note_gfp_name(struct ktrace_replay *kr, const char *name, size_t len)
{
    if (len >= SIM_NAME_MAX)
        len = SIM_NAME_MAX - 1;
    for (unsigned i = 0; i < kr->nr_gfp_names; i++)
        if (strlen(kr->gfp_names[i]) == len && !memcmp(kr->gfp_names[i], name, len))
            return;
    if (kr->nr_gfp_names == KTRACE_MAX_UNKNOWN)
        return;
    memcpy(kr->gfp_names[kr->nr_gfp_names], name, len);
    kr->gfp_names[kr->nr_gfp_names++][len] = 0;
}

/* The event's gfp mask, through a small cache of the texts seen last
 * (a trace repeats a handful of them); a mask with names not understood
 * counts, keeps those names for the report and uses the others. */
static uint32_t gfp_of(struct ktrace_replay *kr, const struct ktrace_event *ev)
{
    struct ktrace_gfp_slot *g;
    uint32_t mask;
    size_t i;

    if (!ev->gfp_text)
        return 0;
    for (i = 0; i < KTRACE_GFP_CACHE; i++) {
        g = &kr->gfp_cache[i];
        if (g->len == ev->gfp_len && !memcmp(g->text, ev->gfp_text, g->len))
            return g->mask;
    }
    if (!ktrace_parse_gfp(ev->gfp_text, ev->gfp_len, &mask)) {
        const char *bad[KTRACE_MAX_UNKNOWN];
        size_t bad_len[KTRACE_MAX_UNKNOWN];
        unsigned nr = ktrace_parse_gfp_names(ev->gfp_text, ev->gfp_len, &mask, bad, bad_len,
                                             KTRACE_MAX_UNKNOWN);

        kr->n.gfp_unknown++;
        for (unsigned b = 0; b < nr && b < KTRACE_MAX_UNKNOWN; b++)
            note_gfp_name(kr, bad[b], bad_len[b]);
        return mask;
    }
    if (ev->gfp_len < sizeof(g->text)) {
        g = &kr->gfp_cache[kr->gfp_next++ % KTRACE_GFP_CACHE];
        memcpy(g->text, ev->gfp_text, ev->gfp_len);
        g->len = ev->gfp_len;
        g->mask = mask;
    }
    return mask;
}

static int replay_event(struct ktrace_replay *kr, const struct ktrace_event *ev)
{
    struct sim_op op;

    memset(&op, 0, sizeof(op));
    op.cpu = ev->cpu;
    if (op.cpu >= kr->cfg.nr_cpus) {
        op.cpu %= kr->cfg.nr_cpus;
        kr->n.cpus_folded++;
    }
    op.node = ev->node;
    if (op.node != SIM_NUMA_NO_NODE && (op.node < 0 || (unsigned)op.node >= kr->cfg.nr_nodes)) {
        op.node = SIM_NUMA_NO_NODE;
        kr->n.nodes_ignored++;
    }
    op.gfp = gfp_of(kr, ev);
    if ((ev->kind == KTRACE_ALLOC || ev->kind == KTRACE_KMALLOC) && ev->ptr)
        free_untraced(kr, ev->ptr, op.cpu);
    switch (ev->kind) {
    case KTRACE_ALLOC:
        return do_alloc(kr, ev, &op);
    case KTRACE_KMALLOC:
        return do_kmalloc(kr, ev, &op);
    case KTRACE_FREE:
    case KTRACE_KFREE:
        return do_free(kr, ev, &op);
    default:
        return 0;
    }
}

static bool is_kmem(enum ktrace_kind k)
{
    return k == KTRACE_ALLOC || k == KTRACE_FREE || k == KTRACE_KMALLOC || k == KTRACE_KFREE;
}

/* First pass: the CPU count from "#P:" or the highest [CPU].  0 or -EIO. */
static int count_cpus(struct ktrace_replay *kr, struct ktrace_reader *r, bool need, unsigned *out)
{
    const char *line, *kv;
    size_t len, kl;
    unsigned max = 0, hdr = 0;
    bool header = true;
    struct ktrace_event ev;

    /* a read error shows again, with the lines before it, in the second pass */
    while (ktrace_next_line(r, &line, &len) > 0) {
        if (header && len && line[0] == '#') {
            if (ktrace_header_kernel(line, len, &kv, &kl))
                snprintf(kr->kernel, sizeof(kr->kernel), "%.*s", (int)kl, kv);
            if (need && ktrace_header_cpus(line, len, &hdr)) {
                kr->cpus_from = "the #P: header";
                *out = hdr;
                need = false;
            }
            continue;
        }
        header = false;
        if (!need)
            break;
        if (is_kmem(ktrace_parse_line(line, len, &ev)) && ev.cpu > max)
            max = ev.cpu;
    }
    if (need) {
        kr->cpus_from = "the highest CPU seen";
        *out = max + 1;
    }
    return ktrace_rewind(r);
}

/*
 * The release to replay on, into kr->cfg, and why, into kr->kernel_note:
 * --kernel, else --model (an experiment), else the trace's kernel (the
 * modelled release at or below its X.Y), else the newest release.
 */
static int choose_kernel(struct ktrace_replay *kr, const struct ktrace_opts *o, bool from_trace,
                         struct strbuf *err)
{
    char msg[256], list[128];
    enum sim_release rel;

    if (o->kernel || o->model) {
        if (kernel_choose(o->kernel, o->model, 0, &kr->cfg, msg, sizeof(msg))) {
            strbuf_printf(err, "%s", msg);
            return -EINVAL;
        }
        if (o->kernel)
            snprintf(kr->kernel_note, sizeof(kr->kernel_note), "kernel %s: --kernel %.32s%s",
                     sim_release_name(kr->cfg.release), o->kernel,
                     kr->kernel[0] ? " (the trace's own kernel is not used)" : "");
        else
            snprintf(kr->kernel_note, sizeof(kr->kernel_note), "model %.64s: --model, no release",
                     o->model);
        return 0;
    }
    rel = kr->kernel[0] ? sim_kernel_lookup(kr->kernel, true) : SIM_RELEASE_NONE;
    kernel_choose(rel != SIM_RELEASE_NONE ? sim_release_name(rel) : NULL, NULL, 0, &kr->cfg, msg,
                  sizeof(msg));
    kr->kernel_guessed = rel == SIM_RELEASE_NONE;
    if (!kr->kernel[0]) {
        snprintf(kr->kernel_note, sizeof(kr->kernel_note),
                 "kernel %s: the trace has no \"# kernel:\" line, so the default (the newest "
                 "release modelled; --kernel X.Y picks another)",
                 sim_release_name(kr->cfg.release));
    } else if (rel == SIM_RELEASE_NONE) {
        sim_release_list(list, sizeof(list));
        snprintf(kr->kernel_note, sizeof(kr->kernel_note),
                 "kernel %s: Linux %.64s is older than every release modelled (%s), so the "
                 "default",
                 sim_release_name(kr->cfg.release), kr->kernel, list);
    } else {
        unsigned major = 0, minor = 0;
        char xy[32] = "";
        bool exact;

        if (sscanf(kr->kernel, "%u.%u", &major, &minor) == 2)
            snprintf(xy, sizeof(xy), "%u.%u", major, minor);
        exact = !strcmp(xy, sim_release_name(rel));

        snprintf(kr->kernel_note, sizeof(kr->kernel_note), "kernel %s: %s Linux %.64s%s",
                 sim_release_name(rel),
                 from_trace ? "the trace's \"# kernel:\" line says" : "--sysfs says", kr->kernel,
                 exact ? "" : ", and this is the newest release modelled at or below it");
    }
    return 0;
}

static int build_machine(struct ktrace_replay *kr, const struct ktrace_opts *o, unsigned cpus,
                         bool from_trace, struct strbuf *err)
{
    int ret;

    sim_config_default(&kr->cfg);
    if (cpus > SIM_MAX_CPUS) {
        strbuf_printf(err,
                      "the trace has %u CPUs (%s) but the engine models at most %u: give --cpus N "
                      "to fold them",
                      cpus, kr->cpus_from, SIM_MAX_CPUS);
        return -EINVAL;
    }
    kr->cfg.nr_cpus = cpus ? cpus : 1;
    kr->cfg.nr_nodes = 1;
    if ((ret = choose_kernel(kr, o, from_trace, err)))
        return ret;
    if (o->seed)
        kr->cfg.seed = o->seed;
    kr->cfg.mem_per_node = (uint64_t)(o->mem_mb ? o->mem_mb : KTRACE_DEFAULT_MEM_MB) << 20;
    if (o->sysfs && o->sysfs->nproc)
        kr->cfg.present_cpus = o->sysfs->nproc < SIM_MAX_CPUS ? o->sysfs->nproc : SIM_MAX_CPUS;
    ret = sim_create(&kr->cfg, &kr->sim);
    if (ret) {
        strbuf_printf(err, "the engine refused the machine (%u CPUs, %s model): %s",
                      kr->cfg.nr_cpus, sim_model_name(kr->cfg.model),
                      ret == -ENOMEM ? "out of memory" : "invalid configuration");
        return ret;
    }
    if (o->on_event)
        sim_set_event_cb(kr->sim, o->on_event, o->on_event_arg);
    return 0;
}

int ktrace_replay_run(struct ktrace_replay *kr, struct ktrace_reader *r,
                      const struct ktrace_opts *o, struct strbuf *err)
{
    const char *line;
    size_t len;
    unsigned cpus = o->cpus;
    int got, ret;
    bool header = true, from_trace;

    memset(kr, 0, sizeof(*kr));
    kr->o = o;
    if (cpus)
        kr->cpus_from = "--cpus";
    kr->kernel[0] = 0;
    ret = count_cpus(kr, r, !cpus, &cpus);
    if (ret) {
        strbuf_printf(err, "%s", ktrace_reader_error(r));
        return ret;
    }
    from_trace = kr->kernel[0] != 0;
    if (!from_trace && o->sysfs && o->sysfs->kernel[0]) /* no "# kernel:" line: --sysfs's */
        snprintf(kr->kernel, sizeof(kr->kernel), "%s", o->sysfs->kernel);
    ret = build_machine(kr, o, cpus, from_trace, err);
    if (ret)
        return ret;
    if (o->record) {
        kr->ops = cJSON_CreateArray();
        if (!kr->ops)
            return -ENOMEM;
    }
    while ((got = ktrace_next_line(r, &line, &len)) > 0) {
        struct ktrace_event ev;
        enum ktrace_kind k;

        kr->n.lines++;
        if (o->progress && kr->n.lines % PROGRESS_LINES == 0) {
            o->progress(ktrace_reader_pos(r), ktrace_reader_size(r), o->progress_arg);
            if (o->cancel && *o->cancel)
                return -ECANCELED;
        }
        if (header && len && line[0] == '#') {
            const char *kv;
            size_t kl;

            uint64_t kept, written;

            if (ktrace_header_kernel(line, len, &kv, &kl))
                snprintf(kr->kernel, sizeof(kr->kernel), "%.*s", (int)kl, kv);
            if (ktrace_header_entries(line, len, &kept, &written) && written > kept)
                kr->n.lost = written - kept;
        } else {
            header = false;
        }
        k = ktrace_parse_line(line, len, &ev);
        kr->n.kind[k]++;
        if (k == KTRACE_BAD && !kr->first_bad[0])
            snprintf(kr->first_bad, sizeof(kr->first_bad), "line %" PRIu64 ": %s", kr->n.lines,
                     ev.reason);
        if (!is_kmem(k))
            continue;
        ret = replay_event(kr, &ev);
        if (ret)
            return ret;
        if (kr->on_op_err) {
            strbuf_printf(err, "cannot keep the operations (by line %" PRIu64 "): %s", kr->n.lines,
                          strerror(-kr->on_op_err));
            return kr->on_op_err;
        }
        if ((o->record || o->on_op) && o->max_ops && kr->nr_recorded > o->max_ops) {
            strbuf_printf(err,
                          "the trace makes more than %" PRIu64 " operations (by line %" PRIu64
                          "): too many to keep as a scenario or session",
                          o->max_ops, kr->n.lines);
            return -E2BIG;
        }
    }
    kr->n.overlong = ktrace_reader_overlong(r);
    if (o->progress)
        o->progress(ktrace_reader_pos(r), ktrace_reader_size(r), o->progress_arg);
    if (got < 0) {
        kr->truncated = true;
        snprintf(kr->read_error, sizeof(kr->read_error), "%s", ktrace_reader_error(r));
        return got == -EFBIG ? -EFBIG : -EIO;
    }
    return 0;
}

void ktrace_replay_release(struct ktrace_replay *kr)
{
    if (!kr)
        return;
    sim_destroy(kr->sim);
    for (size_t i = 0; i < kr->nr_caches; i++)
        free(kr->caches[i].name);
    free(kr->caches);
    free(kr->cache_index);
    free(kr->ptrs);
    cJSON_Delete(kr->ops);
    memset(kr, 0, sizeof(*kr));
}

uint64_t ktrace_replay_events(const struct ktrace_replay *kr)
{
    return kr->n.kind[KTRACE_ALLOC] + kr->n.kind[KTRACE_FREE] + kr->n.kind[KTRACE_KMALLOC] +
           kr->n.kind[KTRACE_KFREE];
}

cJSON *ktrace_replay_scenario_header(const struct ktrace_replay *kr, const char *name)
{
    char model[64]; /* filled below; m keeps only its address */
    struct scenario_write_machine m = {
            .cpus = kr->cfg.nr_cpus,
            .present_cpus = kr->cfg.present_cpus,
            .nodes = kr->cfg.nr_nodes,
            .mem_mb = (unsigned)(kr->cfg.mem_per_node >> 20),
            .model = model,
            .seed = kr->cfg.seed,
    };
    char d[384];

    if (!kr->sim)
        return NULL;
    sim_model_format(&kr->cfg, model, sizeof(model));
    if (kr->kernel_guessed) /* the page shows this beside the picture */
        snprintf(d, sizeof(d),
                 "Release guessed: the trace %s%.64s%s, so it is replayed on Linux %s, the "
                 "newest release modelled (--kernel X.Y, or ?kernel=X.Y on upload, picks another).",
                 kr->kernel[0] ? "is of Linux " : "names no kernel", kr->kernel,
                 kr->kernel[0] ? ", older than every release modelled" : "",
                 sim_release_name(kr->cfg.release));
    else if (kr->kernel[0])
        snprintf(d, sizeof(d), "Replayed by slublab from a kmem trace of Linux %s.", kr->kernel);
    else
        snprintf(d, sizeof(d), "Replayed by slublab from a kmem trace.");
    return scenario_write_new(name, "A kmem trace of a real kernel", d, &m);
}

cJSON *ktrace_replay_scenario(struct ktrace_replay *kr, const char *name)
{
    cJSON *s;

    if (!kr->ops || !kr->sim)
        return NULL;
    s = ktrace_replay_scenario_header(kr, name);
    if (!s)
        return NULL;
    cJSON_AddItemToObject(s, "ops", kr->ops);
    kr->ops = NULL;
    return s;
}
