/*
 * scenario_names.c: the names a scenario defines and refers to (see
 * scenario_parse.h).
 *
 * Objects, caches and marks are named by templates that may hold one "{i}"
 * (the iteration index of the innermost repeat).  The parser cannot expand
 * loops, so a reference is accepted when some earlier definition could
 * produce it: "o3" matches a definition "o{i}", and "o{i}" matches "o{i}".
 * That catches typos and use-before-definition at load time; the replay
 * (replay.c) checks what is actually live when the operation runs.
 *
 * A kernel trace makes scenarios of a million operations, each freeing a
 * name defined earlier, so the definitions are indexed: plain names in a
 * hash table (by kind and name), templates in a list.  A plain reference is
 * then a lookup plus a walk of the templates; a template reference (only
 * inside a repeat) still walks every definition.
 */
#include "scenario/scenario_parse.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

static size_t scenario_name_hash(enum scenario_def_kind kind, const char *name)
{
    uint64_t h = 14695981039346656037ULL ^ (uint64_t)kind; /* FNV-1a */

    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ULL;
    return (size_t)(h ^ (h >> 32));
}

/* The hash slot holding a plain @name of @kind, or the free slot where it goes. */
static size_t scenario_hash_slot(const struct scenario_ctx *ctx, enum scenario_def_kind kind,
                                 const char *name)
{
    size_t mask = ctx->hash_cap - 1, i = scenario_name_hash(kind, name) & mask;

    for (;; i = (i + 1) & mask) {
        size_t d = ctx->names_hash[i];

        if (!d || (ctx->defs[d - 1].kind == kind && !strcmp(ctx->defs[d - 1].name, name)))
            return i;
    }
}

/* Index defs[@idx], a plain name. */
static int scenario_hash_add(struct scenario_ctx *ctx, size_t idx)
{
    const struct scenario_def *def = &ctx->defs[idx];
    size_t slot;

    if (2 * (ctx->hash_nr + 1) > ctx->hash_cap) {
        size_t cap = ctx->hash_cap ? 2 * ctx->hash_cap : 64, *old = ctx->names_hash;
        size_t old_cap = ctx->hash_cap, i;

        ctx->names_hash = calloc(cap, sizeof(*ctx->names_hash));
        if (!ctx->names_hash) {
            ctx->names_hash = old;
            return -ENOMEM;
        }
        ctx->hash_cap = cap;
        for (i = 0; i < old_cap; i++)
            if (old[i]) {
                const struct scenario_def *o = &ctx->defs[old[i] - 1];

                ctx->names_hash[scenario_hash_slot(ctx, o->kind, o->name)] = old[i];
            }
        free(old);
    }
    slot = scenario_hash_slot(ctx, def->kind, def->name);
    if (!ctx->names_hash[slot]) {
        ctx->names_hash[slot] = idx + 1;
        ctx->hash_nr++;
    }
    return 0;
}

void scenario_defs_release(struct scenario_ctx *ctx)
{
    free(ctx->defs);
    free(ctx->names_hash);
    free(ctx->tpls);
    ctx->defs = NULL;
    ctx->names_hash = ctx->tpls = NULL;
    ctx->nr_defs = ctx->cap_defs = ctx->hash_cap = ctx->hash_nr = ctx->nr_tpls = ctx->cap_tpls = 0;
}

int scenario_def_add(struct scenario_ctx *ctx, enum scenario_def_kind kind, const char *name)
{
    struct scenario_def *d =
            grow_array(ctx->defs, &ctx->cap_defs, ctx->nr_defs + 1, sizeof(*d), 16);
    size_t *t;

    if (!d)
        return -ENOMEM;
    ctx->defs = d;
    ctx->defs[ctx->nr_defs].kind = kind;
    ctx->defs[ctx->nr_defs].name = name;
    ctx->nr_defs++;
    if (!strstr(name, "{i}"))
        return scenario_hash_add(ctx, ctx->nr_defs - 1);
    t = grow_array(ctx->tpls, &ctx->cap_tpls, ctx->nr_tpls + 1, sizeof(*t), 16);
    if (!t)
        return -ENOMEM;
    ctx->tpls = t;
    ctx->tpls[ctx->nr_tpls++] = ctx->nr_defs - 1;
    return 0;
}

/* Does template @tpl (at most one "{i}") cover @s, a name or a template? */
static bool scenario_template_covers(const char *tpl, const char *s)
{
    const char *hole = strstr(tpl, "{i}");
    size_t pre, suf_len, len = strlen(s), i;
    const char *suf;

    if (!hole)
        return strcmp(tpl, s) == 0;
    pre = (size_t)(hole - tpl);
    suf = hole + 3;
    suf_len = strlen(suf);
    if (len <= pre + suf_len || strncmp(s, tpl, pre) != 0 || strcmp(s + len - suf_len, suf) != 0)
        return false;
    if (len - pre - suf_len == 3 && strncmp(s + pre, "{i}", 3) == 0)
        return true;
    for (i = pre; i < len - suf_len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

bool scenario_def_find(const struct scenario_ctx *ctx, enum scenario_def_kind kind, const char *ref)
{
    size_t i;

    if (!strstr(ref, "{i}")) { /* a plain name: defined as itself, or covered by a template */
        if (ctx->hash_cap && ctx->names_hash[scenario_hash_slot(ctx, kind, ref)])
            return true;
        for (i = 0; i < ctx->nr_tpls; i++) {
            const struct scenario_def *d = &ctx->defs[ctx->tpls[i]];

            if (d->kind == kind && scenario_template_covers(d->name, ref))
                return true;
        }
        return false;
    }
    for (i = 0; i < ctx->nr_defs; i++) {
        const char *def = ctx->defs[i].name;

        if (ctx->defs[i].kind != kind)
            continue;
        if (scenario_template_covers(def, ref) || scenario_template_covers(ref, def))
            return true;
    }
    return false;
}

int scenario_check_template(struct scenario_ctx *ctx, const char *key, const char *name)
{
    size_t len = strlen(name), i;
    const char *hole = strstr(name, "{i}");

    if (len == 0 || len > SCENARIO_MAX_NAME)
        return scenario_fail(ctx, "key \"%s\": a name has 1 to %u characters", key,
                             SCENARIO_MAX_NAME);
    if (hole && !ctx->depth)
        return scenario_fail(ctx, "key \"%s\": \"{i}\" is only allowed inside a repeat", key);
    if (hole && strstr(hole + 3, "{i}"))
        return scenario_fail(ctx, "key \"%s\": at most one \"{i}\" per name", key);
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];

        if (hole && name + i == hole) {
            i += 2;
            continue;
        }
        if (c <= ' ' || c >= 0x7f || strchr("\"\\{}[]", c))
            return scenario_fail(ctx,
                                 "key \"%s\": \"%s\" contains a character names may not "
                                 "use (space, quote, backslash, bracket or brace)",
                                 key, name);
    }
    return 0;
}

/* Is @ref an element of a bulk ("x[3]", "x[{i}]")?  Then *base_len is set. */
bool scenario_bulk_element(const char *ref, size_t *base_len)
{
    const char *open = strchr(ref, '[');
    size_t len = strlen(ref), i;

    if (!open || open == ref || ref[len - 1] != ']')
        return false;
    *base_len = (size_t)(open - ref);
    if (strcmp(open, "[{i}]") == 0)
        return true;
    for (i = *base_len + 1; i < len - 1; i++)
        if (ref[i] < '0' || ref[i] > '9')
            return false;
    return i > *base_len + 1;
}

/* Check a name or cache template; free and kfree may add a bulk index "[3]". */
int scenario_check_name(struct scenario_ctx *ctx, const char *key, const char *name, bool indexed)
{
    char base[SCENARIO_MAX_NAME + 1];
    size_t base_len;

    if (indexed && scenario_bulk_element(name, &base_len) && base_len <= SCENARIO_MAX_NAME) {
        if (strstr(name + base_len, "{i}") && !ctx->depth)
            return scenario_fail(ctx, "key \"%s\": \"{i}\" is only allowed inside a repeat", key);
        memcpy(base, name, base_len);
        base[base_len] = '\0';
        return scenario_check_template(ctx, key, base);
    }
    return scenario_check_template(ctx, key, name);
}

/* Check a reference to an object name (free, kfree). */
int scenario_check_object_ref(struct scenario_ctx *ctx, const char *ref)
{
    char base[SCENARIO_MAX_NAME + 1];
    size_t base_len;

    if (scenario_bulk_element(ref, &base_len) && base_len <= SCENARIO_MAX_NAME) {
        memcpy(base, ref, base_len);
        base[base_len] = '\0';
        if (scenario_def_find(ctx, SCENARIO_DEF_BULK, base))
            return 0;
        return scenario_fail(ctx, "key \"name\": no earlier alloc_bulk names \"%s\"", base);
    }
    if (scenario_def_find(ctx, SCENARIO_DEF_OBJECT, ref) ||
        scenario_def_find(ctx, SCENARIO_DEF_BULK, ref))
        return 0;
    return scenario_fail(ctx, "key \"name\": no earlier operation allocates \"%s\"", ref);
}
