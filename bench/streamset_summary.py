#!/usr/bin/env python3
"""streamset_summary.py - the issue-10 comparison table from one device call's files.

Reads streamlab's results (streamset-f64.json: event-timed, every variant;
streamset-f64-wall.json: the public functions host-timed around launch +
sync, as BabelStream times; streamset-f32.json) and bench/babelstream.sh's
babelstream.json, all from the same call, and prints Markdown: per op, dtype
and n, streamlab's public function (GB/s from the minimum and from the
median time), CUB's, BabelStream's (its own minimum-time figure), and the
ratios the issue asks for. Bytes: the op's descriptor (the JSON's "bytes"),
which for every op here equals BabelStream's count (main.cpp:420-433).

usage: streamset_summary.py DIR > summary.md
"""
import json
import os
import sys

import _cli

# The figures the issue quotes for BabelStream 5.0 CUDA on an H200 (GB/s).
ISSUE = {
    ("f64", 1 << 28): {"copy": 4037, "scale": 4025, "add": 4365, "triad": 4368, "dot": 4447},
    ("f64", 1 << 25): {"copy": 3865, "scale": 3805, "add": 4185, "triad": 4229, "dot": 3932},
    ("f32", 1 << 28): {"copy": 3212, "scale": 3134, "add": 3701, "triad": 3668, "dot": 3676},
}
BS_NAME = {"copy": "Copy", "scale": "Mul", "add": "Add", "triad": "Triad", "dot": "Dot", "nstream": "Nstream"}
OPS = ["copy", "scale", "add", "triad", "dot", "nstream"]


def rows(path):
    try:
        with open(path) as f:
            return json.load(f)["results"]
    except OSError:
        return []


def pick(rs, op, dt, n, kind=None, name=None):
    for r in rs:
        if r.get("op") == op and r["dtype"] == dt and int(r["n"]) == n and r["status"] == "ok":
            if (kind and r["kind"] == kind) or (name and r["variant"] == name):
                return r
    return None


def gbs_min(r):
    return r["bytes"] / (r["time_ms"]["min"] * 1e6)


def gbs_med(r):
    return r["bytes"] / (r["time_ms"]["median"] * 1e6)


def main():
    d = (_cli.positional(__doc__, 0, 1) or ["."])[0]
    if not os.path.isfile(f"{d}/babelstream.json"):
        sys.exit(f"streamset_summary: {d}/babelstream.json: no such file (DIR: one device call's files)")
    ev64, wall64, ev32 = rows(f"{d}/streamset-f64.json"), rows(f"{d}/streamset-f64-wall.json"), rows(f"{d}/streamset-f32.json")
    with open(f"{d}/babelstream.json") as f:
        bs = json.load(f)
    bsr = {(r["precision"], int(r["n"]), r["function"]): r for r in bs["rows"]}
    print(f"BabelStream {bs['version']}; its timing: {bs['timing']}\n")
    hdr = ("| dtype | n | op | ours min | ours median | ours wall min | CUB median | BabelStream | × BS (events) "
           "| × BS (wall) | × BS issue | × CUB (median) |")
    print(hdr)
    print("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for dt, sizes, ev, wall in (("f64", (1 << 25, 1 << 28), ev64, wall64), ("f32", (1 << 28,), ev32, [])):
        for n in sizes:
            for op in OPS:
                api = pick(ev, op, dt, n, name=f"sl_{op}")
                peer = pick(ev, op, dt, n, kind="peer")
                w = pick(wall, op, dt, n, name=f"sl_{op}")
                b = bsr.get((dt, n, BS_NAME[op]))
                if not api:
                    continue
                iss = ISSUE.get((dt, n), {}).get(op)
                cells = [dt, f"2^{n.bit_length() - 1}", op, f"{gbs_min(api):.0f}", f"{gbs_med(api):.0f}",
                         f"{gbs_min(w):.0f}" if w else "-", f"{gbs_med(peer):.0f}" if peer else "-",
                         f"{b['gbs']:.0f}" if b else "-",
                         f"{gbs_min(api) / b['gbs']:.3f}" if b else "-",
                         f"{gbs_min(w) / b['gbs']:.3f}" if (w and b) else "-",
                         f"{gbs_min(api) / iss:.3f}" if iss else "-",
                         f"{gbs_med(api) / gbs_med(peer):.3f}" if peer else "-"]
                print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
