"""Type annotations (syntax) to checker types, resolving dimension and dtype names in scope.

Where a dimension name is not yet in scope, the scope decides what it means: in a signature
it is a new universally quantified symbol, in a body annotation or cast a new existential
(bound at runtime there). Problems are reported through a callback, never raised, so one
bad annotation does not hide the others.
"""

from __future__ import annotations

import difflib
import operator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterator, Optional

from gradual.infra.scopes import UndoLog
from gradual.shapes import Dimension, Poly, Symbol, extremum
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import (
    DTYPES,
    DYN,
    DYN_DTYPE,
    AdtType,
    Broadcast,
    DType,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeParam,
    TypeVar,
    Variadic,
    type_symbols,
)

Report = Callable[[str, Span, dict], None]

#: what `Converter._exact` gives for arithmetic past the polynomial bounds (a `?` dim)
UNTRACKED = object()

#: dimension arithmetic that polynomials and dims share (`//` differs: a positive constant only)
_RING = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_EXTREMA = ("max", "min")
_QUOTIENTS = ("//", "%")


class DimScope:
    """Dimension names visible at a point, and what a new name becomes there.

    `mode` is "quantify" (a signature: new names are universally quantified), "bind" (a body
    annotation or cast: new names are existentials bound at runtime) or "closed" (a hint:
    new names are errors). New symbols are collected in `introduced`. A scope nested in
    `parent` shares its tables (one dict lookup at any depth) until `close()` forgets what the
    nested scope introduced.
    """

    __slots__ = ("mode", "introduced", "names", "sequences", "log", "_mark")

    def __init__(self, parent: Optional["DimScope"] = None, mode: str = "closed") -> None:
        self.mode = mode
        self.introduced: list[Symbol] = []
        if parent is None:
            self.names: dict[str, Optional[Symbol]] = {}
            self.sequences: dict[str, Optional[Symbol]] = {}
            self.log = UndoLog()
        else:
            self.names, self.sequences, self.log = parent.names, parent.sequences, parent.log
        self._mark = self.log.mark()

    def lookup(self, name: str) -> Optional[Symbol]:
        """The symbol a name refers to here, searching enclosing scopes."""
        return self.names.get(name)

    def lookup_sequence(self, name: str) -> Optional[Symbol]:
        """The variadic symbol `*name` refers to here."""
        return self.sequences.get(name)

    def introduce(self, name: str) -> Symbol:
        """A new symbol for `name`, visible from now on in this scope."""
        sym = Symbol(name)
        self.log.set(self.names, name, sym)
        self.introduced.append(sym)
        return sym

    def introduce_sequence(self, name: str) -> Symbol:
        """A new variadic symbol `*name`."""
        sym = Symbol(name)
        self.log.set(self.sequences, name, sym)
        self.introduced.append(sym)
        return sym

    def forget(self, symbols: Collection[Symbol]) -> None:
        """These symbols' names no longer refer to them (a function type quantified them: a
        later annotation's same name is a new symbol)."""
        for sym in symbols:
            if self.names.get(sym.name) is sym:
                self.log.set(self.names, sym.name, None)

    def close(self) -> None:
        """The scope ends: the names introduced in it (and in scopes nested in it) are forgotten."""
        self.log.undo(self._mark)


@dataclass
class TypeScope:
    """Dtype variables and type holes (`?T`) visible at a point; type parameters (name ->
    TypeParam) and the module's algebraic data types (name -> number of type parameters)."""

    dtype_vars: dict = field(default_factory=dict)
    holes: dict = field(default_factory=dict)
    type_params: dict = field(default_factory=dict)
    adts: dict = field(default_factory=dict)


#: What the did-you-mean hints of one check may spend comparing a misspelled name with the names
#: the program defines, in units of one candidate compared per character of the misspelled
#: name (difflib's cost grows with the two names' lengths: 1-3.5 us a unit here). A hint
#: compares the misspelled name with every name it could have meant, so a program with many
#: unknown names among many known ones costs their product (8,000 unknown variables among
#: 8,000 bound ones took 164 s); past the budget an unknown name gets the usual help without a
#: guess. The budget is a fixed floor (5-15 ms: every hint of a program of ordinary size)
#: plus a share of the program's size small enough that guessing stays a small part of a
#: check (the check costs about 2.6 us a character; a budget of 2 comparisons a character,
#: priced alike for `%zz1` and `%hidden_state_projektion_7`, let the hints cost 25-70 times
#: the check, and grow as the product of the names until then: 12.6x for 8x the program).
#: Fixed sets (operators, their attributes, dtypes) cost the same for every program and are
#: always compared.
SUGGESTION_FLOOR = 5_000
SUGGESTION_BUDGET = 0.1  # units a character of the program
#: names longer than this get no guess (a comparison costs the product of the two lengths)
_SUGGEST_LENGTH = 64
_budget: ContextVar[Optional[list]] = ContextVar("gradual_suggestion_budget", default=None)


@contextmanager
def suggestion_budget(size: int) -> Iterator[None]:
    """Did-you-mean hints inside share one budget: SUGGESTION_FLOOR units and
    SUGGESTION_BUDGET more per character of a program of `size` characters (one check, one
    analysis)."""
    token = _budget.set([SUGGESTION_FLOOR + SUGGESTION_BUDGET * size])
    try:
        yield
    finally:
        _budget.reset(token)


def suggest(name: str, candidates: Collection[str] = (), *, scoped: Collection[str] = ()) -> Optional[str]:
    """The closest name to a misspelled one, if any is close: among `candidates`, a fixed set,
    and `scoped`, names the program defines, while the budget of the `suggestion_budget`
    around it lasts (outside one there is no budget). Comparing with `scoped` costs one unit a
    name a character of `name` (and one more a name); past the budget `scoped` costs nothing:
    it is only counted."""
    if len(name) > _SUGGEST_LENGTH:
        return None
    if scoped:
        left = _budget.get()
        if left is not None:
            cost = len(scoped) * (len(name) + 1)
            if cost > left[0]:
                scoped = ()
            else:
                left[0] -= cost
    pool = [*candidates, *scoped] if scoped else list(candidates)
    matches = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    return matches[0] if matches else None


class Converter:
    """Converts TypeExprs to Types under a dim scope and a type scope."""

    def __init__(self, dims: DimScope, types: TypeScope, report: Report, allow_patterns: bool = False) -> None:
        self.dims = dims
        self.types = types
        self.report = report
        self.allow_patterns = allow_patterns
        self._exact_memo: dict = {}  # id of a DimBinary -> (it, its `_exact`)

    def convert(self, t: ast.TypeExpr) -> Type:
        """The checker type an annotation denotes."""
        if isinstance(t, ast.TensorTypeExpr):
            if (
                t.dims == ()
                and t.bare is not False
                and (t.dtype in self.types.type_params or t.dtype in self.types.adts)
            ):
                return self._named_type(t.dtype, (), t.span, bare=True)
            dims = None if t.dims is None else tuple(self.dim_item(d) for d in t.dims)
            runs = [d for d, item in zip(t.dims or (), dims or ()) if isinstance(item, Variadic)]
            if len(runs) > 1:  # `(*a, *b)` splits no shape one way: matching took the first, then crashed
                self.report("bad-signature", runs[1].span, {"what": "two-runs"})
                return TensorType(None, self.dtype(t.dtype, t.span))
            return TensorType(dims, self.dtype(t.dtype, t.span))
        if isinstance(t, ast.TupleTypeExpr):
            return TupleType(tuple(self.convert(f) for f in t.fields))
        if isinstance(t, ast.FnTypeExpr):
            outer, self.allow_patterns = self.allow_patterns, False  # `e|1` checks a value, not a type
            saved = self.types.type_params
            own = tuple(TypeParam(n) for n in dict.fromkeys(t.type_params))
            if own:
                self.types.type_params = {**saved, **{p.name: p for p in own}}
            try:
                return FuncType(tuple(self.convert(p) for p in t.params), self.convert(t.ret), type_params=own)
            finally:
                self.allow_patterns = outer
                self.types.type_params = saved
        if isinstance(t, ast.AdtTypeExpr):
            return self._named_type(t.name, t.args, t.span, bare=False)
        if isinstance(t, ast.DynTypeExpr):
            return DYN
        if isinstance(t, ast.RefTypeExpr):
            return RefType(self.convert(t.content))
        if isinstance(t, ast.HoleTypeExpr):
            hole = self.types.holes.get(t.name)
            if hole is None:
                hole = self.types.holes[t.name] = TypeVar(t.name)
            return hole
        raise TypeError(f"not a type expression: {t!r}")

    def _named_type(self, name: str, args: tuple, span: Span, bare: bool) -> Type:
        """A type parameter (`A`) or an algebraic data type applied to arguments (`List[A]`,
        `nat[]`, or a bare `nat`)."""
        param = self.types.type_params.get(name)
        if param is not None and bare:
            return param
        arity = self.types.adts.get(name)
        if arity is None:
            known = list(self.types.adts) + list(self.types.type_params)
            self.report("unknown-type", span, {"name": name, "suggestion": suggest(name, scoped=known)})
            return DYN
        converted = tuple(self.convert(a) for a in args)
        if len(converted) != arity and not (bare and arity == 0):
            self.report("type-arity", span, {"name": name, "expected": arity, "actual": len(converted)})
            return DYN
        return AdtType(name, converted)

    def dtype(self, name: str, span: Span) -> DType:
        """A dtype name, a declared dtype variable, or `?`."""
        if name == DYN_DTYPE or name in DTYPES:
            return name
        var = self.types.dtype_vars.get(name)
        if var is not None:
            return var
        self.report(
            "unknown-dtype", span, {"name": name, "suggestion": suggest(name, DTYPES, scoped=self.types.dtype_vars)}
        )
        return DYN_DTYPE

    def dim_item(self, d: ast.DimExpr) -> object:
        """A Dimension, or a signature/cast marker (`*b`, `e|1`)."""
        if isinstance(d, ast.DimVariadic):
            # a signature's run of dims; in a cast, the run a rank check lets through (`*r, ?`:
            # at least one dim), a new existential like any new name there
            if self.dims.mode != "quantify" and not self.allow_patterns:
                self.report("bad-signature", d.span, {"what": "variadic"})
                return Dimension.dynamic()
            sym = self.dims.lookup_sequence(d.name) or self.dims.introduce_sequence(d.name)
            return Variadic(sym)
        if isinstance(d, ast.DimBroadcast):
            if not self.allow_patterns:
                self.report("bad-signature", d.span, {"what": "broadcast"})
                return Dimension.dynamic()
            target = self.dim(d.target)
            return Broadcast(target) if target.is_exact else target
        return self.dim(d)

    def dim(self, d: ast.DimExpr) -> Dimension:
        """The Dimension a dimension expression denotes."""
        if isinstance(d, ast.DimInt):
            if d.value < 0:
                self.report("bad-signature", d.span, {"what": "negative", "text": d.span.text})
                return Dimension.dynamic()
            return Dimension.static(d.value)
        if isinstance(d, ast.DimUnknown):
            return Dimension.dynamic()
        if isinstance(d, ast.DimInterval):
            return self._interval(d)
        if isinstance(d, ast.DimName):
            return Dimension.of_expr(Poly.atom(self.symbol(d)))
        if isinstance(d, ast.DimBinary):
            return self._binary(d)
        self.report("bad-signature", d.span, {"what": "dim"})
        return Dimension.dynamic()

    def symbol(self, d: ast.DimName) -> Symbol:
        """The symbol a dimension name refers to, introducing it if the scope allows."""
        found = self.dims.lookup(d.name)
        if found is not None:
            return found
        if self.dims.mode in ("quantify", "bind"):
            return self.dims.introduce(d.name)
        self.report("unknown-dim", d.span, {"name": d.name, "suggestion": suggest(d.name, scoped=self.dims.names)})
        return self.dims.introduce(d.name)

    def _exact(self, d: ast.DimExpr) -> Any:
        """The polynomial an arithmetic of integers (negative ones too) and names denotes;
        None where a part is not exact (a divisor that is not a positive constant), UNTRACKED
        where it is past the polynomial bounds of shapes/poly.py. Found once per expression:
        `_binary` asks again for the parts of one that is not exact (asking anew at each
        level was quadratic in the nesting), and building a polynomial past the bounds cost
        its size at every operation (a sum of 8,000 names took 4 s)."""
        if isinstance(d, ast.DimInt):
            return Poly.const(d.value)
        if isinstance(d, ast.DimName):
            return Poly.atom(self.symbol(d))
        if not isinstance(d, ast.DimBinary):
            return None
        found = self._exact_memo.get(id(d))
        if found is not None:
            return found[1]
        left, right = self._exact(d.left), self._exact(d.right)
        if left is None or right is None:
            result = None
        elif left is UNTRACKED or right is UNTRACKED:
            result = UNTRACKED
        elif d.op in _RING or d.op in _EXTREMA:
            if d.op == "*" and not left.product_within_limits(right):
                result = UNTRACKED
            else:
                result = _RING[d.op](left, right) if d.op in _RING else extremum(d.op, (left, right))
                if not result.within_limits():
                    result = UNTRACKED
        elif not right.is_const() or right.const_value() <= 0:
            result = None
        else:
            result = left.floordiv(right.const_value()) if d.op == "//" else left.mod(right.const_value())
            if not result.within_limits():
                result = UNTRACKED
        self._exact_memo[id(d)] = (d, result)  # the node kept, so that its id is not reused
        return result

    def _interval(self, d: ast.DimInterval) -> Dimension:
        lo = 0 if d.lo is None else d.lo
        if d.hi is not None and d.hi < lo:
            self.report("bad-signature", d.span, {"what": "empty-interval", "lo": lo, "hi": d.hi})
            return Dimension.dynamic()
        return Dimension.interval(lo, d.hi)

    def _binary(self, d: ast.DimBinary) -> Dimension:
        exact = self._exact(d)
        if exact is UNTRACKED:
            self.report("dim-untracked", d.span, {})
            return Dimension.dynamic()
        if exact is not None:  # computed as a polynomial, so `n + -2` is `n - 2`
            try:
                return Dimension.of_expr(exact)
            except ValueError:
                self.report("bad-signature", d.span, {"what": "negative", "text": d.span.text})
                return Dimension.dynamic()
        if isinstance(d.right, ast.DimInt) and d.right.value < 0 and d.op in "+-":  # `? + -2`
            flipped = ast.DimInt(-d.right.value, span=d.right.span)
            return self._binary(ast.DimBinary("-" if d.op == "+" else "+", d.left, flipped, span=d.span))
        if d.op in _QUOTIENTS and isinstance(d.right, ast.DimInt) and d.right.value <= 0:
            self.report("bad-signature", d.span, {"what": "floordiv", "op": d.op})
            return Dimension.dynamic()
        left, right = self.dim(d.left), self.dim(d.right)
        try:
            if d.op in _RING:
                return _RING[d.op](left, right)
            if d.op in _EXTREMA:
                return Dimension.maximum(left, right) if d.op == "max" else Dimension.minimum(left, right)
            if not right.is_static or right.get_length() == 0:
                self.report("bad-signature", d.span, {"what": "floordiv", "op": d.op})
                return Dimension.dynamic()
            return left // right if d.op == "//" else left % right
        except ValueError:
            self.report("bad-signature", d.span, {"what": "negative", "text": d.span.text})
            return Dimension.dynamic()


def quantify_result_functions(t: Type, new: list) -> tuple[Type, tuple]:
    """An annotation's new names (`new`, in order) that appear only inside function types of
    it are quantified by the outermost function type holding them (in a parameter, a result,
    or a function type inside either): `fn (Tensor[(n, 2)]) -> Tensor[(2, n)]` written as a definition's or
    closure's return type, a let's type or a cast's is polymorphic in `n`, as a closure
    `fn (%y: Tensor[(n, 2)]) ...` is, and each call of such a function binds `n` afresh
    (design.md). Read as an existential, nothing bound `n` where the annotation was met (a
    function has no sizes): the first call of the function bound it for good, while the
    checker took each call's `n` as `?` (a return type) or as a rigid name no argument could
    match (a let or a cast), so a second call with another size failed at runtime in a program
    checked clean, and the elaborated program, which writes a polymorphic closure's inferred
    type as its definition's return type, failed so too. Names that also appear outside
    function types (or in a reference's contents) keep their meaning. The outermost function
    takes a name, and one only its result mentions too, so that relaxing an annotation never
    moves a name: with the innermost, `fn (Tensor[*], fn (Tensor[(i,)]) -> Tensor[(i,)])`
    (its first parameter relaxed from `(i,)`) required a polymorphic function, a new static
    error, and `fn (Tensor[*]) -> Tensor[(i,)]` made `i` the annotation's existential, one
    size for every call, a new runtime failure. The new type and the names
    quantified."""
    outside: set = set()
    _symbols_outside_functions(t, outside)
    candidates = [sym for sym in new if sym not in outside]
    if not candidates:
        return t, ()
    under: dict = {}
    _collect(t, set(candidates), under)
    taken: set = set()
    order = {sym: i for i, sym in enumerate(candidates)}  # quantified in the order written
    result = _quantify(t, order, taken, under)
    return result, tuple(sym for sym in candidates if sym in taken)


def _symbols_outside_functions(t: Type, found: set) -> None:
    """The symbols `t` mentions outside the function types it holds (tuples are looked into)."""
    if isinstance(t, TupleType):
        for f in t.fields:
            _symbols_outside_functions(f, found)
    elif not isinstance(t, FuncType):
        found.update(type_symbols(t))


def _collect(t: Type, wanted: set, under: dict) -> set:
    """The wanted symbols `t` mentions; for each function type in it (by id), those it holds.
    One walk: a function type nested n deep is not walked again at every level."""
    if isinstance(t, TupleType):
        found: set = set()
        for f in t.fields:
            found |= _collect(f, wanted, under)
        return found
    if isinstance(t, FuncType):
        found = set()
        for part in t.params + (t.ret,):
            found |= _collect(part, wanted, under)
        under[id(t)] = found
        return found
    return type_symbols(t) & wanted


def _quantify(t: Type, order: dict, taken: set, under: dict) -> Type:
    if isinstance(t, TupleType):
        return TupleType(tuple(_quantify(f, order, taken, under) for f in t.fields))
    if not isinstance(t, FuncType):
        return t
    # every new name this function type holds, in its parameters or its result, directly or in
    # a function type inside, is this function's: the outermost one takes it, so relaxing an
    # occurrence away (a parameter to `Tensor[*]`) never moves a name to an inner function
    # (which would require the function passed there to be polymorphic: a new static error)
    # nor out to the annotation (one size for every call: a new runtime failure)
    held = under.get(id(t), set())
    mine = tuple(sorted((sym for sym in held if sym in order and sym not in taken), key=order.__getitem__))
    taken.update(mine)
    params = tuple(_quantify(p, order, taken, under) for p in t.params)
    ret = _quantify(t.ret, order, taken, under)
    if not mine and ret is t.ret and all(a is b for a, b in zip(params, t.params)):
        return t
    return FuncType(params, ret, t.dim_params + mine, t.dtype_params, t.requires, t.dtype_requires, t.type_params)
