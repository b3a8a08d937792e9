"""Unification: union-find over dimension, dtype and type variables, with graded results.

Three kinds of dimension variables live here:

* `DimVar` with `site=True`: the unknown runtime value of an imprecise (`?` or interval)
  argument dimension at one call. Solving it means "check this at runtime"; if it stays
  unsolved, its first occurrence binds it at runtime.
* `DimVar` with `site=False`: an exact but not yet known dimension of an unannotated
  parameter. Solving it is ordinary inference; unsolved ones are generalized.
* `HintVar`: a `can_unify` guess. It behaves as its guessed value and is never bound: it
  equals that very number (or the same guess), and anything else asks for the hint to be
  widened instead of reporting an error (or binding a variable to a guess).

`unify` returns a Grade (EQUAL, CHECK, NEVER) rather than raising; callers turn NEVER into
a diagnostic. `find` compresses paths, so a chain of unifications stays near-linear.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from gradual.shapes import Dimension, Grade, Poly, Symbol
from gradual.shapes.constraint import vanishes
from gradual.shapes.poly import MAX_SIZE, Extremum
from gradual.types import DYN, DYN_DTYPE, AdtType, DimVar, DType, DTypeVar, FuncType, RefType, TupleType, Type, TypeVar


class SiteVar(DimVar):
    """The runtime value of one imprecise argument dimension at one call."""

    __slots__ = ("slot",)

    def __init__(self, name: str, lo: int, hi: Optional[int], slot: object = None) -> None:
        super().__init__(name, lo, hi)
        self.slot = slot


class HintVar(DimVar):
    """A dimension guessed by `can_unify`: acts as `guess`, widened on conflict."""

    __slots__ = ("guess",)
    origin: tuple[int, Any]  # the hint's key: (id of its binder, axis)

    def __init__(self, name: str, guess: int, origin: tuple[int, Any]) -> None:
        super().__init__(name, guess, guess, origin)
        self.guess = guess


def _dim_of(sym: Symbol) -> Dimension:
    return Dimension.of_expr(Poly.atom(sym))


def _single_var(expr: Poly) -> Optional[DimVar]:
    terms = expr.terms
    if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1:
        atom = terms[0][0][0]
        if isinstance(atom, DimVar):
            return atom
    return None


def evaluate_in_dims(expr: Poly, env: dict) -> Dimension:
    """Evaluate a polynomial with Dimension values. Where one is inexact the result is the
    interval the polynomial ranges over, clipped at 0 only at the end: its parts may be
    negative (`(d - 1) // 2 + 2` is 1 for d = 0), so they are bounded as integers."""
    if all(env[s].is_exact for s in expr.symbols()):
        if _substituted_terms(expr, env) > 4 * MAX_SIZE:
            return Dimension.dynamic()
        value = expr.substitute(lambda s: env[s].expr)
        return Dimension.of_expr(value) if value.within_limits() else Dimension.dynamic()
    ranges: dict = {}
    lo, hi = expr.substitute(lambda s: _range_atom(env[s], s, ranges)).bounds()
    if hi < 0:
        raise ValueError(f"dimension {expr} is negative for every value of its symbols")
    return Dimension.interval(max(0, int(lo)) if lo != -math.inf else 0, None if hi == math.inf else int(hi))


def _substituted_terms(expr: Poly, env: dict) -> int:
    """At most how many terms `expr` has once `env`'s exact dims replace its symbols (a
    solved variable may stand for a long polynomial: multiplied out, its powers could be too
    large to build; past the polynomial bounds the dim is `?`, as in Dimension arithmetic)."""
    total = 0
    for mono, _ in expr.terms:
        count = 1
        for atom in mono:
            if isinstance(atom, Symbol):
                count *= len(env[atom].expr.terms)
            elif isinstance(atom, Extremum):
                count *= sum(_substituted_terms(arg, env) for arg in atom.args) + 1
            else:
                count *= _substituted_terms(atom.num, env) + 1
        total += count
    return total


def _range_atom(d: Dimension, s: Symbol, ranges: dict) -> Poly:
    """An exact dimension's polynomial, or a symbol standing for an inexact one's range."""
    if d.is_exact:
        return d.expr
    found = ranges.get(s)
    if found is None:
        found = ranges[s] = Poly.atom(Symbol(f"{s.name}~", d.min_length, d.max_length))
    return found


class Solver:
    """The substitution being built while checking one function body."""

    def __init__(self) -> None:
        self.parent: dict[DimVar, DimVar] = {}
        self.solution: dict[DimVar, Dimension] = {}
        self.dtype_parent: dict[DTypeVar, DType] = {}
        self.types: dict[TypeVar, Type] = {}
        self.widen: set[HintVar] = set()
        #: unannotated parameters' dims a recursive call passed something else for (widened to
        #: `?` in the next pass, as a hint is: Checker.absorb_widening)
        self.widen_params: set[DimVar] = set()
        #: hinted parameters (their binders' ids) a call passed a value of another rank: the
        #: next pass starts them unhinted (Checker.absorb_widening)
        self.widen_ranks: set[int] = set()
        self._has_vars: dict[Poly, bool] = {}

    # dimensions ---------------------------------------------------------------------------
    def find(self, v: DimVar) -> DimVar:
        """The representative of v's class (with path compression)."""
        root = v
        parent = self.parent
        while root in parent:
            root = parent[root]
        while v is not root:
            nxt = parent[v]
            parent[v] = root
            v = nxt
        return root

    def bounds(self, v: DimVar) -> tuple[int, Optional[int]]:
        """The current bounds of a variable's class."""
        rep = self.find(v)
        return rep.lo, rep.hi

    def is_free(self, v: DimVar) -> bool:
        """Whether a variable is unsolved (and bindable)."""
        if isinstance(v, HintVar):
            return False
        return self.find(v) not in self.solution

    def resolve(self, d: Dimension, final: bool = False, keep_hints: bool = False) -> Dimension:
        """Substitute solved variables; with `final`, unsolved site variables become their
        bounds and hints their guesses (unless `keep_hints`: a signature that callers match)."""
        if not d.is_symbolic or not self.mentions_vars(d.expr):
            return d
        final_hints = final and not keep_hints
        single = _single_var(d.expr)
        if single is not None:
            if isinstance(single, HintVar):
                return Dimension.static(single.guess) if final_hints else d
            return self._resolve_var(d, single, final)
        env = {s: self._value_of(s, final, final_hints) for s in d.symbols()}
        try:
            return evaluate_in_dims(d.expr, env)
        except ValueError:
            return Dimension.dynamic()

    def _resolve_var(self, d: Dimension, v: DimVar, final: bool) -> Dimension:
        """`resolve` of a dimension that is exactly one variable (the common case, not a hint)."""
        rep = self.find(v)
        sol = self.solution.get(rep)
        if sol is not None:
            return self.resolve(sol, final)
        if final and isinstance(rep, SiteVar):
            return Dimension.interval(rep.lo, rep.hi)
        if rep is v and d.min_length == v.lo and d.max_length == v.hi:
            return d
        return _dim_of(rep)

    def mentions_vars(self, expr: Poly) -> bool:
        """Whether a polynomial mentions an inference variable (memoized: asked very often)."""
        found = self._has_vars.get(expr)
        if found is None:
            found = self._has_vars[expr] = any(isinstance(s, DimVar) for s in expr.symbols())
        return found

    def _value_of(self, s: Symbol, final: bool, final_hints: bool) -> Dimension:
        if not isinstance(s, DimVar):
            return _dim_of(s)
        if isinstance(s, HintVar):
            return Dimension.static(s.guess) if final_hints else _dim_of(s)
        rep = self.find(s)
        sol = self.solution.get(rep)
        if sol is not None:
            return self.resolve(sol, final)
        if final and isinstance(rep, SiteVar):
            lo, hi = self.bounds(rep)
            return Dimension.interval(lo, hi)
        return _dim_of(rep)

    def unify(self, a: Dimension, b: Dimension) -> Grade:
        """Make two dimensions equal where possible. EQUAL: proven (variables may have been
        bound); CHECK: only a runtime check can tell; NEVER: they can never be equal."""
        a, b = self.resolve(a), self.resolve(b)
        if a == b:
            return Grade.EQUAL
        if not (a.is_exact and b.is_exact):
            return _interval_grade(a, b)
        diff = a.expr - b.expr
        hints = [s for s in diff.symbols() if isinstance(s, HintVar)]
        if hints:
            return self._meet_guess(diff, hints)
        return self._solve(diff)

    def meet_hints(self, a: Dimension, b: Dimension) -> None:
        """Widen the hints in a or b unless they meet at the guess, binding nothing: a
        function's hinted parameter compared, in a contract, with a dim its callee chooses or
        an unknown one (the function will be called with sizes other than the guess)."""
        hints = {s for d in (a, b) if d.is_symbolic for s in d.symbols() if isinstance(s, HintVar)}
        if not hints:
            return
        if a.is_exact and b.is_exact:
            self._meet_guess(a.expr - b.expr, sorted(hints, key=lambda h: h.name))
        else:
            self.widen |= hints

    def widen_hints_in(self, dims: tuple) -> None:
        """Widen every hint among dims (a value of unknown rank reaches them)."""
        self.widen |= {
            s for d in dims if isinstance(d, Dimension) and d.is_symbolic for s in d.symbols() if isinstance(s, HintVar)
        }

    def _meet_guess(self, diff: Poly, hints: list) -> Grade:
        """A hinted dim meets another: equal when the other is the very number guessed (or the
        same guess), else the hint is widened (the next pass starts from `?` there). Hints
        never fail, and no variable is ever solved to a guess (it would outlive the hint)."""
        at_guess = diff.substitute(lambda s: Poly.const(s.guess) if isinstance(s, HintVar) else None)
        if not (at_guess.is_const() and at_guess.const_value() == 0):
            self.widen |= set(hints)
        return Grade.EQUAL

    def _solve(self, diff: Poly) -> Grade:
        if diff.is_const():
            return Grade.EQUAL if diff.const_value() == 0 else Grade.NEVER
        candidates = sorted(
            (s for s in diff.symbols() if isinstance(s, DimVar) and self.is_free(s)),
            key=lambda s: (not isinstance(s, SiteVar), s.uid),
        )
        for v in candidates:
            part = diff.linear_part(v)
            if part is None:
                continue
            coeff, rest = part
            solution = (-rest).exact_div(Poly.const(coeff)) if coeff not in (1, -1) else (-rest if coeff == 1 else rest)
            if solution is not None:
                return self.bind(v, solution)
            if rest.is_const() and rest.const_value() % coeff:
                return Grade.NEVER  # c * v = k with c not dividing k: no size solves it (2 * n against 3)
        reduced = _without_common_factor(diff)
        if reduced is not None:
            return self._solve(reduced)
        if candidates:
            return Grade.CHECK
        # two canonical forms of one function (parts that add up: n // 3 + (n - 1) // 3 + ...)
        return Grade.EQUAL if vanishes(diff) else Grade.NEVER

    def bind(self, v: DimVar, value: Poly) -> Grade:
        """Solve v := value, checking bounds; a variable value unions the two classes."""
        rep = self.find(v)
        lo, hi = self.bounds(rep)
        if value.is_const() and value.const_value() < 0:
            return Grade.NEVER
        if len(value.terms) == 1 and value.terms[0][1] == 1 and len(value.terms[0][0]) == 1:
            other = value.terms[0][0][0]
            if isinstance(other, DimVar) and not isinstance(other, HintVar) and self.is_free(other):
                return self._union(rep, self.find(other))
        dim = Dimension.of_expr(value)
        if dim.max_length is not None and dim.max_length < lo:
            return Grade.NEVER
        if hi is not None and dim.min_length > hi:
            return Grade.NEVER
        if self._narrow_to_fit(value, lo, hi) is Grade.NEVER:
            return Grade.NEVER
        self.solution[rep] = dim
        return Grade.EQUAL

    def _narrow_to_fit(self, value: Poly, lo: int, hi: Optional[int]) -> Grade:
        """A value solving a variable is a size within the variable's bounds: where it is
        `c * w + k` of one free variable `w` (`c > 0`), `w` gets the bounds that make it so
        (`d - 1` for a size makes `d >= 1`, the fact the other argument's `n - 1` states)."""
        free = [s for s in value.symbols() if isinstance(s, DimVar) and self.is_free(s)]
        if len(free) != 1:
            return Grade.EQUAL
        part = value.linear_part(free[0])
        if part is None or part[0] <= 0 or not part[1].is_const():
            return Grade.EQUAL
        coeff, rest = part
        k = rest.const_value()
        least = -((k - lo) // coeff)  # ceil((lo - k) / coeff)
        most = None if hi is None else (hi - k) // coeff
        return self.narrow(free[0], max(least, 0), most)

    def bind_imprecise(self, v: DimVar, dim: Dimension) -> Grade:
        """Solve v := an interval or `?` (what an unannotated parameter can be), within its bounds."""
        rep = self.find(v)
        lo, hi = self.bounds(rep)
        if dim.max_length is not None and dim.max_length < lo or hi is not None and dim.min_length > hi:
            return Grade.NEVER
        self.solution[rep] = dim
        return Grade.EQUAL

    def _union(self, a: DimVar, b: DimVar) -> Grade:
        if a is b:
            return Grade.EQUAL
        alo, ahi = self.bounds(a)
        blo, bhi = self.bounds(b)
        lo = max(alo, blo)
        hi = bhi if ahi is None else (ahi if bhi is None else min(ahi, bhi))
        if hi is not None and hi < lo:
            return Grade.NEVER
        # keep non-site variables as representatives: they are the more durable facts
        if isinstance(b, SiteVar) and not isinstance(a, SiteVar):
            a, b = b, a
        self.parent[a] = b
        b.lo, b.hi = lo, hi
        return Grade.EQUAL

    def narrow(self, v: DimVar, lo: int, hi: Optional[int]) -> Grade:
        """Intersect a free variable's bounds with lo..hi."""
        rep = self.find(v)
        clo, chi = self.bounds(rep)
        nlo = max(clo, lo)
        nhi = hi if chi is None else (chi if hi is None else min(chi, hi))
        if nhi is not None and nhi < nlo:
            return Grade.NEVER
        rep.lo, rep.hi = nlo, nhi
        return Grade.EQUAL

    def free_var(self, d: Dimension) -> Optional[DimVar]:
        """If d is exactly one free variable, that variable."""
        d = self.resolve(d)
        if not d.is_symbolic:
            return None
        terms = d.expr.terms
        if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1:
            atom = terms[0][0][0]
            if isinstance(atom, DimVar) and self.is_free(atom):
                return self.find(atom)
        return None

    # dtypes -------------------------------------------------------------------------------
    def resolve_dtype(self, t: DType) -> DType:
        """Follow dtype variable bindings, compressing the path: n definitions whose
        parameters pass their dtype along in a chain would otherwise cost n per lookup."""
        parent = self.dtype_parent
        root, steps = t, len(parent)
        while isinstance(root, DTypeVar) and root.meta and root in parent and steps >= 0:
            root = parent[root]
            steps -= 1  # a cycle cannot be built (both sides are resolved before binding): a guard
        while t is not root and isinstance(t, DTypeVar) and t in parent:
            parent[t], t = root, parent[t]
        return root

    def unify_dtype(self, a: DType, b: DType) -> tuple[Grade, DType]:
        """Make two dtypes equal; meta variables bind, `?` gives CHECK, else EQUAL/NEVER."""
        a, b = self.resolve_dtype(a), self.resolve_dtype(b)
        if a == b:
            return Grade.EQUAL, a
        if isinstance(b, DTypeVar) and b.meta and b.name == "?" and isinstance(a, DTypeVar) and a.meta:
            a, b = b, a  # bind a call's unknown dtype to the inferred one, not the other way
        if isinstance(a, DTypeVar) and a.meta:
            self.dtype_parent[a] = b
            return Grade.EQUAL, b
        if isinstance(b, DTypeVar) and b.meta:
            self.dtype_parent[b] = a
            return Grade.EQUAL, a
        if a == DYN_DTYPE:
            return Grade.CHECK, b
        if b == DYN_DTYPE:
            return Grade.CHECK, a
        return Grade.NEVER, a

    # types --------------------------------------------------------------------------------
    def resolve_type(self, t: Type) -> Type:
        """Follow type variable bindings (one level at a time, iteratively)."""
        while isinstance(t, TypeVar) and t in self.types:
            t = self.types[t]
        return t

    def bind_type(self, v: TypeVar, t: Type) -> None:
        """Bind an unannotated parameter's type; a type that contains the variable itself
        (`%x(%x)`) has no finite form, so the variable becomes `?` (occurs check); binding it to
        itself says nothing."""
        if self.resolve_type(t) is v:
            return
        self.types[v] = DYN if self.occurs(v, t) else t

    def occurs(self, v: TypeVar, t: Type) -> bool:
        """Whether type variable v occurs in t (following bindings)."""
        stack = [t]
        seen: set[int] = set()
        while stack:
            item = self.resolve_type(stack.pop())
            if item is v:
                return True
            if id(item) in seen:
                continue
            seen.add(id(item))
            if isinstance(item, TupleType):
                stack.extend(item.fields)
            elif isinstance(item, FuncType):
                stack.extend(item.params)
                stack.append(item.ret)
            elif isinstance(item, RefType):
                stack.append(item.content)
            elif isinstance(item, AdtType):
                stack.extend(item.args)
        return False


def _without_common_factor(p: Poly) -> Optional[Poly]:
    """p divided by the monomial all its terms share (b*d - b*s gives d - s), or None.

    Solving the quotient assumes the factor is not 0: an empty batch could satisfy the
    original equation with other values, and the check derived from the quotient then rejects
    it. The check is never weaker than the equation, so this stays sound."""
    if len(p.terms) < 2 or any(mono == () for mono, _ in p.terms):
        return None
    common = list(p.terms[0][0])
    for mono, _ in p.terms[1:]:
        rest = list(mono)
        kept = []
        for atom in common:
            if atom in rest:
                rest.remove(atom)
                kept.append(atom)
        common = kept
    if not common:
        return None
    factor = Poly({tuple(common): 1})
    return p.exact_div(factor)


def _interval_grade(a: Dimension, b: Dimension) -> Grade:
    alo, ahi = a.bounds()
    blo, bhi = b.bounds()
    if alo > bhi or blo > ahi:
        return Grade.NEVER
    return Grade.CHECK
