"""Helpers every operator family shares: attribute validation, axes, dtypes, shape values.

Nothing here compares dimensions with `==`: attributes are plain Python ints and are checked
as such; dimensions are only combined with `+ - * //` or handed to the context.
"""

from __future__ import annotations

import itertools
import math
import struct
from typing import Any, Optional, Sequence

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, normalize_axis
from gradual.ops.messages import register_rule_message
from gradual.types import DTYPES, INT_DTYPES

INTEGER_DTYPES = INT_DTYPES
ALL_DTYPES = frozenset(DTYPES)

register_rule_message(
    "attribute-length",
    codes.BAD_ATTRIBUTE,
    "{op} needs {expected} values for `{name}`, but got {actual}",
    "give `{name}` {expected} values",
)
register_rule_message(
    "attribute-range",
    codes.BAD_ATTRIBUTE,
    "{op} got {name}={value}, but `{name}` must be {needed}",
    "choose a value of `{name}` that is {needed}",
)
register_rule_message(
    "attribute-entries",
    codes.BAD_ATTRIBUTE,
    "{op} got {name}={value}, but every entry of `{name}` must be {needed}",
    "make every entry of `{name}` {needed}",
)
register_rule_message(
    "attribute-choice",
    codes.BAD_ATTRIBUTE,
    '{op} does not support {name}="{value}"',
    "use one of: {supported}",
)
register_rule_message(
    "duplicate-axes",
    codes.BAD_ATTRIBUTE,
    "{op} got {name}={axes}, which names an axis twice",
    "name each axis at most once",
)
register_rule_message(
    "new-axis-out-of-range",
    codes.OP_CONSTRAINT,
    "{op} got {name}={axis}, but a new axis of a rank-{rank} input must lie in [-{count}, {rank}]",
    "choose {name} between -{count} and {rank}",
)
register_rule_message(
    "not-a-scalar",
    codes.RANK_MISMATCH,
    "{arg} has rank {rank}, but {op} needs a scalar there",
    "pass a scalar (a tensor of rank 0), e.g. a literal such as `0f`",
)


register_rule_message(
    "empty-dim",
    codes.SHAPE_MISMATCH,
    "dim {axis} of {arg} is empty, but {op} needs at least one element there ({why})",
    "give {op} an input whose dim {axis} is at least 1",
)


register_rule_message(
    "dim-too-large",
    codes.SHAPE_MISMATCH,
    "dim {axis} of {arg} is {size}, more than the {limit} {op} allows there ({why})",
    "make dim {axis} of {arg} at most {limit}",
)


def require_at_most(ctx: ShapeContext, data: TensorArg, axis: int, limit: Any, why: str) -> None:
    """Dim `axis` of `data` is at most `limit`: a static error where both are known;
    otherwise the rule's evaluation before the kernel decides (no check is inserted)."""
    size, most = ctx.static(data.dim(axis)), ctx.static(limit)
    if size is not None and most is not None and size > most:
        ctx.fail("dim-too-large", arg=data, axis=axis, size=size, limit=most, why=why)


register_rule_message(
    "rank-relation",
    codes.RANK_MISMATCH,
    "{arg} has rank {actual}, but {op} needs rank {expected} there ({why})",
    "give it rank {expected}",
)


def require_rank_of(ctx: ShapeContext, arg: TensorArg, rank: int, why: str) -> None:
    """`arg` has the rank another argument's rank decides: checked where `arg`'s is unknown;
    a `rank-relation` failure where it is known (both may have been unknown to the checker,
    which can state no relation between two ranks in a check)."""
    if arg.dims is not None and arg.rank != rank:
        ctx.fail("rank-relation", arg=arg, actual=arg.rank, expected=rank, why=why)
    ctx.require_rank(arg, rank)


def require_nonempty(ctx: ShapeContext, data: TensorArg, axis: int, why: str) -> None:
    """Dim `axis` of `data` must hold an element: a static error where it is known to be 0;
    otherwise the rule's evaluation before the kernel decides (no check is inserted)."""
    if ctx.at_least(data.dim(axis), 1) is False:
        ctx.fail("empty-dim", arg=data, axis=axis, why=why)


def index_out_of_range(ctx: ShapeContext, indices: TensorArg, length: Optional[int]) -> Optional[int]:
    """An element of `indices` outside -length..length - 1 (negative ones count from the end),
    where the elements and the length are known here (the elements at the latest when the
    program runs); None where every one points into the dim or they are not known."""
    bounds = ctx.element_bounds(indices)
    if not bounds or length is None:
        return None
    return next((value for value in bounds[:2] if not -length <= value < length), None)


def show_ints(values: Sequence[Any]) -> str:
    """An attribute list as written in a program: `[5, -1]`, `[[0, 0], [1, 1]]` (a fact for
    messages)."""
    return "[" + ", ".join(show_ints(v) if isinstance(v, (list, tuple)) else str(v) for v in values) + "]"


def dtype_name(dtype: Any) -> Optional[str]:
    """The name of a dtype in either domain (`"int64"`), or None when it is not known."""
    inner = getattr(dtype, "dtype", dtype)
    name = inner if isinstance(inner, str) else getattr(inner, "name", None)
    return name if name in ALL_DTYPES else None


def is_integer_dtype(dtype: Any) -> Optional[bool]:
    """True/False when the dtype is known to be (not) an integer type, else None."""
    name = dtype_name(dtype)
    return None if name is None else name in INTEGER_DTYPES


#: the most outputs an attribute may ask of one call (split's sections, unbind's count): the
#: result's tuple type holds one type per output, and a count written in an attribute is not
#: bounded by the program's size (a billion sections took GBs and ended in a MemoryError)
MAX_OUTPUTS = 65_536


def require_positive(ctx: ShapeContext, name: str, value: int, allow_zero: bool = False) -> int:
    """Fail with attribute-range unless the attribute is > 0 (or >= 0)."""
    if value < 0 or (value == 0 and not allow_zero):
        ctx.fail("attribute-range", name=name, value=value, needed="at least 0" if allow_zero else "at least 1")
    return value


def require_outputs(ctx: ShapeContext, name: str, count: int) -> int:
    """Fail with attribute-range unless an attribute counting the call's outputs is at most
    MAX_OUTPUTS (the rule builds a type per output)."""
    if count > MAX_OUTPUTS:
        ctx.fail(
            "attribute-range", name=name, value=count, needed=f"at most {MAX_OUTPUTS} (the outputs one call may have)"
        )
    return count


def require_finite(ctx: ShapeContext, name: str, values: Sequence[Any]) -> list:
    """Fail with attribute-range unless every entry of a float attribute (a scale) is a finite
    number: NaN or an infinity scales no size."""
    values = list(values)
    for value in values:
        if value is not None and not math.isfinite(value):
            ctx.fail("attribute-range", name=name, value=value, needed="a finite number")
    return values


def require_entries(ctx: ShapeContext, name: str, values: Sequence[int], allow_zero: bool = False) -> list:
    """Fail with attribute-entries unless every entry of a list attribute is > 0 (or >= 0)."""
    if any(v < 0 or (v == 0 and not allow_zero) for v in values):
        ctx.fail(
            "attribute-entries", name=name, value=show_ints(values), needed="at least 0" if allow_zero else "at least 1"
        )
    return list(values)


def require_length(ctx: ShapeContext, name: str, values: Sequence[Any], allowed: Sequence[int]) -> None:
    """Fail with attribute-length unless the list attribute has one of the allowed lengths."""
    if len(values) not in allowed:
        expected = " or ".join(str(n) for n in allowed)
        ctx.fail("attribute-length", name=name, expected=expected, actual=len(values))


def require_choice(ctx: ShapeContext, name: str, value: str, supported: Sequence[str]) -> str:
    """Fail with attribute-choice unless a string attribute is one of the supported values."""
    if value not in supported:
        ctx.fail("attribute-choice", name=name, value=value, supported=", ".join(f'"{s}"' for s in supported))
    return value


def axis_index(axis: int, rank: int) -> int:
    """An axis its operator's contract holds in [-rank, rank) (or a new axis, in [-rank - 1,
    rank] of a rank - 1 input), as an index from 0."""
    return axis + rank if axis < 0 else axis


def distinct_axes(ctx: ShapeContext, axes: Sequence[int], rank: int, name: str = "axis") -> list:
    """Normalize a list of axes against `rank`; fails on one out of range or named twice."""
    chosen = [normalize_axis(ctx, a, rank, name) for a in axes]
    if len(set(chosen)) != len(chosen):
        ctx.fail("duplicate-axes", name=name, axes=show_ints(axes))
    return chosen


def new_axis(ctx: ShapeContext, axis: int, rank: int, name: str = "axis") -> int:
    """Where a new axis goes in a rank-`rank` input: `axis` in [-rank - 1, rank], as an index."""
    if not -rank - 1 <= axis <= rank:
        ctx.fail("new-axis-out-of-range", name=name, axis=axis, rank=rank, count=rank + 1)
    return axis + rank + 1 if axis < 0 else axis


def known_dims(arg: TensorArg) -> list[Any]:
    """The dims of an argument whose rank is known by now: tested (`arg.dims is not None`) or
    required (`ctx.require_rank` gives an argument of unknown rank dims of that rank)."""
    assert arg.dims is not None, "the dims of an argument of unknown rank"
    return arg.dims


def known_ints(ctx: ShapeContext, arg: TensorArg) -> Optional[list]:
    """The elements of a small integer tensor as Python ints, when all are known."""
    if arg.value is None:
        return None
    out = []
    for v in arg.value:
        known = ctx.static(v)
        if known is None:
            return None
        out.append(int(known))
    return out


def require_scalar(ctx: ShapeContext, arg: TensorArg) -> None:
    """The argument must be a scalar (rank 0); an argument of unknown rank gets a check."""
    if arg.dims is None:
        ctx.require_rank(arg, 0)
    elif arg.rank != 0:
        ctx.fail("not-a-scalar", arg=arg, rank=arg.rank)


def require_one_value(ctx: ShapeContext, arg: TensorArg) -> None:
    """The argument holds one value: a scalar, or a vector of one element (ONNX's `depth` and
    window `size`). An argument of unknown rank is left to this check when it runs."""
    if arg.dims is None:
        return
    if arg.rank == 1:
        ctx.equal(arg.dim(0), ctx.const(1), symbol="one value")
    elif arg.rank != 0:
        ctx.fail("not-a-scalar", arg=arg, rank=arg.rank)


INTEGER_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}


def cast_values(ctx: ShapeContext, values: Optional[Sequence[Any]], dtype: Any) -> Optional[list]:
    """The shape values that survive a cast to `dtype`: integer types keep the elements they
    can hold; a symbolic element survives only types of at least 32 bits (a size beyond 2^31
    is assumed not to occur), and unsigned ones only where it is known to be >= 0 (`0 - n`
    wraps); float and bool casts drop values."""
    limits = INTEGER_RANGES.get(dtype_name(dtype) or "")
    if values is None or limits is None:
        return None
    lo, hi = limits
    for v in values:
        known = ctx.static(v)
        if known is None and (hi < 2**31 - 1 or lo == 0 and not ctx.at_least(v, 0)):
            return None
        if known is not None and not lo <= known <= hi:
            return None
    return list(values)


#: the most elements a shape value of rank 2 or more is rearranged with
REARRANGED_LIMIT = 64


def rearranged_value(
    ctx: ShapeContext, data: TensorArg, picks: Sequence[Sequence[int]], perm: Sequence[int]
) -> Optional[list]:
    """The shape values of data (row-major, every dim static) at positions picks[a] along each
    axis a, the axes in the order perm: a slice or transposition of a matrix of widths (the
    TorchScript exporter's F.pad turns its pads into a (n, 2) matrix, reverses and transposes
    it). None when data carries no values or is not small and static."""
    if data.value is None or data.dims is None:
        return None
    shape: list[int] = []
    for d in data.dims:
        size = ctx.static(d)
        if size is None:
            return None
        shape.append(size)
    count = 1
    for size in shape:
        count *= size
    if count != len(data.value) or count > REARRANGED_LIMIT:
        return None
    strides = [1] * len(shape)
    for a in range(len(shape) - 2, -1, -1):
        strides[a] = strides[a + 1] * shape[a + 1]
    return [
        data.value[sum(i * strides[a] for i, a in zip(combo, perm))]
        for combo in itertools.product(*(picks[a] for a in perm))
    ]


def keeps_values(dtype: Any) -> bool:
    """Whether a tensor of `dtype` may carry shape values (the integer types)."""
    return is_integer_dtype(dtype) is True


def is_huge(value: int) -> bool:
    """Frontends write "to the end" as INT_MAX / INT64_MAX; treat anything that large so."""
    return value >= 2**31 - 1


def is_huge_negative(value: int) -> bool:
    """ "Before the start" for negative strides, written as INT_MIN / INT64_MIN."""
    return value <= -(2**31)


# shape values -----------------------------------------------------------------------------------
# The elements of a shape value are integers of either sign: `subtract(0, shape_of(x))` holds
# `0 - n`. A plain int stands for a negative constant, an exact dimension for a polynomial
# (its own bounds may be negative), and an interval (`?`, `1..8`) for some value >= 0 inside
# it. Arithmetic on them follows the runtime kernel and is kept only where it is exact:
# interval arithmetic clips at 0 and assumes natural numbers, so an interval meets only
# elements known to be >= 0, and never in a subtraction. `ValueError` means "not known".


def value_element(ctx: ShapeContext, v: int) -> Any:
    """A known element of a shape value: a dimension, or a plain int when negative."""
    return ctx.const(v) if v >= 0 else v


def _exact_or_natural(ctx: ShapeContext, a: Any, b: Any) -> bool:
    """Both are exact (polynomials combine exactly), or both are known to be >= 0."""
    return ctx.exact(a) and ctx.exact(b) or bool(ctx.at_least(a, 0) and ctx.at_least(b, 0))


def _negated(ctx: ShapeContext, a: Any) -> Any:
    """`-a` of an exact element (a polynomial that may be negative)."""
    if not ctx.exact(a):
        raise ValueError("the negation of an interval is not a size")
    return ctx.const(0) - a


def value_add(ctx: ShapeContext, a: Any, b: Any) -> Any:
    """`a + b` of two shape-value elements."""
    x, y = ctx.static(a), ctx.static(b)
    if x is not None and y is not None:
        return value_element(ctx, x + y)
    if y is not None and y < 0:
        return value_subtract(ctx, a, ctx.const(-y))
    if x is not None and x < 0:
        return value_subtract(ctx, b, ctx.const(-x))
    if not _exact_or_natural(ctx, a, b):
        raise ValueError("a sum of an interval and a value that may be negative")
    return a + b


def value_subtract(ctx: ShapeContext, a: Any, b: Any) -> Any:
    """`a - b` of two shape-value elements (exact ones only: interval subtraction clips)."""
    x, y = ctx.static(a), ctx.static(b)
    if x is not None and y is not None:
        return value_element(ctx, x - y)
    if y is not None and y < 0:
        return value_add(ctx, a, ctx.const(-y))
    if x is not None and x < 0:
        return _negated(ctx, value_add(ctx, b, ctx.const(-x)))
    if not (ctx.exact(a) and ctx.exact(b)):
        raise ValueError("a difference with an interval")
    return a - b


def value_multiply(ctx: ShapeContext, a: Any, b: Any) -> Any:
    """`a * b` of two shape-value elements."""
    x, y = ctx.static(a), ctx.static(b)
    if x is not None and y is not None:
        return value_element(ctx, x * y)
    if y is not None and y < 0:
        return _negated(ctx, value_multiply(ctx, a, ctx.const(-y)))
    if x is not None and x < 0:
        return _negated(ctx, value_multiply(ctx, ctx.const(-x), b))
    if not _exact_or_natural(ctx, a, b):
        raise ValueError("a product of an interval and a value that may be negative")
    return a * b


def value_floor_divide(ctx: ShapeContext, a: Any, b: Any) -> Any:
    """`a // b` rounded toward -inf (NumPy's `floor_divide`), for a positive divisor; a
    symbolic divisor only where it divides exactly and both are >= 0 (its 0 is undefined)."""
    x, y = ctx.static(a), ctx.static(b)
    if x is not None and y is not None:
        if y == 0:
            raise ValueError("division by 0")
        return value_element(ctx, x // y)
    if y is not None and y > 0 and (ctx.exact(a) or ctx.at_least(a, 0)):
        return a // b
    if y is None and ctx.at_least(b, 1) and ctx.at_least(a, 0):
        return a // b
    raise ValueError("a quotient that is not known")


def value_truncate_divide(ctx: ShapeContext, a: Any, b: Any) -> Any:
    """`a / b` rounded toward 0 (Relay's integer `divide`): floor division where a >= 0."""
    x, y = ctx.static(a), ctx.static(b)
    if x is not None and y is not None:
        if y == 0:
            raise ValueError("division by 0")
        q = abs(x) // abs(y)
        return value_element(ctx, -q if (x < 0) != (y < 0) else q)
    if not ctx.at_least(a, 0):
        raise ValueError("truncation of a value that may be negative")
    return value_floor_divide(ctx, a, b)


def _float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def scaled_size(size: int, scale: float) -> int:
    """floor(size * scale) in float32, as ONNX Runtime and torch compute a resized side: 20
    scaled by 1.3 is 26 there, 25 in float64 (1.3 as a float32 is 1.2999999523)."""
    return int(_float32(_float32(scale) * _float32(float(size))))
