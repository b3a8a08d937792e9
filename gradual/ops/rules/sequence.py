"""Relay's scans, sequence and grid operators: cumsum, cumprod, reverse_sequence, trilu, stft,
searchsorted, meshgrid, sliding_window and collapse_sum_to.

Where Relay's relation leaves a condition to the kernel (trilu's two matrix dims, stft's window
against its frame, sliding_window's dims against the window), the rule checks it: a call that
checks clean never stops inside the kernel for its shapes or attributes.
"""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, axis_rank, normalize_axis, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    require_choice,
    require_entries,
    require_length,
    require_positive,
    require_rank_of,
)
from gradual.ops.rules.operands import require_float, require_indices
from gradual.ops.tables import shape_rule

register_rule_message(
    "same-axis",
    codes.BAD_ATTRIBUTE,
    "{op} got {first}={value} and {second}={value}: they must name two different dims",
    "choose different axes for `{first}` and `{second}`",
)

INDEXING = ("ij", "xy")


@shape_rule("scan")
def scan(ctx: ShapeContext) -> Any:
    """`cumsum(x, axis, dtype, exclusive)` and `cumprod`: x's shape along an axis; without one,
    a vector of every element. The result has `dtype`, else x's."""
    (data,) = ctx.operands()
    dtype = ctx.attr("dtype") or data.dtype
    axis = ctx.attr("axis")
    if axis is None:
        if data.dims is None:
            return ctx.tensor([ctx.unknown()], dtype)
        return ctx.tensor([product(ctx, data.dims)], dtype)
    ctx.require_rank_at_least(data, axis_rank(axis))
    if data.dims is not None:
        normalize_axis(ctx, axis, len(data.dims))
    return ctx.tensor(data.dims, dtype)


@shape_rule("reverse_sequence")
def reverse_sequence(ctx: ShapeContext) -> Any:
    """`reverse_sequence(x, seq_lengths, seq_axis, batch_axis)`: x's shape; seq_lengths is an
    integer vector as long as x's batch dim; the two axes are different dims of x."""
    data, lengths = ctx.operands()
    require_indices(ctx, lengths)
    ctx.require_rank(lengths, 1)
    seq, batch = ctx.attr("seq_axis"), ctx.attr("batch_axis")
    ctx.require_rank_at_least(data, max(2, axis_rank(seq), axis_rank(batch)))
    if data.dims is not None:
        rank = len(data.dims)
        seq_at = normalize_axis(ctx, seq, rank, "seq_axis")
        batch_at = normalize_axis(ctx, batch, rank, "batch_axis")
        if seq_at == batch_at:
            ctx.fail("same-axis", first="seq_axis", second="batch_axis", value=seq)
        ctx.equal(lengths.dim(0), data.dim(batch_at), symbol="batch")
    return ctx.tensor(data.dims)


@shape_rule("trilu")
def trilu(ctx: ShapeContext) -> Any:
    """`trilu(x, k, upper)`: x's shape; x is a matrix or a batch of them (its last two dims),
    k an integer scalar."""
    data = ctx.operand(0)  # the contract: k an integer scalar, data a stack of matrices
    return ctx.tensor(data.dims)


@shape_rule("stft")
def stft(ctx: ShapeContext) -> Any:
    """`stft(x, window, n_fft, hop_length, win_length, normalized, onesided)`: x is a signal (n)
    or a batch (b, n) of at least n_fft samples; the result is ((b,) bins, frames, 2)."""
    data, window = ctx.operands()
    require_float(ctx, data)
    n_fft = require_positive(ctx, "n_fft", ctx.attr("n_fft"))
    hop = require_positive(ctx, "hop_length", ctx.attr("hop_length"))
    win = require_positive(ctx, "win_length", ctx.attr("win_length"))
    if win > n_fft:
        ctx.fail("attribute-range", name="win_length", value=win, needed=f"at most n_fft ({n_fft})")
    ctx.require_rank(window, 1)
    ctx.within(window.dim(0), win, None)  # the kernel reads win_length weights
    if data.dims is None:
        ctx.require_rank_at_least(data, 1)
        return ctx.tensor(None)
    if len(data.dims) not in (1, 2):
        require_rank_of(ctx, data, 2, "a signal, or a batch of them")
    frames = windows(ctx, data, len(data.dims) - 1, n_fft, hop)
    bins = ctx.const(n_fft // 2 + 1 if ctx.attr("onesided") else n_fft)
    lead = [data.dim(0)] if len(data.dims) == 2 else []
    return ctx.tensor(lead + [bins, frames, ctx.const(2)])


def windows(ctx: ShapeContext, data: TensorArg, axis: int, window: int, stride: int) -> Any:
    """How many windows of `window` elements, `stride` apart, fit in dim `axis` of data: the
    window must fit (a static misfit fails; elsewhere the fit is checked before the kernel)."""
    size = data.dim(axis)
    have = ctx.static(size)
    if have is not None and have < window:
        ctx.fail("window-too-large", arg=data, axis=axis, dim=have, pad=0, window=window)
    count = (size - ctx.const(window)) // ctx.const(stride) + ctx.const(1)
    if ctx.at_least(count, 0) is not True:
        ctx.assume_within(size, window, None)
    else:
        ctx.within(size, window, None)
    return count


@shape_rule("searchsorted")
def searchsorted(ctx: ShapeContext) -> Any:
    """`searchsorted(sorted, values, right, dtype)`: the values' shape (at least one dim), in
    dtype; a sorted sequence of more than one dim has the values' rank and leading dims."""
    sequence, values = ctx.operands()
    ctx.require_rank_at_least(values, 1)
    ctx.require_rank_at_least(sequence, 1)
    if sequence.dims is not None and len(sequence.dims) > 1:
        rank = len(sequence.dims)
        require_rank_of(ctx, values, rank, "the sorted sequence's")
        for i in range(rank - 1):
            ctx.equal(values.dim(i), sequence.dim(i))
    return ctx.tensor(values.dims, ctx.attr("dtype"))


@shape_rule("meshgrid")
def meshgrid(ctx: ShapeContext) -> Any:
    """`meshgrid((x0, x1, ...), indexing)`: scalars and vectors of one dtype (n0, n1, ...) give
    as many grids (n0, n1, ...), the first two dims swapped for "xy"."""
    require_choice(ctx, "indexing", ctx.attr("indexing"), INDEXING)
    fields = ctx.list_operand(0)
    if fields is None:
        return ctx.tensor(None)
    if not fields:
        ctx.fail("tuple-length", arg=ctx.tuple_operand(0), actual="no fields", expected="at least one scalar or vector")
    dims = []
    for f in fields:
        if f.dims is None:  # a scalar or a vector: which one is decided where the rule runs on it
            dims.append(ctx.unknown())
        elif len(f.dims) > 1:
            ctx.fail("rank", arg=f, actual=len(f.dims), expected="0 or 1")
        else:
            dims.append(f.dim(0) if f.dims else ctx.const(1))
    first = fields[0].dtype
    for f in fields[1:]:
        ctx.same_dtype(first, f.dtype)
    if ctx.attr("indexing") == "xy" and len(dims) >= 2:
        dims[0], dims[1] = dims[1], dims[0]
    return ctx.tuple([ctx.tensor(list(dims), first) for _ in fields])


@shape_rule("sliding_window")
def sliding_window(ctx: ShapeContext) -> Any:
    """`sliding_window(x, axis, window_shape, strides)`: windows over the dims from axis on
    (one window entry and stride per dim, each window at most its dim): x's leading dims, the
    window counts, then the window's dims."""
    (data,) = ctx.operands()
    axis = ctx.attr("axis")
    if axis < 0:
        ctx.fail("attribute-range", name="axis", value=axis, needed="at least 0")
    sizes = require_entries(ctx, "window_shape", list(ctx.attr("window_shape")))
    if not sizes:
        ctx.fail("attribute-range", name="window_shape", value="[]", needed="one entry per dim from axis on")
    strides = require_entries(ctx, "strides", list(ctx.attr("strides")))
    require_length(ctx, "strides", strides, [len(sizes)])
    ctx.require_possible_rank(data, axis + len(sizes))
    ctx.require_rank(data, axis + len(sizes))  # one window entry per dim from axis on
    if data.dims is None:
        return ctx.tensor(None)
    counts = [windows(ctx, data, axis + i, window, stride) for i, (window, stride) in enumerate(zip(sizes, strides))]
    return ctx.tensor(list(data.dims[:axis]) + counts + [ctx.const(w) for w in sizes])


@shape_rule("collapse_sum_to")
def collapse_sum_to(ctx: ShapeContext) -> Any:
    """`collapse_sum_to(x, shape)`: x summed down to a shape (the `shape` attribute, else the
    vector's known values) that broadcasts to x's shape."""
    data, shape = ctx.operands()
    require_indices(ctx, shape)
    ctx.require_rank(shape, 1)
    attr = ctx.attr("shape")
    if attr is not None:
        target = [ctx.const(v) for v in require_entries(ctx, "shape", list(attr), allow_zero=True)]
        ctx.equal(shape.dim(0), ctx.const(len(target)), symbol="the shape's length")
    elif shape.value is not None:
        target = []
        for v in shape.value:
            known = v if isinstance(v, int) else ctx.static(v)  # a plain int: a negative element
            if known is not None and known < 0:
                ctx.fail("attribute-range", name="shape", value=known, needed="a shape (no negative dims)")
            target.append(v if known is None else ctx.const(known))
    else:
        length = ctx.static(shape.dim(0))
        if length is None or data.dims is None:
            return ctx.tensor(None)
        target = [ctx.unknown() for _ in range(length)]
    if data.dims is None:
        return ctx.tensor(target)
    if len(target) > len(data.dims):
        ctx.fail("rank", arg=shape, actual=len(target), expected=f"at most {len(data.dims)} entries")
    offset = len(data.dims) - len(target)
    out = []
    for axis, t in enumerate(target):
        d = data.dim(offset + axis)
        size, wanted = ctx.static(t), ctx.static(d)
        if size is not None and wanted is not None and size not in (1, wanted):
            ctx.fail("broadcast-target", arg=shape, axis=axis, dim=size, target=wanted)
        if ctx.exact(t):
            ctx.broadcast(t, d)  # t is 1 or d (d of 1 with a larger t: stopped above once known)
        out.append(t)
    return ctx.tensor(out)
