"""Scatter kernels: scatter_elements, scatter_nd, strided_set and adv_index, as Relay's topi
computes them (a negative index counts from the end; repeated indices apply in order)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gradual.runtime.kernels.registration import kernel

#: how a written value combines with the one already there
COMBINE: dict[str, Callable[[Any, Any], Any]] = {
    "update": lambda old, new: new,
    "add": np.add,
    "mul": np.multiply,
    "mean": lambda old, new: (old + new) / 2,  # an integer mean truncates, as TVM's
    "min": np.minimum,
    "max": np.maximum,
}


def _index(value: Any, size: int) -> int:
    """An index value as a position: negative ones count from the end; one outside the dim
    stops the kernel (IndexError)."""
    i = int(value)
    i = i + size if i < 0 else i
    if not 0 <= i < size:
        raise IndexError(f"index {int(value)} is out of range for a dim of {size}")
    return i


@kernel("scatter_elements")
def scatter_elements(
    data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int, reduction: str
) -> np.ndarray:
    """out[..., indices[p], ...] = f(out[...], updates[p]) along axis, for every position p."""
    axis = axis + data.ndim if axis < 0 else axis
    out = data.copy()
    combine = COMBINE[reduction]
    for pos in np.ndindex(*indices.shape):
        target = list(pos)
        target[axis] = _index(indices[pos], data.shape[axis])
        at = tuple(target)
        out[at] = combine(out[at], updates[pos])
    return out


@kernel("scatter_nd")
def scatter_nd(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, mode: str) -> np.ndarray:
    """out[indices[:, y]] = f(out[...], updates[y]) for every y of indices.shape[1:]."""
    out = data.copy()
    combine = COMBINE[mode]
    m = indices.shape[0]
    for pos in np.ndindex(*indices.shape[1:]):
        at = tuple(_index(indices[(i,) + pos], data.shape[i]) for i in range(m))
        out[at] = combine(out[at], updates[pos])
    return out


@kernel("strided_set")
def strided_set(data: np.ndarray, v: np.ndarray, begin: np.ndarray, end: np.ndarray, strides: np.ndarray) -> np.ndarray:
    """data with `data[begin:end:strides] = v` (per leading dim; absent entries take the whole
    dim with stride 1)."""
    starts, stops, steps = ([int(x) for x in a.reshape(-1)] for a in (begin, end, strides))
    slices = tuple(
        slice(
            starts[i] if i < len(starts) else None,
            stops[i] if i < len(stops) else None,
            steps[i] if i < len(steps) else 1,
        )
        for i in range(data.ndim)
    )
    out = data.copy()
    out[slices] = v
    return out


@kernel("adv_index")
def adv_index(inputs: tuple) -> np.ndarray:
    """NumPy's `data[i0, ..., ik-1]` with integer index tensors."""
    data, *indices = inputs
    for axis, index in enumerate(indices):
        size = data.shape[axis]
        if np.any((index < -size) | (index >= size)):
            raise IndexError(f"an index of dim {axis} is out of range for a dim of {size}")
    return np.asarray(data[tuple(index.astype(np.int64) for index in indices)])
