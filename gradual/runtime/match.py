"""Casts at runtime: does a value have a type, under the symbols bound in its frame?

Exactly what the checker assumed, no more: static dims are equal, `?` is anything, an interval
bounds the size, `e|1` is 1 or `e`, a symbolic expression is evaluated once its symbols are
bound; a bare unbound symbol (or one unbound symbol appearing linearly, as in `2 * n + 1`) is
bound by the value (within the symbol's own bounds, if it has any) and rigid afterwards. Ranks
and dtypes must agree (a dtype variable binds like a symbol), tuples are matched field by field,
a function is wrapped so its arguments and result are checked when it is called, and a
reference's cell is checked and made to keep the more precise type from then on (monotonic
references: cells.py).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Optional

import numpy as np

from gradual.runtime.adt import check_adt
from gradual.runtime.cells import closed_type, expression_symbol, meet
from gradual.runtime.errors import Blame, CheckFailure, Mismatch
from gradual.runtime.values import (
    Frame,
    RefCell,
    Wrapped,
    describe_value,
    dtype_name,
    function_arity,
    is_function,
    value_kind,
)
from gradual.shapes import Dimension, Poly, Symbol
from gradual.types import (
    DYN_DTYPE,
    REF_CONTENT,
    AdtType,
    Broadcast,
    DTypeVar,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    Variadic,
    format_type,
    map_dims,
    map_dtypes,
    type_symbols,
)


def match_value(value: Any, t: Optional[Type], frame: Frame, blame: Any) -> Any:
    """Check `value` against `t`, binding new symbols in `frame`; returns the value (functions
    come back wrapped). Raises CheckFailure blamed on `blame` (a Blame, or a function making
    one, so the common case of a passing check never builds it)."""
    if t is None:
        return value
    match = _Match(value, t, frame, blame)
    out = match.run()
    if frame.deferred and match.bound:
        try:
            check_deferred(frame, match.bound)
        except CheckFailure as failure:
            # an entry's waiting check that this check's bindings made false (its input fit
            # its type): this check, which bound them, takes the blame (as in `older_solve`)
            own = match.resolved_blame()
            if failure.blame.kind not in ("parameter", "argument") or own.kind in ("parameter", "argument"):
                raise  # another parameter completing an entry's check leaves it the entry's
            raise CheckFailure(
                own, failure.expected, failure.actual, failure.mismatch, failure.shape, failure.dtype
            ) from None
    return out


def check_deferred(frame: Frame, bound: list) -> None:
    """Make the deferred checks of the frame that waited for a symbol just bound: a cast of
    `(n // 2,)` that ran before the cast binding `n` is verified once `n` is known, blamed on
    its own cast (argument and parameter order never decides what is checked). A check that
    still waits for other symbols stays filed under them."""
    for sym in bound:
        for waiting in frame.deferred.pop(sym, ()):
            if not waiting.done and not waiting.unbound(frame):
                waiting.check(frame)


class _Deferred:
    """A check filed under every symbol its expression waits for; done once made."""

    __slots__ = ("item", "done")

    def __init__(self, item: tuple) -> None:
        self.item = item
        self.done = False

    def unbound(self, frame: Frame) -> list:
        """The symbols of the expression the frame has not bound yet (nor related to others)."""
        return waiting_for(frame, self.item[4].expr)[1]

    def check(self, frame: Frame) -> None:
        """Check the expression now that its symbols are bound."""
        self.done = True
        value, t, blame, size, dim, path, axis, broadcast = self.item
        _Match(value, t, frame, blame).expression(size, dim, path, axis, broadcast)


def defer(frame: Frame, item: tuple) -> None:
    """Check a deferred item now if every symbol of its expression is bound, else file it
    under each symbol not bound yet, so whichever is bound last looks at it again."""
    waiting = _Deferred(item)
    unbound = waiting.unbound(frame)
    if not unbound:
        waiting.check(frame)
    for sym in unbound:
        frame.deferred.setdefault(sym, []).append(waiting)


def settle_deferred(frame: Frame) -> None:
    """Once a function's parameters are matched, no bare occurrence will bind the symbols
    its deferred checks still wait for: one that waits for a single symbol it is linear in
    binds it (`n - m` of a size with `m` known gives `n`; left waiting, a cast in the body
    would bind `n` and this check would then blame the call for the body's assumption), and
    each symbol so bound lets other checks go on (a worklist: a check is looked at again only
    when a symbol it waits for is bound). One that waits for several becomes a relation
    between them (`n8 - n6` of size 1 relates `n8` to `n6 + 1`), so the body's checks that
    mention them are exact, and the checks filed under the related symbol are looked at again."""
    waiting = list({id(w): w for ws in frame.deferred.values() for w in ws}.values())
    _solve_waiting(frame, deque(waiting))
    for item in waiting:
        if item.done:
            continue
        value, t, blame, size, dim, path, axis, broadcast = item.item
        match = _Match(value, t, frame, blame)
        moved = None if broadcast and size == 1 else match.relate(size, dim)
        if moved is not None:
            item.done = True
            # only the checks filed under a symbol whose root changed can have fewer unknowns
            _solve_waiting(frame, deque(w for sym in moved for w in frame.deferred.get(sym, ()) if not w.done))


def _solve_waiting(frame: Frame, work: deque) -> None:
    """Solve each waiting check down to one unknown it is linear in; what that binds wakes
    the checks filed under it."""
    while work:
        waiting = work.popleft()
        unbound = () if waiting.done else waiting.unbound(frame)
        if len(unbound) > 1:
            continue
        value, t, blame, size, dim, path, axis, broadcast = waiting.item
        if not unbound:
            waiting.check(frame)
            continue
        if broadcast and size == 1:
            continue
        match = _Match(value, t, frame, blame)
        if match.solve(size, dim, unbound[0], path, axis, broadcast):
            waiting.done = True
            # only the checks filed under a symbol just bound can have come down to one unknown
            work.extend(w for sym in match.bound for w in frame.deferred.get(sym, ()) if not w.done)
            check_deferred(frame, match.bound)


def _older_solve(frame: Frame, sym: Symbol) -> bool:
    """Before an expression (not a bare occurrence, which binds) solves `sym`: let a check that
    waited for `sym` alone since before it bind it first; whether one did. An entry's `n1 * n2` of size 1, waiting for `n1` once a cast bound `n2`, says what `n1`
    is, so a later cast's `n1 * n2` of size 2 is the mismatch (solved by that cast, `n1` was 2
    and the entry was blamed for an input that fits its type)."""
    waiting = [w for w in frame.deferred.get(sym, ()) if not w.done and w.unbound(frame) == [sym]]
    if not waiting:
        return False
    _solve_waiting(frame, deque(waiting))
    return frame.dim(sym) is not None


def unbind(frame: Frame, symbols: tuple) -> None:
    """Forget symbols a cast introduces, so the cast binds them afresh (relations tie only a
    signature's symbols, made at entry: never these)."""
    if symbols:
        frame.own(symbols)


#: where a value sits in the checked one (tuple field indices, REF_CONTENT); also a shape and
#: a run of dims (plain tuples, named apart from the _Match.tuple method that checks tuples)
ValuePath = tuple[Any, ...]


class _Match:
    """One check of one value against one type."""

    def __init__(self, value: Any, t: Type, frame: Frame, blame: Any) -> None:
        self.value = value
        self.type = t
        self.frame = frame
        self.blame = blame
        self.pending: list = []
        self.cells: list = []
        self.bound: list = []  # the symbols this check bound (deferred checks may wait for them)

    def run(self) -> Any:
        out = self.check(self.value, self.type, ())
        self.solve_pending()
        self.strengthen_cells()
        return out

    # structure -------------------------------------------------------------------------------
    def check(self, value: Any, t: Type, path: ValuePath) -> Any:
        if isinstance(t, TensorType):
            self.tensor(value, t, path)
            return value
        if isinstance(t, TupleType):
            return self.tuple(value, t, path)
        if isinstance(t, RefType):
            return self.reference(value, t, path)
        if isinstance(t, FuncType):
            if not is_function(value):
                self.fail(Mismatch("kind", {"actual": value_kind(value), "expected": "a function"}, path))
            arity = function_arity(value)
            if arity != len(t.params):
                self.fail(Mismatch("arity", {"actual": arity, "expected": len(t.params)}, path))
            if isinstance(value, Wrapped) and value.type == t and is_closed(t):
                return value  # already checked against this very type: do not stack wrappers
            return Wrapped(value, t, self.frame, self.resolved_blame())
        if isinstance(t, AdtType):
            return check_adt(value, t, lambda v, ft: self.check(v, ft, path), self.fail)
        return value

    def tuple(self, value: Any, t: TupleType, path: ValuePath) -> Any:
        if not isinstance(value, tuple):
            self.fail(Mismatch("kind", {"actual": value_kind(value), "expected": f"a tuple of {len(t.fields)}"}, path))
        if len(value) != len(t.fields):
            self.fail(Mismatch("tuple-length", {"actual": len(value), "expected": len(t.fields)}, path))
        out = tuple(self.check(v, f, path + (i,)) for i, (v, f) in enumerate(zip(value, t.fields)))
        return value if all(a is b for a, b in zip(out, value)) else out

    def reference(self, value: Any, t: RefType, path: ValuePath) -> Any:
        """A reference: the value in its cell is checked now; the cell's type is strengthened
        once every symbol of the whole check is bound (`strengthen_cells`)."""
        if not isinstance(value, RefCell):
            self.fail(Mismatch("kind", {"actual": value_kind(value), "expected": "a reference"}, path))
        content = self.check(value.value, t.content, path + (REF_CONTENT,))
        self.cells.append((value, t.content, content, path))
        return value

    def strengthen_cells(self) -> None:
        """Make each checked cell keep the meet of its type and the checked one (monotonic)."""
        for cell, content_type, content, path in self.cells:
            wanted = closed_type(content_type, self.frame)
            stronger = meet(cell.type, wanted)
            if stronger is None:
                self.fail(
                    Mismatch("cell-type", {"actual": format_type(cell.type), "expected": format_type(wanted)}, path)
                )
            cell.type, cell.value = stronger, content

    def tensor(self, value: Any, t: TensorType, path: ValuePath) -> None:
        if not isinstance(value, np.ndarray):
            self.fail(Mismatch("kind", {"actual": value_kind(value), "expected": "a tensor"}, path))
        if t.dims is not None:
            self.shape(value.shape, t.dims, path)
        self.dtype(dtype_name(value), t.dtype, path)

    def shape(self, shape: ValuePath, dims: ValuePath, path: ValuePath) -> None:
        variadic = [i for i, d in enumerate(dims) if isinstance(d, Variadic)]
        if not variadic:
            if len(shape) != len(dims):
                self.fail(Mismatch("rank", {"actual": len(shape), "expected": len(dims)}, path))
            for axis, (size, item) in enumerate(zip(shape, dims)):
                self.dim(size, item, path, axis)
            return
        at = variadic[0]
        prefix, suffix = dims[:at], dims[at + 1 :]
        if len(shape) < len(prefix) + len(suffix):
            self.fail(Mismatch("rank-at-least", {"actual": len(shape), "expected": len(prefix) + len(suffix)}, path))
        for axis, item in enumerate(prefix):
            self.dim(shape[axis], item, path, axis)
        start = len(shape) - len(suffix)
        for offset, item in enumerate(suffix):
            self.dim(shape[start + offset], item, path, start + offset)
        self.sequence(dims[at].symbol, tuple(shape[len(prefix) : start]), path, len(prefix))

    def sequence(self, sym: Symbol, run: ValuePath, path: ValuePath, axis: int) -> None:
        bound = self.frame.dim(sym)
        if bound is None:
            self.bind(sym, run, path, axis)
        elif tuple(bound) != run:
            self.fail(Mismatch("sequence", {"name": sym.name, "actual": run, "expected": tuple(bound)}, path, axis))

    # dimensions ------------------------------------------------------------------------------
    def dim(self, size: int, item: Any, path: ValuePath, axis: int) -> None:
        if isinstance(item, Broadcast):
            self.broadcast(size, item.target, path, axis)
        elif item.is_static:
            if size != item.get_length():
                self.fail(Mismatch("dim", {"actual": size, "expected": item.get_length()}, path, axis))
        elif item.is_interval:
            if not item.contains_value(size):
                self.fail(Mismatch("interval", {"actual": size, "expected": str(item)}, path, axis))
        else:
            self.expression(size, item, path, axis)

    def broadcast(self, size: int, target: Dimension, path: ValuePath, axis: int) -> None:
        if size == 1:
            return
        if target.is_interval:
            if not target.contains_value(size):
                self.fail(Mismatch("broadcast-interval", {"actual": size, "expected": str(target)}, path, axis))
            return
        self.expression(size, target, path, axis, broadcast=True)

    def expression(self, size: int, dim: Dimension, path: ValuePath, axis: int, broadcast: bool = False) -> None:
        expr, unbound = waiting_for(self.frame, dim.expr)
        if (
            len(unbound) == 1
            and dim.expr != Poly.atom(unbound[0])
            and self.older_solve(unbound[0], size, dim, path, axis)
        ):
            expr, unbound = waiting_for(self.frame, dim.expr)
        if not unbound:
            expected = expr.evaluate(self.frame.env())
            if size != expected:
                what = "broadcast" if broadcast else "dim"
                self.fail(
                    Mismatch(what, {"actual": size, "expected": expected, "expr": _symbolic_text(dim)}, path, axis)
                )
            return
        if len(unbound) == 1 and self.solve(size, dim, unbound[0], path, axis, broadcast):
            return
        self.pending.append((size, dim, path, axis, broadcast))

    def older_solve(self, sym: Symbol, size: int, dim: Dimension, path: ValuePath, axis: int) -> bool:
        """`_older_solve` for this check. An entry's waiting check that the body's bindings
        made unsatisfiable (`n2 + n7` of size 0, a let then binding n2 to 2) is not the
        entry's failure (its input fit its type) but this check's, which needs that expression:
        this value is compared with what the entry said of it (or, for another expression,
        this check takes the blame)."""
        try:
            return _older_solve(self.frame, sym)
        except CheckFailure as failure:
            if failure.blame.kind not in ("parameter", "argument") or self.resolved_blame().kind in (
                "parameter",
                "argument",
            ):
                raise
            older = failure.mismatch.facts
            if str(older.get("expr", "")) == str(dim) and isinstance(older.get("actual"), int):
                self.fail(
                    Mismatch(
                        "dim", {"actual": size, "expected": older["actual"], "expr": _symbolic_text(dim)}, path, axis
                    )
                )
            raise CheckFailure(
                self.resolved_blame(), failure.expected, failure.actual, failure.mismatch, failure.shape, failure.dtype
            ) from None

    def solve(self, size: int, dim: Dimension, sym: Symbol, path: ValuePath, axis: int, broadcast: bool) -> bool:
        """Bind the one unbound symbol of a linear expression from a size; False if nonlinear.
        Bound symbols are substituted first, so `n * u` with `n` bound is linear in `u`."""
        part = reduce_expression(self.frame, dim.expr).linear_part(sym)
        if part is None:
            return False
        coeff, rest = part
        remainder = size - rest.evaluate(self.frame.env())
        if remainder % coeff != 0 or remainder // coeff < 0:
            what = "broadcast-unsolvable" if broadcast else "unsolvable"
            self.fail(Mismatch(what, {"actual": size, "expr": str(dim)}, path, axis))
        self.bind(sym, remainder // coeff, path, axis)
        return True

    def bind(self, sym: Symbol, value: Any, path: ValuePath = (), axis: Optional[int] = None) -> None:
        """Bind a symbol within its bounds; the symbols a relation ties to it are bound too."""
        self._bind_one(sym, value, path, axis)
        if self.frame.has_relations and isinstance(value, int):
            for member, offset in self.frame.tied_to(sym):
                if self.frame.dim(member) is None:
                    self._bind_one(member, value + offset, path, axis)

    def _bind_one(self, sym: Symbol, value: Any, path: ValuePath, axis: Optional[int]) -> None:
        if isinstance(value, int) and (value < sym.lo or sym.hi is not None and value > sym.hi):
            bounds = f"{sym.lo}..{'' if sym.hi is None else sym.hi}"
            self.fail(Mismatch("symbol-bounds", {"actual": value, "name": sym.name, "expected": bounds}, path, axis))
        self.frame.bind_dim(sym, value)
        self.bound.append(sym)
        if sym.facts and isinstance(value, int):
            self._check_facts(sym, path, axis)

    def _check_facts(self, sym: Symbol, path: ValuePath, axis: Optional[int]) -> None:
        """The facts about a symbol just bound (`Symbol.facts`: torch's guard `s12 <= s3`) whose
        symbols are all bound now hold, as torch checks its guards on each call: the checker
        relied on them."""
        for fact in sym.facts:
            values = {}
            for other in fact.symbols():
                value = self.frame.dim(other)
                if not isinstance(value, int):
                    break
                values[other] = value
            else:
                if fact.evaluate(values) < 0:
                    self.frame.dims.pop(sym, None)  # the expected type shows the symbol, not its value
                    sizes = ", ".join(f"{s.name} = {values[s]}" for s in sorted(values, key=lambda s: s.name))
                    self.fail(Mismatch("symbol-fact", {"fact": str(fact), "sizes": sizes}, path, axis))

    def relate(self, size: int, dim: Dimension) -> Optional[list]:
        """Record what a difference of two unknowns no bare occurrence bound says of them
        (`n8 - n6` of size 1: n8 = n6 + 1, `Offsets`), so a later check that mentions them
        (`d - n6 + n8`) is made exactly and n8 is bound with n6. Returns the symbols whose root
        changed, or None where the expression is no such difference (it waits as a whole)."""
        expr, unbound = waiting_for(self.frame, dim.expr)
        if len(unbound) != 2:
            return None
        x, y = unbound
        part = expr.linear_part(x)
        rest = part[1].linear_part(y) if part is not None else None
        if rest is None or not rest[1].is_const() or part[0] not in (1, -1) or rest[0] != -part[0]:
            return None
        difference = (size - rest[1].const_value()) * part[0]
        relations = self.frame.relations
        if relations is None:
            relations = self.frame.start_relations()
        return relations.relate(x, y, difference)

    def solve_pending(self) -> None:
        """Expressions with several unbound symbols, retried once others are bound. What stays
        undetermined (`n * m`) is bound as a whole: later occurrences of the same expression,
        in this cast or another one in the frame, must have the same size."""
        progress = True
        while self.pending and progress:
            progress = False
            for item in list(self.pending):
                size, dim, path, axis, broadcast = item
                _, unbound = waiting_for(self.frame, dim.expr)
                if len(unbound) > 1:
                    continue
                if unbound and not self.solve(size, dim, unbound[0], path, axis, broadcast):
                    continue  # not linear in its one unknown (`n // 2`): bound as a whole below
                self.pending.remove(item)
                progress = True
                if not unbound:
                    self.expression(size, dim, path, axis, broadcast)
        for size, dim, path, axis, broadcast in self.pending:
            self.whole(size, dim, path, axis, broadcast)

    def whole(self, size: int, dim: Dimension, path: ValuePath, axis: int, broadcast: bool) -> None:
        """Bind or check an unsolvable expression as a whole (a symbol standing for it)."""
        if broadcast and size == 1:
            return
        sym = expression_symbol(dim.expr)
        bound = self.frame.dim(sym)
        if bound is None:
            self.bind(sym, size, path, axis)
            defer(self.frame, (self.value, self.type, self.blame, size, dim, path, axis, broadcast))
        elif bound != size:
            what = "broadcast" if broadcast else "dim"
            self.fail(Mismatch(what, {"actual": size, "expected": bound, "expr": str(dim)}, path, axis))

    # dtypes ----------------------------------------------------------------------------------
    def dtype(self, actual: str, expected: Any, path: ValuePath) -> None:
        if isinstance(expected, DTypeVar):
            bound = self.frame.dtype(expected)
            if bound is None:
                self.frame.bind_dtype(expected, actual)
            elif bound != actual:
                self.fail(Mismatch("dtype-var", {"actual": actual, "expected": bound, "name": expected.name}, path))
        elif expected != DYN_DTYPE and expected != actual:
            self.fail(Mismatch("dtype", {"actual": actual, "expected": expected}, path))

    # failure ---------------------------------------------------------------------------------
    def resolved_blame(self) -> Blame:
        """The blame, built now if it was deferred."""
        return self.blame if isinstance(self.blame, Blame) else self.blame()

    def fail(self, mismatch: Mismatch) -> None:
        shape = self.value.shape if isinstance(self.value, np.ndarray) else None
        dtype = dtype_name(self.value) if isinstance(self.value, np.ndarray) else None
        raise CheckFailure(
            self.resolved_blame(),
            expected_text(self.type, self.frame),
            describe_value(self.value),
            mismatch,
            shape,
            dtype,
        )


def waiting_for(frame: Frame, expr: Poly) -> tuple:
    """(the expression with what the frame knows put in, the symbols it still waits for); an
    expression whose symbols are all bound is returned as it is (evaluated by the caller)."""
    unbound = [s for s in expr.symbols() if frame.dim(s) is None]
    if not unbound:
        return expr, unbound
    reduced = reduce_expression(frame, expr)
    return reduced, [s for s in reduced.symbols() if frame.dim(s) is None]


def reduce_expression(frame: Frame, expr: Poly) -> Poly:
    """The expression with the values of its bound symbols, and each related symbol as its
    root plus its offset (`n8` as `n6 + 1`), substituted: one pass (roots are unbound)."""
    related = frame.has_relations

    def known(sym: Symbol) -> Optional[Poly]:
        bound = frame.dim(sym)
        if isinstance(bound, int):
            return Poly.const(bound)
        found = frame.relation(sym) if related else None
        return None if found is None else Poly.atom(found[0]) + found[1]

    return expr.substitute(known)


def is_closed(t: Type) -> bool:
    """A type with no symbols and no dtype variables: it means the same in every frame."""
    variables: list = []

    def note(dtype: Any) -> Any:
        if isinstance(dtype, DTypeVar):
            variables.append(dtype)
        return dtype

    map_dtypes(t, note)
    return not type_symbols(t) and not variables


def _symbolic_text(dim: Dimension) -> str:
    return "" if dim.is_static else str(dim)


def expected_text(t: Type, frame: Frame) -> str:
    """A type with every bound symbol and dtype variable replaced by its value: what the check
    expected (`Tensor[(2..,), float32]`, not the definition's `T`)."""
    env = frame.env()

    def bound_dtype(dt: Any) -> Any:
        return (frame.dtype(dt) or dt) if isinstance(dt, DTypeVar) else dt

    def concrete(d: Dimension) -> Dimension:
        if d.is_symbolic:
            try:
                value = d.evaluate(env)
            except KeyError:
                return d
            return Dimension.static(value) if value >= 0 else d
        return d

    return format_type(map_dtypes(map_dims(t, concrete), bound_dtype))
