/*
 * test_compare.c: the comparison table's cells and rows (present/compare.c)
 * and the names a typo is answered with (base/hint.c).  A change is never
 * printed as 0 (19,192 -> 19,200 is +0.04%), "-" means one thing (a kernel
 * lacks the counter), a zero baseline reads "new"; rows 0 in both runs and
 * counters neither kernel has are left out and counted; across models the
 * counters that count other paths carry a note; an unknown variant or
 * counter lists the valid names and offers the nearest.
 */
#include <stdio.h>
#include <string.h>

#include "base/hint.h"
#include "check.h"
#include "present/compare.h"

static void test_change_digits(void)
{
    char buf[48];

    CHECK(compare_change(19192, 19200, buf, sizeof(buf)));
    CHECK_EQ_STR(buf, "+0.04");
    CHECK(compare_change(1000000, 1000001, buf, sizeof(buf)));
    CHECK_EQ_STR(buf, "+0.0001");
    CHECK(compare_change(766, 48, buf, sizeof(buf)));
    CHECK_EQ_STR(buf, "-93.7");
    CHECK(compare_change(60, 60, buf, sizeof(buf)));
    CHECK_EQ_STR(buf, "0");
    CHECK(!compare_change(0, 1260, buf, sizeof(buf)));
}

/* Two sides of one model (sheaves) or of two (@legacy: the baseline legacy). */
static void sides(struct compare_side side[2], bool legacy)
{
    memset(side, 0, 2 * sizeof(*side));
    side[0].cfg.model = legacy ? SIM_MODEL_LEGACY : SIM_MODEL_SHEAVES;
    side[1].cfg.model = SIM_MODEL_SHEAVES;
}

static void test_cells_and_rows(void)
{
    struct compare_side side[2];
    struct strbuf out = STRBUF_INIT;
    char buf[48];
    size_t zero, absent;

    sides(side, false);
    side[0].v[SIM_ALLOC_FASTPATH] = 0;
    side[1].v[SIM_ALLOC_FASTPATH] = 1260;
    side[0].v[SIM_BARN_GET_FAIL] = 118;
    side[1].v[SIM_BARN_GET_FAIL] = 118;
    compare_change_text(side, SIM_ALLOC_FASTPATH, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "new");
    compare_change_text(side, SIM_BARN_GET_FAIL, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "0%");
    CHECK_EQ_I(compare_row_kind(side, SIM_ALLOC_FASTPATH), COMPARE_SHOWN);
    CHECK_EQ_I(compare_row_kind(side, SIM_SHEAF_FLUSH), COMPARE_ZERO);
    /* a sheaves kernel writes no free_frozen file: left out, not printed as 0 */
    CHECK_EQ_I(compare_row_kind(side, SIM_FREE_FROZEN), COMPARE_ABSENT);
    compare_left_out(side, &zero, &absent);
    CHECK_EQ_U(zero + absent + 2, COMPARE_ROWS);
    CHECK(absent > 0);
    CHECK(compare_row_note(side, SIM_ALLOC_FASTPATH) == NULL);
    CHECK(compare_write_table(&out, side, "metric"));
    CHECK(strstr(strbuf_str(&out), "metric                           baseline        patched"
                                   "        delta    change\n") != NULL);
    CHECK(strstr(strbuf_str(&out), "\nalloc_fastpath                          0           1260"
                                   "        +1260       new\n") != NULL);
    CHECK(strstr(strbuf_str(&out), "\nfree_frozen") == NULL);
    CHECK(strstr(strbuf_str(&out), "\nsheaf_flush") == NULL);
    strbuf_release(&out);

    /* across models: n/a beside the other's count, "-" for its change, a note */
    sides(side, true);
    side[0].v[SIM_FREE_FROZEN] = 16;
    side[0].v[SIM_ALLOC_FASTPATH] = 766;
    side[1].v[SIM_ALLOC_FASTPATH] = 48;
    compare_change_text(side, SIM_FREE_FROZEN, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "-");
    CHECK_EQ_STR(compare_value_text(side, 1, SIM_FREE_FROZEN, buf, sizeof(buf)), "n/a");
    CHECK(compare_row_note(side, SIM_ALLOC_FASTPATH) != NULL);
    CHECK(compare_write_table(&out, side, ""));
    CHECK(strstr(strbuf_str(&out), "-93.7% [1]\n") != NULL);
    CHECK(strstr(strbuf_str(&out), "\n[1] alloc_fastpath counts ") != NULL);
    strbuf_release(&out);
}

/* Does @s start with @prefix? */
static bool starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static void test_hints(void)
{
    struct strbuf why = STRBUF_INIT;

    CHECK_EQ_I(hint_lookup("barn_refill", sim_variant_name, SIM_NR_VARIANTS),
               hint_lookup("BARN_REFILL", sim_variant_name, SIM_NR_VARIANTS));
    CHECK(hint_lookup("BARN_REFILL", sim_variant_name, SIM_NR_VARIANTS) >= 0);
    CHECK_EQ_I(hint_lookup("BARN_REFIL", sim_variant_name, SIM_NR_VARIANTS), -1);
    CHECK(hint_append(&why, "BARN_REFIL", sim_variant_name, SIM_NR_VARIANTS, "variants"));
    CHECK(starts(strbuf_str(&why), ": did you mean \"BARN_REFILL\"? The variants are: "
                                   "DEFERRED_FREELIST, BARN_REFILL,"));
    strbuf_reset(&why);
    CHECK(hint_append(&why, "alloc_fastpth", sim_stat_name, SIM_NR_STATS, "counters"));
    CHECK(starts(strbuf_str(&why), ": did you mean \"alloc_fastpath\"? The counters are: "
                                   "alloc_fastpath, alloc_slowpath,"));
    strbuf_reset(&why);
    /* nothing near: the list only */
    CHECK(hint_append(&why, "XYZZY", sim_variant_name, SIM_NR_VARIANTS, "variants"));
    CHECK(starts(strbuf_str(&why), ". The variants are: DEFERRED_FREELIST,"));
    strbuf_release(&why);
}

int main(void)
{
    RUN_TEST(test_change_digits);
    RUN_TEST(test_cells_and_rows);
    RUN_TEST(test_hints);
    return check_done();
}
