"""The parser on every form of spec §2, the spans it records, and its syntax errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import gradual
from gradual.syntax import ast
from gradual.syntax.parser import MAX_DIGITS, ParseError, parse, parse_stdlib_source
from gradual.syntax.printer import format_dim, format_module, format_type
from gradual.syntax.source import Source


def body_of(text: str, name: str = "f") -> ast.Body:
    """The body of `def @name` in a parsed program."""
    d = parse(text).find(name)
    assert d is not None
    return d.body


def result(expr_text: str, params: str = "%x, %y, %t") -> ast.Node:
    """The result expression of `def @f(params) { expr_text }`."""
    return body_of(f"def @f({params}) {{ {expr_text} }}").result


def param_type(type_text: str) -> ast.Node:
    """The parsed annotation of a parameter of type `type_text`."""
    d = parse(f"def @f(%x: {type_text}) {{ %x }}").defs[0]
    return d.params[0].type


def dims_of(dims_text: str) -> tuple:
    t = param_type(f"Tensor[{dims_text}, float32]")
    assert isinstance(t, ast.TensorTypeExpr)
    return t.dims


def parse_error(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse(text)
    return info.value


# module structure, header, comments -----------------------------------------------------------
SPEC_EXAMPLE = """#[version = "0.0.5"]                      // optional Relay header, ignored
// line comment        /* block comment */

def @dense(%x: Tensor[(n, k), float32], %w: Tensor[(m, k), float32]) -> Tensor[(n, m), float32] {
  nn.dense(%x, %w)
}

def @main(%x: Tensor[(?, 784), float32], %w1: Tensor[(128, 784), float32]) {
  %0 = @dense(%x, %w1);                   // graph binding, same as let
  let %h: Tensor[(b, 128), float32] = nn.relu(%0);   // annotated let: binds b at runtime
  %h
}
"""


def test_spec_example_parses() -> None:
    module = parse(SPEC_EXAMPLE)
    assert [d.name for d in module.defs] == ["dense", "main"]
    dense, main = module.defs
    assert [p.var.name for p in dense.params] == ["x", "w"]
    assert format_type(dense.ret) == "Tensor[(n, m), float32]"
    graph, let = main.body.stmts
    assert isinstance(graph, ast.Let) and graph.graph and graph.var.name == "0" and graph.type is None
    assert isinstance(graph.value, ast.Call) and isinstance(graph.value.callee, ast.GlobalVar)
    assert isinstance(let, ast.Let) and not let.graph and format_type(let.type) == "Tensor[(b, 128), float32]"
    assert isinstance(main.body.result, ast.Var) and main.body.result.name == "h"


def test_header_is_optional_and_ignored() -> None:
    with_header = parse('#[version = "0.0.5"]\ndef @f(%x) { %x }')
    without = parse("def @f(%x) { %x }")
    assert ast.same_tree(with_header, without)


def test_comments_are_ignored() -> None:
    text = """// first
/* a block
   over lines */ def @f(%x /* inline */) { // after brace
  %x // trailing
} // no newline at end"""
    assert ast.same_tree(parse(text), parse("def @f(%x) { %x }"))


def test_empty_program() -> None:
    assert parse("").defs == ()
    assert parse("// only a comment\n/* and a block */").defs == ()


def test_definition_with_dtype_params_and_return_type() -> None:
    d = parse("def @f[T, U](%x: Tensor[(n,), T], %y: U) -> Tensor[(n,), T] { %x }").defs[0]
    assert d.dtype_params == ("T", "U")
    assert format_type(d.ret) == "Tensor[(n,), T]"
    assert isinstance(d.params[1].type, ast.TensorTypeExpr) and d.params[1].type.dims == ()


def test_parameters_without_types_and_with_holes() -> None:
    d = parse("def @f(%x, %y: ?T, %z: ?) { %x }").defs[0]
    x, y, z = d.params
    assert x.type is None
    assert isinstance(y.type, ast.HoleTypeExpr) and y.type.name == "T"
    assert isinstance(z.type, ast.DynTypeExpr)


def test_trailing_commas() -> None:
    d = parse("def @f(%x, %y,) { g(%x, %y, a=1,) }").defs[0]
    assert len(d.params) == 2 and len(d.body.result.args) == 2


# statements ----------------------------------------------------------------------------------
def test_graph_binding_and_lets() -> None:
    body = body_of("def @f(%x) { %0 = %x; let %a = %0; let %b: float32 = %a; %b }")
    graph, let_plain, let_typed = body.stmts
    assert graph.graph and graph.var.name == "0"
    assert not let_plain.graph and let_plain.type is None
    assert isinstance(let_typed.type, ast.TensorTypeExpr) and let_typed.type.dtype == "float32"


def test_hint_statement() -> None:
    body = body_of("def @f(%x) { can_unify(%x, shape=(1, 1)); %x }")
    (hint,) = body.stmts
    assert isinstance(hint, ast.Hint) and hint.var.name == "x"
    assert [format_dim(d) for d in hint.dims] == ["1", "1"]
    (hint,) = body_of("def @f(%x) { can_unify(%x, shape=(?, n + 1, 1..4)); %x }").stmts
    assert [format_dim(d) for d in hint.dims] == ["?", "n + 1", "1..4"]


def test_hint_of_dynamic_rank_is_an_error() -> None:
    err = parse_error("def @f(%x) { can_unify(%x, shape=*); %x }")
    assert err.span.text == "*" and "known rank" in err.detail


# literals ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, value, dtype",
    [
        ("1", 1, "int32"),
        ("-2", -2, "int32"),
        ("1i64", 1, "int64"),
        ("7i8", 7, "int8"),
        ("3u8", 3, "uint8"),
        ("1.5f", 1.5, "float32"),
        ("2.0", 2.0, "float32"),
        ("2.5f64", 2.5, "float64"),
        ("1f16", 1.0, "float16"),
        ("1e3", 1000.0, "float32"),
        ("True", True, "bool"),
        ("False", False, "bool"),
        (str(10**30), 10**30, "int32"),
    ],
)
def test_literals(text, value, dtype) -> None:
    lit = result(text)
    assert isinstance(lit, ast.Literal)
    assert lit.value == value and type(lit.value) is type(value)
    assert lit.dtype == dtype and lit.text == text


def test_integer_literal_with_a_fraction_is_an_error() -> None:
    err = parse_error("def @f() { 1.5i64 }")
    assert err.span.text == "1.5i64" and "fractional" in err.detail


def test_float_literal_out_of_range_is_an_error() -> None:
    err = parse_error("def @f() { 1e999 }")
    assert err.span.text == "1e999" and "too large" in err.detail


# expressions -------------------------------------------------------------------------------------
def test_tuples() -> None:
    pair = result("(%x, %y)")
    assert isinstance(pair, ast.TupleExpr) and [f.name for f in pair.fields] == ["x", "y"]
    single = result("(%x,)")
    assert isinstance(single, ast.TupleExpr) and len(single.fields) == 1
    unit = result("()")
    assert isinstance(unit, ast.TupleExpr) and unit.fields == ()
    paren = result("(%x)")
    assert isinstance(paren, ast.Var)


def test_projections() -> None:
    p = result("%t.0")
    assert isinstance(p, ast.Proj) and p.index == 0 and p.tuple.name == "t"
    chain = result("%t.1.0")
    assert isinstance(chain, ast.Proj) and chain.index == 0
    assert isinstance(chain.tuple, ast.Proj) and chain.tuple.index == 1
    lit = result("(1).0")
    assert isinstance(lit, ast.Proj) and isinstance(lit.tuple, ast.Literal)


def test_calls_of_operators_globals_and_locals() -> None:
    op = result("nn.dense(%x, %y)")
    assert isinstance(op, ast.Call) and isinstance(op.callee, ast.OpRef) and op.callee.name == "nn.dense"
    glob = result("@g(%x)")
    assert isinstance(glob.callee, ast.GlobalVar) and glob.callee.name == "g"
    loc = result("%x(%y)")
    assert isinstance(loc.callee, ast.Var)
    curried = result("%x(%y)(%t)")
    assert isinstance(curried.callee, ast.Call)
    empty = result("@g()")
    assert empty.args == () and empty.attrs == ()


def test_call_attributes() -> None:
    call = result(
        'f(%x, axis=0, alpha=0.5, layout="NCHW", dtype=int64, newshape=[-1, 4], pad=(1, 2), flag=True, units=None, e=[])'
    )
    attrs = {a.name: a.value for a in call.attrs}
    assert attrs["axis"] == 0 and attrs["alpha"] == 0.5 and attrs["layout"] == "NCHW"
    assert isinstance(attrs["dtype"], ast.Ident) and attrs["dtype"].name == "int64"
    assert isinstance(attrs["newshape"], ast.AttrSeq) and attrs["newshape"].square
    assert attrs["newshape"].items == (-1, 4)
    assert isinstance(attrs["pad"], ast.AttrSeq) and not attrs["pad"].square and attrs["pad"].items == (1, 2)
    assert attrs["flag"] is True and attrs["units"] is None
    assert attrs["e"].items == ()
    assert len(call.args) == 1


def test_string_attribute_escapes() -> None:
    call = result(r'f(s="a\"b\\c\nd\te")')
    assert call.attrs[0].value == 'a"b\\c\nd\te'


def test_nested_attribute_sequences() -> None:
    call = result("f(p=[[1, 2], (3,), [int8, 1.5]])")
    outer = call.attrs[0].value
    first, second, third = outer.items
    assert first.items == (1, 2) and first.square
    assert second.items == (3,) and not second.square
    assert isinstance(third.items[0], ast.Ident) and third.items[1] == 1.5


def test_positional_after_attribute_is_an_error() -> None:
    err = parse_error("def @f(%x) { g(a=1, %x) }")
    assert err.span.text == "%x" and "attribute" in err.detail


def test_attribute_given_twice_is_an_error() -> None:
    err = parse_error("def @f(%x) { g(%x, a=1, a=2) }")
    assert err.span.text == "a=2" and "twice" in err.detail


def test_if_expression() -> None:
    e = result("if (%x) { let %z = %y; %z } else { %t }")
    assert isinstance(e, ast.If) and e.cond.name == "x"
    assert len(e.then.stmts) == 1 and e.otherwise.result.name == "t"


def test_closures() -> None:
    e = result("fn (%a: float32, %b) -> float32 { add(%a, %b) }")
    assert isinstance(e, ast.Fn) and [p.var.name for p in e.params] == ["a", "b"]
    assert format_type(e.ret) == "float32" and e.params[1].type is None
    applied = result("fn () { 1 }()")
    assert isinstance(applied, ast.Call) and isinstance(applied.callee, ast.Fn)


def test_casts() -> None:
    e = result("%x as Tensor[(2, ?), float32]")
    assert isinstance(e, ast.Cast) and e.expr.name == "x"
    chained = result("%x as ? as float32")
    assert isinstance(chained, ast.Cast) and isinstance(chained.expr, ast.Cast)
    call_arg = result("f(%x as float32).0")
    assert isinstance(call_arg, ast.Proj) and isinstance(call_arg.tuple.args[0], ast.Cast)
    projected = result("(%x as (float32, float32)).1")
    assert isinstance(projected, ast.Proj) and isinstance(projected.tuple, ast.Cast)


# types -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, printed",
    [
        ("Tensor[(1, 2, 3), float32]", "Tensor[(1, 2, 3), float32]"),
        ("Tensor[(n, k), float32]", "Tensor[(n, k), float32]"),
        (
            "Tensor[(n + 1, 2 * n, n * m, (h - 1) // 2 + 1), int8]",
            "Tensor[(n + 1, 2 * n, n * m, (h - 1) // 2 + 1), int8]",
        ),
        ("Tensor[(1..8, 2.., ..8, ?), float32]", "Tensor[(1..8, 2.., ..8, ?), float32]"),
        ("Tensor[(3), float32]", "Tensor[(3,), float32]"),
        ("Tensor[(3,), float32]", "Tensor[(3,), float32]"),
        ("Tensor[*, float32]", "Tensor[*, float32]"),
        ("Tensor[(), float32]", "float32"),
        ("Tensor[(2,), ?]", "Tensor[(2,), ?]"),
        ("Tensor[(), ?]", "Tensor[(), ?]"),
        ("float32", "float32"),
        ("(float32, Tensor[(2,), int32])", "(float32, Tensor[(2,), int32])"),
        ("(float32,)", "(float32,)"),
        ("()", "()"),
        ("(float32)", "float32"),
        ("fn (float32, ?T) -> ?", "fn (float32, ?T) -> ?"),
        ("fn () -> fn (int8) -> int8", "fn () -> fn (int8) -> int8"),
        ("?", "?"),
        ("?T", "?T"),
    ],
)
def test_types(text, printed) -> None:
    assert format_type(param_type(text)) == printed


def test_tensor_type_structure() -> None:
    t = param_type("Tensor[(1, n, ?, 1..8, n + 1), float32]")
    assert isinstance(t, ast.TensorTypeExpr) and t.dtype == "float32"
    one, n, unknown, interval, binary = t.dims
    assert isinstance(one, ast.DimInt) and one.value == 1
    assert isinstance(n, ast.DimName) and n.name == "n"
    assert isinstance(unknown, ast.DimUnknown)
    assert isinstance(interval, ast.DimInterval) and (interval.lo, interval.hi) == (1, 8)
    assert isinstance(binary, ast.DimBinary) and binary.op == "+"
    assert param_type("Tensor[*, int8]").dims is None
    scalar = param_type("int64")
    assert isinstance(scalar, ast.TensorTypeExpr) and scalar.dims == () and scalar.dtype == "int64"


def test_dimension_arithmetic_precedence() -> None:
    (d,) = dims_of("(1 + 2 * n - m // 2,)")
    assert d.op == "-"
    assert d.left.op == "+" and d.left.right.op == "*"
    assert d.right.op == "//"
    (d,) = dims_of("(n - (m - 1),)")
    assert d.op == "-" and isinstance(d.right, ast.DimBinary)
    (d,) = dims_of("(n - m - 1,)")
    assert d.left.op == "-" and isinstance(d.right, ast.DimInt)


def test_floor_division_in_dims_and_comments_elsewhere() -> None:
    (d,) = dims_of("((h - 1)//2,)")
    assert d.op == "//" and d.right.value == 2
    (d,) = dims_of("(n // m,)")
    assert d.op == "//" and d.right.name == "m"
    (d,) = dims_of("(n //2,)")
    assert d.op == "//"
    text = "def @f(%x: Tensor[(n, // the batch\n 3), float32]) { %x // 2\n}"
    module = parse(text)
    assert [format_dim(x) for x in module.defs[0].params[0].type.dims] == ["n", "3"]
    assert isinstance(module.defs[0].body.result, ast.Var)


def test_broadcast_and_variadic_dims() -> None:
    (d,) = dims_of("(n|1,)")
    assert isinstance(d, ast.DimBroadcast) and d.target.name == "n"
    (d,) = dims_of("(1|k,)")
    assert isinstance(d, ast.DimBroadcast) and d.target.name == "k"
    (d,) = dims_of("(*b,)")
    assert isinstance(d, ast.DimVariadic) and d.name == "b"
    err = parse_error("def @f(%x: Tensor[(2|3,), float32]) { %x }")
    assert err.span.text == "2|3"


def test_huge_dimensions() -> None:
    (d,) = dims_of(f"({10**30},)")
    assert d.value == 10**30
    err = parse_error(f"def @f(%x: Tensor[({'9' * (MAX_DIGITS + 1)},), float32]) {{ %x }}")
    assert f"{MAX_DIGITS + 1} digits" in err.detail
    assert err.span.start_position == (1, 20)
    assert len(err.found) < 50


# stdlib declarations --------------------------------------------------------------------------------
STDLIB = """// operators
/// The first line of the doc.
/// The second.
def nn.dense[T](%data: Tensor[(*b, k), T], %weight: Tensor[(u, k), T], units: int? = None, out_dtype: dtype = "") -> Tensor[(*b, u), T];
def add[T](%lhs: Tensor[*, T], %rhs: Tensor[*, T]) -> Tensor[*, T] = broadcast_add;
def zeros(shape: [int], dtype: dtype = "float32", axes: [int]? = [0, 1], keep: bool = False) -> Tensor[*, ?] = static_shape;
"""


def test_stdlib_declarations() -> None:
    module = parse_stdlib_source(Source(STDLIB, "nn.rly"))
    dense, add, zeros = module.defs
    assert isinstance(dense, ast.OpDecl) and dense.name == "nn.dense" and dense.dtype_params == ("T",)
    assert [p.var.name for p in dense.params] == ["data", "weight"]
    assert [(a.name, a.kind, a.optional, a.has_default, a.default) for a in dense.attrs] == [
        ("units", "int", True, True, None),
        ("out_dtype", "dtype", False, True, ""),
    ]
    assert dense.rule is None and dense.doc == "The first line of the doc. The second."
    assert format_type(dense.ret) == "Tensor[(*b, u), T]"
    assert add.rule == "broadcast_add" and add.attrs == () and add.doc == ""
    shape, dtype, axes, keep = zeros.attrs
    assert (shape.kind, shape.is_list, shape.optional, shape.has_default) == ("int", True, False, False)
    assert (axes.is_list, axes.optional) == (True, True) and axes.default.items == (0, 1)
    assert keep.default is False and dtype.default == "float32"


def test_stdlib_spans() -> None:
    module = parse_stdlib_source(Source(STDLIB, "nn.rly"))
    dense = module.defs[0]
    assert dense.span.text.startswith("def nn.dense[T](") and dense.span.text.endswith("T];")
    assert [a.span.text for a in dense.attrs] == ["units: int? = None", 'out_dtype: dtype = ""']
    assert module.defs[2].attrs[0].span.text == "shape: [int]"


def test_stdlib_files_parse() -> None:
    root = Path(__file__).resolve().parent.parent / "stdlib"
    files = sorted(p for p in root.glob("*.rly") if p.name != "prelude.rly")  # the prelude is a program
    assert files
    for path in files:
        module = parse_stdlib_source(Source(path.read_text(encoding="utf-8"), str(path)))
        assert module.defs and all(isinstance(d, ast.OpDecl) for d in module.defs)


def test_program_parser_rejects_declarations() -> None:
    err = parse_error("def add(%x: float32) -> float32;")
    assert err.span.text == "add"


# spans ---------------------------------------------------------------------------------------------
SPAN_PROGRAM = """def @main(%x: Tensor[(n, 2), float32], %y) -> float32 {
  %0 = nn.softmax(%x, axis=-1);
  let %t: (float32, float32) = (%0, %y);
  can_unify(%y, shape=(1, ?));
  if (%t.0) { %t.1 as float32 } else { fn (%z) { %z }(%y) }
}
"""


def spans() -> dict:
    """Some nodes of SPAN_PROGRAM and their span texts."""
    d = parse(SPAN_PROGRAM).defs[0]
    graph, let, hint = d.body.stmts
    call = graph.value
    branch = d.body.result
    return {
        "def": d.span.text,
        "name": d.name_span.text,
        "param": d.params[0].span.text,
        "param type": d.params[0].type.span.text,
        "dim": d.params[0].type.dims[0].span.text,
        "ret": d.ret.span.text,
        "graph": graph.span.text,
        "call": call.span.text,
        "callee": call.callee.span.text,
        "attr": call.attrs[0].span.text,
        "let": let.span.text,
        "let var": let.var.span.text,
        "tuple type": let.type.span.text,
        "tuple": let.value.span.text,
        "hint": hint.span.text,
        "if": branch.span.text,
        "cond": branch.cond.span.text,
        "then": branch.then.span.text,
        "cast": branch.then.result.span.text,
        "closure call": branch.otherwise.result.span.text,
        "closure": branch.otherwise.result.callee.span.text,
        "body": d.body.span.text,
    }


def test_spans_cover_their_text() -> None:
    s = spans()
    assert s["def"] == SPAN_PROGRAM.rstrip("\n")
    assert s["name"] == "@main"
    assert s["param"] == "%x: Tensor[(n, 2), float32]"
    assert s["param type"] == "Tensor[(n, 2), float32]"
    assert s["dim"] == "n"
    assert s["ret"] == "float32"
    assert s["graph"] == "%0 = nn.softmax(%x, axis=-1);"
    assert s["call"] == "nn.softmax(%x, axis=-1)"
    assert s["callee"] == "nn.softmax"
    assert s["attr"] == "axis=-1"
    assert s["let"] == "let %t: (float32, float32) = (%0, %y);"
    assert s["let var"] == "%t"
    assert s["tuple type"] == "(float32, float32)"
    assert s["tuple"] == "(%0, %y)"
    assert s["hint"] == "can_unify(%y, shape=(1, ?));"
    assert s["if"].startswith("if (%t.0)") and s["if"].endswith("(%y) }")
    assert s["cond"] == "%t.0"
    assert s["then"] == "{ %t.1 as float32 }"
    assert s["cast"] == "%t.1 as float32"
    assert s["closure call"] == "fn (%z) { %z }(%y)"
    assert s["closure"] == "fn (%z) { %z }"
    assert s["body"].startswith("{\n  %0") and s["body"].endswith("}")


def test_spans_of_attribute_values() -> None:
    call = result('f(%x, a=[1, 2], b="s", c=(1,), d=None, e=int8, g=-1.5)')
    assert [a.span.text for a in call.attrs] == ["a=[1, 2]", 'b="s"', "c=(1,)", "d=None", "e=int8", "g=-1.5"]
    assert call.attrs[0].value.span.text == "[1, 2]"


def test_spans_of_dims() -> None:
    dims = dims_of("(n + 1, (h - 1) // 2, 1..8, ?, 2..)")
    assert [d.span.text for d in dims] == ["n + 1", "(h - 1) // 2", "1..8", "?", "2.."]
    assert dims[1].left.span.text == "(h - 1)"


def test_span_positions_are_one_based() -> None:
    d = parse("\n\ndef @f(%x) {\n    %x\n}").defs[0]
    assert d.span.start_position == (3, 1)
    assert d.body.result.span.start_position == (4, 5)
    assert d.body.result.span.end_position == (4, 7)
    assert d.body.result.span.describe() == "<input>:4:5"


# errors ---------------------------------------------------------------------------------------------
def test_error_location_and_expected_tokens() -> None:
    err = parse_error("def @f(%x) {\n  let %y = ;\n  %y\n}")
    assert err.span.start_position == (2, 12)
    assert err.found == "`;`"
    assert "a local variable (`%x`)" in err.expected and "`if`" in err.expected and "`fn`" in err.expected
    assert "`;`" not in err.expected


def test_missing_semicolon() -> None:
    err = parse_error("def @f(%x) {\n  let %y = %x\n  %y\n}")
    assert err.span.start_position == (3, 3)
    assert err.found == "`%y`"
    assert "`;`" in err.expected


def test_missing_comma_in_tensor_type() -> None:
    err = parse_error("def @f(%x: Tensor[(1, 2) float32]) { %x }")
    assert err.span.start_position == (1, 26) and err.expected == ("`,`",)


def test_unexpected_end_of_input() -> None:
    text = "def @f(%x) {\n  %x"
    err = parse_error(text)
    assert err.found == "end of input"
    assert err.span.start_position == (2, 5)
    assert "`}`" in err.expected


def test_unexpected_character() -> None:
    err = parse_error("def @f(%x) { %x } $")
    assert err.span.start_position == (1, 19) and err.found == "`$`"
    assert set(err.expected) == {"`def`", "`type`", "end of input"}


def test_unprintable_character_is_named() -> None:
    err = parse_error("def @f(%x) { %x \x00 }")
    assert err.found == "character U+0000"


def test_unterminated_block_comment() -> None:
    err = parse_error("def @f(%x) { %x }\n/* never closed")
    assert err.span.start_position == (2, 1) and "unterminated" in err.detail


def test_missing_global_sigil() -> None:
    err = parse_error("def f(%x) { %x }")
    assert err.span.start_position == (1, 5) and err.expected == ("a global (`@f`)",)


def test_check_reports_parse_errors_as_diagnostics() -> None:
    result_ = gradual.check("def @f(%x) {\n  %x +\n}", "bad.rly")
    (diag,) = result_.diagnostics
    assert diag.code == "parse-error" and (diag.line, diag.column) == (2, 6)
    assert "unexpected `+`" in diag.message


def test_parse_error_diagnostic_lists_expected_tokens() -> None:
    with pytest.raises(gradual.SyntaxProblem) as info:
        gradual.parse("def @f(%x: Tensor[(1, 2) float32]) { %x }")
    diag = info.value.diagnostic
    assert (diag.line, diag.column) == (1, 26)
    assert diag.message == "unexpected `float32`"
    assert diag.label == "expected `,`"


# printing ------------------------------------------------------------------------------------------
def test_printer_output_of_the_spec_example() -> None:
    printed = format_module(parse(SPEC_EXAMPLE))
    assert printed == (
        "def @dense(%x: Tensor[(n, k), float32], %w: Tensor[(m, k), float32]) -> Tensor[(n, m), float32] {\n"
        "  nn.dense(%x, %w)\n"
        "}\n\n"
        "def @main(%x: Tensor[(?, 784), float32], %w1: Tensor[(128, 784), float32]) {\n"
        "  %0 = @dense(%x, %w1);\n"
        "  let %h: Tensor[(b, 128), float32] = nn.relu(%0);\n"
        "  %h\n"
        "}\n"
    )
    assert ast.same_tree(parse(printed), parse(SPEC_EXAMPLE))


def test_printer_parenthesizes_what_needs_it() -> None:
    for text in ["(1).0", "(%x as ?).0", "(%x as ?)(%y)", "%t.0.1", "(-2).0"]:
        printed = format_module(parse(f"def @f(%x, %y, %t) {{ {text} }}"))
        assert f"  {text}\n" in printed
    (d,) = dims_of("((n - 1) // (m * 2) - (k - 1),)")
    assert format_dim(d) == "(n - 1) // (m * 2) - (k - 1)"


def test_printer_handles_intervals_built_without_bounds() -> None:
    assert format_dim(ast.DimInterval(None, None)) == "0.."


# the parser's tables --------------------------------------------------------------------------
LARK_LOADED = (
    "import sys, gradual; result = gradual.check('def @main(%x: Tensor[(2,), float32]) { nn.relu(%x) }'); "
    "assert result.ok; print('lark' in sys.modules)"
)


def test_the_parser_needs_lark_only_to_build_its_tables_and_to_report_errors(tmp_path: Path) -> None:
    """The first start builds the driver's tables with lark and caches them; later starts read
    them and never import lark unless a program has a syntax error."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "GRADUAL_CACHE_DIR": str(tmp_path / "gradual")}
    first = subprocess.run([sys.executable, "-c", LARK_LOADED], env=env, capture_output=True, text=True, check=True)
    later = subprocess.run([sys.executable, "-c", LARK_LOADED], env=env, capture_output=True, text=True, check=True)
    assert (first.stdout.strip(), later.stdout.strip()) == ("True", "False")
    assert any(p.name.endswith(".tables") for p in (tmp_path / "gradual").iterdir())


def test_cached_tables_that_are_damaged_or_of_another_grammar_are_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import marshal

    from gradual.infra import usercache
    from gradual.syntax import parser

    monkeypatch.setenv("GRADUAL_CACHE_DIR", str(tmp_path / "gradual"))
    usercache.directory.cache_clear()
    path = tmp_path / "gradual" / parser._tables_name()
    path.parent.mkdir(mode=0o700)
    try:
        for damaged in (b"\x00garbage", marshal.dumps({"format": 1, "grammar": "start: NAME", "rows": {}})):
            path.write_bytes(damaged)
            assert parser._cached_tables() is None
            fresh = parser._Parser()
            assert ast.same_tree(
                fresh.parse(Source("def @f(%x) { %y = add(%x, %x); %y }")), parse("def @f(%x) { %y = add(%x, %x); %y }")
            )
            assert parser._cached_tables() is not None  # rewritten
    finally:
        usercache.directory.cache_clear()
