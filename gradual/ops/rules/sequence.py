"""Relay's scans, sequence and grid operators: cumsum, cumprod, reverse_sequence, trilu, stft,
searchsorted, meshgrid, sliding_window and collapse_sum_to.

Where Relay's relation leaves a condition to the kernel (trilu's two matrix dims, stft's window
against its frame, sliding_window's dims against the window), the rule checks it: a call that
checks clean never stops inside the kernel for its shapes or attributes.
"""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import axis_index
from gradual.ops.tables import shape_rule

register_rule_message(
    "same-axis",
    codes.BAD_ATTRIBUTE,
    "{op} got {first}={value} and {second}={value}: they must name two different dims",
    "choose different axes for `{first}` and `{second}`",
)


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
    return ctx.tensor(data.dims, dtype)  # the contract holds axis to a dim of data


@shape_rule("reverse_sequence")
def reverse_sequence(ctx: ShapeContext) -> Any:
    """`reverse_sequence(x, seq_lengths, seq_axis, batch_axis)`: x's shape; seq_lengths is an
    integer vector as long as x's batch dim; the two axes are different dims of x."""
    data, lengths = ctx.operands()  # the contract: integer lengths (b,), both axes dims of data
    seq, batch = ctx.attr("seq_axis"), ctx.attr("batch_axis")
    if data.dims is not None:
        rank = len(data.dims)
        seq_at, batch_at = axis_index(seq, rank), axis_index(batch, rank)
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
    data = ctx.operand(0)  # the contract: float data of rank 1 or 2, the attributes, a long enough window
    n_fft, hop = ctx.attr("n_fft"), ctx.attr("hop_length")
    if data.dims is None or len(data.dims) not in (1, 2):
        return ctx.tensor(None)
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
    sequence, values = ctx.operands()  # the contract: ranks at least 1, equal when the sequence's is not 1
    if sequence.dims is not None and len(sequence.dims) > 1 and values.dims is not None:
        for i in range(len(sequence.dims) - 1):
            ctx.equal(values.dim(i), sequence.dim(i))
    return ctx.tensor(values.dims, ctx.attr("dtype"))


@shape_rule("meshgrid")
def meshgrid(ctx: ShapeContext) -> Any:
    """`meshgrid((x0, x1, ...), indexing)`: scalars and vectors of one dtype (n0, n1, ...) give
    as many grids (n0, n1, ...), the first two dims swapped for "xy"."""
    fields = ctx.list_operand(0)  # the contract: at least one, each a scalar or a vector
    if fields is None:
        return ctx.tensor(None)
    dims = []
    for f in fields:
        if f.dims is None:  # a scalar or a vector: which one is decided where the rule runs on it
            dims.append(ctx.unknown())
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
    (data,) = ctx.operands()  # the contract: axis >= 0, one window entry and stride per dim from it on
    axis = ctx.attr("axis")
    sizes, strides = list(ctx.attr("window_shape")), list(ctx.attr("strides"))
    if data.dims is None or len(data.dims) != axis + len(sizes):
        return ctx.tensor(None)
    counts = [windows(ctx, data, axis + i, window, stride) for i, (window, stride) in enumerate(zip(sizes, strides))]
    return ctx.tensor(list(data.dims[:axis]) + counts + [ctx.const(w) for w in sizes])


@shape_rule("collapse_sum_to")
def collapse_sum_to(ctx: ShapeContext) -> Any:
    """`collapse_sum_to(x, shape)`: x summed down to a shape (the `shape` attribute, else the
    vector's known values) that broadcasts to x's shape."""
    data, shape = ctx.operands()  # the contract: an integer vector of sizes (r,), the attribute r sizes
    attr = ctx.attr("shape")
    if attr is not None:
        target = [ctx.const(v) for v in attr]
    elif shape.value is not None:
        target = []
        for v in shape.value:
            known = v if isinstance(v, int) else ctx.static(v)
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
