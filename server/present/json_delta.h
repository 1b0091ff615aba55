/*
 * json_delta.h: the difference between two JSON documents as a list of
 * operations, which the offline copy stores for each state instead of the
 * whole state (export_html.c, web/offline/loader.js, docs/export.md).
 *
 * An operation is an array whose first item is a path (an array of object
 * keys and array indices from the document's root):
 *   [path, value]     set the value at path (an index one past an array's
 *                     end appends)
 *   [path]            delete the object key at path
 *   [path, null, n]   cut the array at path to its first n items
 * Applied in order to a copy of @a they give @b, up to the order of object
 * keys.
 */
#ifndef SLUBLAB_SERVER_PRESENT_JSON_DELTA_H
#define SLUBLAB_SERVER_PRESENT_JSON_DELTA_H

#include <cjson/cJSON.h>

/* Append to array @ops the operations that make @a into @b.  0 or -ENOMEM. */
int json_delta(const cJSON *a, const cJSON *b, cJSON *ops);

#endif /* SLUBLAB_SERVER_PRESENT_JSON_DELTA_H */
