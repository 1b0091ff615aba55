/*
 * answers.h: followers' answers to a lecture's questions, tallied for the
 * presenter (answers.c).
 *
 * In predict mode a follower answers the question the presenter stopped on
 * (lecture ID, position "at") from its own device: POST
 * /api/lectures/ID/answers with a choice, one of the arms of the branch
 * record the event at "at" carries, and the token the follower got when
 * it joined (follower_token.h).  A token has one answer per question: a
 * later one replaces it; each token may answer ANSWERS_FOLLOWER_RATE times
 * a second.  The arms of a question are read once, from its session,
 * and kept with the question.  The presenter reads the tally with the
 * lecture's token.
 *
 * Answers live in memory only (a restart forgets them: they matter for the
 * minute a question is open), except on a store other servers share: there
 * each answer is also a row of the store, and the tally is counted from the
 * rows, so the presenter sees the answers sent to every server (the rows
 * go after ANSWERS_STORE_SECONDS).  Memory is bounded: a question keeps at most
 * ANSWERS_MAX_VOTERS voters (a new voter beyond is refused), a lecture its
 * ANSWERS_MAX_QUESTIONS most recently answered questions and the server
 * ANSWERS_MAX_TOTAL answers over all lectures (the least recently answered
 * questions are forgotten to make room).  Each client address may answer
 * at most `rate` times a second (quota.h with a one-second window).
 */
#ifndef SLUBLAB_SERVER_HTTP_ANSWERS_H
#define SLUBLAB_SERVER_HTTP_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define ANSWERS_MAX_VOTERS    4096u      /* voters of one question */
#define ANSWERS_MAX_QUESTIONS 64u        /* questions of one lecture kept */
#define ANSWERS_MAX_TOTAL     (1u << 18) /* answers kept over all lectures */
#define ANSWERS_CHOICE_MAX    40u        /* characters of a choice: [a-z0-9_] */
#define ANSWERS_VOTER_MIN     8u         /* characters of a voter id: [A-Za-z0-9_-] */
#define ANSWERS_VOTER_MAX     64u
#define ANSWERS_STORE_SECONDS 86400u /* a shared store's answers are kept this long */
#define ANSWERS_FOLLOWER_RATE 2u     /* answers a second one follower's token may send */
#define ANSWERS_ARMS_MAX      256u   /* bytes of a question's arms, "|a|b|...|" */

struct answers;
struct store;

/* The answers of every lecture, @rate a second per client (0: any).  0 or -ENOMEM. */
int answers_new(unsigned rate, struct answers **out);
/* NULL is fine. */
void answers_free(struct answers *a);
/* Count one answer of @client against the rate: true, or false (too many this second). */
bool answers_admit(struct answers *a, const char *client);
/* Count one answer of follower @id against ANSWERS_FOLLOWER_RATE: true, or false. */
bool answers_admit_follower(struct answers *a, const char *id);
/*
 * Does question @at of @lecture offer @choice?  1 yes, 0 no, -ENOENT when
 * its arms are not known yet (answers_set_arms()).
 */
int answers_offers(struct answers *a, const char *lecture, uint64_t at, const char *choice);
/* Keep the arms @names (@n of them; none: no question there) of question @at
 * of @lecture.  0, -E2BIG (longer than ANSWERS_ARMS_MAX) or -ENOMEM. */
int answers_set_arms(struct answers *a, const char *lecture, uint64_t at, const char *const *names,
                     unsigned n);
/* True when @choice / @voter have the form above. */
bool answers_choice_valid(const char *choice);
bool answers_voter_valid(const char *voter);
/*
 * Record @voter's @choice to question @at of lecture @lecture, replacing
 * the voter's earlier one.  0, or -ENOSPC (the question has
 * ANSWERS_MAX_VOTERS other voters) or -ENOMEM.
 */
int answers_put(struct answers *a, const char *lecture, uint64_t at, const char *voter,
                const char *choice);
/*
 * The tally of question @at of @lecture: {"at": N, "counts": {CHOICE: n},
 * "total": n}, choices in the order first chosen; a question nobody
 * answered (or forgotten) has empty counts.  NULL on host OOM.
 */
cJSON *answers_tally(struct answers *a, const char *lecture, uint64_t at);
/* As answers_tally(), counted from the rows of store @st (store_answer_put()):
 * the same document in *out.  0, -ENOMEM or the store's error. */
int answers_tally_stored(struct store *st, const char *lecture, uint64_t at, cJSON **out);

#endif /* SLUBLAB_SERVER_HTTP_ANSWERS_H */
