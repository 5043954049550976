"""What an input is: a torch.Tensor, a NumPy array, or any object with __dlpack__.

Each adapter answers the same questions (data pointer, shape, dtype name,
device, C-contiguity) and allocates an output like a given input. Nothing is
ever copied: a non-contiguous input is refused (ValueError naming
.contiguous())."""
from __future__ import annotations

import contextlib
import ctypes
import sys
from typing import Any, Optional, Tuple

from ._lib import SL_DEVICE_CPU

try:
    import torch
except Exception:  # torch is optional
    torch = None  # type: ignore[assignment]

try:
    import numpy as np
except Exception:  # numpy is optional too
    np = None  # type: ignore[assignment]

# ---- torch ------------------------------------------------------------------------
TORCH_DTYPES = {}
if torch is not None:
    TORCH_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64"}
    for _name, _sl in (("float8_e4m3fn", "fp8e4m3"), ("float8_e5m2", "fp8e5m2")):
        if hasattr(torch, _name):
            TORCH_DTYPES[getattr(torch, _name)] = _sl
# Index buffers (a loss's labels), accepted only where an OpSpec's Buf fixes the dtype.
TORCH_INDEX_DTYPES = {torch.int64: "i64", torch.int32: "i32"} if torch is not None else {}
TORCH_FROM_SL = {v: k for k, v in list(TORCH_DTYPES.items()) + list(TORCH_INDEX_DTYPES.items())}

if torch is not None:
    def _current_stream(device: int) -> int:
        return torch.cuda.current_stream(device).cuda_stream

    # torch.cuda.current_stream(device) as a cudaStream_t (an int): torch's own C function
    # where it has one (no Python frame on the fast paths), else through the stream object
    torch_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or _current_stream

# ---- NumPy ------------------------------------------------------------------------
NUMPY_DTYPES = {}
if np is not None:
    NUMPY_DTYPES = {np.dtype(np.float32).str: "f32", np.dtype(np.float64).str: "f64",
                    np.dtype(np.float16).str: "f16", np.dtype(np.int64).str: "i64", np.dtype(np.int32).str: "i32"}

# ---- DLPack (include/dlpack/dlpack.h of dmlc/dlpack, v0.8 to 1.1) -----------------------
kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13
# (type code, bits) -> sl dtype. Codes: kDLFloat 2, kDLBfloat 4; DLPack 1.1's
# kDLFloat8_e4m3fn 10 and kDLFloat8_e5m2 12.
_DL_DTYPES = {(0, 64): "i64", (0, 32): "i32", (2, 32): "f32", (2, 64): "f64", (2, 16): "f16", (4, 16): "bf16", (10, 8): "fp8e4m3",
              (12, 8): "fp8e5m2"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Array:
    """One non-torch input or output seen through NumPy's array interface or DLPack.
    `keep` holds what must stay alive until the C call has been enqueued."""

    __slots__ = ("obj", "ptr", "shape", "dtype", "device", "contiguous", "keep", "writeable")

    def __init__(self, obj: Any, ptr: int, shape: Tuple[int, ...], dtype: Optional[str], device: int,
                 contiguous: bool, keep: Any = None, writeable: bool = True) -> None:
        self.obj, self.ptr, self.shape, self.dtype = obj, ptr, shape, dtype
        self.device, self.contiguous, self.keep = device, contiguous, keep
        self.writeable = writeable  # False: never an output (NumPy's flag; DLPack's legacy capsule has none)


def _c_contiguous(shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]], itemsize: int) -> bool:
    if strides is None or 0 in shape:
        return True
    expect = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expect:
            return False
        expect *= extent
    return True


def from_numpy(a: Any) -> Array:
    ai = a.__array_interface__
    shape = tuple(ai["shape"])
    dt = NUMPY_DTYPES.get(ai["typestr"])
    itemsize = a.dtype.itemsize
    contiguous = _c_contiguous(shape, ai.get("strides"), itemsize)
    # read-only arrays are fine as inputs; the caller refuses them as outputs
    return Array(a, ai["data"][0], shape, dt, SL_DEVICE_CPU, contiguous, writeable=bool(a.flags.writeable))


def from_dlpack(obj: Any) -> Array:
    """Read an object through __dlpack__. For a CUDA array the producer is told
    that the work goes on the legacy default stream (stream=1), which is the
    stream streamlab then uses (docs/python.md)."""
    dl_dev = obj.__dlpack_device__()
    if not (isinstance(dl_dev, tuple) and len(dl_dev) == 2 and all(isinstance(v, int) for v in dl_dev)):
        raise TypeError("streamlab: %s.__dlpack_device__() returned %r, not (device type, device id)"
                        % (type(obj).__name__, dl_dev))
    dev_type, dev_id = dl_dev
    if dev_type in (kDLCUDA, kDLCUDAManaged):
        cap = obj.__dlpack__(stream=1)
        device = int(dev_id)
    elif dev_type in (kDLCPU, kDLCUDAHost):
        cap = obj.__dlpack__()
        device = SL_DEVICE_CPU
    else:
        raise ValueError("streamlab: DLPack device type %d is neither CPU nor CUDA" % dev_type)
    if type(cap).__name__ != "PyCapsule":
        raise TypeError("streamlab: %s.__dlpack__() returned a %s, not a DLPack capsule"
                        % (type(obj).__name__, type(cap).__name__))
    ptr = _PyCapsule_GetPointer(cap, b"dltensor")
    t = _DLTensor.from_address(ptr)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    dt = _DL_DTYPES.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None
    contiguous = _c_contiguous(shape, strides, 1)  # DLPack strides count elements
    return Array(obj, (t.data or 0) + t.byte_offset, shape, dt, device, contiguous, keep=cap)


def is_array(obj: Any) -> bool:
    """Whether adapt takes obj: a NumPy array, or an object with the DLPack protocol."""
    return (np is not None and isinstance(obj, np.ndarray)) or (
        hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"))


def adapt(obj: Any) -> Array:
    if np is not None and isinstance(obj, np.ndarray):
        return from_numpy(obj)
    if is_array(obj):
        return from_dlpack(obj)
    raise TypeError("streamlab: expected a torch.Tensor, a NumPy array or an object with __dlpack__, got %s"
                    % type(obj).__name__)


_NP_NAMES = {"f32": "float32", "f64": "float64", "f16": "float16", "i64": "int64", "i32": "int32"}


def empty_like_array(a: Array, shape: Tuple[int, ...], dtype: Optional[str] = None) -> Array:
    """An output of `shape` from a's own library and device, of a's dtype or of
    `dtype` (an sl name; the Array API's namespace: NumPy >= 2, CuPy; plain
    NumPy otherwise)."""
    obj = a.obj
    if dtype is not None:
        if dtype not in _NP_NAMES:
            raise TypeError("streamlab: cannot allocate a %s output outside torch; pass it" % dtype)
    if np is not None and isinstance(obj, np.ndarray):
        return from_numpy(np.empty(shape, dtype=_NP_NAMES[dtype] if dtype else obj.dtype))
    ns = getattr(obj, "__array_namespace__", None)
    if ns is not None:
        xp = ns()
    else:  # CuPy 14 has no __array_namespace__: its own module, if it has empty()
        xp = sys.modules.get(type(obj).__module__.split(".")[0])
        if xp is None or not hasattr(xp, "empty"):
            raise TypeError("streamlab: cannot allocate an output like a %s (no __array_namespace__); pass out="
                            % type(obj).__name__)
    want = getattr(xp, _NP_NAMES[dtype]) if dtype else obj.dtype
    dev = getattr(obj, "device", None)
    with (dev if hasattr(dev, "__enter__") else contextlib.nullcontext()):  # CuPy: the array's device
        try:
            out = xp.empty(shape, dtype=want, device=dev) if ns is not None and dev is not None else \
                xp.empty(shape, dtype=want)
        except TypeError:
            out = xp.empty(shape, dtype=want)
    return adapt(out)
