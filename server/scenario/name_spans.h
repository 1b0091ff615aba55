/*
 * name_spans.h: which name each object had at each position of a run.
 *
 * A scenario names objects ("o1", "x{i}"); teaching texts keep calling an
 * object by that name after it is freed (it sits in a sheaf, goes back to
 * its slab), until the allocator hands the same address out again.  So a
 * name belongs to an address from the start of the operation that
 * allocated it under that name to the start of the next operation that
 * allocates the same address, named or not.  A span is that interval in
 * event positions: the name shows at every position p with from < p <= to.
 *
 * Spans are appended in order of `from` (operations run one after another);
 * names live in one text arena, and an open-addressing map finds the open
 * span of an address, so a run of a million named objects costs about 40
 * bytes an object.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_NAME_SPANS_H
#define SLUBLAB_SERVER_SCENARIO_NAME_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "slub.h"

#define NAME_SPAN_OPEN UINT64_MAX /* `to` of a span whose address was not handed out again */

struct name_span {
    uint64_t from, to; /* the name shows at positions from < p <= to */
    sim_addr_t addr;
    uint32_t name; /* offset of its NUL-terminated name in the arena */
    uint32_t same; /* index + 1 of the object's first named span; 0: this is it */
};

struct name_closed {
    sim_addr_t addr;
    size_t span; /* index + 1 */
};

#define NAME_SPANS_CHUNK 256u /* spans per chunk of the sealed form */

/* Where chunk c of the sealed form starts: spans [c, c + 1) * NAME_SPANS_CHUNK. */
struct name_chunk {
    size_t at;      /* its first byte in @packed */
    uint64_t max_to; /* the latest `to` of its spans: none shows after it */
    uint32_t name;  /* the name offset of its first span */
};

struct name_spans {
    /* sealed (name_spans_seal()): @v, @open and @closed are empty and the
     * spans are in @packed, read in order; @nr, @text and the rest stay */
    bool sealed;
    unsigned char *packed;
    size_t packed_len;
    struct name_chunk *chunks; /* nr / NAME_SPANS_CHUNK + 1 of them, when sealed */
    struct name_span *v;
    size_t nr, cap;
    char *text; /* the names, one after another */
    size_t text_len, text_cap;
    size_t *open; /* map: address -> index + 1 of its open span; 0 marks an empty slot */
    size_t open_cap, open_nr;
    struct name_closed *closed; /* spans the operation at closed_at closed, for its binds */
    size_t closed_nr, closed_cap;
    uint64_t closed_at;
};

/* Forget everything (a zeroed or released struct is fine). */
void name_spans_release(struct name_spans *ns);
/*
 * An operation that started at position @at handed out @addr: the address's
 * open span, if any, ends at @at.  A name bound to @addr next carries on the
 * line of names of the span closed here (the same object under a new name).
 */
void name_spans_reuse(struct name_spans *ns, sim_addr_t addr, uint64_t at);
/* ... and the scenario names it @name: a new open span.  0 or -ENOMEM (nothing changed). */
int name_spans_bind(struct name_spans *ns, sim_addr_t addr, const char *name, uint64_t at);
/* Undo everything recorded after @nr spans existed and position @at was reached. */
void name_spans_rollback(struct name_spans *ns, size_t nr, uint64_t at);
/*
 * The first name of the object span @sp names, when an earlier allocation of
 * the same address, named, was freed and handed out again as @sp ("o0" for
 * an "o1" that reuses it); NULL when @sp is the first name.
 */
const char *name_span_first(const struct name_spans *ns, const struct name_span *sp);
/* The name of span @sp. */
static inline const char *name_span_name(const struct name_spans *ns, const struct name_span *sp)
{
    return ns->text + sp->name;
}
/*
 * Call @fn for each span showing at position @at (oldest first), at most
 * @max times; returns how many spans showed, counted in full.
 */
size_t name_spans_at(const struct name_spans *ns, uint64_t at, size_t max,
                     void (*fn)(const struct name_span *sp, void *arg), void *arg);
/*
 * Seal @ns: the spans in a dense form (each field a varint, against the
 * span before it) instead of 32 bytes each, and no map of open spans, as
 * a run that waits between requests keeps them.  name_spans_at() and
 * name_span_first() read either form; everything else needs them unsealed
 * (name_spans_unseal()).  0 or -ENOMEM (nothing changed).
 */
int name_spans_seal(struct name_spans *ns);
/* The spans and the map of open spans back, as they were.  0 or -ENOMEM
 * (nothing changed). */
int name_spans_unseal(struct name_spans *ns);
/* Host bytes held, for the session's memory accounting. */
uint64_t name_spans_bytes(const struct name_spans *ns);

#endif /* SLUBLAB_SERVER_SCENARIO_NAME_SPANS_H */
