/*
 * test_cow.c: page bytes shared between a machine and its clones, copied on
 * the first write (engine/mem.c).
 *
 * A clone and the machine it came from must each see their own bytes after
 * either writes, whichever is destroyed first and however deep the chain of
 * clones; a copy that the host cannot allocate must break only the machine
 * that wrote (-ENOMEM, then -EIO) and leave the others' bytes alone; and
 * several threads cloning one machine at once, then writing their clones,
 * must neither disturb it nor each other (run under ASan here, and by hand
 * under TSan).  Every machine is validated (nr_page_bytes counts the pages
 * with bytes, shared or not), and LeakSanitizer checks that nothing leaks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "simtest.h"

#define NR_OBJS    64u
#define OBJ_SIZE   256u
#define NR_THREADS 4u
#define NR_CLONES  6u

/* A machine with NR_OBJS objects of OBJ_SIZE bytes, each filled with its index + 1. */
struct machine {
    struct tsim t;
    int cache;
    sim_addr_t obj[NR_OBJS];
};

static bool build(struct machine *m)
{
    tsim_init(&m->t, NULL);
    if (!m->t.sim)
        return false;
    m->cache = tsim_create(&m->t, "cow", OBJ_SIZE, 0, 0);
    if (m->cache < 0)
        return false;
    for (unsigned i = 0; i < NR_OBJS; i++) {
        uint8_t buf[OBJ_SIZE];

        m->obj[i] = tsim_alloc(&m->t, m->cache, 0);
        if (!m->obj[i])
            return false;
        memset(buf, (int)(i + 1), sizeof(buf));
        if (sim_write_bytes(m->t.sim, m->obj[i], buf, sizeof(buf)))
            return false;
    }
    return true;
}

/* Does every object of @sim hold @val (or, when @val is 0, its index + 1)? */
static bool holds(const struct sim *sim, const struct machine *m, int val)
{
    for (unsigned i = 0; i < NR_OBJS; i++) {
        uint8_t buf[OBJ_SIZE];

        if (sim_read_bytes(sim, m->obj[i], buf, sizeof(buf)))
            return false;
        for (unsigned k = 0; k < OBJ_SIZE; k++)
            if (buf[k] != (uint8_t)(val ? val : (int)(i + 1)))
                return false;
    }
    return true;
}

static int fill(struct sim *sim, const struct machine *m, int val)
{
    uint8_t buf[OBJ_SIZE];

    memset(buf, val, sizeof(buf));
    for (unsigned i = 0; i < NR_OBJS; i++) {
        int ret = sim_write_bytes(sim, m->obj[i], buf, sizeof(buf));

        if (ret)
            return ret;
    }
    return 0;
}

static unsigned long violations(struct sim *sim)
{
    struct sim_report rep;

    sim_validate(sim, SIM_VALIDATE_OP, &rep);
    if (rep.violations)
        printf("  %s\n", rep.msg[0]);
    return rep.violations;
}

/* Clone, write each side, then destroy the machine first or the clone first. */
static void each_sees_its_own(bool machine_first)
{
    struct machine m;
    struct sim *copy = NULL;
    uint64_t host;

    if (!CHECK(build(&m)))
        goto out;
    host = sim_host_bytes(m.t.sim);
    if (!CHECK_EQ_I(sim_clone(m.t.sim, &copy), 0))
        goto out;
    CHECK(holds(copy, &m, 0));
    /* each holder counts a shared page in full (slub.h) */
    CHECK_EQ_U(sim_host_bytes(copy), host);
    CHECK_EQ_I(fill(m.t.sim, &m, 0x22), 0);
    CHECK(holds(m.t.sim, &m, 0x22));
    CHECK(holds(copy, &m, 0)); /* the clone kept the bytes it was cloned with */
    CHECK_EQ_I(fill(copy, &m, 0x33), 0);
    CHECK(holds(copy, &m, 0x33));
    CHECK(holds(m.t.sim, &m, 0x22));
    CHECK_EQ_U(sim_host_bytes(m.t.sim), host);
    CHECK_EQ_U(violations(m.t.sim) + violations(copy), 0);
    /* the survivor's bytes must still be there, and writable */
    if (machine_first) {
        tsim_fini(&m.t);
        CHECK(holds(copy, &m, 0x33));
        CHECK_EQ_I(fill(copy, &m, 0x44), 0);
        CHECK(holds(copy, &m, 0x44));
    } else {
        sim_destroy(copy);
        copy = NULL;
        CHECK(holds(m.t.sim, &m, 0x22));
        CHECK_EQ_I(fill(m.t.sim, &m, 0x44), 0);
        CHECK(holds(m.t.sim, &m, 0x44));
    }
out:
    sim_destroy(copy);
    tsim_fini(&m.t);
}

static void test_each_sees_its_own(void)
{
    each_sees_its_own(false);
    each_sees_its_own(true);
}

/* The clone is written first, and the machine never: the clone's write must
 * not reach the machine. */
static void test_clone_writes_first(void)
{
    struct machine m;
    struct sim *copy = NULL;

    if (!CHECK(build(&m)))
        goto out;
    if (!CHECK_EQ_I(sim_clone(m.t.sim, &copy), 0))
        goto out;
    CHECK_EQ_I(fill(copy, &m, 0x55), 0);
    CHECK(holds(copy, &m, 0x55));
    CHECK(holds(m.t.sim, &m, 0));
    /* the machine runs on: operations write free pointers into shared pages */
    for (unsigned i = 0; i < NR_OBJS; i += 2)
        CHECK_EQ_I(tsim_free(&m.t, m.cache, 0, m.obj[i]), SIM_OK);
    CHECK(holds(copy, &m, 0x55));
    CHECK_EQ_U(violations(m.t.sim) + violations(copy), 0);
    CHECK_EQ_U(m.t.violations, 0);
out:
    sim_destroy(copy);
    tsim_fini(&m.t);
}

static void test_clone_of_clone(void)
{
    struct machine m;
    struct sim *b = NULL, *c = NULL;

    if (!CHECK(build(&m)))
        goto out;
    if (!CHECK_EQ_I(sim_clone(m.t.sim, &b), 0) || !CHECK_EQ_I(sim_clone(b, &c), 0))
        goto out;
    CHECK_EQ_I(fill(b, &m, 0x66), 0);
    CHECK(holds(m.t.sim, &m, 0));
    CHECK(holds(c, &m, 0));
    CHECK(holds(b, &m, 0x66));
    /* the middle one goes first; the other two still share their pages */
    sim_destroy(b);
    b = NULL;
    CHECK(holds(c, &m, 0));
    CHECK_EQ_I(fill(c, &m, 0x77), 0);
    CHECK(holds(m.t.sim, &m, 0));
    CHECK(holds(c, &m, 0x77));
    tsim_fini(&m.t);
    CHECK(holds(c, &m, 0x77));
    CHECK_EQ_U(violations(c), 0);
out:
    sim_destroy(c);
    sim_destroy(b);
    tsim_fini(&m.t);
}

/* The copy of a shared page is a host allocation like any other: when it
 * fails, the write fails whole, and the machine it shares with is untouched. */
static void test_copy_fails(void)
{
    struct machine m;
    struct sim *copy = NULL;
    uint8_t buf[OBJ_SIZE];

    if (!CHECK(build(&m)))
        goto out;
    if (!CHECK_EQ_I(sim_clone(m.t.sim, &copy), 0))
        goto out;
    sim_fail_host_alloc(copy, 1);
    memset(buf, 0x88, sizeof(buf));
    CHECK_EQ_I(sim_write_bytes(copy, m.obj[3], buf, sizeof(buf)), -ENOMEM);
    CHECK(holds(m.t.sim, &m, 0));
    CHECK(holds(copy, &m, 0)); /* the failed write (within one page) left no trace */
    CHECK_EQ_U(violations(copy), 0);
    sim_destroy(copy);
    if (!CHECK_EQ_I(sim_clone(m.t.sim, &copy), 0))
        goto out;
    /* the machine it shares with runs on, and copies nothing it need not */
    CHECK_EQ_I(fill(m.t.sim, &m, 0x99), 0);
    CHECK(holds(m.t.sim, &m, 0x99));
    CHECK(holds(copy, &m, 0));
    sim_destroy(copy);
    copy = NULL;
    CHECK_EQ_U(violations(m.t.sim), 0);
out:
    sim_destroy(copy);
    tsim_fini(&m.t);
}

/* The same inside sim_apply(): a poisoning cache writes its pages on every
 * free, so a free on a clone copies a shared page.  Fail the N-th host
 * allocation of the free for N = 1, 2, ... until it succeeds. */
static void test_copy_fails_in_apply(void)
{
    struct tsim t;
    int cache;
    sim_addr_t a;
    unsigned failed = 0;

    tsim_init(&t, NULL);
    if (!CHECK(t.sim))
        return;
    cache = tsim_create(&t, "poisoned", 128, SIM_SLAB_POISON, 0);
    a = cache >= 0 ? tsim_alloc(&t, cache, 0) : 0;
    if (!CHECK(a))
        goto out;
    /* the object's user writes it, so the free's poison changes its bytes */
    CHECK_EQ_I(sim_write_bytes(t.sim, a, "user data", 9), 0);
    for (unsigned long n = 1; n < 64; n++) {
        struct sim *copy = NULL;
        struct sim_op op = {
                .kind = SIM_OP_FREE, .cache = cache, .cpu = 0, .addr = a, .node = SIM_NUMA_NO_NODE};
        struct sim_result res;
        uint8_t before[128], after[128];
        int ret;

        if (!CHECK_EQ_I(sim_clone(t.sim, &copy), 0))
            break;
        CHECK_EQ_I(sim_read_bytes(t.sim, a, before, sizeof(before)), 0);
        sim_fail_host_alloc(copy, n);
        ret = sim_apply(copy, &op, &res);
        CHECK_EQ_I(sim_read_bytes(t.sim, a, after, sizeof(after)), 0);
        CHECK(!memcmp(before, after, sizeof(before)));
        if (ret == 0) {
            /* the clone's object is poisoned now; the machine's is not */
            CHECK_EQ_I(sim_read_bytes(copy, a, after, sizeof(after)), 0);
            CHECK(memcmp(before, after, sizeof(before)));
            CHECK_EQ_U(violations(copy), 0);
            sim_destroy(copy);
            break;
        }
        CHECK_EQ_I(ret, -ENOMEM);
        CHECK_EQ_I(sim_apply(copy, &op, &res), -EIO);
        failed++;
        sim_destroy(copy);
    }
    printf("  the free failed %u times before it ran\n", failed);
    CHECK_GT_U(failed, 0); /* at least the page copy failed once */
    CHECK_EQ_U(violations(t.sim), 0);
out:
    tsim_fini(&t);
}

struct worker {
    pthread_t tid;
    const struct machine *m;
    int val;
    unsigned bad;
};

static void *work(void *arg)
{
    struct worker *w = arg;

    for (unsigned i = 0; i < NR_CLONES; i++) {
        struct sim *copy = NULL;
        struct sim_report rep;

        if (sim_clone(w->m->t.sim, &copy)) {
            w->bad++;
            continue;
        }
        w->bad += !holds(copy, w->m, 0);
        w->bad += fill(copy, w->m, w->val + (int)i) != 0;
        w->bad += !holds(copy, w->m, w->val + (int)i);
        w->bad += !holds(w->m->t.sim, w->m, 0);
        sim_validate(copy, SIM_VALIDATE_OP, &rep);
        w->bad += rep.violations != 0;
        sim_destroy(copy);
    }
    return NULL;
}

static void test_concurrent_clones(void)
{
    struct machine m;
    struct worker w[NR_THREADS];
    unsigned started = 0;

    if (!CHECK(build(&m)))
        goto out;
    for (unsigned i = 0; i < NR_THREADS; i++) {
        w[i] = (struct worker){.m = &m, .val = (int)(0x10 * (i + 1))};
        if (!CHECK_EQ_I(pthread_create(&w[i].tid, NULL, work, &w[i]), 0))
            break;
        started++;
    }
    for (unsigned i = 0; i < started; i++) {
        pthread_join(w[i].tid, NULL);
        CHECK_EQ_U(w[i].bad, 0);
    }
    CHECK(holds(m.t.sim, &m, 0));
    CHECK_EQ_U(violations(m.t.sim), 0);
out:
    tsim_fini(&m.t);
}

int main(void)
{
    RUN_TEST(test_each_sees_its_own);
    RUN_TEST(test_clone_writes_first);
    RUN_TEST(test_clone_of_clone);
    RUN_TEST(test_copy_fails);
    RUN_TEST(test_copy_fails_in_apply);
    RUN_TEST(test_concurrent_clones);
    return check_done();
}
