/*
 * ktrace.h: a real kernel's kmem trace, read and replayed on the engine.
 *
 * Three layers, one file each:
 *  - ktrace_parse.c: one line of ftrace text output (what
 *    /sys/kernel/tracing/trace prints) into a struct ktrace_event.  The
 *    parser is hand-written and bounds-checked: it reads exactly @len bytes,
 *    never needs a terminating NUL, and copies nothing (names point into
 *    the line).  It knows kmem:kmem_cache_alloc, kmem:kmem_cache_free,
 *    kmem:kmalloc and kmem:kfree (and the *_node variants of older
 *    kernels); any other event is KTRACE_OTHER, anything unreadable
 *    KTRACE_BAD with a reason.
 *  - ktrace_read.c: lines from a plain or gzip file (zlib reads both),
 *    with lines over KTRACE_MAX_LINE skipped and counted, CRLF accepted and
 *    a gzip stream cut short reported.
 *  - ktrace_replay.c: the events as engine operations (see there).
 * cli/cmd_replay.c is `slublab replay`, the only user that prints.
 */
#ifndef SLUBLAB_SERVER_KTRACE_KTRACE_H
#define SLUBLAB_SERVER_KTRACE_KTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "slub.h"

#define KTRACE_MAX_LINE (64u << 10) /* longer lines are skipped and counted */
#define KTRACE_MAX_CPU  4095u       /* [NNN] values above are garbage */

enum ktrace_kind {
    KTRACE_NONE,    /* blank line or a '#' comment */
    KTRACE_ALLOC,   /* kmem_cache_alloc[_node] */
    KTRACE_FREE,    /* kmem_cache_free */
    KTRACE_KMALLOC, /* kmalloc[_node] */
    KTRACE_KFREE,   /* kfree */
    KTRACE_OTHER,   /* a well-formed line of another event */
    KTRACE_BAD,     /* not a trace line, or a kmem line missing a field */
};

struct ktrace_event {
    enum ktrace_kind kind;
    unsigned cpu;     /* from the [NNN] field */
    uint64_t ptr;     /* ptr=: hashed but stable within one boot */
    const char *name; /* name= (kmem_cache_*), pointing into the line; NULL: absent */
    size_t name_len;
    const char *call_site; /* call_site= symbol without +off/len; NULL: absent */
    size_t call_site_len;
    unsigned bytes_req;   /* allocations: requested and ... */
    unsigned bytes_alloc; /* ... actual size (s->size; kmalloc: the class) */
    const char *gfp_text; /* gfp_flags= as printed ("GFP_KERNEL|__GFP_ZERO"); NULL: absent */
    size_t gfp_len;       /* (ktrace_parse_gfp() reads it; callers may cache the result) */
    int node;             /* node=, or SIM_NUMA_NO_NODE */
    const char *reason;   /* KTRACE_BAD: why, a static string */
};

/*
 * Parse one line (without its newline; a trailing '\r' is ignored).
 * Returns the kind, also stored in ev->kind.  Cannot fail otherwise: bad
 * input is KTRACE_BAD with ev->reason set.
 */
enum ktrace_kind ktrace_parse_line(const char *line, size_t len, struct ktrace_event *ev);
/* gfp_flags text as the tracepoint prints it ("GFP_KERNEL|__GFP_ZERO",
 * "none") into a mask; false (nothing stored) when a name is unknown. */
bool ktrace_parse_gfp(const char *text, size_t len, uint32_t *out);
/* As ktrace_parse_gfp(), name by name: the names it knows go into *@out, the
 * others to @unknown[0..@nr_unknown) (pointers into @text, with their
 * lengths in @unknown_len; at most @nr_unknown kept).  Returns how many names
 * were not understood.  Cannot fail. */
unsigned ktrace_parse_gfp_names(const char *text, size_t len, uint32_t *out, const char **unknown,
                                size_t *unknown_len, unsigned nr_unknown);
/* "#P:2" in a header comment: the number of CPUs; false when absent. */
bool ktrace_header_cpus(const char *line, size_t len, unsigned *out);
/* "# entries-in-buffer/entries-written: 33937/40000": what the ring buffer
 * kept and what was written (more when it overwrote the oldest); false when
 * absent. */
bool ktrace_header_entries(const char *line, size_t len, uint64_t *in_buffer, uint64_t *written);
/* "# kernel: 6.18.44" (written by scripts/record-kmem-trace): the release;
 * false when absent.  *out points into the line. */
bool ktrace_header_kernel(const char *line, size_t len, const char **out, size_t *out_len);
/* True for a call site in the RCU callback machinery (a free deferred by RCU). */
bool ktrace_is_rcu_call_site(const char *site, size_t len);

/* ---- ktrace_read.c ---- */

struct ktrace_reader;

/* Open @path (plain or gzip).  0, or -errno with the reason in @err. */
int ktrace_open(const char *path, struct ktrace_reader **out, struct strbuf *err);
/* Open a memory buffer (the fuzzer, tests); @buf must outlive the reader. */
int ktrace_open_mem(const void *buf, size_t len, struct ktrace_reader **out);
/* Start reading @n bytes in (before the first read: an upload whose body
 * holds something else before the trace).  0, -EINVAL or -errno. */
int ktrace_skip(struct ktrace_reader *r, uint64_t n);
/*
 * The next line, without its newline or a trailing '\r'.  Returns 1 and
 * sets *line and *len (valid until the next call), 0 at the end, -EIO when
 * the input is unreadable or a gzip stream is cut short, or -EFBIG past the
 * limit of ktrace_reader_limit() (message in ktrace_reader_error()); lines
 * read before stay valid results.
 */
int ktrace_next_line(struct ktrace_reader *r, const char **line, size_t *len);
/* Lines longer than KTRACE_MAX_LINE skipped so far. */
uint64_t ktrace_reader_overlong(const struct ktrace_reader *r);
/* Stop with an error once a pass has produced more than @max_text bytes of
 * text (0: no limit; the default).  Cannot fail. */
void ktrace_reader_limit(struct ktrace_reader *r, uint64_t max_text);
/* Stop with an error once a gzip input's text passes @ratio times the
 * compressed bytes read (0: no limit; the default): a stream of blank lines
 * compresses a thousandfold, a real trace about tenfold.  Cannot fail. */
void ktrace_reader_ratio(struct ktrace_reader *r, unsigned ratio);
/* Compressed bytes consumed and the file's size (0 when unknown): progress. */
uint64_t ktrace_reader_pos(const struct ktrace_reader *r);
uint64_t ktrace_reader_size(const struct ktrace_reader *r);
const char *ktrace_reader_error(const struct ktrace_reader *r);
/* Start again from the first line.  0 or -EIO. */
int ktrace_rewind(struct ktrace_reader *r);
void ktrace_close(struct ktrace_reader *r);

#endif /* SLUBLAB_SERVER_KTRACE_KTRACE_H */
