/*
 * table.c - see table.h.
 */
#include "table.h"

#include <string.h>

int sl_utf8_width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
        w += (*p & 0xc0) != 0x80; /* count lead bytes, skip continuation bytes */
    return w;
}

static int col_width(const sl_col *c)
{
    int h = sl_utf8_width(c->head);
    return c->width > h ? c->width : h;
}

static void pad(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fputc(' ', f);
}

static void text_cell(FILE *f, const sl_col *c, const char *s, int first)
{
    int w = col_width(c), have = sl_utf8_width(s), gap = have < w ? w - have : 0;
    if (!first)
        fputc(' ', f);
    if (c->align == 'r')
        pad(f, gap);
    fputs(s, f);
    if (c->align != 'r')
        pad(f, gap);
}

static const char *shown(const char *s)
{
    return s && s[0] ? s : "-";
}

void sl_table_open(sl_table *t, const sl_col *cols, int ncols, FILE *txt, FILE *md)
{
    t->cols = cols;
    t->ncols = ncols;
    t->txt = txt;
    t->md = md;
    if (txt) {
        for (int i = 0; i < ncols; i++)
            text_cell(txt, &cols[i], cols[i].head, i == 0);
        fputc('\n', txt);
    }
    if (md) {
        fputc('|', md);
        for (int i = 0; i < ncols; i++)
            fprintf(md, " %s |", cols[i].head);
        fputs("\n|", md);
        for (int i = 0; i < ncols; i++)
            fputs(cols[i].align == 'r' ? "--:|" : "---|", md);
        fputc('\n', md);
    }
}

void sl_table_row(const sl_table *t, const char *const *cells)
{
    if (t->txt) {
        for (int i = 0; i < t->ncols; i++)
            text_cell(t->txt, &t->cols[i], shown(cells[i]), i == 0);
        fputc('\n', t->txt);
    }
    if (t->md) {
        fputc('|', t->md);
        for (int i = 0; i < t->ncols; i++) {
            /* a "|" inside a cell would end it: Markdown escapes it */
            fputc(' ', t->md);
            for (const char *p = shown(cells[i]); *p; p++) {
                if (*p == '|')
                    fputc('\\', t->md);
                fputc(*p, t->md);
            }
            fputs(" |", t->md);
        }
        fputc('\n', t->md);
    }
}

void sl_table_note(const sl_table *t, const char *text)
{
    if (t->txt)
        fprintf(t->txt, "          %s\n", text);
    if (t->md)
        fprintf(t->md, "\n- %s\n\n", text);
}
