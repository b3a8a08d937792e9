"""Neural-network operators whose shapes depend on attributes: dense and matmul with `units`
and `out_dtype`, bias_add, softmax's axis, batch_flatten, the normalizations, and nn.pad.
Convolution and pooling live in conv.py."""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import distinct_axes, dtype_name, known_dims, show_ints
from gradual.ops.rules.elementwise import broadcast_pair
from gradual.ops.tables import shape_rule

register_rule_message(
    "pad-width",
    codes.BAD_ATTRIBUTE,
    "{op} needs pad_width to be one [before, after] pair per dim of the input (rank {rank}), but got {pad_width}",
    "write pad_width=[[before, after], ...] with {rank} pairs",
)


def _out_dtype(ctx: ShapeContext) -> Any:
    """The `out_dtype` attribute when set ("" keeps the inputs' dtype)."""
    return ctx.attr("out_dtype") or None


def product_operands(ctx: ShapeContext) -> None:
    """The two operands of a product have one dtype unless `out_dtype` is given (quantized
    arithmetic: uint8 data by int8 weights accumulated in int32, as Relay allows). An operand
    of unknown dtype is taken to have the other's, as Relay infers an unannotated weight."""
    a, b = ctx.operand(0).dtype, ctx.operand(1).dtype
    if not ctx.attr("out_dtype") or dtype_name(a) is None or dtype_name(b) is None:
        ctx.same_dtype(a, b)


# dense and matmul -------------------------------------------------------------------------------
@shape_rule("dense")
def dense(ctx: ShapeContext) -> Any:
    """`nn.dense(x, w, units, out_dtype)`: (*b, k) x (u, k) -> (*b, u) (the signature checks k,
    the contract `units`)."""
    data, weight = ctx.operand(0), ctx.operand(1)  # qnn.dense adds zero points and scales after them
    product_operands(ctx)
    if data.dims is None or weight.dims is None:
        return ctx.tensor(None, _out_dtype(ctx))
    return ctx.tensor(list(data.dims[:-1]) + [weight.dim(0)], _out_dtype(ctx))


@shape_rule("matmul")
def matmul(ctx: ShapeContext) -> Any:
    """`nn.matmul(a, b, units, transpose_a, transpose_b)`: (..., n, k) x (k, m) -> (..., n, m);
    b is 2-D; transpose_a reads a as (..., k, n), transpose_b reads b as (m, k) (the
    declaration holds the ranks)."""
    a, b = ctx.operands()
    product_operands(ctx)
    ta, tb = ctx.attr("transpose_a"), ctx.attr("transpose_b")
    k_b, m = (b.dim(1), b.dim(0)) if tb else (b.dim(0), b.dim(1))
    units = ctx.attr("units")
    if units is not None:
        m = ctx.equal(m, ctx.const(units), symbol="units")
    needed = 2 if ta else 1
    if a.dims is None:
        ctx.require_rank_at_least(a, needed)  # what edge_dims opens (the contract asked it where it could)
        _, last = ctx.edge_dims(a, 0, needed)
        ctx.equal(last[0] if ta else last[-1], k_b, symbol="k")
        return ctx.tensor(None, _out_dtype(ctx))
    k_a = a.dim(-2) if ta else a.dim(-1)
    ctx.equal(k_a, k_b, symbol="k")
    rows = list(a.dims[:-2]) + ([a.dim(-1)] if ta else list(a.dims[-2:-1]))
    return ctx.tensor(rows + [m], _out_dtype(ctx))


@shape_rule("batch_matmul")
def batch_matmul(ctx: ShapeContext) -> Any:
    """`nn.batch_matmul(x, y, transpose_a, transpose_b)`: (b, n, k) x (b, k, m) -> (b, n, m)
    (transpose_b=True: y is (b, m, k)); a batch of 1 broadcasts."""
    x, y = ctx.operand(0), ctx.operand(1)  # rank 3 each, as declared
    product_operands(ctx)
    ta, tb = ctx.attr("transpose_a"), ctx.attr("transpose_b")
    batch = broadcast_pair(ctx, x.dim(0), y.dim(0))
    n, kx = (x.dim(2), x.dim(1)) if ta else (x.dim(1), x.dim(2))
    m, ky = (y.dim(1), y.dim(2)) if tb else (y.dim(2), y.dim(1))
    ctx.equal(kx, ky, symbol="k")
    return ctx.tensor([batch, n, m], _out_dtype(ctx))


# per-axis operators -----------------------------------------------------------------------------
@shape_rule("bias_add")
def bias_add(ctx: ShapeContext) -> Any:
    """`nn.bias_add(x, bias, axis)`: x's shape (the contract holds bias to dim `axis` of x)."""
    return ctx.tensor(ctx.operand(0).dims)


@shape_rule("along_axis")
def along_axis(ctx: ShapeContext) -> Any:
    """`nn.softmax(x, axis)` and `nn.log_softmax`: the same shape (the contract: axis names a dim)."""
    return ctx.tensor(ctx.operand(0).dims)


@shape_rule("batch_flatten")
def batch_flatten(ctx: ShapeContext) -> Any:
    """`nn.batch_flatten(x)`: (n, ...) -> (n, product of the rest)."""
    (data,) = ctx.operands()  # of rank at least 1, as declared
    if data.dims is None:
        return ctx.tensor([ctx.unknown(), ctx.unknown()])
    return ctx.tensor([data.dim(0), product(ctx, data.dims[1:])])


@shape_rule("batch_norm")
def batch_norm(ctx: ShapeContext) -> Any:
    """`nn.batch_norm(x, gamma, beta, moving_mean, moving_var, axis)`: the four vectors are as
    long as dim `axis` (declared); the result is (normalized x, new mean, new variance)."""
    data, gamma = ctx.operand(0), ctx.operand(1)
    return ctx.tuple([ctx.tensor(data.dims), ctx.tensor(gamma.dims), ctx.tensor(gamma.dims)])


@shape_rule("layer_norm")
def layer_norm(ctx: ShapeContext) -> Any:
    """`nn.layer_norm(x, gamma, beta, axis)`: x's shape (gamma and beta are as long as dim
    `axis`, as declared)."""
    return ctx.tensor(ctx.operand(0).dims)


# padding ----------------------------------------------------------------------------------------
def _pad_pairs(ctx: ShapeContext, rank: Any) -> list:
    widths = ctx.attr("pad_width")
    ok = isinstance(widths, (tuple, list)) and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
        for p in widths
    )
    if not ok or (rank is not None and len(widths) != rank):
        ctx.fail(
            "pad-width",
            rank=rank if rank is not None else "?",
            pad_width=show_ints(widths) if isinstance(widths, (tuple, list)) else widths,
        )
    return [tuple(p) for p in widths]


@shape_rule("pad")
def pad(ctx: ShapeContext) -> Any:
    """`nn.pad(x, pad_value, pad_width, pad_mode)`: each dim grows by before + after (negative
    widths crop); pad_value is a scalar."""
    data, value = ctx.operands()  # the contract: a scalar pad_value, a known pad_mode
    pairs = _pad_pairs(ctx, data.rank)
    if data.dims is None:
        ctx.require_rank(data, len(pairs))
    extends = ctx.attr("pad_mode") != "constant"
    dims = []
    for axis, (d, (before, after)) in enumerate(zip(known_dims(data), pairs)):
        dims.append(_padded(ctx, data, axis, d, before, after, extends))
    return ctx.tensor(dims)


@shape_rule("dyn_pad")
def dyn_pad(ctx: ShapeContext) -> Any:
    """`dyn.nn.pad(x, pad_width, pad_value)`: pad_width is a (rank, 2) tensor whose values are
    not known, so every dim is unknown (the contract gives pad_width a row per dim and makes
    the pad value a scalar). Where the widths are known (when the program runs), edge and
    reflect padding need an element left to extend in each dim they grow, as nn.pad's."""
    data, widths = ctx.operand(0), ctx.operand(1)
    if data.dims is None:
        return ctx.tensor(None)
    if ctx.attr("pad_mode") != "constant":
        for axis, bounds in enumerate(ctx.row_bounds(widths) or ()):
            if bounds is not None and axis < len(data.dims):
                low, high = bounds  # a row is (before, after): its least and greatest entries
                _padded(ctx, data, axis, data.dim(axis), low, high, True)
    return ctx.tensor([ctx.unknown() for _ in data.dims])


register_rule_message(
    "nll-loss-target",
    codes.OP_CONSTRAINT,
    "{arg} holds the class {target}, but the predictions have {classes} classes",
    "keep each target in [0, {classes}), or equal to ignore_index ({ignore}) to skip it",
)


@shape_rule("nll_loss")
def nll_loss(ctx: ShapeContext) -> Any:
    """`nn.nll_loss(predictions (n, c, *d), targets (n, *d), weights (c,), reduction)`: the
    per-element losses (n, *d) with reduction="none", else a scalar."""
    predictions, targets, weights = ctx.operands()
    reduction = ctx.attr("reduction")  # the contract: its choices, and the ranks
    if predictions.dims is None:
        return ctx.tensor(None if reduction == "none" else [])
    classes = ctx.equal(predictions.dim(1), weights.dim(0), symbol="classes")
    targets_seen = ctx.element_bounds(targets, excluding=ctx.attr("ignore_index"))
    count = ctx.static(classes)
    if targets_seen and count is not None and not 0 <= targets_seen[0] <= targets_seen[1] < count:
        target = targets_seen[1] if targets_seen[1] >= count else targets_seen[0]
        ctx.fail("nll-loss-target", arg=targets, target=target, classes=count, ignore=ctx.attr("ignore_index"))
    dims = [predictions.dim(0)] + list(predictions.dims[2:])
    for axis, (d, t) in enumerate(zip(dims, targets.dims or ())):
        dims[axis] = ctx.equal(d, t, symbol="entries")
    return ctx.tensor(dims if reduction == "none" else [])


@shape_rule("sequence_mask")
def sequence_mask(ctx: ShapeContext) -> Any:
    """`sequence_mask(x, valid_length, mask_value, axis)`: x's shape; axis (0 or 1) is the time
    axis, the other of the two leading ones the batch, as long as valid_length."""
    data, lengths = ctx.operands()  # the contract: a vector of lengths, axis 0 or 1, rank >= 2
    axis = ctx.attr("axis")
    if data.dims is not None:
        ctx.equal(data.dim(1 - axis), lengths.dim(0), symbol="batch")
    return ctx.tensor(data.dims)


@shape_rule("l2_normalize")
def l2_normalize(ctx: ShapeContext) -> Any:
    """`nn.l2_normalize(x, eps, axis)`: x's shape; the axes name distinct dims of x."""
    (data,) = ctx.operands()
    axes = ctx.attr("axis")
    if data.dims is not None and axes is not None:  # in range, as declared; distinct, as the rule holds them
        distinct_axes(ctx, axes, len(data.dims))
    return ctx.tensor(data.dims)


def _padded(ctx: ShapeContext, data: TensorArg, axis: int, d: Any, before: int, after: int, extends: bool) -> Any:
    """One dim padded by [before, after]: the crops (negative widths) must fit in the dim,
    checked at runtime where the result is not provably a size (as a window's fit is), and
    edge or reflect padding needs an element left to extend."""
    crop = max(0, -before) + max(0, -after)
    grow = before + after
    result = d + grow if grow >= 0 else d - (-grow)
    if crop and ctx.at_least(result, 0) is not True:
        ctx.assume_within(d, crop, None)
    elif crop:
        ctx.within(d, crop, None)
    if extends and max(before, after) > 0:
        left = d - crop if crop else d
        if ctx.at_least(left, 1) is False:
            ctx.fail(
                "empty-dim", arg=data, axis=axis, why=f'pad_mode "{ctx.attr("pad_mode")}" extends the values there'
            )
        ctx.within(left, 1, None)
    return result
