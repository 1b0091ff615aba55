/*
 * json_caches.h: a run read per cache as the API answers it (GET
 * /api/sessions/ID/caches, docs/api.md) and as `slublab replay`'s report
 * prints it.
 */
#ifndef SLUBLAB_SERVER_PRESENT_JSON_CACHES_H
#define SLUBLAB_SERVER_PRESENT_JSON_CACHES_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/strbuf.h"
#include "session/cache_rank.h"

/* {"from","to","sort","columns":[...],"caches":[{"cache","name",COLUMN: N,...}]}: the rows of
 * @cr as they are ordered (cache_rank_sort() by @sort).  NULL when out of memory. */
cJSON *json_cache_rank(const struct cache_rank *cr, uint64_t from, uint64_t to,
                       enum cache_rank_col sort);
/* The first @top rows of @cr (sorted) as a fixed-width table, a heading line first.  False
 * when out of memory. */
bool text_cache_rank(struct strbuf *out, const struct cache_rank *cr, size_t top);

#endif
