"""streamlab._torchcall, the eager call in C++ (python/torchcall.cpp): which ops
take it, that it passes the C function the same arguments as the general
path (_ops.run), and that every call it does not take reaches the general
path's checks and messages. Skips where the package was built without it
(pip's isolated build has no torch: `pip install --no-build-isolation .`)."""
from __future__ import annotations

import pytest

import streamlab
from streamlab import _ops
from streamlab._table import SPECS

from conftest import HAVE_CUDA, WHY_NO_CUDA, torch

pytestmark = pytest.mark.skipif(torch is None or _ops._torchcall is None,
                                reason="streamlab._torchcall: %s" % _ops.TORCHCALL)

# Every op whose shape rule and C parameters the C++ call covers. An op that drops
# out of this list (a new parameter kind, a changed rule) fails here instead of
# silently taking the slower Python path.
NATIVE = {"copy", "scale", "add", "triad", "dot", "nstream", "axpy", "softmax", "softmax_backward",
          "rms_norm_forward", "layer_norm_forward", "add_rms_norm_forward"}

DEVICES = [pytest.param("cpu", id="cpu"),
           pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(not HAVE_CUDA, reason=WHY_NO_CUDA))]


def _native(name):
    spec = SPECS[name]
    return _ops._native(spec, streamlab._general, name in streamlab._AUTOGRAD)


def test_which_ops_take_the_cpp_call():
    got = {name for name in SPECS if _native(name) is not None}
    assert got == NATIVE
    streamlab.add(torch.ones(3), torch.ones(3))  # builds add's entry
    assert "_nat(" in streamlab._fast["add"].__source__
    assert streamlab.TORCHCALL.startswith("on")


def _values(name, dev, dtype, gen):
    """Random values for spec.params: inputs shaped by the op's rule (rows x cols for
    row ops, per-column vectors (cols,)), outputs None, scalars 0.75."""
    spec = SPECS[name]
    kind, primary, vectors = spec.shapes.native
    shape = (5, 24) if kind == "rows" else (3, 37)
    bufs = {b.py: b for b in spec.bufs}
    vals, dts = [], {}
    for p in spec.params:
        b = bufs.get(p)
        if b is None:
            vals.append(0.75)
            continue
        if b.role == "out":
            vals.append(None)
            continue
        dt = {None: dtype, "op|f32": dtype, "f32": torch.float32}.get(b.dtype) or dts[b.dtype[5:]]
        dts[p] = dt
        s = {None: shape, "cols": shape[-1:], "rows": shape[:-1]}[vectors.get(p)]
        vals.append((torch.randn(s, generator=gen, dtype=torch.float64) * 4).to(dt).to(dev))
    return vals


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("name", sorted(NATIVE))
def test_same_call_as_the_general_path(name, dtype, dev):
    """Bit for bit the general path's result (the same C function: this checks the
    C++ call's dimensions, pointers, dtype codes, scalars and allocations)."""
    dt = {"f32": torch.float32, "bf16": torch.bfloat16}[dtype]
    if name == "dot" and dtype == "bf16":
        pytest.skip("sl_dot offers f32 and f64")
    gen = torch.Generator().manual_seed(7)
    vals = _values(name, dev, dt, gen)
    nat = _native(name)
    with torch.no_grad():
        got = nat(*[v.clone() if isinstance(v, torch.Tensor) else v for v in vals])
        want = _ops.run(SPECS[name], [v.clone() if isinstance(v, torch.Tensor) else v for v in vals])
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape and g.device == w.device
        assert torch.equal(g, w) or (torch.isnan(w).any() and torch.equal(g.isnan(), w.isnan()))


@pytest.mark.parametrize("dev", DEVICES)
def test_given_output_is_returned_and_its_version_moves(dev):
    x, y, z = (torch.randn(1000, device=dev) for _ in range(3))
    v = z._version
    r = streamlab.add(x, y, out=z)
    assert r is z and z._version == v + 1
    assert torch.equal(z, x + y)
    y0 = y.clone()
    r = streamlab.axpy(x, y, 2.0)  # in place on y
    assert r is y and torch.equal(y, torch.addcmul(y0, x, torch.full_like(x, 2.0)))


@pytest.mark.parametrize("dev", DEVICES)
def test_parameters_and_autograd(dev):
    """An nn.Parameter weight takes the C++ call under no_grad; with grad mode on, the
    call goes to the registered op and autograd records it."""
    x = torch.randn(4, 64, device=dev)
    w = torch.nn.Parameter(torch.randn(64, device=dev))
    with torch.no_grad():
        y, rstd = streamlab.rms_norm_forward(x, w, 1e-6)
    ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w.detach()
    torch.testing.assert_close(y, ref, rtol=1e-5, atol=1e-5)
    assert y.grad_fn is None and rstd.dtype == torch.float32 and rstd.shape == (4,)
    y2, _ = streamlab.rms_norm_forward(x, w, 1e-6)
    assert y2.grad_fn is not None
    y2.sum().backward()
    assert w.grad is not None and w.grad.shape == (64,)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the type is the point)
        return type(e), str(e)
    raise AssertionError("no exception")


@pytest.mark.parametrize("dev", DEVICES)
def test_refused_calls_say_what_the_general_path_says(dev):
    """Every call the C++ call does not take reaches _ops.run: the same exception
    type and message as with the Python fast path (STREAMLAB_NO_TORCHCALL)."""
    import numpy as np
    x = torch.randn(6, 8, device=dev)
    spec = SPECS["add"]
    py = _ops._gen_fast(spec, streamlab._general, False)
    cases = [
        (x, x.t(), None),                                      # not contiguous
        (x, torch.randn(6, 7, device=dev), None),              # shape
        (x, x.double(), None),                                 # dtype
        (x, np.ones((6, 8), np.float32), None),                # not a tensor
        (x, x, torch.empty(6, 8, device=dev, dtype=torch.float64)),  # out dtype
        (x, x, x[:, :4]),                                       # out shape
    ]
    if HAVE_CUDA:
        other = "cpu" if dev == "cuda" else "cuda"
        cases.append((x, torch.randn(6, 8, device=other), None))  # device
    for a, b, o in cases:
        got = _error(lambda: streamlab.add(a, b, out=o))
        want = _error(lambda: py(a, b, o))
        assert got == want
    # a scalar of the wrong type, and the C library's own refusal (out overlapping an input in part)
    assert _error(lambda: streamlab.scale(x, True)) == _error(lambda: _ops.run(SPECS["scale"], (x, True, None)))
    base = torch.randn(64, device=dev)
    t, msg = _error(lambda: streamlab.add(base[:32], base[:32], out=base[16:48]))
    assert issubclass(t, ValueError) and "overlap" in msg


def test_off_switch_reports_itself():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", "import streamlab; print(streamlab.TORCHCALL)"],
                       env={**__import__("os").environ, "STREAMLAB_NO_TORCHCALL": "1"},
                       capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "off (STREAMLAB_NO_TORCHCALL)"
