"""Function contracts: a function value flowing into a position with a function type.

`fn (A) -> R` flows into `fn (A') -> R'` when the values the position will pass (A') fit what
the function takes (A), and what the function gives (R) fits what the position promises (R'):
parameters are compared contravariantly, results covariantly. Each comparison is graded like
any flow (spec §3.1): equal, or only a runtime check can tell (the function gets a contract: a
cast to the position's function type, which checks every call's arguments and result), or
never (a static error). A dim unifies (`fn (Tensor[(k, 4)])` of a closure polymorphic in `k`
takes the position's `n`), so a contract is needed only where imprecision meets precision.

The comparison runs on the call's solver: a `?` argument dim that the position's type shares
with a parameter the function fixes (`n` bound by `%x: Tensor[(?, 4)]`, the function takes
`(3, 4)`) is solved, and the argument itself is checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Any, Optional

from gradual.shapes import Dimension, Grade, Symbol
from gradual.types import (
    DYN_DTYPE,
    AdtType,
    BottomType,
    DynType,
    ElemVar,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeParam,
    TypeVar,
    Variadic,
)
from gradual.types.params import fresh_instance


@dataclass(frozen=True)
class Mismatch:
    """Where two function types can never agree: `side` is "param" (with its index), "result"
    or "arity"; `path` the tuple fields inside; `what` the fact ("dim", "rank", "dtype",
    "kind", "length"); `axis`; the function's own (`have`) and the position's (`want`)."""

    side: str
    index: int = 0
    path: tuple[object, ...] = ()
    what: str = ""
    axis: Optional[int] = None
    have: Any = None
    want: Any = None


class _Never(Exception):
    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__(mismatch.what)
        self.mismatch = mismatch


def function_grade(
    solver: Any, actual: FuncType, expected: FuncType, chosen: AbstractSet[object] = frozenset()
) -> tuple[Grade, Optional[Mismatch]]:
    """How a function of type `actual` fits a position of type `expected` (see the module
    docstring): EQUAL, CHECK (a contract), or NEVER with where they disagree. `chosen`: the
    position's symbols its callee chooses (each equal to itself, possibly to anything else)."""
    try:
        return _Grader(solver, chosen).function(actual, expected), None
    except _Never as never:
        return Grade.NEVER, never.mismatch


def value_grade(
    solver: Any, actual: Type, expected: Type, chosen: AbstractSet[object] = frozenset()
) -> tuple[Grade, Optional[Mismatch]]:
    """How a value of type `actual` fits a position of type `expected` (an algebraic data
    type, a type parameter, or any type holding them), graded as a function's parts are."""
    try:
        return _Grader(solver, chosen).flow(actual, expected, "value", 0, ()), None
    except _Never as never:
        return Grade.NEVER, never.mismatch


def mismatch_text(where: Optional[Mismatch]) -> str:
    """Where a value's type and the one required disagree, in words."""
    if where is None:
        return "they can never agree"
    part = "".join(f"field {i} of " for i in reversed(where.path)) if where.path else ""
    have, want = where.have, where.want
    if where.what == "dim":
        return f"{part}its dim {where.axis} is {have}, not {want}"
    if where.what in ("rank", "dtype", "length"):
        return f"{part}its {where.what} is {have}, not {want}"
    return f"{part or 'it '}is {have}, not {want}"


class _Grader:
    """Compares types as a call would: the function's own symbols (`fn [k](Tensor[(k,)])`)
    are bound by their first occurrence, parameters first, and stand for that afterwards."""

    def __init__(self, solver: Any, chosen: AbstractSet[object] = frozenset()) -> None:
        self.solver = solver
        self.chosen = chosen
        self.own: set[object] = set()  # the function's own symbols
        self.own_dtypes: set[object] = set()  # and dtype variables
        self.bound: dict[object, Any] = {}  # what each was bound to by its first occurrence
        self.bound_dtypes: dict[object, Any] = {}

    def function(self, actual: FuncType, expected: FuncType, side: str = "", index: int = 0) -> Grade:
        if actual.type_params and actual.type_params != expected.type_params:
            actual = fresh_instance(actual)  # a polymorphic function fits where an instance does
        self.own |= set(actual.dim_params)
        self.own_dtypes |= set(actual.dtype_params)
        if len(actual.params) != len(expected.params):
            raise _Never(Mismatch(side or "arity", index, (), "arity", None, len(actual.params), len(expected.params)))
        grade = Grade.EQUAL
        for i, (mine, theirs) in enumerate(zip(actual.params, expected.params)):
            grade = _worst(grade, self.flow(theirs, mine, side or "param", index if side else i, ()))
        grade = _worst(grade, self.flow(actual.ret, expected.ret, side or "result", index, ()))
        if actual.dtype_requires:
            self.dtype_classes(actual, side, index)
        return grade

    def dtype_classes(self, actual: FuncType, side: str, index: int) -> None:
        """The dtype classes the function's body needs of its parameters' dtypes
        (`FuncType.dtype_requires`) against the dtypes the position passes: a known one outside
        its class can never run (a call of the function there would be a static error)."""
        from gradual.ops.operand_dtypes import CLASSES

        for var, cls in actual.dtype_requires:
            passed = self.solver.resolve_dtype(self.bound_dtypes.get(var, var))
            if not isinstance(passed, str) or passed == DYN_DTYPE or CLASSES[cls][2](passed):
                continue
            at = next(
                (
                    i
                    for i, p in enumerate(actual.params)
                    if isinstance(p, TensorType)
                    and self.solver.resolve_dtype(self.bound_dtypes.get(p.dtype, p.dtype)) == passed
                ),
                0,
            )
            raise _Never(
                Mismatch(side or "param", index if side else at, (), "dtype-class", None, passed, CLASSES[cls][0])
            )

    def flow(self, value: Type, target: Type, side: str, index: int, path: tuple[object, ...]) -> Grade:
        """A value of type `value` where `target` is required."""
        value, target = self.solver.resolve_type(value), self.solver.resolve_type(target)
        if isinstance(target, ElemVar) and target is not value:  # an instance's parameter: this value's type
            self.solver.bind_type(target, value)
            return Grade.EQUAL
        if isinstance(value, ElemVar) and not isinstance(target, (DynType, TypeVar)):
            self.solver.bind_type(value, target)  # no value has it (an empty list's element)
            return Grade.EQUAL
        if isinstance(target, (DynType, TypeVar)) or isinstance(value, BottomType):
            return Grade.EQUAL
        if isinstance(value, (DynType, TypeVar)):
            return Grade.CHECK
        if isinstance(value, TypeParam) or isinstance(target, TypeParam):
            if value is target:
                return Grade.EQUAL
            raise _Never(Mismatch(side, index, path, "kind", None, value, target))
        if isinstance(value, AdtType) and isinstance(target, AdtType):
            if value.name != target.name or len(value.args) != len(target.args):
                raise _Never(Mismatch(side, index, path, "kind", None, value, target))
            grade = Grade.EQUAL  # covariant: an ADT value is immutable
            for v, t in zip(value.args, target.args):
                grade = _worst(grade, self.flow(v, t, side, index, path))
            return grade
        if isinstance(value, TensorType) and isinstance(target, TensorType):
            return self.tensor(value, target, side, index, path)
        if isinstance(value, TupleType) and isinstance(target, TupleType):
            if len(value.fields) != len(target.fields):
                raise _Never(Mismatch(side, index, path, "length", None, len(value.fields), len(target.fields)))
            grade = Grade.EQUAL
            for i, (v, t) in enumerate(zip(value.fields, target.fields)):
                grade = _worst(grade, self.flow(v, t, side, index, path + (i,)))
            return grade
        if isinstance(value, FuncType) and isinstance(target, FuncType):
            return self.function(value, target, side, index)
        if isinstance(value, RefType) and isinstance(target, RefType):  # invariant: both ways
            there = self.flow(value.content, target.content, side, index, path)
            return _worst(there, self.flow(target.content, value.content, side, index, path))
        raise _Never(Mismatch(side, index, path, "kind", None, value, target))

    def tensor(self, value: TensorType, target: TensorType, side: str, index: int, path: tuple[object, ...]) -> Grade:
        grade = self.dtype(value.dtype, target.dtype, side, index, path)
        if target.dims is None:
            return grade
        if value.dims is None:
            self.solver.widen_hints_in(target.dims)  # a hinted parameter that may get any shape
            return Grade.CHECK
        if any(isinstance(d, Variadic) for d in value.dims + target.dims):
            return Grade.CHECK  # a run of dims: the runtime compares them
        if len(value.dims) != len(target.dims):
            raise _Never(Mismatch(side, index, path, "rank", None, len(value.dims), len(target.dims)))
        for axis, (have, want) in enumerate(zip(value.dims, target.dims)):
            grade = _worst(grade, self.dim(have, want, Mismatch(side, index, path, "dim", axis, have, want)))
        return grade

    def dim(self, have: Any, want: Any, where: Mismatch) -> Grade:
        if not isinstance(want, Dimension) or not isinstance(have, Dimension):
            return Grade.CHECK  # `e|1` patterns: only a runtime value tells
        if not (have.is_exact and want.is_exact):
            self.solver.meet_hints(have, want)  # a hinted parameter that may get other sizes
        written = have, want
        have, want = self.own_dim(have), self.own_dim(want)
        for mine, other in ((have, want), (want, have)):
            if isinstance(mine, Symbol):  # the function's own symbol, first seen: bound here
                self.bound[mine] = self.solver.resolve(other) if isinstance(other, Dimension) else Dimension.dynamic()
                return Grade.EQUAL
        if (have is None) != (want is None) and self.bind_multiple(*(written if have is None else written[::-1])):
            return Grade.EQUAL
        if have is None or want is None:
            return Grade.CHECK  # an expression of the function's symbols no argument binds
        want, have = self.solver.resolve(want), self.solver.resolve(have)
        if self.chosen and (have.symbols() | want.symbols()) & self.chosen:
            # the callee's choice: never pinned, but a hinted parameter of the function meeting
            # it is widened (the function will be called with other sizes than the guess)
            self.solver.meet_hints(have, want)
            return Grade.EQUAL if have == want else Grade.CHECK
        if (
            not want.is_exact
            and have.min_length >= want.min_length
            and (want.max_length is None or have.max_length is not None and have.max_length <= want.max_length)
        ):
            return Grade.EQUAL  # every size the value may have fits
        grade: Grade = self.solver.unify(have, want)
        if grade is Grade.NEVER:
            shown = self.solver.resolve(have, final=True), self.solver.resolve(want, final=True)
            raise _Never(Mismatch(where.side, where.index, where.path, "dim", where.axis, *shown))
        return grade

    def bind_multiple(self, d: Dimension, other: Any) -> bool:
        """Bind the function's own symbol `s` of a first-seen `c * s` to `other / c` when that
        division is exact (`2 * n'` against `2 * n`: `n' = n`), so the two are equal for every
        size; False for any other dim (left to a check)."""
        other = self.own_dim(other) if isinstance(other, Dimension) else None
        if other is None or not other.is_exact or not d.is_symbolic:
            return False
        own = d.symbols() & self.own
        terms = d.expr.terms
        if len(own) != 1 or own != d.symbols() or own & self.bound.keys() or len(terms) != 1:
            return False
        ((monomial, coefficient),) = terms
        (symbol,) = own
        if monomial != (symbol,) or coefficient < 1:
            return False
        quotient = other.exact_div(coefficient)
        if quotient is None:
            return False
        self.bound[symbol] = self.solver.resolve(quotient)
        return True

    def own_dim(self, d: Dimension) -> Any:
        """A dim with the function's own symbols replaced by what they are bound to: an
        unbound one alone is returned as the Symbol (to bind), in an expression as None."""
        own = d.symbols() & self.own if d.is_symbolic else set()
        if not own:
            return d
        unbound = own - self.bound.keys()
        if unbound:
            single = (
                d.expr.terms[0][0][0]
                if len(d.expr.terms) == 1 and d.expr.terms[0][1] == 1 and len(d.expr.terms[0][0]) == 1
                else None
            )
            return single if single in unbound else None
        bound = self.bound
        exprs = {s: bound[s].expr for s in own if bound[s].is_exact}
        if len(exprs) != len(own):
            return None
        return Dimension.of_expr(d.expr.substitute(lambda s: exprs.get(s)))

    def dtype(self, value: Any, target: Any, side: str, index: int, path: tuple[object, ...]) -> Grade:
        value, target = self.own_dtype(value), self.own_dtype(target)
        target, value = self.solver.resolve_dtype(target), self.solver.resolve_dtype(value)
        if target == DYN_DTYPE:
            return Grade.EQUAL
        for mine, other in ((value, target), (target, value)):
            if mine in self.own_dtypes and mine not in self.bound_dtypes:
                self.bound_dtypes[mine] = other
                return Grade.EQUAL
        if self.chosen and (value in self.chosen or target in self.chosen):
            return Grade.EQUAL if value == target else Grade.CHECK  # the callee's choice, as a dim's
        unified: tuple[Grade, object] = self.solver.unify_dtype(value, target)
        grade = unified[0]
        if grade is Grade.NEVER:
            raise _Never(Mismatch(side, index, path, "dtype", None, value, target))
        return grade

    def own_dtype(self, t: Any) -> Any:
        return self.bound_dtypes.get(t, t)


_ORDER = {Grade.EQUAL: 0, Grade.CHECK: 1, Grade.NEVER: 2}


def _worst(a: Grade, b: Grade) -> Grade:
    return a if _ORDER[a] >= _ORDER[b] else b
