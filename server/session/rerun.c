/*
 * rerun.c: a session's whole run again on another machine configuration
 * (another variant, release or model): what `GET /api/compare` does with a
 * replayed kernel trace, whose operations are an op log rather than a
 * scenario (docs/oplog.md).
 *
 * The log names objects by the addresses the session's own machine gave
 * them, which another configuration does not give.  So the run is replayed
 * twice in step: on the session's configuration, to read what each logged
 * address was, and on the new one, where each allocation's address is
 * remembered against the first machine's and each free is sent to the
 * object the same allocation made there.  The same workload, object for
 * object, on another kernel.
 */
#include "session/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session/session_internal.h"

/* Addresses of the session's machine -> the other machine's (open addressing). */
struct addr_map {
    sim_addr_t *key, *val; /* key 0: empty */
    size_t cap, n;
};

static size_t slot_of(const struct addr_map *m, sim_addr_t a)
{
    size_t i = (size_t)((a * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);

    while (m->key[i] && m->key[i] != a)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int map_put(struct addr_map *m, sim_addr_t a, sim_addr_t b)
{
    size_t i;

    if (!a)
        return 0;
    if (2 * (m->n + 1) > m->cap) {
        struct addr_map g = {NULL, NULL, m->cap ? 2 * m->cap : 4096, 0};

        g.key = calloc(g.cap, sizeof(*g.key));
        g.val = calloc(g.cap, sizeof(*g.val));
        if (!g.key || !g.val) {
            free(g.key);
            free(g.val);
            return -ENOMEM;
        }
        for (i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t j = slot_of(&g, m->key[i]);

                g.key[j] = m->key[i];
                g.val[j] = m->val[i];
                g.n++;
            }
        free(m->key);
        free(m->val);
        *m = g;
    }
    i = slot_of(m, a);
    m->n += !m->key[i];
    m->key[i] = a;
    m->val[i] = b;
    return 0;
}

/* The other machine's address of @a; 0 when none was made. */
static sim_addr_t map_get(const struct addr_map *m, sim_addr_t a)
{
    size_t i;

    if (!m->cap)
        return 0;
    i = slot_of(m, a);
    return m->key[i] ? m->val[i] : 0;
}

int session_rerun(struct session *s, const struct sim_config *cfg, sim_event_fn fn, void *arg,
                  struct sim **out, uint64_t *unmatched)
{
    struct session_run *r = s->run;
    struct addr_map map = {NULL, NULL, 0, 0};
    struct sim *mine = NULL, *other = NULL;
    struct session_pos p;
    size_t off = 0;
    uint64_t ev;
    int err;

    *unmatched = 0;
    if (!r->nr_ckpts)
        return SESSION_EBROKEN;
    if ((err = session_ckpt_copy(&r->ckpts[0], &mine, &p)) || (err = sim_create(cfg, &other)))
        goto out;
    sim_set_event_cb(other, fn, arg);
    for (;;) {
        struct sim_result res_mine, res_other;
        struct sim_op op, op2;
        bool ok;

        err = oplog_next(&r->log, &off, &op, &ev, &r->scratch);
        if (err == -ENOENT) {
            err = 0;
            break;
        }
        if (err) {
            err = err == -ENOMEM ? -ENOMEM : SESSION_EBROKEN;
            break;
        }
        if (op.kind == SIM_OP_ALLOC_BULK || op.kind == SIM_OP_FREE_BULK || op.kind == SIM_OP_RACE ||
            op.kind == SIM_OP_ALLOC_PAGES || op.kind == SIM_OP_FREE_PAGES ||
            op.kind == SIM_OP_WRITE) {
            err = SESSION_EUNPROCESSABLE; /* not a kernel trace's operations */
            break;
        }
        if ((err = sim_apply(mine, &op, &res_mine)))
            break;
        op2 = op;
        ok = true;
        if (op.kind == SIM_OP_FREE || op.kind == SIM_OP_KFREE || op.kind == SIM_OP_KFREE_RCU) {
            op2.addr = map_get(&map, op.addr);
            ok = op2.addr != 0;
        }
        if (!ok) {
            (*unmatched)++;
            continue;
        }
        if ((err = sim_apply(other, &op2, &res_other)))
            break;
        if ((op.kind == SIM_OP_ALLOC || op.kind == SIM_OP_KMALLOC ||
             op.kind == SIM_OP_ALLOC_FROM_SHEAF) &&
            (err = map_put(&map, res_mine.addr, res_other.addr)))
            break;
    }
out:
    free(map.key);
    free(map.val);
    sim_destroy(mine);
    if (err) {
        sim_destroy(other);
        return err;
    }
    sim_set_event_cb(other, NULL, NULL);
    *out = other;
    return 0;
}
