/*
 * params.h: what a handler reads from its request besides the body (the
 * body is request.h's): the ids of its path, its query arguments
 * (positions, ranges, windows of a list, names) and the write token of
 * the Authorization header.  Each is read once here, and each refusal is
 * the same {"error":{"code":"...","message":"..."}} whichever route gives
 * it: 400 bad_request for a query argument, 404 not_found for an id that
 * cannot name anything, 403 forbidden for a missing or wrong token.
 *
 * Integer query arguments are declared as a table of struct route_arg (a
 * name and the largest value taken) and read together by
 * route_query_args(), so a route's arguments are one declaration.
 */
#ifndef SLUBLAB_SERVER_HTTP_PARAMS_H
#define SLUBLAB_SERVER_HTTP_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/request.h"

#define ROUTE_LIST_LIMIT     50   /* ?limit= of a list when absent */
#define ROUTE_LIST_MAX       1000 /* ?limit= of a list, at most */
#define ROUTE_MAX_QUERY_ARGS 8    /* route_query_args(): arguments in one table, at most */

/* What a query argument holds. */
enum route_arg_type {
    ROUTE_INT,  /* decimal, from min to max */
    ROUTE_TEXT, /* any UTF-8 text; the handler reads it */
    ROUTE_FLAG, /* present or not: no value, or "1" */
};

/*
 * One query argument of a route.  The route table (routes.c) declares each
 * route's arguments, so that the router refuses an unknown one, or an
 * integer that is not one, before the handler runs; a handler reads its
 * integers through the same declaration (route_query_args()).
 */
struct route_arg {
    const char *name;
    uint64_t min; /* ROUTE_INT: a smaller one is "at least MIN" */
    uint64_t max; /* ROUTE_INT: a larger one, or no integer, is "expected an integer from 0 to MAX"
                   */
    enum route_arg_type type;
    bool required; /* the handler refuses the request without it (in its own words) */
};

/* An argument from 0 to @max, and a position in a session's events (at,
 * from, to): any 64-bit count. */
#define ROUTE_ARG(name, max)               \
    {                                      \
        (name), 0, (max), ROUTE_INT, false \
    }
#define ROUTE_ARG_POSITION(name) ROUTE_ARG(name, UINT64_MAX)
/* An argument from @min to @max. */
#define ROUTE_ARG_RANGE(name, min, max)        \
    {                                          \
        (name), (min), (max), ROUTE_INT, false \
    }

/* What an id in a path names; each has its length and its 404. */
enum route_id_kind {
    ROUTE_ID_SESSION,
    ROUTE_ID_SNAPSHOT,
    ROUTE_ID_LECTURE,
    ROUTE_ID_TRACE,
};

/* The value of query argument @key ("" when given without one), or NULL. */
const char *route_query(const struct request *req, const char *key);
/*
 * Query argument @key as a decimal integer <= @max: 1 (absent, *out
 * untouched), 0 (stored), or -1 after filling @res with a 400.
 */
int route_query_u64(const struct request *req, struct response *res, const char *key, uint64_t max,
                    uint64_t *out);
/*
 * The @n (at most ROUTE_MAX_QUERY_ARGS) integer arguments of @args into
 * @vals, in order; an absent one keeps its value in @vals (its default).
 * Returns the mask of those given (bit i for @args[i]), or -1 after a 400
 * naming the first one that is not an integer from 0 to its max.
 */
int route_query_args(const struct request *req, struct response *res, const struct route_arg *args,
                     size_t n, uint64_t *vals);
/*
 * Check @req's query arguments against @decl (ended by a NULL name; NULL:
 * none): true, or false after a 400 naming the first that is unknown, not
 * an integer in its range, or a flag with a value.
 */
bool route_check_query(const struct request *req, struct response *res,
                       const struct route_arg *decl);
/* ?limit= (default ROUTE_LIST_LIMIT, at most ROUTE_LIST_MAX) and ?offset=
 * of a list: false after a 400. */
bool route_query_window(const struct request *req, struct response *res, unsigned *limit,
                        unsigned *offset);
/*
 * A "counters" query's comma-separated stat names into @items (room for
 * SIM_NR_STATS) and *nr: 0, or -1 after filling @res with a 400.
 */
int route_query_counters(const char *list, unsigned *items, size_t *nr, struct response *res);
/* True when @from <= @to (positions or values); else false after a 400. */
bool route_check_range(struct response *res, uint64_t from, uint64_t to);
/* True when position @at (of key @key of the body) is at most @end (the
 * session's events); else false after a 400. */
bool route_check_end(struct response *res, const char *key, uint64_t at, uint64_t end);
/* Parse "0x..." (1 to 16 hex digits); false when it is not one. */
bool route_parse_addr(const char *s, uint64_t *out);

/* The 404 of a @kind's @id that names nothing.  Returns 0. */
int route_no_such(struct response *res, enum route_id_kind kind, const char *id);
/* True when @id has the shape of a @kind's id; else false after its 404. */
bool route_check_id(struct response *res, enum route_id_kind kind, const char *id);

/* The bearer token of the request (after "Bearer", in any case, and its spaces), or NULL. */
const char *route_token(const struct request *req);
/* True when the request's bearer token is @token (compared in constant time). */
bool route_token_is(const struct request *req, const char *token);
/* A 403 saying @what needs, and how to give it ("... (Authorization: Bearer
 * TOKEN)"); returns 0 for `return route_forbidden(...)`. */
int route_forbidden(struct response *res, const char *what);

#endif /* SLUBLAB_SERVER_HTTP_PARAMS_H */
