/*
 * debug.c: SLUB's debug features on real bytes (kernel: setup_slab_debug,
 * setup_object_debug, init_object, check_object, check_bytes_and_report,
 * check_pad_bytes, set_track, alloc_debug_processing, free_debug_processing,
 * slab_err, object_err).
 *
 * Caches with SLAB_RED_ZONE, SLAB_POISON or SLAB_STORE_USER lay their objects
 * out with red zones, poison and tracking records (sizing.c), have no sheaves,
 * and take every allocation and free through the node lists.  The patterns are
 * written into the simulated bytes: 0x5a over a fresh slab, 0x6b over an object
 * body ending in 0xa5, 0xbb red zones while free and 0xcc while allocated.
 * With SLAB_CONSISTENCY_CHECKS the allocation and free paths read them back and
 * report corruption in the words SLUB prints ("BUG <cache> (Not tainted): Right
 * Redzone overwritten"), then repair the bytes, as the kernel does.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define POISON_INUSE      0x5a
#define POISON_FREE       0x6b
#define POISON_END        0xa5
#define SLUB_RED_INACTIVE 0xbb
#define SLUB_RED_ACTIVE   0xcc

bool kmem_cache_debug(const struct kmem_cache *s)
{
    return (s->flags & SIM_SLAB_DEBUG_FLAGS) != 0;
}

void mem_fill(struct sim *sim, sim_addr_t addr, uint8_t val, size_t len)
{
    uint8_t buf[256];

    memset(buf, val, sizeof(buf));
    while (len) {
        size_t n = len < sizeof(buf) ? len : sizeof(buf);

        SIM_BUG_ON(mem_write(sim, addr, buf, n));
        addr += n;
        len -= n;
    }
}

/* Fill a fresh slab with POISON_INUSE (kernel: setup_slab_debug). */
void setup_slab_debug(struct sim *sim, struct kmem_cache *s, const struct slab *slab)
{
    if (s->flags & SIM_SLAB_POISON)
        mem_fill(sim, slab->base, POISON_INUSE, (size_t)PAGE_SIZE << slab->order);
}

/* Offset of the alloc track (the free track follows). */
static unsigned track_offset(const struct kmem_cache *s)
{
    return s->offset >= s->inuse ? s->inuse + 8 : s->inuse;
}

/* Whether objects keep the size their caller asked for, after the two
 * tracks (kernel: slub_debug_orig_size): kmalloc caches that store users. */
bool slub_debug_orig_size(const struct kmem_cache *s)
{
    return (s->flags & SIM_SLAB_STORE_USER) && (s->flags & SIM_SLAB_KMALLOC);
}

/* Whether the bytes between orig_size and object_size are red zone too, and
 * checked (6.2, "mm/slub: extend redzone check to extra allocated kmalloc
 * space than requested"): every modelled release after 6.1. */
static bool kmalloc_redzone(const struct sim *sim, const struct kmem_cache *s)
{
    return slub_debug_orig_size(s) && (s->flags & SIM_SLAB_RED_ZONE) &&
           sim->cfg.release != SIM_RELEASE_6_1;
}

static sim_addr_t orig_size_at(const struct kmem_cache *s, sim_addr_t obj)
{
    return obj + track_offset(s) + 2 * TRACK_SIZE;
}

/* The size the caller asked for (kernel: get_orig_size). */
unsigned get_orig_size(const struct sim *sim, const struct kmem_cache *s, sim_addr_t obj)
{
    uint8_t b[4];

    if (!slub_debug_orig_size(s) || mem_read(sim, orig_size_at(s, obj), b, sizeof(b)))
        return s->object_size;
    return (unsigned)b[0] | (unsigned)b[1] << 8 | (unsigned)b[2] << 16 | (unsigned)b[3] << 24;
}

/* Keep @size as @obj's requested size (kernel: set_orig_size). */
void set_orig_size(struct sim *sim, const struct kmem_cache *s, sim_addr_t obj, unsigned size)
{
    uint8_t b[4] = {(uint8_t)size, (uint8_t)(size >> 8), (uint8_t)(size >> 16),
                    (uint8_t)(size >> 24)};

    if (slub_debug_orig_size(s))
        SIM_BUG_ON(mem_write(sim, orig_size_at(s, obj), b, sizeof(b)));
}

/* Red zones and poison of one object (kernel: init_object).  An allocated
 * object of a kmalloc cache with red zones is red zone from its requested
 * size on, and poisoned only up to it. */
static void init_object(struct sim *sim, struct kmem_cache *s, sim_addr_t obj, uint8_t val)
{
    unsigned poison_size = s->object_size;

    if (s->flags & SIM_SLAB_RED_ZONE) {
        mem_fill(sim, obj - s->red_left_pad, val, s->red_left_pad);
        if (kmalloc_redzone(sim, s) && val == SLUB_RED_ACTIVE)
            poison_size = get_orig_size(sim, s, obj);
    }
    if (s->flags & OBJECT_POISON) {
        mem_fill(sim, obj, POISON_FREE, poison_size - 1);
        mem_fill(sim, obj + poison_size - 1, POISON_END, 1);
    }
    if (s->flags & SIM_SLAB_RED_ZONE)
        mem_fill(sim, obj + poison_size, val, s->inuse - poison_size);
}

/* Record who allocated or freed @obj (kernel: set_track): the operation
 * number stands for the caller and jiffies, the CPU is real. */
static void set_track(struct sim *sim, struct kmem_cache *s, sim_addr_t obj, bool alloc)
{
    uint8_t t[TRACK_SIZE] = {0};
    sim_addr_t at = obj + track_offset(s) + (alloc ? 0 : TRACK_SIZE);
    uint64_t addr = sim->op, when = sim->op;

    if (!(s->flags & SIM_SLAB_STORE_USER))
        return;
    for (int i = 0; i < 8; i++) {
        t[i] = (uint8_t)(addr >> (8 * i));
        t[24 + i] = (uint8_t)(when >> (8 * i));
    }
    t[12] = (uint8_t)sim->cpu; /* int cpu after the 4-byte stack handle */
    SIM_BUG_ON(mem_write(sim, at, t, sizeof(t)));
}

/* Prepare one object of a fresh slab (kernel: setup_object_debug). */
void setup_object_debug(struct sim *sim, struct kmem_cache *s, sim_addr_t obj)
{
    if (!(s->flags & (SIM_SLAB_STORE_USER | SIM_SLAB_RED_ZONE | OBJECT_POISON)))
        return;
    init_object(sim, s, obj, SLUB_RED_INACTIVE);
    if (s->flags & SIM_SLAB_STORE_USER)
        mem_fill(sim, obj + track_offset(s), 0, 2 * TRACK_SIZE);
}

/* Append a formatted line to the report being built. */
static void rep(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void rep(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;

    if (n + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

static void bug_header(char *buf, size_t len, const struct kmem_cache *s, const char *what)
{
    rep(buf, len,
            "=============================================================================\n"
            "BUG %s (Not tainted): %s\n"
            "-----------------------------------------------------------------------------\n\n",
            s->name, what);
}

static void object_info(struct sim *sim, const struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj, char *buf, size_t len)
{
    uint64_t fp = 0;

    (void)mem_read_u64(sim, obj + s->offset, &fp);
    rep(buf, len, "Slab 0x%llx objects=%u used=%u fp=0x%llx\n", (unsigned long long)slab->base,
            slab->objects, slab->inuse, (unsigned long long)slab->freelist);
    rep(buf, len, "Object 0x%llx @offset=%llu fp=0x%llx\n", (unsigned long long)obj,
            (unsigned long long)(obj - slab->base), (unsigned long long)fp);
}

/*
 * Check that @len bytes at @start all equal @val (kernel:
 * check_bytes_and_report).  On a mismatch, report it and restore the bytes.
 */
static bool check_bytes(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj, const char *what, sim_addr_t start, uint8_t val, size_t len, char *buf,
        size_t blen)
{
    uint8_t b[256];
    size_t first = len, last = 0;
    uint8_t bad = 0;

    for (size_t done = 0; done < len;) {
        size_t n = len - done < sizeof(b) ? len - done : sizeof(b);

        SIM_BUG_ON(mem_read(sim, start + done, b, n));
        for (size_t i = 0; i < n; i++) {
            if (b[i] == val)
                continue;
            if (first == len) {
                first = done + i;
                bad = b[i];
            }
            last = done + i;
        }
        done += n;
    }
    if (first == len)
        return true;
    s->errors += 2; /* the report, and slab_fix's "Restoring" */
    {
        char title[64];

        snprintf(title, sizeof(title), "%s overwritten", what);
        bug_header(buf, blen, s, title);
    }
    rep(buf, blen, "0x%llx-0x%llx @offset=%llu. First byte 0x%x instead of 0x%x\n",
            (unsigned long long)(start + first), (unsigned long long)(start + last),
            (unsigned long long)(start + first - slab->base), bad, val);
    object_info(sim, s, slab, obj, buf, blen);
    rep(buf, blen, "FIX %s: Restoring %s 0x%llx-0x%llx=0x%x\n", s->name, what,
            (unsigned long long)(start + first), (unsigned long long)(start + last), val);
    mem_fill(sim, start + first, val, last - first + 1);
    return false;
}

/* (kernel: check_valid_pointer) NULL or the start of an object of @slab. */
static bool check_valid_pointer(const struct kmem_cache *s, const struct slab *slab,
        sim_addr_t p)
{
    return !p || slab_obj_index(s, slab, p) >= 0;
}

/*
 * Check one object's red zones, poison and free pointer (kernel:
 * check_object).  @val is the red zone value it should have.  Returns true
 * when all is well; problems are appended to @buf and repaired.
 */
static bool check_object(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj, uint8_t val, char *buf, size_t len)
{
    bool ok = true;

    if (s->flags & SIM_SLAB_RED_ZONE) {
        ok &= check_bytes(sim, s, slab, obj, "Left Redzone", obj - s->red_left_pad, val,
                s->red_left_pad, buf, len);
        ok &= check_bytes(sim, s, slab, obj, "Right Redzone", obj + s->object_size, val,
                s->inuse - s->object_size, buf, len);
        if (kmalloc_redzone(sim, s) && val == SLUB_RED_ACTIVE) {
            unsigned orig = get_orig_size(sim, s, obj);

            if (orig < s->object_size)
                ok &= check_bytes(sim, s, slab, obj, "kmalloc Redzone", obj + orig, val,
                                  s->object_size - orig, buf, len);
        }
    } else if ((s->flags & SIM_SLAB_POISON) && s->object_size < s->inuse) {
        ok &= check_bytes(sim, s, slab, obj, "Alignment padding", obj + s->object_size,
                POISON_INUSE, s->inuse - s->object_size, buf, len);
    }
    if ((s->flags & SIM_SLAB_POISON) && val != SLUB_RED_ACTIVE && (s->flags & OBJECT_POISON)) {
        ok &= check_bytes(sim, s, slab, obj, "Poison", obj, POISON_FREE, s->object_size - 1, buf,
                len);
        ok &= check_bytes(sim, s, slab, obj, "End Poison", obj + s->object_size - 1, POISON_END,
                1, buf, len);
    }
    if ((s->offset >= s->inuse || val != SLUB_RED_ACTIVE) &&
            !check_valid_pointer(s, slab, peek_freepointer(sim, s, obj, NULL))) {
        bug_header(buf, len, s, "Freepointer corrupt");
        object_info(sim, s, slab, obj, buf, len);
        rep(buf, len, "FIX %s: Freelist cleared\n", s->name);
        s->errors++; /* object_err */
        set_freepointer(sim, s, obj, SIM_NULL);
        ok = false;
    }
    return ok;
}

/*
 * Checks and bookkeeping when @obj of @slab is allocated from a debug cache
 * (kernel: alloc_debug_processing).  On failure the report is in the
 * result message, and the caller leaks the slab as the kernel does.
 */
bool alloc_debug_processing(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj)
{
    char buf[sizeof(sim->res->message)] = "";

    if (s->flags & SIM_SLAB_CONSISTENCY_CHECKS) {
        bool ok = check_valid_pointer(s, slab, obj);

        if (!ok) {
            s->errors++; /* object_err */
            bug_header(buf, sizeof(buf), s, "Freelist Pointer check fails");
            object_info(sim, s, slab, obj, buf, sizeof(buf));
        } else {
            ok = check_object(sim, s, slab, obj, SLUB_RED_INACTIVE, buf, sizeof(buf));
        }
        if (!ok) {
            /* the caller appends what it does about it */
            snprintf(sim->res->message, sizeof(sim->res->message), "%s", buf);
            return false;
        }
    }
    set_track(sim, s, obj, true);
    set_orig_size(sim, s, obj, sim->req_size ? sim->req_size : s->object_size);
    init_object(sim, s, obj, SLUB_RED_ACTIVE);
    return true;
}

/*
 * Checks and bookkeeping when @obj is freed to a debug cache (kernel:
 * free_debug_processing).  Returns false, with SLUB's report in the result
 * message, when the object must not be freed.
 */
bool free_debug_processing(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj)
{
    char buf[sizeof(sim->res->message)] = "";

    if (s->flags & SIM_SLAB_CONSISTENCY_CHECKS) {
        if (on_freelist(sim, s, slab, obj)) {
            s->errors++; /* object_err */
            bug_header(buf, sizeof(buf), s, "Object already free");
            object_info(sim, s, slab, obj, buf, sizeof(buf));
            goto fail;
        }
        if (!check_object(sim, s, slab, obj, SLUB_RED_ACTIVE, buf, sizeof(buf)))
            goto fail;
    }
    set_track(sim, s, obj, false);
    init_object(sim, s, obj, SLUB_RED_INACTIVE);
    return true;
fail:
    s->errors++; /* slab_fix */
    rep(buf, sizeof(buf), "FIX %s: Object at 0x%llx not freed\n", s->name,
            (unsigned long long)obj);
    snprintf(sim->res->message, sizeof(sim->res->message), "%s", buf);
    sim->res->status = SIM_MISUSE;
    return false;
}

/* A report about a whole slab (kernel: slab_err), counted. */
static void slab_err(struct kmem_cache *s, const struct slab *slab, char *buf, size_t len,
                     const char *what)
{
    s->errors++;
    bug_header(buf, len, s, what);
    rep(buf, len, "Slab 0x%llx objects=%u used=%u fp=0x%llx\n", (unsigned long long)slab->base,
        slab->objects, slab->inuse, (unsigned long long)slab->freelist);
}

/* What SLUB did about it (kernel: slab_fix), counted. */
static void slab_fix(struct kmem_cache *s, char *buf, size_t len, const char *what)
{
    s->errors++;
    rep(buf, len, "FIX %s: %s\n", s->name, what);
}

/*
 * Walk @slab's freelist as on_freelist(s, slab, NULL) does: a link that is
 * not an object of the slab is cut ("Freechain corrupt"), or the freelist
 * cleared when the head itself is bad, and the in-use count is made to
 * agree with the chain.  False when nothing is left to check.
 */
static bool freelist_repair(struct sim *sim, struct kmem_cache *s, struct slab *slab, char *buf,
                            size_t len)
{
    sim_addr_t fp = slab->freelist, object = SIM_NULL;
    unsigned nr = 0;
    char what[96];

    while (fp && nr <= slab->objects) {
        if (!check_valid_pointer(s, slab, fp)) {
            if (!object) {
                slab_err(s, slab, buf, len, "Freepointer corrupt");
                slab->freelist = SIM_NULL;
                slab->inuse = slab->objects;
                slab_fix(s, buf, len, "Freelist cleared");
                return false;
            }
            s->errors++; /* object_err */
            bug_header(buf, len, s, "Freechain corrupt");
            object_info(sim, s, slab, object, buf, len);
            set_freepointer(sim, s, object, SIM_NULL);
            break;
        }
        object = fp;
        fp = peek_freepointer(sim, s, object, NULL);
        nr++;
    }
    if (nr > slab->objects) {
        slab_err(s, slab, buf, len, "Freelist cycle detected");
        slab->freelist = SIM_NULL;
        slab->inuse = slab->objects;
        slab_fix(s, buf, len, "Freelist cleared");
        return false;
    }
    if (slab->inuse != slab->objects - nr) {
        snprintf(what, sizeof(what), "Wrong object count. Counter is %u but counted were %u",
                 slab->inuse, slab->objects - nr);
        slab_err(s, slab, buf, len, what);
        slab->inuse = slab->objects - nr;
        slab_fix(s, buf, len, "Object count adjusted");
    }
    return true;
}

/* Check every object of @slab against what it should hold, free or in use
 * (kernel: validate_slab); the first object found bad ends the walk. */
static void validate_slab(struct sim *sim, struct kmem_cache *s, struct slab *slab, char *buf,
                          size_t len)
{
    uint8_t map[(MAX_OBJS_PER_PAGE + 8) / 8];
    unsigned n = 0;

    if (!freelist_repair(sim, s, slab, buf, len))
        return;
    memset(map, 0, (slab->objects + 7) / 8);
    for (sim_addr_t p = slab->freelist; p && n < slab->objects; n++) {
        long i = slab_obj_index(s, slab, p);

        map[i / 8] |= (uint8_t)(1u << (i % 8));
        p = peek_freepointer(sim, s, p, NULL);
    }
    for (unsigned i = 0; i < slab->objects; i++) {
        sim_addr_t obj = slab->base + s->red_left_pad + (sim_addr_t)i * s->size;
        bool free = map[i / 8] & (1u << (i % 8));

        if (!check_object(sim, s, slab, obj, free ? SLUB_RED_INACTIVE : SLUB_RED_ACTIVE, buf, len))
            break;
    }
}

/*
 * validate_slab_cache, what writing /sys/kernel/slab/<cache>/validate runs:
 * flush every CPU's cached objects back to their slabs, then check each
 * slab of each node's partial list, and of its full list when the cache
 * stores users (only then does SLUB keep one).  Whatever is found is
 * reported in SLUB's words, repaired and counted (s->errors).
 */
void validate_slab_cache(struct sim *sim, struct kmem_cache *s)
{
    char buf[sizeof(sim->res->message)] = "";
    unsigned before = s->errors;
    unsigned long count = 0;

    flush_all(sim, s);
    ev_begin(sim, s, "validate_slab_cache", "clean", -1);
    for (unsigned node = 0; node < sim->cfg.nr_nodes; node++) {
        const struct kmem_cache_node *n = &s->node[node];
        uint32_t idx;

        for (idx = n->partial.head; idx; idx = slab_at(sim, idx)->link.next, count++)
            validate_slab(sim, s, slab_at(sim, idx), buf, sizeof(buf));
        if (!(s->flags & SIM_SLAB_STORE_USER))
            continue;
        for (idx = n->full.head; idx; idx = slab_at(sim, idx)->link.next, count++)
            validate_slab(sim, s, slab_at(sim, idx), buf, sizeof(buf));
    }
    if (s->errors != before) {
        ev_label(sim, "errors");
        sim_result_msg(sim, SIM_MISUSE, "%s", buf);
        ev_report(sim, sim->res->message);
    } else {
        snprintf(sim->res->message, sizeof(sim->res->message),
                 "validate_slab_cache: %lu slabs of %s checked, no error", count, s->name);
    }
    ev_end(sim);
}
