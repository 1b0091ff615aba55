/*
 * cmd_explore.c: `slublab explore FILE`: every schedule of a scenario's
 * race, and what each does.
 *
 * The scenario is replayed up to its first top-level race op; that machine
 * is the root.  The search is exhaustive, without partial-order reduction:
 * a depth-first walk over schedules, one token per step, where each node
 * runs the race with its prefix as the schedule on a clone of the root
 * (the engine reports which contexts could step when the prefix ended, and
 * whether all had finished: a leaf).  A migration the scenario's schedule
 * writes ("A>1") stays in its context's own sequence: after the same
 * number of A's steps.  --bound caps the steps of a schedule (a longer one
 * is counted as cut, not explored further) and --max the schedules.
 *
 * Each leaf is an outcome: the race cache's counters on every CPU, the
 * validator's verdict after the race, and the lost updates NO_TID counts.
 * Schedules with the same outcome are grouped; the report prints each
 * group's size, an example schedule, the counters that differ between
 * groups, whether every invariant held, the number of schedules and the
 * time, and with a bad outcome the shortest bad schedule, which -o writes
 * back into the scenario (the UI opens it).
 */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/json.h"
#include "scenario/replay.h"

#define EXPLORE_MAX_STEPS 512u

struct explore_args {
    const char *file;
    struct cli_u64 bound, max;
    bool json;
    const char *out;
    struct cli_model_args m;
};

static const struct cli_opt explore_opts[] = {
        {CLI_TO(struct explore_args, bound), .name = "bound", .arg = "N", .min = 1,
         .max = EXPLORE_MAX_STEPS,
         .help = "explore schedules of at most N steps (default 200); longer ones are counted "
                 "as cut"},
        {CLI_TO(struct explore_args, max), .name = "max", .arg = "N", .min = 1, .max = 10000000,
         .help = "stop after N schedules (default 1000000)"},
        {CLI_TO(struct explore_args, json), .name = "json",
         .help = "one JSON object instead of the text report"},
        {CLI_TO(struct explore_args, out), .short_name = 'o', .arg = "FILE",
         .help = "write the scenario with the shortest bad schedule in its race (nothing is "
                 "written when every schedule is safe)"},
        {0},
};

struct outcome {
    uint64_t stats[SIM_MAX_CPUS][SIM_NR_STATS]; /* the race cache's counters per CPU */
    unsigned violations, lost;
    char report[200]; /* the validator's first message */
    uint64_t schedules;
    char example[SIM_RACE_SCHEDULE];  /* the first schedule found */
    char shortest[SIM_RACE_SCHEDULE]; /* the one with fewest tokens, compressed */
    unsigned shortest_tokens;
};

struct explorer {
    struct sim *root;
    struct sim_race race;
    int cache;
    unsigned nr_cpus;
    uint64_t bound, max;
    /* migrations the scenario's schedule writes: context i moves to mig_cpu
     * before its step mig_at (its own numbering) */
    int mig_at[SIM_RACE_MAX_CTX][8], mig_cpu[SIM_RACE_MAX_CTX][8];
    unsigned nr_mig[SIM_RACE_MAX_CTX];
    struct outcome *outcomes;
    size_t nr_outcomes, cap_outcomes;
    uint64_t schedules, cut, invalid;
    int err;
    char msg[2048];
};

/* The context index of token @tok (its id up to '*', '!' or '>'), or -1. */
static int token_ctx(const struct sim_race *race, const char *tok, size_t len)
{
    size_t id = 0;

    while (id < len && tok[id] != '*' && tok[id] != '!' && tok[id] != '>')
        id++;
    for (unsigned i = 0; i < race->nr_ctx; i++)
        if (strlen(race->ctx[i].id) == id && !strncmp(race->ctx[i].id, tok, id))
            return (int)i;
    return -1;
}

/* Record the migrations of the scenario's schedule, each at its context's step count. */
static void note_migrations(struct explorer *ex)
{
    unsigned steps[SIM_RACE_MAX_CTX] = {0};
    const char *p = ex->race.schedule;

    for (;;) {
        size_t n = 0;
        int c;

        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            return;
        while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n')
            n++;
        c = token_ctx(&ex->race, p, n);
        if (c >= 0 && memchr(p, '>', n) && ex->nr_mig[c] < 8) {
            ex->mig_at[c][ex->nr_mig[c]] = (int)steps[c];
            ex->mig_cpu[c][ex->nr_mig[c]++] = atoi((const char *)memchr(p, '>', n) + 1);
        }
        if (c >= 0 && !memchr(p, '*', n)) /* an X* ends the exploration's knowledge; rare */
            steps[c]++;
        p += n;
    }
}

/* The token that advances context @c after it took @k steps. */
static void next_token(const struct explorer *ex, unsigned c, unsigned k, char *buf, size_t len)
{
    for (unsigned i = 0; i < ex->nr_mig[c]; i++)
        if (ex->mig_at[c][i] == (int)k) {
            snprintf(buf, len, "%s>%d", ex->race.ctx[c].id, ex->mig_cpu[c][i]);
            return;
        }
    snprintf(buf, len, "%s", ex->race.ctx[c].id);
}

/* @tokens (one context index each) as a schedule, each context's last run
 * written X*: the form a student reads and the UI replays. */
static unsigned compress(const struct explorer *ex, const int *ctx, const char (*tok)[16],
                         unsigned n, char *out, size_t len)
{
    unsigned last[SIM_RACE_MAX_CTX], nr = 0;
    size_t used = 0;

    for (unsigned c = 0; c < SIM_RACE_MAX_CTX; c++)
        last[c] = 0;
    for (unsigned i = 0; i < n; i++)
        last[ctx[i]] = i;
    out[0] = 0;
    for (unsigned i = 0; i < n;) {
        unsigned j = i;
        bool tail;

        while (j + 1 < n && ctx[j + 1] == ctx[i] && !strchr(tok[j + 1], '>'))
            j++;
        tail = j == last[ctx[i]] && !strchr(tok[i], '>');
        if (tail && used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s*", used ? " " : "",
                                     ex->race.ctx[ctx[i]].id);
        for (unsigned k = i; !tail && k <= j && used < len; k++)
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", tok[k]);
        nr += tail ? 1 : j - i + 1;
        i = j + 1;
    }
    return nr;
}

static struct outcome *find_outcome(struct explorer *ex, const struct outcome *o)
{
    for (size_t i = 0; i < ex->nr_outcomes; i++)
        if (!memcmp(ex->outcomes[i].stats, o->stats, sizeof(o->stats)) &&
            ex->outcomes[i].violations == o->violations && ex->outcomes[i].lost == o->lost)
            return &ex->outcomes[i];
    if (ex->nr_outcomes == ex->cap_outcomes) {
        size_t cap = ex->cap_outcomes ? 2 * ex->cap_outcomes : 8;
        struct outcome *n = realloc(ex->outcomes, cap * sizeof(*n));

        if (!n)
            return NULL;
        ex->outcomes = n;
        ex->cap_outcomes = cap;
    }
    ex->outcomes[ex->nr_outcomes] = *o;
    ex->outcomes[ex->nr_outcomes].schedules = 0;
    ex->outcomes[ex->nr_outcomes].shortest_tokens = UINT32_MAX;
    return &ex->outcomes[ex->nr_outcomes++];
}

/* Run the race with schedule @sched on a clone of the root: 0 with *@res
 * (and the clone in *@out when @out), or -EINVAL (the prefix cannot run). */
static int run_prefix(struct explorer *ex, const char *sched, struct sim_result *res,
                      struct sim **out)
{
    struct sim_op op = {.kind = SIM_OP_RACE, .cache = ex->cache, .node = SIM_NUMA_NO_NODE};
    struct sim *m;
    int err;

    strcpy(ex->race.schedule, sched);
    op.race = &ex->race;
    if ((err = sim_clone(ex->root, &m)))
        return err;
    err = sim_apply(m, &op, res);
    if (err || !out)
        sim_destroy(m);
    else
        *out = m;
    return err;
}

static int leaf(struct explorer *ex, const int *ctx, const char (*tok)[16], unsigned n,
                const char *sched)
{
    struct sim_result *res = malloc(sizeof(*res));
    struct outcome *o = calloc(1, sizeof(*o)), *g;
    struct sim_report rep;
    struct sim *m = NULL;
    char short_form[SIM_RACE_SCHEDULE];
    unsigned tokens;
    int err = -ENOMEM;

    if (!res || !o)
        goto out;
    if ((err = run_prefix(ex, sched, res, &m)))
        goto out;
    for (unsigned c = 0; c < ex->nr_cpus; c++)
        for (unsigned i = 0; i < SIM_NR_STATS; i++)
            o->stats[c][i] = sim_stat(m, ex->cache, i, (int)c);
    o->violations = sim_validate(m, SIM_VALIDATE_OP, &rep);
    o->lost = res->race.lost_updates;
    if (o->violations)
        snprintf(o->report, sizeof(o->report), "%s", rep.msg[0]);
    err = -ENOMEM;
    if (!(g = find_outcome(ex, o)))
        goto out;
    err = 0;
    ex->schedules++;
    tokens = compress(ex, ctx, tok, n, short_form, sizeof(short_form));
    if (!g->schedules++)
        strcpy(g->example, short_form);
    if (tokens < g->shortest_tokens) {
        g->shortest_tokens = tokens;
        strcpy(g->shortest, short_form);
    }
out:
    sim_destroy(m);
    free(res);
    free(o);
    return err;
}

/* Depth-first over the schedules that start with the @n tokens given. */
static int walk(struct explorer *ex, int *ctx, char (*tok)[16], unsigned n, unsigned *steps)
{
    char sched[EXPLORE_MAX_STEPS * 12 + 1];
    struct sim_result *res;
    size_t used = 0;
    unsigned runnable;
    bool done;
    int err;

    if (ex->schedules >= ex->max)
        return 0;
    sched[0] = 0;
    for (unsigned i = 0; i < n && used < sizeof(sched); i++)
        used += (size_t)snprintf(sched + used, sizeof(sched) - used, "%s%s", i ? " " : "", tok[i]);
    if (used >= SIM_RACE_SCHEDULE) {
        ex->cut++; /* the schedule's text no longer fits a race */
        return 0;
    }
    if (!(res = malloc(sizeof(*res))))
        return -ENOMEM;
    err = run_prefix(ex, sched, res, NULL);
    runnable = err ? 0 : res->race.runnable;
    done = !err && res->race.done_at_end;
    if (err == -EINVAL) { /* a migration that cannot happen here */
        ex->invalid++;
        free(res);
        return 0;
    }
    if (err && !ex->msg[0])
        snprintf(ex->msg, sizeof(ex->msg), "%s", res->message);
    free(res);
    if (err)
        return err;
    if (done)
        return leaf(ex, ctx, (const char(*)[16])tok, n, sched);
    if (n >= ex->bound) {
        ex->cut++;
        return 0;
    }
    for (unsigned c = 0; c < ex->race.nr_ctx; c++) {
        if (!(runnable & (1u << c)))
            continue;
        ctx[n] = (int)c;
        next_token(ex, c, steps[c], tok[n], sizeof(tok[n]));
        steps[c]++;
        err = walk(ex, ctx, tok, n + 1, steps);
        steps[c]--;
        if (err)
            return err;
    }
    return 0;
}

static bool outcome_bad(const struct outcome *o)
{
    return o->violations || o->lost;
}

/* Whether counter @i on CPU @c differs between the outcomes. */
static bool stat_differs(const struct explorer *ex, unsigned c, unsigned i)
{
    for (size_t k = 1; k < ex->nr_outcomes; k++)
        if (ex->outcomes[k].stats[c][i] != ex->outcomes[0].stats[c][i])
            return true;
    return false;
}

static const struct outcome *shortest_bad(const struct explorer *ex)
{
    const struct outcome *best = NULL;

    for (size_t k = 0; k < ex->nr_outcomes; k++)
        if (outcome_bad(&ex->outcomes[k]) &&
            (!best || ex->outcomes[k].shortest_tokens < best->shortest_tokens))
            best = &ex->outcomes[k];
    return best;
}

static void print_text(const struct explorer *ex, const char *file, size_t index, double secs)
{
    const struct outcome *bad = shortest_bad(ex);

    printf("explore %s: the race at ops[%zu], contexts", file, index);
    for (unsigned c = 0; c < ex->race.nr_ctx; c++)
        printf(" %s (%s on CPU %u)", ex->race.ctx[c].id,
               ex->race.ctx[c].kind == SIM_RACE_IRQ ? "irq" : "task", ex->race.ctx[c].cpu);
    printf("\nsearch exhaustive (no partial-order reduction), schedules of at most %" PRIu64
           " steps\n",
           ex->bound);
    printf("schedules %" PRIu64 ", cut at the bound %" PRIu64 ", outcomes %zu, time %.3f s\n",
           ex->schedules, ex->cut, ex->nr_outcomes, secs);
    for (size_t k = 0; k < ex->nr_outcomes; k++) {
        const struct outcome *o = &ex->outcomes[k];

        printf("\noutcome %zu: %" PRIu64 " schedule%s, %s\n", k + 1, o->schedules,
               o->schedules == 1 ? "" : "s", outcome_bad(o) ? "BAD" : "every invariant held");
        if (o->lost)
            printf("  lost updates %u (NO_TID)\n", o->lost);
        if (o->violations)
            printf("  violations %u: %s\n", o->violations, o->report);
        for (unsigned c = 0; c < ex->nr_cpus; c++)
            for (unsigned i = 0; i < SIM_NR_STATS; i++)
                if (stat_differs(ex, c, i))
                    printf("  %s C%u=%" PRIu64 "\n", sim_stat_name(i), c, o->stats[c][i]);
        printf("  for example: %s\n", o->example);
        if (strcmp(o->shortest, o->example))
            printf("  shortest: %s\n", o->shortest);
    }
    if (bad)
        printf("\nshortest bad schedule: %s\n", bad->shortest);
    else
        printf("\nevery schedule is safe\n");
}

static cJSON *outcome_json(const struct explorer *ex, const struct outcome *o)
{
    cJSON *j = cJSON_CreateObject(), *counters = NULL;

    if (!j || !json_put(j, "schedules", json_uint(o->schedules)) ||
        !json_put(j, "ok", cJSON_CreateBool(!outcome_bad(o))) ||
        !json_put(j, "violations", json_uint(o->violations)) ||
        !json_put(j, "report", o->violations ? json_str(o->report) : cJSON_CreateNull()) ||
        !json_put(j, "lost_updates", json_uint(o->lost)) ||
        !json_put(j, "counters", counters = cJSON_CreateObject()) ||
        !json_put(j, "example", json_str(o->example)) ||
        !json_put(j, "shortest", json_str(o->shortest)))
        goto err_delete;
    for (unsigned c = 0; c < ex->nr_cpus; c++)
        for (unsigned i = 0; i < SIM_NR_STATS; i++) {
            char key[64];

            if (!stat_differs(ex, c, i))
                continue;
            snprintf(key, sizeof(key), "%s.cpu%u", sim_stat_name(i), c);
            if (!json_put(counters, key, json_uint(o->stats[c][i])))
                goto err_delete;
        }
    return j;

err_delete:
    cJSON_Delete(j);
    return NULL;
}

static int print_json(const struct explorer *ex, const char *file, size_t index, double secs)
{
    const struct outcome *bad = shortest_bad(ex);
    cJSON *o = cJSON_CreateObject(), *arr = NULL;

    if (!o || !json_put(o, "scenario", json_str(file)) || !json_put(o, "op", json_uint(index)) ||
        !json_put(o, "search", json_str("exhaustive")) ||
        !json_put(o, "bound", json_uint(ex->bound)) ||
        !json_put(o, "schedules", json_uint(ex->schedules)) ||
        !json_put(o, "cut", json_uint(ex->cut)) ||
        !json_put(o, "seconds", cJSON_CreateNumber(secs)) ||
        !json_put(o, "outcomes", arr = cJSON_CreateArray()))
        goto err;
    for (size_t k = 0; k < ex->nr_outcomes; k++)
        if (!json_push(arr, outcome_json(ex, &ex->outcomes[k])))
            goto err;
    if (!json_put(o, "safe", cJSON_CreateBool(!bad)) ||
        !json_put(o, "shortest_bad", bad ? json_str(bad->shortest) : cJSON_CreateNull()) ||
        !cli_print_json(stdout, o, false))
        goto err;
    cJSON_Delete(o);
    return CLI_OK;

err:
    cJSON_Delete(o);
    return cli_usage_error("explore", "out of memory printing the result");
}

/* The scenario @file with its ops[@index].schedule set to @sched, into @out. */
static int write_bad(const char *file, size_t index, const char *sched, const char *out)
{
    FILE *f = fopen(file, "rb");
    char *text = NULL, *printed = NULL;
    cJSON *root = NULL, *op, *name;
    long len;
    int ret = CLI_USAGE;

    if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(text = malloc((size_t)len + 1)) || fread(text, 1, (size_t)len, f) != (size_t)len) {
        cli_usage_error("explore", "cannot read %s again", file);
        goto out;
    }
    text[len] = 0;
    root = cJSON_Parse(text);
    op = root ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "ops"), (int)index)
              : NULL;
    name = root ? cJSON_GetObjectItemCaseSensitive(root, "name") : NULL;
    if (!op) {
        cli_usage_error("explore", "out of memory");
        goto out;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(op, "schedule");
    if (!cJSON_AddStringToObject(op, "schedule", sched) ||
        (cJSON_IsString(name) && !cJSON_SetValuestring(name, "explored-bad-schedule")) ||
        !(printed = cJSON_Print(root))) {
        cli_usage_error("explore", "out of memory");
        goto out;
    }
    fclose(f);
    f = fopen(out, "w");
    if (!f || fputs(printed, f) < 0 || fputc('\n', f) < 0) {
        cli_usage_error("explore", "cannot write %s", out);
        goto out;
    }
    ret = CLI_OK;
out:
    if (f)
        fclose(f);
    free(text);
    free(printed);
    cJSON_Delete(root);
    return ret;
}

static int explore_main(int argc, char **argv)
{
    struct explore_args args = {0};
    struct explorer *ex = NULL;
    struct cli_replay r = {0};
    struct timespec t0, t1;
    int ctx[EXPLORE_MAX_STEPS];
    char(*tok)[16] = NULL;
    unsigned steps[SIM_RACE_MAX_CTX] = {0};
    size_t index = 0;
    double secs;
    int ret, err;

    if (!cli_parse(&cmd_explore, argc, argv, &args, &ret))
        return ret;
    if ((ret = cli_replay_open("explore", args.file, &args.m, &r)))
        goto out_release;
    ret = CLI_USAGE;
    if (!(ex = calloc(1, sizeof(*ex))) || !(tok = calloc(EXPLORE_MAX_STEPS, sizeof(*tok)))) {
        cli_usage_error("explore", "out of memory");
        goto out_release;
    }
    err = replay_until_race(&r.rp, &ex->race, &ex->cache, &index);
    if (err == -ENOENT) {
        cli_usage_error("explore", "%s has no race op at its top level", args.file);
        goto out_release;
    }
    if (err) {
        fprintf(stderr, "%s\n", strbuf_str(&r.rp.error));
        goto out_release;
    }
    ex->root = r.rp.sim;
    ex->nr_cpus = r.cfg.nr_cpus;
    ex->bound = args.bound.given ? args.bound.value : 200;
    ex->max = args.max.given ? args.max.value : 1000000;
    note_migrations(ex);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    err = walk(ex, ctx, tok, 0, steps);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (err) {
        cli_usage_error("explore", "the race cannot run: %s",
                        ex->msg[0] ? ex->msg : strerror(-err));
        goto out_release;
    }
    if (args.json)
        ret = print_json(ex, args.file, index, secs);
    else {
        print_text(ex, args.file, index, secs);
        ret = CLI_OK;
    }
    if (ret == CLI_OK && args.out && shortest_bad(ex))
        ret = write_bad(args.file, index, shortest_bad(ex)->shortest, args.out);
    if (ret == CLI_OK && shortest_bad(ex))
        ret = CLI_FAIL;
out_release:
    if (ex)
        free(ex->outcomes);
    free(ex);
    free(tok);
    cli_replay_release(&r);
    return ret;
}

const struct cli_command cmd_explore = {
        .name = "explore",
        .pos = CLI_POS_SCENARIO(struct explore_args, file),
        .groups = {{explore_opts, 0}, {cli_model_opts, offsetof(struct explore_args, m)}},
        .run = explore_main,
};
