"""Polynomials with integer coefficients over symbolic atoms.

This is the exact part of the dimension algebra: `n + n` and `2 * n` are the same polynomial,
`(h - 1) // 2 + 1` is kept as a floor-division atom in canonical form. Atoms are `Symbol`s
(unknown naturals, distinguished by identity), `FloorDiv`s (a polynomial divided by a
positive constant, rounded down) and `Extremum`s (`max(a, b)`, `min(a, b)` of polynomials).
A remainder `a % d` and a ceiling division by a constant are written with floor divisions
(`a - d * (a // d)`, `(a + d - 1) // d`), so each has one form among the others. Nothing here
knows about the language.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Callable, Iterable, Mapping, Union

from gradual.infra.numbers import int_text as int_text  # re-exported: the shapes print with it

INF = math.inf

#: An extended integer: an int, or +/- infinity as a float.
Ext = Union[int, float]

#: An atom's or polynomial's place in canonical order: nested tuples of names, numbers and keys.
SortKey = tuple[object, ...]

#: How large a polynomial arithmetic may build (`Dimension` arithmetic turns anything larger
#: into `?`; see docs/design.md): the degree of a monomial (a floor division counts as one
#: factor), the atoms written in all (counting inside floor divisions), and the bits of a
#: coefficient. Without a bound, squaring a shape value ten times writes a polynomial of
#: degree 1024, and each operation costs as much as the polynomial is large.
MAX_DEGREE = 16
MAX_SIZE = 256
MAX_BITS = 4096


class Symbol:
    """A named unknown natural number, with optional bounds.

    Two symbols are the same only if they are the same object: `n` in one function and `n`
    in another are different symbols that print alike. `Symbol.named` interns by name, for
    library users who build dimensions by hand; `Symbol()` makes an anonymous one (OpenVINO's
    `ov.Symbol()`). Equalities declared between symbols OpenVINO-style (`symbols.set_equal`)
    live in `_parent` and never change what a polynomial is.

    A `claimed` symbol is a size someone said is free (an exporter's dynamic dim) without
    promising that every value works: where a program constrains it, the checker reports the
    constraint and checks it at runtime instead of rejecting the program (spec §6).
    """

    __slots__ = ("name", "uid", "lo", "hi", "_poly", "_parent", "claimed", "facts")
    _uids = itertools.count(1)
    _by_name: dict[str, "Symbol"] = {}

    def __init__(self, name: str | None = None, lo: int = 0, hi: int | None = None) -> None:
        self.uid = next(Symbol._uids)
        self.name = f"s{self.uid}" if name is None else name
        self.lo = lo
        self.hi = hi
        self._poly: "Poly | None" = None
        self._parent: "Symbol | None" = None
        self.claimed = False
        #: polynomials over this symbol (and others) that a frontend says are >= 0 (torch's
        #: guard `s12 <= s3` is `s3 - s12`): the checker may rely on them, a run checks them
        #: when their symbols are bound (see docs/design.md)
        self.facts: tuple["Poly", ...] = ()

    @classmethod
    def named(cls, name: str) -> "Symbol":
        """The process-wide symbol with this name (created on first use)."""
        found = cls._by_name.get(name)
        if found is None:
            found = cls._by_name[name] = Symbol(name)
        return found

    def sort_key(self) -> SortKey:
        """Order used for canonical forms: by name, then by creation."""
        return (0, self.name, self.uid)

    def bounds(self) -> tuple[Ext, Ext]:
        """The interval of values this symbol may take."""
        return (self.lo, INF if self.hi is None else self.hi)

    def __repr__(self) -> str:
        return self.name


#: Python hashes an int modulo 2^61 - 1, so 2^i and 2^(i + 61) hash alike: the dims of a tensor
#: doubled again and again (`2^i * n`) fell into 61 buckets of every dict keyed by type, and a
#: chain of n doublings took quadratic time (until MAX_BITS). A polynomial with a coefficient
#: that large mixes the coefficients' lengths into its hash, and so does a quotient's divisor.
HASH_PERIOD = 2**61 - 1


def int_hash(value: int) -> int:
    """An int's hash, with its length mixed in past HASH_PERIOD (where hashes repeat)."""
    return hash(value) if -HASH_PERIOD < value < HASH_PERIOD else hash((value.bit_length(), value))


class FloorDiv:
    """`num // den` for a non-constant polynomial `num` and a constant `den >= 2`."""

    __slots__ = ("num", "den", "_hash", "_poly")

    def __init__(self, num: "Poly", den: int) -> None:
        self.num = num
        self.den = den
        self._hash = hash(("//", num, int_hash(den)))
        self._poly: "Poly | None" = None

    def sort_key(self) -> SortKey:
        """Order used for canonical forms: after all symbols, then by structure (two
        quotients that print alike but divide different symbols still order the same way)."""
        return (1, self.num.sort_key(), self.den)

    def bounds(self) -> tuple[Ext, Ext]:
        """The interval of values this quotient may take."""
        lo, hi = self.num.bounds()
        return (_ext_floordiv(lo, self.den), _ext_floordiv(hi, self.den))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FloorDiv) and self.den == other.den and self.num == other.num

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        inner = str(self.num)
        if len(self.num.terms) > 1 or (self.num.terms and self.num.terms[0][1] < 0):
            inner = f"({inner})"
        return f"{inner} // {int_text(self.den)}"


class Extremum:
    """`max(a, b, ...)` or `min(...)` of two or more polynomials (`kind` is "max" or "min").

    Made only by `extremum`, which keeps one form: nested ones of the same kind are flattened,
    equal arguments merged, an argument that another exceeds by a constant dropped
    (`max(n + 2, n)` is `n + 2`), and the arguments sorted. Only facts that hold for every
    integer value of the symbols are used, so the form agrees with evaluation everywhere;
    facts that hold for sizes only (`max(n, 0)` is `n` for n >= 0) are the Dimension's."""

    __slots__ = ("kind", "args", "_hash", "_poly")

    def __init__(self, kind: str, args: tuple["Poly", ...]) -> None:
        self.kind = kind
        self.args = args
        self._hash = hash((kind, args))
        self._poly: "Poly | None" = None

    def sort_key(self) -> SortKey:
        """Order used for canonical forms: after symbols and quotients, by kind then structure."""
        return (2, self.kind, tuple(a.sort_key() for a in self.args))

    def bounds(self) -> tuple[Ext, Ext]:
        """The interval of values this extremum may take."""
        pick = max if self.kind == "max" else min
        found = [a.bounds() for a in self.args]
        return pick(lo for lo, _ in found), pick(hi for _, hi in found)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Extremum) and self.kind == other.kind and self.args == other.args

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        """As the language writes it, two arguments a call: `max(max(k, m), n)`."""
        text = str(self.args[0])
        for arg in self.args[1:]:
            text = f"{self.kind}({text}, {arg})"
        return text


def extremum(kind: str, args: Iterable["Poly | int"]) -> "Poly":
    """`max(args)` or `min(args)` (`kind`) in canonical form (see `Extremum`)."""
    if kind not in ("max", "min"):
        raise ValueError(f"an extremum is max or min, not {kind!r}")
    given = _dominant(kind, [Poly.lift(a) for a in args])  # `max(m + 2, m)`: before m is flattened
    flat: list[Poly] = []
    for arg in given:
        inner = _lone_atom(arg)
        if isinstance(inner, Extremum) and inner.kind == kind:
            flat.extend(inner.args)
        else:
            flat.append(arg)
    if not flat:
        raise ValueError(f"{kind} of no values")
    kept = _dominant(kind, flat)
    if len(kept) == 1:
        return kept[0]
    kept.sort(key=lambda a: (a.is_const(), a.sort_key()))  # constants last: `max(n, 1)`
    return Poly.atom(Extremum(kind, tuple(kept)))


def _dominant(kind: str, args: list[Poly]) -> list[Poly]:
    """`args` without those another exceeds (for max; is below, for min) by a constant, and
    without repetitions."""
    kept: list[Poly] = []
    for arg in args:
        for i, other in enumerate(kept):
            difference = arg - other
            if difference.is_const():
                if (difference.const_value() > 0) == (kind == "max") and difference.const_value() != 0:
                    kept[i] = arg
                break
        else:
            kept.append(arg)
    return kept


def _lone_atom(poly: "Poly") -> "Atom | None":
    """The atom `poly` is, when it is one atom with coefficient 1."""
    if len(poly.terms) == 1:
        mono, c = poly.terms[0]
        if c == 1 and len(mono) == 1:
            return mono[0]
    return None


Atom = Union[Symbol, FloorDiv, Extremum]
Monomial = tuple[Atom, ...]  # a sorted tuple of atoms; repetition means a power; () is the constant


@lru_cache(maxsize=1 << 16)
def _mono_key(mono: Monomial) -> SortKey:
    return (-len(mono), tuple(a.sort_key() for a in mono))


@lru_cache(maxsize=1 << 16)
def _sorted_mono(mono: Monomial) -> Monomial:
    """The monomial with its atoms in canonical order."""
    if len(mono) < 2:
        return tuple(mono)
    return tuple(sorted(mono, key=lambda a: a.sort_key()))


def _term_key(term: tuple[Monomial, int]) -> SortKey:
    return _mono_key(term[0])


_CONSTS: dict[int, "Poly"] = {}


class Poly:
    """An immutable polynomial: a mapping from monomials to non-zero integer coefficients.

    The representation is canonical: monomials are sorted tuples of atoms, terms are sorted
    (higher degree first, then by atom), zero coefficients are dropped. So two polynomials
    are equal exactly when they are the same polynomial (`n + n == 2 * n`).
    """

    __slots__ = ("terms", "_hash", "_symbols", "_size")

    def __init__(self, terms: Mapping[Monomial, int] | None = None) -> None:
        if not terms:
            items: list[tuple[Monomial, int]] = []
        elif len(terms) == 1:
            ((mono, c),) = terms.items()
            items = [(_sorted_mono(mono), c)] if c else []
        else:
            acc: dict[Monomial, int] = {}
            for mono, c in terms.items():
                key = _sorted_mono(mono)
                acc[key] = acc.get(key, 0) + c
            items = [(m, c) for m, c in acc.items() if c != 0]
            items.sort(key=_term_key)
        self.terms: tuple[tuple[Monomial, int], ...] = tuple(items)
        self._hash = hash(self.terms)
        for _, c in items:
            if not -HASH_PERIOD < c < HASH_PERIOD:  # see HASH_PERIOD
                self._hash = hash((self.terms, tuple([c.bit_length() for _, c in items])))
                break
        self._symbols: "frozenset[Symbol] | None" = None
        self._size: "int | None" = None

    def sort_key(self) -> SortKey:
        """A structural key, used to order floor-division atoms canonically."""
        return tuple((tuple(a.sort_key() for a in mono), c) for mono, c in self.terms)

    # construction -------------------------------------------------------------------------
    @staticmethod
    def const(value: int) -> "Poly":
        """The constant polynomial `value` (shared for small values)."""
        if -64 <= value < 1024:
            found = _CONSTS.get(value)
            if found is None:
                found = _CONSTS[value] = Poly({(): value})
            return found
        return Poly({(): value})

    @staticmethod
    def atom(atom: Atom) -> "Poly":
        """The polynomial made of one atom (made once per atom)."""
        found = atom._poly
        if found is None:
            found = atom._poly = Poly({(atom,): 1})
        return found

    @staticmethod
    def lift(value: "Poly | int | Symbol") -> "Poly":
        """Turn an int or a symbol into a polynomial; polynomials pass through."""
        if isinstance(value, Poly):
            return value
        if isinstance(value, int):
            return Poly.const(value)
        return Poly.atom(value)

    # inspection ---------------------------------------------------------------------------
    def is_const(self) -> bool:
        """True when the polynomial has no atoms."""
        return not self.terms or (len(self.terms) == 1 and self.terms[0][0] == ())

    def const_value(self) -> int:
        """The value of a constant polynomial."""
        if not self.terms:
            return 0
        assert self.is_const(), "const_value of a non-constant polynomial"
        return self.terms[0][1]

    def constant_term(self) -> int:
        """The coefficient of the empty monomial."""
        for mono, coeff in self.terms:
            if mono == ():
                return coeff
        return 0

    def atoms(self) -> set[Atom]:
        """The atoms that occur at top level."""
        return {a for mono, _ in self.terms for a in mono}

    def symbols(self) -> "frozenset[Symbol]":
        """Every symbol that occurs, including inside floor divisions (computed once)."""
        if self._symbols is None:
            found: set[Symbol] = set()
            for atom in self.atoms():
                if isinstance(atom, Symbol):
                    found.add(atom)
                elif isinstance(atom, FloorDiv):
                    found |= atom.num.symbols()
                else:
                    for arg in atom.args:
                        found |= arg.symbols()
            self._symbols = frozenset(found)
        return self._symbols

    def degree(self) -> int:
        """The largest number of factors in one monomial (terms are sorted by degree)."""
        return len(self.terms[0][0]) if self.terms else 0

    def size(self) -> int:
        """Atoms written in all, counting those inside floor divisions and extrema (computed once)."""
        if self._size is None:
            self._size = sum(1 + sum(_atom_size(a) for a in mono) for mono, _ in self.terms)
        return self._size

    def coefficient_bits(self) -> int:
        """The bits of the largest coefficient."""
        return max((abs(c).bit_length() for _, c in self.terms), default=0)

    def within_limits(self) -> bool:
        """Whether the polynomial is small enough to be tracked (MAX_DEGREE, MAX_SIZE, MAX_BITS)."""
        return self.degree() <= MAX_DEGREE and self.size() <= MAX_SIZE and self.coefficient_bits() <= MAX_BITS

    def product_within_limits(self, other: "Poly") -> bool:
        """Whether `self * other` may be small enough to track: a bound computed before
        multiplying (generous by 4x: like terms may cancel), so a product of two large
        polynomials is never built only to be thrown away."""
        return (
            self.degree() + other.degree() <= MAX_DEGREE
            and len(self.terms) * other.size() + len(other.terms) * self.size() <= 4 * MAX_SIZE
            and self.coefficient_bits() + other.coefficient_bits() <= MAX_BITS + 1
        )

    def linear_part(self, sym: Symbol) -> tuple[int, "Poly"] | None:
        """Write self as `c * sym + rest` with `sym` absent from rest; None if not linear in sym."""
        coeff = 0
        rest: dict[Monomial, int] = {}
        for mono, c in self.terms:
            if mono == (sym,):
                coeff = c
            elif any(_mentions(a, sym) for a in mono):
                return None
            else:
                rest[mono] = c
        if coeff == 0:
            return None
        return coeff, Poly(rest)

    # arithmetic ---------------------------------------------------------------------------
    def __add__(self, other: "Poly | int") -> "Poly":
        other = Poly.lift(other)
        acc = dict(self.terms)
        for mono, c in other.terms:
            acc[mono] = acc.get(mono, 0) + c
        return Poly(acc)

    __radd__ = __add__

    def __neg__(self) -> "Poly":
        return Poly({m: -c for m, c in self.terms})

    def __sub__(self, other: "Poly | int") -> "Poly":
        return self + (-Poly.lift(other))

    def __rsub__(self, other: "Poly | int") -> "Poly":
        return Poly.lift(other) - self

    def __mul__(self, other: "Poly | int") -> "Poly":
        other = Poly.lift(other)
        acc: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                mono = _sorted_mono(m1 + m2)
                acc[mono] = acc.get(mono, 0) + c1 * c2
        return Poly(acc)

    __rmul__ = __mul__

    def floordiv(self, den: int) -> "Poly":
        """`self // den` for a positive constant, in canonical form.

        The quotient of every coefficient is taken out; what stays under the `//` has
        coefficients in `[0, den)` and a constant in `(-den, 0]`, so `(h + 1) // 2` is
        `(h - 1) // 2 + 1` (and prints so). A common factor of the remainder and `den` is
        cancelled (`(2 * h) // 4` is `h // 2`) and nested quotients are flattened
        (`h // 2 // 2` is `h // 4`), so equal quotients have one form.
        """
        if den <= 0:
            raise ZeroDivisionError("floor division of a dimension by a non-positive constant")
        if den == 1:
            return self
        quotient: dict[Monomial, int] = {}
        remainder: dict[Monomial, int] = {}
        for mono, c in self.terms:
            q, r = divmod(c, den)
            if mono == () and r > 0:
                # keep the constant remainder in (-den, 0]: `(h - 1) // 2 + 1` stays as written
                q, r = q + 1, r - den
            quotient[mono] = q
            remainder[mono] = r
        return Poly(quotient) + _floor_of_remainder(Poly(remainder), den)

    def mod(self, den: int) -> "Poly":
        """`self % den` (Python's: in `0..den - 1`) for a positive constant, written
        `self - den * (self // den)` (printed `self % den`)."""
        return self - self.floordiv(den) * den

    def ceildiv(self, den: int) -> "Poly":
        """`-(-self // den)`, the quotient rounded up, for a positive constant: `(self + den - 1) // den`."""
        if den <= 0:
            raise ZeroDivisionError("ceiling division of a dimension by a non-positive constant")
        return (self + (den - 1)).floordiv(den)

    def exact_div(self, divisor: "Poly") -> "Poly | None":
        """The polynomial q with q * divisor == self, when a simple one exists; else None."""
        if divisor == self and self.terms:
            return Poly.const(1)
        if len(divisor.terms) > 1:
            return self._divided_by_sum(divisor)
        if len(divisor.terms) != 1:
            return None
        dmono, dcoeff = divisor.terms[0]
        result: dict[Monomial, int] = {}
        for mono, c in self.terms:
            rest = _remove_factors(mono, dmono)
            if rest is None or c % dcoeff:
                return None
            result[rest] = c // dcoeff
        return Poly(result)

    def _divided_by_sum(self, divisor: "Poly") -> "Poly | None":
        """Division by a polynomial of several terms, when exact: `8 * b * p + 8 * b * t` by
        `4 * p + 4 * t` is `2 * b` (a reshape of a KV cache's `(b, 2, p + t, 4)` to
        `[-1, p + t, 4]`). The terms' order is graded lexicographic, a monomial order, so each
        step cancels the remainder's leading term with a multiple of the divisor's; one divisor
        divides exactly when the remainder reaches 0 (a coefficient that does not divide, or a
        leading monomial the divisor's does not divide, is no polynomial quotient)."""
        lead_mono, lead_coeff = divisor.terms[0]
        quotient: dict[Monomial, int] = {}
        remainder = self
        for _ in range(4 * len(self.terms) + 8):
            if not remainder.terms:
                return Poly(quotient)
            mono, c = remainder.terms[0]
            rest = _remove_factors(mono, lead_mono)
            if rest is None or c % lead_coeff:
                return None
            step = Poly({rest: c // lead_coeff})
            quotient[rest] = quotient.get(rest, 0) + c // lead_coeff
            remainder = remainder - step * divisor
        return None

    # evaluation ---------------------------------------------------------------------------
    def substitute(self, mapping: Callable[[Symbol], "Poly | None"]) -> "Poly":
        """Replace symbols by polynomials; `mapping` returns None (or the symbol itself) to
        keep a symbol. Returns self when nothing changes."""
        replacements: dict[Atom, Poly | None] = {}
        for mono, _ in self.terms:
            for atom in mono:
                if atom not in replacements:
                    replaced = _substitute_atom(atom, mapping)
                    if replaced is not None and replaced == Poly.atom(atom):
                        replaced = None
                    replacements[atom] = replaced
        if all(r is None for r in replacements.values()):
            return self
        acc: dict[Monomial, int] = {}
        for mono, c in self.terms:
            kept = [a for a in mono if replacements[a] is None]
            term = Poly({tuple(kept): c})
            for atom in mono:
                replacement = replacements[atom]
                if replacement is not None:
                    term = term * replacement
            for m, k in term.terms:
                acc[m] = acc.get(m, 0) + k
        return Poly(acc)

    def evaluate(self, env: Mapping[Symbol, int]) -> int:
        """The integer value under an assignment of every symbol (KeyError if one is missing)."""
        total = 0
        for mono, c in self.terms:
            value = c
            for atom in mono:
                value *= _eval_atom(atom, env)
            total += value
        return total

    def bounds(self, splits: int = 2) -> tuple[Ext, Ext]:
        """Interval evaluation using each atom's bounds (values may be negative). A remainder
        `k * (a - d * (a // d))` among the terms (how `a % d` is written, as exporters pad to a
        multiple: `(4 - t % 4) % 4`) lies in 0..k * (d - 1), whatever a's bounds: up to
        `splits` such quotients are split off, one inside the other (each split rebuilds the
        polynomial, so splitting every one of many terms would be quadratic in its size)."""
        if len(self.terms) == 1:
            mono, c = self.terms[0]
            if mono == ():
                return c, c
            if c == 1 and len(mono) == 1:
                return mono[0].bounds()
        lo, hi = self._interval()
        split = self._without_quotient() if splits > 0 else None
        if split is not None:
            # self = (scaled + c * (d - 1 - r)) / d for some remainder r in 0..d-1
            scaled, den, slack = split
            slo, shi = scaled.bounds(splits - 1)
            if slo != -INF:
                lo = max(lo, -((-slo) // den))
            if shi != INF:
                hi = min(hi, (shi + slack) // den)
        return lo, hi

    def _interval(self) -> tuple[Ext, Ext]:
        """Interval evaluation term by term."""
        lo: Ext = 0
        hi: Ext = 0
        for mono, c in self.terms:
            mlo: Ext = 1
            mhi: Ext = 1
            for atom in mono:
                alo, ahi = atom.bounds()
                mlo, mhi = _ext_mul_interval(mlo, mhi, alo, ahi)
            tlo, thi = (_ext_mul(c, mlo), _ext_mul(c, mhi)) if c > 0 else (_ext_mul(c, mhi), _ext_mul(c, mlo))
            lo, hi = _ext_add(lo, tlo), _ext_add(hi, thi)
        return lo, hi

    def _without_quotient(self) -> "tuple[Poly, int, int] | None":
        """For the first term `c * (a // d)` with c < 0 (how `a % d` and `a - a // d` are
        written, as exporters pad to a multiple: `(4 - t % 4) % 4`): (P, d, -c * (d - 1)) with
        `d * self = P + (-c) * r` for `r = a - d * (a // d)` in 0..d - 1, P free of `a // d`;
        None without such a term. P's quotients are the others or nested in `a // d`, so the
        recursion of `bounds` ends."""
        for mono, c in self.terms:
            if len(mono) != 1 or not isinstance(mono[0], FloorDiv) or c >= 0:
                continue
            q = mono[0]
            rest = self - Poly.atom(q) * c
            return rest * q.den + q.num * c, q.den, -c * (q.den - 1)
        return None

    # identity -----------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, int):
            return self.is_const() and self.const_value() == other
        return isinstance(other, Poly) and self._hash == other._hash and self.terms == other.terms

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return format_poly(self)

    def __repr__(self) -> str:
        return f"Poly({self})"


def _mentions(atom: Atom, sym: Symbol) -> bool:
    if isinstance(atom, Symbol):
        return atom is sym
    if isinstance(atom, FloorDiv):
        return sym in atom.num.symbols()
    return any(sym in arg.symbols() for arg in atom.args)


def _atom_size(atom: Atom) -> int:
    """How many atoms an atom writes, itself included."""
    if isinstance(atom, Symbol):
        return 1
    if isinstance(atom, FloorDiv):
        return 1 + atom.num.size()
    return 1 + sum(arg.size() for arg in atom.args)


def _remove_factors(mono: Monomial, factors: Monomial) -> Monomial | None:
    rest = list(mono)
    for f in factors:
        if f not in rest:
            return None
        rest.remove(f)
    return tuple(rest)


def _floor_of_remainder(rem: Poly, den: int) -> Poly:
    """`rem // den` for a remainder in the form `floordiv` leaves (see there)."""
    if rem.is_const():
        return Poly.const(rem.const_value() // den)
    const = rem.constant_term()
    common = math.gcd(den, *(c for mono, c in rem.terms if mono != ()))
    if common > 1:
        # floor((g*a + c) / (g*d)) == floor((a + floor(c/g)) / d) for integer a
        reduced = Poly({m: c // common for m, c in rem.terms if m != ()}) + const // common
        return reduced.floordiv(den // common)
    nested = _lone_quotient(rem)
    if nested is not None:
        # floor((floor(q/a) + r) / d) == floor((q + a*r) / (a*d)) for integer r
        rest = rem - Poly.atom(nested)
        return (nested.num + rest * nested.den).floordiv(nested.den * den)
    return Poly.atom(FloorDiv(rem, den))


def _lone_quotient(poly: Poly) -> "FloorDiv | None":
    """A floor-division atom that occurs in `poly` as a term of its own with coefficient 1."""
    for mono, c in poly.terms:
        if c == 1 and len(mono) == 1 and isinstance(mono[0], FloorDiv):
            return mono[0]
    return None


def _substitute_atom(atom: Atom, mapping: Callable[[Symbol], Poly | None]) -> Poly | None:
    if isinstance(atom, Symbol):
        return mapping(atom)
    if isinstance(atom, Extremum):
        args = [arg.substitute(mapping) for arg in atom.args]
        if all(new is old for new, old in zip(args, atom.args)):
            return None
        return extremum(atom.kind, args)
    num = atom.num.substitute(mapping)
    if num is atom.num:
        return None
    return num.floordiv(atom.den)


def _eval_atom(atom: Atom, env: Mapping[Symbol, int]) -> int:
    if isinstance(atom, Symbol):
        return env[atom]
    if isinstance(atom, FloorDiv):
        return atom.num.evaluate(env) // atom.den
    values = [arg.evaluate(env) for arg in atom.args]
    return max(values) if atom.kind == "max" else min(values)


# extended-integer helpers (interval arithmetic with infinities) ---------------------------
def _ext_mul(a: Ext, b: Ext) -> Ext:
    if a == 0 or b == 0:
        return 0
    if a.__class__ is float or b.__class__ is float:  # an infinity: never an int times a float,
        return INF if (a > 0) == (b > 0) else -INF  # which overflows past 2**1024 (a coefficient may be)
    return a * b


def _ext_add(a: Ext, b: Ext) -> Ext:
    if a.__class__ is float or b.__class__ is float:  # as in `_ext_mul`: an int past 2**1024 plus inf overflows
        return a if a.__class__ is float else b  # (lower bounds add up -inf, upper ones inf: never both)
    return a + b


def _ext_mul_interval(alo: Ext, ahi: Ext, blo: Ext, bhi: Ext) -> tuple[Ext, Ext]:
    products = [_ext_mul(alo, blo), _ext_mul(alo, bhi), _ext_mul(ahi, blo), _ext_mul(ahi, bhi)]
    return min(products), max(products)


def _ext_floordiv(a: Ext, den: int) -> Ext:
    if a in (INF, -INF):
        return a
    return int(a) // den


def _format_mono(mono: Monomial, coeff: int) -> str:
    """`mono` times the positive `coeff`; a quotient that is one of several factors gets
    parentheses (`3 * (h // 2)`, not `3 * h // 2`, which reads `(3 * h) // 2`)."""
    if coeff == 1 and len(mono) == 1:
        return repr(mono[0])
    parts = [] if coeff == 1 else [int_text(coeff)]
    for atom in mono:
        text = repr(atom)
        parts.append(f"({text})" if isinstance(atom, FloorDiv) else text)
    return " * ".join(parts)


def format_poly(poly: Poly) -> str:
    """Print as in the source language: `2 * n + 1`, `n * m - 3`, `(h - 1) // 2 + 1`,
    `n % 4`, `max(n, m)`.

    The output is valid dimension syntax, which has no unary minus: a polynomial whose
    leading term is negative starts with its first positive term (`3 - n`), or with `0`
    when it has none (`0 - n`). A remainder written as `a - d * (a // d)` prints `a % d`.
    """
    rest, remainders = _remainders(poly)
    parts = [(c > 0, int_text(abs(c)) if mono == () else _format_mono(mono, abs(c))) for mono, c in rest.terms]
    parts += [(True, text) for text in remainders]
    if not parts:
        return "0"
    if not parts[0][0]:
        first_positive = next((i for i, (positive, _) in enumerate(parts) if positive), None)
        if first_positive is None:
            parts.insert(0, (True, "0"))
        else:
            parts.insert(0, parts.pop(first_positive))
    out: list[str] = [parts[0][1]]
    for positive, body in parts[1:]:
        out.append(f" {'+' if positive else '-'} {body}")
    return "".join(out)


def _remainders(poly: Poly) -> tuple[Poly, list[str]]:
    """`poly` as `rest + k1 * (a1 % d1) + ...`: (rest, the remainders' texts), each remainder
    taken out where it makes the text shorter (`n - 4 * (n // 4)` is `n % 4`)."""
    texts: list[str] = []
    for _ in range(len(poly.terms)):
        found = None
        for mono, c in poly.terms:
            if len(mono) != 1 or not isinstance(mono[0], FloorDiv) or c >= 0 or c % mono[0].den:
                continue
            q = mono[0]
            k = -c // q.den
            rest = poly - q.num * k + Poly.atom(q) * (k * q.den)
            if rest.size() + q.num.size() < poly.size():
                found = (rest, q, k)
                break
        if found is None:
            break
        poly, q, k = found
        num = str(q.num)
        if len(q.num.terms) > 1 or q.num.terms and (q.num.terms[0][1] != 1 or not q.num.terms[0][0]):
            num = f"({num})"
        text = f"{num} % {int_text(q.den)}"
        texts.append(text if k == 1 else f"{int_text(k)} * ({text})")
    return poly, texts


def sum_polys(polys: Iterable[Poly]) -> Poly:
    """The sum of several polynomials."""
    acc = Poly()
    for p in polys:
        acc = acc + p
    return acc
