/*
 * replay_trace.c: `slublab bench replay-trace`: kernel kmem trace events
 * replayed per second with the event callback off.
 *
 * The trace (the shared 34 k-event sample by default) is read into memory
 * once, as gzip bytes and as text; each round then replays it from memory
 * enough times for a stable time (about 1 s of work at scale 1), each
 * time on a fresh machine, so disk and page cache stay out of it.  Three
 * rows in the same run: parse only (the line parser, no engine), text
 * (parse + replay) and gzip (inflate + parse + replay).  Besides events
 * per second of wall time it gives events per second of the thread's CPU
 * time, which other jobs on a shared machine disturb much less.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "ktrace/ktrace_replay.h"

#define DEFAULT_TRACE  "tests/data/kmem-trace-sample.txt.gz"
#define FALLBACK_TRACE "tests/data/kmem-trace-slice.txt.gz"
#define TARGET_EVENTS  1000000ul /* per round at scale 1 */

struct blob_buf {
    char *p;
    size_t n, cap;
};

static bool append(struct blob_buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2;
        char *p = realloc(b->p, cap);

        if (!p)
            return false;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
    return true;
}

/* The raw file and its text.  0 or -1. */
static int load(const char *path, struct blob_buf *raw, struct blob_buf *text)
{
    FILE *f = fopen(path, "rb");
    struct ktrace_reader *r;
    struct strbuf err = STRBUF_INIT;
    char buf[65536];
    size_t n;
    const char *line;
    int got;

    if (!f)
        return -1;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        if (!append(raw, buf, n)) {
            fclose(f);
            return -1;
        }
    fclose(f);
    if (ktrace_open_mem(raw->p, raw->n, &r))
        return -1;
    while ((got = ktrace_next_line(r, &line, &n)) > 0)
        if (!append(text, line, n) || !append(text, "\n", 1))
            break;
    ktrace_close(r);
    strbuf_release(&err);
    return got == 0 ? 0 : -1;
}

static uint64_t cpu_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Events per second (wall; *cpu_rate: per CPU second) over @reps replays of @buf, or -1. */
static double replay_rate(const struct blob_buf *buf, unsigned long reps, bool parse_only,
                          unsigned cpus, double *cpu_rate)
{
    uint64_t events = 0, t0 = bench_now_ns(), c0 = cpu_now_ns(), t1, c1;

    for (unsigned long i = 0; i < reps; i++) {
        struct ktrace_reader *r;

        if (ktrace_open_mem(buf->p, buf->n, &r))
            return -1;
        if (parse_only) {
            const char *line;
            size_t len;
            struct ktrace_event ev;

            while (ktrace_next_line(r, &line, &len) > 0) {
                enum ktrace_kind k = ktrace_parse_line(line, len, &ev);

                events += k >= KTRACE_ALLOC && k <= KTRACE_KFREE;
            }
        } else {
            struct ktrace_opts o = {.cpus = cpus};
            struct ktrace_replay kr;
            struct strbuf err = STRBUF_INIT;
            int ret = ktrace_replay_run(&kr, r, &o, &err);

            events += ktrace_replay_events(&kr);
            ktrace_replay_release(&kr);
            strbuf_release(&err);
            if (ret) {
                ktrace_close(r);
                return -1;
            }
        }
        ktrace_close(r);
    }
    t1 = bench_now_ns();
    c1 = cpu_now_ns();
    *cpu_rate = (double)events * 1e9 / (double)(c1 - c0);
    return (double)events * 1e9 / (double)(t1 - t0);
}

int bench_replay_trace(const struct bench_opts *o)
{
    static const char *const rows[3] = {"parse_only", "text", "gzip"};
    const char *path = o->trace                           ? o->trace
                       : access(DEFAULT_TRACE, R_OK) == 0 ? DEFAULT_TRACE
                                                          : FALLBACK_TRACE;
    struct blob_buf raw = {0}, text = {0};
    double *v[3], *c[3], med[3], cmed[3];
    unsigned long events = 0, reps;
    unsigned cpus = 0;
    int status = CLI_OK;

    if (load(path, &raw, &text)) {
        free(raw.p);
        free(text.p);
        return cli_usage_error("bench", "replay-trace: cannot read %s", path);
    }
    { /* one untimed replay: the event count and the CPUs */
        struct ktrace_reader *r;
        struct ktrace_opts ko = {0};
        struct ktrace_replay kr;
        struct strbuf err = STRBUF_INIT;

        if (ktrace_open_mem(text.p, text.n, &r) || ktrace_replay_run(&kr, r, &ko, &err))
            status = cli_usage_error("bench", "replay-trace: %s does not replay", path);
        events = ktrace_replay_events(&kr);
        cpus = kr.cfg.nr_cpus;
        ktrace_replay_release(&kr);
        ktrace_close(r);
        strbuf_release(&err);
    }
    if (status || !events) {
        free(raw.p);
        free(text.p);
        return status ? status : cli_usage_error("bench", "replay-trace: no kmem events");
    }
    reps = (unsigned long)((double)TARGET_EVENTS * o->scale) / events + 1;
    for (int k = 0; k < 3; k++) {
        v[k] = calloc(o->rounds, sizeof(double));
        c[k] = calloc(o->rounds, sizeof(double));
    }
    for (unsigned r = 0; r < o->rounds && v[0] && v[1] && v[2] && c[0] && c[1] && c[2];
         r++) { /* interleaved */
        v[0][r] = replay_rate(&text, reps, true, cpus, &c[0][r]);
        v[1][r] = replay_rate(&text, reps, false, cpus, &c[1][r]);
        v[2][r] = replay_rate(&raw, reps, false, cpus, &c[2][r]);
        if (v[0][r] < 0 || v[1][r] < 0 || v[2][r] < 0) {
            status = cli_usage_error("bench", "replay-trace: a replay failed");
            break;
        }
    }
    if (!v[0] || !v[1] || !v[2] || !c[0] || !c[1] || !c[2])
        status = cli_usage_error("bench", "out of memory");
    if (!status) {
        for (int k = 0; k < 3; k++) {
            med[k] = bench_median(v[k], o->rounds);
            cmed[k] = bench_median(c[k], o->rounds);
        }
        if (o->json) {
            printf("{\"trace\":\"%s\",\"events\":%lu,\"replays_per_round\":%lu,\"rows\":[", path,
                   events, reps);
            for (int k = 0; k < 3; k++)
                printf("%s{\"input\":\"%s\",\"events_per_sec\":%.0f,\"events_per_cpu_sec\":%.0f}",
                       k ? "," : "", rows[k], med[k], cmed[k]);
            printf("]}\n");
        } else {
            printf("trace %s: %lu kmem events, replayed %lu times per round\n", path, events, reps);
            printf("%-12s %16s %12s %16s %12s\n", "input", "events/s", "vs target", "events/cpu-s",
                   "vs target");
            for (int k = 0; k < 3; k++)
                printf("%-12s %16.0f %12.2f %16.0f %12.2f\n", rows[k], med[k], med[k] / 1e6,
                       cmed[k], cmed[k] / 1e6);
        }
    }
    for (int k = 0; k < 3; k++) {
        free(v[k]);
        free(c[k]);
    }
    free(raw.p);
    free(text.p);
    return status;
}
