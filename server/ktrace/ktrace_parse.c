/*
 * ktrace_parse.c: one line of ftrace text output as a kmem event.
 *
 * The format is what /sys/kernel/tracing/trace prints:
 *
 *   TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: key=value key=value ...
 *
 * TASK is the comm and may contain spaces (and brackets), so the line is
 * anchored on the first " [NNN] " field; FLAGS ("....." with irq-info on)
 * may be missing.  Fields are space-separated key=value pairs; keys the
 * model does not use (bytes_req of frees, accounted, ...) are skipped, and
 * their order does not matter.  Every read is bounded by @len: the line
 * needs no terminating NUL and may contain any byte.  A value that does not
 * fit (a 17-digit pointer, a size above 4 GiB) makes the line KTRACE_BAD,
 * never a wrapped number.
 */
#include "ktrace/ktrace.h"

#include <string.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool parse_hex(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;

    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 16)
        return false;
    for (size_t i = 0; i < n; i++) {
        int d = hex_value(s[i]);

        if (d < 0)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return true;
}

static bool parse_u32(const char *s, size_t n, unsigned *out)
{
    uint64_t v = 0;

    if (n == 0 || n > 10)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT32_MAX)
        return false;
    *out = (unsigned)v;
    return true;
}

static bool field_is(const char *k, size_t kn, const char *name)
{
    size_t n = strlen(name);

    return kn == n && memcmp(k, name, n) == 0;
}

static enum ktrace_kind bad(struct ktrace_event *ev, const char *why)
{
    ev->kind = KTRACE_BAD;
    ev->reason = why;
    return KTRACE_BAD;
}

/* Offset just past " [NNN] " (the CPU field), or 0 when there is none. */
static size_t find_cpu_field(const char *l, size_t len, unsigned *cpu)
{
    for (size_t i = 1; i + 2 < len; i++) {
        const char *br = memchr(l + i, '[', len - 2 - i);
        size_t j;
        unsigned v = 0;

        if (!br)
            return 0;
        i = (size_t)(br - l);
        j = i + 1;
        if (l[i - 1] != ' ' || !is_digit(l[j]))
            continue;
        while (j < len && is_digit(l[j]) && v <= KTRACE_MAX_CPU)
            v = v * 10 + (unsigned)(l[j++] - '0');
        if (j < len && l[j] == ']' && v <= KTRACE_MAX_CPU && (j + 1 == len || l[j + 1] == ' ')) {
            *cpu = v;
            return j + 1;
        }
    }
    return 0;
}

static size_t skip_spaces(const char *l, size_t len, size_t i)
{
    while (i < len && l[i] == ' ')
        i++;
    return i;
}

static size_t token_end(const char *l, size_t len, size_t i)
{
    const char *sp = i < len ? memchr(l + i, ' ', len - i) : NULL;

    return sp ? (size_t)(sp - l) : len;
}

/* "253.136746:" or "1234:" (counter clocks) */
static bool is_timestamp(const char *s, size_t n)
{
    size_t i = 0;

    if (n < 2 || s[n - 1] != ':')
        return false;
    while (i < n - 1 && is_digit(s[i]))
        i++;
    if (i == 0)
        return false;
    if (i < n - 1 && s[i] == '.') {
        i++;
        while (i < n - 1 && is_digit(s[i]))
            i++;
    }
    return i == n - 1;
}

static enum ktrace_kind event_kind(const char *s, size_t n)
{
    if (field_is(s, n, "kmem_cache_alloc") || field_is(s, n, "kmem_cache_alloc_node"))
        return KTRACE_ALLOC;
    if (field_is(s, n, "kmem_cache_free"))
        return KTRACE_FREE;
    if (field_is(s, n, "kmalloc") || field_is(s, n, "kmalloc_node"))
        return KTRACE_KMALLOC;
    if (field_is(s, n, "kfree"))
        return KTRACE_KFREE;
    return KTRACE_OTHER;
}

bool ktrace_parse_gfp(const char *v, size_t n, uint32_t *out)
{
    char buf[256];

    if (field_is(v, n, "GFP_KERNEL")) { /* the common case, without a copy */
        *out = SIM_GFP_KERNEL;
        return true;
    }
    if (n == 0 || field_is(v, n, "none") || field_is(v, n, "0x0")) {
        *out = 0;
        return true;
    }
    if (n >= sizeof(buf))
        return false;
    memcpy(buf, v, n);
    buf[n] = 0;
    return sim_gfp_parse(buf, out) == 0;
}

unsigned ktrace_parse_gfp_names(const char *v, size_t n, uint32_t *out, const char **unknown,
                                size_t *unknown_len, unsigned nr_unknown)
{
    unsigned bad = 0;
    size_t i = 0;

    *out = 0;
    while (i < n) {
        size_t e = i;
        uint32_t bits;

        while (e < n && v[e] != '|')
            e++;
        if (e > i && ktrace_parse_gfp(v + i, e - i, &bits))
            *out |= bits;
        else if (e > i) {
            if (bad < nr_unknown) {
                unknown[bad] = v + i;
                unknown_len[bad] = e - i;
            }
            bad++;
        }
        i = e + 1;
    }
    return bad;
}

enum ktrace_kind ktrace_parse_line(const char *l, size_t len, struct ktrace_event *ev)
{
    size_t i, e;
    bool has_ptr = false, has_alloc = false;

    memset(ev, 0, sizeof(*ev));
    ev->node = SIM_NUMA_NO_NODE;
    if (len && l[len - 1] == '\r')
        len--;
    i = skip_spaces(l, len, 0);
    if (i == len || l[i] == '#') {
        ev->kind = KTRACE_NONE;
        return KTRACE_NONE;
    }
    i = find_cpu_field(l, len, &ev->cpu);
    if (!i)
        return bad(ev, "no [CPU] field");
    i = skip_spaces(l, len, i);
    e = token_end(l, len, i);
    if (!is_timestamp(l + i, e - i)) { /* irq-info flags, then the timestamp */
        i = skip_spaces(l, len, e);
        e = token_end(l, len, i);
        if (!is_timestamp(l + i, e - i))
            return bad(ev, "no timestamp");
    }
    i = skip_spaces(l, len, e);
    e = i;
    while (e < len && l[e] != ':' && l[e] != ' ')
        e++;
    if (e == i || e == len || l[e] != ':')
        return bad(ev, "no event name");
    ev->kind = event_kind(l + i, e - i);
    if (ev->kind == KTRACE_OTHER)
        return KTRACE_OTHER;
    for (i = e + 1; (i = skip_spaces(l, len, i)) < len; i = e) {
        size_t k, kn, v, vn;

        const char *eq;

        e = token_end(l, len, i);
        eq = memchr(l + i, '=', e - i);
        if (!eq)
            return bad(ev, "a field without '='");
        k = (size_t)(eq - l);
        kn = k - i;
        v = k + 1;
        vn = e - v;
        if (field_is(l + i, kn, "ptr")) {
            if (!parse_hex(l + v, vn, &ev->ptr))
                return bad(ev, "ptr= is not a 64-bit hex value");
            has_ptr = true;
        } else if (field_is(l + i, kn, "name")) {
            ev->name = l + v;
            ev->name_len = vn;
        } else if (field_is(l + i, kn, "call_site")) {
            const char *plus = memchr(l + v, '+', vn);

            ev->call_site = l + v;
            ev->call_site_len = plus ? (size_t)(plus - (l + v)) : vn;
        } else if (field_is(l + i, kn, "bytes_req")) {
            if (!parse_u32(l + v, vn, &ev->bytes_req))
                return bad(ev, "bytes_req= is not a 32-bit number");
        } else if (field_is(l + i, kn, "bytes_alloc")) {
            if (!parse_u32(l + v, vn, &ev->bytes_alloc))
                return bad(ev, "bytes_alloc= is not a 32-bit number");
            has_alloc = true;
        } else if (field_is(l + i, kn, "gfp_flags")) {
            ev->gfp_text = l + v;
            ev->gfp_len = vn;
        } else if (field_is(l + i, kn, "node")) {
            unsigned n;

            if (field_is(l + v, vn, "-1"))
                ev->node = SIM_NUMA_NO_NODE;
            else if (parse_u32(l + v, vn, &n) && n <= KTRACE_MAX_CPU)
                ev->node = (int)n;
            else
                return bad(ev, "node= is not a node number");
        }
    }
    if (!has_ptr)
        return bad(ev, "a kmem event without ptr=");
    if ((ev->kind == KTRACE_ALLOC || ev->kind == KTRACE_KMALLOC) && !has_alloc)
        return bad(ev, "an allocation without bytes_alloc=");
    return ev->kind;
}

bool ktrace_header_cpus(const char *l, size_t len, unsigned *out)
{
    static const char key[] = "#P:";

    if (!len || l[0] != '#')
        return false;
    for (size_t i = 0; i + sizeof(key) - 1 < len; i++) {
        size_t j = i + sizeof(key) - 1;
        unsigned v = 0;

        if (memcmp(l + i, key, sizeof(key) - 1))
            continue;
        if (j >= len || !is_digit(l[j]))
            return false;
        while (j < len && is_digit(l[j]) && v <= KTRACE_MAX_CPU + 1)
            v = v * 10 + (unsigned)(l[j++] - '0');
        if (v == 0 || v > KTRACE_MAX_CPU + 1)
            return false;
        *out = v;
        return true;
    }
    return false;
}

static bool parse_u64_at(const char *l, size_t len, size_t *i, uint64_t *out)
{
    uint64_t v = 0;
    size_t start = *i;

    while (*i < len && is_digit(l[*i]) && *i - start < 19)
        v = v * 10 + (uint64_t)(l[(*i)++] - '0');
    *out = v;
    return *i > start;
}

bool ktrace_header_entries(const char *l, size_t len, uint64_t *in_buffer, uint64_t *written)
{
    static const char key[] = "entries-in-buffer/entries-written: ";
    size_t n = sizeof(key) - 1;

    if (!len || l[0] != '#')
        return false;
    for (size_t i = 0; i + n < len; i++) {
        size_t j = i + n;

        if (memcmp(l + i, key, n))
            continue;
        return parse_u64_at(l, len, &j, in_buffer) && j < len && l[j++] == '/' &&
               parse_u64_at(l, len, &j, written);
    }
    return false;
}

bool ktrace_header_kernel(const char *l, size_t len, const char **out, size_t *out_len)
{
    static const char key[] = "# kernel: ";
    size_t n = sizeof(key) - 1, e;

    if (len && l[len - 1] == '\r')
        len--;
    if (len <= n || memcmp(l, key, n))
        return false;
    e = n;
    while (e < len && l[e] != ' ' && e - n < 128)
        e++;
    if (e == n)
        return false;
    *out = l + n;
    *out_len = e - n;
    return true;
}

bool ktrace_is_rcu_call_site(const char *s, size_t n)
{
#define P(s)             \
    {                    \
        s, sizeof(s) - 1 \
    }
    static const struct {
        const char *name;
        size_t len;
    } prefixes[] = {P("rcu_do_batch"), P("rcu_core"), P("kfree_rcu"), P("kvfree_rcu"),
                    P("rcu_free_sheaf")};
#undef P

    if (!s || n < 8 || (s[0] != 'r' && s[0] != 'k'))
        return false;
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (n >= prefixes[i].len && !memcmp(s, prefixes[i].name, prefixes[i].len))
            return true;
    return false;
}
