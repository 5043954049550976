#!/usr/bin/env python3
"""row_peers.py - the row ops (softmax, its backward, RMSNorm, LayerNorm, the fused
residual add + RMSNorm, cross-entropy) timed beside every peer, in one process, on
the same tensors, through streamlab.bench (CUDA-graph replay, L2 flush below 3 x L2).

Peers (each skipped with its reason when it does not import):
  torch     eager: F.softmax, torch._softmax_backward_data, F.rms_norm, F.layer_norm,
            F.cross_entropy; backward ops as torch.autograd.grad of the forward
  compile   torch.compile(..., dynamic=False) of the same (default mode)
  liger     Liger-Kernel (LigerSoftmaxFunction, LigerRMSNormFunction (in-place dy off),
            LigerLayerNormFunction, LigerFusedAddRMSNormFunction, cross_entropy_forward);
            its cross-entropy calls .item(), so it is timed with events around single
            calls, not in a graph (the row says graph=False)
  quack     quack (softmax_fwd / softmax_bwd, rmsnorm_fwd / rmsnorm_bwd, layernorm_fwd,
            rmsnorm_fwd(residual=), cross_entropy_fwd (return_dx, inplace_backward))
  streamlab the public functions, through the Python package
Every case also times `copy`: streamlab.copy of the op's main tensor (a copy kernel,
never cudaMemcpy: ../shared/peers/README.md). `xcopy` = (op bytes / op time) / (copy
bytes / copy time): the bandwidth as a fraction of the copy's; a read-mostly op can
exceed 1.

Bytes (the compulsory traffic, the same count for every side; s = element size):
  softmax          read x, write y                          2 M N s
  softmax_bwd      read y, dy, write dx                     3 M N s
  rmsnorm          read x, w; write y, rstd                 2 M N s + N s_w + 4 M
  rmsnorm_bwd      read x, dy, w, rstd; write dx, dw        3 M N s + 2 N s_w + 4 M
  layernorm        read x, w, b; write y, mean, rstd        2 M N s + 2 N s_w + 8 M
  layernorm_bwd    read x, dy, w, mean, rstd; write dx, dw, db  3 M N s + 3 N s_w + 8 M
  add_rmsnorm      read x, r, w; write h, y, rstd           4 M N s + N s_w + 4 M
  xent             read logits, targets; write loss, lse    M V s + 8 M + 8 M
  xent_fwd_bwd     read logits, targets; write dlogits (in place), loss, lse  2 M V s + 16 M
  xent_bwd         read logits, targets, lse, dloss; write dlogits (the backward alone,
                   from a saved logsumexp)                   2 M V s + 16 M

    python3 bench/row_peers.py --ops rmsnorm,rmsnorm_bwd --dtypes bf16 --json out.json --md out.md
    python3 bench/row_peers.py --list

Needs torch with CUDA and the streamlab package (pip install .); exits 2 without.
Staging Liger and quack: ../shared/peers/README.md (two device calls); on the device,
bench/row_peers_h200.sh builds the library and runs this script in groups.
"""
from __future__ import annotations

import gc
import importlib
import json
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import _cli

EPS = 1e-6
K = 1024

# The issues' shapes (32: norms; 33: softmax and cross-entropy).
NORM_SHAPES = [(32768, n) for n in (1024, 2048, 4096, 8192, 16384, 32768, 65536)] + [(1, 4096), (16, 4096), (64, 4096)]
SMX_SHAPES = [(128, 1 << p) for p in range(10, 18)] + [(4096, 1 << 15), (16384, 1 << 14), (16384, 1 << 17),
                                                       (1, 4096), (16, 4096), (64, 4096)]
XENT_SHAPES = [(16384, v) for v in (32000, 32768, 50304, 128256, 131072, 151936, 262144)]
SHAPES = {"softmax": SMX_SHAPES, "softmax_bwd": SMX_SHAPES, "rmsnorm": NORM_SHAPES,
          "rmsnorm_bwd": NORM_SHAPES, "layernorm": NORM_SHAPES, "layernorm_bwd": NORM_SHAPES,
          "add_rmsnorm": NORM_SHAPES, "xent": XENT_SHAPES, "xent_fwd_bwd": XENT_SHAPES,
          "xent_bwd": XENT_SHAPES}


class Unavailable(Exception):
    """A side that cannot run this case (not installed, refuses the shape)."""


def _mod(name: str):
    try:
        return importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - any import failure makes the peer unavailable
        raise Unavailable("%s does not import: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__))


def versions(torch) -> Dict[str, str]:
    v = {"torch": torch.__version__, "cuda": str(torch.version.cuda),
         "gpu": torch.cuda.get_device_name(0)}
    for name, mod in (("triton", "triton"), ("liger", "liger_kernel"), ("quack", "quack"), ("streamlab", "streamlab")):
        try:
            m = importlib.import_module(mod)
            v[name] = getattr(m, "__version__", None) or importlib.metadata.version(
                {"liger": "liger-kernel", "quack": "quack-kernels"}.get(name, mod))
        except Exception as e:  # noqa: BLE001
            v[name] = "unavailable (%s)" % type(e).__name__
    try:
        import subprocess
        v["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                     capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except Exception:  # noqa: BLE001
        v["driver"] = "unknown"
    return v


# ---- one case: inputs, bytes, and each side's callable ----------------------------------------------


def case(torch, op: str, dt, M: int, N: int, seed: int) -> Tuple[Dict[str, Any], int, Dict[str, Callable[[], Callable[[], Any]]]]:
    """Inputs (a dict), the op's bytes, and {side: factory returning a zero-argument callable}."""
    F = torch.nn.functional
    g = torch.Generator(device="cuda").manual_seed(seed)
    dev = "cuda"
    s = torch.empty((), dtype=dt).element_size()

    def rnd(*shape, scale=1.0, dtype=dt):
        return (torch.randn(*shape, generator=g, device=dev, dtype=torch.float32) * scale).to(dtype)

    sides: Dict[str, Callable[[], Callable[[], Any]]] = {}
    sl = _sl()

    def compiled(fn):
        return torch.compile(fn, dynamic=False)

    def grad_of(fwd: Callable[[], Any], inputs: List[Any], dy):
        """Backward alone in a graph: the forward once outside (on a side stream, see
        _forward_on_side_stream), then autograd.grad captured."""
        def make():
            y = _forward_on_side_stream(torch, fwd)
            return lambda: torch.autograd.grad(y, inputs, dy, retain_graph=True)
        return make

    if op in ("softmax", "softmax_bwd"):
        x = rnd(M, N, scale=4.0)  # logits spread over about +-16 (issue 25: real ranges)
        nbytes = (2 if op == "softmax" else 3) * M * N * s
        if op == "softmax":
            sides["streamlab"] = lambda: (lambda: sl.softmax(x, -1))
            sides["torch"] = lambda: (lambda: torch.softmax(x, -1))
            f = compiled(lambda a: torch.softmax(a, -1))
            sides["compile"] = lambda: (lambda: f(x))
            sides["liger"] = lambda: _liger_softmax(torch, x, N)
            sides["quack"] = lambda: (lambda q=_mod("quack.softmax"): q.softmax_fwd(x))
        else:
            y = torch.softmax(x.float(), -1).to(dt)
            dy = rnd(M, N)
            sides["streamlab"] = lambda: (lambda: sl.softmax_backward(dy, y))
            sides["torch"] = lambda: (lambda: torch._softmax_backward_data(dy, y, -1, dt))
            f = compiled(lambda a, b: torch._softmax_backward_data(a, b, -1, dt))
            sides["compile"] = lambda: (lambda: f(dy, y))
            sides["liger"] = lambda: _liger_softmax_bwd(torch, x, dy, N)
            sides["quack"] = lambda: (lambda q=_mod("quack.softmax"): q.softmax_bwd(dy, y))
        return {"x": x}, nbytes, sides

    if op in ("rmsnorm", "rmsnorm_bwd", "add_rmsnorm", "layernorm", "layernorm_bwd"):
        x = rnd(M, N, scale=2.0)
        w = (1.0 + 0.1 * rnd(N, dtype=torch.float32)).to(dt)
        b = (0.1 * rnd(N, dtype=torch.float32)).to(dt)
        w32, b32 = w.float(), b.float()
        sw = s
        if op == "rmsnorm":
            nbytes = 2 * M * N * s + N * sw + 4 * M
            sides["streamlab"] = lambda: (lambda: sl.rms_norm(x, (N,), w, EPS))
            sides["torch"] = lambda: (lambda: F.rms_norm(x, (N,), w, EPS))
            f = compiled(lambda a, ww: F.rms_norm(a, (N,), ww, EPS))
            sides["compile"] = lambda: (lambda: f(x, w))
            sides["liger"] = lambda: (lambda L=_liger("rms_norm", "LigerRMSNormFunction"): L.apply(x, w, EPS, 0.0, "llama", False))
            sides["quack"] = lambda: (lambda q=_mod("quack.rmsnorm"): q.rmsnorm_fwd(x, w, eps=EPS)[0])
        elif op == "add_rmsnorm":
            r = rnd(M, N, scale=2.0)
            nbytes = 4 * M * N * s + N * sw + 4 * M
            sides["streamlab"] = lambda: (lambda: sl.add_rms_norm_forward(x, r, w, EPS)[:2])

            def eager(a, rr, ww):
                h = a + rr
                return F.rms_norm(h, (N,), ww, EPS), h
            sides["torch"] = lambda: (lambda: eager(x, r, w))
            f = compiled(eager)
            sides["compile"] = lambda: (lambda: f(x, r, w))
            sides["liger"] = lambda: (lambda L=_liger("fused_add_rms_norm", "LigerFusedAddRMSNormFunction"): L.apply(x, r, w, EPS))
            sides["quack"] = lambda: (lambda q=_mod("quack.rmsnorm"): q.rmsnorm_fwd(x, w, residual=r, eps=EPS)[:2])
        elif op == "layernorm":
            nbytes = 2 * M * N * s + 2 * N * sw + 8 * M
            sides["streamlab"] = lambda: (lambda: sl.layer_norm(x, (N,), w, b, EPS))
            sides["torch"] = lambda: (lambda: F.layer_norm(x, (N,), w, b, EPS))
            f = compiled(lambda a, ww, bb: F.layer_norm(a, (N,), ww, bb, EPS))
            sides["compile"] = lambda: (lambda: f(x, w, b))
            sides["liger"] = lambda: (lambda L=_liger("layer_norm", "LigerLayerNormFunction"): L.apply(x, w, b, EPS))
            sides["quack"] = lambda: (lambda q=_mod("quack.rmsnorm"): q.layernorm_fwd(x, w32, b32, eps=EPS))
        else:  # the backward ops: dx and dw (db) from dy
            dy = rnd(M, N)
            xg, wg, bg = x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()
            if op == "rmsnorm_bwd":
                nbytes = 3 * M * N * s + 2 * N * sw + 4 * M
                sides["streamlab"] = lambda: _sl_rms_bwd(sl, x, w, dy)
                sides["torch"] = grad_of(lambda: F.rms_norm(xg, (N,), wg, EPS), [xg, wg], dy)
                f = compiled(lambda a, ww: F.rms_norm(a, (N,), ww, EPS))
                sides["compile"] = grad_of(lambda: f(xg, wg), [xg, wg], dy)
                sides["liger"] = grad_of(lambda L=None: _liger("rms_norm", "LigerRMSNormFunction").apply(xg, wg, EPS, 0.0, "llama", False), [xg, wg], dy)
                sides["quack"] = lambda: _quack_rms_bwd(torch, x, w, dy)
            else:
                nbytes = 3 * M * N * s + 3 * N * sw + 8 * M
                sides["streamlab"] = lambda: _sl_ln_bwd(sl, x, w, b, dy)
                sides["torch"] = grad_of(lambda: F.layer_norm(xg, (N,), wg, bg, EPS), [xg, wg, bg], dy)
                f = compiled(lambda a, ww, bb: F.layer_norm(a, (N,), ww, bb, EPS))
                sides["compile"] = grad_of(lambda: f(xg, wg, bg), [xg, wg, bg], dy)
                sides["liger"] = grad_of(lambda: _liger("layer_norm", "LigerLayerNormFunction").apply(xg, wg, bg, EPS), [xg, wg, bg], dy)
        return {"x": x}, nbytes, sides

    if op in ("xent", "xent_fwd_bwd"):
        x = rnd(M, N, scale=4.0)
        t = torch.randint(0, N, (M,), generator=g, device=dev, dtype=torch.int64)
        if op == "xent":
            nbytes = M * N * s + 16 * M
            sides["streamlab"] = lambda: (lambda: sl.cross_entropy(x, t, reduction="none"))
            sides["torch"] = lambda: (lambda: F.cross_entropy(x, t, reduction="none"))
            f = compiled(lambda a, tt: F.cross_entropy(a, tt, reduction="none"))
            sides["compile"] = lambda: (lambda: f(x, t))
            sides["quack"] = lambda: (lambda q=_mod("quack.cross_entropy"): q.cross_entropy_fwd(x, t))
            sides["liger:events"] = lambda: _liger_xent(torch, x, t, grad=False)
        else:
            nbytes = 2 * M * N * s + 16 * M
            xw = x.clone()  # the in-place sides write the gradient over their logits
            sides["streamlab"] = lambda: (lambda: sl.cross_entropy_forward_backward(xw, t, inplace=True))
            xg = x.clone().requires_grad_()
            sides["torch"] = lambda: (lambda: torch.autograd.grad(F.cross_entropy(xg, t), [xg]))
            f = compiled(lambda a, tt: torch.autograd.grad(F.cross_entropy(a, tt), [a]))
            sides["compile"] = lambda: (lambda: f(xg, t))
            sides["quack"] = lambda: (lambda q=_mod("quack.cross_entropy"): q.cross_entropy_fwd(xw, t, return_dx=True, inplace_backward=True))
            # its own logits: Liger's forward marks them requires_grad, which the
            # other in-place sides (streamlab's out= / inplace) rightly refuse
            sides["liger:events"] = lambda: _liger_xent(torch, x.clone(), t, grad=True)
        return {"x": x}, nbytes, sides
    if op == "xent_bwd":
        # the backward alone: lse (and torch's graph) from one forward outside the timed call
        x = rnd(M, N, scale=4.0)
        t = torch.randint(0, N, (M,), generator=g, device=dev, dtype=torch.int64)
        nbytes = 2 * M * N * s + 16 * M
        dloss = torch.ones((M,), device=dev, dtype=torch.float32)
        sides["streamlab"] = lambda: _sl_xent_bwd(sl, x, t, dloss)
        xg = x.clone().requires_grad_()
        sides["torch"] = lambda: _grad_only(torch, _forward_on_side_stream(
            torch, lambda: F.cross_entropy(xg, t, reduction="none")), xg, dloss)
        f = compiled(lambda a, tt: F.cross_entropy(a, tt, reduction="none"))
        sides["compile"] = lambda: _grad_only(torch, _forward_on_side_stream(torch, lambda: f(xg, t)), xg, dloss)
        sides["quack"] = lambda: _quack_xent_bwd(torch, x, t, dloss)
        return {"x": x}, nbytes, sides
    raise ValueError("unknown op %r" % op)


def _extra_mib(torch, fn: Callable[[], Any]) -> float:
    """The memory one eager call allocates beyond what was allocated before it,
    in MiB: torch.cuda.max_memory_allocated over memory_allocated, its result
    included (a gradient it returns counts; one written in place does not).
    Memory a peer takes outside torch's allocator is not seen."""
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    out = fn()
    torch.cuda.synchronize()
    extra = (torch.cuda.max_memory_allocated() - before) / 2**20
    del out
    return extra


def _sl_xent_bwd(sl, x, t, dloss):
    """streamlab's cross-entropy backward alone (sl_cross_entropy_bwd): lse from one
    forward outside the timed call, dx allocated once."""
    _, lse = sl.cross_entropy_forward(x, t, reduction="none")
    dx = sl.cross_entropy_backward(dloss, x, t, lse, reduction="none")
    return lambda: sl.cross_entropy_backward(dloss, x, t, lse, reduction="none", grad_input=dx)


def _forward_on_side_stream(torch, fwd: Callable[[], Any]):
    """fwd() on a side stream, so that its backward can be captured (streamlab.bench's
    helper; the first device run, 2026-11-26, failed every torch backward's capture
    without it)."""
    import streamlab.bench as slb
    return slb._forward_on_side_stream(torch, fwd)


def _grad_only(torch, loss, xg, dloss):
    """The backward of a forward run once outside the timed call (the graph retained)."""
    return lambda: torch.autograd.grad(loss, [xg], dloss, retain_graph=True)


def _quack_xent_bwd(torch, x, t, dloss):
    q = _mod("quack.cross_entropy")
    if not hasattr(q, "cross_entropy_bwd"):
        raise Unavailable("quack.cross_entropy has no cross_entropy_bwd")
    try:  # quack 0.6.5's signatures, not yet checked on a GPU: any mismatch makes the side unavailable
        _, lse = q.cross_entropy_fwd(x, t, return_lse=True)
        q.cross_entropy_bwd(x, t, dloss, lse)
    except Exception as e:  # noqa: BLE001
        raise Unavailable("quack cross_entropy_bwd: %s" % (str(e).splitlines()[0] if str(e) else type(e).__name__))
    return lambda: q.cross_entropy_bwd(x, t, dloss, lse)


def _sl():
    import streamlab
    return streamlab


def _no_sl(what: str):
    raise Unavailable("streamlab has no %s" % what)


def _sl_rms_bwd(sl, x, w, dy):
    """streamlab's RMSNorm backward alone: rstd from one forward outside the timed call,
    the outputs allocated once (the dw partials use the context's workspace, grown on
    this first call, outside any capture)."""
    _, rstd = sl.rms_norm_forward(x, w, EPS)
    dx, dw = sl.rms_norm_backward(dy, x, w, rstd)
    return lambda: sl.rms_norm_backward(dy, x, w, rstd, grad_input=dx, grad_weight=dw)


def _sl_ln_bwd(sl, x, w, b, dy):
    """streamlab's LayerNorm backward alone (dx, dw, db): mean and rstd from one forward
    outside the timed call, the outputs allocated once (the partials use the context's
    workspace, grown on this first call, outside any capture)."""
    _, mean, rstd = sl.layer_norm_forward(x, w, b, EPS)
    dx, dw, db = sl.layer_norm_backward(dy, x, w, mean, rstd)
    return lambda: sl.layer_norm_backward(dy, x, w, mean, rstd, grad_input=dx, grad_weight=dw, grad_bias=db)


def _liger(mod: str, cls: str):
    return getattr(_mod("liger_kernel.ops." + mod), cls)


def _liger_softmax(torch, x, N):
    if N > 65536:
        raise Unavailable("Liger refuses rows longer than 65536")
    L = _liger("softmax", "LigerSoftmaxFunction")
    return lambda: L.apply(x)


def _liger_softmax_bwd(torch, x, dy, N):
    if N > 65536:
        raise Unavailable("Liger refuses rows longer than 65536")
    L = _liger("softmax", "LigerSoftmaxFunction")
    xg = x.clone().requires_grad_()
    y = _forward_on_side_stream(torch, lambda: L.apply(xg))
    return lambda: torch.autograd.grad(y, [xg], dy, retain_graph=True)


def _quack_rms_bwd(torch, x, w, dy):
    q = _mod("quack.rmsnorm")
    _, _, rstd = q.rmsnorm_fwd(x, w, eps=EPS, store_rstd=True)
    return lambda: q.rmsnorm_bwd(x, w, dy, rstd)


def _liger_xent(torch, x, t, grad: bool):
    m = _mod("liger_kernel.ops.cross_entropy")
    x = x if grad else x.detach()
    if grad:
        x.requires_grad_(True)
    return lambda: m.cross_entropy_forward(x, t, None, -100, 0.0, 0.0, "mean" if grad else "none", None, False)


# ---- the sweep ---------------------------------------------------------------------------------------


def parse_shape(s: str) -> Tuple[int, int]:
    def dim(v: str) -> int:
        if "^" in v:
            b, e = v.split("^")
            return int(b) ** int(e)
        return int(v)
    m, n = s.lower().split("x")
    return dim(m), dim(n)


def main(argv: Optional[List[str]] = None) -> int:
    ap = _cli.parser(__doc__)
    ap.add_argument("--ops", default="softmax,softmax_bwd,rmsnorm,rmsnorm_bwd,layernorm,layernorm_bwd,add_rmsnorm,xent,xent_fwd_bwd,xent_bwd",
                    help="comma-separated (default: all of them)")
    ap.add_argument("--dtypes", default="bf16", help="comma-separated: bf16, f16, f32 (default: %(default)s)")
    ap.add_argument("--shapes", help="MxN list for every op (default: each op's shapes from the issues)")
    ap.add_argument("--sides", default="streamlab,torch,compile,liger,quack",
                    help="comma-separated (default: %(default)s); copy is always timed")
    ap.add_argument("--reps", type=int, default=10,
                    help="graph replays a side, each of many calls; the median is kept (default: %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="rewritten after every case, so a cut run leaves it valid")
    ap.add_argument("--md", metavar="FILE", help="the Markdown table, rewritten likewise")
    ap.add_argument("--list", action="store_true", help="print the ops and their default shapes")
    a = ap.parse_args(argv)
    ops = [o for o in a.ops.split(",") if o]
    for o in ops:
        if o not in SHAPES:
            print("row_peers: unknown op %r (ops: %s)" % (o, ", ".join(SHAPES)), file=sys.stderr)
            return 2
    if a.list:
        for o in ops:
            print("%-14s %s" % (o, " ".join("%dx%d" % s for s in SHAPES[o])))
        return 0
    try:
        import torch
        import streamlab.bench as slb
    except ImportError as e:
        print("row_peers: %s (needs torch and the streamlab package)" % e, file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("row_peers: torch sees no CUDA device", file=sys.stderr)
        return 2
    types = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    wanted = set(a.sides.split(","))
    ver = versions(torch)
    print("versions: " + ", ".join("%s %s" % kv for kv in ver.items()))
    rows: List[Dict[str, Any]] = []
    record = {"schema": "streamlab.row_peers/1", "command": " ".join(["python3", "bench/row_peers.py"] + (argv or sys.argv[1:])),
              "versions": ver, "rows": rows, "complete": False}

    def save():  # after every case, so that a run cut short by its time limit leaves both files valid
        if a.json:
            with open(a.json, "w") as fh:
                json.dump(record, fh, indent=1)
        if a.md:
            write_md(a.md, record)

    t0 = time.time()
    for op in ops:
        shapes = [parse_shape(s) for s in a.shapes.split(",")] if a.shapes else SHAPES[op]
        for dn in a.dtypes.split(","):
            dt = types[dn]
            for (M, N) in shapes:
                gc.collect()
                torch.cuda.empty_cache()
                try:
                    inputs, nbytes, sides = case(torch, op, dt, M, N, seed=M * 1000003 + N)
                except torch.cuda.OutOfMemoryError:
                    print("%s %s %dx%d: out of memory making the inputs" % (op, dn, M, N))
                    continue
                x = inputs["x"]
                y = torch.empty_like(x)
                fns: Dict[str, Callable[[], Any]] = {"copy": lambda: _sl().copy(x, out=y)}
                skipped: Dict[str, str] = {}
                peak: Dict[str, float] = {}
                events: Dict[str, Callable[[], Any]] = {}
                for name, make in sides.items():
                    base = name.split(":")[0]
                    if base not in wanted:
                        continue
                    try:
                        fn = make()
                        fn()  # eager once before any capture (compiles, autotunes, checks it runs)
                        peak[base] = _extra_mib(torch, fn)
                        (events if name.endswith(":events") else fns)[base] = fn
                    except Unavailable as e:
                        skipped[base] = str(e)
                    except Exception as e:  # noqa: BLE001 - a peer that fails is reported, not fatal
                        skipped[base] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:160] if str(e) else "")
                byt = {k: nbytes for k in list(fns) + list(events)}
                byt["copy"] = 2 * x.numel() * x.element_size()
                title = "%s %s %dx%d (%.1f MB moved)" % (op, dn, M, N, nbytes / 1e6)
                res: List[Dict[str, Any]] = []
                for name, fn in fns.items():
                    try:
                        res += slb.run({name: fn}, bytes=byt, reps=a.reps, ceiling=False, print_table=False)
                    except Exception as e:  # noqa: BLE001 - e.g. a graph capture a peer does not survive
                        skipped[name] = "graph capture failed: %s" % str(e).splitlines()[0][:160]
                        torch.cuda.synchronize()
                for name, fn in events.items():
                    r = slb.run({name: fn}, bytes=byt, reps=a.reps, ceiling=False, print_table=False, graph=False)
                    r[0]["graph"] = False
                    res += r
                cp = next((r for r in res if r["name"] == "copy"), None)
                for r in res:
                    r.update(op=op, dtype=dn, M=M, N=N, bytes=byt[r["name"]])
                    r.setdefault("graph", True)
                    if r["name"] in peak:
                        r["extra_MiB"] = peak[r["name"]]
                    if cp and "GB/s" in r:
                        r["xcopy"] = r["GB/s"] / cp["GB/s"]
                best = max((r for r in res if r["name"] not in ("copy", "streamlab") and "xcopy" in r),
                           key=lambda r: r["xcopy"], default=None)
                slr = next((r for r in res if r["name"] == "streamlab"), None)
                if best and slr:
                    slr["x_best_peer"] = slr["xcopy"] / best["xcopy"]
                    slr["best_peer"] = best["name"]
                print(title)
                print(slb.format_table(res))
                for k, v in skipped.items():
                    print("  %s: skipped (%s)" % (k, v))
                    rows.append({"op": op, "dtype": dn, "M": M, "N": N, "name": k, "skipped": v})
                rows.extend(res)
                save()
                del inputs, sides, fns, events, x, y
    record["complete"] = True
    record["seconds"] = time.time() - t0
    save()
    return 0


def write_md(path: str, record: Dict[str, Any]) -> None:
    sides = ["streamlab", "torch", "compile", "liger", "quack"]
    out = ["# Row ops beside their peers (bench/row_peers.py)", "",
           "Command: `%s`" % record["command"], "",
           "Versions: " + ", ".join("%s %s" % kv for kv in record["versions"].items()), "",
           "Each cell: bandwidth as a fraction of a copy kernel's (streamlab.copy of the same tensor) in the "
           "same process; kernel time by CUDA-graph replay (Liger's cross-entropy: events, single calls). "
           "`x best` = streamlab / the fastest peer.", "",
           "| op | dtype | M x N | " + " | ".join(sides) + " | streamlab us | x best |",
           "|---|---|---|" + "---|" * (len(sides) + 2)]
    keys: Dict[Tuple, Dict[str, Any]] = {}
    for r in record["rows"]:
        keys.setdefault((r["op"], r["dtype"], r["M"], r["N"]), {})[r["name"]] = r
    for (op, dn, M, N), by in keys.items():
        cells = []
        for sd in sides:
            r = by.get(sd)
            cells.append("-" if r is None else ("n/a" if "skipped" in r else "%.3f" % r["xcopy"]))
        s = by.get("streamlab", {})
        out.append("| %s | %s | %dx%d | %s | %s | %s |" % (op, dn, M, N, " | ".join(cells),
                                                         "%.2f" % s["us"] if "us" in s else "-",
                                                         "%.3f" % s["x_best_peer"] if "x_best_peer" in s else "-"))
    # the memory table for the cross-entropy ops (issue 33 asks for it; the JSON has every op's)
    mem = [(k, by) for k, by in keys.items() if k[0].startswith("xent") and any("extra_MiB" in r for r in by.values())]
    if mem:
        out += ["", "Extra memory of one eager call, MiB (torch.cuda.max_memory_allocated over memory_allocated "
                "before it; a returned gradient counts, one written in place does not):", "",
                "| op | dtype | M x N | " + " | ".join(sides) + " |", "|---|---|---|" + "---|" * len(sides)]
        for (op, dn, M, N), by in mem:
            cells = ["%.1f" % by[sd]["extra_MiB"] if "extra_MiB" in by.get(sd, {}) else "-" for sd in sides]
            out.append("| %s | %s | %dx%d | %s |" % (op, dn, M, N, " | ".join(cells)))
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
