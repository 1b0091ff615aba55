/*
 * scenario_race.c: the race operation of a scenario (docs/scenario-format.md,
 * "Races"): its contexts and its schedule.
 *
 * A race op names a cache, two or three contexts and optionally a schedule:
 *
 *   {"op": "race", "cache": "c",
 *    "contexts": [{"id": "A", "cpu": 0, "kind": "task", "ops": [{"op": "alloc", "name": "x"}]},
 *                 {"id": "I", "cpu": 0, "kind": "irq", "ops": [{"op": "alloc", "name": "y"}]}],
 *    "schedule": "A A I* A*"}
 *
 * A context's operations are alloc (an optional name), free (the name of an
 * object allocated before the race or by an earlier alloc of the same
 * context) and flush_cpu (the context CPU's cpu slab, legacy model); the
 * context gives their CPU and the race their cache.  The schedule's tokens
 * are checked here against the context ids; whether a context can take a
 * step is the engine's to say (engine/race.c), when the race runs.
 */
#include "scenario/scenario_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ctx_keys[] = {"id", "cpu", "kind", "ops", NULL};
static const char *const op_keys[] = {"op", "name", NULL};

void scenario_race_release(struct scenario_race *race)
{
    if (!race)
        return;
    for (size_t i = 0; i < race->nr_ctx; i++)
        scenario_ops_release(race->ctx[i].ops, race->ctx[i].nr_ops);
    free(race);
}

static int race_alloc(struct scenario_op *op)
{
    if (!op->race && !(op->race = calloc(1, sizeof(*op->race))))
        return -ENOMEM;
    return 0;
}

/* Whether an alloc among the first @n ops of @c is named @name. */
static bool ctx_allocates(const struct scenario_race_ctx *c, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (c->ops[k].kind == SCENARIO_OP_ALLOC && c->ops[k].name && !strcmp(c->ops[k].name, name))
            return true;
    return false;
}

/* One operation of context @c, at c->ops[k]. */
static int parse_ctx_op(struct scenario_ctx *ctx, const cJSON *obj, struct scenario_race_ctx *c,
                        size_t k)
{
    struct scenario_op *op = &c->ops[k];
    const char *kind, *name = NULL;
    int err;

    if (!cJSON_IsObject(obj))
        return scenario_fail(ctx, "expected an operation object, got %s", scenario_json_type(obj));
    if ((err = scenario_check_keys(ctx, obj, op_keys)) ||
        (err = scenario_get_string(ctx, obj, "op", true, &kind)) ||
        (err = scenario_get_string(ctx, obj, "name", false, &name)) < 0)
        return err;
    if (err)
        name = NULL;
    op->node = SIM_NUMA_NO_NODE;
    op->cpu = c->cpu;
    if (!strcmp(kind, "alloc"))
        op->kind = SCENARIO_OP_ALLOC;
    else if (!strcmp(kind, "free"))
        op->kind = SCENARIO_OP_FREE;
    else if (!strcmp(kind, "flush_cpu"))
        op->kind = SCENARIO_OP_FLUSH_CPU;
    else
        return scenario_fail(ctx,
                             "key \"op\": a race's context runs alloc, free or flush_cpu, "
                             "not \"%s\"",
                             kind);
    if (op->kind == SCENARIO_OP_FLUSH_CPU && name)
        return scenario_fail(ctx, "unknown key \"name\" (flush_cpu takes none)");
    if (op->kind == SCENARIO_OP_FREE && !name)
        return scenario_fail(ctx, "missing key \"name\"");
    if (!name)
        return 0;
    if ((err = scenario_check_template(ctx, "name", name)))
        return err;
    if (strstr(name, "{i}"))
        return scenario_fail(ctx, "key \"name\": a race's names have no \"{i}\"");
    if (op->kind == SCENARIO_OP_ALLOC && ctx_allocates(c, k, name))
        return scenario_fail(ctx, "key \"name\": \"%s\" is allocated twice in the context", name);
    if (op->kind == SCENARIO_OP_FREE && !ctx_allocates(c, k, name) && !ctx->runtime_refs &&
        (err = scenario_check_object_ref(ctx, name)))
        return err;
    if (!(op->name = scenario_strdup(name)))
        return -ENOMEM;
    return 0;
}

static int parse_ctx(struct scenario_ctx *ctx, const cJSON *obj, struct scenario_race *race,
                     size_t i)
{
    struct scenario_race_ctx *c = &race->ctx[i];
    const char *id, *kind = "task";
    const cJSON *ops, *o;
    uint64_t cpu;
    size_t n, k = 0;
    int err;

    if (!cJSON_IsObject(obj))
        return scenario_fail(ctx, "expected a context object, got %s", scenario_json_type(obj));
    if ((err = scenario_check_keys(ctx, obj, ctx_keys)) ||
        (err = scenario_get_string(ctx, obj, "id", true, &id)) ||
        (err = scenario_get_uint(ctx, obj, "cpu", true, UINT32_MAX, &cpu)) ||
        (err = scenario_get_string(ctx, obj, "kind", false, &kind)) < 0)
        return err;
    if (!id[0] || strlen(id) >= SIM_RACE_ID_MAX)
        return scenario_fail(ctx, "key \"id\": 1 to %d letters or digits", SIM_RACE_ID_MAX - 1);
    for (const char *p = id; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return scenario_fail(ctx, "key \"id\": \"%s\": letters and digits only", id);
    for (size_t j = 0; j < i; j++)
        if (!strcmp(race->ctx[j].id, id))
            return scenario_fail(ctx, "key \"id\": two contexts are named \"%s\"", id);
    if (cpu >= ctx->nr_cpus) {
        ctx->out_of_range = true;
        return scenario_fail(ctx, "key \"cpu\": %llu is not below machine.cpus (%u)",
                             (unsigned long long)cpu, ctx->nr_cpus);
    }
    if (!strcmp(kind, "task"))
        c->kind = SIM_RACE_TASK;
    else if (!strcmp(kind, "irq"))
        c->kind = SIM_RACE_IRQ;
    else
        return scenario_fail(ctx, "key \"kind\": \"%s\" is not task or irq", kind);
    strcpy(c->id, id);
    c->cpu = (unsigned)cpu;
    ops = cJSON_GetObjectItemCaseSensitive(obj, "ops");
    if (!ops)
        return scenario_fail(ctx, "missing key \"ops\"");
    if (!cJSON_IsArray(ops))
        return scenario_fail(ctx, "key \"ops\": expected an array of operations, got %s",
                             scenario_json_type(ops));
    n = (size_t)cJSON_GetArraySize(ops);
    if (n < 1 || n > SIM_RACE_MAX_OPS)
        return scenario_fail(ctx, "key \"ops\": 1 to %d operations", SIM_RACE_MAX_OPS);
    if (!(c->ops = calloc(n, sizeof(*c->ops))))
        return -ENOMEM;
    c->nr_ops = n;
    cJSON_ArrayForEach(o, ops)
    {
        size_t old = scenario_path_push(ctx, "ops[%zu]", k);

        if ((err = parse_ctx_op(ctx, o, c, k)))
            return err;
        scenario_path_pop(ctx, old);
        k++;
    }
    return 0;
}

int scenario_parse_race_contexts(struct scenario_ctx *ctx, const cJSON *item,
                                 struct scenario_op *op)
{
    const cJSON *obj;
    size_t n, i = 0;
    int err;

    if (!cJSON_IsArray(item))
        return scenario_fail(ctx, "key \"contexts\": expected an array, got %s",
                             scenario_json_type(item));
    n = (size_t)cJSON_GetArraySize(item);
    if (n < 2 || n > SIM_RACE_MAX_CTX)
        return scenario_fail(ctx, "key \"contexts\": 2 or %d contexts, not %zu", SIM_RACE_MAX_CTX,
                             n);
    if ((err = race_alloc(op)))
        return err;
    cJSON_ArrayForEach(obj, item)
    {
        size_t old = scenario_path_push(ctx, "contexts[%zu]", i);

        op->race->nr_ctx = i + 1; /* released whole if it fails half parsed */
        if ((err = parse_ctx(ctx, obj, op->race, i)))
            return err;
        scenario_path_pop(ctx, old);
        i++;
    }
    return 0;
}

/* The context named by the first @len bytes of @id, or NULL. */
static const struct scenario_race_ctx *find_ctx(const struct scenario_race *race, const char *id,
                                                size_t len)
{
    for (size_t i = 0; i < race->nr_ctx; i++)
        if (strlen(race->ctx[i].id) == len && !strncmp(race->ctx[i].id, id, len))
            return &race->ctx[i];
    return NULL;
}

int scenario_race_schedule_check(const struct scenario_race *race, const char *schedule, char *msg,
                                 size_t len)
{
    const char *p = schedule;

    if (strlen(schedule) >= SIM_RACE_SCHEDULE) {
        snprintf(msg, len, "the schedule is longer than %d characters", SIM_RACE_SCHEDULE - 1);
        return -EINVAL;
    }
    for (;;) {
        const struct scenario_race_ctx *c;
        size_t n = 0, id = 0;

        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            return 0;
        while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n')
            n++;
        while (id < n && p[id] != '*' && p[id] != '!' && p[id] != '>')
            id++;
        if (!(c = find_ctx(race, p, id))) {
            snprintf(msg, len, "token \"%.*s\": no context named \"%.*s\"", (int)n, p, (int)id, p);
            return -EINVAL;
        }
        if (id < n && p[id] == '>') {
            size_t d = id + 1;

            while (d < n && p[d] >= '0' && p[d] <= '9')
                d++;
            if (d == id + 1 || d != n || d - id > 4) {
                snprintf(msg, len, "token \"%.*s\": X>N takes a CPU number", (int)n, p);
                return -EINVAL;
            }
            if (c->kind != SIM_RACE_TASK) {
                snprintf(msg, len, "token \"%.*s\": only a task migrates", (int)n, p);
                return -EINVAL;
            }
        } else if (id < n && (id + 1 != n || (p[id] == '!' && c->kind != SIM_RACE_IRQ))) {
            snprintf(msg, len, "token \"%.*s\": expected X, X*, X>N or, for an interrupt, X!",
                     (int)n, p);
            return -EINVAL;
        }
        p += n;
    }
}

int scenario_parse_race_schedule(struct scenario_ctx *ctx, const cJSON *item,
                                 struct scenario_op *op)
{
    char msg[200];
    int err;

    if (!cJSON_IsString(item))
        return scenario_fail(ctx, "key \"schedule\": expected a string, got %s",
                             scenario_json_type(item));
    if ((err = race_alloc(op)))
        return err;
    if (scenario_race_schedule_check(op->race, item->valuestring, msg, sizeof(msg)))
        return scenario_fail(ctx, "key \"schedule\": %s", msg);
    strcpy(op->race->schedule, item->valuestring);
    return 0;
}

/* Whether @name is freed by a context before context @i, op @k (a race frees an object once). */
static bool freed_before(const struct scenario_race *race, size_t i, size_t k, const char *name)
{
    for (size_t j = 0; j <= i; j++)
        for (size_t l = 0; l < (j == i ? k : race->ctx[j].nr_ops); l++)
            if (race->ctx[j].ops[l].kind == SCENARIO_OP_FREE &&
                !strcmp(race->ctx[j].ops[l].name, name))
                return true;
    return false;
}

int scenario_race_defs(struct scenario_ctx *ctx, const struct scenario_op *op)
{
    if (!op->race || !op->race->nr_ctx)
        return scenario_fail(ctx, "missing key \"contexts\"");
    for (size_t i = 0; i < op->race->nr_ctx; i++)
        for (size_t k = 0; k < op->race->ctx[i].nr_ops; k++) {
            const struct scenario_op *o = &op->race->ctx[i].ops[k];

            if (o->kind == SCENARIO_OP_FREE && freed_before(op->race, i, k, o->name))
                return scenario_fail(ctx, "key \"contexts\": \"%s\" is freed twice in the race",
                                     o->name);
        }
    for (size_t i = 0; i < op->race->nr_ctx; i++) {
        const struct scenario_race_ctx *c = &op->race->ctx[i];

        for (size_t k = 0; k < c->nr_ops; k++) {
            int err;

            if (c->ops[k].kind == SCENARIO_OP_ALLOC && c->ops[k].name &&
                (err = scenario_def_add(ctx, SCENARIO_DEF_OBJECT, c->ops[k].name)))
                return err;
        }
    }
    return 0;
}
