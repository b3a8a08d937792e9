"""What an equation between two dimensions requires of their one symbol.

A model exported with a dynamic `height` may still work only for some heights: a classifier's
flattened features must be 512 (`32 * ((height - 6) // 8) = 512`), a U-Net's skip connection
must match its upsampled path (`2 * (height // 4) = height // 2`). `solve` turns such an
equation over one symbol into the constraint a person would state: `height = 32`,
`38 <= height <= 45`, `height % 4 is 0 or 1` (a multiple of 4, when 0 is the only residue), or,
for equations over several symbols, the equation itself; one that depends on a single sum of
them (a view of a concatenation: `6 * ((s + t) // 2) = 3 * s + 3 * t`) is solved over the sum,
`(s + t) is a multiple of 2`. Equations no value satisfies are
`impossible`.

The symbol is a size (>= 0). Floor division makes the difference of the two sides periodic
(or periodic plus a linear trend) with the period the lcm of the divisors, which is what the
search below relies on; it evaluates at most `SEARCH` values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from gradual.shapes.dimension import Dimension
from gradual.shapes.poly import Extremum, FloorDiv, Poly, Symbol

SEARCH = 4096
MAX_PERIOD = 256


@dataclass(frozen=True)
class Constraint:
    """`kind` is "value" (values = (v,)), "range" ((lo, hi)), "residues" ((modulus, r...)),
    "equation" (no simpler form) or "impossible"."""

    kind: str
    symbol: Optional[Symbol] = None
    values: tuple[int, ...] = ()


def solve(lhs: Dimension, rhs: Dimension) -> Constraint:
    """The constraint `lhs = rhs` places on its symbol (see the module docstring), within the
    symbol's own bounds (`s` in 2..128 cannot be 0)."""
    return _within_bounds(_solve(lhs, rhs))


def _solve(lhs: Dimension, rhs: Dimension) -> Constraint:
    difference = _without_positive_factors(lhs.expr - rhs.expr)
    symbols = difference.symbols()
    if len(symbols) > 1:
        difference = _over_one_sum(difference)
        symbols = difference.symbols()
    if len(symbols) != 1:
        return Constraint("impossible") if not symbols and difference.evaluate({}) != 0 else Constraint("equation")
    (symbol,) = symbols
    period = _period(difference)
    if period is None:
        return Constraint("equation", symbol)

    def f(value: int) -> int:
        return difference.evaluate({symbol: value})

    steps = {f(s + period) - f(s) for s in range(period, 3 * period)}
    if steps == {0}:  # periodic: the residues modulo the period that satisfy it
        residues = tuple(r for r in range(period) if f(period + r) == 0)
        return Constraint("residues", symbol, (period,) + residues) if residues else Constraint("impossible", symbol)
    if len(steps) == 1:  # a linear trend: f(r + j * period) = f(r) + j * step, solved per residue
        (step,) = steps
        zeros = sorted(r + (-f(r) // step) * period for r in range(period) if f(r) % step == 0 and -f(r) // step >= 0)
        return _run(symbol, zeros, proven=True)
    return _run(symbol, [s for s in range(SEARCH) if f(s) == 0], proven=False)


def _without_positive_factors(difference: Poly) -> Poly:
    """The difference with the symbols that divide every term and cannot be 0 divided out: a
    view's `16 * b * (s // 2) = 8 * b * s` with a batch `b` >= 1 constrains `s` alone."""
    for symbol in sorted(difference.symbols(), key=Symbol.sort_key):
        if symbol.lo < 1:
            continue
        quotient = difference.exact_div(Poly.atom(symbol))
        while quotient is not None and quotient.terms:
            difference = quotient
            quotient = difference.exact_div(Poly.atom(symbol))
    return difference


def _over_one_sum(difference: Poly) -> Poly:
    """A difference over several symbols that depends on one sum of them only (a view of a
    concatenation: `6 * ((s27 + s94) // 2) - 3 * s27 - 3 * s94`) written over one symbol that
    stands for that sum, named `(s27 + s94)`, so that it is solved as one; else as it is."""
    quotients = {atom for mono, _ in difference.terms for atom in mono if isinstance(atom, FloorDiv)}
    if any(isinstance(a, Extremum) for mono, _ in difference.terms for a in mono):
        return difference  # an extremum is no function of one sum here
    if any(len(mono) > 1 and any(isinstance(a, FloorDiv) for a in mono) for mono, _ in difference.terms):
        return difference
    plain = Poly({mono: c for mono, c in difference.terms if mono and not isinstance(mono[0], FloorDiv)})
    forms = {q.num - q.num.constant_term() for q in quotients} or {plain}
    if len(forms) != 1:
        return difference
    (form,) = forms
    lead = _unit_symbol(form)
    if lead is None:
        return difference
    scale = plain.linear_part(lead)
    if plain.terms and (scale is None or form * scale[0] != plain):
        return difference
    total = _sum_symbol(form)
    return difference.substitute(lambda s: Poly.atom(total) if s is lead else Poly.const(0))


def _unit_symbol(form: Poly) -> Optional[Symbol]:
    """A symbol of a linear form of positive coefficients that has coefficient 1."""
    if form.degree() != 1 or len(form.terms) < 2 or form.constant_term():
        return None
    if any(c <= 0 or not isinstance(mono[0], Symbol) for mono, c in form.terms):
        return None
    return next((mono[0] for mono, c in form.terms if c == 1 and isinstance(mono[0], Symbol)), None)


@lru_cache(maxsize=256)
def _sum_symbol(form: Poly) -> Symbol:
    """The symbol that stands for a sum of symbols (one per sum, so two constraints over the
    same sum compare equal), bounded as the sum is."""
    lo, hi = form.bounds()
    return Symbol(f"({form})", int(lo), None if hi == math.inf else int(hi))


def _within_bounds(found: Constraint) -> Constraint:
    """A constraint narrowed to its symbol's bounds (impossible when no allowed value is left)."""
    symbol = found.symbol
    if symbol is None or symbol.lo <= 0 and symbol.hi is None:
        return found
    lo, hi = symbol.lo, symbol.hi

    def allowed(value: int) -> bool:
        return lo <= value and (hi is None or value <= hi)

    if found.kind == "value":
        return found if allowed(found.values[0]) else Constraint("impossible", symbol)
    if found.kind == "range":
        low, high = max(found.values[0], lo), found.values[1] if hi is None else min(found.values[1], hi)
        if low > high:
            return Constraint("impossible", symbol)
        return Constraint("value", symbol, (low,)) if low == high else Constraint("range", symbol, (low, high))
    if found.kind == "residues" and hi is not None and hi - lo < found.values[0]:
        modulus, residues = found.values[0], set(found.values[1:])
        if not any(v % modulus in residues for v in range(lo, hi + 1)):
            return Constraint("impossible", symbol)
    return found


def _run(symbol: Symbol, zeros: list[int], proven: bool) -> Constraint:
    """The constraint of a sorted list of solutions (all of them when `proven`)."""
    if not zeros:
        return Constraint("impossible", symbol) if proven else Constraint("equation", symbol)
    if zeros[-1] - zeros[0] != len(zeros) - 1 or not proven and zeros[-1] == SEARCH - 1:
        return Constraint("equation", symbol)
    if len(zeros) == 1:
        return Constraint("value", symbol, (zeros[0],))
    return Constraint("range", symbol, (zeros[0], zeros[-1]))


def vanishes(difference: Poly) -> bool:
    """Whether a difference over one symbol is 0 at every value of it, though its canonical form
    is not 0: Hermite's identity `n // 3 + (n - 1) // 3 + (n - 2) // 3 = n - 2` (torch's
    tensor_split into 3 parts of (n + 2 - i) // 3 adds up to n). Only for linear forms (floor
    divisions of linear numerators), which are a linear trend plus a function of period
    `_period`: zero on two whole periods means zero everywhere."""
    symbols = difference.symbols()
    if len(symbols) != 1 or not _linear(difference):
        return False
    period = _period(difference)
    if period is None:
        return False
    (symbol,) = symbols
    return all(difference.evaluate({symbol: v}) == 0 for v in range(2 * period))


def _linear(p: Poly) -> bool:
    """Every term of degree at most 1, every floor division of a linear numerator."""
    return all(
        len(mono) <= 1 and all(isinstance(a, Symbol) or isinstance(a, FloorDiv) and _linear(a.num) for a in mono)
        for mono, _ in p.terms
    )


def _period(p: Poly) -> Optional[int]:
    """The lcm of the divisors of every floor division in p (1 without any); None past MAX_PERIOD."""
    period = 1
    for mono, _ in p.terms:
        for atom in mono:
            if isinstance(atom, FloorDiv):
                inner = _period(atom.num)
                if inner is None:
                    return None
                period = math.lcm(period, atom.den, inner)
                if period > MAX_PERIOD:
                    return None
    return period
