/*
 * gnuplot.h - drive gnuplot (Debian's gnuplot-nox, SVG terminal) from C.
 *
 * One session holds one generated script: every figure is a `set output`
 * followed by plot commands whose data travel inside the script as
 * datablocks ($name << EOD), so no data file is ever written. The script
 * and the SVG files live in a private temporary directory (mkdtemp) that
 * sl_gp_close removes. gnuplot runs once per session (fork + execvp, no
 * shell), with its standard error kept for the message when it fails.
 *
 * The SVGs come back ready to inline in HTML: the XML prolog and DOCTYPE
 * are dropped and every id (and every reference to one) gets a per-figure
 * prefix, so several inline SVGs never share an id.
 */
#ifndef SL_GNUPLOT_H
#define SL_GNUPLOT_H

#include "streamlab.h"

#include <stdio.h>

/* The gnuplot to run: $STREAMLAB_GNUPLOT if set, else `gnuplot` found on
 * $PATH. Returns SL_OK with the path in buf, or SL_ERR_UNSUPPORTED with a
 * message naming the Debian package to install. */
sl_status sl_gp_find(char *buf, size_t len);

typedef struct sl_gp sl_gp;

/* A session running the gnuplot at `exe`; SL_ERR_IO if the temporary
 * directory cannot be made. */
sl_status sl_gp_open(const char *exe, sl_gp **out);

/* The script being written: plot commands go here. */
FILE *sl_gp_script(sl_gp *gp);

/* Start figure `id` (letters, digits, '-' and '_' only), w x h pixels
 * (0, 0: 960 x 540): resets the previous figure's settings and sets its
 * output file. */
void sl_gp_figure(sl_gp *gp, const char *id, int w, int h);

/* Write s as a gnuplot single-quoted string ('' escapes a quote). */
void sl_gp_quote(FILE *f, const char *s);

/* Run gnuplot on the script. SL_ERR_IO with gnuplot's own message (its
 * first lines of standard error) when it fails. */
sl_status sl_gp_run(sl_gp *gp);

/* Figure `id`'s SVG, ready to inline (malloc'd; the caller frees), or NULL
 * with sl_last_error() set when gnuplot wrote none. */
char *sl_gp_svg(sl_gp *gp, const char *id);

/* Remove the temporary directory and free the session. */
void sl_gp_close(sl_gp *gp);

#endif /* SL_GNUPLOT_H */
