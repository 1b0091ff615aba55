/*
 * lesson.c: lesson and exercise files (see lesson.h).
 *
 * The checks follow the key tables of docs/lessons.md one for one: unknown
 * keys are refused (a misspelt "ask" would otherwise silently drop a
 * question), every required key has its type, numbers are whole and in
 * range.  An exercise's preset, goal and solution are checked by the
 * scenario parser itself, on the attempt the UI makes of them
 * (lesson_exercise_attempt()): the preset's operations with the solution's
 * appended and the goal as its expectations at "end".
 */
#include "scenario/lesson.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "scenario/scenario.h"
#include "scenario/scenario_parse.h"

static const char *const lesson_keys[] = {"format",  "id",     "title", "minutes",
                                          "summary", "slides", NULL};
static const char *const slide_keys[] = {"title",    "text",   "scenario",  "kernel",
                                         "variants", "at",     "ask",       "breakpoints",
                                         "tab",      "select", "spotlight", NULL};
static const char *const exercise_keys[] = {"format", "id",   "title", "task",     "max_ops",
                                            "preset", "goal", "hints", "solution", NULL};
static const char *const goal_keys[] = {"metric", "op", "value", NULL};
static const char *const tabs[] = {"explain", "counters", "inspect", "table",
                                   "share",   "pages",    "gfp",     NULL};
static const char *const notable_kinds[] = {"new_slab",    "discard",      "barn_put_fail",
                                            "sheaf_flush", "grace_period", "cpu_partial_drain",
                                            NULL};

/* What a slide's "spotlight" may name: the thing alone ... */
static const char *const spot_words[] = {"picture",   "slabs",       "question",
                                         "caches",    "breakpoints", "timeline",
                                         "narration", "moves",       "race",
                                         NULL};
/* ... or KIND:N (a CPU, a node and its parts) ... */
static const char *const spot_numbered[] = {"cpu", "node", "barn", "partial", "pages", NULL};
/* ... or a box of the objects held elsewhere, or a column of the Caches table. */
static const char *const spot_holds[] = {"flight", "prefill", "rcu", "other", NULL};
static const char *const spot_columns[] = {
        "name",          "objects",        "total_objects", "use",
        "slabs",         "partial",        "object_size",   "slab_size",
        "objs_per_slab", "sheaf_capacity", "slab_errors",   NULL};

#define LESSON_MAX_INT 9007199254740991.0 /* 2^53 - 1: JSON integers beyond are not exact */

bool lesson_id_valid(const char *id)
{
    size_t i;

    if (!id || !((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= '0' && id[0] <= '9')))
        return false;
    for (i = 0; id[i]; i++) {
        char c = id[i];

        if (i >= LESSON_ID_MAX ||
            !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return true;
}

static bool lesson_in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

/* Unknown keys of @obj: -EINVAL naming the first, with @path before it. */
static int lesson_keys_ok(const cJSON *obj, const char *const *allowed, const char *path,
                          struct strbuf *err)
{
    const cJSON *j;

    for (j = obj->child; j; j = j->next)
        if (!lesson_in(j->string, allowed)) {
            strbuf_printf(err, "%s%s%s: unknown key", path, *path ? "." : "", j->string);
            return -EINVAL;
        }
    return 0;
}

/* @obj at @path: an object with only @allowed keys, else -EINVAL. */
static int lesson_object(const cJSON *obj, const char *const *allowed, const char *path,
                         struct strbuf *err)
{
    if (!cJSON_IsObject(obj)) {
        strbuf_printf(err, "%s: expected an object, got %s", path, scenario_json_type(obj));
        return -EINVAL;
    }
    return lesson_keys_ok(obj, allowed, path, err);
}

/* Key @key of @obj, which must be @what ("a string") as @is tells: 0 with *out
 * the item (NULL when absent and optional), or -EINVAL. */
static int lesson_item(const cJSON *obj, const char *key, bool required, const char *path,
                       cJSON_bool (*is)(const cJSON *), const char *what, const cJSON **out,
                       struct strbuf *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    const char *sep = *path ? "." : "";

    *out = j;
    if (!j) {
        if (!required)
            return 0;
        strbuf_printf(err, "%s%s%s: missing (%s)", path, sep, key, what);
        return -EINVAL;
    }
    if (!is(j)) {
        strbuf_printf(err, "%s%s%s: expected %s, got %s", path, sep, key, what,
                      scenario_json_type(j));
        return -EINVAL;
    }
    return 0;
}

/* Key @key of @obj as a string: 0 (absent and optional: *out NULL), or -EINVAL. */
static int lesson_string(const cJSON *obj, const char *key, bool required, bool nonempty,
                         const char *path, const char **out, struct strbuf *err)
{
    const cJSON *j = NULL;
    int ret;

    *out = NULL;
    if ((ret = lesson_item(obj, key, required, path, cJSON_IsString, "a string", &j, err)) || !j)
        return ret;
    if (nonempty && !j->valuestring[0]) {
        strbuf_printf(err, "%s%s%s: must not be empty", path, *path ? "." : "", key);
        return -EINVAL;
    }
    *out = j->valuestring;
    return 0;
}

/* Key @key of @obj as a whole number in [min, max]: 0 (absent and optional: *present false). */
static int lesson_int(const cJSON *obj, const char *key, bool required, double min, double max,
                      const char *path, bool *present, struct strbuf *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    const char *sep = *path ? "." : "";

    *present = j != NULL;
    if (!j) {
        if (!required)
            return 0;
        strbuf_printf(err, "%s%s%s: missing (an integer)", path, sep, key);
        return -EINVAL;
    }
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= min && j->valuedouble <= max) ||
        (double)(uint64_t)j->valuedouble != j->valuedouble) {
        strbuf_printf(err, "%s%s%s: expected an integer from %.0f to %.0f", path, sep, key, min,
                      max);
        return -EINVAL;
    }
    return 0;
}

/* Key @key of @obj: an array of at least @min items of which each is a string when @strings. */
static int lesson_array(const cJSON *obj, const char *key, bool required, int min, bool strings,
                        const char *path, const cJSON **out, struct strbuf *err)
{
    const cJSON *j = NULL, *it;
    const char *sep = *path ? "." : "";
    int i = 0, ret;

    if ((ret = lesson_item(obj, key, required, path, cJSON_IsArray, "an array", out, err)) ||
        !(j = *out))
        return ret;
    if (cJSON_GetArraySize(j) < min) {
        strbuf_printf(err, "%s%s%s: needs at least %d item%s", path, sep, key, min,
                      min == 1 ? "" : "s");
        return -EINVAL;
    }
    for (it = j->child; strings && it; it = it->next, i++)
        if (!cJSON_IsString(it) || !it->valuestring[0]) {
            strbuf_printf(err, "%s%s%s[%d]: expected a non-empty string, got %s", path, sep, key, i,
                          scenario_json_type(it));
            return -EINVAL;
        }
    return 0;
}

/* "format": 1 and "id": the file's. */
static int lesson_head(const cJSON *doc, const char *id, struct strbuf *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(doc, "format");
    const char *got;
    int ret;

    if (!cJSON_IsNumber(f) || f->valuedouble != LESSON_FORMAT) {
        strbuf_printf(err, "format: expected %d", LESSON_FORMAT);
        return -EINVAL;
    }
    if ((ret = lesson_string(doc, "id", true, true, "", &got, err)))
        return ret;
    if (strcmp(got, id) != 0) {
        strbuf_printf(err, "id: \"%s\" is not the file's name (\"%s\")", got, id);
        return -EINVAL;
    }
    return 0;
}

static int lesson_breakpoint(const char *bp, const char *path, struct strbuf *err)
{
    if (lesson_in(bp, notable_kinds))
        return 0;
    if (!strncmp(bp, "counter:", 8) && bp[8])
        return 0;
    if (!strncmp(bp, "fn:", 3) && bp[3] && bp[3] != '/')
        return 0;
    strbuf_printf(err,
                  "%s: \"%s\" is not a breakpoint (a notable kind: new_slab, discard, "
                  "barn_put_fail, sheaf_flush, grace_period, cpu_partial_drain; counter:NAME; "
                  "fn:FN[/LABEL])",
                  path, bp);
    return -EINVAL;
}

/* Whether @spot names a thing on screen: docs/lessons.md, "spotlight". */
static bool lesson_spot_ok(const char *spot)
{
    const char *colon = strchr(spot, ':');
    char kind[16];
    size_t n;

    if (!colon)
        return lesson_in(spot, spot_words);
    n = (size_t)(colon - spot);
    if (n >= sizeof(kind))
        return false;
    memcpy(kind, spot, n);
    kind[n] = '\0';
    if (!strcmp(kind, "tab"))
        return lesson_in(colon + 1, tabs);
    if (!strcmp(kind, "hold"))
        return lesson_in(colon + 1, spot_holds);
    if (!strcmp(kind, "column"))
        return lesson_in(colon + 1, spot_columns);
    if (!lesson_in(kind, spot_numbered) || !colon[1] || strlen(colon + 1) > 3)
        return false;
    for (n = 1; colon[n]; n++)
        if (colon[n] < '0' || colon[n] > '9')
            return false;
    return true;
}

static int lesson_slide(const cJSON *s, size_t i, struct strbuf *err)
{
    char path[48];
    const char *str;
    const cJSON *j, *arr;
    bool present;
    int ret, k = 0;

    snprintf(path, sizeof(path), "slides[%zu]", i);
    if ((ret = lesson_object(s, slide_keys, path, err)) ||
        (ret = lesson_string(s, "title", true, true, path, &str, err)) ||
        (ret = lesson_string(s, "text", true, true, path, &str, err)) ||
        (ret = lesson_string(s, "scenario", i == 0, true, path, &str, err)) ||
        (ret = lesson_string(s, "kernel", false, true, path, &str, err)) ||
        (ret = lesson_int(s, "at", true, 0, LESSON_MAX_INT, path, &present, err)) ||
        (ret = lesson_array(s, "breakpoints", false, 0, true, path, &arr, err)))
        return ret;
    for (j = arr ? arr->child : NULL; j; j = j->next, k++) {
        char bpath[80];

        snprintf(bpath, sizeof(bpath), "%s.breakpoints[%d]", path, k);
        if ((ret = lesson_breakpoint(j->valuestring, bpath, err)))
            return ret;
    }
    j = cJSON_GetObjectItemCaseSensitive(s, "variants");
    if (j && !cJSON_IsObject(j)) {
        strbuf_printf(err, "%s.variants: expected an object, got %s", path, scenario_json_type(j));
        return -EINVAL;
    }
    for (j = j ? j->child : NULL; j; j = j->next)
        if (!cJSON_IsString(j) ||
            (strcmp(j->valuestring, "before") != 0 && strcmp(j->valuestring, "after") != 0)) {
            strbuf_printf(err, "%s.variants.%s: expected \"before\" or \"after\"", path, j->string);
            return -EINVAL;
        }
    j = cJSON_GetObjectItemCaseSensitive(s, "ask");
    if (j && !cJSON_IsBool(j)) {
        strbuf_printf(err, "%s.ask: expected a boolean, got %s", path, scenario_json_type(j));
        return -EINVAL;
    }
    if ((ret = lesson_string(s, "tab", false, true, path, &str, err)))
        return ret;
    if (str && !lesson_in(str, tabs)) {
        strbuf_printf(err,
                      "%s.tab: \"%s\" is not a tab (explain, counters, inspect, table, share, "
                      "pages or gfp)",
                      path, str);
        return -EINVAL;
    }
    if ((ret = lesson_string(s, "spotlight", false, true, path, &str, err)))
        return ret;
    if (str && !lesson_spot_ok(str)) {
        strbuf_printf(err,
                      "%s.spotlight: \"%s\" names nothing on screen (docs/lessons.md, "
                      "\"spotlight\")",
                      path, str);
        return -EINVAL;
    }
    return lesson_string(s, "select", false, true, path, &str, err);
}

static int lesson_check_lesson(const cJSON *doc, struct strbuf *err)
{
    const cJSON *slides, *s;
    const char *str;
    bool present;
    size_t i = 0;
    int ret;

    if ((ret = lesson_keys_ok(doc, lesson_keys, "", err)) ||
        (ret = lesson_string(doc, "title", true, true, "", &str, err)) ||
        (ret = lesson_string(doc, "summary", true, true, "", &str, err)) ||
        (ret = lesson_int(doc, "minutes", true, LESSON_MIN_MINUTES, LESSON_MAX_MINUTES, "",
                          &present, err)) ||
        (ret = lesson_array(doc, "slides", true, 1, false, "", &slides, err)))
        return ret;
    for (s = slides->child; s; s = s->next, i++)
        if ((ret = lesson_slide(s, i, err)))
            return ret;
    return 0;
}

int lesson_exercise_attempt(const cJSON *doc, char **out)
{
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(doc, "preset");
    const cJSON *goal = cJSON_GetObjectItemCaseSensitive(doc, "goal");
    const cJSON *solution = cJSON_GetObjectItemCaseSensitive(doc, "solution"), *j;
    cJSON *copy = cJSON_Duplicate(preset, true), *ops, *expect;
    int ret = -ENOMEM;

    *out = NULL;
    if (!copy)
        return -ENOMEM;
    ops = cJSON_GetObjectItemCaseSensitive(copy, "ops");
    if (!ops && !cJSON_AddItemToObject(copy, "ops", ops = cJSON_CreateArray()))
        goto out;
    if (!cJSON_IsArray(ops)) {
        ret = -EINVAL; /* the parser of the preset alone says why */
        goto out;
    }
    for (j = solution ? solution->child : NULL; j; j = j->next)
        if (!cJSON_AddItemToArray(ops, cJSON_Duplicate(j, true)))
            goto out;
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "expect");
    if (!cJSON_AddItemToObject(copy, "expect", expect = cJSON_CreateArray()))
        goto out;
    for (j = goal ? goal->child : NULL; j; j = j->next) {
        cJSON *e = cJSON_Duplicate(j, true);

        if (!e || !cJSON_AddItemToArray(expect, e) || !cJSON_AddStringToObject(e, "at", "end"))
            goto out;
    }
    ret = (*out = cJSON_PrintUnformatted(copy)) ? 0 : -ENOMEM;
out:
    cJSON_Delete(copy);
    return ret;
}

/* Parse @text as a scenario named @what: 0, -EINVAL with "@what: why", or -ENOMEM. */
static int lesson_scenario_ok(const char *text, const char *what, struct strbuf *err)
{
    struct strbuf why = STRBUF_INIT;
    struct scenario *scn = NULL;
    int ret = scenario_parse(text, strlen(text), what, &scn, &why);

    if (ret == -ENOMEM) {
        strbuf_release(&why);
        return ret;
    }
    if (ret) {
        /* the parser's message names the label first: "preset: ..." */
        strbuf_puts(err, strbuf_str(&why));
        ret = -EINVAL;
    }
    scenario_release(scn);
    strbuf_release(&why);
    return ret;
}

static int lesson_check_exercise(const cJSON *doc, struct strbuf *err)
{
    const cJSON *preset, *goal, *arr, *j;
    const char *str;
    char *text;
    bool present;
    int ret, i = 0;

    if ((ret = lesson_keys_ok(doc, exercise_keys, "", err)) ||
        (ret = lesson_string(doc, "title", true, true, "", &str, err)) ||
        (ret = lesson_string(doc, "task", true, true, "", &str, err)) ||
        (ret = lesson_int(doc, "max_ops", true, 1, 1000000, "", &present, err)) ||
        (ret = lesson_array(doc, "goal", true, 1, false, "", &goal, err)) ||
        (ret = lesson_array(doc, "hints", true, 1, true, "", &arr, err)) ||
        (ret = lesson_array(doc, "solution", true, 1, false, "", &arr, err)))
        return ret;
    preset = cJSON_GetObjectItemCaseSensitive(doc, "preset");
    if (!cJSON_IsObject(preset)) {
        strbuf_printf(err, "preset: expected a scenario object, got %s",
                      preset ? scenario_json_type(preset) : "nothing");
        return -EINVAL;
    }
    for (j = goal->child; j; j = j->next, i++) {
        char path[32];

        snprintf(path, sizeof(path), "goal[%d]", i);
        if ((ret = lesson_object(j, goal_keys, path, err)) ||
            (ret = lesson_string(j, "metric", true, true, path, &str, err)) ||
            (ret = lesson_string(j, "op", true, true, path, &str, err)) ||
            (ret = lesson_int(j, "value", true, 0, LESSON_MAX_INT, path, &present, err)))
            return ret;
    }
    /* the preset alone, then the attempt the solution makes of it */
    if (!(text = cJSON_PrintUnformatted(preset)))
        return -ENOMEM;
    ret = lesson_scenario_ok(text, "preset", err);
    free(text);
    if (ret)
        return ret;
    if ((ret = lesson_exercise_attempt(doc, &text)))
        return ret;
    ret = lesson_scenario_ok(text, "preset + solution + goal", err);
    free(text);
    return ret;
}

int lesson_validate(const cJSON *doc, enum lesson_kind kind, const char *id, struct strbuf *err)
{
    int ret;

    if (!cJSON_IsObject(doc)) {
        strbuf_printf(err, "expected a JSON object at the top level, got %s",
                      scenario_json_type(doc));
        return -EINVAL;
    }
    if ((ret = lesson_head(doc, id, err)))
        return ret;
    ret = kind == LESSON_LESSON ? lesson_check_lesson(doc, err) : lesson_check_exercise(doc, err);
    return ret == -EINVAL && strbuf_failed(err) ? -ENOMEM : ret;
}

size_t lesson_questions(const cJSON *doc)
{
    const cJSON *s, *slides = cJSON_GetObjectItemCaseSensitive(doc, "slides");
    size_t n = 0;

    for (s = cJSON_IsArray(slides) ? slides->child : NULL; s; s = s->next)
        n += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "ask")) ? 1 : 0;
    return n;
}

/* Read @path whole into @e (text, len); false when it cannot be read or is too large. */
static bool lesson_read(const char *path, struct lesson_entry *e)
{
    FILE *f = fopen(path, "rb");
    long size;
    bool ok = false;

    if (!f)
        return false;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && size <= (long)LESSON_MAX_BYTES &&
        fseek(f, 0, SEEK_SET) == 0 && (e->text = malloc((size_t)size + 1))) {
        e->len = fread(e->text, 1, (size_t)size, f);
        e->text[e->len] = '\0';
        ok = e->len == (size_t)size;
    }
    fclose(f);
    return ok;
}

static char *lesson_strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *p = malloc(len);

    return p ? memcpy(p, s, len) : NULL;
}

/* Fill @e (id set) from file @path: text, document or error.  0 or -ENOMEM. */
static int lesson_entry_load(struct lesson_entry *e, const char *path, enum lesson_kind kind)
{
    struct strbuf err = STRBUF_INIT;
    cJSON *doc = NULL;
    int ret = 0;

    if (!(e->path = lesson_strdup(path)))
        return -ENOMEM;
    if (!lesson_read(path, e)) {
        strbuf_printf(&err, "cannot read it (or it is larger than %u bytes)", LESSON_MAX_BYTES);
    } else if (!(doc = cJSON_ParseWithLength(e->text, e->len))) {
        strbuf_puts(&err, "not JSON");
    } else if ((ret = lesson_validate(doc, kind, e->id, &err)) == -ENOMEM) {
        goto out;
    }
    if (err.len) {
        cJSON_Delete(doc);
        doc = NULL;
        ret = (e->error = lesson_strdup(strbuf_str(&err))) ? 0 : -ENOMEM;
    } else {
        e->json = doc;
        doc = NULL;
    }
out:
    cJSON_Delete(doc);
    strbuf_release(&err);
    return ret;
}

static int lesson_cmp(const void *a, const void *b)
{
    return strcmp(((const struct lesson_entry *)a)->id, ((const struct lesson_entry *)b)->id);
}

int lesson_set_load(struct lesson_set *set, const char *dir, enum lesson_kind kind)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t cap = 0;
    int ret = 0;

    if (!d)
        return 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        struct lesson_entry *e;
        char path[4096];

        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
            continue;
        if (len - 5 > LESSON_ID_MAX || set->n == LESSON_MAX_FILES) {
            set->skipped++;
            continue;
        }
        if (!(e = grow_array(set->v, &cap, set->n + 1, sizeof(*e), 16))) {
            ret = -ENOMEM;
            break;
        }
        set->v = e;
        e = &set->v[set->n];
        memset(e, 0, sizeof(*e));
        memcpy(e->id, de->d_name, len - 5);
        e->id[len - 5] = '\0';
        if (!lesson_id_valid(e->id)) {
            set->skipped++;
            continue;
        }
        set->n++;
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path)) {
            e->error = lesson_strdup("its path is too long");
            if (!e->error) {
                ret = -ENOMEM;
                break;
            }
            continue;
        }
        if ((ret = lesson_entry_load(e, path, kind)))
            break;
    }
    closedir(d);
    if (set->n)
        qsort(set->v, set->n, sizeof(*set->v), lesson_cmp);
    return ret;
}

void lesson_set_release(struct lesson_set *set)
{
    size_t i;

    for (i = 0; i < set->n; i++) {
        free(set->v[i].path);
        free(set->v[i].text);
        cJSON_Delete(set->v[i].json);
        free(set->v[i].error);
    }
    free(set->v);
    memset(set, 0, sizeof(*set));
}

const struct lesson_entry *lesson_set_find(const struct lesson_set *set, const char *id)
{
    struct lesson_entry key;

    if (!set->n || !lesson_id_valid(id))
        return NULL;
    memset(&key, 0, sizeof(key));
    memcpy(key.id, id, strlen(id) + 1);
    return bsearch(&key, set->v, set->n, sizeof(key), lesson_cmp);
}
