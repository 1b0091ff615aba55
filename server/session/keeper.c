/*
 * keeper.c: a scenario run's end of batch 0 written after the open answered
 * (see keeper.h).
 *
 * The queue is a list through run->keep_next under the keeper's mutex; a
 * run's keep_state says where it is (queued, being written by someone, or
 * neither), so that a thread freeing a run takes it off the queue and
 * writes it itself, or waits while the keeper writes it.  The keeper holds
 * no reference to a queued run: a queued run is freed (and written) like
 * any other, which keeps eviction free to choose it.  The thread is started
 * when a run is queued and ends when the queue is empty, so that where
 * threads only run after the request that made them (the WebAssembly
 * module, wasm/include/pthread.h) the end is written after the open too.
 */
#include "session/keeper.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session/session_internal.h"

struct keeper {
    pthread_mutex_t lock;
    pthread_cond_t done; /* a write finished, or the thread ended */
    struct session_run *head, *tail;
    pthread_t thread;
    bool running;  /* a thread works through the queue (it ends when it is empty) */
    bool joinable; /* @thread was started and is not joined yet */
    bool held, busy;
    uint64_t by_keeper, by_free;
};

/* Write @r's end (its lock not held by the caller); a failure only costs a
 * replay when it is built again. */
static void keeper_write(struct session_run *r)
{
    struct session_keep kp;

    pthread_mutex_lock(&r->lock);
    if (session_keep_prepare(r, &kp) || !kp.m) {
        (void)session_keep_finish(r, &kp); /* only the images that waited */
        pthread_mutex_unlock(&r->lock);
        session_keep_release(&kp);
        return;
    }
    pthread_mutex_unlock(&r->lock);
    /* the packing, most of the cost, holds no lock a request waits for */
    if (session_keep_pack(&kp))
        session_keep_release(&kp); /* the images that waited are stored still */
    pthread_mutex_lock(&r->lock);
    (void)session_keep_finish(r, &kp);
    pthread_mutex_unlock(&r->lock);
    session_keep_release(&kp);
}

/* Under k->lock: the first queued run, taken off the queue, or NULL. */
static struct session_run *keeper_pop(struct keeper *k)
{
    struct session_run *r = k->head;

    if (r) {
        k->head = r->keep_next;
        if (!k->head)
            k->tail = NULL;
        r->keep_next = NULL;
    }
    return r;
}

/* Under k->lock: write @r (taken off the queue) with the lock let go meanwhile. */
static void keeper_write_popped(struct keeper *k, struct session_run *r)
{
    r->keep_state = SESSION_KEEP_WRITING;
    k->busy = true;
    pthread_mutex_unlock(&k->lock);
    keeper_write(r);
    pthread_mutex_lock(&k->lock);
    r->keep_state = SESSION_KEEP_NONE;
    atomic_store(&r->keeper, NULL);
    k->busy = false;
    k->by_keeper++;
    pthread_cond_broadcast(&k->done);
}

/* The thread: the queue in order until it is empty (or held), then it ends. */
static void *keeper_run(void *arg)
{
    struct keeper *k = arg;
    struct session_run *r;

#if defined(SYS_gettid) && defined(PRIO_PROCESS)
    /* on Linux a nice value is a thread's own, named by its tid */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), KEEPER_NICE);
#endif
#ifdef __linux__
    (void)prctl(PR_SET_NAME, KEEPER_THREAD_NAME, 0, 0, 0); /* top, ps -L */
#endif
    pthread_mutex_lock(&k->lock);
    while (!k->held && (r = keeper_pop(k)))
        keeper_write_popped(k, r);
    k->running = false;
    pthread_cond_broadcast(&k->done);
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

/* Under k->lock: a thread for what is queued, unless one runs.  When none
 * can start, what is queued waits for the next add or its run's free. */
static void keeper_start(struct keeper *k)
{
    if (k->running || k->held || !k->head)
        return;
    if (k->joinable) { /* it ended (running is false): this returns at once */
        pthread_join(k->thread, NULL);
        k->joinable = false;
    }
    if (!pthread_create(&k->thread, NULL, keeper_run, k)) {
        k->running = true;
        k->joinable = true;
    }
}

int keeper_new(struct keeper **out)
{
    struct keeper *k = calloc(1, sizeof(*k));

    if (!k)
        return -ENOMEM;
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->done, NULL);
    *out = k;
    return 0;
}

/* Under k->lock: write what is queued in this thread, and wait for the keeper's write. */
static void keeper_write_all(struct keeper *k)
{
    struct session_run *r;

    while ((r = keeper_pop(k)))
        keeper_write_popped(k, r);
    while (k->busy)
        pthread_cond_wait(&k->done, &k->lock);
}

void keeper_free(struct keeper *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&k->lock);
    k->held = true; /* its thread ends after the write it is doing */
    keeper_write_all(k);
    pthread_mutex_unlock(&k->lock);
    if (k->joinable)
        pthread_join(k->thread, NULL);
    pthread_cond_destroy(&k->done);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

void keeper_add(struct keeper *k, struct session_run *r)
{
    pthread_mutex_lock(&k->lock);
    r->keep_state = SESSION_KEEP_QUEUED;
    r->keep_next = NULL;
    atomic_store(&r->keeper, k);
    if (k->tail)
        k->tail->keep_next = r;
    else
        k->head = r;
    k->tail = r;
    keeper_start(k);
    pthread_mutex_unlock(&k->lock);
}

/* Take @r off the queue, once the keeper is done writing it if it is; true
 * when it was queued (and is not now).  Takes and lets go of k->lock. */
static bool keeper_unqueue(struct keeper *k, struct session_run *r)
{
    bool queued;

    pthread_mutex_lock(&k->lock);
    while (r->keep_state == SESSION_KEEP_WRITING)
        pthread_cond_wait(&k->done, &k->lock);
    queued = r->keep_state == SESSION_KEEP_QUEUED;
    if (queued) {
        struct session_run **pp = &k->head, *prev = NULL;

        while (*pp != r) {
            prev = *pp;
            pp = &(*pp)->keep_next;
        }
        *pp = r->keep_next;
        if (k->tail == r)
            k->tail = prev;
        r->keep_next = NULL;
        r->keep_state = SESSION_KEEP_NONE;
        k->by_free++;
    }
    atomic_store(&r->keeper, NULL);
    pthread_mutex_unlock(&k->lock);
    return queued;
}

void keeper_forget(struct keeper *k, struct session_run *r)
{
    if (keeper_unqueue(k, r)) /* nobody else refers to it now: written here, before it goes */
        keeper_write(r);
}

void keeper_cancel(struct keeper *k, struct session_run *r)
{
    (void)keeper_unqueue(k, r);
}

void keeper_hold(struct keeper *k, bool hold)
{
    pthread_mutex_lock(&k->lock);
    k->held = hold;
    keeper_start(k);
    pthread_mutex_unlock(&k->lock);
}

void keeper_drain(struct keeper *k)
{
    pthread_mutex_lock(&k->lock);
    keeper_write_all(k);
    pthread_mutex_unlock(&k->lock);
}

void keeper_counts(struct keeper *k, uint64_t *by_keeper, uint64_t *by_free)
{
    pthread_mutex_lock(&k->lock);
    *by_keeper = k->by_keeper;
    *by_free = k->by_free;
    pthread_mutex_unlock(&k->lock);
}
