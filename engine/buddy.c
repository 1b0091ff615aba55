/*
 * buddy.c: the buddy page allocator beneath the slabs.
 *
 * Every node has a ZONE_NORMAL; node 0 may also have ZONE_DMA and ZONE_DMA32
 * (machine config).  Free blocks of order 0..MAX_PAGE_ORDER sit on per-order
 * lists; allocation takes the smallest order that has a block and splits it,
 * putting the upper halves back (kernel: __rmqueue_smallest, expand); freeing
 * merges a block with its buddy while the buddy is free and of the same order
 * (kernel: __free_one_page).  Max-order blocks that were never handed out are
 * not on any list: they are the "untouched" tail of the zone, carved in address
 * order when the lists run dry, so an unused zone costs no host memory.
 * Running out of memory is a result (-ENOMEM), never a crash.  This file is the
 * buddy level of one zone (kernel: rmqueue_buddy); which zone, and whether its
 * watermarks allow it, is alloc_pages.c's business.  Free lists are not split
 * by migratetype: every free block may serve every type.
 */
#include "internal.h"

static unsigned long pfn_of(const struct zone *z, sim_addr_t addr)
{
    return (unsigned long)((addr - z->start) >> PAGE_SHIFT);
}

static void area_add(struct zone *z, unsigned long pfn, unsigned order)
{
    struct sim_page *p = zone_page(z, pfn);
    struct free_area *a = &z->area[order];

    p->buddy = (uint8_t)order;
    p->prev = 0;
    p->next = a->head;
    if (a->head)
        zone_page(z, a->head - 1)->prev = (uint32_t)(pfn + 1);
    a->head = (uint32_t)(pfn + 1);
    a->nr_free++;
}

static void area_del(struct zone *z, unsigned long pfn, unsigned order)
{
    struct sim_page *p = zone_page(z, pfn);
    struct free_area *a = &z->area[order];

    if (p->prev)
        zone_page(z, p->prev - 1)->next = p->next;
    else
        a->head = p->next;
    if (p->next)
        zone_page(z, p->next - 1)->prev = p->prev;
    p->prev = p->next = 0;
    p->buddy = PAGE_BUDDY_NONE;
    a->nr_free--;
}

/* Describe the next untouched max-order block and return its pfn. */
static unsigned long carve_chunk(struct sim *sim, struct zone *z)
{
    unsigned long c = z->untouched++;
    struct sim_page *chunk = sim_zalloc(sim, CHUNK_PAGES * sizeof(*chunk));

    for (unsigned i = 0; i < CHUNK_PAGES; i++)
        chunk[i].buddy = PAGE_BUDDY_NONE;
    z->chunk[c] = chunk;
    return c * CHUNK_PAGES;
}

/* Describe zone @z of @pages pages at @start, all free and untouched.
 * Watermarks come later (setup_per_zone_wmarks). */
void zone_init(struct sim *sim, struct zone *z, int node, unsigned type, sim_addr_t start,
               unsigned long pages)
{
    z->node = node;
    z->type = (uint8_t)type;
    z->start = start;
    z->pages = pages;
    z->free_pages = pages;
    z->chunk = sim_zalloc(sim, (pages / CHUNK_PAGES) * sizeof(*z->chunk));
}

/* Allocate 2^@order pages on @node's ZONE_NORMAL, ignoring watermarks.
 * Returns 0 with the address in *addr, or -ENOMEM when no block is large
 * enough (or failure is injected). */
int page_alloc(struct sim *sim, int node, unsigned order, sim_addr_t *addr)
{
    if (sim->fail_page_order >= 0 && order >= (unsigned)sim->fail_page_order)
        return -ENOMEM;
    return rmqueue_buddy(sim, &sim->zones[node], order, addr);
}

/* Take 2^@order pages from @z's free lists (kernel: rmqueue_buddy,
 * __rmqueue_smallest, expand).  0 with *addr, or -ENOMEM. */
int rmqueue_buddy(struct sim *sim, struct zone *z, unsigned order, sim_addr_t *addr)
{
    unsigned long pfn;
    unsigned o;

    for (o = order; o <= MAX_PAGE_ORDER; o++)
        if (z->area[o].head)
            break;
    if (o <= MAX_PAGE_ORDER) {
        pfn = z->area[o].head - 1;
        area_del(z, pfn, o);
    } else if (z->untouched < z->pages / CHUNK_PAGES) {
        o = MAX_PAGE_ORDER;
        pfn = carve_chunk(sim, z);
    } else {
        return -ENOMEM;
    }
    while (o > order) { /* expand: the upper half goes back on the list */
        o--;
        area_add(z, pfn + (1ul << o), o);
    }
    z->free_pages -= 1ul << order;
    *addr = z->start + ((sim_addr_t)pfn << PAGE_SHIFT);
    return 0;
}

/* Give back 2^@order pages at @addr, merging buddies.  Cannot fail. */
void page_free(struct sim *sim, sim_addr_t addr, unsigned order)
{
    struct zone *z = zone_of(sim, addr);
    unsigned long pfn;

    SIM_BUG_ON(!z);
    pfn = pfn_of(z, addr);
    z->free_pages += 1ul << order;
    while (order < MAX_PAGE_ORDER) {
        unsigned long buddy = pfn ^ (1ul << order);
        struct sim_page *b = buddy < z->pages ? zone_page(z, buddy) : NULL;

        if (!b || b->buddy != order)
            break;
        area_del(z, buddy, order);
        pfn &= ~(1ul << order);
        order++;
    }
    area_add(z, pfn, order);
}

/* Free blocks of @order in @z, counting untouched max-order blocks. */
unsigned long zone_nr_free(const struct zone *z, unsigned order)
{
    unsigned long n = z->area[order].nr_free;

    if (order == MAX_PAGE_ORDER)
        n += z->pages / CHUNK_PAGES - z->untouched;
    return n;
}
