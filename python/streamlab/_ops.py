"""The op table and the one generic call.

Each public function (streamlab/__init__.py) is one OpSpec: the C function it
calls, how its Python arguments map onto the C parameters (by the parameter
names of the C declaration in src/ops/<op>/api.h), which buffers it reads and
writes, and the shapes. `run` turns Python arguments into one C call:

  1. adapt every buffer (torch fast path, else NumPy / DLPack), refusing wrong
     types (TypeError), unsupported dtypes, mixed dtypes or devices and
     non-contiguous buffers (ValueError);
  2. compute the C dimensions and every buffer's expected shape from the
     inputs' shapes (`shapes`), check them, allocate missing outputs like the
     primary input;
  3. fill the C arguments in declaration order: ctx (one per device, kept),
     dtype, dimensions, scalars, pointers, stream (torch's current stream,
     else the legacy default stream); call; raise on a non-zero sl_status.

docs/python.md says how to add an op.
"""
from __future__ import annotations

import ctypes
import numbers
import os
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from . import _arrays
from ._arrays import TORCH_DTYPES, torch
from ._lib import DTYPE_CODE, SL_DEVICE_CPU, bind, context, raise_status, read_declarations

# torch.autograd.graph.increment_version's C part (a list of tensors): 0.15 us against 0.22
_increment_version = (getattr(torch._C, "_increment_version", None) or (lambda ts: None)) if torch is not None else None

Shape = Tuple[int, ...]


class Buf(NamedTuple):
    c: str                       # the C parameter name (src/ops/<op>/api.h)
    py: str                      # the Python argument name
    role: str                    # "in", "out" (allocated when not given) or "inout" (required, written)
    dtype: Optional[str] = None  # a fixed sl dtype name; None: the op's dtype (its first input's);
    # "op|f32": the op's dtype or f32 (a norm's weight; its C dtype parameter <c>_dtype follows it);
    # "like:<py>": the dtype of buffer <py> (a weight's gradient); "i32|i64": class indices of
    # either width (the C parameter <c without the s>_type says which: 0 int32, 1 int64)


class OpSpec(NamedTuple):
    name: str                    # the Python function and the torch op streamlab::<name>
    cfunc: str                   # the C function
    params: Tuple[str, ...]      # the Python arguments in order (buffers and scalars)
    bufs: Tuple[Buf, ...]
    shapes: Callable[[Dict[str, Shape]], Tuple[Dict[str, int], Dict[str, Shape]]]
    scalars: Dict[str, str] = {}  # C parameter -> Python argument
    fixed: Dict[str, Any] = {}    # C parameter -> constant
    returns: Tuple[str, ...] = ()  # Python names returned (default: the outputs, else the inout buffers)
    dtypes: Optional[Tuple[str, ...]] = None  # checked here only for C functions without a dtype parameter
    check: Optional[Callable[[Dict[str, Any]], None]] = None  # extra argument checks, before any work
    op: str = ""                 # the ops.def name, when it differs from `name`
    workspace: str = ""          # the C size query (rows, cols) of the scratch its `workspace` parameter takes:
    # on CUDA torch tensors, a buffer of that size from torch's allocator on the call's stream, so that calls
    # on several streams never share scratch (NULL, the context's own buffer, elsewhere)


def _prod(s: Shape) -> int:
    n = 1
    for e in s:
        n *= e
    return n


# ---- shape rules -----------------------------------------------------------------------
def ew(primary: str, scalar_out: Sequence[str] = ()) -> Callable:
    """Elementwise: every buffer has the primary input's shape (no broadcasting);
    C's n is its element count. Buffers named in scalar_out hold one element (dot)."""
    def rule(shapes: Dict[str, Shape]):
        s = shapes[primary]
        return {"n": _prod(s)}, {"*": s, **{k: () for k in scalar_out}}
    rule.inline = ("ew", primary, tuple(scalar_out))  # type: ignore[attr-defined]
    rule.native = ("ew", primary, {k: "scalar" for k in scalar_out})  # type: ignore[attr-defined]
    return rule


def rows(primary: str, vectors: Optional[Dict[str, str]] = None) -> Callable:
    """A row op over the last dimension: rows = product of the others, every
    buffer shaped like the primary input except `vectors`: {Python name: "cols"}
    for one value per column (a norm's weight: shape (cols,)) or "rows" for one
    per row (a norm's rstd, a loss per row: the primary's shape without its
    last dimension)."""
    vectors = vectors or {}

    def rule(shapes: Dict[str, Shape]):
        s = shapes[primary]
        if len(s) < 1:
            raise ValueError("streamlab: a row op needs at least one dimension, got a 0-d input")
        exp: Dict[str, Shape] = {"*": s}
        for name, kind in vectors.items():
            exp[name] = (s[-1],) if kind == "cols" else tuple(s[:-1])
        return {"rows": _prod(s[:-1]), "cols": s[-1]}, exp
    if not vectors:
        rule.inline = ("rows", primary, ())  # type: ignore[attr-defined]
    rule.native = ("rows", primary, dict(vectors))  # type: ignore[attr-defined]
    return rule


def _matrix(s: Shape, what: str) -> Tuple[int, int]:
    if len(s) != 2:
        raise ValueError("streamlab: %s must be 2-D, got shape %s" % (what, tuple(s)))
    return s[0], s[1]


def transpose_rule(shapes: Dict[str, Shape]):
    r, c = _matrix(shapes["input"], "input")
    return {"rows": r, "cols": c}, {"input": (r, c), "out": (c, r)}


def gemm_rule(out: str) -> Callable:
    """C (m x n) = A (m x k) B (k x n), dense rows: lda = k, ldb = ldc = n."""
    def rule(shapes: Dict[str, Shape]):
        a, b = shapes["input"], shapes["other"]
        m, k = _matrix(a, "input")
        k2, n = _matrix(b, "other")
        if k != k2:
            raise ValueError("streamlab: matmul shapes %s and %s do not chain (%d != %d)" % (a, b, k, k2))
        return ({"m": m, "n": n, "k": k, "lda": k, "ldb": n, "ldc": n},
                {"input": (m, k), "other": (k, n), out: (m, n)})
    return rule


def stencil_rule(shapes: Dict[str, Shape]):
    r, c = _matrix(shapes["input"], "input")
    return {"rows": r, "cols": c, "ld": c}, {"*": (r, c)}


# ---- runtime ---------------------------------------------------------------------------
_BOUND: Dict[str, Any] = {}         # what each op calls: the _fastcall wrapper, else ctypes
_CTYPES_BOUND: Dict[str, Any] = {}  # the ctypes function (always bound; for comparison)

# streamlab._fastcall: the generated METH_FASTCALL wrappers (python/gen_fastcall.py),
# ~1.2 us a call faster than ctypes; absent where the build had no Python
# headers, or off with STREAMLAB_NO_FASTCALL=1.
_fastcall: Any = None
if os.environ.get("STREAMLAB_NO_FASTCALL", "") in ("", "0"):
    try:
        from . import _fastcall  # type: ignore[no-redef]
    except ImportError:
        _fastcall = None
BINDING = "fastcall" if _fastcall is not None else "ctypes"

# streamlab._torchcall (python/torchcall.cpp): the whole eager call of an op on torch
# tensors in C++, built only where the build could import torch (pip install
# --no-build-isolation) and loaded only with that same torch version (it uses torch's
# C++ ABI). Off with STREAMLAB_NO_TORCHCALL=1. TORCHCALL says why it is not used.
_torchcall: Any = None
TORCHCALL = "not built (pip install --no-build-isolation . with torch installed builds it)"
if torch is not None:
    try:
        from . import _build_info as _bi
        _built_for = getattr(_bi, "TORCHCALL_TORCH", "")
    except ImportError:
        _built_for = ""
    if os.environ.get("STREAMLAB_NO_TORCHCALL", "") not in ("", "0"):
        TORCHCALL = "off (STREAMLAB_NO_TORCHCALL)"
    elif _built_for and _built_for != torch.__version__:
        TORCHCALL = "built for torch %s, not this torch %s: reinstall streamlab" % (_built_for, torch.__version__)
    elif _built_for:
        try:
            from . import _torchcall  # type: ignore[no-redef]
            TORCHCALL = "on (torch %s)" % _built_for
        except ImportError as e:
            TORCHCALL = "failed to load: %s" % e
_PLANS: Dict[str, List[Tuple[int, str]]] = {}
_DECLS: Optional[Dict[str, List[Tuple[str, str]]]] = None

# How each C parameter is filled: kind codes of _plan.
_CTX, _DTYPE, _DIM, _SCALAR, _FIXED, _PTR, _STREAM, _BUFDT, _IDXT, _WS, _WSB = range(11)
_WS_QUERY: Dict[str, Any] = {}
# The range of each integer C scalar type (ctypes wraps an out-of-range int silently).
_INT_RANGE = {"int": (-2**31, 2**31 - 1), "int32_t": (-2**31, 2**31 - 1), "int64_t": (-2**63, 2**63 - 1)}
# Per op, made once by _plan: each scalar's Python name and, for an integer C type, its range.
_SCALARS: Dict[str, List[Tuple[str, Optional[Tuple[int, int]]]]] = {}


def _workspace_query(name: str):
    f = _WS_QUERY.get(name)
    if f is None:
        from ._lib import LIB
        f = getattr(LIB, name)
        f.restype = ctypes.c_size_t
        f.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
        _WS_QUERY[name] = f
    return f


def _shapes_of(spec: OpSpec, shapes: Dict[str, Shape], args: Dict[str, Any]):
    """spec.shapes(shapes), or (shapes, args) for a rule that reads an argument
    (cross-entropy's loss: one per row, or one for reduction mean / sum)."""
    if getattr(spec.shapes, "with_args", False):
        return spec.shapes(shapes, args)
    return spec.shapes(shapes)


def declarations() -> Dict[str, List[Tuple[str, str]]]:
    global _DECLS
    if _DECLS is None:
        _DECLS = read_declarations()
    return _DECLS


def _plan(spec: OpSpec) -> List[Tuple[int, str]]:
    """Map every C parameter of spec.cfunc to where its value comes from."""
    plan = _PLANS.get(spec.name)
    if plan is not None:
        return plan
    decl = declarations().get(spec.cfunc)
    if decl is None:
        raise RuntimeError("streamlab: %s is not declared in streamlab_ops.h (is the library older than the "
                           "package?)" % spec.cfunc)
    bufs = {b.c: b.py for b in spec.bufs}
    plan = []
    for ctype, pname in decl:
        if ctype == "sl_ctx *":
            plan.append((_CTX, ""))
        elif ctype == "sl_dtype" and pname.endswith("_dtype") and pname[:-6] in bufs:
            plan.append((_BUFDT, bufs[pname[:-6]]))  # w_dtype: the dtype of buffer w
        elif ctype == "sl_dtype":
            plan.append((_DTYPE, ""))
        elif pname.endswith("_type") and pname[:-5] + "s" in bufs:
            plan.append((_IDXT, bufs[pname[:-5] + "s"]))  # target_type: targets' index width
        elif pname == "stream":
            plan.append((_STREAM, ""))
        elif pname == "workspace" and spec.workspace:
            plan.append((_WS, ""))
        elif pname == "workspace_bytes" and spec.workspace:
            plan.append((_WSB, ""))
        elif pname in bufs:
            plan.append((_PTR, bufs[pname]))
        elif pname in spec.scalars:
            plan.append((_SCALAR, spec.scalars[pname]))
            _SCALARS.setdefault(spec.name, []).append((spec.scalars[pname], _INT_RANGE.get(ctype)))
        elif pname in spec.fixed:
            plan.append((_FIXED, pname))
        elif ctype == "size_t":
            plan.append((_DIM, pname))
        else:
            raise RuntimeError("streamlab: %s's parameter '%s %s' has no source in OpSpec %s (docs/python.md)"
                               % (spec.cfunc, ctype, pname, spec.name))
    _CTYPES_BOUND[spec.name] = bind(spec.cfunc, decl)
    fast = getattr(_fastcall, spec.cfunc, None) if _fastcall is not None else None
    _BOUND[spec.name] = fast or _CTYPES_BOUND[spec.name]
    _PLANS[spec.name] = plan
    return plan


def _want(b: Buf, dt: Optional[str], vdt: Optional[str], vdts: Dict[str, str]) -> Optional[str]:
    """The dtype buffer b must have, given the op's dtype dt and the dtypes seen so far."""
    if b.dtype is None:
        return dt
    if b.dtype == "op|f32":
        return "f32" if vdt == "f32" else dt
    if b.dtype == "i32|i64":
        return vdt if vdt in ("i32", "i64") else "i64"
    if b.dtype.startswith("like:"):
        return vdts.get(b.dtype[5:])
    return b.dtype


def _alloc_dtype(b: Buf, vdts: Dict[str, str]) -> Optional[str]:
    """The sl dtype an omitted output is allocated in (None: the primary input's)."""
    if b.dtype is None or b.dtype == "op|f32":
        return None
    if b.dtype.startswith("like:"):
        return vdts.get(b.dtype[5:])
    return b.dtype


def _torch_buf(spec: OpSpec, b: Buf, v: Any, dt: Optional[str], dev: Optional[int], vdts: Dict[str, str]):
    if not isinstance(v, torch.Tensor):
        raise TypeError("streamlab.%s: %s must be a torch.Tensor like the first input, got %s"
                        % (spec.name, b.py, type(v).__name__))
    vdt = TORCH_DTYPES.get(v.dtype) or _arrays.TORCH_INDEX_DTYPES.get(v.dtype)
    if vdt is None:
        raise ValueError("streamlab.%s: %s has dtype %s; streamlab offers %s" % (
            spec.name, b.py, v.dtype, ", ".join(str(k) for k in TORCH_DTYPES)))
    want = _want(b, dt, vdt, vdts)
    if want is not None and vdt != want:
        raise ValueError("streamlab.%s: %s has dtype %s, expected %s" % (spec.name, b.py, vdt, want))
    d = v.get_device()
    if dev is not None and d != dev:
        raise ValueError("streamlab.%s: %s is on %s but the first input is on %s" % (
            spec.name, b.py, v.device, "cpu" if dev < 0 else "cuda:%d" % dev))
    if not v.is_contiguous():
        raise ValueError("streamlab.%s: %s is not contiguous (strides %s); call .contiguous() first: streamlab "
                         "never copies" % (spec.name, b.py, tuple(v.stride())))
    if v.is_neg():  # torch._neg_view: -x held as x's bits plus a flag that a C pointer cannot carry
        raise ValueError("streamlab.%s: %s is a lazy negation (is_neg()); call .resolve_neg() first: streamlab "
                         "never copies" % (spec.name, b.py))
    return vdt, d


def _torch_written(spec: OpSpec, args: Dict[str, Any]) -> None:
    """torch's rule for out= and in-place buffers (call it where the caller gave one): refused
    while grad mode is on and an argument requires grad (streamlab records no gradient for a
    written buffer)."""
    if torch.is_grad_enabled():
        for b in spec.bufs:
            v = args[b.py]
            if isinstance(v, torch.Tensor) and v.requires_grad:
                raise RuntimeError("streamlab.%s: functions with out= or in-place arguments do not support "
                                   "automatic differentiation, but %s requires grad (call it under "
                                   "torch.no_grad(), or pass no out=)" % (spec.name, b.py))


def _array_buf(spec: OpSpec, b: Buf, v: Any, dt: Optional[str], dev: Optional[int], vdts: Dict[str, str]):
    if torch is not None and isinstance(v, torch.Tensor):
        raise TypeError("streamlab.%s: %s is a torch.Tensor but the first input is not" % (spec.name, b.py))
    if not _arrays.is_array(v):  # say which function and argument
        raise TypeError("streamlab.%s: %s must be a torch.Tensor, a NumPy array or an object with __dlpack__, "
                        "got %s" % (spec.name, b.py, type(v).__name__))
    a = _arrays.adapt(v)
    if a.dtype is None:
        raise ValueError("streamlab.%s: %s has a dtype streamlab does not offer (%s)" % (
            spec.name, b.py, getattr(v, "dtype", "?")))
    want = _want(b, dt, a.dtype, vdts)
    if want is not None and a.dtype != want:
        raise ValueError("streamlab.%s: %s has dtype %s, expected %s" % (spec.name, b.py, a.dtype, want))
    if dev is not None and a.device != dev:
        raise ValueError("streamlab.%s: %s is on device %s but the first input is on %s" % (
            spec.name, b.py, a.device, dev))
    if not a.contiguous:
        raise ValueError("streamlab.%s: %s is not contiguous; make it contiguous first (e.g. "
                         "numpy.ascontiguousarray, .copy()): streamlab never copies" % (spec.name, b.py))
    if b.role != "in" and not a.writeable:
        raise ValueError("streamlab.%s: %s is read-only (its writeable flag is off); give a writeable output"
                         % (spec.name, b.py))
    return a


def run(spec: OpSpec, values: Sequence[Any]):
    """One call of spec.cfunc with the Python arguments `values` (in spec.params order)."""
    plan = _PLANS.get(spec.name) or _plan(spec)
    args = dict(zip(spec.params, values))
    if spec.check is not None:
        spec.check(args)
    for key, rng in _SCALARS.get(spec.name, ()):
        v = args[key]
        if isinstance(v, bool) or not isinstance(v, numbers.Integral if rng else numbers.Real):
            raise TypeError("streamlab.%s: %s must be %s, got %s" % (
                spec.name, key, "an integer" if rng else "a real number", type(v).__name__))
        if not rng and isinstance(v, int) and not -sys.float_info.max <= v <= sys.float_info.max:  # ctypes' "wrong type" otherwise
            raise OverflowError("streamlab.%s: %s (an integer of %d digits) does not fit a C double"
                                % (spec.name, key, len(str(abs(v)))))
        if rng and not rng[0] <= v <= rng[1]:
            raise ValueError("streamlab.%s: %s = %d is outside the C type's range [%d, %d]"
                             % (spec.name, key, v, rng[0], rng[1]))
    first = args[spec.bufs[0].py]
    is_torch = torch is not None and isinstance(first, torch.Tensor)
    ptrs: Dict[str, int] = {}
    shapes: Dict[str, Shape] = {}
    dt: Optional[str] = None
    dev: Optional[int] = None
    arrays: Dict[str, Any] = {}
    vdts: Dict[str, str] = {}
    missing = []
    for b in spec.bufs:
        v = args[b.py]
        if v is None:
            if b.role != "out":
                raise TypeError("streamlab.%s: %s is required" % (spec.name, b.py))
            missing.append(b)
            continue
        if is_torch:
            vdt, d = _torch_buf(spec, b, v, dt, dev, vdts)
            ptrs[b.py] = v.data_ptr()
            shapes[b.py] = tuple(v.shape)
        else:
            a = _array_buf(spec, b, v, dt, dev, vdts)
            arrays[b.py] = a
            vdt, d = a.dtype, a.device
            ptrs[b.py] = a.ptr
            shapes[b.py] = a.shape
        vdts[b.py] = vdt
        if b.dtype is None and dt is None:
            dt = vdt
        if dev is None:
            dev = d
    if dt not in DTYPE_CODE:
        raise ValueError("streamlab.%s: dtype %s is not a floating-point dtype streamlab offers" % (spec.name, dt))
    if spec.dtypes is not None and dt not in spec.dtypes:
        raise ValueError("streamlab.%s: dtype %s is not offered (only %s)" % (spec.name, dt, ", ".join(spec.dtypes)))
    dims, expected = _shapes_of(spec, shapes, args)
    for b in spec.bufs:
        want = expected.get(b.py, expected.get("*"))
        if b.py in shapes and shapes[b.py] != want:
            raise ValueError("streamlab.%s: %s has shape %s, expected %s" % (spec.name, b.py, shapes[b.py], want))
    # the caller's buffers this call writes: autograd's rule, then their version counters after the call
    written = [args[b.py] for b in spec.bufs if b.role != "in" and args[b.py] is not None] if is_torch else []
    if written:
        _torch_written(spec, args)
    for b in missing:
        shape = expected.get(b.py, expected.get("*"))
        adt = _alloc_dtype(b, vdts)
        if is_torch:
            t = first.new_empty(shape, dtype=_arrays.TORCH_FROM_SL[adt] if adt else None)
            args[b.py] = t
            ptrs[b.py] = t.data_ptr()
        else:
            a = _arrays.empty_like_array(arrays[spec.bufs[0].py], shape, adt)
            arrays[b.py] = a
            args[b.py] = a.obj
            ptrs[b.py] = a.ptr
    assert dev is not None
    ctx = context(dev)
    stream = None
    if dev != SL_DEVICE_CPU and is_torch:
        stream = _arrays.torch_stream(dev)
    ws_ptr, ws_bytes, ws = None, 0, None
    if spec.workspace and is_torch and dev != SL_DEVICE_CPU:
        ws_bytes = _workspace_query(spec.workspace)(dims["rows"], dims["cols"])
        ws = torch.empty((ws_bytes,), dtype=torch.uint8, device=first.device)  # kept until the call returns
        ws_ptr = ws.data_ptr()
    cargs = []
    for kind, key in plan:
        if kind == _WS:
            cargs.append(ws_ptr)
        elif kind == _WSB:
            cargs.append(ws_bytes)
        elif kind == _PTR:
            cargs.append(ptrs[key])
        elif kind == _DIM:
            cargs.append(dims[key])
        elif kind == _SCALAR:
            cargs.append(args[key])
        elif kind == _CTX:
            cargs.append(ctx)
        elif kind == _DTYPE:
            cargs.append(DTYPE_CODE[dt])
        elif kind == _STREAM:
            cargs.append(stream)
        elif kind == _BUFDT:
            cargs.append(DTYPE_CODE[vdts[key]])
        elif kind == _IDXT:
            cargs.append(0 if vdts[key] == "i32" else 1)
        else:
            cargs.append(spec.fixed[key])
    try:
        st = _BOUND[spec.name](*cargs)
    except ctypes.ArgumentError as e:  # a scalar the checks above let through that ctypes still refuses
        raise TypeError("streamlab.%s: %s" % (spec.name, e)) from None
    if written:  # written through a pointer: autograd must see an in-place change (docs of increment_version)
        _increment_version(written)
    if st != 0:
        raise_status(st, "streamlab.%s (%s)" % (spec.name, spec.cfunc))
    rets = spec.returns or tuple(b.py for b in spec.bufs if b.role == "out") or \
        tuple(b.py for b in spec.bufs if b.role == "inout")
    if len(rets) == 1:
        return args[rets[0]]
    return tuple(args[r] for r in rets)


def fake_outputs(spec: OpSpec, values: Sequence[Any]):
    """The outputs `run` would allocate, as empty torch tensors (the fake / meta
    implementation of streamlab::<op>)."""
    args = dict(zip(spec.params, values))
    shapes = {b.py: tuple(args[b.py].shape) for b in spec.bufs if args.get(b.py) is not None}
    _, expected = _shapes_of(spec, shapes, args)
    first = args[spec.bufs[0].py]
    vdts = {b.py: _arrays.TORCH_DTYPES.get(args[b.py].dtype) or _arrays.TORCH_INDEX_DTYPES.get(args[b.py].dtype)
            for b in spec.bufs if args.get(b.py) is not None}
    outs = []
    for b in spec.bufs:
        if b.role == "out":
            shape = expected.get(b.py, expected.get("*"))
            adt = _alloc_dtype(b, vdts)  # the same rule as run()'s allocation
            outs.append(first.new_empty(shape, dtype=_arrays.TORCH_FROM_SL[adt] if adt else None))
    return outs[0] if len(outs) == 1 else tuple(outs)


# ---- the torch fast path ------------------------------------------------------------------
# `run` above is general and says precisely what is wrong; it costs ~5 us of
# Python per call. For the common case (every buffer a plain torch.Tensor,
# same dtype and device, contiguous, shapes as the rule wants) each op gets
# a function generated from its OpSpec that does the same checks inline and
# calls C; anything else goes to `run`, which raises the right error.


def _gen_fast(spec: OpSpec, general: Optional[Callable] = None, autograd: bool = False) -> Callable:
    """The op's fast path: a function of spec.params that checks the common case inline and
    calls C, and hands anything else to general(spec, values) (default `run`), which raises
    the precise error. With torch, a call under torch.compile goes to general too, and for
    an op with autograd (autograd=True) so does a call with grad mode on and an input or
    given output that requires grad: general routes those to the registered op."""
    general = general or run
    plan = _PLANS.get(spec.name) or _plan(spec)
    params = list(spec.params)
    bufs = list(spec.bufs)
    if any(b.dtype is not None for b in bufs) or torch is None or spec.workspace:
        return lambda *vals: general(spec, vals)
    p0 = bufs[0].py
    inline = getattr(spec.shapes, "inline", None)
    if inline is not None and inline[1] != p0:
        inline = None
    slow = "return _run(_spec, (%s,))" % ", ".join(params)
    ind = "            "
    lines = ["def fast(%s):" % ", ".join(params), "    if _compiling(): %s" % slow]
    conds = [("(%s is None or type(%s) is _T)" if b.role == "out" else "type(%s) is _T") % ((b.py,) * (
        2 if b.role == "out" else 1)) for b in bufs]
    lines.append("    if %s:" % " and ".join(conds))
    lines.append("        dt = %s.dtype; dev = %s.get_device(); code = _DT.get(dt)" % (p0, p0))
    lines.append("        if code is not None and %s.is_contiguous() and not %s.is_neg():" % (p0, p0))
    if inline is not None:
        # The shape rule written out (ew: every buffer of p0's shape, n = numel;
        # rows: the same, rows x cols over the last dimension): no dicts.
        kind, _, scalar_out = inline
        lines.append(ind + "shp = %s.shape" % p0)
        if kind == "ew":
            lines.append(ind + "d_n = %s.numel()" % p0)
            dimvar = {"n": "d_n"}
        else:
            lines.append(ind + "if not shp: %s" % slow)
            lines.append(ind + "d_cols = shp[-1]; d_rows = %s.numel() // d_cols if d_cols else 0" % p0)
            dimvar = {"rows": "d_rows", "cols": "d_cols"}
        shape_of = {b.py: ("()" if b.py in scalar_out else "shp") for b in bufs}
    else:
        lines.append(ind + "dims, exp = _shapes({%s})" % ", ".join(
            "%r: %s.shape" % (b.py, b.py) for b in bufs if b.role != "out"))
        lines.append(ind + "if %s.shape != exp.get(%r, exp.get('*')): %s" % (p0, p0, slow))
        dimvar = None
        shape_of = {b.py: "exp.get(%r, exp.get('*'))" % b.py for b in bufs}
    outs = [b.py for b in bufs[1:] if b.role == "out"]
    inouts = [b.py for b in bufs if b.role == "inout"]
    # Grad mode, before any output is allocated: an op with autograd goes to the registered
    # op when anything requires grad; another op refuses (in run) to write a caller's buffer
    # while autograd would need it.
    for o in outs:
        lines.append(ind + "g_%s = %s is not None" % (o, o))
    # one output whose being given guards the whole check needs no None test of its own
    guarded = not (autograd or inouts) and len(outs) == 1
    out_req = ["%s.requires_grad" % o if guarded else "(g_%s and %s.requires_grad)" % (o, o) for o in outs]
    req = " or ".join(["%s.requires_grad" % b.py for b in bufs if b.role != "out" or b is bufs[0]] + out_req)
    if autograd or inouts:
        lines.append(ind + "if _grad() and (%s): %s" % (req, slow))
    elif outs:
        lines.append(ind + "if (%s) and _grad() and (%s): %s" % (" or ".join("g_" + o for o in outs), req, slow))
    for b in bufs[1:]:
        cond = "%s.dtype is dt and %s.get_device() == dev and %s.is_contiguous() and %s.shape == %s and not " \
            "%s.is_neg()" % (b.py, b.py, b.py, b.py, shape_of[b.py], b.py)
        if b.role == "out":
            # torch.empty_like where the output is p0's shape (p0 is contiguous here, so the
            # result is too). torch.empty_strided with p0's strides was 0.57 us faster on one
            # H100 host and 0.59 us slower on another (h100-python-2026-11-26d.md); new_empty is
            # slower on both.
            alloc = ("_empty_like(%s)" % p0 if shape_of[b.py] == "shp"
                     else "%s.new_empty(%s)" % (p0, shape_of[b.py]))
            lines.append(ind + "if %s is None: %s = %s" % (b.py, b.py, alloc))
            lines.append(ind + "elif not (%s): %s" % (cond, slow))
        else:
            lines.append(ind + "if not (%s): %s" % (cond, slow))
    lines.append(ind + "ctx = _CTXS.get(dev) or _context(dev)")
    cargs = []
    for kind_, key in plan:
        if kind_ == _DIM:
            cargs.append(dimvar[key] if dimvar is not None else "dims[%r]" % key)
        else:
            cargs.append({_PTR: "%s.data_ptr()" % key, _SCALAR: key, _CTX: "ctx", _DTYPE: "code",
                          _STREAM: "(_stream(dev) if dev >= 0 else None)", _FIXED: "_fixed[%r]" % key}[kind_])
    # a scalar of the wrong type: ctypes raises ArgumentError, _fastcall TypeError; run() says which
    lines.append(ind + "try: st = _fn(%s)" % ", ".join(cargs))
    lines.append(ind + "except _ARGERR: %s" % slow)
    # the caller's buffers written (given outputs, in-place buffers): their version counters move
    if inouts or len(outs) > 1:
        wr = ["(%s,) if g_%s else ()" % (o, o) for o in outs] + ["(%s,)" % b for b in inouts]
        lines.append(ind + "wr = %s" % " + ".join("(%s)" % w for w in wr))
        lines.append(ind + "if wr: _incv(wr)")
    elif outs:
        lines.append(ind + "if g_%s: _incv((%s,))" % (outs[0], outs[0]))
    lines.append(ind + "if st != 0: _raise(st, %r)" % ("streamlab.%s (%s)" % (spec.name, spec.cfunc)))
    rets = spec.returns or tuple(b.py for b in bufs if b.role == "out") or tuple(b.py for b in bufs if b.role == "inout")
    lines.append(ind + "return %s" % (rets[0] if len(rets) == 1 else "(%s,)" % ", ".join(rets)))
    lines.append("    " + slow)
    src = "\n".join(lines)
    from . import _lib
    # The dtypes this fast path takes: all of streamlab's (the C function checks
    # its own), or only spec.dtypes for a C function without a dtype parameter.
    dts = {k: DTYPE_CODE[v] for k, v in TORCH_DTYPES.items() if spec.dtypes is None or v in spec.dtypes}
    ns = {"_T": torch.Tensor, "_DT": dts, "_shapes": spec.shapes, "_empty_like": torch.empty_like,
          "_run": general, "_spec": spec, "_CTXS": _lib._contexts, "_context": context,
          "_stream": _arrays.torch_stream, "_compiling": torch.compiler.is_compiling,
          "_fn": _BOUND[spec.name], "_raise": raise_status, "_fixed": spec.fixed,
          "_ARGERR": (ctypes.ArgumentError, TypeError), "_grad": torch.is_grad_enabled,
          "_incv": _increment_version}
    exec(compile(src, "<streamlab %s fast path>" % spec.name, "exec"), ns)
    fast = ns["fast"]
    fast.__source__ = src  # type: ignore[attr-defined]
    return fast


# streamlab._torchcall's description codes (python/torchcall.cpp: Role, Shape, Dt, Slot)
_ROLE = {"in": 0, "out": 1, "inout": 2}
_SH_SAME, _SH_SCALAR, _SH_COLS, _SH_ROWS = range(4)
_DT_OP, _DT_FIXED, _DT_OP_F32, _DT_LIKE = range(4)
_S_CTX, _S_DTYPE, _S_DIM, _S_PTR, _S_STREAM, _S_BUFDT, _S_F64, _S_F32, _S_INT, _S_CONST = range(10)


def _native(spec: OpSpec, general: Callable, autograd: bool) -> Optional[Callable]:
    """The op's eager call in C++ (streamlab._torchcall), for ops whose shape rule is
    elementwise or rows (with per-column / per-row vectors) and whose C parameters are
    buffers, dimensions, float or int scalars, dtypes and the stream; None otherwise.
    It takes the common case that _gen_fast takes, plus nn.Parameter buffers, and hands
    every other call to general(spec, values), which says precisely what is wrong."""
    native = getattr(spec.shapes, "native", None)
    if _torchcall is None or native is None or spec.check is not None or spec.workspace:
        return None
    kind, primary, vectors = native
    if spec.bufs[0].py != primary or spec.bufs[0].dtype is not None:
        return None
    plan = _PLANS.get(spec.name) or _plan(spec)
    params = list(spec.params)
    bidx = {b.py: i for i, b in enumerate(spec.bufs)}
    bufs = []
    for b in spec.bufs:
        shape = {None: _SH_SAME, "scalar": _SH_SCALAR, "cols": _SH_COLS, "rows": _SH_ROWS}[vectors.get(b.py)]
        if b.dtype is None:
            dt = _DT_OP << 8
        elif b.dtype == "op|f32":
            dt = _DT_OP_F32 << 8
        elif b.dtype.startswith("like:") and b.dtype[5:] in bidx:
            dt = (_DT_LIKE << 8) | bidx[b.dtype[5:]]
        elif b.dtype in DTYPE_CODE:
            dt = (_DT_FIXED << 8) | DTYPE_CODE[b.dtype]
        else:
            return None  # class indices (i32|i64): the general path
        bufs.append((params.index(b.py), _ROLE[b.role], shape, dt))
    slots = []
    for (kind_, key), (ctype, _) in zip(plan, declarations()[spec.cfunc]):
        if kind_ == _CTX:
            slots.append((_S_CTX, 0, 0, 0))
        elif kind_ == _DTYPE:
            slots.append((_S_DTYPE, 0, 0, 0))
        elif kind_ == _DIM and key in ("n", "rows", "cols") and (key == "n") == (kind == "ew"):
            slots.append((_S_DIM, 1 if key == "cols" else 0, 0, 0))
        elif kind_ == _PTR:
            slots.append((_S_PTR, bidx[key], 0, 0))
        elif kind_ == _STREAM:
            slots.append((_S_STREAM, 0, 0, 0))
        elif kind_ == _BUFDT:
            slots.append((_S_BUFDT, bidx[key], 0, 0))
        elif kind_ == _SCALAR and ctype in ("double", "float"):
            slots.append((_S_F64 if ctype == "double" else _S_F32, params.index(key), 0, 0))
        elif kind_ == _SCALAR and ctype in _INT_RANGE:
            slots.append((_S_INT, params.index(key)) + _INT_RANGE[ctype])
        elif kind_ == _FIXED and type(spec.fixed[key]) is int:
            slots.append((_S_CONST, 0, spec.fixed[key], 0))
        else:
            return None
    rets = spec.returns or tuple(b.py for b in spec.bufs if b.role == "out") or \
        tuple(b.py for b in spec.bufs if b.role == "inout")
    op_dts = {k: DTYPE_CODE[v] for k, v in TORCH_DTYPES.items() if spec.dtypes is None or v in spec.dtypes}
    all_dts = {k: DTYPE_CODE[v] for k, v in TORCH_DTYPES.items()}
    from . import _lib
    written = any(b.role != "in" for b in spec.bufs)
    return _torchcall.op(spec.cfunc, len(params), int(kind == "rows"), int(autograd), int(written),
                         tuple(bufs), tuple(slots), tuple((bidx[r],) for r in rets), op_dts, all_dts,
                         lambda *vals: general(spec, vals), raise_status,
                         "streamlab.%s (%s)" % (spec.name, spec.cfunc), _lib._contexts)


def _native_entry(spec: OpSpec, general: Callable, nat: Callable) -> Callable:
    """The Python frame in front of the C++ call: torch.compile traces this one and
    takes the registered op (the C++ object is opaque to it)."""
    params = ", ".join(spec.params)
    src = ("def fast(%s):\n    if _compiling(): return _run(_spec, (%s,))\n    return _nat(%s)"
           % (params, params, params))
    ns = {"_compiling": torch.compiler.is_compiling, "_run": general, "_spec": spec, "_nat": nat}
    exec(compile(src, "<streamlab %s C++ path>" % spec.name, "exec"), ns)
    fast = ns["fast"]
    fast.__source__ = src  # type: ignore[attr-defined]
    return fast


def fast_path(spec: OpSpec, general: Callable, autograd: bool) -> Callable:
    """The function a public function calls with its values (spec.params order): the
    op's C++ call (streamlab._torchcall) where it is built and fits the op, else the
    generated torch fast path, else general(spec, values)."""
    if spec.check is not None:
        return lambda *vals: general(spec, vals)
    nat = _native(spec, general, autograd)
    if nat is not None:
        return _native_entry(spec, general, nat)
    return _gen_fast(spec, general, autograd)
