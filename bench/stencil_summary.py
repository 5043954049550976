#!/usr/bin/env python3
"""bench/stencil_summary.py - issue 11's stencil results from one
bench/stencil_h200.sh output folder (the unpacked stencil-out.tgz) into
bench/results/h200-stencil-DATE.{json,md}.

Usage: stencil_summary.py DIR OUT_PREFIX "COMMAND"
Only numbers read from DIR's files; nothing is computed but ratios."""
import json
import os
import sys

import _cli

SEED = {4: 0.94, 8: 0.95, 16: 0.79}  # seed 004: L1 / smem relative speed, Volta


def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def radius_of(rows, shapes):
    """R of each row: the shape's k if the JSON has it, else the order of
    the --shape list (rows come grouped by shape, in the list's order)."""
    out, group, last = [], -1, None
    for r in rows:
        s = r.get("shape") or {}
        if s.get("k"):
            out.append(int(s["k"]))
            continue
        key = (s.get("rows"), s.get("cols"), s.get("ld"))
        if r.get("variant") == "copy" or key != last:
            if r.get("variant") == "copy":
                group += 1
            last = key
        out.append(shapes[group] if 0 <= group < len(shapes) else None)
    return out


def rows_by_r(doc, shapes):
    res = {}
    if not doc:
        return res
    rows = [r for r in doc.get("results", []) if r.get("op", "stencil") == "stencil"]
    for r, R in zip(rows, radius_of(rows, shapes)):
        m = r.get("model") or {}
        res.setdefault(R, {})[r["variant"]] = {
            "status": r.get("status"), "verified": r.get("verified"),
            "median_ms": r["time_ms"]["median"] if r.get("time_ms") else None,
            "min_ms": r["time_ms"]["min"] if r.get("time_ms") else None,
            "gbs": r.get("gbs"), "pct_copy": r.get("pct_copy"),
            "model_ms": m.get("pred_ms"), "limiter": m.get("limiter"),
            "counters": r.get("counters"),
        }
    return res


def main():
    d, prefix, command = _cli.positional(__doc__, 3, 3)
    if not os.path.isdir(d):
        sys.exit(f"stencil_summary: {d}: not a folder (the unpacked stencil-out.tgz)")
    out = {"command": command, "source": "bench/stencil_h200.sh output", "seed_volta_l1_over_smem": SEED}
    dev = open(os.path.join(d, "device.txt")).read().strip() if os.path.exists(os.path.join(d, "device.txt")) else ""
    out["device"] = dev
    lad = load(os.path.join(d, "ladder.json"))
    out["git"] = lad.get("git") if lad else None
    ladder = rows_by_r(lad, [1, 2, 4, 8, 16])
    out["ladder"] = ladder
    carve = {}
    for c in (0, 25, 100):
        carve[c] = rows_by_r(load(os.path.join(d, "carveout-%d.json" % c)), [4, 8, 16])
    out["carveout"] = carve
    strip = {}
    for h in (128, 512):
        strip[h] = rows_by_r(load(os.path.join(d, "strip-%d.json" % h)), [1, 4, 16])
    out["strip"] = strip
    out["counters"] = rows_by_r(load(os.path.join(d, "counters.json")), [4, 16])
    out["divergence"] = load(os.path.join(d, "divergence.json"))
    with open(prefix + ".json", "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)

    md = ["# H200: the 2-D stencil, L1 against shared memory, and warp divergence (issue 11)", "",
          "Command (device tool, nvidia-h200):", "", "```", command, "```", "",
          "Device: " + dev.replace("\n", "; "), "",
          "All rows verified bit for bit against the CPU reference before and after timing "
          "(status below). Times are medians of 20 trials (event-timed), GB/s counts the useful "
          "bytes (grid read once, written once: 537 MB at 8192^2).", "",
          "## The ladder at 8192 x 8192 f32", "",
          "| R | copy ms | l1 ms | smem ms | regwin ms | regwin4 ms | best %copy | l1 / smem speed | seed (Volta) | model: regwin4 ms, limiter | status |",
          "|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|"]
    for R in sorted(k for k in ladder if k is not None):
        v = ladder[R]
        g = lambda n, f="median_ms": v.get(n, {}).get(f)
        fmt = lambda x, p=4: ("%.*f" % (p, x)) if isinstance(x, (int, float)) else "-"
        ratio = g("smem") / g("l1") if g("smem") and g("l1") else None
        st = ",".join(sorted({str(x.get("status")) for x in v.values()}))
        best = max((x.get("pct_copy") or 0) for n, x in v.items() if n not in ("copy", "sl_stencil2d"))
        md.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s | %s |" % (
            R, fmt(g("copy")), fmt(g("l1")), fmt(g("smem")), fmt(g("regwin")), fmt(g("regwin4")), fmt(best, 1),
            fmt(ratio, 2), ("%d%%" % round(100 * SEED[R])) if R in SEED else "-", fmt(g("regwin4", "model_ms")),
            g("regwin4", "limiter") or "-", st))
    md += ["", "l1 / smem speed = smem time / l1 time (above 1: L1 faster), the seed's measure.", "",
           "## Carve-out sweep (cudaFuncAttributePreferredSharedMemoryCarveout, percent to shared memory)", "",
           "| carve-out | R | l1 ms | smem ms | l1 / smem |", "|--:|--:|--:|--:|--:|"]
    for c in (0, 25, 100):
        for R in sorted(k for k in carve[c] if k is not None):
            v = carve[c][R]
            a, b = v.get("l1", {}).get("median_ms"), v.get("smem", {}).get("median_ms")
            md.append("| %d%% | %d | %s | %s | %s |" % (c, R, "%.4f" % a if a else "-", "%.4f" % b if b else "-",
                                                       "%.2f" % (b / a) if a and b else "-"))
    md += ["", "## regwin strip height (SL_STENCIL_STRIP; the ladder's default is one wave tall, 249 rows at 8192^2)", "",
           "| rows per strip | R | variant | ms | %copy |", "|--:|--:|---|--:|--:|"]
    for h in (128, 512):
        for R in sorted(k for k in strip[h] if k is not None):
            for name in ("regwin", "regwin4"):
                v = strip[h][R].get(name, {})
                if v.get("median_ms"):
                    md.append("| %d | %d | %s | %.4f | %.1f |" % (h, R, name, v["median_ms"], v.get("pct_copy") or 0))
    dv = out["divergence"]
    if dv:
        md += ["", "## Warp divergence (bench/divergence.cu)", "",
               "%s, grid %d x %d, %d dependent FFMAs per thread; uniform: %.4f ms (%.2f T FFMA/s)." % (
                   dv["device"], dv["grid"], dv["block"], dv["iters"], dv["uniform_ms"], dv["uniform_tffma_s"]), "",
               "| 2 paths, switching every g threads | ms | x uniform | predicted |", "|--:|--:|--:|--:|"]
        for g in dv["granularity"]:
            md.append("| %d | %.4f | %.3f | %.1f |" % (g["g"], g["ms"], g["ratio"], g["predicted"]))
        md += ["", "| k paths | by lane (intra-warp) x uniform | by warp (inter-warp) x uniform |", "|--:|--:|--:|"]
        for w in dv["ways"]:
            md.append("| %d | %.3f | %.3f |" % (w["k"], w["intra_ratio"], w["inter_ratio"]))
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
