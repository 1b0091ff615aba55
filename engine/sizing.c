/*
 * sizing.c: how a cache's geometry follows from its arguments (kernel:
 * calculate_alignment, calculate_sizes, calculate_order, calc_slab_order,
 * calculate_sheaf_capacity, and the min_partial rule of do_kmem_cache_create).
 *
 * Pure functions of the arguments and the CPU count: the same numbers
 * /sys/kernel/slab shows (slab_size, align, objs_per_slab, order, min_partial,
 * sheaf_capacity).  The geometry check of `slublab geometry` compares them
 * against a live kernel.
 */
#include "internal.h"

static unsigned round_up_u(unsigned x, unsigned a)
{
    return (x + a - 1) / a * a;
}

static unsigned fls_u(unsigned x)
{
    return x ? 32u - (unsigned)__builtin_clz(x) : 0;
}

/* The kmalloc size classes, kmalloc-8 to kmalloc-8k (kernel:
 * kmalloc_info); kmalloc.c makes its caches from them. */
const unsigned kmalloc_sizes[NR_KMALLOC_SIZES] = {8, 16, 32, 64, 96, 128, 192, 256, 512, 1024,
        2048, 4096, 8192};

/* Bytes kmalloc really gives for @size: its class, or whole pages beyond
 * 8 KiB (kernel: kmalloc_size_roundup). */
unsigned long kmalloc_size_roundup(unsigned long size)
{
    for (unsigned i = 0; i < NR_KMALLOC_SIZES; i++)
        if (size <= kmalloc_sizes[i])
            return kmalloc_sizes[i];
    return ((size + PAGE_SIZE - 1) / PAGE_SIZE) * PAGE_SIZE;
}

/* Smallest order whose block holds @size bytes (kernel: get_order). */
unsigned get_order(unsigned long size)
{
    unsigned order = 0;

    while ((unsigned long)PAGE_SIZE << order < size)
        order++;
    return order;
}

static unsigned order_objects(unsigned order, unsigned size)
{
    return (unsigned)(((unsigned long)PAGE_SIZE << order) / size);
}

/* (kernel: calculate_alignment in slab_common.c, and create_boot_cache's
 * natural alignment for kmalloc caches) */
unsigned calculate_alignment(uint32_t flags, unsigned align, unsigned size)
{
    if (flags & SIM_SLAB_HWCACHE_ALIGN) {
        unsigned ralign = CACHE_LINE_SIZE;

        while (size <= ralign / 2)
            ralign /= 2;
        align = align > ralign ? align : ralign;
    }
    if (flags & SIM_SLAB_KMALLOC) {
        unsigned natural = 1u << __builtin_ctz(size);

        align = align > natural ? align : natural;
    }
    if (align < ARCH_SLAB_MINALIGN)
        align = ARCH_SLAB_MINALIGN;
    return round_up_u(align, 8);
}

/* Object layout (kernel: calculate_sizes); sets size, inuse, offset,
 * red_left_pad and OBJECT_POISON of @s from its other fields.  @ctor_offset:
 * a cache with a constructor may place its free pointer at @freeptr_offset
 * (7.0 on, a13b68d79d5c "mm/slab: allow specifying free pointer offset when
 * using constructor"); before, a constructor puts it outside the object. */
void calculate_sizes(struct kmem_cache *s, bool use_freeptr_offset, unsigned freeptr_offset,
                     bool ctor_offset)
{
    uint32_t flags = s->flags;
    unsigned size = round_up_u(s->object_size, 8);
    bool orig_size = (flags & SIM_SLAB_KMALLOC) && (flags & SIM_SLAB_STORE_USER);

    if ((flags & SIM_SLAB_POISON) && !(flags & SIM_SLAB_TYPESAFE_BY_RCU) && !s->ctor)
        s->flags |= OBJECT_POISON;
    else
        s->flags &= ~OBJECT_POISON;
    if ((flags & SIM_SLAB_RED_ZONE) && size == s->object_size)
        size += 8;
    s->inuse = size;
    if (((flags & SIM_SLAB_TYPESAFE_BY_RCU) && !use_freeptr_offset) || (flags & SIM_SLAB_POISON) ||
        (s->ctor && !(use_freeptr_offset && ctor_offset)) ||
        ((flags & SIM_SLAB_RED_ZONE) && (s->object_size < 8 || orig_size))) {
        s->offset = size; /* outside the object */
        size += 8;
    } else if (((flags & SIM_SLAB_TYPESAFE_BY_RCU) || s->ctor) && use_freeptr_offset) {
        s->offset = freeptr_offset;
    } else {
        s->offset = (s->object_size / 2) / 8 * 8; /* the middle, word aligned */
    }
    if (flags & SIM_SLAB_STORE_USER) {
        size += 2 * TRACK_SIZE;
        if (flags & SIM_SLAB_KMALLOC)
            size += 8;
    }
    s->red_left_pad = 0;
    if (flags & SIM_SLAB_RED_ZONE) {
        size += 8;
        s->red_left_pad = round_up_u(8, s->align);
        size += s->red_left_pad;
    }
    s->size = round_up_u(size, s->align);
    s->reciprocal_size = ((uint64_t)1 << 32) / s->size; /* rounds down: never too high */
}

static unsigned calc_slab_order(unsigned size, unsigned min_order, unsigned max_order,
        unsigned fract)
{
    unsigned order;

    for (order = min_order; order <= max_order; order++) {
        unsigned long bytes = (unsigned long)PAGE_SIZE << order;

        if (bytes % size <= bytes / fract)
            break;
    }
    return order;
}

/* Slab order for objects of @size with @cpus present CPUs (kernel:
 * calculate_order).  Returns the order or -E2BIG. */
int calculate_order(unsigned size, unsigned cpus, unsigned nr_cpu_ids)
{
    unsigned min_objects, max_objects, min_order, order;

    if (cpus <= 1)
        cpus = nr_cpu_ids;
    min_objects = 4 * (fls_u(cpus) + 1);
    max_objects = order_objects(SLUB_MAX_ORDER, size);
    if (max_objects < 1)
        max_objects = 1;
    if (min_objects > max_objects)
        min_objects = max_objects;
    min_order = get_order((unsigned long)min_objects * size); /* slub_min_order is 0 */
    if (order_objects(min_order, size) > MAX_OBJS_PER_PAGE)
        return (int)get_order((unsigned long)size * MAX_OBJS_PER_PAGE) - 1;
    for (unsigned fraction = 16; fraction > 1; fraction /= 2) {
        order = calc_slab_order(size, min_order, SLUB_MAX_ORDER, fraction);
        if (order <= SLUB_MAX_ORDER)
            return (int)order;
    }
    order = get_order(size);
    if (order <= MAX_PAGE_ORDER)
        return (int)order;
    return -E2BIG;
}

/* Fill oo and min of @s from its size.  0 or -E2BIG. */
int calculate_oo(struct kmem_cache *s, unsigned cpus, unsigned nr_cpu_ids)
{
    int order = calculate_order(s->size, cpus, nr_cpu_ids);

    if (order < 0)
        return order;
    s->oo.order = (unsigned)order;
    s->oo.objects = order_objects((unsigned)order, s->size);
    s->min.order = get_order(s->size);
    s->min.objects = order_objects(s->min.order, s->size);
    if (s->oo.objects > MAX_OBJS_PER_PAGE)
        s->oo.objects = MAX_OBJS_PER_PAGE;
    return 0;
}

/* A write to sysfs "order" (kernel: order_store, calculate_sizes with a
 * forced order): 0 or -EINVAL when @order is above slub_max_order or holds
 * no object. */
int set_oo_order(struct kmem_cache *s, unsigned order)
{
    if (order > SLUB_MAX_ORDER || order_objects(order, s->size) < 1)
        return -EINVAL;
    s->oo.order = order;
    s->oo.objects = order_objects(order, s->size);
    if (s->oo.objects > MAX_OBJS_PER_PAGE)
        s->oo.objects = MAX_OBJS_PER_PAGE;
    return 0;
}

/* (kernel: do_kmem_cache_create: ilog2(size) / 2 clamped to 5..10) */
unsigned calculate_min_partial(unsigned size)
{
    unsigned v = (fls_u(size) - 1) / 2;

    return v < MIN_PARTIAL ? MIN_PARTIAL : v > MAX_PARTIAL ? MAX_PARTIAL : v;
}

/* (kernel: calculate_sheaf_capacity) */
unsigned calculate_sheaf_capacity(uint32_t flags, unsigned size, unsigned requested)
{
    unsigned base;

    if (flags & (SIM_SLAB_DEBUG_FLAGS | SIM_SLAB_NO_OBJ_EXT | SIM_SLAB_NOLEAKTRACE))
        return 0;
    base = size >= 4096 ? 4 : size >= 1024 ? 12 : size >= 256 ? 26 : 60;
    base = (unsigned)(kmalloc_size_roundup(SHEAF_HEADER_SIZE + 8ul * base) - SHEAF_HEADER_SIZE) / 8;
    return base > requested ? base : requested;
}

int sim_cache_geometry(const struct sim_cache_args *a, unsigned cpus, struct sim_geometry *g)
{
    struct kmem_cache s = {0};

    if (!a->object_size || a->object_size > (PAGE_SIZE << MAX_PAGE_ORDER) / 2 || !cpus)
        return -EINVAL;
    s.object_size = a->object_size;
    s.flags = a->flags;
    s.ctor = a->ctor;
    s.align = calculate_alignment(a->flags, a->align, a->object_size);
    calculate_sizes(&s, a->use_freeptr_offset, a->freeptr_offset, true);
    if (calculate_oo(&s, cpus, cpus))
        return -EINVAL;
    g->size = s.size;
    g->align = s.align;
    g->inuse = s.inuse;
    g->offset = s.offset;
    g->red_left_pad = s.red_left_pad;
    g->order = s.oo.order;
    g->objects = s.oo.objects;
    g->min_order = s.min.order;
    g->min_objects = s.min.objects;
    g->min_partial = calculate_min_partial(s.size);
    g->sheaf_capacity = calculate_sheaf_capacity(s.flags, s.size, a->sheaf_capacity);
    return 0;
}
