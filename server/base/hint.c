/*
 * hint.c: case-insensitive lookup and the nearest valid name (see hint.h).
 * "Nearest" is the edit distance (insertions, deletions, substitutions and
 * swaps of neighbours, ignoring case); a name is offered when it is within
 * a third of the typed name's length (at least 2 edits), the closest first
 * (the first of equals).
 */
#include "base/hint.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HINT_NAME_MAX 64 /* longer names are never offered */

int hint_lookup(const char *given, const char *(*name)(unsigned i), unsigned n)
{
    unsigned i;

    for (i = 0; given && i < n; i++)
        if (name(i) && !strcasecmp(given, name(i)))
            return (int)i;
    return -1;
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;

    return m < c ? m : c;
}

/* The optimal string alignment distance of @a and @b, ignoring case. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t d[HINT_NAME_MAX + 1][HINT_NAME_MAX + 1];

    if (la > HINT_NAME_MAX || lb > HINT_NAME_MAX)
        return (size_t)-1;
    for (i = 0; i <= la; i++)
        d[i][0] = i;
    for (j = 0; j <= lb; j++)
        d[0][j] = j;
    for (i = 1; i <= la; i++) {
        for (j = 1; j <= lb; j++) {
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);

            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 &&
                tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    }
    return d[la][lb];
}

bool hint_append(struct strbuf *sb, const char *given, const char *(*name)(unsigned i), unsigned n,
                 const char *what)
{
    size_t best = (size_t)-1, len = strlen(given), limit = len / 3 > 2 ? len / 3 : 2;
    int nearest = -1;
    unsigned i;

    for (i = 0; i < n; i++) {
        size_t d = name(i) ? distance(given, name(i)) : (size_t)-1;

        if (d <= limit && d < best) {
            best = d;
            nearest = (int)i;
        }
    }
    if (nearest >= 0)
        strbuf_printf(sb, ": did you mean \"%s\"?", name((unsigned)nearest));
    strbuf_printf(sb, "%s The %s are:", nearest >= 0 ? "" : ".", what);
    for (i = 0; i < n; i++)
        if (name(i))
            strbuf_printf(sb, "%s %s", i ? "," : "", name(i));
    return !strbuf_failed(sb);
}
