/*
 * test_name_spans.c: the names objects had over a run
 * (scenario/name_spans.c): a name shows from its allocation until its
 * address is handed out again, a name that reuses an object knows the
 * object's first name, the open map survives heavy reuse, a
 * rollback restores what a failed batch changed, and the sealed form
 * shows what the spans show and unseals to them.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scenario/name_spans.h"

struct seen {
    sim_addr_t addrs[64];
    size_t n;
};

static void note(const struct name_span *sp, void *arg)
{
    struct seen *s = arg;

    if (s->n < 64)
        s->addrs[s->n++] = sp->addr;
}

/* The name showing for @addr at @at, or "" */
static const char *name_at(const struct name_spans *ns, sim_addr_t addr, uint64_t at)
{
    size_t i;

    for (i = 0; i < ns->nr; i++)
        if (ns->v[i].addr == addr && ns->v[i].from < at && at <= ns->v[i].to)
            return name_span_name(ns, &ns->v[i]);
    return "";
}

static size_t count_at(const struct name_spans *ns, uint64_t at)
{
    struct seen s = {.n = 0};

    return name_spans_at(ns, at, 64, note, &s);
}

static void test_lifetime(void)
{
    struct name_spans ns = {0};

    /* a: allocated by the op that starts at 10; freed later (nothing recorded);
     * its address handed out again, unnamed, by the op that starts at 30 */
    CHECK_EQ_I(name_spans_bind(&ns, 0x1000, "a", 10), 0);
    CHECK_EQ_STR(name_at(&ns, 0x1000, 10), "");
    CHECK_EQ_STR(name_at(&ns, 0x1000, 11), "a");
    CHECK_EQ_STR(name_at(&ns, 0x1000, 29), "a");
    name_spans_reuse(&ns, 0x1000, 30);
    CHECK_EQ_STR(name_at(&ns, 0x1000, 30), "a");
    CHECK_EQ_STR(name_at(&ns, 0x1000, 31), "");
    /* b takes the address at 40: a's span stays closed at 30 */
    CHECK_EQ_I(name_spans_bind(&ns, 0x1000, "b", 40), 0);
    CHECK_EQ_STR(name_at(&ns, 0x1000, 41), "b");
    CHECK_EQ_U(count_at(&ns, 20), 1);
    CHECK_EQ_U(count_at(&ns, 35), 0);
    CHECK_EQ_U(count_at(&ns, 1000), 1);
    /* binding a new name to a named address ends the old name there */
    CHECK_EQ_I(name_spans_bind(&ns, 0x1000, "c", 50), 0);
    CHECK_EQ_STR(name_at(&ns, 0x1000, 50), "b");
    CHECK_EQ_STR(name_at(&ns, 0x1000, 51), "c");
    CHECK_EQ_U(count_at(&ns, 51), 1);
    /* one object, one identity: c and d reuse the object b named first; b
     * followed an unnamed hand-out, so it starts a line of its own */
    CHECK(name_span_first(&ns, &ns.v[1]) == NULL);
    CHECK_EQ_STR(name_span_first(&ns, &ns.v[2]), "b");
    CHECK_EQ_I(name_spans_bind(&ns, 0x1000, "d", 60), 0);
    CHECK_EQ_STR(name_span_first(&ns, &ns.v[3]), "b");
    CHECK_EQ_I(name_spans_bind(&ns, 0x2000, "e", 70), 0);
    CHECK(name_span_first(&ns, &ns.v[4]) == NULL);
    /* as a replay runs it: the allocation hands the address out, then names it */
    name_spans_reuse(&ns, 0x1000, 80);
    CHECK_EQ_I(name_spans_bind(&ns, 0x1000, "f", 80), 0);
    CHECK_EQ_STR(name_span_first(&ns, &ns.v[5]), "b");
    name_spans_release(&ns);
}

static void test_many(void)
{
    struct name_spans ns = {0};
    char name[32];
    uint64_t at = 0;
    unsigned k;

    /* 10,000 objects on 100 addresses, each address reused 100 times */
    for (k = 0; k < 10000; k++) {
        snprintf(name, sizeof(name), "o%u", k);
        name_spans_reuse(&ns, 0x100000 + (k % 100) * 64, at);
        CHECK_EQ_I(name_spans_bind(&ns, 0x100000 + (k % 100) * 64, name, at), 0);
        at += 3;
    }
    CHECK_EQ_U(ns.nr, 10000);
    CHECK_EQ_U(ns.open_nr, 100);
    CHECK_EQ_U(count_at(&ns, at), 100);
    {
        struct seen s = {.n = 0};

        CHECK_EQ_U(name_spans_at(&ns, at, 64, note, &s), 100);
        CHECK_EQ_U(s.n, 64);
    }
    CHECK_EQ_STR(name_at(&ns, 0x100000, at), "o9900");
    CHECK_EQ_STR(name_at(&ns, 0x100000 + 99 * 64, at), "o9999");
    CHECK_EQ_STR(name_at(&ns, 0x100000, 3 * 150 + 1), "o100");
    name_spans_release(&ns);
}

static void test_rollback(void)
{
    struct name_spans ns = {0};
    size_t nr;

    CHECK_EQ_I(name_spans_bind(&ns, 0x1000, "a", 0), 0);
    CHECK_EQ_I(name_spans_bind(&ns, 0x2000, "b", 5), 0);
    nr = ns.nr;
    /* a batch starting at 10 reuses a's address and names a new object, then fails */
    name_spans_reuse(&ns, 0x1000, 10);
    CHECK_EQ_I(name_spans_bind(&ns, 0x3000, "c", 12), 0);
    CHECK_EQ_STR(name_at(&ns, 0x1000, 11), "");
    name_spans_rollback(&ns, nr, 10);
    CHECK_EQ_U(ns.nr, 2);
    CHECK_EQ_U(ns.open_nr, 2);
    CHECK_EQ_STR(name_at(&ns, 0x1000, 11), "a");
    CHECK_EQ_STR(name_at(&ns, 0x3000, 13), "");
    /* the map works after the rebuild: reuse closes a again */
    name_spans_reuse(&ns, 0x1000, 20);
    CHECK_EQ_STR(name_at(&ns, 0x1000, 21), "");
    CHECK_EQ_U(ns.open_nr, 1);
    CHECK_EQ_I(name_spans_bind(&ns, 0x4000, "d", 22), 0);
    CHECK_EQ_STR(name_at(&ns, 0x4000, 23), "d");
    CHECK(name_spans_bytes(&ns) > 0);
    name_spans_release(&ns);
    /* an empty set rolls back to nothing without trouble */
    name_spans_rollback(&ns, 0, 0);
    CHECK_EQ_U(ns.nr, 0);
}

/* Every span name_spans_at() shows at @at, as "addr=name/first;" text. */
struct shown {
    const struct name_spans *ns;
    char text[8192];
    size_t len;
};

static void show(const struct name_span *sp, void *arg)
{
    struct shown *s = arg;
    const char *first = name_span_first(s->ns, sp);
    int n = snprintf(s->text + s->len, sizeof(s->text) - s->len, "%llx=%s/%s;",
                     (unsigned long long)sp->addr, name_span_name(s->ns, sp), first ? first : "-");

    if (n > 0 && (size_t)n < sizeof(s->text) - s->len)
        s->len += (size_t)n;
}

static size_t shown_at(const struct name_spans *ns, uint64_t at, struct shown *s)
{
    s->ns = ns;
    s->len = 0;
    s->text[0] = 0;
    return name_spans_at(ns, at, 1000, show, s);
}

static void test_sealed(void)
{
    struct name_spans ns = {0}, ref = {0};
    static struct shown a, b;
    uint64_t x = 12345, at = 0;
    size_t i, bytes;
    char name[16];

    /* 1,000 binds over 97 addresses (reused, renamed), some going down in
     * address, across several chunks; the same into @ref, never sealed */
    for (i = 0; i < 1000; i++) {
        sim_addr_t addr;

        x = x * 6364136223846793005ull + 1442695040888963407ull;
        addr = 0xffff888000000000ull + (x >> 33) % 97 * 64;
        at += (x >> 20) % 3;
        snprintf(name, sizeof(name), "n%zu", i);
        if ((x >> 40) % 4 == 0) {
            name_spans_reuse(&ns, addr, at);
            name_spans_reuse(&ref, addr, at);
            continue;
        }
        CHECK_EQ_I(name_spans_bind(&ns, addr, name, at), 0);
        CHECK_EQ_I(name_spans_bind(&ref, addr, name, at), 0);
    }
    bytes = (size_t)name_spans_bytes(&ns);
    CHECK_EQ_I(name_spans_seal(&ns), 0);
    CHECK(ns.sealed);
    CHECK(name_spans_bytes(&ns) * 2 < bytes); /* the point of it */
    for (uint64_t p = 0; p <= at + 1; p++) {
        CHECK_EQ_U(shown_at(&ns, p, &a), shown_at(&ref, p, &b));
        CHECK_EQ_STR(a.text, b.text);
    }
    /* unsealed it is the same spans, and goes on as the other */
    CHECK_EQ_I(name_spans_unseal(&ns), 0);
    CHECK(!ns.sealed);
    CHECK_EQ_U(ns.nr, ref.nr);
    CHECK_EQ_U(ns.open_nr, ref.open_nr);
    CHECK(!memcmp(ns.v, ref.v, ns.nr * sizeof(*ns.v)));
    name_spans_reuse(&ns, 0xffff888000000000ull, at + 5);
    name_spans_reuse(&ref, 0xffff888000000000ull, at + 5);
    CHECK_EQ_I(name_spans_bind(&ns, 0xffff888000000040ull, "late", at + 5), 0);
    CHECK_EQ_I(name_spans_bind(&ref, 0xffff888000000040ull, "late", at + 5), 0);
    CHECK_EQ_U(shown_at(&ns, at + 6, &a), shown_at(&ref, at + 6, &b));
    CHECK_EQ_STR(a.text, b.text);
    /* sealing nothing, and twice, is fine */
    name_spans_release(&ns);
    CHECK_EQ_I(name_spans_seal(&ns), 0);
    CHECK_EQ_I(name_spans_seal(&ns), 0);
    CHECK_EQ_U(shown_at(&ns, 5, &a), 0);
    CHECK_EQ_I(name_spans_unseal(&ns), 0);
    CHECK_EQ_I(name_spans_bind(&ns, 0x1000, "a", 1), 0);
    CHECK_EQ_STR(name_at(&ns, 0x1000, 2), "a");
    name_spans_release(&ns);
    name_spans_release(&ref);
}

int main(void)
{
    RUN_TEST(test_sealed);
    RUN_TEST(test_lifetime);
    RUN_TEST(test_many);
    RUN_TEST(test_rollback);
    return check_done();
}
