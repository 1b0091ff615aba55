/*
 * test_stat_lists.c: the counters the engine reports for a release against
 * the counters that release shows in /sys/kernel/slab/<cache>/.
 *
 * Each release's list (tests/counters/RELEASE.txt, made from its
 * `enum stat_item` and STAT_ATTR lines by tests/counters/capture.py) is read
 * here.  The engine's list for a release is every item that release's model
 * reports (sim_release_apply(), then sim_stat_in_model()), less the lab's
 * own engine_* counters.  Every engine counter must be in the release's list,
 * and the release's counters the engine lacks must be exactly the ones
 * tests/counters/exclusions.txt names for it, each with a reason.
 *
 * Checked: 6.1, 6.12, 7.2 and 7.3, whose lists come from their sources, and
 * 6.18 (the hybrid model), whose list was read from the sheaves series
 * (tests/counters/6.18.txt).
 */
#include "check.h"
#include "slub.h"

#define MAX_ITEMS 64

struct list {
    size_t n;
    char name[MAX_ITEMS][40];
};

static bool in_list(const struct list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->name[i], name))
            return true;
    return false;
}

/* tests/counters/@release.txt: "# release R" first, then names ('#' lines
 * skipped); false when it cannot be read or names another release. */
static bool load_release(const char *release, struct list *l)
{
    char path[80], line[160], rel[16];
    FILE *f;
    bool ok;

    memset(l, 0, sizeof(*l));
    snprintf(path, sizeof(path), "tests/counters/%s.txt", release);
    if (!(f = fopen(path, "r")))
        return false;
    ok = fgets(line, sizeof(line), f) && sscanf(line, "# release %15s", rel) == 1 &&
         !strcmp(rel, release);
    while (ok && fgets(line, sizeof(line), f)) {
        if (line[0] == '#')
            continue;
        if (l->n == MAX_ITEMS || sscanf(line, "%39s", l->name[l->n]) != 1)
            ok = false;
        else
            l->n++;
    }
    fclose(f);
    return ok && l->n > 0;
}

/* The counters exclusions.txt names for @release; false on a line without
 * a reason. */
static bool load_exclusions(const char *release, struct list *l)
{
    char line[400], rel[16], name[40];
    FILE *f = fopen("tests/counters/exclusions.txt", "r");
    bool ok = f != NULL;
    int reason;

    memset(l, 0, sizeof(*l));
    while (ok && fgets(line, sizeof(line), f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        reason = 0;
        if (sscanf(line, "%15s %39s %n", rel, name, &reason) != 2 || !reason || !line[reason] ||
            line[reason] == '\n')
            ok = false;
        else if (!strcmp(rel, release) && l->n < MAX_ITEMS)
            snprintf(l->name[l->n++], sizeof(l->name[0]), "%s", name);
    }
    if (f)
        fclose(f);
    return ok;
}

static void check_release(const char *release)
{
    static struct list kernel, excluded;
    struct sim_config cfg;
    size_t engine = 0;

    printf("  release %s\n", release);
    if (!CHECK(load_release(release, &kernel)) || !CHECK(load_exclusions(release, &excluded)))
        return;
    sim_config_default(&cfg);
    if (!CHECK_OK(sim_release_apply(sim_release_lookup(release), &cfg)))
        return;
    for (unsigned i = 0; i < SIM_NR_STATS; i++) {
        const char *name = sim_stat_name(i);

        if (!sim_stat_in_model(i, cfg.model) || sim_stat_is_engine_only(i))
            continue;
        engine++;
        if (!CHECK(in_list(&kernel, name)))
            printf("    %s: the engine reports %s, which %s does not have\n", release, name,
                   release);
        if (!CHECK(!in_list(&excluded, name)))
            printf("    %s: %s is reported, yet listed in exclusions.txt\n", release, name);
    }
    for (size_t k = 0; k < kernel.n; k++)
        if (!in_list(&excluded, kernel.name[k]) && sim_stat_lookup(kernel.name[k]) < 0) {
            CHECK(false);
            printf("    %s: %s is neither an engine counter nor in exclusions.txt\n", release,
                   kernel.name[k]);
        } else if (!in_list(&excluded, kernel.name[k]) &&
                   !sim_stat_in_model((unsigned)sim_stat_lookup(kernel.name[k]), cfg.model)) {
            CHECK(false);
            printf("    %s: %s is not in the model of %s nor in exclusions.txt\n", release,
                   kernel.name[k], release);
        }
    for (size_t x = 0; x < excluded.n; x++)
        if (!CHECK(in_list(&kernel, excluded.name[x])))
            printf("    %s: exclusions.txt names %s, which %s does not have\n", release,
                   excluded.name[x], release);
    CHECK_EQ_U(engine + excluded.n, kernel.n);
}

static void test_release_lists(void)
{
    static const char *const releases[] = {"6.1", "6.12", "6.18", "7.2", "7.3"};

    for (size_t i = 0; i < sizeof(releases) / sizeof(releases[0]); i++)
        check_release(releases[i]);
}

/* The 6.18 list, read rather than captured, holds the names its sysfs shows. */
static void test_lists_readable(void)
{
    static struct list l;

    CHECK(load_release("6.18", &l));
    CHECK_EQ_U(l.n, 43);
    CHECK(in_list(&l, "alloc_cpu_sheaf"));
    CHECK(in_list(&l, "free_cpu_sheaf"));
    CHECK(in_list(&l, "cpu_partial_drain"));
    CHECK(!load_release("5.4", &l));
}

int main(void)
{
    RUN_TEST(test_release_lists);
    RUN_TEST(test_lists_readable);
    return check_done();
}
