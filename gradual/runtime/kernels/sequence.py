"""Scan, sequence and grid kernels: cumsum, cumprod, reverse_sequence, trilu, stft,
searchsorted, meshgrid, sliding_window and collapse_sum_to, as Relay's topi computes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from gradual.runtime.kernels.registration import kernel


def _scan(data: np.ndarray, axis: int | None, dtype: str, exclusive: bool | None, fn: Any, unit: int) -> np.ndarray:
    out_dtype = np.dtype(dtype) if dtype else data.dtype
    x = data.reshape(-1) if axis is None else data
    at = 0 if axis is None else axis % data.ndim
    with np.errstate(over="ignore"):
        out = fn(x.astype(out_dtype), axis=at, dtype=out_dtype)
    if exclusive and out.shape[at]:  # each position sees the ones before it: `unit` first
        first = np.full_like(np.take(out, [0], axis=at), unit)
        out = np.concatenate([first, np.take(out, np.arange(out.shape[at] - 1), axis=at)], axis=at)
    return out.astype(out_dtype)


@kernel("cumsum")
def cumsum(data: np.ndarray, *, axis: int | None, dtype: str, exclusive: bool | None) -> np.ndarray:
    """Running sums along axis (of the flattened data without one)."""
    return _scan(data, axis, dtype, exclusive, np.cumsum, 0)


@kernel("cumprod")
def cumprod(data: np.ndarray, *, axis: int | None, dtype: str, exclusive: bool | None) -> np.ndarray:
    """Running products along axis (of the flattened data without one)."""
    return _scan(data, axis, dtype, exclusive, np.cumprod, 1)


@kernel("reverse_sequence")
def reverse_sequence(data: np.ndarray, seq_lengths: np.ndarray, *, seq_axis: int, batch_axis: int) -> np.ndarray:
    """Each batch entry's first `length` elements along seq_axis reversed: a length past the dim
    reverses the whole dim, one of at most 1 leaves the entry as it is (topi's reading)."""
    seq, batch = seq_axis % data.ndim, batch_axis % data.ndim
    out = data.copy()
    size = data.shape[seq]
    for b, length in enumerate(seq_lengths.reshape(-1)):
        n = min(int(length), size)
        if n <= 1:
            continue
        target: list[Any] = [slice(None)] * data.ndim
        target[batch] = b
        target[seq] = slice(0, n)
        source = list(target)
        source[seq] = slice(n - 1, None, -1) if n < size else slice(None, None, -1)
        out[tuple(target)] = data[tuple(source)]
    return out


@kernel("trilu")
def trilu(data: np.ndarray, k: np.ndarray, *, upper: bool) -> np.ndarray:
    """The upper (lower) triangle of the last two dims from diagonal k (NumPy's triu / tril)."""
    return (np.triu if upper else np.tril)(data, int(k))


@kernel("stft")
def stft(
    data: np.ndarray,
    window: np.ndarray,
    *,
    n_fft: int,
    hop_length: int,
    win_length: int,
    normalized: bool,
    onesided: bool,
) -> np.ndarray:
    """out[b, f, t] = sum over w < win_length of window[w] * x[b, t * hop + w] * e^(-2 pi i f w / win_length),
    as (real, imaginary); divided by sqrt(n_fft) when normalized."""
    signal = data.reshape(-1, data.shape[-1]).astype(np.float64)
    bins = n_fft // 2 + 1 if onesided else n_fft
    frames = (signal.shape[1] - n_fft) // hop_length + 1
    taps = np.arange(win_length)
    starts = np.arange(frames) * hop_length
    pieces = signal[:, starts[:, None] + taps[None, :]] * window.reshape(-1)[:win_length].astype(np.float64)
    angle = 2 * np.pi * np.outer(np.arange(bins), taps) / win_length  # (bins, taps)
    real = np.einsum("btw,fw->bft", pieces, np.cos(angle))
    imag = -np.einsum("btw,fw->bft", pieces, np.sin(angle))
    out = np.stack([real, imag], axis=-1)
    if normalized:
        out = out / np.sqrt(n_fft)
    shape = data.shape[:-1] + out.shape[1:]
    return out.reshape(shape).astype(data.dtype)


@kernel("searchsorted")
def searchsorted(sorted_sequence: np.ndarray, values: np.ndarray, *, right: bool, dtype: str) -> np.ndarray:
    """Insertion points of the values into the innermost dim of the sorted sequence (one row
    of it per leading index of the values when it has more than one dim)."""
    side: Literal["left", "right"] = "right" if right else "left"
    if sorted_sequence.ndim == 1:
        return np.searchsorted(sorted_sequence, values, side=side).astype(dtype)
    out = np.empty(values.shape, dtype=dtype)
    for lead in np.ndindex(*values.shape[:-1]):
        out[lead] = np.searchsorted(sorted_sequence[lead], values[lead], side=side)
    return out


@kernel("meshgrid")
def meshgrid(data: tuple, *, indexing: str) -> tuple:
    """One coordinate grid per scalar or vector."""
    order: Literal["ij", "xy"] = "xy" if indexing == "xy" else "ij"
    return tuple(np.array(g) for g in np.meshgrid(*[np.reshape(x, -1) for x in data], indexing=order))


@kernel("sliding_window")
def sliding_window(data: np.ndarray, *, axis: int, window_shape: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """Every window of window_shape over the dims from axis on, stepped by strides."""
    windows = np.lib.stride_tricks.sliding_window_view(data, tuple(window_shape), axis=tuple(range(axis, data.ndim)))
    picked = windows[(slice(None),) * axis + tuple(slice(None, None, s) for s in strides)]
    return np.ascontiguousarray(picked)


@kernel("collapse_sum_to")
def collapse_sum_to(data: np.ndarray, shape_value: np.ndarray, *, shape: Sequence[int] | None) -> np.ndarray:
    """data summed over the dims that broadcasting the target shape to it added or stretched."""
    target = tuple(int(v) for v in (shape if shape is not None else shape_value.reshape(-1)))
    lead = data.ndim - len(target)
    stretched = tuple(lead + i for i, n in enumerate(target) if n == 1 and data.shape[lead + i] != 1)
    return data.sum(axis=tuple(range(lead)) + stretched, keepdims=True, dtype=data.dtype).reshape(target)
