#!/usr/bin/env python3
"""torch_peer.py - PyTorch on the same work as streamlab, timed the same way.

Issue 6 sets two bars against PyTorch: the best axpy rung against
`y.add_(x, alpha=a)`, and the best bf16 add against `torch.add`. This script
times those two calls with CUDA events (warm-ups first, then one event pair
per trial, median reported), on random non-zero data, and counts bytes as
streamlab does: (2 reads + 1 write) x element size x n.

    python3 bench/torch_peer.py --sizes 2^26,2^28 --dtypes f32,bf16 --json out.json

Run it in the same device call as `streamlab run`, so the ratios are side by
side (bench/device.sh, stage "torch"). Needs torch with CUDA; exits 2 without.
"""
import argparse
import json
import statistics
import sys


def parse_size(s):
    s = s.strip()
    if "^" in s:
        b, e = s.split("^")
        return int(b) ** int(e)
    mult = {"K": 10**3, "M": 10**6, "G": 10**9}
    if s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(float(s))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="2^26,2^28")
    ap.add_argument("--dtypes", default="f32,bf16")
    ap.add_argument("--ops", default="add,axpy")
    ap.add_argument("--alpha", type=float, default=1.3)
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_peer: torch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_peer: torch sees no CUDA device", file=sys.stderr)
        return 2
    types = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    rows = []
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}; median of {a.trials} trials")
    print(f"{'op':5} {'dtype':5} {'n':>12} {'median ms':>10} {'GB/s':>9}")
    for op in a.ops.split(","):
        for dn in a.dtypes.split(","):
            dt = types[dn]
            for n in map(parse_size, a.sizes.split(",")):
                g = torch.Generator(device="cuda").manual_seed(n)
                x = (torch.rand(n, device="cuda", generator=g) + 0.5).to(dt)
                y = (torch.rand(n, device="cuda", generator=g) + 0.5).to(dt)
                out = torch.empty_like(x) if op == "add" else None
                if op == "add":
                    fn = lambda: torch.add(x, y, out=out)
                else:
                    fn = lambda: y.add_(x, alpha=a.alpha)
                for _ in range(a.warmup):
                    fn()
                torch.cuda.synchronize()
                times = []
                for _ in range(a.trials):
                    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s.record()
                    fn()
                    e.record()
                    e.synchronize()
                    times.append(s.elapsed_time(e))
                res = out if op == "add" else y
                if not bool(torch.isfinite(res[: min(n, 1 << 20)].float()).all()):
                    print(f"torch_peer: {op} {dn} n={n}: non-finite results", file=sys.stderr)
                    return 1
                med = statistics.median(times)
                gbs = 3 * n * x.element_size() / (med * 1e6)
                rows.append({"op": op, "dtype": dn, "n": n, "median_ms": med, "min_ms": min(times), "gbs": gbs,
                             "call": "torch.add(x, y, out=c)" if op == "add" else f"y.add_(x, alpha={a.alpha})"})
                print(f"{op:5} {dn:5} {n:12d} {med:10.4f} {gbs:9.1f}", flush=True)
                del x, y, out
                torch.cuda.empty_cache()
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "streamlab.torch_peer/1", "torch": torch.__version__,
                       "device": torch.cuda.get_device_name(0), "trials": a.trials, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
