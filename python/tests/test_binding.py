"""The two ways C is called: the generated extension (streamlab._fastcall) and
ctypes. Both are bound for every op; the extension is used where it loads."""
from __future__ import annotations

import numpy as np
import pytest

import streamlab as sl
from streamlab import _lib, _ops, _table

needs_fastcall = pytest.mark.skipif(_ops._fastcall is None, reason="streamlab._fastcall not built (no Python "
                                    "3.10+ headers at build time) or STREAMLAB_NO_FASTCALL=1")


@needs_fastcall
def test_fastcall_binds_every_op():
    for spec in _table.OPS:
        _ops._plan(spec)
        assert _ops._BOUND[spec.name] is getattr(_ops._fastcall, spec.cfunc)
    assert sl.BINDING == "fastcall"
    assert set(_lib.read_declarations()) <= set(dir(_ops._fastcall))


@needs_fastcall
def test_fastcall_and_ctypes_agree():
    spec = _table.SPECS["triad"]
    _ops._plan(spec)
    ctx = _lib.context(_lib.SL_DEVICE_CPU)
    b, c = np.arange(1, 1002, dtype=np.float64), np.linspace(-3, 7, 1001)
    outs = []
    for fn in (_ops._BOUND["triad"], _ops._CTYPES_BOUND["triad"]):
        a = np.full(1001, np.nan)
        assert fn(ctx, _lib.DTYPE_CODE["f64"], 1001, 0.25, b.ctypes.data, c.ctypes.data, a.ctypes.data, None) == 0
        outs.append(a)
    assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[0], b + 0.25 * c)


@needs_fastcall
def test_fastcall_refuses_bad_arguments():
    f = _ops._fastcall.sl_add
    ctx = _lib.context(_lib.SL_DEVICE_CPU)
    with pytest.raises(TypeError, match="7 arguments"):
        f(ctx, 0, 0)
    with pytest.raises(OverflowError):
        f(ctx, 0, -1, None, None, None, None)
    with pytest.raises(TypeError):
        f(ctx, 0, 1, "not a pointer", None, None, None)
    assert f(ctx, 0, 0, None, None, None, None) == 0  # n = 0 accepts NULL
    st = f(ctx, 0, 5, None, None, None, None)          # NULL with n > 0: SL_ERR_INVALID_ARG
    assert st == _lib.STATUS["SL_ERR_INVALID_ARG"]
