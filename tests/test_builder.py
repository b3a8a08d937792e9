"""The builder makes the same trees the parser makes: checking either gives the same result."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradual
from gradual import builder as gb
from gradual.syntax import ast
from gradual.syntax.ast import same_tree
from gradual.syntax.printer import format_module


def _mlp() -> gradual.syntax.ast.Module:
    n = gb.Dim("n")
    dense = gb.Function("dense_relu")
    x = dense.param("x", gb.Tensor((n, "k"), "float32"))
    w = dense.param("w", gb.Tensor(("m", "k"), "float32"))
    h = dense.let("0", gb.call("nn.dense", x, w))
    dense_def = dense.returns(gb.call("nn.relu", h))
    main = gb.Function("main")
    a = main.param("a", gb.Tensor((None, 784), "float32"))
    w1 = main.param("w1", gb.Tensor((128, 784), "float32"))
    w2 = main.param("w2", gb.Tensor((10, 128), "float32"))
    h1 = main.let("h", gb.call_global("dense_relu", a, w1))
    main_def = main.returns(gb.call("nn.softmax", gb.call("nn.dense", h1, w2), axis=-1))
    return gb.module(dense_def, main_def)


MLP_TEXT = """
def @dense_relu(%x: Tensor[(n, k), float32], %w: Tensor[(m, k), float32]) {
  %0 = nn.dense(%x, %w);
  nn.relu(%0)
}
def @main(%a: Tensor[(?, 784), float32], %w1: Tensor[(128, 784), float32], %w2: Tensor[(10, 128), float32]) {
  %h = @dense_relu(%a, %w1);
  nn.softmax(nn.dense(%h, %w2), axis=-1)
}
"""


def test_built_module_is_the_parsed_module() -> None:
    assert same_tree(_mlp(), gradual.parse(MLP_TEXT))


def test_built_module_checks_like_text() -> None:
    built = gradual.check(_mlp())
    parsed = gradual.check(MLP_TEXT)
    assert built.ok and parsed.ok
    for name in ("dense_relu", "main"):
        assert str(built.function_type(name)) == str(parsed.function_type(name))
    assert str(built.function_type("main")) == (
        "fn (Tensor[(?, 784), float32], Tensor[(128, 784), float32], Tensor[(10, 128), float32]) -> Tensor[(?, 10), float32]"
    )


def test_dims_from_python_values() -> None:
    n = gb.Dim("n")
    f = gb.Function("f")
    a = f.param("a", gb.Tensor((n, n + 1, gb.Dim.interval(1, 8), 2 * n, None, -1), "float32"))
    result = gradual.check(gb.module(f.returns(a)))
    assert str(result.function_type("f")) == (
        "fn (Tensor[(n, n + 1, 1..8, 2 * n, ?, ?), float32]) -> Tensor[(n, n + 1, 1..8, 2 * n, ?, ?), float32]"
    )


def test_dynamic_rank_and_tuples() -> None:
    f = gb.Function("f")
    a = f.param("a", gb.Tensor(None, "float32"))
    t = f.let("t", gb.tuple_(a, gb.call("nn.relu", a)))
    result = gradual.check(gb.module(f.returns(gb.proj(t, 1))))
    assert str(result.function_type("f")) == "fn (Tensor[*, float32]) -> Tensor[*, float32]"


def test_diagnostics_point_at_frontend_locations() -> None:
    main = gb.Function("main")
    x = main.param("x", gb.Tensor((None, 784), "float32"))
    w = main.param("w", gb.Tensor((128, 512), "float32"))
    loc = gb.Loc("model.onnx", "node Gemm_0 (Gemm): X, W -> H")
    h = main.let("h", gb.call("nn.dense", x, w, loc=loc))
    result = gradual.check(gb.module(main.returns(gb.call("nn.relu", h))))
    (diag,) = result.errors
    assert diag.code == "shape-mismatch"
    assert diag.span.source.path == "model.onnx"
    assert diag.span.text == "node Gemm_0 (Gemm): X, W -> H"


def test_hints_and_closures() -> None:
    loop = gb.Function("main")
    s = loop.param("s", gb.Tensor((1, 1), "float32"))
    body = gb.if_(
        gb.call("less", gb.const(0), gb.const(10)),
        gb.call_value(gb.Var("f"), gb.call("concatenate", gb.tuple_(gb.Var("x"), gb.Var("x")), axis=0)),
        gb.Var("x"),
    )
    inner = gb.Block()
    inner.hint(gb.Var("x"), (1, 1))
    f = loop.let("f", gb.closure([("x", None)], inner.body(body)))
    result = gradual.check(gb.module(loop.returns(gb.call_value(f, s))))
    assert result.ok, result.diagnostics
    assert str(result.function_type("main")) == "fn (Tensor[(1, 1), float32]) -> Tensor[(?, 1), float32]"


def test_claimed_dims_make_a_constraint_a_warning_with_a_check() -> None:
    """spec §6: a frontend marks an exporter's dynamic dims; the same program without the claim errs."""

    def build(claim: bool) -> object:
        main = gb.Function("main")
        x = main.param("x", gb.Tensor(("n", "h"), "float32"))
        w = main.param("w", gb.Tensor((4, 32), "float32"))
        if claim:
            main.claim_dims(["h"])
        return gb.module(main.returns(gb.call("nn.dense", x, w)))

    claimed = gradual.check(build(True))
    assert claimed.ok and [d.code for d in claimed.warnings] == ["dim-constraint"]
    assert claimed.warnings[0].message == "`nn.dense` needs h = 32"
    assert [str(c.type) for c in claimed.checks("main")] == ["Tensor[(n, 32), float32]"]
    assert [d.code for d in gradual.check(build(False)).errors] == ["shape-mismatch"]


@pytest.mark.parametrize(
    "other,swap,message,check,runs",
    [
        (
            "twice",
            False,
            "`add` needs n = 2 * n or n = 1 to broadcast, which holds only when n = 0 or n = 1",
            "Tensor[(2 * n|1, 3), float32]",
            {0: True, 1: True, 2: False},
        ),
        (
            "twice",
            True,
            "`add` needs n = 2 * n or n = 1 to broadcast, which holds only when n = 0 or n = 1",
            "Tensor[(2 * n|1, 3), float32]",
            {0: True, 1: True, 2: False},
        ),
        (
            "plus-one",
            False,
            "`add` needs n = n + 1 or n = 1 or n + 1 = 1 to broadcast, which holds only when n = 1 or n = 0",
            None,
            {0: True, 1: True, 2: False},
        ),
    ],
)
def test_a_claimed_dim_may_broadcast_as_1(other: str, swap: bool, message: str, check: str, runs: dict) -> None:
    """Broadcasting a claimed `n` against `2 * n` also works when n = 1: the warning says so and
    the inserted check lets 1 through (it once demanded n = 2 * n, rejecting n = 1). Against
    `n + 1`, either side is 1 at some n: the result is `?` and the rule decides at runtime."""
    import numpy as np

    main = gb.Function("main")
    x = main.param("x", gb.Tensor(("n", 3), "float32"))
    one = main.param("one", gb.Tensor((1, 3), "float32"))
    main.claim_dims(["n"])
    longer = gb.call("concatenate", gb.tuple_(x, x if other == "twice" else one), axis=0)
    result = gradual.check(gb.module(main.returns(gb.call("add", *((x, longer) if swap else (longer, x))))))
    assert result.ok and [d.message for d in result.warnings] == [message]
    assert [str(c.type) for c in result.checks("main")] == ([check] if check else [])
    for n, ok in runs.items():
        inputs = {"x": np.ones((n, 3), np.float32), "one": np.ones((1, 3), np.float32)}
        if ok:
            longer_rows = 2 * n if other == "twice" else n + 1
            assert gradual.run(result, inputs)[0].shape == np.broadcast_shapes((longer_rows, 3), (n, 3))
        else:
            with pytest.raises(gradual.CheckFailure):  # an inserted check's, or the operator rule's
                gradual.run(result, inputs)


def _claimed_side(main: gb.Function, x: object, times: int, plus: int, name: str) -> object:
    """`times * n + plus` rows: x concatenated `times` times with a (plus, 3) parameter."""
    parts = [x] * times
    if plus or not parts:
        parts.append(main.param(name, gb.Tensor((plus, 3), "float32")))
    return parts[0] if len(parts) == 1 else gb.call("concatenate", gb.tuple_(*parts), axis=0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))
def test_claimed_broadcasts_reject_exactly_what_numpy_rejects(a: int, b: int, c: int, d: int) -> None:
    """`(a * n + b, 3) + (c * n + d, 3)` with a claimed n, run for n in 0..4: checking never
    rejects what NumPy broadcasts (its result has the inferred type), and what NumPy cannot
    broadcast fails at a check or is a static error."""
    import numpy as np

    main = gb.Function("main")
    x = main.param("x", gb.Tensor(("n", 3), "float32"))
    main.claim_dims(["n"])
    lhs, rhs = _claimed_side(main, x, a, b, "p"), _claimed_side(main, x, c, d, "q")
    result = gradual.check(gb.module(main.returns(gb.call("add", lhs, rhs))))
    for n in range(5):
        rows = (a * n + b, c * n + d)
        broadcasts = rows[0] == rows[1] or 1 in rows
        if not result.ok:
            assert not broadcasts, (rows, [e.message for e in result.errors])
            continue
        inputs = {"x": np.ones((n, 3), np.float32), "p": np.ones((b, 3), np.float32), "q": np.ones((d, 3), np.float32)}
        inputs = {k: v for k, v in inputs.items() if k in ("x", "p" if a == 0 or b else "", "q" if c == 0 or d else "")}
        if broadcasts:
            assert gradual.run(result, inputs)[0].shape == (rows[1] if rows[0] == 1 else rows[0], 3), rows
        else:
            with pytest.raises(gradual.CheckFailure):  # an inserted check's, or the operator rule's
                gradual.run(result, inputs)


def test_bind_op_binds_as_let_does_at_its_statement_span() -> None:
    """`Block.bind_op` is `let(name, call(op, *vars), loc=<its line>)`, spans included, the
    syntax made when asked for; consecutive ones share one Dataflow, a let in between ends it."""
    from gradual.syntax import ast
    from gradual.syntax.source import Source, Span

    source = Source("node n0 (Relu): x -> y\nnode n1 (Add): y, x -> z\n", "m.onnx")

    class Lines:
        def line(self, tag: int) -> Span:
            start = source.line_starts()[tag]
            return Span(source, start, source.text.index("\n", start))

        def argument(self, tag: int, j: int) -> Span:
            start = source.line_starts()[tag] + source.line_text(tag + 1).index(":") + 2 + 3 * j
            return Span(source, start, start + 1)

    lines = Lines()
    block = gb.Block()
    y = block.bind_op("y", "nn.relu", ["x"], lines, 0)
    z = block.bind_op("z", "add", ["y", "x"], lines, 1)
    (flow,) = block.stmts
    assert isinstance(flow, ast.Dataflow) and not flow.made
    assert (y.loc.span, z.loc.span) == (lines.line(0), lines.line(1))
    let = flow.let(1)
    assert flow.let(1) is let  # made once
    plain = gb.Block()
    plain.let("z", gb.call("add", gb.Var("y"), gb.Var("x")), type=gb.Dynamic())
    assert ast.same_tree(let.value, plain.stmts[0].value)
    assert (let.var.name, let.span, let.graph, let.type, let.value.callee.name) == (
        "z",
        lines.line(1),
        True,
        None,
        "add",
    )
    assert [(a.name, a.span.text) for a in let.value.args] == [("y", "y"), ("x", "x")]
    block.let("w", gb.call("nn.relu", z))  # a Dataflow of made lets: another locator
    block.bind_op("u", "nn.relu", ["w"], lines, 0)
    block.let("t", gb.tuple_(y, z))
    assert [type(s).__name__ for s in block.stmts] == ["Dataflow", "Dataflow", "Dataflow", "Let"]


def test_let_of_an_operator_call_on_variables_joins_a_dataflow_holding_that_let() -> None:
    """The builder's commonest statement is checked from arrays, yet the module is the one
    built: `Dataflow.let` gives back the very Let, so the API's types (by node identity) name
    the caller's own nodes, and printing or comparing sees plain lets."""
    f = gb.Function("main")
    x = f.param("x", gb.Tensor(("n", 4), "float32"))
    call = gb.call("reshape", x, newshape=[-1, 2])
    r = f.let("r", call)
    s = f.let("s", gb.call("nn.relu", r))
    annotated = f.let("a", gb.call("nn.relu", s), type=gb.Tensor((None, 2), "float32"))
    f.let("c", gb.call("concatenate", gb.tuple_(s, annotated), axis=1))
    module = gb.module(f.returns(gb.Var("c")))
    flow, kept_let, kept_call = module.defs[0].body.stmts
    assert isinstance(flow, ast.Dataflow) and flow.names == ["r", "s"] and flow.ops == ["reshape", "nn.relu"]
    assert flow.let(0).value is call and flow.attrs == {0: call.attrs}
    assert isinstance(kept_let, ast.Let) and isinstance(kept_call, ast.Let)  # annotated; a tuple argument
    result = gradual.check(module)
    assert result.ok, result.diagnostics
    assert str(result.types[id(call)]) == "Tensor[(2 * n, 2), float32]"
    text = format_module(module)
    assert "%r = reshape(%x, newshape=[-1, 2]);" in text and same_tree(module, gradual.parse(text))


def test_attribute_values_keep_their_items_and_refuse_what_is_not_one() -> None:
    """A builder attribute is a plain scalar or a (nested) list or tuple of them: flat lists are
    taken as they are, nested ones item by item, a NumPy scalar anywhere as the Python number it
    is; anything else is refused, naming the attribute."""
    import enum

    class Mode(enum.IntEnum):
        SAME = 1

    call = gb.call("reshape", gb.Var("x"), newshape=[2, -1], pads=((1, 2), [Mode.SAME, 0]), mode="edge", scale=None)

    def plain(value: object) -> object:
        return (value.square, [plain(v) for v in value.items]) if isinstance(value, ast.AttrSeq) else value

    assert [plain(a.value) for a in call.attrs] == [
        (True, [2, -1]),
        (False, [(False, [1, 2]), (True, [Mode.SAME, 0])]),
        "edge",
        None,
    ]
    for numpy_value, plain_value in (
        ([np.int64(3)], (True, [3])),
        ([[1, np.float32(2.0)]], (True, [(True, [1, 2.0])])),
    ):
        (attr,) = gb.call("reshape", gb.Var("x"), newshape=numpy_value).attrs
        assert plain(attr.value) == plain_value and type(attr.value.items[0]) is not np.int64
    assert gb.call("reshape", gb.Var("x"), newshape=np.int64(3)).attrs[0].value.__class__ is int
    for bad in ({"a": 1}, object(), [np.ones(2)]):
        with pytest.raises(TypeError, match="attribute 'newshape' must be"):
            gb.call("reshape", gb.Var("x"), newshape=bad)
