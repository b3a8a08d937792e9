"""Neural-network kernels in Relay's conventions: dense is `x W^T`, matmul with transpose flags,
batch_matmul with `transpose_b=True` by default, conv2d NCHW/NHWC with OIHW-style kernel layouts,
padding of 1, 2 or 4 values (top, left, bottom, right), strides, dilation and groups, pooling
with `ceil_mode` and `count_include_pad`."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from . import kernel
from .elementwise import same_dtype


# dense and matmul --------------------------------------------------------------------------
@kernel("nn.dense")
def dense(data: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """`(..., k) x (units, k) -> (..., units)`: `x W^T`."""
    return same_dtype(data, np.matmul(data, weight.T))


@kernel("nn.matmul")
def matmul(tensor_a: np.ndarray, tensor_b: np.ndarray, *, transpose_a: bool, transpose_b: bool) -> np.ndarray:
    """`(..., n, k) x (k, m) -> (..., n, m)`; the flags transpose the last two dims first."""
    a = np.swapaxes(tensor_a, -1, -2) if transpose_a else tensor_a
    b = tensor_b.T if transpose_b else tensor_b
    return same_dtype(tensor_a, np.matmul(a, b))


@kernel("nn.batch_matmul")
def batch_matmul(tensor_a: np.ndarray, tensor_b: np.ndarray, *, transpose_a: bool, transpose_b: bool) -> np.ndarray:
    """`(b, n, k) x (b, m, k) -> (b, n, m)` by default (`transpose_b=True`); batch 1 broadcasts."""
    a = np.swapaxes(tensor_a, -1, -2) if transpose_a else tensor_a
    b = np.swapaxes(tensor_b, -1, -2) if transpose_b else tensor_b
    return same_dtype(tensor_a, np.matmul(a, b))


@kernel("nn.bias_add")
def bias_add(data: np.ndarray, bias: np.ndarray, *, axis: int) -> np.ndarray:
    """Add a vector along dim `axis`."""
    shape = [1] * data.ndim
    shape[axis] = -1
    return same_dtype(data, data + bias.reshape(shape))


@kernel("nn.batch_flatten")
def batch_flatten(data: np.ndarray) -> np.ndarray:
    """`(n, ...) -> (n, product of the rest)`."""
    rest = int(np.prod(data.shape[1:], dtype=np.int64))
    return data.reshape(data.shape[0], rest)


# softmax ----------------------------------------------------------------------------------
@kernel("nn.softmax")
def softmax(data: np.ndarray, *, axis: int) -> np.ndarray:
    """`exp(x) / sum(exp(x))` along `axis`."""
    shifted = data - np.max(data, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return same_dtype(data, e / np.sum(e, axis=axis, keepdims=True))


@kernel("nn.log_softmax")
def log_softmax(data: np.ndarray, *, axis: int) -> np.ndarray:
    """`x - log(sum(exp(x)))` along `axis`."""
    shifted = data - np.max(data, axis=axis, keepdims=True)
    return same_dtype(data, shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True)))


# layouts and attributes ---------------------------------------------------------------------
def pair(values: Sequence[int]) -> tuple:
    """(h, w) from 1 or 2 values."""
    values = tuple(values)
    if len(values) == 1:
        return values[0], values[0]
    if len(values) == 2:
        return values
    raise ValueError(f"expected 1 or 2 values, got {len(values)}")


def padding4(values: Sequence[int]) -> tuple:
    """(top, left, bottom, right) from 1, 2 or 4 values, as Relay."""
    values = tuple(values)
    if len(values) == 1:
        return values * 4
    if len(values) == 2:
        return values + values
    if len(values) == 4:
        return values
    raise ValueError(f"padding takes 1, 2 or 4 values, got {len(values)}")


def to_nchw(data: np.ndarray, layout: str) -> np.ndarray:
    """Data in NCHW from NCHW or NHWC."""
    if layout == "NCHW":
        return data
    if layout == "NHWC":
        return data.transpose(0, 3, 1, 2)
    raise ValueError(f"unsupported layout {layout}")


def from_nchw(data: np.ndarray, layout: str) -> np.ndarray:
    """Data from NCHW back to `layout`."""
    return data if layout == "NCHW" else np.ascontiguousarray(data.transpose(0, 2, 3, 1))


def kernel_to(weight: np.ndarray, layout: str, target: str) -> np.ndarray:
    """A weight in `layout` (a permutation of the letters of `target`) rearranged to `target`."""
    if sorted(layout) != sorted(target):
        raise ValueError(f"unsupported kernel layout {layout}")
    return weight.transpose([layout.index(c) for c in target])


def _strided(x: np.ndarray, i: int, j: int, dh: int, dw: int, oh: int, ow: int, sh: int, sw: int) -> np.ndarray:
    """The (oh, ow) grid of elements at offset (i * dh, j * dw) with strides (sh, sw)."""
    return x[:, :, i * dh: i * dh + (oh - 1) * sh + 1: sh, j * dw: j * dw + (ow - 1) * sw + 1: sw]


# convolution --------------------------------------------------------------------------------
@kernel("nn.conv2d")
def conv2d(data: np.ndarray, weight: np.ndarray, *, strides: Sequence[int], padding: Sequence[int],
           dilation: Sequence[int], groups: int, data_layout: str, kernel_layout: str) -> np.ndarray:
    """2-D convolution (cross-correlation, as Relay) with groups."""
    x = to_nchw(data, data_layout)
    w = kernel_to(weight, kernel_layout, "OIHW")
    top, left, bottom, right = padding4(padding)
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    (sh, sw), (dh, dw) = pair(strides), pair(dilation)
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    if groups <= 0 or c % groups or o % groups:
        raise ValueError(f"channels ({c} in, {o} out) are not divisible by groups={groups}")
    oh, ow = (h - (kh - 1) * dh - 1) // sh + 1, (wd - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, o, max(oh, 0), max(ow, 0)), dtype=np.result_type(data, weight))
    cg, og = c // groups, o // groups
    for g in range(groups):
        xg, wg = x[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]
        for i in range(kh):
            for j in range(kw):
                patch = _strided(xg, i, j, dh, dw, oh, ow, sh, sw)
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, wg[:, :, i, j])
    return from_nchw(out, data_layout)


@kernel("nn.conv2d_transpose")
def conv2d_transpose(data: np.ndarray, weight: np.ndarray, *, strides: Sequence[int], padding: Sequence[int],
                     output_padding: Sequence[int], dilation: Sequence[int], groups: int, data_layout: str,
                     kernel_layout: str) -> np.ndarray:
    """The transpose (gradient) of conv2d: each input element scatters a scaled kernel."""
    x = to_nchw(data, data_layout)
    w = kernel_to(weight, kernel_layout, "IOHW")
    top, left, bottom, right = padding4(padding)
    (sh, sw), (dh, dw), (ph, pw) = pair(strides), pair(dilation), pair(output_padding)
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    if groups <= 0 or c % groups:
        raise ValueError(f"{c} input channels are not divisible by groups={groups}")
    full_h, full_w = (h - 1) * sh + (kh - 1) * dh + 1 + ph, (wd - 1) * sw + (kw - 1) * dw + 1 + pw
    full = np.zeros((n, og * groups, full_h, full_w), dtype=np.result_type(data, weight))
    cg = c // groups
    for g in range(groups):
        xg, wg = x[:, g * cg:(g + 1) * cg], w[g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                target = _strided(full[:, g * og:(g + 1) * og], i, j, dh, dw, h, wd, sh, sw)
                target += np.einsum("nchw,co->nohw", xg, wg[:, :, i, j])
    out_h, out_w = full_h - top - bottom, full_w - left - right
    if out_h < 0 or out_w < 0:
        raise ValueError("the padding is larger than the output")
    return from_nchw(full[:, :, top:top + out_h, left:left + out_w], data_layout)


# pooling ------------------------------------------------------------------------------------
def _pool_geometry(size: int, k: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> tuple:
    """(output size, extra padding at the end so every window fits)."""
    span = (k - 1) * dilation + 1
    padded = size + pad
    if ceil_mode:
        out = (padded - span + stride - 1) // stride + 1
    else:
        out = (padded - span) // stride + 1
    extra = max(0, (out - 1) * stride + span - padded)
    return out, extra


def _pool(data: np.ndarray, pool_size: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
          padding: Sequence[int], layout: str, ceil_mode: bool, kind: str, count_include_pad: bool = False) -> np.ndarray:
    x = to_nchw(data, layout)
    (kh, kw), (sh, sw), (dh, dw) = pair(pool_size), pair(strides), pair(dilation)
    top, left, bottom, right = padding4(padding)
    oh, extra_h = _pool_geometry(x.shape[2], kh, top + bottom, sh, dh, bool(ceil_mode))
    ow, extra_w = _pool_geometry(x.shape[3], kw, left + right, sw, dw, bool(ceil_mode))
    if oh <= 0 or ow <= 0:
        raise ValueError("the pooling window is larger than the padded input")
    pads = ((0, 0), (0, 0), (top, bottom + extra_h), (left, right + extra_w))
    if kind == "max":
        out = _max_windows(x, pads, kh, kw, dh, dw, oh, ow, sh, sw)
    else:
        out = _avg_windows(x, pads, (top, left, bottom, right), kh, kw, dh, dw, oh, ow, sh, sw, count_include_pad)
    return from_nchw(same_dtype(data, out), layout)


def _lowest(dtype: np.dtype) -> object:
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def _max_windows(x: np.ndarray, pads: tuple, kh: int, kw: int, dh: int, dw: int, oh: int, ow: int, sh: int, sw: int) -> np.ndarray:
    padded = np.pad(x, pads, constant_values=_lowest(x.dtype))
    out = None
    for i in range(kh):
        for j in range(kw):
            window = _strided(padded, i, j, dh, dw, oh, ow, sh, sw)
            out = window.copy() if out is None else np.maximum(out, window)
    return out


def _avg_windows(x: np.ndarray, pads: tuple, explicit: tuple, kh: int, kw: int, dh: int, dw: int, oh: int, ow: int,
                 sh: int, sw: int, count_include_pad: bool) -> np.ndarray:
    padded = np.pad(x.astype(np.float64), pads)
    counted = np.ones((1, 1) + x.shape[2:])
    if count_include_pad:
        top, left, bottom, right = explicit
        counted = np.pad(counted, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=1)
        counted = np.pad(counted, ((0, 0), (0, 0), (0, pads[2][1] - bottom), (0, pads[3][1] - right)))
    else:
        counted = np.pad(counted, pads)
    total = np.zeros(x.shape[:2] + (oh, ow))
    count = np.zeros((1, 1, oh, ow))
    for i in range(kh):
        for j in range(kw):
            total += _strided(padded, i, j, dh, dw, oh, ow, sh, sw)
            count += _strided(counted, i, j, dh, dw, oh, ow, sh, sw)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


@kernel("nn.max_pool2d")
def max_pool2d(data: np.ndarray, *, pool_size: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
               padding: Sequence[int], layout: str, ceil_mode: bool) -> np.ndarray:
    """The maximum of each window (padding never wins)."""
    return _pool(data, pool_size, strides, dilation, padding, layout, ceil_mode, "max")


@kernel("nn.avg_pool2d")
def avg_pool2d(data: np.ndarray, *, pool_size: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
               padding: Sequence[int], layout: str, ceil_mode: bool, count_include_pad: bool) -> np.ndarray:
    """The mean of each window; padding counts only with `count_include_pad`."""
    return _pool(data, pool_size, strides, dilation, padding, layout, ceil_mode, "avg", count_include_pad)


@kernel("nn.global_avg_pool2d")
def global_avg_pool2d(data: np.ndarray, *, layout: str) -> np.ndarray:
    """The mean over the spatial dims, kept as 1 x 1."""
    x = to_nchw(data, layout)
    return from_nchw(same_dtype(data, np.mean(x, axis=(2, 3), keepdims=True)), layout)


@kernel("nn.global_max_pool2d")
def global_max_pool2d(data: np.ndarray, *, layout: str) -> np.ndarray:
    """The maximum over the spatial dims, kept as 1 x 1."""
    x = to_nchw(data, layout)
    return from_nchw(np.max(x, axis=(2, 3), keepdims=True), layout)


@kernel("nn.adaptive_avg_pool2d")
def adaptive_avg_pool2d(data: np.ndarray, *, output_size: Optional[Sequence[int]], layout: str) -> np.ndarray:
    """Means over `output_size` bins: bin i covers [floor(i*H/oh), ceil((i+1)*H/oh))."""
    x = to_nchw(data, layout)
    h, w = x.shape[2:]
    oh, ow = pair(output_size) if output_size is not None else (h, w)
    out = np.zeros(x.shape[:2] + (oh, ow), dtype=np.float64)
    for i in range(oh):
        h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[:, :, i, j] = np.mean(x[:, :, h0:h1, w0:w1], axis=(2, 3))
    return from_nchw(same_dtype(data, out), layout)
