"""Laws of the shape algebra, checked with hypothesis.

Dimensions range over static values, intervals (bounded or not), `?` and exact symbolic
polynomials; shapes over static and dynamic rank. The interval laws are checked against a
set semantics: an interval stands for the set of its values (cut off above every finite
bound in play), a static dim for one value, a symbol for one value fixed for the whole
program but unknown (rigid).
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gradual import Dimension, PartialShape, Shape, ShapeError
from gradual.shapes import Grade, Poly, Symbol, consistency, extremum, join, symbols
from gradual.syntax import ast
from gradual.syntax.parser import parse

SETTINGS = settings(max_examples=200, deadline=None)
CHEAP = settings(max_examples=500, deadline=None)
LIGHT = settings(max_examples=100, deadline=None)  # the OpenVINO-parity laws: many, each narrow

N, M, K = Symbol("n"), Symbol("m"), Symbol("k")
PN, PM = Poly.atom(N), Poly.atom(M)
BOUND = 20  # finite bounds stay below this; sets are cut off at CUTOFF
CUTOFF = 3 * BOUND

statics = st.integers(0, BOUND).map(Dimension)


@st.composite
def intervals(draw) -> Dimension:
    """`lo..hi` (possibly unbounded above, possibly `?`)."""
    lo = draw(st.integers(0, BOUND))
    hi = draw(st.one_of(st.none(), st.integers(lo + 1, BOUND + 1)))
    return Dimension(lo, -1 if hi is None else hi)


SYMBOLIC_POLYS = [PN, PM, PN + 1, 2 * PN, PN * PM, (PN - 1).floordiv(2) + 1, PN + PM, PN.floordiv(3)]
symbolics = st.sampled_from(SYMBOLIC_POLYS).map(Dimension.of_expr)

interval_dims = st.one_of(statics, intervals(), st.just(Dimension.dynamic()))
any_dims = st.one_of(interval_dims, symbolics)


def values(d: Dimension) -> set[int]:
    """The set a non-symbolic dimension stands for, cut off at CUTOFF."""
    lo, hi = d.get_min_length(), d.get_max_length()
    return set(range(lo, (CUTOFF if hi == -1 else hi) + 1))


def shapes(dims=any_dims):
    """Shapes of static rank 0..3 or of dynamic rank."""
    static_rank = st.lists(dims, max_size=3).map(PartialShape)
    return st.one_of(static_rank, st.just(PartialShape.dynamic()))


def same_rank_shapes(dims, count: int):
    """`count` shapes of one common static rank."""
    return st.integers(0, 3).flatmap(
        lambda r: st.tuples(*[st.lists(dims, min_size=r, max_size=r).map(PartialShape)] * count)
    )


# consistency --------------------------------------------------------------------------------------
def set_grade(actual: Dimension, expected: Dimension) -> Grade:
    """The grade the set semantics gives (symbols rigid: only the same polynomial is EQUAL)."""
    if actual.is_exact and expected.is_exact:
        return Grade.EQUAL if actual.expr == expected.expr else Grade.NEVER
    a, e = values(actual), values(expected)
    if not a & e:
        return Grade.NEVER
    if a <= e and not expected.is_exact:
        return Grade.EQUAL
    return Grade.CHECK


@CHEAP
@given(interval_dims, interval_dims)
def test_consistency_agrees_with_set_semantics(actual, expected) -> None:
    grade = consistency(actual, expected)
    assert grade is set_grade(actual, expected)
    a, e = values(actual), values(expected)
    assert (grade is Grade.EQUAL) == (a <= e)
    assert (grade is Grade.NEVER) == (not a & e)


@SETTINGS
@given(any_dims, any_dims)
def test_consistency_with_symbols_is_rigid(actual, expected) -> None:
    assert consistency(actual, expected) is set_grade(actual, expected)


@SETTINGS
@given(any_dims)
def test_consistency_is_reflexive(d) -> None:
    assert consistency(d, d) is Grade.EQUAL
    assert consistency(d, Dimension(d)) is Grade.EQUAL
    assert d.compatible(d)


@SETTINGS
@given(any_dims, any_dims)
def test_consistency_is_symmetric(a, b) -> None:
    assert (consistency(a, b) is Grade.NEVER) == (consistency(b, a) is Grade.NEVER)
    assert a.compatible(b) == b.compatible(a)
    assert a.compatible(b) == (consistency(a, b) is not Grade.NEVER)


# merge ----------------------------------------------------------------------------------------------
@SETTINGS
@given(any_dims, any_dims)
def test_merge_is_commutative(a, b) -> None:
    assert Dimension.merge(a, b) == Dimension.merge(b, a)


@SETTINGS
@given(interval_dims, interval_dims)
def test_merge_is_intersection(a, b) -> None:
    merged = Dimension.merge(a, b)
    common = values(a) & values(b)
    if not common:
        assert merged is None
    else:
        assert merged is not None and values(merged) == common


@SETTINGS
@given(interval_dims, interval_dims, interval_dims)
def test_merge_is_the_most_permissive_refinement(a, b, c) -> None:
    merged = Dimension.merge(a, b)
    if merged is None:
        assert not (c.refines(a) and c.refines(b))
        return
    assert merged.refines(a) and merged.refines(b)
    if c.refines(a) and c.refines(b):
        assert c.refines(merged)


@SETTINGS
@given(any_dims, any_dims)
def test_merge_with_symbols_keeps_the_exact_side(a, b) -> None:
    merged = Dimension.merge(a, b)
    if a.is_exact and b.is_exact:
        assert merged == (a if a.expr == b.expr else None)
    elif a.is_exact or b.is_exact:
        exact = a if a.is_exact else b
        assert merged is None or merged == exact


@SETTINGS
@given(any_dims, any_dims)
def test_broadcast_merge_is_commutative(a, b) -> None:
    assert Dimension.broadcast_merge(a, b) == Dimension.broadcast_merge(b, a)


@SETTINGS
@given(interval_dims, interval_dims)
def test_broadcast_merge_covers_numpy_broadcasting(a, b) -> None:
    """Every pair of values that NumPy can broadcast gives a size the result allows."""
    result = Dimension.broadcast_merge(a, b)
    outcomes = {y if x == 1 else x for x in values(a) for y in values(b) if x == y or 1 in (x, y)}
    outcomes = {v for v in outcomes if v <= CUTOFF - BOUND}
    if result is None:
        assert not any(x == y for x in values(a) for y in values(b) if x != 1 and y != 1)
    else:
        assert outcomes <= values(result)


@SETTINGS
@given(any_dims)
def test_broadcast_with_one_is_identity(d) -> None:
    assert Dimension.broadcast_merge(d, 1) == d and Dimension.broadcast_merge(1, d) == d


# relaxes / refines / join -------------------------------------------------------------------------
@SETTINGS
@given(any_dims, any_dims)
def test_relaxes_and_refines_are_duals(a, b) -> None:
    assert a.relaxes(b) == b.refines(a)


@SETTINGS
@given(interval_dims, interval_dims)
def test_refines_is_set_inclusion(a, b) -> None:
    assert a.refines(b) == (values(a) <= values(b))


@SETTINGS
@given(statics, any_dims)
def test_a_static_dim_is_refined_by_itself_only(s, d) -> None:
    assert d.refines(s) == (d == s)
    assert s.refines(s) and s.relaxes(s)


@SETTINGS
@given(any_dims, any_dims)
def test_join_is_commutative_and_an_upper_bound(a, b) -> None:
    j = join(a, b)
    assert j == join(b, a)
    assert a.refines(j) and b.refines(j)
    assert consistency(a, j) is Grade.EQUAL and consistency(b, j) is Grade.EQUAL


@SETTINGS
@given(any_dims, any_dims)
def test_join_follows_spec(a, b) -> None:
    j = join(a, b)
    if a == b:
        assert j == a
    elif a.is_static and b.is_static:
        lo, hi = sorted((a.get_length(), b.get_length()))
        assert j == Dimension(lo, hi)
    else:
        assert j == Dimension.dynamic()


# interval arithmetic ------------------------------------------------------------------------------
@SETTINGS
@given(interval_dims, interval_dims)
def test_interval_arithmetic_is_sound_and_tight(a, b) -> None:
    va = {x for x in values(a) if x <= BOUND + 1}
    vb = {y for y in values(b) if y <= BOUND + 1}
    total, product = a + b, a * b
    sums = {x + y for x in va for y in vb}
    products = {x * y for x in va for y in vb}
    assert all(total.contains_value(v) for v in sums)
    assert all(product.contains_value(v) for v in products)
    assert total.get_min_length() == min(sums) and product.get_min_length() == min(products)
    if a.get_max_length() != -1 and b.get_max_length() != -1:
        assert total.get_max_length() == max(sums) and product.get_max_length() == max(products)
    else:
        assert total.get_max_length() == -1


@SETTINGS
@given(interval_dims, interval_dims)
def test_interval_subtraction_clips_like_openvino(a, b) -> None:
    if a.is_static and b.is_static and a.get_length() < b.get_length():
        return  # exact and negative: raises (tested by example)
    diff = a - b
    lo = max(0, a.get_min_length() - b.get_max_length()) if b.get_max_length() != -1 else 0
    hi = -1 if a.get_max_length() == -1 else max(0, a.get_max_length() - b.get_min_length())
    assert (diff.get_min_length(), diff.get_max_length()) == (lo, hi)


@SETTINGS
@given(interval_dims, st.integers(1, 7))
def test_interval_floor_division_is_sound_and_tight(a, den) -> None:
    q = a // den
    quotients = {x // den for x in values(a) if x <= BOUND + 1}
    assert all(q.contains_value(v) for v in quotients)
    assert q.get_min_length() == min(quotients)


# shapes -------------------------------------------------------------------------------------------
@SETTINGS
@given(shapes(), shapes())
def test_shape_merge_is_commutative(a, b) -> None:
    assert a.compatible(b) == b.compatible(a)
    try:
        ab = a.merge(b)
    except ShapeError:
        assert not a.compatible(b)
        try:
            b.merge(a)
        except ShapeError:
            return
        raise AssertionError("merge failed one way only") from None
    assert a.compatible(b)
    assert ab == b.merge(a)


@SETTINGS
@given(same_rank_shapes(interval_dims, 3))
def test_shape_merge_is_the_most_permissive_refinement(abc) -> None:
    a, b, c = abc
    dst = PartialShape(a)
    ok = PartialShape.merge_into(dst, b)
    assert ok == a.compatible(b)
    if not ok:
        return
    assert dst.refines(a) and dst.refines(b)
    if c.refines(a) and c.refines(b):
        assert c.refines(dst)


@SETTINGS
@given(shapes(), shapes())
def test_shape_merge_refines_both_dynamic_rank(a, b) -> None:
    assume(a.rank.is_dynamic or b.rank.is_dynamic)
    merged = a.merge(b)
    assert merged.refines(a) and merged.refines(b)


@SETTINGS
@given(shapes(), shapes())
def test_shape_relaxes_and_refines_are_duals(a, b) -> None:
    assert a.relaxes(b) == b.refines(a)
    assert a.relaxes(a) and a.refines(a) and a.same_scheme(a)


@SETTINGS
@given(shapes(), shapes())
def test_shape_broadcast_merge_is_commutative(a, b) -> None:
    left, right = PartialShape(a), PartialShape(b)
    ok_left = PartialShape.broadcast_merge_into(left, b)
    ok_right = PartialShape.broadcast_merge_into(right, a)
    assert ok_left == ok_right
    assert left == right


@SETTINGS
@given(shapes())
def test_to_shape_iff_static(s) -> None:
    if s.is_static:
        assert s.to_shape() == tuple(d.get_length() for d in s)
    else:
        try:
            s.to_shape()
        except ShapeError:
            return
        raise AssertionError("to_shape of a dynamic shape must raise")


# polynomials ----------------------------------------------------------------------------------------
SYMS = (N, M, K)


@st.composite
def poly_exprs(draw, depth: int = 3, ops: tuple = ("+", "-", "*", "//")):
    """A random arithmetic expression as (Poly, Python function of an assignment)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            c = draw(st.integers(-5, 9))
            return Poly.const(c), (lambda env, c=c: c)
        s = draw(st.sampled_from(SYMS))
        return Poly.atom(s), (lambda env, s=s: env[s])
    op = draw(st.sampled_from(ops))
    lp, lf = draw(poly_exprs(depth - 1, ops))
    if op == "//":
        den = draw(st.integers(1, 6))
        return lp.floordiv(den), (lambda env: lf(env) // den)
    if op == "%":
        den = draw(st.integers(1, 6))
        return lp.mod(den), (lambda env: lf(env) % den)
    if op == "ceil":
        den = draw(st.integers(1, 6))
        return lp.ceildiv(den), (lambda env: -(-lf(env) // den))
    rp, rf = draw(poly_exprs(depth - 1, ops))
    if op in ("max", "min"):
        pick = max if op == "max" else min
        return extremum(op, (lp, rp)), (lambda env: pick(lf(env), rf(env)))
    if op == "+":
        return lp + rp, (lambda env: lf(env) + rf(env))
    if op == "-":
        return lp - rp, (lambda env: lf(env) - rf(env))
    return lp * rp, (lambda env: lf(env) * rf(env))


assignments = st.fixed_dictionaries({s: st.integers(-50, 50) for s in SYMS})


@SETTINGS
@given(poly_exprs(), st.lists(assignments, min_size=1, max_size=5))
def test_poly_arithmetic_agrees_with_integers(expr, envs) -> None:
    poly, fn = expr
    for env in envs:
        assert poly.evaluate(env) == fn(env)


@SETTINGS
@given(poly_exprs(), st.integers(1, 12), assignments)
def test_floordiv_agrees_with_python_for_all_integers(expr, den, env) -> None:
    poly, _ = expr
    assert poly.floordiv(den).evaluate(env) == poly.evaluate(env) // den


@SETTINGS
@given(poly_exprs(ops=("+", "-", "*")), st.integers(1, 6), st.integers(1, 6), st.integers(-6, 6))
def test_nested_floordiv_of_a_polynomial_is_canonical(expr, a, b, c) -> None:
    """`p // a // b` and `p // (a * b)` have one form when `p` has no quotient in it (with
    quotients inside, e.g. `(0 - n // 2) // 2 // 2`, equal values may print differently)."""
    poly, _ = expr
    assert poly.floordiv(a).floordiv(b) == poly.floordiv(a * b)
    assert (poly.floordiv(a) + c).floordiv(b) == (poly + a * c).floordiv(a * b)


@SETTINGS
@given(poly_exprs(), poly_exprs())
def test_poly_ring_laws_hold_syntactically(p, q) -> None:
    (p, _), (q, _) = p, q
    assert p + q == q + p and p * q == q * p
    assert (p + q) - q == p
    assert p * (q + 1) == p * q + p
    assert hash(p + q) == hash(q + p)


@SETTINGS
@given(
    poly_exprs(), st.sampled_from(SYMS), st.integers(1, 6), st.fixed_dictionaries({s: st.integers(0, 30) for s in SYMS})
)
def test_a_quotient_by_a_monomial_agrees_with_integers(expr, s, k, env) -> None:
    """`(p * s) // (k * s)` of dimensions is `p // k` wherever `s > 0` (its value where s is 0
    divides by zero and means nothing); never wrong, exact or an interval holding the value."""
    poly, _ = expr
    assume(env[s] > 0)
    try:
        num = Dimension.of_expr(poly * Poly.atom(s))
    except ValueError:  # never a size
        return
    quotient = num // Dimension.of_expr(k * Poly.atom(s))
    value = (poly * Poly.atom(s)).evaluate(env)
    if value < 0:
        return
    want = value // (k * env[s])
    if quotient.is_exact:
        assert quotient.evaluate(env) == want
    else:
        assert quotient.contains_value(want)


@SETTINGS
@given(poly_exprs(), st.integers(1, 6), st.integers(-20, 20))
def test_floordiv_by_a_constant_shift(expr, den, shift) -> None:
    poly, _ = expr
    assert (poly + den * shift).floordiv(den) == poly.floordiv(den) + shift


def eval_dim_ast(d: ast.DimExpr, env: dict[str, int]) -> int:
    """Evaluate a parsed dimension expression with Python integers."""
    if isinstance(d, ast.DimInt):
        return d.value
    if isinstance(d, ast.DimName):
        return env[d.name]
    assert isinstance(d, ast.DimBinary), d
    left, right = eval_dim_ast(d.left, env), eval_dim_ast(d.right, env)
    ops = {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right}
    ops.update({"//": lambda: left // right, "%": lambda: left % right})
    ops.update({"max": lambda: max(left, right), "min": lambda: min(left, right)})
    return ops[d.op]()


ALL_OPS = ("+", "-", "*", "//", "%", "ceil", "max", "min")


@SETTINGS
@given(poly_exprs(ops=ALL_OPS), st.lists(assignments, min_size=1, max_size=5))
def test_mod_max_min_and_ceiling_division_agree_with_integers(expr, envs) -> None:
    """`%`, `max`, `min` and ceiling division keep the algebra's law: a polynomial's value is
    the expression's, for every integer value of its symbols (negative ones too)."""
    poly, fn = expr
    for env in envs:
        assert poly.evaluate(env) == fn(env)


@SETTINGS
@given(poly_exprs(ops=ALL_OPS), poly_exprs(ops=ALL_OPS), poly_exprs(ops=ALL_OPS))
def test_extrema_are_canonical_up_to_order_repetition_and_nesting(p, q, r) -> None:
    (p, _), (q, _), (r, _) = p, q, r
    for kind in ("max", "min"):
        assert extremum(kind, (p, q)) == extremum(kind, (q, p))
        assert extremum(kind, (p, p)) == p
        assert extremum(kind, (extremum(kind, (p, q)), r)) == extremum(kind, (p, extremum(kind, (q, r))))
        assert extremum(kind, (p + 2, p)) == (p + 2 if kind == "max" else p)
    assert p.mod(1) == 0 and p.ceildiv(1) == p


@SETTINGS
@given(poly_exprs(ops=ALL_OPS), st.integers(1, 6), assignments)
def test_substitution_commutes_with_mod_max_min(expr, den, env) -> None:
    """Substituting values for the symbols gives the constant the polynomial evaluates to."""
    poly, _ = expr
    for built in (poly.mod(den), extremum("max", (poly, Poly.const(den))), poly.ceildiv(den)):
        value = built.substitute(lambda s: Poly.const(env[s]))
        assert value.is_const() and value.const_value() == built.evaluate(env)


@SETTINGS
@given(interval_dims, interval_dims, st.integers(1, 6))
def test_interval_max_min_mod_and_ceildiv_are_sound(a, b, den) -> None:
    """Each holds every value of the operation over the operands' sets."""
    mx, mn = Dimension.maximum(a, b), Dimension.minimum(a, b)
    rem, up = a % den, a.ceildiv(den)
    for x in values(a):
        assert rem.contains_value(x % den) and up.contains_value(-(-x // den))
        for y in values(b):
            assert mx.contains_value(max(x, y)) and mn.contains_value(min(x, y))


@SETTINGS
@given(st.sampled_from(SYMBOLIC_POLYS), st.sampled_from(SYMBOLIC_POLYS), st.integers(1, 6), assignments)
def test_symbolic_max_min_mod_stay_exact_and_right(p, q, den, env) -> None:
    """Of exact dims, `max`, `min`, `%` and ceildiv by a constant are exact, and evaluate to
    the operation on the values (symbols being sizes, >= 0)."""
    env = {s: abs(v) for s, v in env.items()}
    a, b = Dimension.of_expr(p), Dimension.of_expr(q)
    x, y = p.evaluate(env), q.evaluate(env)
    assume(x >= 0 and y >= 0)
    for got, want in (
        (Dimension.maximum(a, b), max(x, y)),
        (Dimension.minimum(a, b), min(x, y)),
        (a % den, x % den),
        (a.ceildiv(den), -(-x // den)),
    ):
        assert got.is_exact and got.evaluate(env) == want


@SETTINGS
@given(poly_exprs(ops=ALL_OPS), assignments)
def test_printed_mod_max_min_parse_back_to_the_same_value(expr, env) -> None:
    poly, _ = expr
    module = parse(f"def @f(%x: Tensor[({poly},), float32]) {{ %x }}")
    (dim,) = module.defs[0].params[0].type.dims
    names = {s.name: v for s, v in env.items()}
    assert eval_dim_ast(dim, names) == poly.evaluate(env)


@SETTINGS
@given(poly_exprs(), assignments)
def test_printed_polynomials_parse_back_to_the_same_value(expr, env) -> None:
    poly, _ = expr
    module = parse(f"def @f(%x: Tensor[({poly},), float32]) {{ %x }}")
    (dim,) = module.defs[0].params[0].type.dims
    names = {s.name: v for s, v in env.items()}
    assert eval_dim_ast(dim, names) == poly.evaluate(env)


@SETTINGS
@given(st.sampled_from(SYMBOLIC_POLYS), interval_dims)
def test_symbolic_dimension_arithmetic_stays_exact(p, other) -> None:
    d = Dimension.of_expr(p)
    assert (d + d).expr == 2 * p
    assert (d * 3).expr == 3 * p
    if other.is_static:
        assert (d + other).expr == p + other.get_length()
    else:
        assert (d + other).is_interval


# int64 saturation ---------------------------------------------------------------------------------
INT64_MAX = 2**63 - 1
#: sizes around 0, around int64's maximum and far past it
wide_sizes = st.one_of(st.integers(0, 40), st.integers(INT64_MAX - 40, INT64_MAX + 40), st.integers(0, 2**70))


@st.composite
def wide_dims(draw) -> Dimension:
    """Static sizes and intervals whose bounds may lie near or past int64's maximum."""
    lo = draw(wide_sizes)
    if draw(st.booleans()):
        return Dimension(lo)
    hi = draw(st.one_of(st.none(), st.integers(lo, lo + 2**70)))
    return Dimension.interval(lo, hi)


def _saturated(d: Dimension) -> bool:
    return d.is_static or (d.get_min_length() <= INT64_MAX and (d.max_length is None or d.max_length < INT64_MAX))


@LIGHT
@given(wide_dims(), wide_dims())
def test_interval_bounds_never_pass_int64_and_stay_sound(a, b) -> None:
    """Every non-static result saturates, and still holds each combination of the operands'
    finite bounds that int64 can hold (saturating only ever widens)."""
    corners = [
        (x, y)
        for x in {a.min_length, a.max_length}
        for y in {b.min_length, b.max_length}
        if x is not None and y is not None
    ]
    for op, combine in ((lambda p, q: p + q, lambda x, y: x + y), (lambda p, q: p * q, lambda x, y: x * y)):
        result = op(a, b)
        assert _saturated(result)
        assert all(result.contains_value(combine(x, y)) for x, y in corners if combine(x, y) < INT64_MAX)
    if not (a.is_static and b.is_static):
        difference = a - b
        assert _saturated(difference)
        assert all(difference.contains_value(max(0, x - y)) for x, y in corners if x < INT64_MAX)
    for combined in (Dimension.merge(a, b), Dimension.broadcast_merge(a, b), join(a, b)):
        assert combined is None or _saturated(combined)


#: lower bounds of OpenVINO's non-empty intervals (a lower bound of `s_max` is its empty one)
in_range = st.one_of(st.integers(0, 40), st.integers(INT64_MAX - 40, INT64_MAX - 1))


@st.composite
def int64_intervals(draw) -> Dimension:
    lo = draw(in_range)
    return Dimension(lo, draw(st.one_of(st.just(-1), st.integers(lo, INT64_MAX))))


@LIGHT
@given(int64_intervals(), int64_intervals())
def test_dimension_arithmetic_agrees_with_openvino_intervals(a, b) -> None:
    """Dimension's interval arithmetic is `Interval`'s (OpenVINO's `ov::Interval`), bound for
    bound, saturation included."""
    assume(not (a.is_static and b.is_static))
    assert (a + b).get_interval() == a.get_interval() + b.get_interval()
    assert (a - b).get_interval() == a.get_interval() - b.get_interval()
    assert (a * b).get_interval() == a.get_interval() * b.get_interval()
    merged = Dimension.merge(a, b)
    meet = a.get_interval() & b.get_interval()
    assert (merged is None) == meet.empty() and (merged is None or merged.get_interval() == meet)


# OpenVINO symbols -----------------------------------------------------------------------------------
labels = st.sampled_from(["a", "b", None, "shared"])


def label(d: Dimension, name, table: dict) -> Dimension:
    """`d` labelled by the symbol called `name` in `table` (made on first use)."""
    return d if name is None else d.with_symbol(table.setdefault(name, Symbol(name)))


@LIGHT
@given(any_dims, any_dims, labels, labels)
def test_labels_never_change_values(a, b, la, lb) -> None:
    table: dict = {}
    la_, lb_ = label(a, la, table), label(b, lb, table)
    assert la_ == a and hash(la_) == hash(a) and str(la_) == str(a)
    assert Dimension.merge(la_, lb_) == Dimension.merge(a, b)
    assert Dimension.broadcast_merge(la_, lb_) == Dimension.broadcast_merge(a, b)


@LIGHT
@given(any_dims, any_dims, labels, labels)
def test_merge_makes_the_symbols_equal_and_keeps_one(a, b, la, lb) -> None:
    table: dict = {}
    a, b = label(a, la, table), label(b, lb, table)
    sa, sb = a.get_symbol(), b.get_symbol()
    merged = Dimension.merge(a, b)
    if merged is None:
        return
    assert merged.get_symbol() in {s for s in (sa, sb) if s is not None} | ({None} if sa is sb is None else set())
    if sa is not None and sb is not None:
        assert symbols.are_equal(sa, sb)
        assert symbols.are_equal(merged.get_symbol(), sa) and symbols.are_equal(merged.get_symbol(), sb)


@LIGHT
@given(any_dims, any_dims, labels, labels)
def test_merge_commutes_up_to_equal_symbols(a, b, la, lb) -> None:
    table: dict = {}
    a, b = label(a, la, table), label(b, lb, table)
    ab, ba = Dimension.merge(a, b), Dimension.merge(b, a)
    assert ab == ba
    if ab is not None and ab.has_symbol():
        assert symbols.are_equal(ab.get_symbol(), ba.get_symbol())


@LIGHT
@given(any_dims, any_dims, labels, labels)
def test_broadcast_keeps_an_input_symbol_or_none(a, b, la, lb) -> None:
    table: dict = {}
    a, b = label(a, la, table), label(b, lb, table)
    result = Dimension.broadcast_merge(a, b)
    if result is None:
        return
    assert result.get_symbol() in (a.get_symbol(), b.get_symbol(), None)
    if a.get_symbol() is not None and a.get_symbol() is b.get_symbol():
        assert result.get_symbol() is a.get_symbol(), "one symbol on both sides survives"


@LIGHT
@given(any_dims, labels)
def test_broadcast_with_an_unlabelled_one_keeps_value_and_label(d, name) -> None:
    d = label(d, name, {})
    for result in (Dimension.broadcast_merge(d, 1), Dimension.broadcast_merge(1, d)):
        assert result == d and result.get_symbol() is d.get_symbol()


@LIGHT
@given(
    same_rank_shapes(any_dims, 2), st.lists(labels, min_size=3, max_size=3), st.lists(labels, min_size=3, max_size=3)
)
def test_shape_merge_links_the_symbols_of_each_dim(ab, la, lb) -> None:
    table: dict = {}
    a = PartialShape([label(d, n, table) for d, n in zip(ab[0], la)])
    b = PartialShape([label(d, n, table) for d, n in zip(ab[1], lb)])
    dst = PartialShape(a)
    if not PartialShape.merge_into(dst, b):
        return
    for x, y, m in zip(a, b, dst):
        for s in (x.get_symbol(), y.get_symbol()):
            assert s is None or symbols.are_equal(m.get_symbol(), s)


# PDPD broadcasting, text forms, static shapes ----------------------------------------------------------
@LIGHT
@given(shapes(interval_dims), shapes(interval_dims))
def test_pdpd_with_trailing_axis_agrees_with_numpy(dst, src) -> None:
    """PaddlePaddle broadcasting of a no-larger shape at the trailing dims, where it succeeds,
    is NumPy broadcasting."""
    pdpd = PartialShape(dst)
    if PartialShape.broadcast_merge_into(pdpd, src, "pdpd"):
        assert pdpd == dst.broadcast_merge(src)


@LIGHT
@given(shapes(interval_dims))
def test_openvino_text_round_trips(s) -> None:
    assert PartialShape(s.to_string()) == s
    assert all(Dimension(d.to_string()) == d for d in (s if s.rank.is_static else []))


@LIGHT
@given(st.lists(st.integers(0, 2**70), max_size=4))
def test_static_shapes_are_tuples_that_compare_with_lists(sizes) -> None:
    s = Shape(sizes)
    assert s == sizes and s == tuple(sizes) and PartialShape(s).to_shape() == s and hash(s) == hash(tuple(sizes))
    assert PartialShape(sizes).get_min_shape() == sizes == PartialShape(sizes).get_max_shape()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 9), st.integers(0, 9), st.integers(2, 4), st.integers(0, 3))
def test_a_constraint_over_one_sum_holds_exactly_where_the_equation_does(h: int, w: int, den: int, shift: int) -> None:
    """`den * ((h + w + shift) // den) = h + w + shift` over the sum `(h + w)`: its residues
    hold for (h, w) exactly when the equation does."""
    from gradual.shapes.constraint import solve

    hs, ws = Symbol("h"), Symbol("w")
    hd, wd = (Dimension.of_expr(Poly.atom(x)) for x in (hs, ws))
    found = solve(((hd + wd + shift) // den) * den, hd + wd + shift)
    assert found.symbol is not None and found.symbol.name == "(h + w)"
    holds = den * ((h + w + shift) // den) == h + w + shift
    if found.kind == "residues":
        assert ((h + w) % found.values[0] in found.values[1:]) == holds
    else:
        assert found.kind == "impossible" and not holds
