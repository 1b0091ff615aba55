/*
 * test_oplog.c: the op log (session/oplog.c) in chunks with a disk tier:
 * every record reads back as written across chunk boundaries, only tier.keep
 * stored chunks stay in memory, a log opened on what the tier holds reads
 * the same, a cut inside a stored chunk keeps that chunk in memory (and the
 * tier's copy unchanged), and a tier that fails is an error, not a wrong op.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session/oplog.h"

#define MAX_CHUNKS 256

/* A tier in memory: the chunks as put, and how often each call came. */
struct fake_tier {
    uint8_t *buf[MAX_CHUNKS];
    size_t len[MAX_CHUNKS];
    uint64_t ops[MAX_CHUNKS], events[MAX_CHUNKS];
    unsigned puts, gets;
    bool fail;
};

static int fake_put(void *arg, uint64_t idx, const uint8_t *buf, size_t len, uint64_t ops,
                    uint64_t events)
{
    struct fake_tier *t = arg;

    if (t->fail || idx >= MAX_CHUNKS)
        return -EIO;
    free(t->buf[idx]);
    t->buf[idx] = malloc(len ? len : 1);
    if (!t->buf[idx])
        return -ENOMEM;
    memcpy(t->buf[idx], buf, len);
    t->len[idx] = len;
    t->ops[idx] = ops;
    t->events[idx] = events;
    t->puts++;
    return 0;
}

static int fake_get(void *arg, uint64_t idx, uint8_t **buf, size_t *len)
{
    struct fake_tier *t = arg;

    if (t->fail || idx >= MAX_CHUNKS || !t->buf[idx])
        return -EIO;
    *buf = malloc(t->len[idx] ? t->len[idx] : 1);
    if (!*buf)
        return -ENOMEM;
    memcpy(*buf, t->buf[idx], t->len[idx]);
    *len = t->len[idx];
    t->gets++;
    return 0;
}

static void fake_release(struct fake_tier *t)
{
    for (unsigned i = 0; i < MAX_CHUNKS; i++)
        free(t->buf[i]);
}

/* Operation @i of a made-up run: allocs, frees with addresses, a bulk free now and then. */
static void op_of(uint64_t i, struct sim_op *op, sim_addr_t *in)
{
    memset(op, 0, sizeof(*op));
    op->node = SIM_NUMA_NO_NODE;
    op->cpu = (unsigned)(i % 7);
    op->cache = (int)(i % 5);
    if (i % 97 == 0) {
        op->kind = SIM_OP_FREE_BULK;
        op->count = 3;
        for (unsigned k = 0; k < 3; k++)
            in[k] = 0xffff888100000000ull + i * 64 + k;
        op->in = in;
    } else if (i % 2) {
        op->kind = SIM_OP_FREE;
        op->addr = 0xffff888100000000ull + i * 64;
    } else {
        op->kind = SIM_OP_ALLOC;
        op->gfp = (unsigned)(i % 3);
    }
}

/* Read @log from offset 0 and compare with op_of(); how many matched. */
static uint64_t read_back(struct oplog *log, uint64_t n)
{
    struct oplog_scratch scratch = {NULL, 0, NULL};
    size_t off = 0;
    uint64_t i, ev;

    for (i = 0; i < n; i++) {
        struct sim_op want, got;
        sim_addr_t in[3];

        op_of(i, &want, in);
        if (oplog_next(log, &off, &got, &ev, &scratch) || ev != i % 4 || got.kind != want.kind ||
            got.cpu != want.cpu || got.cache != want.cache || got.addr != want.addr ||
            got.count != want.count ||
            (want.in && memcmp(got.in, want.in, want.count * sizeof(*in))))
            break;
    }
    if (i == n && oplog_next(log, &off, &(struct sim_op){0}, &ev, NULL) != -ENOENT)
        i = 0; /* the log goes on past its end */
    free(scratch.in);
    free(scratch.race);
    return i;
}

static void test_chunks_and_tier(void)
{
    struct fake_tier t = {0};
    struct oplog log = OPLOG_INIT, again = OPLOG_INIT;
    const uint64_t n = 60000;
    uint64_t events = 0, ops = 0;
    unsigned stored = 0;

    log.tier = (struct oplog_tier){fake_put, fake_get, &t, 2};
    for (uint64_t i = 0; i < n; i++) {
        struct sim_op op;
        sim_addr_t in[3];

        op_of(i, &op, in);
        if (!CHECK_EQ_I(oplog_append(&log, &op, i % 4), 0))
            break;
        events += i % 4;
    }
    CHECK_EQ_U(log.nr_ops, n);
    CHECK_EQ_U(log.nr_events, events);
    CHECK_GT_U(log.nr_chunks, 5);          /* several chunks ... */
    CHECK_EQ_U(t.puts, log.nr_chunks - 1); /* ... all but the last stored */
    CHECK_LE_U(log.nr_loaded, 2);          /* and at most keep of them in memory */
    CHECK_LT_U(oplog_memory(&log), 5 * OPLOG_CHUNK);
    CHECK_EQ_U(read_back(&log, n), n);
    CHECK_GT_U(t.gets, 0);
    CHECK_LE_U(log.nr_loaded, 2);
    CHECK_EQ_I(oplog_flush(&log), 0);
    CHECK_EQ_U(t.puts, log.nr_chunks);
    for (unsigned i = 0; i < log.nr_chunks; i++) {
        ops += t.ops[i];
        stored += t.buf[i] != NULL;
    }
    CHECK_EQ_U(ops, n);
    CHECK_EQ_U(stored, log.nr_chunks);

    /* a log opened on what the tier holds reads the same */
    if (CHECK_EQ_I(oplog_open_stored(&again, &log.tier, log.nr_chunks, t.len[log.nr_chunks - 1], n,
                                     events),
                   0)) {
        CHECK_EQ_U(again.len, log.len);
        CHECK_EQ_U(again.nr_loaded, 0);
        CHECK_EQ_U(read_back(&again, n), n);
        CHECK_LE_U(again.nr_loaded, 2);
    }

    /* cut inside a stored chunk (op 1000): that chunk stays in memory, the
     * tier's copy is not touched, and the log ends there */
    {
        size_t off = 0, cut;
        uint64_t ev, cut_events = 0;
        struct sim_op op;
        size_t len0 = t.len[0];

        for (unsigned i = 0; i < 1000; i++) {
            oplog_next(&again, &off, &op, &ev, NULL);
            cut_events += ev;
        }
        cut = off;
        CHECK_EQ_I(oplog_truncate(&again, cut, 1000, cut_events), 0);
        CHECK_EQ_U(again.nr_chunks, 1);
        CHECK_EQ_U(again.len, cut);
        CHECK(!again.chunks[0].stored);
        CHECK_EQ_U(t.len[0], len0);
        CHECK_EQ_U(again.chunk_ops, 1000);
        CHECK_EQ_U(read_back(&again, 1000), 1000);
    }

    /* a tier that fails: reading a dropped chunk is -EIO, never another op */
    {
        size_t off = 0;
        uint64_t ev;
        struct sim_op op;

        oplog_release(&again);
        CHECK_EQ_I(oplog_open_stored(&again, &log.tier, log.nr_chunks, t.len[log.nr_chunks - 1], n,
                                     events),
                   0);
        t.fail = true;
        CHECK_EQ_I(oplog_next(&again, &off, &op, &ev, NULL), -EIO);
        t.fail = false;
    }
    oplog_release(&again);
    oplog_release(&log);
    fake_release(&t);
}

/* Without a tier the log is memory alone, in chunks, and a cut anywhere works. */
static void test_memory_only(void)
{
    struct oplog log = OPLOG_INIT;
    const uint64_t n = 30000;
    size_t mid = 0;
    uint64_t mid_events = 0;

    for (uint64_t i = 0; i < n; i++) {
        struct sim_op op;
        sim_addr_t in[3];

        op_of(i, &op, in);
        CHECK_EQ_I(oplog_append(&log, &op, i % 4), 0);
        if (i + 1 == n / 2) {
            mid = log.len;
            mid_events = log.nr_events;
        }
    }
    CHECK_GT_U(log.nr_chunks, 2);
    CHECK_EQ_U(log.nr_loaded, 0);
    CHECK_EQ_U(read_back(&log, n), n);
    CHECK_EQ_I(oplog_truncate(&log, mid, n / 2, mid_events), 0);
    CHECK_EQ_U(read_back(&log, n / 2), n / 2);
    /* appending after the cut continues the same sequence */
    for (uint64_t i = n / 2; i < n; i++) {
        struct sim_op op;
        sim_addr_t in[3];

        op_of(i, &op, in);
        CHECK_EQ_I(oplog_append(&log, &op, i % 4), 0);
    }
    CHECK_EQ_U(read_back(&log, n), n);
    oplog_release(&log);
}

int main(void)
{
    RUN_TEST(test_chunks_and_tier);
    RUN_TEST(test_memory_only);
    return check_done();
}
