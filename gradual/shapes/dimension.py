"""One dimension of a shape: static, symbolic, bounded or unknown.

A `Dimension` is an immutable value of one of three kinds:

* static: a known natural number (`3`);
* symbolic: an exact but unknown value given by a polynomial (`n`, `2 * n + 1`);
* interval: any value in an inclusive range (`1..8`, `2..`, `..8`); the full range `0..` is `?`.

The interval semantics follow OpenVINO's `ov::Dimension` exactly (merge is intersection,
`Dimension(-1)` is dynamic, `0 * ?` is `0`, bounds saturate at int64: see `interval.py`).
Symbolic dimensions extend it: a symbol is a value fixed for the whole program but not known
statically, so `n` merges with `?` (giving `n`) and with `1..8` (giving `n`), but not with `3`
or `m`.

A dimension may also carry an OpenVINO symbol as a label (`with_symbol`): a note that its size
equals that of every dimension with an equal symbol. Labels ride along merges and broadcasts
as in OpenVINO (`symbols.py`) and take no part in equality, hashing or printing; a symbolic
dimension `n` is labelled by `n` itself.
"""

from __future__ import annotations

import enum
from typing import Mapping, Sequence, Union, overload

from gradual.shapes import symbols as _symbols
from gradual.shapes.interval import (
    INT64_MAX,
    Interval,
    clip_add,
    clip_minus,
    clip_times,
    saturate_lower,
    saturate_upper,
    upper_bound,
)
from gradual.shapes.poly import INF, Ext, Poly, Symbol, extremum, int_hash, int_text

DimLike = Union["Dimension", int, str, Symbol, Poly, None]


class Grade(enum.Enum):
    """How sure consistency is: proven, decidable only at runtime, or impossible."""

    EQUAL = "equal"  # provably consistent: no check needed
    CHECK = "check"  # possibly consistent: a runtime check decides
    NEVER = "never"  # never consistent: a static error

    def __and__(self, other: "Grade") -> "Grade":
        order = (Grade.EQUAL, Grade.CHECK, Grade.NEVER)
        return max(self, other, key=order.index)


class Dimension:
    """A dimension value; see the module docstring for its three kinds."""

    __slots__ = ("_lo", "_hi", "_expr", "_symbol")
    _lo: int
    _hi: int | None
    _expr: Poly | None
    _symbol: Symbol | None

    def __init__(self, *args: object) -> None:
        self._symbol: Symbol | None = None
        if not args:
            self._set_interval(0, None)
        elif len(args) == 1:
            self._init_one(args[0])
        elif len(args) == 2:
            lo, hi = args
            self._set_interval(_bound_arg(lo, 0), _bound_arg(hi, None))
        else:
            raise TypeError("Dimension() takes a value, or a min and a max")

    def _init_one(self, value: object) -> None:
        if isinstance(value, Dimension):
            self._lo, self._hi, self._expr, self._symbol = value._lo, value._hi, value._expr, value._symbol
        elif isinstance(value, bool) or value is None:
            raise TypeError(f"not a dimension: {value!r}")
        elif isinstance(value, int):
            if value == -1:
                self._set_interval(0, None)
            elif value < 0:
                raise ValueError(f"a dimension cannot be negative: {value}")
            else:
                self._lo = self._hi = value
                self._expr = None
        elif isinstance(value, str):
            parsed = parse_dimension(value)
            self._lo, self._hi, self._expr = parsed._lo, parsed._hi, parsed._expr
        elif isinstance(value, (Symbol, Poly)):
            parsed = Dimension.of_expr(Poly.lift(value))
            self._lo, self._hi, self._expr = parsed._lo, parsed._hi, parsed._expr
        else:
            raise TypeError(f"not a dimension: {value!r}")

    def _set_interval(self, lo: int, hi: int | None) -> None:
        if lo < 0 or (hi is not None and hi < lo):
            raise ValueError(f"empty or negative dimension interval {lo}..{hi}")
        if lo != hi:
            lo, hi = saturate_lower(lo), saturate_upper(hi)
        self._lo, self._hi, self._expr = lo, hi, None

    # constructors -------------------------------------------------------------------------
    @staticmethod
    def dynamic() -> "Dimension":
        """The unknown dimension `?`, any natural number."""
        return _DYNAMIC

    @staticmethod
    def static(value: int) -> "Dimension":
        """A static dimension (shared instance for small values)."""
        if 0 <= value < len(_SMALL):
            return _SMALL[value]
        return Dimension(value)

    @staticmethod
    def interval(lo: int, hi: int | None) -> "Dimension":
        """The interval `lo..hi` (hi None means unbounded); a one-point interval is static.
        Bounds past int64 saturate: an upper bound of `INT64_MAX` or more is no bound."""
        lo = max(lo, 0)
        if hi is not None:
            if hi <= lo:
                if hi == lo:
                    return Dimension.static(lo)
                raise ValueError(f"empty dimension interval {lo}..{hi}")
            if hi >= INT64_MAX:
                hi = None
        if lo == 0 and hi is None:
            return _DYNAMIC
        return _make(min(lo, INT64_MAX), hi, None)

    @staticmethod
    def of_expr(expr: Poly) -> "Dimension":
        """The exact dimension with this value; constant polynomials give static dimensions."""
        if expr.is_const():
            value = expr.const_value()
            if value < 0:
                raise ValueError(f"a dimension cannot be negative: {value}")
            return Dimension.static(value)
        lo, hi = expr.bounds()
        if hi < 0:
            raise ValueError(f"a dimension cannot be negative: {expr} < 0 for every value of its symbols")
        low = saturate_lower(max(0, lo) if lo != -INF else 0)
        return _make(low, None if hi == INF else saturate_upper(max(int(hi), low)), expr)

    @staticmethod
    def symbol(name: str | Symbol) -> "Dimension":
        """A symbolic dimension; a string names a process-wide symbol (see `Symbol.named`)."""
        sym = Symbol.named(name) if isinstance(name, str) else name
        return Dimension.of_expr(Poly.atom(sym))

    # kind -------------------------------------------------------------------------------
    @property
    def is_static(self) -> bool:
        """True for a known number."""
        return self._expr is None and self._lo == self._hi

    @property
    def is_dynamic(self) -> bool:
        """True unless static (symbolic and interval dimensions are dynamic)."""
        return not self.is_static

    @property
    def is_symbolic(self) -> bool:
        """True for an exact but statically unknown value such as `n + 1`."""
        return self._expr is not None

    @property
    def is_exact(self) -> bool:
        """True for static and symbolic dimensions: one value, known or named."""
        return self._expr is not None or self._lo == self._hi

    @property
    def is_interval(self) -> bool:
        """True for a range of possible values, including `?`."""
        return not self.is_exact

    @property
    def is_unknown(self) -> bool:
        """True for `?`: an interval with no bounds."""
        return self._expr is None and self._lo == 0 and self._hi is None

    @property
    def expr(self) -> Poly:
        """The exact value as a polynomial (static dimensions give constants)."""
        if self._expr is not None:
            return self._expr
        if self._lo != self._hi:
            raise ValueError(f"dimension {self} has no exact value")
        return Poly.const(self._lo)

    @property
    def min_length(self) -> int:
        """The smallest possible value."""
        return self._lo

    @property
    def max_length(self) -> int | None:
        """The largest possible value, or None when unbounded."""
        return self._hi

    def get_length(self) -> int:
        """The value of a static dimension (ValueError otherwise), as OpenVINO."""
        if not self.is_static:
            raise ValueError(f"cannot get the length of dynamic dimension {self}")
        return self._lo

    def get_min_length(self) -> int:
        """The lower bound, as OpenVINO's Python API."""
        return self._lo

    def get_max_length(self) -> int:
        """The upper bound, -1 when unbounded, as OpenVINO's Python API."""
        return -1 if self._hi is None else self._hi

    def bounds(self) -> tuple[int, float | int]:
        """(min, max) with max = inf when unbounded."""
        return self._lo, INF if self._hi is None else self._hi

    def contains_value(self, value: int) -> bool:
        """Whether a concrete size lies inside this dimension's bounds."""
        return self._lo <= value and (self._hi is None or value <= self._hi)

    def evaluate(self, env: Mapping[Symbol, int]) -> int:
        """The concrete value of an exact dimension under a symbol assignment."""
        return self.expr.evaluate(env)

    def symbols(self) -> frozenset[Symbol]:
        """The symbols an exact dimension mentions."""
        return self._expr.symbols() if self._expr is not None else frozenset()

    def get_interval(self) -> Interval:
        """The bounds as an OpenVINO `Interval` (no upper bound is `Interval.s_max`)."""
        return Interval(min(self._lo, INT64_MAX), upper_bound(self._hi))

    # OpenVINO symbols (labels) -------------------------------------------------------------
    def get_symbol(self) -> Symbol | None:
        """The symbol labelling this dimension: its label, or the symbol a symbolic dimension
        `n` is; None when there is none."""
        if self._symbol is not None:
            return self._symbol
        return _lone_symbol(self._expr) if self._expr is not None else None

    def has_symbol(self) -> bool:
        """Whether a symbol labels this dimension."""
        return self.get_symbol() is not None

    def with_symbol(self, symbol: Symbol | None) -> "Dimension":
        """The same dimension labelled by `symbol` (None removes the label)."""
        return _make(self._lo, self._hi, self._expr, symbol)

    def set_symbol(self, symbol: Symbol | None) -> None:
        """Not available: dimensions are immutable values (spec §4), so labelling one in place
        would relabel every shape that shares it. Use `d = d.with_symbol(symbol)`."""
        raise TypeError("dimensions are immutable: use `d = d.with_symbol(symbol)` instead of `d.set_symbol(symbol)`")

    # relations (OpenVINO semantics, extended to symbols) ----------------------------------
    def compatible(self, other: DimLike) -> bool:
        """Whether the two can be merged."""
        return _merge_values(self, as_dimension(other)) is not None

    def relaxes(self, other: DimLike) -> bool:
        """Whether every value `other` allows, this allows too."""
        other = as_dimension(other)
        if self.is_exact:
            return other.is_exact and self.expr == other.expr
        return _interval_contains(self.bounds(), other.bounds())

    def refines(self, other: DimLike) -> bool:
        """Whether every value this allows, `other` allows too (dual of relaxes)."""
        return as_dimension(other).relaxes(self)

    def same_scheme(self, other: DimLike) -> bool:
        """Equal, or both non-exact (any two intervals share the dynamic scheme)."""
        other = as_dimension(other)
        return self == other or (self.is_interval and other.is_interval)

    @staticmethod
    def merge(a: DimLike, b: DimLike) -> "Dimension | None":
        """The most permissive dimension refining both, or None when they conflict.

        Labels merge as in OpenVINO: the two symbols are declared equal, and the result keeps
        the left one (the right one if only it is there)."""
        a, b = as_dimension(a), as_dimension(b)
        merged = _merge_values(a, b)
        if merged is None or (a._symbol is None and b._symbol is None):
            return merged  # unlabelled: a symbolic side, if any, is the result and its label
        left, right = a.get_symbol(), b.get_symbol()
        _symbols.set_equal(left, right)
        return _labelled(merged, _symbols.merge_symbols(left, right))

    @staticmethod
    def broadcast_merge(a: DimLike, b: DimLike) -> "Dimension | None":
        """NumPy broadcasting of two dims, or None when they cannot broadcast.

        As OpenVINO's `Dimension::broadcast_merge`: a side that may be 1 (a static 1, or an
        interval containing 1) yields the other side; when both may be 1 the result is their
        hull (`?` with `1..3` is `?`: either side may be the 1; the hull keeps a label only
        where OpenVINO does); otherwise the two merge. An exact symbol is not known to be 1,
        so `n` with `?` is `n` (the `?` must be 1 or `n`), and `n` with `3` conflicts, as in
        `merge`.
        """
        a, b = as_dimension(a), as_dimension(b)
        a_one, b_one = _may_be_one(a), _may_be_one(b)
        if a_one and b_one:
            hull = Dimension.interval(min(a._lo, b._lo), _max_hi(a._hi, b._hi))
            if a._symbol is None and b._symbol is None:
                return hull
            return _labelled(hull, _symbols.merge_symbols(a._symbol, b._symbol, hull.is_static))
        if a_one:
            return b
        if b_one:
            return a
        return Dimension.merge(a, b)

    def __and__(self, other: DimLike) -> "Dimension":
        """Intersection of the bounds (OpenVINO `operator&`, unlabelled); exact dims keep
        their value."""
        merged = _merge_values(self, as_dimension(other))
        if merged is None:
            raise ValueError(f"dimensions {self} and {other} do not intersect")
        return merged if merged._symbol is None else merged.with_symbol(None)

    # arithmetic ---------------------------------------------------------------------------
    def __add__(self, other: DimLike) -> "Dimension":
        """Sum; intervals add bound by bound (`2..3 + 4..5` is `6..8`) and saturate at int64,
        as OpenVINO. Adding 0 keeps the dimension (and its label)."""
        other = as_dimension(other)
        if _is_size(other, 0):
            return self
        if _is_size(self, 0):
            return other
        if self.is_exact and other.is_exact:
            return _tracked(self.expr + other.expr)
        (alo, ahi), (blo, bhi) = self._bounds64(), other._bounds64()
        return Dimension.interval(clip_add(alo, blo), saturate_upper(clip_add(ahi, bhi)))

    __radd__ = __add__

    def __sub__(self, other: DimLike) -> "Dimension":
        """Difference. Intervals clip at 0 as OpenVINO (`2..3 - 5` is `0`); an exact
        difference that is provably negative (`5 - 7`, `0 - n - 1`) raises ValueError
        instead of clipping, so the checker can report it."""
        other = as_dimension(other)
        if _is_size(other, 0):
            return self
        if self.is_exact and other.is_exact:
            diff = self.expr - other.expr
            if diff.is_const() and diff.const_value() < 0:
                raise ValueError(f"dimension {self} - {other} is negative")
            return _tracked(diff)
        (alo, ahi), (blo, bhi) = self._bounds64(), other._bounds64()
        return Dimension.interval(clip_minus(alo, bhi), saturate_upper(clip_minus(ahi, blo)))

    def __rsub__(self, other: DimLike) -> "Dimension":
        return as_dimension(other) - self

    def __mul__(self, other: DimLike) -> "Dimension":
        """Product; `0 * ?` is `0`, intervals multiply bound by bound and saturate at int64,
        as OpenVINO. Multiplying by 1 keeps the dimension (and its label)."""
        other = as_dimension(other)
        if _is_size(other, 1):
            return self
        if _is_size(self, 1):
            return other
        if _is_size(self, 0) or _is_size(other, 0):
            return Dimension.static(0)
        if self.is_exact and other.is_exact:
            a, b = self.expr, other.expr
            return _tracked(a * b) if a.product_within_limits(b) else _DYNAMIC
        (alo, ahi), (blo, bhi) = self._bounds64(), other._bounds64()
        return Dimension.interval(clip_times(alo, blo), saturate_upper(clip_times(ahi, bhi)))

    __rmul__ = __mul__

    def _bounds64(self) -> tuple[int, int]:
        """(min, max) in OpenVINO's convention: no upper bound is `INT64_MAX`."""
        return self._lo, upper_bound(self._hi)

    def __floordiv__(self, other: DimLike) -> "Dimension":
        """Python floor division (`5..9 // 2` is `2..4`; OpenVINO's `/` differs: it rounds
        the lower bound up, for exact division). Exact dims stay exact (`n // 2`)."""
        other = as_dimension(other)
        if other.is_static:
            den = other._lo
            if den == 0:
                raise ZeroDivisionError("dimension divided by 0")
            if self.is_exact:
                return _tracked(self.expr.floordiv(den))
            return Dimension.interval(self._lo // den, None if self._hi is None else self._hi // den)
        if self.is_exact and other.is_exact:
            quotient = self.expr.exact_div(other.expr)
            if quotient is None:
                quotient = _cancel_monomial(self.expr, other.expr)
            if quotient is not None and quotient.bounds()[1] >= 0:  # `(0 - n) // n`: a size only at n = 0
                return _tracked(quotient)
        lo = 0 if other._hi is None else self._lo // max(other._hi, 1)
        hi = None if self._hi is None else self._hi // max(other._lo, 1)
        return Dimension.interval(lo, hi)

    def __mod__(self, other: DimLike) -> "Dimension":
        """Python's remainder (`0..d - 1`). By a static size an exact dim stays exact (`n % 4`,
        written `n - 4 * (n // 4)`); a remainder that is provably the dim itself (`2..3 % 4`)
        is it; otherwise it is the interval of what it may be."""
        other = as_dimension(other)
        if other.is_static:
            den = other._lo
            if den == 0:
                raise ZeroDivisionError("dimension modulo 0")
            if self.is_exact:
                return _tracked(self.expr.mod(den))
            if self._hi is not None and self._hi < den:
                return self
            return Dimension.interval(0, den - 1 if self._hi is None else min(den - 1, self._hi))
        if self.is_exact and other.is_exact and self.expr.exact_div(other.expr) is not None:
            return Dimension.static(0)
        hi = other._hi if other._hi is None else max(other._hi - 1, 0)
        return Dimension.interval(0, _min_hi(hi, self._hi))

    def ceildiv(self, other: DimLike) -> "Dimension":
        """The quotient rounded up (`-(-self // other)`, torch's `CeilDiv`). By a static size
        an exact dim stays exact (`(n + 3) // 4` for `ceildiv(n, 4)`); a quotient that divides
        exactly is exact; otherwise the interval of what it may be."""
        other = as_dimension(other)
        if other.is_static:
            den = other._lo
            if den == 0:
                raise ZeroDivisionError("dimension divided by 0")
            if self.is_exact:
                return _tracked(self.expr.ceildiv(den))
            return Dimension.interval(-(-self._lo // den), None if self._hi is None else -(-self._hi // den))
        if self.is_exact and other.is_exact:
            quotient = self.expr.exact_div(other.expr)
            if quotient is not None and quotient.bounds()[1] >= 0:
                return _tracked(quotient)
        lo = (1 if self._lo > 0 else 0) if other._hi is None else -(-self._lo // max(other._hi, 1))
        hi = None if self._hi is None else -(-self._hi // max(other._lo, 1))
        return Dimension.interval(lo, hi)

    @staticmethod
    def maximum(a: DimLike, b: DimLike) -> "Dimension":
        """`max(a, b)`: exact when both are (`max(n, m)`, or the larger where bounds decide
        it: `max(n + 1, 1)` is `n + 1`), else the interval of what it may be."""
        return _extremum("max", as_dimension(a), as_dimension(b))

    @staticmethod
    def minimum(a: DimLike, b: DimLike) -> "Dimension":
        """`min(a, b)`, as `maximum`."""
        return _extremum("min", as_dimension(a), as_dimension(b))

    def __truediv__(self, other: DimLike) -> "Dimension":
        """Exact division by a static divisor, as OpenVINO's `operator/`: the quotients of
        the sizes the divisor divides (`5..9 / 2` is `3..4`, `n * 4 / 2` is `n * 2`). Where
        no size is divisible OpenVINO gives an empty dimension; there is none here, so that
        raises ValueError (`23 / 3`)."""
        other = as_dimension(other)
        if not other.is_static or other._lo == 0:
            raise ValueError(f"a dimension can only be divided by a positive static size, not {other}")
        den = other._lo
        if den == 1:
            return self
        exact = self.exact_div(other)
        if exact is not None:
            return exact
        lo, hi = -(-self._lo // den), None if self._hi is None else self._hi // den
        if self.is_static or (hi is not None and hi < lo):
            raise ValueError(f"no size of {self} is divisible by {den}")
        return Dimension.interval(lo, hi)

    def exact_div(self, other: DimLike) -> "Dimension | None":
        """`self / other` when it is provably exact (divisible), else None."""
        other = as_dimension(other)
        if not (self.is_exact and other.is_exact):
            return None
        if other.is_static:
            den = other._lo
            if den == 0:
                return None
            if self.is_static:
                return Dimension.static(self._lo // den) if self._lo % den == 0 else None
        quotient = self.expr.exact_div(other.expr)
        return None if quotient is None else Dimension.of_expr(quotient)

    # identity and printing ----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        """Value equality (labels take no part); an int compares with a static dimension,
        and -1 with `?` as in OpenVINO."""
        if isinstance(other, int) and not isinstance(other, bool):
            if other == -1:
                return self._expr is None and self._lo == 0 and self._hi is None
            return self._expr is None and self._lo == self._hi == other
        if not isinstance(other, Dimension):
            return NotImplemented
        return self._lo == other._lo and self._hi == other._hi and self._expr == other._expr

    def __hash__(self) -> int:
        """An int's hash for a static dim (it equals that int), except past 2^61: Python hashes
        ints modulo 2^61 - 1, so the dims of a tensor doubled again and again (`3 * 2^i`) fell
        into 61 buckets of every dict keyed by type (quadratic; no array has such a dim, so no
        dict mixes them with ints)."""
        if self._expr is None and self._lo == self._hi:
            return int_hash(self._lo)
        if self._expr is None and self._lo == 0 and self._hi is None:
            return hash(-1)
        return hash((self._lo, self._hi, self._expr))

    def __int__(self) -> int:
        return self.get_length()

    def __index__(self) -> int:
        return self.get_length()

    def __len__(self) -> int:
        """The size of a static dimension, as OpenVINO's `len(dim)` (ValueError otherwise)."""
        return self.get_length()

    def __bool__(self) -> bool:
        """Always true: a dimension is a value, not a container (even `Dimension(0)`)."""
        return True

    def __str__(self) -> str:
        """The dimension as gradual's type syntax writes it: `3`, `?`, `0..8`, `2..`, `n + 1`."""
        if self._expr is not None:
            return str(self._expr)
        if self._lo == self._hi:
            return int_text(self._lo)
        if self._hi is None:
            return "?" if self._lo == 0 else f"{int_text(self._lo)}.."
        return f"{int_text(self._lo)}..{int_text(self._hi)}"

    def to_string(self) -> str:
        """The dimension as OpenVINO prints it: like `str`, but `..8` for `0..8`."""
        if self._expr is None and self._lo == 0 and self._hi is not None and self._hi != 0:
            return f"..{int_text(self._hi)}"
        return str(self)

    def __repr__(self) -> str:
        return f"<Dimension: {self.to_string()}>"


def _extremum(kind: str, a: Dimension, b: Dimension) -> Dimension:
    """`max` or `min` of two dimensions (see `Dimension.maximum`): a side that the bounds
    show is the answer is taken as it is (its label too)."""
    if a.is_exact and b.is_exact:
        lo, hi = (a.expr - b.expr).bounds()
    else:
        lo = a._lo - (INF if b._hi is None else b._hi)
        hi = (INF if a._hi is None else a._hi) - b._lo
    if lo >= 0:
        return a if kind == "max" else b
    if hi <= 0:
        return b if kind == "max" else a
    if a.is_exact and b.is_exact:
        return _tracked(extremum(kind, (a.expr, b.expr)))
    if kind == "max":
        return Dimension.interval(max(a._lo, b._lo), _max_hi(a._hi, b._hi))
    return Dimension.interval(min(a._lo, b._lo), _min_hi(a._hi, b._hi))


def extremum_of(kind: str, values: Sequence[DimLike]) -> "int | Dimension":
    """`max` or `min` (`kind`) of sizes a shape rule computed: ints (at runtime) as Python's,
    Dimensions (in the checker) as `Dimension.maximum`/`minimum`."""
    ints = [v for v in values if isinstance(v, int)]
    if len(ints) == len(values):
        return max(ints) if kind == "max" else min(ints)
    result = as_dimension(values[0])
    for value in values[1:]:
        result = _extremum(kind, result, as_dimension(value))
    return result


def _cancel_monomial(num: Poly, den: Poly) -> "Poly | None":
    """`num // (k * m)` as `(num / m) // k` where the monomial m divides every term of num
    (`(b * d) // (2 * b)` is `d // 2`, what a reshape's -1 beside a copied `b` is); None
    where it does not."""
    if len(den.terms) != 1:
        return None
    mono, coeff = den.terms[0]
    if not mono or coeff <= 0:
        return None
    rest = num.exact_div(Poly({mono: 1}))
    return None if rest is None else rest.floordiv(coeff)


def _tracked(expr: Poly) -> Dimension:
    """The exact result of dimension arithmetic, or `?` when its polynomial is past the
    bounds of poly.py (MAX_DEGREE, MAX_SIZE, MAX_BITS): a dim nobody could read, which would
    make every later operation on it cost as much as it is large. `?` stays sound: whatever
    relied on the value is checked at runtime instead."""
    return Dimension.of_expr(expr) if expr.within_limits() else _DYNAMIC


@overload
def _bound_arg(value: object, default: int) -> int: ...
@overload
def _bound_arg(value: object, default: None) -> int | None: ...
def _bound_arg(value: object, default: int | None) -> int | None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"an interval bound must be an int, not {value!r}")
    if value == -1:
        return default
    if value < 0:
        raise ValueError(f"an interval bound cannot be negative: {value}")
    return value


def _make(lo: int, hi: int | None, expr: Poly | None, symbol: Symbol | None = None) -> Dimension:
    """A dimension from its fields, unchecked."""
    dim = object.__new__(Dimension)
    dim._lo, dim._hi, dim._expr, dim._symbol = lo, hi, expr, symbol
    return dim


def _is_size(d: Dimension, size: int) -> bool:
    """Whether `d` is the static size `size` (the fast `d == size`)."""
    return d._lo == size and d._hi == size and d._expr is None


def _merge_values(a: Dimension, b: Dimension) -> Dimension | None:
    """The merge of two values (see `Dimension.merge`), labels aside."""
    if a.is_exact and b.is_exact:
        return a if a.expr == b.expr else None
    if a.is_exact or b.is_exact:
        exact, other = (a, b) if a.is_exact else (b, a)
        return exact if _intervals_overlap(exact.bounds(), other.bounds()) else None
    lo = max(a._lo, b._lo)
    hi = _min_hi(a._hi, b._hi)
    if hi is not None and hi < lo:
        return None
    return Dimension.interval(lo, hi)


def _labelled(dim: Dimension, symbol: Symbol | None) -> Dimension:
    """`dim` labelled by `symbol`, reusing `dim` when it already is."""
    return dim if dim.get_symbol() is symbol else dim.with_symbol(symbol)


def _may_be_one(d: Dimension) -> bool:
    """A static 1, or an interval containing 1 (an exact symbol is not known to be 1)."""
    return d._expr is None and d._lo <= 1 and (d._hi is None or d._hi >= 1)


def _lone_symbol(expr: Poly) -> Symbol | None:
    """The symbol `expr` is, if it is just one symbol."""
    if len(expr.terms) != 1:
        return None
    mono, coeff = expr.terms[0]
    if coeff == 1 and len(mono) == 1 and isinstance(mono[0], Symbol):
        return mono[0]
    return None


def _min_hi(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def _max_hi(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else max(a, b)


def _intervals_overlap(a: tuple[Ext, Ext], b: tuple[Ext, Ext]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _interval_contains(outer: tuple[Ext, Ext], inner: tuple[Ext, Ext]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


_DYNAMIC = _make(0, None, None)
_SMALL = [_make(v, v, None) for v in range(1025)]


def as_dimension(value: "DimLike | tuple[int, int] | list[int]") -> Dimension:
    """Coerce ints, strings, symbols, None (`?`) and `(min, max)` pairs (as OpenVINO's
    Python API reads them; -1 for no bound) to a Dimension."""
    if isinstance(value, Dimension):
        return value
    if value is None:
        return _DYNAMIC
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(_SMALL):
        return _SMALL[value]
    if isinstance(value, (tuple, list)):
        return _interval_pair(value)
    return Dimension(value)


def _interval_pair(pair: "tuple[int, int] | list[int]") -> Dimension:
    if len(pair) != 2:
        raise TypeError(f"an interval dimension is a pair (min, max), but {len(pair)} elements were given")
    if not all(isinstance(b, int) and not isinstance(b, bool) for b in pair):
        raise TypeError(f"the bounds of an interval dimension are ints, not {pair!r}")
    return Dimension(*pair)


def parse_dimension(text: str) -> Dimension:
    """Parse `3`, `-1`, `?`, `1..8`, `2..`, `..8` or a symbol name."""
    text = text.strip()
    if text in ("?", "-1"):
        return _DYNAMIC
    if ".." in text:
        lo_text, hi_text = text.split("..", 1)
        lo = int(lo_text) if lo_text.strip() else 0
        hi = int(hi_text) if hi_text.strip() else None
        if lo < 0 or (hi is not None and hi < lo):
            raise ValueError(f"bad dimension interval {text!r}")
        return Dimension.interval(lo, hi)
    if text.lstrip("-").isdigit():
        return Dimension(int(text))
    if text.isidentifier():
        return Dimension.symbol(text)
    raise ValueError(f"cannot read {text!r} as a dimension")


def consistency(actual: Dimension, expected: Dimension) -> Grade:
    """Grade a value with dimension `actual` flowing into a position that requires `expected`.

    EQUAL when every value `actual` allows is one `expected` allows; CHECK when some are;
    NEVER when none are. Exact dimensions are rigid: two different expressions never match,
    because the program must be right for every value of its symbols.
    """
    if actual is expected:
        return Grade.EQUAL
    if actual.is_exact and expected.is_exact:
        return Grade.EQUAL if actual.expr == expected.expr else Grade.NEVER
    if not _intervals_overlap(actual.bounds(), expected.bounds()):
        return Grade.NEVER
    if expected.is_interval and _interval_contains(expected.bounds(), actual.bounds()):
        return Grade.EQUAL
    return Grade.CHECK


def join(a: Dimension, b: Dimension) -> Dimension:
    """The join of two dimensions (spec §3.4): equal dims stay, two static dims give their
    interval hull (`3` and `5` give `3..5`), anything else gives `?`. Never fails."""
    if a == b:
        return a
    if a.is_static and b.is_static:
        return Dimension.interval(min(a._lo, b._lo), max(a._lo, b._lo))
    return _DYNAMIC
