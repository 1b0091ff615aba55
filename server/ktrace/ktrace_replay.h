/*
 * ktrace_replay.h: a kmem trace replayed on an engine machine.
 *
 * Each event of the trace becomes one engine operation on the CPU of its
 * [NNN] field: kmem_cache_alloc an alloc from the cache of its name=
 * (an older kernel's trace prints none: from a cache per bytes_alloc,
 * "size-N", made from the event as an unknown name's is),
 * kmalloc a kmalloc of its bytes_alloc (the kmalloc-N class),
 * kmem_cache_free and kfree a free of the engine object that the same
 * pointer got at its allocation.  What cannot be replayed is counted, not
 * fatal: frees of objects allocated before the trace began, kfree(NULL),
 * kmalloc above 8 KiB (the page allocator, not slab), events of caches
 * neither the trace nor --sysfs describes, CPUs or nodes beyond the
 * machine.  Frees from the RCU callback machinery are counted as
 * RCU-deferred and applied when they happened (see docs/record-a-trace.md).
 *
 * Callers: `slublab replay` (cli/cmd_replay.c), the bench and the server.
 */
#ifndef SLUBLAB_SERVER_KTRACE_KTRACE_REPLAY_H
#define SLUBLAB_SERVER_KTRACE_KTRACE_REPLAY_H

#include <cjson/cJSON.h>

#include "kfiles/sysfs_slab.h"
#include "ktrace/ktrace.h"

/* Why a file with no kmem event is refused, by `slublab replay` and the
 * server alike: "no kmem events in WHAT " KTRACE_NO_EVENTS_WHY. */
#define KTRACE_NO_EVENTS_WHY                                                                  \
    "(kmem_cache_alloc, kmem_cache_free, kmalloc, kfree as /sys/kernel/tracing/trace prints " \
    "them)"

#define KTRACE_DEFAULT_MEM_MB 1024u /* per node: pages are backed only when used */
#define KTRACE_MAX_UNKNOWN    8u    /* unknown cache names kept for the report */

struct ktrace_opts {
    unsigned cpus;     /* 0: the #P: header, else the highest CPU seen + 1 */
    const char *kernel; /* "X.Y[.Z]": the release to replay on; NULL: the trace's "# kernel:"
                         * line (the modelled release at or below it), else the newest */
    const char *model;  /* "sheaves", "legacy" or "legacy:ERA" (sim_model_parse): an experiment
                         * instead of the trace's kernel; NULL: as @kernel says */
    uint64_t seed;     /* 0: the engine's default */
    unsigned mem_mb;   /* per node; 0: KTRACE_DEFAULT_MEM_MB */
    const struct sysfs_tree *sysfs; /* caches as the kernel made them; NULL: from the trace */
    bool validate;                  /* sim_validate(OP) after every operation */
    bool record;                    /* keep the operations as scenario JSON (kr->ops) */
    uint64_t max_ops;               /* record: stop with -E2BIG beyond this many (0: no limit) */
    /* Called every 64 Ki lines with the input consumed and its size (0: unknown). */
    void (*progress)(uint64_t done, uint64_t total, void *arg);
    void *progress_arg;
    /* Stop with -ECANCELED when it becomes true (the server's cancel). */
    const volatile bool *cancel;
    /* Called with every operation the engine carried out and the events it
     * emitted (a session's op log is written this way, not as scenario
     * JSON); a negative return stops the replay with that error. */
    int (*on_op)(const struct sim_op *op, uint64_t events, void *arg);
    void *on_op_arg;
    /* Called with every event the engine emits (a session's overview is
     * kept this way while its op log is written). */
    sim_event_fn on_event;
    void *on_event_arg;
};

struct ktrace_counts {
    uint64_t lines;                     /* lines read */
    uint64_t kind[KTRACE_BAD + 1];      /* lines by enum ktrace_kind */
    uint64_t overlong;                  /* lines over KTRACE_MAX_LINE, skipped */
    uint64_t applied[KTRACE_KFREE + 1]; /* engine operations by event kind */
    uint64_t free_before;    /* kmem_cache_free of an object allocated before the trace */
    uint64_t kfree_before;   /* kfree of an object allocated before the trace */
    uint64_t kfree_null;     /* kfree(NULL) */
    uint64_t large_kmalloc;  /* kmalloc above 8 KiB: the page allocator */
    uint64_t large_kfree;    /* their kfree */
    uint64_t unknown_cache;  /* events of a cache nothing describes */
    uint64_t unnamed;        /* kmem_cache_alloc without name= (an older kernel): by size */
    uint64_t rcu_frees;      /* frees from the RCU callback machinery */
    uint64_t realloc_live;   /* untraced frees: a live pointer allocated again */
    uint64_t cache_mismatch; /* kmem_cache_free name= differs from the allocation's */
    uint64_t cpus_folded;    /* CPU >= machine CPUs: folded modulo */
    uint64_t nodes_ignored;  /* node= beyond the machine's nodes */
    uint64_t gfp_unknown;    /* gfp_flags= with a name not understood (the others used) */
    uint64_t caches_created;
    uint64_t lost;          /* written - in buffer, from the header: events overwritten */
    uint64_t size_mismatch; /* --sysfs caches whose slab_size is not the trace's bytes_alloc */
    uint64_t sim_failed, sim_misuse, sim_rejected; /* engine outcomes */
    unsigned violations;                           /* validator */
};

struct ktrace_cache;
struct ktrace_ptr;

#define KTRACE_GFP_CACHE 16
struct ktrace_gfp_slot {
    char text[120]; /* a gfp_flags text; len 0: empty */
    size_t len;
    uint32_t mask;
};

struct ktrace_replay {
    struct sim *sim; /* owned; NULL until the first event */
    struct sim_config cfg;
    struct ktrace_counts n;
    char kernel[128];      /* from "# kernel:" or --sysfs, else "" */
    char kernel_note[320]; /* which release the replay runs on and why */
    bool kernel_guessed;   /* the release is the default: the trace names none modelled */
    const char *cpus_from; /* "--cpus", "the #P: header", "the highest CPU seen" */
    char unknown[KTRACE_MAX_UNKNOWN][SIM_NAME_MAX]; /* unknown cache names, first seen */
    unsigned nr_unknown;
    char mismatch[KTRACE_MAX_UNKNOWN][SIM_NAME_MAX]; /* size_mismatch names, first seen */
    char gfp_names[KTRACE_MAX_UNKNOWN][SIM_NAME_MAX]; /* gfp names not understood, first seen */
    unsigned nr_gfp_names;
    char first_bad[160];                             /* first KTRACE_BAD line: number and reason */
    char first_engine[256]; /* first engine failure or rejection, with its line */
    char validate_msg[200]; /* first violation */
    bool truncated;         /* the input ended in an error (read_error) */
    char read_error[160];
    cJSON *ops; /* opts.record: scenario operations; owned */
    /* internal */
    struct ktrace_cache *caches; /* owned, by creation order */
    size_t nr_caches, cap_caches;
    int *cache_index; /* hash of names -> index in caches, -1 empty */
    size_t cache_slots;
    struct ktrace_ptr *ptrs; /* pointer -> engine object, linear probing */
    size_t ptr_slots, nr_ptrs;
    uint64_t next_obj;                                  /* object name counter for opts.record */
    uint64_t nr_recorded;                               /* operations in ops, or given to on_op */
    int on_op_err;                                      /* what on_op returned, sticky */
    struct ktrace_gfp_slot gfp_cache[KTRACE_GFP_CACHE]; /* parsed gfp texts, round robin */
    unsigned gfp_next;
    const struct ktrace_opts *o;
};

/*
 * Replay the trace of @r.  Returns 0 when the whole input was read (every
 * problem with single events is counted in kr->n), -EIO when the input
 * ended in an error (kr->read_error; what was read is replayed), -EFBIG
 * when its text passed the reader's limit (ktrace_reader_limit(); the
 * same), -EINVAL
 * when the machine cannot be built (CPUs beyond SIM_MAX_CPUS without
 * --cpus; message in @err), -E2BIG when opts.max_ops was passed (message
 * in @err), -ENOMEM, -ECANCELED, or what opts.on_op returned (message in
 * @err).  Call
 * ktrace_replay_release() in every case.
 */
int ktrace_replay_run(struct ktrace_replay *kr, struct ktrace_reader *r,
                      const struct ktrace_opts *o, struct strbuf *err);
void ktrace_replay_release(struct ktrace_replay *kr);
/* Events replayed or counted (every kmem line). */
uint64_t ktrace_replay_events(const struct ktrace_replay *kr);
/*
 * The scenario that replays the same operations (opts.record): machine,
 * model, seed and kr->ops, which it takes over.  @name labels it.  Caller
 * owns the result; NULL when out of memory or nothing was recorded.
 */
cJSON *ktrace_replay_scenario(struct ktrace_replay *kr, const char *name);
/* The same without operations: the machine, model and seed the replay ran
 * on (what a session replaying the op log of opts.on_op starts from).
 * NULL when out of memory or no machine was built. */
cJSON *ktrace_replay_scenario_header(const struct ktrace_replay *kr, const char *name);

#endif /* SLUBLAB_SERVER_KTRACE_KTRACE_REPLAY_H */
