/*
 * test_gfp_layout.c: every gfp name each release prints, against the lists
 * captured from those kernels (the .txt files of tests/gfp/, made by tests/gfp/capture.py).
 *
 * For each fixture: the engine's layout of that release and config walks the
 * same names in the same order with the same values; every name parses to its
 * value and its value prints back as that kernel's __print_flags() would
 * print it (the first entry whose bits are all set, computed here from the
 * fixture's own list, so a name shadowed by an earlier alias prints as the
 * alias, as in the kernel), and parses back to the value.  Then the names
 * carry over to the engine's mask, and the engine's own parser takes every
 * name of every list.
 */
#include "check.h"
#include "slub.h"

#include <errno.h>
#include <stdlib.h>

#define MAX_NAMES 64

struct fixture {
    const char *file;
    char release[16];
    unsigned config;
    size_t n;
    char name[MAX_NAMES][40];
    uint32_t bits[MAX_NAMES];
};

static const char *const files[] = {
        "tests/gfp/6.1.txt",        "tests/gfp/6.1-debug.txt", "tests/gfp/6.12.txt",
        "tests/gfp/6.12-debug.txt", "tests/gfp/6.18.txt",      "tests/gfp/7.2.txt",
        "tests/gfp/7.2-debug.txt",  "tests/gfp/7.3.txt",       "tests/gfp/7.3-debug.txt"};

/* Reads "# release R config K=v ..." and "NAME 0xVALUE" lines; false on any
 * line it cannot read. */
static bool load(const char *file, struct fixture *fx)
{
    FILE *f = fopen(file, "r");
    char line[256], cfg[3][32];
    bool ok = true;

    memset(fx, 0, sizeof(*fx));
    fx->file = file;
    if (!f)
        return false;
    if (!fgets(line, sizeof(line), f) || sscanf(line, "# release %15s config %31s %31s %31s",
                                                fx->release, cfg[0], cfg[1], cfg[2]) != 4)
        ok = false;
    for (int i = 0; ok && i < 3; i++) {
        if (!strcmp(cfg[i], "KASAN_HW_TAGS=y"))
            fx->config |= SIM_GFP_CFG_KASAN_HW_TAGS;
        else if (!strcmp(cfg[i], "LOCKDEP=y"))
            fx->config |= SIM_GFP_CFG_LOCKDEP;
        else if (!strcmp(cfg[i], "SLAB_OBJ_EXT=y"))
            fx->config |= SIM_GFP_CFG_SLAB_OBJ_EXT;
        else if (!strstr(cfg[i], "=n"))
            ok = false;
    }
    while (ok && fgets(line, sizeof(line), f)) {
        unsigned v;

        if (fx->n == MAX_NAMES || sscanf(line, "%39s 0x%x", fx->name[fx->n], &v) != 2)
            ok = false;
        else
            fx->bits[fx->n++] = v;
    }
    fclose(f);
    return ok && fx->n > 0;
}

/* What the kernel prints for @v with the fixture's list (trace_print_flags_seq). */
static void kernel_print(const struct fixture *fx, uint32_t v, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = 0;
    for (size_t i = 0; i < fx->n && v; i++) {
        if (!fx->bits[i] || (v & fx->bits[i]) != fx->bits[i])
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", fx->name[i]);
        v &= ~fx->bits[i];
    }
    if (v)
        snprintf(buf + n, len - n, "%s0x%x", n ? "|" : "", v);
}

static void check_fixture(const struct fixture *fx)
{
    struct sim_gfp_layout l;
    char buf[512], want[512];
    uint32_t bits, engine, unknown;

    printf("  %s: release %s config 0x%x, %zu names\n", fx->file, fx->release, fx->config, fx->n);
    if (!CHECK_OK(sim_gfp_layout_of(fx->release, fx->config, &l)))
        return;
    CHECK_EQ_U(sim_gfp_layout_nr_names(&l), fx->n);
    for (size_t i = 0; i < fx->n; i++) {
        const char *name = sim_gfp_layout_name(&l, i, &bits);

        if (!CHECK(name != NULL))
            break;
        CHECK_EQ_STR(name, fx->name[i]);
        CHECK_EQ_U(bits, fx->bits[i]);
        /* name -> bits -> name -> bits */
        if (!CHECK_OK(sim_gfp_layout_parse(&l, fx->name[i], &bits)))
            continue;
        CHECK_EQ_U(bits, fx->bits[i]);
        sim_gfp_layout_format(&l, bits, buf, sizeof(buf));
        kernel_print(fx, bits, want, sizeof(want));
        CHECK_EQ_STR(buf, want);
        CHECK_OK(sim_gfp_layout_parse(&l, buf, &bits));
        CHECK_EQ_U(bits, fx->bits[i]);
        /* and into the engine's mask, nothing left unnamed; the engine's own
         * parser takes the name, with the same bits for a single flag (a
         * composite is the engine's kernel's: GFP_NOWAIT gained __GFP_NOWARN) */
        engine = sim_gfp_layout_to_engine(&l, fx->bits[i], &unknown);
        CHECK_EQ_U(unknown, 0);
        CHECK_OK(sim_gfp_parse(fx->name[i], &bits));
        if (!strncmp(fx->name[i], "__GFP_", 6))
            CHECK_EQ_U(bits, engine);
    }
    /* all bits at once, and a leftover hex token, as the kernel prints them */
    bits = 0;
    for (size_t i = 0; i < fx->n; i++)
        bits |= fx->bits[i];
    sim_gfp_layout_format(&l, bits | 0x40000000u, buf, sizeof(buf));
    kernel_print(fx, bits | 0x40000000u, want, sizeof(want));
    CHECK_EQ_STR(buf, want);
    CHECK(strstr(buf, "0x40000000") != NULL);
    CHECK_OK(sim_gfp_layout_parse(&l, buf, &engine));
    CHECK_EQ_U(engine, bits | 0x40000000u);
    sim_gfp_layout_to_engine(&l, engine, &unknown);
    CHECK_EQ_U(unknown, 0x40000000u);
}

static void test_fixtures(void)
{
    static struct fixture fx;

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        if (!CHECK(load(files[i], &fx))) {
            printf("  cannot read %s (run from the source tree)\n", files[i]);
            continue;
        }
        check_fixture(&fx);
    }
}

/* Where the releases differ, the values follow the kernel of each. */
static void test_moved_bits(void)
{
    struct sim_gfp_layout l;
    uint32_t v;

    CHECK_OK(sim_gfp_layout_of("6.1", SIM_GFP_CFG_DEFAULT, &l));
    CHECK_OK(sim_gfp_layout_parse(&l, "GFP_ATOMIC", &v));
    CHECK_EQ_U(v, 0xa20); /* __GFP_ATOMIC, bit 9, until 6.3 */
    CHECK_EQ_U(sim_gfp_layout_to_engine(&l, v, NULL), SIM_GFP_ATOMIC);
    CHECK_OK(sim_gfp_layout_parse(&l, "GFP_NOWAIT", &v));
    CHECK_EQ_U(v, 0x800); /* no __GFP_NOWARN yet */
    CHECK_OK(sim_gfp_layout_of("6.12", SIM_GFP_CFG_LOCKDEP | SIM_GFP_CFG_SLAB_OBJ_EXT, &l));
    /* the enum: LOCKDEP=y takes bit 24, __GFP_NO_OBJ_EXT (unnamed in 6.12) moves to 25 */
    CHECK_EQ_U(sim_gfp_layout_to_engine(&l, 0x2000000, NULL), SIM_GFP_NO_OBJ_EXT);
    CHECK_EQ_U(sim_gfp_layout_to_engine(&l, 0x1000000, NULL), 0);
    CHECK_EQ_I(sim_gfp_layout_parse(&l, "__GFP_NO_OBJ_EXT", &v), -EINVAL);
    CHECK_OK(sim_gfp_layout_of("6.18", SIM_GFP_CFG_LOCKDEP | SIM_GFP_CFG_SLAB_OBJ_EXT, &l));
    CHECK_OK(sim_gfp_layout_parse(&l, "__GFP_NOLOCKDEP|__GFP_NO_OBJ_EXT", &v));
    CHECK_EQ_U(v, 0x3000000);
    CHECK_OK(sim_gfp_layout_of("7.3", SIM_GFP_CFG_DEFAULT, &l));
    CHECK_EQ_I(sim_gfp_layout_parse(&l, "__GFP_NO_OBJ_EXT", &v), -EINVAL);
    CHECK_EQ_I(sim_gfp_layout_of("5.15", 0, &l), -EINVAL);
    CHECK_EQ_I(sim_gfp_layout_of("7.3", 0x8, &l), -EINVAL);
}

/* The engine's parser: the names of the trace, and names the
 * engine's kernel defines as 0. */
static void test_engine_names(void)
{
    uint32_t v;
    char buf[200];

    CHECK_OK(sim_gfp_parse("GFP_NOFS|__GFP_ZERO|__GFP_NOFAIL|__GFP_HARDWALL|__GFP_ACCOUNT", &v));
    CHECK_EQ_U(v, 0x508d40);
    sim_gfp_format(SIM_GFP_HARDWALL, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "__GFP_HARDWALL");
    CHECK_OK(sim_gfp_parse("GFP_KERNEL|__GFP_NOLOCKDEP", &v));
    CHECK_EQ_U(v, SIM_GFP_KERNEL);
    CHECK_OK(sim_gfp_parse("GFP_KERNEL|0x1000000", &v));
    CHECK_EQ_U(v, SIM_GFP_KERNEL | SIM_GFP_NO_OBJ_EXT);
    CHECK_EQ_I(sim_gfp_parse("GFP_KERNEL|0x", &v), -EINVAL);
    CHECK_EQ_I(sim_gfp_parse("GFP_KERNEL|0xzz", &v), -EINVAL);
    CHECK_EQ_I(sim_gfp_parse("GFP_KERNEL|__GFP_FUTURE", &v), -EINVAL);
}

int main(void)
{
    RUN_TEST(test_fixtures);
    RUN_TEST(test_moved_bits);
    RUN_TEST(test_engine_names);
    return check_done();
}
