/*
 * test_tar_read.c: the tar reader (kfiles/tar_read.c) on archives that
 * tar.c wrote and on hand-made ones: plain and gzip-compressed, long
 * names (ustar prefix, GNU 'L', pax path=), links and directories, and
 * every kind of damage it must refuse with a reason instead of crashing:
 * a bad checksum, a non-octal or huge size, a truncated member, a missing
 * end block, corrupt gzip data, a ".." path, a member twice.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp() */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "kfiles/kfiles.h"
#include "kfiles/tar_read.h"

static char tmpdir[] = "/tmp/slublab-tar-XXXXXX";

/* A ustar header for @name in @h (512 bytes), checksum included. */
static void header(unsigned char *h, const char *name, char type, size_t size, const char *link)
{
    unsigned sum = 0;

    memset(h, 0, 512);
    memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
    snprintf((char *)h + 100, 8, "%07o", 0644);
    snprintf((char *)h + 124, 12, "%011zo", size);
    snprintf((char *)h + 136, 12, "%011o", 0);
    h[156] = (unsigned char)type;
    if (link)
        memcpy(h + 157, link, strlen(link));
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);
    for (size_t i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
}

/* Recompute @h's checksum after a test changed a field. */
static void rechecksum(unsigned char *h)
{
    unsigned sum = 0;

    memset(h + 148, ' ', 8);
    for (size_t i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
}

/* Append a member (header, data, padding) to @sb. */
static void member(struct strbuf *sb, const char *name, char type, const char *data, size_t len,
                   const char *link)
{
    static const char zeros[512];
    unsigned char h[512];

    header(h, name, type, len, link);
    strbuf_append(sb, (const char *)h, sizeof(h));
    if (len) {
        strbuf_append(sb, data, len);
        if (len % 512)
            strbuf_append(sb, zeros, 512 - len % 512);
    }
}

static void end(struct strbuf *sb)
{
    static const char zeros[1024];

    strbuf_append(sb, zeros, sizeof(zeros));
}

/* @len bytes to a file in the test directory; its path in @path. */
static void put(char *path, size_t size, const char *name, const void *data, size_t len, bool gz)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    if (gz) {
        gzFile f = gzopen(path, "wb");

        CHECK(f != NULL);
        if (f) {
            CHECK_EQ_I(gzwrite(f, data, (unsigned)len), (int)len);
            gzclose(f);
        }
    } else {
        FILE *f = fopen(path, "wb");

        CHECK(f != NULL);
        if (f) {
            CHECK_EQ_U(fwrite(data, 1, len, f), len);
            fclose(f);
        }
    }
}

/* tar_read() of @len bytes (gzip-compressed when @gz); the error text in @err. */
static int read_bytes(const void *data, size_t len, bool gz, struct tar_archive *a,
                      struct strbuf *err)
{
    char path[256];

    strbuf_reset(err);
    put(path, sizeof(path), gz ? "t.tar.gz" : "t.tar", data, len, gz);
    return tar_read(path, a, err);
}

/* What tar.c writes for a sysfs tree reads back, plain and compressed. */
static void test_round_trip(void)
{
    static char d0[] = ":0000064", f0[] = ":0000064/object_size", v0[] = "64\n",
                f1[] = ":0000064/empty", v1[] = "",
                d2[] = "a-directory-name-long-enough-that-ustar-needs-its-prefix-field-"
                       "for-the-whole-path-to-fit",
                f2[] = "a-directory-name-long-enough-that-ustar-needs-its-prefix-field-"
                       "for-the-whole-path-to-fit/slab_size",
                v2[] = "4096\n", l3[] = "kmalloc-64", v3[] = ":0000064";
    struct sysfs_entry e[] = {
            {SYSFS_DIR, d0, NULL, 0}, {SYSFS_FILE, f0, v0, 3}, {SYSFS_FILE, f1, v1, 0},
            {SYSFS_DIR, d2, NULL, 0}, {SYSFS_FILE, f2, v2, 5}, {SYSFS_LINK, l3, v3, 8},
    };
    struct sysfs_tree t = {0};
    struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    struct tar_archive a;
    const struct tar_member *m;

    t.e = e;
    t.nr = t.cap = sizeof(e) / sizeof(e[0]);
    if (!CHECK(tar_tree(&sb, &t, "slab")))
        goto out;
    for (int gz = 0; gz < 2; gz++) {
        if (!CHECK_EQ_I(read_bytes(sb.buf, sb.len, gz, &a, &err), 0)) {
            printf("  %s\n", strbuf_str(&err));
            continue;
        }
        CHECK_EQ_U(a.nr, 7); /* slab/ and the six entries */
        for (size_t i = 1; i < a.nr; i++)
            CHECK(strcmp(a.m[i - 1].path, a.m[i].path) < 0);
        CHECK((m = tar_find(&a, "slab")) && m->type == TAR_DIR && !m->data);
        CHECK((m = tar_find(&a, "slab/:0000064")) && m->type == TAR_DIR);
        CHECK((m = tar_find(&a, "slab/:0000064/object_size")) && m->type == TAR_FILE &&
              m->len == 3 && !strcmp(m->data, "64\n"));
        CHECK((m = tar_find(&a, "slab/:0000064/empty")) && m->type == TAR_FILE && m->len == 0 &&
              m->data && !m->data[0]);
        CHECK((m = tar_find(&a, "slab/kmalloc-64")) && m->type == TAR_LINK &&
              !strcmp(m->data, ":0000064"));
        CHECK((m = tar_find(&a, "slab/a-directory-name-long-enough-that-ustar-needs-its-prefix-"
                                "field-for-the-whole-path-to-fit/slab_size")) &&
              !strcmp(m->data, "4096\n"));
        CHECK(!tar_find(&a, "slab/:0000064/objects"));
        CHECK(!tar_find(&a, "slab/"));
        tar_release(&a);
        CHECK_EQ_U(a.nr, 0);
        tar_release(&a); /* twice is fine */
    }
out:
    strbuf_release(&sb);
    strbuf_release(&err);
}

/* "./" and "/" in front are dropped; GNU 'L' and pax path= give long names. */
static void test_names(void)
{
    struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    struct tar_archive a;
    const struct tar_member *m;
    char longname[300];
    char pax[400];
    size_t body, tot;
    int n;

    memset(longname, 'n', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    longname[0] = 'd';
    longname[1] = '/';
    member(&sb, "./", '5', NULL, 0, NULL);
    member(&sb, "./top/", '5', NULL, 0, NULL);
    member(&sb, "/top//x", '0', "x", 1, NULL);
    member(&sb, "././LongLink", 'L', longname, strlen(longname) + 1, NULL);
    member(&sb, "ignored", '0', "gnu", 3, NULL);
    body = strlen(" path=pax/\n") + strlen(longname + 2);
    for (tot = body + 1; (size_t)snprintf(NULL, 0, "%zu", tot) + body != tot;)
        tot++; /* a record's length counts its own digits */
    n = snprintf(pax, sizeof(pax), "%zu path=pax/%s\n", tot, longname + 2);
    CHECK_EQ_U((size_t)n, tot);
    member(&sb, "PaxHeaders/x", 'x', pax, (size_t)n, NULL);
    member(&sb, "ignored-too", '0', "pax", 3, NULL);
    member(&sb, "dev", '3', NULL, 0, NULL);
    member(&sb, "hard", '1', NULL, 0, "top/x");
    end(&sb);
    if (!CHECK_EQ_I(read_bytes(sb.buf, sb.len, false, &a, &err), 0)) {
        printf("  %s\n", strbuf_str(&err));
        goto out;
    }
    CHECK_EQ_U(a.nr, 4); /* top, top/x and the two long names; "./", dev and hard skipped */
    CHECK((m = tar_find(&a, "top")) && m->type == TAR_DIR);
    CHECK((m = tar_find(&a, "top/x")) && !strcmp(m->data, "x"));
    CHECK((m = tar_find(&a, longname)) && !strcmp(m->data, "gnu"));
    snprintf(pax, sizeof(pax), "pax/%s", longname + 2);
    CHECK((m = tar_find(&a, pax)) && !strcmp(m->data, "pax"));
    CHECK(!tar_find(&a, "ignored") && !tar_find(&a, "ignored-too"));
    tar_release(&a);
out:
    strbuf_release(&sb);
    strbuf_release(&err);
}

/* Each kind of damage is refused with its reason, and nothing is kept. */
static void test_refused(void)
{
    struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT, bad = STRBUF_INIT;
    struct tar_archive a;
    unsigned char *h;
    char path[256];

    member(&sb, "dir/", '5', NULL, 0, NULL);
    member(&sb, "dir/file", '0', "hello\n", 6, NULL);
    end(&sb);
    CHECK_EQ_I(read_bytes(sb.buf, sb.len, false, &a, &err), 0);
    tar_release(&a);

#define REFUSED(ret, what)                                              \
    do {                                                                \
        CHECK_EQ_I(read_bytes(bad.buf, bad.len, false, &a, &err), ret); \
        CHECK(strstr(strbuf_str(&err), what) != NULL);                  \
        CHECK(a.nr == 0 && a.m == NULL);                                \
        if (!strstr(strbuf_str(&err), what))                            \
            printf("  got: %s\n", strbuf_str(&err));                    \
    } while (0)
#define DAMAGE()                             \
    do {                                     \
        strbuf_reset(&bad);                  \
        strbuf_append(&bad, sb.buf, sb.len); \
        h = (unsigned char *)bad.buf;        \
    } while (0)

    DAMAGE();
    h[512 + 3] ^= 1; /* the second header's name */
    REFUSED(-EINVAL, "bad checksum");
    strbuf_reset(&bad);
    strbuf_puts(&bad, "this is a text file, not an archive\n");
    REFUSED(-EINVAL, "truncated");
    DAMAGE();
    strbuf_truncate(&bad, 512);
    memset(bad.buf + 100, 'x', 400);
    REFUSED(-EINVAL, "not a tar archive");
    DAMAGE();
    strbuf_truncate(&bad, 1024 + 100); /* inside dir/file's data */
    REFUSED(-EINVAL, "truncated");
    DAMAGE();
    strbuf_truncate(&bad, 1536); /* no end block */
    REFUSED(-EINVAL, "truncated");
    DAMAGE();
    h[512 + 124 + 5] = '9';
    rechecksum(h + 512);
    REFUSED(-EINVAL, "not an octal number");
    DAMAGE();
    memcpy(h + 512 + 124, "77777777777", 11); /* 8 GiB */
    rechecksum(h + 512);
    REFUSED(-EFBIG, "more member data");
    DAMAGE();
    memcpy(h + 512 + 257, "xxxxx", 5);
    rechecksum(h + 512);
    REFUSED(-EINVAL, "magic");
    DAMAGE();
    memcpy(h + 512, "dir/../../etc", 13);
    rechecksum(h + 512);
    REFUSED(-EINVAL, "\"..\"");
    DAMAGE();
    memcpy(h + 512, "dir\0", 4); /* now "dir" twice */
    rechecksum(h + 512);
    REFUSED(-EINVAL, "twice");
    strbuf_reset(&bad);
    member(&bad, "p", 'x', "99 path=x\n", 10, NULL);
    member(&bad, "q", '0', "", 0, NULL);
    end(&bad);
    REFUSED(-EINVAL, "pax header record");
    strbuf_reset(&bad);
    member(&bad, "p", 'x', "1 \n", 3, NULL);
    end(&bad);
    REFUSED(-EINVAL, "pax header record");

    /* corrupt gzip data: a byte of the compressed stream changed */
    {
        char gzpath[256];
        FILE *f;
        long size;
        unsigned char *z;

        put(gzpath, sizeof(gzpath), "c.tar.gz", sb.buf, sb.len, true);
        f = fopen(gzpath, "rb");
        if (CHECK(f != NULL)) {
            fseek(f, 0, SEEK_END);
            size = ftell(f);
            rewind(f);
            z = malloc((size_t)size);
            if (CHECK(z && fread(z, 1, (size_t)size, f) == (size_t)size)) {
                z[size / 2] ^= 0x55;
                z[size - 6] ^= 0x55; /* and the CRC */
                fclose(f);
                f = fopen(gzpath, "wb");
                CHECK(f && fwrite(z, 1, (size_t)size, f) == (size_t)size);
            }
            if (f)
                fclose(f);
            free(z);
            strbuf_reset(&err);
            CHECK(tar_read(gzpath, &a, &err) < 0);
            CHECK(a.nr == 0);
            CHECK(strstr(strbuf_str(&err), "c.tar.gz:") != NULL);
        }
    }
    strbuf_reset(&err);
    snprintf(path, sizeof(path), "%s/none.tar", tmpdir);
    CHECK_EQ_I(tar_read(path, &a, &err), -ENOENT);
    CHECK(strstr(strbuf_str(&err), "cannot open") != NULL);
    strbuf_reset(&err);
    CHECK(tar_read(tmpdir, &a, &err) < 0); /* a directory */
    CHECK(a.nr == 0);
#undef REFUSED
#undef DAMAGE
    strbuf_release(&sb);
    strbuf_release(&bad);
    strbuf_release(&err);
}

int main(void)
{
    char cmd[300];

    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_round_trip);
    RUN_TEST(test_names);
    RUN_TEST(test_refused);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd))
        printf("could not remove %s\n", tmpdir);
    return check_done();
}
