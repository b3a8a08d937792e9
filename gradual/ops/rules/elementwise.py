"""Elementwise operators: NumPy broadcasting, `where`, `cast`, and arithmetic on shape values."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, overload

from gradual.diagnostics import codes
from gradual.ops.context import ArgView, RuleFailure, ShapeContext, TensorArg, TupleArg
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    cast_values,
    dtype_name,
    value_add,
    value_element,
    value_floor_divide,
    value_multiply,
    value_subtract,
    value_truncate_divide,
)
from gradual.ops.tables import shape_rule


def broadcast_pair(ctx: ShapeContext, a: Any, b: Any) -> Any:
    """Broadcast two dims. Two imprecise dims that can never be 1 (`2..3`, `2..5`) must be
    equal, so they are unified (and checked) instead of widened to `?`."""
    neither_one = ctx.is_one(a) is False and ctx.is_one(b) is False
    if neither_one and ctx.static(a) is None and ctx.static(b) is None:
        return ctx.equal(a, b)
    return ctx.broadcast(a, b)


@overload
def broadcast_dims(ctx: ShapeContext, shapes: Sequence[list]) -> list: ...
@overload
def broadcast_dims(ctx: ShapeContext, shapes: Sequence[Optional[list]]) -> Optional[list]: ...
def broadcast_dims(ctx: ShapeContext, shapes: Sequence[Optional[list]]) -> Optional[list]:
    """NumPy broadcasting of several shapes, right-aligned; None if any rank is unknown.

    Per axis, the exact dims are broadcast first, so that every imprecise one is then
    broadcast against the exact result (and checked to be it or 1): folding two `?` together
    first would give a computed `?` that an exact `n` then absorbs unchecked, and the result
    would be `n` where the runtime computes the `?` (n = 1)."""
    known = [s for s in shapes if s is not None]
    if len(known) != len(shapes):
        return None
    rank = max((len(s) for s in known), default=0)
    out: list = []
    for i in range(1, rank + 1):
        dims = [s[-i] for s in known if i <= len(s)]
        if len(dims) > 2:
            dims.sort(key=lambda d: not ctx.exact(d))
        result = dims[0]
        for d in dims[1:]:
            result = broadcast_pair(ctx, result, d)
        out.append(result)
    return out[::-1]


register_rule_message(
    "reinterpret-width",
    codes.DTYPE_MISMATCH,
    "{op} reads the bits of {arg} ({source}) as {target}, which has another width",
    "reinterpret between dtypes of one width (float32 and int32), or use `cast`",
)

ValueFn = Callable[[ShapeContext, Any, Any], Any]


def broadcast_values3(ctx: ShapeContext, args: Sequence[TensorArg], fn: Callable[..., Any]) -> Optional[list]:
    """`broadcast_values` of any number of arguments."""
    return broadcast_values(ctx, args, fn)


def broadcast_values(ctx: ShapeContext, args: Sequence[TensorArg], fn: ValueFn) -> Optional[list]:
    """Elementwise arithmetic on known shape values (spec §3.7): scalars and vectors only,
    a one-element side stretching. An undefined result (negative, division by 0) is unknown."""
    values: list[list[Any]] = []
    for a in args:
        if a.value is None or a.rank is None or a.rank > 1:
            return None
        values.append(list(a.value))
    length = max(len(v) for v in values)
    if any(len(v) not in (1, length) for v in values):
        return None
    try:
        return [fn(ctx, *(v[i] if len(v) > 1 else v[0] for v in values)) for i in range(length)]
    except Exception:  # noqa: BLE001 - an undefined element is simply not known
        return None


def _static_only(op: Callable[[int, int], Optional[int]]) -> ValueFn:
    """A value function defined only on statically known elements (None: undefined)."""

    def fn(ctx: ShapeContext, a: Any, b: Any) -> Any:
        x, y = ctx.static(a), ctx.static(b)
        result = None if x is None or y is None else op(x, y)
        if result is None:
            raise ValueError("not known")
        return value_element(ctx, result)

    return fn


def _extreme(smaller: bool) -> ValueFn:
    """`minimum` (smaller) or `maximum` of shape values: known elements compare; else the one
    provably not larger (smaller) of the two, else of two exact values their exact `min`/`max`
    (`max(n, m)`), else the interval both bounds allow:
    `min(n, 10)`, a detector's top-k count, is in `0..10` (it was not known at all)."""
    pick = min if smaller else max

    def fn(ctx: ShapeContext, a: Any, b: Any) -> Any:
        x, y = ctx.static(a), ctx.static(b)
        if x is not None and y is not None:
            return value_element(ctx, pick(x, y))
        if (x is not None and x < 0) or (y is not None and y < 0):
            raise ValueError("not known")  # a negative constant: no interval of sizes holds it
        if _provably_at_most(ctx, a, b):
            return a if smaller else b
        if _provably_at_most(ctx, b, a):
            return b if smaller else a
        if ctx.exact(a) and ctx.exact(b) and hasattr(a, "extremum"):  # `max(n, m)`, exact
            return a.extremum("min" if smaller else "max", b)
        (alo, ahi), (blo, bhi) = ctx.bounds(a), ctx.bounds(b)
        if smaller:
            lo, hi = min(alo, blo), ahi if bhi is None else bhi if ahi is None else min(ahi, bhi)
        else:
            lo, hi = max(alo, blo), None if ahi is None or bhi is None else max(ahi, bhi)
        if lo == 0 and hi is None:
            raise ValueError("not known")  # no bound says more than `?` would
        return ctx.bounded(lo, hi)

    return fn


def _provably_at_most(ctx: ShapeContext, a: Any, b: Any) -> bool:
    """Whether a <= b for every size (`n // 2` and `n`): the difference of two exact values, or
    the bounds of others. The difference of two unknown values is itself unknown, and an
    unknown dim is read as a size (at least 0): `min(?, ? // 2)` picked the first, where the
    precise program's `min(1, 0)` is 0."""
    if not (ctx.exact(a) and ctx.exact(b)):
        a_hi, b_lo = ctx.bounds(a)[1], ctx.bounds(b)[0]
        return a_hi is not None and a_hi <= b_lo
    try:
        return ctx.at_least(value_subtract(ctx, b, a), 0) is True
    except (ValueError, RuleFailure):
        return False


def _truncated_remainder(x: int, y: int) -> Optional[int]:
    """Relay's integer `mod` (NumPy's `fmod`): the remainder with the dividend's sign."""
    if y == 0:
        return None
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def _floored_remainder(x: int, y: int) -> Optional[int]:
    """Python's (and torch's `remainder`) integer modulo: the remainder with the divisor's sign."""
    return x % y if y else None


def _integer_power(x: int, y: int) -> Optional[int]:
    """`x ** y` for a non-negative exponent, where it fits 64 bits (None otherwise: a huge
    exponent is not computed at all)."""
    if y < 0 or abs(x) > 1 and y >= 64:
        return None
    result = x**y
    return result if -(2**63) <= result < 2**63 else None


def _floor_remainder(ctx: ShapeContext, a: Any, b: Any) -> Any:
    """Python's modulo of values (the divisor's sign): known elements give an int, others
    a - (a // b) * b (shape values that are not known are non-negative)."""
    if ctx.static(a) is not None and ctx.static(b) is not None:
        return _static_only(_floored_remainder)(ctx, a, b)
    return a - (a // b) * b


def _compare(same: bool) -> ValueFn:
    """`equal` (same) or `not_equal` of shape values as 1 / 0: known elements compare; a size
    (known to be >= 0) differs from a negative constant, as in `where(shape == -1, 1, shape)`."""

    def fn(ctx: ShapeContext, a: Any, b: Any) -> Any:
        x, y = ctx.static(a), ctx.static(b)
        if x is not None and y is not None:
            return ctx.const(int((x == y) == same))
        if (x is not None and x < 0 and ctx.at_least(b, 0)) or (y is not None and y < 0 and ctx.at_least(a, 0)):
            return ctx.const(int(not same))
        raise ValueError("not known")

    return fn


VALUE_FUNCTIONS: dict[str, Optional[ValueFn]] = {
    "broadcast_equal": _compare(True),
    "broadcast_not_equal": _compare(False),
    "broadcast_add": value_add,
    "broadcast_subtract": value_subtract,
    "broadcast_multiply": value_multiply,
    "broadcast_floor_divide": value_floor_divide,
    "broadcast_divide": value_truncate_divide,
    "broadcast_maximum": _extreme(smaller=False),
    "broadcast_minimum": _extreme(smaller=True),
    "broadcast_mod": _static_only(_truncated_remainder),
    "broadcast_floor_mod": _floor_remainder,
    "broadcast_power": _static_only(_integer_power),
    "broadcast": None,
}


def _register_broadcast(name: str, fn: Optional[ValueFn]) -> None:
    def rule(ctx: ShapeContext) -> Any:
        lhs, rhs = ctx.operand(0), ctx.operand(1)  # qnn.add and friends add scales and zero points after them
        dims = broadcast_dims(ctx, [lhs.dims, rhs.dims])
        value = broadcast_values(ctx, [lhs, rhs], fn) if fn is not None else None
        return ctx.tensor(dims, value=cast_values(ctx, value, lhs.dtype))  # what the kernel's dtype holds

    rule.__name__ = name
    rule.__doc__ = f"`{name}`: NumPy broadcasting" + (", keeping known shape values." if fn else ".")
    shape_rule(name)(rule)


for _name, _fn in VALUE_FUNCTIONS.items():
    _register_broadcast(_name, _fn)


@shape_rule("where")
def where(ctx: ShapeContext) -> Any:
    """`where(cond, x, y)`: the broadcast of all three shapes; shape values are chosen where the
    condition's elements are known."""
    cond, x, y = ctx.operands()
    dims = broadcast_dims(ctx, [cond.dims, x.dims, y.dims])
    return ctx.tensor(dims, value=broadcast_values3(ctx, [cond, x, y], _choose))


def _choose(ctx: ShapeContext, c: Any, a: Any, b: Any) -> Any:
    known = ctx.static(c)
    if known is None:
        raise ValueError("not known")
    return a if known else b


@shape_rule("cast")
def cast(ctx: ShapeContext) -> Any:
    """`cast(x, dtype)`: same shape, the new dtype; shape values survive integer casts that
    can hold them."""
    (data,) = ctx.operands()
    dtype = ctx.attr("dtype")
    return ctx.tensor(data.dims, dtype, value=cast_values(ctx, data.value, dtype))


@shape_rule("cast_like")
def cast_like(ctx: ShapeContext) -> Any:
    """`cast_like(x, like)` and `onnx.cast_like`: x cast to like's dtype, as `cast` (like's
    shape does not matter)."""
    data, like = ctx.operands()
    return ctx.tensor(data.dims, like.dtype, value=cast_values(ctx, data.value, like.dtype))


@shape_rule("reinterpret")
def reinterpret(ctx: ShapeContext) -> Any:
    """`reinterpret(x, dtype)`: the same bits read as another dtype of the same width."""
    (data,) = ctx.operands()
    dtype = ctx.attr("dtype")
    widths = [_bits(dtype_name(d)) for d in (data.dtype, dtype)]
    if None not in widths and widths[0] != widths[1]:
        ctx.fail("reinterpret-width", arg=data, source=dtype_name(data.dtype), target=dtype)
    return ctx.tensor(data.dims, dtype)


def _bits(name: Optional[str]) -> Optional[int]:
    if name is None:
        return None
    if name == "bool":
        return 8
    digits = "".join(c for c in name if c.isdigit())
    return int(digits) if digits else None


@shape_rule("identity")
def identity(ctx: ShapeContext) -> Any:
    """`copy(x)`: the same shape and the same known values."""
    (data,) = ctx.operands()
    return ctx.tensor(data.dims, value=data.value)


@shape_rule("same_type")
def same_type(ctx: ShapeContext) -> Any:
    """`annotation.checkpoint(x)` and `annotation.stop_fusion(x)`: x itself, a tensor or a
    tuple (of tuples) of tensors."""
    (data,) = ctx.args
    return _same_type(ctx, data)


def _same_type(ctx: ShapeContext, arg: ArgView) -> Any:
    if isinstance(arg, TupleArg):
        return ctx.tuple([_same_type(ctx, f) for f in arg.fields or ()])
    tensor = ctx.expect_tensor(arg)
    return ctx.tensor(tensor.dims, tensor.dtype, tensor.value)
