#!/usr/bin/env python3
"""softmax_report.py - issue 18's bars from one device call's JSON files
(bench/softmax_h200.sh): softmax_bench's rows (softmax-seed.json,
softmax-dram.json) beside torch's (torch-seed.json, torch-dram.json).

    python3 bench/softmax_report.py DIR --md out.md --json out.json

Bars: at the seed shapes (128 x 2^10 .. 2^17, f32) sl_softmax's graph-replay
kernel time >= 1.1x torch's at every width and >= 1.5x as the geometric
mean; at the DRAM shapes (--cold) sl_softmax >= 0.92x the copy ceiling's
GB/s. Ratios are speedups: the other's time / ours.
"""
import json
import math
import os
import sys

import _cli


def load(d, name):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)


def key(r):
    return (r["rows"], r["cols"], r["dtype"])


def lg(n):
    e = int(round(math.log2(n)))
    return f"2^{e}" if 2 ** e == n else str(n)


def main():
    ap = _cli.parser(__doc__)
    ap.add_argument("dir", help="the call's folder of softmax-*.json and torch-*.json")
    ap.add_argument("--md", metavar="FILE", help="write the Markdown report here")
    ap.add_argument("--json", metavar="FILE", help="write the JSON report here")
    ap.add_argument("--command", default="", help="the command that made DIR, quoted in the report")
    a = ap.parse_args()
    seed, tseed = load(a.dir, "softmax-seed.json"), load(a.dir, "torch-seed.json")
    dram, tdram = load(a.dir, "softmax-dram.json"), load(a.dir, "torch-dram.json")
    out = {"schema": "streamlab.softmax_report/1", "seed": [], "dram": [], "ladder": []}
    md = ["# softmax on the H200 (issue 18)", ""]
    if a.command:
        md += ["Command: `" + a.command + "`", ""]
    if seed:
        md += [f"Device: {seed['device']} ({seed['sms']} SMs); torch {tseed['torch'] if tseed else 'n/a'}. "
               f"Times in us: event = one launch between events (median of {seed['trials']}), graph = per call "
               f"in a CUDA graph of {seed['graph_calls']} calls (median of {seed['graph_reps']} replays). "
               "Speedup = other's time / sl_softmax's.", ""]
        by = {}
        for r in seed["rows"]:
            by.setdefault(key(r), {})[r["variant"]] = r
        tby = {key(r): r for r in (tseed["rows"] if tseed else [])}
        for dt in ("f32", "bf16", "f16"):
            ks = sorted(k for k in by if k[2] == dt)
            if not ks:
                continue
            md += [f"## Seed shapes, {dt}: sl_softmax vs torch.softmax and cuDNN (graph kernel time)", "",
                   "| shape | sl_softmax us | torch us | x torch | cuDNN us | x cuDNN | copy us | sl_softmax event us "
                   "| torch eager us | verified |", "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
            logs = []
            for k in ks:
                v = by[k]
                s = v.get("sl_softmax", {})
                t = tby.get(k, {})
                c = v.get("cudnn", {})
                cp = v.get("copy", {})
                sg = s.get("graph_us")
                xt = t.get("graph_us", 0) / sg if sg and t.get("graph_us") else None
                xc = c.get("graph_us", 0) / sg if sg and c.get("graph_us") else None
                if xt:
                    logs.append(math.log(xt))
                md.append(f"| {k[0]}x{lg(k[1])} | {sg:.2f} | {t.get('graph_us', float('nan')):.2f} | "
                          f"{xt if xt else float('nan'):.2f} | {c.get('graph_us', float('nan')):.2f} | "
                          f"{xc if xc else float('nan'):.2f} | {cp.get('graph_us', float('nan')):.2f} | "
                          f"{s.get('event_us', float('nan')):.2f} | {t.get('eager_us', float('nan')):.2f} | "
                          f"{'yes' if s.get('verified') else 'NO'} |")
                out["seed"].append({"rows": k[0], "cols": k[1], "dtype": dt, "sl_softmax_graph_us": sg,
                                    "torch_graph_us": t.get("graph_us"), "x_torch": xt,
                                    "cudnn_graph_us": c.get("graph_us"), "x_cudnn": xc,
                                    "copy_graph_us": cp.get("graph_us"), "sl_softmax_event_us": s.get("event_us"),
                                    "torch_eager_us": t.get("eager_us"), "verified": s.get("verified")})
            if logs:
                gm = math.exp(sum(logs) / len(logs))
                mn = min(math.exp(x) for x in logs)
                md += ["", f"Geometric mean x torch: **{gm:.2f}** (bar 1.5); lowest: **{mn:.2f}** (bar 1.1 at every "
                       "width)." + ("" if dt == "f32" else " (the bars are for f32)"), ""]
                out.setdefault("geomean", {})[dt] = gm
                out.setdefault("min_ratio", {})[dt] = mn
            md += [f"### The ladder, {dt} (graph us per call / event us; GB/s from the graph time)", "",
                   "| rung | " + " | ".join(f"{k[0]}x{lg(k[1])}" for k in ks) + " |",
                   "|---|" + "--:|" * len(ks)]
            names = []
            for k in ks:
                for n in by[k]:
                    if n not in names:
                        names.append(n)
            for n in names:
                cells = []
                for k in ks:
                    r = by[k].get(n)
                    if not r or r.get("skipped"):
                        cells.append("skipped")
                    else:
                        gbs = r["bytes"] / (r["graph_us"] * 1e3) if r.get("graph_us") else 0
                        cells.append(f"{r['graph_us']:.1f} / {r['event_us']:.1f} ({gbs:.0f})"
                                     + ("" if r.get("verified") else " FAILED"))
                        out["ladder"].append({"rows": k[0], "cols": k[1], "dtype": dt, "variant": n,
                                              "graph_us": r["graph_us"], "event_us": r["event_us"],
                                              "verified": r.get("verified")})
                md.append(f"| {n} | " + " | ".join(cells) + " |")
            md.append("")
    if dram:
        md += ["## DRAM-sized shapes, --cold (L2 flushed before each launch; event time, median)", "",
               "| shape | dtype | sl_softmax GB/s | copy GB/s | x copy (bar 0.92) | torch GB/s | x torch | cuDNN GB/s "
               "| regs GB/s | online GB/s | verified |", "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
        by = {}
        for r in dram["rows"]:
            by.setdefault(key(r), {})[r["variant"]] = r
        tby = {key(r): r for r in (tdram["rows"] if tdram else [])}
        for k in sorted(by, key=lambda k: (k[2], k[0])):
            v = by[k]

            def g(n):
                r = v.get(n)
                return r["bytes"] / (r["event_us"] * 1e3) if r and r.get("event_us") else float("nan")
            t = tby.get(k)
            tg = t["bytes"] / (t["eager_us"] * 1e3) if t else float("nan")
            s, cp = g("sl_softmax"), g("copy")
            md.append(f"| {k[0]}x{lg(k[1])} | {k[2]} | {s:.0f} | {cp:.0f} | **{s / cp:.3f}** | {tg:.0f} | "
                      f"{s / tg:.2f} | {g('cudnn'):.0f} | {g('regs'):.0f} | {g('online'):.0f} | "
                      f"{'yes' if v.get('sl_softmax', {}).get('verified') else 'NO'} |")
            out["dram"].append({"rows": k[0], "cols": k[1], "dtype": k[2], "sl_softmax_gbs": s, "copy_gbs": cp,
                                "x_copy": s / cp, "torch_gbs": tg, "x_torch": s / tg, "cudnn_gbs": g("cudnn")})
        md.append("")
    text = "\n".join(md) + "\n"
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
