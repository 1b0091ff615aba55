/*
 * random.c: the engine's only source of randomness.
 *
 * xoshiro256** seeded through splitmix64 from the configured seed.  Every
 * random choice SLUB makes (hardening secrets, freelist shuffles, the slab
 * start position, the remote-node defrag draw) comes from here, in a fixed
 * order, so a seed and an operation list determine every byte of output.
 */
#include "internal.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Seed the generator.  Cannot fail. */
void rng_seed(struct rng *r, uint64_t seed)
{
    uint64_t x = seed;

    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

/* Next 64 random bits.  Cannot fail. */
uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform integer in [0, bound), bound > 0, without modulo bias
 * (as get_random_u32_below()). */
uint32_t rng_below(struct rng *r, uint32_t bound)
{
    uint64_t m;
    uint32_t lo, threshold;

    SIM_BUG_ON(bound == 0);
    m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * bound;
    lo = (uint32_t)m;
    if (lo < bound) {
        threshold = (uint32_t)(-bound) % bound;
        while (lo < threshold) {
            m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * bound;
            lo = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}
