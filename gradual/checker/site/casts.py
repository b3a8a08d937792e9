"""The casts a call needs: per argument, the type it was assumed to have. A site variable solved
to a dimension becomes a check of that dimension, one that stays unsolved is bound by its
first occurrence and checked at the others, a broadcast against a known dimension becomes
`d|1`; arguments with nothing to verify get no cast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from gradual.checker import messages
from gradual.checker.site.values import ArgPath, CastPattern, RefArg, SDim, Slot, field_type, raw_dtype
from gradual.ops.context import TensorArg, TupleArg
from gradual.shapes import Dimension, Poly, Symbol
from gradual.shapes.reasoning import divisibility
from gradual.types import (
    DYN,
    DYN_DTYPE,
    REF_CONTENT,
    Broadcast,
    DimVar,
    DTypeVar,
    DynType,
    RefType,
    TensorType,
    TupleType,
    Type,
    Variadic,
    map_dims,
    map_dtypes,
    type_symbols,
)
from gradual.types.unify import HintVar, SiteVar

if TYPE_CHECKING:
    from gradual.checker.site import CallSite


def pattern_dims(t: Type) -> list[Any]:
    """The dims (and `e|1` items) of a cast pattern's tensors, in the order a runtime check
    meets them."""
    if isinstance(t, TupleType):
        return [d for f in t.fields for d in pattern_dims(f)]
    if isinstance(t, TensorType) and t.dims is not None:
        return list(t.dims)
    return []


class CastBuilder:
    """Turns a site's slots into per-argument cast patterns (see the module docstring)."""

    def __init__(self, site: CallSite) -> None:
        self.site = site
        self.solver = site.solver
        self.binders: dict[DimVar, Symbol] = {}
        self.runs: list[Symbol] = []  # the `*r` of rank patterns, bound at runtime like the binders
        self.occurrences: dict[DimVar, int] = {}
        # each shared dim's occurrences (argument index, path, axis, variable); the first binds it
        self.uses: dict[DimVar, list[Any]] = {}
        self.facts: list[Any] = []

    def build(self) -> tuple[list[CastPattern], list[tuple[int, Any, Type]]]:
        self._count_occurrences()
        casts: list[CastPattern] = []
        refinements: list[tuple[int, Any, Type]] = []
        seen_binders: set[int] = set()
        patterns = []
        for index, info in enumerate(self.site.arg_infos):
            if info.binder is not None:
                if id(info.binder) in seen_binders:
                    continue
                seen_binders.add(id(info.binder))
            pattern, verifies, refined = self._pattern(index, (), info.type)
            patterns.append((index, info, pattern, verifies))
            if verifies and info.binder is not None and refined is not None:
                refinements.append((index, info.binder, refined))
        binding = self._binding_arguments(patterns)
        sooner = self._bound_sooner(patterns, binding) if binding else set()
        for index, info, pattern, verifies in patterns:
            binds = index in binding
            verifies = verifies or index in sooner
            if verifies or binds:
                reason = messages.cast_reason(self.site, index)
                casts.append(CastPattern(index, info.node, pattern, verifies, binds, reason))
        return casts, refinements

    def _binding_arguments(self, patterns: list[Any]) -> set[int]:
        """The arguments whose casts bind a symbol that a verifying pattern mentions (a cast
        that verifies nothing is kept only for that)."""
        if not self.uses:
            return set()
        mentioned: set[Any] = set()
        for _, _, pattern, verifies in patterns:
            if verifies:
                mentioned |= type_symbols(pattern)
        return {self.uses[var][0][0] for var, sym in self.binders.items() if sym in mentioned}

    def _bound_sooner(self, patterns: list[Any], binding: set[int]) -> set[int]:
        """The binding arguments a symbol of whose is bound before their cast runs: casts run in
        argument order, and the runtime solves an expression with one unbound symbol it is
        linear in (`%y as (2 - d,)` before `%z as (d,)`: runtime/match.py), so such a cast
        checks it: a check site that can fail, and so counted (it failed with no check site
        counted: found by outside pass 9). `d // 2` or `d - d1` wait for their symbols; the
        caller's own names (`d + s10`) are bound already."""
        owned: dict[Any, Any] = {}
        for var, sym in self.binders.items():
            owned.setdefault(self.uses[var][0][0], set()).add(sym)
        mine = set(self.binders.values()) | set(self.runs)  # the caller's own names are bound on entry
        bound: set[Any] = set()
        sooner: set[int] = set()
        for i, _, pattern, verifies in patterns:  # in argument order
            if i in binding and owned.get(i, set()) & bound:
                sooner.add(i)
            if not (verifies or i in binding):
                continue  # no cast
            for d in pattern_dims(pattern):
                if isinstance(d, Broadcast):  # binds where the size is not 1
                    d = d.target
                if not isinstance(d, Dimension) or not d.is_symbolic:
                    continue
                free = (d.symbols() & mine) - bound
                if len(free) == 1:
                    sym = next(iter(free))
                    fixed = d.expr.substitute(lambda s: Poly.const(1) if s in bound else None)
                    if fixed.linear_part(sym) is not None:
                        bound.add(sym)
        return sooner

    def _count_occurrences(self) -> None:
        for slot in self.site.slots.values():
            rep = self.solver.find(slot.var)
            if isinstance(rep, SiteVar) and self.solver.is_free(rep):
                self.occurrences[rep] = self.occurrences.get(rep, 0) + 1
            for target in self._referenced_vars(slot):
                self.occurrences[target] = self.occurrences.get(target, 0) + 2
        for claimed in self.site.claim_checks.values():  # a dim checked against site variables
            if isinstance(claimed, Broadcast):
                claimed = claimed.target
            for sym in self.solver.resolve(claimed).symbols():
                if isinstance(sym, SiteVar) and self.solver.is_free(sym):
                    rep = self.solver.find(sym)
                    self.occurrences[rep] = self.occurrences.get(rep, 0) + 2
        if self.site.contracts:  # a contract names the argument dims it shares
            args = {self.solver.find(slot.var) for slot in self.site.slots.values()}
            for contract in self.site.contracts.values():
                for sym in type_symbols(contract):
                    shared = self.solver.find(sym) if isinstance(sym, SiteVar) else None
                    if shared is not None and shared in args and self.solver.is_free(shared):
                        self.occurrences[shared] = self.occurrences.get(shared, 0) + 2

    def _referenced_vars(self, slot: Slot) -> list[DimVar]:
        found: list[DimVar] = []
        rep = self.solver.find(slot.var)
        exprs = []
        if rep in self.solver.solution:
            exprs.append(self.solver.resolve(self.solver.solution[rep]))
        if slot.broadcast_to is not None:
            exprs.append(self.solver.resolve(slot.broadcast_to.dim))
        for e in exprs:
            for s in e.symbols():
                if isinstance(s, SiteVar) and self.solver.is_free(s):
                    found.append(self.solver.find(s))
        return found

    def _pattern(self, index: int, path: ArgPath, t: Type) -> tuple[Type, bool, Optional[Type]]:
        t = self.solver.resolve_type(t)
        kind = self.site.kind_checks.get((index, path))
        opened = self.site.opened.get((index, path))
        view = opened.view if opened is not None else None
        key = (index, path)
        if (
            opened is not None
            and opened.dynamic
            and kind is None
            and key not in self.site.rank_checks
            and key not in self.site.contracts
        ):
            return DYN, False, None  # a `?` the call never looked inside (nor passed for a function)
        if isinstance(view, TupleArg) and view.fields is not None:
            parts = [self._pattern(index, path + (i,), field_type(t, i)) for i in range(len(view.fields))]
            verifies = kind is not None or any(p[1] for p in parts)
            refined_tuple = TupleType(tuple(p[2] or p[0] for p in parts)) if isinstance(t, TupleType) else None
            return TupleType(tuple(p[0] for p in parts)), verifies, refined_tuple
        contract = self.site.contracts.get((index, path))
        if contract is not None:  # a function, or a `?` passed for one
            return self._contract_pattern(contract), True, None
        if isinstance(view, TensorArg):
            return self._tensor_pattern(index, path, t, view, kind is not None)
        if isinstance(view, RefArg):
            content = t.content if isinstance(t, RefType) else DYN
            inner, verifies, refined = self._pattern(index, path + (REF_CONTENT,), content)
            return (
                RefType(inner),
                verifies or kind is not None,
                RefType(refined or inner) if isinstance(t, RefType) else None,
            )
        return (t if isinstance(t, Type) else DYN), False, None

    def _contract_pattern(self, contract: Type) -> Type:
        """The function type a contract checks, as the caller's frame can state it: a dim of
        another argument is its runtime binder, a dim nothing binds is `?`."""

        def dim(d: Dimension) -> Dimension:
            d = self.solver.resolve(d)
            if not any(isinstance(s, DimVar) for s in d.symbols()):
                return d
            expressed = self._express(d)
            if expressed is None or any(isinstance(s, DimVar) for s in expressed.symbols()):
                return Dimension.dynamic()
            return expressed

        def dtype(t: Any) -> Any:
            t = self.solver.resolve_dtype(t)
            return DYN_DTYPE if isinstance(t, DTypeVar) and (t.meta or t in self.site.chosen) else t

        return map_dtypes(map_dims(contract, dim), dtype)

    def _tensor_pattern(self, index: int, path: ArgPath, t: Type, view: TensorArg, kind_check: bool) -> tuple[Any, ...]:
        verifies = kind_check or (index, path) in self.site.rank_checks
        dims: Optional[tuple[Any, ...]] = None
        refined_dims: Optional[tuple[Any, ...]] = None
        if view.dims is None:
            dims, checks = self._unknown_rank_pattern(index, path)
            verifies |= checks
        else:
            out, ref = [], []
            for axis, d in enumerate(view.dims):
                item, checks, refined = self._dim_pattern(index, path, axis, d)
                verifies |= checks
                out.append(item)
                ref.append(refined)
            dims, refined_dims = tuple(out), tuple(ref)
        dtype = raw_dtype(view.dtype)
        dvar = self.site.dtype_slots.get((index, path))
        if dvar is not None:
            solved = self.solver.resolve_dtype(dvar)
            if isinstance(solved, str) and solved != DYN_DTYPE or isinstance(solved, DTypeVar) and not solved.meta:
                dtype, verifies = solved, True  # a static dtype, or a declared one of the frame
            else:
                dtype = DYN_DTYPE
        dtype = self.solver.resolve_dtype(dtype)
        pattern = TensorType(dims, dtype)
        # a `?` value checked to be a tensor is one from then on (each use checked it again)
        was_dynamic = isinstance(t, DynType) and not t.from_error
        refined = TensorType(refined_dims, dtype) if isinstance(t, TensorType) or was_dynamic else None
        if refined is not None and isinstance(t, TensorType) and t.value is not None:
            refined = TensorType(refined.dims, refined.dtype, t.value)
        return pattern, verifies, refined

    def _unknown_rank_pattern(self, index: int, path: ArgPath) -> tuple[Optional[tuple[Any, ...]], bool]:
        """The dims to check of an argument of unknown rank, and whether they verify anything:
        `(*r, ?, ?)` where it must have at least two dims (an axis attribute names its dim 1),
        `(*r, 4)` where a signature's `(*b, k)` or a rule's axis from the end needs its last dim
        to be 4, `(*b, k)` where its middle must be the enclosing signature's run. What a check
        of this value established already is not checked again."""
        key = (index, path)
        info = self.site.arg_infos[index]
        least = self.site.rank_min_checks.get(key, 0)
        if any(f[0] == "rank-at-least" and f[1] == path and f[2] >= least for f in info.facts):
            least = 0
        edges = self.site.edges.get(key, {})
        first = up_to_last_check(
            [self._edge_pattern(index, path, a, edges[a]) for a in sorted(a for a in edges if a >= 0)]
        )
        last = up_to_last_check(
            [self._edge_pattern(index, path, a, edges[a]) for a in sorted(a for a in edges if a < 0)][::-1]
        )[::-1]
        known = self.site.known_runs.get(key)
        if first and last and len(first) + len(last) > max(least, known[1] + known[2] if known else 0):
            last = []  # both ends may be the same dims (dim 1 and the last of a rank-2 value): the rule checks it at the call
        run = self.site.run_checks.get(key)
        verifies = bool(least) or run is not None or any(v for _, v in first + last)
        if not verifies:
            return None, False
        padding = (Dimension.dynamic(),) * max(0, least - len(first) - len(last))
        if run is None:
            run = Symbol("r")
            self.runs.append(run)
        if least and info.binder is not None:
            self.facts.append((index, info.binder, ("rank-at-least", path, max(least, len(first) + len(last)))))
        return tuple(d for d, _ in first) + (Variadic(run),) + padding + tuple(d for d, _ in last), True

    def _edge_pattern(self, index: int, path: ArgPath, axis: int, d: SDim) -> tuple[Any, ...]:
        """(pattern item, whether it verifies) of a dim at one end of a value of unknown rank; a
        verified dim that names no binder of this call is a fact of the value from then on."""
        item, verifies, _ = self._dim_pattern(index, path, axis, d)
        info = self.site.arg_infos[index]
        if (
            verifies
            and isinstance(item, Dimension)
            and item.is_exact
            and info.binder is not None
            and not item.symbols() & set(self.binders.values())
        ):
            self.facts.append((index, info.binder, ("edge", path, axis, item)))
        return item, verifies

    def _dim_pattern(self, index: int, path: ArgPath, axis: int, d: SDim) -> tuple[Any, ...]:
        """(pattern item, whether it verifies something, refined dim for the value's type)."""
        slot = self.site.slots.get((index, path, axis))
        claimed = self.site.claim_checks.get((index, path, axis))
        if isinstance(claimed, Broadcast):  # the dim is the other or 1: the value keeps its own
            expressed = self._express(self.solver.resolve(claimed.target))
            if expressed is not None:
                own = self.solver.resolve(d.dim, final=True)
                if not self._new_broadcast_fact(index, path, axis, expressed):
                    return own, False, own
                return Broadcast(expressed), True, own
        elif claimed is not None:
            expressed = self._express(self.solver.resolve(claimed))
            if expressed is not None:
                own = self.solver.resolve(d.dim, final=True)
                if expressed.symbols() & set(self.binders.values()):
                    return expressed, True, own
                divisor = divisibility(expressed, own)
                if divisor is not None:  # `m` as `2 * d`: a cast that binds d where 2 divides m
                    quotient = Symbol("d")
                    self.runs.append(quotient)
                    return Dimension.of_expr(Poly.atom(quotient) * divisor), True, own
                return expressed, True, checked_dim(own, expressed)
        if slot is None:
            exact = self.solver.resolve(d.dim, final=True)
            bound = self.site.bound_checks.get((index, path, axis))
            if bound is not None:
                return self._bound_pattern(index, path, axis, bound, exact)
            return exact, False, exact
        rep = self.solver.find(slot.var)
        known = slot.known
        if rep in self.solver.solution:
            return self._solved_pattern(rep, known, (index, path, axis))
        if not isinstance(rep, SiteVar):  # equal to an inference variable (an unannotated parameter's dim)
            same = Dimension.of_expr(Poly.atom(rep))
            return same, True, same
        if slot.broadcast_to is not None:
            target = self._express(self.solver.resolve(slot.broadcast_to.dim))
            if target is None or not self._new_broadcast_fact(index, path, axis, target):
                return known, False, known
            return Broadcast(target), True, known
        bounds = Dimension.interval(*self.solver.bounds(rep))
        if self.occurrences.get(rep, 0) > 1:
            return self._shared_pattern(rep, index, path, axis, known, bounds)
        if not known.refines(bounds):
            return bounds, True, bounds
        return known, False, known

    def _new_broadcast_fact(self, index: int, path: ArgPath, axis: int, target: Dimension) -> bool:
        """Whether a check that the dim is `target` or 1 is still to make (no earlier check of this
        value made it); a check made here is a fact of the value from then on."""
        info = self.site.arg_infos[index]
        fact = ("broadcast", path, axis, target)
        if fact in info.facts:
            return False
        if info.binder is not None and not target.symbols() & set(self.binders.values()):
            self.facts.append((index, info.binder, fact))
        return True

    def _bound_pattern(
        self, index: int, path: ArgPath, axis: int, bound: tuple[Any, ...], exact: Dimension
    ) -> tuple[Any, ...]:
        """A rigid dim checked against bounds (a slice's or window's length): once per value,
        as a fact that an earlier check of bounds at least as tight makes unnecessary."""
        info = self.site.arg_infos[index]
        lo, hi = bound
        for fact in info.facts:
            if (
                fact[:3] == ("bound", path, axis)
                and fact[3] >= lo
                and (hi is None or fact[4] is not None and fact[4] <= hi)
            ):
                return exact, False, exact
        if info.binder is not None:
            self.facts.append((index, info.binder, ("bound", path, axis, lo, hi)))
        return Dimension.interval(lo, hi), True, exact

    def _shared_pattern(
        self, rep: DimVar, index: int, path: ArgPath, axis: int, known: Dimension, bounds: Dimension
    ) -> tuple[Any, ...]:
        """A dim that several argument dims share: the first occurrence binds it (checking its
        bounds where they are narrower than the value's type), each later one must equal it,
        unless its variable is already known equal to an earlier occurrence's (a fact from an
        earlier check: the same equality is never checked twice)."""
        binder = Dimension.of_expr(Poly.atom(self._binder(rep)))
        uses = self.uses.setdefault(rep, [])
        var = self.site.arg_infos[index].binder
        if not uses:
            uses.append((index, path, axis, var))
            narrowed = not known.refines(bounds)
            return binder, narrowed, bounds if narrowed else known
        known_facts = self.site.arg_infos[index].facts

        def known_equal(other: Any, p: ArgPath, a: int) -> bool:
            same_place = other is var and (p, a) == (path, axis)
            return same_place or ("equal", path, axis, id(other), p, a) in known_facts

        if var is not None and any(other is not None and known_equal(other, p, a) for _, p, a, other in uses):
            uses.append((index, path, axis, var))
            return binder, False, known
        first_index, first_path, first_axis, first_var = uses[0]
        if var is not None and first_var is not None:
            self.facts.append((index, var, ("equal", path, axis, id(first_var), first_path, first_axis)))
            self.facts.append((first_index, first_var, ("equal", first_path, first_axis, id(var), path, axis)))
        uses.append((index, path, axis, var))
        return binder, True, bounds

    def _solved_pattern(self, rep: DimVar, known: Dimension, where: tuple[Any, ...]) -> tuple[Any, ...]:
        solution = self.solver.resolve(self.solver.solution[rep])
        hints = {s for s in solution.symbols() if isinstance(s, HintVar)}
        if hints:
            self.solver.widen |= hints
            return known, False, known
        expressed = self._express(solution)
        if expressed is None:
            return known, False, known
        if expressed.is_exact and not expressed.symbols() & set(self.binders.values()):
            return expressed, True, checked_dim(known, expressed)
        self._binds_in(expressed, where)
        return expressed, True, known

    def _binds_in(self, expressed: Dimension, where: tuple[Any, ...]) -> None:
        """An expression of binders (`2 * d`) in a cast binds them where it is the first of their
        occurrences, as a bare one would: a later bare `d` then verifies, and is counted (two
        casts that can each fail counted as one)."""
        mentioned = expressed.symbols()
        if len(mentioned) != 1:
            return  # `n - m` binds neither (the runtime waits for a bare occurrence)
        (sym,) = mentioned
        part = expressed.expr.linear_part(sym)
        if part is None or part[0] <= 0 or not part[1].is_const():
            return  # `d // 2` cannot be solved for d
        for rep, binder in self.binders.items():
            if binder is sym and not self.uses.get(rep):
                self.uses.setdefault(rep, []).append(where + (None,))

    def _express(self, dim: Dimension) -> Optional[Dimension]:
        """A dimension with free site variables replaced by their runtime binders."""
        # in the symbols' order, not the set's (hash) order: the binders made here are numbered
        # as they are made, and a product of them prints in that order (`d * d1 * d2`)
        free = sorted((s for s in dim.symbols() if isinstance(s, SiteVar)), key=lambda s: s.sort_key())
        if not free:
            return dim
        mapping: dict[Symbol, Poly] = {}
        for s in free:
            rep = self.solver.find(s)
            if rep not in self.uses and self.occurrences.get(rep, 0) <= 1:
                return None
            # a variable a later argument binds is named now: the runtime checks the expression
            # once that argument's cast has bound it (match.py: deferred expressions)
            mapping[s] = Poly.atom(self._binder(rep))
        return Dimension.of_expr(dim.expr.substitute(lambda s: mapping.get(s)))

    def _binder(self, rep: DimVar) -> Symbol:
        found = self.binders.get(rep)
        if found is None:
            found = self.binders[rep] = Symbol("d", rep.lo, rep.hi)
        return found


def up_to_last_check(items: list[Any]) -> list[Any]:
    """Edge patterns (item, verifies) from the value's end inwards, without the `?`s past the
    last one that says something (a check, or a binder another argument's cast must equal:
    dropping that one lost the relation between dense's two arguments)."""
    while items and not items[-1][1] and isinstance(items[-1][0], Dimension) and items[-1][0].is_unknown:
        items = items[:-1]
    return items


def checked_dim(own: Dimension, checked: Dimension) -> Dimension:
    """A value's dim once a check showed it equals `checked`: an exact dim stays as it is (a
    rigid `m` checked to be `2 * (m // 2)` is still `m`: the other form is equal but no other
    use would know it), anything less precise becomes what was checked."""
    return own if own.is_exact else checked
