#!/usr/bin/env python3
"""peers.py - PyTorch on the same work as streamlab's ladders: a table of ops and
shapes, every one timed by streamlab.bench (python/streamlab/bench.py), the one
timing module of the project.

    python3 bench/peers.py elementwise --sizes 2^26,2^28 --dtypes f32,bf16 --json out.json
    python3 bench/peers.py softmax --shapes 4096x2^15 --dtypes f32,bf16 --cold --json out.json
    python3 bench/peers.py transpose --shapes 8192x8192 --dtypes f32,f64,bf16 --json out.json
    python3 bench/peers.py --list

Ops (the calls, the bytes each counts, the modes it is timed in):
  elementwise  torch.add(x, y, out=c) and y.add_(x, alpha=a): issue 6's bars
               against the add and axpy ladders. Bytes (2 reads + 1 write) x
               element size x n. Inputs uniform in [0.5, 1.5). eager.
  softmax      torch.softmax(x, dim=-1): issue 18's bars. Bytes = rows x cols x
               element size, read + written. Inputs uniform in [-8, 8); the
               output checked against torch.softmax in float64 on 16 rows (max
               relative error, row-sum error reported). eager and graph.
  transpose    x.t().contiguous() (a new tensor a call, as a user writes it),
               out.copy_(x.t()) (into a preallocated output, as streamlab's
               rungs write) and same.copy_(x) (a plain device copy of the same
               bytes, the same-run ceiling): issue 11. Bytes 2 x rows x cols x
               element size. Inputs normal; the transpose checked exact. eager.

Timing (streamlab.bench.time_callable, one method for every op):
  eager  --warmup calls, then one CUDA event pair around each of --trials calls
         (Python dispatch and allocation included: what a user sees); the
         median; --cold runs a flush (a fill of 256 MiB) before each call;
  graph  --graph-calls calls captured in one CUDA graph, replayed --graph-reps
         times between events: the median per call, the kernel time with
         back-to-back launches (the bars' comparison).
The module is loaded from this checkout's python/streamlab/bench.py, so torch
alone suffices (the streamlab library is not needed to time torch). Each op
writes the JSON its summary script reads (schemas streamlab.torch_peer/1,
streamlab.torch_softmax/1, and transpose's {device, rows}). Run it in the same
device call as streamlab's side so that ratios are side by side
(bench/device.sh stages torch, softmax, transpose). Exit 0; 1 on a wrong
result; 2 without torch or a GPU, or on bad usage.
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys
from typing import Any, Callable, Dict, Iterator, List, Optional

import _cli

HERE = os.path.dirname(os.path.abspath(__file__))


def load_bench():
    """python/streamlab/bench.py of this checkout, as a module (torch is its only import)."""
    path = os.path.join(HERE, "..", "python", "streamlab", "bench.py")
    spec = importlib.util.spec_from_file_location("streamlab_bench_standalone", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_BENCH = None


def bench():
    global _BENCH
    if _BENCH is None:
        _BENCH = load_bench()
    return _BENCH


def events(fn: Callable[[], Any], trials: int, warmup: int, flush: Optional[Callable[[], Any]] = None,
           budget_s: Optional[float] = None) -> Dict[str, Any]:
    """Eager: seconds per call, one event pair around each call (streamlab.bench, graph=False)."""
    return bench().time_callable(fn, graph=False, reps=trials, warmup=warmup, flush=flush, budget_s=budget_s)


def graph(fn: Callable[[], Any], calls: int, reps: int, warmup: int = 3) -> Dict[str, Any]:
    """Graph replay: seconds per call of `calls` captured calls, median over `reps` replays."""
    return bench().time_callable(fn, graph=True, calls=calls, reps=reps, warmup=warmup)


def size(s: str) -> int:
    """2^26, 100M, 1e9, 4096."""
    s = s.strip()
    if "^" in s:
        b, e = s.split("^")
        return int(b) ** int(e)
    mult = {"K": 10**3, "M": 10**6, "G": 10**9}
    if s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(float(s))


def shape(s: str):
    return tuple(size(v) for v in s.lower().split("x"))


class WrongResult(Exception):
    pass


# ---- the ops: each a generator of rows, given torch, the timing args and its options ------------
def op_elementwise(torch, a) -> Iterator[Dict[str, Any]]:
    types = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    print(f"{'op':5} {'dtype':5} {'n':>12} {'median ms':>10} {'GB/s':>9}")
    for op in a.ops.split(","):
        for dn in a.dtypes.split(","):
            dt = types[dn]
            for n in map(size, a.sizes.split(",")):
                g = torch.Generator(device="cuda").manual_seed(n)
                x = (torch.rand(n, device="cuda", generator=g) + 0.5).to(dt)
                y = (torch.rand(n, device="cuda", generator=g) + 0.5).to(dt)
                out = torch.empty_like(x) if op == "add" else None
                if op == "add":
                    fn = lambda: torch.add(x, y, out=out)  # noqa: E731
                else:
                    fn = lambda: y.add_(x, alpha=a.alpha)  # noqa: E731
                t = events(fn, a.trials, a.warmup)
                res = out if op == "add" else y
                if not bool(torch.isfinite(res[: min(n, 1 << 20)].float()).all()):
                    raise WrongResult(f"{op} {dn} n={n}: non-finite results")
                med = t["median"] * 1e3
                gbs = 3 * n * x.element_size() / (med * 1e6)
                print(f"{op:5} {dn:5} {n:12d} {med:10.4f} {gbs:9.1f}", flush=True)
                yield {"op": op, "dtype": dn, "n": n, "median_ms": med, "min_ms": t["min"] * 1e3, "gbs": gbs,
                       "call": "torch.add(x, y, out=c)" if op == "add" else f"y.add_(x, alpha={a.alpha})"}
                del x, y, out
                torch.cuda.empty_cache()


def op_softmax(torch, a) -> Iterator[Dict[str, Any]]:
    types = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    flush = None
    if a.cold:
        buf = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
        count = [0]

        def flush():
            buf.fill_(count[0] & 0xFF)
            count[0] += 1
    print(f"{'shape':14} {'dtype':5} {'eager us':>9} {'GB/s':>7} {'graph us':>9} {'GB/s':>7} {'max rel err':>11}")
    for dn in a.dtypes.split(","):
        dt = types[dn]
        for sh in a.shapes.split(","):
            r, c = shape(sh)
            g = torch.Generator(device="cuda").manual_seed(r * 1000003 + c)
            x = ((torch.rand(r, c, device="cuda", generator=g) - 0.5) * 16).to(dt)
            nbytes = 2 * x.numel() * x.element_size()
            y = torch.softmax(x, dim=-1)
            idx = torch.unique(torch.linspace(0, r - 1, 16, device="cuda").long())
            ref = torch.softmax(x[idx].double(), dim=-1)
            got = y[idx].double()
            rel = ((got - ref).abs() / ref.abs().clamp_min(1e-300)).max().item()
            sums = (got.sum(dim=-1) - 1).abs().max().item()
            fn = lambda: torch.softmax(x, dim=-1)  # noqa: E731
            eager = events(fn, a.trials, 5, flush=flush)["median"] * 1e6
            calls = a.graph_calls if nbytes < (1 << 28) else max(1, a.graph_calls // 10)
            gr = graph(fn, calls, a.graph_reps)["median"] * 1e6
            print(f"{sh:14} {dn:5} {eager:9.2f} {nbytes / (eager * 1e3):7.0f} {gr:9.2f} {nbytes / (gr * 1e3):7.0f}"
                  f" {rel:11.3g}", flush=True)
            yield {"rows": r, "cols": c, "dtype": dn, "bytes": nbytes, "eager_us": eager, "graph_us": gr,
                   "graph_calls": calls, "max_rel_err": rel, "max_row_sum_err": sums, "cold": a.cold,
                   "call": "torch.softmax(x, dim=-1)"}
            del x, y
            torch.cuda.empty_cache()


def op_transpose(torch, a) -> Iterator[Dict[str, Any]]:
    dts = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16}
    for sh in a.shapes.split(","):
        r, c = shape(sh)
        for name in a.dtypes.split(","):
            dt = dts[name]
            x = torch.randn(r, c, device="cuda", dtype=torch.float32).to(dt)
            out = torch.empty(c, r, device="cuda", dtype=dt)
            same = torch.empty_like(x)
            # checked once before timing: the transpose is exact
            if not torch.equal(x.t().contiguous(), x.t()) or not torch.equal(out.copy_(x.t()), x.t()):
                raise WrongResult(f"{sh} {name}: wrong result")
            calls = {"t().contiguous()": lambda: x.t().contiguous(),
                     "copy_(x.t())": lambda: out.copy_(x.t()),
                     "copy_(x) (ceiling)": lambda: same.copy_(x)}
            nbytes = 2 * r * c * x.element_size()
            for label, fn in calls.items():
                med = events(fn, a.trials, a.warmup)["median"] * 1e3
                row = {"shape": sh, "dtype": name, "call": label, "ms": med, "gbs": nbytes / med / 1e6,
                       "trials": a.trials, "torch": torch.__version__}
                print(f"{sh:>12} {name:>5} {label:>20} {med:9.4f} ms {row['gbs']:8.1f} GB/s")
                yield row
            del x, out, same
            torch.cuda.empty_cache()


# name: (function, the options and their defaults, the JSON document around the rows)
OPS = {
    "elementwise": (op_elementwise,
                    {"sizes": "2^26,2^28", "dtypes": "f32,bf16", "ops": "add,axpy", "alpha": 1.3, "trials": 30,
                     "warmup": 5},
                    lambda torch, a, rows: {"schema": "streamlab.torch_peer/1", "torch": torch.__version__,
                                            "device": torch.cuda.get_device_name(0), "trials": a.trials,
                                            "rows": rows}),
    "softmax": (op_softmax,
                {"shapes": "128x2^10,128x2^11,128x2^12,128x2^13,128x2^14,128x2^15,128x2^16,128x2^17",
                 "dtypes": "f32,bf16", "trials": 30, "graph_calls": 100, "graph_reps": 10, "cold": False},
                lambda torch, a, rows: {"schema": "streamlab.torch_softmax/1", "torch": torch.__version__,
                                        "device": torch.cuda.get_device_name(0), "trials": a.trials, "rows": rows}),
    "transpose": (op_transpose,
                  {"shapes": "8192x8192,16384x16384", "dtypes": "f32,f64,bf16", "trials": 30, "warmup": 5},
                  lambda torch, a, rows: {"device": torch.cuda.get_device_name(0), "rows": rows}),
}


def main(argv: Optional[List[str]] = None) -> int:
    ap = _cli.parser(__doc__, prog="bench/peers.py")
    ap.add_argument("--list", action="store_true", help="list the ops and their options")
    sub = ap.add_subparsers(dest="op")
    for name, (_, opts, _) in OPS.items():
        p = sub.add_parser(name)
        for k, v in opts.items():
            flag = "--" + k.replace("_", "-")
            if isinstance(v, bool):
                p.add_argument(flag, action="store_true")
            else:
                p.add_argument(flag, type=type(v), default=v)
        p.add_argument("--json", help="write the rows here")
    a = ap.parse_args(argv)
    if a.list:
        for name, (_, opts, _) in OPS.items():
            print(name + ": " + " ".join(("[--%s]" if isinstance(v, bool) else "--%s " + str(v)) % k.replace("_", "-")
                                         for k, v in opts.items()))
        return 0
    if a.op is None:
        ap.print_usage(sys.stderr)
        return 2
    try:
        import torch
    except ImportError:
        print("peers.py: torch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("peers.py: torch sees no CUDA device", file=sys.stderr)
        return 2
    fn, _, doc = OPS[a.op]
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}; {a.op}: median of {a.trials} trials")
    rows: List[Dict[str, Any]] = []
    try:
        for row in fn(torch, a):
            rows.append(row)
    except WrongResult as e:
        print(f"peers.py {a.op}: {e}", file=sys.stderr)
        return 1
    if a.json:
        with open(a.json, "w") as f:
            json.dump(doc(torch, a, rows), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
