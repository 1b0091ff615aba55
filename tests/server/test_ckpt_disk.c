/*
 * test_ckpt_disk.c: the checkpoint disk tier (session/ckpt_disk.h) on a
 * SQLite store, over a scenario of 8,000 operations: the timeline's
 * serialized form read back field for field;
 * images written from a session's checkpoints, sharing pages, read back
 * into machines whose own images are byte for byte the originals'; a page
 * damaged in the database makes its image fail to load (-EIO), never load
 * wrong; and a session whose checkpoints are thinned into the store under
 * a small budget gives the same states as one that keeps them all, with
 * seeks that load images; a second round of loads through the page cache
 * reads no page from the store, and a cache with room for twice the stored
 * pages reads each at most once over two rounds.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp() */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "present/json_session.h"
#include "session/ckpt_disk.h"
#include "session/session.h"
#include "session/session_internal.h"
#include "session/store.h"

#define OWNER "0123456789abcdef0123456789abcdef"

/* 4,000 objects allocated on CPU 0 and freed on CPU 1: thousands of
 * operations on a machine that grows, then shrinks */
static const char scenario[] =
        "{\"format\":1,\"name\":\"grow\",\"seed\":1,"
        "\"machine\":{\"cpus\":2,\"nodes\":1,\"mem_mb_per_node\":64},"
        "\"caches\":[{\"name\":\"A\",\"object_size\":256}],\"ops\":["
        "{\"op\":\"repeat\",\"times\":4000,\"ops\":[{\"op\":\"alloc\",\"cpu\":0,"
        "\"cache\":\"A\",\"name\":\"a{i}\"}]},"
        "{\"op\":\"repeat\",\"times\":4000,\"ops\":[{\"op\":\"free\",\"cpu\":1,"
        "\"name\":\"a{i}\"}]}]}";

static struct session *build(struct store *st, uint64_t memory, uint64_t every)
{
    struct session_limits lim;
    struct strbuf err = STRBUF_INIT;
    struct session *s;
    size_t len = sizeof(scenario) - 1;
    char *text = malloc(len + 1);

    if (text)
        memcpy(text, scenario, len + 1);

    session_limits_default(&lim);
    lim.memory = memory;
    lim.ckpt_events = every;
    lim.disk_min_ops = 8;
    s = session_new(&lim);
    s->run->disk_store = st;
    CHECK_OK(session_set_scenario(s, text, len, "test"));
    if (!CHECK_OK(session_build(s, &err)))
        printf("  %s\n", strbuf_str(&err));
    strbuf_release(&err);
    free(text);
    return s;
}

static char *state_of(struct session *s, uint64_t at)
{
    struct strbuf err = STRBUF_INIT;
    struct blob *b = NULL;
    char *text = NULL;

    if (CHECK_OK(json_position_state(s, at, 0, &b, &err)) && b) {
        text = malloc(b->len + 1);
        if (text) {
            memcpy(text, b->text, b->len);
            text[b->len] = '\0';
        }
    } else {
        printf("  at %" PRIu64 ": %s\n", at, strbuf_str(&err));
    }
    blob_put(b);
    strbuf_release(&err);
    return text;
}

static void test_timeline_round_trip(void)
{
    struct session *s = build(NULL, 256u << 20, 64);
    unsigned char *one = NULL, *two = NULL;
    size_t len1 = 0, len2 = 0;
    struct timeline tl;

    timeline_init(&tl);
    CHECK_OK(timeline_save(&s->run->tl, &one, &len1));
    CHECK_OK(timeline_load(&tl, one, len1));
    CHECK_EQ_U(tl.nr_events, s->run->tl.nr_events);
    CHECK_GT_U(tl.nr_events, 0);
    CHECK_EQ_U(tl.nr_pairs, s->run->tl.nr_pairs);
    CHECK_EQ_U(tl.nr_blocks, s->run->tl.nr_blocks);
    CHECK_EQ_U(tl.nr_samples, s->run->tl.nr_samples);
    CHECK_EQ_U(tl.interval, s->run->tl.interval);
    CHECK_EQ_U(tl.pages_hwm, s->run->tl.pages_hwm);
    CHECK(!memcmp(tl.totals, s->run->tl.totals, sizeof(tl.totals)));
    CHECK(tl.nr_pairs && !strcmp(tl.pairs[0].fn, s->run->tl.pairs[0].fn));
    CHECK_OK(timeline_save(&tl, &two, &len2));
    CHECK_EQ_U(len2, len1);
    CHECK(two && !memcmp(one, two, len1));
    /* cut short, or not one at all: refused, and the timeline left empty */
    CHECK_EQ_I(timeline_load(&tl, one, len1 - 1), -EINVAL);
    CHECK_EQ_U(tl.nr_events, 0);
    one[0] ^= 1;
    CHECK_EQ_I(timeline_load(&tl, one, len1), -EINVAL);
    timeline_release(&tl);
    free(one);
    free(two);
    session_free(s);
}

/* Does machine @b serialize to exactly what @a does? */
static bool same_image(const struct sim *a, const struct sim *b)
{
    struct sim_image x, y;
    bool same;
    size_t i;

    if (sim_image_save(a, &x))
        return false;
    if (sim_image_save(b, &y)) {
        sim_image_release(&x);
        return false;
    }
    same = x.meta_len == y.meta_len && !memcmp(x.meta, y.meta, x.meta_len) &&
           x.nr_pages == y.nr_pages;
    for (i = 0; same && i < x.nr_pages; i++)
        same = x.pages[i].addr == y.pages[i].addr &&
               !memcmp(x.pages[i].bytes, y.pages[i].bytes, SIM_PAGE_SIZE);
    sim_image_release(&x);
    sim_image_release(&y);
    return same;
}

static void test_images(void)
{
    char path[] = "/tmp/slublab-ckpt-XXXXXX";
    struct strbuf err = STRBUF_INIT;
    struct store *st = NULL;
    struct ckpt_disk d;
    struct session *s;
    uint64_t images = 0, pages = 0, listed = 0, totals[SIM_NR_STATS];
    size_t i;
    int fd = mkstemp(path);

    if (!CHECK(fd >= 0))
        return;
    close(fd);
    CHECK_OK(store_open(path, &st, &err));
    s = build(NULL, 256u << 20, 64);
    memset(&d, 0, sizeof(d));
    CHECK_OK(ckpt_disk_open(&d, st, OWNER, 1));
    CHECK_GT_U(s->run->nr_ckpts, 4);
    for (i = 1; i < s->run->nr_ckpts; i++) {
        const struct checkpoint *c = &s->run->ckpts[i];
        struct sim_image img;

        CHECK_OK(ckpt_disk_write(&d, c->sim, c->seq, c->op, c->off, c->totals, NULL, 0));
        if (!sim_image_save(c->sim, &img)) {
            listed += img.nr_pages;
            sim_image_release(&img);
        }
    }
    CHECK_EQ_U(d.written, s->run->nr_ckpts - 1);
    CHECK_EQ_U(d.nr, s->run->nr_ckpts - 1);
    CHECK_OK(store_ckpt_count(st, OWNER, &images, &pages));
    CHECK_EQ_U(images, s->run->nr_ckpts - 1);
    /* consecutive images share the pages that did not change */
    CHECK_LT_U(pages, listed);
    CHECK_EQ_U(d.pages_written, pages);

    /* a tier with a page cache keeps the pages of the images it writes:
     * loading them back reads no page from the store, and gives the same
     * machines, which the writer's are still (they share the bytes) */
    {
        struct ckpt_disk w;

        memset(&w, 0, sizeof(w));
        CHECK_OK(ckpt_disk_open(&w, st, "fedcba9876543210fedcba9876543210", 1));
        w.cache_max = 64u << 20;
        for (i = 1; i < s->run->nr_ckpts; i++) {
            const struct checkpoint *c = &s->run->ckpts[i];

            CHECK_OK(ckpt_disk_write(&w, c->sim, c->seq, c->op, c->off, c->totals, NULL, 0));
        }
        CHECK_GT_U(w.cache_pages, 0);
        for (i = 0; i < w.nr; i++) {
            const struct checkpoint *c = &s->run->ckpts[i + 1];
            struct sim *m = NULL;

            if (!CHECK_OK(ckpt_disk_load(&w, &w.e[i], &m, NULL, NULL, NULL)))
                continue;
            CHECK(same_image(c->sim, m));
            sim_destroy(m);
        }
        CHECK_EQ_U(w.loaded, w.nr);
        CHECK_EQ_U(w.pages_read, 0);
        CHECK_GT_U(w.cache_hits, 0);
        ckpt_disk_release(&w);
    }

    /* a second tier on the same store (another server) lists and loads them */
    {
        struct ckpt_disk e;

        memset(&e, 0, sizeof(e));
        CHECK_OK(ckpt_disk_open(&e, st, OWNER, 1));
        CHECK_EQ_U(e.nr, d.nr);
        for (i = 0; i < e.nr; i++) {
            const struct checkpoint *c = &s->run->ckpts[i + 1];
            struct sim *m = NULL;

            CHECK_EQ_U(e.e[i].seq, c->seq);
            CHECK_EQ_U(e.e[i].op, c->op);
            CHECK_EQ_U(e.e[i].off, c->off);
            if (!CHECK_OK(ckpt_disk_load(&e, &e.e[i], &m, totals, NULL, NULL)))
                continue;
            CHECK(same_image(c->sim, m));
            CHECK(!memcmp(totals, c->totals, sizeof(totals)));
            sim_destroy(m);
        }
        CHECK_EQ_U(e.loaded, e.nr);
        /* with a page cache: the second round of loads reads no page from
         * the store, and gives the same machines */
        {
            uint64_t read, read0 = e.pages_read, before = ckpt_disk_bytes(&e);

            e.cache_max = 64u << 20;
            for (i = 0; i < e.nr; i++) {
                struct sim *m = NULL;

                CHECK_OK(ckpt_disk_load(&e, &e.e[i], &m, NULL, NULL, NULL));
                sim_destroy(m);
            }
            read = e.pages_read;
            CHECK_GT_U(read, read0);
            CHECK_LE_U(read - read0, pages); /* each stored page once at most */
            CHECK_GT_U(e.cache_pages, 0);
            /* what the cache holds is counted */
            CHECK_GE_U(ckpt_disk_bytes(&e), before + e.cache_pages * SIM_PAGE_SIZE);
            for (i = 0; i < e.nr; i++) {
                const struct checkpoint *c = &s->run->ckpts[i + 1];
                struct sim *m = NULL;

                if (!CHECK_OK(ckpt_disk_load(&e, &e.e[i], &m, NULL, NULL, NULL)))
                    continue;
                CHECK(same_image(c->sim, m));
                sim_destroy(m);
            }
            CHECK_EQ_U(e.pages_read, read);
            CHECK_GT_U(e.cache_hits, 0);
            ckpt_disk_cache_clear(&e);
            CHECK_EQ_U(e.cache_pages, 0);
            CHECK_EQ_U(ckpt_disk_bytes(&e), before);
        }
        ckpt_disk_release(&e);
    }
    /* a page cache with room for twice the stored pages: once each image
     * has been loaded, loading them all again reads no page (the pages of
     * an image are read in address order, so a set that more pages map to
     * than it holds would miss all of them on every load) */
    {
        struct ckpt_disk f;
        uint64_t read;

        memset(&f, 0, sizeof(f));
        CHECK_OK(ckpt_disk_open(&f, st, OWNER, 1));
        f.cache_max = 2 * pages * SIM_PAGE_SIZE;
        for (i = 0; i < f.nr; i++) {
            struct sim *m = NULL;

            CHECK_OK(ckpt_disk_load(&f, &f.e[i], &m, NULL, NULL, NULL));
            sim_destroy(m);
        }
        read = f.pages_read;
        CHECK_LE_U(read, pages);
        for (i = 0; i < f.nr; i++) {
            struct sim *m = NULL;

            CHECK_OK(ckpt_disk_load(&f, &f.e[i], &m, NULL, NULL, NULL));
            sim_destroy(m);
        }
        CHECK_EQ_U(f.pages_read, read);
        CHECK_LE_U(f.cache_pages * SIM_PAGE_SIZE, f.cache_max);
        /* a cache of fewer pages than a set: one set, filled, never past it */
        ckpt_disk_cache_clear(&f);
        f.cache_max = 8 * SIM_PAGE_SIZE;
        for (i = 0; i < f.nr; i++) {
            struct sim *m = NULL;

            CHECK_OK(ckpt_disk_load(&f, &f.e[i], &m, NULL, NULL, NULL));
            sim_destroy(m);
        }
        CHECK_EQ_U(f.cache_pages, 8);
        CHECK_EQ_U(f.cache_sets, 1);
        ckpt_disk_release(&f);
    }

    /* a damaged page: the image that lists it does not load */
    {
        struct sim *m = NULL;
        sqlite3 *db;

        CHECK_EQ_I(sqlite3_open(path, &db), SQLITE_OK);
        CHECK_EQ_I(sqlite3_exec(db, "UPDATE ckpt_pages SET data = x'789c030000000001'", NULL, NULL,
                                NULL),
                   SQLITE_OK);
        sqlite3_close(db);
        if (CHECK(d.nr > 0))
            CHECK_EQ_I(ckpt_disk_load(&d, &d.e[d.nr - 1], &m, NULL, NULL, NULL), -EIO);
        CHECK(m == NULL);
    }
    ckpt_disk_release(&d);
    session_free(s);
    store_close(st);
    strbuf_release(&err);
    unlink(path);
}

static void test_thinned_into_the_store(void)
{
    char path[] = "/tmp/slublab-ckpt-XXXXXX";
    struct strbuf err = STRBUF_INIT;
    struct store *st = NULL;
    struct session *all, *thin;
    uint64_t n, at, differ = 0;
    int fd = mkstemp(path);

    if (!CHECK(fd >= 0))
        return;
    close(fd);
    CHECK_OK(store_open(path, &st, &err));
    all = build(NULL, 256u << 20, 16);
    /* measured as while it is built: its timeline unpacked, its names unsealed */
    CHECK_OK(session_timeline_open(all->run));
    CHECK_OK(name_spans_unseal(&all->run->rp.spans));
    /* room for three more checkpoints: the thinned ones go to the store */
    thin = build(st,
                 session_run_memory(all->run) - all->run->ckpt_bytes +
                         3 * all->run->ckpts[all->run->nr_ckpts - 1].bytes,
                 16);
    CHECK_GT_U(thin->run->disk.written, 0);
    CHECK_LT_U(thin->run->nr_ckpts, all->run->nr_ckpts);
    n = session_nr_events(all);
    CHECK_EQ_U(session_nr_events(thin), n);
    for (at = n; at > 0; at -= at > 97 ? 97 : at) {
        char *a = state_of(all, at), *b = state_of(thin, at);

        differ += !a || !b || strcmp(a, b);
        free(a);
        free(b);
    }
    CHECK_EQ_U(differ, 0);
    CHECK_GT_U(thin->run->disk.loaded, 0);
    session_free(thin);
    session_free(all);
    store_close(st);
    strbuf_release(&err);
    unlink(path);
}

int main(void)
{
    RUN_TEST(test_timeline_round_trip);
    RUN_TEST(test_images);
    RUN_TEST(test_thinned_into_the_store);
    return check_done();
}
