"""The binding layer's own cost (issue 28): one sl_add call with n = 0 on a CPU
context (returns at once, so only the call is timed) through ctypes (what
streamlab uses) and through a C extension (bench/py_binding_ext.c, built here
against the installed package), beside an empty Python call. Median of 5 x
10^5 calls each, interleaved.

usage: python3 bench/py_binding_cost.py   (needs a C compiler and Python's headers)
"""
import importlib.util
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

import _cli

_cli.positional(__doc__, 0, 0)
_cli.need(("numpy", "streamlab"), "NumPy and the installed streamlab package (pip install .)")

import numpy as np

import streamlab as sl
from streamlab import _lib, _ops

here = os.path.dirname(os.path.abspath(__file__))
site = os.path.dirname(sl.__file__)
tmp = tempfile.mkdtemp()
so = os.path.join(tmp, "slext" + sysconfig.get_config_var("EXT_SUFFIX"))
subprocess.run(["cc", "-O2", "-shared", "-fPIC", os.path.join(here, "py_binding_ext.c"),
                "-I" + sysconfig.get_paths()["include"], "-I" + os.path.join(site, "include"), "-L" + site,
                "-lstreamlab", "-Wl,-rpath," + site, "-o", so], check=True)
spec = importlib.util.spec_from_file_location("slext", so)
slext = importlib.util.module_from_spec(spec)
spec.loader.exec_module(slext)

a = np.ones(0, np.float32)
p = a.ctypes.data
sl.add(a, a, out=a)
fn, ctx = _ops._CTYPES_BOUND["add"], _lib.context(-1)
fc = _ops._fastcall.sl_add if _ops._fastcall is not None else None
cases = {"ctypes (argtypes set)": lambda: fn(ctx, 0, 0, p, p, p, None),
         "C extension (METH_FASTCALL), bench/py_binding_ext.c": lambda: slext.add(ctx, 0, 0, p, p, p, None),
         "streamlab.add(a, a, out=a), NumPy": lambda: sl.add(a, a, out=a),
         "empty Python call": lambda: None}
if fc is not None:
    cases["streamlab._fastcall.sl_add (generated)"] = lambda: fc(ctx, 0, 0, p, p, p, None)
try:
    import torch
    t = torch.ones(0)
    cases["streamlab.add(t, t, out=t), torch CPU (%s)" % sl.BINDING] = lambda: sl.add(t, t, out=t)
    spec = sl._S["add"]
    saved = _ops._BOUND["add"]
    _ops._BOUND["add"] = _ops._CTYPES_BOUND["add"]
    add_ctypes = _ops._gen_fast(spec)  # the same generated checks, through ctypes
    _ops._BOUND["add"] = saved
    cases["streamlab.add(t, t, out=t), torch CPU (ctypes)"] = lambda: add_ctypes(t, t, t)
    cases["torch.add(t, t, out=t), torch CPU"] = lambda: torch.add(t, t, out=t)
except ImportError:
    pass
res = {k: [] for k in cases}
for _ in range(5):
    for k, f in cases.items():
        t0 = time.perf_counter()
        for _ in range(100000):
            f()
        res[k].append((time.perf_counter() - t0) / 1e5 * 1e6)
print("python", sys.version.split()[0])
for k, v in res.items():
    print("%-42s %.3f us per call (median of 5 x 10^5)" % (k, statistics.median(v)))
