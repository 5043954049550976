"""torch_host_costs.py - what each torch call that streamlab's Python fast path makes costs on
the host, on CUDA tensors (docs/python.md, "Overhead and choices"): the attribute reads and
checks, the stream lookup, the version bump and the ways of allocating an output.

    python3 bench/experiments/torch_host_costs.py [OUT.json]

Each row: ns per call, the minimum over 7 rounds of 20,000 calls (timeit), GPU idle (no
kernel is launched except by the allocation rows, which launch none).
"""
import json
import sys
import timeit

import torch

x = torch.randn(128, 1024, device="cuda")
shp = x.shape
dt = x.dtype
dev = x.get_device()
raw = torch._C._cuda_getCurrentRawStream
cases = {
    "empty Python call": "f()",
    "x.dtype": "x.dtype",
    "x.get_device()": "x.get_device()",
    "x.is_contiguous()": "x.is_contiguous()",
    "x.is_neg()": "x.is_neg()",
    "x.shape": "x.shape",
    "x.numel()": "x.numel()",
    "x.data_ptr()": "x.data_ptr()",
    "x.requires_grad": "x.requires_grad",
    "torch.is_grad_enabled()": "torch.is_grad_enabled()",
    "torch.compiler.is_compiling()": "torch.compiler.is_compiling()",
    "torch._C._cuda_getCurrentRawStream(dev)": "raw(dev)",
    "torch._C._increment_version((x,))": "torch._C._increment_version((x,))",
    "torch.empty_like(x)": "torch.empty_like(x)",
    "x.new_empty(shp)": "x.new_empty(shp)",
    "torch.empty(shp, dtype=dt, device=x.device)": "torch.empty(shp, dtype=dt, device=x.device)",
    "torch.empty(shp, dtype=dt, device=dev)": "torch.empty(shp, dtype=dt, device=dev)",
    "torch.empty_strided(shp, x.stride(), dtype=dt, device=dev)": "torch.empty_strided(shp, x.stride(), dtype=dt, device=dev)",
}
g = dict(globals(), f=lambda: None)
res = {}
for name, stmt in cases.items():
    timeit.timeit(stmt, number=2000, globals=g)
    res[name] = min(timeit.repeat(stmt, number=20000, repeat=7, globals=g)) / 20000 * 1e9
    print("%-60s %8.1f ns" % (name, res[name]))
if len(sys.argv) > 1:
    json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "ns_per_call": res},
              open(sys.argv[1], "w"), indent=1)
