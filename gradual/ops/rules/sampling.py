"""Relay's image sampling operators: image.grid_sample, image.affine_grid, image.dilation2d,
image.crop_and_resize and dyn.image.resize2d.

Relay's relations read the shapes they need and trust the rest; these rules also check what the
kernels index with (the grid's batch and coordinate count, the filter's channels, the boxes'
four coordinates, float samples), so a call that checks clean never stops inside the kernel.
"""

from __future__ import annotations

from typing import Any

from gradual.ops.context import ShapeContext
from gradual.ops.rules.common import require_nonempty
from gradual.ops.rules.conv import assemble, layout_dims, padding, per_dim, window_output
from gradual.ops.tables import shape_rule


@shape_rule("grid_sample")
def grid_sample(ctx: ShapeContext) -> Any:
    """`image.grid_sample(data, grid, method, layout, padding_mode, align_corners)`: data NCHW
    (or NCDHW) sampled at a grid (n, 2, ho, wo) (or (n, 3, do, ho, wo)) of the data's batch:
    (n, c, *the grid's spatial dims)."""
    data, grid = ctx.operands()  # the contract: float samples, the modes, and the ranks the layout names
    rank = 4 if ctx.attr("layout") == "NCHW" else 5
    ctx.require_rank(data, rank)
    ctx.require_rank(grid, rank)
    batch = ctx.equal(data.dim(0), grid.dim(0), symbol="n")
    ctx.equal(grid.dim(1), ctx.const(rank - 2), symbol="spatial rank")
    for axis in range(2, rank):
        require_nonempty(ctx, data, axis, "a grid samples the data")
    return ctx.tensor([batch, data.dim(1)] + [grid.dim(axis) for axis in range(2, rank)])


@shape_rule("affine_grid")
def affine_grid(ctx: ShapeContext) -> Any:
    """`image.affine_grid(theta, target_shape)`: theta (n, 2, 3) gives a grid (n, 2, h, w) of
    target_shape = [h, w], each at least 2 (the grid's step divides by it less one)."""
    (theta,) = ctx.operands()  # (n, 2, 3) floats and two sizes of at least 2, as declared
    shape = list(ctx.attr("target_shape"))
    return ctx.tensor([theta.dim(0), ctx.const(2)] + [ctx.const(v) for v in shape])


@shape_rule("dilation2d")
def dilation2d(ctx: ShapeContext) -> Any:
    """`image.dilation2d(data, weight, strides, padding, dilations, data_layout, kernel_layout,
    out_dtype)`: windowed H and W as a convolution's; the weight holds one (kh, kw) filter per
    channel of the data. Relay reads the first two strides and dilations of four."""
    data, weight = ctx.operands()
    data_layout, kernel_layout = ctx.attr("data_layout"), ctx.attr("kernel_layout")  # declared choices
    x = layout_dims(ctx, data, data_layout, "NCHW", "data_layout")
    w = layout_dims(ctx, weight, kernel_layout, "IHW", "kernel_layout")
    strides, dilations = per_dim(ctx, "strides", 2), per_dim(ctx, "dilations", 2)  # declared: 1, 2 or 4 each
    pads = padding(ctx, 2)
    channels = ctx.equal(x["C"], w["I"], symbol="channels")
    out = {"N": x["N"], "C": channels}
    for i, (letter, kernel) in enumerate((("H", w["H"]), ("W", w["W"]))):
        axis = data_layout.index(letter)
        require_nonempty(ctx, weight, kernel_layout.index(letter), "a window of no taps has no largest value")
        out[letter] = window_output(ctx, data, axis, x[letter], kernel, sum(pads[i]), strides[i], dilations[i])
    return ctx.tensor(assemble(ctx, data_layout, "NCHW", out, "data_layout"), ctx.attr("out_dtype") or None)


@shape_rule("crop_and_resize")
def crop_and_resize(ctx: ShapeContext) -> Any:
    """`image.crop_and_resize(data, boxes, box_indices, crop_size, layout, method, ...)`: boxes
    (b, 4) of floats and integer box_indices (b) give (b, c, *crop_size) in the data's layout."""
    data, boxes, indices = ctx.operands()  # the contract: layout, method, crop_size, the operands' forms
    layout = ctx.attr("layout")
    size = list(ctx.attr("crop_size"))
    x = layout_dims(ctx, data, layout, "NCHW", "layout")
    for letter in "HW":
        require_nonempty(ctx, data, layout.index(letter), "a crop samples the image")
    count = ctx.equal(boxes.dim(0), indices.dim(0), symbol="boxes")
    out = {"N": count, "C": x["C"], "H": ctx.const(size[0]), "W": ctx.const(size[1])}
    return ctx.tensor(assemble(ctx, layout, "NCHW", out, "layout"), ctx.attr("out_dtype") or None)


@shape_rule("dyn_resize2d")
def dyn_resize2d(ctx: ShapeContext) -> Any:
    """`dyn.image.resize2d(data, size, roi, layout, method, ...)`: size an integer vector (h, w),
    roi a vector of four; H and W are the size's values where known."""
    data, size = ctx.operand(0), ctx.operand(1)  # the contract: size (2,) of sizes, roi (4,), the modes
    layout = ctx.attr("layout")
    x = layout_dims(ctx, data, layout, "NCHW", "layout")
    for letter in "HW":
        require_nonempty(ctx, data, layout.index(letter), "a resized image samples its input")
    out = dict(x)
    for i, letter in enumerate("HW"):
        value = size.value[i] if size.value is not None and len(size.value) == 2 else None
        known = value if isinstance(value, int) else None if value is None else ctx.static(value)
        if value is None:
            out[letter] = ctx.unknown()
        elif known is not None:
            out[letter] = ctx.const(known)
        else:
            ctx.within(value, 1, None)
            out[letter] = value
    return ctx.tensor(assemble(ctx, layout, "NCHW", out, "layout"), ctx.attr("out_dtype") or None)
