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
