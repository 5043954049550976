/*
 * fileio.c - reading input files with limits, and writing outputs without
 * ever replacing something that is not a regular file (see internal.h,
 * sl_output).
 *
 * A regular file is replaced atomically: the text goes to a temporary file
 * in the same directory, which is then renamed over it, so a reader (or a
 * crash, or an interrupt) sees the old content or the new, never half. A
 * symbolic link is followed: its target is what gets replaced, and the link
 * stays. A character device (/dev/stdout, /dev/null, a terminal) or a FIFO
 * is written in place, once; "-" means standard output.
 */
#define _XOPEN_SOURCE 700
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading --------------------------------------------------------------- */

char *sl_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        errno = EISDIR;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL; /* a device or FIFO: no size to trust, and it may never end */
        return NULL;
    }
    if ((uint64_t)st.st_size > SL_READ_MAX) {
        close(fd);
        errno = EFBIG;
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    size_t got = 0;
    while (buf && got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (!buf || got != n) {
        free(buf);
        errno = buf ? EIO : ENOMEM;
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

const char *sl_read_error(int err)
{
    switch (err) {
    case EISDIR: return "it is a directory";
    case EINVAL: return "it is not a regular file";
    case EFBIG: return "it is larger than the 64 MiB streamlab reads";
    default: return strerror(err);
    }
}

/* ---- writing ---------------------------------------------------------------- */

/* Where "-" writes: standard output, unless the CLI moved its text away
 * (sl_output_set_stdout_fd). */
static int stdout_fd = STDOUT_FILENO;

void sl_output_set_stdout_fd(int fd)
{
    stdout_fd = fd;
}

static sl_status out_fail(const sl_output *o, const char *why)
{
    return sl_fail(SL_ERR_IO, "cannot write %s: %s", o->path, why);
}

/* The absolute path of a file that may not exist yet: its directory's real
 * path and its own name. */
static int absolute(const char *path, char *out, size_t len)
{
    char dir[PATH_MAX], base[PATH_MAX], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    snprintf(base, sizeof base, "%s", path);
    if (!realpath(dirname(dir), real))
        return -1;
    return snprintf(out, len, "%s/%s", real, basename(base)) < (int)len ? 0 : -1;
}

/* Which of streamlab's files head (the first 4 KiB of one) is, into kind
 * ("streamlab.run/1", "a streamlab report page", ...); false if none. */
static bool streamlab_kind(const char *head, char *kind, size_t len)
{
    const char *s = strstr(head, "\"streamlab.");
    if (s) {
        size_t n = strcspn(s + 1, "\"\n");
        snprintf(kind, len, "a %.*s JSON file", (int)(n < 64 ? n : 64), s + 1);
        return true;
    }
    if (strstr(head, "content=\"streamlab report")) {
        snprintf(kind, len, "a page of streamlab report");
        return true;
    }
    if (!strncmp(head, "# streamlab ", 12)) {
        snprintf(kind, len, "the Markdown of '%.*s'", (int)strcspn(head + 2, "\n"), head + 2);
        return true;
    }
    if (!strncmp(head, "backend,device,op,", 18)) {
        snprintf(kind, len, "the CSV of streamlab run");
        return true;
    }
    return false;
}

/* Whether an existing regular file may be replaced: empty, or with `ours`
 * in its first 4 KiB (a file streamlab wrote there). If not, why says what
 * was checked and what the file is. */
static bool replaceable(const char *target, const char *ours, char *why, size_t why_len)
{
    if (!ours)
        return true;
    int fd = open(target, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, why_len, "it exists and cannot be read to check what it is (%s)", strerror(errno));
        return false;
    }
    char head[4097];
    ssize_t k;
    do
        k = read(fd, head, sizeof head - 1);
    while (k < 0 && errno == EINTR);
    close(fd);
    if (k < 0) {
        snprintf(why, why_len, "it exists and cannot be read to check what it is (%s)", strerror(errno));
        return false;
    }
    head[k] = 0;
    for (ssize_t i = 0; i < k; i++)
        if (!head[i])
            head[i] = ' '; /* binary bytes cannot hide the marker */
    if (k == 0 || strstr(head, ours) != NULL)
        return true;
    char kind[128];
    if (streamlab_kind(head, kind, sizeof kind))
        snprintf(why, why_len,
                 "it exists and is %s: streamlab wrote it, but not as this output (whose mark, [%s], its "
                 "first 4 KiB lack); remove it or choose another name",
                 kind, ours);
    else
        snprintf(why, why_len,
                 "it exists, is not empty, and its first 4 KiB lack [%s], the mark of the file streamlab writes "
                 "here, so streamlab did not write it; remove it or choose another name",
                 ours);
    return false;
}

sl_status sl_output_open(sl_output *o, const char *path, const char *ours)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || !path[0])
        return sl_fail(SL_ERR_IO, "an output file name is empty");
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path)
        return sl_fail(SL_ERR_IO, "output path too long: %.80s...", path);
    if (strcmp(path, "-") == 0) {
        o->kind = SL_OUT_STREAM;
        o->fd = stdout_fd;
        o->is_stdout = true;
        snprintf(o->target, sizeof o->target, "<standard output>");
        return SL_OK;
    }
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return out_fail(o, strerror(errno));
        /* A new file: its directory must exist and take it. */
        if (absolute(path, o->target, sizeof o->target) != 0)
            return out_fail(o, "its directory does not exist");
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", o->target);
        if (access(dirname(dir), W_OK) != 0)
            return out_fail(o, "its directory is not writable");
        o->kind = SL_OUT_REGULAR;
        return SL_OK;
    }
    if (S_ISLNK(st.st_mode)) {
        /* Follow the link: its target is written, the link stays a link. */
        if (!realpath(path, o->target))
            return out_fail(o, errno == ELOOP ? "it is a symbolic link in a loop (too many levels of links)"
                               : errno == ENOENT ? "it is a symbolic link to a missing file (create the target, "
                                                   "or remove the link)"
                                                 : strerror(errno));
        if (stat(o->target, &st) != 0)
            return out_fail(o, strerror(errno));
        o->via_link = true;
    } else if (absolute(path, o->target, sizeof o->target) != 0) {
        return out_fail(o, strerror(errno));
    }
    o->dev = st.st_dev;
    o->ino = st.st_ino;
    o->exists = true;
    if (S_ISREG(st.st_mode)) {
        if (access(o->target, W_OK) != 0)
            return out_fail(o, "permission denied");
        char why[512];
        if (!replaceable(o->target, ours, why, sizeof why))
            return out_fail(o, why);
        o->kind = SL_OUT_REGULAR;
        o->mode = st.st_mode & 07777;
        return SL_OK;
    }
    if (S_ISDIR(st.st_mode))
        return out_fail(o, "it is a directory");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        /* Written in place, never replaced. O_NONBLOCK so that a FIFO with
         * no reader fails now (ENXIO) instead of hanging the run. */
        o->fd = open(o->target, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (o->fd < 0)
            return out_fail(o, errno == ENXIO ? "it is a FIFO with no reader" : strerror(errno));
        int fl = fcntl(o->fd, F_GETFL);
        if (fl >= 0)
            fcntl(o->fd, F_SETFL, fl & ~O_NONBLOCK);
        o->kind = SL_OUT_STREAM;
        return SL_OK;
    }
    return out_fail(o, "it is neither a regular file, a character device nor a FIFO");
}

bool sl_output_same(const sl_output *a, const sl_output *b)
{
    if (a->is_stdout || b->is_stdout)
        return a->is_stdout && b->is_stdout;
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return strcmp(a->target, b->target) == 0;
}

static sl_status write_all(const sl_output *o, int fd, const char *text, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(fd, text + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return out_fail(o, strerror(errno));
        done += (size_t)k;
    }
    return SL_OK;
}

sl_status sl_output_replace(sl_output *o, const char *text)
{
    size_t n = strlen(text);
    const bool nl = n == 0 || text[n - 1] != '\n';
    if (o->kind == SL_OUT_STREAM) {
        sl_status st = write_all(o, o->fd, text, n);
        if (st == SL_OK && nl)
            st = write_all(o, o->fd, "\n", 1);
        o->written = true;
        return st;
    }
    /* A temporary file beside the target, then rename: atomic, and the
     * target's directory entry is the only thing replaced. */
    char tmp[PATH_MAX + 16];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", o->target) >= (int)sizeof tmp)
        return out_fail(o, "path too long");
    int fd = mkstemp(tmp);
    if (fd < 0)
        return out_fail(o, strerror(errno));
    mode_t mode = o->mode;
    if (!mode) {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    fchmod(fd, mode);
    sl_status st = write_all(o, fd, text, n);
    if (st == SL_OK && nl)
        st = write_all(o, fd, "\n", 1);
    if (close(fd) != 0 && st == SL_OK)
        st = out_fail(o, strerror(errno));
    if (st == SL_OK && rename(tmp, o->target) != 0)
        st = out_fail(o, strerror(errno));
    if (st != SL_OK)
        unlink(tmp);
    o->written = st == SL_OK;
    return st;
}

FILE *sl_output_stream(sl_output *o)
{
    if (o->kind == SL_OUT_STREAM) {
        /* fdopen on a duplicate, so closing the FILE keeps stdout open */
        int fd = dup(o->fd);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f) {
            if (fd >= 0)
                close(fd);
            out_fail(o, strerror(errno));
        }
        return f;
    }
    /* A regular file written as it goes (CSV, the probe's Markdown): the
     * target itself, truncated; a symlink stays a link. */
    FILE *f = fopen(o->target, "w");
    if (!f)
        out_fail(o, strerror(errno));
    return f;
}

void sl_output_close(sl_output *o)
{
    if (o->fd >= 0 && !o->is_stdout)
        close(o->fd);
    o->fd = -1;
}

sl_status sl_write_atomic(const char *path, const char *text, const char *ours)
{
    sl_output o;
    sl_status st = sl_output_open(&o, path, ours);
    if (st == SL_OK)
        st = sl_output_replace(&o, text);
    sl_output_close(&o);
    return st;
}
