"""Kernels that rearrange shapes: reshape (Relay codes), concatenate, stack, transpose, ..."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from gradual.runtime.kernels.conv import relayout, unlayout
from gradual.runtime.kernels.registration import kernel


def relay_newshape(shape: Sequence[int], newshape: Sequence[int], allowzero: bool = False) -> list:
    """The shape `reshape(x, newshape)` gives in Relay: n > 0 is n, 0 copies the input dim
    (is a real 0 with `allowzero`), -1 is inferred, -2 copies the remaining dims, -3 merges two
    dims, -4 splits one dim into the next two codes (one of which may be -1).

    As in the shape rule (`ops/rules/shape.py`), the -1 dim is inferred from the dims that are
    not copies: `[0, -1]` of a (0, 3) tensor is (0, 3), not an error."""
    out: list = []
    copied_in: set = set()
    copied_out: set = set()
    src, infer_at, i = 0, None, 0
    codes = [int(c) for c in newshape]
    while i < len(codes):
        code = codes[i]
        if code > 0 or code == 0 and allowzero:
            out.append(code)
            src += 1
        elif code == 0 or code == -2:
            stop = src + 1 if code == 0 else len(shape)
            for at in range(src, stop):
                copied_in.add(at)
                copied_out.add(len(out))
                out.append(shape[at])
            src = stop
        elif code == -1:
            if infer_at is not None:
                raise ValueError("newshape has two -1 codes")
            infer_at = len(out)
            out.append(-1)
            src += 1
        elif code == -3:
            copied_in.update({src, src + 1})
            copied_out.add(len(out))
            out.append(shape[src] * shape[src + 1])
            src += 2
        elif code == -4:
            copied_in.add(src)
            copied_out.update({len(out), len(out) + 1})
            out.extend(_split(shape[src], codes[i + 1], codes[i + 2]))
            src += 1
            i += 2
        else:
            raise ValueError(f"unknown reshape code {code}")
        i += 1
    if infer_at is not None:
        have = int(np.prod([d for k, d in enumerate(shape) if k not in copied_in], dtype=np.int64))
        known = int(np.prod([d for k, d in enumerate(out) if k not in copied_out and k != infer_at], dtype=np.int64))
        if known == 0:
            raise ValueError("cannot infer a -1 dim next to a 0-sized one")
        out[infer_at] = have // known
    return out


def _split(whole: int, first: int, second: int) -> list:
    if first == -1:
        first = whole // second
    elif second == -1:
        second = whole // first
    if first * second != whole:
        raise ValueError(f"-4 cannot split {whole} into {first} x {second}")
    return [first, second]


@kernel("reshape")
def reshape(data: np.ndarray, *, newshape: Sequence[int], allowzero: bool = False) -> np.ndarray:
    """Relay `reshape` with its special codes."""
    return data.reshape(relay_newshape(data.shape, newshape, allowzero))


@kernel("dyn.reshape")
def dyn_reshape(data: np.ndarray, target: np.ndarray, *, allowzero: bool = False) -> np.ndarray:
    """`reshape` whose new shape is a 1-D integer tensor."""
    return data.reshape(relay_newshape(data.shape, [int(v) for v in np.asarray(target).reshape(-1)], allowzero))


def _range_of(begin: int, end: Optional[int], rank: int) -> tuple:
    """Relay's [begin, end) of dims: negative from the end, None for the end, clamped."""
    start = begin + rank if begin < 0 else begin
    stop = rank if end is None else (end + rank if end < 0 else end)
    return max(0, min(start, rank)), max(0, min(stop, rank))


@kernel("reshape_like")
def reshape_like(
    data: np.ndarray,
    shape_like: np.ndarray,
    *,
    lhs_begin: int = 0,
    lhs_end: Optional[int] = None,
    rhs_begin: int = 0,
    rhs_end: Optional[int] = None,
) -> np.ndarray:
    """`data`'s dims [lhs_begin, lhs_end) replaced by `shape_like`'s dims [rhs_begin, rhs_end)."""
    lb, le = _range_of(lhs_begin, lhs_end, data.ndim)
    rb, re_ = _range_of(rhs_begin, rhs_end, shape_like.ndim)
    return data.reshape(data.shape[:lb] + shape_like.shape[rb:re_] + data.shape[le:])


@kernel("concatenate")
def concatenate(data: tuple, *, axis: int) -> np.ndarray:
    """Join a tuple of tensors along `axis`."""
    return np.concatenate(list(data), axis=axis)


@kernel("stack")
def stack(data: tuple, *, axis: int) -> np.ndarray:
    """Stack a tuple of equal-shaped tensors along a new axis."""
    return np.stack(list(data), axis=axis)


@kernel("transpose")
def transpose(data: np.ndarray, *, axes: Optional[Sequence[int]]) -> np.ndarray:
    """Permute the dims (reverse them when `axes` is absent or empty)."""
    return np.transpose(data, tuple(axes) if axes else None).copy()


@kernel("expand_dims")
def expand_dims(data: np.ndarray, *, axis: int, num_newaxis: int) -> np.ndarray:
    """Insert `num_newaxis` dims of size 1 at `axis` (counted in the result's rank)."""
    rank = data.ndim + 1
    at = axis + rank if axis < 0 else axis
    shape = list(data.shape)
    shape[at:at] = [1] * num_newaxis
    return data.reshape(shape)


@kernel("squeeze")
def squeeze(data: np.ndarray, *, axis: Optional[Sequence[int]]) -> np.ndarray:
    """Drop size-1 dims: the listed ones, or all of them."""
    if axis is None:
        return np.squeeze(data)
    rank = data.ndim
    drop = {a + rank if a < 0 else a for a in axis}
    if any(data.shape[a] != 1 for a in drop):
        raise ValueError("squeeze of a dim that is not 1")
    return data.reshape([d for i, d in enumerate(data.shape) if i not in drop])


@kernel("broadcast_to")
def broadcast_to(data: np.ndarray, *, shape: Sequence[int]) -> np.ndarray:
    """`data` broadcast to a static shape."""
    return np.broadcast_to(data, tuple(shape)).copy()


@kernel("broadcast_to_like")
def broadcast_to_like(data: np.ndarray, like: np.ndarray) -> np.ndarray:
    """`data` broadcast to the shape of `like`."""
    return np.broadcast_to(data, like.shape).copy()


@kernel("collapse_sum_like")
def collapse_sum_like(data: np.ndarray, like: np.ndarray) -> np.ndarray:
    """`data` summed over the axes that broadcasting `like` to it added or stretched."""
    lead = data.ndim - like.ndim
    stretched = tuple(lead + i for i, n in enumerate(like.shape) if n == 1 and data.shape[lead + i] != 1)
    total = data.sum(axis=tuple(range(lead)) + stretched, keepdims=True, dtype=data.dtype)
    return total.reshape(like.shape)


@kernel("slice_like")
def slice_like(data: np.ndarray, like: np.ndarray, *, axes: Optional[Sequence[int]]) -> np.ndarray:
    """The first `like.shape[a]` elements of `data` along each axis a (every shared axis by default)."""
    chosen = [a % data.ndim for a in axes] if axes else range(min(data.ndim, like.ndim))
    index = [slice(None)] * data.ndim
    for a in chosen:
        index[a] = slice(0, like.shape[a])
    return data[tuple(index)]


@kernel("contrib_reverse_reshape")
def reverse_reshape(data: np.ndarray, *, newshape: Sequence[int]) -> np.ndarray:
    """Relay `reshape` codes read from the right."""
    flipped = relay_newshape(data.shape[::-1], list(newshape)[::-1])
    return data.reshape(tuple(flipped[::-1]))


@kernel("dyn.broadcast_to")
def dyn_broadcast_to(data: np.ndarray, target: np.ndarray) -> np.ndarray:
    """`data` broadcast to a shape given as a tensor."""
    return np.broadcast_to(data, tuple(int(v) for v in np.asarray(target).reshape(-1))).copy()


@kernel("reverse")
def reverse(data: np.ndarray, *, axis: int) -> np.ndarray:
    """The elements in reverse order along `axis`."""
    return np.flip(data, axis=axis).copy()


@kernel("tile")
def tile(data: np.ndarray, *, reps: Sequence[int]) -> np.ndarray:
    """The whole tensor repeated `reps` times per dim (aligned on the right)."""
    return np.tile(data, tuple(reps))


@kernel("repeat")
def repeat(data: np.ndarray, *, repeats: int, axis: int) -> np.ndarray:
    """Each element repeated `repeats` times along `axis`."""
    return np.repeat(data, repeats, axis=axis)


@kernel("split")
def split(data: np.ndarray, *, indices_or_sections: int | Sequence[int], axis: int) -> tuple:
    """Equal sections (an int) or the parts between increasing indices (a list)."""
    if isinstance(indices_or_sections, int):
        return tuple(np.split(data, indices_or_sections, axis=axis))
    return tuple(np.split(data, list(indices_or_sections), axis=axis))


# layouts and blocks -----------------------------------------------------------------------------
@kernel("layout_transform")
def layout_transform(data: np.ndarray, *, src_layout: str, dst_layout: str) -> np.ndarray:
    """The same elements in another (possibly packed) layout."""
    letters = "".join(c for c in src_layout if c.isupper())
    return unlayout(relayout(data, src_layout, letters), letters, dst_layout)


@kernel("nn.depth_to_space")
def depth_to_space(data: np.ndarray, *, block_size: int, layout: str, mode: str) -> np.ndarray:
    """Move channel blocks into b x b spatial blocks (DCR: depth-column-row, CRD: column-row-depth)."""
    x = relayout(data, layout, "NCHW")
    n, c, h, w = x.shape
    b = block_size
    x = x[:, : (c // (b * b)) * b * b]
    if mode == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return unlayout(y.reshape(n, c // (b * b), h * b, w * b), "NCHW", layout)


@kernel("nn.space_to_depth")
def space_to_depth(data: np.ndarray, *, block_size: int, layout: str) -> np.ndarray:
    """Move b x b spatial blocks into channels."""
    x = relayout(data, layout, "NCHW")
    n, c, h, w = x.shape
    b = block_size
    x = x[:, :, : (h // b) * b, : (w // b) * b]
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return unlayout(y.reshape(n, c * b * b, h // b, w // b), "NCHW", layout)


@kernel("matrix_set_diag")
def matrix_set_diag(
    data: np.ndarray,
    diagonal: np.ndarray,
    *,
    k1: int,
    k2: int,
    super_diag_right_align: bool,
    sub_diag_right_align: bool,
) -> np.ndarray:
    """The input with its diagonals k1..k2 replaced, batched over the leading dims. Each diagonal
    is a row of `diagonal` (the k2-th first; just the vector when k1 = k2), as long as the
    longest of the band; a shorter one fills its start, or its end where aligned right."""
    out = data.copy()
    m, n = data.shape[-2:]
    rows_of_band = diagonal if k1 != k2 else diagonal[..., None, :]
    width = diagonal.shape[-1]
    for k in range(k1, k2 + 1):
        rows = np.arange(max(0, -k), min(m, n - k))
        right = super_diag_right_align if k > 0 else sub_diag_right_align
        start = width - len(rows) if right else 0
        out[..., rows, rows + k] = rows_of_band[..., k2 - k, start : start + len(rows)]
    return out


def _ints(v: np.ndarray) -> list:
    return [int(x) for x in np.asarray(v).reshape(-1)]


@kernel("dyn.squeeze")
def dyn_squeeze(data: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """squeeze whose axes are a 1-D tensor."""
    return np.squeeze(data, axis=tuple(_ints(axes)))


@kernel("dyn.tile")
def dyn_tile(data: np.ndarray, repeats: np.ndarray) -> np.ndarray:
    """tile whose repeats are a 1-D tensor."""
    return np.tile(data, _ints(repeats))
