/*
 * pthread.h for the single-threaded WebAssembly build (docs/wasm.md):
 * Debian 12's wasi-libc has no threads.  The API module runs every request
 * to its end on the one thread that calls it (router_dispatch() with
 * may_block true), so a mutex only counts how often it is held, which
 * keeps trylock's answer what it is natively (a plain mutex held once is
 * busy, a recursive one is not), and a condition never waits.  A thread
 * is run later, to its end, on the same thread: pthread_create() hands it
 * to wasm_thread_defer() (api.c), which runs it once the request that made
 * it is answered (a trace job: http/traces.c).  The server's other threads
 * (the follow hub, the janitor) serve what the lab without a server does
 * not have, and are not made there.
 */
#ifndef SLUBLAB_WASM_PTHREAD_H
#define SLUBLAB_WASM_PTHREAD_H

#pragma GCC system_header /* musl's reserved member names, below */

#include <errno.h>
#include <sys/types.h> /* wasi-libc's (musl's) pthread types */
#include <time.h>

/* A mutex's count of holds and its type, in musl's pthread_mutex_t. */
#define MUTEX_HELD(m) ((m)->__u.__i[0])
#define MUTEX_TYPE(m) ((m)->__u.__i[1])

#define PTHREAD_MUTEX_NORMAL    0
#define PTHREAD_MUTEX_RECURSIVE 1
#define PTHREAD_MUTEX_INITIALIZER \
    {                             \
        {                         \
            {                     \
                0                 \
            }                     \
        }                         \
    }
#define PTHREAD_COND_INITIALIZER \
    {                            \
        {                        \
            {                    \
                0                \
            }                    \
        }                        \
    }
#define PTHREAD_ONCE_INIT 0

static inline int pthread_mutexattr_init(pthread_mutexattr_t *a)
{
    a->__attr = PTHREAD_MUTEX_NORMAL;
    return 0;
}
static inline int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
    a->__attr = (unsigned)type;
    return 0;
}
static inline int pthread_mutexattr_destroy(pthread_mutexattr_t *a)
{
    (void)a;
    return 0;
}
static inline int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
    MUTEX_HELD(m) = 0;
    MUTEX_TYPE(m) = a ? (int)a->__attr : PTHREAD_MUTEX_NORMAL;
    return 0;
}
static inline int pthread_mutex_destroy(pthread_mutex_t *m)
{
    (void)m;
    return 0;
}
static inline int pthread_mutex_lock(pthread_mutex_t *m)
{
    MUTEX_HELD(m)++;
    return 0;
}
static inline int pthread_mutex_trylock(pthread_mutex_t *m)
{
    if (MUTEX_HELD(m) && MUTEX_TYPE(m) != PTHREAD_MUTEX_RECURSIVE)
        return EBUSY;
    MUTEX_HELD(m)++;
    return 0;
}
static inline int pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (MUTEX_HELD(m))
        MUTEX_HELD(m)--;
    return 0;
}

static inline int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
    (void)c;
    (void)a;
    return 0;
}
static inline int pthread_cond_destroy(pthread_cond_t *c)
{
    (void)c;
    return 0;
}
static inline int pthread_cond_signal(pthread_cond_t *c)
{
    (void)c;
    return 0;
}
static inline int pthread_cond_broadcast(pthread_cond_t *c)
{
    (void)c;
    return 0;
}
static inline int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    (void)c;
    (void)m;
    return 0;
}
static inline int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                         const struct timespec *until)
{
    (void)c;
    (void)m;
    (void)until;
    return ETIMEDOUT;
}

/* Keep @fn(@arg) to run after the current request: 0, or EAGAIN. */
int wasm_thread_defer(void *(*fn)(void *), void *arg);

static inline int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                                 void *arg)
{
    (void)a;
    *t = 0;
    return wasm_thread_defer(fn, arg);
}
static inline int pthread_join(pthread_t t, void **ret)
{
    (void)t;
    if (ret)
        *ret = NULL;
    return 0;
}

static inline int pthread_once(pthread_once_t *once, void (*fn)(void))
{
    if (!*once) {
        *once = 1;
        fn();
    }
    return 0;
}

#endif /* SLUBLAB_WASM_PTHREAD_H */
