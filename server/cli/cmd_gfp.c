/*
 * gfp.c: `slublab gfp MASK`, what a gfp mask decides.
 *
 * Decodes a mask (names as the kernel's tracepoints print them, or hex)
 * for an allocation of some order in some calling context, on the default
 * machine or on a scenario's: the flag names, the highest zone and the
 * migratetype, the ALLOC flags of the fast path, of the first slow-path
 * attempt (gfp_to_alloc_flags) and of the reserve retry, and for every zone
 * of the zonelist the watermark each attempt is held to.  The engine
 * decides (sim_gfp_decode); this file prints.  A mask the kernel would not
 * accept is a usage error (exit 2) with the reason.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "present/json_gfp.h"

struct gfp_args {
    const char *mask, *context, *scenario;
    struct cli_u64 order, node;
    struct cli_list variants;
    bool json;
};

static const struct cli_opt gfp_opts[] = {
        {CLI_TO(struct gfp_args, order), .name = "order", .arg = "N", .max = SIM_MAX_ORDER,
         .help = "allocation order, 0..10 (default 0)"},
        {CLI_TO(struct gfp_args, context), .name = "context", .arg = "C",
         .help = "task (default), atomic (interrupt) or rt (realtime task)"},
        {CLI_TO(struct gfp_args, node), .name = "node", .arg = "N", .max = SIM_MAX_NODES - 1,
         .help = "the node asked for (default 0)"},
        {CLI_TO(struct gfp_args, scenario), .name = "scenario", .arg = "FILE",
         .help = "the machine (zones, watermarks, variants) of a scenario; default: the default "
                 "machine (CMA configured)"},
        {CLI_TO(struct gfp_args, variants), .name = "variant", .arg = "NAME=VALUE",
         .help = "a kernel variant over the machine's, e.g. GFP_TRANSLATE=coupled"},
        {CLI_TO(struct gfp_args, json), .name = "json",
         .help = "the answer of GET /api/gfp instead of the table"},
        {0},
};

static void print_flags(const char *what, unsigned flags, unsigned layout)
{
    char names[160];

    sim_alloc_flags_format(flags, layout, names, sizeof(names));
    printf("%-13s0x%-6x %s\n", what, flags, names);
}

static void print_table(const struct sim_gfp_decoding *d, const struct sim_config *cfg,
                        unsigned context)
{
    unsigned layout = cfg->alloc_layout;
    char names[256];

    sim_gfp_format(d->gfp, names, sizeof(names));
    printf("%-13s%s (0x%x)\n", "mask", names, d->gfp);
    printf("%-13s%u%s\n", "order", d->order, d->costly ? " (costly: above 3)" : "");
    printf("%-13s%s%s, CMA %s\n", "context", sim_gfp_context_name(context),
           context == SIM_CTX_RT ? " (realtime task)" : " (not RT)",
           cfg->cma ? "configured" : "not configured");
    printf("%-13s%s\n", "zone", sim_zone_name(d->zone));
    printf("%-13s%s\n", "migratetype", sim_migratetype_name(d->migratetype));
    printf("%-13s%s\n", "may block", d->can_reclaim ? "yes: direct reclaim" : "no");
    printf("%-13sGFP_TRANSLATE=%s, ALLOC layout %s\n", "translation",
           cfg->variant[SIM_VAR_GFP_TRANSLATE] == SIM_AFTER ? "explicit" : "coupled",
           sim_alloc_layout_name(layout));
    print_flags("fast path", d->fast_flags, layout);
    print_flags("slow path", d->slow_flags, layout);
    print_flags("retry", d->retry_flags, layout);
    printf("\nzonelist: free pages - %u must exceed the threshold\n", (1u << d->order) - 1);
    printf("  %-4s %-7s %8s %6s %6s %6s %8s %6s %6s %6s\n", "node", "zone", "free", "min", "low",
           "high", "reserve", "fast", "slow", "retry");
    for (unsigned i = 0; i < d->nr_zones; i++) {
        const struct sim_gfp_zone_mark *m = &d->zones[i];
        char retry[24];

        if (m->retry_threshold < 0)
            snprintf(retry, sizeof(retry), "none");
        else
            snprintf(retry, sizeof(retry), "%ld", m->retry_threshold);
        printf("  %-4d %-7s %8lu %6lu %6lu %6lu %8lu %6ld %6ld %6s\n", m->node,
               sim_zone_name(m->zone), m->free_pages, m->watermark[SIM_WMARK_MIN],
               m->watermark[SIM_WMARK_LOW], m->watermark[SIM_WMARK_HIGH], m->lowmem_reserve,
               m->fast_threshold, m->slow_threshold, retry);
    }
}

static int gfp_main(int argc, char **argv)
{
    struct gfp_args args = {0};
    const char *mask;
    struct sim_config cfg;
    struct sim_gfp_decoding d;
    struct scenario *scn = NULL;
    struct sim *sim = NULL;
    uint64_t order, node;
    int context = SIM_CTX_TASK, ret = CLI_USAGE;
    bool json;
    char msg[400];
    uint32_t gfp;

    if (!cli_parse(&cmd_gfp, argc, argv, &args, &ret))
        return ret;
    ret = CLI_USAGE;
    mask = args.mask;
    order = args.order.value;
    node = args.node.value;
    json = args.json;
    if (args.context && (context = sim_gfp_context_lookup(args.context)) < 0)
        return cli_usage_error("gfp", "--context wants task, atomic or rt");
    sim_config_default(&cfg);
    if (args.scenario) {
        if (!(scn = cli_load(args.scenario)))
            return CLI_USAGE;
        cfg = scn->config;
    }
    for (int i = 0; i < args.variants.n; i++)
        if (!cli_set_variant(&cfg, args.variants.v[i]))
            goto out;
    if (sim_gfp_parse(mask, &gfp)) {
        ret = cli_usage_error("gfp",
                              "\"%s\" is not a gfp mask: names like GFP_KERNEL or "
                              "__GFP_ZERO joined by |, or hex like 0xcc0",
                              mask);
        goto out;
    }
    if (sim_zones_check(&cfg, msg, sizeof(msg))) {
        ret = cli_usage_error("gfp", "%s", msg);
        goto out;
    }
    if (sim_create(&cfg, &sim)) {
        ret = cli_usage_error("gfp", "cannot create the machine");
        goto out;
    }
    if (node >= cfg.nr_nodes) {
        ret = cli_usage_error("gfp", "node %llu: the machine has %u node(s)",
                              (unsigned long long)node, cfg.nr_nodes);
        goto out;
    }
    if (sim_gfp_decode(sim, gfp, (unsigned)order, (int)node, (enum sim_gfp_context)context, &d, msg,
                       sizeof(msg))) {
        ret = cli_usage_error("gfp", "%s", msg);
        goto out;
    }
    if (json) {
        cJSON *o = json_gfp_decoding(&d, &cfg, (unsigned)context);
        bool ok = cli_print_json(stdout, o, true);

        cJSON_Delete(o);
        if (!ok) {
            fprintf(stderr, "slublab gfp: out of memory\n");
            ret = CLI_FAIL;
            goto out;
        }
    } else {
        print_table(&d, &cfg, (unsigned)context);
    }
    ret = CLI_OK;
out:
    sim_destroy(sim);
    scenario_release(scn);
    return ret;
}

const struct cli_command cmd_gfp = {
        .name = "gfp",
        .pos = {.name = "MASK",
                .offset = offsetof(struct gfp_args, mask),
                .what = "mask",
                .missing = "which mask? e.g. slublab gfp GFP_KERNEL",
                .help = "names joined by | (GFP_KERNEL|__GFP_ZERO) or hex (0xcc0)"},
        .groups = {{gfp_opts, 0}},
        .run = gfp_main,
};
