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
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/app.h"
#include "http/routes.h"

#define API_EXPORT(name) __attribute__((export_name(name)))
#define API_MAX_QUERY    64

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

uint32_t slublab_api_init(const char *data_dir, uint32_t memory_mb) API_EXPORT("slublab_api_init");
void *slublab_api_alloc(uint32_t len) API_EXPORT("slublab_api_alloc");
void slublab_api_free(void *p) API_EXPORT("slublab_api_free");
const struct api_answer *slublab_api_call(const char *req, uint32_t len)
        API_EXPORT("slublab_api_call");

/*
 * Open the API over the shipped files under @data_dir: its scenarios/ and
 * lessons/, and the UI's files that an HTML export carries (web/, and
 * vendor/chart.umd.js); with @memory_mb MiB for live sessions (as serve
 * --memory-mb).  0, or a negative errno with the reason on stderr.
 */
uint32_t slublab_api_init(const char *data_dir, uint32_t memory_mb)
{
    /* the configuration's directories, for the app's life */
    static char scenarios[4096], lessons[4096], web[4096], vendor[4096];
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
    if (router_dispatch(&req, &last) == ROUTE_WOULD_BLOCK) /* not with may_block */
        api_error(500, "internal", "the handler would block");
    if (last.follower) {
        response_release(&last);
        memset(&last, 0, sizeof(last));
        api_error(501, "needs_server",
                  "following a lecture needs a slublab server (slublab serve)");
    }
out_answer:
    free(head);
    answer.status = last.status;
    answer.content_type = last.content_type ? last.content_type : ""; /* a 204's */
    answer.body = last.blob ? last.blob->text : last.body ? last.body : "";
    answer.len = (uint32_t)(last.blob ? last.blob->len : last.len);
    answer.disposition = last.disposition;
    answer.encoding = last.encoding ? last.encoding : "";
    return &answer;
}
