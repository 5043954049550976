"""Issue 28's performance checks of the Python package, in one process (bench/py_h200.sh).

1. Per-call host overhead: wall time per call over 10^4 back-to-back calls
   (torch.cuda.synchronize() only at the end), median of 5 rounds, the
   variants interleaved round by round:
     streamlab.add(x, y, out=z) vs torch.add(x, y, out=z), 2^10 f32;
     streamlab.softmax(x) vs torch.softmax(x, -1), 128 x 1024 f32;
   and the layers beneath: streamlab.add through ctypes instead of
   streamlab._fastcall, the registered op (torch.ops.streamlab.add_out,
   through the dispatcher), the bare sl_add call with its arguments prepared
   (through _fastcall and through ctypes), the Python fast path beside the C++
   call (streamlab._torchcall, when built), the norms' decode calls (1 x 4096
   bf16) beside F.rms_norm / F.layer_norm, and an empty Python call. Then,
   for the add and softmax cases, the host time per call alone and the GPU
   time per call alone (graph replay), since back-to-back calls run at the
   slower of the two.
2. Kernel time: streamlab.bench (graph replay) vs the same C call timed from
   C in a CUDA graph (bench/py_graph_c.c, same calls per graph and
   replays), softmax f32 4096 x 2^15 and add f32 2^28, 3 rounds alternated.

usage: python3 bench/py_bench.py PY_GRAPH_C_BINARY OUT.json
       python3 bench/py_bench.py --overhead-only OUT.json
"""
import json
import statistics
import subprocess
import sys
import time

import _cli

if __name__ == "__main__":
    _cli.positional(__doc__, 2, 2, options=("--overhead-only",))
    _cli.need(("torch", "streamlab"), "torch with CUDA (the device image has it) and the streamlab package (pip install ., or PYTHONPATH=python with STREAMLAB_LIBRARY set to a built libstreamlab.so)")

import torch

import streamlab as sl
import streamlab.bench as slb
from streamlab import _lib, _ops, _table


def per_call(fn, n=10_000):
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


def host_per_call(fn, n=200, rounds=20):
    """Host time per call alone: n calls after a synchronize, timed until the
    last returns (n is below the launch queue's depth, so the GPU does not
    hold the host back), the median of `rounds`, us."""
    out = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        out.append((time.perf_counter() - t) / n * 1e6)
    torch.cuda.synchronize()
    return statistics.median(out)


def split_host_gpu(cases):
    """For the softmax and add cases: host time per call (host_per_call) and GPU
    time per call (a CUDA graph of 100 calls, replayed: no launch cost), us. The
    wall time of back-to-back calls is about the larger of the two."""
    out = {}
    for k, f in cases.items():
        g = slb.time_callable(f, calls=100, reps=10)["median"] * 1e6
        out[k] = {"host_us": host_per_call(f), "gpu_us": g}
    return out


def overhead():
    x, y, z = (torch.randn(1 << 10, device="cuda") for _ in range(3))
    s = torch.randn(128, 1024, device="cuda") * 5
    spec = _table.SPECS["add"]
    sl.add(x, y, out=z)
    fn = _ops._BOUND["add"]
    fn_ctypes = _ops._CTYPES_BOUND["add"]
    saved = _ops._BOUND["add"]
    _ops._BOUND["add"] = fn_ctypes
    add_ctypes = _ops._gen_fast(spec)  # the same generated checks, calling through ctypes
    _ops._BOUND["add"] = saved
    ctx = _lib.context(0)
    stream = torch.cuda.current_stream().cuda_stream
    px, py, pz = x.data_ptr(), y.data_ptr(), z.data_ptr()
    s_out = torch.empty_like(s)
    sl.softmax(s, out=s_out)
    fs = _ops._BOUND["softmax"]
    # the Python fast path (_ops._gen_fast: the checks through torch's Python getters), which
    # the public functions use where streamlab._torchcall is not built, beside the C++ call
    add_py = _ops._gen_fast(spec, sl._general, False)
    softmax_py = _ops._gen_fast(_table.SPECS["softmax"], sl._general, True)
    # issue 32's decode bound (host time of an eager call against torch's), 1 x 4096 bf16
    xd = torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16)
    wd, bd = (torch.randn(4096, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    ps, pso = s.data_ptr(), s_out.data_ptr()
    cases = {
        "streamlab.add(x, y, out=z)": lambda: sl.add(x, y, out=z),
        "streamlab.add, through ctypes": lambda: add_ctypes(x, y, z),
        "torch.add(x, y, out=z)": lambda: torch.add(x, y, out=z),
        "torch.ops.streamlab.add_out(x, y, z)": lambda: torch.ops.streamlab.add_out(x, y, z),
        "sl_add, arguments ready (%s)" % sl.BINDING: lambda: fn(ctx, 0, 1024, px, py, pz, stream),
        "sl_add, arguments ready (ctypes)": lambda: fn_ctypes(ctx, 0, 1024, px, py, pz, stream),
        "streamlab.softmax(x) 128x1024": lambda: sl.softmax(s),
        "torch.softmax(x, -1) 128x1024": lambda: torch.softmax(s, -1),
        # where streamlab.softmax's time goes: the output's allocation, the C call alone
        "streamlab.softmax(x, out=y) 128x1024": lambda: sl.softmax(s, out=s_out),
        "sl_softmax, arguments ready (%s)" % sl.BINDING: lambda: fs(ctx, 0, 128, 1024, ps, pso, stream),
        "torch.empty_like(x) 128x1024": lambda: torch.empty_like(s),
        "streamlab.add, Python fast path": lambda: add_py(x, y, z),
        "streamlab.softmax, Python fast path": lambda: softmax_py(s, None),
        "streamlab.rms_norm_forward 1x4096 bf16": lambda: sl.rms_norm_forward(xd, wd, 1e-6),
        "F.rms_norm 1x4096 bf16": lambda: torch.nn.functional.rms_norm(xd, (4096,), wd, 1e-6),
        "streamlab.layer_norm_forward 1x4096 bf16": lambda: sl.layer_norm_forward(xd, wd, bd, 1e-5),
        "F.layer_norm 1x4096 bf16": lambda: torch.nn.functional.layer_norm(xd, (4096,), wd, bd, 1e-5),
        "empty Python lambda": lambda: None,
    }
    rounds = {k: [] for k in cases}
    for _ in range(5):
        for k, f in cases.items():
            rounds[k].append(per_call(f))
    res = {k: statistics.median(v) for k, v in rounds.items()}
    res["ratio add"] = res["streamlab.add(x, y, out=z)"] / res["torch.add(x, y, out=z)"]
    res["ratio softmax"] = res["streamlab.softmax(x) 128x1024"] / res["torch.softmax(x, -1) 128x1024"]
    res["ratio rms_norm decode"] = res["streamlab.rms_norm_forward 1x4096 bf16"] / res["F.rms_norm 1x4096 bf16"]
    res["ratio layer_norm decode"] = (res["streamlab.layer_norm_forward 1x4096 bf16"]
                                      / res["F.layer_norm 1x4096 bf16"])
    split = split_host_gpu({k: cases[k] for k in (
        "streamlab.add(x, y, out=z)", "streamlab.add, Python fast path", "torch.add(x, y, out=z)",
        "streamlab.softmax(x, out=y) 128x1024", "streamlab.softmax(x) 128x1024",
        "streamlab.softmax, Python fast path", "torch.softmax(x, -1) 128x1024",
        "streamlab.rms_norm_forward 1x4096 bf16", "F.rms_norm 1x4096 bf16",
        "streamlab.layer_norm_forward 1x4096 bf16", "F.layer_norm 1x4096 bf16")})
    del spec
    return res, rounds, split


def agreement(cbin):
    rows, cols, n = 4096, 1 << 15, 1 << 28
    calls, reps = 10, 20
    x = torch.randn(rows, cols, device="cuda") * 5
    y = torch.empty_like(x)
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.empty_like(a)
    out = {"softmax": {"python": [], "c": []}, "add": {"python": [], "c": []}}
    for _ in range(3):
        t = slb.time_callable(lambda: sl.softmax(x, out=y), calls=calls, reps=reps)
        out["softmax"]["python"].append(t["median"] * 1e6)
        r = subprocess.run([cbin, "softmax", str(rows), str(cols), str(calls), str(reps)], capture_output=True,
                           text=True, check=True)
        print("  C:", r.stdout.strip())
        out["softmax"]["c"].append(float(r.stdout.split()[2]))
        t = slb.time_callable(lambda: sl.add(a, b, out=c), calls=calls, reps=reps)
        out["add"]["python"].append(t["median"] * 1e6)
        r = subprocess.run([cbin, "add", str(n), str(calls), str(reps)], capture_output=True, text=True, check=True)
        print("  C:", r.stdout.strip())
        out["add"]["c"].append(float(r.stdout.split()[2]))
    for k, v in out.items():
        v["python_median_us"] = statistics.median(v["python"])
        v["c_median_us"] = statistics.median(v["c"])
        v["python / c"] = v["python_median_us"] / v["c_median_us"]
    return out


def main():
    cbin, path = sys.argv[1], sys.argv[2]
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__, "streamlab", sl.BACKENDS,
          "binding", sl.BINDING, "torchcall", _ops.TORCHCALL)
    res, rounds, split = overhead()
    print("\n## Per-call wall time (us), 10^4 back-to-back calls, median of 5 rounds")
    for k, v in res.items():
        print("  %-42s %8.3f" % (k, v))
    print("\n## Host time and GPU time per call (us): host = 200 calls after a sync; GPU = graph replay")
    for k, v in split.items():
        print("  %-42s host %7.3f  GPU %7.3f" % (k, v["host_us"], v["gpu_us"]))
    if cbin == "--overhead-only":
        json.dump({"overhead_us": res, "overhead_rounds": rounds, "host_gpu_us": split,
                   "device": torch.cuda.get_device_name(), "torch": torch.__version__,
                   "torchcall": _ops.TORCHCALL}, open(path, "w"), indent=1)
        return
    ag = agreement(cbin)
    print("\n## Kernel time: streamlab.bench vs C, CUDA graph of 10 calls, 20 replays (us per call)")
    for k, v in ag.items():
        print("  %-8s python %s  C %s  python/C %.4f" % (k, ["%.2f" % t for t in v["python"]],
                                                          ["%.2f" % t for t in v["c"]], v["python / c"]))
    json.dump({"overhead_us": res, "overhead_rounds": rounds, "host_gpu_us": split, "kernel_time": ag,
               "device": torch.cuda.get_device_name(), "torch": torch.__version__,
                   "torchcall": _ops.TORCHCALL}, open(path, "w"), indent=1)


if __name__ == "__main__":
    main()
