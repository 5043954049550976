#!/usr/bin/env python3
"""transpose_summary.py - issue 11's transpose and bank-conflict results, one
Markdown and one JSON file, from the folders bench/transpose_h200.sh leaves
(transpose-out.tgz unpacked): the ladder (streamlab run JSON), the 33/32
ratio against seed 004's 1.3x, ncu's shared-memory wavefronts and bank
conflicts per rung, the bank-conflict probe (timed and under ncu) and
PyTorch's transpose.

    python3 bench/transpose_summary.py --run DIR [--probe DIR] --md OUT.md --json OUT.json --header TEXT

--run: the folder with run-*.json (and ncu-transpose.csv); --probe: the
folder with bank.csv, bank-ncu.csv and torch.json (default: --run).
"""
import collections
import csv
import json
import os
import re
import sys

import _cli


def load(path):
    with open(path) as f:
        return json.load(f)


def ncu_rows(path):
    """{(id, kernel): {metric: value}} in file order."""
    out = collections.OrderedDict()
    if not os.path.exists(path):
        return out
    with open(path) as f:
        rows = list(csv.reader(f))
    hdr = rows[0]
    ki, mi, vi = hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value")
    for r in rows[1:]:
        if len(r) <= vi:
            continue
        try:
            val = float(r[vi].replace(",", ""))
        except ValueError:
            continue
        out.setdefault((r[0], r[ki]), {})[r[mi]] = val
    return out


def short_kernel(name):
    m = re.match(r"void (\w+)<([^>]*)>", name)
    if not m:
        return name[:40]
    k, t = m.group(1), m.group(2)
    t = t.replace("unsigned int", "4B").replace("unsigned long", "8B").replace("unsigned short", "2B")
    t = t.replace("float, float", "f32").replace("double, double", "f64")
    return f"{k}<{t.split(',')[0] if k.startswith('transpose') else t}>"


def main():
    ap = _cli.parser(__doc__)
    ap.add_argument("--run", required=True, metavar="DIR", help="the folder with run-*.json (and ncu-transpose.csv)")
    ap.add_argument("--probe", metavar="DIR", help="the folder with bank.csv, bank-ncu.csv and torch.json (default: --run)")
    ap.add_argument("--md", required=True, metavar="FILE", help="write the Markdown here")
    ap.add_argument("--json", required=True, metavar="FILE", help="write the JSON here")
    ap.add_argument("--header", default="", metavar="TEXT", help="Markdown put before the tables")
    a = ap.parse_args()
    probe_dir = a.probe or a.run
    md = [a.header.rstrip(), ""]
    js = {"runs": {}, "torch": None, "bank_probe": [], "bank_probe_ncu": [], "ncu_transpose": []}

    # ---- the ladder
    md += ["## The ladder (streamlab run, events, median of 30, 5 warm-ups)", ""]
    ratios = []
    for tag in ["f32", "f32-again", "f64", "bf16", "odd"]:
        p = os.path.join(a.run, f"run-{tag}.json")
        if not os.path.exists(p):
            continue
        d = load(p)
        js["runs"][tag] = d
        md += [f"### {tag}", "", f"`{d.get('command', '')}`", "",
               "| shape | variant | dtype | kind | median ms | GB/s | %copy | x peer | check |",
               "|---|---|---|---|--:|--:|--:|--:|---|"]
        by = {}
        for r in d["results"]:
            s = r["shape"]
            shape = f"{s['rows']}x{s['cols']}" + (f":{s['ld']}" if s["ld"] != s["cols"] else "")
            med = r["time_ms"]["median"] if r.get("time_ms") else float("nan")
            xp = r.get("x_peer")
            md.append(f"| {shape} | {r['variant']} | {r['dtype']} | {r['kind']} | {med:.4f} | {r.get('gbs', 0):.0f} | "
                      f"{r.get('pct_copy', -1):.1f} | {'-' if xp is None or xp < 0 else round(xp, 3)} | "
                      f"{'ok' if r.get('verified') else r.get('status')} |")
            by[(shape, r["dtype"], r["variant"])] = med
        md.append("")
        if tag in ("f32", "f64", "bf16"):
            for (shape, dt, v), t in by.items():
                if v == "tile32" and (shape, dt, "pad33") in by:
                    ratios.append((tag, shape, dt, t / by[(shape, dt, "pad33")], t / by[(shape, dt, "swizzle")]))
    md += ["## 32x33 against 32x32 (seed 004: 1.3x on the V100)", "",
           "| run | shape | dtype | tile32 / pad33 time | tile32 / swizzle time |", "|---|---|---|--:|--:|"]
    for tag, shape, dt, rp, rs in ratios:
        md.append(f"| {tag} | {shape} | {dt} | {rp:.2f} | {rs:.2f} |")
    js["speedup_33_over_32"] = [dict(run=t, shape=s, dtype=d, pad33=rp, swizzle=rs) for t, s, d, rp, rs in ratios]
    md.append("")

    # ---- ncu per rung
    nrows = ncu_rows(os.path.join(a.run, "ncu-transpose.csv"))
    if nrows:
        md += ["## ncu: shared-memory wavefronts and bank conflicts per rung (4096x4096, one launch each)", "",
               "Wavefronts per shared-memory instruction (ideal: 1 for 2- and 4-byte lanes, 2 for 8-byte); "
               "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum` per instruction; DRAM bytes; "
               "L1 sectors per global store request (4 = coalesced f32 warp).", "",
               "| kernel | LDS wf/inst | LDS conflicts/inst | STS wf/inst | STS conflicts/inst | "
               "DRAM rd MB | DRAM wr MB | st sectors/req | us |",
               "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
        seen = set()
        for (kid, name), m in nrows.items():
            def g(k):
                return m.get(k, float("nan"))
            ldi, sti = g("smsp__sass_inst_executed_op_shared_ld.sum"), g("smsp__sass_inst_executed_op_shared_st.sum")
            row = dict(id=kid, kernel=name, metrics=m)
            js["ncu_transpose"].append(row)
            key = (short_kernel(name), ldi, sti)
            if key in seen:
                continue
            seen.add(key)

            def per(x, y):
                return f"{x / y:.2f}" if y and y == y and y > 0 else "-"
            md.append(f"| {short_kernel(name)} | {per(g('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'), ldi)} | "
                      f"{per(g('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum'), ldi)} | "
                      f"{per(g('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum'), sti)} | "
                      f"{per(g('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'), sti)} | "
                      f"{g('dram__bytes_read.sum'):.1f} | {g('dram__bytes_write.sum'):.1f} | "
                      f"{per(g('l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum'), g('l1tex__t_requests_pipe_lsu_mem_global_op_st.sum'))} | "
                      f"{g('gpu__time_duration.sum'):.1f} |")
        md.append("")

    # ---- the bank-conflict probe
    bp = os.path.join(probe_dir, "bank.csv")
    if os.path.exists(bp):
        probe = {}
        for line in open(bp):
            if line[0].isdigit():
                w, s, op, p, c = line.strip().split(",")
                probe[(int(w), int(s), op)] = (int(p), float(c))
                js["bank_probe"].append(dict(word_bytes=int(w), stride=int(s), op=op, predicted_wavefronts=int(p),
                                             cycles_per_access=float(c)))
        off = [k for k, (p, c) in probe.items() if abs(c - p) > 0.05 * p]
        md += ["## Bank-conflict probe (bench/experiments/bank_conflicts.cu): cycles per warp access", "",
               f"{len(probe)} cases (word 4, 8, 16 bytes x stride 1-32 x load/store); {len(off)} differ from seed 004's "
               "prediction by more than 5%. Selected strides (predicted wavefronts / measured cycles, loads; stores "
               "agree within 0.1%):", "",
               "| stride | 4 B | 8 B | 16 B |", "|--:|--:|--:|--:|"]
        for s in (1, 2, 3, 4, 5, 6, 8, 12, 16, 17, 24, 31, 32):
            cells = []
            for w in (4, 8, 16):
                p, c = probe.get((w, s, "ld"), (0, float("nan")))
                cells.append(f"{p} / {c:.2f}")
            md.append(f"| {s} | " + " | ".join(cells) + " |")
        md.append("")
    bn = ncu_rows(os.path.join(probe_dir, "bank-ncu.csv"))
    if bn:
        md += ["### The probe under ncu (one launch per case)", "",
               "| stride | word | op | wavefronts/inst | conflicts/inst | predicted |", "|--:|--:|---|--:|--:|--:|"]
        items = list(bn.items())
        i = 0
        for s in (1, 2, 3, 4, 8, 16, 32):
            for w in (4, 8, 16):
                for op in ("ld", "st"):
                    if i >= len(items):
                        break
                    (kid, name), m = items[i]
                    i += 1
                    inst = m[f"smsp__sass_inst_executed_op_shared_{op}.sum"]
                    wf = m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"] / inst
                    cf = m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"] / inst
                    pred = probe.get((w, s, op), (0, 0))[0] if os.path.exists(bp) else 0
                    js["bank_probe_ncu"].append(dict(stride=s, word_bytes=w, op=op, wavefronts_per_inst=wf,
                                                     conflicts_per_inst=cf, predicted=pred, kernel=name))
                    md.append(f"| {s} | {w} | {op} | {wf:.2f} | {cf:.2f} | {pred} |")
        md.append("")

    # ---- torch
    tp = os.path.join(probe_dir, "torch.json")
    if os.path.exists(tp):
        t = load(tp)
        js["torch"] = t
        md += ["## PyTorch (bench/peers.py transpose, events, median of 30)", "",
               "| shape | dtype | call | ms | GB/s |", "|---|---|---|--:|--:|"]
        for r in t["rows"]:
            md.append(f"| {r['shape']} | {r['dtype']} | `{r['call']}` | {r['ms']:.4f} | {r['gbs']:.0f} |")
        md.append("")
    with open(a.md, "w") as f:
        f.write("\n".join(md) + "\n")
    with open(a.json, "w") as f:
        json.dump(js, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
