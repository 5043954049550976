"""The row ops of issues 32 and 33 through Python (softmax_backward, rms_norm_forward /
rms_norm_backward, cross_entropy_forward / cross_entropy_forward_backward) against
NumPy float64 references written here, with the bounds their C doc blocks state
(src/ops/<op>/api.h), on realistic ranges (logits of +-20, weights near 1), every
dtype the op offers and every backend present; and each bound shown able to fail."""
from __future__ import annotations

import numpy as np
import pytest

import streamlab as sl
from conftest import BACKENDS, UNIT, cupy, f64, make, supports, sync, torch

RNG = np.random.default_rng(3233)
DTYPES = ["f32", "f16", "bf16"]
U = 2.0**-24


def skip_unless(backend, dt):
    if not supports(backend, dt):
        pytest.skip("%s has no %s" % (backend, dt))


def ulp16(dt, want):
    """One ulp of a 16-bit storage dtype at |want| (the rounding into dt), 0 for f32."""
    return 2 * UNIT[dt] * np.abs(want) + (2.0**-24 if dt == "f16" else 0) if dt in ("f16", "bf16") else 0.0


def index_array(backend, values, width):
    npdt = np.int64 if width == "i64" else np.int32
    if backend == "numpy":
        return np.ascontiguousarray(values.astype(npdt))
    if backend == "cupy":
        return cupy.asarray(values.astype(npdt))
    dev = "cuda" if backend == "torch-cuda" else "cpu"
    return torch.from_numpy(values.astype(npdt)).to(dev)


def within(got, want, tol):
    err = np.abs(f64(got) - want)
    bad = ~((err <= tol) | (np.isnan(f64(got)) & np.isnan(want)))
    assert not bad.any(), "first mismatches %s: got %s want %s tol %s" % (
        np.argwhere(bad)[:5].tolist(), f64(got)[bad][:5], want[bad][:5], np.broadcast_to(tol, err.shape)[bad][:5])


# ---- softmax backward ---------------------------------------------------------------------
def softmax_bwd_ref(dy, y):
    s = (dy * y).sum(axis=-1, keepdims=True)
    return y * (dy - s)


def softmax_bwd_tol(dy, y, want, dt):
    """api.h: 2 ulp(dx) + |y_j| L 2^-24 sum_k |y_k dy_k|, L = ceil(cols / 32) + 9."""
    cols = y.shape[-1]
    L = -(-cols // 32) + 9
    return 2 * 2 * U * np.abs(want) + np.abs(y) * L * U * np.abs(y * dy).sum(axis=-1, keepdims=True) + ulp16(dt, want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(0, 5), (1, 1), (3, 7), (5, 1023), (2, 3, 129)])
def test_softmax_backward(backend, dt, shape):
    skip_unless(backend, dt)
    x = RNG.uniform(-20, 20, shape)
    e = np.exp(x - x.max(axis=-1, keepdims=True)) if x.size else x
    y = make(backend, e / e.sum(axis=-1, keepdims=True) if x.size else e, dt)
    dy = make(backend, RNG.standard_normal(shape) * 3, dt)
    dx = sl.softmax_backward(dy, y)
    sync(backend)
    want = softmax_bwd_ref(f64(dy), f64(y))
    within(dx, want, softmax_bwd_tol(f64(dy), f64(y), want, dt))


# ---- RMSNorm ---------------------------------------------------------------------------------
def rms_ref(x, w, eps):
    rstd = 1.0 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + np.float64(np.float32(eps)))
    return x * rstd * w, rstd[..., 0]


def rms_tol(want, dt):
    """api.h: 64 x 2^-24 relative of the fp64 reference, plus one ulp of a 16-bit dtype."""
    return 64 * U * np.abs(want) + ulp16(dt, want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("wdt", ["same", "f32"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (5, 1023), (2, 3, 129)])
def test_rms_norm(backend, dt, wdt, shape):
    skip_unless(backend, dt)
    w_dt = dt if wdt == "same" else "f32"
    x = make(backend, RNG.standard_normal(shape) * 4, dt)
    w = make(backend, 1 + 0.2 * RNG.standard_normal(shape[-1]), w_dt)
    y, rstd = sl.rms_norm_forward(x, w, 1e-6)
    sync(backend)
    want, want_rstd = rms_ref(f64(x), f64(w), 1e-6)
    within(y, want, rms_tol(want, dt))
    within(rstd, want_rstd, 64 * U * want_rstd)
    y2 = sl.rms_norm(x, (shape[-1],), w, 1e-6)
    sync(backend)
    assert np.array_equal(f64(y2), f64(y))  # the same kernel: the same bits
    with pytest.raises(ValueError, match="normalized_shape"):
        sl.rms_norm(x, (shape[-1] + 1,), w)


def rms_bwd_ref(dy, x, w, rstd):
    cols = x.shape[-1]
    r = rstd[..., None]
    D = (w * dy * x).sum(axis=-1, keepdims=True)
    dx = r * w * dy - x * r**3 * D / cols
    dw = (dy * x * r).reshape(-1, cols).sum(axis=0)
    return dx, dw, D


def rms_bwd_tol(dy, x, w, rstd, dxw, dww, dt):
    """api.h: 16 x 2^-24 relative, plus 2 (4 u |rstd w dy| + 146 u |x| rstd^3 sum|w dy x| / cols)
    for dx and 550 u sum_r |dy x rstd| for dw (u = 2^-24, the largest over the matrix), plus
    one ulp of a 16-bit dtype."""
    cols = x.shape[-1]
    r = rstd[..., None]
    sx = np.max(2 * (4 * U * np.abs(r * w * dy) + 146 * U * np.abs(x) * r**3 *
                     np.abs(w * dy * x).sum(axis=-1, keepdims=True) / cols)) if x.size else 0
    sw = np.max(550 * U * np.abs(dy * x * r).reshape(-1, cols).sum(axis=0)) if x.size else 0
    return (16 * U * np.abs(dxw) + sx + ulp16(dt, dxw), 16 * U * np.abs(dww) + sw + ulp16(dt, dww))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (37, 1023), (2, 3, 129)])
def test_rms_norm_backward(backend, dt, shape):
    skip_unless(backend, dt)
    x = make(backend, RNG.standard_normal(shape) * 4, dt)
    w = make(backend, 1 + 0.2 * RNG.standard_normal(shape[-1]), dt)
    dy = make(backend, RNG.standard_normal(shape), dt)
    _, rstd = sl.rms_norm_forward(x, w, 1e-5)
    dx, dw = sl.rms_norm_backward(dy, x, w, rstd)
    sync(backend)
    want_dx, want_dw, _ = rms_bwd_ref(f64(dy), f64(x), f64(w), f64(rstd))
    tx, tw = rms_bwd_tol(f64(dy), f64(x), f64(w), f64(rstd), want_dx, want_dw, dt)
    within(dx, want_dx, tx)
    within(dw, want_dw, tw)
    dx2, dw2 = sl.rms_norm_backward(dy, x, w, rstd)
    sync(backend)
    assert np.array_equal(f64(dw2), f64(dw)), "dw must be deterministic run to run"


def test_rms_norm_bounds_can_fail():
    x = (RNG.standard_normal((9, 257)) * 4).astype(np.float32)
    w = (1 + 0.2 * RNG.standard_normal(257)).astype(np.float32)
    want, _ = rms_ref(x.astype(np.float64), w.astype(np.float64), 1e-6)
    tol = rms_tol(want, "f32")
    with pytest.raises(AssertionError):
        within(want + 2 * tol, want, tol)
    with pytest.raises(ValueError, match="dtype"):  # a weight in neither x's dtype nor f32
        sl.rms_norm_forward(x, w.astype(np.float16))


# ---- LayerNorm and the fused add + RMSNorm (issue 32, second session) -------------------------
def ln_ref(x, w, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + np.float64(np.float32(eps)))
    return (x - mean) * rstd * w + b, mean[..., 0], rstd[..., 0]


def ln_tol(x, w, want, mean, rstd, dt):
    """layernorm/api.h: 64 x 2^-24 relative plus 2 (60 |x - mean| + 107 mean|x|) u rstd |w| (the
    largest over the matrix), plus one ulp of a 16-bit dtype."""
    if not x.size:
        return 0 * want
    A = np.abs(x).mean(axis=-1, keepdims=True)
    a = np.max(2 * (60 * np.abs(x - mean[..., None]) + 107 * A) * U * rstd[..., None] * np.abs(w))
    return 64 * U * np.abs(want) + a + ulp16(dt, want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("wdt", ["same", "f32"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (5, 1023), (2, 3, 129)])
def test_layer_norm(backend, dt, wdt, shape):
    skip_unless(backend, dt)
    w_dt = dt if wdt == "same" else "f32"
    x = make(backend, 3 + RNG.standard_normal(shape) * 4, dt)  # a mean away from 0
    w = make(backend, 1 + 0.2 * RNG.standard_normal(shape[-1]), w_dt)
    b = make(backend, 0.5 * RNG.standard_normal(shape[-1]), w_dt)
    y, mean, rstd = sl.layer_norm_forward(x, w, b, 1e-5)
    sync(backend)
    want, wm, wr = ln_ref(f64(x), f64(w), f64(b), 1e-5)
    within(y, want, ln_tol(f64(x), f64(w), want, wm, wr, dt))
    within(mean, wm, 64 * U * np.abs(wm) + 2 * 107 * U * np.abs(f64(x)).mean(axis=-1))
    within(rstd, wr, 64 * U * wr)
    y2 = sl.layer_norm(x, (shape[-1],), w, b, 1e-5)
    sync(backend)
    assert np.array_equal(f64(y2), f64(y))
    with pytest.raises(ValueError, match="normalized_shape"):
        sl.layer_norm(x, (shape[-1] + 1,), w, b)
    if backend in ("numpy", "torch-cpu", "torch-cuda"):  # weight None = ones, bias None = zeros
        y3 = sl.layer_norm(x, (shape[-1],), None, None, 1e-5)
        sync(backend)
        want3, _, _ = ln_ref(f64(x), 1.0, 0.0, 1e-5)
        within(y3, want3, ln_tol(f64(x), np.ones(shape[-1]), want3, wm, wr, dt))


def ln_bwd_ref(dy, x, w, mean, rstd):
    cols = x.shape[-1]
    r, m = rstd[..., None], mean[..., None]
    xh = (x - m) * r
    g = w * dy
    c1 = g.mean(axis=-1, keepdims=True)
    c2 = (g * xh).mean(axis=-1, keepdims=True)
    dx = r * (g - c1 - xh * c2)
    dw = (dy * xh).reshape(-1, cols).sum(axis=0)
    db = dy.reshape(-1, cols).sum(axis=0)
    return dx, dw, db, xh, g


def ln_bwd_tol(dy, x, w, mean, rstd, dt):
    """layernorm_bwd/api.h: 16 x 2^-24 relative plus 2 u rstd (3 |g| + 142 mean|g| + 146 |xh|
    mean|g xh|) for dx, 560 u sum_r |dy xh| for dw, 550 u sum_r |dy| for db (the largest over
    the matrix), plus one ulp of a 16-bit dtype."""
    dx, dw, db, xh, g = ln_bwd_ref(dy, x, w, mean, rstd)
    cols = x.shape[-1]
    r = rstd[..., None]
    sx = np.max(2 * U * r * (3 * np.abs(g) + 142 * np.abs(g).mean(axis=-1, keepdims=True) +
                             146 * np.abs(xh) * np.abs(g * xh).mean(axis=-1, keepdims=True))) if x.size else 0
    sw = np.max(560 * U * np.abs(dy * xh).reshape(-1, cols).sum(axis=0)) if x.size else 0
    sb = np.max(550 * U * np.abs(dy).reshape(-1, cols).sum(axis=0)) if x.size else 0
    return (dx, dw, db), (16 * U * np.abs(dx) + sx + ulp16(dt, dx), 16 * U * np.abs(dw) + sw + ulp16(dt, dw),
                          16 * U * np.abs(db) + sb + ulp16(dt, db))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (37, 1023), (2, 3, 129)])
def test_layer_norm_backward(backend, dt, shape):
    skip_unless(backend, dt)
    x = make(backend, 2 + RNG.standard_normal(shape) * 4, dt)
    w = make(backend, 1 + 0.2 * RNG.standard_normal(shape[-1]), dt)
    b = make(backend, 0.5 * RNG.standard_normal(shape[-1]), dt)
    dy = make(backend, RNG.standard_normal(shape), dt)
    _, mean, rstd = sl.layer_norm_forward(x, w, b, 1e-5)
    dx, dw, db = sl.layer_norm_backward(dy, x, w, mean, rstd)
    sync(backend)
    wants, tols = ln_bwd_tol(f64(dy), f64(x), f64(w), f64(mean), f64(rstd), dt)
    for got, want, tol in zip((dx, dw, db), wants, tols):
        within(got, want, tol)
    dx2, dw2, db2 = sl.layer_norm_backward(dy, x, w, mean, rstd)
    sync(backend)
    assert np.array_equal(f64(dw2), f64(dw)) and np.array_equal(f64(db2), f64(db)), "dw, db deterministic"


def test_layer_norm_bounds_can_fail():
    x = (RNG.standard_normal((9, 257)) * 4).astype(np.float32)
    w = (1 + 0.2 * RNG.standard_normal(257)).astype(np.float32)
    b = (0.5 * RNG.standard_normal(257)).astype(np.float32)
    want, wm, wr = ln_ref(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), 1e-5)
    tol = ln_tol(x.astype(np.float64), w.astype(np.float64), want, wm, wr, "f32")
    y, _, _ = sl.layer_norm_forward(x, w, b, 1e-5)
    within(y, want, tol)
    with pytest.raises(AssertionError):  # the bound 256 times tighter fails on this very result
        within(y, want, tol / 256)
    with pytest.raises(ValueError, match="dtype"):
        sl.layer_norm_forward(x, w.astype(np.float16), b.astype(np.float16))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (5, 1023), (2, 3, 129)])
def test_add_rms_norm(backend, dt, shape):
    skip_unless(backend, dt)
    x = make(backend, RNG.standard_normal(shape) * 4, dt)
    res = make(backend, RNG.standard_normal(shape) * 4, dt)
    w = make(backend, 1 + 0.2 * RNG.standard_normal(shape[-1]), dt)
    y, h, rstd = sl.add_rms_norm_forward(x, res, w, 1e-6)
    sync(backend)
    # h: the sum rounded once into dt, bit for bit: torch / NumPy's own add of the same values
    hs = x + res
    assert np.array_equal(f64(h), f64(hs))
    want, want_rstd = rms_ref(f64(h), f64(w), 1e-6)
    within(y, want, rms_tol(want, dt))
    within(rstd, want_rstd, 64 * U * want_rstd)
    with pytest.raises(ValueError):  # residual_out = out
        sl.add_rms_norm_forward(x, res, w, 1e-6, out=h, residual_out=h)


# ---- cross-entropy -----------------------------------------------------------------------------
def xent_ref(x, t, ignore, eps, reduction):
    """torch's definition, in float64: loss per row, lse, and the gradient of the reduced loss."""
    m = x.max(axis=-1, keepdims=True)
    lse = (m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True)))[:, 0]
    V = x.shape[-1]
    keep = t != ignore
    tt = np.where(keep, t, 0)
    nll = lse - x[np.arange(len(t)), tt]
    smooth = lse - x.mean(axis=-1)
    loss = np.where(keep, (1 - eps) * nll + eps * smooth, 0.0)
    p = np.exp(x - lse[:, None])
    onehot = np.zeros_like(x)
    onehot[np.arange(len(t)), tt] = 1.0
    g = (p - (1 - eps) * onehot - eps / V) * keep[:, None]
    if reduction == "mean":
        k = keep.sum()
        return loss.sum() / k if k else np.nan, lse, g / k if k else g * np.nan
    if reduction == "sum":
        return loss.sum(), lse, g
    return loss, lse, g


def xent_tols(x, lse, dt):
    """api.h: loss and lse within (16 + L) 2^-24 relative plus (16 + L) 2^-24 (S + ln V + 1)
    absolute, the gradient within (16 + L + 4 S) 2^-24 relative plus (16 + L) 2^-24 absolute
    (plus one ulp of a 16-bit dtype); L = ceil(log2 V) + 1, S the largest |max|, |lse| or
    |target logit| of a row (at least 1)."""
    V = x.shape[-1]
    L = int(np.ceil(np.log2(V))) + 1
    S = max(1.0, float(np.abs(x).max()), float(np.abs(lse).max()))
    a = (16 + L) * U * (S + np.log(V) + 1)
    return (lambda want: (16 + L) * U * np.abs(want) + a,
            lambda want: (16 + L + 4 * S) * U * np.abs(want) + (16 + L) * U + ulp16(dt, want))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("width", ["i32", "i64"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("rows,V,eps", [(1, 3, 0.0), (7, 1000, 0.1), (5, 50257, 0.0)])
def test_cross_entropy(backend, dt, width, reduction, rows, V, eps):
    skip_unless(backend, dt)
    x = make(backend, RNG.uniform(-20, 20, (rows, V)), dt)  # logits of +-20
    tv = RNG.integers(0, V, rows)
    tv[0] = V - 1
    if rows > 2:
        tv[1] = -100  # ignored
        tv[2] = 0
    t = index_array(backend, tv, width)
    want_loss, want_lse, want_g = xent_ref(f64(x), tv, -100, eps, reduction)
    tol_l, tol_g = xent_tols(f64(x), want_lse, dt)
    loss, lse = sl.cross_entropy_forward(x, t, label_smoothing=eps, reduction=reduction)
    sync(backend)
    within(loss, np.asarray(want_loss), tol_l(np.asarray(want_loss)) * (rows if reduction != "none" else 1))
    within(lse, want_lse, tol_l(want_lse))
    assert np.array_equal(f64(sl.cross_entropy(x, t, reduction=reduction, label_smoothing=eps)), f64(loss))
    loss2, lse2, g = sl.cross_entropy_forward_backward(x, t, label_smoothing=eps, reduction=reduction)
    sync(backend)
    within(loss2, np.asarray(want_loss), tol_l(np.asarray(want_loss)) * (rows if reduction != "none" else 1))
    within(g, want_g, tol_g(want_g))
    # in place: the gradient over the logits (the input is gone after)
    loss3, _, g3 = sl.cross_entropy_forward_backward(x, t, label_smoothing=eps, reduction=reduction, inplace=True)
    sync(backend)
    assert g3 is x
    within(g3, want_g, tol_g(want_g))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("rows,V,eps", [(1, 3, 0.0), (7, 1000, 0.1), (5, 50257, 0.0)])
def test_cross_entropy_backward(backend, dt, reduction, rows, V, eps):
    """The backward from a saved lse (sl_cross_entropy_bwd), the lse handed in being the float64
    reference's rounded to f32: the gradient of the reduced loss times grad_output, within the
    fused bound plus api.h's (2 S + 8) 2^-24 p term for the f32 lse."""
    skip_unless(backend, dt)
    x = make(backend, RNG.uniform(-20, 20, (rows, V)), dt)
    tv = RNG.integers(0, V, rows)
    tv[0] = V - 1
    if rows > 2:
        tv[1] = -100
        tv[2] = 0
    t = index_array(backend, tv, "i64")
    _, want_lse, want_g = xent_ref(f64(x), tv, -100, eps, reduction)
    go = RNG.uniform(-2, 2, rows) if reduction == "none" else np.array(1.5)
    lse = make(backend, want_lse, "f32")
    dloss = make(backend, go, "f32").reshape(go.shape)  # make() gives 0-d values one dimension
    g = sl.cross_entropy_backward(dloss, x, t, lse, label_smoothing=eps, reduction=reduction)
    sync(backend)
    scale = go[:, None] if reduction == "none" else go
    want = want_g * scale
    _, tol_g = xent_tols(f64(x), want_lse, dt)
    S = max(1.0, float(np.abs(f64(x)).max()), float(np.abs(want_lse).max()))
    p = np.exp(f64(x) - want_lse[:, None]) * np.abs(scale)
    within(g, want, tol_g(want) + (2 * S + 8) * U * p + (16 + np.ceil(np.log2(V)) + 1) * U * np.abs(scale))
    g2 = sl.cross_entropy_backward(dloss, x, t, lse, label_smoothing=eps, reduction=reduction, inplace=True)
    sync(backend)
    assert g2 is x


def test_cross_entropy_errors_and_bound_can_fail():
    x = RNG.uniform(-20, 20, (4, 100)).astype(np.float32)
    t = np.array([0, 5, 99, 100], dtype=np.int64)  # 100 is out of range [0, 100)
    with pytest.raises(ValueError):
        sl.cross_entropy(x, t)
    with pytest.raises(ValueError, match="reduction"):
        sl.cross_entropy(x, t[:3].copy(), reduction="avg")
    with pytest.raises(ValueError):  # float targets
        sl.cross_entropy(x, t.astype(np.float32))
    t[3] = 1
    _, lse = sl.cross_entropy_forward(x, t, reduction="none")
    want = xent_ref(x.astype(np.float64), t, -100, 0.0, "none")[1]
    tol_l, _ = xent_tols(x.astype(np.float64), want, "f32")
    within(lse, want, tol_l(want))
    with pytest.raises(AssertionError):
        within(want + 2 * tol_l(want), want, tol_l(want))
