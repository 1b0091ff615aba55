/*
 * ids.h: random identifiers: short ids for sessions and snapshots, and
 * write tokens.
 *
 * Ids use the 32 characters a-z and 2-7 (no 0/o or 1/l to misread when a
 * teacher reads a link aloud), five bits each: a 10-character session id
 * carries 50 bits and an 8-character snapshot id 40, enough that guessing
 * one is hopeless while collisions are merely retried.  Tokens are 128 bits
 * in hex.  Everything comes from getrandom(2), never from the engine's
 * seeded generator.
 */
#ifndef SLUBLAB_SERVER_BASE_IDS_H
#define SLUBLAB_SERVER_BASE_IDS_H

#include <stdbool.h>
#include <stddef.h>

/* @len random id characters and a NUL into @buf (len + 1 bytes).  0 or -EIO. */
int ids_random(char *buf, size_t len);
/* A 32-hex-digit token and a NUL into @buf (33 bytes).  0 or -EIO. */
int ids_token(char *buf);
/* True when @s is 1..@max characters of [a-z0-9]: the shape of every id. */
bool ids_valid(const char *s, size_t max);
/* Compare a presented token with the real one in time independent of where they differ. */
bool ids_token_equal(const char *given, const char *real);

#endif /* SLUBLAB_SERVER_BASE_IDS_H */
