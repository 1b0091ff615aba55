/*
 * test_config.c: the table of releases (engine/config.c) and the variant it
 * added for 7.0, REFILL_NONBLOCKING (engine/pcs.c, __pcs_replace_empty_main):
 * kernel versions to releases on both sides of every boundary, the list,
 * model conflicts and overrides, and GFP_ATOMIC / GFP_KERNEL / a gfp with no
 * reclaim bit on an empty main sheaf, before and after.
 */
#include "simtest.h"

static void test_kernel_lookup(void)
{
    CHECK_EQ_U(sim_kernel_lookup("6.12", false), SIM_RELEASE_6_12);
    CHECK_EQ_U(sim_kernel_lookup("6.12.57", false), SIM_RELEASE_6_12);
    CHECK_EQ_U(sim_kernel_lookup("7.0", false), SIM_RELEASE_7_0);
    CHECK_EQ_U(sim_kernel_lookup("7.1.3", false), SIM_RELEASE_7_1);
    CHECK_EQ_U(sim_kernel_lookup("6.8", false), SIM_RELEASE_6_8);
    /* no row of its own: refused when asked for, the release below from a trace */
    CHECK_EQ_U(sim_kernel_lookup("6.13", false), SIM_RELEASE_NONE);
    CHECK_EQ_U(sim_kernel_lookup("6.13", true), SIM_RELEASE_6_12);
    CHECK_EQ_U(sim_kernel_lookup("6.11.9", true), SIM_RELEASE_6_8);
    CHECK_EQ_U(sim_kernel_lookup("6.7", true), SIM_RELEASE_6_1);
    CHECK_EQ_U(sim_kernel_lookup("6.0", true), SIM_RELEASE_NONE); /* older than every row */
    CHECK_EQ_U(sim_kernel_lookup("8.0", true), SIM_RELEASE_7_3);
    CHECK_EQ_U(sim_kernel_lookup("7.3.4", true), SIM_RELEASE_7_3);
    /* uname -r suffixes only from a trace */
    CHECK_EQ_U(sim_kernel_lookup("6.18.44-fc-v782", true), SIM_RELEASE_6_18);
    CHECK_EQ_U(sim_kernel_lookup("6.12.57+deb13-amd64", true), SIM_RELEASE_6_12);
    CHECK_EQ_U(sim_kernel_lookup("6.18.44-fc-v782", false), SIM_RELEASE_NONE);
    /* not versions */
    CHECK_EQ_U(sim_kernel_lookup("7", true), SIM_RELEASE_NONE);
    CHECK_EQ_U(sim_kernel_lookup("7.", true), SIM_RELEASE_NONE);
    CHECK_EQ_U(sim_kernel_lookup("6.12.", true), SIM_RELEASE_NONE);
    CHECK_EQ_U(sim_kernel_lookup("6.12.1.2", false), SIM_RELEASE_NONE);
    CHECK_EQ_U(sim_kernel_lookup("x6.12", true), SIM_RELEASE_NONE);
    CHECK_EQ_U(sim_kernel_lookup("6.1234", true), SIM_RELEASE_NONE);
    CHECK_EQ_U(sim_kernel_lookup("", true), SIM_RELEASE_NONE);
    CHECK_EQ_U(sim_release_newest(), SIM_RELEASE_7_3);
}

static void test_release_list_and_conflicts(void)
{
    struct sim_config cfg;
    char buf[128], small[8];

    sim_release_list(buf, sizeof(buf));
    CHECK(strcmp(buf, "6.1, 6.8, 6.12, 6.18, 6.19, 7.0, 7.1, 7.2, 7.3") == 0);
    CHECK(sim_release_list(small, sizeof(small)) == strlen(small)); /* cut, terminated */

    sim_config_default(&cfg);
    CHECK(sim_model_parse("legacy", &cfg) == 0);
    CHECK(sim_release_model_conflict(SIM_RELEASE_7_2, &cfg) != NULL);
    CHECK(sim_release_model_conflict(SIM_RELEASE_6_12, &cfg) == NULL);
    CHECK(sim_model_parse("legacy:ERA_DELAYED_FREEZE", &cfg) == 0);
    CHECK(sim_release_model_conflict(SIM_RELEASE_6_12, &cfg) != NULL);
    CHECK(sim_release_model_conflict(SIM_RELEASE_6_8, &cfg) == NULL);
    CHECK(sim_model_parse("7.2", &cfg) == 0);
    CHECK(sim_release_model_conflict(SIM_RELEASE_7_3, &cfg) != NULL);
    CHECK(sim_release_model_conflict(SIM_RELEASE_7_2, &cfg) == NULL);

    /* overrides: only variants that differ from the row and matter in its model */
    sim_config_default(&cfg);
    CHECK(sim_release_apply(SIM_RELEASE_7_2, &cfg) == 0);
    CHECK_EQ_U(sim_release_overrides(SIM_RELEASE_7_2, &cfg, buf, sizeof(buf)), 0);
    CHECK(buf[0] == 0);
    cfg.variant[SIM_VAR_BARN_REFILL] = SIM_AFTER;
    cfg.variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] = SIM_BEFORE; /* not in the sheaves model */
    CHECK_EQ_U(sim_release_overrides(SIM_RELEASE_7_2, &cfg, buf, sizeof(buf)), 1);
    CHECK(strcmp(buf, "BARN_REFILL=after") == 0);
    cfg.variant[SIM_VAR_REFILL_NONBLOCKING] = SIM_BEFORE;
    CHECK_EQ_U(sim_release_overrides(SIM_RELEASE_7_2, &cfg, buf, sizeof(buf)), 2);
    CHECK(strcmp(buf, "BARN_REFILL=after,REFILL_NONBLOCKING=before") == 0);

    /* the rows of the new releases */
    CHECK(sim_release_apply(SIM_RELEASE_6_8, &cfg) == 0);
    CHECK_EQ_U(cfg.model, SIM_MODEL_LEGACY);
    CHECK_EQ_U(sim_legacy_era(&cfg), SIM_ERA_DELAYED_FREEZE);
    CHECK(sim_model_error(&cfg) == NULL);
    CHECK(sim_release_apply(SIM_RELEASE_7_0, &cfg) == 0);
    CHECK_EQ_U(cfg.model, SIM_MODEL_SHEAVES);
    CHECK_EQ_U(cfg.variant[SIM_VAR_REFILL_NONBLOCKING], SIM_AFTER);
    CHECK_EQ_U(cfg.variant[SIM_VAR_DEFERRED_FREELIST], SIM_BEFORE);
    CHECK(sim_release_apply(SIM_RELEASE_6_19, &cfg) == 0);
    CHECK_EQ_U(cfg.variant[SIM_VAR_REFILL_NONBLOCKING], SIM_BEFORE);
    CHECK(strcmp(sim_variant_name(SIM_VAR_REFILL_NONBLOCKING), "REFILL_NONBLOCKING") == 0);
    CHECK(sim_variant_in_model(SIM_VAR_REFILL_NONBLOCKING, SIM_MODEL_SHEAVES));
    CHECK(!sim_variant_in_model(SIM_VAR_REFILL_NONBLOCKING, SIM_MODEL_LEGACY));
    /* 7.2.13's gfp_to_alloc_flags() still copies the two bits across; 7.3's
     * alloc_flags_slowpath() tests each */
    CHECK(sim_release_apply(SIM_RELEASE_7_2, &cfg) == 0);
    CHECK_EQ_U(cfg.variant[SIM_VAR_GFP_TRANSLATE], SIM_BEFORE);
    CHECK_EQ_U(cfg.variant[SIM_VAR_DEFERRED_FREELIST], SIM_AFTER);
    CHECK_EQ_U(cfg.variant[SIM_VAR_REFILL_RETURN], SIM_AFTER);
    CHECK(sim_release_apply(SIM_RELEASE_7_3, &cfg) == 0);
    CHECK_EQ_U(cfg.variant[SIM_VAR_GFP_TRANSLATE], SIM_AFTER);
}

/* One allocation with @gfp on a new cache (empty main sheaf); its counters. */
static void gate_case(uint8_t variant, uint32_t gfp, uint64_t want_refill, uint64_t want_slow)
{
    struct sim_config cfg;
    struct sim_op op = {.kind = SIM_OP_ALLOC, .cpu = 0, .node = SIM_NUMA_NO_NODE, .gfp = gfp};
    struct sim_result res;
    struct tsim t;
    int a;

    sim_config_default(&cfg);
    cfg.variant[SIM_VAR_REFILL_NONBLOCKING] = variant;
    tsim_init(&t, &cfg);
    a = tsim_create(&t, "A", 256, 0, 0);
    op.cache = a;
    CHECK(tsim_apply(&t, &op, &res) == 0 && res.status == SIM_OK && res.addr != 0);
    CHECK_EQ_U(tsim_stat(&t, a, "sheaf_refill") > 0, want_refill);
    CHECK_EQ_U(tsim_stat(&t, a, "alloc_slowpath"), want_slow);
    CHECK_EQ_U(tsim_stat(&t, a, "barn_get_fail"), 1);
    CHECK_EQ_U(t.violations, 0);
    tsim_fini(&t);
}

static void test_refill_nonblocking(void)
{
    /* after (7.0 on): GFP_ATOMIC and GFP_NOWAIT may spin, so they refill */
    gate_case(SIM_AFTER, SIM_GFP_ATOMIC, 1, 0);
    gate_case(SIM_AFTER, SIM_GFP_NOWAIT, 1, 0);
    gate_case(SIM_AFTER, SIM_GFP_KERNEL, 1, 0);
    gate_case(SIM_AFTER, SIM_GFP_NOWARN, 0, 1); /* no reclaim bit: may not spin */
    /* before (6.18, 6.19): only a gfp that may block refills */
    gate_case(SIM_BEFORE, SIM_GFP_ATOMIC, 0, 1);
    gate_case(SIM_BEFORE, SIM_GFP_NOWAIT, 0, 1);
    gate_case(SIM_BEFORE, SIM_GFP_KERNEL, 1, 0);
    gate_case(SIM_BEFORE, SIM_GFP_DIRECT_RECLAIM, 1, 0);
}

int main(void)
{
    RUN_TEST(test_kernel_lookup);
    RUN_TEST(test_release_list_and_conflicts);
    RUN_TEST(test_refill_nonblocking);
    return check_done();
}
