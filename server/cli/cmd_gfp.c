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

void cli_gfp_usage(FILE *f)
{
    fputs("usage: slublab gfp MASK [--order N] [--context task|atomic|rt] [--node N]\n"
          "                        [--scenario FILE] [--variant NAME=VALUE] [--json]\n"
          "\n"
          "What a gfp mask decides in the page allocator: its flags by name, the\n"
          "highest zone and migratetype, the ALLOC flags of the fast path, of the\n"
          "first slow-path attempt (gfp_to_alloc_flags) and of the reserve retry,\n"
          "and the watermark each zone of the zonelist holds the request to.\n"
          "\n"
          "  MASK              names joined by | (GFP_KERNEL|__GFP_ZERO) or hex (0xcc0)\n"
          "  --order N         allocation order, 0..10 (default 0)\n"
          "  --context C       task (default), atomic (interrupt) or rt (realtime task)\n"
          "  --node N          the node asked for (default 0)\n"
          "  --scenario FILE   the machine (zones, watermarks, variants) of a scenario;\n"
          "                    default: the default machine (CMA configured)\n"
          "  --variant N=V     e.g. GFP_TRANSLATE=coupled\n"
          "  --json            the answer of GET /api/gfp instead of the table\n"
          "\n"
          "A request passes a zone when its free pages, less 2^order - 1, exceed the\n"
          "threshold shown.  Exit status 2 for a mask the kernel would not accept.\n",
          f);
}

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

int cli_gfp(int argc, char **argv)
{
    const char *mask = NULL, *v;
    struct sim_config cfg;
    struct sim_gfp_decoding d;
    struct scenario *scn = NULL;
    struct sim *sim = NULL;
    uint64_t order = 0, node = 0;
    int context = SIM_CTX_TASK, ret = CLI_USAGE, r;
    bool json = false, has_node = false;
    char msg[400];
    uint32_t gfp;

    sim_config_default(&cfg);
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            cli_gfp_usage(stdout);
            return CLI_OK;
        }
        if ((r = cli_option(argc, argv, &i, "--order", &v))) {
            if (r < 0 || !cli_parse_u64(v, &order) || order > SIM_MAX_ORDER)
                return cli_usage_error("gfp", "--order wants 0..%d", SIM_MAX_ORDER);
        } else if ((r = cli_option(argc, argv, &i, "--context", &v))) {
            if (r < 0 || (context = sim_gfp_context_lookup(v)) < 0)
                return cli_usage_error("gfp", "--context wants task, atomic or rt");
        } else if ((r = cli_option(argc, argv, &i, "--node", &v))) {
            if (r < 0 || !cli_parse_u64(v, &node) || node >= SIM_MAX_NODES)
                return cli_usage_error("gfp", "--node wants a node number");
            has_node = true;
        } else if ((r = cli_option(argc, argv, &i, "--scenario", &v))) {
            if (r < 0)
                return CLI_USAGE;
            scenario_release(scn);
            if (!(scn = cli_load(v)))
                return CLI_USAGE;
            cfg = scn->config;
        } else if ((r = cli_option(argc, argv, &i, "--variant", &v))) {
            if (r < 0 || !cli_set_variant(&cfg, v))
                goto out;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            ret = cli_usage_error("gfp", "unknown option %s", argv[i]);
            goto out;
        } else if (mask) {
            ret = cli_usage_error("gfp", "one mask at a time (got \"%s\" and \"%s\")", mask,
                                  argv[i]);
            goto out;
        } else {
            mask = argv[i];
        }
    }
    if (!mask) {
        ret = cli_usage_error("gfp", "which mask? e.g. slublab gfp GFP_KERNEL");
        goto out;
    }
    if (sim_gfp_parse(mask, &gfp)) {
        ret = cli_usage_error("gfp", "\"%s\" is not a gfp mask: names like GFP_KERNEL or "
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
    if (has_node && node >= cfg.nr_nodes) {
        ret = cli_usage_error("gfp", "node %llu: the machine has %u node(s)",
                              (unsigned long long)node, cfg.nr_nodes);
        goto out;
    }
    if (sim_gfp_decode(sim, gfp, (unsigned)order, (int)node, (enum sim_gfp_context)context, &d,
                       msg, sizeof(msg))) {
        ret = cli_usage_error("gfp", "%s", msg);
        goto out;
    }
    if (json) {
        cJSON *o = json_gfp_decoding(&d, &cfg, (unsigned)context);
        char *text = o ? cJSON_Print(o) : NULL;

        cJSON_Delete(o);
        if (!text) {
            fprintf(stderr, "slublab gfp: out of memory\n");
            ret = CLI_FAIL;
            goto out;
        }
        printf("%s\n", text);
        cJSON_free(text);
    } else {
        print_table(&d, &cfg, (unsigned)context);
    }
    ret = CLI_OK;
out:
    sim_destroy(sim);
    scenario_release(scn);
    return ret;
}
