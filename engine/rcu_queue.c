/*
 * rcu_queue.c: the callbacks waiting for a grace period (kernel: call_rcu and
 * the RCU core's callback list).
 *
 * The queue is a FIFO in sim->rcu: call_rcu appends, a grace period (rcu.c)
 * runs callbacks from the head, each on the CPU that queued it.  A callback
 * names what to free: a sheaf (rcu_free_sheaf, with or without the barn), a
 * SLAB_TYPESAFE_BY_RCU slab's pages, or one kfree_rcu object.  It is a file of
 * its own for the same reason the kernel keeps call_rcu out of mm/slub.c: the
 * slab and sheaf code queues callbacks, and the callbacks (rcu.c) call back
 * into that code.  Calls only host.c.
 */
#include "internal.h"

#include <string.h>

/* Queue a callback for the current CPU (kernel: call_rcu).  Host memory
 * exhaustion unwinds. */
void rcu_queue(struct sim *sim, enum rcu_cb_kind kind, uint32_t idx, sim_addr_t obj)
{
    struct rcu_cb *cb;

    if (sim->nr_rcu == sim->cap_rcu) {
        size_t cap = sim->cap_rcu ? sim->cap_rcu * 2 : 64;

        sim->rcu = sim_realloc(sim, sim->rcu, cap * sizeof(*sim->rcu));
        sim->cap_rcu = cap;
    }
    cb = &sim->rcu[sim->nr_rcu++];
    cb->kind = (uint8_t)kind;
    cb->cpu = (uint8_t)sim->cpu;
    cb->idx = idx;
    cb->obj = obj;
}

/* Drop the first @n callbacks of the queue (they are running).  Cannot fail. */
void rcu_dequeue(struct sim *sim, size_t n)
{
    memmove(sim->rcu, sim->rcu + n, (sim->nr_rcu - n) * sizeof(*sim->rcu));
    sim->nr_rcu -= n;
}
