/*
 * html_internal.h - what the files of `streamlab report`'s HTML page share:
 * html_report.c (the page, its JSON helpers and the figures' gnuplot set-up),
 * and one file per figure family: html_fig_runs.c (bandwidth vs size, the
 * ladders, the roofline), html_fig_probes.c (the probe profiles) and
 * html_tables.c (the record and the comparison tables). Not installed.
 */
#ifndef SL_HTML_INTERNAL_H
#define SL_HTML_INTERNAL_H

#include "gnuplot.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MAX_FIGS 512
#define MAX_NAMES 64

enum { IN_RUN = 1, IN_PROFILE };

typedef struct input {
    const char *path;
    const char *base; /* file name without directories */
    cJSON *root;
    int kind;
} input;

typedef struct fig {
    char id[40];
    int section;      /* 0 bandwidth, 1 ladder, 2 roofline, 3 probes */
    char caption[1024];
    char xlabel[96], ylabel[96];
    char *svg;
} fig;

typedef struct report {
    input *in;
    int nin;
    sl_gp *gp;
    fig figs[MAX_FIGS];
    int nfigs;
} report;

/* The names (op, dtype, variant) in first-seen order. */
typedef struct names {
    const char *v[MAX_NAMES];
    int n;
} names;

/* html_report.c: JSON helpers, HTML escaping, figures and their gnuplot set-up */
double hr_jnum(const cJSON *o, const char *key, double dflt);
const char *hr_jstr(const cJSON *o, const char *key, const char *dflt);
const cJSON *hr_jget(const cJSON *o, const char *key);
const cJSON *hr_row_device(const cJSON *root, const cJSON *row);
int hr_row_device_index(const cJSON *row);
double hr_row_median(const cJSON *row);
bool hr_row_ok(const cJSON *row);
void hr_esc(FILE *f, const char *s);
fig *hr_new_fig(report *R, int section, const char *xlabel, const char *ylabel);
fig *hr_new_fig_sized(report *R, int section, const char *xlabel, const char *ylabel, int w, int h);
void hr_gp_title(report *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int hr_names_add(names *s, const char *x);
const cJSON *hr_profile_for(const report *R, const char *device);
void hr_bytes_label(double b, char *buf, size_t len);

/* html_fig_runs.c: the figures of run files (sections 0-2) */
void hr_fig_bandwidth(report *R, const input *in, int dev, const char *op, const char *dtype);
void hr_fig_ladder(report *R, const input *in, int dev, const char *op, const char *dtype);
void hr_fig_roofline(report *R, const char *dname, const cJSON *device);

/* html_fig_probes.c: the figures of probe profiles (section 3) */
void hr_fig_probes(report *R, const input *in);

/* html_tables.c: the reproducibility record and the comparison, as HTML tables */
void hr_html_record(FILE *f, const input *in);
void hr_html_compare(FILE *f, const input *in);

#endif /* SL_HTML_INTERNAL_H */
