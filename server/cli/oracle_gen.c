/*
 * oracle_gen.c: random programs for the kernel oracle (see oracle.h).
 *
 * A program is a scenario (docs/scenario-format.md, format 1) that a test
 * driver inside a real kernel can run as it stands: one or two private
 * caches (8 B to 8 KiB objects, sometimes an alignment, SLAB_HWCACHE_ALIGN
 * or debug flags: SLAB_RED_ZONE, SLAB_POISON, SLAB_STORE_USER), each
 * created on a chosen CPU, then a flat list of operations, each on the CPU
 * it names: allocations (some on a given node), frees in FIFO, LIFO or
 * random order on the allocating CPU or on another one (so remote frees,
 * and cross-node frees on two nodes), bulk allocations and bulk frees,
 * shrinks (often right after remote frees and bulk frees; always, with
 * --shape shrink) and marks.  With the 7.x operations, prefilled sheaves (prefill,
 * alloc_from_sheaf within what was asked, refill_sheaf, return_sheaf, every
 * sheaf returned before the end) and kfree_rcu, always followed by an
 * rcu_barrier so that no mark sees callbacks in flight.  No repeat, no
 * {i}: every name is spelled out, so a driver needs no expansion.
 *
 * The generator is its own seeded splitmix64, never the engine's: the same
 * seed and options give the same bytes on every machine and every version
 * of the engine.  Live objects stay below 1,500 and the memory they take
 * below 16 MiB, so a program fits the engine's default 64 MiB per node and
 * a small QEMU guest.
 */
#include "cli/oracle.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_MAX_LIVE   1500
#define GEN_MAX_BYTES  (16u << 20)
#define GEN_MAX_SHEAFS 4

struct gen_obj {
    char name[24];  /* "o12", "b3[7]" */
    unsigned cache; /* index in gen.caches */
    unsigned cpu;   /* the CPU that allocated it */
    unsigned bulk;  /* 1 + the bulk's number, or 0 */
};

struct gen_sheaf {
    unsigned id; /* named "s<id>" */
    unsigned cache;
    unsigned left; /* objects alloc_from_sheaf may still take (what was asked) */
    bool live;
};

struct gen {
    uint64_t state;
    struct strbuf *out;
    const struct oracle_gen_opts *o;
    unsigned cpus, nodes;
    unsigned nr_caches;
    unsigned size[2];
    bool debug[2];
    struct gen_obj *live; /* GEN_MAX_LIVE entries */
    unsigned nr_live;
    uint64_t bytes;
    unsigned next_obj, next_bulk, next_mark, next_sheaf;
    struct gen_sheaf sheaf[GEN_MAX_SHEAFS];
    bool first_op;
};

/* splitmix64 */
static uint64_t gen_next(struct gen *g)
{
    uint64_t z = (g->state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static unsigned gen_below(struct gen *g, unsigned n)
{
    return (unsigned)(gen_next(g) % n);
}

/* True with probability pct/100. */
static bool gen_chance(struct gen *g, unsigned pct)
{
    return gen_below(g, 100) < pct;
}

static void gen_op_start(struct gen *g)
{
    strbuf_puts(g->out, g->first_op ? "\n    " : ",\n    ");
    g->first_op = false;
}

static unsigned gen_node_of(const struct gen *g, unsigned cpu)
{
    return cpu * g->nodes / g->cpus; /* the scenario's default blocks */
}

static unsigned gen_cache_object_size(struct gen *g)
{
    unsigned shift = gen_below(g, 11); /* 8 << 0..10: 8 B .. 8 KiB */
    unsigned size = 8u << shift;

    if (shift && gen_chance(g, 50)) /* a size between two powers of two */
        size = (size >> 1) + 1 + gen_below(g, size >> 1);
    return size;
}

static void gen_caches(struct gen *g)
{
    static const char *const debug_flags[] = {"SLAB_RED_ZONE", "SLAB_POISON", "SLAB_STORE_USER"};
    unsigned c, k;

    strbuf_puts(g->out, "  \"caches\": [");
    for (c = 0; c < g->nr_caches; c++) {
        bool comma = false;

        g->size[c] = gen_cache_object_size(g);
        strbuf_printf(g->out, "%s\n    {\"name\": \"c%u\", \"object_size\": %u, \"cpu\": %u",
                      c ? "," : "", c, g->size[c], gen_below(g, g->cpus));
        if (gen_chance(g, 25)) {
            unsigned align = 8u << gen_below(g, 6); /* 8 .. 256 */

            strbuf_printf(g->out, ", \"align\": %u", align);
        }
        g->debug[c] = gen_chance(g, 15);
        if (g->debug[c] || gen_chance(g, 20)) {
            strbuf_puts(g->out, ", \"flags\": [");
            if (!g->debug[c] || gen_chance(g, 30)) {
                strbuf_puts(g->out, "\"SLAB_HWCACHE_ALIGN\"");
                comma = true;
            }
            if (g->debug[c]) {
                unsigned mask = 1 + gen_below(g, 7); /* a non-empty subset */

                for (k = 0; k < 3; k++) {
                    if (!(mask & (1u << k)))
                        continue;
                    strbuf_printf(g->out, "%s\"%s\"", comma ? ", " : "", debug_flags[k]);
                    comma = true;
                }
            }
            strbuf_puts(g->out, "]");
        }
        if (g->o->seven && gen_chance(g, 20))
            strbuf_printf(g->out, ", \"sheaf_capacity\": %u", 4 + gen_below(g, 61));
        strbuf_puts(g->out, "}");
    }
    strbuf_puts(g->out, "\n  ],\n");
}

static bool gen_room(const struct gen *g, unsigned cache, unsigned n)
{
    return g->nr_live + n <= GEN_MAX_LIVE &&
           g->bytes + (uint64_t)n * g->size[cache] <= GEN_MAX_BYTES;
}

static void gen_track(struct gen *g, const char *name, unsigned cache, unsigned cpu, unsigned bulk)
{
    struct gen_obj *ob = &g->live[g->nr_live++];

    snprintf(ob->name, sizeof(ob->name), "%s", name);
    ob->cache = cache;
    ob->cpu = cpu;
    ob->bulk = bulk;
    g->bytes += g->size[cache];
}

static void gen_alloc(struct gen *g, unsigned cpu, unsigned cache, int node)
{
    char name[24];

    snprintf(name, sizeof(name), "o%u", g->next_obj++);
    gen_op_start(g);
    strbuf_printf(g->out, "{\"op\": \"alloc\", \"cpu\": %u, \"cache\": \"c%u\"", cpu, cache);
    if (node >= 0)
        strbuf_printf(g->out, ", \"node\": %d", node);
    strbuf_printf(g->out, ", \"name\": \"%s\"}", name);
    gen_track(g, name, cache, cpu, 0);
}

/* Forget live object @i (order of the others kept: FIFO and LIFO stay meaningful). */
static void gen_forget(struct gen *g, unsigned i)
{
    g->bytes -= g->size[g->live[i].cache];
    memmove(&g->live[i], &g->live[i + 1], (g->nr_live - i - 1) * sizeof(g->live[0]));
    g->nr_live--;
}

enum gen_order { GEN_FIFO, GEN_LIFO, GEN_RANDOM };

/* Index of the next object to free in @order, or -1 when none is live. */
static int gen_pick(struct gen *g, enum gen_order order)
{
    if (!g->nr_live)
        return -1;
    switch (order) {
    case GEN_FIFO:
        return 0;
    case GEN_LIFO:
        return (int)g->nr_live - 1;
    default:
        return (int)gen_below(g, g->nr_live);
    }
}

/* The CPU a free runs on: the allocating one, or (remote) another one. */
static unsigned gen_free_cpu(struct gen *g, unsigned alloc_cpu, unsigned remote_pct)
{
    if (g->cpus == 1 || !gen_chance(g, remote_pct))
        return alloc_cpu;
    return (alloc_cpu + 1 + gen_below(g, g->cpus - 1)) % g->cpus;
}

static void gen_free(struct gen *g, unsigned i, unsigned cpu)
{
    gen_op_start(g);
    strbuf_printf(g->out, "{\"op\": \"free\", \"cpu\": %u, \"name\": \"%s\"}", cpu,
                  g->live[i].name);
    gen_forget(g, i);
}

static void gen_alloc_bulk(struct gen *g, unsigned cpu, unsigned cache)
{
    unsigned count = 1 + gen_below(g, gen_chance(g, 70) ? 16 : 64), k, id;
    char name[24];

    if (!gen_room(g, cache, count))
        return;
    id = g->next_bulk++;
    gen_op_start(g);
    strbuf_printf(g->out,
                  "{\"op\": \"alloc_bulk\", \"cpu\": %u, \"cache\": \"c%u\", \"count\": %u, "
                  "\"name\": \"b%u\"}",
                  cpu, cache, count, id);
    for (k = 0; k < count; k++) {
        snprintf(name, sizeof(name), "b%u[%u]", id, k);
        gen_track(g, name, cache, cpu, id + 1);
    }
}

/* free_bulk of what is left of one live bulk allocation. */
/* Free one bulk allocation's objects together, if there is one: true when it did. */
static bool gen_free_bulk(struct gen *g)
{
    unsigned i, bulk = 0, first = 0, cpu;

    for (i = 0; i < g->nr_live; i++) {
        if (g->live[i].bulk && gen_chance(g, 50)) {
            bulk = g->live[i].bulk;
            first = i;
            break;
        }
    }
    if (!bulk)
        return false;
    cpu = gen_free_cpu(g, g->live[first].cpu, 40);
    gen_op_start(g);
    strbuf_printf(g->out,
                  "{\"op\": \"free_bulk\", \"cpu\": %u, \"cache\": \"c%u\", \"name\": \"b%u\"}",
                  cpu, g->live[first].cache, bulk - 1);
    for (i = g->nr_live; i-- > 0;)
        if (g->live[i].bulk == bulk)
            gen_forget(g, i);
    return true;
}

static void gen_mark(struct gen *g)
{
    gen_op_start(g);
    strbuf_printf(g->out, "{\"op\": \"mark\", \"name\": \"m%u\"}", g->next_mark++);
}

static void gen_shrink(struct gen *g)
{
    gen_op_start(g);
    strbuf_printf(g->out, "{\"op\": \"shrink\", \"cpu\": %u, \"cache\": \"c%u\"}",
                  gen_below(g, g->cpus), gen_below(g, g->nr_caches));
}

/*
 * After remote frees or a bulk free, often a shrink and a mark: the shape
 * whose result depends on the order of flush_all()'s works (the choice
 * point flush_order, docs/engine.md#choice-points), which random
 * programs otherwise reach too rarely to show.
 */
static void gen_shrink_after(struct gen *g)
{
    if (!gen_chance(g, 40) && !g->o->shrink)
        return;
    gen_shrink(g);
    gen_mark(g);
}

/* A few kfree_rcu of live objects, then rcu_barrier (7.x). */
static void gen_kfree_rcu(struct gen *g)
{
    unsigned n = 1 + gen_below(g, 8), cpu = gen_below(g, g->cpus), k;
    bool any = false;

    for (k = 0; k < n && g->nr_live; k++) {
        unsigned i = gen_below(g, g->nr_live);

        gen_op_start(g);
        strbuf_printf(g->out, "{\"op\": \"kfree_rcu\", \"cpu\": %u, \"name\": \"%s\"}", cpu,
                      g->live[i].name);
        gen_forget(g, i);
        any = true;
    }
    if (any) {
        gen_op_start(g);
        strbuf_printf(g->out, "{\"op\": \"rcu_barrier\", \"cpu\": %u}", cpu);
    }
}

static void gen_sheaf_return(struct gen *g, struct gen_sheaf *sh, unsigned cpu)
{
    gen_op_start(g);
    strbuf_printf(g->out, "{\"op\": \"return_sheaf\", \"cpu\": %u, \"sheaf\": \"s%u\"}", cpu,
                  sh->id);
    sh->live = false;
}

/* One step of a prefilled sheaf's life (7.x): prefill, take, refill or return. */
static void gen_sheaf_step(struct gen *g)
{
    struct gen_sheaf *sh = &g->sheaf[gen_below(g, GEN_MAX_SHEAFS)];
    unsigned cpu = gen_below(g, g->cpus), k, n;
    char name[24];

    if (!sh->live) {
        sh->cache = gen_below(g, g->nr_caches);
        sh->left = 1 + gen_below(g, gen_chance(g, 80) ? 32 : 96);
        if (!gen_room(g, sh->cache, sh->left))
            return;
        sh->id = g->next_sheaf++;
        sh->live = true;
        gen_op_start(g);
        strbuf_printf(g->out,
                      "{\"op\": \"prefill\", \"cpu\": %u, \"cache\": \"c%u\", \"count\": %u, "
                      "\"name\": \"s%u\"}",
                      cpu, sh->cache, sh->left, sh->id);
        return;
    }
    switch (gen_below(g, 4)) {
    case 0:
    case 1: /* take some of what was asked */
        n = 1 + gen_below(g, sh->left ? sh->left : 1);
        for (k = 0; k < n && sh->left && gen_room(g, sh->cache, 1); k++, sh->left--) {
            snprintf(name, sizeof(name), "o%u", g->next_obj++);
            gen_op_start(g);
            strbuf_printf(g->out,
                          "{\"op\": \"alloc_from_sheaf\", \"cpu\": %u, \"sheaf\": \"s%u\", "
                          "\"name\": \"%s\"}",
                          cpu, sh->id, name);
            gen_track(g, name, sh->cache, cpu, 0);
        }
        break;
    case 2: /* refill_sheaf: at least @n objects afterwards */
        n = 1 + gen_below(g, gen_chance(g, 80) ? 32 : 96);
        if (!gen_room(g, sh->cache, n))
            break;
        gen_op_start(g);
        strbuf_printf(g->out,
                      "{\"op\": \"refill_sheaf\", \"cpu\": %u, \"sheaf\": \"s%u\", \"count\": %u}",
                      cpu, sh->id, n);
        sh->left = n > sh->left ? n : sh->left;
        break;
    default:
        gen_sheaf_return(g, sh, cpu);
        break;
    }
}

static void gen_ops(struct gen *g)
{
    unsigned nr_steps = 10 + gen_below(g, 60), step, k, n, cpu, cache;
    unsigned remote_pct = gen_below(g, 4) * 25; /* how often frees run elsewhere */
    enum gen_order order = (enum gen_order)gen_below(g, 3);

    if (g->o->shrink && remote_pct < 50)
        remote_pct += 50;
    strbuf_puts(g->out, "  \"ops\": [");
    g->first_op = true;
    for (step = 0; step < nr_steps; step++) {
        unsigned r = gen_below(g, 100);

        cpu = gen_below(g, g->cpus);
        cache = gen_below(g, g->nr_caches);
        if (gen_chance(g, 10))
            order = (enum gen_order)gen_below(g, 3);
        if (r < 18) { /* single allocations, sometimes on a node */
            n = 1 + gen_below(g, 4);
            for (k = 0; k < n && gen_room(g, cache, 1); k++)
                gen_alloc(g, cpu, cache, gen_chance(g, 15) ? (int)gen_below(g, g->nodes) : -1);
        } else if (r < 33) { /* a burst on one CPU */
            n = 1 + gen_below(g, gen_chance(g, 60) ? 40 : 200);
            for (k = 0; k < n && gen_room(g, cache, 1); k++)
                gen_alloc(g, cpu, cache, -1);
        } else if (r < 45) { /* single frees */
            bool remote = false;

            n = 1 + gen_below(g, 4);
            for (k = 0; k < n; k++) {
                int i = gen_pick(g, order);
                unsigned on;

                if (i < 0)
                    break;
                on = gen_free_cpu(g, g->live[i].cpu, remote_pct);
                remote |= on != g->live[i].cpu;
                gen_free(g, (unsigned)i, on);
            }
            if (remote)
                gen_shrink_after(g);
        } else if (r < 60) { /* a burst of frees on one CPU */
            bool remote = false;

            n = 1 + gen_below(g, gen_chance(g, 60) ? 40 : 200);
            for (k = 0; k < n; k++) {
                int i = gen_pick(g, order);

                if (i < 0)
                    break;
                remote |= g->live[i].cpu != cpu;
                gen_free(g, (unsigned)i, cpu);
            }
            if (remote && g->o->shrink)
                gen_shrink_after(g);
        } else if (r < 68) {
            gen_alloc_bulk(g, cpu, cache);
        } else if (r < 74) {
            if (gen_free_bulk(g))
                gen_shrink_after(g);
        } else if (r < 79) {
            gen_shrink(g);
        } else if (r < 88) {
            gen_mark(g);
        } else if (g->o->seven && r < 95) {
            gen_sheaf_step(g);
        } else if (g->o->seven) {
            gen_kfree_rcu(g);
        } else {
            gen_mark(g);
        }
    }
    for (k = 0; k < GEN_MAX_SHEAFS; k++)
        if (g->sheaf[k].live)
            gen_sheaf_return(g, &g->sheaf[k], gen_below(g, g->cpus));
    strbuf_puts(g->out, "\n  ]\n");
}

int oracle_gen(struct strbuf *out, const struct oracle_gen_opts *o)
{
    struct gen g = {.out = out, .o = o};
    unsigned cpu;

    g.cpus = o->cpus ? o->cpus : 4;
    if (g.cpus > 8 || o->nodes > 2)
        return -EINVAL;
    g.state = o->seed;
    gen_next(&g); /* so that seeds 0 and 1 do not start alike */
    g.nodes = o->nodes ? o->nodes : 1 + gen_below(&g, 2);
    if (g.nodes > g.cpus)
        g.nodes = o->nodes ? 0 : g.cpus;
    if (!g.nodes)
        return -EINVAL;
    g.nr_caches = gen_chance(&g, 25) ? 2 : 1;
    if (!(g.live = calloc(GEN_MAX_LIVE, sizeof(*g.live))))
        return -ENOMEM;

    strbuf_printf(out,
                  "{\n  \"format\": 1,\n  \"name\": \"r%" PRIu64 "\",\n"
                  "  \"title\": \"Random program %" PRIu64 " for the kernel oracle%s%s\",\n"
                  "  \"description\": \"Made by slublab oracle gen --seed %" PRIu64
                  "%s%s: operations a kernel can run, compared with real kernels "
                  "(docs/fidelity.md).\",\n",
                  o->seed, o->seed, o->seven ? " (7.x operations)" : "",
                  o->shrink ? ", shrinks after remote and bulk frees" : "", o->seed,
                  o->seven ? " --kernel 7.x" : "", o->shrink ? " --shape shrink" : "");
    strbuf_printf(out, "  \"machine\": {\"cpus\": %u, \"nodes\": %u, \"cpu_node\": [", g.cpus,
                  g.nodes);
    for (cpu = 0; cpu < g.cpus; cpu++)
        strbuf_printf(out, "%s%u", cpu ? ", " : "", gen_node_of(&g, cpu));
    strbuf_puts(out, "]},\n");
    gen_caches(&g);
    gen_ops(&g);
    strbuf_puts(out, "}\n");
    free(g.live);
    return strbuf_failed(out) ? -ENOMEM : 0;
}
