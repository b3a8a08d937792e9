"""Kernels of Relay's quantized operators: real = scale * (q - zero_point). Products accumulate
(q - zero_point) terms in out_dtype (int32); arithmetic and unary functions dequantize, compute
in floating point and quantize to the output's scale and zero point, rounding to nearest and
clipping to the output dtype's range."""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from gradual.runtime.kernels.conv import convolve, convolve_transposed
from gradual.runtime.kernels.nn import batch_matmul, dense
from gradual.runtime.kernels.registration import kernel

_erf = np.frompyfunc(math.erf, 1, 1)


def _along(param: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """A scale or zero point shaped to broadcast along `axis` (a scalar as it is)."""
    param = np.asarray(param)
    if param.size == 1 or ndim == 0:
        return param.reshape(())
    shape = [1] * ndim
    shape[axis % ndim] = -1
    return param.reshape(shape)


def dequantized(q: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, axis: int = -1) -> np.ndarray:
    """The real values of a quantized tensor (float64)."""
    return (q.astype(np.float64) - _along(zero_point, axis, q.ndim)) * _along(scale, axis, q.ndim)


def quantized(real: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, dtype: str, axis: int = -1) -> np.ndarray:
    """Real values quantized to `dtype` (rounded to nearest, clipped to the dtype's range)."""
    q = np.round(real / _along(scale, axis, real.ndim)) + _along(zero_point, axis, real.ndim)
    info = np.iinfo(dtype)
    return np.clip(q, info.min, info.max).astype(dtype)


def _shifted(q: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """q - zero_point in int32 (a per-tensor zero point)."""
    if np.asarray(zero_point).size != 1:
        raise ValueError("per-channel zero points of a product are not supported")
    return q.astype(np.int32) - np.int32(np.asarray(zero_point).reshape(-1)[0])


@kernel("qnn.quantize")
def quantize(
    data: np.ndarray, output_scale: np.ndarray, output_zero_point: np.ndarray, *, axis: int, out_dtype: str
) -> np.ndarray:
    """round(x / scale) + zero_point."""
    return quantized(data.astype(np.float64), output_scale, output_zero_point, out_dtype, axis)


@kernel("qnn.dequantize")
def dequantize(
    data: np.ndarray, input_scale: np.ndarray, input_zero_point: np.ndarray, *, axis: int, out_dtype: str
) -> np.ndarray:
    """scale * (q - zero_point)."""
    return dequantized(data, input_scale, input_zero_point, axis).astype(out_dtype)


@kernel("qnn.requantize")
def requantize(
    data: np.ndarray,
    input_scale: np.ndarray,
    input_zero_point: np.ndarray,
    output_scale: np.ndarray,
    output_zero_point: np.ndarray,
    *,
    axis: int,
    out_dtype: str,
) -> np.ndarray:
    """From one scale and zero point to another."""
    return quantized(
        dequantized(data, input_scale, input_zero_point, axis), output_scale, output_zero_point, out_dtype, axis
    )


@kernel("qnn.conv2d")
def conv2d(
    data: np.ndarray,
    weight: np.ndarray,
    input_zero_point: np.ndarray,
    kernel_zero_point: np.ndarray,
    input_scale: np.ndarray,
    kernel_scale: np.ndarray,
    *,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    data_layout: str,
    kernel_layout: str,
    out_layout: str = "",
    out_dtype: str = "",
) -> np.ndarray:
    """nn.conv2d of (data - zero point) by (weight - zero point), accumulated in out_dtype."""
    return convolve(
        _shifted(data, input_zero_point),
        _shifted(weight, kernel_zero_point),
        "HW",
        strides,
        padding,
        dilation,
        groups,
        data_layout,
        kernel_layout,
        out_layout,
        out_dtype or data.dtype.name,
    )


@kernel("qnn.conv2d_transpose")
def conv2d_transpose(
    data: np.ndarray,
    weight: np.ndarray,
    input_zero_point: np.ndarray,
    kernel_zero_point: np.ndarray,
    input_scale: np.ndarray,
    kernel_scale: np.ndarray,
    *,
    strides: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    data_layout: str,
    kernel_layout: str,
    out_layout: str = "",
    out_dtype: str = "",
) -> np.ndarray:
    """nn.conv2d_transpose of the zero-point-shifted operands."""
    return convolve_transposed(
        _shifted(data, input_zero_point),
        _shifted(weight, kernel_zero_point),
        "HW",
        strides,
        padding,
        output_padding,
        dilation,
        groups,
        data_layout,
        kernel_layout,
        out_layout,
        out_dtype or data.dtype.name,
    )


@kernel("qnn.dense")
def qnn_dense(
    data: np.ndarray,
    weight: np.ndarray,
    input_zero_point: np.ndarray,
    kernel_zero_point: np.ndarray,
    input_scale: np.ndarray,
    kernel_scale: np.ndarray,
    *,
    out_dtype: str = "",
) -> np.ndarray:
    """nn.dense of the zero-point-shifted operands."""
    return dense(
        _shifted(data, input_zero_point), _shifted(weight, kernel_zero_point), out_dtype=out_dtype or data.dtype.name
    )


@kernel("qnn.batch_matmul")
def qnn_batch_matmul(
    x: np.ndarray,
    y: np.ndarray,
    x_zero_point: np.ndarray,
    y_zero_point: np.ndarray,
    x_scale: np.ndarray,
    y_scale: np.ndarray,
    *,
    transpose_a: bool,
    transpose_b: bool,
    out_dtype: str = "",
) -> np.ndarray:
    """nn.batch_matmul of the zero-point-shifted operands."""
    return batch_matmul(
        _shifted(x, x_zero_point),
        _shifted(y, y_zero_point),
        transpose_a=transpose_a,
        transpose_b=transpose_b,
        out_dtype=out_dtype or x.dtype.name,
    )


def _binary(name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
    @kernel(name)
    def run(
        lhs: np.ndarray,
        rhs: np.ndarray,
        lhs_scale: np.ndarray,
        lhs_zero_point: np.ndarray,
        rhs_scale: np.ndarray,
        rhs_zero_point: np.ndarray,
        output_scale: np.ndarray,
        output_zero_point: np.ndarray,
        *,
        lhs_axis: int,
        rhs_axis: int,
    ) -> np.ndarray:
        real = fn(
            dequantized(lhs, lhs_scale, lhs_zero_point, lhs_axis), dequantized(rhs, rhs_scale, rhs_zero_point, rhs_axis)
        )
        return quantized(real, output_scale, output_zero_point, lhs.dtype.name)

    run.__doc__ = f"`{name}` on real values, requantized."


_binary("qnn.add", np.add)
_binary("qnn.subtract", np.subtract)
_binary("qnn.mul", np.multiply)


def _unary(name: str, fn: Callable[[np.ndarray], np.ndarray]) -> None:
    @kernel(name)
    def run(
        x: np.ndarray,
        scale: np.ndarray,
        zero_point: np.ndarray,
        output_scale: np.ndarray,
        output_zero_point: np.ndarray,
    ) -> np.ndarray:
        with np.errstate(all="ignore"):
            real = np.nan_to_num(np.asarray(fn(dequantized(x, scale, zero_point)), dtype=np.float64))
        return quantized(real, output_scale, output_zero_point, x.dtype.name)

    run.__doc__ = f"`{name}` on real values, requantized."


#: the unary operators qnn computes on dequantized values, by name
UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "qnn.sqrt": np.sqrt,
    "qnn.rsqrt": lambda x: 1 / np.sqrt(x),
    "qnn.exp": np.exp,
    "qnn.erf": lambda x: np.asarray(_erf(x), dtype=np.float64),
    "qnn.sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "qnn.tanh": np.tanh,
    "qnn.log": np.log,
    "qnn.abs": np.abs,
    "qnn.hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
}
for _name, _fn in UNARY.items():
    _unary(_name, _fn)


@kernel("qnn.concatenate")
def concatenate(
    data: tuple,
    input_scales: tuple,
    input_zero_points: tuple,
    output_scale: np.ndarray,
    output_zero_point: np.ndarray,
    *,
    axis: int,
) -> np.ndarray:
    """Each input requantized to the output's scale and zero point, then concatenated."""
    dtype = data[0].dtype.name
    parts = [
        quantized(dequantized(q, s, z), output_scale, output_zero_point, dtype)
        for q, s, z in zip(data, input_scales, input_zero_points)
    ]
    return np.concatenate(parts, axis=axis)
