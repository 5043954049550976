"""torch integration: registered ops (opcheck), torch.compile, CUDA streams,
CUDA graphs, devices. CPU parts run wherever torch is installed; CUDA parts
skip with the reason when there is no GPU."""
from __future__ import annotations

import numpy as np
import pytest

import streamlab as sl
from conftest import HAVE_CUDA, WHY_NO_CUDA, requires_cuda, requires_torch
from streamlab import _table
from test_ops import softmax_ref, softmax_tol

torch = pytest.importorskip("torch", reason="torch is not installed")

DEVICES = ["cpu", pytest.param("cuda", marks=requires_cuda)]


def samples(dev):
    g = torch.Generator(device="cpu").manual_seed(28)

    def r(*shape, dt=torch.float32):
        return (torch.randn(*shape, generator=g) * 10).to(device=dev, dtype=dt)
    a, b = r(1001), r(1001)
    m = r(33, 65)
    t = torch.randint(0, 130, (9,), generator=g).to(dev)
    return {
        "copy": (a,), "scale": (a, 0.5), "add": (a, b), "triad": (a, b, 0.5), "dot": (a, b),
        "nstream": (r(1001), a, b, 0.5), "axpy": (a, r(1001), 0.5), "softmax": (r(7, 300) * 2,),
        "transpose": (m,), "gemm": (m, r(65, 17), 1.0, 0.0), "matmul": (m, r(65, 17)), "stencil2d": (m, 3),
        "softmax_backward": (r(7, 300), torch.softmax(r(7, 300), -1)),
        "rms_norm_forward": (r(9, 130), 1 + 0.01 * r(130), 1e-6),
        "rms_norm_backward": (r(9, 130), r(9, 130), 1 + 0.01 * r(130), 0.1 + r(9).abs()),
        "layer_norm_forward": (r(9, 130), 1 + 0.01 * r(130), 0.1 * r(130), 1e-5),
        "layer_norm_backward": (r(9, 130), r(9, 130), 1 + 0.01 * r(130), r(9), 0.1 + r(9).abs()),
        "add_rms_norm_forward": (r(9, 130), r(9, 130), 1 + 0.01 * r(130), 1e-6),
        "cross_entropy_forward": (r(9, 130), t, -100, 0.0, 0),
        "cross_entropy_forward_backward": (r(9, 130), t, -100, 0.1, 1),
        "cross_entropy_backward": (r(9).abs(), r(9, 130), t, torch.logsumexp(r(9, 130), -1), -100, 0.1, 0),
    }


def test_samples_cover_every_op():
    assert set(samples("cpu")) == {s.name for s in _table.OPS}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", [s.name for s in _table.OPS])
def test_opcheck(dev, name):
    functional, mut = sl._torch_ops.registered_ops()[name]
    spec = _table.SPECS[name]
    args = samples(dev)[name]
    if functional:
        torch.library.opcheck(getattr(torch.ops.streamlab, functional).default, args)
        # the out variant: the same arguments with fresh outputs in the schema's place
        outs = sl._ops.fake_outputs(spec, _full(spec, args))
        outs = outs if isinstance(outs, tuple) else (outs,)
        full = list(_full(spec, args))
        it = iter(outs)
        full = [next(it).zero_() if b is None else b for b in full]
        torch.library.opcheck(getattr(torch.ops.streamlab, mut).default, tuple(full))
    else:
        torch.library.opcheck(getattr(torch.ops.streamlab, mut).default, args)


def _full(spec, functional_args):
    """functional args (outputs left out) -> spec.params order with None for the outputs."""
    outs = {b.py for b in spec.bufs if b.role == "out"}
    it = iter(functional_args)
    return tuple(None if p in outs else next(it) for p in spec.params)


@pytest.mark.parametrize("dev", DEVICES)
def test_registered_op_matches_eager(dev):
    x = samples(dev)["softmax"][0]
    assert torch.equal(torch.ops.streamlab.softmax(x), sl.softmax(x))
    a, b = samples(dev)["add"]
    out = torch.empty_like(a)
    torch.ops.streamlab.add_out(a, b, out)
    assert torch.equal(out, a + b)


@pytest.mark.parametrize("dev", DEVICES)
def test_compile_fullgraph(dev):
    """streamlab.softmax between two torch ops: one graph, no break, eager's values."""
    if dev == "cpu":
        pytest.importorskip("torch._inductor")

    def f(x, y):
        # single-rounding torch ops around streamlab's, so that inductor's fusion
        # (which may contract x * a + b into an fma) cannot change a bit
        h = torch.relu(x) - 20.0
        p = sl.softmax(h)
        return sl.add(p, y) * 2.0

    x = torch.randn(64, 1000, device=dev) * 10
    y = torch.randn(64, 1000, device=dev)
    explain = torch._dynamo.explain(f)(x, y)
    assert explain.graph_break_count == 0 and explain.graph_count == 1
    torch._dynamo.reset()
    cf = torch.compile(f, fullgraph=True)
    got = cf(x, y)
    want = f(x, y)
    torch.testing.assert_close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("dev", DEVICES)
def test_compile_in_place_and_out(dev):
    def g(x, y, o):
        sl.axpy(x, y, 2.0)
        sl.add(x, y, out=o)
        return o * 2.0

    x, y = torch.randn(513, device=dev), torch.randn(513, device=dev)
    y2, o1, o2 = y.clone(), torch.empty_like(x), torch.empty_like(x)
    got = torch.compile(g, fullgraph=True)(x, y, o1)
    want = g(x, y2, o2)
    assert torch.equal(y, y2) and torch.equal(o1, o2) and torch.equal(got, want)


def test_torch_and_numpy_do_not_mix():
    with pytest.raises(TypeError):
        sl.add(torch.ones(3), np.ones(3, np.float32))
    with pytest.raises(TypeError):
        sl.add(np.ones(3, np.float32), torch.ones(3))


def test_non_contiguous_message_names_contiguous():
    x = torch.randn(8, 8).t()
    with pytest.raises(ValueError, match=r"\.contiguous\(\)"):
        sl.softmax(x)


@requires_torch
def test_bf16_fp8_on_cpu():
    a = (torch.randn(999) * 30).to(torch.float8_e4m3fn)
    b = (torch.randn(999) * 30).to(torch.float8_e4m3fn)
    want = (a.float() + b.float()).to(torch.float8_e4m3fn)  # |sum| < 448: no saturation either way
    assert torch.equal(sl.add(a, b).view(torch.uint8), want.view(torch.uint8))


# ---- CUDA ---------------------------------------------------------------------------------
@requires_cuda
def test_wrong_device():
    a = torch.randn(10, device="cuda")
    with pytest.raises(ValueError, match="cuda:0|cpu"):
        sl.add(a, torch.randn(10))
    with pytest.raises(ValueError):
        sl.add(torch.randn(10), a)


@requires_cuda
def test_non_default_stream():
    """The kernel goes on torch.cuda.current_stream(): x is filled on s after a long
    sleep, so a kernel on any other stream would read the old x."""
    x = torch.zeros(1 << 20, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(50_000_000)  # ~25 ms of GPU cycles
        x.fill_(1.0)
        z = sl.add(x, x)
        w = sl.softmax(x.view(1024, 1024))
    s.synchronize()
    assert torch.all(z == 2.0)
    assert torch.allclose(w, torch.full_like(w, 1.0 / 1024))


@requires_cuda
def test_cuda_graph_capture():
    x = torch.randn(512, 1000, device="cuda") * 10
    y = torch.randn(512, 1000, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm up (contexts, workspaces) outside the capture
        sl.softmax(x)
        sl.add(x, y)
        sl.dot(x.view(-1), y.view(-1))
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        p = sl.softmax(x)
        q = sl.add(p, y)
        d = sl.dot(x.view(-1), y.view(-1))
    for _ in range(2):
        x.copy_(torch.randn_like(x) * 10)
        g.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(p, torch.softmax(x, -1), rtol=2e-6, atol=1e-30)
        assert torch.equal(q, p + y)
        torch.testing.assert_close(d, (x.double() * y.double()).sum().float(), rtol=1e-6, atol=1e-3)


@requires_cuda
def test_compiled_reduce_overhead_graph():
    def f(x):
        return sl.softmax(x * 2.0) + 1.0
    x = torch.randn(64, 2048, device="cuda") * 5
    cf = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    for _ in range(3):
        got = cf(x)
    torch.testing.assert_close(got, f(x), rtol=0, atol=0)


def _softmax_close(y, x):
    """y = softmax(x) within the library's f32 tolerance (test_ops.softmax_tol), against fp64."""
    x64 = x.double().cpu().numpy()
    want = softmax_ref(x64)
    err = np.abs(y.double().cpu().numpy() - want)
    assert (err <= softmax_tol(want, "f32", x64)).all(), float(err.max())


two_gpus = pytest.mark.skipif(not HAVE_CUDA or torch.cuda.device_count() < 2,
                              reason=WHY_NO_CUDA if not HAVE_CUDA else "one GPU only")


@two_gpus
def test_second_device():
    """cuda:1 runs on device 1's context (created once, kept), whatever device is current,
    and leaves the current device as it found it."""
    torch.cuda.set_device(0)
    a = torch.randn(1 << 16, device="cuda:1") * 20
    b = sl.scale(a, 3.0)
    assert b.device == a.device
    assert torch.equal(b, a * 3.0)
    assert torch.cuda.current_device() == 0
    ctx1 = sl._lib._contexts[1]  # device 1's own context
    x = torch.randn(300, 5000, device="cuda:1") * 8
    _softmax_close(sl.softmax(x), x)
    assert sl._lib._contexts[1] is ctx1  # kept, not re-created
    assert torch.cuda.current_device() == 0


@two_gpus
def test_second_device_interleaved_and_streams():
    """Calls alternating between the devices, each on a non-default stream of its own
    device, and a CUDA graph captured on device 1."""
    xs = [torch.randn(1 << 20, device="cuda:%d" % d) * 20 for d in (0, 1)]
    ys = [torch.randn(1 << 20, device="cuda:%d" % d) * 20 for d in (0, 1)]
    outs = [torch.empty_like(x) for x in xs]
    streams = [torch.cuda.Stream(device=d) for d in (0, 1)]
    for _ in range(3):
        for d in (0, 1):
            with torch.cuda.device(d), torch.cuda.stream(streams[d]):
                sl.add(xs[d], ys[d], out=outs[d])
    for d in (0, 1):
        streams[d].synchronize()
        assert torch.equal(outs[d], xs[d] + ys[d]), d
    with torch.cuda.device(1):
        x = torch.randn(64, 4096, device="cuda:1") * 8
        y = torch.empty_like(x)
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s), torch.cuda.graph(g, stream=s):
            sl.softmax(x, out=y)
        x.mul_(0.5)  # the replay reads the new values
        g.replay()
        torch.cuda.synchronize(1)
        _softmax_close(y, x)


@two_gpus
def test_second_device_mixed_devices_refused():
    a = torch.randn(1000, device="cuda:0")
    b = torch.randn(1000, device="cuda:1")
    with pytest.raises(ValueError, match="cuda:1|device"):
        sl.add(a, b)
    with pytest.raises(ValueError, match="out is on cuda:1 but the first input is on cuda:0"):
        sl.add(a, a, out=torch.empty(1000, device="cuda:1"))


@requires_cuda
def test_cuda_dtypes():
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
        a = (torch.randn(4097, device="cuda") * 20).to(dt)
        b = (torch.randn(4097, device="cuda") * 20).to(dt)
        want = (a.float() + b.float()).to(dt)
        assert torch.equal(sl.add(a, b).view(torch.uint8 if dt.itemsize == 1 else torch.int16
                                             if dt.itemsize == 2 else torch.int32),
                           want.view(torch.uint8 if dt.itemsize == 1 else torch.int16
                                     if dt.itemsize == 2 else torch.int32)), dt


@pytest.mark.skipif(sl.BACKENDS != "cpu" or not torch.cuda.is_available(), reason="needs a CPU-only build and a GPU")
def test_cpu_only_build_says_so():
    with pytest.raises(ValueError, match="CPU-only"):
        sl.add(torch.ones(3, device="cuda"), torch.ones(3, device="cuda"))


@pytest.mark.parametrize("dev", DEVICES)
def test_stencil_refuses_other_dtypes(dev):
    """sl_stencil2d has no dtype parameter (f32 only): the binding must refuse the rest."""
    for dt in (torch.float64, torch.bfloat16, torch.float16):
        x = torch.randn(16, 16, device=dev).to(dt)
        with pytest.raises(ValueError, match="f32"):
            sl.stencil2d(x, 1)


@requires_torch
def test_bad_types_raise_type_error():
    """Not an array, or a scalar that is not a number: TypeError with the function's name
    (the first device run's hostile pass found AttributeError and ctypes.ArgumentError)."""
    x = torch.randn(4, 8)
    for f, what in ((lambda: sl.softmax([1.0, 2.0]), "softmax"), (lambda: sl.softmax(None), "softmax"),
                    (lambda: sl.rms_norm([1.0], (1,)), "rms_norm"), (lambda: sl.layer_norm("x", (1,)), "layer_norm"),
                    (lambda: sl.scale(x, "2"), "scale"), (lambda: sl.scale(x, None), "scale"),
                    (lambda: sl.axpy(x, x.clone(), [2.0]), "axpy")):
        with pytest.raises(TypeError, match="streamlab.%s" % what):
            f()


@requires_torch
@pytest.mark.parametrize("dt", [torch.float32, torch.bfloat16] if torch is not None else [])
def test_rms_norm_defaults_are_torchs(dt):
    """rms_norm(x, shape) with weight and eps omitted: torch's defaults (no weight, eps =
    finfo(dtype).eps), compared in fp64 within the documented tolerance (api.h: 64 x 2^-24
    relative, plus one ulp of a 16-bit dtype)."""
    x = (torch.randn(6, 300) * 3).to(dt)
    got = sl.rms_norm(x, (300,))
    x64 = x.double()
    eps = torch.finfo(dt).eps
    want = x64 * torch.rsqrt(x64.square().mean(-1, keepdim=True) + eps)
    unit = 2.0**-24 if dt == torch.float32 else 2.0**-8
    assert ((got.double() - want).abs() <= (64 * 2.0**-24 + 2 * unit) * want.abs() + 1e-30).all()
    assert not torch.equal(got, sl.rms_norm(x, (300,), None, 1.0))  # eps does reach the kernel


@requires_cuda
def test_norm_backwards_on_two_streams():
    """rms_norm_backward and layer_norm_backward on two streams at once give the bits they
    give alone (dw / db are deterministic): each call's partials are in its own buffer from
    torch's allocator, not in the context's one workspace."""
    g = torch.Generator(device="cuda").manual_seed(32)
    M, N = 8192, 2048
    cases = []
    for _ in range(2):
        x = torch.randn(M, N, device="cuda", generator=g) * 3
        dy = torch.randn(M, N, device="cuda", generator=g)
        w = 1 + 0.1 * torch.randn(N, device="cuda", generator=g)
        b = 0.1 * torch.randn(N, device="cuda", generator=g)
        _, rstd = sl.rms_norm_forward(x, w, 1e-6)
        _, mean, lrstd = sl.layer_norm_forward(x, w, b, 1e-5)
        cases.append((x, dy, w, rstd, mean, lrstd))
    alone = [(sl.rms_norm_backward(dy, x, w, rstd), sl.layer_norm_backward(dy, x, w, mean, lrstd))
             for x, dy, w, rstd, mean, lrstd in cases]
    torch.cuda.synchronize()
    streams = [torch.cuda.Stream() for _ in cases]
    for _ in range(4):
        got = []
        for s, (x, dy, w, rstd, mean, lrstd) in zip(streams, cases):
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                got.append((sl.rms_norm_backward(dy, x, w, rstd), sl.layer_norm_backward(dy, x, w, mean, lrstd)))
        torch.cuda.synchronize()
        for (r1, l1), (r2, l2) in zip(got, alone):
            for a, b in zip(r1 + l1, r2 + l2):
                assert torch.equal(a, b)


@requires_torch
def test_integer_scalars_checked():
    """An integer C scalar gets an integer in its C type's range: ctypes would wrap 2**70
    into some other ignore_index without a word."""
    x, t = torch.randn(4, 8), torch.zeros(4, dtype=torch.long)
    with pytest.raises(ValueError, match="ignore_index = 1180591620717411303424 is outside"):
        sl.cross_entropy(x, t, ignore_index=2**70)
    with pytest.raises(TypeError, match="ignore_index must be an integer"):
        sl.cross_entropy(x, t, ignore_index=1.5)
    with pytest.raises(TypeError, match="radius must be an integer"):
        sl.stencil2d(torch.randn(16, 16), 1.5)
    want = torch.nn.functional.cross_entropy(x.double(), t, ignore_index=-(2**63)).float()
    torch.testing.assert_close(sl.cross_entropy(x, t, ignore_index=-(2**63)), want, rtol=1e-5, atol=0)
