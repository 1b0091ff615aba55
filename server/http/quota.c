/*
 * quota.c: creations per client per hour (see quota.h).
 *
 * A fixed window, the clock hour (or another number of seconds, for the
 * lecture answers' rate): an open-addressed table of clients, each with the
 * window it last counted in and how many it took in it.  Entries of a past
 * window count as empty, so the table never needs sweeping; when it is
 * full of this hour's clients (QUOTA_SLOTS of them), more clients pass
 * uncounted rather than be refused for others' use.
 */
#include "http/quota.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUOTA_SLOTS 8192u /* a power of two */
#define QUOTA_ADDR  64u

struct quota_entry {
    char addr[QUOTA_ADDR]; /* "" when never used */
    uint64_t hour;         /* the window of count; an older one counts as 0 */
    unsigned count;
};

struct quota {
    pthread_mutex_t lock;
    unsigned per_hour; /* per window */
    unsigned window;   /* seconds: 3600 for the creations */
    struct quota_entry slot[QUOTA_SLOTS];
};

int quota_new_window(unsigned limit, unsigned seconds, struct quota **out)
{
    struct quota *q = calloc(1, sizeof(*q));

    if (!q)
        return -ENOMEM;
    pthread_mutex_init(&q->lock, NULL);
    q->per_hour = limit;
    q->window = seconds ? seconds : 1;
    *out = q;
    return 0;
}

int quota_new(unsigned per_hour, struct quota **out)
{
    return quota_new_window(per_hour, 3600u, out);
}

void quota_free(struct quota *q)
{
    if (!q)
        return;
    pthread_mutex_destroy(&q->lock);
    free(q);
}

static unsigned quota_hash(const char *s)
{
    unsigned h = 2166136261u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

bool quota_take(struct quota *q, const char *client, unsigned *retry)
{
    struct timespec now;
    struct quota_entry *e = NULL;
    uint64_t hour;
    bool ok = true;

    if (!q || !q->per_hour || !client)
        return true;
    clock_gettime(CLOCK_REALTIME, &now);
    hour = (uint64_t)now.tv_sec / q->window;
    pthread_mutex_lock(&q->lock);
    for (unsigned i = 0, h = quota_hash(client); i < QUOTA_SLOTS; i++) {
        struct quota_entry *s = &q->slot[(h + i) & (QUOTA_SLOTS - 1)];

        if (!strncmp(s->addr, client, QUOTA_ADDR - 1)) {
            e = s;
            break;
        }
        if (!e && (!s->addr[0] || s->hour != hour))
            e = s; /* the first free (or stale) slot, unless the client turns up further on */
        if (!s->addr[0])
            break;
    }
    if (e) {
        if (strncmp(e->addr, client, QUOTA_ADDR - 1) || e->hour != hour) {
            snprintf(e->addr, sizeof(e->addr), "%s", client);
            e->hour = hour;
            e->count = 0;
        }
        if (e->count >= q->per_hour) {
            ok = false;
            *retry = (unsigned)(q->window - (uint64_t)now.tv_sec % q->window);
        } else {
            e->count++;
        }
    }
    pthread_mutex_unlock(&q->lock);
    return ok;
}
