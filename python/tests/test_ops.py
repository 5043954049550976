"""Every op against an independent reference (NumPy in float64 or float32 IEEE
arithmetic, torch's own conversions for bf16 / fp8), on every backend present,
in every dtype the op offers, at shapes 0, 1 and odd sizes, with the C
library's documented tolerances (docs/architecture.md, "Tolerances"; each
op's src/ops/<op>/api.h)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import streamlab as sl
from conftest import BACKENDS, UNIT, f64, make, round_to, supports, sync

RNG = np.random.default_rng(28)
SIZES = [0, 1, 3, 1023, 65537]

EW_DTYPES = ["f32", "f64", "f16", "bf16"]
ADD_DTYPES = EW_DTYPES + ["fp8e4m3", "fp8e5m2"]


def values(shape, scale=10.0):
    """Nonzero values of both signs spanning several binades (real data, not [-1, 1])."""
    v = RNG.standard_normal(shape) * scale
    v[v == 0] = 1.5
    return v


def skip_unless(backend, dt):
    if not supports(backend, dt):
        pytest.skip("%s has no %s" % (backend, dt))


def in_f32(dt, fn, *xs):
    """fn computed the way the C library documents: in fp32 (fp64 for f64), IEEE
    rounding by NumPy, then rounded once to dt."""
    if dt == "f64":
        return fn(*xs)
    r = fn(*[x.astype(np.float32) for x in xs]).astype(np.float64)
    return round_to(r, dt, "torch")


def assert_bits(got, want):
    got = f64(got)
    assert got.shape == want.shape
    bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert not bad.any(), "first mismatches %s: got %s want %s" % (
        np.argwhere(bad)[:5].tolist(), got[bad][:5], want[bad][:5])


def assert_within(got, want, tol):
    got = f64(got)
    assert got.shape == want.shape
    err = np.abs(got - want)
    bad = ~(err <= tol)
    assert not bad.any(), "first mismatches %s: got %s want %s tol %s" % (
        np.argwhere(bad)[:5].tolist(), got[bad][:5], want[bad][:5], np.broadcast_to(tol, err.shape)[bad][:5])


def u_compute(dt):
    return UNIT["f64"] if dt == "f64" else UNIT["f32"]


# ---- elementwise ---------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", EW_DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_copy_scale(backend, dt, n):
    skip_unless(backend, dt)
    a = make(backend, values(n), dt)
    a64 = f64(a)
    c = sl.copy(a)
    b = sl.scale(a, 0.3)
    sync(backend)
    assert_bits(c, a64)
    s = np.float64(0.3) if dt == "f64" else np.float64(np.float32(0.3))
    assert_bits(b, in_f32(dt, lambda x: x.dtype.type(s) * x, a64))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", ADD_DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_add(backend, dt, n):
    skip_unless(backend, dt)
    scale = 50.0 if dt.startswith("fp8") else 10.0  # e4m3 saturates at 448: stay below it
    a, b = make(backend, values(n, scale), dt), make(backend, values(n, scale), dt)
    c = sl.add(a, b)
    sync(backend)
    assert type(c) is type(a) and tuple(c.shape) == (n,)
    assert_bits(c, in_f32(dt, lambda x, y: x + y, f64(a), f64(b)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", EW_DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_triad_axpy_nstream(backend, dt, n):
    """One fma (triad, axpy) or an fma and an add (nstream) in fp32 (fp64), then
    one rounding to dt: error <= k u_compute sum|terms| + u_dt |result|."""
    skip_unless(backend, dt)
    s = 0.4
    sc = s if dt == "f64" else float(np.float32(s))
    b, c = make(backend, values(n), dt), make(backend, values(n), dt)
    b64, c64 = f64(b), f64(c)
    # For f64 the float64 reference rounds as often as the op does: its own error
    # (ref_err x the same magnitudes) is added to the bound.
    ref_err = 2 if dt == "f64" else 1
    a = sl.triad(b, c, s)
    sync(backend)
    want = b64 + sc * c64
    assert_within(a, want, ref_err * (u_compute(dt) * (np.abs(b64) + np.abs(sc * c64)) + UNIT[dt] * np.abs(want)))

    y = make(backend, values(n), dt)
    y64 = f64(y)
    r = sl.axpy(b, y, s)
    sync(backend)
    assert r is y  # in place, as BLAS
    sa = float(np.float32(s))  # sl_axpy's alpha is a C float, for f64 too
    want = sa * b64 + y64
    assert_within(y, want, ref_err * (u_compute(dt) * (np.abs(sa * b64) + np.abs(y64)) + UNIT[dt] * np.abs(want)))

    a = make(backend, values(n), dt)
    a64 = f64(a)
    assert sl.nstream(a, b, c, s) is a
    sync(backend)
    want = a64 + b64 + sc * c64
    assert_within(a, want, ref_err * (2 * u_compute(dt) * (np.abs(a64) + np.abs(b64) + np.abs(sc * c64))
                                      + UNIT[dt] * np.abs(want)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", ["f32", "f64"])
@pytest.mark.parametrize("n", SIZES)
def test_dot(backend, dt, n):
    """|got - ref| <= ulp(ref) + L 2^-53 sum|a b| with L <= n + 14 (api.h, P = 4096)."""
    skip_unless(backend, dt)
    a, b = make(backend, values(n), dt), make(backend, values(n), dt)
    r = sl.dot(a, b)
    sync(backend)
    assert tuple(r.shape) == ()
    a64, b64 = f64(a), f64(b)
    ref = math.fsum((a64 * b64).tolist())  # exact products for f32; fsum: one rounding
    mag = float(np.sum(np.abs(a64 * b64)))
    tol = 2 * UNIT[dt] * abs(ref) + (n + 14) * 2.0**-53 * mag + (n * 2.0**-53 * mag if dt == "f64" else 0)
    assert abs(float(f64(r)) - ref) <= tol


# ---- row and matrix ops -----------------------------------------------------------------------
def softmax_ref(x64):
    m = x64.max(axis=-1, keepdims=True)
    e = np.exp(x64 - m)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_tol(want, dt, x64):
    """SL_TOL_REL, 16 x 2^-24 |want| + 2^-126 plus one ulp of a 16-bit dtype, and
    the rounding of x - max in fp32: exp's condition number is |x - max|, so that
    rounding costs up to |x - max| 2^-24 relative. The C tests (softmax_check.h)
    draw x from [-8, 8], where the 16 ulps cover it; logits of +-20 put |x - max|
    near 40 and need the second term (measured: 1.8e-6 relative at 4e-17 on the
    CPU backend, above 16 x 2^-24 = 9.5e-7)."""
    spread = np.abs(x64 - x64.max(axis=-1, keepdims=True)) if x64.size else 0
    tol = (16 + spread) * 2.0**-24 * np.abs(want) + 2.0**-126
    if dt in ("f16", "bf16"):
        tol = tol + 2 * UNIT[dt] * np.abs(want) + (2.0**-24 if dt == "f16" else 0)
    return tol


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", [(0, 5), (1, 1), (3, 7), (5, 1023), (2, 3, 129), (1, 40000)])
def test_softmax(backend, dt, shape):
    skip_unless(backend, dt)
    x = make(backend, RNG.uniform(-20, 20, shape), dt)  # logits of +-20
    y = sl.softmax(x)
    sync(backend)
    want = softmax_ref(f64(x))
    assert_within(y, want, softmax_tol(want, dt, f64(x)))


def test_softmax_tolerance_can_fail():
    """The check above is not vacuous: a result off by 2 x its tolerance fails it."""
    x = RNG.uniform(-20, 20, (4, 257)).astype(np.float32)
    x64 = x.astype(np.float64)
    want = softmax_ref(x64)
    got = sl.softmax(x).astype(np.float64)
    tol = softmax_tol(want, "f32", x64)
    assert_within(got, want, tol)
    with pytest.raises(AssertionError):
        assert_within(want + 2 * tol, want, tol)
    with pytest.raises(ValueError, match="last dimension"):
        sl.softmax(x, dim=0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", EW_DTYPES)
@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (3, 5), (67, 129), (64, 128)])
def test_transpose(backend, dt, shape):
    skip_unless(backend, dt)
    x = make(backend, values(shape), dt)
    y = sl.transpose(x)
    sync(backend)
    assert_bits(y, f64(x).T)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("mnk", [(1, 1, 1), (3, 5, 7), (64, 96, 130), (129, 65, 33)])
def test_matmul_gemm(backend, dt, mnk):
    """The bound of sl_gemm's doc block: u_out |C| + (gamma_{k+2}(2^-23) + 0) sum|a b|."""
    skip_unless(backend, dt)
    m, n, k = mnk
    a, b = make(backend, RNG.standard_normal((m, k)), dt), make(backend, RNG.standard_normal((k, n)), dt)
    a64, b64 = f64(a), f64(b)
    g = (k + 2) * 2.0**-23 / (1 - (k + 2) * 2.0**-23)
    c = sl.matmul(a, b)
    sync(backend)
    want = a64 @ b64
    assert_within(c, want, UNIT[dt] * np.abs(want) + g * (np.abs(a64) @ np.abs(b64)) + 1e-30)
    c0 = make(backend, RNG.standard_normal((m, n)), dt)
    c064 = f64(c0)
    r = sl.gemm(a, b, c0, alpha=0.5, beta=-2.0)
    sync(backend)
    assert r is c0
    want = 0.5 * (a64 @ b64) - 2.0 * c064
    mag = 0.5 * (np.abs(a64) @ np.abs(b64)) + 2.0 * np.abs(c064)
    assert_within(c0, want, UNIT[dt] * np.abs(want) + g * mag + 1e-30)
    with pytest.raises(ValueError, match="beta"):
        sl.gemm(a, b, beta=1.0)
    with pytest.raises(ValueError, match="chain"):
        sl.matmul(a, a if k != m else make(backend, RNG.standard_normal((k + 1, 2)), dt))


def stencil_ref(x, r):
    rows, cols = x.shape
    p = np.zeros((rows + 2 * r, cols + 2 * r))
    p[r:r + rows, r:r + cols] = x
    c0 = float(np.float32(0.5))
    out = c0 * x
    mag = c0 * np.abs(x)
    for k in range(1, r + 1):
        ck = float(np.float32(1.0 / (8 * (k + 1) ** 2)))
        s = (p[r:r + rows, r - k:r - k + cols] + p[r:r + rows, r + k:r + k + cols]
             + p[r - k:r - k + rows, r:r + cols] + p[r + k:r + k + rows, r:r + cols])
        sa = (np.abs(p[r:r + rows, r - k:r - k + cols]) + np.abs(p[r:r + rows, r + k:r + k + cols])
              + np.abs(p[r - k:r - k + rows, r:r + cols]) + np.abs(p[r + k:r + k + rows, r:r + cols]))
        out = out + ck * s
        mag = mag + ck * sa
    return out, mag


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape,radius", [((1, 1), 1), ((5, 3), 2), ((37, 301), 4), ((64, 64), 16)])
def test_stencil2d(backend, shape, radius):
    """fp32 in a fixed order: 5 roundings per radius step at most, each <= 2^-24 of the sum so far."""
    x = make(backend, values(shape), "f32")
    y = sl.stencil2d(x, radius)
    sync(backend)
    want, mag = stencil_ref(f64(x), radius)
    assert_within(y, want, (5 * radius + 2) * 2.0**-24 * mag)
    with pytest.raises(ValueError):
        sl.stencil2d(make(backend, values(shape), "f64") if supports(backend, "f64") else x, 0)


# ---- refusals ------------------------------------------------------------------------------
CALLS = {
    "copy": lambda x: sl.copy(x), "scale": lambda x: sl.scale(x, 2.0), "add": lambda x: sl.add(x, x),
    "triad": lambda x: sl.triad(x, x, 2.0), "dot": lambda x: sl.dot(x, x),
    "nstream": lambda x: sl.nstream(x, x, x, 1.0), "axpy": lambda x: sl.axpy(x, x, 1.0),
    "softmax": lambda x: sl.softmax(x), "transpose": lambda x: sl.transpose(x),
    "matmul": lambda x: sl.matmul(x, x), "gemm": lambda x: sl.gemm(x, x), "stencil2d": lambda x: sl.stencil2d(x, 1),
    "softmax_backward": lambda x: sl.softmax_backward(x, x),
    "rms_norm_forward": lambda x: sl.rms_norm_forward(x, x[0]),
    "rms_norm_backward": lambda x: sl.rms_norm_backward(x, x, x[0], x[:, 0]),
    "layer_norm_forward": lambda x: sl.layer_norm_forward(x, x[0], x[1]),
    "layer_norm_backward": lambda x: sl.layer_norm_backward(x, x, x[0], x[:, 0], x[:, 1]),
    "add_rms_norm_forward": lambda x: sl.add_rms_norm_forward(x, x, x[0]),
    "cross_entropy_forward": lambda x: sl.cross_entropy_forward(x, x[:, 0]),
    "cross_entropy_forward_backward": lambda x: sl.cross_entropy_forward_backward(x, x[:, 0]),
    "cross_entropy_backward": lambda x: sl.cross_entropy_backward(x[:, 0], x, x[:, 0], x[:, 0]),
}


def test_calls_cover_every_function():
    assert set(CALLS) == set(sl.FUNCTIONS)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_non_contiguous_raises(backend, name):
    x = make(backend, values((8, 8)), "f32")
    v = x[:, ::2] if name not in ("matmul", "gemm") else x[::2, ::2]
    if name in ("matmul", "gemm"):
        v = x[:4, ::2]  # 4 x 4, strided
    with pytest.raises(ValueError, match="contiguous"):
        CALLS[name](v)


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_aliasing(backend):
    x = make(backend, values(1001), "f32")
    x64 = f64(x)
    assert sl.add(x, x, out=x) is x  # in place: allowed
    sync(backend)
    assert_bits(x, (x64.astype(np.float32) * 2).astype(np.float64))
    sl.softmax(x, out=x)
    sync(backend)
    with pytest.raises(ValueError) as e:  # partial overlap: SL_ERR_OVERLAP from the library
        sl.add(x[:-1], x[:-1], out=x[1:])
    assert e.value.status == "SL_ERR_OVERLAP" and "overlap" in str(e.value)
    m = make(backend, values((16, 16)), "f32")
    with pytest.raises(ValueError, match="OVERLAP"):
        sl.transpose(m, out=m)
    with pytest.raises(ValueError, match="OVERLAP"):
        sl.stencil2d(m, 1, out=m)
    with pytest.raises(ValueError, match="OVERLAP"):
        sl.dot(x[:10], x[:10], out=x[3:4].reshape(()))
    with pytest.raises(ValueError, match="OVERLAP"):
        sl.matmul(m, m, out=m)
    o = make(backend, values(1001), "f32")
    assert sl.copy(x, out=o) is o


@pytest.mark.parametrize("backend", BACKENDS)
def test_wrong_arguments(backend):
    x = make(backend, values(10), "f32")
    with pytest.raises(ValueError, match="shape"):
        sl.add(x, make(backend, values(11), "f32"))
    if supports(backend, "f64"):
        with pytest.raises(ValueError, match="dtype"):
            sl.add(x, make(backend, values(10), "f64"))
    with pytest.raises(TypeError):
        sl.add(x, [1.0] * 10)
    with pytest.raises(TypeError):
        sl.add("x", x)
    if supports(backend, "f64"):
        with pytest.raises(ValueError, match="f64"):  # sl_softmax offers no f64: the library says so
            sl.softmax(make(backend, values((2, 3)), "f64"))
    with pytest.raises(ValueError):
        sl.add(x, x, out=make(backend, values(10), "f16") if supports(backend, "f16") else x[:3])


def test_int_dtype_refused():
    a = np.arange(6, dtype=np.int32)
    with pytest.raises(ValueError, match="dtype"):
        sl.add(a, a)


def test_library_message_reaches_python():
    """sl_last_error()'s own text (not just the status name) is in the exception."""
    x = np.ones((4, 4), np.float64)
    with pytest.raises(ValueError) as e:
        sl.softmax(x)
    assert e.value.status == "SL_ERR_UNSUPPORTED"
    assert "f64" in str(e.value) and "sl_softmax" in str(e.value)


# ---- DLPack --------------------------------------------------------------------------------
class OnlyDLPack:
    """An array seen only through __dlpack__ (as a JAX or other library's array would be)."""

    def __init__(self, a):
        self._a = a
        self.shape = a.shape

    def __dlpack__(self, stream=None, **kw):
        return self._a.__dlpack__(**kw) if stream is None else self._a.__dlpack__(stream=stream, **kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack_round_trip():
    a, b = values(1001).astype(np.float32), values(1001).astype(np.float32)
    out = np.empty_like(a)
    r = sl.add(OnlyDLPack(a), OnlyDLPack(b), out=OnlyDLPack(out))
    assert isinstance(r, OnlyDLPack) and r._a is out
    assert_bits(out, (a + b).astype(np.float64))
    with pytest.raises(TypeError, match="out="):
        sl.add(OnlyDLPack(a), OnlyDLPack(b))  # no namespace to allocate from
    with pytest.raises(ValueError, match="contiguous"):
        sl.copy(OnlyDLPack(a[::2]), out=OnlyDLPack(np.empty(501, np.float32)))
    # and back out: NumPy reads streamlab's output through DLPack
    c = sl.scale(a, 2.0)
    assert_bits(np.from_dlpack(c), (a * np.float32(2)).astype(np.float64))
