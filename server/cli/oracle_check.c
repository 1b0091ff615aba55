/*
 * oracle_check.c: the engine judged by real kernels (see oracle.h).
 *
 * A fixture is a program (programs/<id>.json, a scenario) and what a kernel
 * printed running it (programs/<id>.out), both members of the release's
 * archive tests/oracle/<release>/programs.tar.gz (kfiles/tar_read.h; one
 * file in the repository per recording): a header (kernel, topology), then
 * for each run and each mark, every file of /sys/kernel/slab/<cache>/ as
 * "<file> <first line>".  The engine runs the same program with the
 * release's model (sim_release_apply()) on the topology's machine; at each
 * mark the replay's mark hook builds kfiles' sysfs tree from a snapshot,
 * the same tree `slublab export --sysfs` writes, and keeps each file's
 * first line.  Both sides become runs of records (mark index, mark, cache,
 * file, value).  Beside the files, "slab_errors" is the count of SLUB's
 * reports so far (the engine's per cache; the kernel's counted from its log
 * by tests/oracle/driver/record.py, in recordings since the driver had the
 * debugging operations).
 *
 * The comparison, file by file at each mark of each cache the kernel
 * printed: when every kernel run printed the same line, the engine's line
 * must be the same (the per-CPU "C<n>=" and per-node "N<n>=" parts
 * included); when the runs differ (a flush's work spread over CPUs, a
 * race), only the totals, the first word, are compared, and when even the
 * totals differ the engine's must lie between the kernel's smallest and
 * largest.  Files listed in tests/oracle/not-compared.txt are skipped, with
 * their reason there; a difference is forgiven only when
 * tests/oracle/known-differences.txt covers that kernel, program and file
 * (an entry that covers nothing any more is itself an error, so the list
 * cannot go stale).  Each kernel ends with one summary line.
 */
#include "cli/oracle.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kfiles/kfiles.h"
#include "kfiles/tar_read.h"
#include "scenario/outcomes.h"
#include "scenario/replay.h"

/* ---- records ------------------------------------------------------------ */

struct orec {
    unsigned mark_idx; /* 0, 1, ...: the order marks ran in */
    char *mark, *cache, *file, *value;
};

struct orun {
    struct orec *r;
    size_t nr, cap;
};

static void orun_release(struct orun *run)
{
    for (size_t i = 0; i < run->nr; i++) {
        free(run->r[i].mark);
        free(run->r[i].cache);
        free(run->r[i].file);
        free(run->r[i].value);
    }
    free(run->r);
    memset(run, 0, sizeof(*run));
}

static int orun_add(struct orun *run, unsigned mark_idx, const char *mark, const char *cache,
                    const char *file, const char *value, size_t value_len)
{
    struct orec *e;

    if (run->nr == run->cap) {
        size_t cap = run->cap ? run->cap * 2 : 256;
        struct orec *n = realloc(run->r, cap * sizeof(*n));

        if (!n)
            return -ENOMEM;
        run->r = n;
        run->cap = cap;
    }
    e = &run->r[run->nr];
    e->mark_idx = mark_idx;
    e->mark = strdup(mark);
    e->cache = strdup(cache);
    e->file = strdup(file);
    e->value = strndup(value, value_len);
    if (!e->mark || !e->cache || !e->file || !e->value) {
        free(e->mark);
        free(e->cache);
        free(e->file);
        free(e->value);
        return -ENOMEM;
    }
    run->nr++;
    return 0;
}

static int orec_cmp(const void *a, const void *b)
{
    const struct orec *x = a, *y = b;
    int c;

    if (x->mark_idx != y->mark_idx)
        return x->mark_idx < y->mark_idx ? -1 : 1;
    if ((c = strcmp(x->cache, y->cache)))
        return c;
    return strcmp(x->file, y->file);
}

static const struct orec *orun_find(const struct orun *run, const struct orec *key)
{
    return bsearch(key, run->r, run->nr, sizeof(*run->r), orec_cmp);
}

/* Copy @src into @dst of @size bytes: 0, or -E2BIG (nothing copied) when it does not fit. */
static int copy_field(char *dst, size_t size, const char *src)
{
    size_t len = strlen(src);

    if (len >= size)
        return -E2BIG;
    memcpy(dst, src, len + 1);
    return 0;
}

/* ---- the kernel's .out -------------------------------------------------- */

#define OUT_MAX_RUNS 16

struct oout {
    char kernel[128];
    bool has_topology;
    unsigned cpus, nodes, cpu_node[SIM_MAX_CPUS];
    struct orun runs[OUT_MAX_RUNS];
    unsigned nr_runs;
};

static void oout_release(struct oout *o)
{
    for (unsigned i = 0; i < o->nr_runs; i++)
        orun_release(&o->runs[i]);
    memset(o, 0, sizeof(*o));
}

/* "cpus=4 nodes=1 cpu_node=0,0,0,0" */
static int parse_topology(struct oout *o, const char *s)
{
    unsigned n = 0;
    const char *p;
    char *end;

    if (sscanf(s, "cpus=%u nodes=%u", &o->cpus, &o->nodes) != 2 || !o->cpus ||
        o->cpus > SIM_MAX_CPUS || !o->nodes || o->nodes > SIM_MAX_NODES)
        return -EINVAL;
    if (!(p = strstr(s, "cpu_node="))) {
        for (n = 0; n < o->cpus; n++)
            o->cpu_node[n] = n * o->nodes / o->cpus;
    } else {
        for (p += strlen("cpu_node="); n < o->cpus; n++) {
            unsigned long v = strtoul(p, &end, 10);

            if (end == p || v >= o->nodes)
                return -EINVAL;
            o->cpu_node[n] = (unsigned)v;
            p = end;
            if (*p == ',')
                p++;
            else
                break;
        }
        if (n + 1 != o->cpus)
            return -EINVAL;
    }
    o->has_topology = true;
    return 0;
}

static int oout_fail(struct strbuf *err, const char *path, unsigned line, const char *what)
{
    strbuf_printf(err, "%s:%u: %s", path, line, what);
    return -EINVAL;
}

/* Parse the @len bytes of @text, the .out named @path in messages, into @o. */
static int oracle_read_out(const char *path, char *text, size_t len_text, struct oout *o,
                           struct strbuf *err)
{
    FILE *f = len_text ? fmemopen(text, len_text, "r") : NULL;
    char *line = NULL, mark[256] = "", cache[256] = "";
    size_t cap = 0;
    ssize_t len;
    unsigned lineno = 0, mark_idx = 0;
    bool in_mark = false;
    int ret = 0;

    memset(o, 0, sizeof(*o));
    if (!len_text)
        return oout_fail(err, path, 0, "empty");
    if (!f) {
        strbuf_printf(err, "%s: %s", path, strerror(errno));
        return -ENOMEM;
    }
    while (!ret && (len = getline(&line, &cap, f)) >= 0) {
        char *sp;

        lineno++;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (lineno == 1) {
            if (strcmp(line, "# slublab-oracle 1"))
                ret = oout_fail(err, path, lineno, "not \"# slublab-oracle 1\"");
            continue;
        }
        if (!len || line[0] == '#')
            continue;
        sp = strchr(line, ' ');
        if (!strncmp(line, "kernel ", 7)) {
            if (copy_field(o->kernel, sizeof(o->kernel), line + 7))
                ret = oout_fail(err, path, lineno, "a kernel line too long");
        } else if (!strncmp(line, "topology ", 9)) {
            if (parse_topology(o, line + 9))
                ret = oout_fail(err, path, lineno, "a topology line oracle check cannot read");
        } else if (!strncmp(line, "run ", 4)) {
            if (o->nr_runs == OUT_MAX_RUNS)
                ret = oout_fail(err, path, lineno, "more runs than oracle check keeps");
            o->nr_runs++;
            mark_idx = 0;
            in_mark = false;
        } else if (!strncmp(line, "mark ", 5)) {
            if (!o->nr_runs)
                ret = oout_fail(err, path, lineno, "a mark before any run");
            if (in_mark)
                mark_idx++;
            in_mark = true;
            if (copy_field(mark, sizeof(mark), line + 5))
                ret = oout_fail(err, path, lineno, "a mark name too long");
            cache[0] = '\0';
        } else if (!strncmp(line, "cache ", 6)) {
            if (!in_mark)
                ret = oout_fail(err, path, lineno, "a cache outside a mark");
            if (copy_field(cache, sizeof(cache), line + 6))
                ret = oout_fail(err, path, lineno, "a cache name too long");
        } else if (sp && cache[0]) {
            *sp = '\0';
            ret = orun_add(&o->runs[o->nr_runs - 1], mark_idx, mark, cache, line, sp + 1,
                           strlen(sp + 1));
        } else if (cache[0]) { /* a file that printed nothing */
            ret = orun_add(&o->runs[o->nr_runs - 1], mark_idx, mark, cache, line, "", 0);
        } else {
            ret = oout_fail(err, path, lineno, "a line oracle check cannot place");
        }
    }
    free(line);
    fclose(f);
    if (!ret && !o->has_topology)
        ret = oout_fail(err, path, lineno, "no topology line");
    if (!ret && !o->nr_runs)
        ret = oout_fail(err, path, lineno, "no run");
    for (unsigned i = 0; i < o->nr_runs; i++)
        qsort(o->runs[i].r, o->runs[i].nr, sizeof(struct orec), orec_cmp);
    return ret;
}

/* ---- the engine's runs ------------------------------------------------- */

struct engine_capture {
    struct orun *run;
    unsigned mark_idx;
    int err;
};

static int engine_mark(struct replay *rp, const char *mark, void *arg)
{
    struct engine_capture *cap = arg;
    struct sim_snapshot *snap = NULL;
    struct sysfs_tree tree;
    int err;

    if ((err = sim_snapshot(rp->sim, &snap)))
        return err;
    if ((err = sysfs_tree_build(&tree, snap, &rp->aliases))) {
        sim_snapshot_release(snap);
        return err;
    }
    for (size_t i = 0; i < tree.nr && !err; i++) {
        const struct sysfs_entry *e = &tree.e[i];
        const char *slash = strchr(e->path, '/');
        char cache[SIM_NAME_MAX + 16];

        if (e->kind != SYSFS_FILE || !slash || (size_t)(slash - e->path) >= sizeof(cache))
            continue;
        memcpy(cache, e->path, (size_t)(slash - e->path));
        cache[slash - e->path] = '\0';
        err = orun_add(cap->run, cap->mark_idx, mark, cache, slash + 1, e->data,
                       strcspn(e->data, "\n"));
    }
    /* not a sysfs file: SLUB's reports so far, as lib/slub_kunit.c counts
     * them, beside the files (the kernel's from its log, record.py) */
    for (size_t i = 0; i < snap->nr_caches && !err; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];
        char n[16];

        if (!c->alive)
            continue;
        snprintf(n, sizeof(n), "%u", c->slab_errors);
        err = orun_add(cap->run, cap->mark_idx, mark, c->name, "slab_errors", n, strlen(n));
    }
    sysfs_tree_release(&tree);
    sim_snapshot_release(snap);
    cap->mark_idx++;
    return err;
}

/*
 * Run @scn (the program @program names) on the engine as release @rel on
 * @topo's machine (when it has one), the files at each mark into @run
 * (sorted).  0, or a negative errno with the reason in @err.
 */
/* @scn's configuration as release @rel on @topo's machine (when it has one)
 * into @cfg: 0, or -EINVAL with the reason in @err. */
static int oracle_config(const char *program, const struct scenario *scn, enum sim_release rel,
                         const struct oout *topo, struct sim_config *cfg, struct strbuf *err)
{
    *cfg = scn->config;
    if (sim_release_apply(rel, cfg)) {
        strbuf_printf(err, "%s: no such release", program);
        return -EINVAL;
    }
    if (topo && topo->has_topology) {
        cfg->nr_cpus = topo->cpus;
        cfg->nr_nodes = topo->nodes;
        memcpy(cfg->cpu_node, topo->cpu_node, sizeof(cfg->cpu_node));
        cfg->present_cpus = 0;
    }
    return 0;
}

/* The first warning of @rp's run that is not one of SLUB's reports (what
 * validate finds, or a debug cache's checks on alloc and free: SIM_MISUSE):
 * those the kernel printed too, compared as "slab_errors"; any other
 * warning means the kernel ran something else. */
static const struct replay_warning *first_warning(const struct replay *rp)
{
    for (size_t i = 0; i < rp->nr_warnings; i++)
        if (rp->warnings[i].status != SIM_MISUSE && strcmp(rp->warnings[i].op, "validate"))
            return &rp->warnings[i];
    return NULL;
}

static int oracle_engine_run(const char *program, const struct scenario *scn, enum sim_release rel,
                             const struct oout *topo, struct orun *run, struct strbuf *err)
{
    const struct replay_warning *w;
    struct replay rp = {0};
    struct engine_capture cap = {run, 0, 0};
    struct sim_config cfg;
    int ret;

    memset(run, 0, sizeof(*run));
    if ((ret = oracle_config(program, scn, rel, topo, &cfg, err)))
        return ret;
    if ((ret = replay_init(&rp, scn, &cfg))) {
        strbuf_printf(err, "%s", strbuf_str(&rp.error));
        goto out;
    }
    rp.mark_hook = engine_mark;
    rp.mark_arg = &cap;
    if ((ret = replay_run(&rp))) {
        strbuf_printf(err, "%s: %s", program,
                      rp.error.len ? strbuf_str(&rp.error) : strerror(-ret));
        goto out;
    }
    if ((w = first_warning(&rp)) || rp.nr_warnings_total > rp.nr_warnings) {
        strbuf_printf(err, "%s: the engine warned: %s: %s", program, w ? w->path : "?",
                      w ? w->message : "?");
        ret = -EINVAL;
        goto out;
    }
    qsort(run->r, run->nr, sizeof(*run->r), orec_cmp);
out:
    if (ret)
        orun_release(run);
    replay_release(&rp);
    return ret;
}

/* The .out text of @run (the engine's), sorted by mark, cache and file. */
static void orun_print(FILE *f, const struct orun *run)
{
    const char *cache = NULL;
    unsigned mark = UINT32_MAX;

    for (size_t i = 0; i < run->nr; i++) {
        const struct orec *e = &run->r[i];

        if (e->mark_idx != mark) {
            fprintf(f, "mark %s\n", e->mark);
            mark = e->mark_idx;
            cache = NULL;
        }
        if (!cache || strcmp(cache, e->cache)) {
            fprintf(f, "cache %s\n", e->cache);
            cache = e->cache;
        }
        fprintf(f, "%s %s\n", e->file, e->value);
    }
}

int oracle_engine_print(const char *program, const char *release, const char *topology, FILE *f,
                        struct strbuf *err)
{
    enum sim_release rel = sim_release_lookup(release);
    struct scenario *scn = NULL;
    struct oout topo = {0};
    struct orun run;
    int ret;

    if (rel == SIM_RELEASE_NONE) {
        strbuf_printf(err, "unknown release \"%s\" (docs/engine.md)", release);
        return -EINVAL;
    }
    if (topology && parse_topology(&topo, topology)) {
        strbuf_printf(err, "--topology \"%s\": not cpus=N nodes=N cpu_node=A,B,...", topology);
        return -EINVAL;
    }
    if ((ret = scenario_load(program, &scn, err)))
        return ret;
    ret = oracle_engine_run(program, scn, rel, topology ? &topo : NULL, &run, err);
    scenario_release(scn);
    if (ret)
        return ret;
    fprintf(f, "# slublab-oracle 1\nkernel slublab-engine %s %s\n", SIM_VERSION, release);
    if (topology) {
        fprintf(f, "topology cpus=%u nodes=%u cpu_node=", topo.cpus, topo.nodes);
        for (unsigned c = 0; c < topo.cpus; c++)
            fprintf(f, "%s%u", c ? "," : "", topo.cpu_node[c]);
        fputs("\n", f);
    }
    fputs("run 1\n", f);
    orun_print(f, &run);
    orun_release(&run);
    return 0;
}

/* ---- the reviewed lists ------------------------------------------------- */

struct not_compared {
    char file[64];
    char reason[256];
};

struct known_cover {
    char kernel[16], program[64], file[64];
    unsigned entry; /* index in the entries */
    unsigned long hits;
};

struct known_entry {
    char id[64];
    char minimal[256];
    bool has_mechanism, has_kernels;
};

struct lists {
    struct not_compared *nc;
    size_t nr_nc;
    struct known_entry *ke;
    size_t nr_ke;
    struct known_cover *kc;
    size_t nr_kc;
};

static void lists_release(struct lists *l)
{
    free(l->nc);
    free(l->ke);
    free(l->kc);
    memset(l, 0, sizeof(*l));
}

static void *grow(void *p, size_t nr, size_t size)
{
    return (nr & (nr - 1)) == 0 ? realloc(p, (nr ? nr * 2 : 1) * size) : p;
}

/* not-compared.txt: "FILE  reason..." per line, '#' comments. */
static int read_not_compared(const char *path, struct lists *l, struct strbuf *err)
{
    FILE *f = fopen(path, "r");
    char line[512];
    unsigned lineno = 0;

    if (!f) {
        strbuf_printf(err, "%s: %s", path, strerror(errno));
        return -errno;
    }
    while (fgets(line, sizeof(line), f)) {
        struct not_compared *n;
        char *reason;

        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        reason = line + strcspn(line, " \t");
        if (!*reason) {
            fclose(f);
            return oout_fail(err, path, lineno, "a file without its reason");
        }
        *reason++ = '\0';
        reason += strspn(reason, " \t");
        if (!(n = grow(l->nc, l->nr_nc, sizeof(*l->nc)))) {
            fclose(f);
            return -ENOMEM;
        }
        l->nc = n;
        n = &l->nc[l->nr_nc++];
        if (copy_field(n->file, sizeof(n->file), line) ||
            copy_field(n->reason, sizeof(n->reason), reason)) {
            fclose(f);
            return oout_fail(err, path, lineno, "a file name or reason too long");
        }
    }
    fclose(f);
    return 0;
}

/*
 * known-differences.txt: entries of "key: value" lines, each opened by
 * "id: NAME"; keys mechanism, kernels, minimal (a program path from the
 * repository root) and any number of "covers: KERNEL PROGRAM FILE".
 */
static int read_known(const char *path, const char *root, struct lists *l, struct strbuf *err)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    unsigned lineno = 0;
    int ret = 0;

    if (!f) {
        strbuf_printf(err, "%s: %s", path, strerror(errno));
        return -errno;
    }
    while (!ret && fgets(line, sizeof(line), f)) {
        char *colon, *val;

        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#' || line[0] == ' ')
            continue; /* continuation lines belong to the text of the key above */
        if (!(colon = strchr(line, ':'))) {
            ret = oout_fail(err, path, lineno, "not \"key: value\"");
            break;
        }
        *colon = '\0';
        val = colon + 1 + strspn(colon + 1, " \t");
        if (!strcmp(line, "id")) {
            struct known_entry *n = grow(l->ke, l->nr_ke, sizeof(*l->ke));

            if (!n) {
                ret = -ENOMEM;
                break;
            }
            l->ke = n;
            memset(&l->ke[l->nr_ke], 0, sizeof(*l->ke));
            if (copy_field(l->ke[l->nr_ke++].id, sizeof(l->ke[0].id), val))
                ret = oout_fail(err, path, lineno, "an id too long");
        } else if (!l->nr_ke) {
            ret = oout_fail(err, path, lineno, "a key before the first id");
        } else if (!strcmp(line, "mechanism")) {
            l->ke[l->nr_ke - 1].has_mechanism = true;
        } else if (!strcmp(line, "kernels")) {
            l->ke[l->nr_ke - 1].has_kernels = true;
        } else if (!strcmp(line, "minimal")) {
            if (copy_field(l->ke[l->nr_ke - 1].minimal, sizeof(l->ke[0].minimal), val))
                ret = oout_fail(err, path, lineno, "a minimal program path too long");
        } else if (!strcmp(line, "covers")) {
            struct known_cover *c = grow(l->kc, l->nr_kc, sizeof(*l->kc));

            if (!c) {
                ret = -ENOMEM;
                break;
            }
            l->kc = c;
            c = &l->kc[l->nr_kc];
            memset(c, 0, sizeof(*c));
            if (sscanf(val, "%15s %63s %63s", c->kernel, c->program, c->file) != 3 ||
                strchr(c->program, '*') || strchr(c->program, '?') || strchr(c->file, '*')) {
                ret = oout_fail(err, path, lineno,
                                "covers wants KERNEL PROGRAM FILE, no wildcards");
                break;
            }
            c->entry = (unsigned)(l->nr_ke - 1);
            l->nr_kc++;
        } else {
            ret = oout_fail(err, path, lineno, "an unknown key");
        }
    }
    fclose(f);
    for (size_t i = 0; !ret && i < l->nr_ke; i++) {
        const struct known_entry *e = &l->ke[i];
        char p[1024];
        FILE *m;

        if (!e->has_mechanism || !e->has_kernels || !e->minimal[0]) {
            strbuf_printf(err, "%s: entry %s lacks its mechanism, kernels or minimal program", path,
                          e->id);
            ret = -EINVAL;
            break;
        }
        snprintf(p, sizeof(p), "%s/%s", root, e->minimal);
        if (!(m = fopen(p, "r"))) {
            strbuf_printf(err, "%s: entry %s: minimal program %s: %s", path, e->id, e->minimal,
                          strerror(errno));
            ret = -EINVAL;
            break;
        }
        fclose(m);
    }
    return ret;
}

static const struct not_compared *lists_not_compared(const struct lists *l, const char *file)
{
    for (size_t i = 0; i < l->nr_nc; i++)
        if (!strcmp(l->nc[i].file, file))
            return &l->nc[i];
    return NULL;
}

static struct known_cover *lists_known(struct lists *l, const char *kernel, const char *program,
                                       const char *file)
{
    for (size_t i = 0; i < l->nr_kc; i++)
        if (!strcmp(l->kc[i].kernel, kernel) && !strcmp(l->kc[i].program, program) &&
            !strcmp(l->kc[i].file, file))
            return &l->kc[i];
    return NULL;
}

/* ---- the comparison ----------------------------------------------------- */

struct tally {
    unsigned long programs, marks, compared, equal, known, differ, not_compared, totals_only,
            ranged, choice;
};

/* The number the first word of @v starts with ("12", "20(5)" of
 * slabs_cpu_partial); false when it does not start with one. */
static bool first_number(const char *v, int64_t *out)
{
    char *end;
    long long n = strtoll(v, &end, 10);

    if (end == v || (*end && *end != ' ' && *end != '('))
        return false;
    *out = n;
    return true;
}

static size_t first_word_len(const char *v)
{
    return strcspn(v, " ");
}

struct check_ctx {
    const char *kernel;
    const char *program;
    struct lists *lists;
    struct tally *t;
    FILE *report;
    bool verbose;
};

static void report_diff(struct check_ctx *cx, const struct orec *k, const char *how,
                        const char *kernel_text, const char *engine_text, bool known)
{
    fprintf(cx->report, "%s %s %s mark %s cache %s file %s (%s):\n  kernel %s\n  engine %s\n",
            known ? "known" : "DIFF", cx->kernel, cx->program, k->mark, k->cache, k->file, how,
            kernel_text, engine_text);
}

/* How one kernel file compares with the engine's (file_compare()). */
struct file_cmp {
    const char *how;
    char kernel_text[512], engine_text[512];
    bool equal, totals_only, ranged;
};

/* Compare one kernel file (as printed in every run) with the engine's @engine. */
static void file_compare(const struct oout *o, const struct orec *k0, const struct orun *engine,
                         struct file_cmp *fc)
{
    const struct orec *e = orun_find(engine, k0);
    bool same = true, totals_same = true, numeric = true;
    int64_t lo = 0, hi = 0, v;

    fc->totals_only = fc->ranged = false;
    for (unsigned r = 0; r < o->nr_runs; r++) {
        const struct orec *k = r ? orun_find(&o->runs[r], k0) : k0;
        const char *val = k ? k->value : "(missing)";

        if (strcmp(val, k0->value))
            same = false;
        if (first_word_len(val) != first_word_len(k0->value) ||
            strncmp(val, k0->value, first_word_len(val)))
            totals_same = false;
        if (!first_number(val, &v)) {
            numeric = false;
        } else {
            lo = r == 0 || v < lo ? v : lo;
            hi = r == 0 || v > hi ? v : hi;
        }
    }
    if (same) {
        fc->how = "every run";
        snprintf(fc->kernel_text, sizeof(fc->kernel_text), "%s", k0->value);
        snprintf(fc->engine_text, sizeof(fc->engine_text), "%s", e ? e->value : "(no such file)");
        fc->equal = e && !strcmp(e->value, k0->value);
    } else if (totals_same) {
        fc->totals_only = true;
        fc->how = "totals: the kernel's runs differ per CPU";
        snprintf(fc->kernel_text, sizeof(fc->kernel_text), "%.*s",
                 (int)first_word_len(k0->value), k0->value);
        snprintf(fc->engine_text, sizeof(fc->engine_text), "%.*s",
                 e ? (int)first_word_len(e->value) : 13, e ? e->value : "(no such file)");
        fc->equal = e && !strcmp(fc->kernel_text, fc->engine_text);
    } else if (numeric) {
        fc->ranged = true;
        fc->how = "range: the kernel's runs differ in total";
        snprintf(fc->kernel_text, sizeof(fc->kernel_text), "%" PRId64 "..%" PRId64, lo, hi);
        snprintf(fc->engine_text, sizeof(fc->engine_text), "%.*s",
                 e ? (int)first_word_len(e->value) : 13, e ? e->value : "(no such file)");
        fc->equal = e && first_number(e->value, &v) && v >= lo && v <= hi;
    } else {
        fc->how = "the kernel's runs differ";
        snprintf(fc->kernel_text, sizeof(fc->kernel_text), "%s (run 1)", k0->value);
        snprintf(fc->engine_text, sizeof(fc->engine_text), "%s", e ? e->value : "(no such file)");
        fc->equal = false;
    }
}

/*
 * Count one kernel file: equal to the engine's default run, or (@choice,
 * when not NULL) to a run of the engine that took other choices (the
 * choices in @choice), or a known difference, or a difference.
 */
static void check_file(struct check_ctx *cx, const struct oout *o, const struct orec *k0,
                       const struct orun *engine, const char *choice)
{
    struct file_cmp fc;
    struct known_cover *kc;

    if (lists_not_compared(cx->lists, k0->file)) {
        cx->t->not_compared++;
        return;
    }
    file_compare(o, k0, engine, &fc);
    cx->t->compared++;
    cx->t->totals_only += fc.totals_only;
    cx->t->ranged += fc.ranged;
    if (fc.equal) {
        cx->t->equal++;
        return;
    }
    if (choice) {
        cx->t->choice++;
        if (cx->verbose)
            fprintf(cx->report,
                    "choice %s %s mark %s cache %s file %s (%s):\n  kernel %s\n  engine %s\n"
                    "  matched with %s\n",
                    cx->kernel, cx->program, k0->mark, k0->cache, k0->file, fc.how,
                    fc.kernel_text, fc.engine_text, choice);
        return;
    }
    kc = lists_known(cx->lists, cx->kernel, cx->program, k0->file);
    if (kc) {
        kc->hits++;
        cx->t->known++;
        if (cx->verbose)
            report_diff(cx, k0, fc.how, fc.kernel_text, fc.engine_text, true);
        return;
    }
    cx->t->differ++;
    report_diff(cx, k0, fc.how, fc.kernel_text, fc.engine_text, false);
}

/* ---- the kernel's choices explored -------------------------------------- */

/*
 * The engine's runs under its other choices (engine/choice.c), for the
 * files its default run does not match: flush_all()'s order, kfree_rcu's
 * worker CPU and the remote-node draw are the kernel's scheduler's and
 * cycle counter's, so a kernel run that took another is as right as the
 * default.
 *
 * The search goes mark by mark.  What the kernel printed at a mark depends
 * only on the choices taken before it, so a run (replayed from the start
 * with a script of options for the first choices it reaches, the defaults
 * after) stops at its first mark whose files differ, and only the choices
 * it reached before that mark and after its script can mend it.  A run's
 * children turn one of those choices to each of its other options (the
 * defaults after it); a run whose first differing mark comes before any
 * choice it may turn is a dead end.  The runs wait in a queue, the one
 * that got furthest first (the latest first differing mark), then, in
 * turn, the one with the fewest turned choices (a turn before the mark
 * before that one counting as one more) and the one whose numbers at its
 * mark are nearest the kernel's (choice_distance()): a best-first search
 * over the tree of choices, which every combination is a leaf of.  The
 * first run whose every mark matches ends it.
 *
 * Which files a mark must match: every file the kernel printed that is
 * compared, except those tests/oracle/known-differences.txt covers (a gap
 * in the model is no choice), and except the files no run could give: when
 * every branch is a dead end, the files that differ at the furthest mark
 * any run reached (in the run that reached it with the fewest) are left to
 * the comparison, and the search starts again without them.  At most
 * CHOICE_MAX_RUNS runs a program; a file a run gave as the kernel printed
 * it is matched through choices, and a run that gives them all is the
 * program's match, for every file.  What no run of the search gave is
 * looked for by outcomes.h's walk of the runs that turn one choice (at
 * most CHOICE_WALK_RUNS), file by file.
 */
#define CHOICE_MAX_RUNS  1000u
#define CHOICE_WALK_RUNS 300u

/* A run of the search, waiting for its children. */
struct choice_node {
    uint64_t *taken, *options; /* per choice it reached */
    size_t nr;                 /* choices it reached */
    size_t fixed;              /* the script's length: choices its children keep */
    size_t before;             /* choices it reached before its first differing mark */
    size_t near;               /* choices it reached before the mark before that one */
    unsigned fail;             /* its first differing mark */
    size_t fails;              /* files differing there */
    uint64_t dist;             /* how far their numbers are from the kernel's */
    unsigned turned;           /* non-default choices in its script */
    size_t lo, hi;             /* the choices its next children turn */
    bool far;                  /* those are the ones before near */
};

struct choice_search {
    struct check_ctx *cx;
    const struct oout *o;
    const struct scenario *scn;
    struct sim_config cfg;
    const struct orec **files; /* the kernel files the default run does not match */
    char **matched;            /* per file: the choices that matched it, or NULL */
    size_t nr;
    size_t *file_of;    /* per record of o->runs[0]: its index in files, or SIZE_MAX */
    bool *care;         /* per record of o->runs[0]: a mark matches only when it is equal */
    size_t *mark_start; /* per kernel mark: its first record in o->runs[0]; [nr_marks]: the end */
    unsigned nr_marks;
    unsigned runs;
    bool whole; /* one run gave every file */
    /* the run in progress */
    struct orun run;
    struct engine_capture cap;
    unsigned fail;   /* its first mark that differs, or UINT32_MAX */
    size_t before;   /* choices it reached before that mark */
    size_t near;     /* choices it reached before the last mark that matched */
    size_t *failing; /* the records that differ there */
    size_t nr_failing;
    uint64_t dist; /* choice_distance() summed over them */
    /* the run of this pass that got furthest: its first differing mark and files */
    unsigned best_fail;
    size_t *best_failing;
    size_t nr_best_failing;
    /* the queue */
    struct choice_node *queue;
    size_t nr_queue;
};

/* How far the numbers of @engine's line are from @kernel's: the totals'
 * difference plus each "C<n>=" or "N<n>=" part's (a part one side lacks
 * counting as 0); a line without numbers is far. */
static uint64_t choice_distance(const char *kernel, const char *engine)
{
    int64_t k, e;
    uint64_t d;
    const char *p;

    if (!first_number(kernel, &k) || !first_number(engine, &e))
        return 1000000;
    d = (uint64_t)(k > e ? k - e : e - k);
    for (int side = 0; side < 2; side++) {
        const char *line = side ? engine : kernel, *other = side ? kernel : engine;

        for (p = strchr(line, ' '); p; p = strchr(p + 1, ' ')) {
            const char *eq = strchr(p + 1, '=');
            size_t keylen;
            int64_t v = 0, w = 0;
            char key[16];
            const char *q;

            if (!eq || (keylen = (size_t)(eq - p)) >= sizeof(key) || memchr(p + 1, ' ', keylen - 1))
                continue;
            memcpy(key, p, keylen); /* " C3" */
            key[keylen] = '\0';
            v = strtoll(eq + 1, NULL, 10);
            for (q = strstr(other, key); q && q[keylen] != '='; q = strstr(q + 1, key))
                ;
            w = q ? strtoll(q + keylen + 1, NULL, 10) : 0;
            if (side && q)
                continue; /* counted from the kernel's side */
            d += (uint64_t)(v > w ? v - w : w - v);
        }
    }
    return d;
}

/* The mark hook of a search run: the mark's files, compared as they come. */
static int choice_mark(struct replay *rp, const char *mark, void *arg)
{
    struct choice_search *cs = arg;
    size_t from = cs->run.nr, nr_taken;
    unsigned m = cs->cap.mark_idx;
    const struct sim_choice *taken;
    struct strbuf why = STRBUF_INIT;
    bool turned = false;
    struct file_cmp fc;
    int err;

    if (first_warning(rp) || rp->nr_warnings_total > rp->nr_warnings) {
        cs->fail = 0; /* a run the default one is not: nothing to match with */
        cs->before = 0;
        return -ECANCELED;
    }
    if ((err = engine_mark(rp, mark, &cs->cap)))
        return err;
    qsort(cs->run.r + from, cs->run.nr - from, sizeof(*cs->run.r), orec_cmp);
    if (m >= cs->nr_marks)
        return 0;
    taken = sim_choices_taken(rp->sim, &nr_taken);
    for (size_t i = 0; i < nr_taken; i++)
        turned |= taken[i].taken != 0;
    for (size_t i = cs->mark_start[m]; i < cs->mark_start[m + 1]; i++) {
        size_t f = cs->file_of[i];

        if (!cs->care[i] && f == SIZE_MAX)
            continue;
        file_compare(cs->o, &cs->o->runs[0].r[i], &cs->run, &fc);
        if (!fc.equal) {
            if (cs->care[i]) {
                cs->failing[cs->nr_failing++] = i;
                cs->dist += choice_distance(fc.kernel_text, fc.engine_text);
            }
            continue;
        }
        if (f == SIZE_MAX || cs->matched[f] || !turned)
            continue;
        if (!why.len)
            outcomes_describe(&why, taken, nr_taken);
        if (strbuf_failed(&why) || !(cs->matched[f] = strdup(strbuf_str(&why)))) {
            strbuf_release(&why);
            return -ENOMEM;
        }
    }
    strbuf_release(&why);
    if (!cs->nr_failing) {
        cs->near = nr_taken;
        return 0;
    }
    cs->fail = m;
    cs->before = nr_taken;
    return -ECANCELED;
}

/* A run of @cs->scn taking @script's options first: a node of the search
 * into @node (its taken and options arrays allocated), or a dead end
 * (node->before 0).  0 or -ENOMEM. */
static int choice_run(struct choice_search *cs, const uint64_t *script, size_t n,
                      struct choice_node *node)
{
    struct replay rp = {0};
    const struct sim_choice *log;
    int ret = 0, run_err;

    memset(node, 0, sizeof(*node));
    orun_release(&cs->run);
    cs->cap = (struct engine_capture){&cs->run, 0, 0};
    cs->fail = UINT32_MAX;
    cs->before = cs->near = 0;
    cs->nr_failing = 0;
    cs->dist = 0;
    cs->runs++;
    /* the default run got this far: only memory fails here */
    if (replay_init(&rp, cs->scn, &cs->cfg) || (ret = sim_choices_set(rp.sim, script, n, 0)))
        goto out;
    rp.mark_hook = choice_mark;
    rp.mark_arg = cs;
    run_err = replay_run(&rp);
    if (run_err == -ENOMEM) {
        ret = run_err;
        goto out;
    }
    if (run_err && run_err != -ECANCELED)
        goto out; /* a run the default one is not: a dead end */
    log = sim_choices_taken(rp.sim, &node->nr);
    if (node->nr && (!(node->taken = malloc(node->nr * sizeof(*node->taken))) ||
                     !(node->options = malloc(node->nr * sizeof(*node->options))))) {
        ret = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < node->nr; i++) {
        node->taken[i] = log[i].taken;
        node->options[i] = log[i].nr_options;
        node->turned += i < n && log[i].taken;
    }
    node->fixed = n;
    if (cs->fail == UINT32_MAX && !run_err) {
        struct strbuf why = STRBUF_INIT;
        struct file_cmp fc;

        /* every mark matched: the program's match, for each file it gives */
        cs->whole = true;
        outcomes_describe(&why, log, node->nr);
        for (size_t f = 0; f < cs->nr && !ret; f++) {
            file_compare(cs->o, cs->files[f], &cs->run, &fc);
            if (!fc.equal)
                continue;
            free(cs->matched[f]);
            if (strbuf_failed(&why) || !(cs->matched[f] = strdup(strbuf_str(&why))))
                ret = -ENOMEM;
        }
        strbuf_release(&why);
        goto out;
    }
    node->fail = cs->fail;
    node->before = cs->before;
    node->near = cs->near > n ? cs->near : n;
    node->fails = cs->nr_failing;
    node->dist = cs->dist;
    /* the choices between the last mark that matched and the first that
     * did not first, the earlier ones later (far) */
    node->lo = node->near < node->before ? node->near : n;
    node->hi = node->before;
    if (cs->nr_failing && (cs->best_fail == UINT32_MAX || cs->fail > cs->best_fail ||
                           (cs->fail == cs->best_fail && cs->nr_failing < cs->nr_best_failing))) {
        cs->best_fail = cs->fail;
        memcpy(cs->best_failing, cs->failing, cs->nr_failing * sizeof(*cs->failing));
        cs->nr_best_failing = cs->nr_failing;
    }
out:
    replay_release(&rp);
    if (ret || node->before <= node->fixed) {
        free(node->taken);
        free(node->options);
        memset(node, 0, sizeof(*node));
    }
    return ret;
}

/* True when node @a should be expanded before node @b. */
static bool choice_node_before(const struct choice_node *a, const struct choice_node *b,
                               bool closest)
{
    if (a->fail != b->fail)
        return a->fail > b->fail;
    if (closest && a->dist != b->dist)
        return a->dist < b->dist;
    if (a->turned + a->far != b->turned + b->far)
        return a->turned + a->far < b->turned + b->far;
    return a->fails < b->fails;
}

static void choice_queue_clear(struct choice_search *cs)
{
    for (size_t i = 0; i < cs->nr_queue; i++) {
        free(cs->queue[i].taken);
        free(cs->queue[i].options);
    }
    cs->nr_queue = 0;
}

/* Queue @node when it has children (else free nothing: choice_run() did). */
static int choice_push(struct choice_search *cs, struct choice_node *node)
{
    if (!node->taken)
        return 0;
    if (!(cs->queue = grow(cs->queue, cs->nr_queue, sizeof(*cs->queue)))) {
        free(node->taken);
        free(node->options);
        return -ENOMEM;
    }
    cs->queue[cs->nr_queue++] = *node;
    return 0;
}

/* One pass of the search from the default run: 0, or -ENOMEM. */
static int choice_pass(struct choice_search *cs)
{
    struct choice_node node, child;
    uint64_t *script = NULL;
    unsigned expansions = 0;
    int ret;

    cs->best_fail = UINT32_MAX;
    cs->nr_best_failing = 0;
    if ((ret = choice_run(cs, NULL, 0, &node)) || (ret = choice_push(cs, &node)))
        return ret;
    while (cs->nr_queue && !cs->whole && !ret && cs->runs < CHOICE_MAX_RUNS) {
        size_t best = 0;

        for (size_t i = 1; i < cs->nr_queue; i++)
            if (choice_node_before(&cs->queue[i], &cs->queue[best], expansions & 1))
                best = i;
        node = cs->queue[best];
        cs->queue[best] = cs->queue[--cs->nr_queue];
        expansions++;
        if (!(script = realloc(script, node.before * sizeof(*script)))) {
            ret = -ENOMEM;
        } else {
            memcpy(script, node.taken, node.before * sizeof(*script));
            /* the choice nearest the mark first */
            for (size_t j = node.hi; j-- > node.lo && !ret && !cs->whole;) {
                for (uint64_t opt = 1; opt < node.options[j] && !ret && !cs->whole; opt++) {
                    if (cs->runs >= CHOICE_MAX_RUNS)
                        break;
                    script[j] = opt;
                    if (!(ret = choice_run(cs, script, j + 1, &child)))
                        ret = choice_push(cs, &child);
                }
                script[j] = node.taken[j];
            }
        }
        if (!ret && !node.far && node.lo > node.fixed) {
            /* the earlier choices, after the other nodes of as many turns */
            node.far = true;
            node.hi = node.lo;
            node.lo = node.fixed;
            ret = choice_push(cs, &node);
            continue;
        }
        free(node.taken);
        free(node.options);
    }
    free(script);
    choice_queue_clear(cs);
    return ret;
}

/* The walk of outcomes.h, for what the search left: each run whole (no
 * mark stops it), each file it gives that no run gave yet matched. */
static int choice_walk_before(struct replay *rp, void *arg)
{
    struct choice_search *cs = arg;

    orun_release(&cs->run);
    cs->cap = (struct engine_capture){&cs->run, 0, 0};
    rp->mark_hook = engine_mark;
    rp->mark_arg = &cs->cap;
    return 0;
}

static int choice_walk_after(struct replay *rp, int run_err, const struct sim_choice *choices,
                             size_t nr, void *arg)
{
    struct choice_search *cs = arg;
    struct strbuf why = STRBUF_INIT;
    struct file_cmp fc;
    size_t left = 0;
    int ret = 0;

    cs->runs++;
    if (run_err || first_warning(rp) || rp->nr_warnings_total > rp->nr_warnings || !nr)
        return 0; /* a run the default one is not: nothing to match with */
    qsort(cs->run.r, cs->run.nr, sizeof(*cs->run.r), orec_cmp);
    for (size_t f = 0; f < cs->nr && !ret; f++) {
        if (cs->matched[f])
            continue;
        file_compare(cs->o, cs->files[f], &cs->run, &fc);
        if (!fc.equal) {
            left++;
            continue;
        }
        if (!why.len)
            outcomes_describe(&why, choices, nr);
        if (strbuf_failed(&why) || !(cs->matched[f] = strdup(strbuf_str(&why))))
            ret = -ENOMEM;
    }
    strbuf_release(&why);
    return ret ? ret : left ? 0 : 1; /* every file matched: the walk may stop */
}

/* Look for runs matching the files of @o the default run @engine does not
 * match; cs->matched[i] says which.  0 or -ENOMEM. */
static int choice_search(struct check_ctx *cx, const struct scenario *scn, enum sim_release rel,
                         const struct oout *o, const struct orun *engine,
                         struct choice_search *cs)
{
    const struct orun *k0 = &o->runs[0];
    struct strbuf err = STRBUF_INIT;
    struct file_cmp fc;
    bool chase = false;
    unsigned searched;
    int ret = 0;

    memset(cs, 0, sizeof(*cs));
    cs->cx = cx;
    cs->o = o;
    cs->scn = scn;
    if (!k0->nr)
        return 0;
    cs->nr_marks = k0->r[k0->nr - 1].mark_idx + 1;
    if (!(cs->file_of = malloc(k0->nr * sizeof(*cs->file_of))) ||
        !(cs->care = calloc(k0->nr, sizeof(*cs->care))) ||
        !(cs->mark_start = calloc(cs->nr_marks + 1, sizeof(*cs->mark_start))))
        return -ENOMEM;
    for (size_t i = 0; i < k0->nr; i++) {
        const struct orec *k = &k0->r[i];

        cs->file_of[i] = SIZE_MAX;
        cs->mark_start[k->mark_idx + 1] = i + 1;
        if (lists_not_compared(cx->lists, k->file))
            continue;
        file_compare(o, k, engine, &fc);
        if (fc.equal) {
            cs->care[i] = true;
            continue;
        }
        if (!(cs->files = grow(cs->files, cs->nr, sizeof(*cs->files))))
            return -ENOMEM;
        cs->file_of[i] = cs->nr;
        cs->files[cs->nr++] = k;
        /* a gap in the model is no choice: its files need not match */
        cs->care[i] = !lists_known(cx->lists, cx->kernel, cx->program, k->file);
        chase |= cs->care[i];
    }
    for (unsigned m = 1; m <= cs->nr_marks; m++) /* marks without a file */
        if (cs->mark_start[m] < cs->mark_start[m - 1])
            cs->mark_start[m] = cs->mark_start[m - 1];
    if (!chase)
        return 0;
    if (!(cs->matched = calloc(cs->nr, sizeof(*cs->matched))) ||
        !(cs->failing = malloc(k0->nr * sizeof(*cs->failing))) ||
        !(cs->best_failing = malloc(k0->nr * sizeof(*cs->best_failing))))
        return -ENOMEM;
    if (oracle_config(cx->program, scn, rel, o, &cs->cfg, &err)) {
        strbuf_release(&err);
        return 0;
    }
    while (!ret && !cs->whole && cs->runs < CHOICE_MAX_RUNS) {
        if ((ret = choice_pass(cs)) || cs->whole || !cs->nr_best_failing)
            break;
        /* no run got past best_fail: its differing files are the model's
         * (or a bug's), left to the comparison; search again without them */
        for (size_t i = 0; i < cs->nr_best_failing; i++)
            cs->care[cs->best_failing[i]] = false;
    }
    searched = cs->runs;
    for (size_t f = 0; f < cs->nr && !cs->whole && !ret; f++) {
        struct outcome_walk w = {.before = choice_walk_before,
                                 .after = choice_walk_after,
                                 .arg = cs,
                                 .max_deviations = 1,
                                 .max_runs = CHOICE_WALK_RUNS};

        if (cs->matched[f])
            continue;
        /* a file no run of the search gave: one turned choice anywhere */
        ret = outcomes_walk(scn, &cs->cfg, &w, &err);
        ret = ret == -ENOMEM ? ret : 0;
        break;
    }
    strbuf_release(&err);
    if (cx->verbose)
        fprintf(cx->report, "search %s %s: %u runs%s, %s\n", cx->kernel, cx->program, searched,
                cs->runs > searched ? " and a walk of one turned choice" : "",
                cs->whole ? "one run matches every mark" : "no run matches every mark");
    orun_release(&cs->run);
    return ret;
}

static void choice_search_release(struct choice_search *cs)
{
    for (size_t i = 0; cs->matched && i < cs->nr; i++)
        free(cs->matched[i]);
    free(cs->matched);
    free(cs->files);
    free(cs->file_of);
    free(cs->care);
    free(cs->mark_start);
    free(cs->failing);
    free(cs->best_failing);
    choice_queue_clear(cs);
    free(cs->queue);
    orun_release(&cs->run);
}

/* The choices that matched kernel file @k, or NULL. */
static const char *choice_matched(const struct choice_search *cs, const struct orec *k)
{
    for (size_t i = 0; i < cs->nr; i++)
        if (cs->files[i] == k)
            return cs->matched ? cs->matched[i] : NULL;
    return NULL;
}

/* The member programs/<id><ext> of @a, or NULL. */
static const struct tar_member *program_member(const struct tar_archive *a, const char *id,
                                               const char *ext, struct strbuf *name)
{
    const struct tar_member *m;

    strbuf_reset(name);
    strbuf_printf(name, "programs/%s%s", id, ext);
    m = strbuf_failed(name) ? NULL : tar_find(a, strbuf_str(name));
    return m && m->type == TAR_FILE ? m : NULL;
}

/* A difference that stops a fixture before its files are compared. */
static int program_fails(struct check_ctx *cx, const char *id, const char *what, struct strbuf *err,
                         int ret)
{
    fprintf(cx->report, "DIFF %s %s: %s%s\n", cx->kernel, id, what, strbuf_str(err));
    cx->t->differ++;
    return ret == -ENOMEM ? ret : 0;
}

/* One fixture: programs/<id>.json and .out of @a, the archive at @path. */
/* 1 + the last mark at which @engine has a file of a cache @kernel printed
 * (the kernel prints the program's caches, never a kmalloc cache a
 * krealloc moved an object into); 0 when it has none. */
static unsigned engine_last_mark(const struct orun *engine, const struct orun *kernel)
{
    for (size_t i = engine->nr; i-- > 0;)
        for (size_t j = 0; j < kernel->nr; j++)
            if (!strcmp(engine->r[i].cache, kernel->r[j].cache))
                return engine->r[i].mark_idx + 1;
    return 0;
}

static int check_program(struct check_ctx *cx, const struct tar_archive *a, const char *path,
                         const char *id, enum sim_release rel)
{
    struct strbuf err = STRBUF_INIT, name = STRBUF_INIT, label = STRBUF_INIT;
    const struct tar_member *json = program_member(a, id, ".json", &name);
    const struct tar_member *out = program_member(a, id, ".out", &name);
    struct scenario *scn = NULL;
    struct oout o = {0};
    struct orun engine = {0};
    struct choice_search cs = {0};
    unsigned last_mark = UINT32_MAX, engine_marks;
    int ret = 0;

    if (!json || !out) {
        strbuf_printf(&err, "programs/%s.json or .out is not in %s", id, path);
        ret = program_fails(cx, id, "", &err, -ENOENT);
        goto out;
    }
    strbuf_printf(&label, "%s:%s", path, strbuf_str(&name));
    if ((ret = oracle_read_out(strbuf_str(&label), out->data, out->len, &o, &err))) {
        ret = program_fails(cx, id, "", &err, ret);
        goto out;
    }
    strbuf_reset(&label);
    strbuf_printf(&label, "%s:programs/%s.json", path, id);
    if ((ret = scenario_parse(json->data, json->len, strbuf_str(&label), &scn, &err)) ||
        (ret = oracle_engine_run(strbuf_str(&label), scn, rel, &o, &engine, &err))) {
        ret = program_fails(cx, id, "the engine cannot run it: ", &err, ret);
        goto out;
    }
    cx->program = id;
    cx->t->programs++;
    if ((ret = choice_search(cx, scn, rel, &o, &engine, &cs)))
        goto out;
    for (size_t i = 0; i < o.runs[0].nr; i++) {
        const struct orec *k = &o.runs[0].r[i];

        if (k->mark_idx != last_mark) {
            cx->t->marks++;
            last_mark = k->mark_idx;
        }
        check_file(cx, &o, k, &engine, choice_matched(&cs, k));
    }
    /* marks the engine reached and the kernel did not print, or the other way round */
    engine_marks = engine_last_mark(&engine, &o.runs[0]);
    if (engine_marks && o.runs[0].nr &&
        engine_marks != o.runs[0].r[o.runs[0].nr - 1].mark_idx + 1) {
        fprintf(cx->report, "DIFF %s %s: the kernel printed %u marks, the engine ran %u\n",
                cx->kernel, id, o.runs[0].r[o.runs[0].nr - 1].mark_idx + 1, engine_marks);
        cx->t->differ++;
    }
out:
    choice_search_release(&cs);
    orun_release(&engine);
    oout_release(&o);
    scenario_release(scn);
    strbuf_release(&err);
    strbuf_release(&name);
    strbuf_release(&label);
    return ret;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ids of @a's programs/<id>.out members that have a .json beside them, sorted. */
static int list_programs(const struct tar_archive *a, char ***out, size_t *nr)
{
    struct strbuf name = STRBUF_INIT;
    char **ids = NULL;
    size_t n = 0;

    *out = NULL;
    *nr = 0;
    for (size_t i = 0; i < a->nr; i++) {
        const char *p = a->m[i].path;
        size_t len = strlen(p);
        char *id;

        if (a->m[i].type != TAR_FILE || strncmp(p, "programs/", 9) || strchr(p + 9, '/') ||
            len < 9 + 5 || strcmp(p + len - 4, ".out"))
            continue;
        if (!(id = strndup(p + 9, len - 9 - 4)))
            goto err_nomem;
        if (!program_member(a, id, ".json", &name)) {
            free(id);
            continue;
        }
        if (!(ids = grow(ids, n, sizeof(*ids)))) {
            free(id);
            goto err_nomem;
        }
        ids[n++] = id;
    }
    strbuf_release(&name);
    qsort(ids, n, sizeof(*ids), cmp_str);
    *out = ids;
    *nr = n;
    return 0;
err_nomem:
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    strbuf_release(&name);
    return -ENOMEM;
}

/*
 * Read @dir/programs.tar.gz into @a.  A release without one has recorded
 * nothing yet (@a stays empty), unless an unpacked programs/ lies there.
 */
static int read_programs(const char *dir, struct tar_archive *a, struct strbuf *err)
{
    struct strbuf path = STRBUF_INIT;
    struct stat st;
    int ret = 0;

    memset(a, 0, sizeof(*a));
    strbuf_printf(&path, "%s/programs.tar.gz", dir);
    if (strbuf_failed(&path)) {
        ret = -ENOMEM;
    } else if (!stat(strbuf_str(&path), &st)) {
        ret = tar_read(strbuf_str(&path), a, err);
    } else {
        strbuf_reset(&path);
        strbuf_printf(&path, "%s/programs", dir);
        if (!stat(strbuf_str(&path), &st) && S_ISDIR(st.st_mode)) {
            strbuf_printf(err,
                          "%s/: oracle check reads the release's programs.tar.gz; pack it with "
                          "scripts/pack-fixtures oracle %s",
                          strbuf_str(&path), dir);
            ret = -EINVAL;
        }
    }
    strbuf_release(&path);
    return ret;
}

int oracle_check(const char *root, const char *only, bool verbose, FILE *report,
                 struct strbuf *summary, struct strbuf *err)
{
    char dirpath[1024], path[1100];
    struct lists lists = {0};
    DIR *d;
    struct dirent *de;
    char **kernels = NULL;
    size_t nr_kernels = 0;
    unsigned long failures = 0;
    int ret;

    snprintf(path, sizeof(path), "%s/tests/oracle/not-compared.txt", root);
    if ((ret = read_not_compared(path, &lists, err)))
        return ret;
    snprintf(path, sizeof(path), "%s/tests/oracle/known-differences.txt", root);
    if ((ret = read_known(path, root, &lists, err)))
        goto out;
    snprintf(dirpath, sizeof(dirpath), "%s/tests/oracle", root);
    if (!(d = opendir(dirpath))) {
        strbuf_printf(err, "%s: %s", dirpath, strerror(errno));
        ret = -ENOENT;
        goto out;
    }
    while ((de = readdir(d))) {
        if (sim_release_lookup(de->d_name) == SIM_RELEASE_NONE)
            continue;
        if (only && strcmp(only, de->d_name))
            continue;
        if (!(kernels = grow(kernels, nr_kernels, sizeof(*kernels))) ||
            !(kernels[nr_kernels] = strdup(de->d_name))) {
            closedir(d);
            ret = -ENOMEM;
            goto out;
        }
        nr_kernels++;
    }
    closedir(d);
    qsort(kernels, nr_kernels, sizeof(*kernels), cmp_str);
    for (size_t k = 0; k < nr_kernels; k++) {
        struct tally t = {0};
        struct check_ctx cx = {kernels[k], NULL, &lists, &t, report, verbose};
        char **ids;
        size_t nr_ids;

        struct tar_archive programs;
        struct strbuf archive = STRBUF_INIT;

        snprintf(path, sizeof(path), "%s/%s", dirpath, kernels[k]);
        if ((ret = read_programs(path, &programs, err)))
            goto out;
        strbuf_printf(&archive, "%s/programs.tar.gz", path);
        if ((ret = list_programs(&programs, &ids, &nr_ids)) || strbuf_failed(&archive)) {
            ret = ret ? ret : -ENOMEM;
            strbuf_release(&archive);
            tar_release(&programs);
            goto out;
        }
        for (size_t i = 0; i < nr_ids && !ret; i++)
            ret = check_program(&cx, &programs, strbuf_str(&archive), ids[i],
                                sim_release_lookup(kernels[k]));
        for (size_t i = 0; i < nr_ids; i++)
            free(ids[i]);
        free(ids);
        strbuf_release(&archive);
        tar_release(&programs);
        if (ret)
            goto out;
        if (!nr_ids)
            continue; /* a release whose kernel recorded nothing yet */
        strbuf_printf(summary,
                      "oracle check %s: programs %lu, marks %lu, files compared %lu, equal %lu, "
                      "known differences %lu, differences %lu (matched through choices %lu, not "
                      "compared %lu, totals only %lu, ranges %lu)\n",
                      kernels[k], t.programs, t.marks, t.compared, t.equal, t.known, t.differ,
                      t.choice, t.not_compared, t.totals_only, t.ranged);
        failures += t.differ;
    }
    for (size_t i = 0; i < lists.nr_kc; i++) {
        const struct known_cover *c = &lists.kc[i];

        if (c->hits || (only && strcmp(only, c->kernel)))
            continue;
        fprintf(report, "STALE known difference %s: covers %s %s %s, which no longer differs\n",
                lists.ke[c->entry].id, c->kernel, c->program, c->file);
        failures++;
    }
    ret = failures ? 1 : 0;
out:
    for (size_t i = 0; i < nr_kernels; i++)
        free(kernels[i]);
    free(kernels);
    lists_release(&lists);
    return ret;
}
