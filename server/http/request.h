/*
 * request.h: a request and its response without HTTP, and the helpers
 * every handler shares (request.c).
 *
 * http.c turns a libmicrohttpd request into a struct request (method, the
 * decoded path, query arguments, the Authorization header, the whole body)
 * and a filled struct response back into a libmicrohttpd response, so a
 * handler never touches libmicrohttpd and tests and the fuzzer call it
 * directly (routes.h).
 *
 * Every error is {"error":{"code":"...","message":"..."}} with its status:
 * 400 bad_json / bad_request, 403 forbidden, 404 not_found, 405
 * method_not_allowed, 409 conflict, 413 too_large, 414 uri_too_long and
 * 431 headers_too_large (http.c, before any handler), 422 unprocessable,
 * 429 session_limit / quota / rate_limited, 500 internal, 503 busy.
 */
#ifndef SLUBLAB_SERVER_HTTP_REQUEST_H
#define SLUBLAB_SERVER_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/blob.h"
#include "base/strbuf.h"

#define ROUTE_WOULD_BLOCK 1
#define ROUTE_MAX_ARGS    2
#define ROUTE_MAX_DEPTH   256 /* nesting of a JSON body, at most */
#define HTTP_MAX_BODY     (1u << 20) /* bytes of a request body; 413 beyond */
/* bytes of a snapshot import's body: a trace's export carries its op log */
#define HTTP_MAX_IMPORT_BODY (64u << 20)

struct app;
struct follower;
struct trace_upload;

struct query_param {
    const char *key, *value;
};

struct request {
    struct app *app;
    const char *method;              /* "GET", "POST", "DELETE", ...; HEAD comes as GET */
    const char *path;                /* percent-decoded, without the query */
    const struct query_param *query; /* in request order */
    size_t nr_query;
    const char *authorization; /* the Authorization header, or NULL */
    const char *accept_encoding; /* the Accept-Encoding header, or NULL */
    const char *if_none_match;   /* the If-None-Match header, or NULL */
    const char *client;        /* the client's address (quota.h), or NULL */
    const char *body;          /* body_len bytes, not NUL-terminated; NULL when empty */
    size_t body_len;
    const char *args[ROUTE_MAX_ARGS]; /* the path's "*" segments, set by the router */
    bool may_block;                   /* routes.h: a handler's two runs */
    struct trace_upload *upload; /* POST /api/traces: the body, streamed to a file (traces.h) */
};

struct response {
    unsigned status;
    const char *content_type; /* a static string */
    char *body;               /* owned (free()); or NULL */
    size_t len;
    struct blob *blob;         /* instead of body: a shared text (one reference owned) */
    struct follower *follower; /* instead of body: an event stream (owned) */
    bool cache;                /* static file: may be cached (revalidated); API: never */
    bool immutable;            /* static file named by its content: never revalidated */
    const char *encoding;      /* Content-Encoding of the body ("br", "gzip"), or NULL */
    char etag[48];             /* ETag header of a static file, or "" */
    char allow[64];            /* Allow header of a 405 */
    char retry_after[8];       /* Retry-After header of a 503 */
    char disposition[96];      /* Content-Disposition header, or "" */
};

/* Free what @res owns (body, blob reference, follower).  Cannot fail. */
void response_release(struct response *res);

/* Fill @res with an error; returns 0 so a handler can `return route_error(...)`. */
int route_error(struct response *res, unsigned status, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Fill @res with @json (taken and freed) and @status; 500 when it cannot be printed. */
int route_json(struct response *res, unsigned status, cJSON *json);
/* A "links" object: key @links[i][0] -> @links[i][1], a path holding "%s"
 * once, with @id in its place.  NULL when out of memory. */
cJSON *route_links(const char *id, const char *const links[][2], size_t n);
/* Answer 200 with the JSON text @b (its reference taken).  Returns 0. */
int route_blob(struct response *res, struct blob *b);
/* Answer 200 with the JSON text built in @sb (its buffer taken).  Returns 0. */
int route_text(struct response *res, struct strbuf *sb);
/* Answer 200 with the event stream @f (taken), or 503 `busy` when @f is
 * NULL (no follower could be made).  Returns 0. */
int route_stream(struct response *res, struct follower *f);
/* A creating route's first step (it writes to the store, and counts
 * against the quota): ROUTE_WOULD_BLOCK when !req->may_block, -1 after
 * route_quota()'s 429, or 0 to go on. */
int route_creating(const struct request *req, struct response *res);
/* The body as JSON; NULL after filling @res with a 400 (empty or malformed). */
cJSON *route_body(const struct request *req, struct response *res);
/* The body as a JSON object of keys in @allowed (NULL-terminated); NULL
 * after a 400 (route_body(), then route_check_keys()). */
cJSON *route_body_object(const struct request *req, struct response *res,
                         const char *const *allowed);
/* Reject keys of @obj not in @allowed (NULL-terminated): false after a 400. */
bool route_check_keys(const cJSON *obj, const char *const *allowed, struct response *res);
/* route_check_keys() where a non-object is answered with @expected, the
 * body the route takes ("expected an object {\"at\", ...}"). */
bool route_check_object(const cJSON *obj, const char *const *allowed, const char *expected,
                        struct response *res);
/* An integer field of @obj: 1 absent, 0 stored, -1 after a 400 (wrong type, negative, > max). */
int route_field_u64(const cJSON *obj, const char *key, uint64_t max, uint64_t *out,
                    struct response *res);
/* Count a creation against the client's quota: 0, or -1 after a 429
 * `quota` with Retry-After (quota.h). */
int route_quota(const struct request *req, struct response *res);
/* Map a session or store error to its response. */
int route_session_error(struct response *res, int err, const char *message);

#endif /* SLUBLAB_SERVER_HTTP_REQUEST_H */
