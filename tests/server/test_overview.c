/*
 * test_overview.c: the multi-resolution counter summaries
 * (session/overview.c): sums over any level's buckets equal the counters'
 * totals whatever the length (the finest level coarsening on the way),
 * min/max/mean of the slab pages bound the values seen, a rollback to a
 * mark gives what a run without the rolled-back events gives, and the
 * serialized form reads back the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session/overview.h"

/* Event @seq of a made-up run: a counter or two, pages in and out in waves. */
static void make_event(uint64_t seq, struct sim_event *ev, struct sim_stat_delta d[3])
{
    size_t n = 0;

    memset(ev, 0, sizeof(*ev));
    ev->seq = seq;
    d[n].item = (uint16_t)(seq % 7 == 0 ? SIM_ALLOC_SLOWPATH : SIM_ALLOC_FASTPATH);
    d[n++].delta = 1;
    if (seq % 5 == 0) {
        d[n].item = SIM_BARN_GET;
        d[n++].delta = (int64_t)(seq % 3 + 1);
    }
    if (seq % 11 == 0) {
        d[n].item = (uint16_t)((seq / 1000) % 2 ? SIM_ENGINE_PAGES_OUT : SIM_ENGINE_PAGES_IN);
        d[n++].delta = 2;
    }
    ev->stats = d;
    ev->nr_stats = n;
}

static void feed(struct overview *ov, uint64_t from, uint64_t to)
{
    struct sim_stat_delta d[3];
    struct sim_event ev;
    uint64_t seq;

    for (seq = from; seq < to; seq++) {
        make_event(seq, &ev, d);
        if (overview_event(ov, &ev))
            break;
    }
}

/* Every level's sums equal the totals, and the events add up. */
static void check_levels(const struct overview *ov)
{
    unsigned l, k;
    size_t i;

    for (l = 0; l < OVERVIEW_LEVELS; l++) {
        uint64_t sums[SIM_NR_STATS] = {0}, events = 0;
        const struct overview_level *lv = &ov->lv[l];

        CHECK_LE_U(lv->nr, OVERVIEW_BUCKETS);
        for (i = 0; i < lv->nr; i++) {
            events += lv->b[i].events;
            CHECK_LE_U(lv->b[i].pages_min, lv->b[i].pages_max);
            for (k = 0; k < SIM_NR_STATS; k++)
                sums[k] += lv->b[i].sums[k];
        }
        CHECK_EQ_U(events, ov->nr_events);
        for (k = 0; k < SIM_NR_STATS; k++)
            CHECK_EQ_U(sums[k], ov->totals[k]);
    }
}

static void test_totals(void)
{
    struct overview ov;
    struct overview_answer a;
    uint64_t fast = 0, pages_max = 0, seq;
    size_t i;

    overview_init(&ov);
    feed(&ov, 0, 100);
    CHECK_EQ_U(ov.base, 1); /* short runs: one event a bucket at level 0 */
    CHECK_EQ_U(ov.lv[0].nr, 100);
    check_levels(&ov);
    feed(&ov, 100, 300000);
    CHECK_GT_U(ov.base, 1); /* coarsened on the way */
    CHECK_LE_U(ov.lv[0].nr, OVERVIEW_BUCKETS);
    check_levels(&ov);
    /* the whole run in 100 buckets at most, and a slice of it */
    CHECK_EQ_I(overview_query(&ov, 0, UINT64_MAX, 100, &a), 0);
    CHECK_LE_U(a.nr, 100);
    CHECK_EQ_U(a.from, 0);
    CHECK_EQ_U(a.to, 300000);
    for (i = 0; i < a.nr; i++)
        fast += a.b[i].sums[SIM_ALLOC_FASTPATH];
    CHECK_EQ_U(fast, ov.totals[SIM_ALLOC_FASTPATH]);
    free(a.b);
    CHECK_EQ_I(overview_query(&ov, 120000, 130000, 50, &a), 0);
    CHECK_LE_U(a.from, 120000);
    CHECK_GE_U(a.to, 130000);
    CHECK_LE_U(a.nr, 50);
    CHECK_GT_U(a.nr, 1);
    CHECK_LT_U(a.level, OVERVIEW_LEVELS - 1); /* a finer level than the whole run's */
    /* the pages gauge: min <= mean <= max, and the max is a value seen */
    for (i = 0; i < a.nr; i++) {
        CHECK_LE_U(a.b[i].pages_min * a.b[i].events, a.b[i].pages_sum);
        CHECK_LE_U(a.b[i].pages_sum, a.b[i].pages_max * a.b[i].events);
        if (a.b[i].pages_max > pages_max)
            pages_max = a.b[i].pages_max;
    }
    free(a.b);
    {
        struct overview check;
        uint64_t most = 0;

        overview_init(&check);
        for (seq = 0; seq < 130000; seq++) {
            feed(&check, seq, seq + 1);
            if (seq >= a.from && check.pages > most)
                most = check.pages;
        }
        CHECK_EQ_U(pages_max, most);
        overview_release(&check);
    }
    CHECK_EQ_I(overview_query(&ov, 0, 10, 0, &a), -EINVAL);
    overview_release(&ov);
}

static bool same_answer(const struct overview *x, const struct overview *y, unsigned buckets)
{
    struct overview_answer a, b;
    bool same;

    if (overview_query(x, 0, UINT64_MAX, buckets, &a) ||
        overview_query(y, 0, UINT64_MAX, buckets, &b))
        return false;
    same = a.nr == b.nr && a.width == b.width && a.from == b.from && a.to == b.to &&
           !memcmp(a.b, b.b, a.nr * sizeof(*a.b));
    free(a.b);
    free(b.b);
    return same;
}

static void test_truncate(void)
{
    struct overview ov, ref;
    struct overview_mark m;

    /* back to a mark in the same geometry: as if the events never came */
    overview_init(&ov);
    overview_init(&ref);
    feed(&ov, 0, 1001);
    feed(&ref, 0, 1001);
    overview_mark(&ov, &m);
    feed(&ov, 1001, 2500);
    overview_truncate(&ov, &m);
    CHECK_EQ_U(ov.nr_events, 1001);
    check_levels(&ov);
    CHECK(same_answer(&ov, &ref, 4096));
    CHECK(same_answer(&ov, &ref, 7));
    /* and on from there as the reference does */
    feed(&ov, 1001, 3000);
    feed(&ref, 1001, 3000);
    CHECK(same_answer(&ov, &ref, 4096));
    /* back across a coarsening: the levels still add up, and coarse answers agree */
    overview_mark(&ov, &m);
    feed(&ov, 3000, 70000);
    CHECK_GT_U(ov.base, m.base);
    overview_truncate(&ov, &m);
    CHECK_EQ_U(ov.nr_events, 3000);
    check_levels(&ov);
    CHECK(same_answer(&ov, &ref, 3));
    overview_release(&ov);
    overview_release(&ref);
}

static void test_save_load(void)
{
    struct overview ov, back;
    unsigned char *data = NULL;
    size_t len = 0;

    overview_init(&ov);
    overview_init(&back);
    feed(&ov, 0, 50000);
    CHECK_EQ_I(overview_save(&ov, &data, &len), 0);
    CHECK_GT_U(len, 0);
    CHECK_EQ_I(overview_load(&back, data, len), 0);
    CHECK_EQ_U(back.nr_events, ov.nr_events);
    CHECK_EQ_U(back.base, ov.base);
    CHECK(same_answer(&ov, &back, 4096));
    CHECK(same_answer(&ov, &back, 10));
    /* it goes on from where it was */
    feed(&ov, 50000, 60000);
    feed(&back, 50000, 60000);
    CHECK(same_answer(&ov, &back, 4096));
    overview_release(&back);
    /* a cut or damaged form is refused, and leaves an empty overview */
    overview_init(&back);
    CHECK_EQ_I(overview_load(&back, data, len - 1), -EINVAL);
    CHECK_EQ_U(back.nr_events, 0);
    data[0] ^= 1;
    CHECK_EQ_I(overview_load(&back, data, len), -EINVAL);
    free(data);
    overview_release(&back);
    overview_release(&ov);
}

int main(void)
{
    RUN_TEST(test_totals);
    RUN_TEST(test_truncate);
    RUN_TEST(test_save_load);
    return check_done();
}
