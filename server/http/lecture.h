/*
 * lecture.h: a lecture, the presenter's resource that outlives sessions.
 *
 * A presenter makes a lecture (its id and a write token) and points it at
 * the session being shown; when the presenter switches scenario (a new
 * session) the lecture is pointed at the new one.  Followers follow the
 * lecture, not a session (GET /api/lectures/ID/follow): its stream is the
 * follow hub's topic "lecture:ID", whose messages name the lecture's
 * session, so every follower moves to the new session with the next
 * message.  A session's publish reaches the lectures that show it through
 * lecture_publish().
 *
 * Lectures are kept in the store as they are made and pointed at a
 * session (id, write token, session, position), and loaded when the server
 * starts, so a restart loses no lecture: followers reconnecting to the same
 * follow link find it, at the position its session was stored at.  At most
 * LECTURES_MAX are kept: the oldest untouched one goes, from memory and
 * store, when a new one would exceed it.
 *
 * When other servers share the store (store_shared()), a lecture may be
 * made and moved on any of them: one this server has not seen is read from
 * the store when asked for, a follower's first values come from the store,
 * and the other servers' moves arrive through relay.h (lecture_heard()).
 * Memory's cap then only forgets a lecture here; the store keeps it.
 */
#ifndef SLUBLAB_SERVER_HTTP_LECTURE_H
#define SLUBLAB_SERVER_HTTP_LECTURE_H

#include <stdint.h>

struct blob;
struct follow_hub;
struct follower;
struct lectures;
struct store;

#define LECTURE_ID_LEN  10   /* characters of a lecture id, as a session's */
#define LECTURE_SES_MAX 32   /* characters of a session id, at most */
#define LECTURES_MAX    1024 /* lectures kept at once */
#define LECTURE_TOPIC   "lecture:"

#define LECTURE_VIEW_MAX 2048 /* bytes of a lecture's view (JSON text) */

struct lecture_info {
    char id[LECTURE_ID_LEN + 1];
    char session[LECTURE_SES_MAX + 1]; /* "" until the presenter names one */
    uint64_t at, events, ops;          /* the session's position and end, as last published */
    char view[LECTURE_VIEW_MAX + 1];   /* the presenter's view (breakpoints, theme): JSON, or "" */
    uint64_t view_rev;                 /* bumped by each lecture_set_view(); 0: never set */
};

/* The lectures kept in @st (NULL: none, and none kept).  0, -ENOMEM or -EIO. */
int lectures_new(struct store *st, struct lectures **out);
/* Free them all.  NULL is fine. */
void lectures_free(struct lectures *l);

/* A new lecture showing @info's session ("" for none), stored before it is
 * answered; fills @info->id and @token (33 bytes).  0, -EIO (no randomness
 * or the store failed) or -ENOMEM. */
int lecture_create(struct lectures *l, struct lecture_info *info, char *token);
/* Lecture @id into @out.  0, -ENOENT, or the store's error (shared stores only). */
int lecture_get(struct lectures *l, const char *id, struct lecture_info *out);
/* As lecture_get(), with a shared store's latest values (its session's stored position). */
int lecture_read(struct lectures *l, const char *id, struct lecture_info *out);
/* Does @token (NULL: none given) open lecture @id?  0, -ENOENT or -EPERM. */
int lecture_check_token(struct lectures *l, const char *id, const char *token);
/* Point lecture @info->id at @info's session and position when @token is its
 * write token (stored first), and tell its followers.  0, -ENOENT, -EPERM or
 * -EIO (the store failed: nothing changed). */
int lecture_set(struct lectures *l, struct follow_hub *hub, const struct lecture_info *info,
                const char *token);
/* Session @session moved: tell the followers of every lecture that shows it,
 * with the rendered state at @at when @state (NULL: none; follow_publish_state()).
 * Cannot fail. */
void lecture_publish(struct lectures *l, struct follow_hub *hub, const char *session, uint64_t at,
                     uint64_t events, uint64_t ops, struct blob *state);
/* Another server pointed lecture @info->id at @info's session and position
 * (relay.h): tell its followers here, if this server knows it (else it is
 * read from the store when asked for).  Cannot fail. */
void lecture_heard(struct lectures *l, struct follow_hub *hub, const struct lecture_info *info);
/* A new follower of lecture @id, from its values now (follow_attach_as()); NULL with
 * *@err -ENOENT (no such lecture) or -ENOMEM (host OOM or the hub stopping). */
struct follower *lecture_follow(struct lectures *l, struct follow_hub *hub, const char *id,
                                int *err);
/* A new follower's token of lecture @id (follower_token.h, keyed by the
 * lecture's write token) into @out (FOLLOWER_TOKEN_LEN + 1 bytes).  0,
 * -ENOENT, -EIO or the store's error (shared stores only). */
int lecture_follower_token(struct lectures *l, const char *id, char *out);
/* Is @token (NULL: none) a follower's token of lecture @id?  0, -ENOENT,
 * -EPERM or the store's error (shared stores only). */
int lecture_check_follower(struct lectures *l, const char *id, const char *token);
/* Set lecture @id's view (@view: JSON text of at most LECTURE_VIEW_MAX bytes,
 * checked by the caller) when @token is its write token, and tell its
 * followers here.  Kept in this server's memory only.  0, -ENOENT, -EPERM
 * or the store's error (shared stores only). */
int lecture_set_view(struct lectures *l, struct follow_hub *hub, const char *id, const char *token,
                     const char *view);
/* The follow hub's topic of lecture @id into @buf (at least 32 bytes). */
void lecture_topic(const char *id, char *buf, unsigned size);

#endif /* SLUBLAB_SERVER_HTTP_LECTURE_H */
