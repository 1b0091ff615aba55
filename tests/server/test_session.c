/*
 * test_session.c: sessions seek exactly where a plain replay goes.
 *
 * The reference is the simplest thing that can be right: replay the
 * scenario once from the start with an event callback that renders the
 * snapshot after every event.  A session must give the same bytes for every
 * position, whatever order the positions are asked in (forward, backward,
 * random: cursor and checkpoints), with checkpoints dense or thinned by a
 * tiny memory budget; its events must be the reference's; a failed append
 * must leave it exactly as it was; and a fork must agree with its parent.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "present/json_state.h"
#include "present/json_session.h"
#include "scenario/replay.h"
#include "session/session.h"
#include "session/session_internal.h"

struct ref {
    char **state; /* state[n]: the snapshot JSON after n events, or NULL when not wanted */
    char **event; /* event[n]: the JSON of event n, or NULL when not wanted */
    size_t nr;    /* events */
    size_t total; /* events of the whole run (from a first, counting replay) */
    size_t stride; /* positions kept: all under REF_ALL, else a sample */
    const struct sim *sim;
};

#define REF_ALL 3000 /* runs up to this many events are checked at every position */

/* Is position @n one the reference keeps? */
static bool ref_wanted(const struct ref *r, size_t n)
{
    return r->stride <= 1 || n < 300 || n + 300 > r->total || n % r->stride == 0;
}

static char *print_tree(cJSON *json)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;

    cJSON_Delete(json);
    return text;
}

static char *snapshot_text(const struct sim *sim)
{
    struct sim_snapshot *snap;
    char *text;

    if (sim_snapshot(sim, &snap))
        return NULL;
    text = print_tree(json_snapshot(snap));
    sim_snapshot_release(snap);
    return text;
}

static void ref_event(const struct sim_event *ev, void *arg)
{
    struct ref *r = arg;

    if (!r->state) { /* the counting run */
        r->nr++;
        return;
    }
    r->event[r->nr] = ref_wanted(r, r->nr) ? print_tree(json_event(ev)) : NULL;
    r->state[r->nr + 1] = ref_wanted(r, r->nr + 1) ? snapshot_text(r->sim) : NULL;
    r->nr++;
}

/* After each operation: a position at an operation boundary is the state
 * once sim_apply() returned (its snapshot counts the operation as done). */
static int ref_op(struct replay *rp, const struct sim_op *op, const struct sim_result *res,
                  void *arg)
{
    struct ref *r = arg;

    (void)op;
    (void)res;
    if (!r->state)
        return 0;
    free(r->state[r->nr]);
    r->state[r->nr] = ref_wanted(r, r->nr) ? snapshot_text(rp->sim) : NULL;
    return 0;
}

/* Bytes in file @path (0 when unreadable). */
static long read_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = 0;

    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (f)
        fclose(f);
    return n;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 20);

    *len = f ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[*len] = '\0';
    return buf;
}

/* One replay of the scenario from the start, feeding @r. */
static void ref_replay(struct ref *r, const struct scenario *scn)
{
    struct replay rp;

    CHECK_OK(replay_init(&rp, scn, &scn->config));
    r->sim = rp.sim;
    r->nr = 0;
    if (r->state)
        r->state[0] = snapshot_text(rp.sim);
    sim_set_event_cb(rp.sim, ref_event, r);
    rp.hook = ref_op;
    rp.hook_arg = r;
    CHECK_OK(replay_run(&rp));
    replay_release(&rp);
}

static void ref_build(struct ref *r, const char *text, size_t len)
{
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;

    memset(r, 0, sizeof(*r));
    if (!CHECK_OK(scenario_parse(text, len, "ref", &scn, &err))) {
        printf("  %s\n", strbuf_str(&err));
        strbuf_release(&err);
        r->state = calloc(1, sizeof(*r->state));
        r->event = calloc(1, sizeof(*r->event));
        return;
    }
    ref_replay(r, scn); /* count the events */
    r->total = r->nr;
    r->stride = r->total <= REF_ALL ? 1 : r->total / 200;
    r->state = calloc(r->total + 1, sizeof(*r->state));
    r->event = calloc(r->total + 1, sizeof(*r->event));
    ref_replay(r, scn);
    scenario_release(scn);
    strbuf_release(&err);
}

static void ref_release(struct ref *r)
{
    for (size_t i = 0; i <= r->nr; i++)
        free(r->state[i]);
    for (size_t i = 0; i < r->nr; i++)
        free(r->event[i]);
    free(r->state);
    free(r->event);
}

static struct session *build(const char *text, size_t len, uint64_t memory, uint64_t every)
{
    struct session_limits lim;
    struct strbuf err = STRBUF_INIT;
    struct session *s;

    session_limits_default(&lim);
    lim.memory = memory;
    lim.ckpt_events = every;
    s = session_new(&lim);
    CHECK_OK(session_set_scenario(s, text, len, "test"));
    if (!CHECK_OK(session_build(s, &err)))
        printf("  %s\n", strbuf_str(&err));
    strbuf_release(&err);
    return s;
}

/* The "state" member of a state response, printed. */
static char *state_of(struct session *s, uint64_t at)
{
    struct strbuf err = STRBUF_INIT;
    struct blob *b = NULL;
    cJSON *root, *state;
    char *text = NULL;

    if (!CHECK_OK(json_position_state(s, at, 0, &b, &err))) {
        printf("  at %" PRIu64 ": %s\n", at, strbuf_str(&err));
        strbuf_release(&err);
        return NULL;
    }
    root = cJSON_Parse(b->text);
    state = cJSON_GetObjectItemCaseSensitive(root, "state");
    text = state ? cJSON_PrintUnformatted(state) : NULL;
    cJSON_Delete(root);
    blob_put(b);
    strbuf_release(&err);
    return text;
}

/* Compare the session's state at @at with the reference; quiet on success. */
static bool same_state(struct session *s, const struct ref *r, uint64_t at)
{
    char *got;

    if (!r->state[at])
        return true; /* not a position the reference kept */
    got = state_of(s, at);
    bool ok = got && strcmp(got, r->state[at]) == 0;

    if (!ok)
        printf("  state at %" PRIu64 " differs\n", at);
    free(got);
    return ok;
}

static const char *const scenario_path = "scenarios/default.json";

static void check_orders(const char *path, uint64_t memory, uint64_t every)
{
    size_t len, n, bad = 0;
    char *text = read_file(path, &len);
    struct ref r;
    struct session *s;

    ref_build(&r, text, len);
    s = build(text, len, memory, every);
    CHECK_EQ_U(session_nr_events(s), r.nr);
    for (n = 0; n <= r.nr; n++)
        bad += !same_state(s, &r, n);
    for (n = r.nr + 1; n-- > 0;)
        bad += !same_state(s, &r, n);
    srand(7);
    for (unsigned i = 0; i < 200; i++) {
        uint64_t at = (uint64_t)rand() % (r.nr + 1);

        while (!r.state[at])
            at--; /* the nearest kept position below (0 is always kept) */
        session_cache_clear(s->run);
        bad += !same_state(s, &r, at);
    }
    if (!CHECK_EQ_U(bad, 0))
        printf("  in %s\n", path);
    if (memory < (8u << 20))
        CHECK_LT_U(s->run->nr_ckpts, r.nr / every + 1); /* the budget did thin them */
    session_free(s);
    ref_release(&r);
    free(text);
}

/*
 * Every shipped scenario (run from the repository root, as ctest does);
 * with @big false, only those whose whole run the reference can afford at
 * every checkpoint spacing (the long ones are checked at the default one).
 */
static void check_all_orders(uint64_t memory, uint64_t every, bool big)
{
    DIR *d = opendir("scenarios");
    struct dirent *de;
    char path[512];
    unsigned n = 0;

    if (!CHECK(d != NULL))
        return;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);

        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof(path), "scenarios/%s", de->d_name);
        if (!big && read_size(path) > 8192)
            continue;
        check_orders(path, memory, every);
        n++;
    }
    closedir(d);
    CHECK_GT_U(n, 0);
}

static void test_seek_dense(void)
{
    check_all_orders(128u << 20, 1, false);
}

static void test_seek_default(void)
{
    check_all_orders(128u << 20, 256, true);
}

static void test_seek_every_7(void)
{
    check_all_orders(128u << 20, 7, false);
}

static void test_seek_thinned(void)
{
    /* a budget that keeps only a few checkpoints */
    check_all_orders(3u << 20, 2, false);
}

static void test_events_match(void)
{
    size_t len;
    char *text = read_file(scenario_path, &len);
    struct ref r;
    struct session *s;
    cJSON *out = NULL, *ev;
    size_t i = 0, bad = 0;

    ref_build(&r, text, len);
    s = build(text, len, 128u << 20, 5);
    CHECK_OK(json_position_events(s, 0, r.nr, &out));
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(out, "events"))
    {
        char *t = cJSON_PrintUnformatted(ev);

        bad += i >= r.nr || strcmp(t, r.event[i]) != 0;
        free(t);
        i++;
    }
    CHECK_EQ_U(i, r.nr);
    CHECK_EQ_U(bad, 0);
    cJSON_Delete(out);
    session_free(s);
    ref_release(&r);
    free(text);
}

static cJSON *ops_json(const char *text)
{
    return cJSON_Parse(text);
}

static void test_append_all_or_nothing(void)
{
    size_t len, n, bad = 0;
    char *text = read_file(scenario_path, &len), *before[64];
    struct strbuf err = STRBUF_INIT;
    struct session_append_result res;
    struct session *s = build(text, len, 128u << 20, 3);
    uint64_t e0 = session_nr_events(s), o0 = session_nr_ops(s);
    cJSON *good = ops_json("[{\"op\":\"alloc\",\"cpu\":1,\"cache\":\"A\",\"name\":\"z\"},"
                           "{\"op\":\"repeat\",\"times\":70,\"ops\":[{\"op\":\"alloc\",\"cpu\":0,"
                           "\"cache\":\"A\",\"name\":\"q{i}\"}]}]");
    cJSON *bad_name = ops_json("[{\"op\":\"alloc\",\"cpu\":0,\"cache\":\"A\",\"name\":\"y\"},"
                               "{\"op\":\"free\",\"cpu\":0,\"name\":\"nobody\"}]");
    cJSON *bad_cpu = ops_json("[{\"op\":\"alloc\",\"cpu\":5,\"cache\":\"A\"}]");
    cJSON *names0, *names1;
    char *t0, *t1;

    for (n = 0; n <= e0 && n < 64; n++)
        before[n] = state_of(s, n);
    names0 = json_session_names(s);
    CHECK_EQ_I(session_append(s, bad_name, &res, &err), SESSION_EUNPROCESSABLE);
    CHECK(strstr(strbuf_str(&err), "names no live object") != NULL);
    strbuf_reset(&err);
    CHECK_EQ_I(session_append(s, bad_cpu, &res, &err), SESSION_EUNPROCESSABLE);
    strbuf_reset(&err);
    CHECK_EQ_U(session_nr_events(s), e0);
    CHECK_EQ_U(session_nr_ops(s), o0);
    names1 = json_session_names(s);
    t0 = cJSON_PrintUnformatted(names0);
    t1 = cJSON_PrintUnformatted(names1);
    CHECK_EQ_STR(t0, t1);
    free(t0);
    free(t1);
    session_cache_clear(s->run);
    for (n = 0; n <= e0 && n < 64; n++) {
        char *now = state_of(s, n);

        bad += !now || strcmp(now, before[n]) != 0;
        free(now);
    }
    CHECK_EQ_U(bad, 0);
    /* the head was rebuilt: a good batch still works and extends the log */
    CHECK_OK(session_append(s, good, &res, &err));
    CHECK_GT_U(session_nr_events(s), e0);
    CHECK_EQ_U(session_nr_ops(s), o0 + 71);
    for (n = 0; n <= e0 && n < 64; n++) {
        char *now = state_of(s, n);

        bad += !now || strcmp(now, before[n]) != 0;
        free(now);
        free(before[n]);
    }
    CHECK_EQ_U(bad, 0);
    cJSON_Delete(names0);
    cJSON_Delete(names1);
    cJSON_Delete(good);
    cJSON_Delete(bad_name);
    cJSON_Delete(bad_cpu);
    strbuf_release(&err);
    session_free(s);
    free(text);
}

static void test_fork_agrees(void)
{
    size_t len, bad = 0;
    char *text = read_file(scenario_path, &len);
    struct strbuf err = STRBUF_INIT;
    struct session_append_result res;
    struct session *s = build(text, len, 128u << 20, 4), *child;
    struct session_limits lim;
    cJSON *more = ops_json("[{\"op\":\"alloc\",\"cpu\":1,\"cache\":\"A\",\"name\":\"z\"},"
                           "{\"op\":\"free\",\"cpu\":0,\"name\":\"z\"}]");
    uint64_t e, at, n;

    CHECK_OK(session_append(s, more, &res, &err));
    e = session_nr_events(s);
    session_limits_default(&lim);
    for (at = 0; at <= e; at += 3) {
        uint64_t ce;

        child = session_new(&lim);
        CHECK_OK(session_fork_inputs(s, at, child));
        if (!CHECK_OK(session_build(child, &err)))
            printf("  fork at %" PRIu64 ": %s\n", at, strbuf_str(&err));
        ce = session_nr_events(child);
        CHECK_GE_U(ce, at);
        for (n = 0; n <= ce; n++) {
            char *a = state_of(s, n), *b = state_of(child, n);

            bad += !a || !b || strcmp(a, b) != 0;
            free(a);
            free(b);
        }
        session_free(child);
    }
    CHECK_EQ_U(bad, 0);
    cJSON_Delete(more);
    strbuf_release(&err);
    session_free(s);
    free(text);
}

static void test_series_totals(void)
{
    size_t len;
    char *text = read_file(scenario_path, &len);
    struct session *s = build(text, len, 128u << 20, 4);
    unsigned items[SIM_NR_STATS], i;
    uint64_t e = session_nr_events(s), want;
    cJSON *out = NULL, *series;

    for (i = 0; i < SIM_NR_STATS; i++)
        items[i] = i;
    CHECK_OK(json_position_series(s, items, SIM_NR_STATS, 0, e, 10, &out));
    series = cJSON_GetObjectItemCaseSensitive(out, "series");
    for (i = 0; i < SIM_NR_STATS; i++) {
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(series, sim_stat_name(i));
        cJSON *last = cJSON_GetArrayItem(arr, cJSON_GetArraySize(arr) - 1);
        unsigned c;

        want = 0;
        for (c = 0; c < sim_nr_caches(s->run->rp.sim); c++)
            want += sim_stat(s->run->rp.sim, (int)c, i, -1);
        if (!CHECK_EQ_U((uint64_t)last->valuedouble, want))
            printf("  counter %s\n", sim_stat_name(i));
    }
    cJSON_Delete(out);
    session_free(s);
    free(text);
}

static void test_search_and_step(void)
{
    size_t len;
    char *text = read_file(scenario_path, &len);
    struct session *s = build(text, len, 128u << 20, 4);
    struct timeline_query q = {"alloc_from_pcs", NULL, -1, false, 0};
    cJSON *out = NULL;
    uint64_t at, t, e = session_nr_events(s), back;

    CHECK_OK(json_position_search(s, &q, 0, false, UINT64_MAX, &out));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(out, "found")));
    at = (uint64_t)cJSON_GetObjectItemCaseSensitive(out, "at")->valuedouble;
    cJSON_Delete(out);
    CHECK_OK(json_position_search(s, &q, at, false, UINT64_MAX, &out));
    t = (uint64_t)cJSON_GetObjectItemCaseSensitive(out, "at")->valuedouble;
    CHECK_GT_U(t, at);
    cJSON_Delete(out);
    CHECK_OK(json_position_search(s, &q, t, true, UINT64_MAX, &out));
    back = (uint64_t)cJSON_GetObjectItemCaseSensitive(out, "at")->valuedouble;
    CHECK_EQ_U(back, at);
    cJSON_Delete(out);
    /* op steps: forward to the end and back to 0 visit the same boundaries */
    at = 0;
    for (unsigned i = 0; i < 1000 && at < e; i++) {
        CHECK_OK(session_step(s, at, SESSION_BY_OP, false, 1, &t));
        CHECK_GT_U(t, at);
        CHECK_OK(session_step(s, t, SESSION_BY_OP, true, 1, &back));
        CHECK_LE_U(back, at);
        at = t;
    }
    CHECK_EQ_U(at, e);
    session_free(s);
    free(text);
}

struct progress_seen {
    uint64_t ops[16];
    size_t nr;
};

static void on_build_progress(uint64_t ops, void *arg)
{
    struct progress_seen *p = arg;

    if (p->nr < 16)
        p->ops[p->nr] = ops;
    p->nr++;
}

/* A build reports the operations applied every SESSION_PROGRESS_EVERY, in order. */
static void test_build_progress(void)
{
    static const char text[] =
            "{\"format\":1,\"name\":\"progress\",\"machine\":{\"cpus\":2,\"nodes\":1},"
            "\"caches\":[{\"name\":\"A\",\"object_size\":64}],"
            "\"ops\":[{\"op\":\"repeat\",\"times\":2500,\"ops\":["
            "{\"op\":\"alloc\",\"cpu\":0,\"cache\":\"A\",\"name\":\"x{i}\"},"
            "{\"op\":\"free\",\"cpu\":1,\"name\":\"x{i}\"}]}]}";
    struct session_limits lim;
    struct strbuf err = STRBUF_INIT;
    struct progress_seen seen = {{0}, 0};
    struct session *s;

    session_limits_default(&lim);
    s = session_new(&lim);
    CHECK_OK(session_set_scenario(s, text, sizeof(text) - 1, "test"));
    s->run->build_progress = on_build_progress;
    s->run->build_progress_arg = &seen;
    if (!CHECK_OK(session_build(s, &err)))
        printf("  %s\n", strbuf_str(&err));
    s->run->build_progress = NULL;
    /* the cache's creation and 5000 operations: called at 1024 .. 4096 */
    CHECK_EQ_U(session_nr_ops(s), 5001);
    CHECK_EQ_U(seen.nr, 5001 / SESSION_PROGRESS_EVERY);
    for (size_t i = 0; i < seen.nr && i < 16; i++)
        CHECK_EQ_U(seen.ops[i], (i + 1) * SESSION_PROGRESS_EVERY);
    strbuf_release(&err);
    session_free(s);
}

int main(void)
{
    RUN_TEST(test_seek_dense);
    RUN_TEST(test_seek_default);
    RUN_TEST(test_seek_every_7);
    RUN_TEST(test_seek_thinned);
    RUN_TEST(test_events_match);
    RUN_TEST(test_append_all_or_nothing);
    RUN_TEST(test_fork_agrees);
    RUN_TEST(test_series_totals);
    RUN_TEST(test_search_and_step);
    RUN_TEST(test_build_progress);
    return check_done();
}
