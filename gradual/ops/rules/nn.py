"""Neural-network operators whose shapes depend on attributes: dense and matmul with `units`
and `out_dtype`, bias_add, softmax's axis, batch_flatten, the normalizations, and nn.pad.
Convolution and pooling live in conv.py."""

from __future__ import annotations

from typing import Any

from ... import diagnostics as codes
from ...messages import register_rule_message
from ..context import ShapeContext, axis_rank, normalize_axis, product
from ..registry import shape_rule
from .common import require_choice, require_scalar, show_ints
from .elementwise import broadcast_pair

register_rule_message(
    "pad-width", codes.BAD_ATTRIBUTE,
    "{op} needs pad_width to be one [before, after] pair per dim of the input (rank {rank}), but got {pad_width}",
    "write pad_width=[[before, after], ...] with {rank} pairs",
)


def _out_dtype(ctx: ShapeContext) -> Any:
    """The `out_dtype` attribute when set ("" keeps the inputs' dtype)."""
    return ctx.attr("out_dtype") or None


# dense and matmul -------------------------------------------------------------------------------
@shape_rule("dense")
def dense(ctx: ShapeContext) -> Any:
    """`nn.dense(x, w, units, out_dtype)`: (*b, k) x (u, k) -> (*b, u) (the signature checks k);
    `units`, when given, must be u."""
    data, weight = ctx.args
    units = ctx.attr("units")
    if units is not None and weight.dims is not None:
        ctx.equal(weight.dim(0), ctx.const(units), symbol="units")
    if data.dims is None or weight.dims is None:
        return ctx.tensor(None, _out_dtype(ctx))
    return ctx.tensor(list(data.dims[:-1]) + [weight.dim(0)], _out_dtype(ctx))


@shape_rule("matmul")
def matmul(ctx: ShapeContext) -> Any:
    """`nn.matmul(a, b, units, transpose_a, transpose_b)`: (..., n, k) x (k, m) -> (..., n, m);
    b is 2-D; transpose_a reads a as (..., k, n), transpose_b reads b as (m, k)."""
    a, b = ctx.args
    ctx.require_rank(b, 2)
    ta, tb = ctx.attr("transpose_a"), ctx.attr("transpose_b")
    k_b, m = (b.dim(1), b.dim(0)) if tb else (b.dim(0), b.dim(1))
    units = ctx.attr("units")
    if units is not None:
        m = ctx.equal(m, ctx.const(units), symbol="units")
    needed = 2 if ta else 1
    if a.dims is None:
        ctx.require_rank_at_least(a, needed)
        return ctx.tensor(None, _out_dtype(ctx))
    if a.rank < needed:
        ctx.fail("rank-too-small", arg=a, needed=needed, rank=a.rank)
    k_a = a.dim(-2) if ta else a.dim(-1)
    ctx.equal(k_a, k_b, symbol="k")
    rows = list(a.dims[:-2]) + ([a.dim(-1)] if ta else list(a.dims[-2:-1]))
    return ctx.tensor(rows + [m], _out_dtype(ctx))


@shape_rule("batch_matmul")
def batch_matmul(ctx: ShapeContext) -> Any:
    """`nn.batch_matmul(x, y, transpose_a, transpose_b)`: (b, n, k) x (b, k, m) -> (b, n, m)
    (transpose_b=True: y is (b, m, k)); a batch of 1 broadcasts."""
    x, y = ctx.args
    ctx.require_rank(x, 3)
    ctx.require_rank(y, 3)
    ta, tb = ctx.attr("transpose_a"), ctx.attr("transpose_b")
    batch = broadcast_pair(ctx, x.dim(0), y.dim(0))
    n, kx = (x.dim(2), x.dim(1)) if ta else (x.dim(1), x.dim(2))
    m, ky = (y.dim(1), y.dim(2)) if tb else (y.dim(2), y.dim(1))
    ctx.equal(kx, ky, symbol="k")
    return ctx.tensor([batch, n, m], _out_dtype(ctx))


# per-axis operators -----------------------------------------------------------------------------
@shape_rule("bias_add")
def bias_add(ctx: ShapeContext) -> Any:
    """`nn.bias_add(x, bias, axis)`: bias is a vector as long as dim `axis` of x."""
    data, bias = ctx.args
    ctx.require_rank(bias, 1)
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))
        return ctx.tensor(None)
    axis = normalize_axis(ctx, ctx.attr("axis"), data.rank)
    ctx.equal(data.dim(axis), bias.dim(0), symbol="channels")
    return ctx.tensor(data.dims)


@shape_rule("along_axis")
def along_axis(ctx: ShapeContext) -> Any:
    """`nn.softmax(x, axis)` and `nn.log_softmax`: the same shape; axis must name a dim."""
    (data,) = ctx.args
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))
    else:
        normalize_axis(ctx, ctx.attr("axis"), data.rank)
    return ctx.tensor(data.dims)


@shape_rule("batch_flatten")
def batch_flatten(ctx: ShapeContext) -> Any:
    """`nn.batch_flatten(x)`: (n, ...) -> (n, product of the rest)."""
    (data,) = ctx.args
    if data.dims is None:
        ctx.require_rank_at_least(data, 1)
        return ctx.tensor([ctx.unknown(), ctx.unknown()])
    if data.rank < 1:
        ctx.fail("rank-too-small", arg=data, needed=1, rank=data.rank)
    return ctx.tensor([data.dim(0), product(ctx, data.dims[1:])])


def _channel_params(ctx: ShapeContext, first: int) -> Any:
    """The per-channel vectors (arguments `first`...) must each be as long as dim `axis` of
    the data (or, for data of unknown rank, as each other); returns that length."""
    data = ctx.args[0]
    params = ctx.args[first:]
    for p in params:
        ctx.require_rank(p, 1)
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))
        channels = params[0].dim(0)
        rest = params[1:]
    else:
        channels = data.dim(normalize_axis(ctx, ctx.attr("axis"), data.rank))
        rest = params
    for p in rest:
        channels = ctx.equal(channels, p.dim(0), symbol="channels")
    return channels


@shape_rule("batch_norm")
def batch_norm(ctx: ShapeContext) -> Any:
    """`nn.batch_norm(x, gamma, beta, moving_mean, moving_var, axis)`: the four vectors are as
    long as dim `axis`; the result is (normalized x, new mean, new variance)."""
    data = ctx.args[0]
    channels = _channel_params(ctx, 1)
    return ctx.tuple([ctx.tensor(data.dims), ctx.tensor([channels]), ctx.tensor([channels])])


@shape_rule("layer_norm")
def layer_norm(ctx: ShapeContext) -> Any:
    """`nn.layer_norm(x, gamma, beta, axis)`: gamma and beta are as long as dim `axis`."""
    data = ctx.args[0]
    _channel_params(ctx, 1)
    return ctx.tensor(data.dims)


# padding ----------------------------------------------------------------------------------------
def _pad_pairs(ctx: ShapeContext, rank: Any) -> list:
    widths = ctx.attr("pad_width")
    ok = isinstance(widths, (tuple, list)) and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
        for p in widths)
    if not ok or (rank is not None and len(widths) != rank):
        ctx.fail("pad-width", rank=rank if rank is not None else "?", pad_width=show_ints(widths) if isinstance(widths, (tuple, list)) else widths)
    return [tuple(p) for p in widths]


@shape_rule("pad")
def pad(ctx: ShapeContext) -> Any:
    """`nn.pad(x, pad_value, pad_width, pad_mode)`: each dim grows by before + after (negative
    widths crop); pad_value is a scalar."""
    data, value = ctx.args
    require_scalar(ctx, value)
    require_choice(ctx, "pad_mode", ctx.attr("pad_mode"), ("constant", "edge", "reflect"))
    pairs = _pad_pairs(ctx, data.rank)
    if data.dims is None:
        ctx.require_rank(data, len(pairs))
    dims = []
    for d, (before, after) in zip(data.dims, pairs):
        grow = before + after
        dims.append(d + grow if grow >= 0 else d - (-grow))
    return ctx.tensor(dims)
