/*
 * follower_token.h: the token a lecture's follower gets when it joins
 * (follower_token.c), which its answers carry and by which the follower's
 * limits are counted.
 *
 * A token is "ID.MAC": ID is FOLLOWER_ID_LEN random id characters
 * (ids.h), MAC the first 128 bits, in hex, of HMAC-SHA256 keyed with the
 * lecture's secret over "follower:LECTURE:ID".  The secret is the
 * lecture's write token, which the store keeps with the lecture, so every
 * server sharing the store verifies a token issued by any of them without
 * a lookup per answer and without a table of tokens; a follower never
 * sees the secret, and cannot make a token for another ID or another
 * lecture.  Tokens do not expire: they last as long as the lecture.
 */
#ifndef SLUBLAB_SERVER_HTTP_FOLLOWER_TOKEN_H
#define SLUBLAB_SERVER_HTTP_FOLLOWER_TOKEN_H

#include <stdbool.h>

#define FOLLOWER_ID_LEN    16u /* characters of a follower's id */
#define FOLLOWER_MAC_LEN   32u /* hex digits of the MAC */
#define FOLLOWER_TOKEN_LEN (FOLLOWER_ID_LEN + 1 + FOLLOWER_MAC_LEN) /* "ID.MAC" */

/* A new follower's token of lecture @lecture keyed by @secret into @out
 * (FOLLOWER_TOKEN_LEN + 1 bytes).  0 or -EIO (no randomness). */
int follower_token_issue(const char *secret, const char *lecture, char *out);
/* Has @token (NULL: none) a token's shape, "ID.MAC"?  (Not whether it is one.) */
bool follower_token_valid(const char *token);
/* Is @token (NULL: none) one follower_token_issue() made for @lecture with
 * @secret?  Compared in time independent of where it differs. */
bool follower_token_verify(const char *secret, const char *lecture, const char *token);
/* The follower's id in a verified @token into @out (FOLLOWER_ID_LEN + 1
 * bytes): the key of its limits.  Cannot fail. */
void follower_token_id(const char *token, char *out);

#endif /* SLUBLAB_SERVER_HTTP_FOLLOWER_TOKEN_H */
