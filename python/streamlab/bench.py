"""streamlab.bench: time any GPU callable against the device's measured copy ceiling.

    import torch, streamlab, streamlab.bench as slb
    x = torch.randn(4096, 32768, device="cuda")
    slb.run({"streamlab": lambda: streamlab.softmax(x), "torch": lambda: torch.softmax(x, -1)},
            bytes=2 * x.numel() * 4, baseline="torch")

Protocol (the CLI's, docs/python.md):
  - each callable is warmed up, then `calls` launches of it are captured in
    one CUDA graph on a side stream; the graph is replayed `reps` times
    between CUDA events; time = median over replays of (replay time / calls):
    kernel time with back-to-back launches, no Python dispatch;
  - when the working set fits in L2 (bytes < 3 x L2, or bytes unknown) each
    captured call is preceded by an L2 flush (a read-only pass over a buffer
    of 2 x L2, so no dirty lines are left to write back), and a graph of the
    flushes alone is timed in alternation and subtracted;
  - the copy ceiling is a copy kernel (streamlab.copy, 2 x 1 GiB f32 read +
    written) timed the same way once per process and device; never a
    device-to-device cudaMemcpy, which runs at ~2.7 TB/s when captured in a
    graph on an H200;
  - GB/s = bytes / time (bytes = what the op must read + write, the caller's
    count); %copy = GB/s / the ceiling's GB/s; x<baseline> = baseline time /
    time (above 1: faster than the baseline).

`graph=False` times single launches between events instead (for callables
that cannot be captured); `setup` is called before each callable is timed;
`memory=True` adds the peak memory one call allocates (torch's caching
allocator, torch.cuda.max_memory_allocated).
"""
from __future__ import annotations

import math
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Union

Number = Union[int, float]

_CEILING: Dict[int, float] = {}


class Results(list):
    """A list of row dicts; .df gives a pandas DataFrame when pandas is installed."""

    @property
    def df(self):
        import pandas as pd
        return pd.DataFrame(list(self))

    def table(self) -> str:
        return format_table(self)

    def markdown(self) -> str:
        return format_table(self, markdown=True)


def _torch():
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("streamlab.bench needs a CUDA GPU visible to torch")
    return torch


def _l2_bytes(torch, dev: int) -> int:
    return int(getattr(torch.cuda.get_device_properties(dev), "L2_cache_size", 50 << 20) or (50 << 20))


class _Flusher:
    """A read-only pass over 2 x L2 (streamlab.dot of a buffer with itself)."""

    def __init__(self, torch, dev: int) -> None:
        import streamlab
        n = 2 * _l2_bytes(torch, dev) // 4
        self.buf = torch.ones(n, device=dev)
        self.out = torch.empty((), device=dev)
        self._dot = streamlab.dot
        self()  # first use outside any capture (the context and dot's workspace are made then)
        torch.cuda.synchronize()

    def __call__(self) -> None:
        self._dot(self.buf, self.buf, out=self.out)


def _capture(torch, fn: Callable[[], Any], calls: int, flush: Optional[Callable[[], None]]):
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        with torch.cuda.graph(g, stream=s):
            for _ in range(calls):
                if flush is not None:
                    flush()
                fn()
    torch.cuda.synchronize()
    return g


def _time_graph(torch, g, reps: int) -> List[float]:
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    g.replay()  # one untimed replay (first replay uploads the graph)
    for a, b in ev:
        a.record()
        g.replay()
        b.record()
    torch.cuda.synchronize()
    return [a.elapsed_time(b) * 1e-3 for a, b in ev]


def _time_events(torch, fn: Callable[[], Any], reps: int, flush: Optional[Callable[[], None]],
                 budget_s: Optional[float] = None) -> List[float]:
    out: List[float] = []
    t0 = time.perf_counter()
    for _ in range(reps):
        if budget_s is not None and len(out) >= 3 and time.perf_counter() - t0 >= budget_s:
            break
        if flush is not None:
            flush()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        out.append(a.elapsed_time(b) * 1e-3)
    return out


def time_callable(fn: Callable[[], Any], *, flush_l2: bool = False, graph: bool = True, reps: int = 20,
                  warmup: int = 3, calls: Optional[int] = None, target_s: float = 2e-3,
                  flush: Optional[Callable[[], Any]] = None, budget_s: Optional[float] = None) -> Dict[str, Any]:
    """Seconds per call of fn: {'median', 'min', 'calls', 'reps', 'times'} (see the module doc).

    flush: with graph=False, a caller's own L2 flush run before each timed call
    instead of the read-only pass flush_l2 gives (e.g. a fill of a large
    buffer, for scripts that time torch alone without the streamlab
    library). budget_s: with graph=False, stop after this many seconds once
    3 calls are timed (reps is then the most). times: every sample, seconds
    per call."""
    if flush is not None and graph:
        raise ValueError("streamlab.bench.time_callable: flush= goes with graph=False (graphs take flush_l2)")
    torch = _torch()
    dev = torch.cuda.current_device()
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    if flush is None and flush_l2:
        flush = _Flusher(torch, dev)
    if not graph:
        t = _time_events(torch, fn, reps, flush, budget_s)
        return {"median": statistics.median(t), "min": min(t), "calls": 1, "reps": len(t), "times": t}
    if calls is None:
        one = statistics.median(_time_events(torch, fn, 3, None))
        calls = int(min(1000, max(1, math.ceil(target_s / max(one, 1e-7)))))
    g = _capture(torch, fn, calls, flush)
    if flush is None:
        t = [x / calls for x in _time_graph(torch, g, reps)]
    else:
        gf = _capture(torch, lambda: None, calls, flush)
        t = []
        for _ in range(reps):
            both = _time_graph(torch, g, 1)[0]
            alone = _time_graph(torch, gf, 1)[0]
            t.append(max(both - alone, 0.0) / calls)
    if statistics.median(t) <= 0:
        raise RuntimeError("streamlab.bench: the callable's time is below the L2 flush's noise; pass "
                           "flush_l2=False, or more work per call")
    return {"median": statistics.median(t), "min": min(t), "calls": calls, "reps": reps, "times": t}


def copy_ceiling(device: Optional[int] = None, n: int = 1 << 28) -> float:
    """GB/s of a copy kernel (streamlab.copy of n f32, read + written), graph-timed,
    once per process and device."""
    torch = _torch()
    dev = torch.cuda.current_device() if device is None else device
    if dev not in _CEILING:
        import streamlab
        with torch.cuda.device(dev):
            x = torch.ones(n, device=dev)
            y = torch.empty_like(x)
            t = time_callable(lambda: streamlab.copy(x, out=y), reps=10)
            _CEILING[dev] = 2 * n * 4 / t["median"] / 1e9
            del x, y
    return _CEILING[dev]


def run(fns: Dict[str, Callable[[], Any]], *, bytes: Optional[Union[Number, Dict[str, Number]]] = None,
        flops: Optional[Union[Number, Dict[str, Number]]] = None, baseline: Optional[str] = None,
        setup: Optional[Callable[[], Any]] = None, graph: bool = True, flush_l2: Optional[bool] = None,
        reps: int = 20, warmup: int = 3, calls: Optional[int] = None, memory: bool = False,
        ceiling: bool = True, title: Optional[str] = None, print_table: bool = True) -> Results:
    """Time each callable of `fns` ({name: zero-argument callable}); see the module doc.
    bytes / flops: one number for all, or a dict by name. Returns Results (rows:
    name, us, min_us, GB/s, %copy, TFLOP/s, x<baseline>, peak_MiB, calls, flush_l2)."""
    torch = _torch()
    dev = torch.cuda.current_device()
    if baseline is not None and baseline not in fns:
        raise ValueError("streamlab.bench.run: baseline %r is not one of %s" % (baseline, list(fns)))
    ceil = copy_ceiling(dev) if ceiling else None
    l2 = _l2_bytes(torch, dev)
    rows = Results()
    for name, fn in fns.items():
        b = bytes.get(name) if isinstance(bytes, dict) else bytes
        f = flops.get(name) if isinstance(flops, dict) else flops
        flush = flush_l2 if flush_l2 is not None else (b is None or b < 3 * l2)
        if setup is not None:
            setup()
        peak = None
        if memory:
            torch.cuda.synchronize()
            base = torch.cuda.memory_allocated(dev)
            torch.cuda.reset_peak_memory_stats(dev)
            fn()
            torch.cuda.synchronize()
            peak = (torch.cuda.max_memory_allocated(dev) - base) / 2**20
        t = time_callable(fn, flush_l2=flush, graph=graph, reps=reps, warmup=warmup, calls=calls)
        row: Dict[str, Any] = {"name": name, "us": t["median"] * 1e6, "min_us": t["min"] * 1e6}
        if b is not None:
            row["GB/s"] = b / t["median"] / 1e9
            if ceil:
                row["%copy"] = 100.0 * row["GB/s"] / ceil
        if f is not None:
            row["TFLOP/s"] = f / t["median"] / 1e12
        if peak is not None:
            row["peak_MiB"] = peak
        row["calls"] = t["calls"]
        row["flush_l2"] = flush
        rows.append(row)
    if baseline is not None:
        bt = next(r["us"] for r in rows if r["name"] == baseline)
        for r in rows:
            r["x" + baseline] = bt / r["us"]
    if print_table:
        head = title or "streamlab.bench on %s (copy ceiling %s)" % (
            torch.cuda.get_device_name(dev), "%.0f GB/s" % ceil if ceil else "not measured")
        print(head)
        print(format_table(rows))
        sys.stdout.flush()
    return rows


_COLS = [("name", "%s"), ("us", "%.2f"), ("min_us", "%.2f"), ("GB/s", "%.0f"), ("%copy", "%.1f"),
         ("TFLOP/s", "%.1f"), ("peak_MiB", "%.1f")]


def format_table(rows: List[Dict[str, Any]], markdown: bool = False) -> str:
    if not rows:
        return "(no rows)"
    cols = [(k, fmt) for k, fmt in _COLS if any(k in r for r in rows)]
    cols += [(k, "%.3f") for k in rows[0] if k.startswith("x")]
    cells = [[k for k, _ in cols]] + [[(fmt % r[k]) if k in r else "-" for k, fmt in cols] for r in rows]
    if markdown:
        out = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join("---" for _ in cols) + "|"]
        out += ["| " + " | ".join(c) + " |" for c in cells[1:]]
        return "\n".join(out)
    w = [max(len(c[i]) for c in cells) for i in range(len(cols))]
    lines = ["  ".join(c[i].ljust(w[i]) if i == 0 else c[i].rjust(w[i]) for i in range(len(cols))) for c in cells]
    lines.insert(1, "  ".join("-" * x for x in w))
    return "\n".join(lines)


# ---- python -m streamlab.bench OP: an op's public function beside torch's equivalent ----------
def _cases(torch, op: str, dtype: str):
    """(title, {name: fn}, bytes, flops, baseline) for op at its CLI default shape."""
    import streamlab as sl
    dt = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    es = torch.empty((), dtype=dt).element_size()
    g = torch.Generator(device="cuda").manual_seed(28)

    def rnd(*shape, scale=10.0):
        return (torch.randn(*shape, device="cuda", generator=g) * scale).to(dt)
    n = 1 << 28
    if op in ("copy", "scale", "add", "triad", "dot", "nstream", "axpy"):
        a, b, c = rnd(n), rnd(n), torch.empty(n, device="cuda", dtype=dt)
        s = torch.empty((), device="cuda", dtype=dt)
        fns = {
            "copy": ({"streamlab.copy": lambda: sl.copy(a, out=c), "torch copy_": lambda: c.copy_(a)}, 2),
            "scale": ({"streamlab.scale": lambda: sl.scale(a, 0.4, out=c),
                       "torch.mul": lambda: torch.mul(a, 0.4, out=c)}, 2),
            "add": ({"streamlab.add": lambda: sl.add(a, b, out=c), "torch.add": lambda: torch.add(a, b, out=c)}, 3),
            "triad": ({"streamlab.triad": lambda: sl.triad(a, b, 0.4, out=c),
                       "torch.add(alpha=)": lambda: torch.add(a, b, alpha=0.4, out=c)}, 3),
            "dot": ({"streamlab.dot": lambda: sl.dot(a, b, out=s), "torch.dot": lambda: torch.dot(a, b, out=s)}, 2),
            "nstream": ({"streamlab.nstream": lambda: sl.nstream(c, a, b, 0.4),
                         "torch (2 kernels)": lambda: c.add_(torch.add(a, b, alpha=0.4))}, 4),
            "axpy": ({"streamlab.axpy": lambda: sl.axpy(a, c, 0.4), "torch add_(alpha=)": lambda: c.add_(a, alpha=0.4)},
                     3),
        }[op]
        base = [k for k in fns[0] if not k.startswith("streamlab")][0]
        return ("%s %s n=2^28" % (op, dtype), fns[0], fns[1] * n * es, None, base)
    if op == "softmax":
        x = rnd(4096, 1 << 15, scale=5.0)
        y = torch.empty_like(x)
        return ("softmax %s 4096x2^15" % dtype, {"streamlab.softmax": lambda: sl.softmax(x, out=y),
                                                "torch.softmax": lambda: torch.softmax(x, -1)},
                2 * x.numel() * es, None, "torch.softmax")
    if op == "transpose":
        x = rnd(16384, 16384)
        y = torch.empty_like(x)
        return ("transpose %s 16384x16384" % dtype, {"streamlab.transpose": lambda: sl.transpose(x, out=y),
                                                    "torch .t().contiguous()": lambda: x.t().contiguous()},
                2 * x.numel() * es, None, "torch .t().contiguous()")
    if op in ("matmul", "gemm"):
        m = 4096
        a, b, c = rnd(m, m, scale=1.0), rnd(m, m, scale=1.0), torch.empty(m, m, device="cuda", dtype=dt)
        return ("matmul %s 4096^3" % dtype, {"streamlab.matmul": lambda: sl.matmul(a, b, out=c),
                                            "torch.matmul": lambda: torch.matmul(a, b, out=c)},
                3 * m * m * es, 2.0 * m**3, "torch.matmul")
    if op == "stencil2d":
        r = 4
        x = rnd(8192, 8192)
        y = torch.empty_like(x)
        w = torch.zeros(1, 1, 2 * r + 1, 2 * r + 1, device="cuda", dtype=dt)
        w[0, 0, r, r] = 0.5
        for k in range(1, r + 1):
            ck = 1.0 / (8 * (k + 1) ** 2)
            w[0, 0, r, r - k] = w[0, 0, r, r + k] = w[0, 0, r - k, r] = w[0, 0, r + k, r] = ck
        x4 = x.view(1, 1, 8192, 8192)
        return ("stencil2d f32 8192x8192 radius 4", {
            "streamlab.stencil2d": lambda: sl.stencil2d(x, r, out=y),
            "torch conv2d": lambda: torch.nn.functional.conv2d(x4, w, padding=r)},
            2 * x.numel() * es, None, "torch conv2d")
    op = _ALIASES.get(op, op)
    if op in _ROW_OPS:
        return _row_case(torch, sl, op, dtype, dt, es, rnd)
    raise SystemExit("streamlab.bench: unknown op %r (one of %s)" % (op, ", ".join(_OPS_CLI)))


def _forward_on_side_stream(torch, fwd: Callable[[], Any]) -> Any:
    """fwd() on a fresh non-default stream. Autograd runs each backward op on the
    stream of its forward op; a forward left on the legacy default stream puts the
    backward there, and that stream cannot join a graph capture. A side stream
    joins the capture through autograd's events."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = fwd()
    torch.cuda.current_stream().wait_stream(s)
    return y


def _row_case(torch, sl, op: str, dtype: str, dt, es: int, rnd):
    """The row ops (issues 32 and 33) beside torch at the LLM shapes: the norms at
    32768 x 4096, the softmax backward at 4096 x 2^15, cross-entropy at 16384 x 32768.
    A backward's torch side is autograd.grad of a forward run once outside the
    timed calls; streamlab's is the public backward with its outputs given."""
    F = torch.nn.functional
    eps = 1e-6
    if op == "softmax_backward":
        m, n = 4096, 1 << 15
        x = rnd(m, n, scale=4.0)
        y = torch.softmax(x.float(), -1).to(dt)
        dy, dx = rnd(m, n, scale=1.0), torch.empty_like(x)
        return ("softmax_backward %s %dx%d" % (dtype, m, n),
                {"streamlab.softmax_backward": lambda: sl.softmax_backward(dy, y, out=dx),
                 "torch._softmax_backward_data": lambda: torch._softmax_backward_data(dy, y, -1, dt)},
                3 * m * n * es, None, "torch._softmax_backward_data")
    if op.startswith("cross_entropy"):
        m, v = 16384, 32768
        x = rnd(m, v, scale=4.0)  # logits over about +-16
        t = torch.randint(0, v, (m,), device="cuda", generator=torch.Generator(device="cuda").manual_seed(33))
        if op == "cross_entropy_forward":
            return ("cross_entropy (loss per row) %s %dx%d" % (dtype, m, v),
                    {"streamlab.cross_entropy": lambda: sl.cross_entropy(x, t, reduction="none"),
                     "F.cross_entropy": lambda: F.cross_entropy(x, t, reduction="none")},
                    m * v * es + 16 * m, None, "F.cross_entropy")
        xg = x.clone().requires_grad_()
        if op == "cross_entropy_forward_backward":
            xw = x.clone()  # streamlab writes the gradient over these logits, every call
            return ("cross_entropy forward + backward (gradient in place) %s %dx%d" % (dtype, m, v),
                    {"streamlab.cross_entropy_forward_backward":
                        lambda: sl.cross_entropy_forward_backward(xw, t, inplace=True),
                     "F.cross_entropy + autograd.grad": lambda: torch.autograd.grad(F.cross_entropy(xg, t), [xg])},
                    2 * m * v * es + 16 * m, None, "F.cross_entropy + autograd.grad")
        _, lse = sl.cross_entropy_forward(x, t, reduction="none")
        dloss = torch.ones(m, device="cuda")
        dx = torch.empty_like(x)
        loss = _forward_on_side_stream(torch, lambda: F.cross_entropy(xg, t, reduction="none"))
        return ("cross_entropy backward (from the saved logsumexp) %s %dx%d" % (dtype, m, v),
                {"streamlab.cross_entropy_backward": lambda: sl.cross_entropy_backward(
                    dloss, x, t, lse, reduction="none", grad_input=dx),
                 "autograd.grad of F.cross_entropy": lambda: torch.autograd.grad(loss, [xg], dloss, retain_graph=True)},
                2 * m * v * es + 16 * m, None, "autograd.grad of F.cross_entropy")
    m, n = 32768, 4096
    x, r = rnd(m, n, scale=2.0), rnd(m, n, scale=2.0)
    w = (1.0 + 0.1 * torch.randn(n, device="cuda")).to(dt)
    b = (0.1 * torch.randn(n, device="cuda")).to(dt)
    y = torch.empty_like(x)
    title = "%s %s %dx%d" % (op, dtype, m, n)
    if op == "rms_norm_forward":
        return (title, {"streamlab.rms_norm": lambda: sl.rms_norm(x, (n,), w, eps, out=y),
                        "F.rms_norm": lambda: F.rms_norm(x, (n,), w, eps)},
                2 * m * n * es + n * es + 4 * m, None, "F.rms_norm")
    if op == "layer_norm_forward":
        return (title, {"streamlab.layer_norm": lambda: sl.layer_norm(x, (n,), w, b, eps, out=y),
                        "F.layer_norm": lambda: F.layer_norm(x, (n,), w, b, eps)},
                2 * m * n * es + 2 * n * es + 8 * m, None, "F.layer_norm")
    if op == "add_rms_norm_forward":
        h = torch.empty_like(x)
        return (title, {"streamlab.add_rms_norm_forward": lambda: sl.add_rms_norm_forward(x, r, w, eps, out=y,
                                                                                          residual_out=h),
                        "x + r, F.rms_norm": lambda: F.rms_norm(x + r, (n,), w, eps)},
                4 * m * n * es + n * es + 4 * m, None, "x + r, F.rms_norm")
    dy = rnd(m, n, scale=1.0)
    xg, wg, bg = x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()
    if op == "rms_norm_backward":
        _, rstd = sl.rms_norm_forward(x, w, eps)
        dx, dw = sl.rms_norm_backward(dy, x, w, rstd)  # grows the context's workspace outside any capture
        out = _forward_on_side_stream(torch, lambda: F.rms_norm(xg, (n,), wg, eps))
        return (title, {"streamlab.rms_norm_backward": lambda: sl.rms_norm_backward(dy, x, w, rstd, grad_input=dx,
                                                                                      grad_weight=dw),
                        "autograd.grad of F.rms_norm": lambda: torch.autograd.grad(out, [xg, wg], dy,
                                                                                   retain_graph=True)},
                3 * m * n * es + 2 * n * es + 4 * m, None, "autograd.grad of F.rms_norm")
    _, mean, rstd = sl.layer_norm_forward(x, w, b, eps)
    dx, dw, db = sl.layer_norm_backward(dy, x, w, mean, rstd)
    out = _forward_on_side_stream(torch, lambda: F.layer_norm(xg, (n,), wg, bg, eps))
    return (title, {"streamlab.layer_norm_backward": lambda: sl.layer_norm_backward(
                        dy, x, w, mean, rstd, grad_input=dx, grad_weight=dw, grad_bias=db),
                    "autograd.grad of F.layer_norm": lambda: torch.autograd.grad(out, [xg, wg, bg], dy,
                                                                                 retain_graph=True)},
            3 * m * n * es + 3 * n * es + 8 * m, None, "autograd.grad of F.layer_norm")


# The row ops by their table names (streamlab._table.SPECS), and the names users type.
_ROW_OPS = ("softmax_backward", "rms_norm_forward", "rms_norm_backward", "layer_norm_forward", "layer_norm_backward",
            "add_rms_norm_forward", "cross_entropy_forward", "cross_entropy_forward_backward",
            "cross_entropy_backward")
_ALIASES = {"rms_norm": "rms_norm_forward", "layer_norm": "layer_norm_forward", "add_rms_norm": "add_rms_norm_forward",
            "cross_entropy": "cross_entropy_forward"}
_OPS_CLI = ("copy", "scale", "add", "triad", "dot", "nstream", "axpy", "softmax", "transpose", "matmul", "gemm",
            "stencil2d") + _ROW_OPS + tuple(_ALIASES)


def main(argv: Optional[List[str]] = None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m streamlab.bench",
                                description="Time an op's streamlab function beside its torch equivalent "
                                            "(CUDA-graph replay, % of a copy kernel's bandwidth).")
    p.add_argument("op", choices=_OPS_CLI, metavar="OP", help="one of: %s" % ", ".join(_OPS_CLI))
    p.add_argument("--dtype", default="f32", choices=("f32", "f64", "f16", "bf16"),
                   help="element type (default f32; the row ops take f32, bf16, f16)")
    def positive(v: str) -> int:
        if not v.lstrip("-").isdigit() or int(v) < 1:
            raise argparse.ArgumentTypeError("wants an integer of at least 1, not %r" % v)
        return int(v)
    p.add_argument("--reps", type=positive, default=20, help="graph replays timed (default 20)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    a = p.parse_args(argv)
    try:
        torch = _torch()
    except (ImportError, RuntimeError) as e:
        print("python -m streamlab.bench: %s" % e, file=sys.stderr)
        return 1
    title, fns, nbytes, nflops, base = _cases(torch, a.op, a.dtype)
    rows = run(fns, bytes=nbytes, flops=nflops, baseline=base, reps=a.reps, title=title, print_table=not a.markdown)
    if a.markdown:
        print(title)
        print(rows.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
