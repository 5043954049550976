"""Loading libstreamlab.so, its declarations, its errors and its contexts.

The package implements no op: every function ends in one C call of
libstreamlab.so (include/streamlab.h). The argument types of each C function
are read from the header the build generated from src/ops/*/api.h
(streamlab_ops.h, installed beside the library), so a binding cannot
disagree with the C declaration it calls.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import _decls

_HERE = Path(__file__).resolve().parent

# sl_status (include/streamlab.h), in enum order.
_STATUS_NAMES = (
    "SL_OK", "SL_ERR_INVALID_ARG", "SL_ERR_MISALIGNED", "SL_ERR_OVERLAP", "SL_ERR_UNSUPPORTED",
    "SL_ERR_NO_MEMORY", "SL_ERR_NO_DEVICE", "SL_ERR_BAD_DEVICE", "SL_ERR_BAD_POINTER", "SL_ERR_CUDA",
    "SL_ERR_CUDA_FAULT", "SL_ERR_VERIFY", "SL_ERR_IO", "SL_ERR_INTERRUPTED", "SL_ERR_INTERNAL",
)
STATUS = {name: i for i, name in enumerate(_STATUS_NAMES)}

# sl_dtype, in enum order; the names are sl_dtype_name()'s.
DTYPES = ("f32", "f16", "bf16", "fp8e4m3", "fp8e5m2", "f64")
DTYPE_CODE = {name: i for i, name in enumerate(DTYPES)}
DTYPE_SIZE = {"f32": 4, "f16": 2, "bf16": 2, "fp8e4m3": 1, "fp8e5m2": 1, "f64": 8}

SL_DEVICE_CPU = -1


class StreamlabError(Exception):
    """Mixin of every exception streamlab raises for an sl_status: `status` is the
    C status name (e.g. "SL_ERR_OVERLAP"), the message sl_last_error()'s text."""

    status: str = ""


class StreamlabValueError(StreamlabError, ValueError):
    """Bad shape, dtype, alignment, overlap or device (a ValueError)."""


class StreamlabRuntimeError(StreamlabError, RuntimeError):
    """A CUDA error or fault, or a bug in streamlab (a RuntimeError)."""


class StreamlabMemoryError(StreamlabError, MemoryError):
    """An allocation inside the library failed."""


_VALUE_STATUSES = {"SL_ERR_INVALID_ARG", "SL_ERR_MISALIGNED", "SL_ERR_OVERLAP", "SL_ERR_UNSUPPORTED",
                   "SL_ERR_NO_DEVICE", "SL_ERR_BAD_DEVICE", "SL_ERR_BAD_POINTER"}


def _find_library() -> Path:
    env = os.environ.get("STREAMLAB_LIBRARY")
    if env:
        return Path(env)
    candidates = [_HERE / "libstreamlab.so"]
    # An editable install (pip install -e .) keeps the Python files in the
    # source tree and the library in site-packages/streamlab.
    for entry in sys.path:
        if entry:
            candidates.append(Path(entry) / "streamlab" / "libstreamlab.so")
    for c in candidates:
        if c.is_file():
            return c
    raise ImportError("streamlab: libstreamlab.so not found beside the package (%s); install the package "
                      "with `pip install .` from the repository, or set STREAMLAB_LIBRARY" % _HERE)


def _preload_cuda_libraries() -> None:
    """libstreamlab.so of a CUDA build needs libcublas (the axpy peer). Where the
    toolkit's lib directory (the library's RUNPATH) is absent, as on a machine
    that installed the wheel and PyTorch but no toolkit, PyTorch's own copies
    (the nvidia-* wheels) are loaded: importing torch loads them globally."""
    try:
        import torch  # noqa: F401
    except Exception:
        return


def _load() -> ctypes.CDLL:
    path = _find_library()
    try:
        return ctypes.CDLL(str(path))
    except OSError as first:
        _preload_cuda_libraries()
        try:
            return ctypes.CDLL(str(path))
        except OSError:
            raise ImportError("streamlab: cannot load %s: %s (a CUDA build needs libcublas of the CUDA "
                              "toolkit it was built with, on the loader path or through PyTorch's nvidia "
                              "wheels; docs/python.md)" % (path, first)) from None


LIB = _load()
LIB_PATH = _find_library()
LIB.sl_status_string.restype = ctypes.c_char_p
LIB.sl_status_string.argtypes = [ctypes.c_int]
LIB.sl_last_error.restype = ctypes.c_char_p
LIB.sl_last_error.argtypes = []
LIB.sl_ctx_create.restype = ctypes.c_int
LIB.sl_ctx_create.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
LIB.sl_ctx_destroy.restype = None
LIB.sl_ctx_destroy.argtypes = [ctypes.c_void_p]
LIB.sl_ctx_info.restype = ctypes.c_int
LIB.sl_ctx_set_pointer_checks.restype = ctypes.c_int
LIB.sl_ctx_set_pointer_checks.argtypes = [ctypes.c_void_p, ctypes.c_int]

try:
    from . import _build_info  # written by cmake/install.cmake
    BACKENDS: str = _build_info.BACKENDS
except ImportError:  # a library pointed at by STREAMLAB_LIBRARY
    BACKENDS = "unknown"
HAVE_CUDA_BUILD = BACKENDS.startswith("cuda")


def raise_status(status: int, what: str) -> None:
    """Raise the exception for a non-zero sl_status, with sl_last_error()'s text."""
    name = _STATUS_NAMES[status] if 0 <= status < len(_STATUS_NAMES) else "SL_ERR_%d" % status
    detail = (LIB.sl_last_error() or b"").decode("utf-8", "replace")
    short = (LIB.sl_status_string(status) or b"").decode()
    msg = "%s: %s (%s)%s" % (what, short, name, ": " + detail if detail else "")
    if name in _VALUE_STATUSES:
        cls = StreamlabValueError
    elif name == "SL_ERR_NO_MEMORY":
        cls = StreamlabMemoryError
    else:
        cls = StreamlabRuntimeError
    err = cls(msg)
    err.status = name
    raise err


# ---- the C declarations -----------------------------------------------------------
# C type -> ctypes type, for what the public API uses.
_CTYPES = {
    "sl_ctx *": ctypes.c_void_p, "sl_dtype": ctypes.c_int, "size_t": ctypes.c_size_t, "double": ctypes.c_double,
    "float": ctypes.c_float, "int": ctypes.c_int, "char": ctypes.c_char, "void *": ctypes.c_void_p,
    "float *": ctypes.c_void_p, "double *": ctypes.c_void_p, "int64_t *": ctypes.c_void_p,
    "int32_t *": ctypes.c_void_p, "uint8_t *": ctypes.c_void_p, "int64_t": ctypes.c_int64,
    "int32_t": ctypes.c_int32, "unsigned": ctypes.c_uint,
}
_DECL = _decls.DECL


def read_declarations(header: Optional[Path] = None) -> Dict[str, List[Tuple[str, str]]]:
    """{C function: [(C type, parameter name), ...]} of every op function the
    generated streamlab_ops.h declares (every sl_status function of the ops)."""
    return _decls.read_declarations(header or (LIB_PATH.parent / "include" / "streamlab_ops.h"))


def bind(cname: str, params: List[Tuple[str, str]]):
    """The ctypes function for one declaration, its argument types set from it."""
    fn = getattr(LIB, cname)
    try:
        fn.argtypes = [ctypes.c_void_p if t.endswith("*") else _CTYPES[t] for t, _ in params]
    except KeyError as e:
        raise ImportError("streamlab: %s has a parameter of C type %s that _lib._CTYPES does not map; add it "
                          "(docs/python.md)" % (cname, e)) from None
    fn.restype = ctypes.c_int
    return fn


# ---- contexts: one per device, created on first use and kept ------------------------
_contexts: Dict[int, int] = {}
_ctx_lock = threading.Lock()


def context(device: int) -> int:
    """The sl_ctx of a CUDA device index (or SL_DEVICE_CPU), created once and kept
    for the life of the process."""
    ctx = _contexts.get(device)
    if ctx is not None:
        return ctx
    if device >= 0 and BACKENDS == "cpu":
        raise StreamlabValueError("streamlab: this libstreamlab.so is CPU-only (nvcc was not found when it was "
                                  "built), so it cannot run on cuda:%d; reinstall with nvcc on the PATH "
                                  "(pip install .; docs/python.md)" % device)
    with _ctx_lock:
        ctx = _contexts.get(device)
        if ctx is None:
            out = ctypes.c_void_p()
            st = LIB.sl_ctx_create(device, ctypes.byref(out))
            if st != 0:
                raise_status(st, "sl_ctx_create(%s)" % ("cpu" if device < 0 else "cuda:%d" % device))
            ctx = out.value
            _contexts[device] = ctx
    return ctx
