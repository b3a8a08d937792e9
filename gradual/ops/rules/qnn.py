"""Relay's quantized operators: the float operators' shapes, read from the leading operands,
with the quantization parameters after them checked to be scalars or per-channel vectors."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, normalize_axis
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.combine import concatenate
from gradual.ops.rules.conv import conv, conv_transpose
from gradual.ops.rules.elementwise import broadcast_dims
from gradual.ops.rules.nn import batch_matmul, dense
from gradual.ops.rules.shape import broadcast_into
from gradual.ops.tables import shape_rule

register_rule_message(
    "quantization-parameter",
    codes.RANK_MISMATCH,
    "{arg} has rank {rank}, but {op} takes a scale or zero point as a scalar or a vector (one per channel)",
    "pass a scalar, or a vector as long as the quantized axis",
)


def _parameters(ctx: ShapeContext, first: int, data: Optional[TensorArg] = None, axis: int = -1) -> None:
    """Every argument from `first` on is a scalar or a vector; a vector is as long as dim
    `axis` of `data` (or holds one element), when data is given."""
    _along(ctx, _operands(ctx, first), None if data is None else data.dims, axis)


def _operands(ctx: ShapeContext, first: int, stop: Optional[int] = None) -> list[TensorArg]:
    """Operands `first` up to `stop` (the end when None): quantization parameters, which every
    qnn declaration types as tensors (the data before them may be a tuple: concatenate's)."""
    return [ctx.operand(i) for i in range(first, len(ctx.args) if stop is None else stop)]


def _along(ctx: ShapeContext, params: Sequence[TensorArg], dims: Optional[Sequence[Any]], axis: int) -> None:
    """Scales and zero points of a tensor of `dims`: scalars, or vectors holding one element or
    one per element of dim `axis` (what the kernels broadcast; a 0-d tensor takes one element)."""
    for param in params:
        if param.rank is None or param.rank == 0:
            continue
        if param.rank > 1:
            ctx.fail("quantization-parameter", arg=param, rank=param.rank)
        if dims is None:
            continue
        if not dims:
            ctx.within(param.dim(0), 1, 1)
        else:
            broadcast_into(ctx, param, [dims[normalize_axis(ctx, axis, len(dims))]])


def _one_element(ctx: ShapeContext, params: Sequence[TensorArg]) -> None:
    """Zero points of a product: per tensor (the kernels accumulate one shift)."""
    for param in params:
        if param.rank is not None and param.rank > 0:
            _along(ctx, [param], [], -1)  # no dims: the axis is not read


@shape_rule("qnn_quantize")
def quantize(ctx: ShapeContext) -> Any:
    """`qnn.quantize` / `qnn.dequantize` / `qnn.requantize`: the data's shape in out_dtype;
    per-channel parameters are as long as dim `axis`."""
    data = ctx.operand(0)
    _parameters(ctx, 1, data, ctx.attr("axis"))
    return ctx.tensor(data.dims, ctx.attr("out_dtype"))


@shape_rule("qnn_conv2d")
def qnn_conv2d(ctx: ShapeContext) -> Any:
    """`qnn.conv2d(data, weight, zero points, scales, ...)`: `nn.conv2d`'s shape."""
    _parameters(ctx, 2)
    _one_element(ctx, _operands(ctx, 2, 4))
    return conv(ctx, "HW")


@shape_rule("qnn_conv2d_transpose")
def qnn_conv2d_transpose(ctx: ShapeContext) -> Any:
    """`qnn.conv2d_transpose(...)`: `nn.conv2d_transpose`'s shape."""
    _parameters(ctx, 2)
    _one_element(ctx, _operands(ctx, 2, 4))
    return conv_transpose(ctx, "HW")


@shape_rule("qnn_dense")
def qnn_dense(ctx: ShapeContext) -> Any:
    """`qnn.dense(data, weight, zero points, scales, units, out_dtype)`: `nn.dense`'s shape."""
    _parameters(ctx, 2)
    _one_element(ctx, _operands(ctx, 2, 4))
    return dense(ctx)


@shape_rule("qnn_batch_matmul")
def qnn_batch_matmul(ctx: ShapeContext) -> Any:
    """`qnn.batch_matmul(x, y, zero points, scales, ...)`: `nn.batch_matmul`'s shape."""
    _parameters(ctx, 2)
    _one_element(ctx, _operands(ctx, 2, 4))
    return batch_matmul(ctx)


@shape_rule("qnn_binary")
def qnn_binary(ctx: ShapeContext) -> Any:
    """`qnn.add` / `qnn.subtract` / `qnn.mul(lhs, rhs, scales and zero points)`: broadcasting."""
    lhs, rhs = ctx.operands()[:2]
    _parameters(ctx, 2)
    dims = broadcast_dims(ctx, [lhs.dims, rhs.dims])
    for params, of in (
        (_operands(ctx, 2, 4), lhs.dims),
        (_operands(ctx, 4, 6), rhs.dims),
        (_operands(ctx, 6, 8), dims),
    ):
        _along(ctx, params, of, -1)
    return ctx.tensor(dims)


@shape_rule("qnn_unary")
def qnn_unary(ctx: ShapeContext) -> Any:
    """`qnn.sqrt` and the other unary functions: the input's shape."""
    _parameters(ctx, 1, ctx.operand(0), -1)
    return ctx.tensor(ctx.operand(0).dims)


@shape_rule("qnn_concatenate")
def qnn_concatenate(ctx: ShapeContext) -> Any:
    """`qnn.concatenate((a, b, ...), scales, zero points, ...)`: `concatenate`'s shape (its
    elements are requantized, so no known values survive); the output's scale and zero point
    hold one value each (the kernel would broadcast a longer one into every input)."""
    _parameters(ctx, 3)
    _one_element(ctx, _operands(ctx, 3, 5))
    result = concatenate(ctx)
    result.value = None
    return result
