/*
 * scenario_expect.c: the "expect" array of a scenario (see scenario.h).
 *
 * An expectation compares one metric (metric.h) with a number at a mark or
 * at "end".  Everything that can be checked without running is checked
 * here: the mark exists, the metric names a counter or a cache file, the
 * cache is one the scenario creates (or a kmalloc cache), and a cpuN part
 * is below machine.cpus.  The replay evaluates what passes.
 */
#include "scenario/scenario_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const expect_keys[] = {"at", "metric", "op", "value", NULL};
static const char *const cmp_names[] = {"==", "!=", "<", "<=", ">", ">="};

const char *scenario_cmp_name(enum scenario_cmp cmp)
{
    return (unsigned)cmp <= SCENARIO_GE ? cmp_names[cmp] : "?";
}

bool scenario_cmp_holds(enum scenario_cmp cmp, uint64_t value, uint64_t expected)
{
    switch (cmp) {
    case SCENARIO_EQ:
        return value == expected;
    case SCENARIO_NE:
        return value != expected;
    case SCENARIO_LT:
        return value < expected;
    case SCENARIO_LE:
        return value <= expected;
    case SCENARIO_GT:
        return value > expected;
    case SCENARIO_GE:
        return value >= expected;
    }
    return false;
}

static int scenario_parse_expect(struct scenario_ctx *ctx, const cJSON *obj,
                                 struct scenario_expect *e)
{
    const char *at, *metric, *op, *why;
    unsigned k;
    int err;

    if (!cJSON_IsObject(obj))
        return scenario_fail(ctx, "expected an expect object, got %s", scenario_json_type(obj));
    if ((err = scenario_check_keys(ctx, obj, expect_keys)) ||
        (err = scenario_get_string(ctx, obj, "at", true, &at)) ||
        (err = scenario_get_string(ctx, obj, "metric", true, &metric)) ||
        (err = scenario_get_string(ctx, obj, "op", true, &op)) ||
        (err = scenario_get_uint(ctx, obj, "value", true, UINT64_MAX, &e->value)))
        return err;
    if (strstr(at, "{i}"))
        return scenario_fail(ctx, "key \"at\": name one iteration's mark, not a template");
    if (strcmp(at, "end") != 0 && !scenario_def_find(ctx, SCENARIO_DEF_MARK, at))
        return scenario_fail(ctx, "key \"at\": no mark named \"%s\" (and it is not \"end\")", at);
    for (k = 0; k <= SCENARIO_GE; k++)
        if (strcmp(op, cmp_names[k]) == 0)
            break;
    if (k > SCENARIO_GE)
        return scenario_fail(ctx, "key \"op\": \"%s\" is not one of == != < <= > >=", op);
    e->cmp = (enum scenario_cmp)k;
    if (metric_parse(metric, ctx->nr_cpus, &e->metric, &why))
        return scenario_fail(ctx, "key \"metric\": \"%s\": %s", metric, why);
    if (metric_is_zone(&e->metric) && !metric_zone_name_ok(e->metric.cache, ctx->nr_nodes))
        return scenario_fail(ctx,
                             "key \"metric\": \"%s\" is not a zone: DMA, DMA32 or Normal, or "
                             "Normal@N for node N",
                             e->metric.cache);
    if (e->metric.kind == METRIC_OBJECT_BYTE && strncmp(e->metric.cache, "0x", 2) &&
        !scenario_def_find(ctx, SCENARIO_DEF_OBJECT, e->metric.cache))
        return scenario_fail(ctx, "key \"metric\": no object named \"%s\" is allocated",
                             e->metric.cache);
    if (e->metric.cache[0] && !metric_is_zone(&e->metric) && e->metric.kind != METRIC_OBJECT_BYTE &&
        !strstr(e->metric.cache, "kmalloc-") &&
        !scenario_def_find(ctx, SCENARIO_DEF_CACHE, e->metric.cache))
        return scenario_fail(ctx, "key \"metric\": no cache named \"%s\" is created",
                             e->metric.cache);
    if (!(e->at = scenario_strdup(at)) || !(e->metric_text = scenario_strdup(metric)))
        return -ENOMEM;
    return 0;
}

int scenario_parse_expects(struct scenario_ctx *ctx, const cJSON *arr, struct scenario *scn)
{
    const cJSON *obj;
    size_t i = 0;
    int err;

    if (!cJSON_IsArray(arr))
        return scenario_fail(ctx, "key \"expect\": expected an array, got %s",
                             scenario_json_type(arr));
    scn->expects = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*scn->expects));
    if (!scn->expects)
        return -ENOMEM;
    for (obj = arr->child; obj; obj = obj->next, i++) {
        scenario_path_push(ctx, "expect[%zu]", i);
        scn->nr_expects = i + 1;
        if ((err = scenario_parse_expect(ctx, obj, &scn->expects[i])))
            return err;
        scenario_path_pop(ctx, 0);
    }
    return 0;
}
