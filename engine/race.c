/*
 * race.c: races between contexts (SIM_OP_RACE): SLUB's lock-free fast
 * paths split into their atomic steps and interleaved by a schedule.
 *
 * A race names two or three contexts (a task or an interrupt on a CPU),
 * each with a few operations, and a schedule of their steps (slub.h).  An
 * operation is split only where the kernel's correctness depends on the
 * order of its steps; what runs under a lock that shuts out every other
 * context of interest (irqs off, a spinlock) runs whole in one step, by the
 * engine's ordinary functions, whose events follow the step's own event:
 *
 *   legacy alloc (__slab_alloc_node, 6.2-6.17, and the hybrid model's caches
 *     without sheaves): read c->tid, read
 *     c->freelist and c->slab, read the object's free pointer, then
 *     this_cpu_cmpxchg_double on the current CPU's c->freelist and c->tid;
 *     a failure counts cmpxchg_double_cpu_fail and retries from the tid.
 *     An empty freelist takes ___slab_alloc under local_lock_irqsave:
 *     one step.
 *   legacy free (do_slab_free): read c->tid and c->slab, read c->freelist
 *     and store it in the object, cmpxchg; another CPU's slab goes to
 *     __slab_free: read slab->freelist and slab->counters (storing the
 *     freelist in the object), then cmpxchg_double on the slab, whose
 *     failure counts cmpxchg_double_fail and retries.
 *   legacy flush (flush_slab, then deactivate_slab): detach c->slab and
 *     c->freelist under LOCK(c), read the slab's freelist and counters, and
 *     unfreeze it with cmpxchg_double (the list placement under
 *     n->list_lock is part of that step).
 *   sheaves alloc and free (alloc_from_pcs, free_to_pcs, 7.x):
 *     local_trylock(pcs->lock), the sheaf work, unlock; a context finding
 *     the lock taken (an interrupt on the CPU of a task holding it) fails
 *     the trylock and takes the slab path (__slab_alloc_node, __slab_free)
 *     in one step.  A free into a full main sheaf takes barn->lock
 *     (__pcs_replace_full_main) and does the barn work in that step; a
 *     context finding it taken spins (one step) and waits.
 *
 * Who may step: an interrupt, once entered, runs to its irq_exit, and
 * shuts out the tasks of its CPU; a task holding pcs->lock (preemption
 * off) shuts out the other tasks of its CPU; one holding barn->lock (irqs
 * off) shuts out everything on its CPU and cannot be joined by an
 * interrupt.  Migration ("A>1") is a step of a task holding no lock.
 *
 * sim_apply() checks a race by running it first on a clone, so a schedule
 * that names a context that cannot step fails with -EINVAL and the message
 * naming the token, the machine unchanged.  The config's race_no_tid (NOT
 * A KERNEL) makes the legacy cmpxchg compare c->freelist alone: a step
 * whose cmpxchg matched a freelist whose tid moved reports the lost update,
 * and the validator's verdict on the state after the race is reported as
 * the event validate_slab_cache.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define RACE_MAX_STEPS 4096u

enum race_phase {
    PH_START, /* the operation's first step picks its path */
    PH_IRQ_ENTER,
    PH_IRQ_EXIT,
    PH_LA_TID, /* legacy alloc */
    PH_LA_FREELIST,
    PH_LA_NEXT,
    PH_LA_CMPXCHG,
    PH_LA_SLOW,
    PH_LF_TID, /* legacy free */
    PH_LF_FREELIST,
    PH_LF_CMPXCHG,
    PH_LF_SLOW_READ,
    PH_LF_SLOW_CMPXCHG,
    PH_LD_DETACH, /* legacy flush */
    PH_LD_READ,
    PH_LD_CMPXCHG,
    PH_Q_LOCK, /* sheaves */
    PH_Q_BARN,
    PH_Q_UNLOCK_BARN,
    PH_Q_UNLOCK,
    PH_Q_SLOW,
    PH_DONE,
};

struct race_ctx {
    const struct sim_race_ctx *def;
    unsigned cpu; /* where it runs now */
    unsigned op;  /* the operation running */
    enum race_phase phase;
    unsigned index; /* steps taken */
    bool started;   /* an interrupt: entered */
    bool finished;
    bool holds_pcs, holds_barn, spun, need_slow;
    /* what the split operation has read so far */
    uint64_t tid;
    unsigned tid_cpu; /* the CPU whose c the tid and freelist were read from */
    unsigned tid_step, freelist_step, next_step;
    unsigned next_gstep; /* the race's step count at read_next */
    sim_addr_t object, next, prior;
    uint64_t counters;
    uint32_t slab;    /* legacy flush: the detached slab */
    sim_addr_t chain; /* legacy flush: the detached freelist, in flight */
};

struct race_run {
    struct sim *sim;
    struct kmem_cache *s;
    const struct sim_race *race;
    struct sim_race_result *out;
    struct race_ctx c[SIM_RACE_MAX_CTX];
    int pcs_holder[SIM_MAX_CPUS];   /* context holding the CPU's pcs->lock, or -1 */
    int barn_holder[SIM_MAX_NODES]; /* context holding the node's barn->lock, or -1 */
    struct sim_step step;           /* the step being built */
    char report[600];
    struct fl_write { /* the fast paths' successful cmpxchgs, for NO_TID's story */
        const char *ctx;
        unsigned index, cpu, gstep; /* gstep: the race's step count when it wrote */
        sim_addr_t old, new;
    } fl_log[64];
    unsigned nr_fl_log;
};

/* Remember that @x's step moved CPU @cpu's c->freelist from @old to @new. */
static void fl_note(struct race_run *r, const struct race_ctx *x, sim_addr_t old, sim_addr_t new)
{
    struct fl_write *w;

    if (r->nr_fl_log == sizeof(r->fl_log) / sizeof(r->fl_log[0]))
        return;
    w = &r->fl_log[r->nr_fl_log++];
    w->ctx = x->def->id;
    w->index = x->index;
    w->gstep = r->out->steps;
    w->cpu = x->cpu;
    w->old = old;
    w->new = new;
}

static bool legacy(const struct race_run *r)
{
    return cache_has_cpu_slab(r->s);
}

/* Counters as the kernel packs them next to slab->freelist: inuse, objects, frozen. */
static uint64_t slab_counters(const struct slab *slab)
{
    return (uint64_t)slab->inuse | (uint64_t)slab->objects << 16 |
           (uint64_t)(slab->cpu_frozen ? 1 : 0) << 31;
}

static struct sim_word word(const char *name, int cpu, sim_addr_t slab, sim_addr_t addr)
{
    struct sim_word w = {.word = name, .cpu = cpu, .node = -1, .slab = slab, .addr = addr};

    return w;
}

static void rd(struct race_run *r, struct sim_word w, uint64_t value)
{
    if (r->step.nr_reads == SIM_STEP_WORDS)
        return;
    w.value = value;
    r->step.reads[r->step.nr_reads++] = w;
}

static void wr(struct race_run *r, struct sim_word w, uint64_t old, uint64_t value)
{
    if (r->step.nr_writes == SIM_STEP_WORDS)
        return;
    w.old = old;
    w.value = value;
    r->step.writes[r->step.nr_writes++] = w;
}

/* Start building a step of @x (kind set when it opens). */
static void step_prepare(struct race_run *r, struct race_ctx *x)
{
    memset(&r->step, 0, sizeof(r->step));
    r->step.ctx = x->def->id;
    r->step.index = x->index;
    r->sim->cpu = (int)x->cpu;
    r->sim->race_ctx = x->def->id;
    r->sim->gfp = x->def->kind == SIM_RACE_IRQ ? SIM_GFP_ATOMIC : SIM_GFP_KERNEL;
    r->sim->gfp_ctx = sim_gfp_ctx_of(x->def->kind == SIM_RACE_IRQ ? SIM_CTX_ATOMIC : SIM_CTX_TASK,
                                     r->sim->cfg.cma);
}

/* Open the step's event: it carries the step; close it with ev_end(). */
static void step_open(struct race_run *r, const char *fn, const char *kind, int node)
{
    r->step.kind = kind;
    ev_begin(r->sim, r->s, fn, kind, node);
    r->sim->race_step = &r->step;
}

/* A step with nothing but its words. */
static void step_emit(struct race_run *r, const char *fn, const char *kind, int node)
{
    step_open(r, fn, kind, node);
    ev_end(r->sim);
}

static struct kmem_cache_cpu *cpu_c(struct race_run *r, unsigned cpu)
{
    return &r->s->cpu_slab[cpu];
}

static sim_addr_t slab_base(struct race_run *r, uint32_t idx)
{
    return idx ? slab_at(r->sim, idx)->base : 0;
}

/* The object a free operation frees (0: its alloc got nothing). */
static sim_addr_t free_object(struct race_run *r, const struct race_ctx *x)
{
    const struct sim_race_op *o = &x->def->ops[x->op];
    size_t ci = (size_t)(x - r->c);

    return o->ref >= 0 ? r->out->addr[ci][o->ref] : o->addr;
}

/* The operation of @x ended: the next one, or the interrupt's exit, or the end. */
static void op_end(struct race_run *r, struct race_ctx *x)
{
    (void)r;
    x->op++;
    x->phase = PH_START;
    x->spun = x->need_slow = false;
    if (x->op < x->def->nr_ops)
        return;
    if (x->def->kind == SIM_RACE_IRQ)
        x->phase = PH_IRQ_EXIT;
    else
        x->finished = true;
}

/* The first phase of the operation @x is at. */
static enum race_phase op_first_phase(struct race_run *r, struct race_ctx *x)
{
    const struct sim_race_op *o = &x->def->ops[x->op];

    if (o->kind == SIM_OP_FREE) {
        sim_addr_t obj = free_object(r, x);

        x->object = obj;
        if (!obj)
            return PH_DONE;
        if (legacy(r))
            return PH_LF_TID;
        return slab_of(r->sim, obj)->node == (int)r->sim->cfg.cpu_node[x->cpu] ? PH_Q_LOCK
                                                                               : PH_Q_SLOW;
    }
    if (o->kind == SIM_OP_FLUSH_ALL)
        return PH_LD_DETACH;
    return legacy(r) ? PH_LA_TID : PH_Q_LOCK;
}

static bool is_alloc(const struct race_ctx *x)
{
    return x->def->ops[x->op].kind == SIM_OP_ALLOC;
}

static void set_result(struct race_run *r, struct race_ctx *x, sim_addr_t obj)
{
    r->out->addr[x - r->c][x->op] = obj;
}

/*
 * NO_TID: the cmpxchg matched although c->tid moved.  An allocation then
 * loses an update when c->freelist was written after it read the next
 * free pointer (the head came back: ABA, and the next pointer is stale);
 * a free when it pushes onto another slab's freelist (a migrated task).
 * Reports which step's update is lost; false when none is.
 */
static bool lost_update(struct race_run *r, struct race_ctx *x, uint64_t tid_now)
{
    bool alloc = is_alloc(x);
    sim_addr_t head = alloc ? x->object : x->prior;
    const struct fl_write *lost = NULL;
    char who[300] = "";

    for (unsigned i = 0; alloc && i < r->nr_fl_log; i++)
        if (r->fl_log[i].cpu == x->cpu && r->fl_log[i].gstep > x->next_gstep &&
            r->fl_log[i].gstep < r->out->steps && (!lost || r->fl_log[i].old == x->next))
            lost = &r->fl_log[i];
    if (alloc ? !lost : cpu_c(r, x->cpu)->slab == slab_idx(r->sim, slab_of(r->sim, x->object)))
        return false;
    r->out->lost_updates++;
    if (alloc && lost->old == x->next)
        snprintf(who, sizeof(who),
                 "; %s's step %u (cmpxchg) had taken 0x%llx off c->freelist, and that update "
                 "is lost: 0x%llx is in use and free at once",
                 lost->ctx, lost->index, (unsigned long long)x->next, (unsigned long long)x->next);
    else if (alloc)
        snprintf(who, sizeof(who), "; %s's step %u changed c->freelist after that read", lost->ctx,
                 lost->index);
    else
        snprintf(who, sizeof(who), "; 0x%llx goes onto the freelist of CPU %u, not its slab's",
                 (unsigned long long)x->object, x->cpu);
    snprintf(r->report, sizeof(r->report),
             "NO_TID (not a kernel): %s's cmpxchg compared c->freelist (0x%llx) alone and "
             "matched, but c->tid moved from 0x%llx (read at %s's step %u) to 0x%llx: it "
             "installs 0x%llx, read at step %u, which is stale%s",
             x->def->id, (unsigned long long)head, (unsigned long long)x->tid, x->def->id,
             x->tid_step, (unsigned long long)tid_now,
             (unsigned long long)(alloc ? x->next : x->object),
             alloc ? x->next_step : x->freelist_step, who);
    ev_report(r->sim, r->report);
    return true;
}

/* ---- the legacy model ---------------------------------------------------- */

static void step_legacy_alloc(struct race_run *r, struct race_ctx *x)
{
    struct sim *sim = r->sim;
    struct kmem_cache *s = r->s;
    struct kmem_cache_cpu *c;
    int cpu = (int)x->cpu;

    switch (x->phase) {
    case PH_LA_TID:
        c = cpu_c(r, x->cpu);
        x->tid = c->tid;
        x->tid_cpu = x->cpu;
        x->tid_step = x->index;
        rd(r, word("c->tid", cpu, 0, 0), c->tid);
        step_emit(r, "__slab_alloc_node", "read_tid", cpu_node(sim));
        x->phase = PH_LA_FREELIST;
        return;
    case PH_LA_FREELIST:
        c = cpu_c(r, x->tid_cpu); /* c was taken with the tid: raw_cpu_ptr */
        x->object = c->freelist;
        x->slab = c->slab;
        x->freelist_step = x->index;
        rd(r, word("c->freelist", (int)x->tid_cpu, 0, 0), c->freelist);
        rd(r, word("c->slab", (int)x->tid_cpu, 0, 0), slab_base(r, c->slab));
        step_emit(r, "__slab_alloc_node", "read_freelist", cpu_node(sim));
        x->phase = x->object && x->slab ? PH_LA_NEXT : PH_LA_SLOW;
        return;
    case PH_LA_NEXT:
        x->next = peek_freepointer(sim, s, x->object, NULL);
        x->next_step = x->index;
        x->next_gstep = r->out->steps;
        rd(r, word("object->next", -1, 0, x->object), x->next);
        step_emit(r, "__slab_alloc_node", "read_next", cpu_node(sim));
        x->phase = PH_LA_CMPXCHG;
        return;
    case PH_LA_CMPXCHG: {
        bool no_tid = sim->cfg.race_no_tid;
        uint64_t tid_now;

        c = cpu_c(r, x->cpu); /* this_cpu_cmpxchg: the CPU it runs on now */
        tid_now = c->tid;
        if (c->freelist != x->object || (!no_tid && c->tid != x->tid)) {
            rd(r, word("c->freelist", cpu, 0, 0), c->freelist);
            rd(r, word("c->tid", cpu, 0, 0), c->tid);
            step_open(r, "__slab_alloc_node", "cmpxchg_fail", cpu_node(sim));
            stat_add(sim, s, SIM_CMPXCHG_DOUBLE_CPU_FAIL, 1);
            ev_end(sim);
            x->phase = PH_LA_TID;
            return;
        }
        wr(r, word("c->freelist", cpu, 0, 0), c->freelist, x->next);
        wr(r, word("c->tid", cpu, 0, 0), c->tid, legacy_next_tid(sim, no_tid ? tid_now : x->tid));
        step_open(r, "__slab_alloc_node", "cmpxchg", cpu_node(sim));
        fl_note(r, x, c->freelist, x->next);
        c->freelist = x->next;
        c->tid = legacy_next_tid(sim, no_tid ? tid_now : x->tid);
        obj_leave(sim, x->object, place_cpu_freelist(slab_of(sim, x->object), x->cpu),
                  place_none(SIM_PL_USER));
        stat_add(sim, s, SIM_ALLOC_FASTPATH, 1);
        if (no_tid && tid_now != x->tid)
            lost_update(r, x, tid_now);
        ev_end(sim);
        set_result(r, x, x->object);
        op_end(r, x);
        return;
    }
    case PH_LA_SLOW:
        /* __slab_alloc: local_lock_irqsave, then ___slab_alloc whole */
        step_emit(r, "__slab_alloc", "lock", cpu_node(sim));
        set_result(r, x, kmem_cache_alloc_node(sim, s, SIM_NUMA_NO_NODE, sim->gfp));
        op_end(r, x);
        return;
    default:
        SIM_BUG_ON(1);
    }
}

static void step_legacy_free(struct race_run *r, struct race_ctx *x)
{
    struct sim *sim = r->sim;
    struct kmem_cache *s = r->s;
    struct slab *slab = slab_of(sim, x->object);
    uint32_t idx = slab_idx(sim, slab);
    struct kmem_cache_cpu *c;
    int cpu = (int)x->cpu;

    switch (x->phase) {
    case PH_LF_TID:
        c = cpu_c(r, x->cpu);
        x->tid = c->tid;
        x->tid_cpu = x->cpu;
        x->tid_step = x->index;
        rd(r, word("c->tid", cpu, 0, 0), c->tid);
        rd(r, word("c->slab", cpu, 0, 0), slab_base(r, c->slab));
        step_emit(r, "do_slab_free", "read_tid", slab->node);
        x->phase = c->slab == idx ? PH_LF_FREELIST : PH_LF_SLOW_READ;
        return;
    case PH_LF_FREELIST: {
        uint64_t before = peek_freepointer(sim, s, x->object, NULL);

        c = cpu_c(r, x->tid_cpu);
        x->prior = c->freelist;
        x->freelist_step = x->index;
        rd(r, word("c->freelist", (int)x->tid_cpu, 0, 0), c->freelist);
        wr(r, word("object->next", -1, 0, x->object), before, x->prior);
        step_open(r, "do_slab_free", "read_freelist", slab->node);
        set_freepointer(sim, s, x->object, x->prior);
        ev_end(sim);
        x->phase = PH_LF_CMPXCHG;
        return;
    }
    case PH_LF_CMPXCHG: {
        bool no_tid = sim->cfg.race_no_tid;
        uint64_t tid_now;

        c = cpu_c(r, x->cpu);
        tid_now = c->tid;
        if (c->freelist != x->prior || (!no_tid && c->tid != x->tid)) {
            rd(r, word("c->freelist", cpu, 0, 0), c->freelist);
            rd(r, word("c->tid", cpu, 0, 0), c->tid);
            step_open(r, "do_slab_free", "cmpxchg_fail", slab->node);
            stat_add(sim, s, SIM_CMPXCHG_DOUBLE_CPU_FAIL, 1);
            ev_end(sim);
            x->phase = PH_LF_TID;
            return;
        }
        wr(r, word("c->freelist", cpu, 0, 0), c->freelist, x->object);
        wr(r, word("c->tid", cpu, 0, 0), c->tid, legacy_next_tid(sim, no_tid ? tid_now : x->tid));
        step_open(r, "do_slab_free", "cmpxchg", slab->node);
        fl_note(r, x, c->freelist, x->object);
        c->freelist = x->object;
        c->tid = legacy_next_tid(sim, no_tid ? tid_now : x->tid);
        obj_leave(sim, x->object, place_none(SIM_PL_USER), place_cpu_freelist(slab, x->cpu));
        stat_add(sim, s, SIM_FREE_FASTPATH, 1);
        if (no_tid && tid_now != x->tid)
            lost_update(r, x, tid_now);
        ev_end(sim);
        op_end(r, x);
        return;
    }
    case PH_LF_SLOW_READ: {
        uint64_t before = peek_freepointer(sim, s, x->object, NULL);

        x->prior = slab->freelist;
        x->counters = slab_counters(slab);
        rd(r, word("slab->freelist", -1, slab->base, 0), slab->freelist);
        rd(r, word("slab->counters", -1, slab->base, 0), x->counters);
        wr(r, word("object->next", -1, 0, x->object), before, x->prior);
        step_open(r, "__slab_free", "read_freelist", slab->node);
        set_freepointer(sim, s, x->object, x->prior);
        ev_end(sim);
        x->phase = PH_LF_SLOW_CMPXCHG;
        return;
    }
    case PH_LF_SLOW_CMPXCHG:
        if (slab->freelist != x->prior || slab_counters(slab) != x->counters) {
            rd(r, word("slab->freelist", -1, slab->base, 0), slab->freelist);
            rd(r, word("slab->counters", -1, slab->base, 0), slab_counters(slab));
            step_open(r, "__slab_free", "cmpxchg_fail", slab->node);
            stat_add(sim, s, SIM_CMPXCHG_DOUBLE_FAIL, 1);
            ev_end(sim);
            x->phase = PH_LF_SLOW_READ;
            return;
        }
        wr(r, word("slab->freelist", -1, slab->base, 0), slab->freelist, x->object);
        wr(r, word("slab->counters", -1, slab->base, 0), x->counters, x->counters - 1);
        step_emit(r, "__slab_free", "cmpxchg", slab->node);
        /* the update and what follows it (lists, n->list_lock) */
        legacy_slab_free_slow(sim, s, idx, &x->object, 1, place_none(SIM_PL_USER));
        op_end(r, x);
        return;
    default:
        SIM_BUG_ON(1);
    }
}

static void step_legacy_flush(struct race_run *r, struct race_ctx *x)
{
    struct sim *sim = r->sim;
    struct kmem_cache *s = r->s;
    struct kmem_cache_cpu *c = cpu_c(r, x->cpu);
    int cpu = (int)x->cpu;
    struct slab *slab;

    switch (x->phase) {
    case PH_LD_DETACH: {
        uint64_t tid = c->tid;
        sim_addr_t fl = c->freelist;
        uint32_t had = c->slab;

        if (had) {
            wr(r, word("c->slab", cpu, 0, 0), slab_base(r, had), 0);
            wr(r, word("c->freelist", cpu, 0, 0), fl, 0);
            wr(r, word("c->tid", cpu, 0, 0), tid, legacy_next_tid(sim, tid));
        } else {
            rd(r, word("c->slab", cpu, 0, 0), 0);
        }
        step_open(r, "flush_slab", "lock", had ? slab_at(sim, had)->node : cpu_node(sim));
        x->tid_cpu = x->cpu; /* the CPU flushed, wherever the task goes next */
        x->chain = legacy_detach_for_flush(sim, s, x->cpu, &x->slab);
        ev_end(sim);
        x->phase = x->slab ? PH_LD_READ : PH_DONE;
        return;
    }
    case PH_LD_READ:
        slab = slab_at(sim, x->slab);
        x->prior = slab->freelist;
        x->counters = slab_counters(slab);
        rd(r, word("slab->freelist", -1, slab->base, 0), slab->freelist);
        rd(r, word("slab->counters", -1, slab->base, 0), x->counters);
        step_emit(r, "deactivate_slab", "read_freelist", slab->node);
        x->phase = PH_LD_CMPXCHG;
        return;
    case PH_LD_CMPXCHG: {
        unsigned k = 0;

        slab = slab_at(sim, x->slab);
        if (slab->freelist != x->prior || slab_counters(slab) != x->counters) {
            rd(r, word("slab->freelist", -1, slab->base, 0), slab->freelist);
            rd(r, word("slab->counters", -1, slab->base, 0), slab_counters(slab));
            step_open(r, "deactivate_slab", "cmpxchg_fail", slab->node);
            stat_add(sim, s, SIM_CMPXCHG_DOUBLE_FAIL, 1);
            ev_end(sim);
            x->phase = PH_LD_READ;
            return;
        }
        for (sim_addr_t p = x->chain; p && k < slab->objects; k++)
            p = peek_freepointer(sim, s, p, NULL);
        wr(r, word("slab->freelist", -1, slab->base, 0), slab->freelist,
           x->chain ? x->chain : slab->freelist);
        wr(r, word("slab->counters", -1, slab->base, 0), x->counters,
           (x->counters - k) & ~((uint64_t)1 << 31));
        step_emit(r, "deactivate_slab", "cmpxchg", slab->node);
        deactivate_slab(sim, s, x->slab, x->chain); /* splice, unfreeze, place */
        c = cpu_c(r, x->tid_cpu);
        if (c->partial)
            put_partials(sim, s, c);
        op_end(r, x);
        return;
    }
    default:
        SIM_BUG_ON(1);
    }
}

/* ---- the sheaves model --------------------------------------------------- */

/* Whether a free into CPU @cpu's full main sheaf goes to the barn (kernel:
 * __pcs_replace_full_main: an empty spare is swapped in without it). */
static bool free_needs_barn(struct race_run *r, unsigned cpu)
{
    const struct slub_percpu_sheaves *pcs = &r->s->pcs[cpu];
    const struct slab_sheaf *main = sheaf_at(r->sim, pcs->main);

    if (main->size < r->s->sheaf_capacity)
        return false;
    return !(pcs->spare && sheaf_at(r->sim, pcs->spare)->size == 0);
}

static void step_sheaves(struct race_run *r, struct race_ctx *x)
{
    struct sim *sim = r->sim;
    struct kmem_cache *s = r->s;
    int cpu = (int)x->cpu, node = cpu_node(sim);
    bool alloc = is_alloc(x);
    const char *fn = alloc ? "alloc_from_pcs" : "free_to_pcs";
    struct sim_word pcs_lock = word("pcs->lock", cpu, 0, 0);
    struct sim_word barn_lock = word("barn->lock", -1, 0, 0);

    barn_lock.node = node;
    switch (x->phase) {
    case PH_Q_LOCK:
        if (r->pcs_holder[cpu] >= 0) {
            rd(r, pcs_lock, 1);
            step_emit(r, fn, "trylock_fail", node);
            x->phase = PH_Q_SLOW;
            return;
        }
        r->pcs_holder[cpu] = (int)(x - r->c);
        x->holds_pcs = true;
        wr(r, pcs_lock, 0, 1);
        step_emit(r, fn, "lock", node);
        if (alloc) {
            sim_addr_t obj = alloc_from_pcs(sim, s, SIM_NUMA_NO_NODE);

            set_result(r, x, obj);
            x->need_slow = !obj;
            x->phase = PH_Q_UNLOCK;
        } else if (free_needs_barn(r, x->cpu)) {
            x->phase = PH_Q_BARN;
        } else {
            x->need_slow = !free_to_pcs(sim, s, x->object);
            x->phase = PH_Q_UNLOCK;
        }
        return;
    case PH_Q_BARN:
        if (r->barn_holder[node] >= 0) {
            rd(r, barn_lock, 1);
            step_emit(r, "__pcs_replace_full_main", "spin", node);
            x->spun = true;
            return;
        }
        r->barn_holder[node] = (int)(x - r->c);
        x->holds_barn = true;
        x->spun = false;
        wr(r, barn_lock, 0, 1);
        step_emit(r, "__pcs_replace_full_main", "lock", node);
        x->need_slow = !free_to_pcs(sim, s, x->object); /* the barn work, whole */
        x->phase = PH_Q_UNLOCK_BARN;
        return;
    case PH_Q_UNLOCK_BARN:
        r->barn_holder[node] = -1;
        x->holds_barn = false;
        wr(r, barn_lock, 1, 0);
        step_emit(r, "__pcs_replace_full_main", "unlock", node);
        x->phase = PH_Q_UNLOCK;
        return;
    case PH_Q_UNLOCK:
        r->pcs_holder[cpu] = -1;
        x->holds_pcs = false;
        wr(r, pcs_lock, 1, 0);
        step_emit(r, fn, "unlock", node);
        if (x->need_slow)
            x->phase = PH_Q_SLOW;
        else
            op_end(r, x);
        return;
    case PH_Q_SLOW:
        /* the slab path takes n->list_lock and lets it go within the step */
        if (alloc) {
            step_emit(r, "__slab_alloc_node", "lock", node);
            set_result(r, x, slab_alloc_nopcs(sim, s, SIM_NUMA_NO_NODE, sim->gfp));
        } else {
            step_emit(r, "__slab_free", "lock", slab_of(sim, x->object)->node);
            slab_free_nopcs(sim, s, slab_of(sim, x->object), x->object);
        }
        op_end(r, x);
        return;
    default:
        SIM_BUG_ON(1);
    }
}

/* ---- scheduling ---------------------------------------------------------- */

/* Whether @x can take a step now; when not, *@why says why. */
static bool can_step(const struct race_run *r, const struct race_ctx *x, const char **why)
{
    const struct race_ctx *y;

    if (x->finished) {
        *why = "has finished";
        return false;
    }
    for (y = r->c; y < r->c + r->race->nr_ctx; y++) {
        if (y == x || y->finished || y->cpu != x->cpu)
            continue;
        if (y->def->kind == SIM_RACE_IRQ && y->started &&
            (x->def->kind == SIM_RACE_TASK || !x->started)) {
            *why = "is shut out by the interrupt running on its CPU";
            return false;
        }
        if (y->holds_barn) {
            *why = "is shut out: a task of its CPU holds barn->lock with irqs off";
            return false;
        }
        if (y->holds_pcs && x->def->kind == SIM_RACE_TASK && y->def->kind == SIM_RACE_TASK) {
            *why = "is shut out: a task of its CPU holds pcs->lock with preemption off";
            return false;
        }
    }
    if (x->phase == PH_Q_BARN && x->spun && r->barn_holder[r->sim->cfg.cpu_node[x->cpu]] >= 0) {
        *why = "waits for barn->lock";
        return false;
    }
    return true;
}

/* One step of @x, which can step. */
static void race_step(struct race_run *r, struct race_ctx *x)
{
    step_prepare(r, x);
    if (x->phase == PH_START && x->def->kind == SIM_RACE_IRQ && !x->started)
        x->phase = PH_IRQ_ENTER;
    else if (x->phase == PH_START)
        x->phase = op_first_phase(r, x);
    switch (x->phase) {
    case PH_IRQ_ENTER:
        x->started = true;
        step_emit(r, "irq_enter", "irq_enter", cpu_node(r->sim));
        x->phase = PH_START;
        break;
    case PH_IRQ_EXIT:
        step_emit(r, "irq_exit", "irq_exit", cpu_node(r->sim));
        x->finished = true;
        break;
    case PH_DONE:
        step_emit(r, x->def->ops[x->op].kind == SIM_OP_FLUSH_ALL ? "flush_slab" : "kmem_cache_free",
                  "done", cpu_node(r->sim));
        op_end(r, x);
        break;
    case PH_LA_TID:
    case PH_LA_FREELIST:
    case PH_LA_NEXT:
    case PH_LA_CMPXCHG:
    case PH_LA_SLOW:
        step_legacy_alloc(r, x);
        break;
    case PH_LF_TID:
    case PH_LF_FREELIST:
    case PH_LF_CMPXCHG:
    case PH_LF_SLOW_READ:
    case PH_LF_SLOW_CMPXCHG:
        step_legacy_free(r, x);
        break;
    case PH_LD_DETACH:
    case PH_LD_READ:
    case PH_LD_CMPXCHG:
        step_legacy_flush(r, x);
        break;
    default:
        step_sheaves(r, x);
        break;
    }
    x->index++;
    r->out->steps++;
    r->sim->race_ctx = NULL;
}

static int race_fail(struct race_run *r, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static int race_fail(struct race_run *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->sim->res->message, sizeof(r->sim->res->message), fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static struct race_ctx *find_ctx(struct race_run *r, const char *id, size_t len)
{
    for (unsigned i = 0; i < r->race->nr_ctx; i++)
        if (strlen(r->c[i].def->id) == len && !strncmp(r->c[i].def->id, id, len))
            return &r->c[i];
    return NULL;
}

static int step_checked(struct race_run *r, struct race_ctx *x, const char *tok, size_t len)
{
    const char *why;

    if (!can_step(r, x, &why))
        return race_fail(r, "schedule token \"%.*s\": context %s %s (at its step %u)", (int)len,
                         tok, x->def->id, why, x->index);
    if (r->out->steps >= RACE_MAX_STEPS)
        return race_fail(r, "schedule token \"%.*s\": the race runs more than %u steps", (int)len,
                         tok, RACE_MAX_STEPS);
    race_step(r, x);
    return 0;
}

/* Token "X>N": task X migrates to CPU N. */
static int migrate(struct race_run *r, struct race_ctx *x, const char *tok, size_t len,
                   const char *num)
{
    char *end;
    unsigned long to = strtoul(num, &end, 10);
    const char *why;

    if (end != tok + len || end == num || to >= r->sim->cfg.nr_cpus)
        return race_fail(r, "schedule token \"%.*s\": no CPU %.*s on a machine of %u", (int)len,
                         tok, (int)(tok + len - num), num, r->sim->cfg.nr_cpus);
    if (x->def->kind != SIM_RACE_TASK)
        return race_fail(r, "schedule token \"%.*s\": only a task migrates; %s is an interrupt",
                         (int)len, tok, x->def->id);
    if (!can_step(r, x, &why))
        return race_fail(r, "schedule token \"%.*s\": context %s %s", (int)len, tok, x->def->id,
                         why);
    if (x->holds_pcs || x->holds_barn)
        return race_fail(r, "schedule token \"%.*s\": %s holds %s and cannot migrate", (int)len,
                         tok, x->def->id, x->holds_barn ? "barn->lock" : "pcs->lock");
    if (to == x->cpu)
        return race_fail(r, "schedule token \"%.*s\": %s already runs on CPU %lu", (int)len, tok,
                         x->def->id, to);
    step_prepare(r, x);
    wr(r, word("cpu", -1, 0, 0), x->cpu, to);
    step_emit(r, "set_task_cpu", "migrate", cpu_node(r->sim));
    x->cpu = (unsigned)to;
    x->index++;
    r->out->steps++;
    r->sim->race_ctx = NULL;
    return 0;
}

static int run_token(struct race_run *r, const char *tok, size_t len)
{
    size_t idlen = 0;
    struct race_ctx *x;
    int err;

    while (idlen < len && tok[idlen] != '*' && tok[idlen] != '!' && tok[idlen] != '>')
        idlen++;
    x = find_ctx(r, tok, idlen);
    if (!x)
        return race_fail(r, "schedule token \"%.*s\": no context named \"%.*s\"", (int)len, tok,
                         (int)idlen, tok);
    if (idlen == len)
        return step_checked(r, x, tok, len);
    if (tok[idlen] == '>')
        return migrate(r, x, tok, len, tok + idlen + 1);
    if (idlen + 1 != len)
        return race_fail(r, "schedule token \"%.*s\": expected X, X*, X! or X>N", (int)len, tok);
    if (tok[idlen] == '!') {
        if (x->def->kind != SIM_RACE_IRQ || x->started || x->finished)
            return race_fail(r, "schedule token \"%.*s\": %s is not an interrupt yet to arrive",
                             (int)len, tok, x->def->id);
        return step_checked(r, x, tok, len);
    }
    do {
        if ((err = step_checked(r, x, tok, len)))
            return err;
    } while (!x->finished);
    return 0;
}

static bool all_finished(const struct race_run *r)
{
    for (unsigned i = 0; i < r->race->nr_ctx; i++)
        if (!r->c[i].finished)
            return false;
    return true;
}

/* The state after a race with NO_TID: what the validator says, as an event. */
static void race_verdict(struct race_run *r)
{
    struct sim_report rep;

    if (!r->out->lost_updates || !sim_validate(r->sim, SIM_VALIDATE_OP, &rep))
        return;
    sim_result_msg(
            r->sim, SIM_MISUSE,
            "NO_TID (not a kernel): %u lost update%s; the validator finds %u violation%s: %s",
            r->out->lost_updates, r->out->lost_updates == 1 ? "" : "s", rep.violations,
            rep.violations == 1 ? "" : "s", rep.msg[0]);
    ev_report_result(r->sim, r->s, "validate_slab_cache", "violation");
}

int race_apply(struct sim *sim, struct kmem_cache *s, const struct sim_race *race,
               struct sim_result *res)
{
    struct race_run *r = sim_scratch_alloc(sim, sizeof(*r));
    const char *p = race->schedule;
    int err = 0;

    r->sim = sim;
    r->s = s;
    r->race = race;
    r->out = &res->race;
    memset(r->out, 0, sizeof(*r->out));
    for (unsigned i = 0; i < SIM_MAX_CPUS; i++)
        r->pcs_holder[i] = -1;
    for (unsigned i = 0; i < SIM_MAX_NODES; i++)
        r->barn_holder[i] = -1;
    for (unsigned i = 0; i < race->nr_ctx; i++) {
        r->c[i].def = &race->ctx[i];
        r->c[i].cpu = race->ctx[i].cpu;
    }
    for (;;) {
        size_t len;

        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        for (len = 0; p[len] && p[len] != ' ' && p[len] != '\t' && p[len] != '\n'; len++)
            ;
        if ((err = run_token(r, p, len)))
            goto out;
        p += len;
    }
    r->out->done_at_end = all_finished(r);
    for (unsigned i = 0; i < race->nr_ctx; i++) {
        const char *why;

        if (can_step(r, &r->c[i], &why))
            r->out->runnable |= 1u << i;
    }
    while (!all_finished(r)) { /* what is left, in context order */
        struct race_ctx *x = NULL;
        const char *why;

        for (unsigned i = 0; i < race->nr_ctx && !x; i++)
            if (can_step(r, &r->c[i], &why))
                x = &r->c[i];
        if (!x) {
            err = race_fail(r, "after the schedule: no context can step");
            goto out;
        }
        if (r->out->steps >= RACE_MAX_STEPS) {
            err = race_fail(r, "the race runs more than %u steps", RACE_MAX_STEPS);
            goto out;
        }
        race_step(r, x);
    }
    race_verdict(r);
out:
    sim->race_ctx = NULL;
    sim_scratch_free(sim, r);
    return err;
}

/* ---- checking ------------------------------------------------------------- */

static int check_fail(struct sim_result *res, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static int check_fail(struct sim_result *res, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(res->message, sizeof(res->message), fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* Whether the free at ctx[@i].ops[@k] names an address an earlier free of the race does. */
static bool freed_twice(const struct sim_race *race, unsigned i, unsigned k)
{
    const struct sim_race_op *o = &race->ctx[i].ops[k];

    for (unsigned j = 0; j <= i; j++)
        for (unsigned l = 0; l < (j == i ? k : race->ctx[j].nr_ops); l++)
            if (race->ctx[j].ops[l].kind == SIM_OP_FREE && race->ctx[j].ops[l].ref < 0 &&
                race->ctx[j].ops[l].addr == o->addr)
                return true;
    return false;
}

/* The race's shape against the machine and its cache. */
static int check_shape(const struct sim *sim, const struct kmem_cache *s,
                       const struct sim_race *race, struct sim_result *res)
{
    bool leg = cache_has_cpu_slab(s);

    if (sim->cfg.model == SIM_MODEL_HYBRID && cache_has_sheaves(s))
        return check_fail(res,
                          "race: cache %s of the hybrid model (6.18-6.19) has sheaves over "
                          "its cpu slab, which the race lab does not split; race a cache "
                          "without sheaf_capacity, or use the legacy or the sheaves model",
                          s->name);
    if (kmem_cache_debug(s) || (!leg && !cache_has_sheaves(s)))
        return check_fail(res, "race: cache %s has no lock-free fast path (a debug cache)",
                          s->name);
    if (race->nr_ctx < 2 || race->nr_ctx > SIM_RACE_MAX_CTX)
        return check_fail(res, "race: %u contexts (2 or 3)", race->nr_ctx);
    if (!memchr(race->schedule, 0, sizeof(race->schedule)))
        return check_fail(res, "race: the schedule is not terminated");
    for (unsigned i = 0; i < race->nr_ctx; i++) {
        const struct sim_race_ctx *x = &race->ctx[i];

        if (!x->id[0] || !memchr(x->id, 0, sizeof(x->id)))
            return check_fail(res, "race: context %u has no id", i);
        for (const char *c = x->id; *c; c++)
            if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
                return check_fail(res, "race: context id \"%s\": letters and digits only", x->id);
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(race->ctx[j].id, x->id))
                return check_fail(res, "race: two contexts named \"%s\"", x->id);
        if (x->cpu >= sim->cfg.nr_cpus)
            return check_fail(res, "race: context %s: CPU %u does not exist (the machine has %u)",
                              x->id, x->cpu, sim->cfg.nr_cpus);
        if (x->kind > SIM_RACE_IRQ)
            return check_fail(res, "race: context %s: unknown kind %u", x->id, x->kind);
        if (x->nr_ops < 1 || x->nr_ops > SIM_RACE_MAX_OPS)
            return check_fail(res, "race: context %s: %u operations (1..%u)", x->id, x->nr_ops,
                              SIM_RACE_MAX_OPS);
        for (unsigned k = 0; k < x->nr_ops; k++) {
            const struct sim_race_op *o = &x->ops[k];

            if (o->kind != SIM_OP_ALLOC && o->kind != SIM_OP_FREE && o->kind != SIM_OP_FLUSH_ALL)
                return check_fail(res,
                                  "race: context %s: operation %u: only alloc, free and "
                                  "flush run in a race",
                                  x->id, k);
            if (o->kind == SIM_OP_FLUSH_ALL && !leg)
                return check_fail(res,
                                  "race: context %s: flush races only on the legacy "
                                  "model's cpu slab",
                                  x->id);
            if (o->kind == SIM_OP_FLUSH_ALL && x->kind != SIM_RACE_TASK)
                return check_fail(res, "race: context %s: a flush runs in a task", x->id);
            if (o->kind != SIM_OP_FREE)
                continue;
            if (o->ref >= 0) {
                if ((unsigned)o->ref >= k || x->ops[o->ref].kind != SIM_OP_ALLOC)
                    return check_fail(res,
                                      "race: context %s: operation %u frees no earlier "
                                      "alloc of the context",
                                      x->id, k);
                continue;
            }
            const struct slab *slab = slab_of(sim, o->addr);

            if (!slab || slab->cache != s->id || slab_obj_index(s, slab, o->addr) < 0)
                return check_fail(res, "race: context %s: 0x%llx is not an object of cache %s",
                                  x->id, (unsigned long long)o->addr, s->name);
            /* a race frees objects in use: misuse is the ordinary free's to report */
            if (slab->list == SLAB_ON_PRIVATE || on_freelist(sim, s, slab, o->addr) ||
                freed_twice(race, i, k))
                return check_fail(res,
                                  "race: context %s: 0x%llx is not in use, or freed twice "
                                  "in the race",
                                  x->id, (unsigned long long)o->addr);
        }
    }
    return 0;
}

int race_check(struct sim *sim, const struct sim_op *op, struct sim_result *res)
{
    struct sim *clone;
    struct sim_result *tmp;
    int err;

    if (!op->race)
        return check_fail(res, "race: no contexts");
    if ((err = check_shape(sim, sim->caches[op->cache], op->race, res)))
        return err;
    if (sim->race_checking)
        return 0;
    /* run it on a clone: a schedule that cannot run leaves the machine as it was */
    tmp = malloc(sizeof(*tmp));
    if (!tmp)
        return -ENOMEM;
    err = sim_clone(sim, &clone);
    if (err) {
        free(tmp);
        return err;
    }
    clone->race_checking = true;
    err = sim_apply(clone, op, tmp);
    if (err)
        memcpy(res->message, tmp->message, sizeof(res->message));
    sim_destroy(clone);
    free(tmp);
    return err;
}
