#!/usr/bin/env python3
"""torch_softmax.py - torch.softmax(x, dim=-1) timed as issue 18 asks, in the
same device call as bench/softmax_bench (bench/softmax_h200.sh):

  eager   one call between two CUDA events (Python dispatch and the output's
          allocation included: what a user sees), median of --trials;
          --cold flushes L2 (a 256 MiB fill) before each trial;
  graph   --graph-calls calls captured in one torch.cuda.CUDAGraph, replayed
          --graph-reps times between events: the median per call, i.e. the
          kernel time with back-to-back launch gaps (the bars' comparison).

Inputs: uniform in [-8, 8) (torch.rand), never zeros. Each shape's output is
checked against torch.softmax in float64 on a few rows (max relative error
reported; rows must sum to 1). Bytes = rows x cols x size read + written.

    python3 bench/torch_softmax.py --shapes 128x2^10,128x2^17 --dtypes f32,bf16 --json out.json

Needs torch with CUDA; exits 2 without.
"""
import argparse
import json
import statistics
import sys


def dim(s):
    if "^" in s:
        b, e = s.split("^")
        return int(b) ** int(e)
    return int(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default="128x2^10,128x2^11,128x2^12,128x2^13,128x2^14,128x2^15,128x2^16,128x2^17")
    ap.add_argument("--dtypes", default="f32,bf16")
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--graph-calls", type=int, default=100)
    ap.add_argument("--graph-reps", type=int, default=10)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_softmax: torch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_softmax: torch sees no CUDA device", file=sys.stderr)
        return 2
    types = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda") if a.cold else None
    rows_out = []
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    print(f"{'shape':14} {'dtype':5} {'eager us':>9} {'GB/s':>7} {'graph us':>9} {'GB/s':>7} {'max rel err':>11}")
    for dn in a.dtypes.split(","):
        dt = types[dn]
        for sh in a.shapes.split(","):
            r, c = (dim(v) for v in sh.split("x"))
            g = torch.Generator(device="cuda").manual_seed(r * 1000003 + c)
            x = ((torch.rand(r, c, device="cuda", generator=g) - 0.5) * 16).to(dt)
            nbytes = 2 * x.numel() * x.element_size()
            y = torch.softmax(x, dim=-1)
            idx = torch.unique(torch.linspace(0, r - 1, 16, device="cuda").long())
            ref = torch.softmax(x[idx].double(), dim=-1)
            got = y[idx].double()
            rel = ((got - ref).abs() / ref.abs().clamp_min(1e-300)).max().item()
            sums = (got.sum(dim=-1) - 1).abs().max().item()
            for _ in range(5):
                torch.softmax(x, dim=-1)
            torch.cuda.synchronize()
            times = []
            for i in range(a.trials):
                if flush is not None:
                    flush.fill_(i & 0xFF)
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                torch.softmax(x, dim=-1)
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e) * 1e3)
            eager = statistics.median(times)
            calls = a.graph_calls if nbytes < (1 << 28) else max(1, a.graph_calls // 10)
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    torch.softmax(x, dim=-1)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(calls):
                    yy = torch.softmax(x, dim=-1)
            graph.replay()
            torch.cuda.synchronize()
            gts = []
            for _ in range(a.graph_reps):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                graph.replay()
                e.record()
                e.synchronize()
                gts.append(s.elapsed_time(e) * 1e3 / calls)
            gr = statistics.median(gts)
            del graph, yy
            print(f"{sh:14} {dn:5} {eager:9.2f} {nbytes / (eager * 1e3):7.0f} {gr:9.2f} {nbytes / (gr * 1e3):7.0f}"
                  f" {rel:11.3g}", flush=True)
            rows_out.append({"rows": r, "cols": c, "dtype": dn, "bytes": nbytes, "eager_us": eager, "graph_us": gr,
                             "graph_calls": calls, "max_rel_err": rel, "max_row_sum_err": sums, "cold": a.cold,
                             "call": "torch.softmax(x, dim=-1)"})
            del x, y
            torch.cuda.empty_cache()
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "streamlab.torch_softmax/1", "torch": torch.__version__,
                       "device": torch.cuda.get_device_name(0), "trials": a.trials, "rows": rows_out}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
