/*
 * test_keeper.c: a scenario run's end of batch 0 written after its build
 * (session/keeper.h), on a SQLite store.  A build through the registry
 * returns with the end not in the store yet (the keeper held), nor the
 * images taken as it ran, its states answered meanwhile; once the keeper
 * wrote them, a second registry on the
 * same store (a restart) builds the run from it, replaying nothing, with
 * the same states byte for byte.  A run freed while its end is queued has
 * it written by the thread that frees it, one whose session is deleted
 * none of its images; a registry freed with ends queued writes them before it returns.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp() */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "present/json_session.h"
#include "session/ckpt_disk.h"
#include "session/keeper.h"
#include "session/registry.h"
#include "session/session.h"
#include "session/session_internal.h"
#include "session/store.h"

/* 2,000 objects allocated on CPU 0 and freed on CPU 1 */
static const char scenario[] =
        "{\"format\":1,\"name\":\"grow\",\"seed\":1,"
        "\"machine\":{\"cpus\":2,\"nodes\":1,\"mem_mb_per_node\":64},"
        "\"caches\":[{\"name\":\"A\",\"object_size\":256}],\"ops\":["
        "{\"op\":\"repeat\",\"times\":2000,\"ops\":[{\"op\":\"alloc\",\"cpu\":0,"
        "\"cache\":\"A\",\"name\":\"a{i}\"}]},"
        "{\"op\":\"repeat\",\"times\":2000,\"ops\":[{\"op\":\"free\",\"cpu\":1,"
        "\"name\":\"a{i}\"}]}]}";

static struct session_limits lim;

/* A session of the scenario with @seed, built by @reg (NULL: by itself, on @st). */
static struct session *build(struct registry *reg, struct store *st, unsigned seed)
{
    struct strbuf err = STRBUF_INIT;
    struct session *s = session_new(&lim);
    size_t len = sizeof(scenario) - 1;
    char *text = malloc(len + 1);
    int ret;

    if (text)
        memcpy(text, scenario, len + 1);
    CHECK_OK(session_set_scenario(s, text, len, "test"));
    s->run->settings.seed = seed;
    s->run->settings.has_seed = true;
    if (reg) {
        ret = registry_build(reg, s, &err);
    } else {
        s->run->disk_store = st;
        s->run->keep_later = true;
        ret = session_build(s, &err);
    }
    if (!CHECK_OK(ret))
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
    }
    blob_put(b);
    strbuf_release(&err);
    return text;
}

/* Is the end of @s's batch 0 in the store with the run's state?  *@nr:
 * how many of its images are. */
static bool end_stored(struct store *st, struct session *s, size_t *nr)
{
    struct ckpt_disk d;
    const struct ckpt_disk_entry *e;
    bool yes;

    memset(&d, 0, sizeof(d));
    if (!CHECK_OK(ckpt_disk_open(&d, st, s->run->disk.owner, 1)))
        return false;
    e = ckpt_disk_at(&d, s->run->batches[0].ev_end);
    yes = e && e->has_extra;
    *nr = d.nr;
    ckpt_disk_release(&d);
    return yes;
}

static void test_after_the_build(void)
{
    char path[] = "/tmp/slublab-keeper-XXXXXX";
    struct strbuf err = STRBUF_INIT;
    struct registry *reg = NULL, *again = NULL;
    struct store *st = NULL;
    struct session *s, *back;
    uint64_t by_keeper = 0, by_free = 0, at[4];
    size_t stored = 0;
    char *before[4];
    int fd = mkstemp(path);
    size_t i;

    if (!CHECK(fd >= 0))
        return;
    close(fd);
    CHECK_OK(store_open(path, &st, &err));
    CHECK_OK(registry_new(st, &lim, 8, 0, &reg));
    if (!CHECK(reg && registry_keeper(reg)))
        return;
    keeper_hold(registry_keeper(reg), true);
    s = build(reg, st, 7);
    CHECK(s->run->keep_pending);
    CHECK_GT_U(s->run->disk.nr, 2); /* images inside batch 0 are taken as it runs */
    /* none is in the store, its end not even made: the build returned before */
    CHECK(!end_stored(st, s, &stored));
    CHECK_EQ_U(stored, 0);
    for (i = 0; i < 4; i++) {       /* a run whose end waits answers as any other */
        at[i] = s->run->log.nr_events * i / 3;
        before[i] = state_of(s, at[i]);
    }
    keeper_hold(registry_keeper(reg), false);
    keeper_drain(registry_keeper(reg));
    CHECK(!s->run->keep_pending);
    CHECK(end_stored(st, s, &stored));
    CHECK_EQ_U(stored, s->run->disk.nr); /* the images taken in the build too */
    keeper_counts(registry_keeper(reg), &by_keeper, &by_free);
    CHECK_EQ_U(by_keeper + by_free, 1);

    /* a restart: another registry on the same store loads it */
    CHECK_OK(registry_new(st, &lim, 8, 0, &again));
    back = build(again, st, 7);
    CHECK(back->run->build_loaded);
    CHECK_EQ_U(back->run->build_replayed, 0);
    CHECK(!back->run->keep_pending); /* nothing to write again */
    for (i = 0; i < 4; i++) {
        char *now = state_of(back, at[i]);

        CHECK(now && before[i] && !strcmp(now, before[i]));
        free(now);
        free(before[i]);
    }
    session_free(back);
    registry_free(again);

    /* a registry freed with an end queued writes it first */
    keeper_hold(registry_keeper(reg), true);
    session_free(s);
    s = build(reg, st, 8);
    CHECK(s->run->keep_pending);
    CHECK(!end_stored(st, s, &stored));
    session_free(s); /* the run stays on the registry's list */
    registry_free(reg);
    CHECK_OK(registry_new(st, &lim, 8, 0, &again));
    s = build(again, st, 8);
    CHECK(s->run->build_loaded);
    session_free(s);
    registry_free(again);
    store_close(st);
    strbuf_release(&err);
    unlink(path);
}

static void test_freed_while_queued(void)
{
    char path[] = "/tmp/slublab-keeper-XXXXXX";
    struct strbuf err = STRBUF_INIT;
    struct keeper *k = NULL;
    struct store *st = NULL;
    struct session *s;
    uint64_t by_keeper = 0, by_free = 0;
    char owner[STORE_CKPT_OWNER_LEN + 1];
    struct ckpt_disk d;
    int fd = mkstemp(path);

    if (!CHECK(fd >= 0))
        return;
    close(fd);
    CHECK_OK(store_open(path, &st, &err));
    CHECK_OK(keeper_new(&k));
    keeper_hold(k, true);
    s = build(NULL, st, 9);
    CHECK(s->run->keep_pending);
    snprintf(owner, sizeof(owner), "%s", s->run->disk.owner);
    keeper_add(k, s->run);
    session_free(s); /* the last reference: the run goes, its end written first */
    keeper_counts(k, &by_keeper, &by_free);
    CHECK_EQ_U(by_keeper, 0);
    CHECK_EQ_U(by_free, 1);
    memset(&d, 0, sizeof(d));
    CHECK_OK(ckpt_disk_open(&d, st, owner, 1));
    CHECK(d.nr > 0 && d.e[d.nr - 1].has_extra);
    ckpt_disk_release(&d);

    /* its session deleted: taken off the queue, never written */
    s = build(NULL, st, 10);
    snprintf(owner, sizeof(owner), "%s", s->run->disk.owner);
    keeper_add(k, s->run);
    keeper_cancel(k, s->run);
    session_free(s);
    keeper_drain(k);
    memset(&d, 0, sizeof(d));
    CHECK_OK(ckpt_disk_open(&d, st, owner, 1));
    CHECK_EQ_U(d.nr, 0);
    ckpt_disk_release(&d);
    keeper_free(k);
    store_close(st);
    strbuf_release(&err);
    unlink(path);
}

int main(void)
{
    session_limits_default(&lim);
    lim.memory = 256u << 20;
    lim.disk_min_ops = 512; /* images inside batch 0 too (an eighth of it apart, at least) */
    RUN_TEST(test_after_the_build);
    RUN_TEST(test_freed_while_queued);
    return check_done();
}
