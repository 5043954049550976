/*
 * writer_text.c - the aligned table on stdout, a row as soon as it is done,
 * with failure details under their row and the notes at the end.
 */
#include "writer.h"

#include "sizes.h"

#include <stdlib.h>
#include <string.h>

typedef struct text_state {
    sl_col cols[32];
    sl_table t;
    uint64_t last_n;
    sl_dtype last_dtype;
    const sl_op_desc *last_op;
} text_state;

static sl_status text_open(sl_report *rep, void **state)
{
    *state = NULL;
    if (rep->opts.quiet)
        return SL_OK;
    text_state *s = calloc(1, sizeof *s);
    if (!s)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory");
    char lines[SL_REPORT_HEADER_LINES][512];
    int k = sl_report_header(rep, lines);
    printf("streamlab %s run: %s %s\n", SL_VERSION_STRING, rep->meta.ops, rep->meta.dtypes);
    for (int i = 0; i < k; i++)
        printf("%s\n", lines[i]);
    printf("\n");
    sl_table_open(&s->t, s->cols, sl_report_columns(rep, s->cols), stdout, NULL);
    fflush(stdout);
    *state = s;
    return SL_OK;
}

static sl_status text_row(sl_report *rep, void *state, const sl_result *r)
{
    text_state *s = state;
    if (!s)
        return SL_OK;
    const sl_row *row = &rep->rows[rep->nrows - 1];
    /* a blank line between groups of one op, size and dtype */
    if (rep->nrows > 1 && (r->n != s->last_n || r->dtype != s->last_dtype || r->op != s->last_op))
        printf("\n");
    const char *cells[32];
    sl_report_cells(rep, &row->c, cells);
    sl_table_row(&s->t, cells);
    if (row->message)
        sl_table_note(&s->t, row->message);
    if (row->ctr_note)
        sl_table_note(&s->t, row->ctr_note);
    fflush(stdout);
    s->last_n = r->n;
    s->last_dtype = r->dtype;
    s->last_op = r->op;
    return SL_OK;
}

static sl_status text_close(sl_report *rep, void *state)
{
    text_state *s = state;
    if (!s)
        return SL_OK;
    if (rep->any_l2) {
        char l2[32];
        sl_format_bytes((double)rep->ctx->info.l2_bytes, l2, sizeof l2);
        printf("\n%s rows: the working set fits in the %s %s: they measure the cache, not DRAM (use --cold, or "
               "larger sizes)\n",
               rep->ctx->info.backend == SL_BACKEND_CUDA ? "L2" : "LLC", l2,
               rep->ctx->info.backend == SL_BACKEND_CUDA ? "L2" : "last-level cache");
    }
    if (rep->meta.multi_op)
        sl_report_summary(rep, stdout, NULL);
    sl_report_compare(rep, stdout, NULL);
    printf("\n%d row%s, %d failed, %d skipped", rep->nrows, rep->nrows == 1 ? "" : "s", rep->failed, rep->skipped);
    if (rep->interrupted)
        printf(", %d interrupted", rep->interrupted);
    printf("; status: %s\n", rep->status);
    fflush(stdout);
    free(s);
    return SL_OK;
}

const sl_writer sl_writer_text = {"text", text_open, text_row, text_close};
