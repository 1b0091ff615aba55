/*
 * json_overview.c: the overview document (see json_overview.h).
 *
 * The numbers are written into the text directly rather than as a cJSON
 * tree of numbers: an answer of 4,096 buckets of a few dozen counters is
 * a few hundred thousand numbers, and a tree of them costs more than the
 * query itself.  Each counter array is one cJSON raw item.
 */
#include "present/json_overview.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/json.h"
#include "base/strbuf.h"

/* @n numbers as a JSON array in one raw item; NULL when out of memory. */
static cJSON *raw_array(const struct overview_answer *a, int which, unsigned item)
{
    struct strbuf sb = STRBUF_INIT;
    cJSON *raw;
    size_t i;

    strbuf_puts(&sb, "[");
    for (i = 0; i < a->nr; i++) {
        const struct overview_bucket *b = &a->b[i];

        if (i)
            strbuf_puts(&sb, ",");
        if (which == 0)
            strbuf_printf(&sb, "%" PRIu64, b->sums[item]);
        else if (!b->events)
            strbuf_puts(&sb, "null");
        else if (which == 1)
            strbuf_printf(&sb, "%" PRIu64, b->pages_min);
        else if (which == 2)
            strbuf_printf(&sb, "%" PRIu64, b->pages_max);
        else
            strbuf_printf(&sb, "%.2f", (double)b->pages_sum / (double)b->events);
    }
    strbuf_puts(&sb, "]");
    raw = strbuf_failed(&sb) ? NULL : cJSON_CreateRaw(strbuf_str(&sb));
    strbuf_release(&sb);
    return raw;
}

int json_overview(const struct overview *ov, uint64_t from, uint64_t to, unsigned buckets,
                  const unsigned *items, size_t nr_items, const char *source, cJSON **out)
{
    struct overview_answer a;
    cJSON *o = NULL, *counters, *pages;
    unsigned k;
    int err;

    if ((err = overview_query(ov, from, to, buckets, &a)))
        return err;
    err = -ENOMEM;
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "from", json_uint(a.from)) || !json_put(o, "to", json_uint(a.to)) ||
        !json_put(o, "events", json_uint(a.nr_events)) ||
        !json_put(o, "width", json_uint(a.width)) || !json_put(o, "level", json_uint(a.level)) ||
        !json_put(o, "merge", json_uint(a.merge)) || !json_put(o, "buckets", json_uint(a.nr)) ||
        !json_put(o, "source", cJSON_CreateString(source)) ||
        !json_put(o, "counters", counters = cJSON_CreateObject()) ||
        !json_put(o, "slab_pages", pages = cJSON_CreateObject()) ||
        !json_put(pages, "min", raw_array(&a, 1, 0)) ||
        !json_put(pages, "max", raw_array(&a, 2, 0)) ||
        !json_put(pages, "mean", raw_array(&a, 3, 0)))
        goto out;
    if (nr_items) {
        size_t i;

        for (i = 0; i < nr_items; i++)
            if (!json_put(counters, sim_stat_name(items[i]), raw_array(&a, 0, items[i])))
                goto out;
    } else {
        for (k = 0; k < SIM_NR_STATS; k++)
            if (ov->totals[k] && !json_put(counters, sim_stat_name(k), raw_array(&a, 0, k)))
                goto out;
    }
    *out = o;
    o = NULL;
    err = 0;
out:
    cJSON_Delete(o);
    free(a.b);
    return err;
}
