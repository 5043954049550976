"""Autograd through streamlab.softmax, rms_norm and cross_entropy (torch.library.register_autograd,
python/streamlab/_torch_ops.py). Each gradient is checked two ways:
  - exactly against streamlab's own backward function called by hand on the same saved tensors
    (the wiring: arguments in the right order, the right saved tensors, the upstream gradient
    applied once);
  - against torch's own autograd of the same function in float64 (independent code), within a
    bound far below the O(1) error any wiring mistake gives, and far above f32 rounding.
Plus opcheck's autograd registration test and torch.compile of a forward + backward."""
from __future__ import annotations

import numpy as np
import pytest

import streamlab as sl
from conftest import HAVE_CUDA, WHY_NO_CUDA, torch

pytestmark = pytest.mark.skipif(torch is None, reason="torch is not installed")

DEVICES = [pytest.param("cpu", id="cpu"),
           pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(not HAVE_CUDA, reason=WHY_NO_CUDA))]
REL = 1e-4  # of the reference's largest magnitude: f32 arithmetic lands near 1e-6


def gen(dev, seed):
    return torch.Generator(device="cpu").manual_seed(seed), dev


def randn(g, dev, *shape, scale=1.0):
    return (torch.randn(*shape, generator=g[0], dtype=torch.float64) * scale).to(dev)


def close(got, want):
    tol = REL * float(want.abs().max()) + 1e-30
    err = float((got.double() - want).abs().max())
    assert err <= tol, "max |error| %.3g > %.3g" % (err, tol)


@pytest.mark.parametrize("dev", DEVICES)
def test_softmax_grad(dev):
    g = gen(dev, 1)
    x64 = randn(g, dev, 5, 301, scale=8.0)  # logits of +-20 and more
    up = randn(g, dev, 5, 301)
    x = x64.float().requires_grad_()
    y = sl.softmax(x)
    (y * up.float()).sum().backward()
    assert np.array_equal(x.grad.cpu().numpy(), sl.softmax_backward(up.float(), y.detach()).cpu().numpy())
    xr = x64.clone().requires_grad_()
    (torch.softmax(xr, -1) * up).sum().backward()
    close(x.grad, xr.grad)


@pytest.mark.parametrize("dev", DEVICES)
def test_rms_norm_grad(dev):
    g = gen(dev, 2)
    N = 257
    x64, w64, up = randn(g, dev, 6, N, scale=3.0), 1 + 0.1 * randn(g, dev, N), randn(g, dev, 6, N)
    x, w = x64.float().requires_grad_(), w64.float().requires_grad_()
    y = sl.rms_norm(x, (N,), w, 1e-6)
    (y * up.float()).sum().backward()
    _, rstd = sl.rms_norm_forward(x.detach(), w.detach(), 1e-6)
    dx, dw = sl.rms_norm_backward(up.float(), x.detach(), w.detach(), rstd)
    assert torch.equal(x.grad, dx) and torch.equal(w.grad, dw)
    xr, wr = x64.clone().requires_grad_(), w64.clone().requires_grad_()
    (torch.nn.functional.rms_norm(xr, (N,), wr, 1e-6) * up).sum().backward()
    close(x.grad, xr.grad)
    close(w.grad, wr.grad)


@pytest.mark.parametrize("dev", DEVICES)
def test_layer_norm_grad(dev):
    g = gen(dev, 6)
    N = 257
    x64 = 2 + randn(g, dev, 6, N, scale=3.0)
    w64, b64, up = 1 + 0.1 * randn(g, dev, N), 0.3 * randn(g, dev, N), randn(g, dev, 6, N)
    x, w, b = x64.float().requires_grad_(), w64.float().requires_grad_(), b64.float().requires_grad_()
    y = sl.layer_norm(x, (N,), w, b, 1e-5)
    (y * up.float()).sum().backward()
    _, mean, rstd = sl.layer_norm_forward(x.detach(), w.detach(), b.detach(), 1e-5)
    dx, dw, db = sl.layer_norm_backward(up.float(), x.detach(), w.detach(), mean, rstd)
    assert torch.equal(x.grad, dx) and torch.equal(w.grad, dw) and torch.equal(b.grad, db)
    xr, wr, br = x64.clone().requires_grad_(), w64.clone().requires_grad_(), b64.clone().requires_grad_()
    (torch.nn.functional.layer_norm(xr, (N,), wr, br, 1e-5) * up).sum().backward()
    close(x.grad, xr.grad)
    close(w.grad, wr.grad)
    close(b.grad, br.grad)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_grad(dev, reduction, smoothing):
    g = gen(dev, 3)
    M, V = 9, 1000
    x64 = randn(g, dev, M, V, scale=8.0)
    t = torch.randint(0, V, (M,), generator=g[0]).to(dev)
    t[2] = -100  # ignored
    x = x64.float().requires_grad_()
    loss = sl.cross_entropy(x, t, reduction=reduction, label_smoothing=smoothing)
    up = randn(g, dev, *loss.shape) if reduction == "none" else torch.tensor(1.7, dtype=torch.float64, device=dev)
    loss.backward(up.float())
    xr = x64.clone().requires_grad_()
    lr = torch.nn.functional.cross_entropy(xr, t, reduction=reduction, label_smoothing=smoothing)
    lr.backward(up)
    close(loss.detach(), lr.detach())
    close(x.grad, xr.grad)
    assert float(x.grad[2].abs().max()) == 0.0  # an ignored row has no gradient


@pytest.mark.parametrize("dev", DEVICES)
def test_opcheck_autograd(dev):
    g = gen(dev, 4)
    x = randn(g, dev, 7, 130).float().requires_grad_()
    w = (1 + 0.01 * randn(g, dev, 130)).float().requires_grad_()
    t = torch.randint(0, 130, (7,), generator=g[0]).to(dev)
    torch.library.opcheck(torch.ops.streamlab.softmax.default, (x,))
    torch.library.opcheck(torch.ops.streamlab.rms_norm_forward.default, (x, w, 1e-6))
    torch.library.opcheck(torch.ops.streamlab.cross_entropy_forward.default, (x, t, -100, 0.0, 1))
    b = (0.1 * randn(g, dev, 130)).float().requires_grad_()
    torch.library.opcheck(torch.ops.streamlab.layer_norm_forward.default, (x, w, b, 1e-5))


@pytest.mark.parametrize("dev", DEVICES)
def test_compile_forward_backward(dev):
    g = gen(dev, 5)
    x64 = randn(g, dev, 4, 128, scale=4.0)
    w = (1 + 0.1 * randn(g, dev, 128)).float()

    def f(a):
        return sl.softmax(sl.layer_norm(sl.rms_norm(a, (128,), w) * 3.0, (128,), w, None)).square().sum()

    xa = x64.float().requires_grad_()
    f(xa).backward()
    xb = x64.float().requires_grad_()
    torch.compile(f, fullgraph=True)(xb).backward()
    close(xb.grad, xa.grad.double())
