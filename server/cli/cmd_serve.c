/*
 * serve.c: `slublab serve`: the HTTP server (http.c) over the app (app.c).
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

#include "http/app.h"
#include "http/http.h"
#include "base/strbuf.h"

void cli_serve_usage(FILE *f)
{
    fputs("usage: slublab serve [--listen ADDR] [--port N] [--db FILE] [options]\n"
          "\n"
          "Serve the lab over HTTP: the JSON API under /api/ (docs/api.md) and the UI\n"
          "from web/.  Prints the URL it listens on, then runs until SIGINT or SIGTERM.\n"
          "\n"
          "  --listen ADDR          address to bind (default 127.0.0.1; 0.0.0.0 for a\n"
          "                         classroom network)\n"
          "  --port N               port (default 8080; 0 picks a free one)\n"
          "  --db FILE              SQLite database (default slublab.db; created as needed)\n"
          "  --web DIR              the UI's files (default web)\n"
          "  --vendor DIR           where chart.umd.js is (default node_modules/chart.js/dist)\n"
          "  --scenarios DIR        the shipped scenarios (default scenarios)\n"
          "  --max-sessions N       sessions kept in memory (default 64); idle ones are\n"
          "                         evicted and rebuilt from the database when needed\n"
          "  --session-memory MIB   memory per session, checkpoints included (default 128)\n"
          "  --max-ops N            engine operations per session (default 4000000)\n"
          "  --max-cpus N           machine.cpus allowed (default 64)\n"
          "  --max-nodes N          machine.nodes allowed (default 8)\n"
          "  --checkpoint-every N   events between checkpoints (default 256)\n"
          "  --workers N            threads running engine work (default 8)\n"
          "  --threads N            connection threads (default 2)\n"
          "  --timeout SECONDS      idle connections are closed after this (default 30)\n"
          "  --follow-ms N          least milliseconds between two updates to a follower\n"
          "                         (default 100)\n"
          "  --follow-rate N        follower updates a second over all followers, at most\n"
          "                         (default 400; 0: no limit)\n"
          "  --quiet                no messages from libmicrohttpd\n"
          "\n"
          "Exit status: 0 after a signal, 2 for usage errors or when it cannot start.\n",
          f);
}

struct serve_opt {
    const char *name;
    unsigned long long min, max;
    unsigned long long *value;
};

int cli_serve(int argc, char **argv)
{
    struct app_config cfg;
    struct strbuf err = STRBUF_INIT;
    struct http_server *srv = NULL;
    struct app app;
    unsigned long long port, max_live, memory, max_ops, cpus, nodes, every, workers, threads,
            timeout, follow_ms, follow_rate;
    const struct serve_opt nums[] = {
            {"--port", 0, 65535, &port},
            {"--max-sessions", 1, 100000, &max_live},
            {"--session-memory", 4, 1u << 20, &memory},
            {"--max-ops", 1, 1000000000, &max_ops},
            {"--max-cpus", 1, SIM_MAX_CPUS, &cpus},
            {"--max-nodes", 1, SIM_MAX_NODES, &nodes},
            {"--checkpoint-every", 1, 1u << 30, &every},
            {"--workers", 1, 256, &workers},
            {"--threads", 1, 64, &threads},
            {"--timeout", 1, 86400, &timeout},
            {"--follow-ms", 0, 60000, &follow_ms},
            {"--follow-rate", 0, 1000000, &follow_rate},
    };
    sigset_t sigs;
    const char *value;
    int i, m, sig, ret = CLI_USAGE;
    size_t k;

    if (argc > 1 && cli_is_help(argv[1])) {
        cli_serve_usage(stdout);
        return CLI_OK;
    }
    app_config_default(&cfg);
    port = cfg.port;
    max_live = cfg.max_live;
    memory = cfg.lim.memory >> 20;
    max_ops = cfg.lim.max_ops;
    cpus = cfg.lim.max_cpus;
    nodes = cfg.lim.max_nodes;
    every = cfg.lim.ckpt_events;
    workers = cfg.workers;
    threads = cfg.http_threads;
    timeout = cfg.timeout;
    follow_ms = cfg.follow_ms;
    follow_rate = cfg.follow_rate;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool done = false;

        if (!strcmp(arg, "--quiet")) {
            cfg.quiet = true;
            continue;
        }
        if ((m = cli_option(argc, argv, &i, "--listen", &value)) ||
            (m = cli_option(argc, argv, &i, "--db", &value)) ||
            (m = cli_option(argc, argv, &i, "--web", &value)) ||
            (m = cli_option(argc, argv, &i, "--vendor", &value)) ||
            (m = cli_option(argc, argv, &i, "--scenarios", &value))) {
            if (m < 0)
                return CLI_USAGE;
            if (!strncmp(arg, "--listen", 8))
                cfg.listen = value;
            else if (!strncmp(arg, "--db", 4))
                cfg.db = value;
            else if (!strncmp(arg, "--web", 5))
                cfg.web_dir = value;
            else if (!strncmp(arg, "--vendor", 8))
                cfg.vendor_dir = value;
            else
                cfg.scenario_dir = value;
            continue;
        }
        for (k = 0; k < sizeof(nums) / sizeof(nums[0]) && !done; k++) {
            uint64_t v;

            if ((m = cli_option(argc, argv, &i, nums[k].name, &value)) == 0)
                continue;
            if (m < 0)
                return CLI_USAGE;
            if (!cli_parse_u64(value, &v) || v < nums[k].min || v > nums[k].max)
                return cli_usage_error("serve", "%s wants an integer from %llu to %llu, not \"%s\"",
                                       nums[k].name, nums[k].min, nums[k].max, value);
            *nums[k].value = v;
            done = true;
        }
        if (!done)
            return cli_usage_error("serve", "unknown argument \"%s\"", arg);
    }
    cfg.port = (unsigned)port;
    cfg.max_live = (unsigned)max_live;
    cfg.lim.memory = (uint64_t)memory << 20;
    cfg.lim.max_ops = max_ops;
    cfg.lim.max_cpus = (unsigned)cpus;
    cfg.lim.max_nodes = (unsigned)nodes;
    cfg.lim.ckpt_events = every;
    cfg.workers = (unsigned)workers;
    cfg.http_threads = (unsigned)threads;
    cfg.timeout = (unsigned)timeout;
    cfg.follow_ms = (unsigned)follow_ms;
    cfg.follow_rate = (unsigned)follow_rate;

    /* Seeks copy and free machines all the time: keep freed memory instead of
     * handing it back to the kernel and faulting it in again (glibc). */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 64 << 20);

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
