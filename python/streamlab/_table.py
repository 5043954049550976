"""The op table: one OpSpec per public function (docs/python.md, "Adding an op").

Keys of `bufs` and `scalars` are the C parameter names of the op's declaration
in src/ops/<op>/api.h; the library's generated streamlab_ops.h is read at the
first call to check and bind them. OPS_DEF maps each src/ops/ops.def name to
the Python functions that cover it; python/tests/test_table.py fails when
ops.def or streamlab_ops.h has something this table lacks.
"""
from __future__ import annotations

from typing import Any, Dict, List

from ._ops import Buf, OpSpec, Shape, ew, gemm_rule, rows, stencil_rule, transpose_rule

# reduction= as torch.nn.functional.cross_entropy names it -> sl_reduction (src/ops/xent/api.h)
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _xent_rule(shapes: Dict[str, Shape], args: Dict[str, Any]):
    """Cross-entropy: logits (rows, V) (or (V,): one row); targets, lse one per row;
    the loss one per row for reduction "none", else a scalar."""
    s = shapes["input"]
    if len(s) not in (1, 2):
        raise ValueError("streamlab.cross_entropy: input must be (N, C) or (C,) class scores, got shape %s" % (s,))
    per_row = tuple(s[:-1])
    nrows = s[0] if len(s) == 2 else 1
    exp: Dict[str, Shape] = {"*": s, "target": per_row, "lse": per_row,
                             "out": per_row if args.get("reduction") == REDUCTIONS["none"] else ()}
    return {"rows": nrows, "cols": s[-1]}, exp


_xent_rule.with_args = True  # type: ignore[attr-defined]


def _xent_bwd_rule(shapes: Dict[str, Shape], args: Dict[str, Any]):
    """The backward from a saved logsumexp: as _xent_rule, grad_output shaped as the forward's
    loss (one per row for reduction "none", else a scalar)."""
    dims, exp = _xent_rule(shapes, args)
    exp["grad_output"] = exp.pop("out")
    return dims, exp


_xent_bwd_rule.with_args = True  # type: ignore[attr-defined]


def _gemm_check(args: Dict[str, Any]) -> None:
    if args.get("c") is None and args.get("beta", 0.0) != 0.0:
        raise ValueError("streamlab.gemm: beta != 0 reads c: pass c (it is updated in place)")


OPS: List[OpSpec] = [
    OpSpec("copy", "sl_copy", ("input", "out"),
           (Buf("a", "input", "in"), Buf("c", "out", "out")), ew("input")),
    OpSpec("scale", "sl_scale", ("input", "alpha", "out"),
           (Buf("c", "input", "in"), Buf("b", "out", "out")), ew("input"), scalars={"s": "alpha"}),
    OpSpec("add", "sl_add", ("input", "other", "out"),
           (Buf("a", "input", "in"), Buf("b", "other", "in"), Buf("c", "out", "out")), ew("input")),
    OpSpec("triad", "sl_triad", ("input", "other", "alpha", "out"),
           (Buf("b", "input", "in"), Buf("c", "other", "in"), Buf("a", "out", "out")), ew("input"),
           scalars={"s": "alpha"}),
    OpSpec("dot", "sl_dot", ("input", "other", "out"),
           (Buf("a", "input", "in"), Buf("b", "other", "in"), Buf("result", "out", "out")),
           ew("input", scalar_out=("out",))),
    OpSpec("nstream", "sl_nstream", ("input", "other", "other2", "alpha"),
           (Buf("a", "input", "inout"), Buf("b", "other", "in"), Buf("c", "other2", "in")), ew("input"),
           scalars={"s": "alpha"}),
    OpSpec("axpy", "sl_axpy", ("input", "other", "alpha"),
           (Buf("x", "input", "in"), Buf("y", "other", "inout")), ew("input"), scalars={"alpha": "alpha"}),
    OpSpec("softmax", "sl_softmax", ("input", "out"),
           (Buf("x", "input", "in"), Buf("y", "out", "out")), rows("input")),
    OpSpec("transpose", "sl_transpose", ("input", "out"),
           (Buf("in", "input", "in"), Buf("out", "out", "out")), transpose_rule),
    OpSpec("gemm", "sl_gemm", ("input", "other", "c", "alpha", "beta"),
           (Buf("A", "input", "in"), Buf("B", "other", "in"), Buf("C", "c", "out")), gemm_rule("c"),
           scalars={"alpha": "alpha", "beta": "beta"}, fixed={"transa": b"N", "transb": b"N"},
           check=_gemm_check, op="matmul"),
    OpSpec("matmul", "sl_gemm", ("input", "other", "out"),
           (Buf("A", "input", "in"), Buf("B", "other", "in"), Buf("C", "out", "out")), gemm_rule("out"),
           fixed={"transa": b"N", "transb": b"N", "alpha": 1.0, "beta": 0.0}, op="matmul"),
    OpSpec("stencil2d", "sl_stencil2d", ("input", "radius", "out"),
           (Buf("in", "input", "in"), Buf("out", "out", "out")), stencil_rule,
           scalars={"radius": "radius"}, dtypes=("f32",), op="stencil"),
    # issue 33: softmax's backward, dx = y (dy - rowsum(dy y))
    OpSpec("softmax_backward", "sl_softmax_bwd", ("grad_output", "output", "out"),
           (Buf("dy", "grad_output", "in"), Buf("y", "output", "in"), Buf("dx", "out", "out")),
           rows("grad_output"), op="softmax_bwd"),
    # issue 32: RMSNorm forward (y and the per-row rstd) and backward (dx, dw)
    OpSpec("rms_norm_forward", "sl_rmsnorm_fwd", ("input", "weight", "eps", "out", "rstd"),
           (Buf("x", "input", "in"), Buf("w", "weight", "in", "op|f32"), Buf("y", "out", "out"),
            Buf("rstd", "rstd", "out", "f32")),
           rows("input", vectors={"weight": "cols", "rstd": "rows"}), scalars={"eps": "eps"},
           returns=("out", "rstd"), op="rmsnorm"),
    OpSpec("rms_norm_backward", "sl_rmsnorm_bwd",
           ("grad_output", "input", "weight", "rstd", "grad_input", "grad_weight"),
           (Buf("dy", "grad_output", "in"), Buf("x", "input", "in"), Buf("w", "weight", "in", "op|f32"),
            Buf("rstd", "rstd", "in", "f32"), Buf("dx", "grad_input", "out"),
            Buf("dw", "grad_weight", "out", "like:weight")),
           rows("grad_output", vectors={"weight": "cols", "rstd": "rows", "grad_weight": "cols"}),
           workspace="sl_rmsnorm_bwd_workspace", returns=("grad_input", "grad_weight"), op="rmsnorm_bwd"),
    # issue 32: LayerNorm forward (y, mean, rstd) and backward (dx, dw, db); the fused
    # residual add + RMSNorm forward (y, h = input + residual, rstd)
    OpSpec("layer_norm_forward", "sl_layernorm_fwd", ("input", "weight", "bias", "eps", "out", "mean", "rstd"),
           (Buf("x", "input", "in"), Buf("w", "weight", "in", "op|f32"), Buf("b", "bias", "in", "like:weight"),
            Buf("y", "out", "out"), Buf("mean", "mean", "out", "f32"), Buf("rstd", "rstd", "out", "f32")),
           rows("input", vectors={"weight": "cols", "bias": "cols", "mean": "rows", "rstd": "rows"}),
           scalars={"eps": "eps"}, returns=("out", "mean", "rstd"), op="layernorm"),
    OpSpec("layer_norm_backward", "sl_layernorm_bwd",
           ("grad_output", "input", "weight", "mean", "rstd", "grad_input", "grad_weight", "grad_bias"),
           (Buf("dy", "grad_output", "in"), Buf("x", "input", "in"), Buf("w", "weight", "in", "op|f32"),
            Buf("mean", "mean", "in", "f32"), Buf("rstd", "rstd", "in", "f32"), Buf("dx", "grad_input", "out"),
            Buf("dw", "grad_weight", "out", "like:weight"), Buf("db", "grad_bias", "out", "like:weight")),
           rows("grad_output", vectors={"weight": "cols", "mean": "rows", "rstd": "rows", "grad_weight": "cols",
                                        "grad_bias": "cols"}),
           workspace="sl_layernorm_bwd_workspace", returns=("grad_input", "grad_weight", "grad_bias"),
           op="layernorm_bwd"),
    OpSpec("add_rms_norm_forward", "sl_add_rmsnorm_fwd",
           ("input", "residual", "weight", "eps", "out", "residual_out", "rstd"),
           (Buf("x", "input", "in"), Buf("res", "residual", "in"), Buf("w", "weight", "in", "op|f32"),
            Buf("h", "residual_out", "out"), Buf("y", "out", "out"), Buf("rstd", "rstd", "out", "f32")),
           rows("input", vectors={"weight": "cols", "rstd": "rows"}), scalars={"eps": "eps"},
           returns=("out", "residual_out", "rstd"), op="add_rmsnorm"),
    # issue 33: cross-entropy, the loss (and lse) alone, and fused with its gradient
    OpSpec("cross_entropy_forward", "sl_cross_entropy_fwd",
           ("input", "target", "ignore_index", "label_smoothing", "reduction", "out", "lse"),
           (Buf("logits", "input", "in"), Buf("targets", "target", "in", "i32|i64"),
            Buf("loss", "out", "out", "f32"), Buf("lse", "lse", "out", "f32")),
           _xent_rule, scalars={"ignore_index": "ignore_index", "smoothing": "label_smoothing",
                                "reduction": "reduction"}, returns=("out", "lse"), op="xent_fwd"),
    OpSpec("cross_entropy_forward_backward", "sl_cross_entropy_fwd_bwd",
           ("input", "target", "ignore_index", "label_smoothing", "reduction", "out", "lse", "grad_input"),
           (Buf("logits", "input", "in"), Buf("targets", "target", "in", "i32|i64"),
            Buf("loss", "out", "out", "f32"), Buf("lse", "lse", "out", "f32"), Buf("dlogits", "grad_input", "out")),
           _xent_rule, scalars={"ignore_index": "ignore_index", "smoothing": "label_smoothing",
                                "reduction": "reduction"}, returns=("out", "lse", "grad_input"), op="xent"),
    OpSpec("cross_entropy_backward", "sl_cross_entropy_bwd",
           ("grad_output", "input", "target", "lse", "ignore_index", "label_smoothing", "reduction", "grad_input"),
           (Buf("logits", "input", "in"), Buf("targets", "target", "in", "i32|i64"),
            Buf("dloss", "grad_output", "in", "f32"), Buf("lse", "lse", "in", "f32"),
            Buf("dlogits", "grad_input", "out", "like:input")),
           _xent_bwd_rule, scalars={"ignore_index": "ignore_index", "smoothing": "label_smoothing",
                                    "reduction": "reduction"}, returns=("grad_input",), op="xent"),
]

SPECS: Dict[str, OpSpec] = {s.name: s for s in OPS}

# src/ops/ops.def name -> the Python functions that call it.
OPS_DEF: Dict[str, List[str]] = {}
for _s in OPS:
    OPS_DEF.setdefault(_s.op or _s.name, []).append(_s.name)
