#!/usr/bin/env python3
"""Experiment (bench/experiments/): supports docs/ladder.md, "Issue 17: every
alignment, small n, L2-resident sizes", second round (the bulk copy's
shared-address rule). Run: python3 bench/experiments/bulk_rule.py ALIGN.json
... (ALIGN.json from the alignment stage).

bench/experiments/bulk_rule.py - issue 17: does the bulk rung's slow/fast split over
offset combinations follow the shared-address rule?

For each combination in an align_bench JSON "align" section (add: element
offsets a, b, c; axpy: x, y), compute the bulk rung's layout as
sl_ew_split does (src/ops/common/elementwise.cuh: head, realigned or not,
each input's aligned-down 16-byte tile start s modulo 128, buffers from
cudaMalloc at 256-byte alignment), take the shared row start d of each input
from the command line (modulo 128, aligned kernel and realigned kernel), and
predict "slow" when s - d is not 0 modulo 32 for the block's LAST input.
Prints the combinations where the prediction and the measurement (ratio
below THRESHOLD) disagree, and the count that agree.

usage: bulk_rule.py ALIGN.json "[d_a, d_b]" "[d_a_ra, d_b_ra]" [THRESHOLD=0.985]
  the rows before issue 17's fix:  "[0,0]" "[0,16]"   (rows of 256 / 257 vectors)
  call 2 of issue17b.sh:           "[0,16]" "[0,32]"  (rows of 257 / 258 vectors)
"""
import json
import sys


def layout(op, es, offs, dst_aligned, dst_ra):
    per = 16 // es
    if op == "add":
        ins, out = offs[:2], offs[2]
    else:
        ins, out = offs[:2], offs[1]
    uo = out * es
    aligned = all(((i * es) ^ uo) & 15 == 0 for i in ins)
    head = ((16 - uo) & 15) // es + (0 if aligned else per)
    src = [((i * es) + head * es) & ~15 for i in ins]
    dst = dst_aligned if aligned else dst_ra
    return [(s - d) % 32 != 0 for s, d in zip(src, dst)], aligned


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        sys.exit(2)
    doc = json.load(open(sys.argv[1]))
    dsta, dstr = json.loads(sys.argv[2]), json.loads(sys.argv[3])
    thr = float(sys.argv[4]) if len(sys.argv) > 4 else 0.985
    ok = tot = 0
    for r in doc["align"]:
        if not r.get("ratios") or r["dtype"] not in ("f32", "f64"):
            continue
        es = {"f32": 4, "f64": 8}[r["dtype"]]
        per, nb = 16 // es, 3 if r["op"] == "add" else 2
        for c, ratio in enumerate(r["ratios"]):
            offs, q = [], c
            for _ in range(nb):
                offs.append(q % per)
                q //= per
            mm, aligned = layout(r["op"], es, offs, dsta, dstr)
            tot += 1
            if mm[-1] == (ratio < thr):
                ok += 1
            else:
                print("disagree:", r["op"], r["dtype"], "2^%d" % r["log2n"], offs, round(ratio, 4),
                      "mismatch (first, last)", mm, "aligned layout" if aligned else "realigned layout")
    print(ok, "of", tot, "agree")


if __name__ == "__main__":
    main()
