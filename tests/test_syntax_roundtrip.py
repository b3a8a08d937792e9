"""Printer/parser round trip on random well-formed trees, and robustness of `gradual.check`
on huge, deep and random inputs.

The strategies build AST nodes directly (every form the parser can produce), so the
property `same_tree(parse(format_module(m)), m)` checks the printer and the parser against
each other, and `format_module` being a fixed point checks that printing is canonical.
"""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradual
from gradual.syntax import ast
from gradual.syntax.parser import parse
from gradual.syntax.printer import format_dim, format_module, format_type

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYWORDS = {"def", "let", "if", "else", "fn", "as", "Tensor", "can_unify", "None", "True", "False"}
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]

# names ------------------------------------------------------------------------------------------
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(lambda s: s not in KEYWORDS)
op_names = st.lists(names, min_size=1, max_size=3).map(".".join)
local_names = st.from_regex(r"[A-Za-z0-9_]{1,6}", fullmatch=True)
big_ints = st.one_of(st.integers(0, 300), st.integers(0, 10**30))

# dimensions -------------------------------------------------------------------------------------
arith_dims = st.recursive(
    st.one_of(big_ints.map(ast.DimInt), names.map(ast.DimName)),
    lambda inner: st.builds(ast.DimBinary, st.sampled_from(["+", "-", "*", "//"]), inner, inner),
    max_leaves=6,
)


@st.composite
def intervals(draw) -> ast.DimInterval:
    lo = draw(st.one_of(st.none(), big_ints))
    hi = draw(st.integers(0, 10**6)) if lo is None else draw(st.one_of(st.none(), big_ints))
    return ast.DimInterval(lo, hi)


dims = st.one_of(
    arith_dims,
    st.just(None).map(lambda _: ast.DimUnknown()),
    intervals(),
    arith_dims.map(ast.DimBroadcast),
    names.map(ast.DimVariadic),
)
shapes = st.one_of(st.none(), st.lists(dims, max_size=4).map(tuple))

# types ------------------------------------------------------------------------------------------
dtypes = st.one_of(st.sampled_from(DTYPES + ["?"]), names)
tensor_types = st.builds(ast.TensorTypeExpr, shapes, dtypes)
types = st.recursive(
    st.one_of(tensor_types, st.just(None).map(lambda _: ast.DynTypeExpr()), names.map(ast.HoleTypeExpr)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda fs: ast.TupleTypeExpr(tuple(fs))),
        st.builds(lambda ps, r: ast.FnTypeExpr(tuple(ps), r), st.lists(inner, max_size=3), inner),
        inner.map(ast.RefTypeExpr),
    ),
    max_leaves=5,
)

# attribute values ----------------------------------------------------------------------------------
finite_floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
scalar_attrs = st.one_of(
    st.integers(-(10**20), 10**20),
    finite_floats,
    st.text(max_size=8),
    st.booleans(),
    st.none(),
    names.map(ast.Ident),
)
attr_values = st.recursive(
    scalar_attrs,
    lambda inner: st.one_of(
        st.builds(lambda items, sq: ast.AttrSeq(tuple(items), sq), st.lists(inner, max_size=3), st.booleans()),
        st.builds(  # an object Relay prints by its constructor: `VirtualDevice(device_type=1)`
            lambda name, fields: ast.AttrObject(name, tuple(ast.Attr(k, v) for k, v in fields)),
            names,
            st.lists(st.tuples(names, inner), max_size=3, unique_by=lambda kv: kv[0]),
        ),
    ),
    max_leaves=6,
)

# expressions ---------------------------------------------------------------------------------------
LITERAL_SUFFIXED = ["int8", "int16", "int64", "uint8", "float16", "float64"]


@st.composite
def literals(draw) -> ast.Literal:
    kind = draw(st.sampled_from(["int32", "float32", "bool", "suffixed"]))
    if kind == "int32":
        return ast.Literal(draw(st.integers(-(10**20), 10**20)), "int32")
    if kind == "float32":
        return ast.Literal(draw(finite_floats), "float32")
    if kind == "bool":
        return ast.Literal(draw(st.booleans()), "bool")
    dtype = draw(st.sampled_from(LITERAL_SUFFIXED))
    if dtype.startswith("float"):
        return ast.Literal(draw(finite_floats), dtype)
    return ast.Literal(draw(st.integers(-100, 100)), dtype)


leaves = st.one_of(
    local_names.map(ast.Var),
    names.map(ast.GlobalVar),
    op_names.map(ast.OpRef),
    literals(),
)


def params(type_strategy=types):
    return st.lists(
        st.builds(lambda n, t: ast.Param(ast.Var(n), t), local_names, st.one_of(st.none(), type_strategy)), max_size=3
    ).map(tuple)


@st.composite
def attrs(draw) -> tuple:
    keys = draw(st.lists(names, max_size=3, unique=True))
    return tuple(ast.Attr(k, draw(attr_values)) for k in keys)


def statements(exprs):
    let = st.builds(
        lambda v, t, e, graph: ast.Let(ast.Var(v), None if graph else t, e, graph=graph),
        local_names,
        st.one_of(st.none(), types),
        exprs,
        st.booleans(),
    )
    hint = st.builds(lambda v, ds: ast.Hint(ast.Var(v), tuple(ds)), local_names, st.lists(dims, max_size=3))
    return st.one_of(let, let, hint)


def bodies(exprs):
    return st.builds(lambda stmts, res: ast.Body(tuple(stmts), res), st.lists(statements(exprs), max_size=3), exprs)


def extend(exprs):
    """One more level of expressions over `exprs`."""
    return st.one_of(
        st.lists(exprs, max_size=3).map(lambda fs: ast.TupleExpr(tuple(fs))),
        st.builds(ast.Proj, exprs, st.integers(0, 5)),
        st.builds(lambda c, a, at: ast.Call(c, tuple(a), at), exprs, st.lists(exprs, max_size=3), attrs()),
        st.builds(ast.If, exprs, bodies(exprs), bodies(exprs)),
        st.builds(ast.Fn, params(), st.one_of(st.none(), types), bodies(exprs), attrs()),
        st.builds(ast.Cast, exprs, types),
        st.builds(
            lambda stmts, res: ast.Block(ast.Body(tuple(stmts), res)),
            st.lists(statements(exprs), min_size=1, max_size=2),
            exprs,
        ),
    )


expressions = st.recursive(leaves, extend, max_leaves=12)

definitions = st.builds(
    lambda name, tps, ps, ret, body, fn_attrs: ast.Def(name, tuple(tps), ps, ret, body, fn_attrs),
    names,
    st.lists(names, max_size=2),
    params(),
    st.one_of(st.none(), types),
    bodies(expressions),
    attrs(),
)
modules = st.lists(definitions, max_size=3).map(lambda ds: ast.Module(tuple(ds)))


# round trip ------------------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules)
def test_printed_modules_parse_back_to_the_same_tree(module) -> None:
    text = format_module(module)
    reparsed = parse(text)
    assert ast.same_tree(reparsed, module), text
    assert format_module(reparsed) == text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules)
def test_a_byte_order_mark_changes_nothing(module) -> None:
    """A file saved with a UTF-8 byte order mark checks as the same text without it: the
    same diagnostics at the same lines and columns."""
    text = format_module(module)
    plain, marked = gradual.check(text), gradual.check("\ufeff" + text)
    assert [(d.code, d.line, d.column) for d in marked.diagnostics] == [
        (d.code, d.line, d.column) for d in plain.diagnostics
    ]


@SETTINGS
@given(types)
def test_printed_types_parse_back(t) -> None:
    text = format_type(t)
    d = parse(f"def @f(%x: {text}) {{ %x }}").defs[0]
    assert ast.same_tree(d.params[0].type, t), text
    assert format_type(d.params[0].type) == text


@settings(max_examples=500, deadline=None)
@given(dims)
def test_printed_dims_parse_back(d) -> None:
    text = format_dim(d)
    (parsed,) = parse(f"def @f(%x: Tensor[({text},), float32]) {{ %x }}").defs[0].params[0].type.dims
    assert ast.same_tree(parsed, d), text
    assert format_dim(parsed) == text


@SETTINGS
@given(expressions)
def test_printed_expressions_parse_back(e) -> None:
    module = ast.Module((ast.Def("f", (), (), None, ast.Body((), e)),))
    text = format_module(module)
    assert ast.same_tree(parse(text), module), text


def test_same_tree_notices_differences() -> None:
    a = parse("def @f(%x) { g(%x, a=1) }")
    for other in [
        "def @f(%x) { g(%x, a=2) }",
        "def @f(%x) { g(%x, b=1) }",
        "def @f(%x) { g(%x, a=1.0) }",
        "def @f(%x) { g(%x, a=True) }",
        "def @f(%y) { g(%x, a=1) }",
        "def @f(%x) { g(%x) }",
    ]:
        assert not ast.same_tree(a, parse(other)), other
    assert ast.same_tree(a, parse("def @f(%x) {\n  g(%x, a=1)\n}"))


# robustness --------------------------------------------------------------------------------------
ROBUST_SECONDS = 30.0  # generous: each input takes well under a second on a laptop


def checked(text: str):
    """`gradual.check(text)` and how long it took."""
    start = time.perf_counter()
    result = gradual.check(text)
    return result, time.perf_counter() - start


def test_deeply_nested_parentheses() -> None:
    depth = 20_000
    result, seconds = checked("def @main(%x: Tensor[(2,), float32]) {\n  " + "(" * depth + "%x" + ")" * depth + "\n}\n")
    assert result.ok and str(result.function_type("main")) == "fn (Tensor[(2,), float32]) -> Tensor[(2,), float32]"
    assert seconds < ROBUST_SECONDS


def test_many_lets() -> None:
    count = 20_000
    lines = ["  let %v0 = %x;"] + [f"  let %v{i} = nn.relu(%v{i - 1});" for i in range(1, count)]
    text = "def @main(%x: Tensor[(2, n), float32]) {\n" + "\n".join(lines) + f"\n  %v{count - 1}\n}}\n"
    result, seconds = checked(text)
    assert result.ok and str(result.function_type("main")).endswith("-> Tensor[(2, n), float32]")
    assert seconds < ROBUST_SECONDS


def test_five_thousand_dims() -> None:
    rank = 5_000
    result, seconds = checked("def @main(%x: Tensor[(" + ", ".join(["2"] * rank) + "), float32]) {\n  nn.relu(%x)\n}\n")
    assert result.ok
    assert str(result.function_type("main")).count("2, ") == 2 * (rank - 1)
    assert seconds < ROBUST_SECONDS


def test_huge_dimension() -> None:
    big = 10**30
    result, seconds = checked(f"def @main(%x: Tensor[({big}, 3), float32]) {{\n  nn.relu(%x)\n}}\n")
    assert result.ok
    assert str(result.function_type("main")) == f"fn (Tensor[({big}, 3), float32]) -> Tensor[({big}, 3), float32]"
    assert seconds < ROBUST_SECONDS


def test_too_long_integer_is_a_diagnostic() -> None:
    result, _ = checked("def @main(%x: Tensor[(" + "9" * 5000 + ",), float32]) { %x }")
    assert [d.code for d in result.diagnostics] == ["parse-error"]
    assert result.diagnostics[0].column == 23


def test_deeply_nested_calls() -> None:
    depth = 10_000
    result, seconds = checked(
        "def @main(%x: Tensor[(2, ?), float32]) {\n  " + "nn.relu(" * depth + "%x" + ")" * depth + "\n}\n"
    )
    assert result.ok and str(result.function_type("main")).endswith("-> Tensor[(2, ?), float32]")
    assert seconds < ROBUST_SECONDS


def test_deep_nesting_with_an_error_at_the_bottom() -> None:
    depth = 10_000
    text = "def @main(%x: Tensor[(2, 3), float32]) {\n  " + "nn.relu(" * depth + "add(%x, %x" + ")" * depth + "\n}\n"
    result, seconds = checked(text)
    (diag,) = result.diagnostics
    assert diag.code == "parse-error" and diag.line == 3
    assert seconds < ROBUST_SECONDS


VALID = """#[version = "0.0.5"]
def @dense(%x: Tensor[(n, k), float32], %w: Tensor[(m, k), float32]) -> Tensor[(n, m), float32] {
  nn.dense(%x, %w)
}

def @main(%x: Tensor[(?, 784), float32], %w1: Tensor[(128, 784), float32], %b: Tensor[(1..8, 2), int32]) {
  %0 = @dense(%x, %w1);   // graph binding
  let %h: Tensor[(b, 128), float32] = nn.relu(%0);
  let %t = (%h, %b);
  let %c = if (less(1, 2)) { %t.0 } else { %h as Tensor[(?, 128), float32] };
  can_unify(%c, shape=(1, 128));
  fn (%y: Tensor[(b, 128), float32]) -> Tensor[(b, 128), float32] { add(%y, %c) }(%h)
}
"""


def check_never_raises(text: str) -> None:
    """`gradual.check` returns a result whose diagnostics all have a location."""
    result = gradual.check(text)
    for d in result.diagnostics:
        assert d.line >= 1 and d.column >= 1 and d.code


def test_the_valid_program_checks() -> None:
    result = gradual.check(VALID)
    assert result.ok, [d.message for d in result.diagnostics]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_raise(data) -> None:
    check_never_raises(data.decode("latin-1"))
    check_never_raises(data.decode("utf-8", errors="replace"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(VALID)), st.integers(0, 8), st.text(max_size=4)), min_size=1, max_size=4))
def test_mutations_of_a_valid_program_never_raise(edits) -> None:
    text = VALID
    for pos, delete, insert in edits:
        pos = min(pos, len(text))
        text = text[:pos] + insert + text[pos + delete :]
    check_never_raises(text)


@pytest.mark.parametrize("seed", range(3))
def test_token_shuffles_never_raise(seed) -> None:
    rng = random.Random(seed)
    tokens = VALID.replace("(", " ( ").replace(")", " ) ").replace(",", " , ").split()
    for _ in range(100):
        sample = tokens[:]
        i, j = rng.randrange(len(sample)), rng.randrange(len(sample))
        sample[i], sample[j] = sample[j], sample[i]
        del sample[rng.randrange(len(sample))]
        check_never_raises(" ".join(sample))


@pytest.mark.parametrize("value", ["a\rb", "a\nb", "a\r\nb", "\r", "tab\there"])
def test_a_string_holding_a_line_break_prints_escaped_and_parses_back(value: str) -> None:
    """A lone `\\r` is a line break (source.LINE_BREAK), as `\\n` is: the printer writes both
    escaped, or a string holding one printed a text that does not parse."""
    from dataclasses import replace

    module = gradual.parse("def @main(%x: Tensor[(2,), float32]) { nn.relu(%x) }")
    module = ast.Module((replace(module.defs[0], attrs=(ast.Attr("note", value),)),))
    text = format_module(module)
    assert "\r" not in text and text.count("\n") == 3
    assert gradual.parse(text).defs[0].attrs[0].value == value
