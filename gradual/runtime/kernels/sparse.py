"""Sparse tensor kernels: sparse_to_dense, sparse_reshape, sparse_fill_empty_rows (as
TensorFlow and Relay define them) and unravel_index."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from gradual.runtime.kernels.registration import kernel
from gradual.runtime.kernels.shape import relay_newshape


def _dense(indices: np.ndarray, values: np.ndarray, default: np.ndarray, shape: tuple) -> np.ndarray:
    out = np.full(
        shape, np.asarray(default).astype(values.dtype).reshape(-1)[0] if np.size(default) else 0, dtype=values.dtype
    )
    rows = np.asarray(indices).reshape(-1, 1) if np.ndim(indices) < 2 else np.asarray(indices)
    vals = np.broadcast_to(values, (rows.shape[0],)) if values.ndim == 0 else values.reshape(-1)
    for row, value in zip(rows, vals):
        out[tuple(int(i) for i in row)] = value
    return out


@kernel("sparse_to_dense")
def sparse_to_dense(
    sparse_indices: np.ndarray, sparse_values: np.ndarray, default_value: np.ndarray, *, output_shape: Sequence[int]
) -> np.ndarray:
    """A dense tensor of output_shape: the values at the indices, the default elsewhere."""
    return _dense(sparse_indices, sparse_values, default_value, tuple(output_shape))


@kernel("dyn.sparse_to_dense")
def dyn_sparse_to_dense(
    sparse_indices: np.ndarray, sparse_values: np.ndarray, default_value: np.ndarray, shape: np.ndarray
) -> np.ndarray:
    """sparse_to_dense whose shape is a 1-D tensor."""
    return _dense(sparse_indices, sparse_values, default_value, tuple(int(v) for v in shape.reshape(-1)))


@kernel("sparse_reshape")
def sparse_reshape(sparse_indices: np.ndarray, prev_shape: np.ndarray, new_shape: np.ndarray) -> tuple:
    """The indices of a sparse tensor of prev_shape in one of new_shape (-1 inferred; 0 is a size)."""
    old = [int(v) for v in prev_shape]
    new = relay_newshape(old, [int(v) for v in new_shape], allowzero=True)  # a 0 is a size, as in TensorFlow
    flat = (
        np.ravel_multi_index(tuple(sparse_indices.T.astype(np.int64)), old)
        if sparse_indices.size
        else np.zeros(sparse_indices.shape[0], np.int64)
    )
    moved = np.stack(np.unravel_index(flat, new), axis=1) if new else np.zeros((sparse_indices.shape[0], 0))
    return (
        moved.reshape(sparse_indices.shape[0], len(new)).astype(sparse_indices.dtype),
        np.asarray(new, dtype=new_shape.dtype),
    )


@kernel("sparse_fill_empty_rows")
def sparse_fill_empty_rows(
    sparse_indices: np.ndarray, sparse_values: np.ndarray, dense_shape: np.ndarray, default_value: np.ndarray
) -> tuple:
    """An entry (row, 0, ...) with the default value for every row without one, rows in order,
    and which rows were empty (1) in dense_shape's dtype."""
    rows = int(dense_shape.reshape(-1)[0])
    present = {int(r) for r in sparse_indices[:, 0]} if sparse_indices.size else set()
    empty = [r for r in range(rows) if r not in present]
    added = np.zeros((len(empty), sparse_indices.shape[1]), sparse_indices.dtype)
    added[:, 0] = empty
    indices = np.concatenate([sparse_indices, added])
    fill = np.asarray(default_value).astype(sparse_values.dtype).reshape(-1)[:1]
    values = np.concatenate([sparse_values, np.repeat(fill, len(empty))])
    order = np.argsort(indices[:, 0], kind="stable") if len(indices) else np.zeros(0, np.int64)
    indicator = np.zeros(rows, dense_shape.dtype)
    indicator[empty] = 1
    return indices[order], values[order], indicator


@kernel("unravel_index")
def unravel_index(indices: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """The coordinates of flat indices in a tensor of `shape`, one row per dim."""
    dims = tuple(int(v) for v in shape)
    if not dims:  # a scalar's one element: index 0 has no coordinates (NumPy refuses the empty shape)
        if np.any(indices != 0):
            raise ValueError("index out of bounds for a shape with no dims")
        return np.zeros((0,) + indices.shape, indices.dtype)
    return np.asarray(np.unravel_index(indices.astype(np.int64), dims)).astype(indices.dtype)
