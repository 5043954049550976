/*
 * html_report.h - `streamlab report`: results files (streamlab.run/1 from
 * `streamlab run --json`, streamlab.profile/1 from `streamlab probe`) into
 * one self-contained HTML page, every figure an inline SVG drawn by gnuplot
 * (gnuplot.h). Nothing on the page loads from anywhere else.
 *
 * Figures (each a <figure class="plot"> whose data-xlabel / data-ylabel
 * name the axis labels, units included, that gnuplot drew in its SVG):
 *   per run file, device, op and dtype: GB/s vs bytes moved per launch, one
 *     line per variant (log x), the theoretical peak, the probe's copy
 *     ceiling where a profile of that device is given, and the L2 size;
 *   the same groups at their largest size: a ladder bar chart (median
 *     GB/s), each bar labelled with x peer and % of peak, the model's
 *     prediction (bytes / predicted time) as a marker beside it;
 *   per GPU: a roofline (arithmetic intensity = the op descriptor's flops /
 *     bytes, vs GFLOP/s) of every measured kernel at its file's largest
 *     size, with DRAM (theoretical, and the probe's copy ceiling), L2 and
 *     shared-memory slopes and the FP32 FMA roof (hw.c's arch table x the
 *     file's SM count and clock);
 *   per profile: the latency staircase, bandwidth vs bytes in flight per SM
 *     with the knee, and the offset and stride copy curves.
 * Tables: CPU vs GPU (compare.h) for a run over both backends, and the
 * reproducibility record and command line of every file.
 */
#ifndef SL_HTML_REPORT_H
#define SL_HTML_REPORT_H

#include "streamlab.h"

/* What an existing output must contain to be replaced (sl_output_open). */
#define SL_REPORT_HTML_MARK "<meta name=\"generator\" content=\"streamlab report"

typedef struct sl_html_opts {
    const char *const *inputs; /* results files, any mix of run and profile */
    int ninputs;
    const char *out_path;      /* the page; "-" standard output */
    const char *command_line;  /* the report's own, shown on the page */
} sl_html_opts;

/* Which step failed, for the exit code. */
typedef enum sl_html_stage { SL_HTML_INPUT = 1, SL_HTML_OUTPUT, SL_HTML_GNUPLOT, SL_HTML_WRITE } sl_html_stage;

/* Read every input, check the output (never replacing a file that is not
 * a streamlab report), plot, and write the page. On failure *stage says
 * which step failed and sl_last_error() why: SL_HTML_INPUT (unreadable,
 * not JSON, or not a streamlab run or profile file), SL_HTML_OUTPUT (the
 * output cannot be written), SL_HTML_GNUPLOT (gnuplot missing or failing),
 * SL_HTML_WRITE. *nfigures gets the figures on the page. */
sl_status sl_html_report(const sl_html_opts *o, sl_html_stage *stage, int *nfigures);

#endif /* SL_HTML_REPORT_H */
