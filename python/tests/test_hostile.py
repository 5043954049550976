"""Hostile inputs beyond test_ops.py's refusals: buffers a C pointer cannot
describe honestly (read-only arrays as outputs, torch's lazy negation bit),
writes autograd must know about (out= with tensors that require grad, the
version counter), and argument types at the edges."""
from __future__ import annotations

import numpy as np
import pytest

import streamlab as sl
from conftest import requires_torch


# ---- NumPy --------------------------------------------------------------------------------
def test_read_only_numpy_output_refused():
    """A read-only array (np.frombuffer of bytes, a flag cleared) is never written."""
    a = np.arange(1, 11, dtype=np.float32)
    ro = np.zeros(10, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        sl.add(a, a, out=ro)
    assert not ro.any()
    frozen = np.frombuffer(bytes(40), np.float32)  # the memory of an immutable bytes object
    with pytest.raises(ValueError, match="other is read-only"):
        sl.axpy(a, frozen, 2.0)
    assert not frozen.any()
    with pytest.raises(ValueError, match="read-only"):
        sl.softmax(a.reshape(2, 5), out=ro.reshape(2, 5))
    r = sl.add(frozen, frozen)  # read-only inputs are fine
    assert r.flags.writeable and not r.any()


# ---- torch --------------------------------------------------------------------------------
@requires_torch
@pytest.mark.parametrize("where", ["input", "out"])
def test_torch_negative_bit_refused(where):
    """A lazy negation (torch._neg_view; the .imag of a conjugated one-element complex)
    holds -x as x's bits plus a flag a C pointer cannot carry: reading or writing it
    through data_ptr() would be silently wrong. torch resolves it; streamlab refuses."""
    import torch
    x = torch.randn(4, 8)
    nv = torch._neg_view(x.clone())
    assert nv.is_neg() and nv.is_contiguous()
    with pytest.raises(ValueError, match="resolve_neg"):
        if where == "input":
            sl.softmax(nv)
        else:
            sl.add(x, x, out=nv)
    with pytest.raises(ValueError, match="resolve_neg"):
        sl.copy(nv) if where == "input" else sl.copy(x, out=nv)
    torch.testing.assert_close(sl.softmax(nv.resolve_neg()), torch.softmax(-x, -1), rtol=2e-6, atol=0)


@requires_torch
def test_torch_out_with_autograd_refused_like_torch():
    """out= (or an in-place buffer) with an argument that requires grad, grad mode on:
    torch raises RuntimeError (out= does not support autograd); streamlab would write
    the buffer with no gradient recorded."""
    import torch
    x = torch.randn(4, 8, requires_grad=True)
    y = torch.empty(4, 8)
    with pytest.raises(RuntimeError, match="out=.*requires grad"):
        torch.add(x, x, out=y)
    with pytest.raises(RuntimeError, match="out=.*requires grad"):
        sl.softmax(x, out=y)
    o = torch.empty(4, 8, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        sl.add(x.detach(), x.detach(), out=o)
    with pytest.raises(RuntimeError, match="requires grad"):
        sl.axpy(x, torch.zeros(4, 8), 2.0)  # in place on other, x requires grad
    with torch.no_grad():  # as torch: allowed without grad mode
        sl.add(x, x, out=o)
    torch.testing.assert_close(o.detach(), 2 * x.detach(), rtol=0, atol=0)


@requires_torch
def test_torch_written_buffers_bump_the_version_counter():
    """A buffer written through its pointer is modified in place as far as autograd is
    concerned: its version counter moves, so a backward that saved it raises instead of
    computing a gradient from overwritten values (torch.autograd.graph.increment_version)."""
    import torch
    a = torch.randn(5, requires_grad=True)
    b = a.exp()  # saves its output for the backward
    v = b._version
    with torch.no_grad():
        sl.copy(torch.zeros(5), out=b)
    assert b._version > v
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()
    y = torch.randn(5)
    for f in (lambda: sl.axpy(torch.ones(5), y, 2.0), lambda: sl.add(y, y, out=y),
              lambda: sl.scale(torch.ones(5), 2.0, out=y)):
        v = y._version
        f()
        assert y._version > v


# ---- argument types -----------------------------------------------------------------------
@pytest.mark.parametrize("dim", [None, 1.0, True, "1"])
def test_softmax_dim_must_be_an_int(dim):
    """As torch.softmax: dim must be an int (None, a float or a bool is a TypeError naming
    dim, not a formatting error of the message)."""
    with pytest.raises(TypeError, match="streamlab.softmax: dim must be an integer"):
        sl.softmax(np.ones((2, 3), np.float32), dim)


def test_real_scalar_beyond_a_double():
    """A Python int too large for a C double is an OverflowError naming the argument (as
    torch's 'int too big to convert'), not ctypes' 'wrong type'."""
    a = np.ones(4, np.float32)
    with pytest.raises(OverflowError,
                       match=r"streamlab.scale: alpha \(an integer of 401 digits\) does not fit a C double"):
        sl.scale(a, 10**400)
    with pytest.raises(OverflowError, match="alpha"):
        sl.triad(a, a, -10**400)
    np.testing.assert_array_equal(sl.scale(a, 10**30), np.float32(1e30))  # large but finite: fine


# ---- DLPack producers that do not keep the protocol ------------------------------------------
class _BadDLPack:
    def __init__(self, capsule, device):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, stream=None, **kw):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


@pytest.mark.parametrize("capsule, device, match", [
    ("not a capsule", (1, 0), "__dlpack__.. returned a str, not a DLPack capsule"),
    (None, ("cpu", 0), r"__dlpack_device__.. returned \('cpu', 0\), not \(device type, device id\)"),
    (None, (1,), r"__dlpack_device__.. returned \(1,\)"),
])
def test_dlpack_protocol_broken_is_a_type_error(capsule, device, match):
    """A producer whose __dlpack__ returns no capsule, or whose __dlpack_device__ is not two
    integers: a TypeError saying which (not a formatting error or ctypes' capsule message)."""
    with pytest.raises(TypeError, match=match):
        sl.copy(_BadDLPack(capsule, device), out=np.empty(3, np.float32))


@pytest.mark.parametrize("fn", ["rms_norm", "layer_norm"])
@pytest.mark.parametrize("ns", [8, None, "8", (8.0,)])
def test_normalized_shape_must_be_ints(fn, ns):
    """As torch.nn.functional's: normalized_shape is a sequence of ints; anything else is a
    TypeError that names it (not "'int' object is not iterable")."""
    with pytest.raises(TypeError, match="streamlab.%s: normalized_shape must be a sequence of ints" % fn):
        getattr(sl, fn)(np.ones((4, 8), np.float32), ns)
