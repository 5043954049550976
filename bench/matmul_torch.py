#!/usr/bin/env python3
"""matmul_torch.py - torch.matmul (cuBLAS underneath) on the matmul bench's
problems, timed the same way as bench/matmul_bench.c: square M = N = K,
inputs uniform in [-1, 1), 2 warm-ups, one CUDA event pair per launch, the
median of up to --trials launches (at most --budget-s seconds per row),
through bench/peers.py (streamlab.bench.time_callable, graph=False).

    python3 bench/matmul_torch.py --sizes 1024,2048,4096,8192 --json torch.json

Rows: f32 (allow_tf32 off), tf32 (allow_tf32 on), bf16, f16. Exits 2
without torch or a GPU.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _cli  # noqa: E402
import peers  # noqa: E402  (the timing: streamlab.bench, events)


def main():
    ap = _cli.parser(__doc__)
    ap.add_argument("--sizes", default="1024,2048,4096,8192", help="M = N = K of each row (default: %(default)s)")
    ap.add_argument("--trials", type=int, default=20, help="launches timed a row, at most (default: %(default)s)")
    ap.add_argument("--budget-s", type=float, default=0.4, help="seconds a row, at most (default: %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="write the rows here")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("matmul_torch: no torch", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("matmul_torch: no CUDA device", file=sys.stderr)
        return 2
    rows = []
    for mode in ("f32", "tf32", "bf16", "f16"):
        torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
        dt = {"f32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[mode]
        for s in [int(x) for x in args.sizes.split(",")]:
            g = torch.Generator(device="cuda").manual_seed(s)
            a = (torch.rand(s, s, device="cuda", generator=g) * 2 - 1).to(dt)
            b = (torch.rand(s, s, device="cuda", generator=g) * 2 - 1).to(dt)
            t = peers.events(lambda: torch.matmul(a, b), args.trials, 2, budget_s=args.budget_s)
            ts = t["times"]
            ms = t["median"] * 1e3
            tf = 2 * s**3 / (ms * 1e-3) / 1e12
            rows.append({"name": "torch.matmul", "mode": mode, "m": s, "n": s, "k": s, "ms": ms, "tflops": tf,
                         "trials": len(ts)})
            print(f"torch.matmul {mode:5s} {s:5d} {ms:10.4f} ms {tf:8.2f} TFLOP/s n={len(ts)}")
            del a, b
    torch.backends.cuda.matmul.allow_tf32 = False
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema": "streamlab.matmul-torch/1", "torch": torch.__version__,
                       "device": torch.cuda.get_device_name(0), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
