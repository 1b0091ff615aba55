/*
 * oracle.h: the engine side of the kernel oracle (docs/fidelity.md).
 *
 * A real kernel judges the engine: random programs of slab operations
 * (oracle_gen.c) run on kernels booted under QEMU, which print every file
 * of /sys/kernel/slab/<cache>/ at each mark into fixtures under
 * tests/oracle/<kernel>/ (the format is in docs/fidelity.md).  The checker
 * (oracle_check.c) runs each recorded program on the engine with that
 * kernel's release (docs/engine.md, the table of releases), renders the
 * same files with kfiles' sysfs tree, and compares them file by file.
 */
#ifndef SLUBLAB_SERVER_CLI_ORACLE_H
#define SLUBLAB_SERVER_CLI_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "slub.h"

/* oracle_gen.c */

/* What a random program may use. */
struct oracle_gen_opts {
    uint64_t seed;  /* the program's seed: same seed and options, same bytes */
    unsigned cpus;  /* 1..8; 0: 4 */
    unsigned nodes; /* 1..2 (and <= cpus); 0: drawn from the seed */
    bool seven;     /* 7.x operations too: prefill/refill/return, kfree_rcu */
    bool shrink;    /* weighted for a shrink after remote frees and bulk frees */
};

/*
 * Append the scenario (format 1, named "r<seed>") of @o's random program to
 * @out.  It uses only operations a kernel can express: create, alloc (on a
 * node), free (FIFO, LIFO or random order, on the allocating CPU or
 * another, so remote and cross-node frees), alloc_bulk, free_bulk, shrink
 * and marks; with @o->seven also prefill, alloc_from_sheaf, refill_sheaf,
 * return_sheaf, and kfree_rcu always followed by rcu_barrier before the
 * next mark.  With @o->shrink, frees run on another CPU half the time or
 * more and every free that ran remotely (a single free, a burst, a bulk
 * free) is followed by a shrink and a mark: the programs whose result
 * depends on the order of flush_all()'s works.  -EINVAL for options out of
 * range, -ENOMEM.
 */
int oracle_gen(struct strbuf *out, const struct oracle_gen_opts *o);

/* oracle_check.c */

/*
 * Print to @f, in the fixtures' .out format, what the engine shows for
 * @program run as @release ("6.12") on @topology ("cpus=4 nodes=1
 * cpu_node=0,0,0,0"; NULL: the program's machine): one run, every cache's
 * files at each mark.  0, or a negative errno with the reason in @err.
 */
int oracle_engine_print(const char *program, const char *release, const char *topology, FILE *f,
                        struct strbuf *err);
/*
 * Check every fixture of @root/tests/oracle/<release>/ (only release @only
 * when not NULL) against the engine: each difference (and, with @verbose,
 * each known one) to @report, one summary line per release appended to
 * @summary.  0 when nothing differs outside the known differences, 1 when
 * something does (or a known difference covers nothing any more), or a
 * negative errno with the reason in @err (an unreadable list).
 */
int oracle_check(const char *root, const char *only, bool verbose, FILE *report,
                 struct strbuf *summary, struct strbuf *err);

#endif /* SLUBLAB_SERVER_CLI_ORACLE_H */
