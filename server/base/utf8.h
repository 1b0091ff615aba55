/*
 * utf8.h: telling text from bytes (utf8.c).
 *
 * JSON is UTF-8, and so is every answer the server gives: a string that is
 * not valid UTF-8 is refused where it comes in (a body's strings, query
 * arguments) and never stored, and an error message that quotes the
 * client's bytes quotes them made safe.
 */
#ifndef SLUBLAB_SERVER_BASE_UTF8_H
#define SLUBLAB_SERVER_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* True when @s (@len bytes) is valid UTF-8: shortest forms only, no
 * surrogates, nothing above U+10FFFF.  NUL bytes are valid UTF-8. */
bool utf8_valid(const char *s, size_t len);
/* Rewrite the NUL-terminated @s in place so that it is valid UTF-8: each
 * byte of an invalid sequence becomes '?'.  Cannot fail. */
void utf8_sanitize(char *s);

#endif /* SLUBLAB_SERVER_BASE_UTF8_H */
