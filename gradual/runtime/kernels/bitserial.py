"""Bit-serial kernels: Relay's nn.bitpack, nn.bitserial_dense and nn.bitserial_conv2d as topi
computes them (bitserial_util.bitpack, bitserial_dense, bitserial_conv2d_nchw / _nhwc).

A product of bit planes i (of the data) and j (of the weight) counts the positions where both
bits are 1, or with `unipolar` those where the data bit is 1 less those where the weight bit is
0 too (a weight bit 0 reads as -1), and is weighted by 2^(i + j); the sum is in out_dtype,
wrapping as topi's does.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from gradual.runtime.kernels.conv import _window, pads
from gradual.runtime.kernels.registration import kernel

WIDTHS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def _planes(x: np.ndarray, bits: int) -> np.ndarray:
    """Bit planes 0..bits-1 of integers (two's complement), stacked first, as int64 0 / 1."""
    wide = x.astype(np.int64)
    return np.stack([(wide >> b) & 1 for b in range(bits)])


@kernel("nn.bitpack")
def bitpack(data: np.ndarray, *, bits: int, pack_axis: int, bit_axis: int, pack_type: str) -> np.ndarray:
    """Each bit plane's entries along pack_axis, `width` to a word, the first in the highest
    bit; the planes stacked at bit_axis of the result."""
    width = WIDTHS[pack_type]
    pack_axis = pack_axis + data.ndim if pack_axis < 0 else pack_axis
    moved = np.moveaxis(data, pack_axis, -1)
    grouped = moved.reshape(moved.shape[:-1] + (moved.shape[-1] // width, width))
    weights = np.array([1 << (width - 1 - k) for k in range(width)], dtype=np.uint64)
    planes = []
    for plane in _planes(grouped, bits):
        words = (plane.astype(np.uint64) * weights).sum(axis=-1, dtype=np.uint64)
        planes.append(np.moveaxis(words, -1, pack_axis).astype(pack_type))
    return np.stack(planes, axis=bit_axis)


def _weighted(data_planes: np.ndarray, weight_planes: np.ndarray, unipolar: bool, product: Any) -> np.ndarray:
    """sum over plane pairs (i, j) of 2^(i + j) * product(data plane i, weight plane j)."""
    total: Any = 0
    for i, j in itertools.product(range(len(data_planes)), range(len(weight_planes))):
        w = 2 * weight_planes[j] - 1 if unipolar else weight_planes[j]
        total = total + (product(data_planes[i], w) << (i + j))
    return np.asarray(total)


def _out(result: np.ndarray, data: np.ndarray, out_dtype: str) -> np.ndarray:
    return result.astype(out_dtype or data.dtype)


@kernel("nn.bitserial_dense")
def bitserial_dense(
    data: np.ndarray, weight: np.ndarray, *, data_bits: int, weight_bits: int, out_dtype: str, unipolar: bool
) -> np.ndarray:
    """(b, k) by (units, k) over bit planes: (b, units)."""
    result = _weighted(_planes(data, data_bits), _planes(weight, weight_bits), unipolar, lambda x, w: x @ w.T)
    return _out(np.broadcast_to(result, (data.shape[0], weight.shape[0])), data, out_dtype)


@kernel("nn.bitserial_conv2d")
def bitserial_conv2d(
    data: np.ndarray,
    weight: np.ndarray,
    *,
    strides: Sequence[int],
    padding: Sequence[int],
    activation_bits: int,
    weight_bits: int,
    data_layout: str,
    out_dtype: str,
    unipolar: bool,
) -> np.ndarray:
    """conv2d over bit planes (zero padding holds no bits), in the data's layout."""
    x = data if data_layout == "NCHW" else data.transpose(0, 3, 1, 2)
    w = weight if data_layout == "NCHW" else weight.transpose(3, 2, 0, 1)  # HWIO -> OIHW
    x = np.pad(x, [(0, 0), (0, 0)] + pads(padding, 2))
    kh, kw = w.shape[2:]
    out = tuple(max((size - k) // s + 1, 0) for size, k, s in zip(x.shape[2:], (kh, kw), strides))

    def product(xp: np.ndarray, wp: np.ndarray) -> np.ndarray:
        acc = np.zeros((x.shape[0], w.shape[0]) + out, np.int64)
        if not acc.size:
            return acc
        for dy, dx in itertools.product(range(kh), range(kw)):
            acc += np.einsum("nc...,oc->no...", _window(xp, (dy, dx), [1, 1], out, list(strides)), wp[:, :, dy, dx])
        return acc

    result = _weighted(_planes(x, activation_bits), _planes(w, weight_bits), unipolar, product)
    result = np.broadcast_to(result, (x.shape[0], w.shape[0]) + out)
    return _out(result if data_layout == "NCHW" else result.transpose(0, 2, 3, 1), data, out_dtype)
