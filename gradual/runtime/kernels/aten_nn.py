"""NumPy kernels of ATen's indexing operators (stdlib/aten.rly) and of its model parts
(stdlib/aten_nn.rly): advanced indexing, gather and scatter, resampling (through ONNX's Resize
and GridSample kernels), recurrent layers, norms, losses and distances, with torch's semantics.
"""

from __future__ import annotations

import itertools
from typing import Any, Literal, Optional, Sequence

import numpy as np

from gradual.diagnostics import codes
from gradual.ops.context import RuleFailure
from gradual.ops.messages import register_rule_message
from gradual.ops.tables import KERNELS
from gradual.runtime.kernels.elementwise import same_dtype
from gradual.runtime.kernels.registration import data_index, kernel

register_rule_message(
    "index-put-values",
    codes.SHAPE_MISMATCH,
    "{op} writes values of shape {values} where its indices select {selected}: they do not broadcast",
    "pass values that broadcast to what the indices select (a mask selects as many as it has true elements)",
)
register_rule_message(
    "index-broadcast",
    codes.SHAPE_MISMATCH,
    "{op}'s indices select shapes {shapes}, which do not broadcast together",
    "a mask selects as many positions as it has true elements: pass indices whose counts broadcast",
)


# indexing ---------------------------------------------------------------------------------------
def _index_tuple(data: np.ndarray, indices: tuple, dims: Sequence[int]) -> tuple:
    """NumPy's index for x[indices at dims]: the indices in order of their dims, full slices for
    the dims between (a bool mask takes as many dims as it has; a 0-d one takes none)."""
    out: list = []
    axis = 0
    for start, index in sorted(zip(dims, indices), key=lambda pair: pair[0]):
        out.extend([slice(None)] * (start - axis))
        axis = max(axis, start)
        if index.dtype != bool and index.size:  # torch: "index out of range"
            data_index(index.min(), data.shape[axis])
            data_index(index.max(), data.shape[axis])
        out.append(index if index.dtype == bool else index.astype(np.int64))
        axis += index.ndim if index.dtype == bool else 1
    return tuple(out)


@kernel("aten.index")
def index(data: np.ndarray, indices: tuple, *, dims: Sequence[int]) -> np.ndarray:
    """x indexed by index tensors (NumPy's advanced indexing, which is torch's)."""
    where = _index_tuple(data, indices, dims)
    _broadcast_selection(where)
    return np.array(data[where])


def _broadcast_selection(where: tuple) -> None:
    """A mask's count of true elements is data: whether it broadcasts with the other indices is
    known here, and is the rule's failure (not the kernel's)."""
    shapes = [(int(np.count_nonzero(i)),) if i.dtype == bool else i.shape for i in where if isinstance(i, np.ndarray)]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise RuleFailure("index-broadcast", {"shapes": ", ".join(str(s) for s in shapes)}) from None


@kernel("aten.index_put")
def index_put(
    data: np.ndarray, indices: tuple, values: np.ndarray, *, dims: Sequence[int], accumulate: bool
) -> np.ndarray:
    """x with values written (or added) at the indices."""
    out = data.copy()
    where = _index_tuple(data, indices, dims)
    _broadcast_selection(where)
    selected = out[where].shape
    try:  # values broadcast *to* the selection (a selection of 1 takes no 0 values)
        fits = np.broadcast_shapes(values.shape, selected) == selected
    except ValueError:
        fits = False
    if not fits:  # a mask's selection is data: its count is known here
        raise RuleFailure("index-put-values", {"values": values.shape, "selected": selected}) from None
    if accumulate:
        np.add.at(out, where, values.astype(data.dtype))
    else:
        out[where] = values
    return out


@kernel("aten.gather")
def gather(data: np.ndarray, index: np.ndarray, *, dim: int, sparse_grad: bool) -> np.ndarray:
    """out[i][j] = x[index[i][j]][j] (dim 0)."""
    if data.ndim == 0:
        return data.copy()
    axis = dim % data.ndim
    window = tuple(slice(0, n) if a != axis else slice(None) for a, n in enumerate(index.shape))
    return np.take_along_axis(data[window], index.astype(np.int64), axis=axis)


_SCATTER = {
    "sum": np.add,
    "add": np.add,
    "prod": np.multiply,
    "multiply": np.multiply,
    "amax": np.maximum,
    "amin": np.minimum,
    "mean": np.add,
}


@kernel("aten.scatter")
def scatter(
    data: np.ndarray, index: np.ndarray, src: np.ndarray, *, dim: int, reduce: str, include_self: bool
) -> np.ndarray:
    """x with src written (or reduced) at the indices along dim."""
    out = data.copy()
    axis = dim % max(data.ndim, 1)
    counts = np.ones(data.shape, np.int64) if include_self else np.zeros(data.shape, np.int64)
    for pos in np.ndindex(*index.shape):
        written = list(pos)
        written[axis] = int(index[pos])
        target = tuple(written)
        value = src[pos] if src.ndim else src
        if reduce == "none" or (not include_self and counts[target] == 0):
            out[target] = value
        else:
            out[target] = _SCATTER[reduce](out[target], value)
        counts[target] += 1
    if reduce == "mean":
        touched = counts > 0
        out = np.where(touched, out / np.maximum(counts, 1), out)
        out = np.floor(out) if data.dtype.kind in "iu" else out
    return same_dtype(data, out)


@kernel("aten.index_add")
def index_add(data: np.ndarray, index: np.ndarray, source: np.ndarray, *, dim: int, alpha: float) -> np.ndarray:
    """x with alpha * source's slices along dim added at the indices."""
    out = data.copy()
    axis = dim % max(data.ndim, 1)
    moved = np.moveaxis(out, axis, 0)
    np.add.at(moved, index.astype(np.int64), (alpha * np.moveaxis(source, axis, 0)).astype(data.dtype))
    return out


@kernel("aten.index_copy")
def index_copy(data: np.ndarray, index: np.ndarray, source: np.ndarray, *, dim: int) -> np.ndarray:
    """x with source's slices along dim copied to the indices."""
    out = data.copy()
    if data.ndim == 0:
        return np.array(source, dtype=data.dtype) if index.size else out
    moved = np.moveaxis(out, dim % data.ndim, 0)
    moved[index.astype(np.int64)] = np.moveaxis(source, dim % data.ndim, 0)
    return out


_INDEX_REDUCE = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum, "mean": np.add}


@kernel("aten.index_reduce")
def index_reduce(
    data: np.ndarray, index: np.ndarray, source: np.ndarray, *, dim: int, reduce: str, include_self: bool
) -> np.ndarray:
    """x with source's slices along dim reduced into the indices (a mean divides by how many
    were reduced there, an integer one rounding down)."""
    wide = np.float64 if data.dtype.kind in "fc" else np.int64
    out = np.array(data if data.ndim else data.reshape(1), dtype=wide)
    src = np.asarray(source if source.ndim else source.reshape(1), dtype=wide)
    axis = dim % max(data.ndim, 1)
    moved, taken = np.moveaxis(out, axis, 0), np.moveaxis(src, axis, 0)
    positions = index.astype(np.int64).reshape(-1)
    counts = np.zeros(moved.shape[0], np.int64)
    for k, at in enumerate(positions):
        if not include_self and counts[at] == 0:
            moved[at] = taken[k]
        else:
            moved[at] = _INDEX_REDUCE[reduce](moved[at], taken[k])
        counts[at] += 1
    if reduce == "mean":
        divisor = (counts + (1 if include_self else 0)).astype(wide)
        shape = (-1,) + (1,) * (moved.ndim - 1)
        touched = (counts > 0).reshape(shape)
        means = moved / np.maximum(divisor, 1).reshape(shape)
        moved[...] = np.where(touched, np.floor(means) if wide == np.int64 else means, moved)
    return same_dtype(data, out.reshape(data.shape))


@kernel("aten.index_fill")
def index_fill(data: np.ndarray, index: np.ndarray, value: np.ndarray, *, dim: int) -> np.ndarray:
    """x with value at the indices along dim (negative ones from the end)."""
    out = data.copy()
    if data.ndim == 0:
        return np.asarray(value, dtype=data.dtype).copy() if index.size else out
    moved = np.moveaxis(out, dim % data.ndim, 0)
    moved[index.astype(np.int64).reshape(-1)] = np.asarray(value).astype(data.dtype)
    return out


@kernel("aten.take")
def take(data: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The flat x's elements at the indices, index's shape."""
    return data.reshape(-1)[index.astype(np.int64)]


@kernel("aten.take_along_dim")
def take_along_dim(data: np.ndarray, indices: np.ndarray, *, dim: int) -> np.ndarray:
    """x's elements at the indices along dim (x and indices broadcast off dim; negative
    indices wrap)."""
    axis = dim % data.ndim
    shape = list(np.broadcast_shapes(_without(data.shape, axis), _without(indices.shape, axis)))
    wide = np.broadcast_to(data, tuple(shape[:axis] + [data.shape[axis]] + shape[axis:]))
    where = np.broadcast_to(indices, tuple(shape[:axis] + [indices.shape[axis]] + shape[axis:]))
    if where.size == 0:
        return np.zeros(where.shape, data.dtype)
    return np.take_along_axis(wide, where.astype(np.int64) % data.shape[axis], axis=axis)


def _without(shape: tuple, axis: int) -> tuple:
    return tuple(shape[:axis] + shape[axis + 1 :])


@kernel("aten.put")
def put(data: np.ndarray, index: np.ndarray, source: np.ndarray, *, accumulate: bool) -> np.ndarray:
    """The flat x with source's elements written (added) at the indices."""
    out = data.copy()
    flat = out.reshape(-1)
    positions = index.astype(np.int64).reshape(-1) % max(flat.size, 1)
    if accumulate:
        np.add.at(flat, positions, source.reshape(-1).astype(data.dtype))
    else:
        flat[positions] = source.reshape(-1)
    return flat.reshape(data.shape)


@kernel("aten.diagonal_scatter")
def diagonal_scatter(data: np.ndarray, src: np.ndarray, *, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """x with its (offset, dim1, dim2) diagonal replaced by src."""
    out = data.copy()
    a, b = dim1 % data.ndim, dim2 % data.ndim
    if offset >= data.shape[b] or -offset >= data.shape[a]:
        return out  # an empty diagonal (and NumPy's offset is a C long)
    view = np.diagonal(out, offset, a, b)
    view.setflags(write=True)
    view[...] = src
    return out


@kernel("aten.bucketize")
def bucketize(data: np.ndarray, boundaries: np.ndarray, *, out_int32: bool, right: bool) -> np.ndarray:
    """Each element's bucket among the boundaries."""
    side: Literal["left", "right"] = "right" if right else "left"
    found = np.searchsorted(boundaries, data, side=side)
    return np.asarray(found, dtype=np.int32 if out_int32 else np.int64)


@kernel("aten.searchsorted")
def searchsorted(sequence: np.ndarray, data: np.ndarray, *, out_int32: bool, right: bool) -> np.ndarray:
    """Where each of x's values goes in the sorted sequence's last dim."""
    side: Literal["left", "right"] = "right" if right else "left"
    dtype = np.int32 if out_int32 else np.int64
    if sequence.ndim <= 1:
        return np.asarray(np.searchsorted(sequence, data, side=side), dtype=dtype)
    out = np.zeros(data.shape, dtype)
    for pos in np.ndindex(*sequence.shape[:-1]):
        out[pos] = np.searchsorted(sequence[pos], data[pos], side=side)
    return out


@kernel("aten.grid_sampler")
def grid_sampler(
    data: np.ndarray, grid: np.ndarray, *, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> np.ndarray:
    """Samples at normalized grid coordinates (ONNX's GridSample)."""
    return KERNELS["onnx.grid_sample"](
        data,
        grid,
        mode={0: "linear", 1: "nearest", 2: "cubic"}[interpolation_mode],
        padding_mode={0: "zeros", 1: "border", 2: "reflection"}[padding_mode],
        align_corners=align_corners,
    )


@kernel("aten.affine_grid_generator")
def affine_grid_generator(theta: np.ndarray, size: tuple, *, align_corners: bool) -> np.ndarray:
    """ONNX's AffineGrid with the size given as a SymInt list."""
    shape = np.asarray([int(np.asarray(s).reshape(-1)[0]) for s in size], np.int64)
    return KERNELS["onnx.affine_grid"](theta, shape, align_corners=align_corners)


def _each(values: Sequence[int], k: int) -> list:
    values = list(values)
    return values * k if len(values) == 1 else values


@kernel("aten.im2col")
def im2col(
    data: np.ndarray,
    *,
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> np.ndarray:
    """Sliding blocks as columns: (n, c * prod(kernel), blocks)."""
    k = len(kernel_size)
    dilation, padding, stride = _each(dilation, k), _each(padding, k), _each(stride, k)
    widths = [(0, 0)] * (data.ndim - k) + [(p, p) for p in padding]
    padded = np.pad(data, widths)
    spatial = padded.shape[data.ndim - k :]
    counts = [(spatial[i] - dilation[i] * (kernel_size[i] - 1) - 1) // stride[i] + 1 for i in range(k)]
    columns = []
    for offset in itertools.product(*(range(s) for s in kernel_size)):
        box = tuple(
            slice(offset[i] * dilation[i], offset[i] * dilation[i] + stride[i] * (counts[i] - 1) + 1, stride[i])
            for i in range(k)
        )
        columns.append(padded[(Ellipsis,) + box].reshape(data.shape[: data.ndim - k] + (int(np.prod(counts)),)))
    stacked = np.stack(columns, axis=-2)
    lead = data.shape[: data.ndim - k - 1]
    rows = data.shape[data.ndim - k - 1] * int(np.prod(kernel_size))  # sizes, not -1: a zero batch
    return stacked.reshape(lead + (rows, stacked.shape[-1]))


@kernel("aten.col2im")
def col2im(
    data: np.ndarray,
    *,
    output_size: Sequence[int],
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> np.ndarray:
    """Columns summed back into an image (ONNX's Col2Im)."""
    k = len(kernel_size)
    batched = data if data.ndim == 3 else data[None]
    if batched.size == 0:  # nothing to sum: zeros of the image's shape (a zero batch, no blocks)
        channels = batched.shape[1] // max(int(np.prod(kernel_size)), 1)
        out = np.zeros((batched.shape[0], channels, *output_size), data.dtype)
        return out if data.ndim == 3 else out[0]
    out = KERNELS["onnx.col2im"](
        batched,
        np.asarray(output_size, np.int64),
        np.asarray(kernel_size, np.int64),
        strides=_each(stride, k),
        pads=_each(padding, k) * 2,
        dilations=_each(dilation, k),
    )
    return out if data.ndim == 3 else out[0]


@kernel("aten.col2im_sized")
def col2im_sized(
    data: np.ndarray,
    output_size: tuple,
    *,
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> np.ndarray:
    """aten.col2im with the output size given as int64 scalars."""
    return col2im(
        data,
        output_size=[int(v) for v in output_size],
        kernel_size=kernel_size,
        dilation=dilation,
        padding=padding,
        stride=stride,
    )


# recurrent layers ---------------------------------------------------------------------------------
def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _cell(kind: str, x: np.ndarray, h: np.ndarray, c: Any, weights: list) -> tuple:
    """One time step of one direction: the new (h, c)."""
    w_ih, w_hh = weights[0], weights[1]
    b_ih = weights[2] if len(weights) > 2 else 0.0
    b_hh = weights[3] if len(weights) > 3 else 0.0
    gi = x @ w_ih.T + b_ih
    gh = h @ w_hh.T + b_hh
    if kind == "aten.lstm":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c), c
    if kind == "aten.gru":
        ri, zi, ni = np.split(gi, 3, axis=-1)
        rh, zh, nh = np.split(gh, 3, axis=-1)
        r, z = _sigmoid(ri + rh), _sigmoid(zi + zh)
        n = np.tanh(ni + r * nh)
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (np.tanh(pre) if kind == "aten.rnn_tanh" else np.maximum(pre, 0)), None


def _recurrent(kind: str):
    def run(
        data: np.ndarray,
        hx: Any,
        params: tuple,
        *,
        has_biases: bool,
        num_layers: int,
        dropout: float,
        train: bool,
        bidirectional: bool,
        batch_first: bool,
    ) -> tuple:
        unbatched = data.ndim == 2
        x = data[:, None] if unbatched else (np.swapaxes(data, 0, 1) if batch_first else data)
        x = x.astype(np.float64)
        states = list(hx) if isinstance(hx, tuple) else [hx]
        states = [s[:, None] if unbatched else s for s in states]
        directions = 2 if bidirectional else 1
        per = 4 if has_biases else 2
        projected = kind == "aten.lstm" and len(params) == num_layers * directions * (per + 1)
        stride = per + 1 if projected else per  # an LSTM with proj_size: w_hr after each slot's weights
        h_out: list[Any] = []
        c_out: list[Any] = []
        for layer in range(num_layers):
            outputs: list[np.ndarray] = []
            for direction in range(directions):
                slot = layer * directions + direction
                weights = [p.astype(np.float64) for p in params[slot * stride : slot * stride + per]]
                projection = params[slot * stride + per].astype(np.float64) if projected else None
                h = states[0][slot].astype(np.float64)
                c = states[1][slot].astype(np.float64) if kind == "aten.lstm" else None
                steps = range(x.shape[0]) if direction == 0 else reversed(range(x.shape[0]))
                ys: list[Any] = [None] * x.shape[0]
                for t in steps:
                    h, c = _cell(kind, x[t], h, c, weights)
                    h = h @ projection.T if projection is not None else h
                    ys[t] = h
                outputs.append(np.stack(ys))
                h_out.append(h)
                c_out.append(c)
            x = np.concatenate(outputs, axis=-1)
        y = x[:, 0] if unbatched else (np.swapaxes(x, 0, 1) if batch_first else x)
        finals = [np.stack(h_out)] + ([np.stack(c_out)] if kind == "aten.lstm" else [])
        finals = [f[:, 0] if unbatched else f for f in finals]
        return tuple(same_dtype(data, v) for v in [y] + finals)

    run.__doc__ = f"`{kind}`: torch's equations, layer by layer, both directions."
    return run


for _kind in ("aten.lstm", "aten.gru", "aten.rnn_tanh", "aten.rnn_relu"):
    kernel(_kind)(_recurrent(_kind))


def _recurrent_cell(kind: str):
    def run(data: np.ndarray, hx: Any, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any, b_hh: Any) -> Any:
        states = list(hx) if isinstance(hx, tuple) else [hx]
        weights: list[Any] = [w.astype(np.float64) for w in (w_ih, w_hh)]
        weights += [b.astype(np.float64) if isinstance(b, np.ndarray) else 0.0 for b in (b_ih, b_hh)]
        c = states[1].astype(np.float64) if kind == "aten.lstm" else None
        h, c = _cell(kind, data.astype(np.float64), states[0].astype(np.float64), c, weights)
        return (same_dtype(data, h), same_dtype(data, c)) if kind == "aten.lstm" else same_dtype(data, h)

    run.__doc__ = f"`{kind}_cell`: one time step of torch's equations."
    return run


for _kind in ("aten.lstm", "aten.gru", "aten.rnn_tanh", "aten.rnn_relu"):
    kernel(_kind + "_cell")(_recurrent_cell(_kind))


# normalization --------------------------------------------------------------------------------------
def _per_channel(vector: Any, ndim: int) -> Any:
    return vector.reshape((1, -1) + (1,) * (ndim - 2)) if isinstance(vector, np.ndarray) else vector


def _affine(x: np.ndarray, weight: Any, bias: Any) -> np.ndarray:
    if isinstance(weight, np.ndarray):
        x = x * _per_channel(weight, x.ndim)
    if isinstance(bias, np.ndarray):
        x = x + _per_channel(bias, x.ndim)
    return x


def _group_stats(data: np.ndarray, groups: int, eps: float) -> tuple:
    n = data.shape[0]
    per_group = int(np.prod(data.shape[1:])) // groups  # a size, not -1: a zero batch reshapes too
    grouped = data.astype(np.float64).reshape(n, groups, per_group)
    # torch: an empty group's mean is 0 (its rstd stays NaN)
    mean = grouped.mean(axis=-1) if per_group else np.zeros((n, groups))
    rstd = 1 / np.sqrt(grouped.var(axis=-1) + eps)
    y = ((grouped - mean[..., None]) * rstd[..., None]).reshape(data.shape)
    return y, mean, rstd


@kernel("aten.group_norm")
def group_norm(data: np.ndarray, weight: Any, bias: Any, *, num_groups: int, eps: float) -> np.ndarray:
    """Normalized over groups of channels, then scaled and shifted per channel."""
    y, _, _ = _group_stats(data, num_groups, eps)
    return same_dtype(data, _affine(y, weight, bias))


@kernel("aten.native_group_norm")
def native_group_norm(data: np.ndarray, weight: Any, bias: Any, *, group: int, eps: float) -> tuple:
    """(y, mean, rstd) of group norm."""
    y, mean, rstd = _group_stats(data, group, eps)
    return same_dtype(data, _affine(y, weight, bias)), same_dtype(data, mean), same_dtype(data, rstd)


@kernel("aten.instance_norm")
def instance_norm(data: np.ndarray, weight: Any, bias: Any, *, eps: float) -> np.ndarray:
    """Each instance's channel normalized over its spatial dims, then scaled and shifted."""
    axes = tuple(range(2, data.ndim))
    x = data.astype(np.float64)
    y = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    return same_dtype(data, _affine(y, weight, bias))


@kernel("aten.batch_norm_batch_stats")
def batch_norm_batch_stats(data: np.ndarray, weight: Any, bias: Any, *, eps: float) -> tuple:
    """Batch norm with the input's own statistics over every dim but 1: (y, mean, rstd)."""
    axes = tuple(a for a in range(data.ndim) if a != 1)
    x = data.astype(np.float64)
    mean = x.mean(axis=axes)
    rstd = 1 / np.sqrt(x.var(axis=axes) + eps)
    y = (x - _per_channel(mean, x.ndim)) * _per_channel(rstd, x.ndim)
    return same_dtype(data, _affine(y, weight, bias)), same_dtype(data, mean), same_dtype(data, rstd)


@kernel("aten.rms_norm")
def rms_norm(data: np.ndarray, weight: Any, *, normalized_shape: Sequence[int], eps: Optional[float]) -> np.ndarray:
    """x / sqrt(mean(x^2) + eps) over the last dims, times the weight."""
    x = data.astype(np.float64)
    axes = tuple(range(data.ndim - len(normalized_shape), data.ndim))
    # torch's default eps is that of the dtype it computes in: float32 for float16
    small = np.finfo(np.promote_types(data.dtype, np.float32)).eps if eps is None else eps
    y = x / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + small)
    return same_dtype(data, y * weight if isinstance(weight, np.ndarray) else y)


@kernel("aten.rms_norm_sized")
def rms_norm_sized(data: np.ndarray, weight: Any, normalized_shape: tuple, *, eps: Optional[float]) -> np.ndarray:
    """rms_norm with normalized_shape given as int64 scalars."""
    return rms_norm(data, weight, normalized_shape=normalized_shape, eps=eps)


# losses --------------------------------------------------------------------------------------------
def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    top = x.max(axis=axis, keepdims=True)
    return x - top - np.log(np.exp(x - top).sum(axis=axis, keepdims=True))


def _class_loss(
    log_probs: np.ndarray, target: np.ndarray, weight: Any, reduction: int, ignore_index: int, smoothing: float = 0.0
) -> tuple:
    """(loss, total weight) of log-probabilities at class targets (torch's nll_loss, with label
    smoothing as cross_entropy applies it)."""
    axis = 0 if log_probs.ndim == 1 else 1
    classes = log_probs.shape[axis]
    weights = weight.astype(np.float64) if isinstance(weight, np.ndarray) else np.ones(classes)
    keep = target != ignore_index
    counted = target[keep]
    if counted.size:  # torch: "Target -1 is out of bounds" (ignore_index aside, no negatives)
        data_index(counted.min(), classes, "target", negative=False)
        data_index(counted.max(), classes, "target", negative=False)
    if not classes:  # no class to pick: every target was ignore_index (the others are refused above)
        log_probs, weights = np.zeros(log_probs.shape[:axis] + (1,) + log_probs.shape[axis + 1 :]), np.zeros(1)
    safe = np.where(keep, target, 0).astype(np.int64)
    picked = np.take_along_axis(log_probs, np.expand_dims(safe, axis), axis=axis).squeeze(axis)
    w = np.where(keep, weights[safe], 0.0)
    loss = -picked * w
    if smoothing:
        shape = [1] * log_probs.ndim
        shape[axis] = classes
        uniform = -(log_probs * weights.reshape(shape)).sum(axis=axis) * np.where(keep, 1.0, 0.0)
        loss = (1 - smoothing) * loss + smoothing / classes * uniform
    total = w.sum()
    if reduction == 0:  # torch leaves the total weight 0 where it does not reduce a batch
        return loss, total if log_probs.ndim == 1 else np.zeros((), np.float64)
    if reduction == 2:
        return loss.sum(), total
    return loss.sum() / total, total


def _probability_loss(
    log_probs: np.ndarray, target: np.ndarray, weight: Any, reduction: int, smoothing: float
) -> np.ndarray:
    axis = 0 if log_probs.ndim == 1 else 1
    classes = log_probs.shape[axis]
    shape = [1] * log_probs.ndim
    shape[axis] = classes
    weights = weight.reshape(shape) if isinstance(weight, np.ndarray) else 1.0
    mixed = target * (1 - smoothing) + smoothing / classes
    loss = -(log_probs * mixed * weights).sum(axis=axis)
    if reduction == 0:
        return loss
    if reduction == 2:
        return loss.sum()
    return loss.mean()


@kernel("aten.nll_loss")
def nll_loss(data: np.ndarray, target: np.ndarray, weight: Any, *, reduction: int, ignore_index: int) -> np.ndarray:
    """Negative log likelihood at the targets."""
    return same_dtype(data, _class_loss(data.astype(np.float64), target, weight, reduction, ignore_index)[0])


@kernel("aten.nll_loss_forward")
def nll_loss_forward(data: np.ndarray, target: np.ndarray, weight: Any, *, reduction: int, ignore_index: int) -> tuple:
    """(loss, total weight)."""
    loss, total = _class_loss(data.astype(np.float64), target, weight, reduction, ignore_index)
    return same_dtype(data, loss), same_dtype(data, total)


@kernel("aten.cross_entropy_loss")
def cross_entropy_loss(
    data: np.ndarray, target: np.ndarray, weight: Any, *, reduction: int, ignore_index: int, label_smoothing: float
) -> np.ndarray:
    """Cross entropy of logits against class targets or probabilities."""
    log_probs = _log_softmax(data.astype(np.float64), 0 if data.ndim == 1 else 1)
    if target.dtype.kind == "f":
        return same_dtype(
            data, _probability_loss(log_probs, target.astype(np.float64), weight, reduction, label_smoothing)
        )
    return same_dtype(data, _class_loss(log_probs, target, weight, reduction, ignore_index, label_smoothing)[0])


def _reduced_loss(data: np.ndarray, loss: np.ndarray, reduction: int) -> np.ndarray:
    """Per-sample losses reduced as torch's reduction says (0 none, 1 mean, 2 sum)."""
    out = loss if reduction == 0 else loss.mean() if reduction == 1 else loss.sum()
    return same_dtype(data, np.asarray(out))


@kernel("aten.multi_margin_loss")
def multi_margin_loss(
    data: np.ndarray, target: np.ndarray, weight: Any, *, p: int, margin: float, reduction: int
) -> np.ndarray:
    """sum_{j != y} max(0, margin - x[y] + x[j])^p * weight[y] / c per sample."""
    x = data.astype(np.float64).reshape(-1, data.shape[-1])
    y = target.astype(np.int64).reshape(-1)
    picked = np.take_along_axis(x, y[:, None], axis=1)
    terms = np.maximum(margin - picked + x, 0.0) ** p
    if isinstance(weight, np.ndarray) and weight.ndim:
        terms = terms * weight.astype(np.float64)[y][:, None]
    terms[np.arange(x.shape[0]), y] = 0.0
    loss = terms.sum(axis=1) / x.shape[1]
    return _reduced_loss(data, loss.reshape(data.shape[:-1]), reduction)


@kernel("aten.multilabel_margin_loss")
def multilabel_margin_loss(data: np.ndarray, target: np.ndarray, *, reduction: int) -> np.ndarray:
    """sum over listed j and unlisted i of max(0, 1 - (x[j] - x[i])) / c per sample (a sample's
    classes are its target's entries before the first -1)."""
    x = data.astype(np.float64).reshape(-1, data.shape[-1])
    t = target.astype(np.int64).reshape(-1, data.shape[-1])
    loss = np.zeros(x.shape[0])
    for row in range(x.shape[0]):
        stop = np.flatnonzero(t[row] < 0)
        listed = t[row, : stop[0] if stop.size else t.shape[1]]
        others = np.setdiff1d(np.arange(x.shape[1]), listed)
        if listed.size and others.size:
            gaps = 1.0 - (x[row, listed][:, None] - x[row, others][None, :])
            loss[row] = np.maximum(gaps, 0.0).sum()
    loss /= x.shape[1]
    return _reduced_loss(data, loss.reshape(data.shape[:-1]), reduction)


# distances ---------------------------------------------------------------------------------------
def _norm(x: np.ndarray, p: float, axis: int, keepdims: bool = False) -> np.ndarray:
    magnitude = np.abs(x)
    if p == float("inf"):
        return magnitude.max(axis=axis, keepdims=keepdims, initial=0.0)  # no elements: distance 0
    if p == 0:
        return (magnitude != 0).sum(axis=axis, keepdims=keepdims).astype(np.float64)
    return (magnitude**p).sum(axis=axis, keepdims=keepdims) ** (1 / p)


@kernel("aten.cdist")
def cdist(a: np.ndarray, b: np.ndarray, *, p: float) -> np.ndarray:
    """p-norm distances between rows."""
    diff = a.astype(np.float64)[..., :, None, :] - b.astype(np.float64)[..., None, :, :]
    return same_dtype(a, _norm(diff, p, -1))


@kernel("aten.cosine_similarity")
def cosine_similarity(a: np.ndarray, b: np.ndarray, *, dim: int, eps: float) -> np.ndarray:
    """x1 . x2 / max(||x1|| ||x2||, eps) along dim."""
    x, y = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    dot = (x * y).sum(axis=dim)
    scale = np.sqrt(np.maximum((x * x).sum(axis=dim) * (y * y).sum(axis=dim), eps * eps))
    return same_dtype(a, dot / scale)


@kernel("aten.pairwise_distance")
def pairwise_distance(a: np.ndarray, b: np.ndarray, *, p: float, eps: float, keepdim: bool) -> np.ndarray:
    """||x1 - x2 + eps||_p over the last dim."""
    diff = a.astype(np.float64) - b.astype(np.float64) + eps
    if diff.ndim == 0:
        return same_dtype(a, np.abs(diff))
    return same_dtype(a, _norm(diff, p, -1, keepdim))


@kernel("aten.pdist")
def pdist(data: np.ndarray, *, p: float) -> np.ndarray:
    """The p-norm distance of each pair of rows i < j, row by row."""
    rows, cols = np.triu_indices(data.shape[0], 1)
    wide = data.astype(np.float64)
    return same_dtype(data, _norm(wide[rows] - wide[cols], p, -1))


@kernel("aten.dist")
def dist(a: np.ndarray, b: np.ndarray, *, p: float) -> np.ndarray:
    """||x - y||_p of the broadcast difference as one scalar."""
    diff = np.abs(np.subtract(*np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64)))).reshape(-1)
    if p == float("-inf"):
        value = diff.min() if diff.size else 0.0
    elif p == float("inf"):
        value = diff.max() if diff.size else 0.0
    else:
        value = _norm(diff, p, -1) if diff.size else 0.0
    return same_dtype(a, np.asarray(value))
