/*
 * scenario_keys.c: the typed key readers of the scenario parser, and its
 * error and path helpers (see scenario_parse.h).
 *
 * Everything a scenario author can get wrong about one key is decided here,
 * once, so that every operation reports it the same way: the message always
 * starts with the source and the path, and names the key.  Integers are
 * JSON numbers that are whole, non-negative and below 2^53 (the largest
 * range a double, and so JavaScript, holds exactly); a per-key maximum
 * keeps absurd values away from the engine.  Addresses are "0x" strings,
 * since JSON numbers cannot hold 64 bits.
 */
#include "scenario/scenario_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENARIO_INT_LIMIT 9007199254740992.0 /* 2^53 */

int scenario_fail(struct scenario_ctx *ctx, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* Only the first error is reported: later ones are usually its echoes. */
    if (ctx->err->len == 0) {
        if (ctx->path.len)
            strbuf_printf(ctx->err, "%s: %s: %s", ctx->label, strbuf_str(&ctx->path), msg);
        else
            strbuf_printf(ctx->err, "%s: %s", ctx->label, msg);
    }
    return -EINVAL;
}

size_t scenario_path_push(struct scenario_ctx *ctx, const char *fmt, ...)
{
    size_t old = ctx->path.len;
    char part[96];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(part, sizeof(part), fmt, ap);
    va_end(ap);
    if (old && part[0] != '[')
        strbuf_puts(&ctx->path, ".");
    strbuf_puts(&ctx->path, part);
    return old;
}

void scenario_path_pop(struct scenario_ctx *ctx, size_t len)
{
    strbuf_truncate(&ctx->path, len);
}

const char *scenario_json_type(const cJSON *item)
{
    static const struct {
        cJSON_bool (*is)(const cJSON *);
        const char *name;
    } types[] = {
            {cJSON_IsString, "a string"}, {cJSON_IsNumber, "a number"},
            {cJSON_IsBool, "a boolean"},  {cJSON_IsNull, "null"},
            {cJSON_IsArray, "an array"},  {cJSON_IsObject, "an object"},
    };

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (types[i].is(item))
            return types[i].name;
    return "an invalid value";
}

int scenario_check_keys(struct scenario_ctx *ctx, const cJSON *obj, const char *const *allowed)
{
    const cJSON *item, *prev;
    const char *const *a;

    for (item = obj->child; item; item = item->next) {
        for (a = allowed; *a; a++)
            if (strcmp(*a, item->string) == 0)
                break;
        if (!*a)
            return scenario_fail(ctx, "unknown key \"%s\"", item->string);
        /* cJSON keeps duplicates; a second value would silently lose. */
        for (prev = obj->child; prev != item; prev = prev->next)
            if (strcmp(prev->string, item->string) == 0)
                return scenario_fail(ctx, "duplicate key \"%s\"", item->string);
    }
    return 0;
}

int scenario_item_uint(struct scenario_ctx *ctx, const cJSON *item, const char *key, uint64_t max,
                       uint64_t *out)
{
    double d;

    if (!cJSON_IsNumber(item))
        return scenario_fail(ctx, "key \"%s\": expected an integer, got %s", key,
                             scenario_json_type(item));
    d = item->valuedouble;
    if (d < 0)
        return scenario_fail(ctx, "key \"%s\": %g is negative", key, d);
    if (!(d < SCENARIO_INT_LIMIT))
        return scenario_fail(ctx, "key \"%s\": %g is not below 2^53", key, d);
    if ((double)(uint64_t)d != d)
        return scenario_fail(ctx, "key \"%s\": %g is not an integer", key, d);
    if ((uint64_t)d > max)
        return scenario_fail(ctx, "key \"%s\": %llu is above the limit %llu", key,
                             (unsigned long long)(uint64_t)d, (unsigned long long)max);
    *out = (uint64_t)d;
    return 0;
}

int scenario_get_uint(struct scenario_ctx *ctx, const cJSON *obj, const char *key, bool required,
                      uint64_t max, uint64_t *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (!item)
        return required ? scenario_fail(ctx, "missing key \"%s\"", key) : 1;
    return scenario_item_uint(ctx, item, key, max, out);
}

/* Key @key of @obj, which must be @what ("a boolean") as @is tells: 0 with
 * *out the item, 1 when absent and optional, or -EINVAL. */
static int scenario_get_item(struct scenario_ctx *ctx, const cJSON *obj, const char *key,
                             bool required, cJSON_bool (*is)(const cJSON *), const char *what,
                             const cJSON **out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (!item)
        return required ? scenario_fail(ctx, "missing key \"%s\"", key) : 1;
    if (!is(item))
        return scenario_fail(ctx, "key \"%s\": expected %s, got %s", key, what,
                             scenario_json_type(item));
    *out = item;
    return 0;
}

int scenario_get_bool(struct scenario_ctx *ctx, const cJSON *obj, const char *key, bool required,
                      bool *out)
{
    const cJSON *item = NULL;
    int err = scenario_get_item(ctx, obj, key, required, cJSON_IsBool, "a boolean", &item);

    if (err)
        return err;
    *out = cJSON_IsTrue(item);
    return 0;
}

int scenario_get_string(struct scenario_ctx *ctx, const cJSON *obj, const char *key, bool required,
                        const char **out)
{
    const cJSON *item = NULL;
    int err = scenario_get_item(ctx, obj, key, required, cJSON_IsString, "a string", &item);

    if (err)
        return err;
    *out = item->valuestring;
    return 0;
}

int scenario_get_named(struct scenario_ctx *ctx, const cJSON *obj, const char *key,
                       int (*lookup)(const char *name), const char *choices, int *out)
{
    const char *s = NULL; /* set unless the key is absent (err 1) */
    int err = scenario_get_string(ctx, obj, key, false, &s), v;

    if (err)
        return err;
    if ((v = lookup(s)) < 0)
        return scenario_fail(ctx, "key \"%s\": \"%s\" is not %s", key, s, choices);
    *out = v;
    return 0;
}

char *scenario_strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *p = malloc(len);

    if (p)
        memcpy(p, s, len);
    return p;
}

/* Parse "0x..." (1 to 16 hex digits). */
static bool scenario_parse_addr(const char *s, sim_addr_t *out)
{
    sim_addr_t v = 0;
    size_t i, len = strlen(s);

    if (len < 3 || len > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    for (i = 2; i < len; i++) {
        char c = s[i];
        unsigned d;

        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return false;
        v = v << 4 | d;
    }
    *out = v;
    return true;
}

int scenario_item_addr(struct scenario_ctx *ctx, const cJSON *item, const char *key,
                       sim_addr_t *out)
{
    if (!cJSON_IsString(item))
        return scenario_fail(ctx, "key \"%s\": expected a string, got %s", key,
                             scenario_json_type(item));
    if (!scenario_parse_addr(item->valuestring, out))
        return scenario_fail(ctx,
                             "key \"%s\": \"%s\" is not a hex address like "
                             "\"0xffff888000001000\"",
                             key, item->valuestring);
    return 0;
}

int scenario_item_flags(struct scenario_ctx *ctx, const cJSON *item, const char *key,
                        uint32_t *flags)
{
    const cJSON *f;
    unsigned i = 0;

    if (!cJSON_IsArray(item))
        return scenario_fail(ctx, "key \"%s\": expected an array of flag names, got %s", key,
                             scenario_json_type(item));
    for (f = item->child; f; f = f->next, i++) {
        uint32_t bit;

        if (!cJSON_IsString(f))
            return scenario_fail(ctx, "key \"%s\": %s[%u] is %s, not a flag name", key, key, i,
                                 scenario_json_type(f));
        bit = sim_flag_lookup(f->valuestring);
        if (!bit)
            return scenario_fail(ctx, "key \"%s\": unknown flag \"%s\"", key, f->valuestring);
        *flags |= bit;
    }
    return 0;
}
