/*
 * json_caches.c: a run read per cache, as JSON and as a table (see
 * json_caches.h).  Caches with no event in the range and no object are
 * left out of both.
 */
#include "present/json_caches.h"

#include <inttypes.h>
#include <stdio.h>

#include "base/json.h"

/* Has row @r anything to show? */
static bool row_shown(const struct cache_rank_row *r)
{
    unsigned c;

    for (c = 0; c < CR_NR_COLS; c++)
        if (r->v[c])
            return true;
    return false;
}

cJSON *json_cache_rank(const struct cache_rank *cr, uint64_t from, uint64_t to,
                       enum cache_rank_col sort)
{
    cJSON *o = cJSON_CreateObject(), *cols = NULL, *arr = NULL;
    unsigned c;
    size_t i;

    if (!o || !json_put(o, "from", json_uint(from)) || !json_put(o, "to", json_uint(to)) ||
        !json_put(o, "sort", cJSON_CreateString(cache_rank_col_name(sort))) ||
        !json_put(o, "columns", cols = cJSON_CreateArray()) ||
        !json_put(o, "caches", arr = cJSON_CreateArray()))
        return json_drop(o);
    for (c = 0; c < CR_NR_COLS; c++)
        if (!json_push(cols, cJSON_CreateString(cache_rank_col_name(c))))
            return json_drop(o);
    for (i = 0; i < cr->nr; i++) {
        const struct cache_rank_row *r = &cr->rows[i];
        cJSON *row;

        if (!row_shown(r))
            continue;
        if (!json_push(arr, row = cJSON_CreateObject()) ||
            !json_put(row, "cache", json_uint((uint64_t)r->cache)) ||
            !json_put(row, "name", cJSON_CreateString(r->name)))
            return json_drop(o);
        for (c = 0; c < CR_NR_COLS; c++)
            if (!json_put(row, cache_rank_col_name(c), json_uint(r->v[c])))
                return json_drop(o);
    }
    return o;
}

bool text_cache_rank(struct strbuf *out, const struct cache_rank *cr, size_t top)
{
    size_t i, shown = 0;

    strbuf_printf(out, "%-24s %9s %9s %10s %10s %10s %10s %7s %7s %9s\n", "cache", "allocs",
                  "frees", "alloc_slow", "free_slow", "barn_get_f", "barn_put_f", "slabs+",
                  "slabs-", "objects");
    for (i = 0; i < cr->nr && shown < top; i++) {
        const uint64_t *v = cr->rows[i].v;

        if (!row_shown(&cr->rows[i]))
            continue;
        shown++;
        strbuf_printf(out,
                      "%-24.24s %9" PRIu64 " %9" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
                      " %10" PRIu64 " %7" PRIu64 " %7" PRIu64 " %9" PRIu64 "\n",
                      cr->rows[i].name, v[CR_ALLOCS], v[CR_FREES], v[CR_ALLOC_SLOWPATH],
                      v[CR_FREE_SLOWPATH], v[CR_BARN_GET_FAIL], v[CR_BARN_PUT_FAIL],
                      v[CR_SLABS_ALLOCATED], v[CR_SLABS_FREED], v[CR_OBJECTS]);
    }
    return !strbuf_failed(out);
}
