/*
 * oplog.c: the session's engine-operation log (see oplog.h).
 *
 * Record layout: the operation kind (one byte), a byte of flags saying
 * which fields follow, then as LEB128 varints the CPU, the event count and
 * cache id + 1, then the fields the flags name, in this order: node (one
 * byte), gfp, size, count, byte (one byte), sheaf as varints, addr as 8
 * little-endian bytes, and for an operation with an input array (free_bulk)
 * its `count` addresses, 8 bytes each.  A race adds its struct sim_race
 * whole (plain data, no pointers).  A create adds its kmem_cache_args:
 * name (length byte and bytes), object_size, align, flags, a bit byte
 * (ctor, use_freeptr_offset), freeptr_offset and sheaf_capacity.
 *
 * Every record is decoded again as it is written and compared with the
 * operation: should struct sim_op grow a field this encoding does not know,
 * the operation is stored whole instead (the RAW flag: the struct's bytes,
 * pointers cleared), so the log always replays exactly what ran, and is
 * compact whenever it can be.
 */
#include "session/oplog.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define F_NODE  0x01u
#define F_GFP   0x02u
#define F_SIZE  0x04u
#define F_COUNT 0x08u
#define F_BYTE  0x10u
#define F_SHEAF 0x20u
#define F_ADDR  0x40u
#define F_RAW   0x80u /* the struct's bytes follow instead of the fields */

/* The fixed part of a record, at most: kind, flags, 9 varints, node, byte, addr. */
#define OPLOG_MAX_FIXED (2 + 9 * 10 + 2 + 8 + 1 + SIM_NAME_MAX + 6 * 10)

static bool oplog_reserve(struct oplog *log, size_t more)
{
    size_t cap;
    uint8_t *buf;

    if (log->len + more <= log->cap)
        return true;
    cap = log->cap ? log->cap : 4096;
    while (cap < log->len + more)
        cap *= 2;
    buf = realloc(log->buf, cap);
    if (!buf)
        return false;
    log->buf = buf;
    log->cap = cap;
    return true;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* The input array of @op, if its kind has one. */
static const sim_addr_t *oplog_in(const struct sim_op *op)
{
    return op->kind == SIM_OP_FREE_BULK ? op->in : NULL;
}

/* A race's contexts and schedule, whole; returns the end. */
static uint8_t *put_race(uint8_t *p, const struct sim_op *op)
{
    if (op->kind != SIM_OP_RACE)
        return p;
    *p++ = op->race ? 1 : 0;
    if (op->race) {
        memcpy(p, op->race, sizeof(*op->race));
        p += sizeof(*op->race);
    }
    return p;
}

/* Write @op compactly at @p; returns the end. */
static uint8_t *oplog_encode(uint8_t *p, const struct sim_op *op, uint64_t events)
{
    const sim_addr_t *in = oplog_in(op);
    unsigned flags = 0;
    size_t nlen;

    if (op->node != SIM_NUMA_NO_NODE)
        flags |= F_NODE;
    if (op->gfp)
        flags |= F_GFP;
    if (op->size)
        flags |= F_SIZE;
    if (op->count)
        flags |= F_COUNT;
    if (op->byte)
        flags |= F_BYTE;
    if (op->sheaf)
        flags |= F_SHEAF;
    if (op->addr)
        flags |= F_ADDR;
    *p++ = (uint8_t)op->kind;
    *p++ = (uint8_t)flags;
    p = put_varint(p, op->cpu);
    p = put_varint(p, events);
    p = put_varint(p, (uint64_t)((int64_t)op->cache + 1));
    if (flags & F_NODE)
        *p++ = (uint8_t)op->node;
    if (flags & F_GFP)
        p = put_varint(p, op->gfp);
    if (flags & F_SIZE)
        p = put_varint(p, op->size);
    if (flags & F_COUNT)
        p = put_varint(p, op->count);
    if (flags & F_BYTE)
        *p++ = op->byte;
    if (flags & F_SHEAF)
        p = put_varint(p, op->sheaf);
    if (flags & F_ADDR)
        p = put_u64(p, op->addr);
    for (unsigned i = 0; in && i < op->count; i++)
        p = put_u64(p, in[i]);
    p = put_race(p, op);
    if (op->kind == SIM_OP_CREATE) {
        for (nlen = 0; nlen < SIM_NAME_MAX - 1 && op->create.name[nlen]; nlen++)
            ;
        *p++ = (uint8_t)nlen;
        memcpy(p, op->create.name, nlen);
        p += nlen;
        p = put_varint(p, op->create.object_size);
        p = put_varint(p, op->create.align);
        p = put_varint(p, op->create.flags);
        *p++ = (uint8_t)((op->create.ctor ? 1u : 0u) | (op->create.use_freeptr_offset ? 2u : 0u));
        p = put_varint(p, op->create.freeptr_offset);
        p = put_varint(p, op->create.sheaf_capacity);
    }
    return p;
}

/* Write @op whole at @p (pointers cleared, then the input array); returns the end. */
static uint8_t *oplog_encode_raw(uint8_t *p, const struct sim_op *op, uint64_t events)
{
    const sim_addr_t *in = oplog_in(op);
    struct sim_op copy = *op;

    copy.out = NULL;
    copy.in = NULL;
    copy.race = NULL;
    *p++ = (uint8_t)op->kind;
    *p++ = F_RAW;
    p = put_varint(p, events);
    memcpy(p, &copy, sizeof(copy));
    p += sizeof(copy);
    for (unsigned i = 0; in && i < op->count; i++)
        p = put_u64(p, in[i]);
    return put_race(p, op);
}

/* Does the decoded @got say what @want said (pointers and padding aside)? */
static bool oplog_same(const struct sim_op *want, const struct sim_op *got)
{
    struct sim_op w = *want;
    const sim_addr_t *in = oplog_in(want);

    w.out = NULL;
    w.in = got->in;
    w.race = got->race;
    if (memcmp(&w, got, sizeof(w)) != 0)
        return false;
    if (!want->race != !got->race ||
        (want->race && memcmp(want->race, got->race, sizeof(*want->race)) != 0))
        return false;
    return !in || !want->count || memcmp(in, got->in, want->count * sizeof(*in)) == 0;
}

int oplog_append(struct oplog *log, const struct sim_op *op, uint64_t events)
{
    const sim_addr_t *in = oplog_in(op);
    size_t need = OPLOG_MAX_FIXED + sizeof(*op) + (in ? (size_t)op->count * 8 : 0) + 1 +
                  sizeof(struct sim_race);
    struct oplog_scratch scratch = {NULL, 0, NULL};
    struct sim_op back;
    size_t off, check, end;
    uint64_t ev;

    if ((unsigned)op->kind > 255 || !oplog_reserve(log, need))
        return -ENOMEM;
    off = check = log->len;
    end = (size_t)(oplog_encode(log->buf + off, op, events) - log->buf);
    log->len = end;
    if (oplog_next(log, &check, &back, &ev, &scratch) || check != end || ev != events ||
        !oplog_same(op, &back))
        log->len = (size_t)(oplog_encode_raw(log->buf + off, op, events) - log->buf);
    free(scratch.in);
    free(scratch.race);
    log->nr_ops++;
    log->nr_events += events;
    return 0;
}

/* Read a varint at *p (before @end); false when it runs past @end or 64 bits. */
static bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;

    while (*p < end && shift < 64) {
        uint8_t b = *(*p)++;

        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
        shift += 7;
    }
    return false;
}

static bool get_u32(const uint8_t **p, const uint8_t *end, unsigned *out)
{
    uint64_t v;

    if (!get_varint(p, end, &v) || v > UINT32_MAX)
        return false;
    *out = (unsigned)v;
    return true;
}

static bool get_u64(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;

    if (end - *p < 8)
        return false;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t) * (*p)++ << (8 * i);
    *out = v;
    return true;
}

/* Read @op's input array into @scratch (or skip it when @scratch is NULL). */
static bool get_in(const uint8_t **p, const uint8_t *end, struct sim_op *op,
                   struct oplog_scratch *scratch)
{
    size_t n = op->count;

    op->in = NULL;
    if (op->kind != SIM_OP_FREE_BULK)
        return true;
    if ((size_t)(end - *p) / 8 < n)
        return false;
    if (!scratch) {
        *p += n * 8;
        return true;
    }
    if (n > scratch->cap) {
        sim_addr_t *in = realloc(scratch->in, n * sizeof(*in));

        if (!in)
            return false;
        scratch->in = in;
        scratch->cap = n;
    }
    for (size_t i = 0; i < n; i++)
        get_u64(p, end, &scratch->in[i]);
    op->in = scratch->in;
    return true;
}

/* Read a race's record into @scratch (or skip it when @scratch is NULL). */
static bool get_race(const uint8_t **p, const uint8_t *end, struct sim_op *op,
                     struct oplog_scratch *scratch)
{
    op->race = NULL;
    if (op->kind != SIM_OP_RACE)
        return true;
    if (*p >= end)
        return false;
    if (!*(*p)++)
        return true;
    if ((size_t)(end - *p) < sizeof(struct sim_race))
        return false;
    if (scratch) {
        if (!scratch->race && !(scratch->race = malloc(sizeof(*scratch->race))))
            return false;
        memcpy(scratch->race, *p, sizeof(*scratch->race));
        op->race = scratch->race;
    }
    *p += sizeof(struct sim_race);
    return true;
}

int oplog_next(const struct oplog *log, size_t *off, struct sim_op *op, uint64_t *events,
               struct oplog_scratch *scratch)
{
    const uint8_t *p = log->buf + *off, *end = log->buf + log->len;
    uint64_t cache;
    unsigned flags, kind;

    if (*off >= log->len)
        return -ENOENT;
    if (end - p < 2)
        return -EIO;
    memset(op, 0, sizeof(*op));
    kind = *p++;
    flags = *p++;
    if (kind >= SIM_NR_OPS)
        return -EIO;
    if (flags & F_RAW) {
        if (!get_varint(&p, end, events) || (size_t)(end - p) < sizeof(*op))
            return -EIO;
        memcpy(op, p, sizeof(*op));
        p += sizeof(*op);
        if ((unsigned)op->kind != kind || !get_in(&p, end, op, scratch) ||
            !get_race(&p, end, op, scratch))
            return -EIO;
        *off = (size_t)(p - log->buf);
        return 0;
    }
    op->kind = (enum sim_op_kind)kind;
    op->node = SIM_NUMA_NO_NODE;
    if (!get_u32(&p, end, &op->cpu) || !get_varint(&p, end, events) ||
        !get_varint(&p, end, &cache) || cache > INT32_MAX)
        return -EIO;
    op->cache = (int)cache - 1;
    if (flags & F_NODE) {
        if (p >= end)
            return -EIO;
        op->node = *p++;
    }
    if (((flags & F_GFP) && !get_u32(&p, end, &op->gfp)) ||
        ((flags & F_SIZE) && !get_u32(&p, end, &op->size)) ||
        ((flags & F_COUNT) && !get_u32(&p, end, &op->count)))
        return -EIO;
    if (flags & F_BYTE) {
        if (p >= end)
            return -EIO;
        op->byte = *p++;
    }
    if (((flags & F_SHEAF) && !get_u32(&p, end, &op->sheaf)) ||
        ((flags & F_ADDR) && !get_u64(&p, end, &op->addr)) || !get_in(&p, end, op, scratch) ||
        !get_race(&p, end, op, scratch))
        return -EIO;
    if (op->kind == SIM_OP_CREATE) {
        size_t nlen;
        unsigned bits;

        if (p >= end || (nlen = *p++) >= SIM_NAME_MAX || (size_t)(end - p) < nlen)
            return -EIO;
        memcpy(op->create.name, p, nlen);
        p += nlen;
        if (!get_u32(&p, end, &op->create.object_size) || !get_u32(&p, end, &op->create.align) ||
            !get_u32(&p, end, &op->create.flags) || p >= end)
            return -EIO;
        bits = *p++;
        op->create.ctor = (bits & 1u) != 0;
        op->create.use_freeptr_offset = (bits & 2u) != 0;
        if (!get_u32(&p, end, &op->create.freeptr_offset) ||
            !get_u32(&p, end, &op->create.sheaf_capacity))
            return -EIO;
    }
    *off = (size_t)(p - log->buf);
    return 0;
}

void oplog_truncate(struct oplog *log, size_t len, uint64_t nr_ops, uint64_t nr_events)
{
    if (len < log->len)
        log->len = len;
    log->nr_ops = nr_ops;
    log->nr_events = nr_events;
}

void oplog_release(struct oplog *log)
{
    if (!log)
        return;
    free(log->buf);
    log->buf = NULL;
    log->len = log->cap = 0;
    log->nr_ops = log->nr_events = 0;
}
