/*
 * fuzz_routes.c: libFuzzer target for the request handlers.
 *
 * Every input is one request, written as text so the corpus stays
 * readable:
 *
 *     METHOD PATH[?QUERY]      first line
 *     T                        second line: 0 no token, 1 the right one, 2 a wrong one
 *     BODY                     everything after
 *
 * "$S" in the path, query or body stands for a live session made at start
 * (and "$P" for a snapshot of it), so mutations reach the handlers behind
 * a valid id.  The request goes through router_dispatch() exactly as
 * http.c sends it: first without blocking, then, on ROUTE_WOULD_BLOCK, on
 * "a worker" (here, the same thread).  Every response must be well formed:
 * a status from 200 to 599 and, for /api/ errors, the error body.  The app
 * runs on an in-memory SQLite database with small session limits, so no
 * input can take long.  Run it from the repository root (it reads
 * scenarios/ and web/); see CMakeLists.txt (SLUBLAB_FUZZ).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/app.h"
#include "http/routes.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct app app;
static char sid[64], stoken[64], pid[64];

/* Dispatch as http.c does; the response is the caller's to release. */
static void fuzz_dispatch(struct request *req, struct response *res)
{
    req->may_block = false;
    if (router_dispatch(req, res) == ROUTE_WOULD_BLOCK) {
        response_release(res);
        req->may_block = true;
        if (router_dispatch(req, res) == ROUTE_WOULD_BLOCK)
            abort(); /* a handler must answer when it may block */
    }
}

/* A response's body as text (blob or buffer). */
static const char *fuzz_text(const struct response *res, size_t *len)
{
    if (res->blob) {
        *len = res->blob->len;
        return res->blob->text;
    }
    *len = res->len;
    return res->body;
}

/* Copy the value of "key":"..." from a JSON text into @out. */
static void fuzz_field(const char *text, const char *key, char *out, size_t size)
{
    char pat[32];
    const char *p;
    size_t n = 0;

    snprintf(pat, sizeof(pat), "\"%s\":\"", key);
    if (!text || !(p = strstr(text, pat)))
        return;
    for (p += strlen(pat); *p && *p != '"' && n + 1 < size; p++)
        out[n++] = *p;
    out[n] = '\0';
}

static void fuzz_setup_request(struct request *req, const char *method, const char *path,
                               const char *body, const char *auth)
{
    memset(req, 0, sizeof(*req));
    req->app = &app;
    req->method = method;
    req->path = path;
    req->body = body;
    req->body_len = body ? strlen(body) : 0;
    req->authorization = auth;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct app_config cfg;
    struct strbuf err = STRBUF_INIT;
    struct request req;
    struct response res;
    char body[160];
    size_t len;

    (void)argc;
    (void)argv;
    app_config_default(&cfg);
    cfg.db = ":memory:";
    cfg.quiet = true;
    cfg.max_live = 4;
    cfg.follow_ms = 0;
    cfg.lim.memory = 16u << 20;
    cfg.lim.max_ops = 20000;
    cfg.lim.max_cpus = 8;
    cfg.lim.max_nodes = 2;
    cfg.lim.max_mem_per_node = 64u << 20;
    cfg.search_budget = 100000;
    cfg.heavy_cpu = 0; /* every write runs: the CPU limit (limit.h) is not what is fuzzed */
    if (app_init(&app, &cfg, &err)) {
        fprintf(stderr, "fuzz_routes: %s (run from the repository root)\n", strbuf_str(&err));
        abort();
    }
    fuzz_setup_request(&req, "POST", "/api/sessions", "{\"scenario\":\"default\"}", NULL);
    fuzz_dispatch(&req, &res);
    fuzz_field(fuzz_text(&res, &len), "id", sid, sizeof(sid));
    fuzz_field(fuzz_text(&res, &len), "token", stoken, sizeof(stoken));
    response_release(&res);
    snprintf(body, sizeof(body), "{\"session\":\"%s\",\"at\":20}", sid);
    fuzz_setup_request(&req, "POST", "/api/snapshots", body, NULL);
    fuzz_dispatch(&req, &res);
    fuzz_field(fuzz_text(&res, &len), "id", pid, sizeof(pid));
    response_release(&res);
    if (!sid[0] || !pid[0])
        abort();
    strbuf_release(&err);
    return 0;
}

/* Replace "$S" and "$P" in @in (of @len bytes) into a new NUL-terminated string. */
static char *fuzz_expand(const char *in, size_t len)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i;

    for (i = 0; i < len; i++) {
        if (in[i] == '$' && i + 1 < len && (in[i + 1] == 'S' || in[i + 1] == 'P')) {
            strbuf_puts(&sb, in[i + 1] == 'S' ? sid : pid);
            i++;
        } else {
            strbuf_append(&sb, &in[i], 1);
        }
    }
    if (strbuf_failed(&sb) || !sb.buf) {
        strbuf_release(&sb);
        return calloc(1, 1);
    }
    return sb.buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data, *nl1, *nl2;
    struct query_param query[16];
    char method[16], *line = NULL, *body = NULL, *q, auth[96];
    struct request req;
    struct response res;
    size_t nq = 0, mlen;
    const char *sp;
    char mode;

    nl1 = memchr(text, '\n', size);
    if (!nl1 || nl1 - text > 4096)
        return 0;
    nl2 = memchr(nl1 + 1, '\n', size - (size_t)(nl1 + 1 - text));
    if (!nl2)
        return 0;
    mode = nl2 > nl1 + 1 ? nl1[1] : '0';
    line = fuzz_expand(text, (size_t)(nl1 - text));
    body = fuzz_expand(nl2 + 1, size - (size_t)(nl2 + 1 - text));
    if (!line || !body)
        goto out;
    sp = strchr(line, ' ');
    if (!sp || (mlen = (size_t)(sp - line)) >= sizeof(method) || !mlen)
        goto out;
    memcpy(method, line, mlen);
    method[mlen] = '\0';
    q = strchr(sp + 1, '?');
    if (q) {
        char *arg = q + 1;

        *q = '\0';
        while (*arg && nq < sizeof(query) / sizeof(query[0])) {
            char *amp = strchr(arg, '&'), *eq;

            if (amp)
                *amp = '\0';
            eq = strchr(arg, '=');
            if (eq)
                *eq = '\0';
            query[nq].key = arg;
            query[nq].value = eq ? eq + 1 : NULL;
            nq++;
            if (!amp)
                break;
            arg = amp + 1;
        }
    }
    if (!strcmp(method, "DELETE") && strstr(sp + 1, sid))
        goto out; /* keep the session every other input uses */
    snprintf(auth, sizeof(auth), "Bearer %s",
             mode == '1' ? stoken : "0123456789abcdef0123456789abcdef");
    /* the body ends at a NUL, as the expansion made it a C string */
    fuzz_setup_request(&req, method, sp + 1, *body ? body : NULL, mode == '0' ? NULL : auth);
    req.query = query;
    req.nr_query = nq;
    fuzz_dispatch(&req, &res);
    if (res.status < 200 || res.status > 599)
        abort();
    if (res.status >= 400 && !strncmp(req.path, "/api/", 5)) {
        size_t len;
        const char *t = fuzz_text(&res, &len);

        if (!t || strncmp(t, "{\"error\":{\"code\":\"", 18) != 0)
            abort();
    }
    response_release(&res);
out:
    free(line);
    free(body);
    return 0;
}
