/*
 * scenario_write.c: scenario JSON from slublab's own data (see
 * scenario_write.h).  Keys and limits follow docs/scenario-format.md:
 * numbers are plain integers, flags are their SLAB_* names, at most
 * SCENARIO_MAX_ALIASES aliases, names as scenario_check_template() takes
 * them (an alias that is not one is left out).
 */
#include "scenario/scenario_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"

cJSON *scenario_write_new(const char *name, const char *title, const char *description,
                          const struct scenario_write_machine *m)
{
    cJSON *s = cJSON_CreateObject(), *mach;

    if (!s)
        return NULL;
    cJSON_AddNumberToObject(s, "format", 1);
    cJSON_AddStringToObject(s, "name", name);
    if (title)
        cJSON_AddStringToObject(s, "title", title);
    if (description)
        cJSON_AddStringToObject(s, "description", description);
    /* a release is the scenario's kernel; no model at all is the default release */
    if (m->model && sim_release_lookup(m->model) != SIM_RELEASE_NONE)
        cJSON_AddStringToObject(s, "kernel", m->model);
    else if (m->model)
        cJSON_AddStringToObject(s, "model", m->model);
    cJSON_AddNumberToObject(s, "seed", (double)(m->seed ? m->seed : 1));
    mach = cJSON_AddObjectToObject(s, "machine");
    if (!mach) {
        cJSON_Delete(s);
        return NULL;
    }
    cJSON_AddNumberToObject(mach, "cpus", m->cpus);
    cJSON_AddNumberToObject(mach, "nodes", m->nodes ? m->nodes : 1);
    cJSON_AddNumberToObject(mach, "mem_mb_per_node", m->mem_mb);
    if (m->present_cpus)
        cJSON_AddNumberToObject(mach, "present_cpus", m->present_cpus);
    return s;
}

static bool name_char_ok(unsigned char c)
{
    return c > ' ' && c < 0x7f && !strchr("\"\\{}[]", c);
}

cJSON *scenario_write_variants(const struct sim_config *cfg)
{
    cJSON *o = cJSON_CreateObject();
    unsigned v;

    for (v = 0; o && v < SIM_NR_VARIANTS; v++)
        if (sim_variant_in_model(v, cfg->model) &&
            !cJSON_AddStringToObject(o, sim_variant_name(v),
                                     cfg->variant[v] == SIM_AFTER ? "after" : "before")) {
            cJSON_Delete(o);
            o = NULL;
        }
    return o;
}

bool scenario_write_name_ok(const char *name)
{
    size_t len = strlen(name);

    if (!len || len > SCENARIO_MAX_NAME)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!name_char_ok((unsigned char)name[i]))
            return false;
    return true;
}

void scenario_write_name(const char *in, char *out, size_t len)
{
    size_t i = 0;

    for (; in[i] && i < SCENARIO_MAX_NAME && i + 1 < len; i++)
        out[i] = name_char_ok((unsigned char)in[i]) ? in[i] : '_';
    if (!i && len > 1)
        out[i++] = '_';
    out[i] = 0;
}

cJSON *scenario_write_cache(const struct sim_cache_args *a, const char *const *aliases, size_t nr,
                            bool as_op)
{
    cJSON *c = cJSON_CreateObject(), *flags;
    size_t kept = 0;

    if (!c)
        return NULL;
    if (as_op)
        cJSON_AddStringToObject(c, "op", "create");
    cJSON_AddStringToObject(c, "name", a->name);
    cJSON_AddNumberToObject(c, "object_size", a->object_size);
    if (a->align)
        cJSON_AddNumberToObject(c, "align", a->align);
    if (a->flags) {
        flags = cJSON_AddArrayToObject(c, "flags");
        for (uint32_t bit = 1; bit; bit <<= 1)
            if ((a->flags & bit) && sim_flag_name(bit))
                cJSON_AddItemToArray(flags, cJSON_CreateString(sim_flag_name(bit)));
    }
    if (a->ctor)
        cJSON_AddBoolToObject(c, "ctor", true);
    if (a->use_freeptr_offset)
        cJSON_AddNumberToObject(c, "freeptr_offset", a->freeptr_offset);
    if (a->sheaf_capacity)
        cJSON_AddNumberToObject(c, "sheaf_capacity", a->sheaf_capacity);
    for (size_t i = 0; i < nr && kept < SCENARIO_MAX_ALIASES; i++) {
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(c, "aliases");

        if (!scenario_write_name_ok(aliases[i]) || strlen(aliases[i]) >= SIM_NAME_MAX ||
            !strcmp(aliases[i], a->name))
            continue;
        if (!arr)
            arr = cJSON_AddArrayToObject(c, "aliases");
        cJSON_AddItemToArray(arr, cJSON_CreateString(aliases[i]));
        kept++;
    }
    return c;
}

int scenario_write_file(const cJSON *scn, const char *path, struct strbuf *err)
{
    char *text = cJSON_PrintUnformatted(scn);
    FILE *f;
    bool ok;

    if (!text) {
        strbuf_printf(err, "out of memory");
        return -ENOMEM;
    }
    f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        int e = errno;

        strbuf_printf(err, "cannot write %s: %s", path, strerror(e));
        cJSON_free(text);
        return -e;
    }
    ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
    cJSON_free(text);
    if (!ok) {
        strbuf_printf(err, "cannot write %s", path);
        return -EIO;
    }
    return 0;
}

/* Whether "choices" entry @e names @pin's point (its "nth" absent is 0). */
static bool choice_entry_is(const cJSON *e, const struct sim_choice_pin *pin)
{
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(e, "at");
    const cJSON *point = cJSON_GetObjectItemCaseSensitive(e, "point");
    const cJSON *nth = cJSON_GetObjectItemCaseSensitive(e, "nth");

    return cJSON_IsNumber(at) && at->valuedouble == (double)pin->op && cJSON_IsString(point) &&
           !strcmp(point->valuestring, sim_choice_name(pin->kind)) &&
           (nth ? cJSON_IsNumber(nth) && nth->valuedouble == (double)pin->nth : !pin->nth);
}

int scenario_write_choice(const char *text, size_t len, const struct sim_choice_pin *pin,
                          char **out)
{
    cJSON *root = cJSON_ParseWithLength(text, len), *list, *e, *next;
    int ret = -EINVAL;

    if (!cJSON_IsObject(root))
        goto out;
    if (!(list = cJSON_GetObjectItemCaseSensitive(root, "choices"))) {
        if (!(list = cJSON_AddArrayToObject(root, "choices")))
            goto oom;
    } else if (!cJSON_IsArray(list)) {
        goto out;
    }
    for (e = list->child; e; e = next) {
        next = e->next;
        if (choice_entry_is(e, pin))
            cJSON_Delete(cJSON_DetachItemViaPointer(list, e));
    }
    if (pin->option) {
        if (!(e = cJSON_CreateObject()) || !cJSON_AddItemToArray(list, e) ||
            !cJSON_AddNumberToObject(e, "at", (double)pin->op) ||
            !cJSON_AddStringToObject(e, "point", sim_choice_name(pin->kind)) ||
            !cJSON_AddNumberToObject(e, "option", (double)pin->option) ||
            (pin->nth && !cJSON_AddNumberToObject(e, "nth", pin->nth)))
            goto oom;
    }
    if (!cJSON_GetArraySize(list))
        cJSON_DeleteItemFromObjectCaseSensitive(root, "choices");
    if (!(*out = cJSON_PrintUnformatted(root)))
        goto oom;
    ret = 0;
    goto out;
oom:
    ret = -ENOMEM;
out:
    cJSON_Delete(root);
    return ret;
}
