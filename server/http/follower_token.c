/*
 * follower_token.c: followers' tokens, an HMAC of the follower's random id
 * under the lecture's secret (see follower_token.h).  Called by the
 * lecture routes: POST /api/lectures/ID/followers issues one, an answer
 * is verified with one.
 */
#include "http/follower_token.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <nettle/hmac.h>

#include "base/ids.h"

/* The MAC of follower @id of @lecture under @secret, in hex, into @out (FOLLOWER_MAC_LEN + 1). */
static void follower_mac(const char *secret, const char *lecture, const char *id, size_t id_len,
                         char *out)
{
    static const char hex[] = "0123456789abcdef";
    static const char tag[] = "follower:";
    struct hmac_sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_SIZE];

    hmac_sha256_set_key(&ctx, strlen(secret), (const uint8_t *)secret);
    hmac_sha256_update(&ctx, sizeof(tag) - 1, (const uint8_t *)tag);
    hmac_sha256_update(&ctx, strlen(lecture), (const uint8_t *)lecture);
    hmac_sha256_update(&ctx, 1, (const uint8_t *)":");
    hmac_sha256_update(&ctx, id_len, (const uint8_t *)id);
    hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, d);
    for (unsigned i = 0; i < FOLLOWER_MAC_LEN / 2; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[FOLLOWER_MAC_LEN] = '\0';
}

int follower_token_issue(const char *secret, const char *lecture, char *out)
{
    char id[FOLLOWER_ID_LEN + 1];
    int ret;

    if ((ret = ids_random(id, FOLLOWER_ID_LEN)))
        return ret;
    memcpy(out, id, FOLLOWER_ID_LEN);
    out[FOLLOWER_ID_LEN] = '.';
    follower_mac(secret, lecture, id, FOLLOWER_ID_LEN, out + FOLLOWER_ID_LEN + 1);
    return 0;
}

bool follower_token_valid(const char *token)
{
    unsigned i;

    if (!token || strlen(token) != FOLLOWER_TOKEN_LEN || token[FOLLOWER_ID_LEN] != '.')
        return false;
    for (i = 0; i < FOLLOWER_ID_LEN; i++)
        if (!((token[i] >= 'a' && token[i] <= 'z') || (token[i] >= '2' && token[i] <= '7')))
            return false;
    for (i = FOLLOWER_ID_LEN + 1; i < FOLLOWER_TOKEN_LEN; i++)
        if (!((token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f')))
            return false;
    return true;
}

bool follower_token_verify(const char *secret, const char *lecture, const char *token)
{
    char mac[FOLLOWER_MAC_LEN + 1];

    if (!follower_token_valid(token))
        return false;
    follower_mac(secret, lecture, token, FOLLOWER_ID_LEN, mac);
    return ids_token_equal(token + FOLLOWER_ID_LEN + 1, mac);
}

void follower_token_id(const char *token, char *out)
{
    snprintf(out, FOLLOWER_ID_LEN + 1, "%s", token);
}
