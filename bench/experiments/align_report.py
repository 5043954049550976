#!/usr/bin/env python3
"""Experiment (bench/experiments/): supports docs/ladder.md, "Issue 17: every
alignment, small n, L2-resident sizes" (the tables of
bench/results/h200-alignment-*.md). Run: STAGES=alignment bash
bench/device.sh.

align_report.py - bench/experiments/align_bench's JSON as the markdown tables of
bench/results/h200-alignment-DATE.md (issue 17).

usage: align_report.py ALIGN.json > OUT.md
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        d = json.load(f)
    out = []
    w = out.append
    w(f"Device: {d['device']}, {d['sm_count']} SMs, L2 {d['l2_bytes'] / 2**20:.0f} MiB.\n")
    if d.get("align"):
        w("## Every offset combination modulo 16 bytes, x CUB (CUB median / sl median; > 1: sl faster)\n")
        w("add: element offsets of (a, b, c); axpy: of (x, y). `combos` = every combination of element")
        w("offsets 0 .. 16/size - 1 per buffer. `min at` = the element offsets of the slowest combination.\n")
        w("| op | dtype | n | combos | trials | min | min at | p10 | median | max | below 0.99 | bytes != CUB |")
        w("|---|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|")
        for r in d["align"]:
            at = ",".join(str(x) for x in r["min_at_elem_offsets"][: 3 if r["op"] == "add" else 2])
            diff = r["mismatched_bytes_vs_cub"] if r["op"] == "add" else "-"
            w(f"| {r['op']} | {r['dtype']} | 2^{r['log2n']} | {r['combos']} | {r['trials']} | "
              f"{r['min_ratio']:.4f} | ({at}) | {r['p10_ratio']:.4f} | {r['median_ratio']:.4f} | "
              f"{r['max_ratio']:.4f} | {r['below_0.99']} | {diff} |")
        w("")
    if d.get("smalln"):
        w(f"## Small n, f32 add: microseconds per call\n")
        w(f"cudaPointerGetAttributes alone: {d['pointer_query_ns']:.1f} ns per call (host).\n")
        w("back to back: 5 x 20000 calls then one synchronisation, median of the 5; host: 256 calls on an")
        w("idle stream without waiting, median of 20 (the CPU cost of one call: checks, dispatch, launch).\n")
        rows = {}
        for r in d["smalln"]:
            rows.setdefault(r["n_log2"], {})[r["who"]] = r
        who = [x for x in ["sl_add", "sl_add_every_call", "sl_add_nocheck", "api_launcher", "cub"] if x in rows[min(rows)]]
        w("| n | " + " | ".join(f"{x} b2b" for x in who) + " | " + " | ".join(f"{x} host" for x in who)
          + " | sl_add / CUB (b2b) |")
        w("|---|" + "--:|" * (2 * len(who) + 1))
        for n in sorted(rows):
            r = rows[n]
            w(f"| 2^{n} | " + " | ".join(f"{r[x]['us_per_call_back_to_back']:.3f}" for x in who) + " | "
              + " | ".join(f"{r[x]['us_host_per_call']:.3f}" for x in who)
              + f" | {r['sl_add']['us_per_call_back_to_back'] / r['cub']['us_per_call_back_to_back']:.3f} |")
        w("")
    if d.get("l2"):
        w("## L2-resident sizes, f32 add (GB/s counts 12 bytes per element; x CUB in the same run)\n")
        rows = {}
        for r in d["l2"]:
            rows.setdefault((r["cold"], r["n_log2"]), {})[r["who"]] = r
        who = ["sl_add", "cub", "tile4", "bulk", "vec4"]
        w("| mode | n | working set MiB | " + " | ".join(f"{x} GB/s" for x in who) + " | sl_add x CUB | tile4 x CUB | bulk x CUB |")
        w("|---|---|--:|" + "--:|" * (len(who) + 3))
        for (cold, n) in sorted(rows):
            r = rows[(cold, n)]
            w(f"| {['warm', 'cold', 'queued'][cold]} | 2^{n} | {12 * 2**n / 2**20:.0f} | "
              + " | ".join(f"{r[x]['gbs']:.0f}" for x in who)
              + f" | {r['sl_add']['x_cub']:.3f} | {r['tile4']['x_cub']:.3f} | {r['bulk']['x_cub']:.3f} |")
        w("")
    if d.get("axpyrungs"):
        w("## sl_axpy at DRAM sizes, aligned: beside CUB in place and out of place, and its rungs\n")
        w("30 trials each, the order rotating; x CUB = CUB in place median / this median.\n")
        w("| dtype | n | who | median ms | GB/s | x CUB (in place) |")
        w("|---|---|---|--:|--:|--:|")
        for r in d["axpyrungs"]:
            w(f"| {r['dtype']} | 2^{r['n_log2']} | {r['who']} | {r['median_ms']:.5f} | {r['gbs']:.0f} | {r['x_cub_inplace']:.4f} |")
        w("")
    if any(r.get("ratios") for r in d.get("align", [])):
        w("## Per combination (4- and 8-byte dtypes): x CUB by output offset (rows) and input offsets\n")
        w("add: one row per c offset, the cells in order (a, b) = (0,0), (1,0), ..., i.e. a fastest;")
        w("axpy: one row per y offset (y is read and written), cells by x offset.\n")
        for r in d["align"]:
            if not r.get("ratios"):
                continue
            per = {"f32": 4, "f64": 2}.get(r["dtype"], 0)
            if not per:
                continue
            nb = 3 if r["op"] == "add" else 2
            inner = per ** (nb - 1)
            w(f"{r['op']} {r['dtype']} 2^{r['log2n']}:\n")
            w("| out offset | " + " | ".join(
                (f"a{c % per},b{c // per}" if nb == 3 else f"x{c}") for c in range(inner)) + " |")
            w("|---|" + "--:|" * inner)
            for o in range(per):
                cells = r["ratios"][o * inner:(o + 1) * inner]
                w(f"| {o} | " + " | ".join(f"{x:.3f}" for x in cells) + " |")
            w("")
    if d.get("rwmix"):
        w("## DRAM bandwidth against the read/write mix (float4 streams, 2^28 floats each)\n")
        w("| read streams | write streams | read fraction | median ms | GB/s |")
        w("|--:|--:|--:|--:|--:|")
        for r in d["rwmix"]:
            w(f"| {r['read_streams']} | {r['write_streams']} | {r['read_fraction']:.3f} | {r['median_ms']:.4f} | {r['gbs']:.0f} |")
        w("")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
