/*
 * json.h: the cJSON helpers under every JSON document of the server.
 *
 * Scalars that print exactly (a 64-bit counter never goes out in exponent
 * form), and adders that delete the orphan item when adding fails, so a
 * builder can chain `if (!json_put(...) || !json_put(...))` and leak
 * nothing; json_drop() is such a builder's way out when one fails.  The
 * documents themselves are built in present/ (engine state and events,
 * reports) and by the store's row lists.
 */
#ifndef SLUBLAB_SERVER_BASE_JSON_H
#define SLUBLAB_SERVER_BASE_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Scalars: an exact unsigned/signed integer, a hex address string.  NULL
 * when the host ran out of memory. */
cJSON *json_uint(uint64_t v);
cJSON *json_int(int64_t v);
cJSON *json_hex(uint64_t v);
/* A string, or null for NULL. */
cJSON *json_str(const char *s);
/* Add @item under @key; on failure delete @item and return false. */
bool json_put(cJSON *obj, const char *key, cJSON *item);
/* Append @item to array @arr; on failure delete @item and return false. */
bool json_push(cJSON *arr, cJSON *item);
/* Delete @doc (NULL is fine) and return NULL: a builder that failed half way
 * ends with `return json_drop(o);`. */
cJSON *json_drop(cJSON *doc);

#endif /* SLUBLAB_SERVER_BASE_JSON_H */
