"""Intervals of sizes with int64 saturation, as OpenVINO's `ov::Interval`.

Every runtime stores a dimension in an int64, so a bound past `INT64_MAX` means nothing: it
saturates. `INT64_MAX` itself is OpenVINO's `Interval::s_max`, "no upper bound". The `clip_*`
functions compute one bound of a sum, difference or product with that saturation (they take
natural numbers of any size, read a bound of `INT64_MAX` or more as "none", and return a value
in `0..INT64_MAX`, which is sound for a lower bound as well as an upper one); `Dimension` uses
them for its interval arithmetic and `Interval` for its own. Nothing here knows about symbols.
"""

from __future__ import annotations

INT64_MAX = 2**63 - 1


def clip(value: int) -> int:
    """`value` moved into `0..INT64_MAX`."""
    return max(0, min(INT64_MAX, value))


def clip_add(a: int, b: int) -> int:
    """One bound of a sum: `INT64_MAX` (no bound) absorbs, past int64 saturates."""
    if a >= INT64_MAX or b >= INT64_MAX:
        return INT64_MAX
    total = a + b
    return total if total < INT64_MAX else INT64_MAX


def clip_minus(a: int, b: int) -> int:
    """One bound of a difference: clipped at 0 below, `INT64_MAX` (no bound) stays."""
    if b >= INT64_MAX:
        return 0
    if a >= INT64_MAX:
        return INT64_MAX
    return a - b if a > b else 0


def clip_times(a: int, b: int) -> int:
    """One bound of a product: `0` absorbs first (`0 * ?` is `0`), then `INT64_MAX`."""
    if a == 0 or b == 0:
        return 0
    if a >= INT64_MAX or b >= INT64_MAX:
        return INT64_MAX
    product = a * b
    return product if product < INT64_MAX else INT64_MAX


def upper_bound(hi: int | None) -> int:
    """An upper bound in OpenVINO's convention: None (no bound) is `INT64_MAX`."""
    return INT64_MAX if hi is None else hi


def saturate_upper(hi: int | None) -> int | None:
    """An upper bound in gradual's convention: `INT64_MAX` or more is None (no bound)."""
    return None if hi is None or hi >= INT64_MAX else hi


def saturate_lower(lo: int | float) -> int:
    """A lower bound past int64 saturates at `INT64_MAX` (still a sound lower bound); a float
    lower bound is only ever +infinity (a polynomial's, see `Poly.bounds`)."""
    return INT64_MAX if lo >= INT64_MAX else int(lo)


class Interval:
    """An immutable interval of sizes `min..max` with OpenVINO's `ov::Interval` semantics.

    `Interval()` is `0..s_max` (any size), `Interval(v)` the one size `v`, `Interval(lo, hi)`
    the range; bounds are clipped into `0..s_max`, and `hi < lo` gives the empty interval (all
    empty intervals are equal and stay empty under arithmetic). `s_max` means "no upper bound".
    """

    __slots__ = ("_min", "_max")
    s_max = INT64_MAX

    def __init__(self, *bounds: int) -> None:
        if not bounds:
            lo, hi = 0, INT64_MAX
        elif len(bounds) == 1:
            lo = hi = clip(_int_bound(bounds[0]))
        elif len(bounds) == 2:
            lo, hi = (_int_bound(b) for b in bounds)
        else:
            raise TypeError("Interval() takes a value, or a min and a max")
        if hi < lo:
            lo = hi = INT64_MAX
        self._min, self._max = clip(lo), clip(hi)

    def get_min_val(self) -> int:
        """The lower bound."""
        return self._min

    def get_max_val(self) -> int:
        """The upper bound (`s_max` when there is none)."""
        return self._max

    def has_upper_bound(self) -> bool:
        """Whether the upper bound is finite."""
        return self._max != INT64_MAX

    def empty(self) -> bool:
        """Whether no size lies in the interval."""
        return self._min == INT64_MAX

    def size(self) -> int:
        """How many sizes it holds (`s_max` when unbounded, 0 when empty)."""
        if self._max == INT64_MAX:
            return 0 if self._min == INT64_MAX else INT64_MAX
        return self._max - self._min + 1

    def contains(self, other: "int | Interval") -> bool:
        """Whether a size (or every size of an interval) lies in this interval."""
        if isinstance(other, Interval):
            return self.contains(other._min) and self.contains(other._max)
        return self._min <= other <= self._max

    def __add__(self, other: "Interval") -> "Interval":
        if self.empty() or other.empty():
            return _EMPTY
        return Interval(clip_add(self._min, other._min), clip_add(self._max, other._max))

    def __sub__(self, other: "Interval") -> "Interval":
        if self.empty() or other.empty():
            return _EMPTY
        return Interval(clip_minus(self._min, other._max), clip_minus(self._max, other._min))

    def __mul__(self, other: "Interval") -> "Interval":
        if self.empty() or other.empty():
            return _EMPTY
        return Interval(clip_times(self._min, other._min), clip_times(self._max, other._max))

    def __and__(self, other: "Interval") -> "Interval":
        return Interval(max(self._min, other._min), min(self._max, other._max))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Interval):
            return NotImplemented
        return self._min == other._min and self._max == other._max

    def __hash__(self) -> int:
        return hash((self._min, self._max))

    def __repr__(self) -> str:
        hi = "..." if self._max == INT64_MAX else str(self._max)
        return f"Interval({self._min}, {hi})"


def _int_bound(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"an interval bound must be an int, not {value!r}")
    return value


_EMPTY = Interval(INT64_MAX)
