"""Small helpers the Relay operator families (scatter, scan, vision, ...) share: the dtype
class of an operand that holds indices, sizes or coordinates."""

from __future__ import annotations

from gradual.ops.context import ShapeContext, TensorArg
from gradual.ops.operand_dtypes import check_dtype_class


def require_indices(ctx: ShapeContext, arg: TensorArg) -> None:
    """An operand that holds indices, lengths or sizes has an integer dtype (checked at run
    where it is not known)."""
    check_dtype_class(ctx, arg, arg.dtype, "index")


def require_float(ctx: ShapeContext, arg: TensorArg) -> None:
    """An operand the kernel computes fractions of (coordinates, boxes, scores) has a
    floating-point dtype."""
    check_dtype_class(ctx, arg, arg.dtype, "float")
