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
 *
 * The records are kept in chunks (oplog.h); with a disk tier the chunks
 * behind the one being written go to the store and only a few stay in
 * memory, so a log of any length costs a bounded amount of memory.
 */
#include "session/oplog.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

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

#define OFF_IDX(off) ((size_t)(off) >> OPLOG_AT_BITS)
#define OFF_AT(off)  ((size_t)(off) & ((((size_t)1) << OPLOG_AT_BITS) - 1))

static void oplog_set_len(struct oplog *log)
{
    log->len =
            log->nr_chunks ? OPLOG_OFF(log->nr_chunks - 1, log->chunks[log->nr_chunks - 1].len) : 0;
}

/* Drop the least recently read stored chunk in memory, other than @keep. */
static void oplog_evict(struct oplog *log, size_t keep)
{
    struct oplog_chunk *victim = NULL;

    for (size_t i = 0; i < log->nr_chunks; i++) {
        struct oplog_chunk *c = &log->chunks[i];

        if (i != keep && c->buf && c->stored && (!victim || c->used < victim->used))
            victim = c;
    }
    if (!victim)
        return;
    log->resident -= victim->cap;
    free(victim->buf);
    victim->buf = NULL;
    victim->cap = 0;
    log->nr_loaded--;
}

/* Hand the last chunk to the tier; it may then leave memory. */
static int oplog_seal(struct oplog *log)
{
    struct oplog_chunk *c;
    int err;

    if (!log->nr_chunks || !log->tier.put || log->chunks[log->nr_chunks - 1].stored)
        return 0;
    c = &log->chunks[log->nr_chunks - 1];
    err = log->tier.put(log->tier.arg, log->nr_chunks - 1, c->buf, c->len, log->chunk_ops,
                        log->chunk_events);
    if (err) {
        if (!log->tier_err)
            log->tier_err = err;
        return err;
    }
    c->stored = true;
    c->used = ++log->clock;
    log->nr_loaded++;
    while (log->nr_loaded > (log->tier.keep ? log->tier.keep : 1))
        oplog_evict(log, log->nr_chunks - 1);
    return 0;
}

/* Room for @more bytes at the end of a chunk that may take them. */
static struct oplog_chunk *oplog_reserve(struct oplog *log, size_t more)
{
    struct oplog_chunk *c = log->nr_chunks ? &log->chunks[log->nr_chunks - 1] : NULL;
    size_t cap;
    uint8_t *buf;

    if (more > UINT32_MAX / 2 || more >= ((size_t)1 << OPLOG_AT_BITS))
        return NULL;
    if (!c || c->stored || (c->len && c->len + more > OPLOG_CHUNK) ||
        c->len + more >= ((size_t)1 << OPLOG_AT_BITS)) {
        /* an offset names the new chunk's index */
        if (log->nr_chunks >= SIZE_MAX >> OPLOG_AT_BITS)
            return NULL;
        if (c && oplog_seal(log))
            return NULL;
        c = grow_array(log->chunks, &log->cap_chunks, log->nr_chunks + 1, sizeof(*c), 4);
        if (!c)
            return NULL;
        log->chunks = c;
        c = &log->chunks[log->nr_chunks++];
        memset(c, 0, sizeof(*c));
        log->chunk_ops = log->chunk_events = 0;
    }
    if (c->len + more <= c->cap)
        return c;
    cap = c->cap ? c->cap : 4096;
    while (cap < c->len + more)
        cap *= 2;
    buf = realloc(c->buf, cap);
    if (!buf)
        return NULL;
    log->resident += cap - c->cap;
    c->buf = buf;
    c->cap = (uint32_t)cap;
    return c;
}

/* Chunk @idx in memory (loaded from the tier when it is not).  0 or -EIO. */
static int oplog_load(struct oplog *log, size_t idx)
{
    struct oplog_chunk *c = &log->chunks[idx];
    uint8_t *buf = NULL;
    size_t len = 0;

    c->used = ++log->clock;
    if (c->buf)
        return 0;
    if (!log->tier.get || log->tier.get(log->tier.arg, idx, &buf, &len) || len > UINT32_MAX ||
        (idx + 1 == log->nr_chunks && len != c->len)) {
        free(buf);
        return -EIO;
    }
    if (!buf && !(buf = malloc(1)))
        return -EIO;
    c->buf = buf;
    c->len = (uint32_t)len;
    c->cap = (uint32_t)len;
    log->resident += len;
    log->nr_loaded++;
    while (log->nr_loaded > (log->tier.keep ? log->tier.keep : 1))
        oplog_evict(log, idx);
    return 0;
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

static int oplog_decode(const uint8_t **pp, const uint8_t *end, struct sim_op *op, uint64_t *events,
                        struct oplog_scratch *scratch);

int oplog_append(struct oplog *log, const struct sim_op *op, uint64_t events)
{
    const sim_addr_t *in = oplog_in(op);
    size_t need = OPLOG_MAX_FIXED + sizeof(*op) + (in ? (size_t)op->count * 8 : 0) + 1 +
                  sizeof(struct sim_race);
    struct oplog_scratch scratch = {NULL, 0, NULL};
    struct oplog_chunk *c;
    struct sim_op back;
    const uint8_t *check;
    uint8_t *start, *end;
    uint64_t ev;

    if ((unsigned)op->kind > 255)
        return -ENOMEM;
    if (!(c = oplog_reserve(log, need)))
        return log->tier_err ? log->tier_err : -ENOMEM;
    start = c->buf + c->len;
    end = oplog_encode(start, op, events);
    check = start;
    if (oplog_decode(&check, end, &back, &ev, &scratch) || check != end || ev != events ||
        !oplog_same(op, &back))
        end = oplog_encode_raw(start, op, events);
    free(scratch.in);
    free(scratch.race);
    c->len = (uint32_t)(end - c->buf);
    c->used = ++log->clock;
    oplog_set_len(log);
    log->nr_ops++;
    log->nr_events += events;
    log->chunk_ops++;
    log->chunk_events += events;
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

static int oplog_decode(const uint8_t **pp, const uint8_t *end, struct sim_op *op, uint64_t *events,
                        struct oplog_scratch *scratch)
{
    const uint8_t *p = *pp;
    uint64_t cache;
    unsigned flags, kind;

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
        *pp = p;
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
    *pp = p;
    return 0;
}

int oplog_next(struct oplog *log, size_t *off, struct sim_op *op, uint64_t *events,
               struct oplog_scratch *scratch)
{
    size_t idx = OFF_IDX(*off), at = OFF_AT(*off);
    struct oplog_chunk *c;
    const uint8_t *p;
    int err;

    for (;;) {
        if (idx >= log->nr_chunks)
            return -ENOENT;
        if (oplog_load(log, idx))
            return -EIO;
        c = &log->chunks[idx];
        if (at < c->len)
            break;
        if (at > c->len)
            return -EIO;
        idx++;
        at = 0;
    }
    p = c->buf + at;
    if ((err = oplog_decode(&p, c->buf + c->len, op, events, scratch)))
        return err;
    *off = OPLOG_OFF(idx, (size_t)(p - c->buf));
    return 0;
}

int oplog_truncate(struct oplog *log, size_t len, uint64_t nr_ops, uint64_t nr_events)
{
    size_t idx = OFF_IDX(len), at = OFF_AT(len);
    struct oplog_chunk *c;
    const uint8_t *p;

    log->nr_ops = nr_ops;
    log->nr_events = nr_events;
    if (idx >= log->nr_chunks)
        return 0;
    if (oplog_load(log, idx))
        return -EIO;
    while (log->nr_chunks > idx + 1) {
        c = &log->chunks[--log->nr_chunks];
        if (c->buf) {
            log->resident -= c->cap;
            if (c->stored)
                log->nr_loaded--;
            free(c->buf);
        }
    }
    c = &log->chunks[idx];
    if (at < c->len) {
        if (c->stored) { /* no longer what the tier holds: it stays in memory */
            c->stored = false;
            log->nr_loaded--;
        }
        c->len = (uint32_t)at;
    }
    oplog_set_len(log);
    /* what the last chunk holds, for the tier */
    log->chunk_ops = log->chunk_events = 0;
    for (p = c->buf; p < c->buf + c->len;) {
        struct sim_op op;
        uint64_t ev;

        if (oplog_decode(&p, c->buf + c->len, &op, &ev, NULL))
            return -EIO;
        log->chunk_ops++;
        log->chunk_events += ev;
    }
    return 0;
}

int oplog_flush(struct oplog *log)
{
    return oplog_seal(log);
}

int oplog_open_stored(struct oplog *log, const struct oplog_tier *tier, uint64_t nr_chunks,
                      size_t last_len, uint64_t nr_ops, uint64_t nr_events)
{
    oplog_release(log);
    if (!nr_chunks || last_len > UINT32_MAX || nr_chunks > SIZE_MAX / sizeof(*log->chunks))
        return nr_chunks ? -EINVAL : 0;
    log->chunks = calloc((size_t)nr_chunks, sizeof(*log->chunks)); /* checked above */
    if (!log->chunks)
        return -ENOMEM;
    log->nr_chunks = log->cap_chunks = (size_t)nr_chunks;
    for (size_t i = 0; i < nr_chunks; i++)
        log->chunks[i].stored = true;
    log->chunks[nr_chunks - 1].len = (uint32_t)last_len;
    log->tier = *tier;
    log->nr_ops = nr_ops;
    log->nr_events = nr_events;
    oplog_set_len(log);
    return 0;
}

#define OPLOG_SAVE_MAGIC 0x314f4c42554c53ull /* "SLUBLO1" */

int oplog_save(const struct oplog *log, struct strbuf *w)
{
    uint64_t head[6] = {OPLOG_SAVE_MAGIC, log->nr_chunks, log->nr_ops,
                        log->nr_events,   log->chunk_ops, log->chunk_events};

    if (log->tier.put || log->tier.get)
        return -EINVAL;
    strbuf_append(w, (const char *)head, sizeof(head));
    for (size_t i = 0; i < log->nr_chunks; i++) {
        uint64_t n = log->chunks[i].len;

        strbuf_append(w, (const char *)&n, sizeof(n));
        strbuf_append(w, (const char *)log->chunks[i].buf, log->chunks[i].len);
    }
    return 0;
}

int oplog_restore(struct oplog *log, const unsigned char *data, size_t len, size_t *used)
{
    uint64_t head[6], n;
    size_t at = sizeof(head), i;

    oplog_release(log);
    if (len < sizeof(head))
        return -EINVAL;
    memcpy(head, data, sizeof(head));
    if (head[0] != OPLOG_SAVE_MAGIC || head[1] > len / sizeof(n))
        return -EINVAL;
    /* bounded by @len above, so it fits a size_t of any width */
    if (head[1] && !(log->chunks = calloc((size_t)head[1], sizeof(*log->chunks))))
        return -ENOMEM;
    log->nr_chunks = log->cap_chunks = (size_t)head[1];
    for (i = 0; i < log->nr_chunks; i++) {
        struct oplog_chunk *c = &log->chunks[i];

        if (len - at < sizeof(n))
            goto bad;
        memcpy(&n, data + at, sizeof(n));
        at += sizeof(n);
        if (n > len - at || n > UINT32_MAX)
            goto bad;
        if (!(c->buf = malloc(n ? (size_t)n : 1))) {
            oplog_release(log);
            return -ENOMEM;
        }
        memcpy(c->buf, data + at, (size_t)n);
        at += (size_t)n;
        c->len = (uint32_t)n;
        c->cap = n ? (uint32_t)n : 1;
        log->resident += c->cap;
    }
    log->nr_ops = head[2];
    log->nr_events = head[3];
    log->chunk_ops = head[4];
    log->chunk_events = head[5];
    oplog_set_len(log);
    *used = at;
    return 0;
bad:
    oplog_release(log);
    return -EINVAL;
}

uint64_t oplog_memory(const struct oplog *log)
{
    return log->resident + log->cap_chunks * sizeof(*log->chunks);
}

void oplog_release(struct oplog *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->nr_chunks; i++)
        free(log->chunks[i].buf);
    free(log->chunks);
    memset(log, 0, sizeof(*log));
}
