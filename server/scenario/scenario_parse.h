/*
 * scenario_parse.h: what the scenario parser's files share while parsing.
 *
 * Not a public header: only scenario.c, scenario_keys.c, scenario_names.c,
 * scenario_op.c and scenario_expect.c include it.  The context
 * carries the source label, the path of the element being parsed (for
 * messages such as `x.json: ops[3].ops[1]: unknown key "cpux"`), the
 * machine limits that references are checked against, and the names that
 * the operations parsed so far define, in document order.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_SCENARIO_PARSE_H
#define SLUBLAB_SERVER_SCENARIO_SCENARIO_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "scenario/scenario.h"
#include "base/strbuf.h"

enum scenario_def_kind {
    SCENARIO_DEF_CACHE,
    SCENARIO_DEF_OBJECT,
    SCENARIO_DEF_BULK,
    SCENARIO_DEF_MARK
};

struct scenario_def {
    enum scenario_def_kind kind;
    const char *name; /* template, owned by the op that defines it */
};

struct scenario_ctx {
    const char *label;  /* source name for messages */
    struct strbuf *err; /* where the first error goes */
    struct strbuf path; /* "ops[3].ops[1]"; empty at the top level */
    unsigned nr_cpus;   /* from machine, known before any op is parsed */
    unsigned nr_nodes;
    unsigned depth;            /* repeats enclosing the op being parsed */
    struct scenario_def *defs; /* names defined so far, document order */
    size_t nr_defs, cap_defs;
    /* an index of defs: the plain names hashed (slot: def index + 1, 0 free),
     * and the templates (names with "{i}") listed */
    size_t *names_hash, hash_cap, hash_nr;
    size_t *tpls, nr_tpls, cap_tpls;
    bool runtime_refs; /* appended ops: cache and object names are checked by the replay */
    bool out_of_range; /* the error is a cpu or node beyond the machine (-ERANGE) */
};

/* Append "label: path: <message>" to ctx->err; returns -EINVAL. */
int scenario_fail(struct scenario_ctx *ctx, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Path helpers: push returns the length to pop back to. */
size_t scenario_path_push(struct scenario_ctx *ctx, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
void scenario_path_pop(struct scenario_ctx *ctx, size_t len);

/* Reject keys of @obj not in @allowed (NULL-terminated) and duplicate keys. */
int scenario_check_keys(struct scenario_ctx *ctx, const cJSON *obj, const char *const *allowed);
/* Describe a JSON value's type for messages ("a string"). */
const char *scenario_json_type(const cJSON *item);
/*
 * Typed readers.  Each returns 0 when @key was present and valid (the value
 * is stored), 1 when it is absent and !@required (nothing stored), or
 * -EINVAL with a message.
 */
int scenario_get_uint(struct scenario_ctx *ctx, const cJSON *obj, const char *key, bool required,
                      uint64_t max, uint64_t *out);
int scenario_get_bool(struct scenario_ctx *ctx, const cJSON *obj, const char *key, bool required,
                      bool *out);
int scenario_get_string(struct scenario_ctx *ctx, const cJSON *obj, const char *key, bool required,
                        const char **out);
/* An optional string naming one of a set: *@out = @lookup(value), the
 * readers' 0 or 1, or -EINVAL saying the value "is not @choices". */
int scenario_get_named(struct scenario_ctx *ctx, const cJSON *obj, const char *key,
                       int (*lookup)(const char *name), const char *choices, int *out);
/* Read an integer value already found: the checks of scenario_get_uint(). */
int scenario_item_uint(struct scenario_ctx *ctx, const cJSON *item, const char *key, uint64_t max,
                       uint64_t *out);
/* An address value "0x..." (1 to 16 hex digits); 0 or -EINVAL. */
int scenario_item_addr(struct scenario_ctx *ctx, const cJSON *item, const char *key,
                       sim_addr_t *out);
/* An array of SLAB_* flag names, OR-ed into *flags; 0 or -EINVAL. */
int scenario_item_flags(struct scenario_ctx *ctx, const cJSON *item, const char *key,
                        uint32_t *flags);
/* scenario_zones.c: machine.dma_mb/dma32_mb, the page allocator's config
 * keys, and the engine's verdict on them; 0 or -EINVAL. */
int scenario_parse_machine_zones(struct scenario_ctx *ctx, const cJSON *m, struct sim_config *cfg);
int scenario_parse_config_zones(struct scenario_ctx *ctx, const cJSON *config,
                                struct sim_config *cfg);
int scenario_check_zones(struct scenario_ctx *ctx, const struct sim_config *cfg);
/* Copy a string, or NULL on host OOM. */
char *scenario_strdup(const char *s);

/* scenario_race.c: a race op's "contexts" into op->race; 0 or -EINVAL/-ENOMEM. */
int scenario_parse_race_contexts(struct scenario_ctx *ctx, const cJSON *item,
                                 struct scenario_op *op);
/* A race op's "schedule"; 0 or -EINVAL/-ENOMEM. */
int scenario_parse_race_schedule(struct scenario_ctx *ctx, const cJSON *item,
                                 struct scenario_op *op);
/* Define the names the race's allocations give (after its frees were checked); -ENOMEM only. */
int scenario_race_defs(struct scenario_ctx *ctx, const struct scenario_op *op);
/* Release op->race. */
void scenario_race_release(struct scenario_race *race);

/* scenario_names.c */

/* Record a name definition; -ENOMEM only. */
int scenario_def_add(struct scenario_ctx *ctx, enum scenario_def_kind kind, const char *name);
/* Free the definitions and their index. */
void scenario_defs_release(struct scenario_ctx *ctx);
/* True when a definition of @kind matches @ref (templates "{i}" on either side). */
bool scenario_def_find(const struct scenario_ctx *ctx, enum scenario_def_kind kind,
                       const char *ref);
/*
 * Check a name template: 1..SCENARIO_MAX_NAME printable characters, no
 * quotes, spaces, brackets or braces except "{i}", and "{i}" only inside a
 * repeat.  0 or -EINVAL with a message naming @key.
 */
int scenario_check_template(struct scenario_ctx *ctx, const char *key, const char *name);
/* As scenario_check_template(); with @indexed, a bulk index "[3]" or "[{i}]" may follow. */
int scenario_check_name(struct scenario_ctx *ctx, const char *key, const char *name, bool indexed);
/* Is @ref a bulk element ("x[3]", "x[{i}]")?  Then *base_len is the length of "x". */
bool scenario_bulk_element(const char *ref, size_t *base_len);
/* Check that an earlier op allocates the object @ref names; 0 or -EINVAL. */
int scenario_check_object_ref(struct scenario_ctx *ctx, const char *ref);

/* scenario_expect.c: parse the "expect" array into scn->expects. */
int scenario_parse_expects(struct scenario_ctx *ctx, const cJSON *arr, struct scenario *scn);

/* scenario_op.c: parse the array @arr (ops or a repeat body) into *ops. */
int scenario_parse_ops(struct scenario_ctx *ctx, const cJSON *arr, const char *what,
                       struct scenario_op **ops, size_t *nr, uint64_t *steps);
/* scenario_op.c: parse the caches array (CREATE ops without "op"). */
int scenario_parse_caches(struct scenario_ctx *ctx, const cJSON *arr, struct scenario_op **ops,
                          size_t *nr);
/* scenario_op.c: free an op array and everything it owns; NULL is fine. */
void scenario_ops_release(struct scenario_op *ops, size_t nr);

#endif /* SLUBLAB_SERVER_SCENARIO_SCENARIO_PARSE_H */
