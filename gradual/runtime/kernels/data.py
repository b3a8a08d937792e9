"""Creation, shape values and data-dependent kernels: arange, argwhere, zeros, full, take,
shape_of, ndarray_size."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from . import kernel


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
def dyn_zeros(shape: np.ndarray, *, dtype: str) -> np.ndarray:
    """Zeros of a shape given as a tensor."""
    return np.zeros(_shape_of_tensor(shape), dtype=dtype)


@kernel("dyn.ones")
def dyn_ones(shape: np.ndarray, *, dtype: str) -> np.ndarray:
    """Ones of a shape given as a tensor."""
    return np.ones(_shape_of_tensor(shape), dtype=dtype)


@kernel("dyn.full")
def dyn_full(fill_value: np.ndarray, shape: np.ndarray, *, dtype: str) -> np.ndarray:
    """A scalar repeated to a shape given as a tensor."""
    return np.full(_shape_of_tensor(shape), fill_value, dtype=dtype or fill_value.dtype)


@kernel("shape_of")
def shape_of(data: np.ndarray, *, dtype: str) -> np.ndarray:
    """The dims of a tensor as a vector."""
    return np.array(data.shape, dtype=dtype)


@kernel("ndarray_size")
def ndarray_size(data: np.ndarray, *, dtype: str) -> np.ndarray:
    """The number of elements, as a scalar."""
    return np.array(data.size, dtype=dtype)


_TAKE_MODES = {"clip": "clip", "wrap": "wrap", "fast": "raise"}


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


def _batched_take(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int, mode: str) -> np.ndarray:
    """`take` with leading batch dims shared by data and indices (Relay's `batch_dims`)."""
    batch_dims = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    batch = data.shape[:batch_dims]
    flat_data = data.reshape((-1,) + data.shape[batch_dims:]) if batch else data[None]
    flat_indices = indices.reshape((-1,) + indices.shape[batch_dims:]) if batch else indices[None]
    parts = [np.take(d, i, axis=axis - batch_dims, mode=mode) for d, i in zip(flat_data, flat_indices)]
    stacked = np.stack(parts) if parts else np.zeros((0,), data.dtype)
    return stacked.reshape(batch + stacked.shape[1:])
