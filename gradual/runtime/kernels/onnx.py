"""NumPy kernels of the ONNX operators in stdlib/onnx.rly, following the ONNX operator
specification (written from it, independently of the shape rules, so the two check each other).

Convolutions and pools work over any number of spatial dims; `auto_pad` SAME splits the total
padding with the extra element at the end (SAME_UPPER) or the beginning (SAME_LOWER).
"""

from __future__ import annotations

import functools
import itertools
import math
import weakref
from typing import Any, Callable, Literal, Optional, Sequence

import numpy as np

from gradual.ops.rules.common import scaled_size
from gradual.runtime.kernels.elementwise import highest, lowest, same_dtype
from gradual.runtime.kernels.registration import kernel


def _ints(t: np.ndarray) -> list:
    return [int(v) for v in np.asarray(t).reshape(-1)]


# constants and dtypes -----------------------------------------------------------------------------
@kernel("onnx.constant")
def constant(*, values: Any, shape: Sequence[int], dtype: str) -> np.ndarray:
    """The attribute's values, reshaped."""
    items = list(values) if isinstance(values, (list, tuple)) else [values]
    return np.asarray(items, dtype=dtype).reshape(tuple(shape))


@kernel("onnx.cast")
def cast(data: np.ndarray, *, dtype: str, saturate: bool, round_mode: str) -> np.ndarray:
    """Cast as ONNX defines it for the float8 types (saturating by default) and float8_e8m0fnu
    (rounding its exponent); every other type converts as NumPy (ml_dtypes) does."""
    return convert(data, np.dtype(dtype), saturate, round_mode)


@kernel("onnx.cast_like")
def cast_like(data: np.ndarray, like: np.ndarray, *, saturate: bool, round_mode: str) -> np.ndarray:
    """data in like's element type."""
    return convert(data, like.dtype, saturate, round_mode)


SATURATING = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")


def convert(data: np.ndarray, dtype: np.dtype, saturate: bool, round_mode: str) -> np.ndarray:
    """ONNX's Cast of an array to a NumPy dtype."""
    if dtype.name == "float8_e8m0fnu":
        return _to_e8m0(data, saturate, round_mode)
    if dtype.name in SATURATING and saturate and data.dtype.kind not in "iub":
        import ml_dtypes

        largest = float(ml_dtypes.finfo(dtype).max)
        data = np.clip(data.astype(np.float32), -largest, largest)
    return np.asarray(data).astype(dtype)


def _to_e8m0(data: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    """float8_e8m0fnu holds only an exponent (2^(e - 127)): the float32 exponent field, rounded
    up by the mantissa (`up`: any, `nearest`: above half, or half of a normal number)."""
    bits = np.asarray(data, np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    mantissa = bits & 0x7FFFFF
    if round_mode == "up":
        bump = mantissa != 0
    elif round_mode == "nearest":
        bump = (mantissa > 0x400000) | ((mantissa == 0x400000) & (exponent > 0))
    else:
        bump = np.zeros(exponent.shape, bool)
    special = exponent == 0xFF
    if saturate:
        bump &= exponent != 0xFE
    exponent = np.where(special, 0xFF, exponent + bump).astype(np.uint8)
    return exponent.view(np.dtype("float8_e8m0fnu"))


@kernel("onnx.eye_like")
def eye_like(data: np.ndarray, *, k: int, dtype: str) -> np.ndarray:
    """Ones on the k-th diagonal."""
    return np.eye(data.shape[0], data.shape[1], k=k, dtype=dtype or data.dtype)


# linear algebra -------------------------------------------------------------------------------------
@kernel("onnx.matmul")
def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NumPy matmul (integer products wrap in the operands' type)."""
    return same_dtype(a, np.matmul(a, b))


@kernel("onnx.einsum", "einsum")
def einsum(operands: tuple, *, equation: str) -> np.ndarray:
    """NumPy einsum in the operands' type (bfloat16 computed in float32)."""
    wide = [o.astype(np.float32) if o.dtype.kind == "V" else o for o in operands]
    return same_dtype(operands[0], np.einsum(equation.replace(" ", ""), *wide))


# shapes ---------------------------------------------------------------------------------------------
@kernel("onnx.flatten")
def flatten(data: np.ndarray, *, axis: int) -> np.ndarray:
    """To 2-D at axis."""
    axis = axis + data.ndim if axis < 0 else axis
    rows = int(np.prod(data.shape[:axis], dtype=np.int64))
    return data.reshape(rows, int(np.prod(data.shape[axis:], dtype=np.int64)))


@kernel("onnx.unsqueeze")
def unsqueeze(data: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Dims of 1 at output positions."""
    chosen = _ints(axes)
    rank = data.ndim + len(chosen)
    return np.expand_dims(data, tuple(sorted(a + rank if a < 0 else a for a in chosen)))


@kernel("onnx.squeeze")
def squeeze(data: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Remove the listed dims of size 1 (none listed: every one, as ONNX Runtime does)."""
    listed = _ints(axes)
    if not listed:
        return np.squeeze(data)
    return np.squeeze(data, axis=tuple(a + data.ndim if a < 0 else a for a in listed))


@kernel("onnx.expand")
def expand(data: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """Bidirectional broadcast: data times ones of the shape."""
    target = np.broadcast_shapes(data.shape, tuple(_ints(shape)))
    return np.broadcast_to(data, target).copy()


def _slices(rank: int, starts: list, ends: list, axes: list, steps: list) -> tuple:
    index = [slice(None)] * rank
    axes = axes or list(range(len(starts)))
    steps = steps or [1] * len(axes)
    for b, e, a, s in zip(starts, ends, axes, steps):
        index[a + rank if a < 0 else a] = slice(b, e, s)
    return tuple(index)


@kernel("onnx.slice")
def onnx_slice(
    data: np.ndarray, starts: np.ndarray, ends: np.ndarray, axes: np.ndarray, steps: np.ndarray
) -> np.ndarray:
    """Python slicing per listed axis (ONNX clamps the same way)."""
    if 0 in _ints(steps):
        raise ValueError("a slice step of 0")
    return data[_slices(data.ndim, _ints(starts), _ints(ends), _ints(axes), _ints(steps))].copy()


@kernel("onnx.tile")
def tile(data: np.ndarray, repeats: np.ndarray) -> np.ndarray:
    """np.tile with one repeat per dim."""
    return np.tile(data, tuple(_ints(repeats)))


@kernel("onnx.pad")
def pad(data: np.ndarray, pads: np.ndarray, value: np.ndarray, axes: np.ndarray, *, mode: str) -> np.ndarray:
    """ONNX Pad: negative pads crop first, then np.pad with the mode."""
    if data.ndim == 0:  # no dims, no pads (np.pad cannot take a scalar)
        return data.copy()
    chosen = [a + data.ndim if a < 0 else a for a in _ints(axes)] or list(range(data.ndim))
    widths = _ints(pads)
    pairs = [(0, 0)] * data.ndim
    for i, a in enumerate(chosen):
        pairs[a] = (widths[i], widths[i + len(chosen)])
    crop = tuple(slice(max(0, -b), d - max(0, -e)) for d, (b, e) in zip(data.shape, pairs))
    cropped = data[crop]
    grow = [(max(0, b), max(0, e)) for b, e in pairs]
    if mode == "constant":
        fill = np.asarray(value).reshape(-1)
        return np.pad(cropped, grow, constant_values=fill[0] if fill.size else 0).astype(data.dtype)
    return np.pad(cropped, grow, mode=_PAD_MODES[mode])


#: ONNX Pad's modes besides constant, as NumPy names them
_PAD_MODES: dict[str, Literal["edge", "reflect", "wrap"]] = {"edge": "edge", "reflect": "reflect", "wrap": "wrap"}


@kernel("onnx.split")
def split(data: np.ndarray, *, num_outputs: int, axis: int) -> tuple:
    """Parts of ceil(d / n) along axis, the last one smaller."""
    axis = axis + data.ndim if axis < 0 else axis
    whole = data.shape[axis]
    chunk = -(-whole // num_outputs)
    bounds = [min(i * chunk, whole) for i in range(num_outputs)] + [whole]
    return tuple(np.take(data, np.arange(bounds[i], bounds[i + 1]), axis=axis) for i in range(num_outputs))


@kernel("onnx.split_sizes")
def split_sizes(data: np.ndarray, split: np.ndarray, *, num_outputs: int, axis: int) -> tuple:
    """Parts of the given sizes along axis."""
    bounds = np.cumsum([0] + _ints(split))
    return tuple(np.take(data, np.arange(bounds[i], bounds[i + 1]), axis=axis) for i in range(num_outputs))


@kernel("onnx.reduce")
def reduce(data: np.ndarray, axes: np.ndarray, *, kind: str, keepdims: bool, noop_with_empty_axes: bool) -> np.ndarray:
    """ONNX reductions; an empty set gives the identity (0, 1, the lowest or highest value)."""
    chosen = _ints(axes)
    if not chosen and noop_with_empty_axes:  # composite reductions still take their other steps
        return np.asarray(_NO_REDUCTION.get(kind, np.copy)(data)).astype(data.dtype)
    picked = tuple(sorted(a + data.ndim if a < 0 else a for a in chosen)) if chosen else tuple(range(data.ndim))
    x = data.astype(np.float64) if data.dtype.kind == "f" else data
    keep = bool(keepdims)
    if kind == "max":
        return np.asarray(np.max(data, axis=picked, keepdims=keep, initial=lowest(data.dtype))).astype(data.dtype)
    if kind == "min":
        return np.asarray(np.min(data, axis=picked, keepdims=keep, initial=highest(data.dtype))).astype(data.dtype)
    out = _REDUCTIONS[kind](x, picked, keep)
    return np.asarray(out).astype(data.dtype)


Unary = Callable[[np.ndarray], np.ndarray]
#: a reduction over (data, the axes, keepdims)
Reduction = Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]

_NO_REDUCTION: dict[str, Unary] = {
    "l1": np.abs,
    "l2": np.abs,
    "sum_square": lambda x: x * x,
    "log_sum": np.log,
    "log_sum_exp": lambda x: np.log(np.exp(x)),
}

_REDUCTIONS: dict[str, Reduction] = {
    "sum": lambda x, axis, keep: np.sum(x, axis=axis, keepdims=keep),
    "mean": lambda x, axis, keep: np.mean(x, axis=axis, keepdims=keep),
    "prod": lambda x, axis, keep: np.prod(x, axis=axis, keepdims=keep),
    "l1": lambda x, axis, keep: np.sum(np.abs(x), axis=axis, keepdims=keep),
    "l2": lambda x, axis, keep: np.sqrt(np.sum(x * x, axis=axis, keepdims=keep)),
    "sum_square": lambda x, axis, keep: np.sum(x * x, axis=axis, keepdims=keep),
    "log_sum": lambda x, axis, keep: np.log(np.sum(x, axis=axis, keepdims=keep)),
    "log_sum_exp": lambda x, axis, keep: np.log(np.sum(np.exp(x), axis=axis, keepdims=keep)),
}


@kernel("onnx.depth_to_space")
def depth_to_space(data: np.ndarray, *, blocksize: int, mode: str) -> np.ndarray:
    """Rearrange channel blocks into spatial blocks (an empty input: an empty result, without
    the intermediate of a block's size, which NumPy cannot shape for a block of 2^62)."""
    n, c, h, w = data.shape
    b = blocksize
    if data.size == 0:
        return np.zeros((n, c // (b * b), h * b, w * b), data.dtype)
    if mode == "DCR":
        t = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = data.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b)


@kernel("onnx.space_to_depth")
def space_to_depth(data: np.ndarray, *, blocksize: int, mode: str) -> np.ndarray:
    """Rearrange spatial blocks into channels (an empty input: an empty result, as above)."""
    n, c, h, w = data.shape
    b = blocksize
    if data.size == 0:
        return np.zeros((n, c * b * b, h // b, w // b), data.dtype)
    t = data.reshape(n, c, h // b, b, w // b, b)
    t = t.transpose(0, 3, 5, 1, 2, 4) if mode == "DCR" else t.transpose(0, 1, 3, 5, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)


@kernel("onnx.trilu")
def trilu(data: np.ndarray, k: np.ndarray, *, upper: bool) -> np.ndarray:
    """The upper or lower triangle of the last two dims."""
    shift = _ints(k)[0] if np.asarray(k).size else 0
    return np.triu(data, shift) if upper else np.tril(data, shift)


# indexing -------------------------------------------------------------------------------------------
def _wrapped(indices: np.ndarray, size: int | np.ndarray) -> np.ndarray:
    """Negative indices counted from the end of a dim of `size` (one size per index column)."""
    return np.where(indices < 0, indices + size, indices)


@kernel("onnx.gather_elements")
def gather_elements(data: np.ndarray, indices: np.ndarray, *, axis: int) -> np.ndarray:
    """np.take_along_axis with negative indices counted from the end; the other dims of indices
    may be shorter than data's (they pick the leading part)."""
    axis = axis + data.ndim if axis < 0 else axis
    leading = tuple(slice(None) if i == axis else slice(0, n) for i, n in enumerate(indices.shape))
    return np.take_along_axis(data[leading], _wrapped(indices, data.shape[axis]).astype(np.int64), axis=axis)


@kernel("onnx.gather_nd")
def gather_nd(data: np.ndarray, indices: np.ndarray, *, batch_dims: int) -> np.ndarray:
    """Slices of data at the index tuples in the last dim of indices."""
    batch = data.shape[:batch_dims]
    count = int(np.prod(batch, dtype=np.int64))
    flat_data = data.reshape((count,) + data.shape[batch_dims:])
    flat_idx = indices.reshape((count,) + indices.shape[batch_dims:])
    m = indices.shape[-1]
    rest = data.shape[batch_dims + m :]
    out = []
    for b in range(count):
        tuples = flat_idx[b].reshape(int(np.prod(flat_idx[b].shape[:-1], dtype=np.int64)), m)  # m may be 0
        picked = [flat_data[b][tuple(_wrapped(t, np.array(data.shape[batch_dims : batch_dims + m])))] for t in tuples]
        out.append(np.asarray(picked, dtype=data.dtype).reshape(flat_idx[b].shape[:-1] + rest))
    return np.asarray(out, dtype=data.dtype).reshape(indices.shape[:-1] + rest)


_REDUCE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


@kernel("onnx.scatter_elements")
def scatter_elements(
    data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int, reduction: str
) -> np.ndarray:
    """data with updates written along axis at indices."""
    axis = axis + data.ndim if axis < 0 else axis
    out = data.copy()
    idx = _wrapped(indices, data.shape[axis])
    for pos in np.ndindex(*indices.shape):
        place = list(pos)
        place[axis] = int(idx[pos])
        target = tuple(place)
        out[target] = updates[pos] if reduction == "none" else _REDUCE[reduction](out[target], updates[pos])
    return out


@kernel("onnx.scatter_nd")
def scatter_nd(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, reduction: str) -> np.ndarray:
    """data with update slices written at the index tuples."""
    out = data.copy()
    m = indices.shape[-1]
    for pos in np.ndindex(*indices.shape[:-1]):
        target = tuple(int(v) for v in _wrapped(indices[pos], np.array(data.shape[:m])))
        out[target] = updates[pos] if reduction == "none" else _REDUCE[reduction](out[target], updates[pos])
    return out


def _cumulative(
    data: np.ndarray, axis_arg: np.ndarray, exclusive: bool, reverse: bool, fn: Any, unit: int
) -> np.ndarray:
    axis = _ints(axis_arg)[0]
    axis = axis + data.ndim if axis < 0 else axis
    x = np.flip(data, axis) if reverse else data
    out = fn(x, axis=axis, dtype=data.dtype)
    if exclusive and out.shape[axis]:  # each position sees the ones before it: shift by one, `unit` first
        first = np.full_like(np.take(out, [0], axis=axis), unit)
        out = np.concatenate([first, np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@kernel("onnx.cumsum")
def cumsum(data: np.ndarray, axis: np.ndarray, *, exclusive: bool, reverse: bool) -> np.ndarray:
    """Running sums along axis."""
    return _cumulative(data, axis, exclusive, reverse, np.cumsum, 0)


@kernel("onnx.cumprod")
def cumprod(data: np.ndarray, axis: np.ndarray, *, exclusive: bool, reverse: bool) -> np.ndarray:
    """Running products along axis."""
    return _cumulative(data, axis, exclusive, reverse, np.cumprod, 1)


@kernel("onnx.topk")
def topk(data: np.ndarray, k: np.ndarray, *, axis: int, largest: bool) -> tuple:
    """The k largest (smallest) along axis, sorted; ties keep the lower index first."""
    count = _ints(k)[0]
    keys = -data if largest and data.dtype.kind != "u" else data
    if largest and data.dtype.kind == "u":
        keys = np.iinfo(data.dtype).max - data
    order = np.argsort(keys, axis=axis, kind="stable")
    order = np.take(order, np.arange(count), axis=axis)
    return np.take_along_axis(data, order, axis=axis), order.astype(np.int64)


@kernel("onnx.one_hot")
def one_hot(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, *, axis: int) -> np.ndarray:
    """values[1] where the new dim equals the index, values[0] elsewhere."""
    size = int(np.asarray(depth).reshape(-1)[0])
    idx = np.asarray(indices).astype(np.int64)
    idx = np.where(idx < 0, idx + size, idx)
    hot = idx[..., None] == np.arange(size)
    off, on = np.asarray(values).reshape(-1)[:2]
    out = np.where(hot, on, off).astype(values.dtype)
    rank = indices.ndim + 1
    return np.moveaxis(out, -1, axis + rank if axis < 0 else axis)


# convolution and pooling ------------------------------------------------------------------------------
def _geometry(
    shape: Sequence[int],
    kernel: Sequence[int],
    auto_pad: str,
    pads: Optional[Sequence[int]],
    strides: Optional[Sequence[int]],
    dilations: Optional[Sequence[int]],
    ceil_mode: bool = False,
) -> tuple:
    """(begin pads, output sizes, strides, dilations) of a sliding window over `shape`."""
    k = len(shape)
    strides = list(strides or [1] * k)
    dilations = list(dilations or [1] * k)
    spans = [(kernel[i] - 1) * dilations[i] + 1 for i in range(k)]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = [-(-shape[i] // strides[i]) for i in range(k)]
        total = [max(0, (out[i] - 1) * strides[i] + spans[i] - shape[i]) for i in range(k)]
        begin = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in total]
        return begin, out, strides, dilations
    explicit = list(pads or [0] * (2 * k)) if auto_pad == "NOTSET" else [0] * (2 * k)
    begin, out = explicit[:k], []
    for i in range(k):
        padded = shape[i] + explicit[i] + explicit[i + k]
        if ceil_mode:
            n = -(-(padded - spans[i]) // strides[i]) + 1
            if (n - 1) * strides[i] >= shape[i] + explicit[i]:
                n -= 1
        else:
            n = (padded - spans[i]) // strides[i] + 1
        out.append(n)
    return begin, out, strides, dilations


def _window_view(
    x: np.ndarray, begin: list, out: list, strides: list, dilations: list, offset: tuple, fill: Any
) -> tuple:
    """The elements at one kernel offset for every output position: (values, inside mask)."""
    k = len(out)
    index = []
    inside = np.ones(out, dtype=bool)
    for i in range(k):
        pos = np.arange(out[i]) * strides[i] + offset[i] * dilations[i] - begin[i]
        ok = (pos >= 0) & (pos < x.shape[2 + i])
        shape = [1] * k
        shape[i] = out[i]
        inside = inside & ok.reshape(shape)
        index.append(np.clip(pos, 0, max(x.shape[2 + i] - 1, 0)).reshape(shape))
    values = x[(slice(None), slice(None)) + tuple(index)]
    return np.where(inside, values, fill), inside


@kernel("onnx.conv")
def conv(
    data: np.ndarray,
    weight: np.ndarray,
    *,
    auto_pad: str,
    pads: Optional[Sequence[int]],
    strides: Optional[Sequence[int]],
    dilations: Optional[Sequence[int]],
    group: int,
) -> np.ndarray:
    """N-d cross-correlation with groups; padding is zeros."""
    kernel_shape = weight.shape[2:]
    begin, out, strides_, dilations_ = _geometry(data.shape[2:], kernel_shape, auto_pad, pads, strides, dilations)
    n, c = data.shape[:2]
    m = weight.shape[0]
    cg, mg = c // group, m // group
    acc = np.zeros((n, m) + tuple(out), dtype=np.float64 if data.dtype.kind == "f" else data.dtype)
    for offset in itertools.product(*(range(s) for s in kernel_shape)):
        values, _ = _window_view(data, begin, out, strides_, dilations_, offset, 0)
        for g in range(group if acc.size and data.size and weight.size else 0):  # empty: zeros, any group
            w = weight[(slice(g * mg, (g + 1) * mg), slice(None)) + offset]
            acc[:, g * mg : (g + 1) * mg] += np.einsum("nc...,mc->nm...", values[:, g * cg : (g + 1) * cg], w)
    return acc.astype(data.dtype)


@kernel("onnx.conv_transpose")
def conv_transpose(
    data: np.ndarray,
    weight: np.ndarray,
    *,
    auto_pad: str,
    pads: Optional[Sequence[int]],
    strides: Optional[Sequence[int]],
    dilations: Optional[Sequence[int]],
    output_padding: Optional[Sequence[int]],
    output_shape: Optional[Sequence[int]],
    group: int,
) -> np.ndarray:
    """Each input element scatters a scaled kernel; the full result is cut by the pads."""
    k = data.ndim - 2
    strides_ = list(strides or [1] * k)
    dil = list(dilations or [1] * k)
    extra = list(output_padding or [0] * k)
    kernel_shape = weight.shape[2:]
    spans = [(kernel_shape[i] - 1) * dil[i] + 1 for i in range(k)]
    full = [strides_[i] * (data.shape[2 + i] - 1) + spans[i] + extra[i] for i in range(k)]
    begin, out = _transpose_crop(data.shape[2:], full, auto_pad, pads, output_shape, strides_)
    n, c = data.shape[:2]
    mg = weight.shape[1]
    cg = c // group
    # the output window may start before the full result (SAME with an output larger than it):
    # the full result is placed `shift` elements in, zeros around it
    shift = [max(0, -b) for b in begin]
    acc = np.zeros(
        (n, mg * group) + tuple(s + max(f, b + o) for s, f, b, o in zip(shift, full, begin, out)), dtype=np.float64
    )
    for offset in itertools.product(*(range(s) for s in kernel_shape)):
        first = [shift[i] + offset[i] * dil[i] for i in range(k)]
        target = tuple(
            slice(first[i], first[i] + (data.shape[2 + i] - 1) * strides_[i] + 1, strides_[i]) for i in range(k)
        )
        for g in range(group if acc.size and data.size and weight.size else 0):  # empty: zeros, any group
            w = weight[(slice(g * cg, (g + 1) * cg), slice(None)) + offset]
            acc[(slice(None), slice(g * mg, (g + 1) * mg)) + target] += np.einsum(
                "nc...,cm->nm...", data[:, g * cg : (g + 1) * cg], w
            )
    window = tuple(slice(s + b, s + b + o) for s, b, o in zip(shift, begin, out))
    return acc[(slice(None), slice(None)) + window].astype(data.dtype)


def _transpose_crop(
    shape: Sequence[int],
    full: list,
    auto_pad: str,
    pads: Optional[Sequence[int]],
    output_shape: Optional[Sequence[int]],
    strides: list,
) -> tuple:
    """(begin offsets, output sizes) of a transposed convolution's result inside the full one:
    with SAME or an output_shape, the difference is split (the larger half at the end, except
    for SAME_UPPER) and the pads are not read; else the pads cut it."""
    k = len(full)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER") or output_shape:
        out = list(output_shape)[-k:] if output_shape else [shape[i] * strides[i] for i in range(k)]
        total = [full[i] - out[i] for i in range(k)]
        begin = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in total]
        return begin, out
    explicit = list(pads or [0] * (2 * k))
    return explicit[:k], [full[i] - explicit[i] - explicit[i + k] for i in range(k)]


def _pool(
    data: np.ndarray,
    kernel_shape: Sequence[int],
    auto_pad: str,
    pads: Optional[Sequence[int]],
    strides: Optional[Sequence[int]],
    dilations: Optional[Sequence[int]],
    ceil_mode: bool,
    kind: str,
    count_include_pad: bool = False,
    p: int = 2,
) -> np.ndarray:
    begin, out, strides_, dilations_ = _geometry(
        data.shape[2:], kernel_shape, auto_pad, pads, strides, dilations, ceil_mode
    )
    k = len(out)
    explicit = list(pads or [0] * (2 * k)) if auto_pad == "NOTSET" else None
    x = data.astype(np.float64) if kind != "max" else data
    total = None
    count = np.zeros(out)
    for offset in itertools.product(*(range(s) for s in kernel_shape)):
        fill = lowest(data.dtype) if kind == "max" else 0
        values, inside = _window_view(x, begin, out, strides_, dilations_, offset, fill)
        if kind == "max":
            total = values if total is None else np.maximum(total, values)
            continue
        term = np.abs(values) ** p if kind == "lp" else values
        total = term if total is None else total + term
        count += _counted(
            inside, data.shape[2:], begin, out, strides_, dilations_, offset, explicit, count_include_pad, kernel_shape
        )
    assert total is not None, "a window has a tap: the rule holds kernel_shape's entries to at least 1"
    if kind == "max":
        return total.astype(data.dtype)
    if kind == "lp":
        return (total ** (1.0 / p)).astype(data.dtype)
    return np.where(count > 0, total / np.maximum(count, 1), 0).astype(data.dtype)


def _counted(
    inside: np.ndarray,
    shape: Sequence[int],
    begin: list,
    out: list,
    strides: list,
    dilations: list,
    offset: tuple,
    explicit: Optional[list],
    count_include_pad: bool,
    kernel_shape: Sequence[int],
) -> np.ndarray:
    """Which window positions count toward an average: inside the input, or (count_include_pad)
    inside the input plus its padding (explicit pads, or SAME's computed ones)."""
    if not count_include_pad:
        return inside.astype(np.float64)
    k = len(out)
    ok = np.ones(out, dtype=bool)
    for i in range(k):
        pos = np.arange(out[i]) * strides[i] + offset[i] * dilations[i] - begin[i]
        end_pad = (
            explicit[i + k]
            if explicit is not None
            else _same_end(shape[i], out[i], strides[i], (kernel_shape[i] - 1) * dilations[i] + 1, begin[i])
        )
        valid = (pos >= -begin[i]) & (pos < shape[i] + end_pad)
        reshape = [1] * k
        reshape[i] = out[i]
        ok = ok & valid.reshape(reshape)
    return ok.astype(np.float64)


def _same_end(size: int, out: int, stride: int, span: int, begin: int) -> int:
    """SAME's end padding: what the last window of `span` needs past the input, less the begin pads."""
    return max(0, (out - 1) * stride + span - size - begin)


@kernel("onnx.max_pool")
def max_pool(
    data: np.ndarray,
    *,
    kernel_shape: Sequence[int],
    auto_pad: str,
    pads: Optional[Sequence[int]],
    strides: Optional[Sequence[int]],
    dilations: Optional[Sequence[int]],
    ceil_mode: bool,
) -> np.ndarray:
    """The maximum of each window (padding never wins)."""
    return _pool(data, kernel_shape, auto_pad, pads, strides, dilations, ceil_mode, "max")


@kernel("onnx.avg_pool")
def avg_pool(
    data: np.ndarray,
    *,
    kernel_shape: Sequence[int],
    auto_pad: str,
    pads: Optional[Sequence[int]],
    strides: Optional[Sequence[int]],
    dilations: Optional[Sequence[int]],
    ceil_mode: bool,
    count_include_pad: bool,
) -> np.ndarray:
    """The mean of each window (padding counted with count_include_pad)."""
    return _pool(data, kernel_shape, auto_pad, pads, strides, dilations, ceil_mode, "avg", count_include_pad)


@kernel("onnx.lp_pool")
def lp_pool(
    data: np.ndarray,
    *,
    kernel_shape: Sequence[int],
    auto_pad: str,
    pads: Optional[Sequence[int]],
    strides: Optional[Sequence[int]],
    dilations: Optional[Sequence[int]],
    ceil_mode: bool,
    p: int,
) -> np.ndarray:
    """The p-norm of each window."""
    return _pool(data, kernel_shape, auto_pad, pads, strides, dilations, ceil_mode, "lp", p=p)


@kernel("onnx.max_pool_indices")
def max_pool_indices(
    data: np.ndarray,
    *,
    kernel_shape: Sequence[int],
    auto_pad: str,
    pads: Optional[Sequence[int]],
    strides: Optional[Sequence[int]],
    dilations: Optional[Sequence[int]],
    ceil_mode: bool,
    storage_order: int,
) -> tuple:
    """(maximum of each window, its position in the flattened input; the first maximum wins)."""
    begin, out, strides_, dilations_ = _geometry(
        data.shape[2:], kernel_shape, auto_pad, pads, strides, dilations, ceil_mode
    )
    spatial = data.shape[2:]
    best: Optional[np.ndarray] = None
    where: Optional[np.ndarray] = None
    for offset in itertools.product(*(range(s) for s in kernel_shape)):
        values, inside = _window_view(data, begin, out, strides_, dilations_, offset, lowest(data.dtype))
        flat = _flat_positions(spatial, begin, out, strides_, dilations_, offset, storage_order)
        if best is None or where is None:
            best, where = values, np.broadcast_to(flat, values.shape).copy()
            continue
        better = values > best
        best = np.where(better, values, best)
        where = np.where(better, flat, where)
    assert best is not None and where is not None, "a window has a tap: kernel_shape's entries are at least 1"
    n, c = data.shape[:2]
    base = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * int(np.prod(spatial, dtype=np.int64))
    return best.astype(data.dtype), (where + base.reshape((n, c) + (1,) * len(out))).astype(np.int64)


def _flat_positions(
    spatial: Sequence[int], begin: list, out: list, strides: list, dilations: list, offset: tuple, storage_order: int
) -> np.ndarray:
    """The flattened spatial position each output reads at one kernel offset."""
    k = len(out)
    total = np.zeros(out, dtype=np.int64)
    order = range(k) if not storage_order else reversed(range(k))
    scale = 1
    for i in reversed(list(order)):
        pos = np.clip(np.arange(out[i]) * strides[i] + offset[i] * dilations[i] - begin[i], 0, spatial[i] - 1)
        shape = [1] * k
        shape[i] = out[i]
        total = total + pos.reshape(shape) * scale
        scale *= spatial[i]
    return total


@kernel("onnx.global_lp_pool")
def global_lp_pool(data: np.ndarray, *, p: int) -> np.ndarray:
    """The p-norm over every spatial dim."""
    axes = tuple(range(2, data.ndim))
    return same_dtype(data, np.sum(np.abs(data.astype(np.float64)) ** p, axis=axes, keepdims=True) ** (1.0 / p))


# normalization ---------------------------------------------------------------------------------------
def _normalize(x: np.ndarray, axes: tuple, epsilon: float) -> tuple:
    mean = np.mean(x, axis=axes, keepdims=True)
    inv_std = 1.0 / np.sqrt(np.mean((x - mean) ** 2, axis=axes, keepdims=True) + epsilon)
    return (x - mean) * inv_std, mean, inv_std


@kernel("onnx.layer_norm")
def layer_norm(data: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, axis: int, epsilon: float) -> tuple:
    """Normalize over dims [axis, rank); (y, mean, inverse std dev), the statistics in float32
    (ONNX's default stash_type)."""
    axis = axis + data.ndim if axis < 0 else axis
    y, mean, inv_std = _normalize(data.astype(np.float64), tuple(range(axis, data.ndim)), epsilon)
    out = y * scale + bias
    return same_dtype(data, out), mean.astype(np.float32), inv_std.astype(np.float32)


@kernel("onnx.batch_norm_train")
def batch_norm_train(
    data: np.ndarray,
    scale: np.ndarray,
    bias: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    *,
    epsilon: float,
    momentum: float,
) -> tuple:
    """Normalize with the batch's mean and (population) variance over every dim but 1."""
    axes = tuple(i for i in range(data.ndim) if i != 1)
    x = data.astype(np.float64)
    batch_mean, batch_var = x.mean(axis=axes), x.var(axis=axes)
    y = (x - _per_channel(batch_mean, data.ndim)) / np.sqrt(_per_channel(batch_var, data.ndim) + epsilon)
    y = y * _per_channel(scale, data.ndim) + _per_channel(bias, data.ndim)
    running_mean = mean * momentum + batch_mean * (1 - momentum)
    running_var = var * momentum + batch_var * (1 - momentum)
    return same_dtype(data, y), same_dtype(data, running_mean), same_dtype(data, running_var)


@kernel("onnx.rms_norm")
def rms_norm(data: np.ndarray, scale: np.ndarray, *, axis: int, epsilon: float) -> np.ndarray:
    """x / sqrt(mean(x^2) + epsilon) * scale over dims [axis, rank)."""
    axis = axis + data.ndim if axis < 0 else axis
    x = data.astype(np.float64)
    rms = np.sqrt(np.mean(x * x, axis=tuple(range(axis, data.ndim)), keepdims=True) + epsilon)
    return same_dtype(data, x / rms * scale)


def _per_channel(v: np.ndarray, rank: int) -> np.ndarray:
    return v.reshape((1, -1) + (1,) * (rank - 2))


@kernel("onnx.instance_norm")
def instance_norm(data: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, epsilon: float) -> np.ndarray:
    """Per sample and channel over the spatial dims."""
    y, _, _ = _normalize(data.astype(np.float64), tuple(range(2, data.ndim)), epsilon)
    return same_dtype(data, y * _per_channel(scale, data.ndim) + _per_channel(bias, data.ndim))


@kernel("onnx.group_norm")
def group_norm(data: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, num_groups: int, epsilon: float) -> np.ndarray:
    """Per sample and channel group over the group's channels and the spatial dims; the
    statistics in float32 (ONNX's default stash_type), as ONNX's reference computes them."""
    n, c = data.shape[:2]
    per_group = c // num_groups * int(np.prod(data.shape[2:], dtype=np.int64))  # named: a zero batch infers nothing
    grouped = data.astype(np.float32).reshape((n, num_groups, per_group))
    y, _, _ = _normalize(grouped, (2,), epsilon)
    y = y.reshape(data.shape)
    return same_dtype(data, y * _per_channel(scale, data.ndim) + _per_channel(bias, data.ndim))


@kernel("onnx.lrn")
def lrn(data: np.ndarray, *, size: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    """x / (bias + alpha / size * sum of squares over the neighbouring channels) ^ beta."""
    x = data.astype(np.float64)
    squares = x * x
    c = x.shape[1]
    before, after = (size - 1) // 2, -(-(size - 1) // 2)
    total = np.zeros_like(x)
    for ch in range(c):
        total[:, ch] = np.sum(squares[:, max(0, ch - before) : min(c, ch + after + 1)], axis=1)
    return same_dtype(data, x / (bias + alpha / size * total) ** beta)


@kernel("onnx.mean_variance_norm")
def mean_variance_norm(data: np.ndarray, *, axes: Sequence[int]) -> np.ndarray:
    """(x - mean) / sqrt(variance) over axes (epsilon 1e-9)."""
    x = data.astype(np.float64)
    chosen = tuple(a + data.ndim if a < 0 else a for a in axes)
    mean = np.mean(x, axis=chosen, keepdims=True)
    std = np.sqrt(np.mean((x - mean) ** 2, axis=chosen, keepdims=True))
    return same_dtype(data, (x - mean) / (std + 1e-9))


@kernel("onnx.lp_norm")
def lp_norm(data: np.ndarray, *, axis: int, p: int) -> np.ndarray:
    """x divided by its p-norm along axis (0 where the norm is 0)."""
    x = data.astype(np.float64)
    norm = np.sum(np.abs(x) ** p, axis=axis, keepdims=True) ** (1.0 / p)
    return same_dtype(data, np.where(norm == 0, 0, x / np.where(norm == 0, 1, norm)))


def _nll(log_prob: np.ndarray, target: np.ndarray, weight: np.ndarray, reduction: str, ignore_index: Any) -> np.ndarray:
    """-log_prob at the target class, weighted; mean divides by the total weight."""
    labels = target.astype(np.int64)
    picked = np.take_along_axis(log_prob, np.clip(labels, 0, log_prob.shape[1] - 1)[:, None], axis=1)[:, 0]
    weights = np.take(weight, labels, mode="clip").astype(np.float64) if weight.size else np.ones(labels.shape)
    if ignore_index is not None:
        weights = np.where(labels == ignore_index, 0.0, weights)
    loss = -picked * weights
    if reduction == "sum":
        return np.asarray(loss.sum())
    if reduction == "mean":
        return np.asarray(loss.sum() / weights.sum())
    return loss


@kernel("onnx.nll_loss")
def nll_loss(
    data: np.ndarray, target: np.ndarray, weight: np.ndarray, *, reduction: str, ignore_index: Any
) -> np.ndarray:
    """NegativeLogLikelihoodLoss."""
    return same_dtype(data, _nll(data.astype(np.float64), target, weight, reduction, ignore_index))


@kernel("onnx.softmax_cross_entropy")
def softmax_cross_entropy(
    scores: np.ndarray, labels: np.ndarray, weight: np.ndarray, *, reduction: str, ignore_index: Any
) -> tuple:
    """SoftmaxCrossEntropyLoss: (loss, log_softmax of the scores along dim 1)."""
    x = scores.astype(np.float64)
    shifted = x - x.max(axis=1, keepdims=True)
    log_prob = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return same_dtype(scores, _nll(log_prob, labels, weight, reduction, ignore_index)), same_dtype(scores, log_prob)


@kernel("onnx.hardmax")
def hardmax(data: np.ndarray, *, axis: int) -> np.ndarray:
    """1 at the first maximum along axis (an empty tensor has none)."""
    if data.size == 0:
        return np.zeros_like(data)
    first = np.expand_dims(np.argmax(data, axis=axis), axis)
    out = np.zeros_like(data)
    np.put_along_axis(out, first, 1, axis=axis)
    return out


# elementwise ---------------------------------------------------------------------------------------------
def _float_unary(name: str, fn: Any) -> None:
    @kernel(name)
    def run(data: np.ndarray, **attrs: Any) -> np.ndarray:
        x = data.astype(np.float64) if data.dtype.kind == "f" else data
        return same_dtype(data, fn(x, **attrs))

    run.__name__ = name.replace(".", "_")
    run.__doc__ = f"`{name}(x)` elementwise."


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0, x)


def _gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


_float_unary("onnx.reciprocal", lambda x: 1 / x)
_float_unary("onnx.sin", np.sin)
_float_unary("onnx.cos", np.cos)
_float_unary("onnx.tan", np.tan)
_float_unary("onnx.asin", np.arcsin)
_float_unary("onnx.acos", np.arccos)
_float_unary("onnx.atan", np.arctan)
_float_unary("onnx.sinh", np.sinh)
_float_unary("onnx.cosh", np.cosh)
_float_unary("onnx.asinh", np.arcsinh)
_float_unary("onnx.acosh", np.arccosh)
_float_unary("onnx.atanh", np.arctanh)
_float_unary("onnx.softplus", _softplus)
_float_unary("onnx.softsign", lambda x: x / (1 + np.abs(x)))
_float_unary("onnx.mish", lambda x: x * np.tanh(_softplus(x)))
_float_unary("onnx.hard_swish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1))
_float_unary("onnx.bitwise_not", np.invert)
_float_unary("onnx.elu", lambda x, alpha: np.where(x < 0, alpha * (np.exp(x) - 1), x))
_float_unary("onnx.celu", lambda x, alpha: np.maximum(0, x) + np.minimum(0, alpha * (np.exp(x / alpha) - 1)))
_float_unary("onnx.selu", lambda x, alpha, gamma: np.where(x <= 0, gamma * (alpha * np.exp(x) - alpha), gamma * x))
_float_unary("onnx.thresholded_relu", lambda x, alpha: np.where(x > alpha, x, 0))
_float_unary("onnx.hard_sigmoid", lambda x, alpha, beta: np.clip(alpha * x + beta, 0, 1))
_float_unary("onnx.shrink", lambda x, bias, lambd: np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0)))
_float_unary("onnx.gelu", _gelu)
_float_unary("onnx.swish", lambda x, alpha: x / (1 + np.exp(-alpha * x)))


@kernel("onnx.isnan")
def isnan(data: np.ndarray) -> np.ndarray:
    """NaN mask."""
    return np.isnan(data)


@kernel("onnx.isinf")
def isinf(data: np.ndarray, *, detect_negative: bool, detect_positive: bool) -> np.ndarray:
    """Infinity mask (either sign as asked)."""
    return (np.isposinf(data) & bool(detect_positive)) | (np.isneginf(data) & bool(detect_negative))


@kernel("onnx.bitshift")
def bitshift(lhs: np.ndarray, rhs: np.ndarray, *, direction: str) -> np.ndarray:
    """Shift left or right by rhs bits."""
    fn = np.left_shift if direction == "LEFT" else np.right_shift
    return same_dtype(lhs, fn(lhs, rhs.astype(lhs.dtype)))


@kernel("onnx.bitwise_and")
def bitwise_and(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Bitwise and."""
    return same_dtype(lhs, np.bitwise_and(lhs, rhs))


@kernel("onnx.bitwise_or")
def bitwise_or(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Bitwise or."""
    return same_dtype(lhs, np.bitwise_or(lhs, rhs))


@kernel("onnx.bitwise_xor")
def bitwise_xor(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Bitwise xor."""
    return same_dtype(lhs, np.bitwise_xor(lhs, rhs))


@kernel("onnx.mod")
def mod(lhs: np.ndarray, rhs: np.ndarray, *, fmod: bool) -> np.ndarray:
    """C fmod (fmod=1), or the remainder with the divisor's sign (fmod=0)."""
    return same_dtype(lhs, np.fmod(lhs, rhs) if fmod else np.mod(lhs, rhs))


@kernel("onnx.prelu")
def prelu(data: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """x if x >= 0 else slope * x."""
    return same_dtype(data, np.where(data < 0, data * slope, data))


# resize -----------------------------------------------------------------------------------------------------
@kernel("onnx.resize")
def resize(
    data: np.ndarray,
    roi: np.ndarray,
    scales: np.ndarray,
    sizes: np.ndarray,
    *,
    static_scales: Any,
    axes: Any,
    mode: str,
    coordinate_transformation_mode: str,
    nearest_mode: str,
    cubic_coeff_a: float,
    exclude_outside: bool,
    extrapolation_value: float,
    keep_aspect_ratio_policy: str,
    antialias: bool,
) -> np.ndarray:
    """ONNX Resize, one axis at a time (resampling is separable)."""
    chosen = [a + data.ndim if a < 0 else a for a in (axes or range(data.ndim))]
    factors, out_sizes = _resize_targets(data.shape, chosen, scales, sizes, static_scales, keep_aspect_ratio_policy)
    boxes = _roi_boxes(np.asarray(roi, dtype=np.float64).reshape(-1), len(chosen))
    x = data.astype(np.float64)
    for i, axis in enumerate(chosen):
        if np.isclose(factors[i], 1.0) and out_sizes[i] == x.shape[axis] and boxes[i] == (0.0, 1.0):
            continue
        x = _resample(
            x,
            axis,
            factors[i],
            out_sizes[i],
            boxes[i],
            mode,
            coordinate_transformation_mode,
            nearest_mode,
            cubic_coeff_a,
            bool(exclude_outside),
            extrapolation_value,
            bool(antialias),
        )
    if data.dtype.kind in "iu":
        info = np.iinfo(data.dtype)
        return np.clip(np.rint(x), info.min, info.max).astype(data.dtype)
    return x.astype(data.dtype)


def _resize_targets(
    shape: tuple, axes: list, scales: np.ndarray, sizes: np.ndarray, static_scales: Any, policy: str
) -> tuple:
    """(scale factor, output size) of each resized axis."""
    wanted = _ints(sizes)
    if wanted:
        for w, a in zip(wanted, axes):
            if shape[a] == 0 and w != 0:  # as onnxruntime: no factor scales 0 to another size
                raise ValueError(f"dim {a} is 0 and cannot be resized to {w}")
        factors = [w / shape[a] if shape[a] else 1.0 for w, a in zip(wanted, axes)]
        if policy == "stretch":
            return factors, wanted
        scale = min(factors) if policy == "not_larger" else max(factors)
        return [scale] * len(axes), [int(scale * shape[a] + 0.5) for a in axes]
    given = [float(v) for v in (static_scales or np.asarray(scales, dtype=np.float32).reshape(-1))]
    if any(not s > 0 for s in given):  # a data-dependent value: no shape rule sees it
        raise ValueError(f"every scale must be positive, but the scales are {given}")
    return given, [scaled_size(shape[a], s) for s, a in zip(given, axes)]


def _roi_boxes(roi: np.ndarray, count: int) -> list:
    if roi.size != 2 * count:
        return [(0.0, 1.0)] * count
    return [(float(roi[i]), float(roi[i + count])) for i in range(count)]


def _source_positions(out: int, size: int, scale: np.float32, box: tuple, mode: str) -> tuple:
    """Where each output index samples the input, and (tf_crop_and_resize) which fall outside;
    in float32, as ONNX Runtime and torch compute them (3 / 0.3 is 10 there, 9.99... in float64,
    which picked another row for nearest)."""
    y = np.arange(out, dtype=np.float32)
    width = scale * size
    if mode == "align_corners":
        return (np.zeros(out) if width == 1 else y * (size - 1) / (width - 1)), None
    if mode == "asymmetric":
        return y / scale, None
    if mode == "tf_crop_and_resize":
        start, end = box
        x = np.full(out, (end - start) * (size - 1) / 2) if width == 1 else y * (end - start) * (size - 1) / (width - 1)
        x = x + start * (size - 1)
        return x, (x < 0) | (x > size - 1)
    if mode == "pytorch_half_pixel":
        return (np.full(out, -0.5) if width == 1 else (y + 0.5) / scale - 0.5), None
    if mode == "half_pixel_symmetric":
        offset = size / 2 * (1 - out / width)
        return offset + (y + 0.5) / scale - 0.5, None
    return (y + 0.5) / scale - 0.5, None


def _resize_coefficients(
    ratio: float, scale: float, mode: str, nearest_mode: str, a: float, antialias: bool
) -> np.ndarray:
    """The interpolation weights of the neighbours around a fractional position."""
    if mode == "nearest":
        if float(ratio).is_integer():
            return np.array([0.0, 1.0])
        pick_right = {
            "round_prefer_floor": ratio > 0.5,
            "round_prefer_ceil": ratio >= 0.5,
            "floor": False,
            "ceil": True,
        }[nearest_mode]
        return np.array([0.0, 1.0]) if pick_right else np.array([1.0, 0.0])
    if mode == "linear":
        if not antialias or scale >= 1:
            return np.array([1 - ratio, ratio])
        start = int(np.floor(-1 / scale) + 1)
        args = (np.arange(start, start + 2 - 2 * start) - ratio) * scale
        weights = np.clip(1 - np.abs(args), 0, 1)
        return weights / weights.sum()
    if not antialias or scale >= 1:
        return np.array(
            [keys_cubic(ratio + 1, a), keys_cubic(ratio, a), keys_cubic(1 - ratio, a), keys_cubic(2 - ratio, a)]
        )
    first = int(np.floor(-2 / scale) + 1)
    weights = np.array([keys_cubic(scale * (i - ratio), a) for i in range(first, 2 - first)])
    return weights / weights.sum()


def keys_cubic(x: float, a: float) -> float:
    """Keys' cubic convolution weight at distance x (a = -0.75 for ONNX, -0.5 for torch's antialiasing)."""
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _resample(
    x: np.ndarray,
    axis: int,
    scale: float,
    out: int,
    box: tuple,
    mode: str,
    coordinates: str,
    nearest_mode: str,
    a: float,
    exclude_outside: bool,
    extrapolation: float,
    antialias: bool,
) -> np.ndarray:
    """Resize one axis: each output is a weighted sum of the nearest input elements."""
    size = x.shape[axis]
    shape = list(x.shape)
    shape[axis] = out
    if out == 0:
        return np.zeros(shape)
    positions, outside = _source_positions(out, size, np.float32(scale), box, coordinates)
    floors = np.floor(positions)
    ratios = np.where(positions == floors, 1.0, positions - floors)
    weights = np.stack([_resize_coefficients(float(r), scale, mode, nearest_mode, a, antialias) for r in ratios])
    n = weights.shape[1]
    pad = int(np.ceil(n / 2))
    padded = positions + pad
    base = np.floor(padded)
    frac = padded - base
    if n % 2 == 0:
        offset = np.where(frac == 0, -(n // 2), -(n // 2) + 1)
    else:
        offset = np.where(frac <= 0.5, -((n - 1) // 2), -((n - 1) // 2) + 1)
    index = (base + offset).astype(np.int64)[:, None] + np.arange(n)[None, :] - pad
    if exclude_outside:
        weights = np.where((index < 0) | (index >= size), 0.0, weights)
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    gathered = np.take(x, np.clip(index, 0, size - 1), axis=axis)
    result = (gathered * weights.reshape((1,) * axis + weights.shape + (1,) * (x.ndim - axis - 1))).sum(axis=axis + 1)
    if outside is not None and outside.any():
        result = np.where(outside.reshape((1,) * axis + (out,) + (1,) * (x.ndim - axis - 1)), extrapolation, result)
    return result


@kernel("onnx.scan_append")
def scan_append(acc: np.ndarray, item: np.ndarray) -> np.ndarray:
    """The item as the last row of the rows so far (its shape when there are none). The rows
    live in a buffer with room to spare, doubled when full: an accumulator that is the
    buffer's longest view gets the row written after it, in O(1) amortized, where
    concatenating made a loop of n iterations copy n*n/2 rows. Any other accumulator (one that
    already had a row appended: a value is never changed) is copied into a buffer of its own."""
    rows = 0 if acc.ndim == 0 else acc.shape[0]
    base = acc.base
    filled = _ROWS_FILLED.get(id(base)) if base is not None and rows else None
    if base is None or filled is None or filled[0]() is not base or filled[1] != rows or not _starts(acc, base):
        buffer = np.empty((max(4, 2 * rows),) + item.shape, dtype=item.dtype)
        if rows:  # no rows: whatever shape the empty accumulator had
            buffer[:rows] = acc
    elif rows == base.shape[0]:
        buffer = np.empty((2 * rows,) + item.shape, dtype=item.dtype)
        buffer[:rows] = base
    else:
        buffer = base
    buffer[rows] = item
    _ROWS_FILLED[id(buffer)] = (weakref.ref(buffer, functools.partial(_forget_rows, id(buffer))), rows + 1)
    return buffer[: rows + 1]


#: id(buffer) -> (a weak reference to it, how many of its rows a value shows): scan_append's
#: buffers, forgotten with them
_ROWS_FILLED: dict[int, tuple[weakref.ref[np.ndarray], int]] = {}


def _forget_rows(key: int, _dead: object) -> None:
    """A buffer's entry leaves `_ROWS_FILLED` when the buffer is collected."""
    _ROWS_FILLED.pop(key, None)


def _starts(acc: np.ndarray, buffer: np.ndarray) -> bool:
    """Whether `acc` is the first rows of `buffer` (not a slice further in, or strided)."""
    return (
        acc.__array_interface__["data"][0] == buffer.__array_interface__["data"][0]
        and acc.strides == buffer.strides
        and acc.shape[1:] == buffer.shape[1:]
    )
