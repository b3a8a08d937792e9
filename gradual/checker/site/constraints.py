"""The shape-context protocol over symbolic dims: what is known of a dim, and the graded
constraints a rule asks for (`equal`, `quotient`, `broadcast`): proven, a runtime check, or a
static error. Claimed dims (`claimed` function attributes) and hinted parameters meet here.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from gradual.checker import messages
from gradual.checker.site.opening import Opening
from gradual.checker.site.values import (
    DimLike,
    SDim,
    Slot,
    as_dim,
    bound_value,
    broadcast_hull,
    mentions_claimed,
    raw_dtype,
    sdim,
)
from gradual.ops.context import RuleFailure, TensorArg
from gradual.shapes import Dimension, Grade, Poly, Symbol
from gradual.shapes.constraint import solve as solve_constraint
from gradual.shapes.reasoning import signed_bounds
from gradual.types import (
    Broadcast,
    DimVar,
    DTypeVar,
)
from gradual.types.unify import HintVar, SiteVar


class Constraints(Opening):
    """Knowledge and graded constraints of a call site (see the module docstring)."""

    def attr(self, name: str) -> Any:
        return self.attrs.get(name)

    def static(self, d: Any) -> Optional[int]:
        if isinstance(d, int):
            return d  # a (possibly negative) element of a shape value
        dim = self.solver.resolve(d.dim if isinstance(d, SDim) else as_dim(d))
        lo, hi = signed_bounds(dim)
        return int(lo) if lo == hi else None

    def exact(self, d: Any) -> bool:
        if isinstance(d, int):
            return True
        d = sdim(d)
        return self._site_var(d) is None and self.solver.resolve(d.dim).is_exact

    def exact_quotient(self, a: Any, b: Any) -> Any:
        if isinstance(a, int) or isinstance(b, int):
            return super().exact_quotient(a, b)
        resolve = self.solver.resolve
        quotient = resolve(sdim(a).dim).exact_div(resolve(sdim(b).dim))
        return None if quotient is None else SDim(quotient)

    def claimed(self, d: Any) -> bool:
        return not isinstance(d, int) and mentions_claimed(self.solver.resolve(sdim(d).dim))

    def bounds(self, d: Any) -> tuple[Any, Any]:
        if isinstance(d, int):
            return d, d
        dim = self.solver.resolve(sdim(d).dim, final=True)
        return dim.min_length, dim.max_length

    def maybe_one(self, d: Any) -> Optional[bool]:
        if isinstance(d, int):
            return d == 1
        lo, hi = signed_bounds(self.solver.resolve(d.dim if isinstance(d, SDim) else as_dim(d)))
        return False if not lo <= 1 <= hi else None

    def const(self, value: int) -> SDim:
        return SDim(Dimension.static(value))

    def symbolic(self, dim: Any) -> SDim:
        return SDim(dim)

    def unknown(self) -> SDim:
        return SDim(Dimension.dynamic())

    def bounded(self, lo: Any, hi: Any) -> SDim:
        lo_v = bound_value(self, lo, upper=False) or 0
        hi_v = bound_value(self, hi, upper=True)
        if hi_v is not None and hi_v < lo_v:
            hi_v = lo_v
        return SDim(Dimension.interval(lo_v, hi_v))

    def equal(self, a: Any, b: Any, symbol: Optional[str] = None, otherwise: Optional[tuple[Any, ...]] = None) -> SDim:
        a, b = sdim(a), sdim(b)
        if self.recursive_call and self._parameters_meet(a, b):
            return SDim(Dimension.dynamic(), a.origin)
        grade = self.solver.unify(a.dim, b.dim)
        if grade is Grade.NEVER:
            claimed = self._claimed_constraint(a, b, symbol)
            if claimed is not None:
                return claimed
            loose = self._loose_equal(a, b, symbol)
            if loose is not None:
                return loose
        if grade is Grade.NEVER and otherwise is not None:
            raise RuleFailure(otherwise[0], dict(otherwise[1]))
        if grade is Grade.NEVER and self.recursive_call and self._widen_parameters(a, b):
            return SDim(Dimension.dynamic(), a.origin)
        if grade is Grade.NEVER:
            self._error(messages.dim_mismatch(self, a, b, symbol, self._shown(a), self._shown(b)))
            return SDim(Dimension.dynamic(), a.origin)
        if grade is Grade.CHECK:
            self._check_equal_later(a, b)
        keep = a if a.origin is not None or b.origin is None else b
        return SDim(self.solver.resolve(a.dim), keep.origin, symbol or a.symbol)

    def quotient(
        self, value: DimLike, coeff: int, symbol: Optional[str] = None, written: Optional[tuple[Any, str]] = None
    ) -> SDim:
        """`value // coeff` where coeff must divide value: a value of the caller's own symbols that
        it may divide (`m` for a signature's `2 * n`: every even m) is checked at runtime, as the
        same call with an unknown in m's place is; only a value it can never divide is an error
        (a static 5, `2 * m + 1`). The check was "m can never be 2 * (m // 2)": a less precise
        program rejected where the precise one ran."""
        value = sdim(value)
        resolved = self.solver.resolve(value.dim)
        if (
            resolved.is_static
            and resolved.get_length() % coeff
            and written is not None
            and self.callee.kind != "flow"
            and not self.recursive_call
        ):
            # a size it can never divide: named with the signature's expression (the product
            # below is the multiple under it: "is 5, but needs 4")
            arg = sdim(written[0])
            if arg.origin is not None:
                self._error(messages.indivisible_dim(self, arg, coeff, written[1], self.solver.resolve(arg.dim)))
                return SDim(Dimension.dynamic(), arg.origin)
        q = value // coeff
        product = q * coeff
        if self._may_divide(value.dim, product.dim, coeff):
            self._check_equal_later(product, value)
        else:
            self.equal(product, value, symbol=symbol)
        return q

    def _may_divide(self, value: Dimension, product: Dimension, coeff: int) -> bool:
        """Whether value is rigid (no inference variable to solve), not provably the product,
        and some sizes of its symbols make it a multiple of coeff."""
        resolved = self.solver.resolve(value)
        if not resolved.is_exact or resolved.is_static or self.solver.mentions_vars(resolved.expr):
            return False
        if mentions_claimed(resolved):
            return False  # an exporter's claimed size: `equal` warns of the constraint and checks it (spec §6)
        if resolved == self.solver.resolve(product):
            return False
        for k in range(coeff):  # every symbol k: a sufficient witness (m + 1 at m = 1, 2 * m + 1 at none)
            at_k = resolved.expr.substitute(_constant(k))
            if at_k.is_const() and at_k.const_value() % coeff == 0:
                return True
        return False

    def _parameters_meet(self, a: SDim, b: SDim) -> bool:
        """At a recursive call, two different unannotated parameters' dims made equal (a loop
        that transposes its value passes its (d1, d0) for (d0, d1)): both are widened, as for
        any other change (`_widen_parameters`), instead of forcing the value square."""
        va, vb = self.solver.free_var(a.dim), self.solver.free_var(b.dim)
        if type(va) is not DimVar or type(vb) is not DimVar or self.solver.find(va) is self.solver.find(vb):
            return False
        self.solver.widen_params |= {va, vb}
        return True

    def _widen_parameters(self, a: SDim, b: SDim) -> bool:
        """At a recursive call, the unannotated parameters' dims among two that can never be
        equal (`d0 + 1` passed for `d0`: a loop that pads its value) go to the solver to be
        widened, as a `can_unify` hint's are (spec §3.5); whether there were any."""
        symbols = {s for d in (a.dim, b.dim) for dim in (d, self.solver.resolve(d)) for s in dim.symbols()}
        found = {s for s in symbols if type(s) is DimVar}
        hints = {s for s in symbols if isinstance(s, HintVar)}
        self.solver.widen_params |= found
        self.solver.widen |= hints
        return bool(found or hints)

    def _check_equal_later(self, a: SDim, b: SDim) -> Optional[SDim]:
        """Two exact dims that only a runtime check can equate, no polynomial solving them (`2 *
        d` of a `?` argument against a rigid `n`): an argument dim without a slot of its own is
        checked to equal the other, once the runtime has bound the other's variables. The
        other (the dim the call goes on with), or None where neither is such an argument dim."""
        for mine, other in ((b, a), (a, b)):
            origin = mine.origin
            if origin is None or origin.axis is None:
                continue
            key = (origin.arg, origin.path, origin.axis)
            if key not in self.slots and key not in self.claim_checks:
                self.claim_checks[key] = other.dim
                return other
        return None

    def _loose_equal(self, a: SDim, b: SDim, symbol: Optional[str]) -> Optional[SDim]:
        """Two exact dims that differ where one mentions a loose existential (a name bound where
        the value's dim was not known: `let %y: (n1, 4) = <a (?, 4)>`, records.Env.loose): unless
        no value makes them equal (`n1` against `n1 + 1`), the argument dim is checked at runtime
        against the other. A name for an unknown dim is as unknown as `?`: the more precise
        program, where the same name aliases the dim it met, checks clean (the gradual
        guarantee; found by its property). None: an ordinary mismatch."""
        if not self.loose:
            return None
        ra, rb = self.solver.resolve(a.dim), self.solver.resolve(b.dim)
        if not any(d.is_symbolic and d.symbols() & self.loose.keys() for d in (ra, rb)):
            return None
        if solve_constraint(ra, rb).kind == "impossible":
            return None
        kept = self._check_equal_later(a, b)
        return None if kept is None else SDim(self.solver.resolve(kept.dim), kept.origin, symbol or kept.symbol)

    def broadcast(self, a: DimLike, b: DimLike) -> SDim:
        a, b = sdim(a), sdim(b)
        if self.is_one(a):
            return b
        if self.is_one(b):
            return a
        # only unknown runtime values broadcast lazily; an inferred parameter's dim is exact
        va, vb = self._site_var(a), self._site_var(b)
        if va is not None and vb is not None:
            if va is vb:
                return a
            hull = broadcast_hull(self.solver, va, vb)
            if hull is None:
                self._error(messages.broadcast_mismatch(self, a, b, self._shown(a), self._shown(b)))
                return SDim(Dimension.dynamic())
            return SDim(hull)
        if va is not None or vb is not None:
            free, other = (a, b) if va is not None else (b, a)
            if type(self.solver.free_var(other.dim)) is DimVar:
                return self._broadcast_parameter_unknown(other)
            return self._broadcast_free(free, other)
        widened = self._broadcast_parameter(a, b)
        if widened is not None:
            return widened
        grade = self.solver.unify(a.dim, b.dim)
        if grade is Grade.NEVER:
            maybe_one = self._maybe_one_of(a, b)
            if maybe_one is not None:  # a computed `0..1` broadcasts with 2 when it is 1
                return maybe_one
            claimed = self._claimed_constraint(a, b, None, broadcasting=True)
            if claimed is not None:
                return claimed
            self._error(messages.broadcast_mismatch(self, a, b, self._shown(a), self._shown(b)))
            return SDim(Dimension.dynamic())
        return self._broadcast_result(a, b)

    def _broadcast_parameter(self, a: SDim, b: SDim) -> Optional[SDim]:
        """An unannotated parameter's dim broadcast against another dim: the parameter may be
        1 or that dim (its annotated twin `(1,)` checks, so the unannotated one must: the static
        gradual guarantee), so its dim becomes their hull (`1..2` against 2, `1..5` against
        `3..5`, `?` against a symbol or `?`: never more precise than what it met) and the result
        is the other dim (the parameter is 1 or that), which the operator's rule checks when it
        runs; `?` where the other dim may itself be 1 (a symbol `n`: where n is 1 the result is
        the parameter's dim, 0 against 1 gives 0; the deep run found `n` claimed for it). None
        where neither is such a parameter, or both are (they are made equal)."""
        for free, other in ((a, b), (b, a)):
            var = self.solver.free_var(free.dim)
            if type(var) is not DimVar or self.solver.free_var(other.dim) is not None:
                continue
            resolved = self.solver.resolve(other.dim)
            hi = resolved.max_length
            hull = Dimension.interval(min(1, resolved.min_length), None if hi is None else max(1, hi))
            if self.solver.bind_imprecise(var, hull) is Grade.NEVER:
                return None
            if self.maybe_one(other) is not False:  # where it is 1, the result is the parameter's dim
                return SDim(Dimension.dynamic())
            return SDim(resolved, other.origin)
        return None

    def _broadcast_parameter_unknown(self, param: SDim) -> SDim:
        """An unannotated parameter's dim broadcast against an unknown one: as against any dim
        (`_broadcast_parameter`), the parameter may be 1 or the other, so it is `?` (the hull of 1
        and anything) and so is the result. Made equal to the parameter, the unknown dim was
        checked to be it or 1 and a later annotation of the result solved the parameter: more
        precise than with a static 2 in the unknown's place (1..2)."""
        var = self.solver.free_var(param.dim)
        assert isinstance(var, DimVar)
        self.solver.bind_imprecise(var, Dimension.dynamic())
        return SDim(Dimension.dynamic())

    def _claimed_constraint(
        self, a: SDim, b: SDim, symbol: Optional[str], broadcasting: bool = False
    ) -> Optional[SDim]:
        """Two exact dims that differ, where one mentions a claimed symbol (an exporter's dynamic
        dim, spec §6): unless no value of it can make them agree, a warning that states the
        constraint, and a runtime check of the argument dim that mentions it (the later one when
        both do); the call goes on with the other dim. None: an ordinary mismatch.
        When `broadcasting`, see `_claimed_broadcast`."""
        ra, rb = self._shown(a), self._shown(b)
        if not (mentions_claimed(ra) or mentions_claimed(rb)):
            return None
        constraint = solve_constraint(ra, rb)
        if b.origin is not None and mentions_claimed(rb):
            sides = (b, rb, a, ra)
        else:
            sides = (a, ra, b, rb)
        if broadcasting:
            return self._claimed_broadcast(sides, constraint, symbol)
        if constraint.kind == "impossible":
            return None
        return self._claim_checked(sides, constraint, (), symbol)

    def _claimed_broadcast(self, sides: tuple[Any, ...], constraint: Any, symbol: Optional[str]) -> Optional[SDim]:
        """Broadcasting two such dims also works where one of them is 1 (`(2 * n, 3) + (n, 3)`
        runs for n = 0 and n = 1). The side that can be 1 is checked to be the other or 1;
        when both can be 1 at different values (`n` and `n + 1`), no one dim is the result:
        it is unknown, and the operator's rule decides when it runs."""
        checked, checked_dim, kept, kept_dim = sides
        ones = [solve_constraint(d, Dimension.static(1)) for d in (checked_dim, kept_dim)]
        possible = [c.kind != "impossible" for c in ones]
        if constraint.kind == "impossible" and not any(possible):
            return None
        if possible[1] and not possible[0]:
            checked, checked_dim, kept, kept_dim = kept, kept_dim, checked, checked_dim
            ones.reverse()
        if all(possible) and ones[0] != ones[1]:
            either = ((checked_dim, ones[0]), (kept_dim, ones[1]))
            self.report_diag(
                messages.dim_constraint(self, checked, kept, checked_dim, kept_dim, constraint, False, either)
            )
            return SDim(Dimension.dynamic())
        one = ((checked_dim, ones[0]),) if any(possible) else ()
        return self._claim_checked((checked, checked_dim, kept, kept_dim), constraint, one, symbol)

    def _claim_checked(
        self, sides: tuple[Any, ...], constraint: Any, one: tuple[Any, ...], symbol: Optional[str]
    ) -> SDim:
        """The warning, a check that the argument dim equals the kept one (or, `one` given,
        is it or 1), and the kept dim as the result."""
        checked, checked_dim, kept, kept_dim = sides
        inserted = checked.origin is not None and checked.origin.axis is not None
        if inserted:
            origin = checked.origin
            self.claim_checks[(origin.arg, origin.path, origin.axis)] = Broadcast(kept_dim) if one else kept_dim
        self.report_diag(messages.dim_constraint(self, checked, kept, checked_dim, kept_dim, constraint, inserted, one))
        return SDim(kept_dim, kept.origin, symbol or kept.symbol)

    def _broadcast_result(self, a: SDim, b: SDim) -> SDim:
        """Two dims that may broadcast: an exact one wins over a computed imprecise one (which is
        1 or equal to it), two imprecise ones give their hull (the result is one of them)."""
        ra, rb = self.solver.resolve(a.dim), self.solver.resolve(b.dim)
        if ra.is_exact or not rb.is_exact and ra == rb:
            return SDim(ra, a.origin or b.origin)
        if rb.is_exact:
            return SDim(rb, b.origin or a.origin)
        hi = None if ra.max_length is None or rb.max_length is None else max(ra.max_length, rb.max_length)
        return SDim(Dimension.interval(min(ra.min_length, rb.min_length), hi))

    def _maybe_one_of(self, a: SDim, b: SDim) -> Optional[SDim]:
        """The broadcast of two dims that differ where one is a computed imprecise dim that may
        be 1: the other (the runtime's rule rejects the values that do not broadcast)."""
        ra, rb = self.solver.resolve(a.dim), self.solver.resolve(b.dim)
        for one, other, resolved in ((ra, b, rb), (rb, a, ra)):
            if not one.is_exact and one.contains_value(1):
                return SDim(resolved, other.origin) if resolved.is_exact else SDim(Dimension.dynamic())
        return None

    def _loose_one(self, d: Dimension) -> bool:
        """A dim over a loose existential (CallSite.loose) that may be 1."""
        return (
            bool(self.loose)
            and d.is_symbolic
            and any(self.loose.get(s) for s in d.symbols())
            and self.maybe_one(SDim(d)) is not False
        )

    def _site_var(self, d: SDim) -> Optional[SiteVar]:
        var = self.solver.free_var(d.dim)
        return var if isinstance(var, SiteVar) else None

    def _broadcast_free(self, free: SDim, other: SDim) -> SDim:
        resolved = self.solver.resolve(other.dim)
        var = self.solver.free_var(free.dim)
        assert var is not None
        if not resolved.is_exact or self._loose_one(resolved):
            return SDim(Dimension.dynamic())
        if not var.lo <= 1 <= (var.hi if var.hi is not None else 1):
            grade = self.solver.unify(free.dim, other.dim)
            if grade is Grade.NEVER:
                self._error(messages.broadcast_mismatch(self, free, other, self._shown(free), self._shown(other)))
            return other
        slot = self._slot_of(var)
        if slot is not None:
            slot.broadcast_to = other
        return SDim(resolved, other.origin)

    def _slot_of(self, var: DimVar) -> Optional[Slot]:
        for slot in self.slots.values():
            if self.solver.find(slot.var) is self.solver.find(var):
                return slot
        return None

    def hinted_rank_conflict(self, param: Any, arg: Any) -> bool:
        """A hinted parameter (its dims `can_unify` guesses) met by a value of another rank,
        or of unknown rank (as a `?` dim widens a hinted dim): its hints are widened and the
        parameter is inferred unhinted in the next pass. A value of another kind (a tuple, a
        function, a reference) widens them the same way."""
        if param.dims is None:
            return False
        if not isinstance(arg, TensorArg):
            opened = self.opened.get((arg.index, arg.path))
            if opened is not None and (opened.dynamic or opened.typevar is not None):
                return False  # a `?` or inferred value: it may be a tensor (a check, or a binding)
        elif arg.dims is not None and len(arg.dims) == len(param.dims):
            return False
        hints = {
            s
            for d in param.dims
            if isinstance(d, Dimension) and d.is_symbolic
            for s in self.solver.resolve(d).symbols()
            if isinstance(s, HintVar)
        }
        if not hints:
            return False
        self.solver.widen |= hints
        self.solver.widen_ranks |= {h.origin[0] for h in hints}
        return True

    def dtype_needs(self, dtype: Any, cls: str) -> None:
        """A dtype variable an operand's class constrains: learned like a bound (calls.learn
        keeps it for the definition's own dtype variables, FuncType.dtype_requires)."""
        dt = self.solver.resolve_dtype(raw_dtype(dtype))
        if isinstance(dt, DTypeVar):
            self.learned.append((dt, cls, None))


def _constant(k: int) -> Callable[[Symbol], Poly]:
    """Every symbol as the constant k (a witness that a dim may be a multiple)."""
    return lambda s: Poly.const(k)
