/*
 * server_only.c: what the API module (api.c) has instead of the server
 * files it does not link (wasm/CMakeLists.txt), which serve only a server
 * that clients reach over sockets:
 *
 * - the follow hub (server/http/follow.c), sending a lecture's moves to its
 *   followers' connections: here there are no followers, so a publish
 *   reaches nobody and an attach gets no stream;
 * - follower tokens (server/http/follower_token.c, HMAC through Nettle):
 *   none is issued or valid;
 * - the lower priority http.c gives a trace job's thread: a job runs on
 *   the module's one thread, after the request that made it (api.c);
 * - the SQLite and PostgreSQL back ends of the store: a store named other
 *   than STORE_MEM_DB does not open;
 * - SHA-256 (base/sha256.c, through Nettle): FIPS 180-4's, written out;
 * - mkstemp(), which wasi-libc leaves out, for a trace upload's file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "http/follow.h"
#include "http/follower_token.h"
#include "http/http.h"
#include "session/store_internal.h"

/* ---- the store: in memory only ----------------------------------------------------- */

static bool no_handles(const char *db)
{
    (void)db;
    return false;
}

static int no_open(const char *db, struct store **out, struct strbuf *err)
{
    (void)out;
    strbuf_printf(err, "%s: this build keeps its store in memory only (--db %s)", db, STORE_MEM_DB);
    return -EIO;
}

const struct store_ops store_pg_ops = {.name = "postgresql", .handles = no_handles};
const struct store_ops store_sqlite_ops = {.name = "sqlite", .open = no_open};

/* ---- the follow hub: nobody follows ------------------------------------------------ */

int follow_hub_new(unsigned interval_ms, unsigned rate, struct follow_hub **out)
{
    (void)interval_ms;
    (void)rate;
    *out = NULL;
    return 0;
}

void follow_hub_stop(struct follow_hub *hub)
{
    (void)hub;
}

void follow_hub_free(struct follow_hub *hub)
{
    (void)hub;
}

void follow_publish(struct follow_hub *hub, const char *id, uint64_t at, uint64_t events,
                    uint64_t ops)
{
    (void)hub;
    (void)id;
    (void)at;
    (void)events;
    (void)ops;
}

void follow_publish_as(struct follow_hub *hub, const char *id, const char *session, uint64_t at,
                       uint64_t events, uint64_t ops)
{
    (void)hub;
    (void)id;
    (void)session;
    (void)at;
    (void)events;
    (void)ops;
}

void follow_publish_state(struct follow_hub *hub, const char *id, const char *session,
                          uint64_t at, uint64_t events, uint64_t ops, struct blob *state)
{
    (void)hub;
    (void)id;
    (void)session;
    (void)at;
    (void)events;
    (void)ops;
    (void)state;
}

void follow_publish_view(struct follow_hub *hub, const char *id, uint64_t view)
{
    (void)hub;
    (void)id;
    (void)view;
}

unsigned follow_count(struct follow_hub *hub, const char *id)
{
    (void)hub;
    (void)id;
    return 0;
}

unsigned follow_sessions(struct follow_hub *hub, struct follow_where *out, unsigned max)
{
    (void)hub;
    (void)out;
    (void)max;
    return 0;
}

void follow_offer_state(struct follow_hub *hub, const char *id, uint64_t at, struct blob *state)
{
    (void)hub;
    (void)id;
    (void)at;
    (void)state;
}

struct follower *follow_attach(struct follow_hub *hub, const char *id, uint64_t at, uint64_t events,
                               uint64_t ops)
{
    return follow_attach_as(hub, id, id, at, events, ops);
}

struct follower *follow_attach_as(struct follow_hub *hub, const char *id, const char *session,
                                  uint64_t at, uint64_t events, uint64_t ops)
{
    (void)hub;
    (void)id;
    (void)session;
    (void)at;
    (void)events;
    (void)ops;
    return NULL; /* route_stream() answers 503 */
}

void follow_detach(void *cls)
{
    (void)cls;
}

/* ---- a trace job's thread runs as any other code here ----------------------------- */

void http_thread_engine(void)
{
}

/* ---- temporary files ----------------------------------------------------------------- */

int mkstemp(char *tmpl)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned serial;
    size_t len = strlen(tmpl);
    char *x = len >= 6 ? tmpl + len - 6 : NULL;

    if (!x || strcmp(x, "XXXXXX")) {
        errno = EINVAL;
        return -1;
    }
    for (unsigned tries = 0; tries < 100; tries++) {
        unsigned n = ++serial;
        int fd;

        for (int i = 0; i < 6; i++, n /= 36)
            x[i] = letters[n % 36];
        if ((fd = open(tmpl, O_RDWR | O_CREAT | O_EXCL, 0600)) >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* ---- follower tokens ------------------------------------------------------------------ */

int follower_token_issue(const char *secret, const char *lecture, char *out)
{
    (void)secret;
    (void)lecture;
    out[0] = '\0';
    return -EIO; /* lectures need a server */
}

bool follower_token_valid(const char *token)
{
    (void)token;
    return false;
}

bool follower_token_verify(const char *secret, const char *lecture, const char *token)
{
    (void)secret;
    (void)lecture;
    (void)token;
    return false;
}

void follower_token_id(const char *token, char *out)
{
    (void)token;
    out[0] = '\0';
}

/* ---- SHA-256, FIPS 180-4 section 6.2 ----------------------------------------------- */

static const uint32_t k256[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};

static uint32_t ror(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64], v[8], t1, t2;
    unsigned i;

    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (; i < 64; i++)
        w[i] = (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10)) + w[i - 7] +
               (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 16];
    memcpy(v, h, sizeof(v));
    for (i = 0; i < 64; i++) {
        t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
             ((v[4] & v[5]) ^ (~v[4] & v[6])) + k256[i] + w[i];
        t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
             ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        memmove(&v[1], &v[0], 7 * sizeof(v[0]));
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (i = 0; i < 8; i++)
        h[i] += v[i];
}

void sha256(const void *data, size_t len, uint8_t out[32])
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const uint8_t *p = data;
    uint8_t last[128];
    uint64_t bits = (uint64_t)len * 8;
    size_t rest, i, n;

    for (; len >= 64; p += 64, len -= 64)
        sha256_block(h, p);
    rest = len;
    memset(last, 0, sizeof(last));
    memcpy(last, p, rest);
    last[rest] = 0x80;
    n = rest < 56 ? 64 : 128;
    for (i = 0; i < 8; i++)
        last[n - 1 - i] = (uint8_t)(bits >> (8 * i));
    sha256_block(h, last);
    if (n == 128)
        sha256_block(h, last + 64);
    for (i = 0; i < 32; i++)
        out[i] = (uint8_t)(h[i / 4] >> (24 - 8 * (i % 4)));
}

void sha256_hex(const char *s, char out[SHA256_HEX_LEN + 1])
{
    uint8_t d[32];
    size_t i;

    sha256(s, strlen(s), d);
    for (i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}
