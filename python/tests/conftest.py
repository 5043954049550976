"""Backends the tests run on: NumPy and torch CPU always (when installed),
torch CUDA and CuPy when a GPU is there (else skipped with the reason)."""
from __future__ import annotations

import numpy as np
import pytest

import streamlab

try:
    import torch
except ImportError:
    torch = None  # noqa: F811 (re-exported to the tests)

HAVE_CUDA = (torch is not None and torch.cuda.is_available() and streamlab.HAVE_CUDA_BUILD)
WHY_NO_CUDA = ("no CUDA GPU visible to torch" if torch is None or not torch.cuda.is_available()
               else "libstreamlab.so was built without CUDA (%s)" % streamlab.BACKENDS)

try:
    import cupy
    HAVE_CUPY = HAVE_CUDA and cupy.cuda.runtime.getDeviceCount() > 0
except Exception:
    cupy = None
    HAVE_CUPY = False

requires_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
requires_cuda = pytest.mark.skipif(not HAVE_CUDA, reason=WHY_NO_CUDA)

BACKENDS = [
    pytest.param("numpy", id="numpy"),
    pytest.param("torch-cpu", id="torch-cpu", marks=requires_torch),
    pytest.param("torch-cuda", id="torch-cuda", marks=requires_cuda),
    pytest.param("cupy", id="cupy", marks=pytest.mark.skipif(not HAVE_CUPY, reason="CuPy or a GPU is missing")),
]

NUMPY_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16}


def torch_dtype(dt: str):
    return {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
            "fp8e4m3": getattr(torch, "float8_e4m3fn", None), "fp8e5m2": getattr(torch, "float8_e5m2", None)}[dt]


def supports(backend: str, dt: str) -> bool:
    if backend in ("numpy", "cupy"):
        return dt in NUMPY_DTYPES
    return torch is not None and torch_dtype(dt) is not None


def make(backend: str, values: np.ndarray, dt: str):
    """values (float64) converted to dt on the backend: a fresh contiguous array."""
    if backend == "numpy":
        return np.ascontiguousarray(values.astype(NUMPY_DTYPES[dt]))
    if backend == "cupy":
        return cupy.asarray(values.astype(NUMPY_DTYPES[dt]))
    dev = "cuda" if backend == "torch-cuda" else "cpu"
    return torch.from_numpy(np.ascontiguousarray(values)).to(device=dev).to(torch_dtype(dt)).contiguous()


def f64(x) -> np.ndarray:
    """Any backend's array as NumPy float64 (exact widening)."""
    if isinstance(x, np.ndarray):
        return x.astype(np.float64)  # a copy, also for float64
    if cupy is not None and isinstance(x, cupy.ndarray):
        return cupy.asnumpy(x).astype(np.float64)
    return x.detach().to("cpu").to(torch.float64).numpy().copy()  # a copy: in-place ops change x later


def round_to(values: np.ndarray, dt: str, backend: str) -> np.ndarray:
    """float64 values rounded once to dt (by NumPy or torch, never by streamlab), widened back."""
    if dt in NUMPY_DTYPES:
        return values.astype(NUMPY_DTYPES[dt]).astype(np.float64)
    return torch.from_numpy(values).to(torch_dtype(dt)).to(torch.float64).numpy()


def sync(backend: str) -> None:
    if backend == "torch-cuda":
        torch.cuda.synchronize()
    elif backend == "cupy":
        cupy.cuda.runtime.deviceSynchronize()


def strided(x):
    """A non-contiguous view of x (every other element of the last dimension)."""
    return x[..., ::2]


# Unit roundoffs of the storage types (2^-p, p the significand bits incl. the hidden one).
UNIT = {"f64": 2.0**-53, "f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8, "fp8e4m3": 2.0**-4, "fp8e5m2": 2.0**-3}
