"""Elementwise kernels: unary maps, broadcasting binary operators, `where`, `clip`, `cast`.

Results keep the input's element type (the signatures say `T -> T`): NumPy would widen
`sqrt(int32)` to float64, Relay keeps int32.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from gradual.runtime.kernels.registration import kernel


def same_dtype(like: np.ndarray, out: Any) -> np.ndarray:
    """`out` as an array of `like`'s dtype."""
    return np.asarray(out).astype(like.dtype, copy=False)


def lowest(dtype: np.dtype) -> Any:
    """The smallest value of a dtype (the padding a max pooling never picks)."""
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    if dtype.kind == "V":  # ml_dtypes' narrow types
        import ml_dtypes

        return ml_dtypes.iinfo(dtype).min if "int" in dtype.name else -np.inf
    return np.iinfo(dtype).min


def highest(dtype: np.dtype) -> Any:
    """The largest value of a dtype (the identity of a min reduction)."""
    if dtype.kind == "f":
        return np.inf
    if dtype.kind == "b":
        return True
    if dtype.kind == "V":  # ml_dtypes' narrow types
        import ml_dtypes

        return ml_dtypes.iinfo(dtype).max if "int" in dtype.name else np.inf
    return np.iinfo(dtype).max


def _unary(name: str, fn: Callable[[np.ndarray], Any]) -> None:
    @kernel(name)
    def run(data: np.ndarray) -> np.ndarray:
        return same_dtype(data, fn(data))

    run.__name__ = name.replace(".", "_")
    run.__doc__ = f"`{name}(x)` elementwise."


_erf = np.frompyfunc(math.erf, 1, 1)

_unary("nn.relu", lambda x: np.maximum(x, np.zeros((), x.dtype)))
_unary("negative", np.negative)
_unary("abs", np.abs)
_unary("exp", np.exp)
_unary("log", np.log)
_unary("sqrt", np.sqrt)
_unary("rsqrt", lambda x: 1 / np.sqrt(x))
_unary("tanh", np.tanh)
_unary("sigmoid", lambda x: 1 / (1 + np.exp(-x)))
_unary("erf", lambda x: np.asarray(_erf(x), dtype=np.float64))
_unary("floor", np.floor)
_unary("ceil", np.ceil)
_unary("round", np.round)
_unary("sign", np.sign)
_unary("logical_not", np.logical_not)
_unary("copy", np.copy)
_unary("zeros_like", np.zeros_like)
for _name, _fn in (
    ("sin", np.sin),
    ("cos", np.cos),
    ("tan", np.tan),
    ("asin", np.arcsin),
    ("acos", np.arccos),
    ("atan", np.arctan),
    ("sinh", np.sinh),
    ("cosh", np.cosh),
    ("asinh", np.arcsinh),
    ("acosh", np.arccosh),
    ("atanh", np.arctanh),
    ("log2", np.log2),
    ("log10", np.log10),
    ("trunc", np.trunc),
    ("fast_exp", np.exp),
    ("fast_tanh", np.tanh),
    ("bitwise_not", np.invert),
):
    _unary(_name, _fn)
_unary("fast_erf", lambda x: np.asarray(_erf(x), dtype=np.float64))


def _predicate(name: str, fn: Callable[[np.ndarray], Any]) -> None:
    @kernel(name)
    def run(data: np.ndarray) -> np.ndarray:
        return np.asarray(fn(data), dtype=bool)

    run.__name__ = name
    run.__doc__ = f"`{name}(x)` elementwise, a bool tensor."


_predicate("isnan", np.isnan)
_predicate("isinf", np.isinf)
_predicate("isfinite", np.isfinite)
_unary("ones_like", np.ones_like)


@kernel("nn.leaky_relu")
def leaky_relu(data: np.ndarray, *, alpha: float) -> np.ndarray:
    """`x if x > 0 else alpha * x`."""
    return same_dtype(data, np.where(data > 0, data, alpha * data))


@kernel("clip")
def clip(data: np.ndarray, *, a_min: float, a_max: float) -> np.ndarray:
    """Values clamped into [a_min, a_max]."""
    return same_dtype(data, np.clip(data, a_min, a_max))


@kernel("cast")
def cast(data: np.ndarray, *, dtype: str) -> np.ndarray:
    """The same values in another element type."""
    return data.astype(dtype)


@kernel("cast_like")
def cast_like(data: np.ndarray, dtype_like: np.ndarray) -> np.ndarray:
    """The same values in the element type of `dtype_like`."""
    return data.astype(dtype_like.dtype)


def _binary(name: str, fn: Callable[[np.ndarray, np.ndarray], Any], keep: bool = True) -> None:
    @kernel(name)
    def run(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        out = np.asarray(fn(lhs, rhs))
        return same_dtype(lhs, out) if keep else out

    run.__name__ = name
    run.__doc__ = f"`{name}(a, b)` with NumPy broadcasting."


def divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Relay `divide`: true division for floats, truncation toward zero for integers."""
    if lhs.dtype.kind in "iub":
        # floor division, then one step toward zero where it rounded a negative quotient down
        # (|x| of the dtype's minimum overflows: -128 / 3 computed as -(|-128| // 3) gave 43)
        with np.errstate(divide="ignore", over="ignore"):
            quotient = np.floor_divide(lhs, rhs)
            inexact = ((lhs - quotient * rhs) != 0) & (rhs != 0)  # x / 0 stays NumPy's 0
        return np.where(inexact & ((lhs < 0) != (rhs < 0)), quotient + 1, quotient).astype(quotient.dtype)
    return np.divide(lhs, rhs)


def mod(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Relay `mod`: the remainder of truncated division (the sign of the dividend)."""
    return np.fmod(lhs, rhs)


def power(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """`lhs ** rhs`; an integer to a negative power truncates toward zero as C's `pow` cast
    back does (ONNX Runtime): 1 for 1, +-1 for -1, 0 for any other base (0 included, where
    the result is undefined)."""
    if lhs.dtype.kind in "iu" and np.asarray(rhs).dtype.kind == "i" and np.any(np.asarray(rhs) < 0):
        negative = np.asarray(rhs) < 0
        positive = np.power(lhs, np.where(negative, 0, rhs))
        odd = np.asarray(rhs) % 2 != 0
        reciprocal = np.where(lhs == 1, 1, np.where(lhs == -1, np.where(odd, -1, 1), 0))
        return np.where(negative, reciprocal, positive).astype(positive.dtype)
    return np.power(lhs, rhs)


_binary("add", np.add)
_binary("subtract", np.subtract)
_binary("multiply", np.multiply)
_binary("divide", divide)
_binary("floor_divide", np.floor_divide)
_binary("mod", mod)
_binary("power", power)
_binary("maximum", np.maximum)
_binary("minimum", np.minimum)
_binary("equal", np.equal, keep=False)
_binary("not_equal", np.not_equal, keep=False)
_binary("less", np.less, keep=False)
_binary("less_equal", np.less_equal, keep=False)
_binary("greater", np.greater, keep=False)
_binary("greater_equal", np.greater_equal, keep=False)
_binary("logical_and", np.logical_and, keep=False)
_binary("logical_or", np.logical_or, keep=False)
_binary("logical_xor", np.logical_xor, keep=False)
_binary("floor_mod", np.mod)
_binary("trunc_divide", divide)
_binary("trunc_mod", mod)
_binary("bitwise_and", np.bitwise_and)
_binary("bitwise_or", np.bitwise_or)
_binary("bitwise_xor", np.bitwise_xor)
_binary("left_shift", np.left_shift)
_binary("right_shift", np.right_shift)


@kernel("where")
def where(condition: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`x` where `condition`, else `y`, all three broadcast together."""
    return same_dtype(x, np.where(condition, x, y))


@kernel("full_like")
def full_like(data: np.ndarray, fill_value: np.ndarray) -> np.ndarray:
    """A tensor shaped like `data` (and of its dtype) filled with a scalar."""
    return np.full_like(data, fill_value)


@kernel("reinterpret")
def reinterpret(data: np.ndarray, *, dtype: str) -> np.ndarray:
    """The same bits read as another dtype of the same width."""
    return np.asarray(data).view(dtype)


@kernel("fixed_point_multiply")
def fixed_point_multiply(data: np.ndarray, *, multiplier: int, shift: int) -> np.ndarray:
    """round(x * multiplier / 2^31 * 2^shift), in int32. The shift is clamped where the result
    no longer changes (|x * multiplier| < 2^62: a right shift of 63 rounds it to 0; a left
    shift of 31 saturates every nonzero value), so a shift of 2^31 costs no more than one of 1
    (it built a 2^31-bit integer)."""
    total = data.astype(np.int64) * multiplier
    right = min(31 - shift, 63)
    if right > 0:
        out = (total + (1 << (right - 1))) >> right
    else:
        out = np.clip(total, -(2**31) - 1, 2**31 + 1) << min(-right, 31)
    return np.clip(out, -(2**31), 2**31 - 1).astype(np.int32)


@kernel(
    "annotation.checkpoint",
    "annotation.stop_fusion",
    "annotation.compiler_begin",
    "annotation.compiler_end",
    "on_device",
)
def annotation(data: np.ndarray) -> np.ndarray:
    """The value itself."""
    return data
