/*
 * test_validate.c: corrupt-then-validate, in the manner of the kernel's
 * lib/tests/slub_kunit.c.
 *
 * Each case builds a known state, checks that it validates clean at both
 * levels, breaks exactly one thing (a free pointer word in simulated
 * memory through sim_write_bytes, or one field through internal.h), and
 * requires the exact number of violations the validator must find.  It
 * then puts the field back and requires a clean state again, so the
 * corruption, and nothing else, was what the validator saw.  A validator
 * that never complains fails these tests.
 *
 * The two states:
 *   A10: cache A (64 bytes, 64 per slab, sheaves of 60) after 10
 *        allocations on CPU 0.  S0 has inuse 60: 10 objects with the user,
 *        50 in CPU 0's main sheaf, 4 free objects chained on S0's freelist,
 *        S0 at the head of node 0's partial list.
 *   S4:  cache B (4096 bytes, 8 per slab, sheaves of 4) after the free
 *        storm of scenario S4: barn 0 holds 10 full sheaves, node 0's
 *        partial list is [S0, S5], main and spare are full.
 */
#include "internal.h"
#include "simtest.h"

struct state {
    struct tsim t;
    int cache;
    sim_addr_t obj[64]; /* objects held by the user (A10) */
    struct slab *s0;    /* A10: the slab of obj[0] */
};

static void build_a10(struct state *st)
{
    tsim_init(&st->t, NULL);
    st->cache = tsim_create(&st->t, "A", 64, 0, 0);
    for (int i = 0; i < 10; i++)
        st->obj[i] = tsim_alloc(&st->t, st->cache, 0);
    st->s0 = slab_of(st->t.sim, st->obj[0]);
}

static void build_s4(struct state *st)
{
    sim_addr_t o[56];

    tsim_init(&st->t, NULL);
    st->cache = tsim_create(&st->t, "B", 4096, 0, 0);
    for (int i = 0; i < 56; i++)
        o[i] = tsim_alloc(&st->t, st->cache, 0);
    for (int i = 0; i < 56; i++)
        tsim_free(&st->t, st->cache, 0, o[i]);
    st->s0 = slab_of(st->t.sim, o[0]);
}

/* Require @at_op violations at level OP and @at_event at level EVENT. */
static bool expect_violations(struct state *st, unsigned at_op, unsigned at_event)
{
    struct sim_report rep;
    unsigned n = sim_validate(st->t.sim, SIM_VALIDATE_OP, &rep);
    bool ok = CHECK_EQ_U(n, at_op);

    for (unsigned i = 0; !ok && i < n && i < SIM_REPORT_MSGS; i++)
        printf("     OP:    %s\n", rep.msg[i]);
    n = sim_validate(st->t.sim, SIM_VALIDATE_EVENT, &rep);
    ok = CHECK_EQ_U(n, at_event) && ok;
    if (!ok)
        for (unsigned i = 0; i < n && i < SIM_REPORT_MSGS; i++)
            printf("     EVENT: %s\n", rep.msg[i]);
    return ok;
}

/* The state as built is clean, at both levels and along the way. */
static bool clean(struct state *st)
{
    CHECK_CLEAN(&st->t);
    return st->t.sim && st->s0 && expect_violations(st, 0, 0);
}

static struct kmem_cache *cache_of(struct state *st)
{
    return st->t.sim->caches[st->cache];
}

static struct slab_sheaf *main_sheaf(struct state *st, unsigned cpu)
{
    return sheaf_at(st->t.sim, cache_of(st)->pcs[cpu].main);
}

/* The @k-th object of @slab's freelist (0 = the head). */
static sim_addr_t free_obj(struct state *st, const struct slab *slab, unsigned k)
{
    sim_addr_t p = slab->freelist;
    struct sim_freeptr fp;

    while (p && k--) {
        if (sim_read_freeptr(st->t.sim, st->cache, p, &fp))
            return 0;
        p = fp.decoded;
    }
    return p;
}

/* Store @next as the free pointer of @obj, encoded as the cache would. */
static void write_freeptr(struct state *st, sim_addr_t obj, sim_addr_t next)
{
    struct sim_freeptr fp;
    uint64_t word;
    uint8_t b[8];

    if (!CHECK_OK(sim_read_freeptr(st->t.sim, st->cache, obj, &fp)))
        return;
    word = fp.stored ^ fp.decoded ^ next; /* the stored word is linear in next */
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(word >> (8 * i));
    CHECK_OK(sim_write_bytes(st->t.sim, fp.at, b, sizeof(b)));
}

/* A free pointer that ends the chain early: 1 of 4 free objects is found. */
static void test_freeptr_truncated(void)
{
    struct state st;
    sim_addr_t head, second;

    build_a10(&st);
    if (!clean(&st))
        return;
    CHECK_EQ_U(st.s0->inuse, 60);
    head = free_obj(&st, st.s0, 0);
    second = free_obj(&st, st.s0, 1);
    CHECK_NE_U(second, 0);
    write_freeptr(&st, head, SIM_NULL);
    expect_violations(&st, 1, 1);
    write_freeptr(&st, head, second);
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* A free pointer into the middle of an object */
static void test_freeptr_not_an_object(void)
{
    struct state st;
    sim_addr_t head, second;

    build_a10(&st);
    if (!clean(&st))
        return;
    head = free_obj(&st, st.s0, 0);
    second = free_obj(&st, st.s0, 1);
    write_freeptr(&st, head, second + 8);
    expect_violations(&st, 1, 1);
    write_freeptr(&st, head, st.s0->base + 64 * 64); /* just past the slab's last object */
    expect_violations(&st, 1, 1);
    write_freeptr(&st, head, second);
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* The last free object points back to the first: a cycle */
static void test_freeptr_cycle(void)
{
    struct state st;
    sim_addr_t head, last;

    build_a10(&st);
    if (!clean(&st))
        return;
    head = free_obj(&st, st.s0, 0);
    last = free_obj(&st, st.s0, 3);
    CHECK_EQ_U(free_obj(&st, st.s0, 4), 0);
    write_freeptr(&st, last, head);
    expect_violations(&st, 1, 1);
    write_freeptr(&st, last, SIM_NULL);
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* slab->inuse one too high, then one too low: the freelist no longer has
 * objects - inuse entries (invariant 1) and inuse no longer equals what the
 * users and sheaves hold (invariant 4), so two violations each time */
static void test_slab_inuse(void)
{
    struct state st;

    build_a10(&st);
    if (!clean(&st))
        return;
    st.s0->inuse++;
    expect_violations(&st, 2, 2);
    st.s0->inuse -= 2;
    expect_violations(&st, 2, 2);
    st.s0->inuse++;
    expect_violations(&st, 0, 0);
    /* beyond objects: the freelist walk stops at the first check */
    st.s0->inuse = st.s0->objects + 1;
    expect_violations(&st, 2, 2);
    st.s0->inuse = 60;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* a slab's seq at or past its cache's count of created slabs */
static void test_slab_seq(void)
{
    struct state st;
    unsigned seq;

    build_a10(&st);
    if (!clean(&st))
        return;
    seq = st.s0->seq;
    CHECK(seq == 0);
    st.s0->seq = st.t.sim->caches[st.cache]->nr_created;
    expect_violations(&st, 1, 1);
    st.s0->seq = seq;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* node->nr_partial (the partial list's count) off by one either way */
static void test_node_nr_partial(void)
{
    struct state st;
    struct kmem_cache_node *n;

    build_s4(&st);
    if (!clean(&st))
        return;
    n = &cache_of(&st)->node[0];
    CHECK_EQ_U(n->partial.nr, 2);
    n->partial.nr = 3;
    expect_violations(&st, 1, 1);
    n->partial.nr = 1;
    expect_violations(&st, 1, 1);
    n->partial.nr = 2;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* node->nr_slabs and node->total_objects disagree with the slabs */
static void test_node_nr_slabs(void)
{
    struct state st;
    struct kmem_cache_node *n;

    build_s4(&st);
    if (!clean(&st))
        return;
    n = &cache_of(&st)->node[0];
    CHECK_EQ_U(n->nr_slabs, 7);
    n->nr_slabs++;
    expect_violations(&st, 1, 1);
    n->nr_slabs--;
    n->total_objects -= 8;
    expect_violations(&st, 1, 1);
    n->total_objects += 8;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* the barn's nr_full (the full list's count) off by one */
static void test_barn_nr_full(void)
{
    struct state st;
    struct node_barn *b;

    build_s4(&st);
    if (!clean(&st))
        return;
    b = &cache_of(&st)->barn[0];
    CHECK_EQ_U(b->full.nr, 10);
    b->full.nr = 9;
    expect_violations(&st, 1, 1);
    b->full.nr = 11;
    expect_violations(&st, 1, 1);
    b->full.nr = 10;
    b->empty.nr = 1; /* the empty list is empty */
    expect_violations(&st, 1, 1);
    b->empty.nr = 0;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* a sheaf's size one too small: its top object is in nobody's hands, so
 * its slab's inuse exceeds users + sheaves (conservation) */
static void test_sheaf_size(void)
{
    struct state st;
    struct slab_sheaf *m;

    build_a10(&st);
    if (!clean(&st))
        return;
    m = main_sheaf(&st, 0);
    CHECK_EQ_U(m->size, 50);
    m->size--;
    expect_violations(&st, 1, 1);
    m->size = m->capacity + 1; /* beyond the capacity */
    expect_violations(&st, 2, 2); /* size > capacity; and the 10 objects in slots 50..59
                                   * (the users' objects, stale) are counted: conservation */
    m->size = 50;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* the same object twice in a sheaf: the uncaught double free */
static void test_sheaf_duplicate(void)
{
    struct state st;
    struct slab_sheaf *m;
    sim_addr_t saved;

    build_a10(&st);
    if (!clean(&st))
        return;
    m = main_sheaf(&st, 0);
    /* in place of another object of the same slab: only the duplicate is wrong */
    CHECK(slab_of(st.t.sim, m->objects[0]) == slab_of(st.t.sim, m->objects[1]));
    saved = m->objects[1];
    m->objects[1] = m->objects[0];
    expect_violations(&st, 1, 1);
    m->objects[1] = saved;
    expect_violations(&st, 0, 0);
    /* pushed on top: also one object more than S0's inuse allows */
    saved = m->objects[m->size];
    m->objects[m->size++] = m->objects[0];
    expect_violations(&st, 2, 2);
    m->objects[--m->size] = saved;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* an object both on its slab's freelist and in a sheaf */
static void test_sheaf_holds_free_object(void)
{
    struct state st;
    struct slab_sheaf *m;
    sim_addr_t saved;

    build_a10(&st);
    if (!clean(&st))
        return;
    m = main_sheaf(&st, 0);
    saved = m->objects[7];
    m->objects[7] = free_obj(&st, st.s0, 2); /* S0 for S0: counts unchanged */
    expect_violations(&st, 1, 1);
    m->objects[7] = st.obj[0] + 1; /* not an object start */
    expect_violations(&st, 2, 2); /* and S0 is one object short: conservation */
    m->objects[7] = 0x1000;       /* in no slab */
    expect_violations(&st, 2, 2);
    m->objects[7] = saved;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* a broken back link in the node's partial list and in the barn's full list */
static void test_list_link(void)
{
    struct state st;
    struct kmem_cache_node *n;
    struct node_barn *b;
    struct slab *second;
    struct slab_sheaf *third;
    uint32_t saved;

    build_s4(&st);
    if (!clean(&st))
        return;
    n = &cache_of(&st)->node[0];
    second = slab_at(st.t.sim, n->partial.tail);
    CHECK_EQ_U(second->link.prev, n->partial.head);
    saved = second->link.prev;
    second->link.prev = 0;
    expect_violations(&st, 1, 1);
    second->link.prev = saved;
    expect_violations(&st, 0, 0);

    b = &cache_of(&st)->barn[0];
    third = sheaf_at(st.t.sim, sheaf_at(st.t.sim, b->full.head)->link.next);
    saved = third->link.prev;
    third->link.prev = b->full.tail;
    expect_violations(&st, 1, 1);
    third->link.prev = saved;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* a page on the buddy allocator's free lists marked as a slab page */
static void test_free_page_in_slab(void)
{
    struct state st;
    struct zone *z;
    struct sim_page *p;
    unsigned o;

    build_s4(&st);
    if (!clean(&st))
        return;
    z = &st.t.sim->zones[0];
    for (o = 0; o <= MAX_PAGE_ORDER && !z->area[o].head; o++)
        ;
    if (!CHECK_LE_U(o, MAX_PAGE_ORDER))
        return;
    p = zone_page(z, z->area[o].head - 1);
    p->slab = page_of(st.t.sim, st.s0->base)->slab;
    expect_violations(&st, 1, 1);
    p->slab = 0;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* the buddy allocator's counters */
static void test_zone_counts(void)
{
    struct state st;
    struct zone *z;
    unsigned o;

    build_s4(&st);
    if (!clean(&st))
        return;
    z = &st.t.sim->zones[0];
    z->free_pages--;
    expect_violations(&st, 1, 1);
    z->free_pages++;
    for (o = 0; o <= MAX_PAGE_ORDER && !z->area[o].nr_free; o++)
        ;
    if (!CHECK_LE_U(o, MAX_PAGE_ORDER))
        return;
    z->area[o].nr_free++; /* the walk counts the real blocks, so free_pages still agrees */
    expect_violations(&st, 1, 1);
    z->area[o].nr_free--;
    expect_violations(&st, 0, 0);
    st.t.sim->nr_page_bytes++; /* what sim_host_bytes() counts pages by */
    expect_violations(&st, 1, 1);
    st.t.sim->nr_page_bytes--;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* where a sheaf says it is, and the shared bootstrap sheaf */
static void test_sheaf_place(void)
{
    struct state st;
    struct slab_sheaf *m, *boot;

    build_a10(&st);
    if (!clean(&st))
        return;
    m = main_sheaf(&st, 0);
    m->place.type = SIM_PL_SPARE;
    expect_violations(&st, 1, 1);
    m->place.type = SIM_PL_MAIN;
    m->place.cpu = 1;
    expect_violations(&st, 1, 1);
    m->place.cpu = 0;
    m->place.type = SIM_PL_INFLIGHT; /* in flight is legal only mid-operation */
    expect_violations(&st, 2, 1);
    m->place.type = SIM_PL_MAIN;
    expect_violations(&st, 0, 0);
    boot = sheaf_at(st.t.sim, BOOTSTRAP_SHEAF);
    boot->size = 1;
    expect_violations(&st, 1, 1);
    boot->size = 0;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

/* level OP only: a slab still private to an operation */
static void test_private_slab(void)
{
    struct state st;
    struct slab *full = NULL;

    build_s4(&st);
    if (!clean(&st))
        return;
    /* S1..S4 and S6 are full: on no list, with no freelist */
    for (uint32_t idx = 1; idx < st.t.sim->slabs.used && !full; idx++)
        if (slab_at(st.t.sim, idx)->cache == st.cache &&
                slab_at(st.t.sim, idx)->list == SLAB_ON_NONE)
            full = slab_at(st.t.sim, idx);
    if (!CHECK(full != NULL))
        return;
    CHECK_EQ_U(full->freelist, SIM_NULL);
    full->list = SLAB_ON_PRIVATE;
    expect_violations(&st, 1, 0);
    full->list = SLAB_ON_NONE;
    expect_violations(&st, 0, 0);
    tsim_fini(&st.t);
}

int main(void)
{
    RUN_TEST(test_freeptr_truncated);
    RUN_TEST(test_freeptr_not_an_object);
    RUN_TEST(test_freeptr_cycle);
    RUN_TEST(test_slab_inuse);
    RUN_TEST(test_slab_seq);
    RUN_TEST(test_node_nr_partial);
    RUN_TEST(test_node_nr_slabs);
    RUN_TEST(test_barn_nr_full);
    RUN_TEST(test_sheaf_size);
    RUN_TEST(test_sheaf_duplicate);
    RUN_TEST(test_sheaf_holds_free_object);
    RUN_TEST(test_list_link);
    RUN_TEST(test_free_page_in_slab);
    RUN_TEST(test_zone_counts);
    RUN_TEST(test_sheaf_place);
    RUN_TEST(test_private_slab);
    return check_done();
}
