"""Image operators: image.resize1d, image.resize2d, image.resize3d."""

from __future__ import annotations

from typing import Any

from ..context import ShapeContext
from ..registry import shape_rule
from .common import require_choice, require_entries, require_length, require_nonempty

METHODS = ("nearest_neighbor", "linear", "cubic")
COORDINATE_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn",
                    "tf_crop_and_resize")


#: the spatial letters of each resize, in the order `size` and `roi` list them
SPATIAL = {"resize1d": "W", "resize2d": "HW", "resize3d": "DHW"}


def _resize(ctx: ShapeContext, spatial: str) -> Any:
    """`image.resize{1,2,3}d(x, size, roi, layout, method, coordinate_transformation_mode, ...,
    out_dtype)`: the spatial dims become `size` (one value for all, or one per spatial dim).
    A size written as a name (Relay's shape variables) is a size known only at runtime: `?`."""
    (data,) = ctx.args
    letters = "NC" + spatial
    layout = ctx.attr("layout")
    if len(layout) != len(letters) or sorted(layout) != sorted(letters):
        ctx.fail("layout", name="layout", layout=layout, letters=", ".join(letters), example=letters)
    require_choice(ctx, "method", ctx.attr("method"), METHODS)
    require_choice(ctx, "coordinate_transformation_mode", ctx.attr("coordinate_transformation_mode"), COORDINATE_MODES)
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
    if not isinstance(size, (list, tuple)) or not all(isinstance(v, (int, str)) and not isinstance(v, bool)
                                                      for v in size):
        ctx.fail("attribute-entries", name="size", value=str(size), needed="a size or a shape variable's name")
    return list(size)


def _register_resize(name: str, spatial: str) -> None:
    @shape_rule(name)
    def rule(ctx: ShapeContext) -> Any:
        return _resize(ctx, spatial)

    rule.__doc__ = f"`image.{name}`: resize the spatial dims {', '.join(spatial)} to `size`."


for _name, _spatial in SPATIAL.items():
    _register_resize(_name, _spatial)
