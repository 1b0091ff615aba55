/*
 * guard.h: who may change the lab: writes only from the lab's own pages.
 *
 * A page on any site can make a browser send a POST to 127.0.0.1 (a form,
 * or fetch with a "simple" content type), and a hostile DNS name can be
 * rebound to 127.0.0.1 so that the page's own origin reaches the lab.  So
 * every write (any method but GET and HEAD) must name, in its Host header,
 * an address this server answers on, and, when the browser sends an
 * Origin, come from one of the lab's origins: http://HOST:PORT for those
 * addresses, plus the origins the operator allows (--allow-origin, for a
 * lab behind a proxy or a DNS name).  A JSON body must say so
 * (Content-Type: application/json), which no form and no simple
 * cross-origin request can.  Clients that send no Origin (curl, scripts)
 * are not browsers acting for another site and pass that check.
 *
 * The addresses: the one --listen names and "localhost" when it is a
 * loopback address; every address of every interface when it is 0.0.0.0
 * or ::.  Reads (GET, HEAD) are not checked: the lab holds nothing secret,
 * and a student's browser must be able to follow a link from anywhere.
 */
#ifndef SLUBLAB_SERVER_HTTP_GUARD_H
#define SLUBLAB_SERVER_HTTP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define GUARD_MAX_HOST 96 /* "[ffff:...]:65535" and a DNS name from an origin */

struct guard {
    char (*hosts)[GUARD_MAX_HOST]; /* Host values accepted, lowercase; owned */
    size_t nr_hosts;
    char (*origins)[GUARD_MAX_HOST + 8]; /* Origin values accepted, lowercase; owned */
    size_t nr_origins;
};

/*
 * The addresses of a server listening on @listen port @port, and the
 * origins @allow (NULL-terminated "scheme://host[:port]" strings, may be
 * NULL).  0, -EINVAL with the reason in @err (an origin that is not one),
 * or -ENOMEM.  Release with guard_release() in any case.
 */
int guard_init(struct guard *g, const char *listen, unsigned port, const char *const *allow,
               struct strbuf *err);
void guard_release(struct guard *g);
/*
 * 0 when a request with @method, @host and @origin (either NULL when the
 * header is absent) may go on; else -EPERM with why not in @why (@len
 * bytes), for a 403.
 */
int guard_check(const struct guard *g, const char *method, const char *host, const char *origin,
                char *why, size_t len);
/* True when @content_type is application/json (parameters allowed). */
bool guard_is_json(const char *content_type);

#endif /* SLUBLAB_SERVER_HTTP_GUARD_H */
