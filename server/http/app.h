/*
 * app.h: what every request handler can reach: the configuration, the
 * store, the live sessions, the follow hub and the scenario catalogue.
 *
 * One struct app per server (and per fuzzer run).  app_init() opens the
 * store, reads the shipped scenarios (their texts go into the store too, so
 * a session keeps the text it was built from even if the file changes) and
 * the lessons and exercises (lesson.h), and creates the registry and the
 * follow hub; app_release() undoes it.  The
 * request handlers (routes_*.c) take it from struct request.
 */
#ifndef SLUBLAB_SERVER_HTTP_APP_H
#define SLUBLAB_SERVER_HTTP_APP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "scenario/lesson.h"
#include "session/session.h"
#include "session/store.h"

#define APP_JANITOR_SECONDS 3600 /* how often what is older than keep_days is deleted */
#define APP_TIDY_SECONDS    60   /* how often the trace jobs' rows are tidied (traces_tidy()) */

struct app;
struct registry;
struct follow_hub;
struct lectures;
struct quota;
struct limiter;
struct answers;
struct trace_jobs;
struct relay;

struct app_config {
    const char *listen;       /* address to bind, "127.0.0.1" */
    unsigned port;            /* 0: any free port */
    const char *db;           /* SQLite file, or ":memory:" */
    const char *web_dir;      /* the UI's files */
    const char *vendor_dir;   /* where chart.umd.js lives */
    const char *scenario_dir; /* the shipped scenarios */
    const char *lessons_dir;  /* lessons, exercises in its exercises/; NULL: lessons/ beside
                                 scenario_dir */
    unsigned answer_rate;     /* lecture answers a second per client address (0: any) */
    unsigned join_rate;       /* lecture joins a minute per client address (0: any) */
    unsigned max_live;        /* sessions kept in memory at once */
    uint64_t memory;          /* bytes all live sessions may hold (each up to lim.memory) */
    unsigned workers;         /* threads running engine work */
    unsigned http_threads;    /* libmicrohttpd's polling threads */
    unsigned timeout;         /* seconds an idle connection lives */
    unsigned max_connections;
    unsigned max_per_ip;      /* connections from one client address, at most (0: any) */
    unsigned header_timeout;  /* seconds a connection may wait for a request's headers (0: none) */
    unsigned max_queue;     /* engine requests waiting for a worker, at most */
    unsigned follow_ms;     /* least milliseconds between two updates to a follower */
    unsigned follow_rate;   /* follower updates a second over all followers, at most (0: any) */
    uint64_t search_budget; /* events one search request may replay */
    uint64_t max_trace_text; /* bytes of text an uploaded trace may expand to (0: TRACES_MAX_TEXT) */
    unsigned max_trace_cpu;  /* CPU seconds a trace's replay may use (0: TRACES_MAX_CPU) */
    unsigned keep_days;      /* sessions and snapshots older than this are deleted (0: kept) */
    unsigned keep_trace_days;  /* finished trace jobs' rows older than this are deleted (0: kept) */
    unsigned quota;            /* creations per client an hour (quota.h; 0: no limit) */
    unsigned heavy_cpu; /* CPU seconds of heavy writes in a client's burst (limit.h; 0: any) */
    const char *trusted_proxy; /* the reverse proxy whose X-Forwarded-For names the client */
    const char *public_url;    /* where students reach the lab (--public-url); NULL: guessed */
    struct session_limits lim;
    const char *const *allow_origin; /* NULL-terminated origins allowed to write (guard.h); may be NULL */
    /* Told of every change a trace job's reader may see (traces.c), on the
     * job's thread: NULL in the server; the lab without a server
     * (wasm/api.c), whose one thread runs the job, answers the page's
     * GET /api/traces/ID from it meanwhile. */
    void (*trace_changed)(struct app *app, const char *id);
    bool quiet; /* no request log, no libmicrohttpd messages */
};

struct catalog_entry {
    char *name, *title, *description; /* owned */
    char *text;                       /* the file, owned */
    size_t len;
    int64_t row; /* its scenarios row in the store */
};

struct app {
    struct app_config cfg;
    struct store *store;
    struct registry *reg;
    struct follow_hub *follow;
    struct lectures *lectures;       /* the presenters' lectures, in memory (lecture.h) */
    char public_url[160]; /* the follow links' base, "http://HOST:PORT": set once it listens */
    struct catalog_entry *scenarios; /* sorted by name */
    size_t nr_scenarios;
    atomic_bool stopping; /* shutting down: answer 503, start nothing */
    struct trace_jobs *traces; /* kernel trace uploads being replayed (traces.h) */
    pthread_mutex_t check_lock; /* one snapshot replayed for its check at a time */
    struct quota *quota;        /* creations per client (quota.h) */
    struct quota *joins;        /* lecture joins per client a minute (quota.h) */
    struct limiter *limiter;    /* CPU time of heavy writes per client (limit.h); NULL: no limit */
    char *lessons_dir;          /* where the lessons were read from; owned */
    struct lesson_set lessons;  /* read at start (lesson.h) */
    struct lesson_set exercises; /* from lessons_dir/exercises */
    struct answers *answers;     /* followers' answers to lecture questions (answers.h) */
    struct relay *relay;         /* moves not yet told to the other servers (relay.h) */
    /* the janitor: deletes what is older than cfg.keep_days, hourly, and
     * tidies the trace jobs' rows every APP_TIDY_SECONDS */
    pthread_t janitor;
    bool janitor_running;
    pthread_mutex_t janitor_lock;
    pthread_cond_t janitor_wake;
};

/* The defaults of `slublab serve`. */
void app_config_default(struct app_config *cfg);
/* Open everything.  0, or a negative errno with the reason in @err; then app_release(). */
int app_init(struct app *app, const struct app_config *cfg, struct strbuf *err);
/* Close everything; a zeroed app is fine. */
void app_release(struct app *app);
/* The shipped scenario named @name, or NULL. */
const struct catalog_entry *app_scenario(const struct app *app, const char *name);

#endif /* SLUBLAB_SERVER_HTTP_APP_H */
