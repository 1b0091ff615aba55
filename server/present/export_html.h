/*
 * export_html.h: a session as one self-contained HTML file that opens
 * offline (export_html.c, docs/export.md).
 */
#ifndef SLUBLAB_SERVER_PRESENT_EXPORT_HTML_H
#define SLUBLAB_SERVER_PRESENT_EXPORT_HTML_H

#include <stdint.h>

#include "session/session.h"
#include "base/strbuf.h"

#define EXPORT_HTML_MAX_EVENTS 250000u     /* events of a session an offline copy holds */
#define EXPORT_HTML_MAX_BYTES  (64u << 20) /* bytes of its compressed data, in base64 */
#define EXPORT_HTML_KEYFRAME   2000u       /* every so many states one is kept whole */
#define EXPORT_HTML_FORMAT     2u          /* of the data document (docs/export.md) */

struct export_html_dirs {
    const char *web;    /* the UI: index.html, css/, js/, data/, offline/ */
    const char *vendor; /* chart.umd.js */
};

/*
 * Append the HTML of @s (locked by the caller), opening at position @at.
 * 0, SESSION_EBADINPUT (at beyond the end), -E2BIG (the session is too long
 * for one file), -ENOENT (a UI file is missing), or a session error; the
 * reason in @err.
 */
int export_html(struct session *s, const struct export_html_dirs *dirs, uint64_t at,
                struct strbuf *out, struct strbuf *err);

#endif /* SLUBLAB_SERVER_PRESENT_EXPORT_HTML_H */
