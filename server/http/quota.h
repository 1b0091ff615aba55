/*
 * quota.h: how much one client may create in an hour (quota.c).
 *
 * A client is an address: the connection's peer, or, when the peer is the
 * reverse proxy the operator named (--trusted-proxy), the last address of
 * X-Forwarded-For.  Each may create at most --quota sessions, snapshots
 * and trace uploads together in a clock hour; past that, 429 `quota`
 * until the hour turns.  A class behind one NAT shares one address, so the
 * default is generous; it is there so that one runaway script cannot fill
 * the disk.
 */
#ifndef SLUBLAB_SERVER_HTTP_QUOTA_H
#define SLUBLAB_SERVER_HTTP_QUOTA_H

#include <stdbool.h>
#include <stdint.h>

struct quota;

/* A table for @per_hour creations per client an hour (0: no limit).  0 or -ENOMEM. */
int quota_new(unsigned per_hour, struct quota **out);
/* The same for @limit takings per client in each window of @seconds (>= 1) of
 * the clock: the lecture answers' rate (answers.h).  0 or -ENOMEM. */
int quota_new_window(unsigned limit, unsigned seconds, struct quota **out);
/* NULL is fine. */
void quota_free(struct quota *q);
/* Take one creation for @client: true, or false with the seconds until the
 * window (the hour) turns in *retry.  Cannot fail (a full table lets the request through). */
bool quota_take(struct quota *q, const char *client, unsigned *retry);

#endif /* SLUBLAB_SERVER_HTTP_QUOTA_H */
