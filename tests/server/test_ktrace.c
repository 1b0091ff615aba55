/*
 * test_ktrace.c: the kmem trace parser, reader and replay.
 *
 * The parser is fed real lines (as /sys/kernel/tracing/trace prints them,
 * task names with spaces included) and hand-made bad ones: truncated,
 * garbage, unknown events, values that do not fit, NUL bytes.  The reader
 * is fed CRLF text, lines over 64 KiB, concatenated and cut-short gzip
 * streams made here with zlib.  The replay is fed a small trace whose every
 * count is known, then the committed slice of a real trace with the
 * validator on.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "ktrace/ktrace.h"
#include "ktrace/ktrace_replay.h"

#define L(s) (s), strlen(s)

static void test_parse_real_lines(void)
{
    struct ktrace_event ev;

    CHECK_EQ_I(ktrace_parse_line(L("            bash-5383    [000] .....   253.136762: "
                                   "kmem_cache_alloc: call_site=copy_process+0x1a5/0x1d80 "
                                   "ptr=0000000006a14bc0 name=task_struct bytes_req=5824 "
                                   "bytes_alloc=5824 gfp_flags=GFP_KERNEL node=-1 "
                                   "accounted=true"),
                                 &ev),
               KTRACE_ALLOC);
    CHECK_EQ_U(ev.cpu, 0);
    CHECK_EQ_U(ev.ptr, 0x6a14bc0);
    CHECK(ev.name_len == 11 && !memcmp(ev.name, "task_struct", 11));
    CHECK(ev.call_site_len == 12 && !memcmp(ev.call_site, "copy_process", 12));
    CHECK_EQ_U(ev.bytes_req, 5824);
    CHECK_EQ_U(ev.bytes_alloc, 5824);
    CHECK(ev.gfp_len == 10 && !memcmp(ev.gfp_text, "GFP_KERNEL", 10));
    CHECK_EQ_I(ev.node, SIM_NUMA_NO_NODE);

    /* a task name with spaces and a bracket, CPU 1 */
    CHECK_EQ_I(ktrace_parse_line(L(" npm install [x]-5366    [001] .....   253.137769: "
                                   "kmem_cache_free: call_site=__fput+0x141/0x2a0 "
                                   "ptr=0000000088980b79 name=lsm_file_cache"),
                                 &ev),
               KTRACE_FREE);
    CHECK_EQ_U(ev.cpu, 1);
    CHECK_EQ_U(ev.ptr, 0x88980b79);
    CHECK(ev.name_len == 14 && !memcmp(ev.name, "lsm_file_cache", 14));

    CHECK_EQ_I(ktrace_parse_line(L("bash-5383 [000] ..... 253.136781: kmalloc: "
                                   "call_site=lsm_blob_alloc+0x3b/0x60 ptr=00000000463a2057 "
                                   "bytes_req=11 bytes_alloc=16 "
                                   "gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO node=0 "
                                   "accounted=true"),
                                 &ev),
               KTRACE_KMALLOC);
    {
        uint32_t gfp = 0;

        CHECK(ktrace_parse_gfp(ev.gfp_text, ev.gfp_len, &gfp));
        CHECK_EQ_U(gfp, SIM_GFP_KERNEL | SIM_GFP_ACCOUNT | SIM_GFP_ZERO);
        CHECK(ktrace_parse_gfp("none", 4, &gfp));
        CHECK_EQ_U(gfp, 0);
        CHECK(!ktrace_parse_gfp("__GFP_FUTURE", 12, &gfp));
    }
    {
        /* name by name: the known ones used, the others listed */
        static const char m[] = "GFP_KERNEL|__GFP_FUTURE|__GFP_HARDWALL|GFP_BOGUS|0x1000000";
        const char *bad[1];
        size_t bad_len[1];
        uint32_t gfp = 0;

        CHECK_EQ_U(ktrace_parse_gfp_names(m, sizeof(m) - 1, &gfp, bad, bad_len, 1), 2);
        CHECK_EQ_U(gfp, SIM_GFP_KERNEL | SIM_GFP_HARDWALL | SIM_GFP_NO_OBJ_EXT);
        CHECK_EQ_U(bad_len[0], 12);
        CHECK(!strncmp(bad[0], "__GFP_FUTURE", 12));
        CHECK_EQ_U(ktrace_parse_gfp_names("GFP_NOFS|__GFP_NOLOCKDEP", 24, &gfp, bad, bad_len, 1),
                   0);
        CHECK_EQ_U(gfp, SIM_GFP_RECLAIM | SIM_GFP_IO);
    }
    CHECK_EQ_I(ev.node, 0);
    CHECK_EQ_U(ev.bytes_alloc, 16);
    CHECK(ev.name == NULL);

    /* kfree(NULL); no irq-info flags column; a counter clock */
    CHECK_EQ_I(ktrace_parse_line(L("bash-5383 [007] 253136816: kfree: "
                                   "call_site=ida_alloc_range+0x39b/0x400 ptr=0000000000000000"),
                                 &ev),
               KTRACE_KFREE);
    CHECK_EQ_U(ev.cpu, 7);
    CHECK_EQ_U(ev.ptr, 0);
    /* CRLF */
    CHECK_EQ_I(ktrace_parse_line(
                       L("a-1 [000] ..... 1.0: kfree: call_site=x ptr=0000000000000010\r"), &ev),
               KTRACE_KFREE);
    CHECK_EQ_U(ev.ptr, 16);
    /* an unknown gfp name is no parse error (the replay counts it) */
    CHECK_EQ_I(ktrace_parse_line(L("a-1 [000] ..... 1.0: kmalloc: call_site=x ptr=10 "
                                   "bytes_req=1 bytes_alloc=8 gfp_flags=__GFP_FUTURE"),
                                 &ev),
               KTRACE_KMALLOC);
    CHECK(ktrace_is_rcu_call_site("rcu_do_batch", 12));
    CHECK(ktrace_is_rcu_call_site("kfree_rcu_work", 14));
    CHECK(!ktrace_is_rcu_call_site("__fput", 6));
}

static void test_parse_bad_lines(void)
{
    struct ktrace_event ev;
    static const char nul[] = "a-1 [000] ..... 1.0: kfree: call_site=x\0 ptr=10";
    static const char nul_ptr[] = "a-1 [000] ..... 1.0: kfree: call_site=x ptr=1\0";
    static const char *const bad[] = {
            "",                                                  /* (blank: NONE, below) */
            "garbage",                                           /* no CPU field */
            "[000] 1.0: kfree: ptr=10",                          /* CPU field at the start */
            "a-1 [000] ..... xyz: kfree: ptr=10",                /* no timestamp */
            "a-1 [000] ..... 1.0:",                              /* truncated after it */
            "a-1 [000] ..... 1.0: kfree",                        /* no ':' after the event */
            "a-1 [000] ..... 1.0: kfree: call_site=x",           /* truncated: no ptr */
            "a-1 [000] ..... 1.0: kfree: call_site=x ptr=",      /* truncated value */
            "a-1 [000] ..... 1.0: kfree: ptr=00000000000000001", /* 17 hex digits */
            "a-1 [000] ..... 1.0: kfree: ptr=0000zz",            /* not hex */
            "a-1 [000] ..... 1.0: kmalloc: ptr=10 bytes_alloc=4294967296", /* above 32 bits */
            "a-1 [000] ..... 1.0: kmalloc: ptr=10 bytes_alloc=99999999999999999999",
            "a-1 [000] ..... 1.0: kmalloc: ptr=10 bytes_req=8", /* no bytes_alloc */
            "a-1 [000] ..... 1.0: kfree: ptr=10 node=-2",
            "a-1 [000] ..... 1.0: kfree: ptrx",     /* a field without '=' */
            "a-1 [99999] ..... 1.0: kfree: ptr=10", /* CPU out of range */
    };

    CHECK_EQ_I(ktrace_parse_line(L(""), &ev), KTRACE_NONE);
    CHECK_EQ_I(ktrace_parse_line(L("# tracer: nop"), &ev), KTRACE_NONE);
    for (size_t i = 1; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (!CHECK_EQ_I(ktrace_parse_line(L(bad[i]), &ev), KTRACE_BAD))
            fprintf(stderr, "  line: %s\n", bad[i]);
        CHECK(ev.reason != NULL);
    }
    /* a NUL inside the line ends nothing: the length rules */
    CHECK_EQ_I(ktrace_parse_line(nul, sizeof(nul) - 1, &ev), KTRACE_KFREE);
    CHECK_EQ_U(ev.ptr, 16);
    CHECK_EQ_I(ktrace_parse_line(nul_ptr, sizeof(nul_ptr) - 1, &ev), KTRACE_BAD);
    /* another tracepoint, well formed */
    CHECK_EQ_I(ktrace_parse_line(L("a-1 [000] ..... 1.0: mm_page_alloc: page=x pfn=1"), &ev),
               KTRACE_OTHER);
    /* the length bounds the read: a prefix of a good line is truncated */
    {
        const char *good = "a-1 [000] ..... 1.0: kfree: call_site=x ptr=0000000000000010";

        for (size_t n = 0; n < strlen(good); n++) {
            enum ktrace_kind k = ktrace_parse_line(good, n, &ev);

            CHECK(k == KTRACE_BAD || k == KTRACE_NONE || (k == KTRACE_KFREE && n >= 45));
        }
    }
    {
        unsigned cpus = 0;
        const char *kv;
        size_t kl;

        CHECK(ktrace_header_cpus(L("# entries-in-buffer/entries-written: 3/3   #P:12"), &cpus));
        CHECK_EQ_U(cpus, 12);
        CHECK(!ktrace_header_cpus(L("# entries-in-buffer/entries-written: 3/3   #P:"), &cpus));
        uint64_t kept = 0, written = 0;

        CHECK(ktrace_header_entries(L("# entries-in-buffer/entries-written: 33937/40000   #P:2"),
                                    &kept, &written));
        CHECK_EQ_U(kept, 33937);
        CHECK_EQ_U(written, 40000);
        CHECK(!ktrace_header_entries(L("# entries-in-buffer/entries-written: 12"), &kept,
                                     &written));
        CHECK(ktrace_header_kernel(L("# kernel: 6.18.44-fc-v782\r"), &kv, &kl));
        CHECK(kl == 15 && !memcmp(kv, "6.18.44-fc-v782", 15));
    }
}

/* All lines of @r joined with '|'. */
static char *read_all(struct ktrace_reader *r, int *last)
{
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    const char *line;
    size_t len;

    while ((*last = ktrace_next_line(r, &line, &len)) > 0) {
        if (n + len + 2 > cap) {
            cap = (n + len + 2) * 2;
            out = realloc(out, cap);
        }
        memcpy(out + n, line, len);
        n += len;
        out[n++] = '|';
    }
    out[n] = 0;
    return out;
}

static void test_reader_plain(void)
{
    static const char text[] = "one\r\ntwo\n\nthree";
    struct ktrace_reader *r;
    size_t big = KTRACE_MAX_LINE + 10;
    char *buf, *got;
    int last;

    if (!CHECK_OK(ktrace_open_mem(text, sizeof(text) - 1, &r)))
        return;
    got = read_all(r, &last);
    CHECK_EQ_STR(got, "one|two||three|");
    CHECK_EQ_I(last, 0);
    free(got);
    CHECK_OK(ktrace_rewind(r));
    got = read_all(r, &last);
    CHECK_EQ_STR(got, "one|two||three|");
    free(got);
    ktrace_close(r);

    /* a line over 64 KiB between two short ones, and one at the end without newline */
    buf = malloc(2 * big + 32);
    strcpy(buf, "a\n");
    memset(buf + 2, 'x', big);
    strcpy(buf + 2 + big, "\nb\n");
    memset(buf + 5 + big, 'y', big);
    if (!CHECK_OK(ktrace_open_mem(buf, 5 + 2 * big, &r)))
        return;
    got = read_all(r, &last);
    CHECK_EQ_STR(got, "a|b|");
    CHECK_EQ_U(ktrace_reader_overlong(r), 2);
    free(got);
    ktrace_close(r);
    free(buf);
}

/* gzip @len bytes of @in into a new buffer; *out_len set. */
static unsigned char *gzip(const char *in, size_t len, size_t *out_len)
{
    z_stream z;
    size_t cap = len + 1024;
    unsigned char *out = malloc(cap);

    memset(&z, 0, sizeof(z));
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static void test_reader_gzip(void)
{
    struct ktrace_reader *r;
    size_t n1, n2, total = 0;
    char *lines = malloc(200000), *got;
    unsigned char *a, *b, *both;
    int last;

    for (int i = 0; i < 20000; i++)
        total += (size_t)sprintf(lines + total, "%d\n", i);
    a = gzip(lines, total, &n1);
    b = gzip("tail\n", 5, &n2);
    both = malloc(n1 + n2);
    memcpy(both, a, n1);
    memcpy(both + n1, b, n2);
    /* two members one after the other */
    if (CHECK_OK(ktrace_open_mem(both, n1 + n2, &r))) {
        got = read_all(r, &last);
        CHECK_EQ_I(last, 0);
        CHECK(strncmp(got, "0|1|2|", 6) == 0);
        CHECK(strstr(got, "|19999|tail|") != NULL);
        free(got);
        ktrace_close(r);
    }
    /* cut short: the lines before the cut, then -EIO */
    if (CHECK_OK(ktrace_open_mem(a, n1 / 2, &r))) {
        got = read_all(r, &last);
        CHECK_EQ_I(last, -EIO);
        CHECK(strstr(ktrace_reader_error(r), "cut short") != NULL);
        CHECK(strncmp(got, "0|1|2|", 6) == 0);
        CHECK(strstr(got, "|19999|") == NULL);
        free(got);
        ktrace_close(r);
    }
    /* corrupt data after a good header */
    a[n1 / 2] ^= 0xff;
    a[n1 / 2 + 1] ^= 0xff;
    if (CHECK_OK(ktrace_open_mem(a, n1, &r))) {
        got = read_all(r, &last);
        CHECK_EQ_I(last, -EIO);
        free(got);
        ktrace_close(r);
    }
    free(a);
    free(b);
    free(both);
    free(lines);
}

static const char small_trace[] =
        "# tracer: nop\n"
        "# entries-in-buffer/entries-written: 12/15   #P:4\n"
        "# kernel: 6.18.0-test\n"
        "a b-1 [000] ..... 1.0: kmem_cache_alloc: call_site=f+0x1/0x2 ptr=00000000000000a1 "
        "name=thing bytes_req=184 bytes_alloc=192 gfp_flags=GFP_KERNEL node=-1\n"
        "a b-1 [003] ..... 1.1: kmem_cache_alloc: call_site=f+0x1/0x2 ptr=00000000000000a2 "
        "name=thing bytes_req=184 bytes_alloc=192 gfp_flags=GFP_KERNEL node=-1\n"
        "a b-1 [001] ..... 1.2: kmalloc: call_site=g ptr=00000000000000b1 bytes_req=72 "
        "bytes_alloc=96 gfp_flags=GFP_KERNEL\n"
        "a b-1 [001] ..... 1.3: kmalloc: call_site=g ptr=00000000000000b2 bytes_req=9000 "
        "bytes_alloc=12288 gfp_flags=GFP_KERNEL\n"
        "a b-1 [001] ..... 1.4: kfree: call_site=h ptr=00000000000000b2\n"
        "a b-1 [002] ..... 1.5: kfree: call_site=h ptr=0000000000000000\n"
        "a b-1 [002] ..... 1.6: kfree: call_site=h ptr=00000000000000c9\n"
        "a b-1 [002] ..... 1.7: kmem_cache_free: call_site=h ptr=00000000000000d9 name=thing\n"
        "a b-1 [000] ..... 1.8: kmem_cache_free: call_site=rcu_do_batch+0x1/0x2 "
        "ptr=00000000000000a1 name=thing\n"
        "a b-1 [000] ..... 1.9: kmem_cache_alloc: call_site=f ptr=00000000000000e1 "
        "name=other bytes_req=64 bytes_alloc=64 gfp_flags=GFP_ATOMIC node=-1\n"
        "a b-1 [000] ..... 2.0: kfree: call_site=h ptr=00000000000000b1\n"
        "a b-1 [000] ..... 2.0: kmalloc: call_site=g ptr=00000000000000f1 bytes_req=8 "
        "bytes_alloc=8 gfp_flags=GFP_KERNEL|__GFP_FUTURE\n"
        "a b-1 [000] ..... 2.1: sched_switch: prev=a next=b\n"
        "this is not a trace line\n";

static void test_replay_small(void)
{
    struct ktrace_reader *r;
    struct ktrace_replay kr;
    struct ktrace_opts o;
    struct strbuf err = STRBUF_INIT;
    int thing;

    memset(&o, 0, sizeof(o));
    o.validate = true;
    o.record = true;
    if (!CHECK_OK(ktrace_open_mem(small_trace, sizeof(small_trace) - 1, &r)))
        return;
    if (!CHECK_OK(ktrace_replay_run(&kr, r, &o, &err)))
        goto out;
    CHECK_EQ_U(kr.cfg.nr_cpus, 4);
    CHECK_EQ_STR(kr.kernel, "6.18.0-test");
    CHECK_EQ_U(ktrace_replay_events(&kr), 12);
    CHECK_EQ_U(kr.n.gfp_unknown, 1);
    CHECK_EQ_U(kr.nr_gfp_names, 1);
    CHECK_EQ_STR(kr.gfp_names[0], "__GFP_FUTURE");
    CHECK_EQ_U(kr.n.lost, 3);
    CHECK_EQ_U(kr.n.kind[KTRACE_OTHER], 1);
    CHECK_EQ_U(kr.n.kind[KTRACE_BAD], 1);
    CHECK_EQ_U(kr.n.applied[KTRACE_ALLOC], 3);
    CHECK_EQ_U(kr.n.applied[KTRACE_KMALLOC], 2);
    CHECK_EQ_U(kr.n.applied[KTRACE_FREE], 1);
    CHECK_EQ_U(kr.n.applied[KTRACE_KFREE], 1);
    CHECK_EQ_U(kr.n.large_kmalloc, 1);
    CHECK_EQ_U(kr.n.large_kfree, 1);
    CHECK_EQ_U(kr.n.kfree_null, 1);
    CHECK_EQ_U(kr.n.kfree_before, 1);
    CHECK_EQ_U(kr.n.free_before, 1);
    CHECK_EQ_U(kr.n.rcu_frees, 1);
    CHECK_EQ_U(kr.n.violations, 0);
    /* "thing" was sized from bytes_req 184 and bytes_alloc 192 */
    thing = sim_cache_lookup(kr.sim, "thing");
    if (CHECK_GE_I(thing, 0)) {
        struct sim_snapshot *snap;

        if (CHECK_OK(sim_snapshot(kr.sim, &snap))) {
            CHECK_EQ_U(snap->caches[thing].object_size, 184);
            CHECK_EQ_U(snap->caches[thing].size, 192);
            sim_snapshot_release(snap);
        }
    }
    CHECK_GE_I(sim_cache_lookup(kr.sim, "kmalloc-96"), 0);
    /* one create per cache and one op per replayed event */
    CHECK_EQ_I(cJSON_GetArraySize(kr.ops), 2 + 3 + 2 + 1 + 1);
out:
    ktrace_replay_release(&kr);
    ktrace_close(r);
    strbuf_release(&err);
}

static void test_replay_cpus(void)
{
    static const char t[] = "a-1 [009] ..... 1.0: kmalloc: call_site=g ptr=10 bytes_req=8 "
                            "bytes_alloc=8\n"
                            "a-1 [070] ..... 1.0: kmalloc: call_site=g ptr=11 bytes_req=8 "
                            "bytes_alloc=8\n";
    struct ktrace_reader *r;
    struct ktrace_replay kr;
    struct ktrace_opts o;
    struct strbuf err = STRBUF_INIT;

    memset(&o, 0, sizeof(o));
    /* no header: the highest CPU seen; 71 CPUs are more than the engine models */
    if (!CHECK_OK(ktrace_open_mem(t, sizeof(t) - 1, &r)))
        return;
    CHECK_EQ_I(ktrace_replay_run(&kr, r, &o, &err), -EINVAL);
    CHECK(strstr(strbuf_str(&err), "--cpus") != NULL);
    ktrace_replay_release(&kr);
    /* --cpus 8 folds them */
    o.cpus = 8;
    CHECK_OK(ktrace_rewind(r));
    if (CHECK_OK(ktrace_replay_run(&kr, r, &o, &err))) {
        CHECK_EQ_U(kr.n.cpus_folded, 2);
        CHECK_EQ_U(kr.n.applied[KTRACE_KMALLOC], 2);
    }
    ktrace_replay_release(&kr);
    ktrace_close(r);
    strbuf_release(&err);
}

/* A recording limit stops the replay with its reason instead of growing. */
static void test_replay_max_ops(void)
{
    struct ktrace_reader *r;
    struct ktrace_replay kr;
    struct ktrace_opts o;
    struct strbuf err = STRBUF_INIT;

    memset(&o, 0, sizeof(o));
    o.record = true;
    o.max_ops = 100;
    if (!CHECK_OK(ktrace_open("tests/data/kmem-trace-slice.txt.gz", &r, &err)))
        return;
    CHECK_EQ_I(ktrace_replay_run(&kr, r, &o, &err), -E2BIG);
    CHECK(strstr(strbuf_str(&err), "more than 100 operations") != NULL);
    CHECK_EQ_U(kr.nr_recorded, 101);
    ktrace_replay_release(&kr);
    ktrace_close(r);
    strbuf_release(&err);
}

static void test_replay_slice(void)
{
    struct ktrace_reader *r;
    struct ktrace_replay kr;
    struct ktrace_opts o;
    struct strbuf err = STRBUF_INIT;
    const struct ktrace_counts *n = &kr.n;
    uint64_t frees;

    memset(&o, 0, sizeof(o));
    o.validate = true;
    if (!CHECK_OK(ktrace_open("tests/data/kmem-trace-slice.txt.gz", &r, &err)))
        return;
    if (CHECK_OK(ktrace_replay_run(&kr, r, &o, &err))) {
        CHECK_EQ_U(n->violations, 0);
        CHECK_EQ_U(n->kind[KTRACE_BAD], 0);
        CHECK_GT_U(ktrace_replay_events(&kr), 1000);
        /* every allocation is replayed, and every free is replayed or counted */
        CHECK_EQ_U(n->applied[KTRACE_ALLOC], n->kind[KTRACE_ALLOC]);
        CHECK_EQ_U(n->applied[KTRACE_KMALLOC] + n->large_kmalloc, n->kind[KTRACE_KMALLOC]);
        frees = n->applied[KTRACE_FREE] + n->applied[KTRACE_KFREE] + n->free_before +
                n->kfree_before + n->kfree_null + n->large_kfree;
        CHECK_EQ_U(frees, n->kind[KTRACE_FREE] + n->kind[KTRACE_KFREE]);
        CHECK_EQ_U(n->sim_failed + n->sim_misuse + n->sim_rejected, 0);
    }
    ktrace_replay_release(&kr);
    ktrace_close(r);
    strbuf_release(&err);
}

int main(void)
{
    RUN_TEST(test_parse_real_lines);
    RUN_TEST(test_parse_bad_lines);
    RUN_TEST(test_reader_plain);
    RUN_TEST(test_reader_gzip);
    RUN_TEST(test_replay_small);
    RUN_TEST(test_replay_cpus);
    RUN_TEST(test_replay_max_ops);
    RUN_TEST(test_replay_slice);
    return check_done();
}
