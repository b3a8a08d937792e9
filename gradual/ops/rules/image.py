"""Image operators: image.resize2d."""

from __future__ import annotations

from typing import Any

from ..context import ShapeContext
from ..registry import shape_rule
from .common import require_choice, require_entries, require_length, require_nonempty
from .conv import assemble, check_layout, layout_dims

METHODS = ("nearest_neighbor", "linear", "cubic")
COORDINATE_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn",
                    "tf_crop_and_resize")


@shape_rule("resize2d")
def resize2d(ctx: ShapeContext) -> Any:
    """`image.resize2d(x, size, roi, layout, method, coordinate_transformation_mode, ...,
    out_dtype)`: the spatial dims become `size` (one value for both, or height and width)."""
    (data,) = ctx.args
    layout = check_layout(ctx, ctx.attr("layout"), "NCHW", "layout")
    require_choice(ctx, "method", ctx.attr("method"), METHODS)
    require_choice(ctx, "coordinate_transformation_mode", ctx.attr("coordinate_transformation_mode"), COORDINATE_MODES)
    size = list(ctx.attr("size"))
    require_length(ctx, "size", size, (1, 2))
    require_entries(ctx, "size", size)
    height, width = (size[0], size[0]) if len(size) == 1 else size
    out = layout_dims(ctx, data, layout, "NCHW", "layout")
    if data.dims is not None:
        for axis in (layout.index("H"), layout.index("W")):
            require_nonempty(ctx, data, axis, "a resized image samples its input")
    out["H"], out["W"] = ctx.const(height), ctx.const(width)
    return ctx.tensor(assemble(layout, out), ctx.attr("out_dtype") or None)
