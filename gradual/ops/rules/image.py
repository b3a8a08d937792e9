"""Image operators: image.resize1d, image.resize2d, image.resize3d, nn.upsampling and\nnn.upsampling3d (static and dyn. scales)."""

from __future__ import annotations

from typing import Any

from gradual.ops.context import ShapeContext
from gradual.ops.rules.common import (
    require_entries,
    require_finite,
    require_length,
    require_nonempty,
    require_scalar,
)
from gradual.ops.tables import shape_rule

#: the spatial letters of each resize, in the order `size` and `roi` list them
SPATIAL = {"resize1d": "W", "resize2d": "HW", "resize3d": "DHW"}


def _resize(ctx: ShapeContext, spatial: str) -> Any:
    """`image.resize{1,2,3}d(x, size, roi, layout, method, coordinate_transformation_mode, ...,
    out_dtype)`: the spatial dims become `size` (one value for all, or one per spatial dim).
    A size written as a name (Relay's shape variables) is a size known only at runtime: `?`."""
    (data,) = ctx.operands()
    letters = "NC" + spatial
    layout = ctx.attr("layout")
    if len(layout) != len(letters) or sorted(layout) != sorted(letters):
        ctx.fail("layout", name="layout", layout=layout, letters=", ".join(letters), example=letters)
    size = _size(ctx)
    require_length(ctx, "size", size, sorted({1, len(spatial)}))
    require_entries(ctx, "size", [v for v in size if isinstance(v, int)])
    sizes = size * len(spatial) if len(size) == 1 else size
    ctx.require_rank(data, len(letters))
    out = {letter: data.dim(i) for i, letter in enumerate(layout)}
    for letter, value in zip(spatial, sizes):
        require_nonempty(ctx, data, layout.index(letter), "a resized image samples its input")
        out[letter] = ctx.const(value) if isinstance(value, int) else ctx.unknown()
    return ctx.tensor([out[letter] for letter in layout], ctx.attr("out_dtype") or None)


def _size(ctx: ShapeContext) -> list:
    """The `size` attribute as a list of ints and names."""
    size = ctx.attr("size")
    size = [size] if isinstance(size, (int, str)) else size
    if not isinstance(size, (list, tuple)) or not all(
        isinstance(v, (int, str)) and not isinstance(v, bool) for v in size
    ):
        ctx.fail("attribute-entries", name="size", value=str(size), needed="a size or a shape variable's name")
    return list(size)


def _register_resize(name: str, spatial: str) -> None:
    @shape_rule(name)
    def rule(ctx: ShapeContext) -> Any:
        return _resize(ctx, spatial)

    rule.__doc__ = f"`image.{name}`: resize the spatial dims {', '.join(spatial)} to `size`."


for _name, _spatial in SPATIAL.items():
    _register_resize(_name, _spatial)


# upsampling -------------------------------------------------------------------------------------
def scaled(ctx: ShapeContext, d: Any, scale: float) -> Any:
    """Relay's upsampled size: d * scale rounded half to even (exact for an integer scale)."""
    if float(scale).is_integer() and scale >= 0:
        return d * int(scale)
    size = ctx.static(d)
    return ctx.const(round(size * scale)) if size is not None else ctx.unknown()


def _upsampling(ctx: ShapeContext, spatial: str, scales: Any) -> Any:
    """`nn.upsampling{,3d}(x, scale_*, layout, method)`: the spatial dims scaled (`scales` per
    spatial letter; None where a dyn. scale is a tensor, whose size is then unknown)."""
    data = ctx.operand(0)
    letters = "NC" + spatial
    layout = ctx.attr("layout")
    if len(layout) != len(letters) or sorted(layout) != sorted(letters):
        ctx.fail("layout", name="layout", layout=layout, letters=", ".join(letters), example=letters)
    ctx.require_rank(data, len(letters))
    out = {letter: data.dim(i) for i, letter in enumerate(layout)}
    for letter, scale in zip(spatial, scales):
        out[letter] = ctx.unknown() if scale is None else scaled(ctx, out[letter], scale)
    return ctx.tensor([out[letter] for letter in layout])


def _scales(ctx: ShapeContext, names: tuple) -> list:
    """The scale attributes, each a finite number (NaN or an infinity scales no size)."""
    return [require_finite(ctx, name, [ctx.attr(name)])[0] for name in names]


@shape_rule("upsampling")
def upsampling(ctx: ShapeContext) -> Any:
    """`nn.upsampling(x, scale_h, scale_w, layout, method, align_corners)`."""
    return _upsampling(ctx, "HW", _scales(ctx, ("scale_h", "scale_w")))


@shape_rule("upsampling3d")
def upsampling3d(ctx: ShapeContext) -> Any:
    """`nn.upsampling3d(x, scale_d, scale_h, scale_w, layout, method, ...)`."""
    return _upsampling(ctx, "DHW", _scales(ctx, ("scale_d", "scale_h", "scale_w")))


@shape_rule("dyn_upsampling")
def dyn_upsampling(ctx: ShapeContext) -> Any:
    """`dyn.nn.upsampling{,3d}(x, scale tensors...)`: scalar scales, whose values are known
    only when the program runs: then each is held and applied as the attribute's would be."""
    data, *scales = ctx.operands()
    for scale in scales:
        require_scalar(ctx, scale)
    spatial = "DHW"[3 - len(scales) :]
    names = ("scale_d", "scale_h", "scale_w")[3 - len(scales) :]
    values = [ctx.scalar_number(scale) for scale in scales]
    for name, value in zip(names, values):
        require_finite(ctx, name, [value])
    return _upsampling(ctx, spatial, values)
