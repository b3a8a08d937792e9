"""Convolution and pooling: output sizes computed from attributes over the dimension domain.

Layouts are read letter by letter, so any order of `NCHW` (data) and `OIHW` (kernel) works:
`data_layout="NHWC", kernel_layout="HWIO"` as well as the defaults. Padding takes Relay's 1, 2
or 4 values (all; top/bottom and left/right; top, left, bottom, right).
"""

from __future__ import annotations

from typing import Any, Sequence

from ... import diagnostics as codes
from ...messages import register_rule_message
from ..context import ShapeContext, TensorArg
from ..registry import shape_rule
from .common import require_entries, require_length, require_nonempty, require_positive, show_ints

register_rule_message(
    "layout", codes.BAD_ATTRIBUTE,
    "{op} does not support {name}=\"{layout}\"",
    "use a layout made of the letters {letters} (e.g. {example})",
)
register_rule_message(
    "window-too-large", codes.SHAPE_MISMATCH,
    "{op}'s window spans {window}, but dim {axis} of {arg} is {dim} (with {pad} padding)",
    "pad the input, or use a smaller kernel, pool size or dilation",
)
register_rule_message(
    "conv-kernel-size", codes.SHAPE_MISMATCH,
    "{op} got kernel_size={kernel_size}, but the kernel of {arg} is {height} x {width}",
    "drop `kernel_size` or make it match the weight",
)
register_rule_message(
    "conv-groups", codes.SHAPE_MISMATCH,
    "{op} got groups={groups}, which does not divide the {channels} output channels of the weight",
    "choose `groups` dividing both the input and the output channels",
)


# layouts ----------------------------------------------------------------------------------------
def layout_dims(ctx: ShapeContext, arg: TensorArg, layout: str, letters: str, name: str) -> dict:
    """The dims of a rank-4 argument by letter (`{"N": ..., "C": ...}`)."""
    check_layout(ctx, layout, letters, name)
    ctx.require_rank(arg, 4)
    return {letter: arg.dim(i) for i, letter in enumerate(layout)}


def assemble(layout: str, by_letter: dict) -> list:
    """The dims in the order a layout gives."""
    return [by_letter[letter] for letter in layout]


def check_layout(ctx: ShapeContext, layout: str, letters: str, name: str) -> str:
    """A layout string that is a permutation of `letters` (else a bad-attribute failure)."""
    if len(layout) != 4 or sorted(layout) != sorted(letters):
        ctx.fail("layout", name=name, layout=layout, letters=", ".join(letters), example=letters)
    return layout


# attributes -------------------------------------------------------------------------------------
def pair(ctx: ShapeContext, name: str, minimum: int = 1) -> tuple:
    """A 2-D attribute given as 1 or 2 values, each at least `minimum`."""
    values = list(ctx.attr(name))
    require_length(ctx, name, values, (1, 2))
    require_entries(ctx, name, values, allow_zero=minimum == 0)
    return (values[0], values[0]) if len(values) == 1 else (values[0], values[1])


def padding(ctx: ShapeContext, name: str = "padding") -> tuple:
    """(top, left, bottom, right) from Relay's 1, 2 or 4 padding values."""
    values = list(ctx.attr(name))
    require_length(ctx, name, values, (1, 2, 4))
    require_entries(ctx, name, values, allow_zero=True)
    if len(values) == 1:
        return (values[0],) * 4
    if len(values) == 2:
        return values[0], values[1], values[0], values[1]
    return tuple(values)


# windows ----------------------------------------------------------------------------------------
def window_output(ctx: ShapeContext, data: TensorArg, axis: int, size: Any, kernel: Any, pad: int,
                  stride: int, dilation: int, ceil: bool = False) -> Any:
    """Sliding-window output length: (size + pad - span) // stride + 1, span the dilated kernel.
    The window must fit: a static misfit fails; where the length is not provably a size
    (`h - 2` of a 3x3 window without padding), the fit is checked at runtime, even of a
    rigid dim, as a slice's length is; otherwise the rule's evaluation before the kernel
    decides (an imprecise dim still gets its check)."""
    span = (kernel - 1) * dilation + 1
    need = ctx.static(span)
    if need is not None:
        have = ctx.static(size)
        if have is not None and have + pad < need:
            ctx.fail("window-too-large", arg=data, axis=axis, dim=size, pad=pad, window=need)
    padded = size + pad
    if ceil:
        length = (padded - span + (stride - 1)) // stride + 1
    else:
        length = (padded - span) // stride + 1
    if need is not None:
        if need - pad > 0 and ctx.at_least(length, 0) is not True:
            ctx.assume_within(size, need - pad, None)
        elif need - pad > 0:
            ctx.within(size, need - pad, None)
    return length


def _spatial_axes(layout: str) -> tuple:
    return layout.index("H"), layout.index("W")


# convolution ------------------------------------------------------------------------------------
def _check_conv_attrs(ctx: ShapeContext, weight: TensorArg, kernel: dict) -> None:
    """`channels` and `kernel_size`, when given, must describe the weight."""
    channels = ctx.attr("channels")
    if channels is not None:
        ctx.equal(kernel["O"], ctx.const(channels), symbol="channels")
    size = ctx.attr("kernel_size")
    if size is None:
        return
    require_length(ctx, "kernel_size", list(size), (1, 2))
    wanted = (size[0], size[0]) if len(size) == 1 else tuple(size)
    have = (ctx.static(kernel["H"]), ctx.static(kernel["W"]))
    if any(h is not None and h != k for h, k in zip(have, wanted)):
        ctx.fail("conv-kernel-size", arg=weight, kernel_size=show_ints(list(size)), height=kernel["H"], width=kernel["W"])
    ctx.equal(kernel["H"], ctx.const(wanted[0]), symbol="kernel_size")
    ctx.equal(kernel["W"], ctx.const(wanted[1]), symbol="kernel_size")


def _out_dtype(ctx: ShapeContext) -> Any:
    return ctx.attr("out_dtype") or None


@shape_rule("conv2d")
def conv2d(ctx: ShapeContext) -> Any:
    """`nn.conv2d(data, weight, strides, padding, dilation, groups, channels, kernel_size,
    data_layout, kernel_layout, out_layout, out_dtype)`: weight is (O, I, kh, kw) with
    C = I * groups; the output has O channels and windowed spatial dims."""
    data, weight = ctx.args
    layout = check_layout(ctx, ctx.attr("data_layout"), "NCHW", "data_layout")
    out_layout = check_layout(ctx, ctx.attr("out_layout") or layout, "NCHW", "out_layout")
    x = layout_dims(ctx, data, layout, "NCHW", "data_layout")
    k = layout_dims(ctx, weight, ctx.attr("kernel_layout"), "OIHW", "kernel_layout")
    groups = require_positive(ctx, "groups", ctx.attr("groups"))
    ctx.equal(x["C"], k["I"] * groups, symbol="in_channels")
    out_channels = ctx.static(k["O"])
    if out_channels is not None and out_channels % groups != 0:
        ctx.fail("conv-groups", groups=groups, channels=out_channels)
    _check_conv_attrs(ctx, weight, k)
    sh, sw = pair(ctx, "strides")
    dh, dw = pair(ctx, "dilation")
    top, left, bottom, right = padding(ctx)
    hax, wax = _spatial_axes(layout)
    out = {
        "N": x["N"], "C": k["O"],
        "H": window_output(ctx, data, hax, x["H"], k["H"], top + bottom, sh, dh),
        "W": window_output(ctx, data, wax, x["W"], k["W"], left + right, sw, dw),
    }
    return ctx.tensor(assemble(out_layout, out), _out_dtype(ctx))


@shape_rule("conv2d_transpose")
def conv2d_transpose(ctx: ShapeContext) -> Any:
    """`nn.conv2d_transpose(...)`: weight is (I, O, kh, kw) in the default IOHW layout with
    I = C; the output has O * groups channels and spatial dims
    (h - 1) * stride - pads + dilation * (k - 1) + output_padding + 1."""
    data, weight = ctx.args
    layout = check_layout(ctx, ctx.attr("data_layout"), "NCHW", "data_layout")
    out_layout = check_layout(ctx, ctx.attr("out_layout") or layout, "NCHW", "out_layout")
    x = layout_dims(ctx, data, layout, "NCHW", "data_layout")
    k = layout_dims(ctx, weight, ctx.attr("kernel_layout"), "OIHW", "kernel_layout")
    groups = require_positive(ctx, "groups", ctx.attr("groups"))
    ctx.equal(x["C"], k["I"], symbol="in_channels")
    if data.dims is not None:  # (size - 1) * stride + ... would grow an empty image
        for axis in _spatial_axes(layout):
            require_nonempty(ctx, data, axis, "a transposed convolution spreads its input's elements")
    sh, sw = pair(ctx, "strides")
    dh, dw = pair(ctx, "dilation")
    oph, opw = pair(ctx, "output_padding", minimum=0)
    top, left, bottom, right = padding(ctx)
    channels = ctx.attr("channels")
    out_channels = k["O"] * groups
    if channels is not None:
        ctx.equal(out_channels, ctx.const(channels), symbol="channels")
    out = {
        "N": x["N"], "C": out_channels,
        "H": _transposed(x["H"], k["H"], sh, dh, oph, top + bottom),
        "W": _transposed(x["W"], k["W"], sw, dw, opw, left + right),
    }
    return ctx.tensor(assemble(out_layout, out), _out_dtype(ctx))


def _transposed(size: Any, kernel: Any, stride: int, dilation: int, extra: int, pad: int) -> Any:
    grown = (size - 1) * stride + (kernel - 1) * dilation + (1 + extra)
    return grown - pad if pad else grown


# pooling ----------------------------------------------------------------------------------------
@shape_rule("pool2d")
def pool2d(ctx: ShapeContext) -> Any:
    """`nn.max_pool2d` / `nn.avg_pool2d(pool_size, strides, dilation, padding, layout,
    ceil_mode)`: windowed spatial dims; ceil_mode rounds the window count up."""
    (data,) = ctx.args
    layout = check_layout(ctx, ctx.attr("layout"), "NCHW", "layout")
    out_layout = check_layout(ctx, ctx.attr("out_layout") or layout, "NCHW", "out_layout")
    x = layout_dims(ctx, data, layout, "NCHW", "layout")
    kh, kw = pair(ctx, "pool_size")
    sh, sw = pair(ctx, "strides")
    dh, dw = pair(ctx, "dilation")
    top, left, bottom, right = padding(ctx)
    ceil = bool(ctx.attr("ceil_mode"))
    hax, wax = _spatial_axes(layout)
    out = dict(x)
    out["H"] = window_output(ctx, data, hax, x["H"], ctx.const(kh), top + bottom, sh, dh, ceil)
    out["W"] = window_output(ctx, data, wax, x["W"], ctx.const(kw), left + right, sw, dw, ceil)
    return ctx.tensor(assemble(out_layout, out))


def _require_image(ctx: ShapeContext, data: TensorArg, layout: str, why: str) -> None:
    """The spatial dims of a known-rank image are not empty."""
    if data.dims is not None:
        for axis in _spatial_axes(layout):
            require_nonempty(ctx, data, axis, why)


@shape_rule("global_pool2d")
def global_pool2d(ctx: ShapeContext) -> Any:
    """`nn.global_avg_pool2d(x, layout, out_layout)`: spatial dims become 1."""
    (data,) = ctx.args
    layout = check_layout(ctx, ctx.attr("layout"), "NCHW", "layout")
    out_layout = check_layout(ctx, ctx.attr("out_layout") or layout, "NCHW", "out_layout")
    out = layout_dims(ctx, data, layout, "NCHW", "layout")
    if "max" in ctx.op_name:
        _require_image(ctx, data, layout, "the maximum of no elements does not exist")
    out["H"] = out["W"] = ctx.const(1)
    return ctx.tensor(assemble(out_layout, out))


@shape_rule("adaptive_pool2d")
def adaptive_pool2d(ctx: ShapeContext) -> Any:
    """`nn.adaptive_avg_pool2d(x, output_size, layout)`: spatial dims become output_size
    (one value for both; none keeps them)."""
    (data,) = ctx.args
    layout = check_layout(ctx, ctx.attr("layout"), "NCHW", "layout")
    out_layout = check_layout(ctx, ctx.attr("out_layout") or layout, "NCHW", "out_layout")
    out = layout_dims(ctx, data, layout, "NCHW", "layout")
    size: Sequence[int] = list(ctx.attr("output_size") or [])
    require_length(ctx, "output_size", size, (0, 1, 2))
    require_entries(ctx, "output_size", size)
    if size:
        if "max" in ctx.op_name:
            _require_image(ctx, data, layout, "the maximum of an empty bin does not exist")
        oh, ow = (size[0], size[0]) if len(size) == 1 else size
        out["H"], out["W"] = ctx.const(oh), ctx.const(ow)
    return ctx.tensor(assemble(out_layout, out))
