"""Broadcasting: binary and ternary elementwise operators (NumPy rules)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..context import ShapeContext, TensorArg
from ..registry import shape_rule


def broadcast_dims(ctx: ShapeContext, shapes: Sequence[Optional[list]]) -> Optional[list]:
    """NumPy broadcasting of several shapes, right-aligned; None if any rank is unknown."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out: list = []
    for i in range(1, rank + 1):
        dims = [s[-i] for s in shapes if i <= len(s)]  # type: ignore[index]
        result = dims[0]
        for d in dims[1:]:
            result = ctx.broadcast(result, d)
        out.append(result)
    return out[::-1]


def broadcast_values(ctx: ShapeContext, args: Sequence[TensorArg], fn: Any) -> Optional[list]:
    """Elementwise arithmetic on known shape values (SPEC 3.7), with scalar broadcasting."""
    values = [a.value for a in args]
    if any(v is None for v in values):
        return None
    length = max(len(v) for v in values)  # type: ignore[arg-type]
    if any(len(v) not in (1, length) for v in values):  # type: ignore[arg-type]
        return None
    try:
        return [fn(*(v[i] if len(v) > 1 else v[0] for v in values)) for i in range(length)]  # type: ignore[index]
    except Exception:  # an undefined value (a negative difference, a division by 0) is just unknown
        return None


@shape_rule("broadcast")
def broadcast(ctx: ShapeContext) -> Any:
    """`add`, `less`, ...: the broadcast shape of the two inputs."""
    lhs, rhs = ctx.args
    return ctx.tensor(broadcast_dims(ctx, [lhs.dims, rhs.dims]))


def _arith_rule(name: str, fn: Any) -> None:
    @shape_rule(name)
    def rule(ctx: ShapeContext) -> Any:
        lhs, rhs = ctx.args
        dims = broadcast_dims(ctx, [lhs.dims, rhs.dims])
        return ctx.tensor(dims, value=broadcast_values(ctx, [lhs, rhs], fn))

    rule.__name__ = name.replace("-", "_")
    rule.__doc__ = f"`{name}`: broadcasting, keeping known shape values."


_arith_rule("broadcast_add", lambda a, b: a + b)
_arith_rule("broadcast_subtract", lambda a, b: a - b)
_arith_rule("broadcast_multiply", lambda a, b: a * b)
_arith_rule("broadcast_floor_divide", lambda a, b: a // b)


@shape_rule("where")
def where(ctx: ShapeContext) -> Any:
    """`where(cond, x, y)`: the broadcast of all three shapes."""
    cond, x, y = ctx.args
    return ctx.tensor(broadcast_dims(ctx, [cond.dims, x.dims, y.dims]))
