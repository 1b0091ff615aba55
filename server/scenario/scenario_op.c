/*
 * scenario_op.c: parsing the operations of a scenario (see scenario.h).
 *
 * The op table is the whole grammar: each kind lists the keys it requires
 * and the keys it accepts, as bit masks over the key table.  A key is parsed
 * the same way whatever op carries it (one case in scenario_op_key()), and
 * scenario_op_check() adds what one kind needs beyond its keys: "name or
 * addr", and the definitions and references of names.  Adding a kind is one
 * row in op_specs[]; adding a key is one row in op_keys[] and one case.
 *
 * Names are checked in document order: an op may only refer to a cache or
 * object that an earlier op defines (as a template, see scenario_def_find),
 * so typos fail before anything runs.  kmalloc caches ("kmalloc-64") exist
 * only once the engine creates them, so names containing "kmalloc-" pass
 * here and are checked by the replay.
 */
#include "scenario/scenario_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum op_key {
    KEY_OP,
    KEY_CPU,
    KEY_CACHE,
    KEY_NODE,
    KEY_GFP,
    KEY_NAME,
    KEY_ADDR,
    KEY_SIZE,
    KEY_COUNT,
    KEY_TIMES,
    KEY_OPS,
    KEY_OBJECT_SIZE,
    KEY_ALIGN,
    KEY_FLAGS,
    KEY_CTOR,
    KEY_FREEPTR_OFFSET,
    KEY_SHEAF_CAPACITY,
    KEY_SHEAF,
    KEY_OFFSET,
    KEY_VALUE,
    KEY_ALIASES,
    KEY_ORDER,
    KEY_CONTEXT,
    KEY_CPU_PARTIAL,
    KEY_CONTEXTS,
    KEY_SCHEDULE,
    NR_OP_KEYS
};

#define K(key) (1u << KEY_##key)

static const char *const op_keys[NR_OP_KEYS] = {
        [KEY_OP] = "op",
        [KEY_CPU] = "cpu",
        [KEY_CACHE] = "cache",
        [KEY_NODE] = "node",
        [KEY_GFP] = "gfp",
        [KEY_NAME] = "name",
        [KEY_ADDR] = "addr",
        [KEY_SIZE] = "size",
        [KEY_COUNT] = "count",
        [KEY_TIMES] = "times",
        [KEY_OPS] = "ops",
        [KEY_OBJECT_SIZE] = "object_size",
        [KEY_ALIGN] = "align",
        [KEY_FLAGS] = "flags",
        [KEY_CTOR] = "ctor",
        [KEY_FREEPTR_OFFSET] = "freeptr_offset",
        [KEY_SHEAF_CAPACITY] = "sheaf_capacity",
        [KEY_SHEAF] = "sheaf",
        [KEY_OFFSET] = "offset",
        [KEY_VALUE] = "value",
        [KEY_ALIASES] = "aliases",
        [KEY_ORDER] = "order",
        [KEY_CONTEXT] = "context",
        [KEY_CPU_PARTIAL] = "cpu_partial",
        [KEY_CONTEXTS] = "contexts",
        [KEY_SCHEDULE] = "schedule",
};

struct op_spec {
    const char *name;
    unsigned required; /* K() mask; "op" is implied */
    unsigned optional;
};

#define CREATE_KEYS                                                                                \
    (K(ALIGN) | K(FLAGS) | K(CTOR) | K(FREEPTR_OFFSET) | K(SHEAF_CAPACITY) | K(CPU) | K(ALIASES) | \
            K(CPU_PARTIAL) | K(ORDER))

static const struct op_spec op_specs[SCENARIO_NR_OP_KINDS] = {
        [SCENARIO_OP_CREATE] = {"create", K(NAME) | K(OBJECT_SIZE), CREATE_KEYS},
        [SCENARIO_OP_ALLOC] = {"alloc", K(CPU) | K(CACHE),
                               K(NODE) | K(GFP) | K(NAME) | K(CONTEXT) | K(SIZE)},
        [SCENARIO_OP_FREE] = {"free", K(CPU), K(CACHE) | K(NAME) | K(ADDR)},
        [SCENARIO_OP_KMALLOC] = {"kmalloc", K(CPU) | K(SIZE),
                                 K(NODE) | K(GFP) | K(NAME) | K(CONTEXT)},
        [SCENARIO_OP_KFREE] = {"kfree", K(CPU), K(NAME) | K(ADDR)},
        [SCENARIO_OP_ALLOC_BULK] = {"alloc_bulk", K(CPU) | K(CACHE) | K(COUNT), K(GFP) | K(NAME)},
        [SCENARIO_OP_FLUSH_ALL] = {"flush_all", K(CACHE), K(CPU)},
        [SCENARIO_OP_SHRINK] = {"shrink", K(CACHE), K(CPU)},
        [SCENARIO_OP_DESTROY] = {"destroy", K(CACHE), K(CPU)},
        [SCENARIO_OP_WRITE] = {"write", K(COUNT) | K(VALUE),
                               K(CPU) | K(NAME) | K(ADDR) | K(OFFSET)},
        [SCENARIO_OP_KFREE_RCU] = {"kfree_rcu", K(CPU), K(NAME) | K(ADDR)},
        [SCENARIO_OP_GRACE_PERIOD] = {"grace_period", 0, K(CPU)},
        [SCENARIO_OP_RCU_BARRIER] = {"rcu_barrier", 0, K(CPU)},
        [SCENARIO_OP_PREFILL] = {"prefill", K(CPU) | K(CACHE) | K(COUNT) | K(NAME), K(GFP)},
        [SCENARIO_OP_ALLOC_FROM_SHEAF] = {"alloc_from_sheaf", K(CPU) | K(SHEAF), K(NAME)},
        [SCENARIO_OP_REFILL_SHEAF] = {"refill_sheaf", K(CPU) | K(SHEAF) | K(COUNT), K(GFP)},
        [SCENARIO_OP_RETURN_SHEAF] = {"return_sheaf", K(CPU) | K(SHEAF), 0},
        [SCENARIO_OP_FREE_BULK] = {"free_bulk", K(CPU) | K(CACHE) | K(NAME), 0},
        [SCENARIO_OP_MARK] = {"mark", K(NAME), 0},
        [SCENARIO_OP_REPEAT] = {"repeat", K(TIMES) | K(OPS), 0},
        [SCENARIO_OP_ALLOC_PAGES] = {"alloc_pages", 0,
                                     K(CPU) | K(NODE) | K(GFP) | K(ORDER) | K(NAME) | K(CONTEXT)},
        [SCENARIO_OP_FREE_PAGES] = {"free_pages", 0, K(CPU) | K(NAME) | K(ADDR) | K(ORDER)},
        [SCENARIO_OP_RACE] = {"race", K(CACHE) | K(CONTEXTS), K(SCHEDULE)},
        [SCENARIO_OP_FLUSH_CPU] = {"flush_cpu", 0, 0}, /* a race context's op (scenario_race.c) */
        [SCENARIO_OP_VALIDATE] = {"validate", K(CACHE), K(CPU)},
        [SCENARIO_OP_KREALLOC] = {"krealloc", K(CPU) | K(SIZE), K(NAME) | K(ADDR) | K(GFP)},
};

const char *scenario_op_name(enum scenario_op_kind kind)
{
    if ((unsigned)kind >= SCENARIO_NR_OP_KINDS)
        return "?";
    return op_specs[kind].name;
}

void scenario_ops_release(struct scenario_op *ops, size_t nr)
{
    size_t i;

    if (!ops)
        return;
    for (i = 0; i < nr; i++) {
        free(ops[i].cache);
        free(ops[i].name);
        free(ops[i].sheaf);
        for (size_t a = 0; a < ops[i].nr_aliases; a++)
            free(ops[i].aliases[a]);
        free(ops[i].aliases);
        scenario_ops_release(ops[i].ops, ops[i].nr_ops);
        scenario_race_release(ops[i].race);
    }
    free(ops);
}

/* "aliases": an array of cache names, each as a create's "name" would be. */
static int scenario_item_aliases(struct scenario_ctx *ctx, const cJSON *item, struct scenario_op *op)
{
    const cJSON *a;
    int n, err;

    if (!cJSON_IsArray(item))
        return scenario_fail(ctx, "key \"aliases\": expected an array of names, got %s",
                             scenario_json_type(item));
    n = cJSON_GetArraySize(item);
    if ((unsigned)n > SCENARIO_MAX_ALIASES)
        return scenario_fail(ctx, "key \"aliases\": at most %u names", SCENARIO_MAX_ALIASES);
    if (n && !(op->aliases = calloc((size_t)n, sizeof(*op->aliases))))
        return -ENOMEM;
    cJSON_ArrayForEach(a, item) {
        if (!cJSON_IsString(a))
            return scenario_fail(ctx, "key \"aliases\": expected a string, got %s",
                                 scenario_json_type(a));
        if ((err = scenario_check_name(ctx, "aliases", a->valuestring, false)))
            return err;
        if (strlen(a->valuestring) >= SIM_NAME_MAX)
            return scenario_fail(ctx, "key \"aliases\": cache names are shorter than %d",
                                 SIM_NAME_MAX);
        if (!(op->aliases[op->nr_aliases] = scenario_strdup(a->valuestring)))
            return -ENOMEM;
        op->nr_aliases++;
    }
    return 0;
}

/* Key @kname's @item: a CPU or node number below @nr, the machine's key
 * @machine_key; one beyond it marks @ctx out_of_range. */
static int scenario_op_index(struct scenario_ctx *ctx, const cJSON *item, const char *kname,
                             unsigned nr, const char *machine_key, uint64_t *v)
{
    int err;

    if ((err = scenario_item_uint(ctx, item, kname, UINT32_MAX, v)))
        return err;
    if (*v >= nr) {
        ctx->out_of_range = true;
        return scenario_fail(ctx, "key \"%s\": %llu is not below machine.%s (%u)", kname,
                             (unsigned long long)*v, machine_key, nr);
    }
    return 0;
}

/* Parse one key of @op; the value has passed the table's key filter. */
static int scenario_op_key(struct scenario_ctx *ctx, enum op_key key, const cJSON *item,
                           struct scenario_op *op, uint64_t *steps)
{
    const char *kname = op_keys[key];
    uint64_t v = 0;
    int err;

    switch (key) {
    case KEY_OP:
        return 0;
    case KEY_CPU:
        if ((err = scenario_op_index(ctx, item, kname, ctx->nr_cpus, "cpus", &v)))
            return err;
        op->cpu = (unsigned)v;
        return 0;
    case KEY_NODE:
        if ((err = scenario_op_index(ctx, item, kname, ctx->nr_nodes, "nodes", &v)))
            return err;
        op->node = (int)v;
        return 0;
    case KEY_SIZE:
    case KEY_OBJECT_SIZE:
        if ((err = scenario_item_uint(ctx, item, kname, SCENARIO_MAX_SIZE, &v)))
            return err;
        if (v == 0)
            return scenario_fail(ctx, "key \"%s\": must be at least 1", kname);
        if (key == KEY_SIZE)
            op->size = (unsigned)v;
        else
            op->create.object_size = (unsigned)v;
        return 0;
    case KEY_COUNT:
        if ((err = scenario_item_uint(ctx, item, kname, SCENARIO_MAX_COUNT, &v)))
            return err;
        if (v == 0)
            return scenario_fail(ctx, "key \"count\": must be at least 1");
        op->count = (unsigned)v;
        return 0;
    case KEY_OFFSET:
        if ((err = scenario_item_uint(ctx, item, kname, SCENARIO_MAX_SIZE, &v)))
            return err;
        op->offset = (unsigned)v;
        return 0;
    case KEY_VALUE:
        if ((err = scenario_item_uint(ctx, item, kname, 255, &v)))
            return err;
        op->value = (unsigned)v;
        return 0;
    case KEY_ORDER:
        if (op->kind == SCENARIO_OP_CREATE) { /* the cache's sysfs order file */
            if ((err = scenario_item_uint(ctx, item, kname, 3, &v)))
                return err;
            op->create.set_order = true;
            op->create.order = (unsigned)v;
            return 0;
        }
        if ((err = scenario_item_uint(ctx, item, kname, SIM_MAX_ORDER, &v)))
            return err;
        op->order = (unsigned)v;
        return 0;
    case KEY_TIMES:
        if ((err = scenario_item_uint(ctx, item, kname, SCENARIO_MAX_TIMES, &v)))
            return err;
        op->times = (unsigned long)v;
        return 0;
    case KEY_ALIGN:
        if ((err = scenario_item_uint(ctx, item, kname, 1u << 16, &v)))
            return err;
        op->create.align = (unsigned)v;
        return 0;
    case KEY_FREEPTR_OFFSET:
        if ((err = scenario_item_uint(ctx, item, kname, SCENARIO_MAX_SIZE, &v)))
            return err;
        op->create.use_freeptr_offset = true;
        op->create.freeptr_offset = (unsigned)v;
        return 0;
    case KEY_SHEAF_CAPACITY:
        if ((err = scenario_item_uint(ctx, item, kname, 1u << 16, &v)))
            return err;
        op->create.sheaf_capacity = (unsigned)v;
        return 0;
    case KEY_CPU_PARTIAL: /* sysfs cpu_partial (legacy model) */
        if ((err = scenario_item_uint(ctx, item, kname, 1u << 16, &v)))
            return err;
        op->create.cpu_partial = (unsigned)v;
        return 0;
    case KEY_CTOR:
        if (!cJSON_IsBool(item))
            return scenario_fail(ctx, "key \"ctor\": expected a boolean, got %s",
                                 scenario_json_type(item));
        op->create.ctor = cJSON_IsTrue(item);
        return 0;
    case KEY_FLAGS:
        return scenario_item_flags(ctx, item, kname, &op->create.flags);
    case KEY_ALIASES:
        return scenario_item_aliases(ctx, item, op);
    case KEY_OPS: {
        uint64_t inner = 0;
        size_t old = scenario_path_push(ctx, "ops");

        ctx->depth++;
        err = scenario_parse_ops(ctx, item, "ops", &op->ops, &op->nr_ops, &inner);
        ctx->depth--;
        scenario_path_pop(ctx, old);
        if (err)
            return err;
        /* times is parsed before ops (table order), so the product is known. */
        if (inner && op->times > SCENARIO_MAX_STEPS / inner)
            return scenario_fail(ctx, "key \"times\": the repeat runs more than %u operations",
                                 SCENARIO_MAX_STEPS);
        *steps = inner * op->times;
        return 0;
    }
    case KEY_ADDR:
        if ((err = scenario_item_addr(ctx, item, kname, &op->addr)))
            return err;
        op->has_addr = true;
        return 0;
    case KEY_CONTEXTS:
        return scenario_parse_race_contexts(ctx, item, op);
    case KEY_SCHEDULE:
        return scenario_parse_race_schedule(ctx, item, op);
    case KEY_CACHE:
    case KEY_GFP:
    case KEY_NAME:
    case KEY_SHEAF:
    case KEY_CONTEXT:
        break;
    case NR_OP_KEYS:
        return -EINVAL;
    }
    /* The string-valued keys. */
    if (!cJSON_IsString(item))
        return scenario_fail(ctx, "key \"%s\": expected a string, got %s", kname,
                             scenario_json_type(item));
    switch (key) {
    case KEY_GFP: {
        char why[300];

        if (sim_gfp_parse(item->valuestring, &op->gfp))
            return scenario_fail(ctx, "key \"gfp\": \"%s\" is not a gfp mask", item->valuestring);
        if (op->kind == SCENARIO_OP_ALLOC_PAGES && sim_gfp_check(op->gfp, why, sizeof(why)))
            return scenario_fail(ctx, "key \"gfp\": %s", why);
        return 0;
    }
    case KEY_CONTEXT: {
        int c = sim_gfp_context_lookup(item->valuestring);

        if (c < 0)
            return scenario_fail(ctx, "key \"context\": \"%s\" is not task, atomic or rt",
                                 item->valuestring);
        op->context = (uint8_t)c;
        return 0;
    }
    default:
        /* free and kfree may name one element of a bulk: "b[3]" */
        err = scenario_check_name(ctx, kname, item->valuestring,
                                  key == KEY_NAME && (op->kind == SCENARIO_OP_FREE ||
                                                      op->kind == SCENARIO_OP_KFREE ||
                                                      op->kind == SCENARIO_OP_KFREE_RCU ||
                                                      op->kind == SCENARIO_OP_KREALLOC ||
                                                      op->kind == SCENARIO_OP_WRITE));
        if (err)
            return err;
        if (!(*(key == KEY_CACHE   ? &op->cache
                : key == KEY_SHEAF ? &op->sheaf
                                   : &op->name) = scenario_strdup(item->valuestring)))
            return -ENOMEM;
        return 0;
    }
}

/* Rules of one kind beyond its keys: exclusive keys, names defined and used. */
static int scenario_op_check(struct scenario_ctx *ctx, struct scenario_op *op)
{
    switch (op->kind) {
    case SCENARIO_OP_FREE:
    case SCENARIO_OP_KFREE:
    case SCENARIO_OP_KFREE_RCU:
    case SCENARIO_OP_WRITE:
    case SCENARIO_OP_KREALLOC:
    case SCENARIO_OP_FREE_PAGES:
        if (!op->name == !op->has_addr)
            return scenario_fail(ctx, "give exactly one of \"name\" and \"addr\"");
        if (op->kind == SCENARIO_OP_FREE && op->has_addr && !op->cache)
            return scenario_fail(ctx, "missing key \"cache\" (required with \"addr\")");
        break;
    default:
        break;
    }
    if (op->cache && !ctx->runtime_refs && !strstr(op->cache, "kmalloc-") &&
        !scenario_def_find(ctx, SCENARIO_DEF_CACHE, op->cache))
        return scenario_fail(ctx,
                             "key \"cache\": no earlier create or caches[] entry "
                             "makes \"%s\"",
                             op->cache);
    switch (op->kind) {
    case SCENARIO_OP_CREATE:
        if (strlen(op->name) >= SIM_NAME_MAX)
            return scenario_fail(ctx, "key \"name\": cache names are shorter than %d",
                                 SIM_NAME_MAX);
        for (size_t a = 0; a < op->nr_aliases; a++) {
            int err = scenario_def_add(ctx, SCENARIO_DEF_CACHE, op->aliases[a]);

            if (err)
                return err;
        }
        return scenario_def_add(ctx, SCENARIO_DEF_CACHE, op->name);
    case SCENARIO_OP_ALLOC:
    case SCENARIO_OP_KMALLOC:
    case SCENARIO_OP_ALLOC_PAGES:
        return op->name ? scenario_def_add(ctx, SCENARIO_DEF_OBJECT, op->name) : 0;
    case SCENARIO_OP_ALLOC_BULK:
        return op->name ? scenario_def_add(ctx, SCENARIO_DEF_BULK, op->name) : 0;
    case SCENARIO_OP_FREE:
    case SCENARIO_OP_KFREE:
    case SCENARIO_OP_KFREE_RCU:
    case SCENARIO_OP_WRITE:
    case SCENARIO_OP_KREALLOC:
    case SCENARIO_OP_FREE_BULK:
    case SCENARIO_OP_FREE_PAGES:
        return op->name && !ctx->runtime_refs ? scenario_check_object_ref(ctx, op->name) : 0;
    case SCENARIO_OP_ALLOC_FROM_SHEAF:
        return op->name ? scenario_def_add(ctx, SCENARIO_DEF_OBJECT, op->name) : 0;
    case SCENARIO_OP_RACE:
        return scenario_race_defs(ctx, op);
    case SCENARIO_OP_FLUSH_CPU:
        return scenario_fail(ctx, "flush_cpu runs only inside a race's context");
    case SCENARIO_OP_MARK:
        if (strcmp(op->name, "end") == 0)
            return scenario_fail(ctx, "key \"name\": \"end\" is reserved for the end of the run");
        return scenario_def_add(ctx, SCENARIO_DEF_MARK, op->name);
    default:
        return 0;
    }
}

/* "unknown key" with the keys the op does take, since most such keys are typos. */
static int scenario_op_unknown_key(struct scenario_ctx *ctx, const struct op_spec *desc,
                                   const char *key, const char *const *names, unsigned n)
{
    struct strbuf list = STRBUF_INIT;
    unsigned k;
    int err;

    for (k = 0; k < n; k++)
        if (strcmp(names[k], "op") != 0)
            strbuf_printf(&list, "%s%s", list.len ? ", " : "", names[k]);
    err = scenario_fail(ctx, "unknown key \"%s\" (%s takes %s)", key, desc->name,
                        strbuf_str(&list));
    strbuf_release(&list);
    return err;
}

/* Parse one op object whose kind is known (@kind) into @op. */
static int scenario_parse_op(struct scenario_ctx *ctx, const cJSON *obj, enum scenario_op_kind kind,
                             bool has_op_key, struct scenario_op *op, uint64_t *steps)
{
    const struct op_spec *desc = &op_specs[kind];
    unsigned allowed = desc->required | desc->optional | (has_op_key ? K(OP) : 0);
    const char *names[NR_OP_KEYS + 1];
    const cJSON *item;
    unsigned k, n = 0;
    int err;

    for (k = 0; k < NR_OP_KEYS; k++)
        if (allowed & (1u << k))
            names[n++] = op_keys[k];
    names[n] = NULL;
    for (item = obj->child; item; item = item->next) {
        for (k = 0; k < n; k++)
            if (strcmp(names[k], item->string) == 0)
                break;
        if (k == n)
            return scenario_op_unknown_key(ctx, desc, item->string, names, n);
    }
    if ((err = scenario_check_keys(ctx, obj, names)))
        return err;
    op->kind = kind;
    op->node = SIM_NUMA_NO_NODE;
    *steps = 1;
    /* Table order, not document order: times before ops, object_size before
     * freeptr_offset, whatever order the author wrote them in. */
    for (k = 0; k < NR_OP_KEYS; k++) {
        if (!(allowed & (1u << k)))
            continue;
        item = cJSON_GetObjectItemCaseSensitive(obj, op_keys[k]);
        if (!item) {
            if (desc->required & (1u << k))
                return scenario_fail(ctx, "missing key \"%s\"", op_keys[k]);
            continue;
        }
        if ((err = scenario_op_key(ctx, (enum op_key)k, item, op, steps)))
            return err;
    }
    return scenario_op_check(ctx, op);
}

int scenario_parse_ops(struct scenario_ctx *ctx, const cJSON *arr, const char *what,
                       struct scenario_op **ops, size_t *nr, uint64_t *steps)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
    uint64_t total = 0;
    const cJSON *obj;
    int err = 0;

    if (!cJSON_IsArray(arr))
        return scenario_fail(ctx, "key \"%s\": expected an array of operations, got %s", what,
                             scenario_json_type(arr));
    if (ctx->depth > SCENARIO_MAX_DEPTH)
        return scenario_fail(ctx, "repeats nest deeper than %d", SCENARIO_MAX_DEPTH);
    *ops = calloc(n ? n : 1, sizeof(**ops));
    if (!*ops)
        return -ENOMEM;
    *nr = n;
    for (obj = arr->child; obj; obj = obj->next, i++) {
        size_t old = scenario_path_push(ctx, "[%zu]", i);
        const char *kind_name = NULL;
        uint64_t one = 0;
        unsigned k;

        if (!cJSON_IsObject(obj)) {
            err = scenario_fail(ctx, "expected an operation object, got %s",
                                scenario_json_type(obj));
        } else if ((err = scenario_get_string(ctx, obj, "op", true, &kind_name)) == 0) {
            for (k = 0; k < SCENARIO_NR_OP_KINDS; k++)
                if (strcmp(kind_name, op_specs[k].name) == 0)
                    break;
            if (k == SCENARIO_NR_OP_KINDS)
                err = scenario_fail(ctx, "key \"op\": unknown operation \"%s\"", kind_name);
            else
                err = scenario_parse_op(ctx, obj, (enum scenario_op_kind)k, true, &(*ops)[i], &one);
        }
        if (err)
            return err; /* the caller releases *ops, partly filled */
        scenario_path_pop(ctx, old);
        total += one;
        if (total > SCENARIO_MAX_STEPS)
            return scenario_fail(ctx,
                                 "key \"%s\": more than %u operations after expanding "
                                 "repeats",
                                 what, SCENARIO_MAX_STEPS);
    }
    *steps = total;
    return 0;
}

int scenario_parse_caches(struct scenario_ctx *ctx, const cJSON *arr, struct scenario_op **ops,
                          size_t *nr)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
    const cJSON *obj;
    uint64_t one;
    int err;

    if (!cJSON_IsArray(arr))
        return scenario_fail(ctx, "key \"caches\": expected an array, got %s",
                             scenario_json_type(arr));
    *ops = calloc(n ? n : 1, sizeof(**ops));
    if (!*ops)
        return -ENOMEM;
    *nr = n;
    for (obj = arr->child; obj; obj = obj->next, i++) {
        size_t old = scenario_path_push(ctx, "caches[%zu]", i);

        if (!cJSON_IsObject(obj))
            return scenario_fail(ctx, "expected a cache object, got %s", scenario_json_type(obj));
        err = scenario_parse_op(ctx, obj, SCENARIO_OP_CREATE, false, &(*ops)[i], &one);
        if (err)
            return err;
        scenario_path_pop(ctx, old);
    }
    return 0;
}
