/*
 * app.c: the server's shared state (see app.h): defaults, start-up and
 * shut-down, and the catalogue of shipped scenarios.
 *
 * The catalogue is read once at start-up from the scenario directory: each
 * *.json file that parses is listed under its "name", and its text is put
 * in the store so that sessions refer to a row, never to a file that may
 * change later.  A file that does not parse is reported on stderr and left
 * out; the server still starts.
 */
#include "http/app.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/datadir.h"
#include "http/answers.h"
#include "http/follow.h"
#include "http/lecture.h"
#include "http/limit.h"
#include "http/quota.h"
#include "http/relay.h"
#include "http/traces.h"
#include "scenario/scenario.h"
#include "session/registry.h"

void app_config_default(struct app_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->listen = "127.0.0.1";
    cfg->port = 8080;
    cfg->db = "slublab.db";
    /* the installed data directory, else the source tree (base/datadir.h) */
    cfg->web_dir = datadir_get()->web;
    cfg->vendor_dir = datadir_get()->vendor;
    cfg->scenario_dir = datadir_get()->scenarios;
    /* runs in memory at most: the memory budget below evicts first unless
     * runs are tiny (a class on its own seeds holds about 2 MB a run) */
    cfg->max_live = 1024;
    /* a quarter of the machine's memory for sessions, at most 8 GiB */
    {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        uint64_t total = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;

        cfg->memory = total ? total / 4 : 2ull << 30;
        if (cfg->memory > 8ull << 30)
            cfg->memory = 8ull << 30;
    }
    cfg->workers = 8;
    cfg->http_threads = 2;
    cfg->timeout = 30;
    cfg->max_connections = 2000;
    /* a hall of 300 behind one NAT: each follower's stream and its page's
     * fetches, with room for the presenter and a reload (docs/cli.md) */
    cfg->max_per_ip = 1200;
    cfg->header_timeout = 10;
    cfg->quota = 2000;
    cfg->heavy_cpu = LIMIT_HEAVY_CPU;
    cfg->keep_trace_days = TRACES_KEEP_DAYS;
    cfg->answer_rate = 600; /* the hall's 300 tokens at ANSWERS_FOLLOWER_RATE each */
    cfg->join_rate = 600;   /* the hall joining twice in a minute */
    cfg->max_queue = 1024;
    cfg->follow_ms = 100;
    cfg->follow_rate = 4000; /* the hall's 300 followers, each every follow_ms, and a third more */
    cfg->search_budget = 4000000;
    session_limits_default(&cfg->lim);
}

static int catalog_cmp(const void *a, const void *b)
{
    return strcmp(((const struct catalog_entry *)a)->name, ((const struct catalog_entry *)b)->name);
}

static char *app_strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *p = malloc(len);

    if (p)
        memcpy(p, s, len);
    return p;
}

/* Read @path whole; NULL when it cannot be read or is too large. */
static char *app_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && size <= (long)SCENARIO_MAX_BYTES &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1))) {
        *len = fread(buf, 1, (size_t)size, f);
        buf[*len] = '\0';
        if (*len != (size_t)size) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

/* Add one scenario file to the catalogue; false only on host OOM. */
static bool app_catalog_add(struct app *app, const char *path, size_t *cap)
{
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    struct catalog_entry *e;
    size_t len;
    char *text = app_read_file(path, &len);
    bool ok = true;

    if (!text || scenario_parse(text, len, path, &scn, &err)) {
        fprintf(stderr, "slublab serve: skipping %s: %s\n", path,
                text ? strbuf_str(&err) : "cannot read it");
        goto out_free;
    }
    if (app_scenario(app, scn->name)) {
        fprintf(stderr, "slublab serve: skipping %s: a scenario named \"%s\" is already listed\n",
                path, scn->name);
        goto out_free;
    }
    if (app->nr_scenarios == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;

        e = realloc(app->scenarios, ncap * sizeof(*e));
        if (!e) {
            ok = false;
            goto out_free;
        }
        app->scenarios = e;
        *cap = ncap;
    }
    e = &app->scenarios[app->nr_scenarios];
    memset(e, 0, sizeof(*e));
    e->name = app_strdup(scn->name);
    e->title = app_strdup(scn->title);
    e->description = app_strdup(scn->description);
    if (!e->name || !e->title || !e->description ||
        store_scenario_put(app->store, scn->name, text, len, true, &e->row)) {
        free(e->name);
        free(e->title);
        free(e->description);
        ok = false;
        goto out_free;
    }
    e->text = text;
    e->len = len;
    text = NULL;
    app->nr_scenarios++;
    /* kept sorted as it grows, so app_scenario() can bsearch */
    qsort(app->scenarios, app->nr_scenarios, sizeof(*app->scenarios), catalog_cmp);
out_free:
    free(text);
    scenario_release(scn);
    strbuf_release(&err);
    return ok;
}

static int app_load_catalog(struct app *app, struct strbuf *err)
{
    DIR *d = opendir(app->cfg.scenario_dir);
    struct dirent *de;
    char path[4096];
    size_t cap = 0;

    if (!d) {
        fprintf(stderr, "slublab serve: no scenarios: %s: %s\n", app->cfg.scenario_dir,
                strerror(errno));
        return 0;
    }
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);

        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", app->cfg.scenario_dir, de->d_name);
        if (!app_catalog_add(app, path, &cap)) {
            closedir(d);
            strbuf_puts(err, "out of memory reading the scenarios");
            return -ENOMEM;
        }
    }
    closedir(d);
    return 0;
}

/* The lessons directory: cfg.lessons_dir, else lessons/ beside the scenarios. */
static char *app_lessons_dir(const struct app_config *cfg)
{
    const char *sd = cfg->scenario_dir, *slash;
    size_t len = strlen(sd), cut;
    char *p;

    if (cfg->lessons_dir)
        return app_strdup(cfg->lessons_dir);
    while (len > 1 && sd[len - 1] == '/')
        len--;
    for (slash = NULL, cut = 0; cut < len; cut++)
        if (sd[cut] == '/')
            slash = sd + cut;
    cut = slash ? (size_t)(slash - sd) + 1 : 0; /* keeps the '/' */
    if (!(p = malloc(cut + sizeof("lessons"))))
        return NULL;
    memcpy(p, sd, cut);
    memcpy(p + cut, "lessons", sizeof("lessons"));
    return p;
}

/* Report the files of @set that are not served, on stderr. */
static void app_lessons_report(const struct lesson_set *set, const char *dir)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].error)
            fprintf(stderr, "slublab serve: skipping %s: %s\n",
                    set->v[i].path ? set->v[i].path : set->v[i].id, set->v[i].error);
    if (set->skipped)
        fprintf(stderr,
                "slublab serve: skipping %zu file%s of %s whose names are not ids "
                "([a-z0-9][a-z0-9_-]*.json)\n",
                set->skipped, set->skipped == 1 ? "" : "s", dir);
}

/* Read the lessons and the exercises.  0 or -ENOMEM. */
static int app_load_lessons(struct app *app)
{
    char *ex;
    size_t len;
    int ret;

    if (!(app->lessons_dir = app_lessons_dir(&app->cfg)))
        return -ENOMEM;
    len = strlen(app->lessons_dir);
    if (!(ex = malloc(len + sizeof("/exercises"))))
        return -ENOMEM;
    memcpy(ex, app->lessons_dir, len);
    memcpy(ex + len, "/exercises", sizeof("/exercises"));
    ret = lesson_set_load(&app->lessons, app->lessons_dir, LESSON_LESSON);
    if (!ret)
        ret = lesson_set_load(&app->exercises, ex, LESSON_EXERCISE);
    if (!ret) {
        app_lessons_report(&app->lessons, app->lessons_dir);
        app_lessons_report(&app->exercises, ex);
    }
    free(ex);
    return ret;
}

/* Delete the sessions and snapshots older than cfg.keep_days.  Cannot fail
 * (a store error is said on stderr and tried again next time). */
static void app_expire(struct app *app)
{
    uint64_t sessions = 0, snapshots = 0;

    if (registry_expire(app->reg, app->cfg.keep_days, &sessions) ||
        store_snapshots_expire(app->store, app->cfg.keep_days, &snapshots))
        fprintf(stderr, "slublab serve: deleting what is older than %u days failed\n",
                app->cfg.keep_days);
    if ((sessions || snapshots) && !app->cfg.quiet)
        fprintf(stderr, "slublab serve: deleted %llu sessions and %llu snapshots older than %u days\n",
                (unsigned long long)sessions, (unsigned long long)snapshots, app->cfg.keep_days);
}

/* Every APP_TIDY_SECONDS: the trace jobs' rows, the moves the relay could
 * not send, a shared store's old answers.  Cannot fail (said on stderr). */
static void app_tidy(struct app *app)
{
    uint64_t n;

    traces_tidy(app, app->cfg.keep_trace_days);
    relay_flush(app);
    if (store_shared(app->store) && store_answers_expire(app->store, ANSWERS_STORE_SECONDS, &n))
        fprintf(stderr, "slublab serve: deleting old answers failed\n");
}

static void *app_janitor(void *arg)
{
    struct app *app = arg;
    unsigned since_expire = 0;

    pthread_mutex_lock(&app->janitor_lock);
    while (!atomic_load(&app->stopping)) {
        struct timespec until;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += APP_TIDY_SECONDS;
        if (pthread_cond_timedwait(&app->janitor_wake, &app->janitor_lock, &until) == 0)
            continue; /* woken: look at stopping */
        pthread_mutex_unlock(&app->janitor_lock);
        app_tidy(app);
        since_expire += APP_TIDY_SECONDS;
        if (app->cfg.keep_days && since_expire >= APP_JANITOR_SECONDS) {
            since_expire = 0;
            app_expire(app);
        }
        pthread_mutex_lock(&app->janitor_lock);
    }
    pthread_mutex_unlock(&app->janitor_lock);
    return NULL;
}

int app_init(struct app *app, const struct app_config *cfg, struct strbuf *err)
{
    int ret;

    memset(app, 0, sizeof(*app));
    app->cfg = *cfg;
    atomic_init(&app->stopping, false);
    pthread_mutex_init(&app->check_lock, NULL);
    pthread_mutex_init(&app->janitor_lock, NULL);
    pthread_cond_init(&app->janitor_wake, NULL);
    if ((ret = store_open(cfg->db, &app->store, err)))
        return ret;
    if ((ret = app_load_catalog(app, err)))
        return ret;
    if ((ret = app_load_lessons(app))) {
        strbuf_puts(err, "out of memory reading the lessons");
        return ret;
    }
    /* one timeline may take the whole budget, not more */
    if (app->cfg.memory && app->cfg.lim.memory > app->cfg.memory)
        app->cfg.lim.memory = app->cfg.memory;
    if ((ret = registry_new(app->store, &app->cfg.lim, cfg->max_live, cfg->memory, &app->reg))) {
        strbuf_puts(err, "out of memory");
        return ret;
    }
    if ((ret = follow_hub_new(cfg->follow_ms, cfg->follow_rate, &app->follow))) {
        strbuf_puts(err, "cannot start the follow thread");
        return ret;
    }
    if ((ret = lectures_new(app->store, &app->lectures))) {
        strbuf_puts(err, "out of memory");
        return ret;
    }
    if ((ret = traces_new(&app->traces)) || (ret = quota_new(cfg->quota, &app->quota)) ||
        (cfg->join_rate && (ret = quota_new_window(cfg->join_rate, 60, &app->joins))) ||
        (ret = limiter_new(cfg->heavy_cpu, &app->limiter)) ||
        (ret = answers_new(cfg->answer_rate, &app->answers))) {
        strbuf_puts(err, "out of memory");
        return ret;
    }
    /* what it hears reaches the hub, the lectures and the trace jobs */
    if ((ret = relay_start(app))) {
        strbuf_puts(err, "cannot listen to the other servers sharing the store");
        return ret;
    }
    /* before the first request: nothing older is served */
    if (cfg->keep_days)
        app_expire(app);
    app_tidy(app);
    if (cfg->keep_days || cfg->keep_trace_days || store_shared(app->store)) {
        if (pthread_create(&app->janitor, NULL, app_janitor, app)) {
            strbuf_puts(err, "cannot start the janitor thread");
            return -EAGAIN;
        }
        app->janitor_running = true;
    }
    return 0;
}

void app_release(struct app *app)
{
    size_t i;

    if (app->janitor_running) { /* it tidies the trace jobs and flushes the relay */
        atomic_store(&app->stopping, true);
        pthread_mutex_lock(&app->janitor_lock);
        pthread_cond_signal(&app->janitor_wake);
        pthread_mutex_unlock(&app->janitor_lock);
        pthread_join(app->janitor, NULL);
    }
    relay_stop(app);          /* its thread publishes to the hub, the lectures and the trace jobs */
    traces_free(app->traces); /* its jobs register sessions: before the registry */
    follow_hub_free(app->follow);
    lectures_free(app->lectures);
    registry_free(app->reg);
    quota_free(app->quota);
    quota_free(app->joins);
    limiter_free(app->limiter);
    answers_free(app->answers);
    lesson_set_release(&app->lessons);
    lesson_set_release(&app->exercises);
    free(app->lessons_dir);
    for (i = 0; i < app->nr_scenarios; i++) {
        free(app->scenarios[i].name);
        free(app->scenarios[i].title);
        free(app->scenarios[i].description);
        free(app->scenarios[i].text);
    }
    free(app->scenarios);
    store_close(app->store);
    pthread_mutex_destroy(&app->check_lock); /* a zeroed one is a valid, unlocked mutex */
    pthread_mutex_destroy(&app->janitor_lock);
    pthread_cond_destroy(&app->janitor_wake);
    memset(app, 0, sizeof(*app));
}

const struct catalog_entry *app_scenario(const struct app *app, const char *name)
{
    struct catalog_entry key;

    if (!app->nr_scenarios)
        return NULL;
    memset(&key, 0, sizeof(key));
    key.name = (char *)(uintptr_t)name;
    return bsearch(&key, app->scenarios, app->nr_scenarios, sizeof(key), catalog_cmp);
}
