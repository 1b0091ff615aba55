/*
 * hint.h: names looked up the way people type them, and the answer to a
 * typo: the valid names, and the nearest of them (`--variant BARN_REFIL`:
 * did you mean "BARN_REFILL"?).  The names come from a function of an index
 * (sim_variant_name(), sim_stat_name()), so nothing here knows what they
 * name.
 */
#ifndef SLUBLAB_SERVER_BASE_HINT_H
#define SLUBLAB_SERVER_BASE_HINT_H

#include <stdbool.h>

#include "base/strbuf.h"

/* The index of @given among name(0..n-1), ignoring case; -1 when none. */
int hint_lookup(const char *given, const char *(*name)(unsigned i), unsigned n);
/*
 * Append why @given is not one of name(0..n-1), as ": did you mean
 * \"NEAREST\"? The WHAT are: A, B, ..." (the question only when a name is
 * within a few edits of it).  False when out of memory.
 */
bool hint_append(struct strbuf *sb, const char *given, const char *(*name)(unsigned i), unsigned n,
                 const char *what);

#endif
