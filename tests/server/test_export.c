/*
 * test_export.c: the export builders on hand-made snapshots: the
 * unique-id names of merged caches, the sysfs tree's naming rules (aliases,
 * clashes, '/' and "."), /proc/slabinfo's columns and order, and the ustar
 * headers (checksums, links, long paths).  The round trips through the
 * real tools are in tests/cli/export*.sh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kfiles/kfiles.h"
#include "scenario/names.h"

/* A snapshot of @n caches, all alive, no slabs; caller frees caches. */
static void snap_init(struct sim_snapshot *snap, struct sim_snap_cache *caches, size_t n)
{
    memset(snap, 0, sizeof(*snap));
    memset(caches, 0, n * sizeof(*caches));
    snap->nr_cpus = 2;
    snap->nr_nodes = 1;
    snap->caches = caches;
    snap->nr_caches = n;
    for (size_t i = 0; i < n; i++) {
        caches[i].id = (int)i;
        caches[i].alive = true;
        caches[i].object_size = caches[i].size = 64;
        caches[i].objects_per_slab = 64;
        snprintf(caches[i].name, sizeof(caches[i].name), "c%zu", i);
    }
}

static void test_unique_id(void)
{
    struct sim_snap_cache c = {0};
    char id[64];

    c.size = 192;
    sysfs_unique_id(&c, id, sizeof(id));
    CHECK_EQ_STR(id, ":0000192");
    c.flags = SIM_SLAB_RECLAIM_ACCOUNT;
    sysfs_unique_id(&c, id, sizeof(id));
    CHECK_EQ_STR(id, ":a-0000192");
    c.flags = SIM_SLAB_CACHE_DMA | SIM_SLAB_RECLAIM_ACCOUNT | SIM_SLAB_CONSISTENCY_CHECKS |
              SIM_SLAB_POISON; /* poison is not one of create_unique_id()'s letters */
    c.size = 4096;
    sysfs_unique_id(&c, id, sizeof(id));
    CHECK_EQ_STR(id, ":daF-0004096");
}

static void test_tree_names(void)
{
    struct sim_snap_cache caches[5];
    struct sim_snapshot snap;
    struct names al = NAMES_INIT;
    struct sysfs_tree t;
    const struct sysfs_entry *e;

    snap_init(&snap, caches, 5);
    strcpy(caches[1].name, "a/b");  /* no aliases: a directory of its name, '/' as '!' */
    strcpy(caches[2].name, "m1");   /* aliases, size 64: the :0000064 directory */
    strcpy(caches[3].name, "m2");   /* aliases, also size 64: keeps its own name */
    strcpy(caches[4].name, "dead"); /* destroyed: neither it nor its alias appear */
    caches[4].alive = false;
    CHECK_EQ_I(names_set(&al, "m1-alias", 0, 2, 0), 0);
    CHECK_EQ_I(names_set(&al, "m2-alias", 0, 3, 0), 0);
    CHECK_EQ_I(names_set(&al, "dead-alias", 0, 4, 0), 0);
    if (!CHECK_EQ_I(sysfs_tree_build(&t, &snap, &al), 0))
        goto out;
    CHECK((e = sysfs_tree_find(&t, "c0")) && e->kind == SYSFS_DIR);
    CHECK((e = sysfs_tree_find(&t, "a!b")) && e->kind == SYSFS_DIR);
    CHECK((e = sysfs_tree_find(&t, ":0000064")) && e->kind == SYSFS_DIR);
    CHECK((e = sysfs_tree_find(&t, "m1")) && e->kind == SYSFS_LINK && !strcmp(e->data, ":0000064"));
    CHECK((e = sysfs_tree_find(&t, "m1-alias")) && e->kind == SYSFS_LINK &&
          !strcmp(e->data, ":0000064"));
    CHECK((e = sysfs_tree_find(&t, "m2")) && e->kind == SYSFS_DIR);
    CHECK((e = sysfs_tree_find(&t, "m2-alias")) && e->kind == SYSFS_LINK && !strcmp(e->data, "m2"));
    CHECK(!sysfs_tree_find(&t, "dead"));
    CHECK(!sysfs_tree_find(&t, "dead-alias"));
    CHECK((e = sysfs_tree_find(&t, ":0000064/aliases")) && !strcmp(e->data, "1\n"));
    CHECK((e = sysfs_tree_find(&t, "c0/aliases")) && !strcmp(e->data, "0\n"));
    CHECK((e = sysfs_tree_find(&t, "c0/slabs")) && !strcmp(e->data, "0\n"));
    CHECK((e = sysfs_tree_find(&t, "c0/alloc_fastpath")) && !strcmp(e->data, "0\n"));
    CHECK(!sysfs_tree_find(&t, "c0/engine_freeptr_reads"));
    CHECK(!sysfs_tree_find(&t, "c0/ctor"));
    /* directories come before their files, links after every directory */
    for (size_t i = 0; i < t.nr; i++)
        if (t.e[i].kind == SYSFS_LINK)
            for (size_t j = i + 1; j < t.nr; j++)
                CHECK(t.e[j].kind == SYSFS_LINK);
    sysfs_tree_release(&t);
    strcpy(caches[0].name, "..");
    CHECK_EQ_I(sysfs_tree_build(&t, &snap, &al), -EINVAL);
    CHECK_EQ_U(t.nr, 0);
out:
    names_release(&al);
}

static void test_stat_files(void)
{
    struct sim_snap_cache caches[1];
    struct sim_snapshot snap;
    struct sysfs_tree t;
    const struct sysfs_entry *e;

    snap_init(&snap, caches, 1);
    snap.nr_cpus = 3;
    caches[0].cpu_stats[0].v[SIM_ALLOC_FASTPATH] = 5;
    caches[0].cpu_stats[2].v[SIM_ALLOC_FASTPATH] = 7;
    if (!CHECK_EQ_I(sysfs_tree_build(&t, &snap, NULL), 0))
        return;
    /* show_stat(): the total, then only the CPUs that counted */
    CHECK((e = sysfs_tree_find(&t, "c0/alloc_fastpath")) && !strcmp(e->data, "12 C0=5 C2=7\n"));
    sysfs_tree_release(&t);
}

static void test_slabinfo(void)
{
    struct sim_snap_cache caches[3];
    struct sim_snapshot snap;
    struct strbuf sb = STRBUF_INIT;
    const char *text, *l1, *l2;

    snap_init(&snap, caches, 3);
    strcpy(caches[0].name, "a_rather_long_cache_name");
    caches[0].total_objects = 128;
    caches[0].objects = 120;
    caches[0].slabs = 2;
    caches[0].order = 1;
    caches[2].alive = false;
    if (!CHECK(slabinfo_text(&sb, &snap)))
        return;
    text = strbuf_str(&sb);
    CHECK(!strncmp(text, "slabinfo - version: 2.1\n# name            <active_objs> <num_objs> ",
                   66));
    /* newest first; the destroyed cache left out */
    l1 = strstr(text, "\nc1 ");
    l2 = strstr(text, "\na_rather_long_cache_name ");
    CHECK(l1 && l2 && l1 < l2);
    CHECK(!strstr(text, "\nc2 "));
    CHECK(strstr(text,
                 "\na_rather_long_cache_name    120    128     64   64    2 : tunables    0    "
                 "0    0 : slabdata      2      2      0\n") != NULL);
    CHECK(strstr(text, "\nc1                     0      0     64   64    1 : tunables") != NULL);
    strbuf_release(&sb);
}

static unsigned octal(const char *f, size_t n)
{
    unsigned v = 0;

    for (size_t i = 0; i < n && f[i] >= '0' && f[i] <= '7'; i++)
        v = v * 8 + (unsigned)(f[i] - '0');
    return v;
}

static void test_tar(void)
{
    struct sim_snap_cache caches[1];
    struct sim_snapshot snap;
    struct names al = NAMES_INIT;
    struct sysfs_tree t;
    struct strbuf sb = STRBUF_INIT;
    const char *tar;
    size_t off = 0, entries = 0, links = 0;

    snap_init(&snap, caches, 1);
    /* a name of 47 characters: "slab/<name>/objects_partial" still fits ustar */
    memset(caches[0].name, 'n', 47);
    caches[0].name[47] = '\0';
    CHECK_EQ_I(names_set(&al, "x", 0, 0, 0), 0);
    if (!CHECK_EQ_I(sysfs_tree_build(&t, &snap, &al), 0))
        goto out;
    if (!CHECK(tar_tree(&sb, &t, "slab")))
        goto out_tree;
    tar = strbuf_str(&sb);
    CHECK_EQ_U(sb.len % 512, 0);
    while (off + 512 <= sb.len && tar[off]) {
        const char *h = tar + off;
        unsigned sum = 0, size = octal(h + 124, 11);

        for (size_t i = 0; i < 512; i++)
            sum += (i >= 148 && i < 156) ? ' ' : (unsigned char)h[i];
        CHECK_EQ_U(octal(h + 148, 6), sum);
        CHECK(!memcmp(h + 257, "ustar", 6));
        CHECK(!strncmp(h, "slab/", 5) || !strncmp(h + 345, "slab", 4));
        if (h[156] == '2') {
            links++;
            CHECK(!strcmp(h + 157, ":0000064"));
        }
        entries++;
        off += 512 + (size + 511) / 512 * 512;
    }
    CHECK_EQ_U(entries, t.nr + 1);  /* the root directory, then every entry */
    CHECK_EQ_U(links, 2);           /* the cache's own name and its alias */
    CHECK_EQ_U(sb.len, off + 1024); /* two zero blocks end it */
out_tree:
    sysfs_tree_release(&t);
out:
    strbuf_release(&sb);
    names_release(&al);
}

/* The per-CPU slab files on a hand-made legacy machine: 3 CPUs, 2 nodes. */
static void test_cpu_files(void)
{
    struct sim_snap_cache caches[2];
    struct sim_snap_slab slabs[5];
    struct sim_snapshot snap;
    struct strbuf sb = STRBUF_INIT;

    snap_init(&snap, caches, 2);
    snap.nr_cpus = 3;
    snap.nr_nodes = 2;
    snap.model = SIM_MODEL_LEGACY;
    memset(slabs, 0, sizeof(slabs));
    snap.slabs = slabs;
    snap.nr_slabs = 5;
    caches[0].has_cpu_slab = true;
    caches[0].objects_per_slab = 21; /* odd: the estimate rounds down */
    caches[0].cpu_partial = 52;
    /* CPU 0: cpu slab 0x1000 (node 1), partial list of 2 headed by 0x3000 (node 0) */
    slabs[0] = (struct sim_snap_slab){
            .addr = 0x1000, .node = 1, .place = {.type = SIM_PL_CPU_SLAB, .cpu = 0}};
    slabs[1] = (struct sim_snap_slab){
            .addr = 0x3000, .node = 0, .place = {.type = SIM_PL_CPU_PARTIAL, .cpu = 0, .slot = 0}};
    slabs[2] = (struct sim_snap_slab){
            .addr = 0x4000, .node = 1, .place = {.type = SIM_PL_CPU_PARTIAL, .cpu = 0, .slot = 1}};
    caches[0].cpu_slab[0] = (struct sim_snap_cpu_slab){.slab = 0x1000, .nr_partial = 2};
    /* CPU 2: a partial list of 1 and no cpu slab: cpu_slabs skips the CPU */
    slabs[3] = (struct sim_snap_slab){
            .addr = 0x5000, .node = 1, .place = {.type = SIM_PL_CPU_PARTIAL, .cpu = 2, .slot = 0}};
    caches[0].cpu_slab[2] = (struct sim_snap_cpu_slab){.nr_partial = 1};
    /* the second cache's slab at 0x1000 must not be taken for the first's */
    slabs[4] = (struct sim_snap_slab){
            .addr = 0x1000, .cache = 1, .node = 0, .place = {.type = SIM_PL_CPU_SLAB, .cpu = 0}};

    sysfs_cpu_slabs(&sb, &snap, &caches[0]);
    CHECK_EQ_STR(strbuf_str(&sb), "3 N0=2 N1=1\n");
    strbuf_reset(&sb);
    sysfs_slabs_cpu_partial(&sb, &snap, &caches[0]);
    CHECK_EQ_STR(strbuf_str(&sb), "31(3) C0=21(2) C2=10(1)\n");
    strbuf_reset(&sb);
    sysfs_cpu_partial(&sb, &snap, &caches[0]);
    CHECK_EQ_STR(strbuf_str(&sb), "52\n");
    strbuf_reset(&sb);
    /* a cache without cpu slabs (a debug cache) */
    sysfs_cpu_slabs(&sb, &snap, &caches[1]);
    sysfs_cpu_partial(&sb, &snap, &caches[1]);
    sysfs_slabs_cpu_partial(&sb, &snap, &caches[1]);
    CHECK_EQ_STR(strbuf_str(&sb), "0\n0\n0(0)\n");
    strbuf_reset(&sb);
    /* the sheaves model: the kernel without cpu slabs prints constants */
    snap.model = SIM_MODEL_SHEAVES;
    sysfs_cpu_slabs(&sb, &snap, &caches[0]);
    sysfs_cpu_partial(&sb, &snap, &caches[0]);
    sysfs_slabs_cpu_partial(&sb, &snap, &caches[0]);
    CHECK_EQ_STR(strbuf_str(&sb), "0\n0\n0(0)\n");
    strbuf_release(&sb);
}

int main(void)
{
    RUN_TEST(test_unique_id);
    RUN_TEST(test_tree_names);
    RUN_TEST(test_stat_files);
    RUN_TEST(test_slabinfo);
    RUN_TEST(test_cpu_files);
    RUN_TEST(test_tar);
    return check_done();
}
