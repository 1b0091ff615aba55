/*
 * test_state_write.c: the written state is the tree's text, byte for byte,
 * and a paged state loses nothing.
 *
 * json_state_write() must print exactly what
 * cJSON_PrintUnformatted(json_snapshot()) prints (the goldens, the export
 * and every client were made with the tree).  Every position of every
 * shipped scenario, and of a bigger generated one (eight CPUs, two nodes,
 * kfree_rcu, remote frees), is rendered both ways,
 * and so is a hand-made snapshot whose names need escaping.  No shipped scenario reaches
 * JSON_STATE_LIMIT, so none of their states is paged.  For paging, the generated run's states are
 * written with a tiny limit: the paged state must be the full one with its
 * three lists emptied and a "paged" object giving their lengths, and the
 * pages of every cache (read a few slabs at a time, following "next") must
 * give back every slab, every sheaf and every queued object.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "present/json_session.h"
#include "present/json_state.h"
#include "scenario/replay.h"
#include "session/session.h"

struct walk {
    const struct sim *sim;
    size_t positions; /* states compared */
    size_t differ;    /* states whose texts differ (reported once) */
    size_t paged;     /* states json_state_write() paged at JSON_STATE_LIMIT */
    size_t max_items; /* json_state_items() at the busiest position */
    size_t max_rcu;   /* the longest kfree_rcu queue seen */
    bool check_pages; /* also page every state with a tiny limit */
    size_t pages_checked;
    const char *name;
};

static char *tree_text(const struct sim_snapshot *snap)
{
    cJSON *t = json_snapshot(snap);
    char *text = t ? cJSON_PrintUnformatted(t) : NULL;

    cJSON_Delete(t);
    return text;
}

/* The array @key of @o, emptied after taking its length into *n. */
static void empty_list(cJSON *o, const char *key, size_t *n)
{
    cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);

    *n = (size_t)cJSON_GetArraySize(a);
    while (cJSON_GetArraySize(a))
        cJSON_DeleteItemFromArray(a, 0);
}

static double num(const cJSON *o, const char *key)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Does @list (an array of objects or strings) hold an item printing as @text? */
static bool list_has(const cJSON *list, const char *text)
{
    const cJSON *it;
    bool found = false;

    cJSON_ArrayForEach(it, list)
    {
        char *t = cJSON_PrintUnformatted(it);

        found = t && !strcmp(t, text);
        free(t);
        if (found)
            break;
    }
    return found;
}

/* The paged state of @snap against its full text @full, and its pages. */
static void check_paged(struct walk *w, const struct sim_snapshot *snap, const char *full)
{
    struct strbuf sb = STRBUF_INIT;
    cJSON *fj = cJSON_Parse(full), *pj = NULL, *paged, *fslabs, *fsheaves, *frcu;
    size_t nr_slabs, nr_sheaves, nr_rcu, got_slabs = 0, got_sheaves = 0, got_rcu = 0, i;
    bool ok = true;
    char *a = NULL, *b = NULL;

    if (!CHECK(json_state_write(&sb, snap, 1)) || !CHECK(fj) ||
        !CHECK(pj = cJSON_Parse(strbuf_str(&sb))))
        goto out;
    paged = cJSON_DetachItemFromObjectCaseSensitive(pj, "paged");
    if (!CHECK(paged))
        goto out;
    fslabs = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(fj, "slabs"), true);
    fsheaves = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(fj, "sheaves"), true);
    frcu = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(fj, "rcu_pending"), true);
    empty_list(fj, "slabs", &nr_slabs);
    empty_list(fj, "sheaves", &nr_sheaves);
    empty_list(fj, "rcu_pending", &nr_rcu);
    a = cJSON_PrintUnformatted(fj);
    b = cJSON_PrintUnformatted(pj);
    ok &= CHECK(a && b && !strcmp(a, b));
    ok &= CHECK_EQ_U((size_t)num(paged, "slabs"), nr_slabs);
    ok &= CHECK_EQ_U((size_t)num(paged, "sheaves"), nr_sheaves);
    ok &= CHECK_EQ_U((size_t)num(paged, "rcu_pending"), nr_rcu);
    ok &= CHECK_EQ_U((size_t)num(paged, "items"), json_state_items(snap));
    /* every cache's pages, three slabs at a time */
    for (i = 0; ok && i < snap->nr_caches; i++) {
        size_t from = 0;

        for (;;) {
            cJSON *page, *it, *next;

            strbuf_reset(&sb);
            if (!CHECK_OK(json_state_write_page(&sb, snap, 7, snap->caches[i].id, from, 3)) ||
                !CHECK(page = cJSON_Parse(strbuf_str(&sb)))) {
                ok = false;
                break;
            }
            ok &= CHECK_EQ_U((size_t)num(page, "at"), 7);
            cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(page, "slabs"))
            {
                char *t = cJSON_PrintUnformatted(it);

                ok &= CHECK(t && list_has(fslabs, t));
                ok &= CHECK_EQ_I((int)num(it, "cache"), snap->caches[i].id);
                got_slabs++;
                free(t);
            }
            if (!from) { /* sheaves and queued objects come with every page */
                cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(page, "sheaves"))
                {
                    char *t = cJSON_PrintUnformatted(it);

                    ok &= CHECK(t && list_has(fsheaves, t));
                    got_sheaves++;
                    free(t);
                }
                cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(page, "rcu_pending"))
                {
                    char *t = cJSON_PrintUnformatted(it);

                    ok &= CHECK(t && list_has(frcu, t));
                    got_rcu++;
                    free(t);
                }
            }
            next = cJSON_GetObjectItemCaseSensitive(page, "next");
            ok &= CHECK(cJSON_IsNull(next) || num(page, "next") == (double)from + 3);
            from = cJSON_IsNull(next) ? 0 : (size_t)num(page, "next");
            cJSON_Delete(page);
            if (!from || !ok)
                break;
        }
    }
    ok &= CHECK_EQ_U(got_slabs, nr_slabs);
    ok &= CHECK_EQ_U(got_sheaves, nr_sheaves);
    ok &= CHECK_EQ_U(got_rcu, nr_rcu);
    strbuf_reset(&sb);
    ok &= CHECK_EQ_I(json_state_write_page(&sb, snap, 0, 1000000, 0, 3), -ENOENT);
    w->pages_checked += ok;
    cJSON_Delete(fslabs);
    cJSON_Delete(fsheaves);
    cJSON_Delete(frcu);
    cJSON_Delete(paged);
out:
    free(a);
    free(b);
    cJSON_Delete(fj);
    cJSON_Delete(pj);
    strbuf_release(&sb);
}

/* Render the machine's state both ways; quiet unless they differ. */
static void compare_now(struct walk *w, const struct sim *sim)
{
    struct strbuf sb = STRBUF_INIT, bounded = STRBUF_INIT;
    struct sim_snapshot *snap;
    char *tree;

    if (!CHECK_OK(sim_snapshot(sim, &snap)))
        return;
    tree = tree_text(snap);
    CHECK(json_state_write(&sb, snap, 0));
    CHECK(json_state_write(&bounded, snap, JSON_STATE_LIMIT));
    if (json_state_items(snap) > w->max_items)
        w->max_items = json_state_items(snap);
    if (snap->nr_rcu_objs > w->max_rcu)
        w->max_rcu = snap->nr_rcu_objs;
    if (json_state_items(snap) > JSON_STATE_LIMIT)
        w->paged++;
    else if (strcmp(strbuf_str(&sb), strbuf_str(&bounded)) != 0)
        w->differ++;
    if (!tree || strcmp(tree, strbuf_str(&sb)) != 0) {
        if (!w->differ++) {
            size_t i = 0;

            while (tree && tree[i] && tree[i] == sb.buf[i])
                i++;
            printf("  %s at %zu: the texts part at byte %zu:\n    tree  %.80s\n    write %.80s\n",
                   w->name, w->positions, i, tree ? tree + i : "(null)", sb.buf + i);
        }
    }
    if (w->check_pages && tree && w->positions % 97 == 0 && json_state_items(snap) > 1)
        check_paged(w, snap, tree);
    w->positions++;
    free(tree);
    strbuf_release(&sb);
    strbuf_release(&bounded);
    sim_snapshot_release(snap);
}

#define ALL_POSITIONS 5000 /* runs up to this long are compared at every position */

static void on_event(const struct sim_event *ev, void *arg)
{
    struct walk *w = arg;

    /* a longer run: its first positions, then one in 61 */
    if (ev->seq < ALL_POSITIONS || ev->seq % 61 == 0)
        compare_now(w, w->sim);
}

/* Every position of scenario @text, written both ways. */
static void walk_scenario(struct walk *w, const char *text, size_t len)
{
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    struct replay rp;

    if (!CHECK_OK(scenario_parse(text, len, w->name, &scn, &err))) {
        printf("  %s: %s\n", w->name, strbuf_str(&err));
        strbuf_release(&err);
        return;
    }
    if (CHECK_OK(replay_init(&rp, scn, &scn->config))) {
        w->sim = rp.sim;
        compare_now(w, rp.sim);
        sim_set_event_cb(rp.sim, on_event, w);
        CHECK_OK(replay_run(&rp));
        replay_release(&rp);
    }
    scenario_release(scn);
    strbuf_release(&err);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 20);

    *len = f && buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    if (buf)
        buf[*len] = '\0';
    return buf;
}

static void test_shipped_scenarios(void)
{
    DIR *dir = opendir("scenarios");
    struct dirent *de;
    size_t files = 0, positions = 0, max_items = 0;

    if (!CHECK(dir))
        return;
    while ((de = readdir(dir))) {
        char path[512];
        size_t len, n = strlen(de->d_name);
        struct walk w = {0};
        char *text;

        if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof(path), "scenarios/%s", de->d_name);
        w.name = de->d_name;
        text = read_file(path, &len);
        walk_scenario(&w, text, len);
        free(text);
        CHECK_GT_U(w.positions, 1);
        CHECK_EQ_U(w.differ, 0);
        CHECK_EQ_U(w.paged, 0);
        printf("  %s: %zu positions\n", w.name, w.positions);
        positions += w.positions;
        if (w.max_items > max_items)
            max_items = w.max_items;
        files++;
    }
    closedir(dir);
    CHECK_GE_U(files, 30);
    printf("  %zu scenarios, %zu positions, at most %zu items in a state\n", files, positions,
           max_items);
}

/* A busier run than most shipped scenarios: three caches, eight CPUs on two nodes, remote frees and
 * kfree_rcu still queued at the end. */
static const char big_scenario[] =
        "{\"format\":1,\"name\":\"big\",\"seed\":7,"
        "\"machine\":{\"cpus\":8,\"nodes\":2,\"cpu_node\":[0,0,0,0,1,1,1,1],\"mem_mb_per_node\":64}"
        ","
        "\"caches\":[{\"name\":\"A\",\"object_size\":64},"
        "{\"name\":\"kmalloc-rcl-512\",\"object_size\":512,\"sheaf_capacity\":16},"
        "{\"name\":\"dentry\",\"object_size\":192}],"
        "\"ops\":["
        "{\"op\":\"repeat\",\"times\":300,\"ops\":["
        "{\"op\":\"alloc\",\"cpu\":1,\"cache\":\"A\",\"name\":\"a{i}\"},"
        "{\"op\":\"alloc\",\"cpu\":5,\"cache\":\"kmalloc-rcl-512\",\"name\":\"b{i}\"},"
        "{\"op\":\"alloc\",\"cpu\":3,\"cache\":\"dentry\",\"name\":\"c{i}\"}]},"
        "{\"op\":\"repeat\",\"times\":150,\"ops\":["
        "{\"op\":\"free\",\"cpu\":6,\"name\":\"a{i}\"},"
        "{\"op\":\"kfree_rcu\",\"cpu\":2,\"name\":\"b{i}\"},"
        "{\"op\":\"free\",\"cpu\":0,\"name\":\"c{i}\"}]},"
        "{\"op\":\"grace_period\"},"
        "{\"op\":\"repeat\",\"times\":40,\"ops\":["
        "{\"op\":\"kmalloc\",\"cpu\":4,\"size\":100,\"name\":\"k{i}\"}]},"
        "{\"op\":\"repeat\",\"times\":40,\"ops\":["
        "{\"op\":\"kfree_rcu\",\"cpu\":7,\"name\":\"k{i}\"}]}"
        "]}";

static void test_generated_run(void)
{
    struct walk w = {.name = "big", .check_pages = true};

    walk_scenario(&w, big_scenario, strlen(big_scenario));
    CHECK_GT_U(w.positions, 1500);
    CHECK_EQ_U(w.differ, 0);
    CHECK_GT_U(w.pages_checked, 15);
    CHECK_GT_U(w.max_rcu, 0);
    printf("  generated: %zu positions, %zu paged and checked, at most %zu items, %zu queued\n",
           w.positions, w.pages_checked, w.max_items, w.max_rcu);
}

/* The session's answers: written states are cached as before, and a page
 * is the state's own lists of that cache. */
static void test_session_answers(void)
{
    struct session_limits lim;
    struct strbuf err = STRBUF_INIT, page = STRBUF_INIT;
    struct blob *a = NULL, *b = NULL;
    struct session *s;
    uint64_t at;
    cJSON *st = NULL, *pg = NULL, *slabs, *it;
    size_t n = 0;

    session_limits_default(&lim);
    s = session_new(&lim);
    if (!CHECK(s) || !CHECK_OK(session_set_scenario(s, big_scenario, strlen(big_scenario), "t")) ||
        !CHECK_OK(session_build(s, &err)))
        goto out;
    at = session_nr_events(s) / 2;
    CHECK(!session_state_cached(s, at, 0));
    if (!CHECK_OK(json_position_state(s, at, 0, &a, &err)))
        goto out;
    b = session_state_cached(s, at, 0);
    CHECK(b == a); /* the same rendering, kept */
    blob_put(b);
    b = NULL;
    CHECK_OK(json_position_state(s, at, 0, &b, &err));
    CHECK(b == a);
    st = cJSON_Parse(a->text);
    CHECK(st && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(st, "event")));
    CHECK_OK(json_position_objects(s, at, 1, 0, JSON_PAGE_SLABS, &page, &err));
    pg = cJSON_Parse(strbuf_str(&page));
    slabs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "state"),
                                             "slabs");
    cJSON_ArrayForEach(it, slabs)
    {
        if (num(it, "cache") == 1) {
            char *t = cJSON_PrintUnformatted(it);

            CHECK(t && list_has(cJSON_GetObjectItemCaseSensitive(pg, "slabs"), t));
            free(t);
            n++;
        }
    }
    CHECK_GT_U(n, 3);
    CHECK_EQ_I(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pg, "slabs")), (int)n);
    strbuf_reset(&page);
    CHECK_EQ_I(json_position_objects(s, at, 99, 0, 10, &page, &err), -ENOENT);
out:
    cJSON_Delete(st);
    cJSON_Delete(pg);
    blob_put(a);
    blob_put(b);
    session_free(s);
    strbuf_release(&err);
    strbuf_release(&page);
}

/* Names no scenario may give, escaped as cJSON escapes them. */
static void test_escaping(void)
{
    struct sim_snap_cache c = {0};
    struct sim_snap_zone z = {0};
    struct sim_snapshot snap = {0};
    struct strbuf sb = STRBUF_INIT;
    char *tree;

    snprintf(c.name, sizeof(c.name), "q\"u\\o\t\b\f\n\r\x01\x1f\x7f\xc3\xbc");
    c.alive = true;
    c.flags = 0xffffffffu; /* every bit, named or not */
    c.random = 0xfedcba9876543210ull;
    c.total_objects = 1000000000000001ull; /* past what cJSON prints as a plain number */
    z.node = -1;
    z.name = "Nor\"mal";
    snap.nr_cpus = 1;
    snap.nr_nodes = 1;
    snap.caches = &c;
    snap.nr_caches = 1;
    snap.zones = &z;
    snap.nr_zones = 1;
    tree = tree_text(&snap);
    CHECK(json_state_write(&sb, &snap, 0));
    CHECK(tree && !strcmp(tree, strbuf_str(&sb)));
    CHECK(strstr(strbuf_str(&sb), "\"q\\\"u\\\\o\\t\\b\\f\\n\\r\\u0001\\u001f\x7f\xc3\xbc\""));
    free(tree);
    strbuf_release(&sb);
}

int main(void)
{
    RUN_TEST(test_escaping);
    RUN_TEST(test_shipped_scenarios);
    RUN_TEST(test_generated_run);
    RUN_TEST(test_session_answers);
    return check_done();
}
