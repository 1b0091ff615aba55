/*
 * http.c: libmicrohttpd glue and the worker pool (see http.h).
 *
 * Per request, *req_cls holds a struct http_req from the first call to the
 * completion callback (MHD_OPTION_NOTIFY_COMPLETED), which is the one place
 * it is freed.  Its life:
 *   first call    set up, check Content-Length (413 at once when too big);
 *   upload calls  append to the body, 413 once it passes HTTP_MAX_BODY;
 *                 POST /api/traces instead writes it to a temporary file
 *                 (traces.h), up to TRACES_MAX_BYTES;
 *   last call     dispatch without blocking; on ROUTE_WOULD_BLOCK suspend
 *                 the connection and queue the request for a worker;
 *   worker        dispatch again, blocking allowed, then resume;
 *   resumed call  queue the response the worker left.
 * The connection is suspended before the request is queued, under the
 * queue's lock, so a worker's resume never comes before the suspend.
 *
 * Every response carries Content-Security-Policy: default-src 'self',
 * X-Content-Type-Options: nosniff and a Cache-Control (no-store for the
 * API; for the UI's files immutable when their names are content-hashed,
 * else no-cache, revalidated by their ETag: static.c).
 *
 * Framing is strict (RFC 9112): on the first call, where every header is
 * visible, a request that could be read more than one way (Content-Length
 * twice, Transfer-Encoding with Content-Length or other than chunked, no
 * Host or two on HTTP/1.1) is a 400 and the connection closes, since a
 * proxy in front may have framed it the other way.  A request target over
 * HTTP_MAX_URI bytes is a 414, headers over HTTP_MAX_HEADERS or
 * HTTP_MAX_HEADER_BYTES a 431, both in JSON: libmicrohttpd's own pages
 * for these are fixed HTML, so its memory limit (HTTP_POOL) sits above
 * both and it answers them only past it (docs/deploy.md lists what it
 * still answers itself).
 */
#include "http/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <microhttpd.h>

#include "base/utf8.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/guard.h"
#include "http/watch.h"
#include "http/routes.h"
#include "http/traces.h"

#define HTTP_MAX_QUERY   32
#define HTTP_DISCARD_MAX (16u << 20) /* body bytes dropped after a 413 before hanging up */
#define CSP              "default-src 'self'"
#define HTTP_MAX_URI          8192u /* bytes of the request target (path and query); 414 beyond */
#define HTTP_MAX_HEADERS      100u  /* header fields of a request; 431 beyond */
#define HTTP_MAX_HEADER_BYTES (24u << 10) /* bytes of all header fields; 431 beyond */
#define HTTP_ENGINE_NICE      5 /* http_thread_engine(): a quarter of a connection thread's weight */
#define HTTP_POOL             (64u << 10) /* MHD_OPTION_CONNECTION_MEMORY_LIMIT: above the three */
/* a follow stream's first block, its first message (follow_read()): room
 * for the state most positions render (a few KiB), so that a follower who
 * joins needs no fetch of its own; in the pool, beside the request */
#define HTTP_FOLLOW_FIRST     (16u << 10)

enum http_state {
    HR_READING, /* before the last call */
    HR_QUEUED,  /* suspended, waiting for or running on a worker */
    HR_READY,   /* a worker left the response in res */
};

struct http_req {
    struct http_server *srv;
    struct MHD_Connection *conn;
    const char *url, *method, *version; /* libmicrohttpd's, valid until completion */
    char *body;
    size_t len, cap;
    bool too_large;
    struct trace_upload *upload; /* POST /api/traces: the body goes to a file (traces.h) */
    enum http_state state;
    struct query_param query[HTTP_MAX_QUERY];
    size_t nr_query;
    char client[64];       /* the client's address (http_client()) */
    bool query_over;       /* more than HTTP_MAX_QUERY arguments */
    const char *query_dup; /* a key given twice, or NULL */
    const char *query_bad; /* a key whose key or value is not UTF-8, or NULL */
    bool close;            /* answer with Connection: close (the framing was refused) */
    struct request req;
    struct response res;
    struct http_req *next; /* worker queue */
};

struct http_server {
    struct app *app;
    struct MHD_Daemon *daemon;
    unsigned port;
    struct guard guard;   /* who may write (guard.h) */
    atomic_bool open;     /* guard is set up: it needs the port, known once the daemon listens */
    struct watch *watch;  /* the headers' deadline (watch.h) */
    char url[96];
    pthread_mutex_t lock; /* the queue */
    pthread_cond_t work;
    struct http_req *head, *tail;
    unsigned queued;
    bool stopping;
    pthread_t *workers;
    unsigned nr_workers;
};

static void http_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void http_log(void *cls, const char *fmt, va_list ap)
{
    const struct http_server *srv = cls;

    if (srv->app->cfg.quiet)
        return;
    fputs("slublab serve: libmicrohttpd: ", stderr);
    vfprintf(stderr, fmt, ap);
}

static void blob_free_cb(void *cls)
{
    blob_put(cls);
}

static enum MHD_Result http_queue(struct http_req *hr)
{
    struct response *res = &hr->res;
    const bool api = strncmp(hr->url, "/api", 4) == 0;
    const bool is_stream = res->follower != NULL;
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (res->follower) {
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, HTTP_FOLLOW_FIRST, follow_read,
                                              res->follower,
                                              follow_detach);
        if (r) {
            follow_bind(res->follower, hr->conn,
                        hr->version && !strcmp(hr->version, MHD_HTTP_VERSION_1_1));
            res->follower = NULL; /* the response frees it */
        }
    } else if (res->blob) {
        r = MHD_create_response_from_buffer_with_free_callback_cls(res->blob->len, res->blob->text,
                                                                   blob_free_cb, res->blob);
        if (r)
            res->blob = NULL;
    } else if (res->body) {
        r = MHD_create_response_from_buffer_with_free_callback(res->len, res->body, free);
        if (r)
            res->body = NULL;
    } else {
        r = MHD_create_response_from_buffer(0, (void *)(uintptr_t) "", MHD_RESPMEM_PERSISTENT);
    }
    if (!r)
        return MHD_NO;
    if (res->content_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type);
    MHD_add_response_header(r, "Content-Security-Policy", CSP);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                            api || !res->cache ? "no-store"
                            : res->immutable   ? "public, max-age=31536000, immutable"
                                               : "no-cache");
    if (!api && res->cache) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
        if (res->etag[0])
            MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, res->etag);
        if (res->encoding)
            MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, res->encoding);
    }
    if (res->allow[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, res->allow);
    if (res->retry_after[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, res->retry_after);
    if (res->disposition[0])
        MHD_add_response_header(r, "Content-Disposition", res->disposition);
    if (is_stream) /* a reverse proxy (nginx) passes each message on as it comes */
        MHD_add_response_header(r, "X-Accel-Buffering", "no");
    if (hr->close)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    ret = MHD_queue_response(hr->conn, res->status ? res->status : 500, r);
    MHD_destroy_response(r);
    return ret;
}

/* Answer at once with an error (on the first call only for 403 and 413, before the body). */
static enum MHD_Result http_fail(struct http_req *hr, unsigned status, const char *code,
                                 const char *msg)
{
    route_error(&hr->res, status, code, "%s", msg);
    return http_queue(hr);
}

static enum MHD_Result http_collect_query(void *cls, enum MHD_ValueKind kind, const char *key,
                                          const char *value)
{
    struct http_req *hr = cls;

    (void)kind;
    if (!hr->query_bad && (!utf8_valid(key, strlen(key)) || (value && !utf8_valid(value, strlen(value)))))
        hr->query_bad = key;
    for (size_t i = 0; i < hr->nr_query && !hr->query_dup; i++)
        if (!strcmp(hr->query[i].key, key))
            hr->query_dup = key;
    if (hr->nr_query == HTTP_MAX_QUERY) {
        hr->query_over = true;
        return MHD_NO; /* no need to look further */
    }
    hr->query[hr->nr_query].key = key;
    hr->query[hr->nr_query].value = value;
    hr->nr_query++;
    return MHD_YES;
}

/* Queue @hr for a worker, suspending its connection.  False when the queue is full or closed. */
static bool http_enqueue(struct http_server *srv, struct http_req *hr)
{
    bool ok;

    pthread_mutex_lock(&srv->lock);
    ok = !srv->stopping && srv->queued < srv->app->cfg.max_queue;
    if (ok) {
        hr->state = HR_QUEUED;
        MHD_suspend_connection(hr->conn);
        hr->next = NULL;
        if (srv->tail)
            srv->tail->next = hr;
        else
            srv->head = hr;
        srv->tail = hr;
        srv->queued++;
        pthread_cond_signal(&srv->work);
    }
    pthread_mutex_unlock(&srv->lock);
    return ok;
}

void http_thread_engine(void)
{
    /* on Linux a nice value is a thread's own, named by its tid */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), HTTP_ENGINE_NICE);
}

static void *http_worker(void *arg)
{
    struct http_server *srv = arg;

    http_thread_engine();
    pthread_mutex_lock(&srv->lock);
    for (;;) {
        struct http_req *hr;

        while (!srv->head && !srv->stopping)
            pthread_cond_wait(&srv->work, &srv->lock);
        if (!srv->head)
            break; /* stopping, and the queue is drained */
        hr = srv->head;
        srv->head = hr->next;
        if (!srv->head)
            srv->tail = NULL;
        srv->queued--;
        pthread_mutex_unlock(&srv->lock);

        hr->req.may_block = true;
        if (router_dispatch(&hr->req, &hr->res) == ROUTE_WOULD_BLOCK)
            route_error(&hr->res, 500, "internal", "the handler would not run");
        hr->state = HR_READY;
        MHD_resume_connection(hr->conn);

        pthread_mutex_lock(&srv->lock);
    }
    pthread_mutex_unlock(&srv->lock);
    return NULL;
}

/* Tell the watch that @conn's request is being answered, or is done. */
static void http_watch_busy(struct http_server *srv, struct MHD_Connection *conn, bool busy)
{
    const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    if (srv->watch && ci)
        watch_busy(srv->watch, ci->socket_context, busy);
}

/* libmicrohttpd opened or closed a connection: watch it, or forget it. */
static void http_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                            enum MHD_ConnectionNotificationCode code)
{
    struct http_server *srv = cls;

    if (!srv->watch)
        return;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

        *socket_context = ci ? watch_open(srv->watch, ci->connect_fd) : NULL;
    } else {
        watch_close(srv->watch, *socket_context);
        *socket_context = NULL;
    }
}

/*
 * The client's address into @buf: the peer's, or, when the peer is the
 * configured reverse proxy, the last address in its X-Forwarded-For (the
 * one the proxy added; earlier ones are the client's own word).
 */
static void http_client(const struct http_server *srv, struct MHD_Connection *conn, char *buf,
                        size_t len)
{
    const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    const char *proxy = srv->app->cfg.trusted_proxy, *xff, *last;
    char addr[INET6_ADDRSTRLEN];
    unsigned char tmp[sizeof(struct in6_addr)];
    size_t n;

    snprintf(buf, len, "?");
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, buf,
                  (socklen_t)len);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, buf,
                  (socklen_t)len);
    if (!proxy || strcmp(buf, proxy) ||
        !(xff = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Forwarded-For")))
        return;
    last = strrchr(xff, ',');
    last = last ? last + 1 : xff;
    while (*last == ' ' || *last == '\t')
        last++;
    n = strcspn(last, " \t");
    if (n == 0 || n >= sizeof(addr))
        return;
    memcpy(addr, last, n);
    addr[n] = 0;
    if (inet_pton(AF_INET, addr, tmp) == 1 || inet_pton(AF_INET6, addr, tmp) == 1)
        snprintf(buf, len, "%s", addr);
}

/* The declared Content-Length is over @limit. */
static bool http_content_length_over(struct MHD_Connection *conn, unsigned long long limit)
{
    const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    unsigned long long v = 0;

    if (!cl)
        return false;
    for (; *cl >= '0' && *cl <= '9'; cl++) {
        if (v > limit)
            return true;
        v = v * 10 + (unsigned long long)(*cl - '0');
    }
    return v > limit;
}

/* The most body bytes request @hr may send: a snapshot import may carry a trace's op log. */
static size_t http_body_max(const struct http_req *hr)
{
    return !strcmp(hr->method, "POST") && !strcmp(hr->url, "/api/snapshots/import")
                   ? HTTP_MAX_IMPORT_BODY
                   : HTTP_MAX_BODY;
}

/* "the body is larger than 1 MiB", or the import's 64 MiB. */
static enum MHD_Result http_fail_too_large(struct http_req *hr)
{
    return http_fail(hr, 413, "too_large",
                     http_body_max(hr) == HTTP_MAX_BODY ? "the body is larger than 1 MiB"
                                                        : "the body is larger than 64 MiB");
}

static bool http_content_length_too_big(struct http_req *hr)
{
    return http_content_length_over(hr->conn, http_body_max(hr));
}

static bool http_content_length_too_big_to_read(struct MHD_Connection *conn)
{
    return http_content_length_over(conn, HTTP_DISCARD_MAX);
}

/* What the first call sees of a request's header fields (http_scan_header()). */
struct http_head {
    unsigned nr;         /* fields */
    size_t bytes;        /* their names and values, with ": " and CRLF */
    unsigned nr_length;  /* Content-Length fields */
    const char *length;  /* the first one's value */
    bool length_differs; /* a later Content-Length is not the first's */
    unsigned nr_host;    /* Host fields */
    const char *te;      /* Transfer-Encoding, or NULL */
    size_t target;       /* bytes of the request target: path and query */
};

static enum MHD_Result http_scan_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                        const char *value)
{
    struct http_head *h = cls;

    if (!value)
        value = "";
    if (kind == MHD_GET_ARGUMENT_KIND) {
        h->target += strlen(key) + strlen(value) + 2; /* "&k=v" */
        return MHD_YES;
    }
    h->nr++;
    h->bytes += strlen(key) + strlen(value) + 4;
    if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
        if (h->nr_length++ == 0)
            h->length = value;
        else if (strcmp(value, h->length))
            h->length_differs = true;
    } else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
        h->te = value;
    } else if (!strcasecmp(key, MHD_HTTP_HEADER_HOST)) {
        h->nr_host++;
    }
    return MHD_YES;
}

/*
 * The framing of @hr's request, seen whole on its first call: 0, or the
 * status of a refusal (400, 414, 431) with its message in @why.
 */
static unsigned http_check_framing(struct http_req *hr, char *why, size_t len)
{
    struct http_head h = {.target = strlen(hr->url)};
    const char *p;
    bool v11 = hr->version && !strcmp(hr->version, MHD_HTTP_VERSION_1_1);

    MHD_get_connection_values(hr->conn, MHD_HEADER_KIND | MHD_GET_ARGUMENT_KIND, http_scan_header,
                              &h);
    if (h.target > HTTP_MAX_URI) {
        snprintf(why, len, "the request target is longer than %u bytes", HTTP_MAX_URI);
        return 414;
    }
    if (h.nr > HTTP_MAX_HEADERS || h.bytes > HTTP_MAX_HEADER_BYTES) {
        snprintf(why, len, "at most %u header fields and %u bytes of them", HTTP_MAX_HEADERS,
                 HTTP_MAX_HEADER_BYTES);
        return 431;
    }
    if (h.nr_length > 1) {
        snprintf(why, len, "Content-Length is given %u times%s", h.nr_length,
                 h.length_differs ? ", with different values" : "");
        return 400;
    }
    for (p = h.length; p && *p; p++)
        if (*p < '0' || *p > '9')
            break;
    if (h.length && (!*h.length || *p)) {
        snprintf(why, len, "Content-Length is not a decimal number of bytes");
        return 400;
    }
    if (h.te && h.length) {
        snprintf(why, len, "Transfer-Encoding and Content-Length together (RFC 9112, 6.1)");
        return 400;
    }
    if (h.te && (strcasecmp(h.te, "chunked") || !v11)) {
        snprintf(why, len, "Transfer-Encoding \"%.32s\": only chunked, on HTTP/1.1", h.te);
        return 400;
    }
    if (v11 && h.nr_host != 1) {
        snprintf(why, len, "HTTP/1.1 needs exactly one Host header (RFC 9112, 3.2)");
        return 400;
    }
    return 0;
}

static enum MHD_Result http_access(void *cls, struct MHD_Connection *conn, const char *url,
                                   const char *method, const char *version, const char *upload_data,
                                   size_t *upload_data_size, void **req_cls)
{
    struct http_server *srv = cls;
    struct http_req *hr = *req_cls;
    char why[300];
    unsigned status;
    int ret;

    if (!hr) {
        if (!(hr = calloc(1, sizeof(*hr))))
            return MHD_NO;
        hr->srv = srv;
        hr->conn = conn;
        hr->url = url;
        hr->method = method;
        hr->version = version;
        *req_cls = hr;
        http_watch_busy(srv, conn, true);
        if ((status = http_check_framing(hr, why, sizeof(why)))) {
            hr->close = true;
            return http_fail(hr, status,
                             status == 414   ? "uri_too_long"
                             : status == 431 ? "headers_too_large"
                                             : "bad_request",
                             why);
        }
        if (!atomic_load_explicit(&srv->open, memory_order_acquire)) /* before http_start returned */
            return http_fail(hr, 503, "busy", "the server is starting");
        if (guard_check(&srv->guard, method,
                        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST),
                        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin"), why,
                        sizeof(why)))
            return http_fail(hr, 403, "forbidden", why);
        if (traces_is_upload(method, url)) {
            /* a trace is streamed to a temporary file, up to 256 MiB */
            if (http_content_length_over(conn, TRACES_MAX_BYTES))
                return http_fail(hr, 413, "too_large", "the trace is larger than 256 MiB");
            if ((ret = traces_upload_begin(srv->app->traces, &hr->upload))) {
                if (ret != -EBUSY)
                    return http_fail(hr, 503, "busy", "cannot store the upload");
                snprintf(hr->res.retry_after, sizeof(hr->res.retry_after), TRACES_RETRY_AFTER);
                snprintf(why, sizeof(why), "%u traces are being replayed; try again",
                         TRACES_MAX_RUNNING);
                return http_fail(hr, 503, "busy", why);
            }
            return MHD_YES;
        }
        if (http_content_length_too_big(hr)) {
            /* a body we would drop anyway is refused before it is sent;
             * a slightly large one is read and dropped, so that the client,
             * still writing, does not see the connection reset */
            hr->too_large = true;
            if (http_content_length_too_big_to_read(conn) || http_body_max(hr) > HTTP_DISCARD_MAX)
                return http_fail_too_large(hr);
        }
        return MHD_YES; /* answering now would cost keep-alive */
    }
    if (hr->state == HR_READY)
        return http_queue(hr);
    if (hr->state == HR_QUEUED)
        return MHD_YES; /* not ours to answer yet */
    if (*upload_data_size) {
        size_t n = *upload_data_size;

        *upload_data_size = 0;
        if (hr->upload) {
            traces_upload_write(hr->upload, upload_data, n);
            return hr->upload->len > TRACES_MAX_BYTES + HTTP_DISCARD_MAX ? MHD_NO : MHD_YES;
        }
        if (hr->too_large) {
            /* libmicrohttpd takes a response only before or after the body:
             * drop the rest and answer 413 at its end, or hang up on a client
             * that will not stop sending */
            hr->len += n;
            return hr->len > HTTP_DISCARD_MAX ? MHD_NO : MHD_YES;
        }
        if (hr->len + n > http_body_max(hr)) {
            hr->too_large = true;
            free(hr->body);
            hr->body = NULL;
            hr->len += n;
            return MHD_YES;
        }
        if (hr->len + n > hr->cap) {
            size_t cap = hr->cap ? hr->cap : 4096;
            char *b;

            while (cap < hr->len + n)
                cap *= 2;
            if (!(b = realloc(hr->body, cap)))
                return MHD_NO;
            hr->body = b;
            hr->cap = cap;
        }
        memcpy(hr->body + hr->len, upload_data, n);
        hr->len += n;
        return MHD_YES;
    }
    if (hr->too_large)
        return http_fail_too_large(hr);
    if (hr->upload && hr->upload->too_large)
        return http_fail(hr, 413, "too_large", "the trace is larger than 256 MiB");
    if (hr->len && !hr->upload &&
        !guard_is_json(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_CONTENT_TYPE)))
        return http_fail(hr, 415, "unsupported_media_type",
                         "the body is JSON: send it with Content-Type: application/json");
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, http_collect_query, hr);
    if (hr->query_over) {
        snprintf(why, sizeof(why), "at most %u query arguments, not more", HTTP_MAX_QUERY);
        return http_fail(hr, 400, "bad_request", why);
    }
    if (hr->query_bad) {
        snprintf(why, sizeof(why), "query argument \"%.64s\" is not valid UTF-8 text", hr->query_bad);
        return http_fail(hr, 400, "bad_request", why);
    }
    if (hr->query_dup) {
        snprintf(why, sizeof(why), "query argument \"%.64s\" is given twice", hr->query_dup);
        return http_fail(hr, 400, "bad_request", why);
    }
    hr->req.app = srv->app;
    hr->req.method = method;
    hr->req.path = url;
    hr->req.query = hr->query;
    hr->req.nr_query = hr->nr_query;
    hr->req.authorization =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    hr->req.accept_encoding =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    hr->req.if_none_match =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    http_client(srv, conn, hr->client, sizeof(hr->client));
    hr->req.client = hr->client;
    hr->req.body = hr->body;
    hr->req.body_len = hr->len;
    hr->req.upload = hr->upload;
    hr->req.may_block = false;
    if (atomic_load(&srv->app->stopping))
        return http_fail(hr, 503, "busy", "the server is shutting down");
    ret = router_dispatch(&hr->req, &hr->res);
    if (ret != ROUTE_WOULD_BLOCK)
        return http_queue(hr);
    if (!http_enqueue(srv, hr))
        return http_fail(hr, 503, "busy", "too many requests are waiting; try again");
    return MHD_YES;
}

static void http_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                           enum MHD_RequestTerminationCode toe)
{
    struct http_req *hr = *req_cls;

    (void)toe;
    http_watch_busy(cls, conn, false);
    if (!hr)
        return;
    response_release(&hr->res);
    traces_upload_free(hr->upload);
    free(hr->body);
    free(hr);
    *req_cls = NULL;
}

static int http_hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/*
 * Percent-decode @s in place, as libmicrohttpd would, except that "%00"
 * becomes 0x01: the path and arguments are C strings, and an encoded NUL
 * must not cut "/index.html%00.js" down to "/index.html".  Every handler
 * rejects control characters.
 */
static size_t http_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    char *w = s;
    const char *r = s;

    (void)cls;
    (void)conn;
    while (*r) {
        int hi, lo;

        if (r[0] == '%' && (hi = http_hex(r[1])) >= 0 && (lo = http_hex(r[2])) >= 0) {
            int c = hi * 16 + lo;

            *w++ = (char)(c ? c : 1);
            r += 3;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

/* Fill @ss from "127.0.0.1", "::1", "0.0.0.0", "localhost"; false when not an address. */
static bool http_address(const char *listen, unsigned port, struct sockaddr_storage *ss,
                         socklen_t *len, bool *ipv6)
{
    struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

    memset(ss, 0, sizeof(*ss));
    if (!strcmp(listen, "localhost"))
        listen = "127.0.0.1";
    if (inet_pton(AF_INET, listen, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)port);
        *len = sizeof(*in4);
        *ipv6 = false;
        return true;
    }
    if (inet_pton(AF_INET6, listen, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*in6);
        *ipv6 = true;
        return true;
    }
    return false;
}

/* Under no lock, before any request: the follow links' base in @app->public_url: the
 * option's, else the address listened on; on every address (0.0.0.0, ::), the first
 * address of an interface that is not loopback, as the guard lists them. */
static void http_public_url(struct http_server *srv, struct app *app)
{
    const char *u = app->cfg.public_url;
    size_t n;

    if (!u && (!strcmp(app->cfg.listen, "0.0.0.0") || !strcmp(app->cfg.listen, "::")))
        for (size_t i = 0; i < srv->guard.nr_origins && !u; i++) {
            const char *o = srv->guard.origins[i];

            if (strncmp(o, "http://127.", 11) && strncmp(o, "http://localhost", 16) &&
                strncmp(o, "http://[::1]", 12) && strncmp(o, "http://0.0.0.0", 14) &&
                strncmp(o, "http://[::]", 11) && strchr(o + 7, ':'))
                u = o;
        }
    snprintf(app->public_url, sizeof(app->public_url), "%s", u ? u : srv->url);
    n = strlen(app->public_url);
    while (n && app->public_url[n - 1] == '/')
        app->public_url[--n] = '\0';
}

int http_start(struct app *app, struct http_server **out, struct strbuf *err)
{
    struct http_server *srv = calloc(1, sizeof(*srv));
    struct sockaddr_storage ss;
    const union MHD_DaemonInfo *info;
    socklen_t slen;
    unsigned flags, i;
    bool ipv6;

    if (!srv)
        return -ENOMEM;
    srv->app = app;
    pthread_mutex_init(&srv->lock, NULL);
    pthread_cond_init(&srv->work, NULL);
    if (!http_address(app->cfg.listen, app->cfg.port, &ss, &slen, &ipv6)) {
        strbuf_printf(err, "--listen: \"%s\" is not an IPv4 or IPv6 address", app->cfg.listen);
        goto err_free;
    }
    if (app->cfg.header_timeout && watch_start(app->cfg.header_timeout, &srv->watch)) {
        strbuf_puts(err, "cannot start the connection watch");
        goto err_free;
    }
    srv->nr_workers = app->cfg.workers ? app->cfg.workers : 1;
    srv->workers = calloc(srv->nr_workers, sizeof(*srv->workers));
    if (!srv->workers)
        goto err_free;
    for (i = 0; i < srv->nr_workers; i++) {
        if (pthread_create(&srv->workers[i], NULL, http_worker, srv)) {
            srv->nr_workers = i;
            strbuf_puts(err, "cannot start the worker threads");
            goto err_stop;
        }
    }
    flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
            MHD_USE_ERROR_LOG | (ipv6 ? MHD_USE_IPv6 : 0);
    srv->daemon = MHD_start_daemon(
            flags, (uint16_t)app->cfg.port, NULL, NULL, http_access, srv,
            MHD_OPTION_EXTERNAL_LOGGER, http_log, srv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
            MHD_OPTION_THREAD_POOL_SIZE,
            (unsigned)(app->cfg.http_threads ? app->cfg.http_threads : 1),
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)app->cfg.timeout,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_POOL, MHD_OPTION_CONNECTION_LIMIT,
            (unsigned)app->cfg.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
            (unsigned)app->cfg.max_per_ip, MHD_OPTION_NOTIFY_CONNECTION, http_connection, srv,
            MHD_OPTION_NOTIFY_COMPLETED, http_completed, srv, MHD_OPTION_UNESCAPE_CALLBACK,
            http_unescape, srv, MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1, MHD_OPTION_END);
    if (!srv->daemon) {
        strbuf_printf(err, "cannot listen on %s port %u (in use, or not an address of this host)",
                      app->cfg.listen, app->cfg.port);
        goto err_stop;
    }
    info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : app->cfg.port;
    if (guard_init(&srv->guard, app->cfg.listen, srv->port, app->cfg.allow_origin, err))
        goto err_stop;
    atomic_store_explicit(&srv->open, true, memory_order_release);
    snprintf(srv->url, sizeof(srv->url), ipv6 ? "http://[%s]:%u/" : "http://%s:%u/",
             strcmp(app->cfg.listen, "localhost") ? app->cfg.listen : "127.0.0.1", srv->port);
    http_public_url(srv, app);
    *out = srv;
    return 0;

err_stop:
    http_stop(srv);
    return -EIO;
err_free:
    watch_stop(srv->watch);
    pthread_cond_destroy(&srv->work);
    pthread_mutex_destroy(&srv->lock);
    free(srv->workers);
    free(srv);
    return -EINVAL;
}

const char *http_url(const struct http_server *srv)
{
    return srv->url;
}

void http_stop(struct http_server *srv)
{
    unsigned i;

    if (!srv)
        return;
    atomic_store(&srv->app->stopping, true);
    /* workers finish the queue and resume every suspended request */
    pthread_mutex_lock(&srv->lock);
    srv->stopping = true;
    pthread_cond_broadcast(&srv->work);
    pthread_mutex_unlock(&srv->lock);
    for (i = 0; i < srv->nr_workers; i++)
        pthread_join(srv->workers[i], NULL);
    /* followers end their streams and are suspended no more */
    follow_hub_stop(srv->app->follow);
    if (srv->daemon)
        MHD_stop_daemon(srv->daemon);
    watch_stop(srv->watch);
    pthread_cond_destroy(&srv->work);
    pthread_mutex_destroy(&srv->lock);
    guard_release(&srv->guard);
    free(srv->workers);
    free(srv);
}
