"""Creation, shape values, indexing and data-dependent kernels: arange, zeros, full, shape_of,
ndarray_size, take, strided_slice, one_hot, argwhere, unique, topk, sort and argsort."""

from __future__ import annotations

from typing import Literal, Optional, Sequence

import numpy as np
from numpy.typing import DTypeLike

from gradual.runtime.kernels.registration import kernel


def _shape_of_tensor(shape: np.ndarray) -> tuple:
    return tuple(int(v) for v in np.asarray(shape).reshape(-1))


@kernel("arange")
def arange(start: np.ndarray, stop: np.ndarray, step: np.ndarray, *, dtype: str) -> np.ndarray:
    """`start, start + step, ...` up to (not including) `stop`."""
    out_dtype = dtype or start.dtype
    if step.item() == 0:
        raise ValueError("arange with a step of 0")
    return np.arange(start.item(), stop.item(), step.item()).astype(out_dtype)


@kernel("argwhere")
def argwhere(condition: np.ndarray) -> np.ndarray:
    """The indices of the non-zero elements, one row each."""
    return np.argwhere(condition).astype(np.int64)


@kernel("zeros")
def zeros(*, shape: Sequence[int], dtype: str) -> np.ndarray:
    """A tensor of zeros of a static shape."""
    return np.zeros(tuple(shape), dtype=dtype)


@kernel("ones")
def ones(*, shape: Sequence[int], dtype: str) -> np.ndarray:
    """A tensor of ones of a static shape."""
    return np.ones(tuple(shape), dtype=dtype)


@kernel("full")
def full(fill_value: np.ndarray, *, shape: Sequence[int], dtype: str) -> np.ndarray:
    """A tensor of a static shape filled with a scalar."""
    return np.full(tuple(shape), fill_value, dtype=dtype or fill_value.dtype)


@kernel("dyn.zeros")
def dyn_zeros(target: np.ndarray, *, dtype: str) -> np.ndarray:
    """Zeros of a shape given as a tensor."""
    return np.zeros(_shape_of_tensor(target), dtype=dtype)


@kernel("dyn.ones")
def dyn_ones(target: np.ndarray, *, dtype: str) -> np.ndarray:
    """Ones of a shape given as a tensor."""
    return np.ones(_shape_of_tensor(target), dtype=dtype)


@kernel("dyn.full")
def dyn_full(fill_value: np.ndarray, target: np.ndarray, *, dtype: str) -> np.ndarray:
    """A scalar repeated to a shape given as a tensor."""
    return np.full(_shape_of_tensor(target), fill_value, dtype=dtype or fill_value.dtype)


@kernel("shape_of")
def shape_of(data: np.ndarray, *, dtype: str) -> np.ndarray:
    """The dims of a tensor as a vector."""
    return np.array(data.shape, dtype=dtype)


@kernel("ndarray_size")
def ndarray_size(data: np.ndarray, *, dtype: str) -> np.ndarray:
    """The number of elements, as a scalar."""
    return np.array(data.size, dtype=dtype)


TakeMode = Literal["raise", "wrap", "clip"]

_TAKE_MODES: dict[str, TakeMode] = {"clip": "clip", "wrap": "wrap", "fast": "raise"}


@kernel("gather")
def gather(data: np.ndarray, indices: np.ndarray, *, axis: int) -> np.ndarray:
    """`out[i, j, k] = data[i, indices[i, j, k], k]` (axis 1): the indices' positions along
    `axis`, their own positions along the other dims (which must lie within data's)."""
    grid: list[np.ndarray] = list(np.indices(indices.shape, sparse=True))
    grid[axis] = indices.astype(np.int64)
    return data[tuple(grid)]


@kernel("gather_nd")
def gather_nd(data: np.ndarray, indices: np.ndarray, *, batch_dims: int, index_rank: Optional[int]) -> np.ndarray:
    """indices[:, y...] address dims [batch_dims, batch_dims + m) of data, per batch."""
    depth = indices.shape[0]
    rest = data.shape[batch_dims + depth :]
    batches = indices.shape[1 : 1 + batch_dims]
    out = np.empty(indices.shape[1:] + rest, dtype=data.dtype)
    for batch in np.ndindex(*batches):
        address = tuple(indices[(slice(None),) + batch].astype(np.int64))
        out[batch] = data[batch][address]
    return out


@kernel("take")
def take(data: np.ndarray, indices: np.ndarray, *, axis: Optional[int], batch_dims: int, mode: str) -> np.ndarray:
    """Relay `take`: elements along `axis` (of the flattened data when absent). `clip` clamps
    indices into range, `wrap` wraps them, `fast` requires them in range."""
    np_mode = _TAKE_MODES.get(mode)
    if np_mode is None:
        raise ValueError(f"unknown take mode {mode!r}")
    if axis is None:
        return np.take(data.reshape(-1), indices, mode=np_mode)
    axis = axis + data.ndim if axis < 0 else axis
    if batch_dims == 0:
        return np.take(data, indices, axis=axis, mode=np_mode)
    return _batched_take(data, indices, axis, batch_dims, np_mode)


def _batched_take(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int, mode: TakeMode) -> np.ndarray:
    """`take` with leading batch dims shared by data and indices (Relay's `batch_dims`)."""
    batch_dims = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    batch = data.shape[:batch_dims]
    count = int(np.prod(batch, dtype=np.int64))
    flat_data = data.reshape((count,) + data.shape[batch_dims:])
    flat_indices = indices.reshape((count,) + indices.shape[batch_dims:])
    rest = data.shape[batch_dims:axis] + indices.shape[batch_dims:] + data.shape[axis + 1 :]
    out = np.zeros((count,) + rest, dtype=data.dtype)
    for b in range(count):
        out[b] = np.take(flat_data[b], flat_indices[b], axis=axis - batch_dims, mode=mode)
    return out.reshape(batch + rest)


# data-dependent results ------------------------------------------------------------------------
@kernel("unique")
def unique(data: np.ndarray, *, sorted: bool, return_counts: bool) -> tuple:
    """(unique values, index of each one's first occurrence, inverse indices, [num_unique]
    [, counts]): sorted values, or in order of first occurrence; padded with zeros to the
    input's length, as Relay's."""
    values, first, inverse, counts = np.unique(data, return_index=True, return_inverse=True, return_counts=True)
    if not sorted:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        values, first, counts, inverse = values[order], first[order], counts[order], rank[inverse.reshape(-1)]

    def padded(a: np.ndarray, dtype: DTypeLike) -> np.ndarray:
        return np.concatenate([a.astype(dtype), np.zeros(len(data) - len(a), dtype)])

    out = [
        padded(values, data.dtype),
        padded(first, np.int32),
        inverse.reshape(-1).astype(np.int32),
        np.array([len(values)], np.int32),
    ]
    if return_counts:
        out.append(padded(counts, np.int32))
    return tuple(out)


@kernel("topk")
def topk(data: np.ndarray, *, k: int, axis: int, ret_type: str, is_ascend: bool, dtype: str) -> object:
    """The k largest (`is_ascend`: smallest) entries along `axis` (all of them when k < 1), as
    (values, indices), or only one of them."""
    order = _sorting(data, axis, is_ascend)
    if k >= 1:
        order = np.take(order, np.arange(k), axis=axis)
    values = np.take_along_axis(data, order, axis=axis)
    indices = order.astype(dtype)
    return {"both": (values, indices), "values": values, "indices": indices}[ret_type]


@kernel("dyn.topk")
def dyn_topk(data: np.ndarray, count: np.ndarray, *, axis: int, ret_type: str, is_ascend: bool, dtype: str) -> object:
    """`topk` whose k is a one-element tensor."""
    return topk(
        data, k=int(np.asarray(count).reshape(-1)[0]), axis=axis, ret_type=ret_type, is_ascend=is_ascend, dtype=dtype
    )


@kernel("sort")
def sort(data: np.ndarray, *, axis: int, is_ascend: bool) -> np.ndarray:
    """The data sorted along `axis`."""
    return np.take_along_axis(data, _sorting(data, axis, is_ascend), axis=axis)


@kernel("argsort")
def argsort(data: np.ndarray, *, axis: int, is_ascend: bool, dtype: str) -> np.ndarray:
    """The indices that sort the data along `axis`."""
    return _sorting(data, axis, is_ascend).astype(dtype)


def _sorting(data: np.ndarray, axis: int, is_ascend: bool) -> np.ndarray:
    order = np.argsort(data, axis=axis, kind="stable")
    return order if is_ascend else np.flip(order, axis=axis)


# indexing -------------------------------------------------------------------------------------
def _slice_plan(
    rank: int,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Optional[Sequence[int]],
    axes: Optional[Sequence[int]],
    slice_mode: str,
) -> list:
    """(axis, slice) per sliced axis, in Relay's conventions (see `strided_slice`)."""
    strides = list(strides or [1])
    size_mode = slice_mode == "size"
    if axes is None:
        chosen = list(range(max(len(begin), len(end), 0 if size_mode else len(strides))))
    else:
        chosen = [a + rank if a < 0 else a for a in axes]
    plan = []
    for i, axis in enumerate(chosen):
        b = begin[i] if i < len(begin) else None
        e = end[i] if i < len(end) else None
        if size_mode:
            step = 1
            e = _size_end(b or 0, e)
        elif i < len(strides):
            step = strides[i]
        else:
            step = strides[-1] if axes is not None else 1
        plan.append((axis, slice(b, e, step)))
    return plan


def _size_end(begin: int, size: Optional[int]) -> Optional[int]:
    """The end of `size` elements from `begin` (None: to the end, for a size of -1 or when a
    negative begin's size reaches the end)."""
    if size is None or size < 0 or begin < 0 and begin + size >= 0:
        return None
    return begin + size


@kernel("strided_slice")
def strided_slice(
    data: np.ndarray,
    *,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Optional[Sequence[int]],
    axes: Optional[Sequence[int]],
    slice_mode: str,
) -> np.ndarray:
    """Python slicing per axis: `begin`/`end`/`strides` for the listed `axes` (or the leading
    dims); `slice_mode="size"` reads `end` as sizes (-1: to the end)."""
    index = [slice(None)] * data.ndim
    for axis, piece in _slice_plan(data.ndim, begin, end, strides, axes, slice_mode):
        index[axis] = piece
    return data[tuple(index)].copy()


@kernel("dyn.strided_slice")
def dyn_strided_slice(
    data: np.ndarray, begin_values: np.ndarray, end_values: np.ndarray, stride_values: np.ndarray, *, slice_mode: str
) -> np.ndarray:
    """strided_slice whose begin, end and strides are 1-D tensors."""
    as_list = lambda v: [int(x) for x in np.asarray(v).reshape(-1)]  # noqa: E731
    return strided_slice(
        data,
        begin=as_list(begin_values),
        end=as_list(end_values),
        strides=as_list(stride_values),
        axes=None,
        slice_mode=slice_mode,
    )


@kernel("dyn.one_hot")
def dyn_one_hot(
    indices: np.ndarray, on_value: np.ndarray, off_value: np.ndarray, count: np.ndarray, *, axis: int, dtype: str
) -> np.ndarray:
    """one_hot whose depth is a scalar tensor."""
    return one_hot(indices, on_value, off_value, depth=int(np.asarray(count).reshape(-1)[0]), axis=axis, dtype=dtype)


@kernel("one_hot")
def one_hot(
    indices: np.ndarray, on_value: np.ndarray, off_value: np.ndarray, *, depth: int, axis: int, dtype: str
) -> np.ndarray:
    """A new dim of size `depth` at `axis`: `on_value` where it equals the index, else `off_value`."""
    hot = indices[..., None] == np.arange(depth)
    out = np.where(hot, on_value, off_value).astype(dtype)
    position = axis + indices.ndim + 1 if axis < 0 else axis
    return np.moveaxis(out, -1, position)
