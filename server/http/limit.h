/*
 * limit.h: the CPU time heavy writes may take, per client (limit.c).
 *
 * A heavy write (a session built, operations applied, a fork, a snapshot
 * saved, imported or opened, a comparison kept) replays the engine, which
 * can cost a second of CPU.  Each is charged the CPU time its handler took
 * (at least LIMIT_MIN_CHARGE_US) against two token buckets: its client's
 * address, and the token it carries (limit_key()).  A bucket holds
 * --heavy-cpu seconds at most and refills at a 240th of that a second; an
 * empty one refuses the next heavy write with 429 `rate_limited` and
 * Retry-After until it refills.  The token's bucket is a quarter of the
 * address's.
 *
 * Sizing: a class of 300 behind one NAT shares one address.  A lesson's
 * heavy writes cost milliseconds each (tens of them per student over an
 * hour), so the default of 120 s a burst and 0.5 s a second is never met by
 * a class; one client importing large snapshots without pause is held to
 * a quarter of the machine's two cores.
 */
#ifndef SLUBLAB_SERVER_HTTP_LIMIT_H
#define SLUBLAB_SERVER_HTTP_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "http/request.h"

#define LIMIT_HEAVY_CPU      120u  /* --heavy-cpu: seconds of CPU in an address's burst */
#define LIMIT_REFILL_DIVISOR 240u  /* a bucket refills its whole in this many seconds */
#define LIMIT_MIN_CHARGE_US  2000u /* the least a heavy write is charged */

struct limiter;

/* A table for buckets of @burst_s CPU seconds (0: no limit).  0 or -ENOMEM. */
int limiter_new(unsigned burst_s, struct limiter **out);
/* NULL is fine. */
void limiter_free(struct limiter *l);

/*
 * The key a request's heavy writes are counted by besides its address: the
 * token it carries (Authorization: Bearer), or NULL.  The one place to
 * choose it: a lecture follower's own token goes here when it has one.
 */
const char *limit_key(const struct request *req);
/* May @req run a heavy write now?  True, or false with the seconds until it
 * may in *retry.  Cannot fail (a full table lets the request through). */
bool limiter_allow(struct limiter *l, const struct request *req, unsigned *retry);
/* Charge @req's buckets @cpu_us microseconds of CPU.  Cannot fail. */
void limiter_charge(struct limiter *l, const struct request *req, uint64_t cpu_us);

#endif /* SLUBLAB_SERVER_HTTP_LIMIT_H */
