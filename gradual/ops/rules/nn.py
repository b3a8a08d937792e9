"""Neural-network operators whose shapes depend on attributes: matmul, conv2d, pooling."""

from __future__ import annotations

from typing import Any, Sequence

from ..context import ShapeContext, TensorArg
from ..registry import shape_rule


@shape_rule("matmul")
def matmul(ctx: ShapeContext) -> Any:
    """`nn.matmul(a, b, transpose_a, transpose_b)`: (..., n, k) x (k, m) -> (..., n, m)."""
    a, b = ctx.args
    ctx.require_rank(b, 2)
    if a.dims is None:
        return ctx.tensor(None)
    if a.rank < 1:
        ctx.fail("rank-too-small", arg=a, needed=1, rank=a.rank)
    ta, tb = ctx.attr("transpose_a"), ctx.attr("transpose_b")
    if ta and a.rank < 2:
        ctx.fail("rank-too-small", arg=a, needed=2, rank=a.rank)
    k_a = a.dim(-2) if ta else a.dim(-1)
    k_b, m = (b.dim(1), b.dim(0)) if tb else (b.dim(0), b.dim(1))
    ctx.equal(k_a, k_b, symbol="k")
    batch = list(a.dims[:-2]) + ([a.dim(-1)] if ta else ([a.dim(-2)] if a.rank >= 2 else []))
    units = ctx.attr("units")
    if units is not None:
        ctx.equal(m, ctx.const(units), symbol="units")
    return ctx.tensor(batch + [m])


@shape_rule("batch_matmul")
def batch_matmul(ctx: ShapeContext) -> Any:
    """`nn.batch_matmul(x, y, transpose_a, transpose_b)`: (b, n, k) x (b, m, k) by default."""
    x, y = ctx.args
    ctx.require_rank(x, 3)
    ctx.require_rank(y, 3)
    ta, tb = ctx.attr("transpose_a"), ctx.attr("transpose_b")
    batch = ctx.broadcast(x.dim(0), y.dim(0))
    n, kx = (x.dim(2), x.dim(1)) if ta else (x.dim(1), x.dim(2))
    m, ky = (y.dim(1), y.dim(2)) if tb else (y.dim(2), y.dim(1))
    ctx.equal(kx, ky, symbol="k")
    return ctx.tensor([batch, n, m])


def _pair(values: Sequence[int], name: str, ctx: ShapeContext) -> tuple:
    if len(values) == 1:
        return values[0], values[0]
    if len(values) == 2:
        return values[0], values[1]
    return ctx.fail("attribute-length", name=name, expected="1 or 2", actual=len(values))


def _padding(values: Sequence[int], ctx: ShapeContext) -> tuple:
    """(top, left, bottom, right) from 1, 2 or 4 values, as Relay."""
    if len(values) == 1:
        return (values[0],) * 4
    if len(values) == 2:
        return values[0], values[1], values[0], values[1]
    if len(values) == 4:
        return tuple(values)
    return ctx.fail("attribute-length", name="padding", expected="1, 2 or 4", actual=len(values))


def _window(ctx: ShapeContext, size: Any, kernel: Any, pad: int, stride: int, dilation: int, ceil: bool = False) -> Any:
    if stride <= 0 or dilation <= 0:
        ctx.fail("bad-divisor", divisor=min(stride, dilation))
    span = (kernel - 1) * dilation + 1
    padded = size + pad
    if ceil:
        return (padded - span + stride - 1) // stride + 1
    return (padded - span) // stride + 1


def _spatial(ctx: ShapeContext, data: TensorArg, layout: str) -> tuple:
    if layout not in ("NCHW", "NHWC"):
        ctx.fail("layout", name="data_layout", layout=layout, supported="NCHW, NHWC")
    if layout == "NCHW":
        return data.dim(0), data.dim(1), data.dim(2), data.dim(3)
    return data.dim(0), data.dim(3), data.dim(1), data.dim(2)


def _assemble(layout: str, n: Any, c: Any, h: Any, w: Any) -> list:
    return [n, c, h, w] if layout == "NCHW" else [n, h, w, c]


@shape_rule("conv2d")
def conv2d(ctx: ShapeContext) -> Any:
    """`nn.conv2d(data, weight, strides, padding, dilation, groups, ...)` in NCHW/OIHW."""
    data, weight = ctx.args
    ctx.require_rank(data, 4)
    ctx.require_rank(weight, 4)
    layout = ctx.attr("data_layout")
    n, c, h, w = _spatial(ctx, data, layout)
    o, i, kh, kw = weight.dims
    groups = ctx.attr("groups")
    if groups <= 0:
        ctx.fail("bad-divisor", divisor=groups)
    ctx.equal(c, i * groups, symbol="in_channels")
    if ctx.attr("channels") is not None:
        ctx.equal(o, ctx.const(ctx.attr("channels")), symbol="channels")
    if ctx.attr("kernel_size") is not None:
        sh, sw = _pair(ctx.attr("kernel_size"), "kernel_size", ctx)
        ctx.equal(kh, ctx.const(sh), symbol="kernel_size")
        ctx.equal(kw, ctx.const(sw), symbol="kernel_size")
    strides = _pair(ctx.attr("strides"), "strides", ctx)
    dilation = _pair(ctx.attr("dilation"), "dilation", ctx)
    top, left, bottom, right = _padding(ctx.attr("padding"), ctx)
    oh = _window(ctx, h, kh, top + bottom, strides[0], dilation[0])
    ow = _window(ctx, w, kw, left + right, strides[1], dilation[1])
    return ctx.tensor(_assemble(layout, n, o, oh, ow))


@shape_rule("conv2d_transpose")
def conv2d_transpose(ctx: ShapeContext) -> Any:
    """`nn.conv2d_transpose`: (h - 1) * s - pads + dilation * (k - 1) + output_padding + 1."""
    data, weight = ctx.args
    ctx.require_rank(data, 4)
    ctx.require_rank(weight, 4)
    n, c, h, w = _spatial(ctx, data, ctx.attr("data_layout"))
    i, o, kh, kw = weight.dims
    groups = ctx.attr("groups")
    ctx.equal(c, i, symbol="in_channels")
    strides = _pair(ctx.attr("strides"), "strides", ctx)
    dilation = _pair(ctx.attr("dilation"), "dilation", ctx)
    out_pad = _pair(ctx.attr("output_padding"), "output_padding", ctx)
    top, left, bottom, right = _padding(ctx.attr("padding"), ctx)
    oh = (h - 1) * strides[0] + (kh - 1) * dilation[0] + 1 + out_pad[0] - (top + bottom)
    ow = (w - 1) * strides[1] + (kw - 1) * dilation[1] + 1 + out_pad[1] - (left + right)
    return ctx.tensor(_assemble(ctx.attr("data_layout"), n, o * groups, oh, ow))


@shape_rule("pool2d")
def pool2d(ctx: ShapeContext) -> Any:
    """`nn.max_pool2d` / `nn.avg_pool2d(pool_size, strides, padding, dilation, ceil_mode)`."""
    (data,) = ctx.args
    ctx.require_rank(data, 4)
    layout = ctx.attr("layout")
    n, c, h, w = _spatial(ctx, data, layout)
    kh, kw = _pair(ctx.attr("pool_size"), "pool_size", ctx)
    strides = _pair(ctx.attr("strides"), "strides", ctx)
    dilation = _pair(ctx.attr("dilation"), "dilation", ctx)
    top, left, bottom, right = _padding(ctx.attr("padding"), ctx)
    ceil = bool(ctx.attr("ceil_mode"))
    oh = _window(ctx, h, ctx.const(kh), top + bottom, strides[0], dilation[0], ceil)
    ow = _window(ctx, w, ctx.const(kw), left + right, strides[1], dilation[1], ceil)
    return ctx.tensor(_assemble(layout, n, c, oh, ow))


@shape_rule("global_pool2d")
def global_pool2d(ctx: ShapeContext) -> Any:
    """`nn.global_avg_pool2d(x)`: spatial dims become 1."""
    (data,) = ctx.args
    ctx.require_rank(data, 4)
    layout = ctx.attr("layout")
    n, c, _, _ = _spatial(ctx, data, layout)
    return ctx.tensor(_assemble(layout, n, c, ctx.const(1), ctx.const(1)))


@shape_rule("adaptive_pool2d")
def adaptive_pool2d(ctx: ShapeContext) -> Any:
    """`nn.adaptive_avg_pool2d(x, output_size)`."""
    (data,) = ctx.args
    ctx.require_rank(data, 4)
    layout = ctx.attr("layout")
    n, c, h, w = _spatial(ctx, data, layout)
    size = ctx.attr("output_size")
    if size is None:
        return ctx.tensor(_assemble(layout, n, c, h, w))
    oh, ow = _pair(size, "output_size", ctx)
    return ctx.tensor(_assemble(layout, n, c, ctx.const(oh), ctx.const(ow)))


@shape_rule("bias_add")
def bias_add(ctx: ShapeContext) -> Any:
    """`nn.bias_add(x, bias, axis)`: bias is a vector as long as dim `axis` of x."""
    data, bias = ctx.args
    ctx.require_rank(bias, 1)
    if data.dims is None:
        return ctx.tensor(None)
    from ..context import normalize_axis

    axis = normalize_axis(ctx, ctx.attr("axis"), data.rank)
    ctx.equal(data.dim(axis), bias.dim(0), symbol="channels")
    return ctx.tensor(data.dims)


@shape_rule("batch_flatten")
def batch_flatten(ctx: ShapeContext) -> Any:
    """`nn.batch_flatten(x)`: (n, ...) -> (n, product of the rest)."""
    (data,) = ctx.args
    if data.dims is None:
        return ctx.tensor([ctx.unknown(), ctx.unknown()])
    if data.rank < 1:
        ctx.fail("rank-too-small", arg=data, needed=1, rank=data.rank)
    rest = ctx.const(1)
    for d in data.dims[1:]:
        rest = rest * d
    return ctx.tensor([data.dim(0), rest])
