#!/usr/bin/env python3
"""Experiment (bench/experiments/): supports docs/scale.md, "Expected scaling,
by simulation"; docs/ladder.md, "Two GPUs at once (issue 15, MPI)". Run:
python3 bench/experiments/scale_sim.py (see below).

bench/experiments/scale_sim.py - expected scaling of `mpirun -np K streamlab run` by
simulation from one GPU's measured per-trial times (docs/scale.md).

For each op, K ranks are simulated as K independent draws (bootstrap, with
replacement) from the single GPU's trial times; a simulated trial takes the
slowest draw (every trial starts after a barrier, and the aggregate divides
all ranks' bytes by the slowest rank's time: EP-STREAM's system figure).
The aggregate is the median over simulated trials; its ratio to K x the
single-GPU median figure is the scaling efficiency. The distributed dot adds
an all-reduce of one scalar per trial, modelled as recursive doubling:
ceil(log2 ranks per node) steps at ALPHA_NODE plus ceil(log2 nodes) steps at
ALPHA_NET, plus one device-to-host copy of the partial (STAGE) when the MPI
is not CUDA-aware. ALPHA_NODE, ALPHA_NET and STAGE are inputs, not
measurements (see docs/scale.md for the values used and why).

Usage: scale_sim.py RESULTS.json [--alpha-node US] [--alpha-net US] [--stage US]
RESULTS.json: a streamlab.run/1 file with per-trial times (time_ms.trials)
of sl_add, sl_triad and sl_dot at one size (f32).
"""
import argparse
import json
import math
import random
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--alpha-node", type=float, default=3.0, help="us per on-node all-reduce step")
    ap.add_argument("--alpha-net", type=float, default=5.0, help="us per inter-node all-reduce step")
    ap.add_argument("--stage", type=float, default=10.0, help="us for the staging copy of the partial")
    ap.add_argument("--sims", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=15)
    a = ap.parse_args()
    d = json.load(open(a.results))
    rng = random.Random(a.seed)
    rows = {r["variant"]: r for r in d["results"] if r["variant"] in ("sl_add", "sl_triad", "sl_dot")}
    layouts = [(1, 1), (2, 1), (4, 1), (8, 1), (8, 4)]  # (GPUs per node, nodes)
    print(f"Source: {a.results} ({d['device']['name']}, `{d['command']}`); {a.sims} simulated trials per cell.")
    print()
    print("| op | n / GPU | one GPU (median GB/s) | layout | ranks | aggregate GB/s | aggregate / (K x one) |")
    print("|---|---|---|---|---|---|---|")
    for v in ("sl_add", "sl_triad", "sl_dot"):
        r = rows[v]
        t = r["time_ms"]["trials"]
        b = r["bytes"]
        one = b / (statistics.median(t) * 1e6)
        for per, nodes in layouts:
            k = per * nodes
            agg = [k * b / (max(rng.choice(t) for _ in range(k)) * 1e6) for _ in range(a.sims)]
            m = statistics.median(agg)
            print(f"| {r['op']} | 2^{int(math.log2(r['n']))} | {one:.0f} | {per} GPU{'s' if per > 1 else ''} x "
                  f"{nodes} node{'s' if nodes > 1 else ''} | {k} | {m:.0f} | {m / (k * one):.4f} |")
    print()
    r = rows["sl_dot"]
    t = r["time_ms"]["trials"]
    print(f"Distributed dot, f32, 2^{int(math.log2(r['n']))} per GPU: all-reduce = ceil(log2 GPUs per node) x "
          f"{a.alpha_node:g} us + ceil(log2 nodes) x {a.alpha_net:g} us (+ {a.stage:g} us staging when not CUDA-aware).")
    print()
    print("| layout | ranks | local ms (slowest) | all-reduce ms | staged all-reduce ms | all-reduce share "
          "(staged) | aggregate GB/s with all-reduce (staged) |")
    print("|---|---|---|---|---|---|---|")
    for per, nodes in layouts:
        k = per * nodes
        local = statistics.median(max(rng.choice(t) for _ in range(k)) for _ in range(a.sims))
        red = (math.ceil(math.log2(per)) * a.alpha_node + math.ceil(math.log2(nodes)) * a.alpha_net) * 1e-3 if k > 1 else 0
        staged = red + a.stage * 1e-3 if k > 1 else 0
        print(f"| {per} x {nodes} | {k} | {local:.4f} | {red:.4f} | {staged:.4f} | {100 * staged / (local + staged):.1f}% | "
              f"{k * r['bytes'] / ((local + staged) * 1e6):.0f} |")


if __name__ == "__main__":
    main()
