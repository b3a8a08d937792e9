"""Requirements a rule places on its operands: bounds on dims (checked, assumed or learned by the
caller's definition), ranks, and dtypes that must agree.
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.checker import messages
from gradual.checker.site.constraints import Constraints
from gradual.checker.site.values import DimLike, SDim, SDType, raw_dtype, sdim, sdtype
from gradual.ops.context import TensorArg
from gradual.shapes import Dimension, Grade, Poly, Symbol
from gradual.shapes.poly import INF
from gradual.shapes.reasoning import follows_from_facts, signed_bounds
from gradual.types import (
    DYN_DTYPE,
    DimVar,
    DTypeVar,
    TensorType,
)


class Requirements(Constraints):
    """Bounds, ranks and dtype agreement at a call site (see the module docstring)."""

    def within(self, d: Any, lo: int, hi: Optional[int]) -> None:
        """d must lie in lo..hi. An operator's rule checks that itself when it runs; a
        definition's or a closure's interval parameter (`Tensor[(1..4,)]`) met by a rigid
        symbol of the caller is checked at the call, as a `?` there is (the callee's entry
        check stopped such a run where no check site of the caller stated it)."""
        self._within(sdim(d), lo, hi, assumed=self.callee.kind != "op")

    def assume_within(self, d: Any, lo: int, hi: Optional[int], needed: bool = True) -> None:
        self._within(sdim(d), lo, hi, assumed=True, needed=needed)

    def _within(self, d: SDim, lo: int, hi: Optional[int], assumed: bool, needed: bool = True) -> None:
        var = self.solver.free_var(d.dim)
        if var is not None:
            if self.solver.narrow(var, lo, hi) is Grade.NEVER:
                self._error(messages.bound_violation(self, d, lo, hi, self._shown(d)))
            return
        dim = self.solver.resolve(d.dim)
        dlo, dhi = signed_bounds(dim)
        if dhi < lo or hi is not None and dlo > hi:
            self._error(messages.bound_violation(self, d, lo, hi, self._shown(d)))
        elif dim.is_symbolic and (dlo < lo or hi is not None and dhi > hi):
            if needed:
                self._learn(dim, lo, hi)
            if assumed:
                self._check_bound(d, lo, hi)

    def assured(self, d: DimLike, lo: int, hi: Optional[int], symbol: str) -> SDim:
        """A callee's result dim whose symbol its body checks to lie in lo..hi before it
        returns: `?` or an interval comes back narrowed (the argument itself is not: the
        callee's check runs), a dim provably outside is an error (the call always fails), and
        a rigid symbol of the caller is a bound the caller learns in turn."""
        d = sdim(d)
        dim = self.solver.resolve(d.dim)
        dlo, dhi = signed_bounds(dim)
        if dlo >= lo and (hi is None or dhi <= hi):
            return d
        if dhi < lo or hi is not None and dlo > hi:
            self._error(messages.requirement_violation(self, d, symbol, lo, hi, self._shown(d)))
            return d
        if dim.is_symbolic and self.solver.free_var(dim) is None:
            self._learn(dim, lo, hi)
            return d
        # finite where used: dlo > lo here, and an infinite dhi is `hi`
        top = hi if dhi == INF else (int(dhi) if hi is None else min(hi, int(dhi)))
        return SDim(Dimension.interval(lo if dlo <= lo else int(dlo), top))

    def _learn(self, dim: Dimension, lo: int, hi: Optional[int]) -> None:
        """A bound on a rigid symbol, which this call stops at runtime where it does not hold:
        of the symbol itself, or of `k * s + c` (k > 0; `q + 1 >= 3` is `q >= 2`)."""
        symbols = dim.expr.symbols()
        if len(symbols) != 1:
            return
        (sym,) = symbols
        part = dim.expr.linear_part(sym)
        if isinstance(sym, DimVar) or part is None or part[0] <= 0 or not part[1].is_const():
            return
        k, c = part[0], part[1].const_value()
        low, high = -((c - lo) // k), None if hi is None else (hi - c) // k
        if low > sym.lo or high is not None:
            self.learned.append((sym, low, high))

    def _check_bound(self, d: SDim, lo: int, hi: Optional[int]) -> None:
        """A rigid dim that is not provably inside lo..hi: checked at runtime where it came from
        (`strided_slice(x, begin=[1], end=[5])` on (b, s) needs s >= 5). Without an origin the
        runtime's shape rule, evaluated before the kernel, is what stops a bad size."""
        origin = d.origin
        if origin is None or origin.axis is None:
            return
        key = (origin.arg, origin.path, origin.axis)
        old_lo, old_hi = self.bound_checks.get(key, (0, None))
        new_hi = hi if old_hi is None else (old_hi if hi is None else min(old_hi, hi))
        self.bound_checks[key] = (max(old_lo, lo), new_hi)

    def at_least(self, d: Any, lo: int) -> Optional[bool]:
        """True if d >= lo for sure, False if d < lo for sure, None if it depends."""
        if isinstance(d, int):
            return d >= lo
        dim = self.solver.resolve(sdim(d).dim)
        dlo, dhi = signed_bounds(dim)
        if dlo >= lo:
            return True
        if dhi < lo:
            return False
        return True if dim.is_symbolic and follows_from_facts(dim.expr - lo) else None

    def require_rank(self, arg: TensorArg, rank: int) -> None:
        if arg.dims is not None:
            if len(arg.dims) != rank:
                self.fail("rank", arg=arg, expected=rank, actual=len(arg.dims))
            return
        opened = self.opened.get((arg.index, arg.path))
        info = self.arg_infos[arg.index]
        if opened is not None and opened.typevar is not None:
            made = [v for v in (self.new_def_var(opened.typevar, i) for i in range(rank)) if v is not None]
            dtype = raw_dtype(arg.dtype)
            if len(made) == rank:
                dims = tuple(Dimension.of_expr(Poly.atom(v)) for v in made)
            else:
                dims = (Dimension.dynamic(),) * rank
            self.solver.bind_type(opened.typevar, TensorType(dims, dtype))
            self._sync_typevar_views(opened.typevar)
            return
        else:
            self.rank_checks[(arg.index, arg.path)] = rank
            arg.dims = [self._open_dim(Dimension.dynamic(), arg.index, arg.path, i, info) for i in range(rank)]
        arg.rank = rank

    def require_rank_at_least(self, arg: TensorArg, rank: int) -> None:
        self.require_possible_rank(arg, rank)
        if arg.dims is not None or rank <= 0:
            super().require_rank_at_least(arg, rank)
            return
        key = (arg.index, arg.path)
        known = self.known_runs.get(key)
        if known is not None and known[1] + known[2] >= rank:  # its type has that many dims around its run
            return
        if self.rank_min_checks.get(key, 0) < rank:
            self.rank_min_checks[key] = rank

    def same_dtype(self, a: Any, b: Any) -> SDType:
        da, db = raw_dtype(a), raw_dtype(b)
        grade, result = self.solver.unify_dtype(da, db)
        if grade is Grade.NEVER:
            self._error(messages.dtype_mismatch(self, sdtype(a), sdtype(b), da, db))
            return SDType(DYN_DTYPE)
        origin = a.origin if isinstance(a, SDType) and a.origin is not None else getattr(b, "origin", None)
        return SDType(result, origin)

    def bound(self, dims: dict[Any, Any], seqs: dict[Any, Any], dtypes: dict[Any, Any]) -> None:
        if self.callee.kind != "flow":
            self.bindings = (dims, seqs, dtypes)
        else:
            self.flow_dims = dims

    def bound_dim(self, sym: Symbol) -> Optional[Dimension]:
        """What a flow bound one of its new symbols to (None: nothing, or not one dim)."""
        d = self.flow_dims.get(sym)
        return None if d is None or isinstance(d, (list, tuple)) else self._final_dim(sdim(d))

    def unchecked_dtype_agreement(self) -> Optional[tuple[DTypeVar, tuple[int, ...]]]:
        """(dtype, 1-based argument positions) of a `?` dtype that this call made equal to the
        dtype of another argument where no cast can state it: the other one is a `?` too, or
        a dtype variable the caller does not declare (its own inferred one, a closed
        closure's), so the pattern writes `?` (`_tensor_pattern`). None when there is none."""
        seen: dict[DTypeVar, set[tuple[int, Any]]] = {}
        for (index, path), opened in self.opened.items():
            view = opened.view
            if isinstance(view, TensorArg) and view.dtype is not None:
                dt = self.solver.resolve_dtype(raw_dtype(view.dtype))
                if isinstance(dt, DTypeVar) and dt.meta:
                    seen.setdefault(dt, set()).add((index, path))
        unknown = {self.solver.resolve_dtype(var) for var in self.dtype_slots.values()}
        for dt, where in seen.items():
            if dt in unknown and len(where) > 1:
                return dt, tuple(sorted({i + 1 for i, _ in where}))
        return None
