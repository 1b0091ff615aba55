/*
 * json_overview.h: a session's overview (session/overview.h) as the JSON
 * document of GET /api/sessions/ID/overview (docs/api.md).
 */
#ifndef SLUBLAB_SERVER_PRESENT_JSON_OVERVIEW_H
#define SLUBLAB_SERVER_PRESENT_JSON_OVERVIEW_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "session/overview.h"

/*
 * {"from","to","events","width","level","merge","buckets","source",
 *  "counters":{name:[sum per bucket]},"slab_pages":{"min":[],"max":[],"mean":[]}}
 * over events [from, to) in at most about @buckets buckets; the counters
 * @items (@nr_items of them), or when @nr_items is 0 every counter the run
 * changed.  @source says where the overview came from ("memory", "store").
 * 0, -EINVAL (buckets 0) or -ENOMEM.
 */
int json_overview(const struct overview *ov, uint64_t from, uint64_t to, unsigned buckets,
                  const unsigned *items, size_t nr_items, const char *source, cJSON **out);

#endif /* SLUBLAB_SERVER_PRESENT_JSON_OVERVIEW_H */
