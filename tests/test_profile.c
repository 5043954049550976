/*
 * The profile reader and writer (src/core/profile.c): a round trip, and
 * every malformed file gets SL_ERR_IO with a message that says what is
 * wrong. With a path argument, instead check that a profile written by
 * `streamlab probe` reads back with its ceilings and latency measured.
 */
#include "check.h"
#include "hw.h"
#include "internal.h"
#include "profile.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

static const char *dir = ".";

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void expect_error(const char *name, const char *text, const char *message_part)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bad_%s.profile.json", dir, name);
    write_text(path, text);
    sl_profile p;
    sl_status st = sl_profile_read(path, &p);
    CHECK(st == SL_ERR_IO, "%s: status %d", name, st);
    CHECK(strstr(sl_last_error(), message_part) != NULL, "%s: message '%s' lacks '%s'", name, sl_last_error(),
          message_part);
    CHECK(strstr(sl_last_error(), path) != NULL, "%s: message does not name the file", name);
}

static void round_trip(void)
{
    sl_profile p, q;
    sl_profile_init(&p);
    CHECK(p.read_gbs < 0 && p.lat_dram_ns < 0, "init marks fields unmeasured");
    snprintf(p.device, sizeof p.device, "NVIDIA H200");
    snprintf(p.backend, sizeof p.backend, "cuda");
    snprintf(p.created, sizeof p.created, "2026-11-20T00:00:00Z");
    p.cc_major = 9;
    p.sm_count = 132;
    p.peak_gbs = 4814.0;
    p.copy_memcpy_gbs = 4184.5;
    p.read_gbs = 4464.25;
    p.lat_dram_ns = 612.5;
    p.knee_latency_ns = 700.0;
    p.launch_event_us = 4.25;
    snprintf(p.uuid, sizeof p.uuid, "GPU-86ed0e14-7557-7a2c-5662-d6cdc9bb2d00");
    p.sm_clock_max_mhz = 1980;
    p.mem_clock_mhz = 3201;
    p.ecc = 1;
    cJSON *pts = cJSON_CreateObject();
    cJSON *curve = cJSON_AddArrayToObject(pts, "bytes_in_flight");
    for (int i = 1; i <= 3; i++) {
        cJSON *pt = cJSON_CreateObject();
        cJSON_AddNumberToObject(pt, "bytes_in_flight_per_sm", 1024.0 * i);
        cJSON_AddNumberToObject(pt, "gbs", 1000.0 * i);
        cJSON_AddItemToArray(curve, pt);
    }
    char path[512];
    snprintf(path, sizeof path, "%s/round.profile.json", dir);
    CHECK(sl_profile_write(path, &p, pts) == SL_OK, "write: %s", sl_last_error());
    cJSON_Delete(pts);
    CHECK(sl_profile_read(path, &q) == SL_OK, "read back: %s", sl_last_error());
    CHECK(strcmp(q.device, "NVIDIA H200") == 0 && strcmp(q.backend, "cuda") == 0, "strings");
    CHECK(q.cc_major == 9 && q.sm_count == 132 && q.peak_gbs == 4814.0, "device numbers");
    CHECK(q.copy_memcpy_gbs == 4184.5 && q.read_gbs == 4464.25 && q.lat_dram_ns == 612.5, "measurements");
    CHECK(q.knee_latency_ns == 700.0 && q.launch_event_us == 4.25, "more measurements");
    CHECK(q.write_gbs < 0 && q.l2_read_gbs < 0, "unmeasured fields stay unmeasured");
    CHECK(strcmp(q.uuid, p.uuid) == 0 && q.sm_clock_max_mhz == 1980 && q.mem_clock_mhz == 3201 && q.ecc == 1 &&
              q.sm_clock_now_mhz == -1,
          "GPU identity and clocks (issue 17): %s %d %d %d", q.uuid, q.sm_clock_max_mhz, q.mem_clock_mhz, q.ecc);
    CHECK(q.bif_n == 3 && q.bif_x[2] == 3072 && q.bif_y[1] == 2000, "the bytes-in-flight curve: %d points", q.bif_n);

    char name[128];
    sl_profile_default_name("NVIDIA H200 NVL/x", name, sizeof name);
    CHECK(strcmp(name, "NVIDIA-H200-NVL-x.profile.json") == 0, "default name '%s'", name);

    /* truncation: the first half of a valid file */
    FILE *f = fopen(path, "r");
    char buf[8192];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len / 2] = 0;
    expect_error("truncated", buf, "truncated");
}

static void malformed(void)
{
    sl_profile p;
    CHECK(sl_profile_read("/nonexistent/x.profile.json", &p) == SL_ERR_IO, "missing file");
    CHECK(strstr(sl_last_error(), "cannot read") != NULL, "missing file message: %s", sl_last_error());
    expect_error("notjson", "this is not json", "not valid JSON");
    expect_error("empty", "", "not valid JSON");
    expect_error("schema", "{\"schema\": \"streamlab.profile/2\", \"device\": {\"name\": \"x\"}}", "schema");
    expect_error("noschema", "{\"device\": {\"name\": \"x\"}}", "schema is missing");
    expect_error("nodevice", "{\"schema\": \"streamlab.profile/1\"}", "device");
    expect_error("noname", "{\"schema\": \"streamlab.profile/1\", \"device\": {}}", "device.name");
    expect_error("string",
                 "{\"schema\": \"streamlab.profile/1\", \"device\": {\"name\": \"x\"}, "
                 "\"ceilings\": {\"read_gbs\": \"fast\"}}",
                 "ceilings.read_gbs");
    expect_error("negative",
                 "{\"schema\": \"streamlab.profile/1\", \"device\": {\"name\": \"x\"}, "
                 "\"latency\": {\"dram_ns\": -5}}",
                 "latency.dram_ns");
    expect_error("curve",
                 "{\"schema\": \"streamlab.profile/1\", \"device\": {\"name\": \"x\"}, \"points\": "
                 "{\"bytes_in_flight\": [{\"bytes_in_flight_per_sm\": 1024, \"gbs\": \"fast\"}]}}",
                 "bytes_in_flight");
    expect_error("section",
                 "{\"schema\": \"streamlab.profile/1\", \"device\": {\"name\": \"x\"}, \"launch\": 3}", "launch");
    /* null means not measured, and is fine */
    char path[512];
    snprintf(path, sizeof path, "%s/nulls.profile.json", dir);
    write_text(path, "{\"schema\": \"streamlab.profile/1\", \"device\": {\"name\": \"x\"}, "
                     "\"ceilings\": {\"read_gbs\": null}}");
    CHECK(sl_profile_read(path, &p) == SL_OK && p.read_gbs < 0, "null field: %s", sl_last_error());
}

/* Inputs tests/fuzz found (issue 13), parsed from buffers, plus their
 * well-formed neighbours, which must still pass. */
static void parse_profile(const char *what, const char *text, sl_status want, const char *message_part)
{
    sl_profile p;
    sl_status st = sl_profile_parse(text, strlen(text), "fz.json", &p);
    CHECK(st == want, "%s: status %d, want %d (%s)", what, st, want, sl_last_error());
    if (want != SL_OK)
        CHECK(strstr(sl_last_error(), message_part) != NULL, "%s: message '%s' lacks '%s'", what, sl_last_error(),
              message_part);
}

static void parse_hw(const char *what, const char *text, sl_status want, const char *message_part)
{
    sl_hw hw;
    sl_status st = sl_hw_parse(text, strlen(text), "fz.json", &hw);
    CHECK(st == want, "%s: status %d, want %d (%s)", what, st, want, sl_last_error());
    if (want != SL_OK)
        CHECK(strstr(sl_last_error(), message_part) != NULL, "%s: message '%s' lacks '%s'", what, sl_last_error(),
              message_part);
}

static void fuzz_regressions(void)
{
#define DEV(fields) "{\"schema\": \"streamlab.profile/1\", \"device\": {\"name\": \"x\"" fields "}}"
    /* compute_capability went through sscanf("%d.%d"): "0.-10" gave minor -10 */
    parse_profile("cc negative minor", DEV(", \"compute_capability\": \"0.-10\""), SL_ERR_IO, "compute_capability");
    parse_profile("cc overflow", DEV(", \"compute_capability\": \"99999999999.0\""), SL_ERR_IO,
                  "compute_capability");
    parse_profile("cc trailing", DEV(", \"compute_capability\": \"9.0x\""), SL_ERR_IO, "compute_capability");
    parse_profile("cc no minor", DEV(", \"compute_capability\": \"9\""), SL_ERR_IO, "compute_capability");
    /* peak_gbs was taken as given: negative, or 1e999 = inf */
    parse_profile("peak negative", DEV(", \"peak_gbs\": -2.1e13"), SL_ERR_IO, "device.peak_gbs");
    parse_profile("peak inf", DEV(", \"peak_gbs\": 1e999"), SL_ERR_IO, "device.peak_gbs");
    /* sm_count through cJSON's saturating valueint: -1e10 gave INT_MIN */
    parse_profile("sm_count negative", DEV(", \"sm_count\": -1e10"), SL_ERR_IO, "device.sm_count");
    parse_profile("sm_count -1", DEV(", \"sm_count\": -1"), SL_ERR_IO, "device.sm_count");
    parse_profile("sm_count fraction", DEV(", \"sm_count\": 13.5"), SL_ERR_IO, "device.sm_count");
    parse_profile("sm_count huge", DEV(", \"sm_count\": 3e9"), SL_ERR_IO, "device.sm_count");
    /* an infinite point on the bytes-in-flight curve passed "> 0" */
    parse_profile("curve inf",
                  "{\"schema\": \"streamlab.profile/1\", \"device\": {\"name\": \"x\"}, \"points\": "
                  "{\"bytes_in_flight\": [{\"bytes_in_flight_per_sm\": 6384, \"gbs\": 1e999}]}}",
                  SL_ERR_IO, "bytes_in_flight");
    /* the well-formed neighbours */
    parse_profile("cc, sm_count, peak", DEV(", \"compute_capability\": \"12.0\", \"sm_count\": 132, \"peak_gbs\": 4814.3"),
                  SL_OK, "");
    parse_profile("cpu device", DEV(", \"compute_capability\": \"0.0\", \"sm_count\": 0"), SL_OK, "");
    sl_profile p;
    const char *ok = DEV(", \"compute_capability\": \"10.3\", \"sm_count\": 148");
    CHECK(sl_profile_parse(ok, strlen(ok), "fz.json", &p) == SL_OK && p.cc_major == 10 && p.cc_minor == 3 &&
              p.sm_count == 148,
          "cc 10.3: %d.%d, %d SMs", p.cc_major, p.cc_minor, p.sm_count);
#undef DEV

#define HW(cc, params) "{\"schema\": \"streamlab.hw/1\", \"cc\": \"" cc "\", \"params\": {" params "}}"
#define REQ "\"sm_count\": 24, \"sm_clock_ghz\": 2.46, \"peak_dram_gbs\": 272"
    /* "cc" through sscanf("%d.%d") then major x 10 + minor: signed overflow */
    parse_hw("cc overflow", HW("8888888888807.1", REQ), SL_ERR_IO, "\"cc\"");
    parse_hw("cc negative", HW("-8.9", REQ), SL_ERR_IO, "\"cc\"");
    parse_hw("cc two-digit minor", HW("8.10", REQ), SL_ERR_IO, "\"cc\"");
    parse_hw("cc trailing", HW("8.9 ", REQ), SL_ERR_IO, "\"cc\"");
    /* a huge clock made the derived L2 bandwidth (bytes/clk x clock) inf */
    parse_hw("clock 1e308",
             HW("8.9", "\"sm_count\": 24, \"sm_clock_ghz\": 1e308, \"peak_dram_gbs\": 272"), SL_ERR_IO,
             "l2_gbs comes out infinite");
    parse_hw("cc 8.9", HW("8.9", REQ), SL_OK, "");
    sl_hw hw;
    const char *h = HW("12.0", REQ);
    CHECK(sl_hw_parse(h, strlen(h), "fz.json", &hw) == SL_OK && hw.cc == 120 && hw.p[HW_L2_GBS].v > 0,
          "cc 12.0: cc %d, l2 %g", hw.cc, hw.p[HW_L2_GBS].v);
#undef REQ
#undef HW
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--check") == 0) {
        sl_profile p;
        CHECK(sl_profile_read(argv[2], &p) == SL_OK, "%s", sl_last_error());
        CHECK(p.copy_sm_gbs > 0 && p.read_gbs > 0 && p.write_gbs > 0, "ceilings missing from %s", argv[2]);
        CHECK(p.lat_l1_ns > 0, "L1 latency missing from %s", argv[2]);
        return check_exit("test_profile --check");
    }
    if (argc > 1)
        dir = argv[1];
    round_trip();
    malformed();
    fuzz_regressions();
    return check_exit("test_profile");
}
