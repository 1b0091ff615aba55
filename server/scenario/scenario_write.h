/*
 * scenario_write.h: scenario JSON written by slublab itself.
 *
 * `slublab import` and `slublab replay -o` build scenarios with cJSON
 * through these helpers, so both write caches and machines the way the
 * parser (scenario.c, scenario_op.c; docs/scenario-format.md) reads them.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_SCENARIO_WRITE_H
#define SLUBLAB_SERVER_SCENARIO_SCENARIO_WRITE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "slub.h"
#include "base/strbuf.h"

struct scenario_write_machine {
    unsigned cpus, present_cpus, nodes; /* present_cpus 0: not written */
    unsigned mem_mb;                    /* per node */
    const char *model; /* as sim_model_format() writes it (a release's name becomes "kernel");
                        * NULL: neither, the default release */
    uint64_t seed;
};

/* A scenario with its header and machine, no caches or ops; NULL: no memory.
 * @title and @description may be NULL. */
cJSON *scenario_write_new(const char *name, const char *title, const char *description,
                          const struct scenario_write_machine *m);
/*
 * A cache as a "caches" entry (or, with @as_op, a "create" operation): name,
 * object_size, align, flags, ctor, sheaf_capacity and the @nr aliases
 * (those too long for a cache name, or beyond the parser's limit, are
 * left out).  NULL when out of memory.
 */
cJSON *scenario_write_cache(const struct sim_cache_args *a, const char *const *aliases, size_t nr,
                            bool as_op);
/* The "variants" object of @cfg: each variant of its model by name, "before"
 * or "after", in enum order.  NULL: no memory. */
cJSON *scenario_write_variants(const struct sim_config *cfg);
/* True when @name may name a cache in a scenario (1..SCENARIO_MAX_NAME
 * characters, no space, quote, backslash, bracket or brace). */
bool scenario_write_name_ok(const char *name);
/* @in made a valid name in @out (@len > SCENARIO_MAX_NAME): other characters
 * become '_', and it is cut to SCENARIO_MAX_NAME.  Cannot fail. */
void scenario_write_name(const char *in, char *out, size_t len);
/*
 * Scenario text @text (@len bytes) with @pin in its "choices"
 * (docs/scenario-format.md#choices), replacing an entry for the same point;
 * option 0 removes it.  *@out is one line, freed with cJSON_free().  0, -EINVAL when
 * @text is not a JSON object or its "choices" not an array, -ENOMEM.
 */
int scenario_write_choice(const char *text, size_t len, const struct sim_choice_pin *pin,
                          char **out);
/* Print @scn to @path ("-": stdout), one line.  0, or -errno with the reason in @err. */
int scenario_write_file(const cJSON *scn, const char *path, struct strbuf *err);

#endif /* SLUBLAB_SERVER_SCENARIO_SCENARIO_WRITE_H */
