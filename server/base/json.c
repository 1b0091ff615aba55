/*
 * json.c: cJSON scalars, the two adders every JSON builder uses and its
 * failure exit (see json.h).
 *
 * cJSON prints integers below 10^15 as plain digits; larger ones go out as
 * raw digit strings so no counter is ever printed in exponent form or
 * rounded.
 */
#include "base/json.h"

#include <inttypes.h>
#include <stdio.h>

#define JSON_PLAIN_LIMIT 1000000000000000ull /* 10^15: cJSON prints below it exactly */

cJSON *json_uint(uint64_t v)
{
    char digits[24];

    if (v < JSON_PLAIN_LIMIT)
        return cJSON_CreateNumber((double)v);
    snprintf(digits, sizeof(digits), "%" PRIu64, v);
    return cJSON_CreateRaw(digits);
}

cJSON *json_int(int64_t v)
{
    char digits[24];

    if (v > -(int64_t)JSON_PLAIN_LIMIT && v < (int64_t)JSON_PLAIN_LIMIT)
        return cJSON_CreateNumber((double)v);
    snprintf(digits, sizeof(digits), "%" PRId64, v);
    return cJSON_CreateRaw(digits);
}

cJSON *json_hex(uint64_t v)
{
    char text[24];

    snprintf(text, sizeof(text), "0x%" PRIx64, v);
    return cJSON_CreateString(text);
}

cJSON *json_str(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

bool json_put(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

bool json_push(cJSON *arr, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

cJSON *json_drop(cJSON *doc)
{
    cJSON_Delete(doc);
    return NULL;
}
