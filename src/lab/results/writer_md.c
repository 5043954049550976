/*
 * writer_md.c - the run as a Markdown document (header, the table through
 * sl_table, failure details, the summary of a multi-op run), rendered
 * whole into memory and replaced atomically after every row.
 */
#define _POSIX_C_SOURCE 200809L
#include "writer.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef SL_GIT_DESCRIBE
#define SL_GIT_DESCRIBE "unknown"
#endif

static sl_status render(sl_report *rep, bool final)
{
    if (rep->md.kind == SL_OUT_STREAM && !final)
        return SL_OK; /* a stream gets the one final document */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return sl_fail(SL_ERR_NO_MEMORY, "out of memory writing Markdown");
    const sl_report_meta *m = &rep->meta;
    fprintf(f, "# streamlab run: %s %s on %s\n\n", m->ops, m->dtypes, rep->ctx->info.name);
    fprintf(f, "- command: `%s`\n", m->command_line ? m->command_line : "?");
    fprintf(f, "- started: %s; streamlab %s (%s)\n", rep->started, SL_VERSION_STRING, SL_GIT_DESCRIBE);
    char lines[SL_REPORT_HEADER_LINES][512];
    int k = sl_report_header(rep, lines);
    for (int i = 0; i < k; i++)
        fprintf(f, "- %s\n", lines[i]);
    fprintf(f, "- status: %s\n\n", rep->status);
    sl_col cols[32];
    sl_table t;
    sl_table_open(&t, cols, sl_report_columns(rep, cols), NULL, f);
    for (int i = 0; i < rep->nrows; i++) {
        const char *cells[32];
        sl_report_cells(rep, &rep->rows[i].c, cells);
        sl_table_row(&t, cells);
    }
    if (rep->any_l2)
        fprintf(f, "\nL2 / LLC rows (memory column): the working set fits in the cache: they measure the cache, not "
                   "DRAM (use --cold).\n");
    for (int i = 0; i < rep->nrows; i++)
        if (rep->rows[i].message)
            fprintf(f, "\n- %s %s %s: %s\n", rep->rows[i].c.op, rep->rows[i].c.variant, rep->rows[i].c.n,
                    rep->rows[i].message);
    if (rep->error)
        fprintf(f, "\n**error:** %s\n", rep->error);
    if (m->multi_op && rep->nrows)
        sl_report_summary(rep, NULL, f);
    sl_report_compare(rep, NULL, f);
    if (fclose(f) != 0 || !text) {
        free(text);
        return sl_fail(SL_ERR_NO_MEMORY, "out of memory writing Markdown");
    }
    sl_status st = sl_output_replace(&rep->md, text);
    free(text);
    return st;
}

static sl_status md_open(sl_report *rep, void **state)
{
    *state = NULL;
    return rep->has_md ? render(rep, false) : SL_OK;
}

static sl_status md_row(sl_report *rep, void *state, const sl_result *r)
{
    (void)state;
    (void)r;
    return rep->has_md ? render(rep, false) : SL_OK;
}

static sl_status md_close(sl_report *rep, void *state)
{
    (void)state;
    return rep->has_md ? render(rep, true) : SL_OK;
}

const sl_writer sl_writer_md = {"md", md_open, md_row, md_close};
