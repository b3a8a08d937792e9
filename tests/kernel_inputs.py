"""Input generators for tests/test_runtime_kernels.py: one per operator, drawing inputs and
attributes that satisfy the operator's constraints (the rule must accept them, the kernel must
agree with it).

This module holds the registry and the building blocks; the generators live by family: the
Relay operators' in the test file, ONNX's in kernel_inputs_onnx.py, ATen's in
kernel_inputs_aten.py. A generator is `fn(draw) -> (args, attrs)`: tensor arguments
positionally (a tuple argument as a Python tuple of arrays), attributes by name (the declared
defaults fill the rest).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import strategies as st

FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
Draw = Callable[..., Any]
GENERATORS: dict[str, Callable[[Draw], tuple]] = {}


def generator(*names: str) -> Callable:
    """Register an input generator for operators: `fn(draw) -> (args, attrs)`."""

    def register(fn: Callable) -> Callable:
        for name in names:
            GENERATORS[name] = fn
        return fn

    return register


def shapes(rank_lo: int = 0, rank_hi: int = 4, lo: int = 1, hi: int = 5) -> st.SearchStrategy:
    """Shapes of rank_lo..rank_hi dims, each lo..hi."""
    return st.lists(st.integers(lo, hi), min_size=rank_lo, max_size=rank_hi).map(tuple)


def array(draw: Draw, shape: tuple, dtype: str = "float32") -> np.ndarray:
    """Random data: booleans, small integers (-5..5, unsigned 0..5), or normal floats."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if dtype == "bool":
        return np.asarray(rng.integers(0, 2, size=shape).astype(bool))
    if np.dtype(dtype).kind in "iu":
        low = 0 if np.dtype(dtype).kind == "u" else -5
        return np.asarray(rng.integers(low, 6, size=shape).astype(dtype))
    return np.asarray((rng.standard_normal(shape) * 2).astype(dtype))


def any_dtype(draw: Draw) -> str:
    """Shape operators see floats and integers alike (integer vectors also carry shape values)."""
    return draw(st.sampled_from(FLOATS + INTS))


def positive(draw: Draw, shape: tuple, dtype: str = "float32") -> np.ndarray:
    """Data of at least 1 (logarithms, divisors, variances)."""
    return np.asarray(np.abs(array(draw, shape, dtype)) + 1)


def ints(values: Sequence[int], dtype: str = "int64") -> np.ndarray:
    """An integer vector (ONNX's tensor inputs that carry sizes, axes, ...)."""
    return np.asarray(list(values), dtype=dtype).reshape(-1)


def scalar(value: Any, dtype: str = "int64") -> np.ndarray:
    """A 0-d tensor."""
    return np.asarray(value, dtype=dtype)


#: an optional tensor input left out (ONNX's empty vector)
ABSENT = np.zeros((0,), "int64")


def axis_in(draw: Draw, rank: int) -> int:
    """An axis of a tensor of `rank` dims, possibly negative."""
    return draw(st.integers(-rank, rank - 1))


def some_axes(draw: Draw, rank: int, min_size: int = 0) -> list:
    """Distinct axes of `rank` dims, in any order, each possibly written negatively."""
    chosen = (
        draw(st.lists(st.integers(0, rank - 1), min_size=min(min_size, rank), max_size=rank, unique=True))
        if rank
        else []
    )
    return [a - rank if draw(st.booleans()) else a for a in chosen]


def part_sizes(draw: Draw, whole: int) -> list:
    """Sizes of up to four parts (0 included) that add up to whole."""
    cuts = sorted(draw(st.lists(st.integers(0, whole), max_size=3)))
    bounds = [0] + cuts + [whole]
    return [b - a for a, b in zip(bounds, bounds[1:])]


def conv_sizes(draw: Draw) -> tuple:
    """(spatial dims k, groups, batch, input channels, output channels, kernel) of a convolution
    over 1 to 3 spatial dims; both channel counts are multiples of the groups."""
    k = draw(st.integers(1, 3))
    groups = draw(st.sampled_from((1, 2)))
    n, c, m = draw(st.integers(1, 2)), groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    return k, groups, n, c, m, [draw(st.integers(1, 3)) for _ in range(k)]
