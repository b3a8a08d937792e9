"""Reductions with Relay's `axis` (a list; absent or empty: every axis, whatever `exclude`
says), `keepdims` and `exclude` (reduce over every axis *not* listed). Results keep the input's
element type; argmax and argmin give int32 indices into the reduced axes, flattened in
row-major order (the last extreme element with `select_last_index`)."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from gradual.runtime.kernels.registration import kernel


def reduced_axes(rank: int, axis: Optional[Sequence[int]], exclude: bool) -> tuple:
    """The axes a reduction reduces over."""
    if not axis:
        return tuple(range(rank))
    chosen = {a + rank if a < 0 else a for a in axis}
    if exclude:
        chosen = set(range(rank)) - chosen
    return tuple(sorted(chosen))


def _reduction(name: str, fn: Callable[..., np.ndarray]) -> None:
    @kernel(name)
    def run(data: np.ndarray, *, axis: Optional[Sequence[int]], keepdims: bool, exclude: bool) -> np.ndarray:
        axes = reduced_axes(data.ndim, axis, exclude)
        out = fn(data, axis=axes, keepdims=bool(keepdims))
        return np.asarray(out).astype(data.dtype, copy=False)

    run.__name__ = name
    run.__doc__ = f"`{name}` over the chosen axes."


_reduction("sum", lambda x, **kw: np.sum(x, dtype=x.dtype, **kw))
_reduction("prod", lambda x, **kw: np.prod(x, dtype=x.dtype, **kw))
_reduction("mean", np.mean)
_reduction("max", np.max)
_reduction("min", np.min)
_reduction("all", np.all)
_reduction("any", np.any)


@kernel("variance")
def variance(
    data: np.ndarray, mean: np.ndarray, *, axis: Optional[Sequence[int]], keepdims: bool, exclude: bool, unbiased: bool
) -> np.ndarray:
    """The mean squared deviation of `data` from `mean` over the chosen axes."""
    axes = reduced_axes(data.ndim, axis, exclude)
    count = int(np.prod([data.shape[a] for a in axes], dtype=np.int64))
    total = np.sum(np.square(data - mean), axis=axes, keepdims=bool(keepdims))
    return np.asarray(total / max(count - (1 if unbiased else 0), 1)).astype(data.dtype, copy=False)


def _arg_reduction(name: str, fn: Callable[..., np.ndarray]) -> None:
    @kernel(name)
    def run(
        data: np.ndarray,
        *,
        axis: Optional[Sequence[int]],
        keepdims: bool,
        exclude: bool,
        select_last_index: bool = False,
    ) -> np.ndarray:
        axes = reduced_axes(data.ndim, axis, exclude)
        kept = [i for i in range(data.ndim) if i not in axes]
        moved = np.transpose(data, kept + list(axes))
        inner = int(np.prod([data.shape[a] for a in axes], dtype=np.int64))
        flat = moved.reshape([data.shape[i] for i in kept] + [inner])
        if select_last_index:
            out = inner - 1 - fn(flat[..., ::-1], axis=-1)
        else:
            out = fn(flat, axis=-1)
        if keepdims:
            out = out.reshape([1 if i in axes else d for i, d in enumerate(data.shape)])
        return np.asarray(out).astype(np.int32)

    run.__name__ = name
    run.__doc__ = f"`{name}`: the position of the extreme element over the chosen axes."


_arg_reduction("argmax", np.argmax)
_arg_reduction("argmin", np.argmin)
