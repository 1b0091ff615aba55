/*
 * watch.c: a deadline for a request's headers (see watch.h).
 *
 * libmicrohttpd closes a connection that stays silent for --timeout
 * seconds, but one byte every few seconds keeps it open forever: a client
 * that never finishes its headers holds a connection slot at no cost to
 * itself (slowloris).  Every connection is tracked from the moment it
 * opens; it is waiting while no request of it is being answered (before
 * its first request's headers are complete, and between two requests), and
 * busy from a request's headers until its answer is done.  A thread looks
 * once a second and shuts down the socket of any connection that has been
 * waiting longer than the deadline; libmicrohttpd then sees the end of the
 * stream and closes it as usual.
 *
 * The socket is shut down through a duplicate of its descriptor, made when
 * the connection opened and closed when it is closed, so the number can
 * never name another connection's socket in between.
 */
#include "http/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct watched {
    struct watched *prev, *next;
    int fd;         /* our duplicate of the socket; -1 when it could not be made */
    bool busy;      /* a request is being answered */
    bool shut;      /* shut down once already */
    uint64_t since; /* when it began to wait, monotonic ms */
};

struct watch {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct watched head; /* list sentinel */
    unsigned timeout_ms;
    bool stopping;
    pthread_t thread;
    uint64_t nr_shut;
};

static uint64_t watch_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void *watch_run(void *arg)
{
    struct watch *w = arg;

    pthread_mutex_lock(&w->lock);
    while (!w->stopping) {
        struct timespec until;
        uint64_t now = watch_now();

        for (struct watched *c = w->head.next; c != &w->head; c = c->next) {
            if (c->busy || c->shut || c->fd < 0 || now - c->since < w->timeout_ms)
                continue;
            shutdown(c->fd, SHUT_RDWR);
            c->shut = true;
            w->nr_shut++;
        }
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int watch_start(unsigned timeout_s, struct watch **out)
{
    struct watch *w = calloc(1, sizeof(*w));

    if (!w)
        return -ENOMEM;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    w->head.next = w->head.prev = &w->head;
    w->timeout_ms = timeout_s * 1000u;
    if (pthread_create(&w->thread, NULL, watch_run, w)) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return -EAGAIN;
    }
    *out = w;
    return 0;
}

void watch_stop(struct watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    /* every connection was closed (and unlinked) before the daemon stopped */
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

void *watch_open(struct watch *w, int fd)
{
    struct watched *c = calloc(1, sizeof(*c));

    if (!c)
        return NULL; /* not watched: libmicrohttpd's timeout still applies */
    c->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    c->since = watch_now();
    pthread_mutex_lock(&w->lock);
    c->next = &w->head;
    c->prev = w->head.prev;
    w->head.prev->next = c;
    w->head.prev = c;
    pthread_mutex_unlock(&w->lock);
    return c;
}

void watch_close(struct watch *w, void *ctx)
{
    struct watched *c = ctx;

    if (!c)
        return;
    pthread_mutex_lock(&w->lock);
    c->prev->next = c->next;
    c->next->prev = c->prev;
    pthread_mutex_unlock(&w->lock);
    if (c->fd >= 0)
        close(c->fd);
    free(c);
}

void watch_busy(struct watch *w, void *ctx, bool busy)
{
    struct watched *c = ctx;

    if (!c)
        return;
    pthread_mutex_lock(&w->lock);
    c->busy = busy;
    if (!busy)
        c->since = watch_now();
    pthread_mutex_unlock(&w->lock);
}

uint64_t watch_nr_shut(struct watch *w)
{
    uint64_t n;

    pthread_mutex_lock(&w->lock);
    n = w->nr_shut;
    pthread_mutex_unlock(&w->lock);
    return n;
}
