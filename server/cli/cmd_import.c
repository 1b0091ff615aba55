/*
 * cmd_import.c: `slublab import`, a real machine's caches as a scenario.
 *
 * From a /sys/kernel/slab tree (sysfs_slab.c) every cache keeps the
 * kernel's name, object_size, align, flags, ctor and sheaf_capacity; a
 * merged cache becomes one engine cache whose other names are its
 * "aliases" (merging itself is not modelled), and its name is chosen as
 * sysfs_slab_read() documents.  From /proc/slabinfo only the name,
 * object size, objects per slab and pages per slab are known: the
 * alignment is inferred (the smallest that gives the kernel's objects per
 * slab and order), and what the file lacks is listed in the scenario's
 * description and on stderr.  The plain kmalloc-N classes are the
 * engine's own (created by the first kmalloc of their size, with the
 * kernel's geometry), so they are not written as caches; --populate
 * allocates their objects with kmalloc.
 *
 * --populate adds the current object counts as allocations on CPU 0 (a
 * repeat per cache), so the scenario starts where the machine was.
 */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfiles/slabinfo_read.h"
#include "kfiles/sysfs_slab.h"
#include "scenario/scenario_write.h"

#define IMPORT_MAX_LINE 1024

struct import_cache {
    struct sim_cache_args args;
    const char *const *aliases; /* sysfs only; owned by the tree */
    size_t nr_aliases;
    unsigned long objects; /* allocated now */
    bool has_objects;
    unsigned kmalloc_size; /* an engine kmalloc class: its size; else 0 */
    unsigned slab_bytes;   /* bytes per slab, for the memory estimate */
    unsigned long slabs;
};

struct import_args {
    const char *sysfs, *slabinfo, *out; /* out NULL: stdout */
    bool populate;
    struct cli_u64 cpus;
};

static const struct cli_opt import_opts[] = {
        {CLI_TO(struct import_args, sysfs), .name = "sysfs", .arg = "DIR", .one_of = 1,
         .required = true,
         .help = "a /sys/kernel/slab tree (the live one, a copy, or a .tar/.tar.gz of one)"},
        {CLI_TO(struct import_args, slabinfo), .name = "slabinfo", .arg = "FILE", .one_of = 1,
         .required = true,
         .help = "a /proc/slabinfo (version 2.1); it lacks the alignment, flags, constructors, "
                 "aliases and sheaf capacity, which are inferred or left at their defaults (the "
                 "scenario's description says which)"},
        {CLI_TO(struct import_args, populate), .name = "populate",
         .help = "allocate the objects in use now (sysfs objects, slabinfo active_objs), so the "
                 "scenario starts where the machine was"},
        {CLI_TO(struct import_args, cpus), .name = "cpus", .arg = "N", .min = 1,
         .max = SIM_MAX_CPUS,
         .help = "CPUs of the machine (default: the tree's .nproc, or this machine's for the live "
                 "tree and for --slabinfo)"},
        {CLI_TO(struct import_args, out), .short_name = 'o', .arg = "FILE",
         .help = "write there (default: standard output)"},
        {0},
};

/* The engine's kmalloc class of a plain kmalloc-N name, else 0. */
static unsigned kmalloc_class(const char *n)
{
    static const unsigned sizes[] = {8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192};
    char buf[32];

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        if (sizes[i] >= 1024)
            snprintf(buf, sizeof(buf), "kmalloc-%uk", sizes[i] / 1024);
        else
            snprintf(buf, sizeof(buf), "kmalloc-%u", sizes[i]);
        if (!strcmp(n, buf))
            return sizes[i];
    }
    return 0;
}

static unsigned host_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);

    return n > 0 ? (unsigned)n : 1;
}

/*
 * One line of /proc/slabinfo 2.1:
 *   name active_objs num_objs objsize objperslab pagesperslab : tunables l b s
 *   : slabdata active_slabs num_slabs sharedavail
 */
static bool parse_slabinfo_line(const char *line, struct import_cache *c, unsigned *objs,
                                unsigned *pages)
{
    struct slabinfo_line l;

    if (!slabinfo_parse_line(line, &l) || l.objsize > SCENARIO_MAX_SIZE)
        return false;
    memset(c, 0, sizeof(*c));
    snprintf(c->args.name, sizeof(c->args.name), "%s", l.name);
    c->args.object_size = l.objsize;
    c->objects = l.active_objs;
    c->has_objects = true;
    c->slabs = l.num_slabs;
    c->slab_bytes = l.pagesperslab * SIM_PAGE_SIZE;
    *objs = l.objperslab;
    *pages = l.pagesperslab;
    return true;
}

static int read_slabinfo(const char *path, unsigned cpus, struct import_cache **out, size_t *nr,
                         unsigned *unmatched)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    char line[IMPORT_MAX_LINE];
    struct import_cache *c;
    size_t n = 0, lineno = 0;

    if (!f)
        return cli_usage_error("import", "cannot open %s: %s", path, strerror(errno));
    c = calloc(SYSFS_MAX_CACHES, sizeof(*c));
    if (!c) {
        fclose(f);
        return cli_usage_error("import", "out of memory");
    }
    while (fgets(line, sizeof(line), f)) {
        unsigned objs, pages;

        lineno++;
        if (lineno == 1) {
            if (strncmp(line, "slabinfo - version: 2.1", 23)) {
                fclose(f);
                free(c);
                return cli_usage_error("import", "%s: not a /proc/slabinfo version 2.1 file", path);
            }
            continue;
        }
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (n == SYSFS_MAX_CACHES || !parse_slabinfo_line(line, &c[n], &objs, &pages)) {
            fclose(f);
            free(c);
            return cli_usage_error("import", "%s: line %zu is not a slabinfo line", path, lineno);
        }
        c[n].kmalloc_size = kmalloc_class(c[n].args.name);
        if (sysfs_is_kmalloc_name(c[n].args.name))
            c[n].args.flags |= SIM_SLAB_KMALLOC;
        if (!c[n].kmalloc_size &&
            !slabinfo_infer_align(&c[n].args, cpus, objs, slabinfo_order(pages)))
            (*unmatched)++;
        n++;
    }
    if (f != stdin)
        fclose(f);
    *out = c;
    *nr = n;
    return CLI_OK;
}

static int from_sysfs(const struct sysfs_tree *t, struct import_cache **out, size_t *nr)
{
    struct import_cache *c = calloc(t->nr ? t->nr : 1, sizeof(*c));

    if (!c)
        return cli_usage_error("import", "out of memory");
    for (size_t i = 0; i < t->nr; i++) {
        const struct sysfs_cache *s = &t->caches[i];

        c[i].args = s->args;
        c[i].args.sheaf_capacity = s->sheaf_capacity;
        if (s->kmalloc)
            c[i].args.flags |= SIM_SLAB_KMALLOC;
        c[i].aliases = (const char *const *)s->aliases;
        c[i].nr_aliases = s->nr_aliases;
        c[i].objects = s->objects;
        c[i].has_objects = s->has_counts;
        c[i].slabs = s->slabs;
        c[i].slab_bytes = SIM_PAGE_SIZE << s->kernel[SYSFS_ORDER];
        c[i].kmalloc_size = s->dir[0] == ':' ? 0 : kmalloc_class(s->name);
    }
    *out = c;
    *nr = t->nr;
    return CLI_OK;
}

/* The era a kernel release X.Y belongs to (0 when @kernel names none). */
static enum sysfs_era era_of_release(const char *kernel, char *release, size_t len)
{
    unsigned major, minor;

    if (sscanf(kernel, "%u.%u", &major, &minor) != 2)
        return SYSFS_ERA_UNKNOWN;
    snprintf(release, len, "%u.%u", major, minor);
    if (major < 6 || (major == 6 && minor < 18))
        return SYSFS_ERA_LEGACY;
    return major == 6 ? SYSFS_ERA_HYBRID : SYSFS_ERA_SHEAVES;
}

/*
 * The model the scenario runs, from the era the files tell: the release of
 * .kernel (uname -r) when the lab models it and it belongs to that era, else
 * the era's model ("6.18" for the hybrid era).  Says which, and why, on
 * stderr and in @desc.
 */
static const char *import_model(const struct sysfs_tree *t, struct strbuf *desc, char *buf,
                                size_t len)
{
    static const char *const what[] = {
            [SYSFS_ERA_UNKNOWN] = "no era: the files disagree, so the default model",
            [SYSFS_ERA_LEGACY] = "the legacy era (per-CPU slabs, before 6.18)",
            [SYSFS_ERA_HYBRID] = ("the hybrid era of 6.18 and 6.19 (per-CPU slabs; sheaves only "
                                  "on caches with a sheaf_capacity)"),
            [SYSFS_ERA_SHEAVES] = "the sheaves era (7.0 on: sheaves for every cache)",
    };
    struct strbuf why = STRBUF_INIT, on = STRBUF_INIT;
    enum sysfs_era era = sysfs_slab_era(t, &why);
    char release[16] = "";
    const char *model;
    size_t shown = 0, nonzero = 0;

    if (t->kernel[0] && era_of_release(t->kernel, release, sizeof(release)) == era &&
        sim_release_lookup(release) != SIM_RELEASE_NONE)
        model = release;
    else
        model = era == SYSFS_ERA_LEGACY ? "legacy" : era == SYSFS_ERA_HYBRID ? "6.18" : "sheaves";
    snprintf(buf, len, "%s", model);
    for (size_t i = 0; i < t->nr; i++)
        if (t->caches[i].sheaf_capacity && ++nonzero <= 6)
            strbuf_printf(&on, "%s%s %u", shown++ ? ", " : "", t->caches[i].name,
                          t->caches[i].sheaf_capacity);
    if (nonzero > shown)
        strbuf_printf(&on, " and %zu more", nonzero - shown);
    fprintf(stderr, "slublab import: %s: %s; model %s%s%s%s\n", what[era], strbuf_str(&why), buf,
            t->kernel[0] && strcmp(release, buf) ? " (.kernel: " : "",
            t->kernel[0] && strcmp(release, buf) ? t->kernel : "",
            t->kernel[0] && strcmp(release, buf) ? ")" : "");
    if (era == SYSFS_ERA_HYBRID)
        fprintf(stderr, "slublab import: sheaves on %s\n", nonzero ? strbuf_str(&on) : "no cache");
    strbuf_printf(desc, "  The files (%s) tell %s, so the model is %s.", strbuf_str(&why),
                  what[era], buf);
    strbuf_release(&why);
    strbuf_release(&on);
    return buf;
}

/* {"op": "repeat", "times": n, "ops": [one]} */
static cJSON *repeat(unsigned long n, cJSON *one)
{
    cJSON *r = cJSON_CreateObject(), *ops;

    if (!r || !one) {
        cJSON_Delete(r);
        cJSON_Delete(one);
        return NULL;
    }
    cJSON_AddStringToObject(r, "op", "repeat");
    cJSON_AddNumberToObject(r, "times", (double)n);
    ops = cJSON_AddArrayToObject(r, "ops");
    cJSON_AddItemToArray(ops, one);
    return r;
}

/* @n scaled down by @room / @want when the objects to allocate (@want)
 * pass what a scenario may run (@room). */
static unsigned long scale_objects(unsigned long n, uint64_t want, uint64_t room)
{
    return want > room ? (unsigned long)((double)n * (double)room / (double)want) : n;
}

/* One allocation from @c, as the populating repeat does it. */
static cJSON *populate_alloc(const struct import_cache *c)
{
    cJSON *op = cJSON_CreateObject();

    if (!op)
        return NULL;
    cJSON_AddStringToObject(op, "op", c->kmalloc_size ? "kmalloc" : "alloc");
    cJSON_AddNumberToObject(op, "cpu", 0);
    if (c->kmalloc_size)
        cJSON_AddNumberToObject(op, "size", c->kmalloc_size);
    else
        cJSON_AddStringToObject(op, "cache", c->args.name);
    return op;
}

/*
 * Add to @ops the allocations of @n objects of @c.  A repeat runs at most
 * SCENARIO_MAX_TIMES times, and a busy machine's dentry cache alone can
 * hold more: past that, a repeat of repeats, then the rest.
 */
static void populate_ops(cJSON *ops, const struct import_cache *c, unsigned long n)
{
    unsigned long whole = n / SCENARIO_MAX_TIMES, rest = n % SCENARIO_MAX_TIMES;

    if (whole)
        cJSON_AddItemToArray(ops, repeat(whole, repeat(SCENARIO_MAX_TIMES, populate_alloc(c))));
    if (rest)
        cJSON_AddItemToArray(ops, repeat(rest, populate_alloc(c)));
}

/* A machine like the scenario's, to try each cache on.  0 or -errno. */
static int check_machine(const struct scenario_write_machine *m, struct sim **out)
{
    struct sim_config cfg;

    sim_config_default(&cfg);
    cfg.nr_cpus = m->cpus;
    cfg.present_cpus = m->present_cpus;
    return sim_create(&cfg, out);
}

/*
 * Create @a on @sim, as the scenario will.  A kmalloc cache's alignment
 * is the engine's to derive (natural, as the kernel's): sysfs shows 8192
 * for dma-kmalloc-8k, more than an explicit alignment may be, so it is
 * dropped when the engine derives the same geometry without it.  False
 * with the engine's words in @why when it refuses.
 */
static bool creatable(struct sim *sim, struct sim_cache_args *a, char *why, size_t len)
{
    struct sim_op op;
    struct sim_result res;

    if ((a->flags & SIM_SLAB_KMALLOC) && a->align) {
        struct sim_cache_args b = *a;
        struct sim_geometry ga, gb;
        unsigned cpus = sim_get_config(sim)->present_cpus;

        b.align = 0;
        if (!sim_cache_geometry(&b, cpus, &gb) &&
            (sim_cache_geometry(a, cpus, &ga) ||
             (ga.size == gb.size && ga.align == gb.align && ga.order == gb.order)))
            a->align = 0;
    }
    memset(&op, 0, sizeof(op));
    op.kind = SIM_OP_CREATE;
    op.node = SIM_NUMA_NO_NODE;
    op.create = *a;
    if (sim_apply(sim, &op, &res) || res.status != SIM_OK) {
        snprintf(why, len, "%.200s", res.message);
        return false;
    }
    return true;
}

static int import_main(int argc, char **argv)
{
    struct import_args args = {0};
    const char *sysfs, *slabinfo, *out;
    bool populate;
    struct sysfs_tree tree;
    struct strbuf err = STRBUF_INIT, desc = STRBUF_INIT;
    struct import_cache *c = NULL;
    size_t nr = 0, written = 0, aliases = 0, skipped = 0, classes = 0;
    unsigned cpus, unmatched = 0;
    char model[32];
    uint64_t mem = 0, want = 0, room = SCENARIO_MAX_STEPS; /* objects to allocate, and at most */
    struct scenario_write_machine m;
    cJSON *scn = NULL, *caches, *ops = NULL;
    struct sim *sim = NULL;
    int status = CLI_OK;

    memset(&tree, 0, sizeof(tree));
    if (!cli_parse(&cmd_import, argc, argv, &args, &status))
        return status;
    if (!args.sysfs == !args.slabinfo)
        return cli_usage_error("import", "give one of --sysfs DIR and --slabinfo FILE");
    sysfs = args.sysfs;
    slabinfo = args.slabinfo;
    out = args.out ? args.out : "-";
    populate = args.populate;
    cpus = (unsigned)args.cpus.value; /* 0 when not given: from the input */
    if (sysfs) {
        if (sysfs_slab_read(sysfs, &tree, &err)) {
            status = cli_usage_error("import", "%s", strbuf_str(&err));
            goto out;
        }
        if (!cpus)
            cpus = tree.nproc ? tree.nproc : host_cpus();
        if (cpus > SIM_MAX_CPUS)
            cpus = SIM_MAX_CPUS;
        status = from_sysfs(&tree, &c, &nr);
        strbuf_printf(&desc, "The caches of %s%s%s, imported from %s by `slublab import`.",
                      tree.kernel[0] ? "Linux " : "a Linux machine", tree.kernel, "",
                      tree.live ? "/sys/kernel/slab" : "a /sys/kernel/slab tree");
        if (populate && nr && !c[0].has_objects) {
            status = cli_usage_error("import",
                                     "--populate: %s has no object counts "
                                     "(objects files)",
                                     sysfs);
            goto out;
        }
    } else {
        if (!cpus)
            cpus = host_cpus() < SIM_MAX_CPUS ? host_cpus() : SIM_MAX_CPUS;
        status = read_slabinfo(slabinfo, cpus, &c, &nr, &unmatched);
        strbuf_printf(&desc,
                      "The caches of a Linux machine, imported from /proc/slabinfo by `slublab "
                      "import`.  /proc/slabinfo does not show the alignment (inferred: the "
                      "smallest that gives the kernel's objects per slab and order; %u caches "
                      "had none), the SLAB_* flags (hwcache_align, reclaim_account, "
                      "destroy_by_rcu, cache_dma: all left off), constructors, the aliases of "
                      "merged caches (each is listed under one name), the sheaf capacity and "
                      "the CPU count (%u assumed).",
                      unmatched, cpus);
    }
    if (status)
        goto out;
    m = (struct scenario_write_machine){.cpus = cpus, .present_cpus = cpus, .nodes = 1, .seed = 1};
    if (sysfs)
        m.model = import_model(&tree, &desc, model, sizeof(model));
    for (size_t i = 0; i < nr; i++)
        if (populate && c[i].has_objects) {
            mem += (uint64_t)c[i].slab_bytes * (c[i].slabs + 1);
            want += c[i].objects;
        }
    if (want > room)
        fprintf(stderr,
                "slublab import: the machine holds %" PRIu64 " objects, more than a scenario's "
                "%u operations: each cache is populated with its share of %u\n",
                want, SCENARIO_MAX_STEPS, SCENARIO_MAX_STEPS);
    mem = (mem * 2 >> 20) + 64;
    m.mem_mb = (unsigned)((mem + 3) / 4 * 4);
    if (m.mem_mb > SCENARIO_MAX_MEM_MB)
        m.mem_mb = SCENARIO_MAX_MEM_MB;
    scn = scenario_write_new(tree.kernel[0] ? "kernel-caches" : "imported-caches",
                             "A real kernel's caches", strbuf_str(&desc), &m);
    caches = scn ? cJSON_AddArrayToObject(scn, "caches") : NULL;
    if (populate && scn)
        ops = cJSON_AddArrayToObject(scn, "ops");
    if (!caches || (populate && !ops)) {
        status = cli_usage_error("import", "out of memory");
        goto out;
    }
    if (check_machine(&m, &sim)) {
        status = cli_usage_error("import", "the engine refused a %u-CPU machine", cpus);
        goto out;
    }
    for (size_t i = 0; i < nr; i++) {
        char why[256];

        if (c[i].kmalloc_size) {
            classes++;
        } else if (!scenario_write_name_ok(c[i].args.name)) {
            fprintf(stderr,
                    "slublab import: %s left out: a scenario name has 1 to %u "
                    "characters, without spaces, quotes, backslashes, brackets or braces\n",
                    c[i].args.name, SCENARIO_MAX_NAME);
            skipped++;
            continue;
        } else if (!creatable(sim, &c[i].args, why, sizeof(why))) {
            fprintf(stderr, "slublab import: %s left out: %s\n", c[i].args.name, why);
            skipped++;
            continue;
        } else {
            cJSON_AddItemToArray(
                    caches, scenario_write_cache(&c[i].args, c[i].aliases, c[i].nr_aliases, false));
            written++;
            aliases +=
                    c[i].nr_aliases < SCENARIO_MAX_ALIASES ? c[i].nr_aliases : SCENARIO_MAX_ALIASES;
        }
        if (populate && c[i].has_objects && c[i].objects)
            populate_ops(ops, &c[i], scale_objects(c[i].objects, want, room));
    }
    if (scenario_write_file(scn, out, &err)) {
        status = cli_usage_error("import", "%s", strbuf_str(&err));
        goto out;
    }
    fprintf(stderr,
            "slublab import: %zu caches with %zu aliases, %zu kmalloc classes left to the engine"
            "%s%zu left out\n",
            written, aliases, classes, populate ? ", populated, " : ", ", skipped);
    if (slabinfo)
        fprintf(stderr,
                "slublab import: /proc/slabinfo lacks the alignment (inferred; %u "
                "caches matched none), flags, constructors, aliases, sheaf capacity and CPU "
                "count (%u assumed)\n",
                unmatched, cpus);
out:
    sim_destroy(sim);
    cJSON_Delete(scn);
    free(c);
    sysfs_slab_release(&tree);
    strbuf_release(&err);
    strbuf_release(&desc);
    return status;
}

const struct cli_command cmd_import = {
        .name = "import",
        .groups = {{import_opts, 0}},
        .run = import_main,
};
