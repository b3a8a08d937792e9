"""NumPy kernels of the ATen operators (stdlib/aten.rly).

Where ATen means what an existing operator means, its kernel is that operator's (`ALIASES`);
where only the argument names differ, a small adapter calls it (convolution and pooling go
through the ONNX kernels, which handle any number of spatial dims). Results keep torch's dtypes
as the shape rules give them.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional, Sequence

import numpy as np

from gradual.ops.tables import KERNELS
from gradual.runtime.kernels.conv import adaptive_axis
from gradual.runtime.kernels.elementwise import same_dtype
from gradual.runtime.kernels.onnx import keys_cubic
from gradual.runtime.kernels.registration import kernel

#: ATen operator -> the existing operator whose kernel it uses as it is
ALIASES = {
    "aten.relu": "nn.relu",
    "aten.neg": "negative",
    "aten.abs": "abs",
    "aten.exp": "exp",
    "aten.log": "log",
    "aten.sqrt": "sqrt",
    "aten.rsqrt": "rsqrt",
    "aten.tanh": "tanh",
    "aten.sigmoid": "sigmoid",
    "aten.erf": "erf",
    "aten.floor": "floor",
    "aten.ceil": "ceil",
    "aten.sign": "sign",
    "aten.clone": "copy",
    "aten.sin": "onnx.sin",
    "aten.cos": "onnx.cos",
    "aten.reciprocal": "onnx.reciprocal",
    "aten.mish": "onnx.mish",
    "aten.hardswish": "onnx.hard_swish",
    "aten.isnan": "onnx.isnan",
    "aten.bitwise_not": "onnx.bitwise_not",
    "aten.add": "add",
    "aten.sub": "subtract",
    "aten.mul": "multiply",
    "aten.floor_divide": "floor_divide",
    "aten.remainder": "floor_mod",
    "aten.pow": "power",
    "aten.maximum": "maximum",
    "aten.minimum": "minimum",
    "aten.eq": "equal",
    "aten.ne": "not_equal",
    "aten.lt": "less",
    "aten.le": "less_equal",
    "aten.gt": "greater",
    "aten.ge": "greater_equal",
    "aten.where": "where",
    "aten.matmul": "onnx.matmul",
    "aten.einsum": "onnx.einsum",
    "aten.nonzero": "argwhere",
    "aten.arange": "arange",
    "aten.bitwise_and": "onnx.bitwise_and",
    "aten.bitwise_or": "onnx.bitwise_or",
    "aten.bitwise_xor": "onnx.bitwise_xor",
}


def _alias_kernels() -> None:
    # the families whose kernels the aliases name
    import gradual.runtime.kernels.data
    import gradual.runtime.kernels.elementwise
    import gradual.runtime.kernels.onnx  # noqa: F401

    for name, target in ALIASES.items():
        kernel(name)(KERNELS[target])


_alias_kernels()


def scalar_as_vector(run: Any) -> Any:
    """A kernel over dims, made to take a 0-d tensor as torch does: as a 1-element vector whose
    dim 0 (or -1) is the scalar itself; the results are 0-d again."""

    @functools.wraps(run)
    def wrapped(data: np.ndarray, *args: Any, **attrs: Any) -> Any:
        if data.ndim:
            return run(data, *args, **attrs)
        out = run(data.reshape(1), *args, **attrs)
        return tuple(o.reshape(()) for o in out) if isinstance(out, tuple) else np.asarray(out).reshape(())

    return wrapped


def _unary(name: str, fn: Any) -> None:
    @kernel(name)
    def run(data: np.ndarray, **attrs: Any) -> np.ndarray:
        return same_dtype(data, fn(data.astype(np.float64) if data.dtype.kind == "f" else data, **attrs))

    run.__name__ = name.replace(".", "_")
    run.__doc__ = f"`{name}` elementwise."


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _gelu(x: np.ndarray, *, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _clamp(x: np.ndarray, *, min: Optional[float], max: Optional[float]) -> np.ndarray:  # ATen's names
    if min is not None:
        x = np.maximum(x, min)
    if max is not None:
        x = np.minimum(x, max)
    return x


_unary("aten.silu", lambda x: x / (1 + np.exp(-x)))
_unary("aten.hardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1))
_unary("aten.gelu", _gelu)
_unary("aten.leaky_relu", lambda x, *, negative_slope: np.where(x > 0, x, negative_slope * x))
_unary("aten.hardtanh", lambda x, *, min_val, max_val: np.clip(x, min_val, max_val))
_unary(
    "aten.elu",
    lambda x, *, alpha, scale, input_scale: scale * np.where(x > 0, x, alpha * (np.exp(x * input_scale) - 1)),
)
_unary(
    "aten.softplus", lambda x, *, beta, threshold: np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)
)
#: past 400 decimals either way, 10^decimals is 0 or inf in every float type: NumPy's result is
#: the same as at 400, which it computes at once (at 2^31 it took 4 s; past 2^31 it refuses)
_ROUND_DECIMALS = 400
_unary("aten.round", lambda x, *, decimals: np.round(x, max(-_ROUND_DECIMALS, min(decimals, _ROUND_DECIMALS))))
_unary("aten.tan", np.tan)
_unary("aten.asin", np.arcsin)
_unary("aten.acos", np.arccos)
_unary("aten.atan", np.arctan)
_unary("aten.sinh", np.sinh)
_unary("aten.cosh", np.cosh)
_unary("aten.asinh", np.arcsinh)
_unary("aten.acosh", np.arccosh)
_unary("aten.atanh", np.arctanh)
_unary("aten.log2", np.log2)
_unary("aten.log10", np.log10)
_unary("aten.log1p", np.log1p)
_unary("aten.expm1", np.expm1)
_unary("aten.exp2", np.exp2)
_unary("aten.trunc", np.trunc)
_unary("aten.frac", lambda x: x - np.trunc(x))
_unary("aten.selu", lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)))
_unary("aten.relu6", lambda x: np.clip(x, 0, 6))
_unary("aten.log_sigmoid", lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))))
_unary("aten.celu", lambda x, *, alpha: np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha)))
_unary("aten.hardshrink", lambda x, *, lambd: np.where(np.abs(x) > lambd, x, 0))
_unary("aten.softshrink", lambda x, *, lambd: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)))
_unary("aten.threshold", lambda x, *, threshold, value: np.where(x > threshold, x, value))


def _erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse error function: Giles' approximation refined by Newton's method."""
    w = -np.log(np.maximum((1 - x) * (1 + x), 1e-300))
    small = w - 2.5
    big = np.sqrt(np.maximum(w, 0)) - 3
    p_small = np.polyval(
        [
            2.81022636e-08,
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ],
        small,
    )
    p_big = np.polyval(
        [
            -0.000200214257,
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ],
        big,
    )
    y = np.where(w < 5, p_small, p_big) * x
    for _ in range(2):
        y = y - (_erf(y) - x) / (2 / math.sqrt(math.pi) * np.exp(-y * y))
    return np.where(np.abs(x) >= 1, np.sign(x) * np.inf, y)


def _logit(x: np.ndarray, *, eps: Optional[float]) -> np.ndarray:
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x))


_unary("aten.erfinv", _erfinv)
_unary("aten.logit", _logit)


@kernel("aten.nan_to_num")
def nan_to_num(
    data: np.ndarray, *, nan: Optional[float], posinf: Optional[float], neginf: Optional[float]
) -> np.ndarray:
    """NaN and infinities replaced (the dtype's extremes by default)."""
    return np.nan_to_num(data, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


for _name, _test in (
    ("aten.isinf", np.isinf),
    ("aten.isfinite", np.isfinite),
    ("aten.isneginf", np.isneginf),
    ("aten.isposinf", np.isposinf),
    ("aten.signbit", np.signbit),
):
    kernel(_name)(lambda data, _t=_test: np.asarray(_t(data), dtype=bool))


@kernel("aten.clamp")
def clamp(data: np.ndarray, low: Any, high: Any) -> np.ndarray:
    """x clamped between the bounds given (scalars or broadcasting tensors; () is none)."""
    out = data
    if isinstance(low, np.ndarray):
        out = np.maximum(out, low.astype(data.dtype))
    if isinstance(high, np.ndarray):
        out = np.minimum(out, high.astype(data.dtype))
    return np.broadcast_to(
        out, np.broadcast_shapes(*(a.shape for a in (data, low, high) if isinstance(a, np.ndarray)))
    ).astype(data.dtype)


@kernel("aten.flip")
def flip(data: np.ndarray, *, dims: Sequence[int]) -> np.ndarray:
    """Reversed along dims."""
    return np.flip(data, axis=tuple(dims)).copy() if data.ndim else data.copy()


@kernel("aten.roll")
def roll(data: np.ndarray, *, shifts: Sequence[int], dims: Sequence[int]) -> np.ndarray:
    """Rolled along dims (the flattened tensor without them)."""
    if not dims:
        return np.roll(data.reshape(-1), shifts[0]).reshape(data.shape)
    return np.roll(data, tuple(shifts), axis=tuple(dims))


def _along(fn: Any) -> Any:
    def run(data: np.ndarray, *, dim: int, dtype: str = "") -> np.ndarray:
        return same_dtype(data, fn(data.astype(np.float64) if data.dtype.kind == "f" else data, dim))

    return run


kernel("aten.logcumsumexp")(scalar_as_vector(_along(lambda x, d: np.logaddexp.accumulate(x, axis=d))))


def _running(better: Any) -> Any:
    def run(data: np.ndarray, *, dim: int) -> tuple:
        moved = np.moveaxis(data, dim, 0)
        values, indices = moved.copy(), np.zeros(moved.shape, np.int64)
        for i in range(1, moved.shape[0]):
            take = better(moved[i], values[i - 1]) | (moved[i] == values[i - 1])
            values[i] = np.where(take, moved[i], values[i - 1])
            indices[i] = np.where(take, i, indices[i - 1])
        return np.moveaxis(values, 0, dim), np.moveaxis(indices, 0, dim)

    run.__doc__ = "(running extreme, the index of its latest occurrence) along dim."
    return run


kernel("aten.cummax")(scalar_as_vector(_running(np.greater)))
kernel("aten.cummin")(scalar_as_vector(_running(np.less)))
_unary("aten.tril", lambda x, *, diagonal: np.tril(x, diagonal))
_unary("aten.triu", lambda x, *, diagonal: np.triu(x, diagonal))


@kernel("aten.dropout")
def dropout(data: np.ndarray, *, p: float, train: bool) -> np.ndarray:
    """Dropout in inference: the identity."""
    return data.copy()


@kernel("aten.cumsum")
@scalar_as_vector
def cumsum(data: np.ndarray, *, dim: int, dtype: str = "") -> np.ndarray:
    """Running sums along dim, in dtype ("": torch's, int64 for bool and integers)."""
    return np.cumsum(data, axis=dim, dtype=_accumulated(data, dtype))


@kernel("aten.cumprod")
@scalar_as_vector
def cumprod(data: np.ndarray, *, dim: int, dtype: str = "") -> np.ndarray:
    """Running products along dim, in dtype ("": torch's, int64 for bool and integers)."""
    return np.cumprod(data, axis=dim, dtype=_accumulated(data, dtype))


def _accumulated(data: np.ndarray, dtype: str) -> np.dtype:
    if dtype:
        return np.dtype(dtype)
    return np.dtype(np.int64) if data.dtype.kind in "biu" else data.dtype


def _like(fill: Any) -> Any:
    def run(data: np.ndarray, *, dtype: str = "", fill_value: Optional[float] = None) -> np.ndarray:
        target = np.dtype(dtype) if dtype else data.dtype
        if fill == "copy":
            return data.astype(target)
        return np.full(data.shape, fill_value if fill == "value" else fill, target)

    run.__doc__ = '`_to_copy` converts; the `_like` forms fill (dtype "" keeps the input\'s).'
    return run


for _name, _fill in (
    ("aten._to_copy", "copy"),
    ("aten.zeros_like", 0),
    ("aten.ones_like", 1),
    ("aten.full_like", "value"),
):
    kernel(_name)(_like(_fill))


@kernel("aten.div")
def div(a: np.ndarray, b: np.ndarray, *, rounding_mode: Optional[str] = None) -> np.ndarray:
    """True division (of integers: in float32, torch's default dtype), or rounded toward -inf
    (`floor`) or 0 (`trunc`) in the operands' dtype."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if rounding_mode == "floor":
            out = np.floor_divide(a, b) if a.dtype.kind in "iu" else np.floor(a / b)
        elif rounding_mode == "trunc":
            out = np.trunc(a / b)
        elif a.dtype.kind != "f":
            return np.asarray(a / b, dtype=np.float32)
        else:
            out = a / b
    return same_dtype(a, out)


@kernel("aten.fmod")
def fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's fmod (the dividend's sign)."""
    return same_dtype(a, np.fmod(a, b))


@kernel("aten.logical_not")
def logical_not(data: np.ndarray) -> np.ndarray:
    """Whether each element is zero (torch's logical operators give bool for any input)."""
    return np.logical_not(data)


_LOGICAL: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("aten.logical_and", np.logical_and),
    ("aten.logical_or", np.logical_or),
    ("aten.logical_xor", np.logical_xor),
)
for _name, _logical in _LOGICAL:
    kernel(_name)(lambda a, b, _f=_logical: np.asarray(_f(a, b), dtype=bool))


def _heaviside(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(a == 0, b, np.where(a > 0, 1, 0))


_BINARY: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("aten.atan2", np.arctan2),
    ("aten.hypot", np.hypot),
    ("aten.heaviside", _heaviside),
    ("aten.copysign", np.copysign),
    ("aten.logaddexp", np.logaddexp),
    ("aten.xlogy", lambda a, b: np.where(a == 0, 0.0, a * np.log(np.where(a == 0, 1, b)))),
    ("aten.bitwise_left_shift", np.left_shift),
    ("aten.bitwise_right_shift", np.right_shift),
)
for _name, _binary in _BINARY:
    kernel(_name)(lambda a, b, _f=_binary: same_dtype(a, _f(a, b)))


# linear algebra ------------------------------------------------------------------------------------
@kernel("aten.mm", "aten.bmm")
def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Matrix products (batched for bmm)."""
    return same_dtype(a, np.matmul(a, b))


@kernel("aten.addmm")
def addmm(bias: np.ndarray, a: np.ndarray, b: np.ndarray, *, beta: float, alpha: float) -> np.ndarray:
    """beta * bias + alpha * a @ b."""
    return same_dtype(a, beta * bias + alpha * np.matmul(a, b))


@kernel("aten.linear")
def linear(data: np.ndarray, weight: np.ndarray, bias: Any) -> np.ndarray:
    """x W^T (+ b)."""
    out = np.matmul(data, weight.T)
    return same_dtype(data, out + bias if isinstance(bias, np.ndarray) else out)


@kernel("aten.t")
def t(data: np.ndarray) -> np.ndarray:
    """A matrix transposed."""
    return data.T.copy()


@kernel("aten.scaled_dot_product_attention")
def attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: Any,
    *,
    dropout_p: float,
    is_causal: bool,
    scale: Optional[float],
    enable_gqa: bool,
) -> np.ndarray:
    """softmax(q k^T * scale + mask) v; a bool mask says where to attend; with enable_gqa each
    key and value head serves a group of query heads (dim -3)."""
    if enable_gqa and min(q.ndim, k.ndim, v.ndim) >= 3:
        group = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)
    factor = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    scores = np.matmul(q.astype(np.float64), np.swapaxes(k, -1, -2).astype(np.float64)) * factor
    length, source = q.shape[-2], k.shape[-2]
    if is_causal:
        scores = np.where(np.tril(np.ones((length, source), bool)), scores, -np.inf)
    if isinstance(mask, np.ndarray):
        scores = np.where(mask, scores, -np.inf) if mask.dtype == bool else scores + mask
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = scores / scores.sum(axis=-1, keepdims=True)
    return same_dtype(q, np.matmul(weights, v.astype(np.float64)))


# convolution and pooling ----------------------------------------------------------------------------
def _each(values: Sequence[int], k: int) -> list:
    values = list(values)
    return values * k if len(values) == 1 else values


@kernel("aten.convolution")
def convolution(
    data: np.ndarray,
    weight: np.ndarray,
    bias: Any,
    *,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> np.ndarray:
    """N-d convolution (ONNX's kernels), plus the bias per output channel."""
    k = data.ndim - 2
    attrs = {
        "auto_pad": "NOTSET",
        "pads": _each(padding, k) * 2,
        "strides": _each(stride, k),
        "dilations": _each(dilation, k),
        "group": groups,
    }
    if transposed:
        out = KERNELS["onnx.conv_transpose"](
            data, weight, output_padding=_each(output_padding, k), output_shape=None, **attrs
        )
    else:
        out = KERNELS["onnx.conv"](data, weight, **attrs)
    if isinstance(bias, np.ndarray):
        out = out + bias.reshape((-1,) + (1,) * k)
    return same_dtype(data, out)


def _pool_attrs(
    kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool
) -> dict:
    k = len(kernel_size)
    return {
        "kernel_shape": list(kernel_size),
        "auto_pad": "NOTSET",
        "pads": _each(padding, k) * 2,
        "strides": _each(stride or kernel_size, k),
        "dilations": _each(dilation, k),
        "ceil_mode": ceil_mode,
    }


@kernel("aten.max_pool2d")
def max_pool2d(
    data: np.ndarray,
    *,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> np.ndarray:
    """Max pooling (ONNX's kernel: the same windows and ceil_mode)."""
    return KERNELS["onnx.max_pool"](data, **_pool_attrs(kernel_size, stride, padding, dilation, ceil_mode))


@kernel("aten.max_pool2d_with_indices")
def max_pool2d_with_indices(
    data: np.ndarray,
    *,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> tuple:
    """Max pooling and, as torch, each maximum's position in its own (h, w) plane."""
    values, flat = KERNELS["onnx.max_pool_indices"](
        data, storage_order=0, **_pool_attrs(kernel_size, stride, padding, dilation, ceil_mode)
    )
    plane = int(np.prod(data.shape[2:])) or 1
    return values, (flat % plane).astype(np.int64)


@kernel("aten.avg_pool2d")
def avg_pool2d(
    data: np.ndarray,
    *,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Optional[int],
) -> np.ndarray:
    """Average pooling (ONNX's kernel)."""
    out = KERNELS["onnx.avg_pool"](
        data, count_include_pad=count_include_pad, **_pool_attrs(kernel_size, stride, padding, [1], ceil_mode)
    )
    if divisor_override:
        out = out * (int(np.prod(kernel_size)) / divisor_override)
    return same_dtype(data, out)


@kernel("aten.adaptive_avg_pool2d")
def adaptive_avg_pool2d(data: np.ndarray, *, output_size: Sequence[int]) -> np.ndarray:
    """Adaptive average pooling over the last len(output_size) dims, one axis after another
    (conv.adaptive_axis: vectorised, the shrinking axes first; a loop per output position took
    minutes for an output_size of 10^6)."""
    k = len(output_size)
    out = data.astype(np.float64)
    axes = range(data.ndim - k, data.ndim)
    for axis in sorted(axes, key=lambda a: output_size[a - data.ndim + k] / max(data.shape[a], 1)):
        out = adaptive_axis(out, axis, output_size[axis - data.ndim + k], False)
    return same_dtype(data, out)


@kernel("aten.adaptive_max_pool2d")
def adaptive_max_pool2d(data: np.ndarray, *, output_size: Sequence[int]) -> tuple:
    """Adaptive max pooling, and each maximum's position in the flattened spatial dims (the
    first in row-major order among equal maxima, a NaN being the largest). Pooled one axis at
    a time, vectorised, the shrinking axes first (a loop per output position took seconds at
    an output_size of 10^6): each value carries its position, and among a window's equal
    maxima the least position wins, so the order of the axes does not matter."""
    k = len(output_size)
    spatial = data.shape[data.ndim - k :]
    values = data
    positions = np.broadcast_to(np.arange(int(np.prod(spatial)), dtype=np.int64).reshape(spatial), data.shape)
    axes = range(data.ndim - k, data.ndim)
    for axis in sorted(axes, key=lambda a: output_size[a - data.ndim + k] / max(data.shape[a], 1)):
        values, positions = _adaptive_argmax_axis(values, positions, axis, output_size[axis - data.ndim + k])
    return np.ascontiguousarray(values), np.ascontiguousarray(positions)


def _adaptive_argmax_axis(values: np.ndarray, positions: np.ndarray, axis: int, count: int) -> tuple:
    """One axis of `adaptive_max_pool2d`: each bin's maximum and its least position."""
    size = values.shape[axis]
    i = np.arange(count)
    start, end = (i * size) // count, -((-(i + 1) * size) // count)
    longest = int((end - start).max()) if count else 0
    if not longest:  # no bins (or none holds an element): empty results
        shape = values.shape[:axis] + (count,) + values.shape[axis + 1 :]
        return np.zeros(shape, values.dtype), np.zeros(shape, np.int64)
    index = np.minimum(start[:, None] + np.arange(longest)[None, :], (end - 1)[:, None])
    window = np.moveaxis(values, axis, -1)[..., index]
    where = np.moveaxis(positions, axis, -1)[..., index]
    best = window.max(axis=-1, keepdims=True)
    hit = window == best
    if window.dtype.kind in "fc":
        hit |= np.isnan(window) & np.isnan(best)
    position = np.where(hit, where, np.iinfo(np.int64).max).min(axis=-1)
    return np.moveaxis(best[..., 0], -1, axis), np.moveaxis(position, -1, axis)


# normalization -------------------------------------------------------------------------------------
def _normalize(data: np.ndarray, axes: tuple, eps: float) -> tuple:
    x = data.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    return (x - mean) * rstd, mean, rstd


def _affine(x: np.ndarray, weight: Any, bias: Any) -> np.ndarray:
    if isinstance(weight, np.ndarray):
        x = x * weight
    if isinstance(bias, np.ndarray):
        x = x + bias
    return x


@kernel("aten.layer_norm")
def layer_norm(
    data: np.ndarray, weight: Any, bias: Any, *, normalized_shape: Sequence[int], eps: float, cudnn_enable: bool = True
) -> np.ndarray:
    """Normalize over the last dims, then scale and shift."""
    axes = tuple(range(data.ndim - len(normalized_shape), data.ndim))
    y, _, _ = _normalize(data, axes, eps)
    return same_dtype(data, _affine(y, weight, bias))


@kernel("aten.native_layer_norm")
def native_layer_norm(
    data: np.ndarray, weight: Any, bias: Any, *, normalized_shape: Sequence[int], eps: float
) -> tuple:
    """(y, mean, rstd)."""
    axes = tuple(range(data.ndim - len(normalized_shape), data.ndim))
    y, mean, rstd = _normalize(data, axes, eps)
    return same_dtype(data, _affine(y, weight, bias)), same_dtype(data, mean), same_dtype(data, rstd)


@kernel("aten.layer_norm_sized")
def layer_norm_sized(
    data: np.ndarray, weight: Any, bias: Any, normalized_shape: tuple, *, eps: float, cudnn_enable: bool = True
) -> np.ndarray:
    """layer_norm with normalized_shape given as int64 scalars."""
    return layer_norm(data, weight, bias, normalized_shape=normalized_shape, eps=eps)


@kernel("aten.native_layer_norm_sized")
def native_layer_norm_sized(data: np.ndarray, weight: Any, bias: Any, normalized_shape: tuple, *, eps: float) -> tuple:
    """native_layer_norm with normalized_shape given as int64 scalars."""
    return native_layer_norm(data, weight, bias, normalized_shape=normalized_shape, eps=eps)


def _per_channel(vector: Any, ndim: int) -> Any:
    return vector.reshape((1, -1) + (1,) * (ndim - 2)) if isinstance(vector, np.ndarray) else vector


@kernel("aten.batch_norm")
def batch_norm(
    data: np.ndarray,
    weight: Any,
    bias: Any,
    mean: Any,
    var: Any,
    *,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = True,
) -> np.ndarray:
    """Inference batch norm with the running statistics."""
    x = (data.astype(np.float64) - _per_channel(mean, data.ndim)) / np.sqrt(_per_channel(var, data.ndim) + eps)
    return same_dtype(data, _affine(x, _per_channel(weight, data.ndim), _per_channel(bias, data.ndim)))


@kernel("aten._native_batch_norm_legit_no_training")
def batch_norm_stats(
    data: np.ndarray, weight: Any, bias: Any, mean: Any, var: Any, *, momentum: float, eps: float
) -> tuple:
    """(y, empty, empty) as torch returns in inference."""
    y = batch_norm(data, weight, bias, mean, var, training=False, momentum=momentum, eps=eps)
    empty = np.zeros((0,), data.dtype)
    return y, empty, empty.copy()


@kernel("aten.softmax")
@scalar_as_vector
def softmax(data: np.ndarray, *, dim: int, half_to_float: bool = False) -> np.ndarray:
    """Softmax along dim."""
    return KERNELS["nn.softmax"](data, axis=dim)


@kernel("aten.log_softmax")
@scalar_as_vector
def log_softmax(data: np.ndarray, *, dim: int, half_to_float: bool = False) -> np.ndarray:
    """Log-softmax along dim."""
    return KERNELS["nn.log_softmax"](data, axis=dim)


# reductions ----------------------------------------------------------------------------------------
def _axes(data: np.ndarray, dim: Any) -> Optional[tuple]:
    if dim is None or (not isinstance(dim, int) and not list(dim)):
        return None
    return tuple(d % max(data.ndim, 1) for d in ([dim] if isinstance(dim, int) else dim))


def _reduction(name: str, fn: Any) -> None:
    @kernel(name)
    @scalar_as_vector
    def run(data: np.ndarray, *, dim: Any = None, keepdim: bool = False, dtype: str = "", **attrs: Any) -> np.ndarray:
        out = np.asarray(fn(data, _axes(data, dim), keepdim, **attrs))
        return out.astype(_accumulated(data, dtype) if name in ("aten.sum", "aten.prod") else dtype or data.dtype)

    run.__name__ = name.replace(".", "_")
    run.__doc__ = f"`{name}` over dim (every dim when None or [])."


_reduction("aten.sum", lambda x, a, k: np.sum(x, axis=a, keepdims=k))
_reduction("aten.mean", lambda x, a, k: np.mean(x.astype(np.float64), axis=a, keepdims=k))
_reduction("aten.amax", lambda x, a, k: np.max(x, axis=a, keepdims=k))
_reduction("aten.amin", lambda x, a, k: np.min(x, axis=a, keepdims=k))
_reduction("aten.prod", lambda x, a, k: np.prod(x, axis=a, keepdims=k))
_reduction("aten.var", lambda x, a, k, correction: np.var(x.astype(np.float64), axis=a, keepdims=k, ddof=correction))
_reduction("aten.std", lambda x, a, k, correction: np.std(x.astype(np.float64), axis=a, keepdims=k, ddof=correction))
_reduction("aten.any", lambda x, a, k: np.any(x, axis=a, keepdims=k))
_reduction("aten.all", lambda x, a, k: np.all(x, axis=a, keepdims=k))
_reduction("aten.count_nonzero", lambda x, a, k: np.sum(x != 0, axis=a, keepdims=k))
_reduction("aten.logsumexp", lambda x, a, k: _logsumexp(x.astype(np.float64), a, k))
_reduction("aten.linalg_vector_norm", lambda x, a, k, ord: _vector_norm(x.astype(np.float64), a, k, ord))


def _logsumexp(x: np.ndarray, axes: Optional[tuple], keep: bool) -> np.ndarray:
    top = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((1,) * x.ndim)
    top = np.where(np.isfinite(top), top, 0)
    out = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    return out if keep else np.squeeze(out, axis=axes) if axes is not None else out.reshape(())


def _vector_norm(x: np.ndarray, axes: Optional[tuple], keep: bool, order: float) -> np.ndarray:
    magnitude = np.abs(x)
    if order == float("inf"):
        return np.max(magnitude, axis=axes, keepdims=keep)
    if order == float("-inf"):
        return np.min(magnitude, axis=axes, keepdims=keep)
    if order == 0:
        return np.sum(magnitude != 0, axis=axes, keepdims=keep).astype(np.float64)
    return np.sum(magnitude**order, axis=axes, keepdims=keep) ** (1 / order)


@kernel("aten.median")
def median(data: np.ndarray) -> np.ndarray:
    """The lower median of every element."""
    flat = np.sort(data.reshape(-1))
    return np.asarray(flat[(flat.size - 1) // 2], dtype=data.dtype)


def _pick_along(data: np.ndarray, dim: int, keepdim: bool, position: Any) -> tuple:
    """(values, indices) of the element at `position(length)` of each sorted line along dim."""
    order = np.argsort(data, axis=dim, kind="stable")
    at = position(data.shape[dim])
    index = np.take(order, [at], axis=dim)
    values = np.take_along_axis(data, index, axis=dim)
    if not keepdim:
        values, index = np.squeeze(values, axis=dim), np.squeeze(index, axis=dim)
    return values.astype(data.dtype), index.astype(np.int64)


@kernel("aten.median_dim")
@scalar_as_vector
def median_dim(data: np.ndarray, *, dim: int, keepdim: bool) -> tuple:
    """(lower medians, their indices) along dim."""
    return _pick_along(data, dim, keepdim, lambda n: (n - 1) // 2)


@kernel("aten.kthvalue")
@scalar_as_vector
def kthvalue(data: np.ndarray, *, k: int, dim: int, keepdim: bool) -> tuple:
    """(k-th smallest values, their indices) along dim."""
    return _pick_along(data, dim, keepdim, lambda n: k - 1)


@kernel("aten.mode")
@scalar_as_vector
def mode(data: np.ndarray, *, dim: int, keepdim: bool) -> tuple:
    """(most frequent values, smallest of them on ties; an index of each) along dim."""
    moved = np.moveaxis(data, dim, -1)
    values = np.empty(moved.shape[:-1], data.dtype)
    indices = np.empty(moved.shape[:-1], np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        line = moved[pos]
        found, counts = np.unique(line, return_counts=True)
        best = found[np.argmax(counts)]
        values[pos], indices[pos] = best, int(np.nonzero(line == best)[0][-1])
    if keepdim:
        values, indices = np.expand_dims(values, dim), np.expand_dims(indices, dim)
    return values, indices


def _sorted_order(data: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    if data.ndim == 0:
        return np.zeros((), np.int64)
    keys = data
    if descending:
        keys = (
            -data
            if data.dtype.kind not in "ub"
            else (np.iinfo(data.dtype).max - data if data.dtype.kind == "u" else ~data)
        )
    return np.argsort(keys, axis=dim, kind="stable").astype(np.int64)


@kernel("aten.sort")
def sort(data: np.ndarray, *, dim: int, descending: bool, stable: bool) -> tuple:
    """(values, indices) sorted along dim (stably)."""
    order = _sorted_order(data, dim, descending)
    return (np.take_along_axis(data, order, axis=dim) if data.ndim else data.copy()), order


@kernel("aten.argsort")
def argsort(data: np.ndarray, *, dim: int, descending: bool, stable: bool) -> np.ndarray:
    """The indices that sort along dim (stably)."""
    return _sorted_order(data, dim, descending)


def _extreme(pick: Any, values: Any) -> Any:
    def run(data: np.ndarray, *, dim: int, keepdim: bool) -> tuple:
        index = pick(data, axis=dim, keepdims=keepdim)
        return values(data, axis=dim, keepdims=keepdim).astype(data.dtype), index.astype(np.int64)

    return run


kernel("aten.max_dim")(scalar_as_vector(_extreme(np.argmax, np.max)))
kernel("aten.min_dim")(scalar_as_vector(_extreme(np.argmin, np.min)))


def _arg(pick: Any) -> Any:
    def run(data: np.ndarray, *, dim: Optional[int], keepdim: bool) -> np.ndarray:
        if dim is None:
            out = np.asarray(pick(data))
            return out.reshape((1,) * data.ndim if keepdim else ()).astype(np.int64)
        return pick(data, axis=dim, keepdims=keepdim).astype(np.int64)

    return run


kernel("aten.argmax")(scalar_as_vector(_arg(np.argmax)))
kernel("aten.argmin")(scalar_as_vector(_arg(np.argmin)))


# shapes ---------------------------------------------------------------------------------------------
def _ints(size: tuple) -> list:
    return [int(np.asarray(s).reshape(-1)[0]) for s in size]


@kernel("aten.view")
def view(data: np.ndarray, size: tuple) -> np.ndarray:
    """Reshape to a SymInt list (-1 inferred)."""
    return data.reshape(_ints(size)).copy()


@kernel("aten.expand")
def expand(data: np.ndarray, size: tuple) -> np.ndarray:
    """Broadcast to a SymInt list (-1 keeps the dim)."""
    sizes = _ints(size)
    offset = len(sizes) - data.ndim
    target = [data.shape[i - offset] if s == -1 and i >= offset else s for i, s in enumerate(sizes)]
    return np.broadcast_to(data, target).copy()


@kernel("aten.permute")
def permute(data: np.ndarray, *, dims: Sequence[int]) -> np.ndarray:
    """Dims reordered."""
    return np.transpose(data, list(dims)).copy()


@kernel("aten.transpose")
def transpose(data: np.ndarray, *, dim0: int, dim1: int) -> np.ndarray:
    """Two dims swapped."""
    return np.swapaxes(data, dim0, dim1).copy() if data.ndim else data.copy()


@kernel("aten.unsqueeze")
def unsqueeze(data: np.ndarray, *, dim: int) -> np.ndarray:
    """A dim of 1 inserted."""
    return np.expand_dims(data, dim if dim >= 0 else dim + data.ndim + 1)


@kernel("aten.squeeze")
def squeeze(data: np.ndarray, *, dim: Any = None) -> np.ndarray:
    """The listed (or all) dims of size 1 removed."""
    listed = (
        range(data.ndim) if dim is None else [d % max(data.ndim, 1) for d in ([dim] if isinstance(dim, int) else dim)]
    )
    axes = tuple(a for a in listed if data.ndim and data.shape[a] == 1)
    return np.squeeze(data, axis=axes) if axes else data.copy()


@kernel("aten.flatten")
def flatten(data: np.ndarray, *, start_dim: int, end_dim: int) -> np.ndarray:
    """Dims start..end multiplied into one."""
    if data.ndim == 0:
        return data.reshape(1)
    start, end = start_dim % data.ndim, end_dim % data.ndim
    merged = int(np.prod(data.shape[start : end + 1], dtype=np.int64))  # not -1: a 0 among the others leaves it open
    return data.reshape(data.shape[:start] + (merged,) + data.shape[end + 1 :])


@kernel("aten.cat")
def cat(tensors: tuple, *, dim: int) -> np.ndarray:
    """Tensors joined along dim."""
    return np.concatenate(tensors, axis=dim)


@kernel("aten.stack")
def stack(tensors: tuple, *, dim: int) -> np.ndarray:
    """Tensors joined along a new dim."""
    return np.stack(tensors, axis=dim)


@kernel("aten.split_with_sizes")
def split_with_sizes(data: np.ndarray, split_sizes: tuple, *, dim: int) -> tuple:
    """Parts of the given sizes."""
    return tuple(np.split(data, np.cumsum(_ints(split_sizes))[:-1], axis=dim))


@kernel("aten.split")
def split(data: np.ndarray, *, split_size: int, chunks: int, dim: int, count: int) -> tuple:
    """`count` parts of split_size (chunk: ceil(dim / chunks)), the last one smaller."""
    whole = data.shape[dim]
    size = -(-whole // chunks) if chunks else split_size
    return tuple(np.split(data, [size * (i + 1) for i in range(count - 1)], axis=dim))


@kernel("aten.unbind")
def unbind(data: np.ndarray, *, dim: int, count: int) -> tuple:
    """One tensor per index of dim."""
    return tuple(np.take(data, i, axis=dim) for i in range(count))


def _optional(arg: Any) -> Optional[int]:
    return None if isinstance(arg, tuple) else int(np.asarray(arg).reshape(-1)[0])


@kernel("aten.slice")
def slice_(data: np.ndarray, start: Any, end: Any, *, dim: int, step: int) -> np.ndarray:
    """x[start:end:step] along dim."""
    index = [slice(None)] * data.ndim
    index[dim] = slice(_optional(start), _optional(end), step)
    return data[tuple(index)].copy()


@kernel("aten.select")
def select(data: np.ndarray, index: np.ndarray, *, dim: int) -> np.ndarray:
    """The dim at one index, removed."""
    return np.take(data, int(np.asarray(index).reshape(-1)[0]), axis=dim)


@kernel("aten.index_select")
def index_select(data: np.ndarray, index: np.ndarray, *, dim: int) -> np.ndarray:
    """Entries along dim at the indices (a scalar's one index leaves the scalar, as in torch)."""
    if data.ndim == 0:
        return data.copy()
    return np.take(data, index.astype(np.int64), axis=dim)


@kernel("aten.embedding")
def embedding(weight: np.ndarray, indices: np.ndarray, **_: Any) -> np.ndarray:
    """Rows of weight at the indices."""
    return weight[indices.astype(np.int64)]


@kernel("aten.embedding_bag")
def embedding_bag(
    weight: np.ndarray,
    indices: np.ndarray,
    offsets: np.ndarray,
    per_sample_weights: Any,
    *,
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    include_last_offset: bool,
    padding_idx: Optional[int],
) -> tuple:
    """Rows of weight summed, averaged or maxed per bag, padding_idx (negative: from the end)
    skipped; then torch's offset2bag, bag_size and max_indices (mode sum: as long as offsets)."""
    dtypes = {indices.dtype, offsets.dtype}
    indices, offsets = indices.astype(np.int64), offsets.astype(np.int64)
    n, rows, d = indices.shape[0], weight.shape[0], weight.shape[1]
    padding = None if padding_idx is None else padding_idx + rows if padding_idx < 0 else padding_idx
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    ends = list(offsets[1:]) + ([] if include_last_offset else [n])
    out = np.zeros((bags, d), weight.dtype)
    offset2bag = np.zeros(n, np.int64)
    bag_size = np.zeros(bags, np.int64)
    max_indices = np.zeros((bags, d) if mode == 2 else (bags,), np.int64)
    scale = per_sample_weights if isinstance(per_sample_weights, np.ndarray) else None
    for b in range(bags):
        start, end = int(offsets[b]), int(ends[b])
        offset2bag[start:end] = b
        picked = [i for i in range(start, end) if indices[i] != padding]
        bag_size[b] = len(picked)
        if not picked:
            continue
        rows_ = weight[indices[picked]].astype(np.float64)
        if scale is not None:
            rows_ = rows_ * scale[picked].astype(np.float64)[:, None]
        if mode == 2:
            best = np.argmax(rows_, axis=0)
            out[b] = rows_[best, np.arange(d)]
            max_indices[b] = indices[picked][best]
        else:
            out[b] = rows_.sum(0) / (len(picked) if mode == 1 else 1)
    if mode == 1:
        max_indices = bag_size.copy()
    if mode == 0:  # torch keeps no bookkeeping for a sum: zeros, one per offset
        bag_size = max_indices = np.zeros(offsets.shape[0], np.int64)
        if padding is None:
            offset2bag = offset2bag[:0]
    book = np.int32 if dtypes == {np.dtype(np.int32)} else np.int64  # torch: int32 only where both are
    return out, offset2bag.astype(book), bag_size.astype(book), max_indices.astype(book)


@kernel("aten.constant_pad_nd")
def constant_pad_nd(data: np.ndarray, *, pad: Sequence[int], value: float) -> np.ndarray:
    """[before, after] pairs from the last dim back (negative entries crop)."""
    out = data
    for i in range(len(pad) // 2):
        axis = data.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        widths = [(0, 0)] * data.ndim
        widths[axis] = (max(before, 0), max(after, 0))
        out = np.pad(out, widths, constant_values=value)
        stop = out.shape[axis] - max(-after, 0)
        index = [slice(None)] * data.ndim
        index[axis] = slice(max(-before, 0), stop)
        out = out[tuple(index)]
    return same_dtype(data, out)


@kernel("aten.repeat")
def repeat(data: np.ndarray, *, repeats: Sequence[int]) -> np.ndarray:
    """np.tile."""
    return np.tile(data, list(repeats))


@kernel("aten.repeat_interleave")
def repeat_interleave(data: np.ndarray, *, repeats: int, dim: Optional[int]) -> np.ndarray:
    """Each element repeated along dim (of the flattened tensor without one)."""
    return np.repeat(data.reshape(-1) if dim is None else data, repeats, axis=0 if dim is None else dim)


@kernel("aten.diagonal")
def diagonal(data: np.ndarray, *, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """The diagonal of the (dim1, dim2) planes, appended last (as NumPy does). An offset past
    the plane's edge gives an empty diagonal: it is clamped to the edge (NumPy takes a C int)."""
    offset = max(-data.shape[dim1], min(offset, data.shape[dim2]))
    return np.array(np.diagonal(data, offset, dim1, dim2))


@kernel("aten.repeat_interleave_by")
def repeat_interleave_by(data: np.ndarray, repeats: np.ndarray, *, dim: Optional[int]) -> np.ndarray:
    """Element i repeated repeats[i] times along dim (of the flattened tensor without one)."""
    return np.repeat(
        data.reshape(-1) if dim is None else data,
        repeats.reshape(-1) if repeats.ndim else int(repeats),
        axis=0 if dim is None else dim,
    )


@kernel("aten.diff")
def diff(data: np.ndarray, prepend: Any, append: Any, *, n: int, dim: int) -> np.ndarray:
    """n-th differences along dim (n = 0: x itself, without prepend or append, as torch gives)."""
    if n == 0:
        return data.copy()
    parts = [p for p in (prepend, data, append) if isinstance(p, np.ndarray)]
    whole = np.concatenate(parts, axis=dim)
    # past the length nothing is left (torch clamps n); np.diff would loop n times
    return np.diff(whole, n=min(n, whole.shape[dim]), axis=dim).astype(data.dtype)


@kernel("aten.broadcast_tensors")
def broadcast_tensors(tensors: tuple) -> tuple:
    """Each tensor broadcast to the common shape."""
    return tuple(np.array(t) for t in np.broadcast_arrays(*tensors))


@kernel("aten.meshgrid")
def meshgrid(tensors: tuple, *, indexing: str) -> tuple:
    """Grids of the vectors."""
    return tuple(
        np.array(g) for g in np.meshgrid(*[t.reshape(-1) for t in tensors], indexing="xy" if indexing == "xy" else "ij")
    )


@kernel("aten.pad")
def pad(data: np.ndarray, *, pad: Sequence[int], mode: str, value: float) -> np.ndarray:
    """Reflected, replicated or wrapped edges ([before, after] from the last dim back)."""
    widths: list[tuple[int, int]] = [(0, 0)] * data.ndim
    for i in range(len(pad) // 2):
        widths[data.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode == "constant":
        return constant_pad_nd(data, pad=pad, value=value)
    edge: Any = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    return np.pad(data, widths, mode=edge)


@kernel("aten.pad_sized")
def pad_sized(data: np.ndarray, pad_sizes: tuple, *, mode: str, value: float) -> np.ndarray:
    """aten.pad of a SymInt list."""
    return pad(data, pad=_ints(pad_sizes), mode=mode, value=value)


@kernel("aten.repeat_sized")
def repeat_sized(data: np.ndarray, repeats: tuple) -> np.ndarray:
    """aten.repeat of a SymInt list."""
    return np.tile(data, _ints(repeats))


@kernel("aten.pixel_shuffle")
def pixel_shuffle(data: np.ndarray, *, upscale_factor: int) -> np.ndarray:
    """(*, c * r * r, h, w) -> (*, c, h * r, w * r)."""
    r = upscale_factor
    *lead, c, h, w = data.shape
    x = data.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    x = x.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


@kernel("aten.pixel_unshuffle")
def pixel_unshuffle(data: np.ndarray, *, downscale_factor: int) -> np.ndarray:
    """(*, c, h * r, w * r) -> (*, c * r * r, h, w)."""
    r = downscale_factor
    *lead, c, h, w = data.shape
    x = data.reshape(*lead, c, h // r, r, w // r, r)
    k = len(lead)
    x = x.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


# creation and sizes --------------------------------------------------------------------------------
@kernel("aten.zeros", "aten.empty")
def zeros(size: tuple, *, dtype: str) -> np.ndarray:
    """Zeros (empty memory is zeroed here)."""
    return np.zeros(_ints(size), dtype=dtype)


@kernel("aten.ones")
def ones(size: tuple, *, dtype: str) -> np.ndarray:
    """Ones."""
    return np.ones(_ints(size), dtype=dtype)


@kernel("aten.full")
def full(size: tuple, *, fill_value: float, dtype: str) -> np.ndarray:
    """A constant."""
    return np.full(_ints(size), fill_value, dtype=dtype)


@kernel("aten.linspace")
def linspace(start: np.ndarray, end: np.ndarray, steps: np.ndarray, *, dtype: str) -> np.ndarray:
    """Evenly spaced values (as torch: from both ends toward the middle)."""
    count = int(np.asarray(steps).reshape(-1)[0])
    a, b = float(np.asarray(start).reshape(-1)[0]), float(np.asarray(end).reshape(-1)[0])
    step = (b - a) / (count - 1) if count > 1 else 0.0
    index = np.arange(count)
    values = np.where(index < count // 2, a + step * index, b - step * (count - 1 - index))
    return values.astype(dtype)


@kernel("aten.eye")
def eye(n: np.ndarray, m: Any, *, dtype: str) -> np.ndarray:
    """The identity matrix."""
    rows = int(np.asarray(n).reshape(-1)[0])
    return np.eye(rows, rows if isinstance(m, tuple) else int(np.asarray(m).reshape(-1)[0]), dtype=dtype)


@kernel("aten.one_hot")
def one_hot(data: np.ndarray, *, num_classes: int) -> np.ndarray:
    """A 1 at each index of a new last dim."""
    classes = num_classes if num_classes >= 0 else int(data.max()) + 1 if data.size else 0
    return (data[..., None] == np.arange(classes)).astype(np.int64)


@kernel("aten.sym_size")
def sym_size(data: np.ndarray, *, dim: int) -> np.ndarray:
    """A dim's size as an int64 scalar."""
    return np.asarray(data.shape[dim], dtype=np.int64)


@kernel("aten.sym_numel")
def sym_numel(data: np.ndarray) -> np.ndarray:
    """The element count as an int64 scalar."""
    return np.asarray(data.size, dtype=np.int64)


@kernel("aten.item")
def item(data: np.ndarray) -> np.ndarray:
    """The one element, as a scalar."""
    return np.asarray(data.reshape(-1)[0], dtype=data.dtype)


# writes ------------------------------------------------------------------------------------------
@kernel("aten.copy")
def copy(data: np.ndarray, src: np.ndarray) -> np.ndarray:
    """src broadcast to self's shape, in self's dtype."""
    return np.broadcast_to(src, data.shape).astype(data.dtype)


@kernel("aten.fill")
def fill(data: np.ndarray, value: np.ndarray) -> np.ndarray:
    """self's shape filled with the value."""
    return np.full(data.shape, np.asarray(value).reshape(-1)[0], data.dtype)


@kernel("aten.zero")
def zero(data: np.ndarray) -> np.ndarray:
    """Zeros of self's shape."""
    return np.zeros_like(data)


@kernel("aten.view_as")
def view_as(data: np.ndarray, other: np.ndarray) -> np.ndarray:
    """self reshaped to other's shape."""
    return data.reshape(other.shape).copy()


@kernel("aten.slice_scatter")
def slice_scatter(data: np.ndarray, src: np.ndarray, start: Any, end: Any, *, dim: int, step: int) -> np.ndarray:
    """self with a slice along dim replaced."""
    out = data.copy()
    index = [slice(None)] * data.ndim
    index[dim] = slice(_optional(start), _optional(end), step)
    out[tuple(index)] = src
    return out


@kernel("aten.select_scatter")
def select_scatter(data: np.ndarray, src: np.ndarray, index: np.ndarray, *, dim: int) -> np.ndarray:
    """self with one index along dim replaced."""
    out = data.copy()
    where: list[Any] = [slice(None)] * data.ndim
    where[dim] = int(np.asarray(index).reshape(-1)[0])
    out[tuple(where)] = src
    return out


@kernel("aten.unflatten")
def unflatten(data: np.ndarray, sizes: tuple, *, dim: int) -> np.ndarray:
    """dim split into sizes (-1 inferred)."""
    axis = dim % data.ndim
    split = list(_ints(sizes))
    if -1 in split:  # inferred from the dim itself: NumPy's -1 of an empty tensor has nothing to divide
        known = int(np.prod([s for s in split if s != -1]))
        split[split.index(-1)] = data.shape[axis] // known if known else 0
    return data.reshape(data.shape[:axis] + tuple(split) + data.shape[axis + 1 :]).copy()


@kernel("aten.topk")
def topk(data: np.ndarray, *, k: int, dim: int, largest: bool, sorted: bool) -> tuple:  # ATen's name
    """The k largest (smallest) entries along dim, in order, and their indices."""
    if data.ndim == 0:
        return data.copy(), np.zeros((), np.int64)
    order = KERNELS["argsort"](data, axis=dim, is_ascend=not largest, dtype="int64")
    order = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(data, order, axis=dim), order


# resampling ---------------------------------------------------------------------------------------
_COORDINATES = {
    "nearest": ("nearest", "asymmetric", "floor"),
    "nearest-exact": ("nearest", "half_pixel", "round_prefer_ceil"),
    "linear": ("linear", "pytorch_half_pixel", "floor"),
    "cubic": ("cubic", "half_pixel", "floor"),
}


@kernel("aten.upsample")
def upsample(
    data: np.ndarray,
    output_size: Any,
    *,
    scales: Optional[Sequence[float]],
    mode: str,
    align_corners: bool,
    antialias: bool,
) -> np.ndarray:
    """torch's interpolate through ONNX's Resize (the same coordinate mappings)."""
    sizes = _ints(output_size) if isinstance(output_size, tuple) else []
    k = len(sizes) or len(scales or [])
    axes = list(range(data.ndim - k, data.ndim))
    resize_mode, coordinates, nearest = _COORDINATES[mode]
    if align_corners and mode in ("linear", "cubic"):
        coordinates = "align_corners"
    static = [float(s) for s in scales] if scales and not sizes and not align_corners else None
    if static is None and not sizes:
        sizes = [int(data.shape[a] * float(s)) for a, s in zip(axes, scales or [])]
    if antialias and mode in ("linear", "cubic"):
        outs = sizes or [int(data.shape[a] * s) for a, s in zip(axes, static or [])]
        return _antialiased(data, axes, outs, list(scales) if scales else None, mode, align_corners)
    empty = np.zeros((0,), np.float32)
    return KERNELS["onnx.resize"](
        data,
        empty,
        empty,
        np.asarray(sizes if static is None else [], np.int64),
        static_scales=static,
        axes=axes,
        mode=resize_mode,
        coordinate_transformation_mode=coordinates,
        nearest_mode=nearest,
        cubic_coeff_a=-0.75,
        exclude_outside=False,
        extrapolation_value=0.0,
        keep_aspect_ratio_policy="stretch",
        antialias=antialias,
    )


def _antialiased(
    data: np.ndarray, axes: list, outs: list, scales: Optional[list], mode: str, align_corners: bool
) -> np.ndarray:
    """torch's antialiased bilinear or bicubic interpolation (`_upsample_*_aa`), one axis at a
    time: each output averages the inputs under its filter stretched by the downscale factor,
    weights normalized (a triangle, or Keys' cubic with a = -0.5). ONNX Resize's antialias
    samples its filter elsewhere: the values differed by up to 0.2."""
    x = data.astype(np.float64)
    for i, axis in enumerate(axes):
        given = float(scales[i]) if scales and scales[i] is not None else None
        x = _antialiased_axis(x, axis, outs[i], given, mode, align_corners)
    return x.astype(data.dtype)


def _antialiased_axis(
    x: np.ndarray, axis: int, out: int, given: Optional[float], mode: str, align_corners: bool
) -> np.ndarray:
    size = x.shape[axis]
    if align_corners:
        scale = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        scale = 1.0 / given if given and given > 0 else size / max(out, 1)
    taps = 2 if mode == "linear" else 4
    support = taps * 0.5 * scale if scale >= 1.0 else taps * 0.5
    inverse = 1.0 / scale if scale >= 1.0 else 1.0
    weights = np.zeros((out, size))
    for o in range(out):
        center = scale * (o + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), size)
        taps_at = (np.arange(lo, hi) - center + 0.5) * inverse
        w = (
            np.maximum(0.0, 1.0 - np.abs(taps_at))
            if mode == "linear"
            else np.array([keys_cubic(t, -0.5) for t in taps_at])
        )
        total = w.sum()
        weights[o, lo:hi] = w / total if total else w
    return np.moveaxis(np.tensordot(weights, np.moveaxis(x, axis, 0), axes=(1, 0)), 0, axis)


@kernel("aten.expand_as")
def expand_as(data: np.ndarray, other: np.ndarray) -> np.ndarray:
    """x broadcast to other's shape."""
    return np.broadcast_to(data, other.shape).copy()


@kernel("aten.as_strided")
def as_strided(data: np.ndarray, size: tuple, *, stride: Sequence[int], storage_offset: int) -> np.ndarray:
    """The elements of (contiguous) x at the strided positions."""
    shape = _ints(size)
    flat = data.reshape(-1)
    where = np.full(shape, storage_offset, np.int64)
    for axis, (n, s) in enumerate(zip(shape, stride)):
        where = where + (np.arange(n) * s).reshape([-1 if a == axis else 1 for a in range(len(shape))])
    return flat[where]


@kernel("aten.as_strided_scatter")
def as_strided_scatter(
    data: np.ndarray, src: np.ndarray, size: tuple, *, stride: Sequence[int], storage_offset: int
) -> np.ndarray:
    """(Contiguous) x with the strided positions written by src, in order."""
    shape = _ints(size)
    out = data.copy()
    flat = out.reshape(-1)
    where = np.full(shape, storage_offset, np.int64)
    for axis, (n, s) in enumerate(zip(shape, stride)):
        where = where + (np.arange(n) * s).reshape([-1 if a == axis else 1 for a in range(len(shape))])
    flat[where.reshape(-1)] = np.broadcast_to(src, where.shape).reshape(-1)
    return flat.reshape(data.shape)


@kernel("aten.unfold")
def unfold(data: np.ndarray, *, dimension: int, size: int, step: int) -> np.ndarray:
    """Windows along dimension, in a new last dim."""
    if data.ndim == 0:  # a scalar is a line of one element: one window of size 1, or none of 0
        return data.reshape(1)[:size].copy()
    axis = dimension % data.ndim
    windows = np.lib.stride_tricks.sliding_window_view(data, size, axis=axis)
    index = [slice(None)] * data.ndim
    index[axis] = slice(None, None, step)
    return windows[tuple(index)].copy()


@kernel("aten.bincount")
def bincount(data: np.ndarray, weights: Any, *, minlength: int) -> np.ndarray:
    """The count (or summed weight) of each value 0..max(data), at least minlength of them."""
    if not isinstance(weights, np.ndarray):
        return np.bincount(data.astype(np.int64), minlength=minlength).astype(np.int64)
    dtype = weights.dtype if weights.dtype in (np.float32, np.float64) else np.float64
    return np.bincount(data.astype(np.int64), weights=weights.astype(np.float64), minlength=minlength).astype(dtype)


@kernel("aten._unique2")
def unique2(data: np.ndarray, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False) -> tuple:
    """(distinct values ascending, each element's position among them (or (0,)), their counts
    (or (0,))), as torch's CPU kernel gives them whether or not `sorted` is asked."""
    values, inverse, counts = np.unique(data.reshape(-1), return_inverse=True, return_counts=True)
    empty = np.zeros((0,), np.int64)
    return (
        values.astype(data.dtype),
        inverse.reshape(data.shape).astype(np.int64) if return_inverse else empty,
        counts.astype(np.int64) if return_counts else empty,
    )


@kernel("aten.unique_dim")
def unique_dim(
    data: np.ndarray, *, dim: int, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False
) -> tuple:
    """(the distinct slices along dim, ascending as sequences; each slice's position among
    them; their counts), all three whatever the flags say, as torch gives them."""
    axis = dim % data.ndim
    moved = np.moveaxis(data, axis, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    if rows.shape[0] == 0:
        empty = np.zeros((0,), np.int64)
        return data.copy(), empty, empty
    values, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    values = np.moveaxis(values.reshape((values.shape[0],) + moved.shape[1:]), 0, axis)
    return values.astype(data.dtype), inverse.reshape(-1).astype(np.int64), counts.astype(np.int64)


@kernel("aten.unique_consecutive")
def unique_consecutive(
    data: np.ndarray, *, return_inverse: bool = False, return_counts: bool = False, dim: Optional[int] = None
) -> tuple:
    """(each run's value (slice along dim), each element's (slice's) run, each run's length);
    without dim (or dim 0, not -1, of a vector, as torch reads it) the inverse and counts not
    asked for are (0,)."""
    axis = None if dim is None or (dim == 0 and data.ndim == 1) else dim % data.ndim
    moved = data.reshape(data.size, 1) if axis is None else np.moveaxis(data, axis, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    if rows.shape[0] == 0:
        starts = np.zeros((0,), np.int64)
    else:
        changed = np.any(rows[1:] != rows[:-1], axis=1) if rows.shape[1] else np.zeros(rows.shape[0] - 1, bool)
        starts = np.concatenate([[0], np.flatnonzero(changed) + 1]).astype(np.int64)
    counts = np.diff(np.append(starts, rows.shape[0])).astype(np.int64)
    inverse = (np.cumsum(np.isin(np.arange(rows.shape[0]), starts)) - 1).astype(np.int64)
    taken = moved[starts]
    empty = np.zeros((0,), np.int64)
    if axis is None:
        return (
            taken.reshape(-1).astype(data.dtype),
            inverse.reshape(data.shape) if return_inverse else empty,
            counts if return_counts else empty,
        )
    return np.moveaxis(taken, 0, axis).astype(data.dtype), inverse, counts


@kernel("aten.masked_select")
def masked_select(data: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The elements of data where mask holds, the two broadcast together, in row-major order."""
    data, mask = np.broadcast_arrays(data, mask)
    return data[mask]


@kernel("aten.masked_scatter")
def masked_scatter(data: np.ndarray, mask: np.ndarray, source: np.ndarray) -> np.ndarray:
    """data (broadcast with mask) with its masked elements replaced, in row-major order, by the
    first elements of source."""
    data, mask = np.broadcast_arrays(data, mask)
    count = int(np.count_nonzero(mask))
    flat = source.reshape(-1)
    if flat.size < count:
        raise ValueError(f"masked_scatter: source holds {flat.size} elements, the mask selects {count}")
    out = data.copy()
    out[mask] = flat[:count]
    return out
