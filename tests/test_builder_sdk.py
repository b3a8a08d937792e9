"""The builder as a frontend author meets it: what it refuses (at the call that gave it,
naming the argument), what it accepts (NumPy scalars wherever Python numbers), and where a
diagnostic points for each construct (docs/frontends.md, "Where an error points")."""

from __future__ import annotations

import numpy as np
import pytest

import gradual
from gradual import builder as gb
from gradual.syntax import ast


def _finished() -> gb.Function:
    f = gb.Function("main")
    x = f.param("x", gb.Tensor((2,), "float32"))
    f.returns(x)
    return f


REFUSED = [
    ("a negative dim", lambda: gb.Tensor((-5, 4)), ValueError, "Tensor: shape item 0 is -5"),
    ("a str as a shape", lambda: gb.Tensor("ab"), TypeError, "Tensor: shape must be a tuple or list"),
    ("an int as a shape", lambda: gb.Tensor(5), TypeError, "Tensor: shape must be a tuple or list"),
    ("a dim name with a space", lambda: gb.Tensor((None, "b c")), ValueError, "a dim name is an identifier"),
    ("a float dim", lambda: gb.Tensor((2.5,)), TypeError, "shape item 0 must be an int >= 0"),
    ("a None dtype", lambda: gb.Tensor((2,), None), TypeError, "dtype must be a str"),  # type: ignore[arg-type]
    ("a dtype with a space", lambda: gb.Tensor((2,), "float 32"), ValueError, "dtype must be a dtype name"),
    ("a str constant", lambda: gb.const("str"), TypeError, "const: value must be a bool, int or float"),  # type: ignore[arg-type]
    ("an infinite constant", lambda: gb.const(float("inf")), ValueError, "finite numbers only"),
    (
        "a let after returns",
        lambda: _finished().let("y", gb.Var("x")),
        ValueError,
        "let: the function `@main` is finished",
    ),
    ("a param after returns", lambda: _finished().param("y"), ValueError, "param: the function `@main` is finished"),
    (
        "returns twice",
        lambda: _finished().returns(gb.Var("x")),
        ValueError,
        "returns: the function `@main` is finished",
    ),
    ("a Loc without text", lambda: gb.Loc("p", None), TypeError, "Loc: text must be a str"),  # type: ignore[arg-type]
    ("a Loc.at line 0", lambda: gb.Loc.at("p.py", 0, 1), ValueError, "line must be >= 1"),
    ("a Loc.at float column", lambda: gb.Loc.at("p.py", 1, 1.5), TypeError, "column must be an int"),  # type: ignore[arg-type]
    ("a Loc.at end before start", lambda: gb.Loc.at("p.py", 5, 1, end_line=4), ValueError, "end_line must be >= line"),
    ("an empty interval", lambda: gb.Dim.interval(5, 2), ValueError, "the interval 5..2 is empty"),
    ("an operator that is no name", lambda: gb.call("nn relu", gb.Var("x")), ValueError, "call: op must be"),
    ("an operator that is no str", lambda: gb.call(3, gb.Var("x")), TypeError, "call: op must be a str"),  # type: ignore[arg-type]
    ("a variable name with a space", lambda: gb.Var("a b"), ValueError, "Var: name must be"),
    ("an argument that is no expression", lambda: gb.call("nn.relu", "x"), TypeError, "call: an argument must be"),
    ("a dict attribute", lambda: gb.call("reshape", gb.Var("x"), newshape={"a": 1}), TypeError, "attribute 'newshape'"),
    ("a negative projection", lambda: gb.proj(gb.Var("t"), -1), ValueError, "proj: index must be >= 0"),
    ("a function with no name", lambda: gb.Function(""), ValueError, "Function: name must be"),
    ("a module of no definitions", lambda: gb.module(3), TypeError, "module takes definitions"),  # type: ignore[arg-type]
    ("a cast to no type", lambda: gb.cast(gb.Var("x"), "float32"), TypeError, "cast: type must be a type"),  # type: ignore[arg-type]
    ("a loc that is no Loc", lambda: gb.call("nn.relu", gb.Var("x"), loc="here"), TypeError, "loc must be"),  # type: ignore[arg-type]
    ("max of one dim", lambda: gb.Dim.max("n"), TypeError, "Dim.max takes two or more dims"),
    ("ceildiv by 0", lambda: gb.Dim("n").ceildiv(0), ValueError, "the divisor must be a positive int"),
]


@pytest.mark.parametrize("what, build, error, message", REFUSED, ids=[r[0] for r in REFUSED])
def test_the_builder_refuses_what_it_cannot_represent(what: str, build: object, error: type, message: str) -> None:
    with pytest.raises(error) as caught:
        build()  # type: ignore[operator]
    assert message in str(caught.value) and "gradual.builder." in str(caught.value), str(caught.value)


ACCEPTED = [
    ("a NumPy float constant keeps its dtype", lambda: gb.const(np.float32(1.5)), ("float32", 1.5)),
    ("a NumPy int constant keeps its dtype", lambda: gb.const(np.int64(3)), ("int64", 3)),
    ("a NumPy bool constant", lambda: gb.const(np.bool_(True)), ("bool", True)),
    ("a NumPy int dim", lambda: gb.Tensor((np.int64(3), np.int32(4))), ((3, 4),)),
    ("-1 is unknown", lambda: gb.Tensor((-1, 2)), ((None, 2),)),
    ("a NumPy dtype", lambda: gb.Tensor((2,), np.float16), ("float16",)),
    ("a NumPy int attribute", lambda: gb.call("nn.softmax", gb.Var("x"), axis=np.int64(-1)), (-1,)),
    ("NumPy Loc.at positions", lambda: gb.Loc.at("m.py", np.int64(3), np.int32(5)), ((3, 5),)),
]


def _shown(made: object) -> tuple:
    if isinstance(made, ast.Literal):
        return (made.dtype, made.value)
    if isinstance(made, ast.TensorTypeExpr):
        if made.dtype != "float32":
            return (made.dtype,)
        return (tuple(d.value if isinstance(d, ast.DimInt) else None for d in made.dims),)
    if isinstance(made, ast.Call):
        return tuple(a.value for a in made.attrs)
    return (made.span.start_position,)  # type: ignore[attr-defined]


@pytest.mark.parametrize("what, build, shown", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_numpy_scalars_are_taken_wherever_python_numbers_are(what: str, build: object, shown: tuple) -> None:
    made = build()  # type: ignore[operator]
    assert _shown(made) == shown
    if isinstance(made, ast.Literal):
        assert type(made.value) in (int, float, bool)


def test_a_program_built_from_numpy_values_checks_and_runs() -> None:
    f = gb.Function("main")
    x = f.param("x", gb.Tensor((np.int64(2), 3), np.float32))
    y = f.let("y", gb.call("multiply", x, gb.const(np.float32(2.0)), loc=gb.Loc.at("m.py", np.int64(4), 1)))
    result = gradual.check(gb.module(f.returns(gb.call("sum", y, axis=[np.int64(1)]))))
    assert result.ok, result.diagnostics
    (out,) = gradual.run(result, {"x": np.ones((2, 3))})  # a float64 array: NumPy's default, converted
    assert out.dtype == np.float32 and out.tolist() == [6.0, 6.0]


# where an error points ------------------------------------------------------------------------
P = gb.Loc.at("model.py", 3, 5, end_column=20, data="param")
L = gb.Loc.at("model.py", 10, 5, end_column=40, data="let")
C = gb.Loc.at("model.py", 10, 9, end_column=40, data="call")
A = gb.Loc.at("model.py", 10, 30, end_column=32, data="argument")
F = gb.Loc.at("model.py", 1, 1, end_column=4, data="function")


def _dense(param: object = None, let: object = None, call: object = None, arg: object = None) -> object:
    """`nn.dense(x, w)` of (?, 784) and (128, 512): the second argument's dim 1 is wrong."""
    main = gb.Function("main")
    x = main.param("x", gb.Tensor((None, 784), "float32"), loc=param)  # type: ignore[arg-type]
    w = main.param("w", gb.Tensor((128, 512), "float32"), loc=param)  # type: ignore[arg-type]
    w_use = gb.Var("w", arg) if arg is not None else w  # type: ignore[arg-type]
    h = main.let("h", gb.call("nn.dense", x, w_use, loc=call), loc=let)  # type: ignore[arg-type]
    return gb.module(main.returns(gb.call("nn.relu", h)))


POINTS = [
    ("the call's own loc", {"call": C, "let": L, "param": P}, ("model.py", 10, 9, "call")),
    ("an unlocated call: its let's", {"let": L, "param": P}, ("model.py", 10, 5, "let")),
    ("a Var made with its own loc: there", {"call": C, "arg": A}, ("model.py", 10, 30, "argument")),
    ("located parameters never hide the equation", {"param": P}, ("<generated>", 2, 21, None)),
    ("nothing located: the printed program", {}, ("<generated>", 2, 21, None)),
]


@pytest.mark.parametrize("what, locs, where", POINTS, ids=[p[0] for p in POINTS])
def test_where_an_error_points(what: str, locs: dict, where: tuple) -> None:
    (diag,) = gradual.check(_dense(**locs)).errors
    assert (diag.path, diag.line, diag.column, diag.data) == where
    if diag.path == "<generated>":  # the construct's own printed text, never an empty line 1
        assert diag.span.source.line_text(diag.line) == "  %h = nn.dense(%x, %w);"
        assert diag.span.text == "%w" and diag.labels[0].span.text == "%x"
        assert "2 |   %h = nn.dense(%x, %w);" in gradual.render_diagnostics([diag])


def test_an_unlocated_construct_points_at_its_text_or_its_nearest_located_one() -> None:
    """A cast, a tuple's projection and a definition's declared result, each unlocated: the
    diagnostic shows the construct's printed text; located, its loc."""
    for located in (False, True):
        loc = F if located else None
        f = gb.Function("main", ret=gb.Tensor((3,), "float32"), loc=loc)
        x = f.param("x", gb.Tensor((2,), "float32"))
        t = f.let("t", gb.tuple_(x, x))
        result = gradual.check(gb.module(f.returns(gb.proj(t, 0))))
        (diag,) = result.errors
        if located:
            assert (diag.path, diag.line, diag.data) == ("model.py", 1, "function")
        else:
            assert diag.path == "<generated>" and diag.span.text == "%t.0"
            assert diag.labels and diag.labels[0].span.source.line_text(diag.labels[0].line).startswith("def @main")


def test_label_payloads_are_their_own() -> None:
    """Each label of a diagnostic carries its own location's payload."""
    main = gb.Function("main")
    x = main.param("x", gb.Tensor((None, 784), "float32"))
    w = main.param("w", gb.Tensor((128, 512), "float32"))
    call = gb.call("nn.dense", gb.Var("x", A), gb.Var("w", C), loc=L)
    del x, w
    (diag,) = gradual.check(gb.module(main.returns(call))).errors
    assert (diag.data, [label.data for label in diag.labels]) == ("call", ["argument"])
