/*
 * cli.c: helpers shared by the subcommands (see cli.h): numbers, variants,
 * the --model/--seed/--variant option group, scenario loading and the
 * replay of a scenario FILE with those options (run, explore, export,
 * report), and printing or writing what a command made.
 *
 * The option parser is options.c.  Messages go to stderr prefixed with the
 * subcommand, and usage errors always mean exit status 2.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/hint.h"
#include "base/strbuf.h"
#include "kfiles/kfiles.h"
#include "scenario/kernel.h"
#include "scenario/replay.h"

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;

    if (!*s)
        return false;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');

        if (*s < '0' || *s > '9' || v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool cli_set_variant(struct sim_config *cfg, const char *text)
{
    const char *eq = strchr(text, '=');
    char name[64];
    size_t len;
    int id;

    if (!eq || (len = (size_t)(eq - text)) == 0 || len >= sizeof(name)) {
        fprintf(stderr, "slublab: --variant wants NAME=before or NAME=after, not \"%s\"\n", text);
        return false;
    }
    memcpy(name, text, len);
    name[len] = '\0';
    id = hint_lookup(name, sim_variant_name, SIM_NR_VARIANTS); /* BARN_REFILL or barn_refill */
    if (id < 0) {
        struct strbuf why = STRBUF_INIT;

        hint_append(&why, name, sim_variant_name, SIM_NR_VARIANTS, "variants");
        fprintf(stderr, "slublab: unknown variant \"%s\"%s\n", name, strbuf_str(&why));
        strbuf_release(&why);
        return false;
    }
    if (sim_variant_value_lookup((unsigned)id, eq + 1) < 0) {
        fprintf(stderr, "slublab: variant %s: \"%s\" is neither before nor after\n",
                sim_variant_name((unsigned)id), eq + 1);
        return false;
    }
    cfg->variant[id] = (uint8_t)sim_variant_value_lookup((unsigned)id, eq + 1);
    return true;
}

const struct cli_opt cli_model_opts[] = {
        {CLI_TO(struct cli_model_args, variants), .name = "variant", .arg = "NAME=VALUE",
         .help = "override a kernel variant (DEFERRED_FREELIST, BARN_REFILL, ...: docs/cli.md "
                 "lists them): VALUE is before or after"},
        {CLI_TO(struct cli_model_args, kernel), .name = "kernel", .arg = "X.Y[.Z]",
         .help = "run on this kernel release's SLUB (its model, era and variants; "
                 "docs/engine.md lists the releases)"},
        {CLI_TO(struct cli_model_args, model), .name = "model", .arg = "MODEL",
         .help = "override the model for an experiment: sheaves, legacy, legacy:ERA or hybrid "
                 "(or a release, as --kernel)"},
        {CLI_TO(struct cli_model_args, seed), .name = "seed", .arg = "N",
         .help = "override the seed"},
        {CLI_TO(struct cli_model_args, slab_debug), .name = "slab-debug", .arg = "OPTIONS",
         .help = "boot with slab_debug=OPTIONS, as on a kernel command line: FZPU, "
                 "ZU,kmalloc-*, -, O, groups joined by ; (docs/scenario-format.md)"},
        {0},
};

int cli_configure(const char *cmd, const struct cli_model_args *m, uint32_t keep,
                  struct sim_config *cfg)
{
    char msg[256];
    int i;

    if ((m->kernel || m->model) && kernel_choose(m->kernel, m->model, keep, cfg, msg, sizeof(msg)))
        return cli_usage_error(cmd, "%s", msg);
    if (m->seed.given)
        cfg->seed = m->seed.value;
    if (m->slab_debug && sim_slab_debug_parse(m->slab_debug, cfg, msg, sizeof(msg)))
        return cli_usage_error(cmd, "%s", msg);
    for (i = 0; i < m->variants.n; i++)
        if (!cli_set_variant(cfg, m->variants.v[i]))
            return CLI_USAGE;
    if (sim_model_error(cfg))
        return cli_usage_error(cmd, "%s", sim_model_error(cfg));
    return CLI_OK;
}

struct scenario *cli_load(const char *path)
{
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    int ret = scenario_load(path, &scn, &err);

    if (ret) {
        if (err.len)
            fprintf(stderr, "%s\n", strbuf_str(&err));
        else
            fprintf(stderr, "%s: %s\n", path, strerror(-ret));
        scn = NULL;
    }
    strbuf_release(&err);
    return scn;
}

int cli_write_text(const char *cmd, const char *path, const struct strbuf *sb)
{
    int err;

    if (!path) {
        fputs(strbuf_str(sb), stdout);
        return CLI_OK;
    }
    if ((err = export_write_file(path, strbuf_str(sb), sb->len))) {
        fprintf(stderr, "slublab %s: %s: %s\n", cmd, path, strerror(-err));
        return CLI_USAGE;
    }
    return CLI_OK;
}

bool cli_print_json(FILE *f, const struct cJSON *json, bool pretty)
{
    char *text = !json ? NULL : pretty ? cJSON_Print(json) : cJSON_PrintUnformatted(json);

    if (!text)
        return false;
    fputs(text, f);
    fputc('\n', f);
    cJSON_free(text);
    return true;
}

int cli_replay_open(const char *cmd, const char *file, const struct cli_model_args *m,
                    struct cli_replay *r)
{
    if (!(r->scn = cli_load(file)))
        return CLI_USAGE;
    r->cfg = r->scn->config;
    if (cli_configure(cmd, m, r->scn->variants_given, &r->cfg))
        return CLI_USAGE;
    if (replay_init(&r->rp, r->scn, &r->cfg)) {
        fprintf(stderr, "%s\n", strbuf_str(&r->rp.error));
        return CLI_USAGE;
    }
    return CLI_OK;
}

void cli_replay_release(struct cli_replay *r)
{
    replay_release(&r->rp);
    scenario_release(r->scn);
    r->scn = NULL;
}

int cli_replay_error(const char *cmd, const struct replay *rp, int err)
{
    if (rp->error.len)
        fprintf(stderr, "%s\n", strbuf_str(&rp->error));
    else
        fprintf(stderr, "slublab %s: %s\n", cmd, strerror(-err));
    return err == -EFAULT ? CLI_FAIL : CLI_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "slublab %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see slublab %s --help)\n", cmd);
    return CLI_USAGE;
}
