/*
 * cmd_serve.c: `slublab serve`: the HTTP server (http.c) over the app (app.c).
 *
 * Reads the options, opens the store and the scenario catalogue, binds,
 * prints the URL on stdout (one line, flushed: scripts and tests read it,
 * port 0 included) and waits for SIGINT or SIGTERM.  Then it stops in
 * order: no new work, queued work finished, follower streams ended,
 * connections closed, live sessions' positions written to the store, the
 * store closed.  The signals are blocked in every thread and taken with
 * sigwait(), so no handler runs in the middle of anything.
 */
#include "cli/cli.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "http/app.h"
#include "http/http.h"

/* What the command line gives; anything not given keeps app_config_default()'s value. */
struct serve_args {
    const char *listen, *db, *web, *vendor, *scenarios, *lessons, *trusted_proxy, *public_url;
    struct cli_list allow_origin;
    struct cli_u64 port, max_sessions, session_memory, max_ops, max_cpus, max_nodes,
            checkpoint_every, stored_every, workers, threads, timeout, follow_ms, follow_rate,
            max_connections, max_per_ip, header_timeout, max_trace_text, max_trace_cpu, memory_mb,
            keep_days, quota, heavy_cpu, answer_rate, join_rate, keep_trace_days;
    bool quiet;
};

/* Where the server listens and what it serves. */
static const struct cli_opt serve_where_opts[] = {
        {CLI_TO(struct serve_args, listen), .name = "listen", .arg = "ADDR",
         .help = "address to bind (default 127.0.0.1; 0.0.0.0 for a classroom network)"},
        {CLI_TO(struct serve_args, port), .name = "port", .arg = "N", .max = 65535,
         .help = "port (default 8080; 0 picks a free one)"},
        {CLI_TO(struct serve_args, db), .name = "db", .arg = "FILE",
         .help = "SQLite database (default slublab.db; created as needed), or a postgresql:// URL"},
        {CLI_TO(struct serve_args, web), .name = "web", .arg = "DIR",
         .help = "the UI's files (default: web in the data directory, docs/cli.md)"},
        {CLI_TO(struct serve_args, vendor), .name = "vendor", .arg = "DIR",
         .help = "where chart.umd.js is (default: vendor in the data directory, or "
                 "node_modules/chart.js/dist in the source tree)"},
        {CLI_TO(struct serve_args, scenarios), .name = "scenarios", .arg = "DIR",
         .help = "the shipped scenarios (default: scenarios in the data directory)"},
        {CLI_TO(struct serve_args, lessons), .name = "lessons", .arg = "DIR",
         .help = "the lessons, and the exercises in DIR/exercises (docs/lessons.md; default "
                 "lessons beside the scenarios directory), read at start"},
        {CLI_TO(struct serve_args, public_url), .name = "public-url", .arg = "URL",
         .help = "the address students reach the lab at (http://HOST[:PORT]), for the follow "
                 "link the presenter shows; by default the address it listens on (on 0.0.0.0, "
                 "the first address of a network interface that is not loopback)"},
        {CLI_TO(struct serve_args, trusted_proxy), .name = "trusted-proxy", .arg = "ADDR",
         .help = "the reverse proxy in front: requests from ADDR are counted against the "
                 "address their X-Forwarded-For ends with (quotas)"},
        {CLI_TO(struct serve_args, keep_days), .name = "keep-days", .arg = "N", .max = 36500,
         .help = "delete sessions not changed for N days and snapshots older than N days (and "
                 "so the traces they hold), at start and hourly (default 0: keep everything)"},
        {CLI_TO(struct serve_args, keep_trace_days), .name = "keep-trace-days", .arg = "N",
         .max = 36500,
         .help = "delete the store's rows of trace replays that ended more than N days ago, at "
                 "start and every minute (default 7; 0: keep them)"},
        {CLI_TO(struct serve_args, allow_origin), .name = "allow-origin", .arg = "ORIGIN",
         .help = "also take changes from pages of ORIGIN (scheme://host[:port], repeatable): the "
                 "lab behind a proxy or a DNS name; by default only the addresses it listens on"},
        {0},
};

/* How much the server takes on. */
static const struct cli_opt serve_limit_opts[] = {
        {CLI_TO(struct serve_args, max_sessions), .name = "max-sessions", .arg = "N", .min = 1,
         .max = 100000,
         .help = "timelines kept in memory (default 64; sessions with the same inputs share "
                 "one); idle ones are evicted and rebuilt from the database when needed"},
        {CLI_TO(struct serve_args, memory_mb), .name = "memory-mb", .arg = "MIB", .min = 4,
         .max = 1u << 24,
         .help = "memory all live timelines may hold together, measured (default a quarter of "
                 "the machine's, at most 8192)"},
        {CLI_TO(struct serve_args, session_memory), .name = "session-memory", .arg = "MIB",
         .min = 4, .max = 1u << 20,
         .help = "the most one timeline may hold, checkpoints included (default 128)"},
        {CLI_TO(struct serve_args, max_ops), .name = "max-ops", .arg = "N", .min = 1,
         .max = 1000000000, .help = "engine operations per session (default 4000000)"},
        {CLI_TO(struct serve_args, max_cpus), .name = "max-cpus", .arg = "N", .min = 1,
         .max = SIM_MAX_CPUS, .help = "machine.cpus allowed (default 64)"},
        {CLI_TO(struct serve_args, max_nodes), .name = "max-nodes", .arg = "N", .min = 1,
         .max = SIM_MAX_NODES, .help = "machine.nodes allowed (default 8)"},
        {CLI_TO(struct serve_args, checkpoint_every), .name = "checkpoint-every", .arg = "N",
         .min = 1, .max = 1u << 30, .help = "events between checkpoints (default 256)"},
        {CLI_TO(struct serve_args, stored_every), .name = "stored-checkpoint-ops", .arg = "N",
         .max = 1ull << 40,
         .help = "operations between checkpoints kept in the store, at least (default 65536; "
                 "more when loading one costs more; 0: keep none there)"},
        {CLI_TO(struct serve_args, workers), .name = "workers", .arg = "N", .min = 1, .max = 256,
         .help = "threads running engine work (default 8)"},
        {CLI_TO(struct serve_args, threads), .name = "threads", .arg = "N", .min = 1, .max = 64,
         .help = "connection threads (default 2)"},
        {CLI_TO(struct serve_args, timeout), .name = "timeout", .arg = "SECONDS", .min = 1,
         .max = 86400, .help = "idle connections are closed after this (default 30)"},
        {CLI_TO(struct serve_args, max_connections), .name = "max-connections", .arg = "N",
         .min = 1, .max = 100000, .help = "open connections, at most (default 2000)"},
        {CLI_TO(struct serve_args, max_per_ip), .name = "max-per-ip", .arg = "N", .max = 100000,
         .help = "open connections from one client address, at most (default 1200: a hall "
                 "of 300 behind one NAT; 0: no limit)"},
        {CLI_TO(struct serve_args, header_timeout), .name = "header-timeout", .arg = "SECONDS",
         .max = 86400,
         .help = "a connection that waits this long for a request's headers is closed, "
                 "however slowly it sends (default 10; 0: never)"},
        {CLI_TO(struct serve_args, quota), .name = "quota", .arg = "N", .max = 10000000,
         .help = "sessions, snapshots and traces one client address may create in an hour "
                 "(default 2000, for a class behind one NAT; 0: no limit)"},
        {CLI_TO(struct serve_args, heavy_cpu), .name = "heavy-cpu", .arg = "SECONDS", .max = 86400,
         .help = "CPU time one client address may spend on heavy writes in a burst; it comes "
                 "back in 240 s (default 120, for a class behind one NAT; 0: no limit)"},
        {CLI_TO(struct serve_args, answer_rate), .name = "answer-rate", .arg = "N", .max = 1000000,
         .help = "answers to a lecture's questions one client address may send a second "
                 "(default 600: a hall of 300 behind one NAT; 0: no limit)"},
        {CLI_TO(struct serve_args, join_rate), .name = "join-rate", .arg = "N", .max = 1000000,
         .help = "followers one client address may join lectures with a minute (default 600: "
                 "a hall of 300 behind one NAT, twice; 0: no limit)"},
        {CLI_TO(struct serve_args, max_trace_text), .name = "max-trace-text", .arg = "MIB",
         .min = 1, .max = 1u << 20,
         .help = "text an uploaded trace may expand to once decompressed (default 4096)"},
        {CLI_TO(struct serve_args, max_trace_cpu), .name = "max-trace-cpu", .arg = "SECONDS",
         .min = 1, .max = 86400,
         .help = "CPU time one uploaded trace's replay may use (default 300)"},
        {CLI_TO(struct serve_args, follow_ms), .name = "follow-ms", .arg = "N", .max = 60000,
         .help = "least milliseconds between two updates to a follower (default 100)"},
        {CLI_TO(struct serve_args, follow_rate), .name = "follow-rate", .arg = "N", .max = 1000000,
         .help = "follower updates a second over all followers, at most (default 4000: a "
                 "hall of 300 at every --follow-ms; 0: no limit)"},
        {CLI_TO(struct serve_args, quiet), .name = "quiet",
         .help = "no messages from libmicrohttpd"},
        {0},
};

/* @v over *@dst when given (every option's range fits its field). */
static void serve_set(unsigned *dst, struct cli_u64 v)
{
    if (v.given)
        *dst = (unsigned)v.value;
}

/* @v << @shift over *@dst when given: a count, or with shift 20 bytes given in MiB. */
static void serve_set_u64(uint64_t *dst, struct cli_u64 v, unsigned shift)
{
    if (v.given)
        *dst = v.value << shift;
}

static void serve_set_str(const char **dst, const char *v)
{
    if (v)
        *dst = v;
}

/* Copy what @a gives over @cfg. */
static void serve_configure(const struct serve_args *a, struct app_config *cfg,
                            const char **origins)
{
    serve_set_str(&cfg->listen, a->listen);
    serve_set_str(&cfg->db, a->db);
    serve_set_str(&cfg->web_dir, a->web);
    serve_set_str(&cfg->vendor_dir, a->vendor);
    serve_set_str(&cfg->scenario_dir, a->scenarios);
    serve_set_str(&cfg->lessons_dir, a->lessons);
    serve_set_str(&cfg->trusted_proxy, a->trusted_proxy);
    serve_set_str(&cfg->public_url, a->public_url);
    serve_set(&cfg->port, a->port);
    serve_set(&cfg->max_live, a->max_sessions);
    serve_set(&cfg->quota, a->quota);
    serve_set(&cfg->heavy_cpu, a->heavy_cpu);
    serve_set(&cfg->answer_rate, a->answer_rate);
    serve_set(&cfg->join_rate, a->join_rate);
    serve_set(&cfg->keep_days, a->keep_days);
    serve_set(&cfg->keep_trace_days, a->keep_trace_days);
    serve_set_u64(&cfg->memory, a->memory_mb, 20);
    serve_set_u64(&cfg->lim.memory, a->session_memory, 20);
    serve_set_u64(&cfg->lim.max_ops, a->max_ops, 0);
    serve_set(&cfg->lim.max_cpus, a->max_cpus);
    serve_set(&cfg->lim.max_nodes, a->max_nodes);
    serve_set_u64(&cfg->lim.ckpt_events, a->checkpoint_every, 0);
    if (a->stored_every.given)
        cfg->lim.disk_min_ops = a->stored_every.value ? a->stored_every.value : UINT64_MAX;
    serve_set(&cfg->workers, a->workers);
    serve_set(&cfg->http_threads, a->threads);
    serve_set(&cfg->timeout, a->timeout);
    serve_set(&cfg->max_connections, a->max_connections);
    serve_set(&cfg->max_per_ip, a->max_per_ip);
    serve_set(&cfg->header_timeout, a->header_timeout);
    serve_set_u64(&cfg->max_trace_text, a->max_trace_text, 20);
    serve_set(&cfg->max_trace_cpu, a->max_trace_cpu);
    serve_set(&cfg->follow_ms, a->follow_ms);
    serve_set(&cfg->follow_rate, a->follow_rate);
    cfg->quiet |= a->quiet;
    for (int i = 0; i < a->allow_origin.n; i++)
        origins[i] = a->allow_origin.v[i];
    origins[a->allow_origin.n] = NULL;
    cfg->allow_origin = origins;
}

static int serve_main(int argc, char **argv)
{
    struct serve_args args = {0};
    const char *origins[CLI_LIST_MAX + 1];
    struct app_config cfg;
    struct strbuf err = STRBUF_INIT;
    struct http_server *srv = NULL;
    struct app app;
    sigset_t sigs;
    int sig, ret = CLI_USAGE;

    if (!cli_parse(&cmd_serve, argc, argv, &args, &ret))
        return ret;
    ret = CLI_USAGE;
    app_config_default(&cfg);
    serve_configure(&args, &cfg, origins);

    /* Seeks copy and free machines all the time: keep freed memory instead of
     * handing it back to the kernel and faulting it in again (glibc). */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    /* ... but in as many heaps as there are CPUs, not glibc's eight per CPU:
     * each worker thread would keep the freed memory of the biggest state it
     * rendered in a heap of its own (a server holding a session of 300,000
     * live objects peaked at 1374 MiB with the default and 976 MiB with two,
     * docs/benchmarks.md) */
    {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        mallopt(M_ARENA_MAX, cpus < 2 ? 2 : cpus > 64 ? 64 : (int)cpus);
    }

    /* every connection is a descriptor: allow as many as the hard limit */
    {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
        }
    }

    /* before any thread starts, so every thread inherits the mask */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (app_init(&app, &cfg, &err)) {
        fprintf(stderr, "slublab serve: %s\n", strbuf_str(&err));
        goto out_release;
    }
    if (http_start(&app, &srv, &err)) {
        fprintf(stderr, "slublab serve: %s\n", strbuf_str(&err));
        goto out_release;
    }
    printf("slublab serve: listening on %s\n", http_url(srv));
    fflush(stdout);
    do {
        if (sigwait(&sigs, &sig))
            sig = SIGTERM;
    } while (sig != SIGINT && sig != SIGTERM);
    if (!cfg.quiet)
        fprintf(stderr, "slublab serve: stopping\n");
    ret = CLI_OK;
out_release:
    http_stop(srv);
    app_release(&app);
    strbuf_release(&err);
    return ret;
}

const struct cli_command cmd_serve = {
        .name = "serve",
        .groups = {{serve_where_opts, 0}, {serve_limit_opts, 0}},
        .run = serve_main,
};
