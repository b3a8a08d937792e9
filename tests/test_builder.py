"""The builder makes the same trees the parser makes: checking either gives the same result."""

from __future__ import annotations

import gradual
from gradual import builder as gb
from gradual.syntax.ast import same_tree


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
        "fn (Tensor[(?, 784), float32], Tensor[(128, 784), float32], Tensor[(10, 128), float32]) -> Tensor[(?, 10), float32]")


def test_dims_from_python_values() -> None:
    n = gb.Dim("n")
    f = gb.Function("f")
    a = f.param("a", gb.Tensor((n, n + 1, gb.Dim.interval(1, 8), 2 * n, None, -1), "float32"))
    result = gradual.check(gb.module(f.returns(a)))
    assert str(result.function_type("f")) == (
        "fn (Tensor[(n, n + 1, 1..8, 2 * n, ?, ?), float32]) -> Tensor[(n, n + 1, 1..8, 2 * n, ?, ?), float32]")


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
    body = gb.if_(gb.call("less", gb.const(0), gb.const(10)),
                  gb.call_value(gb.Var("f"), gb.call("concatenate", gb.tuple_(gb.Var("x"), gb.Var("x")), axis=0)),
                  gb.Var("x"))
    inner = gb.Block()
    inner.hint(gb.Var("x"), (1, 1))
    f = loop.let("f", gb.closure([("x", None)], inner.body(body)))
    result = gradual.check(gb.module(loop.returns(gb.call_value(f, s))))
    assert result.ok, result.diagnostics
    assert str(result.function_type("main")) == "fn (Tensor[(1, 1), float32]) -> Tensor[(?, 1), float32]"


def test_claimed_dims_make_a_constraint_a_warning_with_a_check() -> None:
    """SPEC 6: a frontend marks an exporter's dynamic dims; the same program without the claim errs."""
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
