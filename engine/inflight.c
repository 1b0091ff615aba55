/*
 * inflight.c: objects held by an unfinished operation, and object sinks.
 *
 * Between two events of one operation an object may be in nobody's list: a
 * freelist detached from its slab, a batch being flushed from a sheaf.  Such
 * objects sit in sim->inflight, which the validator counts, so the conservation
 * law holds after every event, not only between operations.  An obj_sink is
 * where a refill or an allocation puts objects: the end of a sheaf, or the
 * caller's hands (an array it receives).
 */
#include "internal.h"

#include <string.h>

/* Add @obj to the in-flight set, recording its move from @from. */
void inflight_add(struct sim *sim, sim_addr_t obj, struct sim_place from)
{
    if (sim->nr_inflight == sim->cap_inflight) {
        size_t cap = sim->cap_inflight ? sim->cap_inflight * 2 : 256;

        sim->inflight = sim_realloc(sim, sim->inflight, cap * sizeof(*sim->inflight));
        sim->cap_inflight = cap;
    }
    sim->inflight[sim->nr_inflight++] = obj;
    if (from.type == SIM_PL_USER)
        slab_of(sim, obj)->nr_user--;
    ev_move(sim, SIM_MOVE_OBJECT, obj, from, place_none(SIM_PL_INFLIGHT));
}

/* Forget entries [@first, @first + @n), keeping the order of the rest. */
void inflight_remove_range(struct sim *sim, size_t first, size_t n)
{
    memmove(sim->inflight + first, sim->inflight + first + n,
            (sim->nr_inflight - first - n) * sizeof(*sim->inflight));
    sim->nr_inflight -= n;
}

/* Forget one occurrence of @obj (the last one).  Cannot fail: the object
 * must be in flight. */
void inflight_drop_one(struct sim *sim, sim_addr_t obj)
{
    for (size_t i = sim->nr_inflight; i-- > 0;) {
        if (sim->inflight[i] == obj) {
            inflight_remove_range(sim, i, 1);
            return;
        }
    }
    SIM_BUG_ON(1);
}

/* Put @obj, coming from @from, into @sink.  Cannot fail: a sheaf sink is
 * never given more than its free slots. */
void sink_put(struct sim *sim, struct obj_sink *sink, sim_addr_t obj, struct sim_place from)
{
    if (sink->sheaf) {
        struct slab_sheaf *sh = sheaf_at(sim, sink->sheaf);

        SIM_BUG_ON(sh->size >= sh->capacity);
        sh->objects[sh->size] = obj;
        ev_move(sim, SIM_MOVE_OBJECT, obj, from, place_in_sheaf(sh, sh->size));
        sh->size++;
    } else {
        if (sink->out)
            sink->out[sink->n] = obj;
        sink->last = obj;
        slab_of(sim, obj)->nr_user++;
        ev_move(sim, SIM_MOVE_OBJECT, obj, from, place_none(SIM_PL_USER));
    }
    sink->n++;
}

/* The last object put into a user sink. */
sim_addr_t sink_last(const struct obj_sink *sink)
{
    return sink->last;
}
