#!/usr/bin/env python3
"""bench/train_report.py - the tables of issue 19 from bench/train.sh's outputs.

  python3 bench/train_report.py DIR OUT_PREFIX [CPU10_JSON]

DIR holds the unpacked train-out.tgz (ours-*.json from streamlab train,
torch-*.json from bench/torch_mlp.py, gemm_shapes.json, launch.md);
writes OUT_PREFIX.json (every record, and the derived ratios) and
OUT_PREFIX.md. Epoch time = the median of epochs 2.. (epoch 1 holds the
warm-up step and the graph capture), the same rule for both peers.
CPU10_JSON: an optional 10-epoch CPU-backend record made elsewhere.
"""
import glob
import json
import os
import statistics
import sys

import _cli


def epoch_s(rec):
    eps = rec["epochs"]
    xs = [e["seconds"] for e in eps[1:]] or [eps[0]["seconds"]]
    return statistics.median(xs)


def main():
    args = _cli.positional(__doc__, 2, 3)
    d, prefix = args[0], args[1]
    if not os.path.isdir(d):
        sys.exit(f"train_report: {d}: not a folder (the unpacked train-out.tgz)")
    cpu10 = json.load(open(args[2])) if len(args) > 2 else None
    ours, torch = {}, {}
    for f in sorted(glob.glob(os.path.join(d, "ours-*.json"))):
        ours[os.path.basename(f)[5:-5]] = json.load(open(f))
    for f in sorted(glob.glob(os.path.join(d, "torch-*.json"))):
        torch[os.path.basename(f)[6:-5]] = json.load(open(f))
    out = {"ours": ours, "torch": torch, "ratios": {}}
    md = []
    R = out["ratios"]

    def t(key):
        return epoch_s(ours[key]) if key in ours else None

    md.append("## streamlab train on the H200: epoch time per configuration\n")
    md.append("Epoch time: median of epochs 2..E over the 60000 training images (938 steps at batch 64, 3750 at 16); "
              "us/step = epoch time / steps; launches per step counted by the training code (a GEMM or a transpose "
              "is one).\n")
    md.append("| backend | GEMM | batch | fusion | graph | epoch s | us/step | launches/step | test acc (last epoch) |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    for k, r in ours.items():
        c, s = r["config"], r["summary"]
        e = epoch_s(r)
        md.append(f"| {c['backend']} | {c['gemm']} | {c['batch']} | {c['fusion']} | {'yes' if c['graph'] else 'no'} | "
                  f"{e:.4f} | {1e6 * e / s['steps_per_epoch']:.1f} | {s['launches_per_step']} | "
                  f"{s['test_acc']:.4f} ({len(r['epochs'])} epochs) |")
    md.append("")
    md.append("## Speedups beside the seed's\n")
    md.append("| effect | configuration | ratio | seed 002 |")
    md.append("|---|---|---|---|")
    def speedup(key, slow, fast, effect, config, seed):
        """One row: epoch time of `slow` over `fast` (both measured), kept as R[key]."""
        a, f = t(slow), t(fast)
        if a and f:
            R[key] = a / f
            md.append(f"| {effect} | {config} | {a / f:.2f}x | {seed} |")

    for b in (16, 64):
        for g in ("eager", "graph"):
            speedup(f"fusion_b{b}_{g}", f"cuda-b{b}-none-{g}", f"cuda-b{b}-fused-{g}", "fused vs unfused",
                    f"batch {b}, {g}", "2x")
    for fu in ("none", "fused"):
        for g in ("eager", "graph"):
            speedup(f"batch64_vs_16_{fu}_{g}", f"cuda-b16-{fu}-{g}", f"cuda-b64-{fu}-{g}",
                    "batch 64 vs 16 (epoch time)", f"fusion {fu}, {g}", "5x")
    for b in (16, 64):
        for fu in ("none", "fused"):
            speedup(f"graph_b{b}_{fu}", f"cuda-b{b}-{fu}-eager", f"cuda-b{b}-{fu}-graph", "graph vs eager",
                    f"batch {b}, fusion {fu}", "-")
    for b in (16, 64):
        c, gpu = t(f"cpu-b{b}-fused"), t(f"cuda-b{b}-fused-graph")
        ge = t(f"cuda-b{b}-fused-eager")
        if c and gpu:
            R[f"cpu_over_gpu_b{b}"] = c / gpu
            md.append(f"| GPU (fused, graph) vs CPU (fused) | batch {b} | {c / gpu:.1f}x | - |")
        if c and ge:
            md.append(f"| GPU (fused, eager) vs CPU (fused) | batch {b} | {c / ge:.1f}x | - |")
    speedup("sl_gemm_over_cublas_b64_graph", "cuda-b64-fused-graph", "cublas-b64-fused-graph",
            "cuBLAS GEMMs vs sl_gemm", "batch 64, fused, graph", "-")
    md.append("")
    md.append("## Beside PyTorch (same model, init scheme, batch, lr; data on the device)\n")
    md.append("| peer | batch | epoch s | us/step | test acc | ours (fused, graph) epoch s | ours faster by | bar |")
    md.append("|---|---|---|---|---|---|---|---|")
    for k, r in torch.items():
        e = epoch_s(r)
        b = r["batch"]
        o = t(f"cuda-b{b}-fused-graph")
        bar = {"eager": ">= 10x", "graph": ">= 1.5x"}[r["mode"]] if b == 64 else "-"
        ratio = o and e / o
        if ratio:
            R[f"torch_{r['mode']}_b{b}_over_ours"] = ratio
        md.append(f"| torch {r['torch']} {r['mode']} | {b} | {e:.4f} | {1e6 * e / ((60000 + b - 1) // b):.1f} | "
                  f"{r['test_acc']:.4f} | {o:.4f} | {ratio:.2f}x | {bar} |" if o else
                  f"| torch {r['mode']} | {b} | {e:.4f} | | {r['test_acc']:.4f} | | | {bar} |")
    md.append("")
    acc = ours.get("cuda-b64-fused-graph-10ep")
    md.append("## Accuracy after 10 epochs (batch 64, lr 0.1, fused; bar >= 0.88)\n")
    for name, r in (("cuda, graph (H200)", acc), ("cpu", cpu10)):
        if r:
            accs = " ".join(f"{e['test_acc']:.4f}" for e in r["epochs"])
            md.append(f"- {name}: test accuracy per epoch {accs}; final {r['summary']['test_acc']:.4f}")
            R[f"test_acc_10ep_{name.split(',')[0]}"] = r["summary"]["test_acc"]
    accs = sorted(glob.glob(os.path.join(d, "acc-*.json")))
    if accs:
        md.append("")
        md.append("Other learning rates, the same 10 epochs (batch 64, fused, graph):\n")
        md.append("| lr | decay | seed | test acc after 10 epochs | best epoch's test acc |")
        md.append("|---|---|---|---|---|")
        for f in accs:
            r = json.load(open(f))
            c = r["config"]
            md.append(f"| {c['lr']:.2g} | {c['lr_decay']} | {c['seed']:.0f} | {r['summary']['test_acc']:.4f} | "
                      f"{max(e['test_acc'] for e in r['epochs']):.4f} |")
            out.setdefault("lr_comparison", []).append(
                {"lr": c["lr"], "decay": c["lr_decay"], "seed": c["seed"], "test_acc": r["summary"]["test_acc"]})
    md.append("")
    bd = ours.get("cuda-b64-fused-graph")
    bn = ours.get("cuda-b64-none-graph")
    if bd and "breakdown" in bd:
        md.append("## One step, each launch timed inside the graph (batch 64, `--breakdown`)\n")
        md.append("Each launch of the captured step followed by an event-record node; mean over 200 replays of the "
                  "time from the previous node to this one (the kernel plus the node-to-node gap, plus the event "
                  "node's own cost). The same step captured without the events takes `graph step`.\n")
        for name, r in (("fused", bd), ("unfused", bn)):
            if not r or "breakdown" not in r:
                continue
            b = r["breakdown"]
            md.append(f"**{name}** ({len(b)} launches): " + ", ".join(f"{x['launch']} {x['us']:.1f}" for x in b) +
                      f"; sum {r['summary']['breakdown_sum_us']:.1f} us with the events, graph step "
                      f"{r['summary']['graph_step_us']:.1f} us without.\n")
            gem = sum(x["us"] for x in b if x["launch"].startswith("gemm"))
            md.append(f"GEMMs {gem:.1f} us of the {r['summary']['breakdown_sum_us']:.1f} (with events).\n")
    gs = os.path.join(d, "gemm_shapes.json")
    if os.path.exists(gs):
        g = json.load(open(gs))
        md.append("## The step's GEMM shapes alone (`streamlab run --op matmul`, event-timed median per call)\n")
        md.append("| M x N x K | variant | us | GFLOP/s | verified |")
        md.append("|---|---|---|---|---|")
        rows = []
        # the run JSON has no K: the groups come in the order of train.sh's --shape list
        shapes = [(64, 300, 784), (64, 100, 300), (64, 10, 100), (784, 300, 64), (300, 100, 64), (100, 10, 64),
                  (64, 300, 100), (64, 100, 10), (16, 300, 784), (784, 300, 16)]
        gi, seen, prev = -1, set(), None
        for r in g["results"]:
            sh = r["shape"]
            if (sh["rows"], sh["cols"]) != prev or r["variant"] in seen:
                gi, seen, prev = gi + 1, set(), (sh["rows"], sh["cols"])
            seen.add(r["variant"])
            if r.get("status") != "ok" or gi >= len(shapes):
                continue
            k = shapes[gi][2] if shapes[gi][:2] == prev else None
            us = 1e3 * r["time_ms"]["median"]
            fl = 2.0 * sh["rows"] * sh["cols"] * (k or 0)
            rows.append((sh["rows"], sh["cols"], k, r["variant"], us, fl / us / 1e3 if k else 0, r["verified"]))
        out["gemm_shapes"] = rows
        for m_, n_, k_, v, us, gf, ok in rows:
            md.append(f"| {m_} x {n_} x {k_} | {v} | {us:.2f} | {gf:.0f} | {ok} |")
        md.append("")
    lm = os.path.join(d, "launch.md")
    if os.path.exists(lm):
        md.append("## Launch probe (`streamlab probe --only launch`)\n")
        md.append(open(lm).read())
    json.dump(out, open(prefix + ".json", "w"), indent=1)
    open(prefix + ".md", "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
