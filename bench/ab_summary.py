#!/usr/bin/env python3
"""Summary of bench/ab_h200.sh: base (a-<round>.json) against candidate
(b-<round>.json), written by `streamlab run --json` in turns on one card.

For every (op, dtype, shape, variant) both sides measured: the kernel time
(each round's median over its trials, then the median over the rounds),
the candidate's time over the base's, and each side's bandwidth as a
fraction of the op's copy kernel (copy_k, or a "copy" ceiling whose
technique names a kernel) timed in the same process and round.
Prints a Markdown table, then the rows measured in B only (new rungs:
ab_h200.sh's RUNB), each over B's copy kernel of the same process.

Usage: ab_summary.py DIR
"""
from __future__ import annotations

import glob
import json
import os
import statistics
import sys

Key = tuple[str, str, str, str]


def shape_text(row: dict) -> str:
    s = row.get("shape") or {}
    return f"{s.get('rows', 1)}x{s.get('cols', row.get('n'))}"


def load(path: str) -> dict[Key, tuple[float, float | None]]:
    """(op, dtype, shape, variant) -> (median time in ms, GB/s over copy_k's)."""
    with open(path, encoding="utf-8") as f:
        rows = [r for r in json.load(f).get("results", []) if r.get("status") == "ok"]
    # the op's copy kernel: softmax's and xent's copy_k ("copy" is cudaMemcpy
    # there); the norms' ceiling "copy" is already a kernel
    copy: dict[tuple[str, str, str], float] = {}
    for r in rows:
        k = (r["op"], r["dtype"], shape_text(r))
        if r["variant"] == "copy_k" or (r["variant"] == "copy" and k not in copy
                                        and "kernel" in str(r.get("technique", ""))):
            copy[k] = r["gbs"]
    out = {}
    for r in rows:
        k = (r["op"], r["dtype"], shape_text(r))
        c = copy.get(k)
        out[k + (r["variant"],)] = (r["time_ms"]["median"], r["gbs"] / c if c else None)
    return out


def side(d: str, s: str) -> dict[Key, list[tuple[float, float | None]]]:
    acc: dict[Key, list[tuple[float, float | None]]] = {}
    for p in sorted(glob.glob(os.path.join(d, f"{s}-*.json"))):
        try:
            for k, v in load(p).items():
                acc.setdefault(k, []).append(v)
        except (OSError, ValueError, KeyError) as e:
            print(f"ab_summary: skipped {p}: {e}", file=sys.stderr)
    return acc


def med(xs: list[float | None]) -> float | None:
    v = [x for x in xs if x is not None]
    return statistics.median(v) if v else None


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    a, b = side(sys.argv[1], "a"), side(sys.argv[1], "b")
    keys = sorted(set(a) & set(b))
    if not keys:
        print("ab_summary: no row measured on both sides", file=sys.stderr)
        return 1
    f = lambda x, p=3: "-" if x is None else f"{x:.{p}f}"  # noqa: E731
    print("| op | dtype | shape | variant | rounds A/B | A µs | B µs | B/A time | A / copy | B / copy |")
    print("|---|---|---|---|---|--:|--:|--:|--:|--:|")
    for k in keys:
        ta, tb = med([t for t, _ in a[k]]), med([t for t, _ in b[k]])
        ratio = tb / ta if ta and tb else None
        print(f"| {' | '.join(k)} | {len(a[k])}/{len(b[k])} | {f(ta * 1e3, 2)} | {f(tb * 1e3, 2)} | "
              f"{f(ratio)} | {f(med([c for _, c in a[k]]))} | {f(med([c for _, c in b[k]]))} |")
    only = sorted(set(b) - set(a))  # rungs A lacks (ab_h200.sh's RUNB), beside B's copy of the same process
    if only:
        print("\nMeasured in B only (rungs the base lacks):\n")
        print("| op | dtype | shape | variant | rounds | B µs | B / copy |")
        print("|---|---|---|---|---|--:|--:|")
        for k in only:
            tb = med([t for t, _ in b[k]])
            print(f"| {' | '.join(k)} | {len(b[k])} | {f(tb * 1e3, 2)} | {f(med([c for _, c in b[k]]))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
