"""Convolution and pooling kernels over 1, 2 or 3 spatial dims, in Relay's conventions: any
layout of the letters (`NCHW`, `NHWC`, `NCW`, `NCDHW`, packed `NCHW4c`, kernels `OIHW`,
`HWIO`, `IOHW`...), padding of 1, k or 2k values (befores, then afters), strides, dilation and
groups, transposed convolutions with output_padding, pooling with `ceil_mode` and
`count_include_pad`, adaptive and global pooling. Every kernel works on the canonical layout
(`NC` then the spatial dims; `OI` then the kernel's) and converts at its edges."""

from __future__ import annotations

import itertools
from typing import Callable, Optional, Sequence

import numpy as np

from gradual.ops.layouts import parse_layout
from gradual.runtime.kernels.elementwise import lowest, same_dtype
from gradual.runtime.kernels.nn import accumulate, in_dtype
from gradual.runtime.kernels.registration import kernel

SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


# layouts -------------------------------------------------------------------------------------
def relayout(x: np.ndarray, layout: str, target: str) -> np.ndarray:
    """An array in `layout` (a permutation of `target`'s letters, possibly packed) rearranged to
    the plain layout `target`: packed dims are merged back into their whole dim."""
    axes = parse_layout(layout, target)
    if axes is None or x.ndim != len(axes):
        raise ValueError(f"unsupported layout {layout} for a rank-{x.ndim} tensor")
    order, sizes = [], []
    for letter in target:
        outer = next(i for i, a in enumerate(axes) if a.letter == letter)
        inner = [i for i, a in enumerate(axes) if a.factor is not None and a.primal == letter]
        order += [outer] + inner
        sizes.append(int(np.prod([x.shape[i] for i in [outer] + inner])))
    return np.ascontiguousarray(x.transpose(order)).reshape(sizes)


def unlayout(x: np.ndarray, source: str, layout: str) -> np.ndarray:
    """An array in the plain layout `source` rearranged to `layout` (splitting packed dims)."""
    axes = parse_layout(layout, source)
    if axes is None:
        raise ValueError(f"unsupported layout {layout}")
    split = {a.primal: a.factor for a in axes if a.factor is not None}
    shape, names = [], []
    for letter, size in zip(source, x.shape):
        if letter in split:
            if size % split[letter]:
                raise ValueError(f"{letter} = {size} does not split by {split[letter]}")
            shape += [size // split[letter], split[letter]]
            names += [letter, letter.lower()]
        else:
            shape.append(size)
            names.append(letter)
    parts = x.reshape(shape)
    return np.ascontiguousarray(parts.transpose([names.index(a.letter) for a in axes]))


# attributes ------------------------------------------------------------------------------------
def per_dim(values: Sequence[int], k: int) -> list:
    """k values from 1 or at least k (Relay prints `output_padding=[0, 0]` for 1-D)."""
    values = list(values)
    if len(values) == 1:
        return values * k
    if len(values) >= k:
        return values[:k]
    raise ValueError(f"expected 1 or {k} values, got {len(values)}")


def pads(values: Sequence[int], k: int) -> list:
    """(before, after) per spatial dim from 1, k or 2k values."""
    values = list(values)
    if len(values) == 1:
        return [(values[0], values[0])] * k
    if len(values) == 2 * k:
        return list(zip(values[:k], values[k:]))
    if len(values) == k:
        return [(v, v) for v in values]
    raise ValueError(f"padding takes 1, {k} or {2 * k} values, got {len(values)}")


def _window(x: np.ndarray, offsets: tuple, dilation: list, out: tuple, strides: list) -> np.ndarray:
    """The grid of `out` elements per spatial dim, starting at `offsets` (times the dilation),
    `strides` apart (the spatial dims are the trailing ones)."""
    index = [slice(None)] * (x.ndim - len(out))
    for o, d, n, s in zip(offsets, dilation, out, strides):
        index.append(slice(o * d, o * d + (n - 1) * s + 1, s))
    return x[tuple(index)]


# convolution ------------------------------------------------------------------------------------
def convolve(
    data: np.ndarray,
    weight: np.ndarray,
    spatial: str,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    data_layout: str,
    kernel_layout: str,
    out_layout: str,
    out_dtype: str,
) -> np.ndarray:
    """N-d convolution (cross-correlation, as Relay) with groups."""
    k = len(spatial)
    x = accumulate(relayout(data, data_layout, "NC" + spatial), out_dtype)
    w = accumulate(relayout(weight, kernel_layout, "OI" + spatial), out_dtype)
    x = np.pad(x, [(0, 0), (0, 0)] + pads(padding, k))
    s, d = per_dim(strides, k), per_dim(dilation, k)
    n, c = x.shape[:2]
    o = w.shape[0]
    if groups <= 0 or c % groups or o % groups:
        raise ValueError(f"channels ({c} in, {o} out) are not divisible by groups={groups}")
    out = tuple((size - (kk - 1) * dd - 1) // ss + 1 for size, kk, dd, ss in zip(x.shape[2:], w.shape[2:], d, s))
    result = np.zeros((n, o) + tuple(max(v, 0) for v in out), dtype=np.result_type(x, w))
    cg, og = c // groups, o // groups
    for g in range(groups if result.size and x.size and w.size else 0):  # empty: zeros, whatever groups says
        xg, wg = x[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og]
        for offsets in itertools.product(*(range(kk) for kk in w.shape[2:])):
            patch = _window(xg, offsets, d, out, s)
            result[:, g * og : (g + 1) * og] += np.einsum(
                "nc...,oc->no...", patch, wg[(slice(None), slice(None)) + offsets]
            )
    return in_dtype(unlayout(result, "NC" + spatial, out_layout or data_layout), data, out_dtype)


@kernel("nn.contrib_conv2d_NCHWc")
def conv2d_nchwc(
    data: np.ndarray,
    weight: np.ndarray,
    *,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    data_layout: str,
    out_layout: str,
    out_dtype: str,
) -> np.ndarray:
    """topi's conv2d_NCHWc: the packed weight (oc, ic, kh, kw, ib, ob) read as OIHW (output
    channel o * ob + j, input channel i * ib + k), then conv2d."""
    oc, ic, kh, kw, ib, ob = weight.shape
    plain = weight.transpose(0, 5, 1, 4, 2, 3).reshape(oc * ob, ic * ib, kh, kw)
    return convolve(data, plain, "HW", strides, padding, dilation, 1, data_layout, "OIHW", out_layout, out_dtype)


def convolve_transposed(
    data: np.ndarray,
    weight: np.ndarray,
    spatial: str,
    strides: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    data_layout: str,
    kernel_layout: str,
    out_layout: str,
    out_dtype: str,
) -> np.ndarray:
    """The transpose (gradient) of a convolution: each input element scatters a scaled kernel."""
    k = len(spatial)
    x = accumulate(relayout(data, data_layout, "NC" + spatial), out_dtype)
    w = accumulate(relayout(weight, kernel_layout, "IO" + spatial), out_dtype)
    s, d, extra = per_dim(strides, k), per_dim(dilation, k), per_dim(output_padding, k)
    n, c = x.shape[:2]
    og = w.shape[1]
    if groups <= 0 or c % groups:
        raise ValueError(f"{c} input channels are not divisible by groups={groups}")
    full = tuple(
        (size - 1) * ss + (kk - 1) * dd + 1 + e for size, kk, dd, ss, e in zip(x.shape[2:], w.shape[2:], d, s, extra)
    )
    result = np.zeros((n, og * groups) + full, dtype=np.result_type(x, w))
    cg = c // groups
    for g in range(groups if result.size and x.size and w.size else 0):  # empty: zeros, whatever groups says
        xg, wg = x[:, g * cg : (g + 1) * cg], w[g * cg : (g + 1) * cg]
        for offsets in itertools.product(*(range(kk) for kk in w.shape[2:])):
            target = _window(result[:, g * og : (g + 1) * og], offsets, d, x.shape[2:], s)
            target += np.einsum("nc...,co->no...", xg, wg[(slice(None), slice(None)) + offsets])
    crop = [slice(None), slice(None)]
    for size, (before, after) in zip(full, pads(padding, k)):
        if size - before - after < 0:
            raise ValueError("the padding is larger than the output")
        crop.append(slice(before, size - after))
    return in_dtype(unlayout(result[tuple(crop)], "NC" + spatial, out_layout or data_layout), data, out_dtype)


@kernel("nn.conv2d_backward_weight")
def conv2d_backward_weight(
    grad: np.ndarray,
    data: np.ndarray,
    *,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    kernel_size: Sequence[int],
    data_layout: str,
    kernel_layout: str,
    out_layout: str = "",
    out_dtype: str = "",
) -> np.ndarray:
    """The gradient of conv2d's weight: each tap correlates the input with the output gradient."""
    g = accumulate(relayout(grad, data_layout, "NCHW"), out_dtype)
    x = accumulate(relayout(data, kernel_layout, "NCHW"), out_dtype)
    x = np.pad(x, [(0, 0), (0, 0)] + pads(padding, 2))
    s, d, ks = per_dim(strides, 2), per_dim(dilation, 2), per_dim(kernel_size, 2)
    o, c = g.shape[1], x.shape[1]
    if groups <= 0 or c % groups or o % groups:
        raise ValueError(f"channels ({c} in, {o} out) are not divisible by groups={groups}")
    cg, og = c // groups, o // groups
    weight = np.zeros((o, cg) + tuple(ks), dtype=np.result_type(g, x))
    for offsets in itertools.product(*(range(kk) for kk in ks)):
        patch = _window(x, offsets, d, g.shape[2:], s)
        for gi in range(groups):
            weight[(slice(gi * og, (gi + 1) * og), slice(None)) + offsets] = np.einsum(
                "nohw,nchw->oc", g[:, gi * og : (gi + 1) * og], patch[:, gi * cg : (gi + 1) * cg]
            )
    return in_dtype(unlayout(weight, "OIHW", out_layout or "OIHW"), grad, out_dtype)


def _bilinear(x: np.ndarray, py: np.ndarray, px: np.ndarray) -> np.ndarray:
    """x (N, C, H, W) sampled at fractional (py, px) of shape (N, OH, OW), zero outside."""
    h, w = x.shape[2:]
    y0, x0 = np.floor(py), np.floor(px)
    batch = np.arange(x.shape[0])[:, None, None]
    out = np.zeros(x.shape[:2] + py.shape[1:])
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yy, xx = y0 + dy, x0 + dx
        weight = (1 - np.abs(py - yy)) * (1 - np.abs(px - xx))
        valid = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        values = x[batch, :, np.clip(yy, 0, h - 1).astype(np.int64), np.clip(xx, 0, w - 1).astype(np.int64)]
        out += (np.where(valid, weight, 0.0)[..., None] * values).transpose(0, 3, 1, 2)
    return out


@kernel("nn.deformable_conv2d")
def deformable_conv2d(
    data: np.ndarray,
    offset: np.ndarray,
    weight: np.ndarray,
    *,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    deformable_groups: int,
    groups: int,
    data_layout: str,
    kernel_layout: str,
    out_layout: str = "",
    out_dtype: str = "",
) -> np.ndarray:
    """conv2d whose tap (i, j) reads each output position's input at a learned fractional offset
    (bilinear, zero outside), per deformable group of channels."""
    x = relayout(data, data_layout, "NCHW").astype(np.float64)
    off = relayout(offset, data_layout, "NCHW").astype(np.float64)
    w = relayout(weight, kernel_layout, "OIHW").astype(np.float64)
    (top, bottom), (left, right) = pads(padding, 2)
    (sh, sw), (dh, dw) = per_dim(strides, 2), per_dim(dilation, 2)
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    oh, ow = off.shape[2:]
    if groups <= 0 or c % groups or o % groups or c % deformable_groups:
        raise ValueError("channels are not divisible by the groups")
    base_y = (np.arange(oh) * sh - top)[:, None]
    base_x = (np.arange(ow) * sw - left)[None, :]
    per_group = c // deformable_groups
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for i, j in itertools.product(range(kh), range(kw)):
        sampled = np.zeros((n, c, oh, ow))
        for g in range(deformable_groups):
            at = 2 * (g * kh * kw + i * kw + j)
            py, px = base_y + i * dh + off[:, at], base_x + j * dw + off[:, at + 1]
            sampled[:, g * per_group : (g + 1) * per_group] = _bilinear(
                x[:, g * per_group : (g + 1) * per_group], py, px
            )
        for gi in range(groups):
            out[:, gi * og : (gi + 1) * og] += np.einsum(
                "nchw,oc->nohw", sampled[:, gi * cg : (gi + 1) * cg], w[gi * og : (gi + 1) * og, :, i, j]
            )
    return in_dtype(unlayout(out, "NCHW", out_layout or data_layout), data, out_dtype)


# pooling ----------------------------------------------------------------------------------------
def _pool_geometry(size: int, k: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> tuple:
    """(output size, extra padding at the end so every window fits)."""
    span = (k - 1) * dilation + 1
    padded = size + pad
    if ceil_mode:
        out = (padded - span + stride - 1) // stride + 1
    else:
        out = (padded - span) // stride + 1
    extra = max(0, (out - 1) * stride + span - padded)
    return out, extra


def pool(
    data: np.ndarray,
    spatial: str,
    pool_size: Sequence[int],
    strides: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    layout: str,
    out_layout: str,
    ceil_mode: bool,
    kind: str,
    count_include_pad: bool = False,
) -> np.ndarray:
    """Max or average pooling over the spatial dims."""
    k = len(spatial)
    x = relayout(data, layout, "NC" + spatial)
    ks, s, d = per_dim(pool_size, k), per_dim(strides, k), per_dim(dilation, k)
    explicit = pads(padding, k)
    geometry = [
        _pool_geometry(size, kk, b + a, ss, dd, bool(ceil_mode))
        for size, kk, (b, a), ss, dd in zip(x.shape[2:], ks, explicit, s, d)
    ]
    out = tuple(o for o, _ in geometry)
    if any(o <= 0 for o in out):
        raise ValueError("the pooling window is larger than the padded input")
    full = [(0, 0), (0, 0)] + [(b, a + e) for (b, a), (_, e) in zip(explicit, geometry)]
    if kind == "max":
        result = _max_windows(x, full, ks, d, out, s)
    else:
        result = _avg_windows(x, full, explicit, ks, d, out, s, count_include_pad)
    return unlayout(same_dtype(data, result), "NC" + spatial, out_layout or layout)


def _max_windows(x: np.ndarray, full: list, ks: list, d: list, out: tuple, s: list) -> np.ndarray:
    padded = np.pad(x, full, constant_values=lowest(x.dtype))
    result = None
    for offsets in itertools.product(*(range(kk) for kk in ks)):
        window = _window(padded, offsets, d, out, s)
        result = window.copy() if result is None else np.maximum(result, window)
    assert result is not None, "a window has a tap: the rules hold pool sizes to at least 1"
    return result


def _avg_windows(
    x: np.ndarray, full: list, explicit: list, ks: list, d: list, out: tuple, s: list, count_include_pad: bool
) -> np.ndarray:
    padded = np.pad(x.astype(np.float64), full)
    counted = np.ones((1, 1) + x.shape[2:])
    if count_include_pad:
        counted = np.pad(counted, [(0, 0), (0, 0)] + explicit, constant_values=1)
        counted = np.pad(counted, [(0, 0), (0, 0)] + [(0, f[1] - e[1]) for f, e in zip(full[2:], explicit)])
    else:
        counted = np.pad(counted, full)
    total = np.zeros(x.shape[:2] + out)
    count = np.zeros((1, 1) + out)
    for offsets in itertools.product(*(range(kk) for kk in ks)):
        total += _window(padded, offsets, d, out, s)
        count += _window(counted, offsets, d, out, s)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


def pool2d_grad(
    out_grad: np.ndarray,
    data: np.ndarray,
    pool_size: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[int],
    layout: str,
    ceil_mode: bool,
    kind: str,
    count_include_pad: bool = False,
) -> np.ndarray:
    """The gradient of 2-D pooling for the data: each window's out_grad goes to its first
    largest element (max; padding counts as the lowest value) or is divided among the elements
    it averaged (avg: by the window's size with count_include_pad, else by the data elements in
    it; topi's gradient, which with ceil_mode differs from its forward average)."""
    x = relayout(data, layout, "NCHW")
    g = relayout(out_grad, layout, "NCHW").astype(np.float64)
    ks, s = list(pool_size), list(strides)
    explicit = pads(padding, 2)
    geometry = [
        _pool_geometry(size, kk, b + a, ss, 1, bool(ceil_mode))
        for size, kk, (b, a), ss in zip(x.shape[2:], ks, explicit, s)
    ]
    out = tuple(o for o, _ in geometry)
    full = [(0, 0), (0, 0)] + [(b, a + e) for (b, a), (_, e) in zip(explicit, geometry)]
    grad = np.zeros(tuple(n + b + a for n, (b, a) in zip(x.shape, full)))
    offsets = list(itertools.product(range(ks[0]), range(ks[1])))
    if kind == "max" and all(out):
        padded = np.pad(x, full, constant_values=lowest(x.dtype))
        first = np.argmax(np.stack([_window(padded, o, [1, 1], out, s) for o in offsets]), axis=0)
        shares = [np.where(first == i, g, 0.0) for i in range(len(offsets))]
    elif all(out) and count_include_pad:  # the whole window, even past the padding (topi's pool_grad)
        shares = [g / (ks[0] * ks[1])] * len(offsets)
    elif all(out):
        counted = np.pad(np.ones((1, 1) + x.shape[2:]), full)
        count = sum(_window(counted, o, [1, 1], out, s) for o in offsets)
        shares = [g / np.maximum(count, 1)] * len(offsets)
    else:
        shares = []
    for share, o in zip(shares, offsets):
        _window(grad, o, [1, 1], out, s)[...] += share
    (top, _), (left, _) = explicit
    inside = grad[:, :, top : top + x.shape[2], left : left + x.shape[3]]
    return unlayout(same_dtype(data, inside), "NCHW", layout)


@kernel("nn.max_pool2d_grad")
def max_pool2d_grad(
    out_grad: np.ndarray,
    data: np.ndarray,
    *,
    pool_size: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[int],
    layout: str,
    ceil_mode: bool,
) -> np.ndarray:
    return pool2d_grad(out_grad, data, pool_size, strides, padding, layout, ceil_mode, "max")


@kernel("nn.avg_pool2d_grad")
def avg_pool2d_grad(
    out_grad: np.ndarray,
    data: np.ndarray,
    *,
    pool_size: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[int],
    layout: str,
    ceil_mode: bool,
    count_include_pad: bool,
) -> np.ndarray:
    return pool2d_grad(out_grad, data, pool_size, strides, padding, layout, ceil_mode, "avg", count_include_pad)


@kernel("nn.correlation")
def correlation(
    data1: np.ndarray,
    data2: np.ndarray,
    *,
    kernel_size: int,
    max_displacement: int,
    stride1: int,
    stride2: int,
    padding: Sequence[int],
    is_multiply: bool,
) -> np.ndarray:
    """topi's correlation_nchw: per displacement, the mean over channels and the kernel window
    of data1 * data2 (or |data1 - data2|) at output positions stride1 apart."""
    n, c = data1.shape[:2]
    explicit = pads(padding, 2)
    full = [(0, 0), (0, 0)] + explicit
    one, two = np.pad(data1.astype(np.float64), full), np.pad(data2.astype(np.float64), full)
    border = max_displacement + (kernel_size - 1) // 2
    out_h, out_w = ((size - 2 * border + stride1 - 1) // stride1 for size in one.shape[2:])
    radius = max_displacement // stride2
    side = 2 * radius + 1
    out = np.zeros((n, side * side, max(out_h, 0), max(out_w, 0)))
    if out.size:
        for q in range(side * side):
            dy, dx = (q // side - radius) * stride2, (q % side - radius) * stride2
            for ry, rx in itertools.product(range(kernel_size), repeat=2):
                y, x = max_displacement + ry, max_displacement + rx
                a = one[:, :, y : y + (out_h - 1) * stride1 + 1 : stride1, x : x + (out_w - 1) * stride1 + 1 : stride1]
                b = two[
                    :,
                    :,
                    y + dy : y + dy + (out_h - 1) * stride1 + 1 : stride1,
                    x + dx : x + dx + (out_w - 1) * stride1 + 1 : stride1,
                ]
                out[:, q] += (a * b if is_multiply else np.abs(a - b)).sum(axis=1)
    return same_dtype(data1, out / (kernel_size * kernel_size * c))


def adaptive(
    data: np.ndarray, spatial: str, output_size: Optional[Sequence[int]], layout: str, out_layout: str, reduce: Callable
) -> np.ndarray:
    """`reduce` (np.mean or np.max) over `output_size` bins per spatial dim (the input's sizes
    when none). A box's mean or max is that of its axes' in turn, so each axis is pooled on
    its own, vectorised (`adaptive_axis`): the axes that shrink first, so that no step holds
    much more than the input or the output (a loop per output element took minutes for an
    output_size of 10^6)."""
    k = len(spatial)
    x = relayout(data, layout, "NC" + spatial).astype(np.float64)
    sizes = per_dim(output_size, k) if output_size else list(x.shape[2:])
    order = sorted(range(k), key=lambda i: sizes[i] / max(x.shape[2 + i], 1))
    for i in order:
        x = adaptive_axis(x, 2 + i, sizes[i], reduce is np.max)
    return unlayout(same_dtype(data, x), "NC" + spatial, out_layout or layout)


def adaptive_axis(x: np.ndarray, axis: int, count: int, take_max: bool) -> np.ndarray:
    """Adaptive mean (or max) pooling of one axis into `count` bins (bin i covers
    [floor(i * size / count), ceil((i + 1) * size / count))): each bin's
    elements gathered into a last dim as long as the longest bin (a shorter bin repeats its
    last element, masked out of a mean), then reduced."""
    size = x.shape[axis]
    i = np.arange(count)
    start, end = (i * size) // count, -((-(i + 1) * size) // count)
    longest = int((end - start).max()) if count else 0
    index = np.minimum(start[:, None] + np.arange(longest)[None, :], (end - 1)[:, None])
    y = np.moveaxis(x, axis, -1)[..., index]
    if take_max:
        out = y.max(axis=-1) if longest else y.sum(axis=-1)
    else:
        inside = np.arange(longest)[None, :] < (end - start)[:, None]
        out = np.where(inside, y, 0.0).sum(axis=-1) / np.maximum(end - start, 1)
    return np.moveaxis(out, -1, axis)


# registration -----------------------------------------------------------------------------------
def _register(k: int) -> None:
    spatial = SPATIAL[k]

    @kernel(f"nn.conv{k}d")
    def conv(
        data: np.ndarray,
        weight: np.ndarray,
        *,
        strides: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int],
        groups: int,
        data_layout: str,
        kernel_layout: str,
        out_layout: str = "",
        out_dtype: str = "",
    ) -> np.ndarray:
        return convolve(
            data, weight, spatial, strides, padding, dilation, groups, data_layout, kernel_layout, out_layout, out_dtype
        )

    @kernel(f"nn.conv{k}d_transpose")
    def conv_transpose(
        data: np.ndarray,
        weight: np.ndarray,
        *,
        strides: Sequence[int],
        padding: Sequence[int],
        output_padding: Sequence[int],
        dilation: Sequence[int],
        groups: int,
        data_layout: str,
        kernel_layout: str,
        out_layout: str = "",
        out_dtype: str = "",
    ) -> np.ndarray:
        return convolve_transposed(
            data,
            weight,
            spatial,
            strides,
            padding,
            output_padding,
            dilation,
            groups,
            data_layout,
            kernel_layout,
            out_layout,
            out_dtype,
        )

    @kernel(f"nn.max_pool{k}d")
    def max_pool(
        data: np.ndarray,
        *,
        pool_size: Sequence[int],
        strides: Sequence[int],
        dilation: Sequence[int],
        padding: Sequence[int],
        layout: str,
        ceil_mode: bool,
        out_layout: str = "",
    ) -> np.ndarray:
        return pool(data, spatial, pool_size, strides, dilation, padding, layout, out_layout, ceil_mode, "max")

    @kernel(f"nn.avg_pool{k}d")
    def avg_pool(
        data: np.ndarray,
        *,
        pool_size: Sequence[int],
        strides: Sequence[int],
        dilation: Sequence[int],
        padding: Sequence[int],
        layout: str,
        ceil_mode: bool,
        count_include_pad: bool,
        out_layout: str = "",
    ) -> np.ndarray:
        return pool(
            data,
            spatial,
            pool_size,
            strides,
            dilation,
            padding,
            layout,
            out_layout,
            ceil_mode,
            "avg",
            count_include_pad,
        )

    @kernel(f"nn.adaptive_avg_pool{k}d")
    def adaptive_avg(
        data: np.ndarray, *, output_size: Optional[Sequence[int]], layout: str, out_layout: str = ""
    ) -> np.ndarray:
        return adaptive(data, spatial, output_size, layout, out_layout, np.mean)

    @kernel(f"nn.adaptive_max_pool{k}d")
    def adaptive_max(
        data: np.ndarray, *, output_size: Optional[Sequence[int]], layout: str, out_layout: str = ""
    ) -> np.ndarray:
        return adaptive(data, spatial, output_size, layout, out_layout, np.max)


for _k in SPATIAL:
    _register(_k)


@kernel("nn.global_avg_pool2d")
def global_avg_pool2d(data: np.ndarray, *, layout: str, out_layout: str = "") -> np.ndarray:
    """The mean over the spatial dims, kept as 1 x 1."""
    x = relayout(data, layout, "NCHW")
    return unlayout(same_dtype(data, np.mean(x, axis=(2, 3), keepdims=True)), "NCHW", out_layout or layout)


@kernel("nn.global_max_pool2d")
def global_max_pool2d(data: np.ndarray, *, layout: str, out_layout: str = "") -> np.ndarray:
    """The maximum over the spatial dims, kept as 1 x 1."""
    x = relayout(data, layout, "NCHW")
    return unlayout(np.max(x, axis=(2, 3), keepdims=True), "NCHW", out_layout or layout)
