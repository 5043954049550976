#!/usr/bin/env python3
"""transpose_torch.py - PyTorch's transpose, timed as streamlab times (issue 11).

Times `x.t().contiguous()` (a new cols x rows tensor each call, as a user
writes it), `torch.empty(...).copy_(x.t())` (into a preallocated output, as
streamlab's rungs write) and `y.copy_(x)` (a plain device copy of the same
bytes, the same-run ceiling) with CUDA events: warm-ups first, one event
pair per trial, the median reported. Random normal data (never zeros).
Bytes: 2 x rows x cols x element size, as streamlab counts transpose.

    python3 bench/transpose_torch.py --shapes 8192x8192,16384x16384 --dtypes f32,f64,bf16 --json out.json

Exits 2 without torch or a GPU.
"""
import argparse
import json
import statistics
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default="8192x8192,16384x16384")
    ap.add_argument("--dtypes", default="f32,f64,bf16")
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("transpose_torch: no torch here", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("transpose_torch: torch sees no GPU", file=sys.stderr)
        return 2
    dts = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16}
    rows_out = []
    for shape in a.shapes.split(","):
        r, c = (int(v) for v in shape.lower().split("x"))
        for name in a.dtypes.split(","):
            dt = dts[name]
            x = torch.randn(r, c, device="cuda", dtype=torch.float32).to(dt)
            out = torch.empty(c, r, device="cuda", dtype=dt)
            same = torch.empty_like(x)
            # check once before timing: the transpose is exact
            if not torch.equal(x.t().contiguous(), x.t()) or not torch.equal(out.copy_(x.t()), x.t()):
                print(f"transpose_torch: {shape} {name}: wrong result", file=sys.stderr)
                return 1
            calls = {
                "t().contiguous()": lambda: x.t().contiguous(),
                "copy_(x.t())": lambda: out.copy_(x.t()),
                "copy_(x) (ceiling)": lambda: same.copy_(x),
            }
            nbytes = 2 * r * c * x.element_size()
            for label, fn in calls.items():
                for _ in range(a.warmup):
                    fn()
                ms = []
                for _ in range(a.trials):
                    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    e0.record()
                    fn()
                    e1.record()
                    e1.synchronize()
                    ms.append(e0.elapsed_time(e1))
                med = statistics.median(ms)
                row = {"shape": shape, "dtype": name, "call": label, "ms": med, "gbs": nbytes / med / 1e6,
                       "trials": a.trials, "torch": torch.__version__}
                rows_out.append(row)
                print(f"{shape:>12} {name:>5} {label:>20} {med:9.4f} ms {row['gbs']:8.1f} GB/s")
            del x, out, same
            torch.cuda.empty_cache()
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "rows": rows_out}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
