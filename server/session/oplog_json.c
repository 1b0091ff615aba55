/*
 * oplog_json.c: a stored op log in a JSON document and back (see
 * oplog_json.h).  The export reads the log chunk by chunk from the store
 * and compresses each on its own, so the document's size follows the
 * log's; the import writes each chunk as it is decoded, under a new log
 * id, and deletes what it wrote when a later chunk fails.
 */
#include "session/oplog_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "base/base64.h"
#include "base/ids.h"
#include "base/json.h"
#include "session/session.h"

/* One chunk's JSON: its sums, its size and its records compressed, in base64. */
static cJSON *chunk_json(const uint8_t *data, size_t len, uint64_t ops, uint64_t events)
{
    uLongf n = compressBound((uLong)len);
    uint8_t *z = malloc(n);
    char *text = NULL;
    cJSON *o = NULL;

    if (z && compress2(z, &n, data, (uLong)len, 6) == Z_OK && (text = base64_encode(z, n)) &&
        (o = cJSON_CreateObject()) &&
        (!json_put(o, "ops", json_uint(ops)) || !json_put(o, "events", json_uint(events)) ||
         !json_put(o, "bytes", json_uint(len)) || !json_put(o, "data", cJSON_CreateString(text)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    free(text);
    free(z);
    return o;
}

int oplog_json_export(struct store *st, const char *log, cJSON **out)
{
    uint64_t chunks, ops, events, seq;
    size_t last_len;
    cJSON *o = NULL, *arr = NULL;
    int ret = store_oplog_info(st, log, &chunks, &ops, &events, &last_len);

    if (!ret && !chunks)
        ret = -ENOENT;
    if (ret)
        return ret;
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "format", cJSON_CreateString(OPLOG_JSON_FORMAT)) ||
        !json_put(o, "version", json_uint(OPLOG_JSON_VERSION)) ||
        !json_put(o, "ops", json_uint(ops)) || !json_put(o, "events", json_uint(events)) ||
        !json_put(o, "chunks", arr = cJSON_CreateArray())) {
        cJSON_Delete(o);
        return -ENOMEM;
    }
    for (seq = 0; seq < chunks; seq++) {
        uint8_t *data = NULL;
        size_t len = 0;
        uint64_t c_ops, c_events;

        ret = store_oplog_chunk(st, log, seq, &data, &len, &c_ops, &c_events);
        if (!ret && !json_push(arr, chunk_json(data, len, c_ops, c_events)))
            ret = -ENOMEM;
        free(data);
        if (ret) {
            cJSON_Delete(o);
            return ret;
        }
    }
    *out = o;
    return 0;
}

/* A non-negative integer member @key of @o, at most @max: true and *v, else false. */
static bool member_u64(const cJSON *o, const char *key, uint64_t max, uint64_t *v)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble > (double)max ||
        j->valuedouble != (double)(uint64_t)j->valuedouble)
        return false;
    *v = (uint64_t)j->valuedouble;
    return true;
}

/* Decode chunk @c into *data (its @bytes records); SESSION_EBADINPUT with why in @err. */
static int chunk_decode(const cJSON *c, uint64_t seq, uint8_t **data, uint64_t *bytes,
                        uint64_t *ops, uint64_t *events, struct strbuf *err)
{
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(c, "data");
    uint8_t *z = NULL, *raw = NULL;
    size_t zlen = 0;
    uLongf n;
    int ret;

    if (!cJSON_IsObject(c) || !cJSON_IsString(text) || !member_u64(c, "ops", UINT32_MAX, ops) ||
        !member_u64(c, "events", UINT64_C(1) << 40, events) ||
        !member_u64(c, "bytes", OPLOG_JSON_CHUNK_MAX, bytes) || !*bytes) {
        strbuf_printf(err,
                      "log: chunk %llu: expected {\"ops\": N, \"events\": N, \"bytes\": N (1 to "
                      "%u), \"data\": \"...\"}",
                      (unsigned long long)seq, OPLOG_JSON_CHUNK_MAX);
        return SESSION_EBADINPUT;
    }
    if ((ret = base64_decode(text->valuestring, &z, &zlen))) {
        if (ret == -EINVAL)
            strbuf_printf(err, "log: chunk %llu: \"data\" is not base64", (unsigned long long)seq);
        return ret == -EINVAL ? SESSION_EBADINPUT : ret;
    }
    if (!(raw = malloc((size_t)*bytes))) { /* at most OPLOG_JSON_CHUNK_MAX */
        free(z);
        return -ENOMEM;
    }
    n = (uLongf)*bytes;
    if (uncompress(raw, &n, z, (uLong)zlen) != Z_OK || n != *bytes) {
        strbuf_printf(err, "log: chunk %llu: \"data\" is not %llu bytes compressed with zlib",
                      (unsigned long long)seq, (unsigned long long)*bytes);
        free(raw);
        free(z);
        return SESSION_EBADINPUT;
    }
    free(z);
    *data = raw;
    return 0;
}

int oplog_json_import(struct store *st, const cJSON *j, char *id, struct strbuf *err)
{
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(j, "format");
    const cJSON *chunks = cJSON_GetObjectItemCaseSensitive(j, "chunks"), *c;
    uint64_t version = 0, ops = 0, events = 0, sum_ops = 0, sum_events = 0, seq = 0;
    int ret = 0;

    if (!cJSON_IsObject(j) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, OPLOG_JSON_FORMAT) ||
        !member_u64(j, "version", 1000, &version) || version != OPLOG_JSON_VERSION ||
        !member_u64(j, "ops", UINT64_MAX / 2, &ops) ||
        !member_u64(j, "events", UINT64_MAX / 2, &events) || !cJSON_IsArray(chunks) ||
        !cJSON_GetArraySize(chunks)) {
        strbuf_printf(err,
                      "log: expected {\"format\": \"%s\", \"version\": %d, \"ops\": N, "
                      "\"events\": N, \"chunks\": [...]}",
                      OPLOG_JSON_FORMAT, OPLOG_JSON_VERSION);
        return SESSION_EBADINPUT;
    }
    if (ids_random(id, SESSION_ID_LEN))
        return -ENOMEM;
    cJSON_ArrayForEach(c, chunks)
    {
        uint8_t *data = NULL;
        uint64_t bytes = 0, c_ops = 0, c_events = 0;

        if ((ret = chunk_decode(c, seq, &data, &bytes, &c_ops, &c_events, err)))
            break;
        sum_ops += c_ops;
        sum_events += c_events;
        ret = store_oplog_put(st, id, seq++, data, (size_t)bytes, c_ops, c_events);
        free(data);
        if (ret)
            break;
    }
    if (!ret && (sum_ops != ops || sum_events != events)) {
        strbuf_printf(err,
                      "log: its chunks hold %llu operations and %llu events, not the %llu and "
                      "%llu it says",
                      (unsigned long long)sum_ops, (unsigned long long)sum_events,
                      (unsigned long long)ops, (unsigned long long)events);
        ret = SESSION_EBADINPUT;
    }
    if (ret)
        store_oplog_delete(st, id);
    return ret;
}
