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

static void mem_fill(struct sim *sim, sim_addr_t addr, uint8_t val, size_t len)
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

/* Red zones and poison of one object (kernel: init_object). */
static void init_object(struct sim *sim, struct kmem_cache *s, sim_addr_t obj, uint8_t val)
{
    if (s->flags & SIM_SLAB_RED_ZONE)
        mem_fill(sim, obj - s->red_left_pad, val, s->red_left_pad);
    if (s->flags & OBJECT_POISON) {
        mem_fill(sim, obj, POISON_FREE, s->object_size - 1);
        mem_fill(sim, obj + s->object_size - 1, POISON_END, 1);
    }
    if (s->flags & SIM_SLAB_RED_ZONE)
        mem_fill(sim, obj + s->object_size, val, s->inuse - s->object_size);
}

/* Offset of the alloc track (the free track follows). */
static unsigned track_offset(const struct kmem_cache *s)
{
    return s->offset >= s->inuse ? s->inuse + 8 : s->inuse;
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
    rep(buf, sizeof(buf), "FIX %s: Object at 0x%llx not freed\n", s->name,
            (unsigned long long)obj);
    snprintf(sim->res->message, sizeof(sim->res->message), "%s", buf);
    sim->res->status = SIM_MISUSE;
    return false;
}
