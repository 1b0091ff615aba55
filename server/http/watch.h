/*
 * watch.h: a deadline for a request's headers, against clients that hold
 * a connection open by sending a byte now and then (watch.c).
 *
 * http.c opens a watch entry when libmicrohttpd accepts a connection
 * (watch_open()), marks it busy from a request's headers to the end of its
 * answer, and closes the entry with the connection.  A connection that
 * waits longer than the deadline, for its first request or between two,
 * is shut down.
 */
#ifndef SLUBLAB_SERVER_HTTP_WATCH_H
#define SLUBLAB_SERVER_HTTP_WATCH_H

#include <stdbool.h>
#include <stdint.h>

struct watch;

/* Start the watcher with a deadline of @timeout_s seconds.  0, -ENOMEM or -EAGAIN. */
int watch_start(unsigned timeout_s, struct watch **out);
/* Stop it, after every connection was closed; NULL is fine. */
void watch_stop(struct watch *w);
/* Watch the connection on socket @fd, waiting from now: its entry, or
 * NULL (out of memory: not watched). */
void *watch_open(struct watch *w, int fd);
/* Forget entry @ctx (NULL is fine). */
void watch_close(struct watch *w, void *ctx);
/* A request of entry @ctx is being answered (@busy), or is done. */
void watch_busy(struct watch *w, void *ctx, bool busy);
/* Connections shut down so far. */
uint64_t watch_nr_shut(struct watch *w);

#endif /* SLUBLAB_SERVER_HTTP_WATCH_H */
