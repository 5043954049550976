#!/usr/bin/env python3
"""Experiment (bench/experiments/): supports docs/ladder.md, "The STREAM /
BabelStream set (issue 10)", "Against BabelStream 6.0 (issue 25)". Run:
python3 bench/experiments/split_cost_summary.py (see below).

split_cost_summary.py - the two comparisons of issue 25 from one device call.

1. softmax: sl_softmax before (the base tree) and after (this tree) the
   exact split of x - m, from bench/softmax_bench JSON files written in
   alternation (base, new, base, new: smx-base-1.json, smx-new-1.json, ...),
   at the DRAM shapes. Per shape and dtype: each build's graph-replay time
   (median per launch, averaged over its runs), each run's ratio to the copy
   ceiling measured in the same process, and new / base.
2. BabelStream: streamlab's public functions (streamlab run JSON, events and
   wall clock) against each BabelStream build's minimum-time GB/s
   (bench/babelstream.sh's babelstream.json per build, in DIR/bs-<name>/).

usage: split_cost_summary.py DIR > summary.md
"""
import glob
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def softmax(d):
    runs = {"base": [], "new": []}
    for tree in runs:
        for p in sorted(glob.glob(f"{d}/smx-{tree}-*.json")):
            j = load(p)
            if j:
                runs[tree].append(j["rows"])
    if not runs["base"] or not runs["new"]:
        print("softmax: no before / after files\n")
        return
    keys = []
    for r in runs["new"][0]:
        k = (r["rows"], r["cols"], r["dtype"])
        if k not in keys:
            keys.append(k)
    print("## sl_softmax before / after the exact split (graph replay, median per launch)\n")
    print("| shape | dtype | before us (runs) | after us (runs) | after / before | before x copy | after x copy |")
    print("|---|---|--:|--:|--:|--:|--:|")
    for k in keys:
        cells = {}
        for tree, rs in runs.items():
            ts, rel = [], []
            for rows in rs:
                api = [r for r in rows if (r["rows"], r["cols"], r["dtype"]) == k and r["variant"] == "sl_softmax"]
                cp = [r for r in rows if (r["rows"], r["cols"], r["dtype"]) == k and r["kind"] == "ceiling"]
                if api:
                    ts.append(api[0]["graph_us"])
                    if cp and api[0]["graph_us"] > 0:
                        rel.append(cp[0]["graph_us"] / api[0]["graph_us"])
            cells[tree] = (ts, rel)
        b, n = cells["base"][0], cells["new"][0]
        if not b or not n:
            continue
        mb, mn = sum(b) / len(b), sum(n) / len(n)
        fmt = lambda ts: f"{sum(ts) / len(ts):.2f} ({', '.join(f'{t:.2f}' for t in ts)})"
        rb = cells["base"][1]
        rn = cells["new"][1]
        print(f"| {k[0]}x{k[1]} | {k[2]} | {fmt(b)} | {fmt(n)} | {mn / mb:.4f} | "
              f"{(sum(rb) / len(rb)) if rb else float('nan'):.4f} | {(sum(rn) / len(rn)) if rn else float('nan'):.4f} |")
    print()


def pick(rs, op, dt, n, name):
    for r in rs:
        if r.get("op") == op and r["dtype"] == dt and int(r["n"]) == n and r["status"] == "ok" and r["variant"] == name:
            return r
    return None


def gbs_min(r):
    return r["bytes"] / (r["time_ms"]["min"] * 1e6)


def babelstream(d):
    ev = (load(f"{d}/sl-f64.json") or {}).get("results", [])
    wall = (load(f"{d}/sl-f64-wall.json") or {}).get("results", [])
    builds = []
    for p in sorted(glob.glob(f"{d}/bs-*/babelstream.json")):
        j = load(p)
        if j:
            builds.append((os.path.basename(os.path.dirname(p))[3:], j))
    if not builds:
        print("BabelStream: no results\n")
        return
    names = {"copy": "Copy", "scale": "Mul", "add": "Add", "triad": "Triad", "dot": "Dot"}
    n = 1 << 28
    print("## streamlab against BabelStream, f64, n = 2^28 (GB/s from the minimum time, bytes as BabelStream counts)\n")
    for tag, j in builds:
        print(f"- `{tag}`: {j['version']}")
    print()
    hdr = "| op | sl_ events | sl_ wall | naive rung | " + " | ".join(f"BS {t}" for t, _ in builds)
    hdr += " | " + " | ".join(f"x BS {t} (events)" for t, _ in builds) + " |"
    print(hdr)
    print("|---" * (4 + 2 * len(builds)) + "|")
    for op, fn in names.items():
        a, w, nv = pick(ev, op, "f64", n, f"sl_{op}"), pick(wall, op, "f64", n, f"sl_{op}"), pick(ev, op, "f64", n, "naive")
        bs = []
        for _, j in builds:
            row = [r for r in j["rows"] if r["precision"] == "f64" and int(r["n"]) == n and r["function"] == fn]
            bs.append(row[0]["gbs"] if row else None)
        cells = [op, f"{gbs_min(a):.0f}" if a else "-", f"{gbs_min(w):.0f}" if w else "-",
                 f"{gbs_min(nv):.0f}" if nv else "-"]
        cells += [f"{b:.0f}" if b else "-" for b in bs]
        cells += [f"{gbs_min(a) / b:.3f}" if (a and b) else "-" for b in bs]
        print("| " + " | ".join(cells) + " |")
    print()


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    softmax(d)
    babelstream(d)


if __name__ == "__main__":
    main()
