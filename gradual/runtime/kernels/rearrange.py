"""Block rearrangement, dilation and mirror padding kernels: nn.dilate, nn.mirror_pad,
nn.space_to_batch_nd, nn.batch_to_space_nd (TensorFlow's, as Relay's topi) and dyn.expand_dims."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gradual.runtime.kernels.registration import kernel


@kernel("nn.dilate")
def dilate(data: np.ndarray, *, strides: Sequence[int], dilation_value: float) -> np.ndarray:
    """data's elements `strides` apart, dilation_value between them."""
    shape = tuple((d - 1) * s + 1 if d else 0 for d, s in zip(data.shape, strides))
    out = np.full(shape, dilation_value, dtype=data.dtype)
    out[tuple(slice(None, None, s) for s in strides)] = data
    return out


@kernel("nn.mirror_pad")
def mirror_pad(data: np.ndarray, *, pad_width: Sequence[Sequence[int]], mode: str) -> np.ndarray:
    """NumPy's symmetric or reflect padding."""
    return np.pad(data, [tuple(p) for p in pad_width], mode="symmetric" if mode == "SYMMETRIC" else "reflect")


@kernel("nn.space_to_batch_nd")
def space_to_batch_nd(
    data: np.ndarray, *, block_shape: Sequence[int], paddings: Sequence[Sequence[int]], pad_value: float
) -> np.ndarray:
    """Pad the spatial dims, split each into (dim / block, block), move the blocks to the front
    of the batch."""
    m = len(block_shape)
    widths = [(0, 0)] + [tuple(p) for p in paddings] + [(0, 0)] * (data.ndim - 1 - m)
    padded = np.pad(data, widths, constant_values=pad_value)
    n, rest = padded.shape[0], padded.shape[1 + m :]
    split: list[int] = [n]
    for d, b in zip(padded.shape[1 : 1 + m], block_shape):
        split += [d // b, b]
    x = padded.reshape(split + list(rest))
    blocks = [2 + 2 * i for i in range(m)]
    order = blocks + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, x.ndim))
    x = x.transpose(order)
    outer = [d // b for d, b in zip(padded.shape[1 : 1 + m], block_shape)]
    return np.ascontiguousarray(x).reshape([n * int(np.prod(block_shape))] + outer + list(rest))


@kernel("nn.batch_to_space_nd")
def batch_to_space_nd(data: np.ndarray, *, block_shape: Sequence[int], crops: Sequence[Sequence[int]]) -> np.ndarray:
    """Move the batch's blocks back into the spatial dims, then crop them."""
    m = len(block_shape)
    n = data.shape[0] // int(np.prod(block_shape))
    # a batch past a multiple of the blocks is dropped, as Relay's type says
    data = data[: n * int(np.prod(block_shape))]
    spatial, rest = data.shape[1 : 1 + m], data.shape[1 + m :]
    x = data.reshape(list(block_shape) + [n] + list(spatial) + list(rest))
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(2 * m + 1, x.ndim))
    x = np.ascontiguousarray(x.transpose(order)).reshape(
        [n] + [d * b for d, b in zip(spatial, block_shape)] + list(rest)
    )
    index = [slice(None)] + [slice(c[0], x.shape[1 + i] - c[1]) for i, c in enumerate(crops)]
    return np.ascontiguousarray(x[tuple(index)])


@kernel("dyn.expand_dims")
def dyn_expand_dims(data: np.ndarray, axis: np.ndarray, *, num_newaxis: int) -> np.ndarray:
    """num_newaxis dims of 1 at the axis the scalar holds."""
    at = int(axis)
    at = at + data.ndim + 1 if at < 0 else at
    return data.reshape(data.shape[:at] + (1,) * num_newaxis + data.shape[at:])
