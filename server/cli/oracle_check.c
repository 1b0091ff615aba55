/*
 * oracle_check.c: the engine judged by real kernels (see oracle.h).
 *
 * A fixture is a program (programs/<id>.json, a scenario) and what a kernel
 * printed running it (programs/<id>.out): a header (kernel, topology), then
 * for each run and each mark, every file of /sys/kernel/slab/<cache>/ as
 * "<file> <first line>".  The engine runs the same program with the
 * release's model (sim_release_apply()) on the topology's machine; at each
 * mark the replay's mark hook builds kfiles' sysfs tree from a snapshot,
 * the same tree `slublab export --sysfs` writes, and keeps each file's
 * first line.  Both sides become runs of records (mark index, mark, cache,
 * file, value).
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

#include "kfiles/kfiles.h"
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

static int oracle_read_out(const char *path, struct oout *o, struct strbuf *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, mark[256] = "", cache[256] = "";
    size_t cap = 0;
    ssize_t len;
    unsigned lineno = 0, mark_idx = 0;
    bool in_mark = false;
    int ret = 0;

    memset(o, 0, sizeof(*o));
    if (!f) {
        strbuf_printf(err, "%s: %s", path, strerror(errno));
        return -errno;
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
    sysfs_tree_release(&tree);
    sim_snapshot_release(snap);
    cap->mark_idx++;
    return err;
}

/*
 * Run @program on the engine as release @rel on @topo's machine (when it
 * has one), the files at each mark into @run (sorted).  0, or a negative
 * errno with the reason in @err.
 */
static int oracle_engine_run(const char *program, enum sim_release rel, const struct oout *topo,
                             struct orun *run, struct strbuf *err)
{
    struct scenario *scn = NULL;
    struct replay rp = {0};
    struct engine_capture cap = {run, 0, 0};
    struct sim_config cfg;
    int ret;

    memset(run, 0, sizeof(*run));
    if ((ret = scenario_load(program, &scn, err)))
        return ret;
    cfg = scn->config;
    if (sim_release_apply(rel, &cfg)) {
        scenario_release(scn);
        strbuf_printf(err, "%s: no such release", program);
        return -EINVAL;
    }
    if (topo && topo->has_topology) {
        cfg.nr_cpus = topo->cpus;
        cfg.nr_nodes = topo->nodes;
        memcpy(cfg.cpu_node, topo->cpu_node, sizeof(cfg.cpu_node));
        cfg.present_cpus = 0;
    }
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
    if (rp.nr_warnings_total) {
        strbuf_printf(err, "%s: the engine warned: %s: %s", program,
                      rp.warnings ? rp.warnings[0].path : "?",
                      rp.warnings ? rp.warnings[0].message : "?");
        ret = -EINVAL;
        goto out;
    }
    qsort(run->r, run->nr, sizeof(*run->r), orec_cmp);
out:
    if (ret)
        orun_release(run);
    replay_release(&rp);
    scenario_release(scn);
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
    if ((ret = oracle_engine_run(program, rel, topology ? &topo : NULL, &run, err)))
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
            ranged;
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

/* Compare one kernel file (as printed in every run) with the engine's. */
static void check_file(struct check_ctx *cx, const struct oout *o, const struct orec *k0,
                       const struct orun *engine)
{
    const struct orec *e = orun_find(engine, k0);
    bool same = true, totals_same = true, numeric = true, equal;
    int64_t lo = 0, hi = 0, v;
    char kernel_text[512], engine_text[512];
    const char *how;
    struct known_cover *kc;

    if (lists_not_compared(cx->lists, k0->file)) {
        cx->t->not_compared++;
        return;
    }
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
    cx->t->compared++;
    if (same) {
        how = "every run";
        snprintf(kernel_text, sizeof(kernel_text), "%s", k0->value);
        snprintf(engine_text, sizeof(engine_text), "%s", e ? e->value : "(no such file)");
        equal = e && !strcmp(e->value, k0->value);
    } else if (totals_same) {
        cx->t->totals_only++;
        how = "totals: the kernel's runs differ per CPU";
        snprintf(kernel_text, sizeof(kernel_text), "%.*s", (int)first_word_len(k0->value),
                 k0->value);
        snprintf(engine_text, sizeof(engine_text), "%.*s", e ? (int)first_word_len(e->value) : 13,
                 e ? e->value : "(no such file)");
        equal = e && !strcmp(kernel_text, engine_text);
    } else if (numeric) {
        cx->t->ranged++;
        how = "range: the kernel's runs differ in total";
        snprintf(kernel_text, sizeof(kernel_text), "%" PRId64 "..%" PRId64, lo, hi);
        snprintf(engine_text, sizeof(engine_text), "%.*s", e ? (int)first_word_len(e->value) : 13,
                 e ? e->value : "(no such file)");
        equal = e && first_number(e->value, &v) && v >= lo && v <= hi;
    } else {
        how = "the kernel's runs differ";
        snprintf(kernel_text, sizeof(kernel_text), "%s (run 1)", k0->value);
        snprintf(engine_text, sizeof(engine_text), "%s", e ? e->value : "(no such file)");
        equal = false;
    }
    if (equal) {
        cx->t->equal++;
        return;
    }
    kc = lists_known(cx->lists, cx->kernel, cx->program, k0->file);
    if (kc) {
        kc->hits++;
        cx->t->known++;
        if (cx->verbose)
            report_diff(cx, k0, how, kernel_text, engine_text, true);
        return;
    }
    cx->t->differ++;
    report_diff(cx, k0, how, kernel_text, engine_text, false);
}

/* One fixture: programs/<id>.json and .out. */
static int check_program(struct check_ctx *cx, const char *dir, const char *id,
                         enum sim_release rel)
{
    char json[1024], out[1024];
    struct strbuf err = STRBUF_INIT;
    struct oout o;
    struct orun engine;
    unsigned last_mark = UINT32_MAX;
    int ret;

    if ((size_t)snprintf(json, sizeof(json), "%s/programs/%s.json", dir, id) >= sizeof(json) ||
        (size_t)snprintf(out, sizeof(out), "%s/programs/%s.out", dir, id) >= sizeof(out))
        return -ENAMETOOLONG;
    if ((ret = oracle_read_out(out, &o, &err))) {
        fprintf(cx->report, "DIFF %s %s: %s\n", cx->kernel, id, strbuf_str(&err));
        cx->t->differ++;
        strbuf_release(&err);
        oout_release(&o);
        return ret == -ENOMEM ? ret : 0;
    }
    if ((ret = oracle_engine_run(json, rel, &o, &engine, &err))) {
        fprintf(cx->report, "DIFF %s %s: the engine cannot run it: %s\n", cx->kernel, id,
                strbuf_str(&err));
        cx->t->differ++;
        strbuf_release(&err);
        oout_release(&o);
        return ret == -ENOMEM ? ret : 0;
    }
    cx->program = id;
    cx->t->programs++;
    for (size_t i = 0; i < o.runs[0].nr; i++) {
        const struct orec *k = &o.runs[0].r[i];

        if (k->mark_idx != last_mark) {
            cx->t->marks++;
            last_mark = k->mark_idx;
        }
        check_file(cx, &o, k, &engine);
    }
    /* marks the engine reached and the kernel did not print, or the other way round */
    if (engine.nr && o.runs[0].nr &&
        engine.r[engine.nr - 1].mark_idx != o.runs[0].r[o.runs[0].nr - 1].mark_idx) {
        fprintf(cx->report, "DIFF %s %s: the kernel printed %u marks, the engine ran %u\n",
                cx->kernel, id, o.runs[0].r[o.runs[0].nr - 1].mark_idx + 1,
                engine.r[engine.nr - 1].mark_idx + 1);
        cx->t->differ++;
    }
    orun_release(&engine);
    oout_release(&o);
    strbuf_release(&err);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ids of @dir/programs/ that have both a .json and a .out, sorted. */
static int list_programs(const char *dir, char ***out, size_t *nr)
{
    char path[1024];
    DIR *d;
    struct dirent *de;
    char **ids = NULL;
    size_t n = 0;

    *out = NULL;
    *nr = 0;
    if ((size_t)snprintf(path, sizeof(path), "%s/programs", dir) >= sizeof(path))
        return -ENAMETOOLONG;
    if (!(d = opendir(path)))
        return 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        char json[1200];
        FILE *f;

        if (len < 5 || strcmp(de->d_name + len - 4, ".out"))
            continue;
        snprintf(json, sizeof(json), "%s/%.*s.json", path, (int)(len - 4), de->d_name);
        if (!(f = fopen(json, "r")))
            continue;
        fclose(f);
        if (!(ids = grow(ids, n, sizeof(*ids))) || !(ids[n] = strndup(de->d_name, len - 4))) {
            closedir(d);
            return -ENOMEM;
        }
        n++;
    }
    closedir(d);
    qsort(ids, n, sizeof(*ids), cmp_str);
    *out = ids;
    *nr = n;
    return 0;
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

        snprintf(path, sizeof(path), "%s/%s", dirpath, kernels[k]);
        if ((ret = list_programs(path, &ids, &nr_ids)))
            goto out;
        for (size_t i = 0; i < nr_ids && !ret; i++)
            ret = check_program(&cx, path, ids[i], sim_release_lookup(kernels[k]));
        for (size_t i = 0; i < nr_ids; i++)
            free(ids[i]);
        free(ids);
        if (ret)
            goto out;
        if (!nr_ids)
            continue; /* a release whose kernel recorded nothing yet */
        strbuf_printf(summary,
                      "oracle check %s: programs %lu, marks %lu, files compared %lu, equal %lu, "
                      "known differences %lu, differences %lu (not compared %lu, totals only "
                      "%lu, ranges %lu)\n",
                      kernels[k], t.programs, t.marks, t.compared, t.equal, t.known, t.differ,
                      t.not_compared, t.totals_only, t.ranged);
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
