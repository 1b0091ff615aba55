/*
 * follow.h: classroom follow mode: server-sent events carrying a
 * presenter's position to every follower.
 *
 * A follower is an open GET .../follow response (text/event-stream) whose
 * body never ends.  When the presenter moves (or appends operations) the
 * session publishes its position here, which costs the presenter's request
 * one lock whatever the number of followers.  The hub's own thread then
 * writes to the followers of that session: to each at most once per
 * interval, with the latest position (a presenter stepping thousands of
 * times a second costs each follower a few messages a second), and to all
 * of them together at most `rate` times a second, spread out: the
 * followers take turns, so with N followers each hears at least every
 * N / rate seconds.  After its
 * first message a follower's connection is suspended and its socket
 * written by the hub thread directly, so followers never take time on the
 * connection threads that serve the presenter.  A comment line goes out
 * every FOLLOW_HEARTBEAT seconds of silence, which is also how the server
 * notices followers that went away.
 *
 * Each message is
 *     event: position
 *     data: {"session":"ID","at":N,"events":E,"ops":O,"version":V,"state":S}
 * where at is the presenter's position, events and ops the session's end,
 * and S the answer of GET .../state?at=N when the presenter's page had it
 * rendered already (the session's state cache, at the publish): the
 * followers show it without a request of their own.  No state is rendered
 * for followers: without one in the cache the message has no "state" and
 * followers fetch it.  A message is built once and its bytes shared by
 * every follower.
 * A topic is a session's id, or a lecture's (lecture.h): a lecture's
 * messages name the session it shows now, which changes when the
 * presenter switches scenario.
 */
#ifndef SLUBLAB_SERVER_HTTP_FOLLOW_H
#define SLUBLAB_SERVER_HTTP_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct MHD_Connection;
struct blob;
struct follow_hub;
struct follower;

#define FOLLOW_HEARTBEAT 15 /* seconds between keep-alive comments */

/*
 * A hub with its thread.  @interval_ms is the least time between two
 * updates to one follower, @rate the most updates a second over all
 * followers (0: no limit).
 */
int follow_hub_new(unsigned interval_ms, unsigned rate, struct follow_hub **out);
/* End every stream and stop the thread; no follower is suspended after it.  NULL is fine. */
void follow_hub_stop(struct follow_hub *hub);
/* Free the hub (after follow_hub_stop() and the HTTP daemon's end).  NULL is fine. */
void follow_hub_free(struct follow_hub *hub);

/* Publish session @id's position and end.  Costs one lock when nobody follows @id. */
void follow_publish(struct follow_hub *hub, const char *id, uint64_t at, uint64_t events,
                    uint64_t ops);
/* As follow_publish(), to topic @id (a lecture's) whose messages name session @session. */
void follow_publish_as(struct follow_hub *hub, const char *id, const char *session, uint64_t at,
                       uint64_t events, uint64_t ops);
/* As follow_publish_as(), with the rendered state of position @at (NULL:
 * none; a reference is taken): the messages carry it as "state", so that
 * followers need not fetch it.  A state over FOLLOW_STATE_MAX bytes is left
 * out (followers fetch it). */
void follow_publish_state(struct follow_hub *hub, const char *id, const char *session, uint64_t at,
                          uint64_t events, uint64_t ops, struct blob *state);
/* Tell topic @id's followers (a lecture's) that its view changed to revision
 * @view: their messages carry "view": N from then on.  Cannot fail. */
void follow_publish_view(struct follow_hub *hub, const char *id, uint64_t view);
/* Followers of session @id now. */
unsigned follow_count(struct follow_hub *hub, const char *id);
/* A session's own topic as its followers last heard of it. */
struct follow_where {
    char id[33];
    uint64_t at, events, ops;
};
/* Up to @max sessions someone follows (their own topics, not lectures')
 * into @out; how many.  Cannot fail. */
unsigned follow_sessions(struct follow_hub *hub, struct follow_where *out, unsigned max);

/* A new follower of @id, starting from these values; NULL on host OOM or when stopping. */
struct follower *follow_attach(struct follow_hub *hub, const char *id, uint64_t at, uint64_t events,
                               uint64_t ops);
/* The state rendered at @at of topic @id (a session's), when the topic is
 * there and has none: a follower who joins gets it with its first message
 * and fetches nothing.  A reference is taken; NULL is fine.  Cannot fail. */
void follow_offer_state(struct follow_hub *hub, const char *id, uint64_t at, struct blob *state);
/* As follow_attach(), to topic @id (a lecture's) whose messages name session @session. */
struct follower *follow_attach_as(struct follow_hub *hub, const char *id, const char *session,
                                  uint64_t at, uint64_t events, uint64_t ops);
/* Tie @f to the connection that streams it (http.c, before queueing the response);
 * @chunked: the request is HTTP/1.1, so the body goes out in chunks. */
void follow_bind(struct follower *f, struct MHD_Connection *conn, bool chunked);
/* libmicrohttpd's content reader for a follower (cls is the struct follower): the
 * first message, then a hand-over to the hub thread, then the end of the stream. */
ssize_t follow_read(void *cls, uint64_t pos, char *buf, size_t max);
/* Detach and free a follower: the response's free callback.  NULL is fine. */
void follow_detach(void *cls);

#endif /* SLUBLAB_SERVER_HTTP_FOLLOW_H */
