"""Relay's bit-serial operators (stdlib/bitserial.rly): the sizes packing into words gives.

The contracts state the attributes' ranges and the operands' ranks; these rules compute the
packed and convolved sizes and check what depends on the word width a dtype attribute names
(a packed dim holds whole words) or on the layout pairing.
"""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, normalize_axis
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.conv import padding, window_output
from gradual.ops.tables import shape_rule

register_rule_message(
    "pack-words",
    codes.SHAPE_MISMATCH,
    "{op} packs dim {axis} of {arg} into words of {width} bits, but it is {dim}",
    "give that dim a multiple of {width} entries, or a narrower pack type",
)
register_rule_message(
    "bitserial-layouts",
    codes.BAD_ATTRIBUTE,
    '{op} takes an OIHW kernel with NCHW data and an HWIO kernel with NHWC data, not kernel_layout="{kernel}" with data_layout="{data}"',
    'use kernel_layout="{expected}"',
)

#: bits per word of each pack type
WIDTHS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def _words(ctx: ShapeContext, arg: TensorArg, axis: int, width: int) -> Any:
    """Dim `axis` of `arg` in words of `width` bits: it must hold whole words."""
    dim = arg.dim(axis)
    size = ctx.static(dim)
    if size is not None and size % width:
        ctx.fail("pack-words", arg=arg, axis=axis, dim=size, width=width)
    return ctx.quotient(dim, width, symbol=f"words of {width} bits")


@shape_rule("bitpack")
def bitpack(ctx: ShapeContext) -> Any:
    """`nn.bitpack(data, bits, pack_axis, bit_axis, pack_type)`: pack_axis in words, and a
    new axis of `bits` entries before position bit_axis (in pack_type)."""
    (data,) = ctx.operands()
    if data.dims is None:
        return ctx.tensor(None, ctx.attr("pack_type"))
    rank = len(data.dims)
    pack_axis = normalize_axis(ctx, ctx.attr("pack_axis"), rank, "pack_axis")
    dims = list(data.dims)
    dims[pack_axis] = _words(ctx, data, pack_axis, WIDTHS[ctx.attr("pack_type")])
    dims.insert(ctx.attr("bit_axis"), ctx.const(ctx.attr("bits")))
    return ctx.tensor(dims, ctx.attr("pack_type"))


def _out_dtype(ctx: ShapeContext, data: TensorArg) -> Any:
    return ctx.attr("out_dtype") or data.dtype


@shape_rule("bitserial_dense")
def bitserial_dense(ctx: ShapeContext) -> Any:
    """`nn.bitserial_dense(data (b, k), weight (units, k))`: (b, units), k in whole words."""
    data, weight = ctx.operands()
    _words(ctx, data, 1, WIDTHS[ctx.attr("pack_dtype")])
    return ctx.tensor([data.dim(0), weight.dim(0)], _out_dtype(ctx, data))


@shape_rule("bitserial_conv2d")
def bitserial_conv2d(ctx: ShapeContext) -> Any:
    """`nn.bitserial_conv2d(data, weight, strides, padding, kernel_size, channels)`: NCHW data
    with an OIHW weight (or NHWC with HWIO) of the data's channels, in whole words; the output
    has the weight's filters and windowed spatial dims, in the data's layout."""
    data, weight = ctx.operands()
    layout, kernel_layout = ctx.attr("data_layout"), ctx.attr("kernel_layout")
    expected = "OIHW" if layout == "NCHW" else "HWIO"
    if kernel_layout != expected:
        ctx.fail("bitserial-layouts", kernel=kernel_layout, data=layout, expected=expected)
    nchw = layout == "NCHW"
    channel_axis = 1 if nchw else 3
    spatial = (2, 3) if nchw else (1, 2)
    filters, in_channels = (weight.dim(0), weight.dim(1)) if nchw else (weight.dim(3), weight.dim(2))
    kernel = (weight.dim(2), weight.dim(3)) if nchw else (weight.dim(0), weight.dim(1))
    ctx.equal(in_channels, data.dim(channel_axis), symbol="in_channels")
    _words(ctx, data, channel_axis, WIDTHS[ctx.attr("pack_dtype")])
    for have, want in zip(kernel, ctx.attr("kernel_size")):
        ctx.equal(have, ctx.const(want), symbol="kernel_size")
    if ctx.attr("channels") is not None:
        ctx.equal(filters, ctx.const(ctx.attr("channels")), symbol="channels")
    pads = padding(ctx, 2)
    out = [
        window_output(ctx, data, axis, data.dim(axis), k, sum(p), s, 1)
        for axis, k, p, s in zip(spatial, kernel, pads, ctx.attr("strides"))
    ]
    dims = [data.dim(0), filters, *out] if nchw else [data.dim(0), *out, filters]
    return ctx.tensor(dims, _out_dtype(ctx, data))
