"""torch_attr_checks.py - issue 28: what moving the fast path's tensor checks into C (the CPython
API, without libtorch) would save. Builds torch_attr_checks.c with the C compiler (cc) against this
Python's headers, then times, on three 2^10-element f32 tensors (CPU, or CUDA with --cuda), the
checks of streamlab.add(x, y, out=z)'s fast path written in Python, the same checks in C, and
torch.add(x, y, out=z) itself. ns per call, the minimum of 7 rounds of 10^5 calls (timeit).

    python3 bench/experiments/torch_attr_checks.py [--cuda]
"""
import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
import timeit

import torch

here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp()
so = os.path.join(tmp, "torch_attr_checks" + sysconfig.get_config_var("EXT_SUFFIX"))
subprocess.check_call(["cc", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
                       "-I" + sysconfig.get_paths()["include"], os.path.join(here, "torch_attr_checks.c"), "-o", so])
spec = importlib.util.spec_from_file_location("torch_attr_checks", so)
ext = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ext)
ext.set_tensor_type(torch.Tensor)

dev = "cuda" if "--cuda" in sys.argv else "cpu"
x, y, z = (torch.randn(1024, device=dev) for _ in range(3))
T = torch.Tensor


def py3(x, y, z):
    """The generated fast path's checks for add(x, y, out=z), without the C call."""
    if type(x) is T and type(y) is T and type(z) is T:
        dt = x.dtype
        d = x.get_device()
        if x.is_contiguous() and not x.is_neg():
            shp = x.shape
            if x.requires_grad or y.requires_grad or z.requires_grad:
                return None
            if not (y.dtype is dt and y.get_device() == d and y.is_contiguous() and y.shape == shp and not y.is_neg()):
                return None
            if not (z.dtype is dt and z.get_device() == d and z.is_contiguous() and z.shape == shp and not z.is_neg()):
                return None
            return x.data_ptr(), y.data_ptr(), z.data_ptr()
    return None


assert py3(x, y, z) is not None and ext.check3(x, y, z) == x.data_ptr()
assert ext.check3(x, y, z.t() if z.dim() > 1 else z[::2]) is None
g = {"py3": py3, "c3": ext.check3, "torch": torch, "x": x, "y": y, "z": z}
print("torch %s, Python %s, %s tensors" % (torch.__version__, sys.version.split()[0], dev))
for name, stmt in [("checks in Python", "py3(x, y, z)"), ("checks in C (CPython API)", "c3(x, y, z)"),
                   ("torch.add(x, y, out=z)", "torch.add(x, y, out=z)")]:
    ns = min(timeit.repeat(stmt, number=100000, repeat=7, globals=g)) / 1e5 * 1e9
    print("%-28s %8.1f ns" % (name, ns))
