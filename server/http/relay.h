/*
 * relay.h: follow mode across the servers that share one store.
 *
 * A presenter's moves reach the followers connected to the same server
 * through the follow hub (follow.h).  When other servers share the store
 * (PostgreSQL), every move is also sent to them as a store message
 * (store_notify(), PostgreSQL's NOTIFY), and each server publishes what it
 * hears to its own hub and lectures, as if its own presenter had moved: a
 * follower on server B follows a presenter on server A.  The messages are
 * one line of text:
 *
 *     s SESSION AT EVENTS OPS          session SESSION is at AT, ends at EVENTS/OPS
 *     l LECTURE SESSION AT EVENTS OPS  lecture LECTURE shows SESSION ("-": none) there
 *     t TRACE                          trace job TRACE's uploader deleted it (its row's
 *                                      cancel flag is set): the server running it stops it
 *
 * On a SQLite store nothing is sent and nothing heard.
 *
 * While the database is away a presenter on this server still moves (the
 * session is in memory), but the move is neither stored nor sent.  The ids
 * of those sessions are kept (at most RELAY_PENDING); once the database is
 * back (the listening connection is open again, or the janitor's next
 * round), relay_flush() writes each one's latest position to the store and
 * sends it, so followers on the other servers catch up without waiting for
 * the presenter's next move.  And as the messages sent while this server
 * was not listening are lost, once it listens again its followers of a
 * session take the position the store has then.
 */
#ifndef SLUBLAB_SERVER_HTTP_RELAY_H
#define SLUBLAB_SERVER_HTTP_RELAY_H

#include <stdint.h>

#define RELAY_PENDING 256 /* sessions whose move was not sent, remembered at most */

struct app;
struct lecture_info;

/* Hear the other servers (store_listen()): after the hub and the lectures
 * exist.  0, -ENOMEM or -EAGAIN. */
int relay_start(struct app *app);
/* Stop hearing them and free what relay_start() made: before the hub, the
 * lectures and the registry go, after the janitor stopped.  A zeroed app is fine. */
void relay_stop(struct app *app);
/* Store and send the latest position of every session whose move could
 * not be sent, when it is still in memory.  Cannot fail: what fails again
 * is kept for the next call. */
void relay_flush(struct app *app);

/* Tell the other servers that session @id is at @at and ends at @events/@ops;
 * with @id's lock held, as its move is.  A failure is logged, and @id kept
 * for relay_flush(). */
void relay_session(struct app *app, const char *id, uint64_t at, uint64_t events, uint64_t ops);
/* Tell them that lecture @x now shows its session at its position. */
void relay_lecture(struct app *app, const struct lecture_info *x);

/* Tell them that the uploader deleted trace job @id (traces.h). */
void relay_trace_cancel(struct app *app, const char *id);

/* What relay_start()'s listener does with a message @text: exposed for tests. */
void relay_heard(const char *text, void *app);

#endif /* SLUBLAB_SERVER_HTTP_RELAY_H */
