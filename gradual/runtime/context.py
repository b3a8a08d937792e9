"""The concrete side of a shape rule (spec §3.10): `ShapeContext` over plain ints.

`ConcreteContext` opens a call's runtime arguments as `TensorArg`s whose dims are `Size`s (ints
that remember which argument and axis they came from, for messages) and whose `value` lists the
elements of small integer vectors, so shape values work as in the checker. Running an operator's
rule on it gives the exact size to allocate; a violated constraint raises `RuleFailure`.
`ctx.unknown()` and `ctx.bounded(lo, hi)` become `Unknown`: "what the kernel produces, within
these bounds", verified after the kernel ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from gradual.ops.context import ArgView, ShapeContext, TensorArg, TupleArg
from gradual.runtime.values import Frame, dtype_name
from gradual.shapes import Dimension
from gradual.types import DYN_DTYPE, FuncType, Type

#: integer tensors with at most this many elements (and rank <= 1) expose their elements as
#: `TensorArg.value`, like the checker's shape values.
VALUE_LIMIT = 64


class Size(int):
    """A concrete dimension read from an argument: an int that remembers where it came from."""

    origin: tuple

    def __new__(cls, value: int, origin: tuple) -> "Size":
        obj = super().__new__(cls, value)
        obj.origin = origin
        return obj


class DName(str):
    """A dtype read from an argument: a str that remembers which argument it came from."""

    origin: tuple

    def __new__(cls, value: str, origin: tuple) -> "DName":
        obj = super().__new__(cls, value)
        obj.origin = origin
        return obj


class Unknown:
    """A data-dependent size: whatever the kernel produces, within `lo..hi` (hi None: unbounded)."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo: int = 0, hi: Optional[int] = None) -> None:
        self.lo = lo
        self.hi = hi

    def contains(self, value: int) -> bool:
        """Whether a concrete size satisfies the bounds."""
        return self.lo <= value and (self.hi is None or value <= self.hi)

    def _any(self, other: Any) -> "Unknown":
        return Unknown()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __floordiv__ = __rfloordiv__ = _any

    def __repr__(self) -> str:
        return f"{self.lo}..{'' if self.hi is None else self.hi}"


class FuncArg(ArgView):
    """A function-valued argument."""

    __slots__ = ()


@dataclass
class RTensor:
    """A rule's tensor result on concrete inputs."""

    dims: Optional[list]
    dtype: Any = None
    value: Optional[list] = None


@dataclass
class RTuple:
    """A rule's tuple result on concrete inputs."""

    fields: list


def integer_value(array: np.ndarray) -> Optional[list]:
    """The elements of a small 0-D/1-D integer array (shape values), else None."""
    if array.ndim > 1 or array.size > VALUE_LIMIT or array.dtype.kind not in "iu":
        return None
    return [int(v) for v in array.reshape(-1)]


def open_value(value: Any, index: int, path: tuple = ()) -> ArgView:
    """A runtime value as the view a rule reads."""
    if isinstance(value, np.ndarray):
        dims = [Size(d, (index, path, axis)) for axis, d in enumerate(value.shape)]
        return TensorArg(index, path, dims, DName(dtype_name(value), (index, path, None)), integer_value(value))
    if isinstance(value, tuple):
        return TupleArg(index, path, [open_value(f, index, path + (i,)) for i, f in enumerate(value)])
    return FuncArg(index, path)


class ConcreteContext(ShapeContext):
    """A ShapeContext over the concrete arguments of one call (see the module docstring)."""

    def __init__(self, op_name: str, values: Sequence[Any], attrs: dict, frame: Optional[Frame] = None) -> None:
        self.op_name = op_name
        self.attrs = attrs
        self.frame = frame
        self.values = values
        self.args = [open_value(v, i) for i, v in enumerate(values)]
        self.values = values

    def element_bounds(
        self, arg: TensorArg, excluding: Optional[int] = None, column: Optional[int] = None
    ) -> Optional[tuple]:
        value: Any = self.values[arg.index]
        for i in arg.path:
            value = value[i]
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "iub":
            return None
        if column is not None:
            if value.ndim == 0 or not -value.shape[-1] <= column < value.shape[-1]:
                return None
            value = value[..., column]
        if excluding is not None:
            value = value[value != excluding]
        if not value.size:
            return ()
        return (int(value.min()), int(value.max()), int(value.sum(dtype=np.int64)))

    def scalar_number(self, arg: TensorArg) -> Optional[float]:
        value: Any = self.values[arg.index]
        for i in arg.path:
            value = value[i]
        if not isinstance(value, np.ndarray) or value.size != 1 or value.dtype.kind not in "iuf":
            return None
        return float(value.reshape(-1)[0])

    def row_bounds(self, arg: TensorArg, axis: int = 0) -> Optional[list]:
        value: Any = self.values[arg.index]
        for i in arg.path:
            value = value[i]
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "iubf" or not 0 <= axis < value.ndim:
            return None
        if not value.shape[axis]:
            return []
        rows = np.moveaxis(value, axis, 0).reshape(value.shape[axis], -1)
        if not rows.shape[1]:
            return [None] * rows.shape[0]
        number = float if value.dtype.kind == "f" else int
        return [(number(lo), number(hi)) for lo, hi in zip(rows.min(axis=1), rows.max(axis=1))]

    # attributes and knowledge ---------------------------------------------------------------
    def attr(self, name: str) -> Any:
        return self.attrs.get(name)

    def static(self, d: Any) -> Optional[int]:
        if isinstance(d, Unknown):
            return d.lo if d.hi == d.lo else None
        return int(d)

    def maybe_one(self, d: Any) -> Optional[bool]:
        if isinstance(d, Unknown):
            return None if d.contains(1) else False
        return int(d) == 1

    def const(self, value: int) -> int:
        return value

    def symbolic(self, dim: Any) -> Any:
        if not isinstance(dim, Dimension):
            return dim
        if dim.is_static:
            return dim.get_length()
        if dim.is_interval:
            return Unknown(dim.min_length, dim.max_length)
        if self.frame is None:
            return Unknown()
        try:
            return dim.evaluate(self.frame.env())
        except KeyError:
            return Unknown()

    def unknown(self) -> Unknown:
        return Unknown()

    def bounded(self, lo: Any, hi: Any) -> Unknown:
        low = self.static(lo) if lo is not None else 0
        high = self.static(hi) if hi is not None else None
        return Unknown(low or 0, high)

    # constraints ----------------------------------------------------------------------------
    def equal(self, a: Any, b: Any, symbol: Optional[str] = None, otherwise: Optional[tuple] = None) -> Any:
        if isinstance(a, Unknown):
            return b
        if isinstance(b, Unknown):
            return a
        if int(a) != int(b):
            if otherwise is not None:
                self.fail(otherwise[0], **otherwise[1])
            self.fail("runtime-dims-differ", a=a, b=b, symbol=symbol)
        return a if isinstance(a, Size) or not isinstance(b, Size) else b

    def broadcast(self, a: Any, b: Any) -> Any:
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return _broadcast_unknown(a, b)
        if int(a) == 1:
            return b
        if int(b) == 1 or int(a) == int(b):
            return a
        return self.fail("runtime-broadcast", a=a, b=b)

    def within(self, d: Any, lo: int, hi: Optional[int]) -> None:
        if isinstance(d, Unknown):
            return
        if int(d) < lo or hi is not None and int(d) > hi:
            self.fail("runtime-outside", d=d, lo=lo, hi=hi)

    def require_rank(self, arg: TensorArg, rank: int) -> None:
        if arg.dims is not None and len(arg.dims) != rank:
            self.fail("rank", arg=arg, expected=rank, actual=len(arg.dims))

    def same_dtype(self, a: Any, b: Any) -> Any:
        if a == DYN_DTYPE or a is None:
            return b
        if b == DYN_DTYPE or b is None or a == b:
            return a
        return self.fail("runtime-dtypes-differ", a=a, b=b)

    def tuple_fields(self, arg: ArgView) -> Optional[list]:
        if isinstance(arg, TupleArg):
            return [self.expect_tensor(f) for f in arg.fields or []]
        return self.fail("not-a-tuple", arg=arg, expected="tensors", actual_kind=_kind(arg))

    # what the signature matcher asks beyond the protocol ---------------------------------------
    def expect_tensor(self, arg: ArgView) -> TensorArg:
        """The argument as a tensor (a tuple or function here fails the rule)."""
        if isinstance(arg, TensorArg):
            return arg
        return self.fail("not-a-tensor", arg=arg, actual_kind=_kind(arg))

    def expect_tuple(self, arg: ArgView, length: int) -> TupleArg:
        """The argument as a tuple of `length` fields."""
        if not isinstance(arg, TupleArg):
            return self.fail("not-a-tuple", arg=arg, expected=length, actual_kind=_kind(arg))
        if arg.fields is not None and len(arg.fields) != length:
            self.fail("tuple-length", arg=arg, expected=length, actual=len(arg.fields))
        return arg

    def match_other(self, param: Type, arg: ArgView, matcher: Any = None) -> None:
        """Function-typed parameters: the argument must be a function."""
        if isinstance(param, FuncType) and not isinstance(arg, FuncArg):
            self.fail("not-a-function", arg=arg, actual_kind=_kind(arg))

    def other_result(self, t: Type, matcher: Any) -> Type:
        """Results that are not tensors or tuples (function types, `?`): not verified."""
        return t

    # results ----------------------------------------------------------------------------------
    def tensor(
        self, dims: Optional[Sequence[Any]], dtype: Any = None, value: Optional[Sequence[Any]] = None
    ) -> RTensor:
        if dims is not None:
            for d in dims:
                if not isinstance(d, Unknown) and int(d) < 0:
                    self.fail("negative-dim", detail=f"a dimension of {int(d)}")
        return RTensor(None if dims is None else list(dims), dtype, None if value is None else list(value))

    def tuple(self, fields: Sequence[Any]) -> RTuple:
        return RTuple(list(fields))


def _kind(arg: ArgView) -> str:
    if isinstance(arg, TupleArg):
        return f"a tuple of {len(arg.fields or [])}"
    if isinstance(arg, FuncArg):
        return "a function"
    return "a tensor"


def _broadcast_unknown(a: Any, b: Any) -> Any:
    """Broadcasting where a side is data-dependent: a 1 stretches to the other side, anything
    else is only known once the kernel ran."""
    if not isinstance(a, Unknown) and int(a) == 1:
        return b
    if not isinstance(b, Unknown) and int(b) == 1:
        return a
    return Unknown()
