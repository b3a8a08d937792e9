"""Neural-network kernels in Relay's conventions: dense is `x W^T`, matmul with transpose flags,
batch_matmul (`transpose_b` False unless given, as in Relay's text format), conv2d NCHW/NHWC with OIHW-style kernel layouts,
padding of 1, 2 or 4 values (top, left, bottom, right), strides, dilation and groups, pooling
with `ceil_mode` and `count_include_pad`."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from . import kernel
from .elementwise import lowest, same_dtype


def in_dtype(out: np.ndarray, like: np.ndarray, out_dtype: str = "") -> np.ndarray:
    """A result in `out_dtype` when given (accumulating in it, as Relay), else in `like`'s."""
    return np.asarray(out).astype(out_dtype or like.dtype, copy=False)


def accumulate(x: np.ndarray, out_dtype: str) -> np.ndarray:
    """An operand widened to `out_dtype` before a product, so int8 x int8 -> int32 is exact."""
    return x.astype(out_dtype) if out_dtype else x


# dense and matmul --------------------------------------------------------------------------
@kernel("nn.dense")
def dense(data: np.ndarray, weight: np.ndarray, *, out_dtype: str = "") -> np.ndarray:
    """`(..., k) x (units, k) -> (..., units)`: `x W^T`."""
    return in_dtype(np.matmul(accumulate(data, out_dtype), accumulate(weight, out_dtype).T), data, out_dtype)


@kernel("nn.matmul")
def matmul(tensor_a: np.ndarray, tensor_b: np.ndarray, *, transpose_a: bool, transpose_b: bool,
           out_dtype: str = "") -> np.ndarray:
    """`(..., n, k) x (k, m) -> (..., n, m)`; the flags transpose the last two dims first."""
    a = np.swapaxes(tensor_a, -1, -2) if transpose_a else tensor_a
    b = tensor_b.T if transpose_b else tensor_b
    return in_dtype(np.matmul(accumulate(a, out_dtype), accumulate(b, out_dtype)), tensor_a, out_dtype)


@kernel("nn.batch_matmul")
def batch_matmul(tensor_a: np.ndarray, tensor_b: np.ndarray, *, transpose_a: bool, transpose_b: bool,
                 out_dtype: str = "") -> np.ndarray:
    """`(b, n, k) x (b, m, k) -> (b, n, m)` by default (`transpose_b=True`); batch 1 broadcasts."""
    a = np.swapaxes(tensor_a, -1, -2) if transpose_a else tensor_a
    b = np.swapaxes(tensor_b, -1, -2) if transpose_b else tensor_b
    return in_dtype(np.matmul(accumulate(a, out_dtype), accumulate(b, out_dtype)), tensor_a, out_dtype)


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
    """`exp(x) / sum(exp(x))` along `axis` (an empty tensor stays empty)."""
    if data.size == 0:
        return data.copy()
    shifted = data - np.max(data, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return same_dtype(data, e / np.sum(e, axis=axis, keepdims=True))


@kernel("nn.log_softmax")
def log_softmax(data: np.ndarray, *, axis: int) -> np.ndarray:
    """`x - log(sum(exp(x)))` along `axis` (an empty tensor stays empty)."""
    if data.size == 0:
        return data.copy()
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


def relayout(x: np.ndarray, layout: str, target: str) -> np.ndarray:
    """A 4-D tensor in `layout` (a permutation of the letters of `target`) rearranged to `target`."""
    if len(layout) != len(target) or sorted(layout) != sorted(target):
        raise ValueError(f"unsupported layout {layout}")
    return x if layout == target else np.ascontiguousarray(x.transpose([layout.index(c) for c in target]))


def to_nchw(data: np.ndarray, layout: str) -> np.ndarray:
    """Data in NCHW from any data layout."""
    return relayout(data, layout, "NCHW")


def from_nchw(data: np.ndarray, layout: str) -> np.ndarray:
    """Data from NCHW to `layout`."""
    return relayout(data, "NCHW", layout)


def kernel_to(weight: np.ndarray, layout: str, target: str) -> np.ndarray:
    """A weight in `layout` (a permutation of the letters of `target`) rearranged to `target`."""
    return relayout(weight, layout, target)


def _strided(x: np.ndarray, i: int, j: int, dh: int, dw: int, oh: int, ow: int, sh: int, sw: int) -> np.ndarray:
    """The (oh, ow) grid of elements at offset (i * dh, j * dw) with strides (sh, sw)."""
    return x[:, :, i * dh: i * dh + (oh - 1) * sh + 1: sh, j * dw: j * dw + (ow - 1) * sw + 1: sw]


# convolution --------------------------------------------------------------------------------
@kernel("nn.conv2d")
def conv2d(data: np.ndarray, weight: np.ndarray, *, strides: Sequence[int], padding: Sequence[int],
           dilation: Sequence[int], groups: int, data_layout: str, kernel_layout: str, out_layout: str = "",
           out_dtype: str = "") -> np.ndarray:
    """2-D convolution (cross-correlation, as Relay) with groups."""
    x = accumulate(to_nchw(data, data_layout), out_dtype)
    weight = accumulate(weight, out_dtype)
    w = kernel_to(weight, kernel_layout, "OIHW")
    top, left, bottom, right = padding4(padding)
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    (sh, sw), (dh, dw) = pair(strides), pair(dilation)
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    if groups <= 0 or c % groups or o % groups:
        raise ValueError(f"channels ({c} in, {o} out) are not divisible by groups={groups}")
    oh, ow = (h - (kh - 1) * dh - 1) // sh + 1, (wd - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, o, max(oh, 0), max(ow, 0)), dtype=np.result_type(x, weight))
    cg, og = c // groups, o // groups
    for g in range(groups):
        xg, wg = x[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]
        for i in range(kh):
            for j in range(kw):
                patch = _strided(xg, i, j, dh, dw, oh, ow, sh, sw)
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, wg[:, :, i, j])
    return in_dtype(from_nchw(out, out_layout or data_layout), data, out_dtype)


@kernel("nn.conv2d_transpose")
def conv2d_transpose(data: np.ndarray, weight: np.ndarray, *, strides: Sequence[int], padding: Sequence[int],
                     output_padding: Sequence[int], dilation: Sequence[int], groups: int, data_layout: str,
                     kernel_layout: str, out_layout: str = "", out_dtype: str = "") -> np.ndarray:
    """The transpose (gradient) of conv2d: each input element scatters a scaled kernel."""
    x = accumulate(to_nchw(data, data_layout), out_dtype)
    w = accumulate(kernel_to(weight, kernel_layout, "IOHW"), out_dtype)
    top, left, bottom, right = padding4(padding)
    (sh, sw), (dh, dw), (ph, pw) = pair(strides), pair(dilation), pair(output_padding)
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    if groups <= 0 or c % groups:
        raise ValueError(f"{c} input channels are not divisible by groups={groups}")
    full_h, full_w = (h - 1) * sh + (kh - 1) * dh + 1 + ph, (wd - 1) * sw + (kw - 1) * dw + 1 + pw
    full = np.zeros((n, og * groups, full_h, full_w), dtype=np.result_type(x, w))
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
    return in_dtype(from_nchw(full[:, :, top:top + out_h, left:left + out_w], out_layout or data_layout), data, out_dtype)


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
          padding: Sequence[int], layout: str, out_layout: str, ceil_mode: bool, kind: str,
          count_include_pad: bool = False) -> np.ndarray:
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
    return from_nchw(same_dtype(data, out), out_layout or layout)


def _max_windows(x: np.ndarray, pads: tuple, kh: int, kw: int, dh: int, dw: int, oh: int, ow: int, sh: int, sw: int) -> np.ndarray:
    padded = np.pad(x, pads, constant_values=lowest(x.dtype))
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
               padding: Sequence[int], layout: str, ceil_mode: bool, out_layout: str = "") -> np.ndarray:
    """The maximum of each window (padding never wins)."""
    return _pool(data, pool_size, strides, dilation, padding, layout, out_layout, ceil_mode, "max")


@kernel("nn.avg_pool2d")
def avg_pool2d(data: np.ndarray, *, pool_size: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
               padding: Sequence[int], layout: str, ceil_mode: bool, count_include_pad: bool,
               out_layout: str = "") -> np.ndarray:
    """The mean of each window; padding counts only with `count_include_pad`."""
    return _pool(data, pool_size, strides, dilation, padding, layout, out_layout, ceil_mode, "avg", count_include_pad)


@kernel("nn.global_avg_pool2d")
def global_avg_pool2d(data: np.ndarray, *, layout: str, out_layout: str = "") -> np.ndarray:
    """The mean over the spatial dims, kept as 1 x 1."""
    x = to_nchw(data, layout)
    return from_nchw(same_dtype(data, np.mean(x, axis=(2, 3), keepdims=True)), out_layout or layout)


@kernel("nn.global_max_pool2d")
def global_max_pool2d(data: np.ndarray, *, layout: str, out_layout: str = "") -> np.ndarray:
    """The maximum over the spatial dims, kept as 1 x 1."""
    x = to_nchw(data, layout)
    return from_nchw(np.max(x, axis=(2, 3), keepdims=True), out_layout or layout)


def _bins(size: int, count: int) -> list:
    """Adaptive pooling bins: bin i covers [floor(i * size / count), ceil((i + 1) * size / count))."""
    return [((i * size) // count, -((-(i + 1) * size) // count)) for i in range(count)]


def _adaptive(data: np.ndarray, output_size: Optional[Sequence[int]], layout: str, out_layout: str, reduce: object) -> np.ndarray:
    x = to_nchw(data, layout)
    h, w = x.shape[2:]
    oh, ow = pair(output_size) if output_size else (h, w)
    out = np.zeros(x.shape[:2] + (oh, ow), dtype=np.float64)
    for i, (h0, h1) in enumerate(_bins(h, oh)):
        for j, (w0, w1) in enumerate(_bins(w, ow)):
            out[:, :, i, j] = reduce(x[:, :, h0:h1, w0:w1], axis=(2, 3))  # type: ignore[operator]
    return from_nchw(same_dtype(data, out), out_layout or layout)


@kernel("nn.adaptive_avg_pool2d")
def adaptive_avg_pool2d(data: np.ndarray, *, output_size: Optional[Sequence[int]], layout: str,
                        out_layout: str = "") -> np.ndarray:
    """Means over `output_size` bins per spatial dim."""
    return _adaptive(data, output_size, layout, out_layout, np.mean)


@kernel("nn.adaptive_max_pool2d")
def adaptive_max_pool2d(data: np.ndarray, *, output_size: Optional[Sequence[int]], layout: str,
                        out_layout: str = "") -> np.ndarray:
    """Maxima over `output_size` bins per spatial dim."""
    return _adaptive(data, output_size, layout, out_layout, np.max)


# normalization, dropout, padding -----------------------------------------------------------
def _along(vector: np.ndarray, axis: int, rank: int) -> np.ndarray:
    shape = [1] * rank
    shape[axis] = -1
    return vector.reshape(shape)


@kernel("nn.batch_norm")
def batch_norm(data: np.ndarray, gamma: np.ndarray, beta: np.ndarray, moving_mean: np.ndarray,
               moving_var: np.ndarray, *, axis: int, epsilon: float, center: bool, scale: bool) -> tuple:
    """Inference-mode batch norm along `axis`: (normalized data, moving mean, moving variance)."""
    rank = data.ndim
    out = (data - _along(moving_mean, axis, rank)) / np.sqrt(_along(moving_var, axis, rank) + epsilon)
    if scale:
        out = out * _along(gamma, axis, rank)
    if center:
        out = out + _along(beta, axis, rank)
    return same_dtype(data, out), moving_mean.copy(), moving_var.copy()


@kernel("nn.layer_norm")
def layer_norm(data: np.ndarray, gamma: np.ndarray, beta: np.ndarray, *, axis: int, epsilon: float,
               center: bool, scale: bool) -> np.ndarray:
    """Normalize over `axis`, then scale by gamma and shift by beta along it."""
    mean = np.mean(data, axis=axis, keepdims=True)
    var = np.var(data, axis=axis, keepdims=True)
    out = (data - mean) / np.sqrt(var + epsilon)
    if scale:
        out = out * _along(gamma, axis, data.ndim)
    if center:
        out = out + _along(beta, axis, data.ndim)
    return same_dtype(data, out)


@kernel("nn.dropout")
def dropout(data: np.ndarray) -> tuple:
    """Inference-mode dropout: the data unchanged, and a mask of ones."""
    return data.copy(), np.ones_like(data)


@kernel("nn.pad")
def pad(data: np.ndarray, pad_value: np.ndarray, *, pad_width: Sequence[Sequence[int]], pad_mode: str) -> np.ndarray:
    """Pad each dim by [before, after] (negative widths crop) with a constant, the edge values,
    or a reflection."""
    if data.ndim == 0:
        return data.copy()
    crop = tuple(slice(max(0, -b), d - max(0, -a)) for d, (b, a) in zip(data.shape, pad_width))
    widths = [(max(0, b), max(0, a)) for b, a in pad_width]
    cropped = data[crop]
    if pad_mode == "constant":
        return np.pad(cropped, widths, constant_values=np.asarray(pad_value).astype(data.dtype))
    if pad_mode in ("edge", "reflect"):
        return np.pad(cropped, widths, mode=pad_mode)
    raise ValueError(f"unknown pad_mode {pad_mode!r}")
