"""streamlab: the C library's ops on PyTorch tensors, NumPy arrays and DLPack arrays.

    import torch, streamlab
    x = torch.randn(4096, 32768, device="cuda")
    y = streamlab.softmax(x)            # sl_softmax on torch.cuda.current_stream()

Every function is one call of the C function named in its doc string
(include/streamlab.h and src/ops/<op>/api.h give the numerics, the
tolerances and the aliasing rules); nothing is implemented twice. Inputs:
torch.Tensor (CUDA or CPU), NumPy arrays, any object with __dlpack__ (CuPy,
JAX). Outputs are allocated like the first input unless out= is given.
Buffers must be contiguous (ValueError otherwise: streamlab never copies).
Errors: ValueError (shape, dtype, alignment, overlap, device), TypeError
(argument types), RuntimeError (CUDA), each with sl_last_error()'s text.
With torch installed each op is also registered as torch.ops.streamlab.<op>
(for torch.compile and CUDA graphs); eager calls go straight to C.
"""
from __future__ import annotations

from numbers import Integral as _Integral
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from ._lib import BACKENDS, HAVE_CUDA_BUILD, LIB_PATH, StreamlabError  # noqa: F401
from ._ops import BINDING  # noqa: F401  ("fastcall" or "ctypes": how C is called)
from ._ops import TORCHCALL  # noqa: F401  (whether eager torch calls run in C++: streamlab._torchcall)
from ._ops import fast_path as _fast_path
from ._ops import run as _ops_run
from ._table import REDUCTIONS as _REDUCTIONS
from ._table import SPECS as _S

__version__ = "0.2.0"

try:
    from . import _torch_ops
    _compiling = _torch_ops.is_compiling
    _registered = _torch_ops.call_registered
    _needs_grad = _torch_ops.needs_grad
    _AUTOGRAD = frozenset(_torch_ops.AUTOGRAD)
except ImportError:  # no torch
    _torch_ops = None  # type: ignore[assignment]
    _compiling = None
    _registered = None
    _needs_grad = None
    _AUTOGRAD = frozenset()

Array = Any  # torch.Tensor, numpy.ndarray or a __dlpack__ object


def _general(spec: Any, values: Sequence[Any]) -> Any:
    """A call that the fast path did not take: under torch.compile, or with autograd to
    record, the registered op (torch.ops.streamlab.*); else _ops.run, which checks every
    argument and says precisely what is wrong."""
    if _compiling is not None and (_compiling() or (spec.name in _AUTOGRAD and _needs_grad(values))):
        return _registered(spec, values)  # traced by torch.compile, or recorded by autograd
    return _ops_run(spec, values)


def _first_call(name: str) -> Callable[..., Any]:
    """The entry of _fast[name] until the op's first eager call builds its fast path."""
    def first(*values: Any) -> Any:
        if _compiling is not None and _compiling():  # build nothing while torch.compile traces
            return _general(_S[name], values)
        f = _fast[name] = _fast_path(_S[name], _general, name in _AUTOGRAD)
        return f(*values)
    return first


# op name -> the function its public function calls with its values in spec.params order:
# the op's generated torch fast path (_ops._gen_fast), which hands every other call to
# _general. One dict lookup and one call, since in a small call the host's Python is most
# of the cost (docs/python.md, "Overhead and choices").
_fast: Dict[str, Callable[..., Any]] = {_name: _first_call(_name) for _name in _S}


def copy(input: Array, *, out: Optional[Array] = None) -> Array:
    """out = input, bit for bit (sl_copy). f32, f64, f16, bf16, fp8 e4m3fn / e5m2. out may be input."""
    return _fast["copy"](input, out)


def scale(input: Array, alpha: float, *, out: Optional[Array] = None) -> Array:
    """out = alpha * input (sl_scale), in fp32 (fp64 for f64). f32, f64, f16, bf16. out may be input."""
    return _fast["scale"](input, alpha, out)


def add(input: Array, other: Array, *, out: Optional[Array] = None) -> Array:
    """out = input + other elementwise (sl_add), same shape (no broadcasting), every dtype
    (f32, f64, f16, bf16, fp8 e4m3fn / e5m2). out may be input or other (in place)."""
    return _fast["add"](input, other, out)


def triad(input: Array, other: Array, alpha: float, *, out: Optional[Array] = None) -> Array:
    """out = input + alpha * other as one fma (sl_triad: STREAM's a = b + s c).
    f32, f64, f16, bf16. out may be input or other."""
    return _fast["triad"](input, other, alpha, out)


def dot(input: Array, other: Array, *, out: Optional[Array] = None) -> Array:
    """The dot product sum(input * other) as a 0-d array (sl_dot): fp64 products and sums,
    rounded once. f32, f64. out (one element) must not overlap the inputs."""
    return _fast["dot"](input, other, out)


def nstream(input: Array, other: Array, other2: Array, alpha: float) -> Array:
    """input += other + alpha * other2, IN PLACE (sl_nstream); returns input. f32, f64, f16, bf16."""
    return _fast["nstream"](input, other, other2, alpha)


def axpy(input: Array, other: Array, alpha: float) -> Array:
    """other = alpha * input + other, IN PLACE on other as in BLAS (sl_axpy: y = a x + y);
    returns other. f32, f64, f16, bf16."""
    return _fast["axpy"](input, other, alpha)


def softmax(input: Array, dim: int = -1, *, out: Optional[Array] = None) -> Array:
    """Softmax over the last dimension (sl_softmax; dim must be the last one), in fp32,
    within 9.5e-7 relative of fp64 (+1 ulp for bf16 / f16). f32, bf16, f16. out may be input.
    A 0-d input is a ValueError (torch.softmax returns 1 for it)."""
    if type(dim) is not int or dim != -1:  # dim=-1, the default, needs no check
        nd = len(_shape_of("softmax", input))
        if isinstance(dim, bool) or not isinstance(dim, _Integral):
            raise TypeError("streamlab.softmax: dim must be an integer (as torch.softmax's), got %s"
                            % type(dim).__name__)
        if dim not in (-1, nd - 1):
            raise ValueError("streamlab.softmax: only the last dimension (dim=-1) is offered, got dim=%d" % dim)
    return _fast["softmax"](input, out)


def transpose(input: Array, *, out: Optional[Array] = None) -> Array:
    """out = input.T of a 2-D array, dense (sl_transpose). f32, f64, f16, bf16. out must not
    overlap input."""
    return _fast["transpose"](input, out)


def gemm(input: Array, other: Array, c: Optional[Array] = None, *, alpha: float = 1.0,
         beta: float = 0.0) -> Array:
    """c = alpha * input @ other + beta * c, row-major (sl_gemm), c updated IN PLACE when
    given (allocated when not, then beta must be 0). f32, bf16, f16 (fp32 accumulation)."""
    return _fast["gemm"](input, other, c, alpha, beta)


def matmul(input: Array, other: Array, *, out: Optional[Array] = None) -> Array:
    """out = input @ other for 2-D arrays (sl_gemm with alpha 1, beta 0). f32, bf16, f16."""
    return _fast["matmul"](input, other, out)


def stencil2d(input: Array, radius: int = 4, *, out: Optional[Array] = None) -> Array:
    """The 2-D star stencil of `radius` (1..16) on a 2-D f32 grid, zero outside
    (sl_stencil2d). out must not overlap input."""
    return _fast["stencil2d"](input, radius, out)


def softmax_backward(grad_output: Array, output: Array, *, out: Optional[Array] = None) -> Array:
    """The gradient of softmax over the last dimension: out = output * (grad_output -
    rowsum(grad_output * output)) (sl_softmax_bwd; torch._softmax_backward_data). f32, bf16,
    f16, fp32 accumulation; out may be grad_output (in place)."""
    return _fast["softmax_backward"](grad_output, output, out)


def rms_norm_forward(input: Array, weight: Array, eps: float = 1e-6, *, out: Optional[Array] = None,
                     rstd: Optional[Array] = None) -> Tuple[Array, Array]:
    """RMSNorm over the last dimension (sl_rmsnorm_fwd): out = input * rstd * weight,
    rstd = 1 / sqrt(mean(input^2) + eps) per row (f32, kept for the backward). input f32,
    bf16, f16; weight (last dim,) of input's dtype or f32. Returns (out, rstd)."""
    return _fast["rms_norm_forward"](input, weight, eps, out, rstd)


def rms_norm(input: Array, normalized_shape: Sequence[int], weight: Optional[Array] = None,
             eps: Optional[float] = None, *, out: Optional[Array] = None) -> Array:
    """torch.nn.functional.rms_norm over the last dimension (sl_rmsnorm_fwd), with its
    defaults: weight None means ones (allocated per call), eps None the machine epsilon of
    input's dtype (torch.finfo(input.dtype).eps). The per-row rstd is computed and dropped
    (rms_norm_forward keeps it)."""
    _check_last_dim("rms_norm", input, normalized_shape)
    if weight is None:
        weight = _affine_default(input, 1.0, None)
    if eps is None:
        eps = _finfo_eps(input)
    return rms_norm_forward(input, weight, eps, out=out)[0]


def _shape_of(fn: str, input: Array) -> Sequence[int]:
    """input.shape, or the TypeError of an input that is no array (before any use of it)."""
    shape = getattr(input, "shape", None)
    if shape is None:
        raise TypeError("streamlab.%s: input must be a torch.Tensor, a NumPy array or an object with "
                        "__dlpack__, got %s" % (fn, type(input).__name__))
    return shape


def _check_last_dim(fn: str, input: Array, normalized_shape: Sequence[int]) -> None:
    shape = _shape_of(fn, input)
    if isinstance(normalized_shape, (str, bytes)) or not hasattr(normalized_shape, "__iter__") or not all(
            isinstance(e, _Integral) and not isinstance(e, bool) for e in normalized_shape):
        raise TypeError("streamlab.%s: normalized_shape must be a sequence of ints (as torch's), got %r"
                        % (fn, normalized_shape))
    if tuple(normalized_shape) != tuple(shape[-1:]):
        raise ValueError("streamlab.%s: normalized_shape must be the last dimension %s, got %s"
                         % (fn, tuple(shape[-1:]), tuple(normalized_shape)))


def _finfo_eps(input: Array) -> float:
    """The machine epsilon of input's dtype (torch's default eps for rms_norm)."""
    if _torch_ops is not None and isinstance(input, _torch_ops.torch.Tensor):
        return float(_torch_ops.torch.finfo(input.dtype).eps)
    import numpy as np
    return float(np.finfo(input.dtype).eps)


def rms_norm_backward(grad_output: Array, input: Array, weight: Array, rstd: Array, *,
                      grad_input: Optional[Array] = None, grad_weight: Optional[Array] = None
                      ) -> Tuple[Array, Array]:
    """The gradient of rms_norm_forward (sl_rmsnorm_bwd): (grad_input, grad_weight), grad_weight
    summed over rows in a fixed order (deterministic), in weight's dtype. The dw partials: on
    CUDA torch tensors a scratch buffer from torch's allocator on the current stream
    (sl_rmsnorm_bwd_workspace bytes; safe on any stream and under graph capture), elsewhere
    the context's workspace."""
    return _fast["rms_norm_backward"](grad_output, input, weight, rstd, grad_input, grad_weight)


def layer_norm_forward(input: Array, weight: Array, bias: Array, eps: float = 1e-5, *,
                       out: Optional[Array] = None, mean: Optional[Array] = None,
                       rstd: Optional[Array] = None) -> Tuple[Array, Array, Array]:
    """LayerNorm over the last dimension (sl_layernorm_fwd): out = (input - mean) * rstd * weight
    + bias, mean and rstd = 1 / sqrt(biased variance + eps) per row (f32, kept for the backward).
    input f32, bf16, f16; weight and bias (last dim,) of input's dtype or f32 (both the same).
    Returns (out, mean, rstd)."""
    return _fast["layer_norm_forward"](input, weight, bias, eps, out, mean, rstd)


def _affine_default(input: Array, value: float, like: Optional[Array]) -> Array:
    """A (last dim,) weight of ones or bias of zeros for a norm's None, in the library of
    input (torch or NumPy), in like's dtype where given, else input's."""
    n = input.shape[-1]
    ref = like if like is not None else input
    if _torch_ops is not None and isinstance(input, _torch_ops.torch.Tensor):
        return _torch_ops.torch.full((n,), value, dtype=ref.dtype, device=input.device)
    import numpy as np
    if isinstance(input, np.ndarray):
        return np.full((n,), value, dtype=ref.dtype)
    raise ValueError("streamlab: give the weight (and bias) for a %s input (no library to allocate them)"
                     % type(input).__name__)


def layer_norm(input: Array, normalized_shape: Sequence[int], weight: Optional[Array] = None,
               bias: Optional[Array] = None, eps: float = 1e-5, *, out: Optional[Array] = None) -> Array:
    """torch.nn.functional.layer_norm over the last dimension (sl_layernorm_fwd); weight None
    means ones and bias None zeros (allocated per call, as torch's eager op does not need to);
    the per-row mean and rstd are computed and dropped (layer_norm_forward keeps them). With
    torch tensors that require grad, autograd records it (layer_norm_backward)."""
    _check_last_dim("layer_norm", input, normalized_shape)
    if weight is None:
        weight = _affine_default(input, 1.0, bias)
    if bias is None:
        bias = _affine_default(input, 0.0, weight)
    return layer_norm_forward(input, weight, bias, eps, out=out)[0]


def layer_norm_backward(grad_output: Array, input: Array, weight: Array, mean: Array, rstd: Array, *,
                        grad_input: Optional[Array] = None, grad_weight: Optional[Array] = None,
                        grad_bias: Optional[Array] = None) -> Tuple[Array, Array, Array]:
    """The gradient of layer_norm_forward (sl_layernorm_bwd): (grad_input, grad_weight, grad_bias),
    the last two summed over rows in a fixed order (deterministic), in weight's dtype. The
    partials: on CUDA torch tensors a scratch buffer from torch's allocator on the current
    stream (sl_layernorm_bwd_workspace bytes), elsewhere the context's workspace."""
    return _fast["layer_norm_backward"](grad_output, input, weight, mean, rstd, grad_input, grad_weight,
                                        grad_bias)


def add_rms_norm_forward(input: Array, residual: Array, weight: Array, eps: float = 1e-6, *,
                         out: Optional[Array] = None, residual_out: Optional[Array] = None,
                         rstd: Optional[Array] = None) -> Tuple[Array, Array, Array]:
    """The residual add fused with RMSNorm (sl_add_rmsnorm_fwd): residual_out = input + residual
    (rounded to the dtype), out = rms_norm(residual_out) * weight, rstd per row (f32). Returns
    (out, residual_out, rstd). residual_out may be input or residual (in place); out may be
    input or residual, not residual_out. Forward only (no autograd)."""
    return _fast["add_rms_norm_forward"](input, residual, weight, eps, out, residual_out, rstd)


def _reduction(reduction: str) -> int:
    if reduction not in _REDUCTIONS:
        raise ValueError("streamlab.cross_entropy: reduction must be 'none', 'mean' or 'sum', got %r" % (reduction,))
    return _REDUCTIONS[reduction]


def cross_entropy_forward(input: Array, target: Array, ignore_index: int = -100, label_smoothing: float = 0.0,
                          reduction: str = "mean", *, out: Optional[Array] = None,
                          lse: Optional[Array] = None) -> Tuple[Array, Array]:
    """Cross-entropy of class scores input (N, C) against class indices target (N,), int32 or
    int64 (sl_cross_entropy_fwd): (loss, lse), lse the per-row logsumexp (f32). The logits are
    only read. Targets out of range: ValueError on the CPU, a NaN loss on CUDA."""
    return _fast["cross_entropy_forward"](input, target, ignore_index, label_smoothing,
                                          _reduction(reduction), out, lse)


def cross_entropy(input: Array, target: Array, ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0, *, out: Optional[Array] = None) -> Array:
    """torch.nn.functional.cross_entropy(input, target, ignore_index=, reduction=,
    label_smoothing=) for (N, C) scores and class indices (sl_cross_entropy_fwd). Unlike
    torch's, the loss is always f32 (torch returns input's dtype: bf16 / f16 for 16-bit
    logits); targets out of range are a ValueError on the CPU (torch: IndexError). Class
    weights are not offered: torch's third positional argument is weight, here ignore_index,
    so pass ignore_index, reduction and label_smoothing by keyword to run the same call on both."""
    return cross_entropy_forward(input, target, ignore_index, label_smoothing, reduction, out=out)[0]


def cross_entropy_forward_backward(input: Array, target: Array, ignore_index: int = -100,
                                   label_smoothing: float = 0.0, reduction: str = "mean", *,
                                   out: Optional[Array] = None, lse: Optional[Array] = None,
                                   grad_input: Optional[Array] = None, inplace: bool = False
                                   ) -> Tuple[Array, Array, Array]:
    """The loss and its gradient in one pass over the logits (sl_cross_entropy_fwd_bwd):
    (loss, lse, grad_input); inplace=True writes the gradient over input (no second matrix)."""
    if inplace:
        if grad_input is not None:
            raise ValueError("streamlab.cross_entropy_forward_backward: give grad_input or inplace=True, not both")
        grad_input = input
    return _fast["cross_entropy_forward_backward"](input, target, ignore_index, label_smoothing,
                                                   _reduction(reduction), out, lse, grad_input)


def cross_entropy_backward(grad_output: Array, input: Array, target: Array, lse: Array,
                           ignore_index: int = -100, label_smoothing: float = 0.0, reduction: str = "mean", *,
                           grad_input: Optional[Array] = None, inplace: bool = False) -> Array:
    """The gradient of cross_entropy_forward from its saved lse (sl_cross_entropy_bwd): the
    logits read once more, grad_input = (softmax(input) - (1 - eps) onehot - eps / C) times
    grad_output (one f32 per row for reduction "none", else an f32 scalar; "mean" divides by
    the rows not ignored). inplace=True writes it over input."""
    if inplace:
        if grad_input is not None:
            raise ValueError("streamlab.cross_entropy_backward: give grad_input or inplace=True, not both")
        grad_input = input
    return _fast["cross_entropy_backward"](grad_output, input, target, lse, ignore_index, label_smoothing,
                                           _reduction(reduction), grad_input)


FUNCTIONS = {name: globals()[name] for name in _S}

__all__ = ["copy", "scale", "add", "triad", "dot", "nstream", "axpy", "softmax", "transpose", "gemm",
           "softmax_backward", "rms_norm_forward", "rms_norm", "rms_norm_backward", "cross_entropy_forward",
           "cross_entropy", "cross_entropy_forward_backward", "cross_entropy_backward", "layer_norm_forward",
           "layer_norm", "layer_norm_backward", "add_rms_norm_forward",
           "matmul", "stencil2d", "StreamlabError", "BACKENDS"]
