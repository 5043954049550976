"""torch.library registration: every OpSpec becomes torch.ops.streamlab.<name>.

Generated from the op table, so a new OpSpec is registered with no code here:
  - an op with outputs and no in-place buffer gets a functional op
    `<name>(inputs, scalars) -> outputs` and an out variant
    `<name>_out(inputs, scalars, Tensor(a!) out...) -> ()`;
  - an op with an in-place buffer (axpy, nstream) gets one mutating op
    `<name>(..., Tensor(a!) buf, ...) -> ()`.
Each has a fake (meta) implementation from the table's shape rule, so
torch.compile(fullgraph=True) traces it and inductor calls it as an extern
kernel; the real implementation is the same direct C call as eager mode.
Eager calls never go through the dispatcher (its 6-60 us per call: pytorch
issue 177109); streamlab's public functions switch to these ops only under
torch.compile (torch.compiler.is_compiling()).
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import torch

from ._ops import OpSpec, declarations, fake_outputs, run
from ._table import OPS

is_compiling = torch.compiler.is_compiling

_LIB = torch.library.Library("streamlab", "DEF")
_OPNAMES: Dict[str, Tuple[str, str]] = {}  # spec name -> (functional op, out / in-place op)


def _scalar_type(spec: OpSpec, pyname: str) -> str:
    for cname, py in spec.scalars.items():
        if py == pyname:
            for ctype, pname in declarations()[spec.cfunc]:
                if pname == cname:
                    return "int" if ctype in ("int", "int64_t", "int32_t") else "float"
    return "float"


def _schema(spec: OpSpec, with_outs: bool) -> Tuple[str, List[str]]:
    roles = {b.py: b.role for b in spec.bufs}
    args, mutated = [], []
    alias = iter("abcdefghij")
    for p in spec.params:
        role = roles.get(p)
        if role is None:
            args.append("%s %s" % (_scalar_type(spec, p), p))
        elif role == "in":
            args.append("Tensor %s" % p)
        elif role == "inout" or with_outs:
            args.append("Tensor(%s!) %s" % (next(alias), p))
            mutated.append(p)
    return "(%s)" % ", ".join(args), mutated


def _register(spec: OpSpec) -> None:
    outs = [b.py for b in spec.bufs if b.role == "out"]
    inout = any(b.role == "inout" for b in spec.bufs)
    functional = ""
    if outs and not inout:
        functional = spec.name
        sig, _ = _schema(spec, with_outs=False)
        ret = "Tensor" if len(outs) == 1 else "(%s)" % ", ".join(["Tensor"] * len(outs))
        _LIB.define("%s%s -> %s" % (functional, sig, ret))
        kept = [p for p in spec.params if p not in outs]

        def impl(*vals: Any, _spec: OpSpec = spec, _kept: List[str] = kept):
            full = dict(zip(_kept, vals))
            return run(_spec, [full.get(p) for p in _spec.params])

        def fake(*vals: Any, _spec: OpSpec = spec, _kept: List[str] = kept):
            full = dict(zip(_kept, vals))
            return fake_outputs(_spec, [full.get(p) for p in _spec.params])

        _LIB.impl(functional, impl, "CPU")
        _LIB.impl(functional, impl, "CUDA")
        torch.library.register_fake("streamlab::" + functional, fake, lib=_LIB)
    mut = spec.name if inout else spec.name + "_out"
    sig, _ = _schema(spec, with_outs=True)
    _LIB.define("%s%s -> ()" % (mut, sig))

    def impl_mut(*vals: Any, _spec: OpSpec = spec) -> None:
        run(_spec, vals)

    def fake_mut(*vals: Any) -> None:
        return None

    _LIB.impl(mut, impl_mut, "CPU")
    _LIB.impl(mut, impl_mut, "CUDA")
    torch.library.register_fake("streamlab::" + mut, fake_mut, lib=_LIB)
    _OPNAMES[spec.name] = (functional, mut)


def call_registered(spec: OpSpec, values: Sequence[Any]):
    """What a public function does under torch.compile: call torch.ops.streamlab.*."""
    functional, mut = _OPNAMES[spec.name]
    args = dict(zip(spec.params, values))
    outs = [b.py for b in spec.bufs if b.role == "out"]
    if functional and all(args[o] is None for o in outs):
        return getattr(torch.ops.streamlab, functional)(*[args[p] for p in spec.params if p not in outs])
    if any(args[o] is None for o in outs):
        raise ValueError("streamlab.%s: under torch.compile give every output or none" % spec.name)
    getattr(torch.ops.streamlab, mut)(*values)
    rets = spec.returns or tuple(outs) or tuple(b.py for b in spec.bufs if b.role == "inout")
    return args[rets[0]] if len(rets) == 1 else tuple(args[r] for r in rets)


for _spec in OPS:
    _register(_spec)


# ---- autograd: the forward ops whose backward streamlab has ------------------------------------
# Each backward calls the registered backward op, so it works in eager mode, under
# torch.compile and in CUDA graphs alike. Outputs that are statistics (rmsnorm's rstd,
# cross-entropy's lse) are treated as constants: their incoming gradient is ignored.
AUTOGRAD = ("softmax", "rms_norm_forward", "cross_entropy_forward", "layer_norm_forward")


def _softmax_setup(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    ctx.save_for_backward(output)


def _softmax_bwd(ctx: Any, grad: torch.Tensor):
    (y,) = ctx.saved_tensors
    return torch.ops.streamlab.softmax_backward(grad.contiguous(), y)


def _rms_setup(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    x, w, _eps = inputs
    ctx.save_for_backward(x, w, output[1])


def _rms_bwd(ctx: Any, grad_y: torch.Tensor, _grad_rstd: Any):
    x, w, rstd = ctx.saved_tensors
    dx, dw = torch.ops.streamlab.rms_norm_backward(grad_y.contiguous(), x, w, rstd)
    return dx, dw, None


def _ln_setup(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    x, w, _b, _eps = inputs
    ctx.save_for_backward(x, w, output[1], output[2])


def _ln_bwd(ctx: Any, grad_y: torch.Tensor, _grad_mean: Any, _grad_rstd: Any):
    x, w, mean, rstd = ctx.saved_tensors
    dx, dw, db = torch.ops.streamlab.layer_norm_backward(grad_y.contiguous(), x, w, mean, rstd)
    return dx, dw, db, None


def _xent_setup(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    x, t, ignore_index, smoothing, reduction = inputs
    ctx.save_for_backward(x, t, output[1])
    ctx.args = (ignore_index, smoothing, reduction)


def _xent_bwd(ctx: Any, grad_loss: torch.Tensor, _grad_lse: Any):
    # The backward from the saved logsumexp (sl_cross_entropy_bwd): one kernel reads the
    # logits once more and writes the gradient scaled by the incoming one (one value per
    # row for reduction "none", else a scalar; "mean" divides by the rows not ignored).
    x, t, lse = ctx.saved_tensors
    ignore_index, smoothing, reduction = ctx.args
    g = torch.ops.streamlab.cross_entropy_backward(grad_loss.float().contiguous(), x, t, lse, ignore_index,
                                                   smoothing, reduction)
    return g, None, None, None, None


torch.library.register_autograd("streamlab::softmax", _softmax_bwd, setup_context=_softmax_setup, lib=_LIB)
torch.library.register_autograd("streamlab::rms_norm_forward", _rms_bwd, setup_context=_rms_setup, lib=_LIB)
torch.library.register_autograd("streamlab::layer_norm_forward", _ln_bwd, setup_context=_ln_setup, lib=_LIB)
torch.library.register_autograd("streamlab::cross_entropy_forward", _xent_bwd, setup_context=_xent_setup,
                                lib=_LIB)


def needs_grad(values: Sequence[Any]) -> bool:
    """Whether a call must go through the registered op so that autograd records it."""
    return torch.is_grad_enabled() and any(isinstance(v, torch.Tensor) and v.requires_grad for v in values)


def registered_ops() -> Dict[str, Tuple[str, str]]:
    """{public function: (functional op or "", out / in-place op)} under torch.ops.streamlab."""
    return dict(_OPNAMES)
