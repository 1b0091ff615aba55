/*
 * guard.c: writes only from the lab's own pages (see guard.h).
 *
 * The lists are built once, when the server starts: a few entries for a
 * loopback address, one per interface address for 0.0.0.0.  A check is a
 * case-insensitive comparison with each entry; a port the browser leaves
 * out (80 for http, 443 for https) is added as a second spelling.
 */
#include "http/guard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

/* Is @s, case aside, one of the @n strings of @stride bytes each at @list? */
static bool guard_listed(const void *list, size_t stride, size_t n, const char *s)
{
    const char *p = list;

    for (size_t i = 0; i < n; i++, p += stride)
        if (!strcasecmp(p, s))
            return true;
    return false;
}

static int guard_add_host(struct guard *g, const char *host)
{
    char(*h)[GUARD_MAX_HOST];

    if (guard_listed(g->hosts, sizeof(*h), g->nr_hosts, host))
        return 0;
    if (strlen(host) >= GUARD_MAX_HOST)
        return -EINVAL;
    if (!(h = realloc(g->hosts, (g->nr_hosts + 1) * sizeof(*h))))
        return -ENOMEM;
    g->hosts = h;
    snprintf(g->hosts[g->nr_hosts++], GUARD_MAX_HOST, "%s", host);
    return 0;
}

static int guard_add_origin(struct guard *g, const char *origin)
{
    char(*o)[GUARD_MAX_HOST + 8];

    if (guard_listed(g->origins, sizeof(*o), g->nr_origins, origin))
        return 0;
    if (strlen(origin) >= sizeof(*o))
        return -EINVAL;
    if (!(o = realloc(g->origins, (g->nr_origins + 1) * sizeof(*o))))
        return -ENOMEM;
    g->origins = o;
    snprintf(g->origins[g->nr_origins++], sizeof(*o), "%s", origin);
    return 0;
}

/* @name (an address, "[v6]" or a DNS name) at @port, as Host and Origin spell it. */
static int guard_add_name(struct guard *g, const char *scheme, const char *name, unsigned port)
{
    unsigned dflt = strcmp(scheme, "https") ? 80 : 443;
    char host[GUARD_MAX_HOST], origin[GUARD_MAX_HOST + 8];
    int err;

    if ((size_t)snprintf(host, sizeof(host), "%s:%u", name, port) >= sizeof(host))
        return -EINVAL;
    snprintf(origin, sizeof(origin), "%s://%s", scheme, host);
    if ((err = guard_add_host(g, host)) || (err = guard_add_origin(g, origin)))
        return err;
    if (port != dflt)
        return 0;
    snprintf(origin, sizeof(origin), "%s://%s", scheme, name);
    if ((err = guard_add_host(g, name)) || (err = guard_add_origin(g, origin)))
        return err;
    return 0;
}

/* Every address of every interface, of @family (AF_INET or AF_INET6). */
static int guard_add_interfaces(struct guard *g, int family, unsigned port)
{
    struct ifaddrs *ifs, *i;
    int err = 0;

    if (getifaddrs(&ifs))
        return -errno;
    for (i = ifs; i && !err; i = i->ifa_next) {
        char addr[INET6_ADDRSTRLEN], name[INET6_ADDRSTRLEN + 2];

        if (!i->ifa_addr || i->ifa_addr->sa_family != family)
            continue;
        if (family == AF_INET) {
            const struct sockaddr_in *in = (const void *)i->ifa_addr;

            inet_ntop(AF_INET, &in->sin_addr, addr, sizeof(addr));
            err = guard_add_name(g, "http", addr, port);
        } else {
            const struct sockaddr_in6 *in6 = (const void *)i->ifa_addr;

            if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr))
                continue; /* needs a zone id no browser puts in Host */
            inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof(addr));
            snprintf(name, sizeof(name), "[%s]", addr);
            err = guard_add_name(g, "http", name, port);
        }
    }
    freeifaddrs(ifs);
    return err;
}

/* "scheme://host[:port]" with nothing after: add it and its host. */
static int guard_add_allowed(struct guard *g, const char *origin, struct strbuf *err)
{
    const char *sep = strstr(origin, "://"), *name, *colon;
    char scheme[8], host[GUARD_MAX_HOST];
    unsigned long port;
    size_t n;

    if (!sep || (size_t)(sep - origin) >= sizeof(scheme) || !sep[3] ||
        strpbrk(sep + 3, "/?#@ \t") || strlen(sep + 3) >= sizeof(host)) {
        strbuf_printf(err, "--allow-origin: \"%s\" is not an origin (scheme://host[:port])",
                      origin);
        return -EINVAL;
    }
    n = (size_t)(sep - origin);
    memcpy(scheme, origin, n);
    scheme[n] = 0;
    for (size_t i = 0; i < n; i++)
        scheme[i] = (char)(scheme[i] | 0x20);
    if (strcmp(scheme, "http") && strcmp(scheme, "https")) {
        strbuf_printf(err, "--allow-origin: \"%s\" is not http or https", origin);
        return -EINVAL;
    }
    name = sep + 3;
    colon = strrchr(name, ':');
    if (colon && (name[0] != '[' || colon > strchr(name, ']'))) {
        char *end;

        port = strtoul(colon + 1, &end, 10);
        if (*end || !colon[1] || port == 0 || port > 65535) {
            strbuf_printf(err, "--allow-origin: \"%s\" has a bad port", origin);
            return -EINVAL;
        }
        n = (size_t)(colon - name);
    } else {
        port = strcmp(scheme, "https") ? 80 : 443;
        n = strlen(name);
    }
    memcpy(host, name, n);
    host[n] = 0;
    for (size_t i = 0; i < n; i++)
        host[i] = (char)(host[i] >= 'A' && host[i] <= 'Z' ? host[i] | 0x20 : host[i]);
    return guard_add_name(g, scheme, host, (unsigned)port);
}

int guard_init(struct guard *g, const char *listen, unsigned port, const char *const *allow,
               struct strbuf *err)
{
    struct in6_addr a6;
    struct in_addr a4;
    char name[INET6_ADDRSTRLEN + 2];
    int ret = 0;

    memset(g, 0, sizeof(*g));
    if (!strcmp(listen, "localhost") || !strcmp(listen, "0.0.0.0") || !strcmp(listen, "::") ||
        (inet_pton(AF_INET, listen, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127) ||
        (inet_pton(AF_INET6, listen, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6)))
        ret = guard_add_name(g, "http", "localhost", port);
    if (!ret && !strcmp(listen, "0.0.0.0"))
        ret = guard_add_interfaces(g, AF_INET, port);
    else if (!ret && !strcmp(listen, "::"))
        ret = guard_add_interfaces(g, AF_INET6, port);
    else if (!ret && inet_pton(AF_INET6, listen, &a6) == 1) {
        inet_ntop(AF_INET6, &a6, name + 1, sizeof(name) - 2);
        name[0] = '[';
        strcat(name, "]");
        ret = guard_add_name(g, "http", name, port);
    } else if (!ret)
        ret = guard_add_name(g, "http", strcmp(listen, "localhost") ? listen : "127.0.0.1", port);
    for (size_t i = 0; !ret && allow && allow[i]; i++)
        ret = guard_add_allowed(g, allow[i], err);
    if (ret == -ENOMEM)
        strbuf_puts(err, "out of memory");
    else if (ret && !strbuf_str(err)[0])
        strbuf_printf(err, "cannot list this host's addresses: %s", strerror(-ret));
    return ret;
}

void guard_release(struct guard *g)
{
    free(g->hosts);
    free(g->origins);
    memset(g, 0, sizeof(*g));
}

/* @s as printable ASCII (others become '?'), at most @len - 1 bytes: never
 * echo bytes that are not text. */
static const char *guard_printable(const char *s, char *buf, size_t len)
{
    size_t i;

    for (i = 0; s[i] && i + 1 < len; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    buf[i] = 0;
    return buf;
}

int guard_check(const struct guard *g, const char *method, const char *host, const char *origin,
                char *why, size_t len)
{
    char shown[81];
    const char *from, *header, *value, *not_one;

    if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
        return 0;
    if (host && !guard_listed(g->hosts, sizeof(*g->hosts), g->nr_hosts, host)) {
        from = "this lab";
        header = "Host";
        value = host;
        not_one = "an address it listens on (a name other than its address needs --allow-origin)";
    } else if (origin && !guard_listed(g->origins, sizeof(*g->origins), g->nr_origins, origin)) {
        from = "this lab's own pages";
        header = "Origin";
        value = origin;
        not_one = "one of them (see --allow-origin)";
    } else {
        return 0;
    }
    snprintf(why, len, "a change must come from %s: %s \"%s\" is not %s", from, header,
             guard_printable(value, shown, sizeof(shown)), not_one);
    return -EPERM;
}

bool guard_is_json(const char *content_type)
{
    static const char json[] = "application/json";
    size_t n = sizeof(json) - 1;

    if (!content_type || strncasecmp(content_type, json, n))
        return false;
    content_type += n;
    while (*content_type == ' ' || *content_type == '\t')
        content_type++;
    return !*content_type || *content_type == ';';
}
