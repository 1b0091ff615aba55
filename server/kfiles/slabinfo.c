/*
 * slabinfo.c: /proc/slabinfo, version 2.1, of a snapshot (see kfiles.h).
 *
 * The numbers are those SLUB's get_slabinfo() computes: num_objs is the
 * objects of every slab, active_objs subtracts only the free objects of
 * slabs on the node partial lists (so objects cached in sheaves or per-CPU
 * count as active), active_slabs equals num_slabs, pagesperslab is
 * 1 << the cache's order, and the tunables and sharedavail columns are 0.
 * Lines follow mm/slab_common.c:cache_show()'s widths; caches are listed
 * newest first, the order of the kernel's slab_caches list (list_add at
 * the head), destroyed caches left out.
 */
#include "kfiles/kfiles.h"

bool slabinfo_text(struct strbuf *out, const struct sim_snapshot *snap)
{
    size_t i;

    strbuf_puts(out, "slabinfo - version: 2.1\n"
                     "# name            <active_objs> <num_objs> <objsize> <objperslab> "
                     "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata "
                     "<active_slabs> <num_slabs> <sharedavail>\n");
    for (i = snap->nr_caches; i-- > 0;) {
        const struct sim_snap_cache *c = &snap->caches[i];

        if (!c->alive)
            continue;
        /* c->objects is total_objects minus the free objects on partial slabs */
        strbuf_printf(out, "%-17s %6lu %6lu %6u %4u %4d", c->name, c->objects, c->total_objects,
                      c->size, c->objects_per_slab, 1 << c->order);
        strbuf_printf(out, " : tunables %4u %4u %4u", 0u, 0u, 0u);
        strbuf_printf(out, " : slabdata %6lu %6lu %6lu\n", c->slabs, c->slabs, 0ul);
    }
    return !strbuf_failed(out);
}
