"""The op table: one OpSpec per public function (docs/python.md, "Adding an op").

Keys of `bufs` and `scalars` are the C parameter names of the op's declaration
in src/ops/<op>/api.h; the library's generated streamlab_ops.h is read at the
first call to check and bind them. OPS_DEF maps each src/ops/ops.def name to
the Python functions that cover it; python/tests/test_table.py fails when
ops.def or streamlab_ops.h has something this table lacks.
"""
from __future__ import annotations

from typing import Any, Dict, List

from ._ops import Buf, OpSpec, ew, gemm_rule, rows, stencil_rule, transpose_rule


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
]

SPECS: Dict[str, OpSpec] = {s.name: s for s in OPS}

# src/ops/ops.def name -> the Python functions that call it.
OPS_DEF: Dict[str, List[str]] = {}
for _s in OPS:
    OPS_DEF.setdefault(_s.op or _s.name, []).append(_s.name)
