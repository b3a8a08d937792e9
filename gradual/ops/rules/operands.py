"""Small helpers the Relay operator families (scatter, scan, vision, ...) share: their tensor
operands typed as such, and the dtype class of an operand that holds indices."""

from __future__ import annotations

from typing import cast

from gradual.ops.context import ShapeContext, TensorArg
from gradual.ops.operand_dtypes import check_dtype_class


def tensor_args(ctx: ShapeContext) -> list[TensorArg]:
    """The call's arguments as tensors: the operator's signature declares every one a tensor,
    and the call's check of the signature runs before the rule."""
    return [cast(TensorArg, arg) for arg in ctx.args]


def require_indices(ctx: ShapeContext, arg: TensorArg) -> None:
    """An operand that holds indices, lengths or sizes has an integer dtype (checked at run
    where it is not known)."""
    check_dtype_class(ctx, arg, arg.dtype, "index")


def require_float(ctx: ShapeContext, arg: TensorArg) -> None:
    """An operand the kernel computes fractions of (coordinates, boxes, scores) has a
    floating-point dtype."""
    check_dtype_class(ctx, arg, arg.dtype, "float")
