/*
 * lesson.h: lesson and exercise files (docs/lessons.md), read and checked.
 *
 * A lesson is a JSON file in lessons/ (NN-slug.json): a title, a length in
 * minutes and slides, each naming a scenario position to move the lab to
 * and, with "ask", a question to stop on there.  An exercise is a file in
 * lessons/exercises/ (slug.json): a scenario preset, goals the engine's
 * counters must reach, a hint ladder and a solution.  lesson_validate()
 * checks one file's document against the format (keys, types, ranges) and
 * says what is wrong with its key path (`slides[2].at`); what needs the
 * engine (the scenario exists and reaches "at", the asked event carries a
 * branch record, the solution reaches the goal) is `slublab lessons check`'s
 * (cli/cmd_lessons.c).
 *
 * lesson_set_load() reads a directory once: every *.json file whose name is
 * a valid id, kept sorted by id with its text and parsed document, or with
 * the reason it is invalid.  The server serves the valid ones and answers
 * the reason for the others; nothing is read again at request time, so an
 * id never becomes a path.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_LESSON_H
#define SLUBLAB_SERVER_SCENARIO_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/strbuf.h"

#define LESSON_FORMAT      1          /* the only "format" accepted */
#define LESSON_ID_MAX      64         /* characters of an id (the file's name without .json) */
#define LESSON_MAX_BYTES   (1u << 20) /* largest lesson or exercise file read */
#define LESSON_MAX_FILES   1000u      /* files of one directory read, at most */
#define LESSON_MIN_MINUTES 5
#define LESSON_MAX_MINUTES 15

enum lesson_kind {
    LESSON_LESSON,   /* lessons/NN-slug.json */
    LESSON_EXERCISE, /* lessons/exercises/slug.json */
};

struct lesson_entry {
    char id[LESSON_ID_MAX + 1];
    char *path; /* the file, as read; owned */
    char *text; /* its bytes, NUL-terminated; owned; NULL when unreadable */
    size_t len;
    cJSON *json; /* the document when valid, else NULL; owned */
    char *error; /* why it is not valid ("slides[2].at: ..."), else NULL; owned */
};

struct lesson_set {
    struct lesson_entry *v; /* sorted by id */
    size_t n;
    size_t skipped; /* *.json files whose name is not an id, or beyond LESSON_MAX_FILES */
};

/* True when @id is 1 to LESSON_ID_MAX characters of [a-z0-9_-], starting with [a-z0-9]. */
bool lesson_id_valid(const char *id);
/*
 * Check @doc, the document of file @id, as a @kind file: 0, -EINVAL with
 * "KEY.PATH: why" in @err (the first problem found), or -ENOMEM.
 */
int lesson_validate(const cJSON *doc, enum lesson_kind kind, const char *id, struct strbuf *err);
/*
 * Read every *.json file of @dir into @set (zeroed before).  A directory
 * that does not exist gives an empty set.  Files that cannot be read or are
 * not valid are kept with their error.  0 or -ENOMEM; release with
 * lesson_set_release() in any case.
 */
int lesson_set_load(struct lesson_set *set, const char *dir, enum lesson_kind kind);
/* Free everything @set holds; a zeroed set is fine. */
void lesson_set_release(struct lesson_set *set);
/* The entry with id @id, or NULL (also for an @id that is not one). */
const struct lesson_entry *lesson_set_find(const struct lesson_set *set, const char *id);
/*
 * The scenario an attempt at exercise @doc (valid) makes: its preset with
 * the solution's operations appended and the goal as expectations at
 * "end", as JSON text in *@out (free()).  0, -EINVAL (the preset's "ops"
 * is not an array) or -ENOMEM.
 */
int lesson_exercise_attempt(const cJSON *doc, char **out);
/* A lesson's questions: its slides with "ask": true. */
size_t lesson_questions(const cJSON *doc);

#endif /* SLUBLAB_SERVER_SCENARIO_LESSON_H */
