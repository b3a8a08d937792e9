"""Reasoning about dimension expressions over natural numbers: what follows from declared facts,
whether an expression is nondecreasing or a multiple of a size, the least point where it holds.
"""

from __future__ import annotations

from typing import Optional

from gradual.shapes import Dimension, Poly
from gradual.shapes.poly import Ext, Extremum, FloorDiv, Symbol


def follows_from_facts(expr: Poly) -> bool:
    """Whether `expr >= 0` follows from one fact a frontend declared about its symbols
    (`Symbol.facts`, torch's inequality guards): expr minus the fact is >= 0 by the symbols'
    bounds (`s3 - s12` from the guard `s12 <= s3`; `s53 - s88 - (s53 - s88) // 2` from `s88 +
    (s53 - s88) // 2 <= s53`)."""
    seen: set[int] = set()
    for sym in expr.symbols():
        for fact in sym.facts:
            if id(fact) in seen:
                continue
            seen.add(id(fact))
            if (expr - fact).bounds()[0] >= 0:
                return True
    return False


def signed_bounds(dim: Dimension) -> tuple[Ext, Ext]:
    """The values a dimension's expression may take. A symbolic one is not clamped at 0 as
    the Dimension's own bounds are: `0 - n`, an element of a shape value, may be negative, and
    as a dim it holds only where it is not (so it is not the static 0)."""
    return dim.expr.bounds() if dim.is_symbolic else dim.bounds()


def nondecreasing(expr: Poly) -> bool:
    """Whether a polynomial over natural numbers never decreases as its symbols grow: every
    term has a positive coefficient, and every quotient a nondecreasing numerator."""
    for mono, c in expr.terms:
        if mono and c < 0:
            return False
        if any(isinstance(a, FloorDiv) and not nondecreasing(a.num) for a in mono):
            return False
        if any(isinstance(a, Extremum) and not all(nondecreasing(arg) for arg in a.args) for a in mono):
            return False
    return True


def linear_in(expr: Poly, whole: Poly) -> Optional[tuple[int, int]]:
    """(k, c) with `expr == k * whole + c` for a positive integer k, or None."""
    mono, coefficient = next((m, c) for m, c in whole.terms if m)
    mine = next((c for m, c in expr.terms if m == mono), 0)
    if mine <= 0 or mine % coefficient or mine // coefficient <= 0:
        return None
    k = mine // coefficient
    rest = expr - whole * k
    return (k, rest.const_value()) if rest.is_const() else None


def at_least_a_size(expr: Poly, whole: Poly) -> bool:
    """Whether `expr` is `k * whole + c` with `k > 0` and `c >= 0`: >= 0 where `whole` is a size."""
    scaled = linear_in(expr, whole)
    return scaled is not None and scaled[1] >= 0


def least_natural_point(expr: Poly, sym: Symbol) -> Optional[int]:
    """The least value of `sym` (within its bounds) where a nondecreasing `expr` is >= 0."""
    lo, limit = sym.lo, 2**62 if sym.hi is None else sym.hi

    def at(value: int) -> int:
        return expr.evaluate({sym: value})

    if at(lo) >= 0:
        return lo
    step = 1
    while at(lo + step) < 0:
        step *= 2
        if lo + step > limit:
            return None
    low, high = lo + step // 2, lo + step  # at(low) < 0 <= at(high)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if at(mid) < 0 else (low, mid)
    return high


def divisibility(checked: Dimension, own: Dimension) -> Optional[int]:
    """c where a check that a dim `own` is `c * (own // c)` only asks that c divides it: written
    so in a cast, that form is a rigid expression the checker cannot equate with `own` (the
    elaborated program was rejected); `c * d`, d bound by the cast, says the same and checks alike."""
    if not own.is_exact or not checked.is_exact or len(checked.expr.terms) != 1:
        return None
    mono, coeff = checked.expr.terms[0]
    if len(mono) != 1 or coeff < 2:
        return None
    (atom,) = mono
    if isinstance(atom, FloorDiv) and atom.den == coeff and atom.num == own.expr:
        return coeff
    return None
