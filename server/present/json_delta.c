/*
 * json_delta.c: the operations that make one JSON document into another
 * (see json_delta.h).
 *
 * Objects are matched key by key (a key's partner is looked for first
 * where the previous partner's successor is, since consecutive states list
 * their keys in the same order), arrays index by index with the tail
 * appended or cut; a value that changed type, or a scalar that changed, is
 * set whole.  The result is small when a few fields move between two
 * states, which is what consecutive positions of a session are.
 */
#include "present/json_delta.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base/json.h"

#define DELTA_DEPTH 32 /* deeper differences are set whole at this depth */

struct delta {
    cJSON *ops;
    struct {
        const char *key; /* NULL: an array index */
        int index;
    } path[DELTA_DEPTH]; /* the components down to the values compared */
    int depth;
    bool nomem;
};

/* Add [path, @value] (@value NULL: [path], a delete), or [path, null, @cut] when @cut >= 0. */
static void delta_op(struct delta *d, const cJSON *value, int cut)
{
    cJSON *op = cJSON_CreateArray(), *path = cJSON_CreateArray();
    bool ok = op && path && cJSON_AddItemToArray(op, path);
    int i;

    if (!ok)
        cJSON_Delete(path);
    for (i = 0; ok && i < d->depth; i++)
        ok = json_push(path, d->path[i].key ? cJSON_CreateString(d->path[i].key)
                                            : cJSON_CreateNumber(d->path[i].index));
    if (ok && cut >= 0)
        ok = json_push(op, cJSON_CreateNull()) && json_push(op, json_uint((unsigned)cut));
    else if (ok && value)
        ok = json_push(op, cJSON_Duplicate(value, true));
    if (!ok || !cJSON_AddItemToArray(d->ops, op)) {
        cJSON_Delete(op);
        d->nomem = true;
    }
}

static bool same_scalar(const cJSON *a, const cJSON *b)
{
    if ((a->type & 0xff) != (b->type & 0xff))
        return false;
    if (cJSON_IsNumber(a))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a) || cJSON_IsRaw(a))
        return !strcmp(a->valuestring, b->valuestring);
    return true; /* null, true, false */
}

static void delta_value(struct delta *d, const cJSON *a, const cJSON *b);

/* Compare @a and @b under path component @key (or @index when @key is NULL). */
static void delta_child(struct delta *d, const cJSON *a, const cJSON *b, const char *key, int index)
{
    d->path[d->depth].key = key;
    d->path[d->depth].index = index;
    d->depth++;
    delta_value(d, a, b);
    d->depth--;
}

/* Set @b at path + (@key or @index), or delete @key there when @b is NULL. */
static void delta_set(struct delta *d, const cJSON *b, const char *key, int index)
{
    d->path[d->depth].key = key;
    d->path[d->depth].index = index;
    d->depth++;
    delta_op(d, b, -1);
    d->depth--;
}

static const cJSON *find_key(const cJSON *obj, const cJSON *hint, const char *key)
{
    const cJSON *c;

    if (hint && hint->string && !strcmp(hint->string, key))
        return hint;
    for (c = obj->child; c; c = c->next)
        if (c->string && !strcmp(c->string, key))
            return c;
    return NULL;
}

static void delta_object(struct delta *d, const cJSON *a, const cJSON *b)
{
    const cJSON *ca, *cb, *hint;

    for (ca = a->child, hint = b->child; ca && !d->nomem; ca = ca->next) {
        cb = find_key(b, hint, ca->string);
        hint = cb ? cb->next : hint;
        if (!cb)
            delta_set(d, NULL, ca->string, 0);
    }
    for (cb = b->child, hint = a->child; cb && !d->nomem; cb = cb->next) {
        ca = find_key(a, hint, cb->string);
        hint = ca ? ca->next : hint;
        if (!ca)
            delta_set(d, cb, cb->string, 0);
        else
            delta_child(d, ca, cb, cb->string, 0);
    }
}

static void delta_array(struct delta *d, const cJSON *a, const cJSON *b)
{
    const cJSON *ca = a->child, *cb = b->child;
    int i = 0;

    for (; ca && cb && !d->nomem; ca = ca->next, cb = cb->next, i++)
        delta_child(d, ca, cb, NULL, i);
    if (ca && !d->nomem)
        delta_op(d, NULL, i);
    for (; cb && !d->nomem; cb = cb->next, i++)
        delta_set(d, cb, NULL, i);
}

/* The operations for @a -> @b at d->path. */
static void delta_value(struct delta *d, const cJSON *a, const cJSON *b)
{
    bool objects = cJSON_IsObject(a) && cJSON_IsObject(b);
    bool arrays = cJSON_IsArray(a) && cJSON_IsArray(b);

    if ((objects || arrays) && d->depth + 1 < DELTA_DEPTH) {
        if (objects)
            delta_object(d, a, b);
        else
            delta_array(d, a, b);
    } else if (objects || arrays ? !cJSON_Compare(a, b, true) : !same_scalar(a, b)) {
        delta_op(d, b, -1);
    }
}

int json_delta(const cJSON *a, const cJSON *b, cJSON *ops)
{
    struct delta d;

    memset(&d, 0, sizeof(d));
    d.ops = ops;
    delta_value(&d, a, b);
    return d.nomem ? -ENOMEM : 0;
}
