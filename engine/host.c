/*
 * host.c: the host memory the engine runs on, and the BUG it stops at.
 *
 * Every host allocation of the engine goes through sim_zalloc() or
 * sim_realloc(), so a test can make the Nth one fail (sim_fail_host_alloc).  If
 * the host runs out in the middle of an operation, or a test injects that, the
 * allocation unwinds to sim_apply() through sim->oom_jmp, which returns -ENOMEM
 * and marks the machine broken: a half-applied operation is never visible,
 * because every later call on a broken machine fails with -EIO.  Temporaries of
 * one operation come from sim_scratch_alloc(), so the unwinding can release
 * them.  Outside sim_apply() nothing may allocate through here (SIM_BUG_ON).
 * This file calls no other engine file.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Report an impossible state and stop (SIM_BUG_ON).  Does not return. */
void sim_bug(const char *file, int line, const char *cond)
{
    fprintf(stderr, "%s:%d: BUG: %s\n", file, line, cond);
    abort();
}

static bool host_alloc_fails(struct sim *sim)
{
    if (!sim->fail_alloc_in)
        return false;
    return --sim->fail_alloc_in == 0;
}

static void *host_oom(struct sim *sim)
{
    SIM_BUG_ON(!sim->in_apply); /* outside sim_apply() allocations are checked */
    longjmp(sim->oom_jmp, 1);
}

/* Zeroed host memory; never returns NULL (unwinds instead). */
void *sim_zalloc(struct sim *sim, size_t size)
{
    void *p = host_alloc_fails(sim) ? NULL : calloc(1, size);

    return p ? p : host_oom(sim);
}

/* realloc that never returns NULL (unwinds instead). */
void *sim_realloc(struct sim *sim, void *old, size_t size)
{
    void *p = host_alloc_fails(sim) ? NULL : realloc(old, size);

    return p ? p : host_oom(sim);
}

/* Release memory from sim_zalloc() or sim_realloc(); NULL is fine. */
void sim_free(void *p)
{
    free(p);
}

/* Zeroed memory for the operation being applied, released with
 * sim_scratch_free(), or by sim_apply() if a host allocation unwinds the
 * operation first.  Never returns NULL (unwinds instead). */
void *sim_scratch_alloc(struct sim *sim, size_t size)
{
    void *p;

    SIM_BUG_ON(sim->nr_scratch == SCRATCH_MAX);
    p = sim_zalloc(sim, size);
    sim->scratch[sim->nr_scratch++] = p;
    return p;
}

/* Release memory from sim_scratch_alloc().  Cannot fail. */
void sim_scratch_free(struct sim *sim, void *p)
{
    for (unsigned i = sim->nr_scratch; i-- > 0;) {
        if (sim->scratch[i] == p) {
            sim->scratch[i] = sim->scratch[--sim->nr_scratch];
            break;
        }
    }
    sim_free(p);
}

/* Release every scratch block of the operation being unwound.  Cannot fail. */
void sim_scratch_release_all(struct sim *sim)
{
    while (sim->nr_scratch)
        sim_free(sim->scratch[--sim->nr_scratch]);
}

/* Make the @n-th host allocation from now fail (0: none). */
void sim_fail_host_alloc(struct sim *sim, unsigned long n)
{
    sim->fail_alloc_in = n;
}
