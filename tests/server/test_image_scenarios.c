/*
 * test_image_scenarios.c: every shipped scenario, saved as an image at
 * operation boundaries and loaded, goes on exactly as it would have.
 *
 * Each scenario file (scenarios/, .json) is replayed on its own kernel and on the kernels of
 * the other models (7.3 sheaves, 6.12 and 6.1 legacy, 6.18 hybrid; a run the
 * other model refuses part way is used up to where it stopped).  The replay
 * hook records every operation (bulk arrays and races copied) and, after it,
 * the text of every event (each field, pointers followed, and its JSON from
 * json_event() when the run has at most JSON_OPS operations) and of the
 * result.
 * At a dozen boundaries, and before each race operation, the machine is saved
 * with sim_image_save() (its pages copied out) and cloned.  After the run,
 * each image is loaded (sim_image_load) and checked (sim_validate, the same
 * sim_host_bytes as the clone, the same image when saved again), then the
 * loaded machine and the clone apply the rest of the recorded operations
 * and must print exactly the text the uninterrupted run printed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "evtext.h"
#include "present/json_state.h"
#include "scenario/kernel.h"
#include "scenario/replay.h"

#define MAX_CHECKPOINTS 16
#define MAX_CONTINUE    20000 /* operations run after a checkpoint (bounds long scenarios) */
#define JSON_OPS        5000  /* runs this short also compare each event's JSON */

static bool with_json; /* add each event's JSON (json_event()) to the text */

static void on_event(const struct sim_event *ev, void *arg)
{
    struct text *t = arg;

    if (with_json) {
        cJSON *o = json_event(ev);
        char *json = o ? cJSON_PrintUnformatted(o) : NULL;

        if (!json)
            abort();
        text_add(t, "%s\n", json);
        cJSON_free(json);
        cJSON_Delete(o);
    }
    text_event(t, ev);
}

static void text_result(struct text *t, const struct sim_op *op, int ret,
                        const struct sim_result *res)
{
    text_add(t, "= %d %u %llx %u %u %d %s", ret, res->status, (unsigned long long)res->addr,
             res->count, res->sheaf, res->cache, res->message);
    for (unsigned i = 0; op->kind == SIM_OP_ALLOC_BULK && i < res->count; i++)
        text_add(t, " %llx", (unsigned long long)op->out[i]);
    if (op->kind == SIM_OP_RACE) {
        const struct sim_race_result *rr = &res->race;

        text_add(t, " race %u %u %d %u", rr->steps, rr->runnable, rr->done_at_end,
                 rr->lost_updates);
        for (unsigned c = 0; c < SIM_RACE_MAX_CTX; c++)
            for (unsigned k = 0; k < SIM_RACE_MAX_OPS; k++)
                text_add(t, " %llx", (unsigned long long)rr->addr[c][k]);
    }
    text_add(t, "\n");
}

/* An operation as recorded: its arrays and race owned. */
struct rec_op {
    struct sim_op op;
    sim_addr_t *in;
    struct sim_race *race;
};

struct image_copy {
    struct sim_image img; /* pages[].bytes point into bytes */
    uint8_t *bytes;
};

struct checkpoint {
    size_t after; /* operations applied when it was taken */
    size_t text;  /* text length then */
    struct image_copy image;
    struct sim *clone;
};

struct run {
    struct text text;
    struct rec_op *ops;
    size_t *text_at; /* [nr_ops]: text length after each operation */
    size_t nr_ops, cap_ops;
    size_t *want; /* boundaries at which to take a checkpoint: sorted op counts */
    size_t nr_want;
    struct checkpoint cp[MAX_CHECKPOINTS + 8];
    size_t nr_cp;
    unsigned busy;   /* saves refused (a halted machine) */
    unsigned faulty; /* checkpoints the validator faults, loaded as they were */
    const char *label;
};

static int image_copy_of(const struct sim *sim, struct image_copy *c)
{
    struct sim_image img;
    int ret = sim_image_save(sim, &img);

    if (ret)
        return ret;
    c->img = img;
    c->bytes = malloc(img.nr_pages ? img.nr_pages * SIM_PAGE_SIZE : 1);
    if (!c->bytes)
        abort();
    for (size_t i = 0; i < img.nr_pages; i++) {
        memcpy(c->bytes + i * SIM_PAGE_SIZE, img.pages[i].bytes, SIM_PAGE_SIZE);
        c->img.pages[i].bytes = c->bytes + i * SIM_PAGE_SIZE;
    }
    return 0;
}

static void image_copy_release(struct image_copy *c)
{
    sim_image_release(&c->img);
    free(c->bytes);
    c->bytes = NULL;
}

/* Pages come in address order: a cursor over the copy. */
struct page_cursor {
    const struct sim_image *img;
    size_t next;
};

static int fill_page(void *arg, sim_addr_t addr, uint8_t *dst)
{
    struct page_cursor *c = arg;

    if (c->next >= c->img->nr_pages || c->img->pages[c->next].addr != addr)
        return -ENOENT;
    memcpy(dst, c->img->pages[c->next++].bytes, SIM_PAGE_SIZE);
    return 0;
}

static void take_checkpoint(struct run *r, const struct sim *sim)
{
    struct checkpoint *cp = &r->cp[r->nr_cp];
    int ret;

    memset(cp, 0, sizeof(*cp));
    ret = image_copy_of(sim, &cp->image);
    if (ret == -EIO) { /* a halted machine: sim_apply() refuses it too */
        r->busy++;
        return;
    }
    if (!CHECK_OK(ret))
        return;
    if (!CHECK_OK(sim_clone(sim, &cp->clone))) {
        image_copy_release(&cp->image);
        return;
    }
    cp->after = r->nr_ops;
    cp->text = r->text.len;
    r->nr_cp++;
}

static int hook(struct replay *rp, const struct sim_op *op, const struct sim_result *res, void *arg)
{
    struct run *r = arg;
    struct rec_op *ro;

    text_result(&r->text, op, 0, res);
    if (r->nr_ops == r->cap_ops) {
        r->cap_ops = r->cap_ops ? 2 * r->cap_ops : 256;
        r->ops = realloc(r->ops, r->cap_ops * sizeof(*r->ops));
        r->text_at = realloc(r->text_at, r->cap_ops * sizeof(*r->text_at));
        if (!r->ops || !r->text_at)
            abort();
    }
    r->text_at[r->nr_ops] = r->text.len;
    ro = &r->ops[r->nr_ops++];
    memset(ro, 0, sizeof(*ro));
    ro->op = *op;
    ro->op.out = NULL;
    if (op->kind == SIM_OP_FREE_BULK) {
        ro->in = malloc(op->count * sizeof(*ro->in));
        if (!ro->in)
            abort();
        memcpy(ro->in, op->in, op->count * sizeof(*ro->in));
        ro->op.in = ro->in;
    }
    if (op->kind == SIM_OP_RACE) {
        ro->race = malloc(sizeof(*ro->race));
        if (!ro->race)
            abort();
        *ro->race = *op->race;
        ro->op.race = ro->race;
    }
    for (size_t i = 0; i < r->nr_want && r->nr_cp < MAX_CHECKPOINTS + 8; i++)
        if (r->want[i] == r->nr_ops)
            take_checkpoint(r, rp->sim);
    return 0;
}

/* Apply the recorded operations [@from, @to) on @sim; its text must be @want. */
static bool continue_from(struct run *r, struct sim *sim, size_t from, size_t to, const char *want,
                          size_t want_len, const char *who)
{
    struct text t = {0};
    bool same;

    sim_set_event_cb(sim, on_event, &t);
    for (size_t i = from; i < to; i++) {
        struct sim_op op = r->ops[i].op;
        struct sim_result res;
        sim_addr_t *out = NULL;
        int ret;

        if (op.kind == SIM_OP_ALLOC_BULK) {
            out = calloc(op.count, sizeof(*out));
            if (!out)
                abort();
            op.out = out;
        }
        ret = sim_apply(sim, &op, &res);
        text_result(&t, &op, ret, &res);
        free(out);
    }
    sim_set_event_cb(sim, NULL, NULL);
    same = t.len == want_len && (!want_len || !memcmp(t.p, want, want_len));
    if (!CHECK(same)) {
        size_t k = 0;

        while (k < t.len && k < want_len && t.p[k] == want[k])
            k++;
        while (k > 0 && want[k - 1] != '\n')
            k--;
        printf("  %s: %s after op %zu differs at:\n    want %.160s\n    got  %.160s\n", r->label,
               who, from, want + k, t.p ? t.p + k : "");
    }
    free(t.p);
    return same;
}

static void check_checkpoint(struct run *r, struct checkpoint *cp)
{
    struct page_cursor cur = {.img = &cp->image.img};
    struct sim *loaded = NULL;
    struct sim_image again;
    struct sim_report rep, want_rep;
    size_t to = r->nr_ops - cp->after > MAX_CONTINUE ? cp->after + MAX_CONTINUE : r->nr_ops;
    const char *want = r->text.p + cp->text;
    size_t want_len = r->text_at[to - 1] - cp->text;

    if (!CHECK_OK(sim_image_load(cp->image.img.meta, cp->image.img.meta_len, fill_page, &cur,
                                 &loaded))) {
        printf("  %s: the image after op %zu does not load\n", r->label, cp->after);
        return;
    }
    CHECK_EQ_U(cur.next, cp->image.img.nr_pages);
    /* what the validator says of the clone (NO_TID races lose updates on purpose) */
    if (CHECK_EQ_U(sim_validate(loaded, SIM_VALIDATE_OP, &rep),
                   sim_validate(cp->clone, SIM_VALIDATE_OP, &want_rep))) {
        for (unsigned i = 0; i < rep.violations && i < SIM_REPORT_MSGS; i++)
            CHECK_EQ_STR(rep.msg[i], want_rep.msg[i]);
        r->faulty += rep.violations != 0;
    }
    CHECK_EQ_U(sim_host_bytes(loaded), sim_host_bytes(cp->clone));
    if (CHECK_OK(sim_image_save(loaded, &again))) {
        if (CHECK_EQ_U(again.meta_len, cp->image.img.meta_len))
            CHECK(!memcmp(again.meta, cp->image.img.meta, again.meta_len));
        if (CHECK_EQ_U(again.nr_pages, cp->image.img.nr_pages))
            for (size_t i = 0; i < again.nr_pages; i++)
                if (!CHECK(again.pages[i].addr == cp->image.img.pages[i].addr &&
                           !memcmp(again.pages[i].bytes, cp->image.img.pages[i].bytes,
                                   SIM_PAGE_SIZE)))
                    break;
        sim_image_release(&again);
    }
    continue_from(r, loaded, cp->after, to, want, want_len, "the loaded image");
    continue_from(r, cp->clone, cp->after, to, want, want_len, "the clone");
    sim_destroy(loaded);
}

static void run_release(struct run *r)
{
    for (size_t i = 0; i < r->nr_ops; i++) {
        free(r->ops[i].in);
        free(r->ops[i].race);
    }
    free(r->ops);
    free(r->text_at);
    for (size_t i = 0; i < r->nr_cp; i++) {
        image_copy_release(&r->cp[i].image);
        sim_destroy(r->cp[i].clone);
    }
    free(r->text.p);
    free(r->want);
}

/* How many operations @scn applies on @cfg, and where its race ops are. */
static int count_ops(const struct scenario *scn, const struct sim_config *cfg, size_t *nr,
                     size_t **races, size_t *nr_races);

struct counter {
    size_t n;
    size_t *races;
    size_t nr_races;
};

static int count_hook(struct replay *rp, const struct sim_op *op, const struct sim_result *res,
                      void *arg)
{
    struct counter *c = arg;

    (void)rp;
    (void)res;
    if (op->kind == SIM_OP_RACE) {
        c->races = realloc(c->races, (c->nr_races + 1) * sizeof(*c->races));
        if (!c->races)
            abort();
        c->races[c->nr_races++] = c->n; /* before it */
    }
    c->n++;
    return 0;
}

static int count_ops(const struct scenario *scn, const struct sim_config *cfg, size_t *nr,
                     size_t **races, size_t *nr_races)
{
    struct replay rp;
    struct counter c = {0};
    int ret = replay_init(&rp, scn, cfg);

    if (!ret) {
        rp.hook = count_hook;
        rp.hook_arg = &c;
        ret = replay_run(&rp);
    }
    replay_release(&rp);
    *nr = c.n;
    *races = c.races;
    *nr_races = c.nr_races;
    return ret;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

/* One scenario on one configuration.  Returns the checkpoints checked. */
static unsigned check_config(const struct scenario *scn, const struct sim_config *cfg,
                             const char *label, bool must_finish)
{
    struct run r = {.label = label};
    struct replay rp;
    size_t nr = 0, *races = NULL, nr_races = 0;
    unsigned checked = 0;
    int ret = count_ops(scn, cfg, &nr, &races, &nr_races);

    if (must_finish && !CHECK_OK(ret))
        printf("  %s does not run\n", label);
    if (!nr) {
        free(races);
        return 0;
    }
    r.want = calloc(MAX_CHECKPOINTS + nr_races + 1, sizeof(*r.want));
    if (!r.want)
        abort();
    for (size_t i = 0; i < MAX_CHECKPOINTS && i < nr; i++)
        r.want[r.nr_want++] = 1 + i * nr / (nr < MAX_CHECKPOINTS ? nr : MAX_CHECKPOINTS);
    for (size_t i = 0; i < nr_races && i < 8; i++)
        if (races[i])
            r.want[r.nr_want++] = races[i];
    free(races);
    qsort(r.want, r.nr_want, sizeof(*r.want), cmp_size);
    {
        size_t k = 0;

        for (size_t i = 0; i < r.nr_want; i++)
            if (!k || r.want[k - 1] != r.want[i])
                r.want[k++] = r.want[i];
        r.nr_want = k;
    }
    with_json = nr <= JSON_OPS;
    ret = replay_init(&rp, scn, cfg);
    if (!ret) {
        sim_set_event_cb(rp.sim, on_event, &r.text);
        rp.hook = hook;
        rp.hook_arg = &r;
        replay_run(&rp);
        sim_set_event_cb(rp.sim, NULL, NULL);
    }
    replay_release(&rp);
    CHECK(r.nr_cp + r.busy > 0);
    for (size_t i = 0; i < r.nr_cp; i++) {
        check_checkpoint(&r, &r.cp[i]);
        checked++;
    }
    printf("  %s: %zu ops, %u checkpoints%s%s\n", label, r.nr_ops, checked,
           r.busy ? " (some after a crash, refused)" : "",
           r.faulty ? " (some with the validator's faults)" : "");
    run_release(&r);
    return checked;
}

static const char *const alt_kernels[] = {"7.3", "6.12", "6.1", "6.18"};

static unsigned long total_checked;

static void check_scenario(const char *path)
{
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    char label[300];

    if (!CHECK_OK(scenario_load(path, &scn, &err))) {
        printf("  %s: %s\n", path, strbuf_str(&err));
        goto out;
    }
    snprintf(label, sizeof(label), "%s (own kernel)", path);
    total_checked += check_config(scn, &scn->config, label, true);
    for (size_t k = 0; k < sizeof(alt_kernels) / sizeof(alt_kernels[0]); k++) {
        struct sim_config cfg = scn->config;
        char msg[256];

        if (kernel_choose(alt_kernels[k], NULL, scn->variants_given, &cfg, msg, sizeof(msg)))
            continue;
        if (cfg.model == scn->config.model && cfg.release == scn->config.release)
            continue;
        snprintf(label, sizeof(label), "%s (%s)", path, alt_kernels[k]);
        total_checked += check_config(scn, &cfg, label, false);
    }
out:
    scenario_release(scn);
    strbuf_release(&err);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_every_scenario(void)
{
    DIR *d = opendir("scenarios");
    struct dirent *de;
    char *names[256];
    unsigned n = 0;

    if (!CHECK(d != NULL))
        return;
    while ((de = readdir(d)) && n < 256) {
        size_t len = strlen(de->d_name);

        if (len > 5 && !strcmp(de->d_name + len - 5, ".json")) {
            names[n] = malloc(len + 12);
            if (!names[n])
                abort();
            snprintf(names[n++], len + 12, "scenarios/%s", de->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof(*names), cmp_names);
    CHECK(n >= 20);
    for (unsigned i = 0; i < n; i++) {
        check_scenario(names[i]);
        free(names[i]);
    }
    printf("  %u scenarios, %lu checkpoints loaded and continued\n", n, total_checked);
    CHECK(total_checked >= 10ul * n);
}

int main(void)
{
    RUN_TEST(test_every_scenario);
    return check_done();
}
