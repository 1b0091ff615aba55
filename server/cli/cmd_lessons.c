/*
 * cmd_lessons.c: `slublab lessons check [DIR]`: every lesson and exercise
 * file (docs/lessons.md) checked against the format and against the
 * engine.
 *
 * The format is lesson.h's (the server applies the same checks when it
 * reads the files).  Beyond it, a lesson's slides are run: each slide's
 * scenario must be a shipped one, its position "at" within the events the
 * scenario makes on the slide's kernel and variants, and a slide that asks
 * must stop before an event that carries a branch record (the question is
 * built from it).  An exercise's preset is run alone and with the solution
 * appended: the solution must reach every goal at the end, within max_ops
 * operations beyond the preset's own.
 *
 * Output: one line per problem, "FILE: KEY.PATH: what is wrong", then one
 * summary line.  Runs of the same scenario with the same settings are
 * shared between the slides that need them.
 */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "scenario/lesson.h"
#include "scenario/replay.h"
#include "session/session.h"

/* what ACTION may be, for its usage errors */
#define LESSONS_ACTIONS "check"

struct lessons_args {
    const char *action;
    const char *dir;
    const char *scenarios;
};

/* One run of a scenario with some settings: what the slides ask of it. */
struct lessons_run {
    char *key;            /* scenario name + settings JSON; owned */
    char *error;          /* why it could not run, or NULL; owned */
    bool reported;        /* the error was reported for the slide that asked first */
    uint64_t nr_events;   /* events the run made */
    unsigned char *asked; /* bit seq: event seq carries a branch record; owned */
    uint64_t asked_bytes;
};

struct lessons_check {
    const char *scenario_dir;
    struct scenario **scns; /* the shipped scenarios, parsed; owned */
    size_t nr_scns;
    struct lessons_run *runs; /* owned */
    size_t nr_runs;
    unsigned long problems;
    FILE *out;
};

static const struct cli_opt lessons_opts[] = {
        {CLI_TO(struct lessons_args, scenarios), .name = "scenarios", .arg = "DIR",
         .help = "the shipped scenarios the slides name (default: scenarios beside the lessons "
                 "directory)"},
        {0},
};

/* Print one problem: "@file: " then the message. */
static void lessons_problem(struct lessons_check *c, const char *file, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void lessons_problem(struct lessons_check *c, const char *file, const char *fmt, ...)
{
    va_list ap;

    fprintf(c->out, "%s: ", file);
    va_start(ap, fmt);
    vfprintf(c->out, fmt, ap);
    va_end(ap);
    fputc('\n', c->out);
    c->problems++;
}

/* Read every scenario of c->scenario_dir (the ones that parse). */
static int lessons_load_scenarios(struct lessons_check *c)
{
    DIR *d = opendir(c->scenario_dir);
    struct dirent *de;
    size_t cap = 0;

    if (!d)
        return -errno;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        struct strbuf err = STRBUF_INIT;
        struct scenario *scn = NULL;
        char path[4096];

        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", c->scenario_dir, de->d_name) >=
            sizeof(path)) {
            closedir(d);
            return -ENAMETOOLONG;
        }
        if (scenario_load(path, &scn, &err) == 0) {
            if (c->nr_scns == cap) {
                size_t ncap = cap ? cap * 2 : 32;
                struct scenario **v = realloc(c->scns, ncap * sizeof(*v));

                if (!v) {
                    scenario_release(scn);
                    strbuf_release(&err);
                    closedir(d);
                    return -ENOMEM;
                }
                c->scns = v;
                cap = ncap;
            }
            c->scns[c->nr_scns++] = scn;
        }
        strbuf_release(&err);
    }
    closedir(d);
    return 0;
}

static const struct scenario *lessons_scenario(const struct lessons_check *c, const char *name)
{
    for (size_t i = 0; i < c->nr_scns; i++)
        if (!strcmp(c->scns[i]->name, name))
            return c->scns[i];
    return NULL;
}

/* Does event @ev carry a branch record (docs/events.md#branch-records)? */
static bool lessons_event_asks(const struct sim_event *ev)
{
    return ev->nr_branches > 0;
}

static void lessons_on_event(const struct sim_event *ev, void *arg)
{
    struct lessons_run *r = arg;
    uint64_t byte = ev->seq / 8;

    if (!lessons_event_asks(ev))
        return;
    if (byte >= r->asked_bytes) {
        uint64_t n = r->asked_bytes ? r->asked_bytes : 1024;
        unsigned char *p;

        while (n <= byte)
            n *= 2;
        if (!(p = realloc(r->asked, n)))
            return; /* the ask checks then report a missing record: host OOM only */
        memset(p + r->asked_bytes, 0, n - r->asked_bytes);
        r->asked = p;
        r->asked_bytes = n;
    }
    r->asked[byte] |= (unsigned char)(1u << (ev->seq % 8));
}

static bool lessons_run_asks(const struct lessons_run *r, uint64_t seq)
{
    return seq / 8 < r->asked_bytes && (r->asked[seq / 8] & (1u << (seq % 8)));
}

/*
 * The run of @scn with @settings (a JSON object of "kernel" and
 * "variants", or NULL), made or found: NULL on host OOM.  Its error says
 * why the settings or the run failed.
 */
static struct lessons_run *lessons_run(struct lessons_check *c, const struct scenario *scn,
                                       const cJSON *settings)
{
    struct session_settings st;
    struct strbuf err = STRBUF_INIT;
    struct replay rp;
    struct sim_config cfg;
    struct lessons_run *r, *v;
    char *json = settings ? cJSON_PrintUnformatted(settings) : NULL, *key;
    size_t len;
    int ret;

    if (settings && !json)
        return NULL;
    len = strlen(scn->name) + (json ? strlen(json) : 0) + 2;
    if (!(key = malloc(len))) {
        free(json);
        return NULL;
    }
    snprintf(key, len, "%s|%s", scn->name, json ? json : "");
    free(json);
    for (size_t i = 0; i < c->nr_runs; i++)
        if (!strcmp(c->runs[i].key, key)) {
            free(key);
            return &c->runs[i];
        }
    if (!(v = realloc(c->runs, (c->nr_runs + 1) * sizeof(*v)))) {
        free(key);
        return NULL;
    }
    c->runs = v;
    r = &c->runs[c->nr_runs++];
    memset(r, 0, sizeof(*r));
    r->key = key;

    memset(&rp, 0, sizeof(rp));
    if ((ret = session_settings_parse(settings, &st, &err)))
        goto out_error;
    session_settings_apply(&st, scn, &cfg);
    if (sim_model_error(&cfg)) {
        strbuf_printf(&err, "%s", sim_model_error(&cfg));
        goto out_error;
    }
    ret = replay_init(&rp, scn, &cfg);
    if (!ret) {
        sim_set_event_cb(rp.sim, lessons_on_event, r);
        ret = replay_run(&rp);
    }
    if (ret) {
        strbuf_printf(&err, "scenario \"%s\" does not run: %s", scn->name,
                      rp.error.len ? strbuf_str(&rp.error) : strerror(-ret));
        goto out_error;
    }
    r->nr_events = sim_event_count(rp.sim);
    goto out;

out_error:
    r->error = malloc(err.len + 1);
    if (r->error)
        memcpy(r->error, strbuf_str(&err), err.len + 1);
out:
    replay_release(&rp);
    strbuf_release(&err);
    return r;
}

/* The settings object of @slide ("kernel", "variants"), or NULL when it gives neither. */
static cJSON *lessons_slide_settings(const cJSON *slide)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(slide, "kernel");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(slide, "variants");
    cJSON *o;

    if (!k && !v)
        return NULL;
    if (!(o = cJSON_CreateObject()))
        return NULL;
    if ((k && !cJSON_AddItemToObject(o, "kernel", cJSON_Duplicate(k, true))) ||
        (v && !cJSON_AddItemToObject(o, "variants", cJSON_Duplicate(v, true)))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int lessons_check_lesson(struct lessons_check *c, const struct lesson_entry *e)
{
    const cJSON *slides = cJSON_GetObjectItemCaseSensitive(e->json, "slides"), *s;
    const struct scenario *scn = NULL;
    cJSON *settings = NULL;
    size_t i = 0;
    int ret = 0;

    if (!(e->id[0] >= '0' && e->id[0] <= '9' && e->id[1] >= '0' && e->id[1] <= '9' &&
          e->id[2] == '-' && e->id[3]))
        lessons_problem(c, e->path,
                        "id: a lesson's file is named NN-slug.json (NN orders the "
                        "course)");
    for (s = slides->child; s; s = s->next, i++) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(s, "scenario");
        uint64_t at = (uint64_t)cJSON_GetObjectItemCaseSensitive(s, "at")->valuedouble;
        bool ask = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "ask"));
        struct lessons_run *r;

        if (name) {
            cJSON_Delete(settings);
            settings = NULL;
            if (!(scn = lessons_scenario(c, name->valuestring))) {
                lessons_problem(c, e->path, "slides[%zu].scenario: no scenario named \"%s\" in %s",
                                i, name->valuestring, c->scenario_dir);
                continue;
            }
        }
        if (!scn)
            continue; /* the slide that should have named it was reported */
        /* a slide that gives kernel or variants runs with them; else the previous slide's */
        if (cJSON_GetObjectItemCaseSensitive(s, "kernel") ||
            cJSON_GetObjectItemCaseSensitive(s, "variants")) {
            cJSON_Delete(settings);
            if (!(settings = lessons_slide_settings(s))) {
                ret = -ENOMEM;
                break;
            }
        }
        if (!(r = lessons_run(c, scn, settings))) {
            ret = -ENOMEM;
            break;
        }
        if (r->error) {
            if (!r->reported)
                lessons_problem(c, e->path, "slides[%zu]: %s", i, r->error);
            r->reported = true;
            continue;
        }
        if (at > r->nr_events) {
            lessons_problem(c, e->path,
                            "slides[%zu].at: %" PRIu64 " is beyond the %" PRIu64
                            " events of scenario \"%s\"",
                            i, at, r->nr_events, scn->name);
            continue;
        }
        if (ask && at == r->nr_events)
            lessons_problem(c, e->path,
                            "slides[%zu].ask: position %" PRIu64 " is the end of scenario \"%s\": "
                            "there is no next event to ask about",
                            i, at, scn->name);
        else if (ask && !lessons_run_asks(r, at))
            lessons_problem(c, e->path,
                            "slides[%zu].ask: event %" PRIu64 " of scenario \"%s\" carries no "
                            "branch record to build the question from",
                            i, at, scn->name);
    }
    cJSON_Delete(settings);
    return ret;
}

/* Run @text (a scenario) to its end: 0 with the operations in *ops and
 * the expects' states in @states (nr_expects of them, caller frees), or
 * an error with the reason in @err. */
static int lessons_run_text(const char *text, const char *label, uint64_t *ops,
                            struct replay_expect **states, struct strbuf *err)
{
    struct scenario *scn = NULL;
    struct replay rp;
    int ret;

    memset(&rp, 0, sizeof(rp));
    *states = NULL;
    if ((ret = scenario_parse(text, strlen(text), label, &scn, err)))
        return ret;
    ret = replay_init(&rp, scn, &scn->config);
    if (!ret)
        ret = replay_run(&rp);
    if (ret) {
        strbuf_puts(err, rp.error.len ? strbuf_str(&rp.error) : strerror(-ret));
    } else {
        *ops = sim_op_count(rp.sim);
        if (scn->nr_expects && (*states = malloc(scn->nr_expects * sizeof(**states))))
            memcpy(*states, rp.expects, scn->nr_expects * sizeof(**states));
        else if (scn->nr_expects)
            ret = -ENOMEM;
    }
    replay_release(&rp);
    scenario_release(scn);
    return ret;
}

/* lessons_run_text() of @text (freed here) for @e's @part ("preset",
 * "solution"): 0 when it ran, 1 after reporting that it does not, or
 * -ENOMEM. */
static int lessons_run_part(struct lessons_check *c, const struct lesson_entry *e, char *text,
                            const char *label, const char *part, uint64_t *ops,
                            struct replay_expect **states)
{
    struct strbuf err = STRBUF_INIT;
    int ret = lessons_run_text(text, label, ops, states, &err);

    free(text);
    if (ret && ret != -ENOMEM) {
        lessons_problem(c, e->path, "%s: does not run: %s", part, strbuf_str(&err));
        ret = 1;
    }
    strbuf_release(&err);
    return ret;
}

static int lessons_check_exercise(struct lessons_check *c, const struct lesson_entry *e)
{
    const cJSON *goal = cJSON_GetObjectItemCaseSensitive(e->json, "goal"), *g;
    uint64_t max_ops = (uint64_t)cJSON_GetObjectItemCaseSensitive(e->json, "max_ops")->valuedouble;
    struct replay_expect *states = NULL;
    uint64_t preset_ops = 0, ops = 0;
    char *text;
    size_t i = 0;
    int ret;

    if (!(text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(e->json, "preset"))))
        return -ENOMEM;
    ret = lessons_run_part(c, e, text, "preset", "preset", &preset_ops, &states);
    free(states);
    states = NULL;
    if (ret || (ret = lesson_exercise_attempt(e->json, &text)) ||
        (ret = lessons_run_part(c, e, text, "preset + solution", "solution", &ops, &states)))
        goto out;
    for (g = goal->child; g; g = g->next, i++) {
        const struct replay_expect *x = &states[i];

        if (x->state == REPLAY_PASS)
            continue;
        if (x->state == REPLAY_FAIL)
            lessons_problem(c, e->path,
                            "goal[%zu]: the solution ends with %s = %" PRIu64 ", not %s %.0f", i,
                            cJSON_GetObjectItemCaseSensitive(g, "metric")->valuestring, x->value,
                            cJSON_GetObjectItemCaseSensitive(g, "op")->valuestring,
                            cJSON_GetObjectItemCaseSensitive(g, "value")->valuedouble);
        else
            lessons_problem(c, e->path, "goal[%zu]: not reached by the solution (%s)", i,
                            replay_expect_state_name(x->state));
    }
    if (ops - preset_ops > max_ops)
        lessons_problem(c, e->path,
                        "solution: takes %" PRIu64 " operations beyond the preset's, more than "
                        "max_ops (%" PRIu64 ")",
                        ops - preset_ops, max_ops);
out:
    free(states);
    return ret < 0 ? ret : 0; /* a part that does not run is a problem, reported */
}

/* The *.json files of @dir whose names are not ids: one problem each. */
static void lessons_check_names(struct lessons_check *c, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    while (d && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        char id[LESSON_ID_MAX + 2];

        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
            continue;
        snprintf(id, sizeof(id), "%.*s", (int)(len - 5 < sizeof(id) - 1 ? len - 5 : sizeof(id) - 1),
                 de->d_name);
        if (len - 5 > LESSON_ID_MAX || !lesson_id_valid(id)) {
            fprintf(c->out,
                    "%s/%s: the name is not an id (1 to %d characters of a-z, 0-9, _ and -, "
                    "then .json): not served\n",
                    dir, de->d_name, LESSON_ID_MAX);
            c->problems++;
        }
    }
    if (d)
        closedir(d);
}

/* Check every file of @set; the format's problems first. */
static int lessons_check_set(struct lessons_check *c, const struct lesson_set *set,
                             enum lesson_kind kind)
{
    for (size_t i = 0; i < set->n; i++) {
        const struct lesson_entry *e = &set->v[i];
        int ret;

        if (e->error) {
            lessons_problem(c, e->path ? e->path : e->id, "%s", e->error);
            continue;
        }
        ret = kind == LESSON_LESSON ? lessons_check_lesson(c, e) : lessons_check_exercise(c, e);
        if (ret)
            return ret;
    }
    return 0;
}

/* The directory beside @dir named @name ("lessons" -> "scenarios"), in @buf. */
static void lessons_beside(const char *dir, const char *name, char *buf, size_t size)
{
    size_t len = strlen(dir);
    const char *slash = NULL;

    while (len > 1 && dir[len - 1] == '/')
        len--;
    for (size_t i = 0; i < len; i++)
        if (dir[i] == '/')
            slash = dir + i;
    if (slash)
        snprintf(buf, size, "%.*s%s", (int)(slash - dir + 1), dir, name);
    else
        snprintf(buf, size, "%s", name);
}

static int lessons_check_main(const struct lessons_args *a)
{
    struct lesson_set lessons = {0}, exercises = {0};
    struct lessons_check c = {.out = stdout};
    const char *dir = a->dir ? a->dir : "lessons";
    char scen[4096], exdir[4096];
    DIR *d;
    int ret;

    if (!(d = opendir(dir)))
        return cli_usage_error("lessons check", "%s: %s", dir, strerror(errno));
    closedir(d);
    lessons_beside(dir, "scenarios", scen, sizeof(scen));
    c.scenario_dir = a->scenarios ? a->scenarios : scen;
    snprintf(exdir, sizeof(exdir), "%s/exercises", dir);
    if ((ret = lessons_load_scenarios(&c)) == -ENOMEM)
        goto out_oom;
    if (ret)
        return cli_usage_error("lessons check", "%s: %s", c.scenario_dir, strerror(-ret));
    if (lesson_set_load(&lessons, dir, LESSON_LESSON) ||
        lesson_set_load(&exercises, exdir, LESSON_EXERCISE))
        goto out_oom;
    lessons_check_names(&c, dir);
    lessons_check_names(&c, exdir);
    if (lessons_check_set(&c, &lessons, LESSON_LESSON) ||
        lessons_check_set(&c, &exercises, LESSON_EXERCISE))
        goto out_oom;
    printf("lessons check: %zu lessons, %zu exercises, %lu problem%s\n", lessons.n, exercises.n,
           c.problems, c.problems == 1 ? "" : "s");
    ret = c.problems ? CLI_FAIL : CLI_OK;
    goto out;

out_oom:
    fprintf(stderr, "slublab lessons check: out of memory\n");
    ret = CLI_USAGE;
out:
    lesson_set_release(&lessons);
    lesson_set_release(&exercises);
    for (size_t i = 0; i < c.nr_scns; i++)
        scenario_release(c.scns[i]);
    free(c.scns);
    for (size_t i = 0; i < c.nr_runs; i++) {
        free(c.runs[i].key);
        free(c.runs[i].error);
        free(c.runs[i].asked);
    }
    free(c.runs);
    return ret;
}

static int lessons_main(int argc, char **argv)
{
    struct lessons_args a = {0};
    char *args[64];
    int i, ret;

    /* the action is the first argument that is neither an option nor its value */
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--scenarios")) {
            i++;
            continue;
        }
        if (argv[i][0] != '-' || !strcmp(argv[i], "--"))
            break;
    }
    if (i < argc && !strcmp(argv[i], "check") && argc <= (int)(sizeof(args) / sizeof(args[0]))) {
        int n = 0;

        for (int k = 0; k < argc; k++)
            if (k != i)
                args[n++] = argv[k];
        if (!cli_parse(&cmd_lessons_check, n, args, &a, &ret))
            return ret;
        return lessons_check_main(&a);
    }
    if (!cli_parse(&cmd_lessons, argc, argv, &a, &ret))
        return ret;
    return cli_usage_error("lessons", "unknown action \"%s\" (" LESSONS_ACTIONS ")", a.action);
}

const struct cli_command cmd_lessons_check = {
        .name = "lessons check",
        .pos = {.name = "[DIR]",
                .offset = offsetof(struct lessons_args, dir),
                .what = "lessons directory",
                .help = "the lessons directory (default lessons)"},
        .groups = {{lessons_opts, 0}},
        .run = lessons_main, /* reached through `lessons` */
};

const struct cli_command cmd_lessons = {
        .name = "lessons",
        .pos = CLI_POS_ACTION(struct lessons_args, action, LESSONS_ACTIONS),
        .groups = {{lessons_opts, 0}},
        .run = lessons_main,
};
