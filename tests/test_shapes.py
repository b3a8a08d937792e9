"""The shape algebra by example: OpenVINO's Dimension/PartialShape API (spec §4) and the
symbolic extension (canonical polynomials, consistency grades, joins).

Interval expectations follow OpenVINO's sources (src/core/src/interval.cpp, dimension.cpp,
partial_shape.cpp): `+`/`-`/`*` work bound by bound and clip at 0, `0 * ?` is `0`, merge is
intersection, broadcast_merge lets a side that may be 1 yield the other.
"""

from __future__ import annotations

import copy
import math

import pytest

from gradual import Dimension, Interval, PartialShape, Shape, ShapeError, Symbol
from gradual.shapes import Grade, Poly, consistency, join, symbols
from gradual.shapes.poly import FloorDiv, int_text

D = Dimension
Q = Dimension.dynamic()


def iv(lo: int, hi: int | None) -> Dimension:
    """An interval dimension (hi None: unbounded)."""
    return Dimension(lo, -1 if hi is None else hi)


def sym(name: str) -> Dimension:
    """A fresh symbolic dimension (not the interned one, so tests do not share symbols)."""
    return Dimension.of_expr(Poly.atom(Symbol(name)))


def shape(*dims) -> PartialShape:
    return PartialShape(list(dims))


# Dimension: construction and kinds -----------------------------------------------------------
def test_static_dimension() -> None:
    d = D(3)
    assert d.is_static and not d.is_dynamic
    assert d.get_length() == 3 and int(d) == 3
    assert d.get_min_length() == 3 and d.get_max_length() == 3
    assert str(d) == "3" and d == 3 and d == D(3)


def test_minus_one_is_dynamic() -> None:
    assert D(-1) == Q == D()
    assert D(-1).is_dynamic and not D(-1).is_static
    assert D(-1).get_min_length() == 0 and D(-1).get_max_length() == -1
    assert str(D(-1)) == "?"
    assert Q == -1 and D(-1) == -1 and D(1, 5) != -1 and D(3) != -1
    assert {Q: "unknown"}[-1] == "unknown", "equal values hash alike"
    assert PartialShape([1, -1]) == [1, -1]


def test_interval_dimension() -> None:
    d = D(1, 8)
    assert d.is_dynamic and d.is_interval and not d.is_exact
    assert (d.get_min_length(), d.get_max_length()) == (1, 8)
    assert str(d) == "1..8"
    assert str(D(2, -1)) == "2.." and D(2, -1).get_max_length() == -1
    assert str(D(0, 8)) == "0..8"
    assert D(-1, 8) == D(0, 8)
    assert D(4, 4) == D(4) and D(4, 4).is_static


def test_bad_dimensions_are_rejected() -> None:
    with pytest.raises(ValueError):
        D(-2)
    with pytest.raises(ValueError):
        D(5, 2)
    with pytest.raises(TypeError):
        D(True)
    with pytest.raises(TypeError):
        D(1, 2, 3)
    with pytest.raises(ValueError):
        D.interval(5, 3)


def test_get_length_of_dynamic_raises() -> None:
    with pytest.raises(ValueError):
        D(1, 8).get_length()
    with pytest.raises(ValueError):
        len(D(1, 8))
    assert len(D(7)) == 7 and bool(D(0)) and bool(Q)


INT64_MAX = 2**63 - 1


def test_interval_bounds_saturate_at_int64() -> None:
    assert D(2, INT64_MAX) == iv(2, None) and D(0, INT64_MAX) == Q and D(2, 10**30) == iv(2, None)
    assert D.interval(10**30, None).get_min_length() == INT64_MAX
    assert D(2, INT64_MAX - 1) * 2 == iv(4, None), "it was 4..18446744073709551612"
    assert D(2, INT64_MAX // 2) * 2 == iv(4, INT64_MAX - 1)
    assert D(5, INT64_MAX - 3) + D(1, 10) == iv(6, None)
    assert D(10**30) == 10**30 and D(10**30).is_static, "static sizes stay exact"
    assert D(10**30) + iv(0, 3) == iv(INT64_MAX, None) and D(10**30) - Q == Q
    assert iv(0, 3) * D(10**30) == Q
    assert PartialShape([1, Q]).get_max_shape() == (1, INT64_MAX)


def test_symbolic_bounds_saturate() -> None:
    n = D.of_expr(Poly.atom(Symbol("n", 2, 2**62)))
    big = n * n
    assert big.is_symbolic and big.get_min_length() == 4 and big.get_max_length() == -1


def test_exact_division() -> None:
    assert D(12) / 4 == 3 and D(5, 9) / 2 == iv(3, 4) and iv(2, None) / 2 == iv(1, None)
    n = sym("n")
    assert (n * 4) / 2 == n * 2 and n / 2 == Q and Q / 3 == Q and n / 1 is n
    for bad in ((D(23), 3), (D(5, 5), 2), (D(7, 7), 4), (iv(5, 5), 0)):
        with pytest.raises(ValueError):
            bad[0] / bad[1]


def test_interval_class() -> None:
    assert Interval().size() == INT64_MAX and Interval(2).size() == 1 and Interval(1, 5).size() == 5
    assert Interval(3, 2).empty() and Interval(3, 2).size() == 0 and Interval(3, 2) == Interval(9, 0)
    assert Interval(7, 10) - Interval(1, 5) == Interval(2, 9)
    assert Interval(0, INT64_MAX - 10) * Interval(0, INT64_MAX) == Interval()
    assert (
        not Interval().has_upper_bound()
        and repr(Interval(2)) == "Interval(2, 2)"
        and repr(Interval()) == "Interval(0, ...)"
    )
    assert D(2, 5).get_interval() == Interval(2, 5) and Q.get_interval() == Interval()
    with pytest.raises(TypeError):
        Interval(1, 2, 3)


# Dimension: OpenVINO symbols -------------------------------------------------------------------
def test_labels_ride_along_and_take_no_part_in_equality() -> None:
    a = Symbol()
    d = D(2, 4).with_symbol(a)
    assert d.get_symbol() is a and d.has_symbol() and d == D(2, 4) and hash(d) == hash(D(2, 4))
    assert str(d) == "2..4" and not D(2, 4).has_symbol() and D(2, 4).get_symbol() is None
    assert d.with_symbol(None).get_symbol() is None
    assert Q.with_symbol(a) is not Q and not Q.has_symbol(), "the shared `?` is never labelled"
    assert (d + 0).get_symbol() is a and (d * 1).get_symbol() is a and (d + 1).get_symbol() is None
    assert (d & D(3, 9)).get_symbol() is None


def test_a_symbolic_dimension_is_labelled_by_its_symbol() -> None:
    n = Symbol("n")
    assert D.symbol(n).get_symbol() is n and not D.of_expr(2 * Poly.atom(n)).has_symbol()


def test_set_symbol_refuses_to_mutate() -> None:
    with pytest.raises(TypeError, match="with_symbol"):
        D().set_symbol(Symbol())


def test_merge_declares_symbols_equal() -> None:
    a, b, c = Symbol(), Symbol(), Symbol()
    assert not symbols.are_equal(a, b) and not symbols.are_equal(a, None)
    merged = D.merge(D(2, 4).with_symbol(a), D(3, 8).with_symbol(b))
    assert merged == D(3, 4) and merged.get_symbol() is a and symbols.are_equal(a, b)
    assert D.merge(D(2).with_symbol(c), D(5).with_symbol(a)) is None and not symbols.are_equal(a, c)
    assert D.merge(Q, D(3).with_symbol(c)).get_symbol() is c


def test_broadcast_keeps_the_label_of_the_side_it_returns() -> None:
    a, b = Symbol(), Symbol()
    assert D.broadcast_merge(Q.with_symbol(a), D(2, 4).with_symbol(b)).get_symbol() is b
    assert D.broadcast_merge(Q.with_symbol(a), Q.with_symbol(b)).get_symbol() is None
    assert D.broadcast_merge(Q.with_symbol(a), Q.with_symbol(a)).get_symbol() is a
    assert D.broadcast_merge(D(1).with_symbol(a), D(1).with_symbol(b)).get_symbol() is b
    assert D.broadcast_merge(D(1).with_symbol(a), D(1)).get_symbol() is a


def test_dimension_from_text() -> None:
    assert D("3") == D(3)
    assert D("?") == Q and D("-1") == Q
    assert D("1..8") == iv(1, 8) and D("2..") == iv(2, None) and D("..8") == iv(0, 8)
    assert D("n").is_symbolic and str(D("n")) == "n"
    with pytest.raises(ValueError):
        D("n + ")


def test_symbolic_dimension_kind() -> None:
    n = sym("n")
    assert n.is_symbolic and n.is_exact and n.is_dynamic and not n.is_static
    assert n.get_min_length() == 0 and n.get_max_length() == -1
    assert n != sym("n"), "two symbols named alike are different unknowns"


def test_symbol_named_interns() -> None:
    assert D.symbol("batch_x") == D.symbol("batch_x")


# Dimension: arithmetic -------------------------------------------------------------------------
def test_static_arithmetic() -> None:
    assert D(2) + D(3) == 5 and D(7) - D(3) == 4 and D(4) * D(5) == 20
    assert D(7) // D(2) == 3 and D(3) + 4 == 7 and 4 * D(3) == 12


def test_zero_times_unknown_is_zero() -> None:
    assert D(0) * Q == D(0)
    assert Q * D(0) == D(0)
    assert D(0) * iv(2, 5) == D(0)
    assert D(0) * sym("n") == D(0)


def test_interval_addition_is_bound_by_bound() -> None:
    assert iv(2, 3) + iv(4, 5) == iv(6, 8)
    assert iv(2, 3) + D(10) == iv(12, 13)
    assert iv(2, None) + iv(1, 4) == iv(3, None)
    assert Q + D(0) == Q
    assert Q + D(3) == iv(3, None)


def test_interval_subtraction_clips_at_zero_like_openvino() -> None:
    # Interval(clip_minus(min, other.max), clip_minus(max, other.min))
    assert iv(2, 8) - iv(3, 4) == iv(0, 5)
    assert iv(10, 20) - D(5) == iv(5, 15)
    assert iv(1, 3) - D(5) == D(0)
    assert iv(4, None) - D(1) == iv(3, None)
    assert D(5) - Q == iv(0, 5)
    assert Q - D(3) == Q


def test_exact_negative_difference_raises() -> None:
    # Deliberate difference from OpenVINO (which clips 5 - 7 to 0): an exact dimension that
    # is provably negative is an error the checker reports.
    with pytest.raises(ValueError):
        D(5) - D(7)
    n = sym("n")
    with pytest.raises(ValueError):
        D(0) - n - 1
    assert str(D(3) - n) == "3 - n"


def test_interval_multiplication_is_bound_by_bound() -> None:
    assert iv(2, 3) * iv(4, 5) == iv(8, 15)
    assert iv(2, 3) * D(4) == iv(8, 12)
    assert iv(1, None) * Q == Q
    assert iv(2, 3) * iv(1, None) == iv(2, None)
    assert D(1) * iv(2, 3) == iv(2, 3)


def test_interval_floor_division() -> None:
    assert iv(5, 9) // D(2) == iv(2, 4)
    assert iv(4, None) // D(2) == iv(2, None)
    assert Q // D(3) == Q
    with pytest.raises(ZeroDivisionError):
        D(3) // D(0)


def test_symbolic_arithmetic_is_exact() -> None:
    n, m = sym("n"), sym("m")
    assert n + n == 2 * n
    assert str(n * m + 1) in ("m * n + 1", "n * m + 1")
    assert (n + 1) - 1 == n
    assert (2 * n).exact_div(D(2)) == n
    assert (n * m).exact_div(m) == n
    assert n.exact_div(D(2)) is None
    assert str(n + Q) == "?", "an exact dim plus an interval is an interval"


# Dimension: relations ----------------------------------------------------------------------------
def test_compatible() -> None:
    assert D(3).compatible(3) and D(3).compatible(Q) and Q.compatible(iv(1, 8))
    assert not D(3).compatible(4)
    assert iv(1, 4).compatible(iv(4, 9)) and not iv(1, 3).compatible(iv(4, 9))
    assert D(5).compatible(iv(1, 8)) and not D(9).compatible(iv(1, 8))


def test_relaxes_and_refines() -> None:
    assert Q.relaxes(3) and D(3).refines(Q)
    assert iv(1, 8).relaxes(iv(2, 4)) and iv(2, 4).refines(iv(1, 8))
    assert not iv(2, 4).relaxes(iv(1, 8))
    assert D(3).relaxes(3) and D(3).refines(3)
    assert not D(3).relaxes(Q) and not Q.refines(D(3))
    n = sym("n")
    assert Q.relaxes(n) and n.refines(Q) and n.relaxes(n)
    assert not n.relaxes(Q) and not n.relaxes(sym("n"))


def test_same_scheme() -> None:
    assert D(3).same_scheme(3) and not D(3).same_scheme(4)
    assert Q.same_scheme(Q) and Q.same_scheme(iv(1, 8)) and iv(1, 8).same_scheme(iv(2, 3))
    assert not Q.same_scheme(3)


def test_dimension_merge_is_intersection() -> None:
    assert D.merge(3, 3) == 3
    assert D.merge(3, Q) == 3 and D.merge(Q, 3) == 3
    assert D.merge(Q, Q) == Q
    assert D.merge(iv(1, 8), iv(4, 10)) == iv(4, 8)
    assert D.merge(iv(1, 4), iv(4, 10)) == D(4)
    assert D.merge(iv(1, 3), iv(4, 10)) is None
    assert D.merge(3, 4) is None
    assert D.merge(5, iv(1, 8)) == 5 and D.merge(9, iv(1, 8)) is None


def test_dimension_merge_with_symbols() -> None:
    n, m = sym("n"), sym("m")
    assert D.merge(n, Q) == n and D.merge(Q, n) == n
    assert D.merge(n, iv(1, 8)) == n
    assert D.merge(n, n) == n
    assert D.merge(n, m) is None and D.merge(n, 3) is None


def test_dimension_broadcast_merge() -> None:
    assert D.broadcast_merge(1, 5) == 5 and D.broadcast_merge(5, 1) == 5
    assert D.broadcast_merge(1, 1) == 1
    assert D.broadcast_merge(3, 3) == 3
    assert D.broadcast_merge(3, 4) is None
    assert D.broadcast_merge(Q, 5) == 5
    assert D.broadcast_merge(1, Q) == Q
    assert D.broadcast_merge(iv(2, 5), iv(4, 8)) == iv(4, 5)
    assert D.broadcast_merge(iv(2, 3), iv(4, 8)) is None


def test_broadcast_merge_of_intervals_that_may_be_one() -> None:
    # OpenVINO Dimension::broadcast_merge: a side containing 1 yields the other side; if both
    # contain 1, the hull of the two.
    assert D.broadcast_merge(iv(1, 3), D(5)) == D(5)
    assert D.broadcast_merge(iv(0, 3), iv(5, 8)) == iv(5, 8)
    assert D.broadcast_merge(Q, iv(1, 3)) == Q
    assert D.broadcast_merge(iv(1, 3), iv(0, 2)) == iv(0, 3)


def test_broadcast_merge_with_symbols() -> None:
    n = sym("n")
    assert D.broadcast_merge(n, 1) == n and D.broadcast_merge(1, n) == n
    assert D.broadcast_merge(n, Q) == n and D.broadcast_merge(Q, n) == n
    assert D.broadcast_merge(n, n) == n
    assert D.broadcast_merge(n, 3) is None
    assert D.broadcast_merge(n, sym("m")) is None


def test_intersection_operator() -> None:
    assert (iv(1, 8) & iv(4, 10)) == iv(4, 8)
    with pytest.raises(ValueError):
        _ = iv(1, 2) & iv(3, 4)


def test_dimensions_hash_like_their_values() -> None:
    assert hash(D(3)) == hash(3)
    assert len({D(3), D(3, 3), iv(1, 8), D(1, 8)}) == 2


# PartialShape ---------------------------------------------------------------------------------------
def test_partial_shape_static() -> None:
    s = PartialShape([1, 2, 3])
    assert s.is_static and not s.is_dynamic
    assert s.rank == 3 and s.rank.is_static
    assert s.to_shape() == (1, 2, 3) and s.get_shape() == (1, 2, 3)
    assert str(s) == "(1, 2, 3)" and s == [1, 2, 3]
    assert len(s) == 3 and list(s) == [1, 2, 3] and s[1] == 2


def test_partial_shape_dynamic_dims() -> None:
    s = PartialShape([1, Dimension.dynamic(), 3])
    assert s.is_dynamic and s.rank == 3
    assert str(s) == "(1, ?, 3)"
    assert s.get_min_shape() == (1, 0, 3) and s.get_max_shape() == (1, 2**63 - 1, 3)  # OpenVINO: int64 max
    with pytest.raises(ShapeError):
        s.to_shape()


def test_partial_shape_dynamic_rank() -> None:
    s = PartialShape.dynamic()
    assert s.is_dynamic and s.rank.is_dynamic and s.dims is None
    assert str(s) == "*"
    with pytest.raises(ShapeError):
        s.to_shape()
    with pytest.raises(ShapeError):
        len(s)
    assert PartialShape.dynamic(-1).rank.is_dynamic
    assert PartialShape.dynamic(Dimension.dynamic()).rank.is_dynamic
    assert PartialShape.dynamic(None) == PartialShape(None)
    assert PartialShape(PartialShape.dynamic()).rank.is_dynamic


def test_partial_shape_dynamic_of_rank() -> None:
    s = PartialShape.dynamic(4)
    assert s.rank == 4 and all(d == Q for d in s)
    assert str(PartialShape.dynamic(1)) == "(?,)"
    assert str(PartialShape([])) == "()" and PartialShape([]).is_static


def test_partial_shape_from_text() -> None:
    assert PartialShape("[1, ?, 1..8]") == [1, Q, iv(1, 8)]
    assert PartialShape("(2, 3)") == [2, 3]
    assert PartialShape("[...]").rank.is_dynamic and PartialShape("*").rank.is_dynamic
    assert PartialShape("(3,)") == [3] and PartialShape("[]") == [] and PartialShape("( )") == []


@pytest.mark.parametrize("text", ["[?,,3]", "[,]", "[1,2,]", "(,)"])
def test_partial_shape_text_with_a_missing_dimension_is_rejected(text) -> None:
    with pytest.raises(ValueError):
        PartialShape(text)  # OpenVINO raises too; it silently dropped the empty field


def test_partial_shape_from_interval_pairs() -> None:
    assert PartialShape([(1, 10), [2, -1], 4]) == [iv(1, 10), iv(2, None), 4]
    for bad in ([(1, 2, 3)], [("?", "?")], [range(3)]):
        with pytest.raises(TypeError):
            PartialShape(bad)


def test_partial_shape_prints_both_ways() -> None:
    s = PartialShape([1, Q, iv(0, 8), iv(2, None)])
    assert str(s) == "(1, ?, 0..8, 2..)" and s.to_string() == "[1,?,..8,2..]"
    assert repr(s) == "<PartialShape: [1,?,..8,2..]>" and PartialShape(s.to_string()) == s
    assert PartialShape.dynamic().to_string() == "[...]"
    assert repr(D(0, 10)) == "<Dimension: ..10>" and str(D(0, 10)) == "0..10"


def test_partial_shape_compatible() -> None:
    assert shape(1, 2).compatible([1, Q])
    assert not shape(1, 2).compatible([1, 3])
    assert not shape(1, 2).compatible([1, 2, 3])
    assert PartialShape.dynamic().compatible([1, 2, 3])
    assert shape(1, 2).compatible(PartialShape.dynamic())


def test_partial_shape_same_scheme() -> None:
    assert shape(1, Q).same_scheme([1, iv(2, 3)])
    assert not shape(1, Q).same_scheme([1, 2])
    assert PartialShape.dynamic().same_scheme(PartialShape.dynamic())
    assert not PartialShape.dynamic().same_scheme([1])
    assert not shape(1).same_scheme([1, 1])


def test_partial_shape_relaxes_refines() -> None:
    assert PartialShape.dynamic().relaxes([1, 2])
    assert shape(1, 2).refines(PartialShape.dynamic())
    assert not shape(1, 2).relaxes(PartialShape.dynamic())
    assert shape(Q, 2).relaxes([5, 2]) and shape(5, 2).refines([Q, 2])
    assert not shape(Q, 2).relaxes([5, 3])
    assert not shape(Q).relaxes([5, 5])


def test_merge_rank() -> None:
    s = PartialShape.dynamic()
    assert s.merge_rank(3) and s == [Q, Q, Q]
    assert s.merge_rank(3) and not s.merge_rank(2)
    assert s.merge_rank(Dimension.dynamic())


# The merge table of the OpenVINO documentation, exactly.
MERGE_TABLE = [
    (None, None, None),
    (None, [Q, Q], [Q, Q]),
    ([Q, Q], [Q, Q], [Q, Q]),
    ([1, 2, 3, 4], None, [1, 2, 3, 4]),
    ([1, 2], [1, Q], [1, 2]),
    ([1, 2, Q, Q], [1, Q, 3, Q], [1, 2, 3, Q]),
    ([1, 2, 3], [1, 2, 3], [1, 2, 3]),
]
MERGE_FAILS = [([1, Q], [2, Q]), ([Q, Q], [Q, Q, Q])]


@pytest.mark.parametrize("a, b, expected", MERGE_TABLE)
def test_merge_table(a, b, expected) -> None:
    merged = PartialShape(a).merge(PartialShape(b))
    assert merged == PartialShape(expected)
    assert merged.rank.is_dynamic == (expected is None)
    dst = PartialShape(a)
    assert PartialShape.merge_into(dst, PartialShape(b)) is True
    assert dst == PartialShape(expected)


@pytest.mark.parametrize("a, b", MERGE_FAILS)
def test_merge_table_failures(a, b) -> None:
    with pytest.raises(ShapeError):
        PartialShape(a).merge(PartialShape(b))
    assert PartialShape.merge_into(PartialShape(a), PartialShape(b)) is False


def test_merge_into_mutates_dst_only() -> None:
    dst, src = shape(1, Q), shape(Q, 2)
    assert PartialShape.merge_into(dst, src)
    assert dst == [1, 2] and src == [Q, 2]
    a = shape(1, Q)
    assert a.merge([Q, 5]) == [1, 5] and a == [1, Q], "merge returns a new shape"


def test_merge_of_intervals() -> None:
    assert shape(iv(1, 8), Q).merge([iv(4, 10), iv(2, None)]) == [iv(4, 8), iv(2, None)]


def test_broadcast_merge_into_numpy() -> None:
    dst = shape(3, 1, 5)
    assert PartialShape.broadcast_merge_into(dst, [4, 1])
    assert dst == [3, 4, 5]
    assert shape(2, Q).broadcast_merge([Q, 5]) == [2, 5]
    assert shape(8, 1, 6, 1).broadcast_merge([7, 1, 5]) == [8, 7, 6, 5]
    assert shape().broadcast_merge([2, 3]) == [2, 3]


def test_broadcast_merge_into_dynamic_rank() -> None:
    dst = shape(1, 2)
    assert PartialShape.broadcast_merge_into(dst, PartialShape.dynamic())
    assert dst.rank.is_dynamic


def test_broadcast_merge_into_conflict() -> None:
    dst = shape(2, 3)
    assert PartialShape.broadcast_merge_into(dst, [4, 3]) is False
    assert dst == [Q, 3], "the conflicting dim is left dynamic, as OpenVINO"
    with pytest.raises(ShapeError):
        shape(2, 3).broadcast_merge([4, 3])


def test_broadcast_merge_autob_none() -> None:
    dst = shape(2, 3)
    assert PartialShape.broadcast_merge_into(dst, [4, 5, 6], "none") and dst == [2, 3]


def test_partial_shape_indexing_and_setting() -> None:
    s = shape(1, 2)
    s[0] = 7
    assert s == [7, 2] and s[-1] == 2
    assert shape(1, 2, 3)[::2] == PartialShape([1, 3]) and isinstance(shape(1, 2)[:1], PartialShape)
    with pytest.raises(IndexError):
        shape(1, 2)[-3]


def test_append_and_emplace_back() -> None:
    s = shape(2, Q)
    s.append(5)
    s.emplace_back(3, 5)
    assert s == [2, Q, 5, iv(3, 5)] and s.get_dimension(-1) == iv(3, 5)
    with pytest.raises(ShapeError):
        PartialShape.dynamic().append(1)


def test_copies_do_not_share_dimensions() -> None:
    s = shape(1, 2)
    for c in (copy.copy(s), copy.deepcopy(s)):
        c[0] = 9
    assert s == [1, 2]


def test_static_shape() -> None:
    s = Shape([1, 2, 3])
    assert s == [1, 2, 3] and s == (1, 2, 3) and s != [1, 2] and s == PartialShape([1, 2, 3])
    assert isinstance(s[1:], Shape) and s[::-1] == [3, 2, 1] and s[0] == 1
    assert repr(s) == "<Shape: [1,2,3]>" and str(s) == "(1, 2, 3)" and hash(s) == hash((1, 2, 3))
    assert PartialShape([1, 2, 3]).to_shape() == s and isinstance(PartialShape([4]).get_shape(), Shape)
    assert Shape([D(4)]) == [4]
    for bad, error in ((-1, ValueError), (Q, ValueError), ("3", TypeError)):
        with pytest.raises(error):
            Shape([bad])


def test_pdpd_broadcast() -> None:
    a = [2, 3, 4, 5]
    assert shape(*a).broadcast_merge([3, 4], "pdpd", 1) == a
    assert shape(*a).broadcast_merge([5], "pdpd") == a  # axis -1: trailing, as C++'s default
    assert shape(Q, 3).broadcast_merge([3], "pdpd") == [Q, 3]
    with pytest.raises(ShapeError):
        shape(2, 3, 4, 1).broadcast_merge([2, 3, 4, 5], "pdpd")  # src may not be the larger
    with pytest.raises(ShapeError):
        shape(*a).broadcast_merge([3, 1], "pdpd", -2)
    with pytest.raises(ShapeError):
        shape(*a).broadcast_merge([4, 5], "pdpd", 3)  # runs past the end
    with pytest.raises(ValueError):
        shape(*a).broadcast_merge([5], "explicit")


# The symbolic extension -------------------------------------------------------------------------
def test_polynomials_are_canonical() -> None:
    n, m = Symbol("n"), Symbol("m")
    pn, pm = Poly.atom(n), Poly.atom(m)
    assert pn + pn == 2 * pn
    assert pn * pm == pm * pn
    assert (pn + 1) * (pn - 1) == pn * pn - 1
    assert pn - pn == 0 and Poly() == 0
    assert hash(pn * 3 - pn) == hash(2 * pn)


def test_floor_division_canonical_form() -> None:
    h = Poly.atom(Symbol("h"))
    assert (h - 1).floordiv(2) + 1 == (h + 1).floordiv(2)
    assert str((h + 1).floordiv(2)) == "(h - 1) // 2 + 1"
    assert str((h - 1).floordiv(2) + 1) == "(h - 1) // 2 + 1"
    assert str((h - 3).floordiv(2) + 1) == "(h - 1) // 2"
    assert (2 * h + 4).floordiv(2) == h + 2
    assert str((3 * h).floordiv(2)) == "h + h // 2"


def test_floor_division_cancels_common_factors() -> None:
    h = Poly.atom(Symbol("h"))
    assert (2 * h).floordiv(4) == h.floordiv(2)
    assert (2 * h - 2).floordiv(4) == (h - 1).floordiv(2)
    assert (6 * h + 3).floordiv(9) == (2 * h + 1).floordiv(3)


def test_nested_floor_division_flattens() -> None:
    h = Poly.atom(Symbol("h"))
    assert h.floordiv(2).floordiv(2) == h.floordiv(4)
    # two stride-2 convolutions: ((h - 1) // 2 + 1 - 1) // 2 + 1
    twice = ((h - 1).floordiv(2) + 1 - 1).floordiv(2) + 1
    assert twice == (h - 1).floordiv(4) + 1
    assert str(twice) == "(h - 1) // 4 + 1"


def test_dimension_floor_division_as_written() -> None:
    h = sym("h")
    assert (h - 1) // 2 + 1 == (h + 1) // 2
    assert str((h - 1) // 2 + 1) == "(h - 1) // 2 + 1"
    assert str(h // 2) == "h // 2"


def test_a_quotient_by_a_monomial_cancels_it_first() -> None:
    """(b * d) // (2 * b) is d // 2 (a reshape's -1 beside a copied b), exact, not an interval;
    where the monomial does not divide the numerator the quotient is an interval, as before."""
    sb, sd = Symbol("b"), Symbol("d")
    b, d = Dimension.symbol(sb), Dimension.symbol(sd)
    assert (b * d) // (2 * b) == d // 2
    assert ((b * d) // (2 * b)).is_exact
    assert (b * d + b) // b == d + 1
    assert not ((b * d + 1) // (2 * b)).is_exact
    for bv, dv in ((1, 7), (3, 8), (5, 1)):
        assert ((b * d) // (2 * b)).evaluate({sb: bv, sd: dv}) == (bv * dv) // (2 * bv)


def test_quotients_of_alike_named_symbols_order_canonically() -> None:
    a, b = Poly.atom(Symbol("n")), Poly.atom(Symbol("n"))
    assert a.floordiv(2) + b.floordiv(2) == b.floordiv(2) + a.floordiv(2)
    assert a.floordiv(2) * b.floordiv(2) == b.floordiv(2) * a.floordiv(2)


def test_printing_is_valid_dimension_syntax() -> None:
    h, n = Poly.atom(Symbol("h")), Poly.atom(Symbol("n"))
    assert str(3 * h.floordiv(2)) == "3 * (h // 2)"
    assert str(n * h.floordiv(2)) == "n * (h // 2)"
    assert str(3 - n) == "3 - n"
    assert str(-n) == "0 - n"
    assert str(2 * n * n - 3 * n + 1) == "2 * n * n - 3 * n + 1"
    assert str(Poly()) == "0"


def test_substitute_and_evaluate() -> None:
    n, m = Symbol("n"), Symbol("m")
    p = (Poly.atom(n) * 2 + Poly.atom(m)).floordiv(3)
    assert p.evaluate({n: 5, m: 2}) == 4
    q = p.substitute(lambda s: Poly.const(4) if s is n else None)
    assert q == (Poly.atom(m) + 8).floordiv(3)
    assert q.evaluate({m: 2}) == 3


def test_huge_integers_print() -> None:
    big = 10**5000 + 7
    assert int_text(big) == "1" + "0" * 4999 + "7"
    assert int_text(-big).startswith("-1000")
    assert str(D(big)).endswith("007") and len(str(D(big))) == 5001
    assert str(D(10**30)) == "1" + "0" * 30


def test_floordiv_atom_repr() -> None:
    h = Poly.atom(Symbol("h"))
    assert repr(FloorDiv(h - 1, 2)) == "(h - 1) // 2"
    assert repr(FloorDiv(-h, 2)) == "(0 - h) // 2"


# consistency and join ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "actual, expected, grade",
    [
        (D(3), D(3), Grade.EQUAL),
        (D(3), Q, Grade.EQUAL),
        (D(3), iv(1, 8), Grade.EQUAL),
        (iv(2, 4), iv(1, 8), Grade.EQUAL),
        (Q, D(3), Grade.CHECK),
        (iv(1, 8), D(3), Grade.CHECK),
        (iv(1, 8), iv(4, 10), Grade.CHECK),
        (Q, iv(1, 8), Grade.CHECK),
        (D(3), D(4), Grade.NEVER),
        (iv(1, 2), iv(5, None), Grade.NEVER),
        (D(9), iv(1, 8), Grade.NEVER),
    ],
)
def test_consistency_grades(actual, expected, grade) -> None:
    assert consistency(actual, expected) is grade


def test_consistency_with_symbols_is_rigid() -> None:
    n, m = sym("n"), sym("m")
    assert consistency(n, n) is Grade.EQUAL
    assert consistency(n + 1, 1 + n) is Grade.EQUAL
    assert consistency(n, Q) is Grade.EQUAL
    assert consistency(Q, n) is Grade.CHECK
    assert consistency(n, iv(1, 8)) is Grade.CHECK
    assert consistency(n, D(3)) is Grade.NEVER
    assert consistency(D(3), n) is Grade.NEVER
    assert consistency(n, m) is Grade.NEVER


def test_grades_combine_to_the_worst() -> None:
    assert (Grade.EQUAL & Grade.CHECK) is Grade.CHECK
    assert (Grade.CHECK & Grade.NEVER) is Grade.NEVER
    assert (Grade.EQUAL & Grade.EQUAL) is Grade.EQUAL


def test_join_follows_spec_3_4() -> None:
    n = sym("n")
    assert join(D(3), D(3)) == D(3)
    assert join(D(3), D(5)) == iv(3, 5) and str(join(D(5), D(3))) == "3..5"
    assert join(n, n) == n
    assert join(n, D(3)) == Q
    assert join(n, sym("n")) == Q
    assert join(iv(1, 2), iv(1, 2)) == iv(1, 2)
    assert join(iv(1, 2), iv(2, 3)) == Q, "two intervals join to ? (design.md)"
    assert join(D(3), iv(1, 2)) == Q
    assert join(Q, D(3)) == Q


@pytest.mark.parametrize(
    "lhs, rhs, expected",
    [
        ("h", "32", ("value", (32,))),
        ("2 * (h // 4)", "h // 2", ("residues", (4, 0, 1))),
        ("h", "4 * (h // 4)", ("residues", (4, 0))),
        ("16 * (h // 2) - 16", "512", ("range", (66, 67))),
        ("32 * ((h - 6) // 8) * ((h - 6) // 8)", "512", ("range", (38, 45))),
        ("h * h", "49", ("value", (7,))),
        ("h", "h + 1", ("impossible", ())),
        ("24 * (h // 2) - 24", "512", ("impossible", ())),
        ("h", "w", ("equation", ())),
        ("6 * ((h + w) // 2)", "3 * h + 3 * w", ("residues", (2, 0))),  # a view of a concatenation
        ("h + 2 * w", "10", ("value", (10,))),  # one form, named `(h + 2 * w)`
        ("(h + w) // 2 + h", "7", ("equation", ())),  # not a function of h + w alone
        ("h + w", "12", ("value", (12,))),
    ],
)
def test_the_constraint_an_equation_places_on_its_symbol(lhs: str, rhs: str, expected: tuple) -> None:
    """What `dim-constraint` warnings state (spec §6): one value, a range, residues, or the equation."""
    from gradual.shapes.constraint import solve

    names = {"h": Dimension.of_expr(Poly.atom(Symbol("h"))), "w": Dimension.of_expr(Poly.atom(Symbol("w")))}
    found = solve(*(D(eval(side, {}, names)) if side.isdigit() else eval(side, {}, names) for side in (lhs, rhs)))
    assert (found.kind, found.values) == expected


@pytest.mark.parametrize(
    "lhs, rhs, equal",
    [
        ("h // 3 + (h - 1) // 3 + (h - 2) // 3 + 2", "h", True),  # Hermite: tensor_split into 3
        ("h // 2 + (h - 1) // 2 + 1", "h", True),
        ("(h + 5) // 6 + (h + 4) // 6 + (h + 3) // 6 + (h + 2) // 6 + (h + 1) // 6 + h // 6", "h", True),
        ("3 * (h // 3)", "h", False),
        ("h // 3 + (h - 1) // 3 + (h - 2) // 3", "h", False),
    ],
)
def test_two_forms_of_one_function_are_equal_dims(lhs: str, rhs: str, equal: bool) -> None:
    """Canonical forms differ for sums of quotients that are one function of h (the parts of
    torch's tensor_split add up to h): unification proves them equal by evaluation, and only
    those."""
    from gradual.shapes.constraint import vanishes
    from gradual.types.unify import Solver

    names = {"h": Dimension.of_expr(Poly.atom(Symbol("h")))}
    a, b = (eval(side, {}, names) for side in (lhs, rhs))
    assert vanishes(a.expr - b.expr) is equal
    assert (Solver().unify(a, b) is Grade.EQUAL) is equal


def test_exact_division_by_a_sum() -> None:
    """A KV cache's `(b, 2, p + t, 4)` reshaped to `[-1, p + t, 4]` infers `2 * b`: the product
    divides by the sum (it was `?` with a "too large to track" note)."""
    p, t, b, n = (Poly.atom(Symbol(name)) for name in "ptbn")
    assert (8 * b * p + 8 * b * t).exact_div(4 * p + 4 * t) == 2 * b
    assert ((p + t) * (p + t)).exact_div(p + t) == p + t
    assert (p * p - t * t).exact_div(p - t) == p + t
    assert (n.floordiv(2) * (p + 1)).exact_div(p + 1) == n.floordiv(2)
    assert ((p + t) * (p + t) + 1).exact_div(p + t) is None
    assert (p * t).exact_div(p + t) is None
    assert (6 * p + 3).exact_div(4 * p + 2) is None  # 3/2 is no integer polynomial


# bounded polynomials -----------------------------------------------------------------
def test_a_product_past_the_degree_bound_is_unknown() -> None:
    from gradual.shapes.poly import MAX_DEGREE

    n = sym("n")
    power = n
    for _ in range(MAX_DEGREE - 1):
        power = power * n
    assert power.is_symbolic and power.expr.degree() == MAX_DEGREE
    assert (power * n).is_unknown
    assert (power + n).is_symbolic  # a sum adds no degree


def test_repeated_squaring_stops_at_the_bound() -> None:
    d = sym("n") + 1
    for _ in range(40):  # without the bound: degree 2^40
        d = d * d
    assert d.is_unknown


def test_a_sum_past_the_size_bound_is_unknown() -> None:
    from gradual.shapes.poly import MAX_SIZE

    total = sym("s0")
    for i in range(1, MAX_SIZE):
        total = total + sym(f"s{i}")
    assert total.is_unknown


def test_static_arithmetic_past_the_bit_bound_is_unknown() -> None:
    from gradual.shapes.poly import MAX_BITS

    d = D(3)
    for _ in range(40):  # 3^(2^40) would take 2^40 * 1.6 bits
        d = d * d
    assert d.is_unknown
    big = D(2 ** (MAX_BITS - 2))
    assert (big + big).is_static and (big * big).is_unknown


def test_interval_bounds_past_the_bit_bound_widen() -> None:
    d = iv(2, 3)
    for _ in range(40):
        d = d * d
    assert d.max_length is None and d.min_length >= 0


@pytest.mark.parametrize(
    "lhs, rhs, bounds, expected",
    [
        ("24 * h", "32 * h", (2, 128), ("impossible", ())),  # h = 0 is outside 2..128 (an edited view)
        ("h", "32", (2, 16), ("impossible", ())),
        ("h", "32", (2, 64), ("value", (32,))),
        ("16 * (h // 2) - 16", "512", (67, None), ("value", (67,))),
        ("h", "4 * (h // 4)", (5, 7), ("impossible", ())),
        ("h", "4 * (h // 4)", (5, 9), ("residues", (4, 0))),
    ],
)
def test_the_constraint_stays_within_the_symbols_bounds(lhs: str, rhs: str, bounds: tuple, expected: tuple) -> None:
    """A bounded symbol (torch.export's range constraints) allows only values in its bounds."""
    from gradual.shapes.constraint import solve

    h = Symbol("h", *bounds)
    names = {"h": Dimension.of_expr(Poly.atom(h))}
    found = solve(*(D(eval(side, {}, names)) if side.isdigit() else eval(side, {}, names) for side in (lhs, rhs)))
    assert (found.kind, found.values) == expected


def test_a_factor_that_cannot_be_zero_is_divided_out() -> None:
    """A reshape with a dynamic batch `b` >= 2 constrains the sequence alone; a batch that may
    be 0 leaves the equation as it is."""
    from gradual.shapes.constraint import solve

    for lo, kind in ((2, "residues"), (0, "equation")):
        b, s = Symbol("b", lo), Symbol("s", 2)
        bd, sd = (Dimension.of_expr(Poly.atom(x)) for x in (b, s))
        found = solve(16 * bd * (sd // 2), 8 * sd * bd)
        assert found.kind == kind
        assert kind != "residues" or (found.symbol, found.values) == (s, (2, 0))


def test_a_remainder_among_the_terms_is_bounded_by_its_divisor() -> None:
    """`t % 4` is written `t - 4 * (t // 4)`, and padding to a multiple `(4 - t % 4) % 4`
    (found by an outside pass: term-by-term bounds made these unbounded below, so a view by
    `(t + pad) // 4` was not known to get a size); every bound holds at every t."""
    t = Symbol("t", 0, None)
    a = Poly.atom(t)
    rem = a - a.floordiv(4) * 4
    pad = (Poly.const(4) - rem) - (Poly.const(4) - rem).floordiv(4) * 4
    half = a - (3 * a).floordiv(4)
    cases = [(rem, (0, 3)), (pad, (0, 3)), ((a + pad).floordiv(4), (0, math.inf)), (half, (0, math.inf))]
    for poly, expected in cases:
        assert poly.bounds() == expected
        lo, hi = poly.bounds()
        assert all(lo <= poly.evaluate({t: value}) <= hi for value in range(40))


@pytest.mark.parametrize("method", ["merge_into", "broadcast_merge_into"])
def test_an_in_place_merge_into_something_that_is_no_partial_shape_is_a_type_error(method: str) -> None:
    """`PartialShape.merge_into([1, 2], src)` failed with "'list' object has no attribute
    '_dims'"; it says that `dst` must be a PartialShape (it is changed in place)."""
    with pytest.raises(TypeError, match=f"PartialShape.{method} changes `dst` in place"):
        getattr(PartialShape, method)([1, 2], PartialShape([1, 2]))
