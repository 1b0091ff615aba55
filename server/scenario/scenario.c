/*
 * scenario.c: reading a scenario file and parsing its top level (see
 * scenario.h and docs/scenario-format.md).
 *
 * The top level is parsed in a fixed order whatever order the file uses:
 * the machine first, because every CPU and node reference is checked
 * against it; then the run settings (model, seed, variants, config); then
 * caches, ops and expects, because expects refer to the marks and caches
 * that the ops define.  The operations themselves are parsed by
 * scenario_op.c.  On any error the partly built scenario is released and
 * nothing is returned.
 */
#include "scenario/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hint.h"
#include "scenario/kernel.h"
#include "scenario/scenario_parse.h"

static const char *const top_keys[] = {"format", "name", "title",   "description", "kernel",
                                       "model",  "seed", "machine", "variants",    "config",
                                       "caches", "ops",  "expect",  "choices",     NULL};
static const char *const machine_keys[] = {"cpus",         "nodes", "cpu_node", "mem_mb_per_node",
                                           "present_cpus", "dma_mb", "dma32_mb", NULL};
static const char *const config_keys[] = {"freelist_hardened",
                                          "freelist_random",
                                          "slab_debug",
                                          "rcu_mode",
                                          "rcu_gap",
                                          "min_free_kbytes",
                                          "watermark_scale_factor",
                                          "cma",
                                          "reclaim_pages",
                                          "kswapd",
                                          "alloc_layout",
                                          "no_tid",
                                          NULL};

void scenario_release(struct scenario *scn)
{
    size_t i;

    if (!scn)
        return;
    free(scn->label);
    free(scn->name);
    free(scn->title);
    free(scn->description);
    scenario_ops_release(scn->caches, scn->nr_caches);
    scenario_ops_release(scn->ops, scn->nr_ops);
    for (i = 0; i < scn->nr_expects; i++) {
        free(scn->expects[i].at);
        free(scn->expects[i].metric_text);
    }
    free(scn->expects);
    free(scn->choices);
    free(scn);
}

/* Optional key @key of @m: a count from 1 to @max, into *@out when present.
 * 0 or -EINVAL. */
static int scenario_get_count(struct scenario_ctx *ctx, const cJSON *m, const char *key,
                              uint64_t max, unsigned *out)
{
    uint64_t v;
    int err = scenario_get_uint(ctx, m, key, false, max, &v);

    if (err < 0)
        return err;
    if (err == 0 && v == 0)
        return scenario_fail(ctx, "key \"%s\": must be at least 1", key);
    if (err == 0)
        *out = (unsigned)v;
    return 0;
}

static int scenario_parse_machine(struct scenario_ctx *ctx, const cJSON *m, struct sim_config *cfg)
{
    const cJSON *cpu_node;
    uint64_t v;
    unsigned i;
    int err;

    if (!cJSON_IsObject(m))
        return scenario_fail(ctx, "key \"machine\": expected an object, got %s",
                             scenario_json_type(m));
    scenario_path_push(ctx, "machine");
    if ((err = scenario_check_keys(ctx, m, machine_keys)))
        return err;
    if ((err = scenario_get_count(ctx, m, "cpus", SIM_MAX_CPUS, &cfg->nr_cpus)) ||
        (err = scenario_get_count(ctx, m, "nodes", SIM_MAX_NODES, &cfg->nr_nodes)))
        return err;
    /* Without cpu_node, CPUs fill the nodes in contiguous blocks. */
    for (i = 0; i < cfg->nr_cpus; i++)
        cfg->cpu_node[i] = i * cfg->nr_nodes / cfg->nr_cpus;
    cpu_node = cJSON_GetObjectItemCaseSensitive(m, "cpu_node");
    if (cpu_node) {
        const cJSON *n;

        if (!cJSON_IsArray(cpu_node))
            return scenario_fail(ctx, "key \"cpu_node\": expected an array, got %s",
                                 scenario_json_type(cpu_node));
        if ((unsigned)cJSON_GetArraySize(cpu_node) != cfg->nr_cpus)
            return scenario_fail(ctx, "key \"cpu_node\": has %d entries but cpus is %u",
                                 cJSON_GetArraySize(cpu_node), cfg->nr_cpus);
        for (n = cpu_node->child, i = 0; n; n = n->next, i++) {
            if ((err = scenario_item_uint(ctx, n, "cpu_node", SIM_MAX_NODES, &v)))
                return err;
            if (v >= cfg->nr_nodes)
                return scenario_fail(ctx,
                                     "key \"cpu_node\": cpu_node[%u] = %llu is not below "
                                     "nodes (%u)",
                                     i, (unsigned long long)v, cfg->nr_nodes);
            cfg->cpu_node[i] = (unsigned)v;
        }
    }
    if ((err = scenario_get_uint(ctx, m, "mem_mb_per_node", false, SCENARIO_MAX_MEM_MB, &v)) < 0)
        return err;
    if (err == 0 && (v < 4 || v % 4))
        return scenario_fail(ctx, "key \"mem_mb_per_node\": must be a multiple of 4, at least 4");
    if (err == 0)
        cfg->mem_per_node = v << 20;
    if ((err = scenario_get_uint(ctx, m, "present_cpus", false, SIM_MAX_CPUS, &v)) < 0)
        return err;
    if (err == 0)
        cfg->present_cpus = (unsigned)v;
    if ((err = scenario_parse_machine_zones(ctx, m, cfg)))
        return err;
    scenario_path_pop(ctx, 0);
    return 0;
}

/* config.rcu_mode ("manual", "periodic", "random") and config.rcu_gap. */
static int scenario_parse_rcu(struct scenario_ctx *ctx, const cJSON *config,
                              struct sim_config *cfg)
{
    uint64_t gap;
    int err, m;

    if ((err = scenario_get_named(ctx, config, "rcu_mode", sim_rcu_mode_lookup,
                                  "manual, periodic or random", &m)) < 0)
        return err;
    if (err == 0)
        cfg->rcu_mode = (enum sim_rcu_mode)m;
    if ((err = scenario_get_uint(ctx, config, "rcu_gap", false, 1000000, &gap)) < 0)
        return err;
    if (err == 0)
        cfg->rcu_gap = (unsigned)gap;
    if (cfg->rcu_mode != SIM_RCU_MANUAL && cfg->rcu_gap < 1)
        return scenario_fail(ctx, "key \"rcu_gap\": automatic grace periods need a gap of 1 "
                                  "or more operations");
    return 0;
}

static int scenario_parse_settings(struct scenario_ctx *ctx, const cJSON *root,
                                   struct sim_config *cfg, uint32_t *variants_given)
{
    const cJSON *variants = cJSON_GetObjectItemCaseSensitive(root, "variants");
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(root, "config");
    const char *model = NULL, *kernel = NULL;
    char msg[256];
    uint64_t seed;
    int err;

    if ((err = scenario_get_string(ctx, root, "kernel", false, &kernel)) < 0)
        return err;
    if (err)
        kernel = NULL;
    if ((err = scenario_get_string(ctx, root, "model", false, &model)) < 0)
        return err;
    if (err)
        model = NULL;
    if (kernel_choose(kernel, model, 0, cfg, msg, sizeof(msg)))
        return scenario_fail(ctx, "key \"%s\": %s", kernel ? "kernel" : "model", msg);
    if ((err = scenario_get_uint(ctx, root, "seed", false, UINT64_MAX, &seed)) < 0)
        return err;
    if (err == 0)
        cfg->seed = seed;
    if (variants) {
        const cJSON *v;

        if (!cJSON_IsObject(variants))
            return scenario_fail(ctx, "key \"variants\": expected an object, got %s",
                                 scenario_json_type(variants));
        scenario_path_push(ctx, "variants");
        for (v = variants->child; v; v = v->next) {
            int id = hint_lookup(v->string, sim_variant_name, SIM_NR_VARIANTS);

            if (!strcmp(v->string, "NO_TID")) { /* not a kernel's: the race lab's counterfactual */
                if (!cJSON_IsString(v) ||
                    (strcmp(v->valuestring, "on") && strcmp(v->valuestring, "off")))
                    return scenario_fail(ctx, "key \"NO_TID\": expected \"on\" or \"off\"");
                cfg->race_no_tid = !strcmp(v->valuestring, "on");
                continue;
            }
            if (id < 0) {
                struct strbuf why = STRBUF_INIT;
                int ret;

                hint_append(&why, v->string, sim_variant_name, SIM_NR_VARIANTS, "variants");
                ret = scenario_fail(ctx, "unknown variant \"%s\"%s", v->string, strbuf_str(&why));
                strbuf_release(&why);
                return ret;
            }
            if (!cJSON_IsString(v) || sim_variant_value_lookup((unsigned)id, v->valuestring) < 0)
                return scenario_fail(ctx, "key \"%s\": expected \"before\" or \"after\"",
                                     v->string);
            cfg->variant[id] = (uint8_t)sim_variant_value_lookup((unsigned)id, v->valuestring);
            *variants_given |= 1u << id;
        }
        scenario_path_pop(ctx, 0);
    }
    if (sim_model_error(cfg))
        return scenario_fail(ctx, "key \"model\": %s", sim_model_error(cfg));
    if (config) {
        if (!cJSON_IsObject(config))
            return scenario_fail(ctx, "key \"config\": expected an object, got %s",
                                 scenario_json_type(config));
        scenario_path_push(ctx, "config");
        if ((err = scenario_check_keys(ctx, config, config_keys)) ||
            (err = scenario_get_bool(ctx, config, "freelist_hardened", false,
                                     &cfg->freelist_hardened)) < 0 ||
            (err = scenario_get_bool(ctx, config, "freelist_random", false,
                                     &cfg->freelist_random)) < 0 ||
            (err = scenario_get_bool(ctx, config, "no_tid", false, &cfg->race_no_tid)) < 0)
            return err;
        if ((err = scenario_parse_rcu(ctx, config, cfg)))
            return err;
        if ((err = scenario_parse_config_zones(ctx, config, cfg)))
            return err;
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(config, "slab_debug"))) {
            /* the boot option's own words: "FZPU,kmalloc-*;-,dentry" */
            char why[192];

            if (sim_slab_debug_parse(
                        cJSON_GetObjectItemCaseSensitive(config, "slab_debug")->valuestring, cfg,
                        why, sizeof(why)))
                return scenario_fail(ctx, "key \"slab_debug\": %s", why);
        } else if (cJSON_GetObjectItemCaseSensitive(config, "slab_debug") &&
                   (err = scenario_item_flags(
                            ctx, cJSON_GetObjectItemCaseSensitive(config, "slab_debug"),
                            "slab_debug", &cfg->slab_debug))) {
            return err;
        }
        if (cfg->slab_debug & ~(uint32_t)SIM_SLAB_DEBUG_FLAGS)
            return scenario_fail(ctx, "key \"slab_debug\": only debug flags (SLAB_RED_ZONE, "
                                      "SLAB_POISON, SLAB_STORE_USER, SLAB_CONSISTENCY_CHECKS, "
                                      "SLAB_TRACE)");
        scenario_path_pop(ctx, 0);
    }
    return scenario_check_zones(ctx, cfg);
}

static int choice_kind_lookup(const char *name)
{
    for (unsigned k = 0; sim_choice_name(k); k++)
        if (!strcmp(name, sim_choice_name(k)))
            return (int)k;
    return -1;
}

/* "choices": [{"at": OP, "point": KIND, "option": K, "nth": N}, ...], the
 * kernel's choices a run takes instead of the defaults (docs/engine.md#choice-points). */
static int scenario_parse_choices(struct scenario_ctx *ctx, const cJSON *arr, struct scenario *scn)
{
    static const char *const keys[] = {"at", "point", "option", "nth", NULL};
    const cJSON *item;
    size_t n = 0;
    int err;

    if (!cJSON_IsArray(arr))
        return scenario_fail(ctx, "key \"choices\": expected an array, got %s",
                             scenario_json_type(arr));
    if (!(scn->choices = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*scn->choices))))
        return -ENOMEM;
    cJSON_ArrayForEach(item, arr)
    {
        struct sim_choice_pin *pin = &scn->choices[n];
        uint64_t nth = 0;
        int kind = -1;

        scenario_path_push(ctx, "choices[%zu]", n);
        if (!cJSON_IsObject(item))
            return scenario_fail(ctx, "expected an object {\"at\", \"point\", \"option\"}, got %s",
                                 scenario_json_type(item));
        if ((err = scenario_check_keys(ctx, item, keys)) ||
            (err = scenario_get_uint(ctx, item, "at", true, UINT64_MAX, &pin->op)) ||
            (err = scenario_get_uint(ctx, item, "option", true, UINT64_MAX, &pin->option)) ||
            (err = scenario_get_uint(ctx, item, "nth", false, UINT32_MAX, &nth)) < 0 ||
            (err = scenario_get_named(ctx, item, "point", choice_kind_lookup,
                                      "flush_order, rcu_worker or remote_draw", &kind)) < 0)
            return err;
        if (kind < 0)
            return scenario_fail(ctx, "missing key \"point\" (flush_order, rcu_worker or "
                                      "remote_draw)");
        pin->kind = (unsigned)kind;
        pin->nth = (unsigned)nth;
        for (size_t i = 0; i < n; i++)
            if (scn->choices[i].op == pin->op && scn->choices[i].kind == pin->kind &&
                scn->choices[i].nth == pin->nth)
                return scenario_fail(ctx, "choice %s at op %llu (nth %u) is already given",
                                     sim_choice_name(pin->kind), (unsigned long long)pin->op,
                                     pin->nth);
        scenario_path_pop(ctx, 0);
        n++;
    }
    scn->nr_choices = n;
    return 0;
}

/* Strings of the top level: name is required, title and description are not. */
static int scenario_parse_texts(struct scenario_ctx *ctx, const cJSON *root, struct scenario *scn)
{
    const char *name, *title = "", *desc = "";
    int err;

    if ((err = scenario_get_string(ctx, root, "name", true, &name)) ||
        (err = scenario_get_string(ctx, root, "title", false, &title)) < 0 ||
        (err = scenario_get_string(ctx, root, "description", false, &desc)) < 0)
        return err;
    if (!name[0])
        return scenario_fail(ctx, "key \"name\": must not be empty");
    if (!(scn->name = scenario_strdup(name)) || !(scn->title = scenario_strdup(title)) ||
        !(scn->description = scenario_strdup(desc)))
        return -ENOMEM;
    return 0;
}

static int scenario_parse_root(struct scenario_ctx *ctx, const cJSON *root, struct scenario *scn)
{
    const cJSON *machine = cJSON_GetObjectItemCaseSensitive(root, "machine");
    const cJSON *caches = cJSON_GetObjectItemCaseSensitive(root, "caches");
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(root, "ops");
    const cJSON *expect = cJSON_GetObjectItemCaseSensitive(root, "expect");
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
    uint64_t format, steps = 0;
    int err;

    if (!cJSON_IsObject(root))
        return scenario_fail(ctx, "expected a JSON object at the top level, got %s",
                             scenario_json_type(root));
    if ((err = scenario_check_keys(ctx, root, top_keys)) ||
        (err = scenario_get_uint(ctx, root, "format", true, UINT64_MAX, &format)))
        return err;
    if (format != SCENARIO_FORMAT)
        return scenario_fail(ctx, "key \"format\": version %llu is not supported (only %d)",
                             (unsigned long long)format, SCENARIO_FORMAT);
    if ((err = scenario_parse_texts(ctx, root, scn)))
        return err;
    sim_config_default(&scn->config);
    if (machine && (err = scenario_parse_machine(ctx, machine, &scn->config)))
        return err;
    ctx->nr_cpus = scn->config.nr_cpus;
    ctx->nr_nodes = scn->config.nr_nodes;
    if ((err = scenario_parse_settings(ctx, root, &scn->config, &scn->variants_given)))
        return err;
    if (caches && (err = scenario_parse_caches(ctx, caches, &scn->caches, &scn->nr_caches)))
        return err;
    if (ops) {
        scenario_path_push(ctx, "ops");
        if ((err = scenario_parse_ops(ctx, ops, "ops", &scn->ops, &scn->nr_ops, &steps)))
            return err;
        scenario_path_pop(ctx, 0);
    }
    if (expect && (err = scenario_parse_expects(ctx, expect, scn)))
        return err;
    if (choices && (err = scenario_parse_choices(ctx, choices, scn)))
        return err;
    return 0;
}

/* Line and column (1-based) of byte @off of @text, for syntax errors. */
static void scenario_position(const char *text, size_t off, unsigned *line, unsigned *col)
{
    size_t i;

    *line = 1;
    *col = 1;
    for (i = 0; i < off; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

int scenario_parse(const char *text, size_t len, const char *label, struct scenario **out,
                   struct strbuf *err)
{
    struct scenario_ctx ctx = {.label = label, .err = err, .path = STRBUF_INIT};
    struct scenario *scn;
    const char *end = NULL;
    cJSON *root;
    int ret;

    scn = calloc(1, sizeof(*scn));
    if (!scn)
        return -ENOMEM;
    if (!(scn->label = scenario_strdup(label))) {
        ret = -ENOMEM;
        goto err_release;
    }
    /* Not require_null_terminated: cJSON then insists on a NUL inside @len,
     * which an HTTP body does not have.  Trailing text is checked below. */
    root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (root && end && end >= text && end <= text + len) {
        while (end < text + len && strchr(" \t\r\n", *end) && *end)
            end++;
        if (end < text + len) {
            cJSON_Delete(root);
            root = NULL;
        }
    }
    if (!root) {
        unsigned line, col;
        size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;

        scenario_position(text, off, &line, &col);
        strbuf_printf(err, "%s: line %u, column %u: not valid JSON", label, line, col);
        ret = -EINVAL;
        goto err_release;
    }
    ret = scenario_parse_root(&ctx, root, scn);
    cJSON_Delete(root);
    if (ret == -EINVAL && ctx.out_of_range)
        ret = -ERANGE;
    if (ret)
        goto err_release;
    scenario_defs_release(&ctx);
    strbuf_release(&ctx.path);
    *out = scn;
    return 0;

err_release:
    if (ret == -ENOMEM && !err->len)
        strbuf_printf(err, "%s: out of memory", label);
    scenario_defs_release(&ctx);
    strbuf_release(&ctx.path);
    scenario_release(scn);
    return ret;
}

int scenario_load(const char *path, struct scenario **out, struct strbuf *err)
{
    FILE *f = fopen(path, "rb");
    char *text;
    size_t len;
    int ret;

    if (!f) {
        strbuf_printf(err, "%s: cannot open: %s", path, strerror(errno));
        return errno == ENOENT ? -ENOENT : -EIO;
    }
    text = malloc(SCENARIO_MAX_BYTES + 1);
    if (!text) {
        ret = -ENOMEM;
        goto out_close;
    }
    len = fread(text, 1, SCENARIO_MAX_BYTES + 1, f);
    if (ferror(f)) {
        strbuf_printf(err, "%s: read error", path);
        ret = -EIO;
    } else if (len > SCENARIO_MAX_BYTES) {
        strbuf_printf(err, "%s: larger than %u bytes", path, SCENARIO_MAX_BYTES);
        ret = -EFBIG;
    } else {
        ret = scenario_parse(text, len, path, out, err);
    }
    free(text);
out_close:
    fclose(f);
    return ret;
}

int scenario_parse_op_list(const struct cJSON *arr, const char *label, unsigned nr_cpus,
                           unsigned nr_nodes, struct scenario_op **ops, size_t *nr, uint64_t *steps,
                           struct strbuf *err)
{
    struct scenario_ctx ctx = {.label = label, .err = err, .path = STRBUF_INIT};
    struct scenario_op *list = NULL;
    size_t n = 0;
    int ret;

    ctx.nr_cpus = nr_cpus;
    ctx.nr_nodes = nr_nodes;
    ctx.runtime_refs = true;
    scenario_path_push(&ctx, "ops");
    ret = scenario_parse_ops(&ctx, arr, "ops", &list, &n, steps);
    if (ret == -EINVAL && ctx.out_of_range)
        ret = -ERANGE;
    if (ret == -ENOMEM && !err->len)
        strbuf_printf(err, "%s: out of memory", label);
    scenario_defs_release(&ctx);
    strbuf_release(&ctx.path);
    if (ret) {
        scenario_ops_release(list, n);
        return ret;
    }
    *ops = list;
    *nr = n;
    return 0;
}

void scenario_op_list_release(struct scenario_op *ops, size_t nr)
{
    scenario_ops_release(ops, nr);
}
