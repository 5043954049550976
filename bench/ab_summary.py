#!/usr/bin/env python3
"""Summary of bench/ab_h200.sh: base (a-<round>.json) against candidate
(b-<round>.json), written by `streamlab run --json` in turns on one card.

For every (op, dtype, shape, variant) both sides measured: the kernel time
(each round's median over its trials, then the median over the rounds),
the candidate's time over the base's, and each side's bandwidth as a
fraction of the op's copy kernel (copy_k, or a "copy" ceiling whose
technique names a kernel) timed in the same process and round; where a run
has no copy kernel (transpose's only ceiling is cudaMemcpyAsync, the one its
ladder and bars use), the "copy" ceiling, marked with * after the fraction.
Rows one side lacks (a variant new in B) are printed with "-" for the other.
Prints a Markdown table.

Usage: ab_summary.py DIR
"""
from __future__ import annotations

import glob
import json
import os
import statistics
import sys

import _cli

Key = tuple[str, str, str, str]


def shape_text(row: dict) -> str:
    """The shape as `streamlab run --shape` takes it: ROWSxCOLS[xK][:LD],
    the row stride only where the rows are padded (ld > cols)."""
    s = row.get("shape") or {}
    k = f"x{s['k']}" if s.get("k") else ""  # matmul's K, the stencil's radius
    cols = s.get("cols", row.get("n"))
    ld = f":{s['ld']}" if s.get("ld") and s["ld"] != cols else ""
    return f"{s.get('rows', 1)}x{cols}{k}{ld}"


def load(path: str) -> dict[Key, tuple[float, float | None, bool]]:
    """(op, dtype, shape, variant) -> (median time in ms, GB/s over the
    ceiling's, whether that ceiling is cudaMemcpy rather than a kernel)."""
    with open(path, encoding="utf-8") as f:
        rows = [r for r in json.load(f).get("results", []) if r.get("status") == "ok"]
    # the op's copy kernel: softmax's and xent's copy_k ("copy" is cudaMemcpy
    # there); the norms' ceiling "copy" is already a kernel; where a run has
    # no copy kernel (transpose), its "copy", marked
    ceil: dict[tuple[str, str, str], tuple[float, bool]] = {}
    for r in rows:
        k = (r["op"], r["dtype"], shape_text(r))
        kernel = r["variant"] == "copy_k" or (r["variant"] == "copy" and "kernel" in str(r.get("technique", "")))
        if kernel and (r["variant"] == "copy_k" or k not in ceil or ceil[k][1]):
            ceil[k] = (r["gbs"], False)
        elif r["variant"] == "copy" and k not in ceil:
            ceil[k] = (r["gbs"], True)
    out = {}
    for r in rows:
        k = (r["op"], r["dtype"], shape_text(r))
        c, memcpy = ceil.get(k, (None, False))
        out[k + (r["variant"],)] = (r["time_ms"]["median"], r["gbs"] / c if c else None, memcpy)
    return out


def side(d: str, s: str) -> dict[Key, list[tuple[float, float | None, bool]]]:
    acc: dict[Key, list[tuple[float, float | None, bool]]] = {}
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
    (d,) = _cli.positional(__doc__, 1, 1)
    if not os.path.isdir(d):
        print(f"ab_summary: {d}: not a folder of a-<round>.json / b-<round>.json files", file=sys.stderr)
        return 2
    a, b = side(d, "a"), side(d, "b")
    keys = sorted(set(a) | set(b))
    if not set(a) & set(b):
        print("ab_summary: no row measured on both sides", file=sys.stderr)
        return 1
    f = lambda x, p=3: "-" if x is None else f"{x:.{p}f}"  # noqa: E731
    print("| op | dtype | shape | variant | rounds A/B | A µs | B µs | B/A time | A / copy | B / copy |")
    print("|---|---|---|---|---|--:|--:|--:|--:|--:|")
    starred = False
    for k in keys:
        ra, rb = a.get(k, []), b.get(k, [])
        ta, tb = med([t for t, _, _ in ra]), med([t for t, _, _ in rb])
        ratio = tb / ta if ta and tb else None
        st = "*" if any(m for _, _, m in ra + rb) else ""
        starred = starred or bool(st)
        ca, cb = med([c for _, c, _ in ra]), med([c for _, c, _ in rb])
        print(f"| {' | '.join(k)} | {len(ra)}/{len(rb)} | {f(ta * 1e3 if ta else None, 2)} | "
              f"{f(tb * 1e3 if tb else None, 2)} | {f(ratio)} | {f(ca)}{st if ca else ''} | {f(cb)}{st if cb else ''} |")
    if starred:
        print('\n\\* over the "copy" ceiling (cudaMemcpyAsync): these runs timed no copy kernel.')
    return 0


if __name__ == "__main__":
    sys.exit(main())
