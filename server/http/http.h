/*
 * http.h: the HTTP server: libmicrohttpd in front of the request handlers.
 *
 * libmicrohttpd's own threads (a small pool polling with epoll) read
 * requests, accumulate bodies up to HTTP_MAX_BODY (413 beyond), and give
 * each complete request to router_dispatch() once, not allowed to block.
 * A handler that needs engine work, a session lock or the disk answers
 * ROUTE_WOULD_BLOCK; the connection is then suspended and the request goes
 * to a queue served by worker threads, which run the handler again and
 * resume the connection with the answer.  So a long replay ties up one
 * worker, never a connection thread, and other sessions go on.
 *
 * Every handler call happens after libmicrohttpd's first call for the
 * request (the first call only sets up state): a response queued on the
 * first call makes libmicrohttpd close the connection after it, which costs
 * keep-alive and about three quarters of the throughput.  The one exception
 * is a 413 for a declared Content-Length over the cap, where closing is the
 * point.
 */
#ifndef SLUBLAB_SERVER_HTTP_HTTP_H
#define SLUBLAB_SERVER_HTTP_HTTP_H

#include "base/strbuf.h"

struct app;
struct http_server;

/* Bind and start serving @app.  0, or a negative errno with the reason in @err. */
int http_start(struct app *app, struct http_server **out, struct strbuf *err);
/* The address to print, "http://127.0.0.1:8080/". */
const char *http_url(const struct http_server *srv);
/* Stop: finish queued work, end follower streams, close every connection.  NULL is fine. */
void http_stop(struct http_server *srv);
/*
 * Lower the calling thread's priority by HTTP_ENGINE_NICE: engine work
 * (workers, trace replays) yields the CPU to the connection threads, so
 * that health and cached answers stay quick while replays fill the cores.
 * Cannot fail (a refusal leaves the priority as it was).
 */
void http_thread_engine(void);

#endif /* SLUBLAB_SERVER_HTTP_HTTP_H */
