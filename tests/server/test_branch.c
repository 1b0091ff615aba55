/*
 * test_branch.c: every branch record the engine writes is one predict mode
 * can ask about.
 *
 * Every shipped scenario (and the fixtures in tests/data/branches/, which
 * reach arms the shipped ones leave out) is replayed on its own kernel with
 * an event callback.  For each event that carries branch records: each
 * record's point is one of the table's (sim_branch_points()), the arm taken
 * is one of its arms, the event itself matches one of that arm's fn[/label]
 * patterns (the records are made at the decision, apart from the event, so
 * this fails when a record lands on the wrong event), the records come in
 * table order, and the event's JSON lists the point's arms in the table's
 * order with the arm taken.  Over all the runs every point is hit; the arms
 * never hit are printed.  A second replay of each scenario gives the same
 * records at the same events, and the validator holds after the first
 * events that carry records.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "present/json_state.h"
#include "scenario/replay.h"

#define MAX_POINTS     64
#define MAX_ARMS       16
#define VALIDATE_FIRST 300 /* events with records validated per run */

struct tally {
    const struct sim *sim;
    size_t nr_points;
    const struct sim_branch_point *points;
    unsigned long hits[MAX_POINTS][MAX_ARMS];
    unsigned long events;     /* events with records, this run */
    unsigned long mismatches; /* reported, this run (printed up to a few) */
    uint64_t digest;          /* of (seq, point, arm) of every record, this run */
    const char *label;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

/* The JSON of @ev lists each record as {"point", "arms", "taken"} of the table. */
static void check_json(const struct sim_event *ev)
{
    cJSON *o = json_event(ev);
    cJSON *branches = o ? cJSON_GetObjectItemCaseSensitive(o, "branches") : NULL;

    if (!CHECK(cJSON_IsArray(branches)) ||
        !CHECK_EQ_U(cJSON_GetArraySize(branches), ev->nr_branches)) {
        cJSON_Delete(o);
        return;
    }
    for (size_t i = 0; i < ev->nr_branches; i++) {
        const struct sim_branch_point *p = ev->branches[i].point;
        cJSON *b = cJSON_GetArrayItem(branches, (int)i);
        cJSON *arms = cJSON_GetObjectItemCaseSensitive(b, "arms");
        const char *point = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "point"));
        const char *taken = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "taken"));

        CHECK(point && !strcmp(point, p->name));
        CHECK(taken && !strcmp(taken, p->arms[ev->branches[i].taken].name));
        if (!CHECK_EQ_U(cJSON_GetArraySize(arms), p->nr_arms))
            continue;
        for (size_t a = 0; a < p->nr_arms; a++)
            CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetArrayItem(arms, (int)a)), p->arms[a].name);
    }
    cJSON_Delete(o);
}

static void on_event(const struct sim_event *ev, void *arg)
{
    struct tally *t = arg;

    for (size_t i = 0; i < ev->nr_branches; i++) {
        const struct sim_branch *b = &ev->branches[i];
        size_t pi = (size_t)(b->point - t->points);
        bool ok = b->point >= t->points && pi < t->nr_points && b->taken < b->point->nr_arms;

        if (!CHECK(ok))
            return;
        if (i > 0)
            CHECK(ev->branches[i - 1].point <= b->point); /* table order */
        if (!sim_branch_arm_matches(&b->point->arms[b->taken], ev->fn, ev->label)) {
            if (t->mismatches++ < 5)
                printf("  %s: event %llu %s/%s carries %s=%s, whose events it is not\n", t->label,
                       (unsigned long long)ev->seq, ev->fn, ev->label ? ev->label : "",
                       b->point->name, b->point->arms[b->taken].name);
            CHECK(false);
        }
        t->hits[pi][b->taken]++;
        t->digest = mix(mix(mix(t->digest, ev->seq), pi), b->taken);
    }
    if (!ev->nr_branches)
        return;
    if (t->events++ < VALIDATE_FIRST) {
        struct sim_report rep;

        check_json(ev);
        if (!CHECK_EQ_U(sim_validate(t->sim, SIM_VALIDATE_EVENT, &rep), 0))
            printf("  %s: after event %llu: %s\n", t->label, (unsigned long long)ev->seq,
                   rep.msg[0]);
    }
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        *len = fread(buf, 1, (size_t)n, f);
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

/* Replay @scn on its own kernel into @t.  False when it could not run. */
static bool replay_once(const struct scenario *scn, struct tally *t)
{
    struct replay rp;
    bool ok;

    t->events = 0;
    t->mismatches = 0;
    t->digest = 0;
    if (!CHECK_OK(replay_init(&rp, scn, &scn->config))) {
        replay_release(&rp);
        return false;
    }
    t->sim = rp.sim;
    sim_set_event_cb(rp.sim, on_event, t);
    ok = CHECK_OK(replay_run(&rp));
    if (!ok)
        printf("  %s: %s\n", t->label, strbuf_str(&rp.error));
    replay_release(&rp);
    return ok;
}

/* Both replays of @path: records checked, and the same twice. */
static void check_scenario(const char *path, struct tally *total)
{
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    struct tally *again;
    size_t len = 0;
    char *text = read_file(path, &len);

    total->label = path;
    if (!CHECK(text != NULL) || !CHECK_OK(scenario_parse(text, len, path, &scn, &err))) {
        printf("  %s: %s\n", path, strbuf_str(&err));
        goto out;
    }
    again = calloc(1, sizeof(*again));
    if (!CHECK(again != NULL))
        goto out;
    *again = *total;
    if (replay_once(scn, total) && replay_once(scn, again)) {
        CHECK_EQ_U(again->events, total->events);
        CHECK_EQ_U(again->digest, total->digest);
        for (size_t p = 0; p < total->nr_points; p++)
            for (size_t a = 0; a < MAX_ARMS; a++)
                CHECK_EQ_U(again->hits[p][a], total->hits[p][a]);
        printf("  %s: %lu events with records\n", path, total->events);
    }
    free(again);
out:
    scenario_release(scn);
    strbuf_release(&err);
    free(text);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .json of @dir, in name order.  Returns how many. */
static unsigned check_dir(const char *dir, struct tally *t)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char *names[256];
    unsigned n = 0;

    if (!CHECK(d != NULL))
        return 0;
    while ((de = readdir(d)) && n < 256) {
        size_t len = strlen(de->d_name);

        if (len > 5 && !strcmp(de->d_name + len - 5, ".json") &&
            CHECK((names[n] = malloc(len + 1)) != NULL))
            memcpy(names[n++], de->d_name, len + 1);
    }
    closedir(d);
    qsort(names, n, sizeof(*names), cmp_names);
    for (unsigned i = 0; i < n; i++) {
        char path[512];

        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        check_scenario(path, t);
        free(names[i]);
    }
    return n;
}

/* The table: names unique, arms named, each arm with an event pattern. */
static void test_table(void)
{
    size_t n;
    const struct sim_branch_point *p = sim_branch_points(&n);

    CHECK_GT_U(n, 0);
    CHECK_LE_U(n, MAX_POINTS);
    for (size_t i = 0; i < n; i++) {
        CHECK(sim_branch_point_lookup(p[i].name) == &p[i]);
        CHECK(p[i].fn && p[i].fn[0]);
        CHECK_GE_U(p[i].nr_arms, 2);
        CHECK_LE_U(p[i].nr_arms, MAX_ARMS);
        for (size_t a = 0; a < p[i].nr_arms; a++) {
            CHECK(p[i].arms[a].name != NULL);
            CHECK(p[i].arms[a].events && p[i].arms[a].events[0]);
            for (size_t b = 0; b < a; b++)
                CHECK_NE_STR(p[i].arms[a].name, p[i].arms[b].name);
        }
    }
    CHECK(sim_branch_point_lookup("no_such_point") == NULL);
    /* the matcher: "fn" matches any label, "fn/label" only that one */
    p = sim_branch_point_lookup("new_slab_order");
    if (CHECK(p != NULL)) {
        CHECK(sim_branch_arm_matches(&p->arms[0], "new_slab", "oo"));
        CHECK(!sim_branch_arm_matches(&p->arms[0], "new_slab", "nomem"));
        CHECK(!sim_branch_arm_matches(&p->arms[0], "new_sla", "oo"));
        CHECK(!sim_branch_arm_matches(&p->arms[0], "new_slab_x", "oo"));
    }
    p = sim_branch_point_lookup("watermark");
    if (CHECK(p != NULL))
        CHECK(sim_branch_arm_matches(&p->arms[0], "new_slab", "order_fallback"));
}

/* Over every scenario, shipped and fixture: every record right, every point hit. */
static void test_all_scenarios(void)
{
    struct tally *t = calloc(1, sizeof(*t));
    unsigned shipped, fixtures;

    if (!CHECK(t != NULL))
        return;
    t->points = sim_branch_points(&t->nr_points);
    shipped = check_dir("scenarios", t);
    fixtures = check_dir("tests/data/branches", t);
    CHECK_GT_U(shipped, 0);
    CHECK_GT_U(fixtures, 0);
    for (size_t p = 0; p < t->nr_points; p++) {
        unsigned long sum = 0;

        for (size_t a = 0; a < t->points[p].nr_arms; a++) {
            sum += t->hits[p][a];
            if (!t->hits[p][a])
                printf("  note: %s=%s is never taken by these scenarios\n", t->points[p].name,
                       t->points[p].arms[a].name);
        }
        if (!CHECK_GT_U(sum, 0))
            printf("  %s is never recorded\n", t->points[p].name);
    }
    free(t);
}

int main(void)
{
    RUN_TEST(test_table);
    RUN_TEST(test_all_scenarios);
    return check_done();
}
