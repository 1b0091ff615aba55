/*
 * traces.c: kernel trace uploads and their replay jobs (see traces.h).
 *
 * A job owns its temporary file from the handler on and removes it when
 * its thread ends.  Its life: "replaying" (the trace is read and replayed;
 * progress is the share of the file consumed; the operations the engine
 * carried out go to the store as an op log as they are replayed, never
 * whole in memory: ktrace_session.h), "building" (a session whose batch 0
 * replays that log is built, as POST /api/sessions builds one, so the
 * session's limits apply; its progress is the operations the session has
 * applied out of those logged, which the session reports every
 * SESSION_PROGRESS_EVERY operations), then "done"
 * with the session's id and token, or "failed" with an error code and
 * message.  Every field a reader sees is written under the table's lock;
 * the thread works on its own copies in between.  traces_free() sets the
 * cancel flag the replay polls, then joins every thread.
 *
 * When other servers share the store, the job's state is also a row there
 * (store_trace_job_put()): written before the 202, at every change of
 * state, and with its progress at most every TRACES_STORE_EVERY_NS, so GET
 * /api/traces/ID on any server answers the same document (a server that
 * does not run the job reads the row).  The row keeps the SHA-256 of the
 * upload's token, never the token: a server that does not run the job
 * checks a DELETE's token against it, sets the row's cancel flag and tells
 * the other servers ("t ID", relay.h).  The server running the job then
 * forgets it (job_forget()) when it hears that, or when its next write of
 * the row returns the flag, whichever comes first.
 */
#include "http/traces.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/ids.h"
#include "base/locked.h"
#include "base/sha256.h"
#include "http/app.h"
#include "http/http.h"
#include "http/relay.h"
#include "http/routes.h"
#include "kfiles/slabinfo_read.h"
#include "ktrace/ktrace_replay.h"
#include "present/json_state.h"
#include "present/ktrace_report.h"
#include "scenario/kernel.h"
#include "session/ktrace_session.h"
#include "session/registry.h"
#include "session/store.h"

enum job_state { JOB_REPLAYING, JOB_BUILDING, JOB_DONE, JOB_FAILED };

static const char *const state_names[] = {"replaying", "building", "done", "failed"};
/* What a running job is doing, as the UI labels it. */
static const char *const phase_names[] = {"replaying the trace", "building the session"};

struct trace_job {
    char id[TRACES_ID_LEN + 1];
    struct trace_jobs *tj;
    struct app *app;
    char path[256]; /* the uploaded trace; removed by the thread */
    uint64_t bytes; /* its size */
    unsigned cpus;  /* ?cpus=, 0: from the trace */
    uint64_t slabinfo; /* ?slabinfo=N: the body's first N bytes are the machine's /proc/slabinfo */
    char model[64]; /* ?model=, as sim_model_format() writes it; "": none */
    char kernel[32]; /* ?kernel=; "": the trace's "# kernel:" line, else the default */
    pthread_t thread;
    volatile bool cancel; /* set by traces_free() and by the uploader's DELETE */
    bool cpu_over;        /* the replay passed its CPU time (job_progress() set cancel) */
    char owner[SESSION_TOKEN_LEN + 1]; /* the uploader's token (DELETE needs it) */
    char owner_hash[SHA256_HEX_LEN + 1]; /* its SHA-256, as the store's row keeps it */
    /* under tj->lock */
    enum job_state state;
    uint64_t done, total; /* input consumed and its size */
    uint64_t events;
    uint64_t built, recorded; /* building: operations the session applied, of those recorded */
    char session[SESSION_ID_LEN + 1], token[SESSION_TOKEN_LEN + 1];
    char *report;     /* owned */
    const char *code; /* failed: an error code of routes.h */
    char message[300];
    uint64_t stored_ns; /* when its row was last written to a shared store (job_store()) */
    uint64_t age;  /* creation order */
    bool deleted;  /* the uploader deleted it: 404 from now on, freed when its thread ends */
};

struct trace_jobs {
    pthread_mutex_t lock;
    struct trace_job *jobs[TRACES_MAX_KEPT]; /* NULL: free slot */
    unsigned running;
    unsigned reserved; /* places held by uploads still arriving */
    uint64_t clock;
};

/* ---- uploads ---- */

bool traces_is_upload(const char *method, const char *url)
{
    return method && url && !strcmp(method, "POST") && !strcmp(url, "/api/traces");
}

int traces_upload_begin(struct trace_jobs *tj, struct trace_upload **out)
{
    struct trace_upload *up = calloc(1, sizeof(*up));
    const char *dir = getenv("TMPDIR");
    bool place;

    if (!up)
        return -ENOMEM;
    pthread_mutex_lock(&tj->lock);
    place = tj->running + tj->reserved < TRACES_MAX_RUNNING;
    if (place)
        tj->reserved++;
    pthread_mutex_unlock(&tj->lock);
    if (!place) {
        free(up);
        return -EBUSY;
    }
    up->tj = tj;
    up->holds_place = true;
    snprintf(up->path, sizeof(up->path), "%s/slublab-trace-XXXXXX",
             dir && dir[0] && strlen(dir) < 200 ? dir : "/tmp");
    up->fd = mkstemp(up->path);
    if (up->fd < 0) {
        int e = errno;

        up->path[0] = 0;
        traces_upload_free(up);
        return -e;
    }
    *out = up;
    return 0;
}

void traces_upload_write(struct trace_upload *up, const char *data, size_t n)
{
    if (up->too_large || up->len + n > TRACES_MAX_BYTES) {
        up->too_large = true;
        up->len += n;
        return;
    }
    up->len += n;
    while (n && !up->error) {
        ssize_t w = write(up->fd, data, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            up->error = w < 0 ? -errno : -EIO;
            break;
        }
        data += w;
        n -= (size_t)w;
    }
}

void traces_upload_free(struct trace_upload *up)
{
    if (!up)
        return;
    if (up->holds_place) {
        pthread_mutex_lock(&up->tj->lock);
        up->tj->reserved--;
        pthread_mutex_unlock(&up->tj->lock);
    }
    if (up->fd >= 0)
        close(up->fd);
    if (up->path[0])
        unlink(up->path);
    free(up);
}

/* ---- the job table ---- */

int traces_new(struct trace_jobs **out)
{
    struct trace_jobs *tj = locked_zalloc(sizeof(*tj), offsetof(struct trace_jobs, lock));

    if (!tj)
        return -ENOMEM;
    *out = tj;
    return 0;
}

static void job_free(struct trace_job *j)
{
    if (!j)
        return;
    if (j->path[0])
        unlink(j->path);
    free(j->report);
    free(j);
}

void traces_free(struct trace_jobs *tj)
{
    if (!tj)
        return;
    pthread_mutex_lock(&tj->lock);
    for (size_t i = 0; i < TRACES_MAX_KEPT; i++)
        if (tj->jobs[i])
            tj->jobs[i]->cancel = true;
    pthread_mutex_unlock(&tj->lock);
    for (size_t i = 0; i < TRACES_MAX_KEPT; i++) {
        if (!tj->jobs[i])
            continue;
        pthread_join(tj->jobs[i]->thread, NULL); /* every kept job's thread is joinable */
        job_free(tj->jobs[i]);
    }
    locked_free(tj, offsetof(struct trace_jobs, lock));
}

/* ---- the job's row, for the other servers sharing the store ---- */

/* Under tj->lock: @j as GET /api/traces/ID shows it and the store keeps it.
 * row->report points into @j. */
static void job_row(const struct trace_job *j, struct store_trace_job *row)
{
    memset(row, 0, sizeof(*row));
    snprintf(row->id, sizeof(row->id), "%s", j->id);
    snprintf(row->state, sizeof(row->state), "%s", state_names[j->state]);
    row->bytes = j->bytes;
    row->done = j->done;
    row->total = j->total;
    row->events = j->events;
    row->built = j->built;
    row->recorded = j->recorded;
    if (j->state == JOB_DONE) {
        snprintf(row->session, sizeof(row->session), "%s", j->session);
        snprintf(row->token, sizeof(row->token), "%s", j->token);
    }
    if (j->state == JOB_FAILED) {
        snprintf(row->code, sizeof(row->code), "%s", j->code);
        snprintf(row->message, sizeof(row->message), "%s", j->message);
    }
    row->report = j->report;
    memcpy(row->owner, j->owner_hash, sizeof(row->owner));
}

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Under tj->lock: the uploader deleted @j (here, or through another server
 * sharing the store): a running replay or build stops, GET answers 404 from
 * now on, and its row goes.  The session a finished job made is the
 * caller's to delete.
 */
static void job_forget(struct trace_job *j)
{
    int err;

    j->deleted = true;
    j->cancel = true;
    if (store_shared(j->app->store) && (err = store_trace_job_delete(j->app->store, j->id)) &&
        err != -ENOENT)
        fprintf(stderr, "slublab serve: trace %s: its row stays in the store\n", j->id);
}

/*
 * On the job's thread: write @j's row when other servers share the store,
 * at once when @now (a change of state), else at most every
 * TRACES_STORE_EVERY_NS; never once the uploader deleted it.  The write is
 * done under the table's lock (then the store's), so a DELETE, which
 * removes the row under the same lock, cannot be overtaken by an older
 * write.  A failed write is logged: the job goes on.
 */
static void job_store(struct trace_job *j, bool now)
{
    struct store *st = j->app->store;
    struct store_trace_job row;
    bool cancel = false;
    uint64_t t;

    if (j->app->cfg.trace_changed)
        j->app->cfg.trace_changed(j->app, j->id);
    if (!store_shared(st))
        return;
    t = mono_ns();
    pthread_mutex_lock(&j->tj->lock);
    if (!j->deleted && (now || t - j->stored_ns >= TRACES_STORE_EVERY_NS)) {
        j->stored_ns = t;
        job_row(j, &row);
        if (store_trace_job_put(st, &row, &cancel))
            fprintf(stderr, "slublab serve: trace %s: its progress was not stored\n", j->id);
        else if (cancel) /* deleted through another server, whose message did not come */
            job_forget(j);
    }
    pthread_mutex_unlock(&j->tj->lock);
}

/* ---- the job thread ---- */

static void job_progress(uint64_t done, uint64_t total, void *arg)
{
    struct trace_job *j = arg;

    unsigned max_cpu = j->app->cfg.max_trace_cpu ? j->app->cfg.max_trace_cpu : TRACES_MAX_CPU;
    struct timespec cpu;

    pthread_mutex_lock(&j->tj->lock);
    j->done = done;
    j->total = total;
    pthread_mutex_unlock(&j->tj->lock);
    job_store(j, false);
    /* the replay runs on this thread: its CPU time is the thread's */
    if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) && cpu.tv_sec >= (time_t)max_cpu) {
        j->cpu_over = true;
        j->cancel = true;
    }
}

static void job_fail(struct trace_job *j, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static void job_fail(struct trace_job *j, const char *code, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&j->tj->lock);
    j->state = JOB_FAILED;
    j->code = code;
    va_start(ap, fmt);
    vsnprintf(j->message, sizeof(j->message), fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&j->tj->lock);
    job_store(j, true);
}

static void job_build_progress(uint64_t ops, void *arg)
{
    struct trace_job *j = arg;

    pthread_mutex_lock(&j->tj->lock);
    j->built = ops < j->recorded ? ops : j->recorded;
    pthread_mutex_unlock(&j->tj->lock);
    job_store(j, false);
}

/* Build, store and register the session of @text replaying log @log.  0 or an errno, @err set. */
static int job_session(struct trace_job *j, const char *text, const char *log, struct strbuf *err)
{
    struct app *app = j->app;
    struct session *s = session_new(&app->cfg.lim);
    int64_t row;
    int ret;

    if (!s || session_set_scenario(s, text, strlen(text), "kernel trace")) {
        session_free(s);
        return -ENOMEM;
    }
    snprintf(s->run->log_id, sizeof(s->run->log_id), "%s", log);
    s->run->log_store = app->store;
    s->run->build_progress = job_build_progress;
    s->run->build_progress_arg = j;
    ret = session_build(s, err);
    s->run->build_progress = NULL;
    if (ret) {
        session_free(s);
        return ret;
    }
    job_build_progress(UINT64_MAX, j); /* every operation applied */
    if (store_scenario_put(app->store, s->run->scn->name, text, strlen(text), false, &row)) {
        session_free(s);
        strbuf_puts(err, "cannot store the scenario");
        return -EIO;
    }
    s->scenario_id = row;
    if (j->cancel) { /* deleted while it was built: it never becomes a session */
        session_free(s);
        strbuf_puts(err, "the upload was deleted");
        return -ECANCELED;
    }
    if ((ret = registry_add(app->reg, s))) { /* frees s on failure */
        strbuf_puts(err, ret == -EBUSY ? "every session slot is busy" : "cannot store the session");
        return ret;
    }
    pthread_mutex_lock(&j->tj->lock);
    snprintf(j->session, sizeof(j->session), "%s", s->id);
    snprintf(j->token, sizeof(j->token), "%s", s->token);
    pthread_mutex_unlock(&j->tj->lock);
    registry_put(app->reg, s);
    return 0;
}

/* The machine's caches from the /proc/slabinfo the upload begins with (?slabinfo=N).
 * 0, or -EINVAL (not such a file) or another -errno, with why in @err. */
static int job_slabinfo(const struct trace_job *j, struct sysfs_tree *tree, struct strbuf *err)
{
    char *buf = malloc((size_t)j->slabinfo); /* at most TRACES_MAX_SLABINFO */
    size_t got = 0;
    unsigned unmatched = 0;
    int fd = open(j->path, O_RDONLY | O_CLOEXEC), ret = -EIO;

    while (buf && fd >= 0 && got < j->slabinfo) {
        ssize_t n = read(fd, buf + got, (size_t)(j->slabinfo - got));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (!buf)
        strbuf_puts(err, "out of memory");
    else if (got < j->slabinfo)
        strbuf_puts(err, "cannot read the upload's slabinfo");
    else
        ret = slabinfo_read_mem(buf, got, "slabinfo", j->cpus ? j->cpus : SLABINFO_DEFAULT_CPUS,
                                tree, &unmatched, err);
    if (ret == -ENOMEM && !strbuf_str(err)[0])
        strbuf_puts(err, "out of memory");
    if (fd >= 0)
        close(fd);
    free(buf);
    return ret;
}

static void *job_run(void *arg)
{
    struct trace_job *j = arg;
    struct ktrace_opts o = {.cpus = j->cpus,
                            .model = j->model[0] ? j->model : NULL,
                            .kernel = j->kernel[0] ? j->kernel : NULL,
                            .on_op = ktrace_log_op,
                            .max_ops = j->app->cfg.lim.max_ops < TRACES_MAX_OPS
                                               ? j->app->cfg.lim.max_ops
                                               : TRACES_MAX_OPS,
                            .progress = job_progress,
                            .progress_arg = j,
                            .cancel = &j->cancel};
    struct ktrace_log kl;
    struct sysfs_tree tree;
    bool logging = false;
    struct ktrace_reader *r = NULL;
    struct ktrace_replay kr;
    struct strbuf err = STRBUF_INIT, rep = STRBUF_INIT;
    cJSON *scn = NULL;
    char *text = NULL;
    int ret;

    http_thread_engine();
    memset(&kr, 0, sizeof(kr));
    memset(&kl, 0, sizeof(kl));
    memset(&tree, 0, sizeof(tree));
    if (ktrace_log_begin(&kl, j->app->store)) {
        job_fail(j, "internal", "out of memory");
        goto out;
    }
    logging = true;
    kl.cancel = &j->cancel;
    o.on_op_arg = &kl;
    if (j->slabinfo && (ret = job_slabinfo(j, &tree, &err))) {
        job_fail(j, ret == -EINVAL ? "unprocessable" : "internal", "%s", strbuf_str(&err));
        goto out;
    }
    if (j->slabinfo)
        o.sysfs = &tree;
    if ((ret = ktrace_open(j->path, &r, &err)) || (ret = ktrace_skip(r, j->slabinfo))) {
        job_fail(j, "internal", "cannot read the upload: %s",
                 r ? strerror(-ret) : strbuf_str(&err));
        goto out;
    }
    ktrace_reader_limit(r, j->app->cfg.max_trace_text ? j->app->cfg.max_trace_text
                                                      : TRACES_MAX_TEXT);
    ktrace_reader_ratio(r, TRACES_MAX_RATIO);
    ret = ktrace_replay_run(&kr, r, &o, &err);
    if (ret == -EFBIG) {
        job_fail(j, "too_large", "%s%s", kr.read_error,
                 strstr(kr.read_error, "compressed size") ? "" : " (--max-trace-text)");
        goto out;
    }
    if (ret == -ECANCELED && j->cpu_over) {
        job_fail(j, "too_large", "the replay passed %u s of CPU time (--max-trace-cpu)",
                 j->app->cfg.max_trace_cpu ? j->app->cfg.max_trace_cpu : TRACES_MAX_CPU);
        goto out;
    }
    if (ret == -ECANCELED) {
        job_fail(j, "cancelled", "the replay was stopped: its upload was deleted, or the server "
                                 "is shutting down");
        goto out;
    }
    if (ret == -EIO) {
        job_fail(j, "unprocessable", "the trace is unreadable: %s", kr.read_error);
        goto out;
    }
    if (ret) {
        job_fail(j,
                 ret == -ENOMEM  ? "internal"
                 : ret == -E2BIG ? "session_limit"
                                 : "unprocessable",
                 "%s", ret == -ENOMEM ? "out of memory" : strbuf_str(&err));
        goto out;
    }
    ktrace_report_text(&rep, &kr, "upload");
    pthread_mutex_lock(&j->tj->lock);
    j->events = ktrace_replay_events(&kr);
    j->recorded = kl.log.nr_ops;
    j->report = strbuf_failed(&rep) ? NULL : strdup(strbuf_str(&rep));
    j->state = JOB_BUILDING;
    pthread_mutex_unlock(&j->tj->lock);
    job_store(j, true);
    if (!ktrace_replay_events(&kr)) {
        job_fail(j, "unprocessable", "no kmem events in the upload " KTRACE_NO_EVENTS_WHY);
        goto out;
    }
    if ((ret = ktrace_log_finish(&kl))) {
        job_fail(j, "internal", "cannot store the operations: %s", strerror(-ret));
        goto out;
    }
    scn = ktrace_replay_scenario_header(&kr, "kernel-trace");
    text = scn ? cJSON_PrintUnformatted(scn) : NULL;
    cJSON_Delete(scn); /* only the text goes on: the session parses it again */
    scn = NULL;
    ktrace_replay_release(&kr); /* the machine is rebuilt by the session */
    if (!text) {
        job_fail(j, "internal", "out of memory");
        goto out;
    }
    strbuf_reset(&err);
    if ((ret = job_session(j, text, kl.id, &err))) {
        job_fail(j,
                 ret == SESSION_ELIMIT                                       ? "session_limit"
                 : ret == -ECANCELED                                         ? "cancelled"
                 : ret == -EBUSY                                             ? "busy"
                 : ret == SESSION_EBADINPUT || ret == SESSION_EUNPROCESSABLE ? "unprocessable"
                                                                             : "internal",
                 "the session cannot be built: %s", strbuf_str(&err));
        goto out;
    }
    logging = false; /* the session's now: it goes with the session */
    pthread_mutex_lock(&j->tj->lock);
    j->state = JOB_DONE;
    pthread_mutex_unlock(&j->tj->lock);
    job_store(j, true);
    pthread_mutex_lock(&j->tj->lock);
    if (j->deleted) { /* deleted after the last look at cancel: its session goes */
        char id[SESSION_ID_LEN + 1];

        snprintf(id, sizeof(id), "%s", j->session);
        pthread_mutex_unlock(&j->tj->lock);
        registry_delete(j->app->reg, id);
    } else {
        pthread_mutex_unlock(&j->tj->lock);
    }
out:
    if (logging) /* what the failed or cancelled job wrote */
        ktrace_log_abort(&kl);
    else
        ktrace_log_release(&kl);
    ktrace_replay_release(&kr);
    sysfs_slab_release(&tree);
    ktrace_close(r);
    cJSON_free(text);
    cJSON_Delete(scn);
    strbuf_release(&err);
    strbuf_release(&rep);
    unlink(j->path);
    pthread_mutex_lock(&j->tj->lock);
    j->path[0] = 0;
    j->tj->running--;
    pthread_mutex_unlock(&j->tj->lock);
    return NULL;
}

/* ---- routes ---- */

/* A free slot, evicting the oldest finished job; -1 when all are running. */
static int free_slot(struct trace_jobs *tj)
{
    int oldest = -1;

    for (int i = 0; i < TRACES_MAX_KEPT; i++) {
        struct trace_job *j = tj->jobs[i];

        if (!j)
            return i;
        if ((j->state == JOB_DONE || j->state == JOB_FAILED) && !j->path[0] &&
            (oldest < 0 || j->age < tj->jobs[oldest]->age))
            oldest = i;
    }
    if (oldest >= 0) {
        pthread_join(tj->jobs[oldest]->thread, NULL); /* it has ended: path[0] is 0 */
        job_free(tj->jobs[oldest]);
        tj->jobs[oldest] = NULL;
    }
    return oldest;
}

int route_trace_create(const struct request *req, struct response *res)
{
    struct trace_jobs *tj = req->app->traces;
    struct trace_upload *up = req->upload;
    struct trace_job *j;
    const char *model = route_query(req, "model"), *kernel = route_query(req, "kernel");
    char msg[256];
    uint64_t cpus = 0, slabinfo = 0;
    struct sim_config mc;
    int slot;
    cJSON *o;

    if (!req->may_block && store_shared(req->app->store))
        return ROUTE_WOULD_BLOCK; /* the job's first row is written before the answer */
    if (!up)
        return route_error(res, 400, "bad_request",
                           "POST /api/traces takes a kmem trace as its body (ftrace text, plain "
                           "or gzip)");
    if (up->too_large)
        return route_error(res, 413, "too_large", "the trace is larger than 256 MiB");
    if (up->error)
        return route_error(res, 500, "internal", "cannot keep the upload: %s",
                           strerror(-up->error));
    if (!up->len)
        return route_error(res, 400, "bad_request", "the trace is empty");
    if (route_quota(req, res))
        return 0;
    if (route_query_u64(req, res, "cpus", SIM_MAX_CPUS, &cpus) < 0)
        return 0;
    if (route_query_u64(req, res, "slabinfo", TRACES_MAX_SLABINFO, &slabinfo) < 0)
        return 0;
    if (slabinfo >= up->len)
        return route_error(res, 400, "bad_request",
                           "slabinfo: the body's first %" PRIu64 " bytes would leave no trace "
                           "after them (%" PRIu64 " bytes in all)",
                           slabinfo, (uint64_t)up->len);
    sim_config_default(&mc);
    if ((model || kernel) && (strlen(kernel ? kernel : "") >= 32 ||
                              kernel_choose(kernel, model, 0, &mc, msg, sizeof(msg))))
        return route_error(res, 400, "bad_request", "%s",
                           kernel && strlen(kernel) >= 32 ? "kernel: too long" : msg);
    if (!(j = calloc(1, sizeof(*j))) || ids_random(j->id, TRACES_ID_LEN) || ids_token(j->owner)) {
        free(j);
        return route_error(res, 500, "internal", "out of memory");
    }
    sha256_hex(j->owner, j->owner_hash);
    j->tj = tj;
    j->app = req->app;
    j->bytes = up->len;
    j->total = up->len;
    j->cpus = (unsigned)cpus;
    j->slabinfo = slabinfo;
    if (model)
        sim_model_format(&mc, j->model, sizeof(j->model));
    if (kernel)
        snprintf(j->kernel, sizeof(j->kernel), "%s", kernel);
    j->state = JOB_REPLAYING;
    memcpy(j->path, up->path, sizeof(j->path));
    pthread_mutex_lock(&tj->lock);
    /* the upload holds a place (traces_upload_begin()): the job takes it over */
    if (atomic_load(&req->app->stopping) || !up->holds_place || (slot = free_slot(tj)) < 0) {
        pthread_mutex_unlock(&tj->lock);
        free(j);
        snprintf(res->retry_after, sizeof(res->retry_after), TRACES_RETRY_AFTER);
        return route_error(res, 503, "busy", "%u traces are being replayed; try again",
                           TRACES_MAX_RUNNING);
    }
    j->age = ++tj->clock;
    if (store_shared(req->app->store)) { /* before its thread writes: the row exists at once */
        struct store_trace_job row;

        job_row(j, &row);
        j->stored_ns = mono_ns();
        if (store_trace_job_put(req->app->store, &row, NULL)) {
            pthread_mutex_unlock(&tj->lock);
            free(j);
            return route_error(res, 500, "internal", "cannot store the trace job");
        }
    }
    if (pthread_create(&j->thread, NULL, job_run, j)) {
        pthread_mutex_unlock(&tj->lock);
        free(j);
        return route_error(res, 503, "busy", "cannot start a replay thread");
    }
    tj->jobs[slot] = j;
    tj->running++;
    tj->reserved--;
    up->holds_place = false;
    up->path[0] = 0; /* the job's now */
    pthread_mutex_unlock(&tj->lock);
    o = cJSON_CreateObject();
    if (o) {
        char self[64];

        snprintf(self, sizeof(self), "/api/traces/%s", j->id);
        cJSON_AddStringToObject(o, "id", j->id);
        cJSON_AddStringToObject(o, "token", j->owner);
        cJSON_AddStringToObject(o, "state", "replaying");
        cJSON_AddNumberToObject(o, "bytes", (double)up->len);
        cJSON_AddItemToObject(o, "links", cJSON_CreateObject());
        cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(o, "links"), "self", self);
    }
    return route_json(res, 202, o);
}

/* Key @key of @o: {@k1: @v1, @k2: @v2} when @present, else null. */
static void put_pair(cJSON *o, const char *key, bool present, const char *k1, const char *v1,
                     const char *k2, const char *v2)
{
    cJSON *e;

    if (!present) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    e = cJSON_AddObjectToObject(o, key);
    cJSON_AddStringToObject(e, k1, v1);
    cJSON_AddStringToObject(e, k2, v2);
}

/* GET /api/traces/ID's answer from @row. */
static cJSON *job_json(const struct store_trace_job *row)
{
    bool done = !strcmp(row->state, "done"), failed = !strcmp(row->state, "failed");
    bool replaying = !strcmp(row->state, "replaying"), building = !strcmp(row->state, "building");
    double progress = done ? 1.0 : row->total ? (double)row->done / (double)row->total : 0.0;
    double built = done ? 1.0 : row->recorded ? (double)row->built / (double)row->recorded : 0.0;
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "id", row->id);
    cJSON_AddStringToObject(o, "state", row->state);
    cJSON_AddNumberToObject(o, "bytes", (double)row->bytes);
    cJSON_AddNumberToObject(o, "progress", progress > 1.0 ? 1.0 : progress);
    cJSON_AddNumberToObject(o, "events", (double)row->events);
    if (replaying || building)
        cJSON_AddStringToObject(o, "phase", phase_names[building]);
    else
        cJSON_AddNullToObject(o, "phase");
    cJSON_AddNumberToObject(o, "phase_progress",
                            replaying ? (progress > 1.0 ? 1.0 : progress)
                            : built > 1.0 ? 1.0
                                          : built);
    cJSON_AddNumberToObject(o, "ops", (double)row->built);
    cJSON_AddNumberToObject(o, "ops_total", (double)row->recorded);
    put_pair(o, "session", done, "id", row->session, "token", row->token);
    if (row->report)
        cJSON_AddStringToObject(o, "report", row->report);
    else
        cJSON_AddNullToObject(o, "report");
    /* frees the kernel made through kfree_rcu, replayed as plain frees (the report says why) */
    if (row->report)
        cJSON_AddNumberToObject(o, "rcu_frees", (double)ktrace_report_rcu_frees(row->report));
    else
        cJSON_AddNullToObject(o, "rcu_frees");
    put_pair(o, "error", failed, "code", row->code, "message", row->message);
    return o;
}

int route_trace_get(const struct request *req, struct response *res)
{
    struct trace_jobs *tj = req->app->traces;
    const char *id = req->args[0];
    struct trace_job *j = NULL;
    struct store_trace_job row;
    cJSON *o = NULL;
    bool gone;
    int ret;

    if (!route_check_id(res, ROUTE_ID_TRACE, id))
        return 0;
    pthread_mutex_lock(&tj->lock);
    for (size_t i = 0; i < TRACES_MAX_KEPT && !j; i++)
        if (tj->jobs[i] && !strcmp(tj->jobs[i]->id, id))
            j = tj->jobs[i];
    gone = j && j->deleted;
    if (j && !gone) {
        job_row(j, &row);
        o = job_json(&row); /* under the lock: row points at j's report */
    }
    pthread_mutex_unlock(&tj->lock);
    if (gone)
        return route_no_such(res, ROUTE_ID_TRACE, id);
    if (j)
        return o ? route_json(res, 200, o) : route_error(res, 500, "internal", "out of memory");
    /* a job another server runs, on a store they share */
    if (!store_shared(req->app->store))
        return route_no_such(res, ROUTE_ID_TRACE, id);
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((ret = store_trace_job_load(req->app->store, id, &row)))
        return ret == -ENOENT ? route_no_such(res, ROUTE_ID_TRACE, id)
                              : route_error(res, 500, "internal", "cannot read the trace job");
    if (row.cancel) { /* deleted through another server: gone, as it is on the one that ran it */
        store_trace_job_free(&row);
        return route_no_such(res, ROUTE_ID_TRACE, id);
    }
    o = job_json(&row);
    store_trace_job_free(&row);
    return o ? route_json(res, 200, o) : route_error(res, 500, "internal", "out of memory");
}

#define TRACE_DELETE_NEEDS "deleting a trace needs the token its upload was given"

/*
 * DELETE of job @id that another server runs, on the store they share: the
 * token is checked against the row's hash of it, the row's cancel flag set
 * and the other servers told; a finished job's session is deleted here.
 */
static int trace_delete_elsewhere(const struct request *req, struct response *res, const char *id,
                                  const char *token)
{
    struct store *st = req->app->store;
    struct store_trace_job row;
    char given[SHA256_HEX_LEN + 1];
    int err;

    if ((err = store_trace_job_load(st, id, &row)))
        return err == -ENOENT ? route_no_such(res, ROUTE_ID_TRACE, id)
                              : route_error(res, 500, "internal", "cannot read the trace job");
    store_trace_job_free(&row); /* its report is not needed */
    if (row.cancel)
        return route_no_such(res, ROUTE_ID_TRACE, id);
    if (token)
        sha256_hex(token, given);
    if (!token || !row.owner[0] || !ids_token_equal(given, row.owner))
        return route_forbidden(res, TRACE_DELETE_NEEDS);
    if ((err = store_trace_job_cancel(st, id)))
        return err == -ENOENT ? route_no_such(res, ROUTE_ID_TRACE, id)
                              : route_error(res, 500, "internal", "cannot delete the trace job");
    relay_trace_cancel(req->app, id);
    /* the session it made holds the trace's operations: it goes too (the
     * server that ran the job deletes it again when it hears, from memory) */
    if (!strcmp(row.state, "done") && ids_valid(row.session, SESSION_ID_LEN) &&
        (err = registry_delete(req->app->reg, row.session)) && err != -ENOENT)
        return route_session_error(res, err, "cannot delete the trace's session");
    res->status = 204;
    return 0;
}

int route_trace_delete(const struct request *req, struct response *res)
{
    struct trace_jobs *tj = req->app->traces;
    const char *id = req->args[0], *token = route_token(req);
    char session[SESSION_ID_LEN + 1] = "";
    struct trace_job *j = NULL;
    int err;

    if (!route_check_id(res, ROUTE_ID_TRACE, id))
        return 0;
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK; /* deleting its session writes to the store */
    pthread_mutex_lock(&tj->lock);
    for (size_t i = 0; i < TRACES_MAX_KEPT && !j; i++)
        if (tj->jobs[i] && !tj->jobs[i]->deleted && !strcmp(tj->jobs[i]->id, id))
            j = tj->jobs[i];
    if (!j) {
        pthread_mutex_unlock(&tj->lock);
        if (store_shared(req->app->store)) /* a job another server runs */
            return trace_delete_elsewhere(req, res, id, token);
        return route_no_such(res, ROUTE_ID_TRACE, id);
    }
    if (!route_token_is(req, j->owner)) {
        pthread_mutex_unlock(&tj->lock);
        return route_forbidden(res, TRACE_DELETE_NEEDS);
    }
    job_forget(j); /* a running replay or build stops; a finished one has its session */
    if (j->state == JOB_DONE)
        snprintf(session, sizeof(session), "%s", j->session);
    pthread_mutex_unlock(&tj->lock);
    /* the session it made holds the trace's operations: it goes too */
    if (session[0] && (err = registry_delete(req->app->reg, session)) && err != -ENOENT)
        return route_session_error(res, err, "cannot delete the trace's session");
    res->status = 204;
    return 0;
}

/* ---- the other servers, and the janitor ---- */

void traces_heard_cancel(struct app *app, const char *id)
{
    struct trace_jobs *tj = app->traces;
    struct store_trace_job row;
    char session[SESSION_ID_LEN + 1] = "";
    bool here = false;
    int err;

    if (!tj)
        return;
    pthread_mutex_lock(&tj->lock);
    for (size_t i = 0; i < TRACES_MAX_KEPT && !here; i++)
        here = tj->jobs[i] && !tj->jobs[i]->deleted && !strcmp(tj->jobs[i]->id, id);
    pthread_mutex_unlock(&tj->lock);
    /* the message is a hint: the row's flag, which only a checked token sets, decides */
    if (!here || store_trace_job_load(app->store, id, &row))
        return;
    store_trace_job_free(&row);
    if (!row.cancel)
        return;
    pthread_mutex_lock(&tj->lock);
    for (size_t i = 0; i < TRACES_MAX_KEPT; i++) {
        struct trace_job *j = tj->jobs[i];

        if (!j || j->deleted || strcmp(j->id, id))
            continue;
        job_forget(j);
        if (j->state == JOB_DONE)
            snprintf(session, sizeof(session), "%s", j->session);
        break;
    }
    pthread_mutex_unlock(&tj->lock);
    /* the deleting server deleted it from the store; this one may hold it */
    if (session[0] && (err = registry_delete(app->reg, session)) && err != -ENOENT)
        fprintf(stderr, "slublab serve: trace %s: its session %s was not deleted (%d)\n", id,
                session, err);
}

void traces_tidy(struct app *app, unsigned keep_days)
{
    static const char why[] = "the server that ran the replay stopped before it ended; upload "
                              "the trace again";
    struct trace_jobs *tj = app->traces;
    uint64_t failed = 0, deleted = 0;

    if (store_shared(app->store)) {
        pthread_mutex_lock(&tj->lock);
        for (size_t i = 0; i < TRACES_MAX_KEPT; i++) {
            struct trace_job *j = tj->jobs[i];
            struct store_trace_job row;
            bool cancel = false;

            if (!j || j->deleted || (j->state != JOB_REPLAYING && j->state != JOB_BUILDING))
                continue;
            j->stored_ns = mono_ns();
            job_row(j, &row);
            if (!store_trace_job_put(app->store, &row, &cancel) && cancel)
                job_forget(j);
        }
        pthread_mutex_unlock(&tj->lock);
    }
    if (store_trace_jobs_expire(app->store, keep_days, TRACES_STALE_SECONDS, why, &failed,
                                &deleted))
        fprintf(stderr, "slublab serve: tidying the trace jobs' rows failed\n");
    else if ((failed || deleted) && !app->cfg.quiet)
        fprintf(stderr,
                "slublab serve: %llu trace jobs of stopped servers failed, %llu old rows "
                "deleted\n",
                (unsigned long long)failed, (unsigned long long)deleted);
}
