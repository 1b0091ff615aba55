/*
 * scenario.h: a scenario file, parsed and checked.
 *
 * A scenario is a JSON document (docs/scenario-format.md) that names a
 * machine (struct sim_config), the caches to create, a list of operations
 * and the expectations to check at named marks.  scenario_parse() turns the
 * text into the plain structures below and rejects, with a message naming
 * the file, the operation path (`ops[3].ops[1]`) and the key, everything the
 * engine would have to guess about: unknown keys, wrong types, missing keys,
 * numbers that are negative, fractional or >= 2^53, CPUs and nodes out of
 * range, and references to caches, objects or marks that nothing defines.
 *
 * Names of objects, caches and marks may contain "{i}" inside a repeat; it
 * stands for the innermost iteration index (0-based) and is substituted by
 * the replay (replay.c), which also resolves names at run time.  The parse
 * checks references statically, as far as templates allow; the replay
 * checks them again against what is live.
 *
 * Adding an operation kind: a row in the op table of scenario_op.c (its
 * required and optional keys), a case in replay.c, a line in the docs.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_SCENARIO_H
#define SLUBLAB_SERVER_SCENARIO_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slub.h"
#include "scenario/metric.h"
#include "base/strbuf.h"

#define SCENARIO_FORMAT     1           /* the only "format" accepted */
#define SCENARIO_MAX_BYTES  (8u << 20)  /* largest scenario file read */
#define SCENARIO_MAX_DEPTH  8           /* nesting of repeat */
#define SCENARIO_MAX_TIMES  1000000u    /* repeat.times */
#define SCENARIO_MAX_STEPS  10000000u   /* operations after expanding every repeat */
#define SCENARIO_MAX_COUNT  65536u      /* alloc_bulk.count */
#define SCENARIO_MAX_NAME   40u         /* characters in an object or mark name template */
#define SCENARIO_MAX_SIZE   (64u << 20) /* object_size, kmalloc size; the engine may refuse less */
#define SCENARIO_MAX_MEM_MB (1u << 20)  /* machine.mem_mb_per_node */
#define SCENARIO_MAX_ALIASES 64u        /* create.aliases */

enum scenario_op_kind {
    SCENARIO_OP_CREATE,
    SCENARIO_OP_ALLOC,
    SCENARIO_OP_FREE,
    SCENARIO_OP_KMALLOC,
    SCENARIO_OP_KFREE,
    SCENARIO_OP_ALLOC_BULK,
    SCENARIO_OP_FLUSH_ALL,
    SCENARIO_OP_SHRINK,
    SCENARIO_OP_DESTROY,
    SCENARIO_OP_WRITE,
    SCENARIO_OP_KFREE_RCU,
    SCENARIO_OP_GRACE_PERIOD,
    SCENARIO_OP_RCU_BARRIER,
    SCENARIO_OP_PREFILL,
    SCENARIO_OP_ALLOC_FROM_SHEAF,
    SCENARIO_OP_REFILL_SHEAF,
    SCENARIO_OP_RETURN_SHEAF,
    SCENARIO_OP_FREE_BULK,
    SCENARIO_OP_MARK,
    SCENARIO_OP_REPEAT,
    SCENARIO_OP_ALLOC_PAGES, /* alloc_pages by a user other than SLUB */
    SCENARIO_OP_FREE_PAGES,
    SCENARIO_OP_RACE,      /* contexts interleaved by a schedule (scenario_race.c) */
    SCENARIO_OP_FLUSH_CPU, /* inside a race's context only: this CPU's cpu slab (flush_slab) */
    SCENARIO_OP_VALIDATE,  /* validate_slab_cache (/sys/kernel/slab/C/validate) */
    SCENARIO_OP_KREALLOC,  /* krealloc of a named object; the name then holds the result */
    SCENARIO_NR_OP_KINDS
};

/* A race's context (docs/scenario-format.md, "Races"). */
struct scenario_race_ctx {
    char id[SIM_RACE_ID_MAX];
    unsigned cpu;
    uint8_t kind;            /* enum sim_race_kind */
    struct scenario_op *ops; /* alloc, free, flush_cpu: no cpu or cache keys; owned */
    size_t nr_ops;           /* 1..SIM_RACE_MAX_OPS */
};

struct scenario_race {
    struct scenario_race_ctx ctx[SIM_RACE_MAX_CTX];
    size_t nr_ctx;                    /* 2..SIM_RACE_MAX_CTX */
    char schedule[SIM_RACE_SCHEDULE]; /* tokens checked against the ids; "" when absent */
};

struct scenario_op {
    enum scenario_op_kind kind;
    unsigned cpu;    /* 0 when the op kind has no cpu key */
    int node;        /* SIM_NUMA_NO_NODE unless "node" was given */
    uint32_t gfp;    /* parsed "gfp"; 0 (GFP_KERNEL) when absent */
    char *cache;     /* "cache" template, or NULL when absent */
    char *name;      /* object (alloc...), cache (create) or mark name template; or NULL */
    bool has_addr;   /* "addr" given: free/kfree by address instead of name */
    sim_addr_t addr; /* valid iff has_addr */
    unsigned size;   /* kmalloc */
    unsigned count;  /* alloc_bulk, prefill, refill_sheaf, write (bytes): 1..SCENARIO_MAX_COUNT */
    char *sheaf;     /* alloc_from_sheaf, refill_sheaf, return_sheaf: sheaf name template */
    unsigned offset; /* write: bytes after the object's start (may pass its end) */
    unsigned value;  /* write: the byte written, 0..255 */
    struct sim_cache_args create; /* create; create.name is unused (name holds the template) */
    char **aliases;               /* create: further names of the cache (sysfs aliases), owned */
    size_t nr_aliases;            /* <= SCENARIO_MAX_ALIASES */
    unsigned long times;          /* repeat */
    struct scenario_op *ops;      /* repeat: the body, owned */
    size_t nr_ops;
    unsigned order;               /* alloc_pages, free_pages: 0..10 */
    uint8_t context;              /* enum sim_gfp_context: "task" (0), "atomic", "rt" */
    struct scenario_race *race;   /* race: contexts and schedule, owned */
};

enum scenario_cmp { SCENARIO_EQ, SCENARIO_NE, SCENARIO_LT, SCENARIO_LE, SCENARIO_GT, SCENARIO_GE };

struct scenario_expect {
    char *at;          /* a mark name (no template) or "end" */
    char *metric_text; /* as written, for reports */
    struct metric metric;
    enum scenario_cmp cmp;
    uint64_t value;
};

struct scenario {
    char *label;                /* the file name used in messages */
    char *name;                 /* "name": short identifier */
    char *title;                /* "" when absent */
    char *description;          /* "" when absent */
    struct sim_config config;   /* sim_config_default() overlaid with the file: its kernel
                                 * (the newest release without "kernel" and "model") */
    uint32_t variants_given;    /* bit v: "variants" sets variant v (kept when a flag or a
                                 * session picks another kernel: kernel_choose()) */
    struct scenario_op *caches; /* "caches": CREATE ops applied before ops */
    size_t nr_caches;
    struct scenario_op *ops;
    size_t nr_ops;
    struct scenario_expect *expects;
    size_t nr_expects;
    struct sim_choice_pin *choices; /* "choices": the kernel's choices fixed (replay_init()) */
    size_t nr_choices;
};

/*
 * Parse @len bytes of scenario JSON; @label names the source in messages.
 * Returns 0 and *out (caller owns; scenario_release()), or -EINVAL with the
 * reason appended to @err (-ERANGE when the reason is a cpu or node beyond
 * the machine), or -ENOMEM.
 */
int scenario_parse(const char *text, size_t len, const char *label, struct scenario **out,
                   struct strbuf *err);
/* Read and parse a file.  As scenario_parse(); also -ENOENT/-EIO/-EFBIG with a message. */
int scenario_load(const char *path, struct scenario **out, struct strbuf *err);
/* Free a scenario; NULL is fine. */
void scenario_release(struct scenario *scn);

struct cJSON;
/*
 * Parse @arr, a JSON array of operations appended to a running machine of
 * @nr_cpus CPUs and @nr_nodes nodes (the HTTP server's POST .../ops).  The
 * grammar is the scenario's; names of caches and objects are not checked
 * here, since earlier operations define them: the replay checks them.
 * Returns 0 with *ops and *nr (caller owns; scenario_op_list_release()) and
 * *steps (operations once repeats are expanded), -EINVAL with a message in
 * @err, -ERANGE when a cpu or node is beyond the machine, or -ENOMEM.
 */
int scenario_parse_op_list(const struct cJSON *arr, const char *label, unsigned nr_cpus,
                           unsigned nr_nodes, struct scenario_op **ops, size_t *nr, uint64_t *steps,
                           struct strbuf *err);
/* Free what scenario_parse_op_list() returned; NULL is fine. */
void scenario_op_list_release(struct scenario_op *ops, size_t nr);

/* scenario_race.c: check a schedule's tokens against @race's context ids
 * (X, X*, X!, X>N); 0, or -EINVAL with the reason (naming the token) in @msg. */
int scenario_race_schedule_check(const struct scenario_race *race, const char *schedule, char *msg,
                                 size_t len);

/* "alloc", "free", ... for an op kind.  Never NULL for a valid kind. */
const char *scenario_op_name(enum scenario_op_kind kind);
/* "==", "!=", ... */
const char *scenario_cmp_name(enum scenario_cmp cmp);
/* True when @value @cmp @expected holds. */
bool scenario_cmp_holds(enum scenario_cmp cmp, uint64_t value, uint64_t expected);

#endif /* SLUBLAB_SERVER_SCENARIO_SCENARIO_H */
