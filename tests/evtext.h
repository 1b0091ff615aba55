/*
 * evtext.h: an engine event as one line of text, every field with its
 * pointers followed, for tests that compare two runs' event streams byte for
 * byte (tests/engine/test_image.c, tests/server/test_image_scenarios.c).
 * Header-only: each test that includes it gets its own static copies.
 */
#ifndef SLUBLAB_TESTS_EVTEXT_H
#define SLUBLAB_TESTS_EVTEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "slub.h"

struct text {
    char *p;
    size_t len, cap;
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));

static void text_add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (t->cap - t->len < (size_t)n + 1) {
        size_t cap = t->cap ? t->cap : 4096;

        while (cap - t->len < (size_t)n + 1)
            cap *= 2;
        t->p = realloc(t->p, cap);
        if (!t->p)
            abort();
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static inline void text_place(struct text *t, const struct sim_place *pl)
{
    text_add(t, "(%u %d %d %d %llx %u)", pl->type, pl->cpu, pl->node, pl->slot,
             (unsigned long long)pl->slab, pl->sheaf);
}

static inline void text_word(struct text *t, const struct sim_word *w)
{
    text_add(t, "[%s %d %d %llx %llx %llx %llx]", w->word, w->cpu, w->node,
             (unsigned long long)w->slab, (unsigned long long)w->addr, (unsigned long long)w->old,
             (unsigned long long)w->value);
}

/* Every field of @ev, pointers followed. */
static inline void text_event(struct text *t, const struct sim_event *ev)
{
    text_add(t, "%llu %llu %d %d %d %s/%s", (unsigned long long)ev->seq, (unsigned long long)ev->op,
             ev->cpu, ev->node, ev->cache, ev->fn, ev->label ? ev->label : "-");
    for (size_t i = 0; i < ev->nr_moves; i++) {
        text_add(t, " m%u:%llx", ev->moves[i].kind, (unsigned long long)ev->moves[i].id);
        text_place(t, &ev->moves[i].from);
        text_place(t, &ev->moves[i].to);
    }
    for (size_t i = 0; i < ev->nr_stats; i++)
        text_add(t, " s%u:%lld", ev->stats[i].item, (long long)ev->stats[i].delta);
    if (ev->report)
        text_add(t, " report:%s", ev->report);
    if (ev->page) {
        const struct sim_page_alloc *pa = ev->page;

        text_add(t, " page:%x %u %x %d %u %d %u %u %u %s %s %lu %ld %llx %d %u", pa->gfp, pa->order,
                 pa->alloc_flags, pa->node, pa->zone, pa->preferred_node, pa->preferred_zone,
                 pa->highest_zone, pa->migratetype, pa->path, pa->mark, pa->free, pa->threshold,
                 (unsigned long long)pa->addr, pa->pfmemalloc, pa->layout);
    }
    for (size_t i = 0; i < ev->nr_branches; i++)
        text_add(t, " b:%s=%u", ev->branches[i].point->name, ev->branches[i].taken);
    if (ev->ctx)
        text_add(t, " ctx:%s", ev->ctx);
    if (ev->step) {
        text_add(t, " step:%s %u %s", ev->step->ctx, ev->step->index, ev->step->kind);
        for (unsigned i = 0; i < ev->step->nr_reads; i++)
            text_word(t, &ev->step->reads[i]);
        for (unsigned i = 0; i < ev->step->nr_writes; i++)
            text_word(t, &ev->step->writes[i]);
    }
    text_add(t, "\n");
}

#endif /* SLUBLAB_TESTS_EVTEXT_H */
