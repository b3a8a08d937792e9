"""Relay's vision operators (stdlib/vision.rly): the result sizes their attributes give.

What the kernels index with (ranks, the box layout, the entries named by score_index and
coord_start, the anchors' count) is declared in the operators' contracts; these rules compute
only the sizes the signature cannot write: a layout's order, a count of anchors per cell, a
result whose form an attribute chooses. Detection counts are data, so results hold every
candidate, as Relay's relations give them.
"""

from __future__ import annotations

import math
from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import known_dims, require_finite
from gradual.ops.rules.operands import require_indices
from gradual.ops.tables import shape_rule

register_rule_message(
    "roi-batch-index",
    codes.OP_CONSTRAINT,
    "{arg} gives batch indices from {low} to {high}, but the data holds a batch of {batch}",
    "give each region (its first entry) the index of an image in the batch",
)


@shape_rule("roi_pool")
def roi_pool(ctx: ShapeContext) -> Any:
    """`vision.roi_align` / `vision.roi_pool(data, rois, pooled_size, layout)`: one pooled
    image per region, (r, c, ph, pw) in NCHW, (r, ph, pw, c) in NHWC."""
    data, rois = ctx.operands()
    require_finite(ctx, "spatial_scale", [ctx.attr("spatial_scale")])  # NaN or infinite corners sample nothing
    height, width = (ctx.const(v) for v in ctx.attr("pooled_size"))
    regions = ctx.row_bounds(rois, 1)  # column 0: each region's batch index, truncated as topi's
    batch = ctx.static(data.dim(0))
    if regions and regions[0] is not None and batch is not None:
        low, high = regions[0]
        if not (math.isfinite(low) and math.isfinite(high) and 0 <= int(low) and int(high) < batch):
            ctx.fail("roi-batch-index", arg=rois, low=low, high=high, batch=batch)
    if ctx.attr("layout") == "NHWC":
        return ctx.tensor([rois.dim(0), height, width, data.dim(3)])
    return ctx.tensor([rois.dim(0), data.dim(1), height, width])


@shape_rule("yolo_reorg")
def yolo_reorg(ctx: ShapeContext) -> Any:
    """`vision.yolo_reorg(data, stride)`: (n, c * stride^2, h / stride, w / stride)."""
    (data,) = ctx.operands()
    stride = ctx.attr("stride")
    n, c, h, w = known_dims(data)  # the declaration gives it rank 4
    return ctx.tensor([n, c * (stride * stride), h // stride, w // stride])


@shape_rule("multibox_prior")
def multibox_prior(ctx: ShapeContext) -> Any:
    """`vision.multibox_prior(data, sizes, ratios)`: (1, h * w * per_cell, 4) boxes, per_cell
    = len(sizes) + len(ratios) - 1."""
    (data,) = ctx.operands()
    per_cell = len(ctx.attr("sizes")) + len(ctx.attr("ratios")) - 1
    return ctx.tensor([ctx.const(1), data.dim(2) * data.dim(3) * per_cell, ctx.const(4)])


@shape_rule("non_max_suppression")
def non_max_suppression(ctx: ShapeContext) -> Any:
    """`vision.non_max_suppression(data (b, n, k), valid_count, indices, ...)`: the boxes
    (b, n, k), or with return_indices the kept indices (b, n) and their count (b, 1), both
    int32; then `indices` is (b, n) (the kernel maps each kept box through it)."""
    data, _, indices, _, _ = ctx.operands()
    batch, boxes = data.dim(0), data.dim(1)
    if not ctx.attr("return_indices"):
        return ctx.tensor(data.dims, data.dtype)
    require_indices(ctx, indices)
    ctx.require_rank(indices, 2)
    ctx.equal(indices.dim(0), batch, symbol="the batch")
    ctx.equal(indices.dim(1), boxes, symbol="the boxes")
    return ctx.tuple([ctx.tensor([batch, boxes], "int32"), ctx.tensor([batch, ctx.const(1)], "int32")])


@shape_rule("all_class_nms")
def all_class_nms(ctx: ShapeContext) -> Any:
    """`vision.all_class_non_max_suppression(boxes (b, n, 4), scores (b, k, n), ...)`: with
    output_format "onnx", rows [batch, class, box] (b * k * n, 3) and their count (1,); with
    "tensorflow", per batch [class, box] rows (b, k * n, 2), their scores (b, k * n) and counts
    (b,). Indices and counts are int64, scores float32."""
    boxes, scores, _, _, _ = ctx.operands()
    batch, boxes_n, classes = boxes.dim(0), boxes.dim(1), scores.dim(1)
    if ctx.attr("output_format") == "onnx":
        return ctx.tuple(
            [ctx.tensor([batch * classes * boxes_n, ctx.const(3)], "int64"), ctx.tensor([ctx.const(1)], "int64")]
        )
    per_batch = classes * boxes_n
    return ctx.tuple(
        [
            ctx.tensor([batch, per_batch, ctx.const(2)], "int64"),
            ctx.tensor([batch, per_batch], "float32"),
            ctx.tensor([batch], "int64"),
        ]
    )


@shape_rule("proposal")
def proposal(ctx: ShapeContext) -> Any:
    """`vision.proposal(cls_prob (b, 2A, h, w), ...)`: rpn_post_nms_top_n rows of
    [batch, x1, y1, x2, y2] per batch, (b * rpn_post_nms_top_n, 5)."""
    cls_prob = ctx.operands()[0]
    return ctx.tensor([cls_prob.dim(0) * ctx.attr("rpn_post_nms_top_n"), ctx.const(5)])
