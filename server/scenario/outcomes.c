/*
 * outcomes.c: a scenario under every combination of the engine's choices
 * (outcomes.h).
 */
#include "scenario/outcomes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One run with @script (and @seed past it): the callbacks' verdict, or replay_init()'s error. */
static int walk_run(const struct scenario *scn, const struct sim_config *cfg,
                    struct outcome_walk *w, const uint64_t *script, size_t n, uint64_t seed,
                    uint64_t **taken, size_t *nr_taken, uint64_t **options, struct strbuf *err)
{
    struct replay rp = {0};
    const struct sim_choice *log;
    size_t nr;
    int ret, run_err;

    if ((ret = replay_init(&rp, scn, cfg))) {
        strbuf_printf(err, "%s", strbuf_str(&rp.error));
        goto out;
    }
    if ((ret = sim_choices_set(rp.sim, script, n, seed)))
        goto out;
    if (w->before && (ret = w->before(&rp, w->arg)))
        goto out;
    run_err = replay_run(&rp);
    log = sim_choices_taken(rp.sim, &nr);
    w->runs++;
    if ((ret = w->after(&rp, run_err, log, nr, w->arg)))
        goto out;
    if (taken) {
        uint64_t *t = nr ? malloc(nr * sizeof(*t)) : NULL, *o = nr ? malloc(nr * sizeof(*o)) : NULL;

        if (nr && (!t || !o)) {
            free(t);
            free(o);
            ret = -ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < nr; i++) {
            t[i] = log[i].taken;
            o[i] = log[i].nr_options;
        }
        *taken = t;
        *options = o;
        *nr_taken = nr;
    }
out:
    replay_release(&rp);
    return ret;
}

int outcomes_walk(const struct scenario *scn, const struct sim_config *cfg, struct outcome_walk *w,
                  struct strbuf *err)
{
    uint64_t *script = NULL, *taken = NULL, *options = NULL;
    size_t n = 0, nr = 0;
    int ret;

    w->runs = 0;
    w->complete = w->sampled = false;
    for (;;) {
        size_t i, devs = 0;

        free(taken);
        free(options);
        taken = options = NULL;
        if ((ret = walk_run(scn, cfg, w, script, n, 0, &taken, &nr, &options, err)))
            goto out;
        /* the deepest choice that may take its next option */
        for (i = 0; i < nr; i++)
            devs += taken[i] != 0;
        for (i = nr; i-- > 0;) {
            devs -= taken[i] != 0;
            if (taken[i] + 1 < options[i] && devs + 1 <= w->max_deviations)
                break;
        }
        if (i == SIZE_MAX) {
            w->complete = true;
            break;
        }
        if (w->runs >= w->max_runs)
            break;
        free(script);
        if (!(script = malloc((i + 1) * sizeof(*script)))) {
            ret = -ENOMEM;
            goto out;
        }
        memcpy(script, taken, i * sizeof(*script));
        script[i] = taken[i] + 1;
        n = i + 1;
    }
    if (!w->complete && w->sample) {
        /* the default run, then max_runs - 1 runs of seeded choices */
        w->runs = 0;
        w->sampled = true;
        for (uint64_t k = 0; k < w->max_runs && !ret; k++)
            ret = walk_run(scn, cfg, w, NULL, 0, k ? w->seed + k : 0, NULL, NULL, NULL, err);
    }
out:
    free(script);
    free(taken);
    free(options);
    return ret;
}

void outcomes_describe(struct strbuf *out, const struct sim_choice *choices, size_t nr)
{
    bool any = false;

    for (size_t i = 0; i < nr; i++) {
        if (!choices[i].taken)
            continue;
        strbuf_printf(out, "%sop %" PRIu64 ": %s", any ? "; " : "", choices[i].op, choices[i].text);
        any = true;
    }
    if (!any)
        strbuf_puts(out, "the defaults");
}
