/*
 * follow.c: the follow hub (see follow.h).
 *
 * A follower's stream starts like any response: libmicrohttpd sends the
 * headers and the first message, which follow_read() returns.  When
 * libmicrohttpd asks for more, everything so far has been handed to the
 * kernel; follow_read() then suspends the connection for good and the hub
 * thread takes the stream over, writing each later message straight to the
 * socket (as an HTTP/1.1 chunk) with a non-blocking send().  So a follower
 * costs the connection threads nothing after its first message, and a
 * presenter's requests never queue behind two hundred followers' writes.
 * The connection goes back to libmicrohttpd only to end: when the follower
 * hangs up (a send fails), when its socket stays full, or at shutdown;
 * follow_read() then ends the stream and libmicrohttpd finishes and frees
 * it (its free callback is follow_detach()).
 *
 * Two mutexes.  topic_lock guards the topics' latest values (one topic per
 * followed session: position, end and a version number), the dirty flag and
 * the thread's condition variable; the presenter's publish takes only it,
 * briefly.  lock guards the followers and the topics' copies the thread
 * writes from; the thread holds it while it writes to sockets.  Lock order:
 * lock, then topic_lock, then libmicrohttpd's.
 *
 * The hub thread sleeps until a publish wakes it (its condition variable),
 * until the first follower behind its topic is due (its interval passed),
 * or until the next heartbeat check; then it writes to each follower due,
 * as many as a token bucket of `rate` a second allows, round-robin (one
 * left waiting for the budget or for its socket brings it back after
 * FOLLOW_TICK_MS).  A move thus goes out as soon as it is published, with
 * no tick between, and a thread with nothing due does not wake.  The
 * thread runs at the connection threads' priority: a message is a send()
 * of a few hundred bytes, or of a state of a few KiB built once for every
 * follower, at most `rate` a second, so the thread takes a few percent of
 * a core at most, while at a lower priority (it ran at nice 19) any busy
 * process on the machine held every follower's message back for
 * seconds.  The presenter's step never waits for it: a publish takes only
 * topic_lock.  A message that the socket takes only in part is kept and
 * finished first on the next pass, so chunks are never interleaved.  A
 * message is built once per topic version (with the state, when the
 * publish brought one) and its bytes shared by the followers that send it.
 */
#include "http/follow.h"

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "base/blob.h"

#define TOPIC_ID_MAX   32
#define FOLLOW_TICK_MS     5 /* its pace while a follower waits for the budget or its socket */
#define FOLLOW_STATE_MAX   (256 * 1024) /* bytes of a state sent in a message, at most */
#define FOLLOW_STALL   30  /* seconds a follower's socket may stay full */
#define FOLLOW_CATCH_UP 0.25 /* seconds of the rate a late pass may send at once */
#define FOLLOW_THREAD_NAME "slublab-follow" /* its name in /proc (15 bytes at most) */

struct topic {
    char id[TOPIC_ID_MAX + 1];
    char session[TOPIC_ID_MAX + 1];            /* the session of the latest: topic_lock */
    char c_session[TOPIC_ID_MAX + 1];          /* the hub thread's copy: lock */
    uint64_t at, events, ops, version;         /* the latest: topic_lock */
    uint64_t c_at, c_events, c_ops, c_version; /* the hub thread's copy: lock */
    uint64_t view, c_view; /* a lecture's view revision (0: none said): topic_lock, lock */
    struct blob *state, *c_state; /* the rendered state at `at`, or NULL: topic_lock, lock */
    struct blob *msg[2];          /* c_version's message, plain and chunked, or NULL: lock */
    unsigned followers;                        /* both locks to change */
    struct topic *next;                        /* both locks to change */
};

enum follower_state {
    FS_NEW,     /* libmicrohttpd sends the headers and the first message */
    FS_DIRECT,  /* suspended; the hub thread writes to the socket */
    FS_CLOSING, /* resumed to end: follow_read() ends the stream */
};

struct follower {
    struct follow_hub *hub;
    struct topic *topic;
    struct MHD_Connection *conn; /* NULL until bound */
    bool chunked;                /* the response is chunked (HTTP/1.1) */
    enum follower_state state;
    int fd;                     /* the socket, in FS_DIRECT */
    uint64_t sent;              /* the topic version last sent */
    struct timespec last_write; /* of the last whole message */
    const char *pend;           /* the message being sent: hold's text, or a heartbeat */
    struct blob *hold;          /* the topic's message pend points into, or NULL */
    size_t pend_off, pend_len;  /* its bytes sent and in all; 0, 0 when none */
    struct follower *prev, *next;
};

struct follow_hub {
    pthread_mutex_t lock;       /* the followers and the copies; held while writing */
    pthread_mutex_t topic_lock; /* the latest values, dirty, wake: held briefly */
    pthread_cond_t wake;        /* with topic_lock */
    pthread_t thread;
    bool thread_started;
    bool stopping; /* both locks to change */
    bool dirty;    /* a topic changed, or a follower became behind: topic_lock */
    unsigned interval_ms;
    unsigned rate;           /* messages a second, at most; 0: no limit */
    double burst;            /* messages at once, at most */
    struct follower *cursor; /* where the round-robin goes on */
    struct topic *topics;
    struct follower *followers;
};

/* Free topic @t and what it holds. */
static void topic_free(struct topic *t)
{
    blob_put(t->state);
    blob_put(t->c_state);
    blob_put(t->msg[0]);
    blob_put(t->msg[1]);
    free(t);
}

static void now_mono(struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The heartbeat comment, as a chunk and plain. */
static const char HEARTBEAT_CHUNK[] = "8\r\n: ping\n\n\r\n", HEARTBEAT[] = ": ping\n\n";

/*
 * Topic @t's message into @buf (snprintf()'s return): its position, with
 * the rendered state when @state and the topic has one, after a retry
 * field when @retry (the stream's first message).
 */
static int follow_message(const struct topic *t, bool retry, bool state, char *buf, size_t size)
{
    const struct blob *st = state ? t->c_state : NULL;
    char view[40] = "";

    if (t->c_view)
        snprintf(view, sizeof(view), ",\"view\":%" PRIu64, t->c_view);
    return snprintf(buf, size,
                    "%sevent: position\ndata: {\"session\":\"%s\",\"at\":%" PRIu64
                    ",\"events\":%" PRIu64 ",\"ops\":%" PRIu64 ",\"version\":%" PRIu64
                    "%s%s%s}\n\n",
                    retry ? "retry: 3000\n" : "", t->c_session, t->c_at, t->c_events, t->c_ops,
                    t->c_version, view, st ? ",\"state\":" : "", st ? st->text : "");
}

/*
 * Under the lock: topic @t's message for the hub thread to send, framed
 * as a chunk when @chunked; built once per version and shared by every
 * follower (a reference the caller drops), NULL on host OOM.
 */
static struct blob *follow_topic_message(struct topic *t, bool chunked)
{
    struct blob **slot = &t->msg[chunked];
    char *buf;
    int n, head;
    size_t size;

    if (*slot)
        return blob_get(*slot);
    n = follow_message(t, false, true, NULL, 0);
    if (n <= 0)
        return NULL;
    size = (size_t)n + 32;
    if (!(buf = malloc(size)))
        return NULL;
    head = chunked ? snprintf(buf, size, "%x\r\n", (unsigned)n) : 0;
    follow_message(t, false, true, buf + head, size - (size_t)head);
    if (chunked)
        memcpy(buf + head + n, "\r\n", 3);
    *slot = blob_new(buf, (size_t)head + (size_t)n + (chunked ? 2 : 0));
    free(buf);
    return blob_get(*slot);
}

/* Under the lock: hand @f back to libmicrohttpd to end its stream. */
static void follow_close(struct follower *f)
{
    if (f->state != FS_DIRECT)
        return;
    f->state = FS_CLOSING;
    MHD_resume_connection(f->conn);
}

/* Under the lock: push @f's pending bytes; false when the socket failed. */
static bool follow_flush(struct follower *f)
{
    while (f->pend_off < f->pend_len) {
        ssize_t n = send(f->fd, f->pend + f->pend_off, f->pend_len - f->pend_off,
                         MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        f->pend_off += (size_t)n;
    }
    f->pend_off = f->pend_len = 0;
    f->pend = NULL;
    blob_put(f->hold);
    f->hold = NULL;
    return true;
}

/* Under the lock: write one message to @f's socket (framed as a chunk). */
static void follow_write(struct follower *f, bool heartbeat, const struct timespec *now)
{
    if (heartbeat) {
        f->pend = f->chunked ? HEARTBEAT_CHUNK : HEARTBEAT;
        f->pend_len = f->chunked ? sizeof(HEARTBEAT_CHUNK) - 1 : sizeof(HEARTBEAT) - 1;
    } else {
        if (!(f->hold = follow_topic_message(f->topic, f->chunked)))
            return; /* host OOM: tried again on the next pass */
        f->pend = f->hold->text;
        f->pend_len = f->hold->len;
        f->sent = f->topic->c_version;
    }
    f->pend_off = 0;
    f->last_write = *now;
    if (!follow_flush(f))
        follow_close(f);
}

/*
 * Under the lock: serve up to @budget followers in FS_DIRECT that have
 * something to send, going round the list from where the last call
 * stopped.  Returns how many messages went out; *pending counts followers
 * still behind their topic (due now or after their interval), *wait is the
 * seconds until the first of them is due (a tick when one waits for the
 * budget or for its socket).
 */
static unsigned follow_serve(struct follow_hub *hub, unsigned budget, unsigned *pending,
                             double *wait)
{
    struct follower *f = hub->cursor ? hub->cursor : hub->followers, *start = f;
    struct follower *skipped = NULL, *after = NULL; /* where the next call starts */
    struct timespec now;
    unsigned sent = 0;

    now_mono(&now);
    *pending = 0;
    *wait = FOLLOW_HEARTBEAT;
    while (f) {
        struct follower *next = f->next ? f->next : hub->followers;

        if (f->state == FS_DIRECT) {
            double idle = elapsed(&f->last_write, &now);
            bool behind = f->sent < f->topic->c_version;

            if (f->pend_len) { /* finish the last message first */
                if (!follow_flush(f))
                    follow_close(f);
                else if (f->pend_len && idle >= FOLLOW_STALL)
                    follow_close(f); /* nobody reads it */
                if (behind) {
                    ++*pending;
                    *wait = FOLLOW_TICK_MS / 1000.0;
                }
            } else if ((behind && idle * 1000.0 >= hub->interval_ms) || idle >= FOLLOW_HEARTBEAT) {
                if (sent < budget) {
                    follow_write(f, !behind, &now);
                    sent++;
                    after = next;
                } else {
                    if (!skipped)
                        skipped = f; /* due, but the budget is spent: first next time */
                    if (behind) {
                        ++*pending;
                        *wait = FOLLOW_TICK_MS / 1000.0;
                    }
                }
            } else if (behind) {
                double due = hub->interval_ms / 1000.0 - idle;

                ++*pending;
                if (due < *wait)
                    *wait = due;
            }
        }
        f = next;
        if (f == start)
            break;
    }
    /* The next call starts with the first follower this one had no budget
     * for, else after the last one served: with more followers due than the
     * rate allows, each waits its turn instead of the list's head taking
     * every message. */
    hub->cursor = skipped ? skipped : after ? after : f;
    return sent;
}

/* Under topic_lock: copy every topic's latest values for the hub thread. */
static void follow_copy(struct follow_hub *hub)
{
    struct topic *t;

    for (t = hub->topics; t; t = t->next) {
        if (t->c_version != t->version) { /* the messages built for the last one go */
            blob_put(t->msg[0]);
            blob_put(t->msg[1]);
            t->msg[0] = t->msg[1] = NULL;
        }
        if (t->c_state != t->state) {
            blob_put(t->c_state);
            t->c_state = blob_get(t->state);
        }
        memcpy(t->c_session, t->session, sizeof(t->c_session));
        t->c_at = t->at;
        t->c_events = t->events;
        t->c_ops = t->ops;
        t->c_version = t->version;
        t->c_view = t->view;
    }
}

/*
 * The most messages one pass may send, @dt seconds after the last: the
 * burst, or what the rate allowed since (up to FOLLOW_CATCH_UP seconds'
 * worth) when this thread waited for the CPU longer than a tick.  A burst
 * alone would cap a starved thread at `burst` messages a wake-up and leave
 * a large class seconds behind.
 */
static double follow_burst(const struct follow_hub *hub, double dt)
{
    double owed = (dt < FOLLOW_CATCH_UP ? dt : FOLLOW_CATCH_UP) * hub->rate;

    return owed > hub->burst ? owed : hub->burst;
}

static void *follow_thread(void *arg)
{
    struct follow_hub *hub = arg;
    struct timespec last, now;
    double tokens = 0, wait = 0;
    unsigned pending = 0; /* followers behind after the last pass */

    /* Named for ps and top (and tests/api/follow-thread.test.mjs); the
     * presenter's publish takes only topic_lock, which this thread holds
     * for a copy, never while it writes to sockets. */
    (void)prctl(PR_SET_NAME, FOLLOW_THREAD_NAME, 0, 0, 0);
    now_mono(&last);
    pthread_mutex_lock(&hub->topic_lock);
    while (!hub->stopping) {
        double dt;

        if (!hub->dirty) {
            /* no news: wait for a publish, the next follower due, or a
             * heartbeat check (once a second) */
            double w = pending ? wait : 1.0;
            long ns = (long)((w < 0.001 ? 0.001 : w > 1.0 ? 1.0 : w) * 1e9);
            struct timespec until;

            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += ns;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&hub->wake, &hub->topic_lock, &until);
        }
        if (hub->stopping)
            break;
        hub->dirty = false;
        pthread_mutex_unlock(&hub->topic_lock);

        pthread_mutex_lock(&hub->lock);
        pthread_mutex_lock(&hub->topic_lock);
        follow_copy(hub);
        pthread_mutex_unlock(&hub->topic_lock);
        /* a token bucket: at most `rate` messages a second, evenly spread */
        now_mono(&now);
        dt = elapsed(&last, &now);
        last = now;
        tokens = hub->rate ? tokens + dt * hub->rate : (double)UINT32_MAX;
        if (tokens > follow_burst(hub, dt))
            tokens = follow_burst(hub, dt);
        tokens -= follow_serve(hub, (unsigned)tokens, &pending, &wait);
        pthread_mutex_unlock(&hub->lock);

        pthread_mutex_lock(&hub->topic_lock);
    }
    pthread_mutex_unlock(&hub->topic_lock);
    return NULL;
}

int follow_hub_new(unsigned interval_ms, unsigned rate, struct follow_hub **out)
{
    struct follow_hub *hub = calloc(1, sizeof(*hub));

    if (!hub)
        return -ENOMEM;
    hub->interval_ms = interval_ms;
    hub->rate = rate;
    hub->burst = rate ? (rate / 20 > 1 ? rate / 20 : 1) : (double)UINT32_MAX;
    if (pthread_mutex_init(&hub->lock, NULL)) {
        free(hub);
        return -ENOMEM;
    }
    if (pthread_mutex_init(&hub->topic_lock, NULL)) {
        pthread_mutex_destroy(&hub->lock);
        free(hub);
        return -ENOMEM;
    }
    if (pthread_cond_init(&hub->wake, NULL)) {
        pthread_mutex_destroy(&hub->topic_lock);
        pthread_mutex_destroy(&hub->lock);
        free(hub);
        return -ENOMEM;
    }
    *out = hub;
    if (pthread_create(&hub->thread, NULL, follow_thread, hub)) {
        follow_hub_free(hub);
        return -EAGAIN;
    }
    hub->thread_started = true;
    return 0;
}

void follow_hub_stop(struct follow_hub *hub)
{
    struct follower *f;

    if (!hub)
        return;
    pthread_mutex_lock(&hub->lock);
    pthread_mutex_lock(&hub->topic_lock);
    hub->stopping = true;
    for (f = hub->followers; f; f = f->next)
        follow_close(f);
    pthread_cond_broadcast(&hub->wake);
    pthread_mutex_unlock(&hub->topic_lock);
    pthread_mutex_unlock(&hub->lock);
    if (hub->thread_started) {
        pthread_join(hub->thread, NULL);
        hub->thread_started = false;
    }
}

void follow_hub_free(struct follow_hub *hub)
{
    struct topic *t, *next;

    if (!hub)
        return;
    follow_hub_stop(hub);
    while (hub->followers) /* responses libmicrohttpd never freed */
        follow_detach(hub->followers);
    for (t = hub->topics; t; t = next) {
        next = t->next;
        topic_free(t);
    }
    pthread_cond_destroy(&hub->wake);
    pthread_mutex_destroy(&hub->topic_lock);
    pthread_mutex_destroy(&hub->lock);
    free(hub);
}

static struct topic *follow_topic(struct follow_hub *hub, const char *id)
{
    struct topic *t;

    for (t = hub->topics; t; t = t->next)
        if (strcmp(t->id, id) == 0)
            return t;
    return NULL;
}

/* Under topic_lock: does @t hold other values than these? */
static bool topic_differs(const struct topic *t, const char *session, uint64_t at, uint64_t events,
                          uint64_t ops)
{
    return strcmp(t->session, session) || t->at != at || t->events != events || t->ops != ops;
}

void follow_publish(struct follow_hub *hub, const char *id, uint64_t at, uint64_t events,
                    uint64_t ops)
{
    follow_publish_as(hub, id, id, at, events, ops);
}

/* Under topic_lock: @t has news for its followers; wake the hub thread. */
static void topic_bump(struct follow_hub *hub, struct topic *t)
{
    t->version++;
    if (!hub->dirty) {
        hub->dirty = true;
        pthread_cond_signal(&hub->wake);
    }
}

void follow_publish_view(struct follow_hub *hub, const char *id, uint64_t view)
{
    struct topic *t;

    pthread_mutex_lock(&hub->topic_lock);
    t = follow_topic(hub, id);
    if (t && t->view != view) {
        t->view = view;
        topic_bump(hub, t);
    }
    pthread_mutex_unlock(&hub->topic_lock);
}

void follow_publish_as(struct follow_hub *hub, const char *id, const char *session, uint64_t at,
                       uint64_t events, uint64_t ops)
{
    follow_publish_state(hub, id, session, at, events, ops, NULL);
}

/* Under topic_lock: @t's state is @state (NULL: none). */
static void topic_state(struct topic *t, struct blob *state)
{
    if (state && (state->len > FOLLOW_STATE_MAX || memchr(state->text, '\n', state->len)))
        state = NULL; /* too big to send to everyone, or not one line of an event's data */
    blob_put(t->state);
    t->state = blob_get(state);
}

void follow_publish_state(struct follow_hub *hub, const char *id, const char *session, uint64_t at,
                          uint64_t events, uint64_t ops, struct blob *state)
{
    struct topic *t;

    if (strlen(session) > TOPIC_ID_MAX)
        return; /* no topic holds such a session */
    pthread_mutex_lock(&hub->topic_lock);
    t = follow_topic(hub, id);
    if (t && topic_differs(t, session, at, events, ops)) {
        snprintf(t->session, sizeof(t->session), "%s", session);
        t->at = at;
        t->events = events;
        t->ops = ops;
        topic_state(t, state);
        topic_bump(hub, t);
    }
    pthread_mutex_unlock(&hub->topic_lock);
}

unsigned follow_count(struct follow_hub *hub, const char *id)
{
    struct topic *t;
    unsigned n;

    pthread_mutex_lock(&hub->topic_lock);
    t = follow_topic(hub, id);
    n = t ? t->followers : 0;
    pthread_mutex_unlock(&hub->topic_lock);
    return n;
}

unsigned follow_sessions(struct follow_hub *hub, struct follow_where *out, unsigned max)
{
    struct topic *t;
    unsigned n = 0;

    pthread_mutex_lock(&hub->topic_lock);
    for (t = hub->topics; t && n < max; t = t->next) {
        if (!t->followers || strcmp(t->id, t->session) || strlen(t->id) >= sizeof(out->id))
            continue;
        memcpy(out[n].id, t->id, strlen(t->id) + 1);
        out[n].at = t->at;
        out[n].events = t->events;
        out[n].ops = t->ops;
        n++;
    }
    pthread_mutex_unlock(&hub->topic_lock);
    return n;
}

void follow_offer_state(struct follow_hub *hub, const char *id, uint64_t at, struct blob *state)
{
    struct topic *t;

    if (!state)
        return;
    pthread_mutex_lock(&hub->topic_lock);
    if ((t = follow_topic(hub, id)) && t->at == at && !t->state)
        topic_state(t, state);
    pthread_mutex_unlock(&hub->topic_lock);
}

struct follower *follow_attach(struct follow_hub *hub, const char *id, uint64_t at, uint64_t events,
                               uint64_t ops)
{
    return follow_attach_as(hub, id, id, at, events, ops);
}

struct follower *follow_attach_as(struct follow_hub *hub, const char *id, const char *session,
                                  uint64_t at, uint64_t events, uint64_t ops)
{
    struct follower *f = calloc(1, sizeof(*f));
    struct topic *t;

    if (!f || strlen(id) > TOPIC_ID_MAX || strlen(session) > TOPIC_ID_MAX) {
        free(f);
        return NULL;
    }
    f->fd = -1;
    pthread_mutex_lock(&hub->lock);
    pthread_mutex_lock(&hub->topic_lock);
    if (hub->stopping)
        goto err_unlock;
    t = follow_topic(hub, id);
    if (!t) {
        if (!(t = calloc(1, sizeof(*t))))
            goto err_unlock;
        snprintf(t->id, sizeof(t->id), "%s", id);
        t->version = 1;
        t->next = hub->topics;
        hub->topics = t;
    }
    if (!t->followers || topic_differs(t, session, at, events, ops)) {
        snprintf(t->session, sizeof(t->session), "%s", session);
        t->at = at;
        t->events = events;
        t->ops = ops;
        topic_state(t, NULL);
        t->version++;
    }
    t->followers++;
    f->hub = hub;
    f->topic = t;
    now_mono(&f->last_write);
    f->next = hub->followers;
    if (f->next)
        f->next->prev = f;
    hub->followers = f;
    pthread_mutex_unlock(&hub->topic_lock);
    pthread_mutex_unlock(&hub->lock);
    return f;

err_unlock:
    pthread_mutex_unlock(&hub->topic_lock);
    pthread_mutex_unlock(&hub->lock);
    free(f);
    return NULL;
}

void follow_bind(struct follower *f, struct MHD_Connection *conn, bool chunked)
{
    pthread_mutex_lock(&f->hub->lock);
    f->conn = conn;
    f->chunked = chunked;
    pthread_mutex_unlock(&f->hub->lock);
}

/* The socket of @conn, made to send small writes at once; -1 when unknown. */
static int follow_socket(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    int one = 1, zero = 0;

    if (!ci)
        return -1;
    setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_CORK, &zero, sizeof(zero));
    return ci->connect_fd;
}

ssize_t follow_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct follower *f = cls;
    struct follow_hub *hub = f->hub;
    ssize_t ret;
    int n;

    (void)pos;
    pthread_mutex_lock(&hub->lock);
    if (hub->stopping || f->state == FS_CLOSING) {
        ret = MHD_CONTENT_READER_END_OF_STREAM;
    } else if (!f->sent) {
        /* the first message goes out with the headers, from the latest values */
        pthread_mutex_lock(&hub->topic_lock);
        follow_copy(hub);
        pthread_mutex_unlock(&hub->topic_lock);
        n = follow_message(f->topic, true, true, buf, max);
        if (n <= 0 || (size_t)n >= max) /* a state too big for the first block: fetched */
            n = follow_message(f->topic, true, false, buf, max);
        ret = n > 0 && (size_t)n < max ? n : MHD_CONTENT_READER_END_WITH_ERROR;
        f->sent = f->topic->c_version;
        now_mono(&f->last_write);
    } else if ((f->fd = follow_socket(f->conn)) < 0) {
        ret = MHD_CONTENT_READER_END_WITH_ERROR;
    } else {
        /* all sent so far has left: the hub thread writes from now on */
        f->state = FS_DIRECT;
        MHD_suspend_connection(f->conn);
        pthread_mutex_lock(&hub->topic_lock);
        if (f->sent < f->topic->version && !hub->dirty) {
            hub->dirty = true;
            pthread_cond_signal(&hub->wake);
        }
        pthread_mutex_unlock(&hub->topic_lock);
        ret = 0;
    }
    pthread_mutex_unlock(&hub->lock);
    return ret;
}

void follow_detach(void *cls)
{
    struct follower *f = cls;
    struct follow_hub *hub;
    struct topic **pp;

    if (!f)
        return;
    hub = f->hub;
    pthread_mutex_lock(&hub->lock);
    if (hub->cursor == f)
        hub->cursor = f->next;
    if (f->prev)
        f->prev->next = f->next;
    else
        hub->followers = f->next;
    if (f->next)
        f->next->prev = f->prev;
    pthread_mutex_lock(&hub->topic_lock);
    if (--f->topic->followers == 0) {
        for (pp = &hub->topics; *pp && *pp != f->topic; pp = &(*pp)->next)
            ;
        if (*pp)
            *pp = f->topic->next;
        topic_free(f->topic);
    }
    pthread_mutex_unlock(&hub->topic_lock);
    pthread_mutex_unlock(&hub->lock);
    blob_put(f->hold);
    free(f);
}
