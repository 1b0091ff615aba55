/*
 * test_api_doc.c: docs/api.md against the route table (http/routes.c).
 *
 * Every route has exactly one "### METHOD PATH" heading ("### POST, PUT
 * PATH" covers two methods; "{name}" stands for an id), and a row of the
 * summary table; no heading or row names a route that does not exist; and
 * the query arguments a heading shows ("?a=N[&b=M]", "[?flag]") are the
 * ones the route declares, no more and no fewer.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "http/routes.h"

#define MAX_DOCS   256
#define MAX_PARAMS 16

/* One route as the document names it. */
struct doc_route {
    char methods[48]; /* "GET" or "POST, PUT" */
    char path[160];   /* "{x}" segments as "*" */
    char params[MAX_PARAMS][32];
    unsigned nr_params;
    unsigned line;
    bool heading; /* a "###" heading (else a row of the summary table) */
};

static struct doc_route docs[MAX_DOCS];
static unsigned nr_docs;

static bool is_method(const char *s, size_t n)
{
    static const char *const m[] = {"GET", "POST", "PUT", "DELETE"};

    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
        if (strlen(m[i]) == n && !strncmp(s, m[i], n))
            return true;
    return false;
}

/* The methods at @s ("GET" or "POST, PUT") into @d; the text after them, or NULL. */
static const char *parse_methods(const char *s, struct doc_route *d)
{
    size_t used = 0;

    for (;;) {
        size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");

        if (!n || !is_method(s, n) || used + n + 3 > sizeof(d->methods))
            return NULL;
        used += (size_t)snprintf(d->methods + used, sizeof(d->methods) - used, "%s%.*s",
                                 used ? ", " : "", (int)n, s);
        s += n;
        if (s[0] == ',' && s[1] == ' ')
            s += 2;
        else
            return s;
    }
}

/* The path at @s (after "METHOD ", up to "?", "[", a space, "`" or the end) into
 * @d, "{x}" as "*"; then the query names that follow it in @end. */
static bool parse_path(const char *s, const char *end, struct doc_route *d)
{
    size_t n = 0;
    const char *q;

    if (strncmp(s, "/api", 4))
        return false;
    while (*s && s < end && !strchr("?[ `", *s) && n + 2 < sizeof(d->path)) {
        if (*s == '{') {
            const char *c = strchr(s, '}');

            if (!c)
                return false;
            d->path[n++] = '*';
            s = c + 1;
            continue;
        }
        d->path[n++] = *s++;
    }
    d->path[n] = '\0';
    /* the query: a name after each "?" or "&", up to "=", "]", "&" or the end */
    for (q = s; q < end && *q && *q != ' ' && *q != '`'; q++) {
        size_t len;

        if (*q != '?' && *q != '&')
            continue;
        len = strspn(q + 1, "abcdefghijklmnopqrstuvwxyz_");
        if (len && d->nr_params < MAX_PARAMS && len < sizeof(d->params[0])) {
            memcpy(d->params[d->nr_params], q + 1, len);
            d->params[d->nr_params++][len] = '\0';
        }
    }
    return true;
}

static void read_doc(const char *file)
{
    FILE *f = fopen(file, "r");
    char line[2048];
    unsigned no = 0;
    bool in_code = false;

    if (!CHECK(f != NULL))
        return;
    while (fgets(line, sizeof(line), f)) {
        struct doc_route d;
        const char *rest;

        no++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!strncmp(line, "```", 3))
            in_code = !in_code;
        if (in_code)
            continue;
        memset(&d, 0, sizeof(d));
        d.line = no;
        if (!strncmp(line, "### ", 4)) {
            /* a heading that names a route: "### METHOD[, METHOD] /api/..." */
            if (!(rest = parse_methods(line + 4, &d)) || *rest != ' ')
                continue;
            d.heading = true;
            if (!CHECK(parse_path(rest + 1, rest + strlen(rest), &d))) {
                printf("docs/api.md:%u: a heading names a method but no /api path\n", no);
                continue;
            }
        } else if (!strncmp(line, "| ", 2)) {
            /* a row of the summary table: "| METHOD | `PATH` | ..." */
            const char *p;

            if (!(rest = parse_methods(line + 2, &d)) || strncmp(rest, " | `", 4))
                continue;
            p = rest + 4;
            if (!parse_path(p, p + strcspn(p, "`"), &d))
                continue;
            d.nr_params = 0; /* the table's "?..." is a hint, the headings are the reference */
        } else {
            continue;
        }
        if (CHECK(nr_docs < MAX_DOCS))
            docs[nr_docs++] = d;
    }
    fclose(f);
}

static bool has_method(const struct doc_route *d, const char *method)
{
    const char *p = d->methods;
    size_t n = strlen(method);

    while ((p = strstr(p, method))) {
        if ((p == d->methods || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
            return true;
        p += n;
    }
    return false;
}

static bool declares(const struct route_arg *query, const char *name)
{
    for (; query && query->name; query++)
        if (!strcmp(query->name, name))
            return true;
    return false;
}

/* Each route: one heading, at least one table row, its parameters documented. */
static void test_every_route_documented(void)
{
    const struct route_arg *query;
    const char *method, *pattern;

    for (size_t i = 0; router_route(i, &method, &pattern, &query); i++) {
        unsigned headings = 0, rows = 0;

        for (unsigned k = 0; k < nr_docs; k++) {
            const struct doc_route *d = &docs[k];

            if (strcmp(d->path, pattern) || !has_method(d, method))
                continue;
            if (!d->heading) {
                rows++;
                continue;
            }
            headings++;
            for (unsigned p = 0; p < d->nr_params; p++)
                if (!CHECK(declares(query, d->params[p])))
                    printf("docs/api.md:%u: %s %s documents \"%s\", which it does not take\n",
                           d->line, method, pattern, d->params[p]);
            for (const struct route_arg *a = query; a && a->name; a++) {
                bool found = false;

                for (unsigned p = 0; p < d->nr_params; p++)
                    found |= !strcmp(d->params[p], a->name);
                if (!CHECK(found))
                    printf("docs/api.md:%u: %s %s takes \"%s\": the heading does not show it\n",
                           d->line, method, pattern, a->name);
            }
        }
        if (!CHECK_EQ_U(headings, 1))
            printf("docs/api.md: %s %s has %u \"### %s ...\" headings, not one\n", method, pattern,
                   headings, method);
        if (!CHECK(rows >= 1))
            printf("docs/api.md: %s %s is not in the summary table\n", method, pattern);
    }
}

/* Each heading and row names a route that exists. */
static void test_nothing_described_that_does_not_exist(void)
{
    for (unsigned k = 0; k < nr_docs; k++) {
        const struct doc_route *d = &docs[k];
        const char *p = d->methods;

        while (*p) {
            char m[16];
            size_t n = strcspn(p, ",");
            const struct route_arg *query;
            const char *method, *pattern;
            bool found = false;

            snprintf(m, sizeof(m), "%.*s", (int)n, p);
            for (size_t i = 0; router_route(i, &method, &pattern, &query); i++)
                found |= !strcmp(method, m) && !strcmp(pattern, d->path);
            if (!CHECK(found))
                printf("docs/api.md:%u: %s %s is no route\n", d->line, m, d->path);
            p += n + (p[n] == ',' ? 2 : 0);
        }
    }
}

int main(void)
{
    read_doc("docs/api.md");
    CHECK(nr_docs > 0);
    RUN_TEST(test_every_route_documented);
    RUN_TEST(test_nothing_described_that_does_not_exist);
    return check_done();
}
