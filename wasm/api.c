/*
 * api.c: the WebAssembly module slublab-api.wasm: the server's routes
 * without a server (docs/wasm.md, "The API in WebAssembly").  A WASI
 * reactor: its host (the static lab's Web Worker, web/js/static/, or node
 * for tests/cli/api-wasm.sh) calls slublab_api_init() once, then
 * slublab_api_call() for each request, and reads the answer it returns.
 *
 * A request is written as an HTTP/1.1 request's head is, without the
 * version: "METHOD TARGET\n" (the target percent-encoded, with its query),
 * header lines "Name: value\n" (Authorization, If-None-Match), an empty
 * line, then the body.  It goes through router_dispatch(), the function
 * the server's connections end in, with may_block true: the handler runs
 * to its end on the calling thread, the way the server's worker threads
 * run it (routes.h), over the in-memory store (STORE_MEM_DB).  Only what
 * needs a server differs: an event stream (following a lecture) is
 * answered 501.
 *
 * A kernel trace (POST /api/traces, plain text or gzip) goes where the
 * server's http.c puts it, to a temporary file (traces_upload_begin(), in
 * the host's memory), up to API_TRACE_MAX_BYTES; the handler's job, whose
 * thread the server would start, runs when the host calls
 * slublab_api_work() after reading the 202.  While it runs, every change
 * of the job is handed to the host's slublab.trace_changed() as the
 * answer GET /api/traces/ID would give, at most every API_TRACE_EVERY_NS,
 * so that the page's polling sees the job's progress although the module
 * is busy.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "http/app.h"
#include "http/request.h"
#include "http/routes.h"
#include "http/traces.h"

#define API_EXPORT(name) __attribute__((export_name(name)))
#define API_MAX_QUERY    64
/* A trace the lab in a browser tab replays, at most (its text, after
 * gunzip): the tab holds it about three times while it is handed over. */
#define API_TRACE_MAX_MIB   64u
#define API_TRACE_MAX_BYTES ((uint64_t)API_TRACE_MAX_MIB << 20)
#define API_TRACE_EVERY_NS  100000000ull /* a running job's answer, at most this often */
#define API_MAX_DEFERRED    4

/* The host's: a running trace job @id's GET /api/traces/ID answer. */
void host_trace_changed(const char *id, uint32_t status, const char *body, uint32_t len)
        __attribute__((import_module("slublab"), import_name("trace_changed")));

/* The last answer, read by the host; the next call frees it. */
struct api_answer {
    uint32_t status;
    const char *content_type;
    const char *body;
    uint32_t len;
    const char *disposition; /* Content-Disposition, or "" */
    const char *encoding;    /* Content-Encoding, or "" */
};

static struct app app;
static bool app_ready;
static struct response last;
static struct api_answer answer;
/* threads pthread_create() made (wasm/include/pthread.h), run by slublab_api_work() */
static struct {
    void *(*fn)(void *);
    void *arg;
} deferred[API_MAX_DEFERRED];
static unsigned nr_deferred;

uint32_t slublab_api_init(const char *data_dir, uint32_t memory_mb) API_EXPORT("slublab_api_init");
void *slublab_api_alloc(uint32_t len) API_EXPORT("slublab_api_alloc");
void slublab_api_free(void *p) API_EXPORT("slublab_api_free");
uint32_t slublab_api_work(void) API_EXPORT("slublab_api_work");
uint32_t slublab_api_trace_max(void) API_EXPORT("slublab_api_trace_max");
const struct api_answer *slublab_api_call(const char *req, uint32_t len)
        API_EXPORT("slublab_api_call");

/* @app's trace job @id changed (app_config.trace_changed): its answer to the host. */
static void trace_changed(struct app *a, const char *id)
{
    static uint64_t told_ns;
    struct request req;
    struct response res;
    struct timespec ts;
    char path[64];
    uint64_t now;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    if (now - told_ns < API_TRACE_EVERY_NS)
        return;
    told_ns = now;
    snprintf(path, sizeof(path), "/api/traces/%s", id);
    memset(&req, 0, sizeof(req));
    memset(&res, 0, sizeof(res));
    req.app = a;
    req.may_block = true;
    req.client = "local";
    req.method = "GET";
    req.path = path;
    router_dispatch(&req, &res);
    host_trace_changed(id, res.status, res.body ? res.body : "", (uint32_t)res.len);
    response_release(&res);
}

/*
 * Open the API over the shipped files under @data_dir: its scenarios/ and
 * lessons/, and the UI's files that an HTML export carries (web/, and
 * vendor/chart.umd.js); with @memory_mb MiB for live sessions (as serve
 * --memory-mb).  0, or a negative errno with the reason on stderr.
 */
uint32_t slublab_api_init(const char *data_dir, uint32_t memory_mb)
{
    /* the configuration's directories, for the app's life */
    static char scenarios[4096], lessons[4096], web[4096], vendor[4096], tmp[4096];
    struct strbuf err = STRBUF_INIT;
    struct app_config cfg;
    int ret;

    if (app_ready)
        return 0;
    if ((size_t)snprintf(scenarios, sizeof(scenarios), "%s/scenarios", data_dir) >=
                sizeof(scenarios) ||
        (size_t)snprintf(lessons, sizeof(lessons), "%s/lessons", data_dir) >= sizeof(lessons) ||
        (size_t)snprintf(web, sizeof(web), "%s/web", data_dir) >= sizeof(web) ||
        (size_t)snprintf(vendor, sizeof(vendor), "%s/vendor", data_dir) >= sizeof(vendor))
        return (uint32_t)-ENAMETOOLONG;
    app_config_default(&cfg);
    cfg.db = STORE_MEM_DB;
    cfg.scenario_dir = scenarios;
    cfg.lessons_dir = lessons;
    cfg.web_dir = web;
    cfg.vendor_dir = vendor;
    cfg.memory = (uint64_t)memory_mb << 20;
    cfg.quiet = true;
    /* uploads go to the host's tmp/ (web/js/static/wasi.js); the job runs
     * on the page's own thread, which no CPU time limit guards better than
     * the size does, and nothing expires in a store gone with the page */
    cfg.max_trace_text = API_TRACE_MAX_BYTES;
    cfg.max_trace_cpu = UINT_MAX;
    cfg.keep_trace_days = 0;
    cfg.trace_changed = trace_changed;
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s/tmp", data_dir) >= sizeof(tmp) ||
        setenv("TMPDIR", tmp, 1))
        return (uint32_t)-ENAMETOOLONG;
    /*
     * No stored tier: the in-memory store would hold each stored image in
     * this tab beside the checkpoints it copies, and write one every few
     * thousand operations while a session is made (serve
     * --stored-checkpoint-ops 0).
     */
    cfg.lim.disk_min_ops = UINT64_MAX;
    if ((ret = app_init(&app, &cfg, &err))) {
        fprintf(stderr, "slublab-api: %s\n", strbuf_str(&err));
        app_release(&app);
    } else {
        app_ready = true;
    }
    strbuf_release(&err);
    return (uint32_t)ret;
}

int wasm_thread_defer(void *(*fn)(void *), void *arg)
{
    if (nr_deferred == API_MAX_DEFERRED)
        return EAGAIN;
    deferred[nr_deferred].fn = fn;
    deferred[nr_deferred].arg = arg;
    nr_deferred++;
    return 0;
}

/*
 * Run the threads the last requests made (a trace job: traces.h) to their
 * end, in order; the number run.
 */
uint32_t slublab_api_work(void)
{
    uint32_t n = 0;

    while (n < nr_deferred) {
        deferred[n].fn(deferred[n].arg);
        n++;
    }
    nr_deferred = 0;
    return n;
}

/* The largest trace body POST /api/traces takes here, in bytes. */
uint32_t slublab_api_trace_max(void)
{
    return (uint32_t)API_TRACE_MAX_BYTES;
}

void *slublab_api_alloc(uint32_t len)
{
    return malloc(len ? len : 1);
}

void slublab_api_free(void *p)
{
    free(p);
}

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Percent-decode @s in place (and '+' as a space when @plus), as libmicrohttpd does. */
static void unescape(char *s, bool plus)
{
    char *out = s;

    for (; *s; s++) {
        if (*s == '%' && hex(s[1]) >= 0 && hex(s[2]) >= 0) {
            *out++ = (char)(hex(s[1]) * 16 + hex(s[2]));
            s += 2;
        } else {
            *out++ = plus && *s == '+' ? ' ' : *s;
        }
    }
    *out = '\0';
}

/* Split query @q ("a=1&b") into @params; false when there are too many. */
static bool split_query(char *q, struct query_param *params, size_t *n)
{
    char *save = NULL, *kv;

    for (kv = strtok_r(q, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');

        if (*n == API_MAX_QUERY)
            return false;
        if (eq)
            *eq++ = '\0';
        unescape(kv, true);
        if (eq)
            unescape(eq, true);
        params[*n].key = kv;
        params[*n].value = eq;
        (*n)++;
    }
    return true;
}

/* The empty line ending the head of @len bytes at @text, or NULL. */
static const char *head_end(const char *text, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i++)
        if (text[i] == '\n' && text[i + 1] == '\n')
            return text + i;
    return NULL;
}

/* Answer @status with an error body of the server's shape. */
static void api_error(unsigned status, const char *code, const char *msg)
{
    route_error(&last, status, code, "%s", msg);
}

/*
 * POST /api/traces: the body to a temporary file, as http.c writes it, for
 * route_trace_create(); false with the answer made when it cannot be.
 */
static bool trace_upload(struct request *req)
{
    int ret;

    if (req->body_len > API_TRACE_MAX_BYTES) {
        route_error(&last, 413, "too_large",
                    "the lab in this browser tab replays traces up to %u MiB (after gunzip); a "
                    "slublab server replays larger ones: start one with ./scripts/run serve (or "
                    "slublab serve)",
                    API_TRACE_MAX_MIB);
        return false;
    }
    if ((ret = traces_upload_begin(app.traces, &req->upload))) {
        if (ret != -EBUSY) {
            api_error(503, "busy", "cannot store the upload");
            return false;
        }
        snprintf(last.retry_after, sizeof(last.retry_after), TRACES_RETRY_AFTER);
        route_error(&last, 503, "busy", "%u traces are being replayed; try again",
                    TRACES_MAX_RUNNING);
        return false;
    }
    traces_upload_write(req->upload, req->body ? req->body : "", req->body_len);
    return true;
}

const struct api_answer *slublab_api_call(const char *text, uint32_t len)
{
    struct query_param params[API_MAX_QUERY];
    struct request req;
    char *head = NULL, *line, *save = NULL, *target, *query;
    const char *body;
    size_t head_len;

    response_release(&last);
    memset(&last, 0, sizeof(last));
    memset(&req, 0, sizeof(req));
    body = head_end(text, len);
    head_len = body ? (size_t)(body - text) : len;
    if (!app_ready) {
        api_error(503, "unavailable", "the API is not open (slublab_api_init())");
        goto out_answer;
    }
    if (!(head = strndup(text, head_len))) {
        api_error(503, "busy", "out of memory");
        goto out_answer;
    }
    req.app = &app;
    req.may_block = true;
    req.client = "local";
    if (body) {
        body += 2;
        req.body = (size_t)(text + len - body) ? body : NULL;
        req.body_len = (size_t)(text + len - body);
    }
    line = strtok_r(head, "\n", &save);
    target = line ? strchr(line, ' ') : NULL;
    if (!target) {
        api_error(400, "bad_request", "no request line");
        goto out_answer;
    }
    *target++ = '\0';
    req.method = line;
    if ((query = strchr(target, '?')))
        *query++ = '\0';
    unescape(target, false);
    req.path = target;
    req.query = params;
    if (query && !split_query(query, params, &req.nr_query)) {
        api_error(400, "bad_request", "too many query arguments");
        goto out_answer;
    }
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *colon = strchr(line, ':');

        if (!colon)
            continue;
        *colon++ = '\0';
        while (*colon == ' ')
            colon++;
        if (!strcasecmp(line, "authorization"))
            req.authorization = colon;
        else if (!strcasecmp(line, "if-none-match"))
            req.if_none_match = colon;
    }
    if (traces_is_upload(req.method, req.path) && !trace_upload(&req))
        goto out_answer;
    if (router_dispatch(&req, &last) == ROUTE_WOULD_BLOCK) /* not with may_block */
        api_error(500, "internal", "the handler would block");
    if (last.follower) {
        response_release(&last);
        memset(&last, 0, sizeof(last));
        api_error(501, "needs_server",
                  "following a lecture needs a slublab server (slublab serve)");
    }
out_answer:
    traces_upload_free(req.upload);
    free(head);
    answer.status = last.status;
    answer.content_type = last.content_type ? last.content_type : ""; /* a 204's */
    answer.body = last.blob ? last.blob->text : last.body ? last.body : "";
    answer.len = (uint32_t)(last.blob ? last.blob->len : last.len);
    answer.disposition = last.disposition;
    answer.encoding = last.encoding ? last.encoding : "";
    return &answer;
}
