/*
 * table.h - the one printer for every table streamlab shows: the run's
 * rows, each probe's sweep, explain's bounds. Each table goes to aligned
 * text (a terminal), to Markdown (a file), or to both at once.
 *
 * Cells are strings the caller formats; NULL or "" prints "-". Widths are
 * counted in display columns, not bytes, so UTF-8 cells ("±", "×") line up.
 * A text cell wider than its column pushes the rest of the row right
 * rather than being cut: nothing the caller formatted is lost.
 */
#ifndef SL_TABLE_H
#define SL_TABLE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sl_col {
    const char *head; /* header text */
    int width;        /* minimum width in display columns (text output); 0: the header's */
    char align;       /* 'l' left or 'r' right; Markdown gets "---" or "--:" */
} sl_col;

typedef struct sl_table {
    const sl_col *cols;
    int ncols;
    FILE *txt; /* aligned text, or NULL */
    FILE *md;  /* Markdown, or NULL */
} sl_table;

/* Start a table on txt and/or md (either may be NULL) and print its header:
 * padded headers on txt; "| a | b |" and the alignment row on md. cols must
 * outlive the table. */
void sl_table_open(sl_table *t, const sl_col *cols, int ncols, FILE *txt, FILE *md);

/* One row: ncols cells. */
void sl_table_row(const sl_table *t, const char *const *cells);

/* A line under the table that belongs to the last row (a failure message,
 * a note): indented on txt, "- text" on md. */
void sl_table_note(const sl_table *t, const char *text);

/* Display columns of a UTF-8 string: one per code point (no wide or
 * combining characters occur in our tables). */
int sl_utf8_width(const char *s);

#ifdef __cplusplus
}
#endif

#endif /* SL_TABLE_H */
