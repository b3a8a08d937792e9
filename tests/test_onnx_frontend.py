"""The ONNX frontend on small hand-built models: dims, constants, shape values, opset
differences, diagnostics at the node, the batch options, the printed program."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import gradual  # noqa: E402
from gradual.frontends import onnx as gonnx  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes: list, inputs: list, outputs: list, initializers: tuple = (), opset: int = 17) -> object:
    """A ModelProto from nodes and (name, elem_type, shape) inputs/outputs."""
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in initializers],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def main_type(m: object, **options: object) -> str:
    imported = gonnx.import_model(m, gonnx.ImportOptions(declared_outputs=False, **options), path="m.onnx")
    assert imported.ok, [d.message for d in imported.diagnostics]
    result = imported.check()
    assert result.ok, [d.message for d in result.diagnostics]
    return str(result.function_type("main"))


def errors(m: object, **options: object) -> list:
    imported = gonnx.import_model(m, gonnx.ImportOptions(**options), path="m.onnx")
    return imported.check().errors


# dims ------------------------------------------------------------------------------------------
def test_dim_params_are_symbols_and_missing_dims_unknown() -> None:
    m = model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, ["batch", None, 3])], [("y", F, None)])
    assert main_type(m) == "fn (Tensor[(batch, ?, 3), float32]) -> Tensor[(batch, ?, 3), float32]"


def test_concat_of_n_and_n_is_2n_where_onnx_says_unk() -> None:
    m = model(
        [helper.make_node("Concat", ["a", "b"], ["y"], axis=0)],
        [("a", F, ["N", 4]), ("b", F, ["N", 4])],
        [("y", F, None)],
    )
    assert main_type(m).endswith("-> Tensor[(2 * N, 4), float32]")


def test_a_shape_chain_gives_reshape_a_known_target() -> None:
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the target is [N, 12]."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Constant", [], ["zero"], value=numpy_helper.from_array(np.array(0, np.int64))),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Constant", [], ["ax"], value=numpy_helper.from_array(np.array([0], np.int64))),
        helper.make_node("Unsqueeze", ["n", "ax"], ["n1"]),
        helper.make_node("Constant", [], ["rest"], value=numpy_helper.from_array(np.array([-1], np.int64))),
        helper.make_node("Concat", ["n1", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    m = model(nodes, [("x", F, ["N", 3, 4])], [("y", F, None)])
    assert main_type(m).endswith("-> Tensor[(N, 12), float32]")


# constants ---------------------------------------------------------------------------------------
def test_large_initializers_become_parameters_whose_values_run_along() -> None:
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    m = model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [("x", F, ["n", 4])],
        [("y", F, ["n", 3])],
        initializers=[("w", w)],
    )
    imported = gonnx.import_model(m, path="m.onnx")
    assert list(imported.constants) == ["w"]
    assert str(imported.check().function_type("main")) == (
        "fn (Tensor[(n, 4), float32], Tensor[(4, 3), float32]) -> Tensor[(n, 3), float32]"
    )
    x = np.ones((2, 4), np.float32)
    (y,) = imported.run({"x": x})
    np.testing.assert_allclose(y, x @ w)


def test_small_integer_constants_are_written_into_the_program() -> None:
    m = model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])],
        [("x", F, [2, 6])],
        [("y", F, None)],
        initializers=[("shape", np.array([3, -1], np.int64))],
    )
    imported = gonnx.import_model(m, path="m.onnx")
    assert imported.constants == {}
    assert "reshape(%x, newshape=[3, -1]" in imported.text()


def test_a_constant_used_as_a_tensor_keeps_its_value() -> None:
    nodes = [
        helper.make_node("Constant", [], ["t"], value=numpy_helper.from_array(np.array([2, 6], np.int64))),
        helper.make_node("Expand", ["x", "t"], ["y"]),
    ]
    m = model(nodes, [("x", F, [1, 6])], [("y", F, None)])
    assert main_type(m).endswith("-> Tensor[(2, 6), float32]")
    assert 'onnx.constant(values=[2, 6], shape=[2], dtype="int64")' in gonnx.import_model(m).text()


def test_constant_arithmetic_is_folded_at_import() -> None:
    """Neg(Constant) -> ConstantOfShape -> Concat -> Reshape, as LayerNormalization's function."""
    nodes = [
        helper.make_node("Constant", [], ["a"], value=numpy_helper.from_array(np.array([-2], np.int64))),
        helper.make_node("Neg", ["a"], ["k"]),
        helper.make_node("ConstantOfShape", ["k"], ["ones"], value=numpy_helper.from_array(np.array([1], np.int64))),
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Concat", ["s", "ones"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    m = model(nodes, [("x", F, ["b", 6])], [("y", F, None)])
    assert main_type(m).endswith("-> Tensor[(b, 6, 1, 1), float32]")
    assert 'onnx.constant(values=[1, 1], shape=[2], dtype="int64")' in gonnx.import_model(m).text()


# opset differences ------------------------------------------------------------------------------------
def _run(m: object, **inputs: np.ndarray) -> list:
    return gonnx.import_model(m, gonnx.ImportOptions(declared_outputs=False), path="m.onnx").run(inputs)


X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10


@pytest.mark.parametrize(
    "op, expected",
    [
        ("ReduceL2", np.sqrt(55.0)),
        ("ReduceLogSum", np.log(15.0)),
        ("ReduceLogSumExp", np.log(np.exp(np.arange(6.0)).sum())),
    ],
)
def test_integer_reductions_through_sqrt_log_exp_compute_in_float(op: str, expected: float) -> None:
    """ONNX's ReduceL2, ReduceLogSum and ReduceLogSumExp take integers, Relay's sqrt, log and
    exp only floats: the import computes in float64 and casts the result back."""
    m = model([helper.make_node(op, ["x"], ["y"], keepdims=0)], [("x", I64, [2, 3])], [("y", I64, [])])
    (out,) = _run(m, x=np.arange(6, dtype=np.int64).reshape(2, 3))
    assert out.dtype == np.int64 and out == np.int64(expected)


@pytest.mark.parametrize(
    "opset, node, extra",
    [
        (11, helper.make_node("Squeeze", ["x"], ["y"], axes=[0]), {}),
        (13, helper.make_node("Squeeze", ["x", "axes"], ["y"]), {"axes": np.array([0], np.int64)}),
    ],
)
def test_squeeze_axes_as_attribute_or_input(opset: int, node: object, extra: dict) -> None:
    inits = list(extra.items())
    m = model([node], [("x", F, [1, 3])], [("y", F, None)], initializers=inits, opset=opset)
    assert main_type(m).endswith("-> Tensor[(3,), float32]")


@pytest.mark.parametrize("opset", [11, 13])
def test_softmax_before_opset_13_flattens_at_axis(opset: int) -> None:
    m = model([helper.make_node("Softmax", ["x"], ["y"], axis=1)], [("x", F, [2, 3, 4])], [("y", F, None)], opset=opset)
    (y,) = _run(m, x=X)
    axes = (1, 2) if opset < 13 else (1,)
    e = np.exp(X - X.max(axis=axes, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=axes, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize(
    "opset, node, inits",
    [
        (6, helper.make_node("Clip", ["x"], ["y"], min=-2.0, max=3.0), []),
        (11, helper.make_node("Clip", ["x", "lo", "hi"], ["y"]), [("lo", np.float32(-2)), ("hi", np.float32(3))]),
    ],
)
def test_clip_bounds_as_attributes_or_inputs(opset: int, node: object, inits: list) -> None:
    m = model([node], [("x", F, [2, 3, 4])], [("y", F, None)], initializers=inits, opset=opset)
    (y,) = _run(m, x=X)
    np.testing.assert_array_equal(y, np.clip(X, -2, 3))


@pytest.mark.parametrize(
    "opset, node, inits",
    [
        (2, helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 0, 0, 2, 0], value=1.5), []),
        (
            11,
            helper.make_node("Pad", ["x", "pads", "v"], ["y"]),
            [("pads", np.array([0, 1, 0, 0, 2, 0], np.int64)), ("v", np.float32(1.5))],
        ),
    ],
)
def test_pad_as_attributes_or_inputs(opset: int, node: object, inits: list) -> None:
    m = model([node], [("x", F, [2, 3, 4])], [("y", F, None)], initializers=inits, opset=opset)
    assert main_type(m).endswith("-> Tensor[(2, 6, 4), float32]")
    (y,) = _run(m, x=X)
    np.testing.assert_array_equal(y, np.pad(X, [(0, 0), (1, 2), (0, 0)], constant_values=1.5))


@pytest.mark.parametrize(
    "opset, node, inits",
    [
        (11, helper.make_node("Split", ["x"], ["a", "b"], axis=2, split=[1, 3]), []),
        (13, helper.make_node("Split", ["x", "s"], ["a", "b"], axis=2), [("s", np.array([1, 3], np.int64))]),
    ],
)
def test_split_sizes_as_attribute_or_input(opset: int, node: object, inits: list) -> None:
    m = model([node], [("x", F, [2, 3, 4])], [("a", F, None), ("b", F, None)], initializers=inits, opset=opset)
    assert main_type(m).endswith("-> (Tensor[(2, 3, 1), float32], Tensor[(2, 3, 3), float32])")


def test_slice_with_attributes_before_opset_10() -> None:
    m = model(
        [helper.make_node("Slice", ["x"], ["y"], starts=[1], ends=[100], axes=[2])],
        [("x", F, ["n", 3, 4])],
        [("y", F, None)],
        opset=9,
    )
    assert main_type(m).endswith("-> Tensor[(n, 3, 3), float32]")


def test_slice_inputs_known_only_at_runtime_keep_the_rank() -> None:
    m = model(
        [helper.make_node("Slice", ["x", "b", "e"], ["y"])],
        [("x", F, [5, 4]), ("b", I64, [2]), ("e", I64, [2])],
        [("y", F, None)],
    )
    assert main_type(m).endswith("-> Tensor[(?, ?), float32]")
    (y,) = _run(m, x=np.ones((5, 4), np.float32), b=np.array([1, 0]), e=np.array([3, 4]))
    assert y.shape == (2, 4)


# diagnostics ------------------------------------------------------------------------------------------
def test_a_shape_error_underlines_the_tensors_in_the_node_that_uses_them() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["h"], name="act"),
        helper.make_node("MatMul", ["h", "w"], ["y"], name="proj"),
    ]
    m = model(nodes, [("x", F, ["n", 4]), ("w", F, [5, 3])], [("y", F, None)])
    (err,) = errors(m)
    assert err.code == "shape-mismatch"
    assert err.span.source.path == "m.onnx"
    line, column = err.span.start_position
    assert line == 2  # the listing's line 2 is node #1
    assert err.span.source.line_text(line) == "node proj (MatMul): h, w -> y"
    assert err.span.text == "w"
    assert [label.span.text for label in err.labels] == ["h"]


def test_the_listing_has_the_graph_inputs_initializers_and_outputs() -> None:
    m = model(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        [("x", F, ["n", 4])],
        [("y", F, None)],
        initializers=[("w", np.ones((4, 3), np.float32))],
    )
    imported = gonnx.import_model(m, path="m.onnx")
    source = imported.module.span.source
    assert source.text.splitlines() == [
        "node mm (MatMul): x, w -> y",
        "graph input x: float32[n, 4]",
        "initializer w: float32[4, 3]",
        "graph outputs: y",
    ]


def test_declared_output_types_are_checked() -> None:
    m = model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2, 3])], [("y", F, [3, 2])])
    (err,) = errors(m)
    assert err.code == "shape-mismatch"


def test_an_unsupported_operator_is_reported_once_at_its_node() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Bernoulli", ["a"], ["b"], name="coin"),
        helper.make_node("Relu", ["b"], ["y"]),
    ]
    imported = gonnx.import_model(model(nodes, [("x", F, [2, 2])], [("y", F, None)]), path="m.onnx")
    assert not imported.ok and imported.module is None
    (diag,) = imported.diagnostics
    assert diag.code == "unknown-operator" and "`Bernoulli`" in diag.message
    assert diag.span.text == "node coin (Bernoulli): a -> b" and diag.line == 2


def _loop_writing_its_input() -> object:
    """A Loop whose body's node writes the body's own carried input `y_in`."""
    value = helper.make_tensor_value_info
    body = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["y_in"], name="again"),
            helper.make_node("Identity", ["c_in"], ["c_out"]),
            helper.make_node("Identity", ["y_in"], ["y_out"]),
        ],
        "body",
        [value("i", I64, []), value("c_in", TensorProto.BOOL, []), value("y_in", F, [2])],
        [value("c_out", TensorProto.BOOL, []), value("y_out", F, [2])],
    )
    return model(
        [helper.make_node("Loop", ["m", "", "x"], ["y"], body=body)], [("x", F, [2]), ("m", I64, [])], [("y", F, None)]
    )


def _if_whose_branch_writes(name: str, before: tuple = (), after: tuple = ()) -> object:
    """An If whose then-branch's Relu of `x` writes `name`, after the nodes `before` and before
    `after` of the enclosing graph."""
    value = helper.make_tensor_value_info
    then = helper.make_graph(
        [helper.make_node("Relu", ["x"], [name], name="inner")], "then", [], [value(name, F, None)]
    )
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [value("e", F, None)])
    nodes = [*before, helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other), *after]
    return model(nodes, [("x", F, [2]), ("c", TensorProto.BOOL, [])], [(nodes[-1].output[0], F, None)])


@pytest.mark.parametrize(
    "m, tensor, other, line",
    [
        (_if_whose_branch_writes("x"), "x", "the enclosing graph's graph input", 6),
        (
            _if_whose_branch_writes("r", before=(helper.make_node("Relu", ["x"], ["r"]),)),
            "r",
            "the enclosing graph's node #0 (Relu)",
            7,
        ),
        (
            model(
                [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["x"], ["y"])],
                [("x", F, [2])],
                [("y", F, None)],
            ),
            "y",
            "node #0 (Relu)",
            2,
        ),
        (model([helper.make_node("Relu", ["x"], ["x"])], [("x", F, [2])], [("x", F, None)]), "x", "the graph input", 1),
        (
            model(
                [helper.make_node("Relu", ["x"], ["w"])],
                [("x", F, [2])],
                [("w", F, None)],
                initializers=[("w", np.ones(2, np.float32))],
            ),
            "w",
            "the initializer",
            1,
        ),
        (
            model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2]), ("x", F, [2])], [("y", F, None)]),
            "x",
            "another graph input",
            3,
        ),
        (
            model(
                [helper.make_node("Add", ["x", "w"], ["y"])],
                [("x", F, [2])],
                [("y", F, None)],
                initializers=[("w", np.ones(2, np.float32)), ("w", np.zeros(2, np.float32))],
            ),
            "w",
            "another initializer",
            4,
        ),
        (_loop_writing_its_input(), "y_in", "the graph input", 5),
        (
            model([helper.make_node("Split", ["x"], ["a", "a"], axis=0)], [("x", F, [4])], [("a", F, None)]),
            "a",
            "another output of the node",
            1,
        ),
    ],
)
def test_a_tensor_defined_twice_in_a_graph_is_reported_where_it_is_defined_again(
    m: object, tensor: str, other: str, line: int
) -> None:
    """ONNX graphs are in single static assignment: two nodes writing one tensor, a node
    writing a graph input or an initializer, an input or initializer listed twice (also in a
    subgraph) are invalid models (onnx.checker and ONNX Runtime reject them). They checked
    clean, the later definition silently winning."""
    (diag,) = gonnx.import_model(m, path="m.onnx").diagnostics
    assert diag.code == "duplicate-definition" and f"`{tensor}` is defined here, but {other} defines it" in diag.message
    assert diag.line == line


def test_a_subgraph_may_write_names_of_its_node_and_of_later_or_sibling_graphs() -> None:
    """Single assignment spans subgraphs only for what an enclosing graph has defined before
    the node: the node's own outputs, the enclosing graph's later tensors (ONNX Runtime runs
    such a model) and a sibling branch's tensors are not redefinitions."""
    later = _if_whose_branch_writes("z", after=(helper.make_node("Neg", ["y"], ["z"]),))
    assert gonnx.import_model(later, path="m.onnx").check().ok
    own = _if_whose_branch_writes("y")
    assert not [d for d in gonnx.import_model(own, path="m.onnx").diagnostics if d.code == "duplicate-definition"]


def _branches(then_nodes: list, else_nodes: list, then_initializers: tuple = (), inputs: tuple = ()) -> object:
    """An If over graph inputs x: (4,) and c whose then-branch ends in `t`, its else-branch in `e`."""
    value = helper.make_tensor_value_info
    then = helper.make_graph(then_nodes, "then", [], [value("t", F, [4])], initializer=list(then_initializers))
    other = helper.make_graph(else_nodes, "else", [], [value("e", F, [4])])
    return model(
        [helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)],
        [("x", F, [4]), ("c", TensorProto.BOOL, []), *inputs],
        [("y", F, [4])],
    )


def test_a_subgraphs_constants_are_its_own() -> None:
    """A subgraph's constants are visible in it alone: a then-branch's initializer `x` was the
    else-branch's `x` too (its Neg folded to -1, not -x), and a branch's Constant its sibling's
    (a model onnx.checker and ONNX Runtime reject checked clean). An initializer named as an
    enclosing tensor is reported: ONNX Runtime reads it where it folds constants (2, 2, 2, 2
    for x + x) and the enclosing `x` where it does not (0, 2, 4, 6, as ONNX's reference
    evaluator)."""
    ones = numpy_helper.from_array(np.ones(4, np.float32), "x")
    for then in ([helper.make_node("Add", ["x", "x"], ["t"])], [helper.make_node("Mul", ["x", "z"], ["t"])]):
        hiding = _branches(
            then, [helper.make_node("Neg", ["x"], ["e"])], then_initializers=(ones,), inputs=(("z", F, [4]),)
        )
        diags = gonnx.import_model(hiding, path="m.onnx").diagnostics
        assert [(d.code, d.span.text) for d in diags] == [("duplicate-definition", "node #0 (If): c -> y")]
        assert "initializer `x`, but the enclosing graph's graph input defines `x` too" in diags[0].message
    ones.name = "w"
    private = _branches(
        [helper.make_node("Add", ["x", "w"], ["t"])], [helper.make_node("Neg", ["x"], ["e"])], then_initializers=(ones,)
    )
    for c in (False, True):
        _agrees_with_onnxruntime(private, {"x": np.arange(4, dtype=np.float32), "c": np.array(c)})
    five = numpy_helper.from_array(np.full(4, 5, np.float32))
    sibling = _branches(
        [helper.make_node("Constant", [], ["k"], value=five), helper.make_node("Add", ["x", "k"], ["t"])],
        [helper.make_node("Neg", ["k"], ["e"])],
    )
    assert [d.code for d in gonnx.import_model(sibling, path="m.onnx").diagnostics] == ["unknown-variable"]
    named = _branches(
        [helper.make_node("Constant", [], ["k"], value=five), helper.make_node("Add", ["x", "k"], ["t"])],
        [helper.make_node("Neg", ["x"], ["k"]), helper.make_node("Relu", ["k"], ["e"])],
    )
    for c in (False, True):  # each branch's `k` is its own (the else-branch's Relu read the then-branch's 5s)
        _agrees_with_onnxruntime(named, {"x": np.arange(4, dtype=np.float32), "c": np.array(c)})


def test_a_loop_bodys_input_hides_an_enclosing_constant_of_its_name() -> None:
    """A Loop body's carried input named as an enclosing initializer is the carried value in
    the body: the initializer's value was folded in its place."""
    value = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Add", ["w", "w"], ["w_out"])],
        "body",
        [value("i", I64, []), value("c_in", TensorProto.BOOL, []), value("w", F, [2])],
        [value("c_out", TensorProto.BOOL, []), value("w_out", F, [2])],
    )
    m = model(
        [helper.make_node("Add", ["x", "w"], ["s"]), helper.make_node("Loop", ["m", "", "s"], ["y"], body=body)],
        [("x", F, [2]), ("m", I64, [])],
        [("y", F, [2])],
        initializers=[("w", np.ones(2, np.float32))],
    )
    _agrees_with_onnxruntime(m, {"x": np.array([1, 2], np.float32), "m": np.array(3, np.int64)})


def test_an_initializer_listed_as_a_graph_input_is_one_tensor() -> None:
    """IR < 4 lists every initializer as a graph input too: one tensor, not two definitions."""
    m = model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [("x", F, [2]), ("w", F, [2])],
        [("y", F, None)],
        initializers=[("w", np.ones(2, np.float32))],
    )
    assert main_type(m) == "fn (Tensor[(2,), float32]) -> Tensor[(2,), float32]"


def test_an_unsupported_dtype_is_reported() -> None:
    m = model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [("x", TensorProto.COMPLEX64, [2])],
        [("y", TensorProto.COMPLEX64, None)],
    )
    (diag,) = gonnx.import_model(m).diagnostics
    assert diag.code == "unknown-dtype" and "COMPLEX64" in diag.message


@pytest.mark.parametrize(
    "elem_type, dtype",
    [
        (TensorProto.BFLOAT16, "bfloat16"),
        (TensorProto.FLOAT8E4M3FN, "float8_e4m3fn"),
        (TensorProto.INT4, "int4"),
        (TensorProto.FLOAT4E2M1, "float4_e2m1fn"),
    ],
)
def test_every_numeric_onnx_dtype_is_checked_and_runs(elem_type: int, dtype: str) -> None:
    m = model(
        [helper.make_node("Reshape", ["x", "s"], ["y"])],
        [("x", elem_type, ["n", 4])],
        [("y", elem_type, None)],
        initializers=[("s", np.array([-1], np.int64))],
    )
    assert main_type(m) == f"fn (Tensor[(n, 4), {dtype}]) -> Tensor[(4 * n,), {dtype}]"
    import ml_dtypes

    x = np.arange(8).reshape(2, 4).astype(getattr(ml_dtypes, dtype))
    (y,) = gonnx.import_model(m).run({"x": x})
    assert y.dtype == x.dtype and y.shape == (8,)


def test_a_model_whose_initializer_is_stored_outside_the_file_is_read_with_it(tmp_path: Path) -> None:
    """The loader skips looking for external data when the file's bytes cannot hold any: a
    model that has some (a weight beside the model) still gets its values."""
    w = np.arange(4096, dtype=np.float32).reshape(64, 64)
    m = model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [("x", F, ["n", 64])],
        [("y", F, ["n", 64])],
        initializers=[("w", w)],
    )
    path = tmp_path / "external.onnx"
    onnx.save_model(m, str(path), save_as_external_data=True, location="weights.bin", size_threshold=0)
    assert (tmp_path / "weights.bin").exists()
    imported = gonnx.import_model(str(path))
    assert imported.ok and np.array_equal(imported.constants["w"], w)
    assert str(imported.check().function_type("main")) == (
        "fn (Tensor[(n, 64), float32], Tensor[(64, 64), float32]) -> Tensor[(n, 64), float32]"
    )


def test_weights_whose_bytes_look_like_external_data_are_not_searched_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two bytes of `data_location: EXTERNAL` turn up by chance in large weights (a 41 MB
    transformer's did), and loading then looked for external data in every tensor: 0.24 s. The
    entries that name the file must be there too."""
    calls: list = []
    monkeypatch.setattr(onnx, "load_external_data_for_model", lambda *a, **k: calls.append(a))
    w = np.frombuffer(bytes([14 << 3, 1, 0, 0]) * 4096, dtype=np.float32).reshape(64, 64).copy()
    m = model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [("x", F, ["n", 64])],
        [("y", F, ["n", 64])],
        initializers=[("w", w)],
    )
    path = tmp_path / "m.onnx"
    onnx.save_model(m, str(path))
    assert bytes([14 << 3, 1]) in path.read_bytes()
    imported = gonnx.import_model(str(path))
    assert imported.ok and calls == [] and np.array_equal(imported.constants["w"], w)


def test_a_file_that_is_not_a_model_is_a_load_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00\x01 not a model")
    with pytest.raises(gonnx.LoadError) as info:
        gonnx.import_model(str(bad))
    assert info.value.diagnostic.code == "input-error"


# the batch options and the light models -------------------------------------------------------------------
def _fixed_batch_model(**reshape: object) -> object:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Reshape", ["r", "shape"], ["y"], name="flat", **reshape),
    ]
    return model(
        nodes,
        [("x", F, [1, 3, 4])],
        [("y", F, [1, 12])],
        initializers=[("shape", np.array([1, 12], np.int64))],
        opset=18 if reshape else 17,
    )


def test_a_hard_coded_batch_is_found_when_the_batch_is_symbolic() -> None:
    (err,) = errors(_fixed_batch_model(), batch="N")
    assert err.span.source.line_text(err.line) == "node flat (Reshape): r, shape -> y"
    assert "N" in err.message


@pytest.mark.parametrize("reshape", [{}, {"allowzero": 1}])
def test_batch_reshapes_make_such_a_model_batch_polymorphic(reshape: dict) -> None:
    """allowzero=1, which the dynamo exporter writes on every Reshape, changes nothing without a
    0 in the target: the batch is copied all the same (it was left hard-coded)."""
    assert main_type(_fixed_batch_model(**reshape), batch="N", batch_reshapes=True) == (
        "fn (Tensor[(N, 3, 4), float32]) -> Tensor[(N, 12), float32]"
    )


def _light_models() -> list:
    folder = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    return sorted(folder.glob("*.onnx"))


@pytest.mark.parametrize("path", _light_models(), ids=lambda p: p.stem)
def test_light_models_with_a_symbolic_batch(path: Path) -> None:
    imported = gonnx.import_model(str(path), gonnx.ImportOptions(batch="N", batch_reshapes=True))
    result = imported.check()
    assert result.ok, [d.message for d in result.errors]
    ret = str(result.function_type("main").ret)
    assert ret.startswith("Tensor[(N, 1000") and ret.endswith("float32]")


# the printed program ------------------------------------------------------------------------------------
def test_the_imported_program_prints_parses_and_checks_alike() -> None:
    w = np.ones((4, 3), np.float32)
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["g"], transB=0, alpha=0.5),
        helper.make_node("Shape", ["g"], ["s"]),
        helper.make_node("Reshape", ["g", "s"], ["y"]),
    ]
    m = model(nodes, [("x", F, ["n", 4])], [("y", F, None)], initializers=[("w", w), ("b", np.zeros(3, np.float32))])
    imported = gonnx.import_model(m, path="m.onnx")
    built = imported.check()
    reparsed = gradual.check(imported.text(), "m.rly")
    assert reparsed.ok, [d.message for d in reparsed.diagnostics]
    assert str(reparsed.function_type("main")) == str(built.function_type("main"))


def test_the_package_docstring_lists_every_supported_operator() -> None:
    doc = " ".join(gonnx.__doc__.split())
    listed = doc.split("Supported operators (`supported_operators()`): ")[1]
    assert listed.split(", ") == gonnx.supported_operators()


# control flow ------------------------------------------------------------------------------------------
def _branch(name: str, nodes: list, output: str) -> object:
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(output, F, None)])


def test_if_branches_become_an_if_whose_types_join() -> None:
    then = _branch("then", [helper.make_node("Relu", ["x"], ["t"])], "t")
    other = _branch("else", [helper.make_node("Concat", ["x", "x"], ["e"], axis=1)], "e")
    node = helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then, else_branch=other)
    m = model([node], [("c", TensorProto.BOOL, []), ("x", F, [2, 3])], [("y", F, None)])
    assert main_type(m) == "fn (bool, Tensor[(2, 3), float32]) -> Tensor[(2, 3..6), float32]"
    imported = gonnx.import_model(m, gonnx.ImportOptions(declared_outputs=False))
    x = np.ones((2, 3), np.float32)
    assert imported.run({"c": np.array(False), "x": x})[0].shape == (2, 6)
    assert gradual.check(imported.text()).ok


def test_nodes_after_an_if_see_every_tensor_bound_after_it() -> None:
    """A branch is imported with the graph's names copied and restored: a node after the If,
    bound in the Dataflow without attributes (Relu) or with them (Softmax, by its form in
    forms.py), sees the tensors bound after the If either way."""
    then = _branch("then", [helper.make_node("Relu", ["x"], ["t"])], "t")
    other = _branch("else", [helper.make_node("Neg", ["x"], ["e"])], "e")
    nodes = [
        helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then, else_branch=other),
        helper.make_node("Relu", ["y"], ["r"]),
        helper.make_node("Softmax", ["r"], ["s"], axis=1),
        helper.make_node("Add", ["s", "r"], ["z"]),
    ]
    m = model(nodes, [("c", TensorProto.BOOL, []), ("x", F, [2, 3])], [("z", F, None)])
    imported = gonnx.import_model(m, gonnx.ImportOptions(declared_outputs=False))
    assert imported.ok, [d.message for d in imported.diagnostics]
    flows = [s for s in imported.module.defs[0].body.stmts if type(s).__name__ == "Dataflow"]
    # not made a Node for want of a name; Softmax's statement holds its axis
    assert [flow.names for flow in flows] == [["r", "s", "z"]]
    assert [a.name for a in flows[0].attrs[1]] == ["axis"] and not flows[0].made
    assert main_type(m) == "fn (bool, Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32]"
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    r = np.maximum(x, 0)
    softmax = np.exp(r) / np.exp(r).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(imported.run({"c": np.array(True), "x": x})[0], softmax + r, rtol=1e-6)


def test_an_unsupported_node_in_a_branch_is_reported_once_at_its_line() -> None:
    then = _branch("then", [helper.make_node("Bernoulli", ["x"], ["t"], name="coin")], "t")
    other = _branch("else", [helper.make_node("Relu", ["x"], ["e"])], "e")
    node = helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then, else_branch=other)
    imported = gonnx.import_model(model([node], [("c", TensorProto.BOOL, []), ("x", F, [2, 2])], [("y", F, None)]))
    (diag,) = imported.diagnostics
    assert diag.code == "unknown-operator"
    assert diag.span.text == "node coin (Bernoulli) in then_branch of choose (If): x -> t"


# malformed models: diagnostics, never tracebacks -------------------------------------------
def _raw_initializer(name: str, dims: list, raw: bytes) -> object:
    t = TensorProto()
    t.name, t.data_type = name, F
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def _with_initializer(init: object) -> object:
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", F, [4])],
        [helper.make_tensor_value_info("y", F, None)],
        initializer=[init],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_an_initializer_with_huge_dims_is_a_diagnostic_at_its_line() -> None:
    imported = gonnx.import_model(_with_initializer(_raw_initializer("w", [2**40, 2**40], b"")), path="m.onnx")
    (diag,) = imported.diagnostics
    assert diag.code == "bad-initializer"
    assert "too many to hold in memory" in diag.message
    assert diag.span.text.startswith("initializer w:")


def test_an_initializer_with_too_little_data_says_so() -> None:
    imported = gonnx.import_model(_with_initializer(_raw_initializer("w", [4], b"\0" * 8)), path="m.onnx")
    (diag,) = imported.diagnostics
    assert diag.message == "initializer `w` cannot be read: it holds 8 bytes of data, but its dims (4,) need 16"


def test_a_string_attribute_where_an_int_is_due_is_a_located_diagnostic() -> None:
    node = helper.make_node("Concat", ["a", "b"], ["y"], name="cat", axis="1")
    imported = gonnx.import_model(model([node], [("a", F, [2]), ("b", F, [2])], [("y", F, None)]), path="m.onnx")
    (diag,) = imported.diagnostics
    assert (diag.code, diag.message) == (
        "bad-attribute",
        "`Concat` needs attribute `axis` of type INT, but it is of type STRING",
    )
    assert diag.span.text == "node cat (Concat): a, b -> y"


def test_a_missing_required_attribute_is_a_located_diagnostic() -> None:
    node = helper.make_node("Cast", ["a"], ["y"], name="cast")
    (diag,) = gonnx.import_model(model([node], [("a", F, [2])], [("y", F, None)])).diagnostics
    assert diag.code == "missing-attribute" and "`to`" in diag.message


def test_an_attribute_of_no_kind_is_a_located_diagnostic() -> None:
    node = helper.make_node("Cast", ["a"], ["y"], name="cast", to=1)
    node.attribute[0].type = 0  # UNDEFINED: the attribute holds no value
    (diag,) = gonnx.import_model(model([node], [("a", F, [2])], [("y", F, None)])).diagnostics
    assert (diag.code, diag.message) == (
        "bad-attribute",
        "`Cast` needs attribute `to` of type INT, but it is of type UNDEFINED",
    )


@pytest.mark.parametrize(
    "inputs, outputs, message",
    [
        ([], [], "`Constant` takes 1 output, but the node lists 0"),
        (["a", "a", "a"], ["y"], "`Relu` takes 1 input, but the node lists 3"),
    ],
)
def test_a_node_with_inputs_or_outputs_its_schema_does_not_allow_is_a_diagnostic(
    inputs: list, outputs: list, message: str
) -> None:
    op = "Constant" if not inputs else "Relu"
    extra = {"value": numpy_helper.from_array(np.zeros(2, np.float32))} if op == "Constant" else {}
    node = helper.make_node(op, inputs, outputs, name="n", **extra)
    diag = gonnx.import_model(model([node], [("a", F, [2])], [("y", F, None)])).diagnostics[0]
    assert (diag.code, diag.message) == ("wrong-arity", message)
    assert diag.span.text.startswith("node n")


def test_an_operator_at_an_opset_before_it_exists_is_not_converted() -> None:
    """Opset 0 has no schemas: its attributes were not checked at all (an INTS hidden_size
    reached the GRU converter's int())."""
    node = helper.make_node("Relu", ["a"], ["y"], name="r")
    (diag,) = gonnx.import_model(model([node], [("a", F, [2])], [("y", F, None)], opset=0)).diagnostics
    assert (diag.code, diag.message) == ("unknown-operator", "the ONNX operator `Relu` (opset 0) is not supported")


def test_a_tensor_attribute_with_too_little_data_is_a_diagnostic() -> None:
    node = helper.make_node("Constant", [], ["y"], name="c", value=_raw_initializer("v", [4], b"\0" * 7))
    (diag,) = gonnx.import_model(model([node], [], [("y", F, None)])).diagnostics
    assert diag.code == "bad-attribute"
    assert (
        diag.message
        == "attribute `value` of `Constant` cannot be read: it holds 7 bytes of data, but its dims (4,) need 16"
    )


@pytest.mark.parametrize("first, second", [("a b", "a-b"), ("批次", "序列"), ("a b", "a_b"), ("a_b", "a b")])
def test_different_dim_params_are_different_symbols(first: str, second: str) -> None:
    m = model(
        [helper.make_node("Concat", ["a", "b"], ["y"], axis=0)],
        [("a", F, [first]), ("b", F, [second])],
        [("y", F, None)],
    )
    fn = gonnx.import_model(m, gonnx.ImportOptions(declared_outputs=False)).check().function_type("main")
    one, two = (str(p.dims[0]) for p in fn.params)
    assert one != two and one.isidentifier() and two.isidentifier() and one.isascii() and two.isascii()
    assert str(fn.ret.dims[0]) in (f"{one} + {two}", f"{two} + {one}")


def test_a_dim_param_that_is_a_name_keeps_it_and_the_same_text_is_one_symbol() -> None:
    m = model(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        [("a", F, ["batch size", "n"]), ("b", F, ["batch size", "n"])],
        [("y", F, None)],
    )
    assert main_type(m) == (
        "fn (Tensor[(batch_size, n), float32], Tensor[(batch_size, n), float32]) -> Tensor[(batch_size, n), float32]"
    )
    assert gonnx.import_model(m).renamed_dims == {"batch size": "batch_size"}


def test_gradual_import_says_which_dim_params_were_renamed(tmp_path: Path) -> None:
    from gradual.cli import main as cli_main

    m = model([helper.make_node("Relu", ["a"], ["y"])], [("a", F, ["batch size"])], [("y", F, None)])
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["import", str(path)]) == 0
    assert "// dim_params renamed: `batch size` is batch_size" in out.getvalue()


def test_no_node_runs_onnx_inference_over_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """ONNX's own inference costs as much as the peer's whole process; a model whose
    converters never ask (MatMul by a weight, Relu, Add) imports without it, and one whose
    converter does (GlobalAveragePool of an inner tensor's rank) finds the rank from the nodes
    it depends on (ranks.py) and gets the same lowering as with ONNX's inference."""
    from onnx import shape_inference

    calls: list = []
    real = shape_inference.infer_shapes
    monkeypatch.setattr(shape_inference, "infer_shapes", lambda *a, **k: calls.append(1) or real(*a, **k))
    chain = model(
        [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("Relu", ["y"], ["z"])],
        [("x", F, ["n", 4])],
        [("z", F, None)],
        [("w", np.ones((4, 3), np.float32))],
    )
    assert main_type(chain) == "fn (Tensor[(n, 4), float32], Tensor[(4, 3), float32]) -> Tensor[(n, 3), float32]"
    assert calls == []
    pool = model(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("GlobalAveragePool", ["y"], ["z"])],
        [("x", F, ["n", 3, 8, 8])],
        [("z", F, None)],
    )
    assert main_type(pool) == "fn (Tensor[(n, 3, 8, 8), float32]) -> Tensor[(n, 3, 1, 1), float32]"
    assert "nn.global_avg_pool2d" in gonnx.import_model(pool).text()
    assert calls == []


def test_attention_matmuls_and_unsqueezes_do_not_run_onnx_inference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real export's attention MatMul (two inner tensors) and Unsqueeze by non-negative axes
    asked for an inner tensor's rank, which ran ONNX's inference on the whole model: 0.8 s of a
    200-layer TorchScript transformer's 1.2 s import. MatMul of a right side whose rank is not
    known is `onnx.matmul` (NumPy's, right for every rank); Unsqueeze asks the rank only for a
    negative axis."""
    from onnx import shape_inference

    calls: list = []
    real = shape_inference.infer_shapes
    monkeypatch.setattr(shape_inference, "infer_shapes", lambda *a, **k: calls.append(1) or real(*a, **k))
    nodes = [
        helper.make_node("Relu", ["q"], ["qr"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["qr", "kt"], ["s"]),
        helper.make_node("Unsqueeze", ["s", "axes"], ["u"]),
    ]
    m = model(
        nodes, [("q", F, ["b", "t", 8]), ("k", F, ["b", "t", 8])], [("u", F, None)], [("axes", np.array([1], np.int64))]
    )
    assert main_type(m).endswith("-> Tensor[(b, 1, t, t), float32]")
    assert calls == []


def _tree(node: object) -> list:
    """Every syntax node under `node` with its class, fields and span, in order."""
    import dataclasses

    from gradual.syntax import ast

    if isinstance(node, ast.Node):
        out = [(type(node).__name__, node.span.start, node.span.end)]
        for f in dataclasses.fields(node):
            if f.name != "span":
                out += _tree(getattr(node, f.name))
        return out
    if isinstance(node, (list, tuple)):
        return [item for part in node for item in _tree(part)]
    return [repr(node)]


def test_a_clean_check_never_writes_the_listing() -> None:
    """The listing's text and places are written when a location is first read (a
    diagnostic, a printed program); a model that checks clean never reads one. A diagnostic
    then reads its spans from the text as written."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="first"),
        helper.make_node("LeakyRelu", ["r"], ["s"], name="second", alpha=0.5),
        helper.make_node("Add", ["s", "r"], ["z"], name="third"),
    ]
    imported = gonnx.import_model(model(nodes, [("x", F, ["n", 3])], [("z", F, None)]))
    result = imported.check()
    assert result.ok and result.source._written is None
    bad = model(
        [
            helper.make_node("Relu", ["x"], ["r"], name="first"),
            helper.make_node("MatMul", ["r", "w"], ["z"], name="mm"),
        ],
        [("x", F, ["n", 3])],
        [("z", F, None)],
        [("w", np.ones((4, 2), np.float32))],
    )
    (error,) = gonnx.import_model(bad).check().errors
    assert (
        error.span.text == "w"
        and error.span.source.line_text(error.span.start_position[0]) == "node mm (MatMul): r, w -> z"
    )


def test_direct_nodes_are_imported_without_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """The import reads a direct node's fields itself and makes no NodeRecord for it
    (reading every node into a record first, then importing the records, was a second pass
    over the model); a node with attributes gets one. The listing reads its own records when a
    diagnostic needs it, names included."""
    from gradual.frontends.onnx import importer, listing

    made = []

    class Counted(listing.NodeRecord):
        __slots__ = ()

        def __init__(self, proto: object) -> None:
            made.append(proto.name)  # type: ignore[attr-defined]
            super().__init__(proto)

    monkeypatch.setattr(importer, "NodeRecord", Counted)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="first"),
        helper.make_node("LeakyRelu", ["r"], ["s"], name="second", alpha=0.5),
        helper.make_node("Add", ["s", "r"], ["a"], name="third"),
        helper.make_node("MatMul", ["a", "w"], ["z"], name="mm"),
    ]
    bad = model(nodes, [("x", F, ["n", 3])], [("z", F, None)], [("w", np.ones((4, 2), np.float32))])
    (error,) = gonnx.import_model(bad).check().errors
    # attributes of an operator without a form (forms.py); a weight not yet used is materialized
    # by the loop (a map with a constant input), the node bound without a record
    assert made == ["second"]
    assert error.span.source.line_text(error.span.start_position[0]) == "node mm (MatMul): a, w -> z"


def test_direct_forms_build_what_their_converters_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """A node whose converter has a direct form (convert.DIRECT) is imported without a
    Node, into a Dataflow; the program its statements make, their spans and the listing are what
    the converter gives."""
    from gradual.frontends.onnx import importer
    from gradual.frontends.onnx.convert import DIRECT
    from gradual.frontends.onnx.convert.elementwise import UNARY
    from gradual.syntax import ast

    nodes, prev = [], "x"
    for k, op in enumerate(sorted(DIRECT)):
        count = 1 if op in UNARY else 3 if op == "Where" else 2
        inputs = [prev] + ["w" if op == "MatMul" and k % 2 else "x"] * (count - 1)
        nodes.append(helper.make_node(op, inputs, [f"v{k}"], name=f"n{k}" if k % 3 else ""))
        prev = f"v{k}"
    m = model(nodes, [("x", F, ["n", 4])], [(prev, F, None)], [("w", np.ones((4, 4), np.float32))], opset=21)

    def imported() -> tuple:
        result = gonnx.import_model(m, gonnx.ImportOptions(declared_outputs=False), path="m.onnx")
        assert result.ok, [d.message for d in result.diagnostics]
        text = result.text()
        flows = [s for s in result.module.defs[0].body.stmts if isinstance(s, ast.Dataflow)]
        return _tree(ast.expand_dataflow(result.module)), result.module.span.source.text, text, len(flows)

    direct = imported()
    assert direct[3] == 1
    monkeypatch.setattr(importer, "_DIRECT", {})
    assert imported()[:3] == direct[:3]


@pytest.mark.parametrize("kind, gates", [("RNN", 1), ("GRU", 3), ("LSTM", 4)])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_recurrent_layers_with_sequence_lengths_agree_with_onnxruntime(kind: str, gates: int, direction: str) -> None:
    """Entries of a batch shorter than the sequence: each entry's Y rows are its own steps (the
    kernel wrote every entry's state at every entry's index, a (batch, batch) block: Y was wrong
    wherever the lengths differed)."""
    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(0)
    directions = 2 if direction == "bidirectional" else 1
    weights = [
        (name, rng.standard_normal((directions, gates * 2, size)).astype(np.float32))
        for name, size in (("W", 3), ("R", 2))
    ]
    outs = ["y", "yh"] + (["yc"] if kind == "LSTM" else [])
    m = model(
        [helper.make_node(kind, ["x", "W", "R", "", "sl"], outs, hidden_size=2, direction=direction)],
        [("x", TensorProto.FLOAT, ["t", "b", 3]), ("sl", TensorProto.INT32, ["b"])],
        [(o, TensorProto.FLOAT, None) for o in outs],
        weights,
    )
    inputs = {"x": rng.standard_normal((4, 3, 3)).astype(np.float32), "sl": np.array([4, 1, 3], np.int32)}
    expected = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, inputs)
    imported = gonnx.import_model(m, path="m.onnx")
    assert imported.check().ok
    for mine, theirs in zip(imported.run(inputs), expected):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5)


def test_a_gather_index_out_of_range_is_an_error_not_a_wrap() -> None:
    """ONNX makes an index outside -n..n-1 an error; Gather was take(mode="wrap"), which ran
    index 3 of 3 as 0. Known indices: a static error; indices
    from an input: the rule stops the run."""
    constant = model(
        [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)],
        [("x", TensorProto.FLOAT, [3, 2])],
        [("y", TensorProto.FLOAT, None)],
        [("i", np.array([3], np.int64))],
    )
    assert [d.code for d in gonnx.import_model(constant, path="m.onnx").check().errors] == ["shape-mismatch"]
    given = model(
        [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)],
        [("x", TensorProto.FLOAT, [3, 2]), ("i", TensorProto.INT64, [1])],
        [("y", TensorProto.FLOAT, None)],
    )
    imported = gonnx.import_model(given, path="m.onnx")
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert imported.run({"x": x, "i": np.array([-1], np.int64)})[0].tolist() == [[4.0, 5.0]]
    with pytest.raises(gradual.RunFailure):
        imported.run({"x": x, "i": np.array([3], np.int64)})


def test_a_model_local_function_is_inlined() -> None:
    """A node calling a FunctionProto of the model (`pkg.custom::SqPlus`, Mul then Add) is its
    body's nodes, expanded by ONNX's inliner (it was an unsupported operator)."""
    body = helper.make_function(
        "pkg.custom",
        "SqPlus",
        ["a"],
        ["b"],
        [helper.make_node("Mul", ["a", "a"], ["sq"]), helper.make_node("Add", ["sq", "a"], ["b"])],
        [helper.make_opsetid("", 17)],
    )
    graph = helper.make_graph(
        [helper.make_node("SqPlus", ["x"], ["y"], domain="pkg.custom")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])],
    )
    m = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("pkg.custom", 1)], functions=[body]
    )
    imported = gonnx.import_model(m, path="m.onnx")
    result = imported.check()
    assert result.ok and str(result.function_type("main").ret) == "Tensor[(n,), float32]"
    assert imported.run({"x": np.array([0, 1, 2], np.float32)}, checked=result)[0].tolist() == [0.0, 2.0, 6.0]


_LOCAL = [helper.make_opsetid("", 17), helper.make_opsetid("loc", 1)]


def _function(name: str, calls: tuple = ()) -> object:
    """A model-local function `loc::name`: Relu of its input after calling `calls` in turn."""
    nodes, last = [], "a"
    for i, callee in enumerate(calls):
        nodes.append(helper.make_node(callee, [last], [f"t{i}"], domain="loc"))
        last = f"t{i}"
    return helper.make_function("loc", name, ["a"], ["b"], nodes + [helper.make_node("Relu", [last], ["b"])], _LOCAL)


def _calling(names: list, functions: list) -> object:
    """A model whose graph calls the functions `names` in a chain over x: (n, 4)."""
    nodes, last = [], "x"
    for i, name in enumerate(names):
        nodes.append(helper.make_node(name, [last], [f"y{i}"], domain="loc"))
        last = f"y{i}"
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info(last, TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=_LOCAL, functions=functions)


def test_a_function_the_inliner_cannot_expand_leaves_the_others_expanded_and_says_why() -> None:
    """ONNX's inliner refuses a whole model when one function calls itself or calls nest more
    than 100 deep: every call of every function stayed an `unknown-operator` "not supported",
    without a reason, even a healthy function's when a recursive one was never called. Now the call graph is read first: only what cannot be expanded stays, and its call
    says why."""
    ok, rec = _function("ok"), _function("rec", ("rec",))
    assert gonnx.import_model(_calling(["ok"], [ok, rec]), path="m.onnx").check().ok
    diags = gonnx.import_model(_calling(["ok", "rec"], [ok, rec]), path="m.onnx").check().errors
    assert [(d.code, d.message) for d in diags] == [
        ("unknown-operator", "the model-local function `rec` (domain `loc`) cannot be expanded: it calls itself")
    ]
    ping, pong, caller = _function("ping", ("pong",)), _function("pong", ("ping",)), _function("caller", ("ping",))
    messages = [
        d.message for d in gonnx.import_model(_calling(["caller"], [ping, pong, caller]), path="m.onnx").check().errors
    ]
    assert messages == [
        "the model-local function `caller` (domain `loc`) cannot be expanded: it calls `ping`, which calls itself"
    ]
    chain = [_function("f0")] + [_function(f"f{i}", (f"f{i - 1}",)) for i in range(1, 320)]
    assert gonnx.import_model(_calling(["f99"], chain), path="m.onnx").check().ok  # 100 deep: expanded
    messages = [d.message for d in gonnx.import_model(_calling(["f99", "f319"], chain), path="m.onnx").check().errors]
    assert messages == [
        "the model-local function `f319` (domain `loc`) cannot be expanded: its calls of functions "
        "nest 320 deep, and ONNX's inliner expands at most 100"
    ]


def test_split_sizes_must_add_up_and_unsqueeze_axes_must_differ() -> None:
    """Models onnxruntime refuses: Split sizes 2 + 2 of a dim of 5 (per-output slices ran them,
    dropping a column), Unsqueeze axes 0 and -3 of a vector (one output position twice)."""
    split = model(
        [helper.make_node("Split", ["x", "sp"], ["a", "b"], axis=1)],
        [("x", TensorProto.FLOAT, [2, 5])],
        [("a", TensorProto.FLOAT, None), ("b", TensorProto.FLOAT, None)],
        [("sp", np.array([2, 2], np.int64))],
        opset=18,
    )
    assert [d.code for d in gonnx.import_model(split, path="m.onnx").check().errors] == ["shape-mismatch"]
    unsqueeze = model(
        [helper.make_node("Unsqueeze", ["x", "ax"], ["y"])],
        [("x", TensorProto.FLOAT, ["n"])],
        [("y", TensorProto.FLOAT, None)],
        [("ax", np.array([0, -3], np.int64))],
        opset=18,
    )
    assert [d.code for d in gonnx.import_model(unsqueeze, path="m.onnx").check().errors] == ["bad-attribute"]


def _agrees_with_onnxruntime(m: object, inputs: dict) -> None:
    """The model checks clean and gradual's run gives onnxruntime's outputs."""
    ort = pytest.importorskip("onnxruntime")
    expected = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, inputs)
    imported = gonnx.import_model(m, path="m.onnx")
    assert imported.check().ok
    for mine, theirs in zip(imported.run(inputs), expected):
        assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_integer_division_of_the_minimum_truncates_as_onnxruntime_does(dtype: type) -> None:
    """|x| of the dtype's minimum overflows: -128 / 3 ran as -(|-128| // 3) = 43; a divisor that is the minimum too."""
    low = np.iinfo(dtype).min
    kind = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    m = model([helper.make_node("Div", ["a", "b"], ["y"])], [("a", kind, [6]), ("b", kind, [6])], [("y", kind, None)])
    _agrees_with_onnxruntime(
        m, {"a": np.array([low, 7, -7, 7, -7, 5], dtype), "b": np.array([3, 2, 2, -2, -2, low], dtype)}
    )


def test_an_integer_to_a_negative_power_truncates_as_onnxruntime_does() -> None:
    m = model(
        [helper.make_node("Pow", ["a", "e"], ["y"])],
        [("a", TensorProto.INT32, [5]), ("e", I64, [5])],
        [("y", TensorProto.INT32, None)],
        opset=15,
    )
    _agrees_with_onnxruntime(m, {"a": np.array([2, 1, -1, 2, -1], np.int32), "e": np.array([3, -1, -3, -2, -2])})


@pytest.mark.parametrize(
    "op", ["ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "ReduceSum", "ReduceMax"]
)
@pytest.mark.parametrize("axes_given", [True, False])
def test_an_empty_reduction_that_is_a_noop_still_takes_its_other_steps(op: str, axes_given: bool) -> None:
    """noop_with_empty_axes: ReduceSumSquare squares, ReduceLogSum takes the log (ONNX's schema);
    the import returned the input unchanged for both forms."""
    inputs = [("x", F, ["n"])] + ([("axes", I64, [0])] if axes_given else [])
    initializers = () if axes_given else [("axes", np.zeros((0,), np.int64))]
    m = model(
        [helper.make_node(op, ["x", "axes"], ["y"], noop_with_empty_axes=1)],
        inputs,
        [("y", F, None)],
        initializers,
        opset=18,
    )
    feeds = {"x": np.array([0.5, 2.0, 3.0], np.float32)}
    _agrees_with_onnxruntime(m, feeds | ({"axes": np.zeros((0,), np.int64)} if axes_given else {}))


def test_hardmax_of_an_empty_tensor_is_empty() -> None:
    m = model([helper.make_node("Hardmax", ["x"], ["y"], axis=-1)], [("x", F, [2, "m"])], [("y", F, None)], opset=13)
    _agrees_with_onnxruntime(m, {"x": np.zeros((2, 0), np.float32)})


def _softmax_through_identity(value_info_rank: int) -> object:
    """Softmax at opset 11 (flatten from `axis` on) of `t = Identity(x)`, x of rank 3, with a
    value_info for `t` of the given rank (the converter chooses its lowering by t's rank)."""
    m = model(
        [helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Softmax", ["t"], ["y"], axis=1)],
        [("x", F, ["n", 3, 4])],
        [("y", F, None)],
        opset=11,
    )
    m.graph.value_info.append(helper.make_tensor_value_info("t", F, [None] * value_info_rank))
    return m


def test_a_lowering_chosen_by_the_models_value_info_is_checked_against_it() -> None:
    """A value_info claiming rank 2 for a rank-3 tensor chose Softmax's last-axis form: values
    other than ONNX's, with a clean check. What the import takes
    from ONNX's inference is now asserted in the program: here a static error at the node
    that relied on it; a true value_info costs no check."""
    (error,) = gonnx.import_model(_softmax_through_identity(2), path="m.onnx").check().errors
    assert error.code == "bad-cast" and "value_info" in error.message and "its rank is 3, not 2" in error.message
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    _agrees_with_onnxruntime(_softmax_through_identity(3), {"x": x})
    assert gonnx.import_model(_softmax_through_identity(3), path="m.onnx").check().check_count == 0


def test_resize_by_a_float_scale_computes_in_float32_as_onnxruntime() -> None:
    """A side of 20 scaled by 1.3 is 26 (float32: 1.3f * 20 = 26), not 25 (float64: 1.2999999523
    * 20); 3 / 0.3f is 10, which picks row 10, not 9."""
    nodes = [
        helper.make_node("Resize", ["x", "", "up_scales"], ["up"], mode="linear"),
        helper.make_node(
            "Resize",
            ["x", "", "down_scales"],
            ["down"],
            mode="nearest",
            coordinate_transformation_mode="asymmetric",
            nearest_mode="floor",
        ),
    ]
    m = model(
        nodes,
        [("x", F, [1, 1, 20, 20])],
        [("up", F, None), ("down", F, None)],
        [
            ("up_scales", np.array([1, 1, 1.3, 1.3], np.float32)),
            ("down_scales", np.array([1, 1, 0.3, 0.3], np.float32)),
        ],
        opset=13,
    )
    _agrees_with_onnxruntime(m, {"x": np.arange(400, dtype=np.float32).reshape(1, 1, 20, 20)})
    assert main_type(m).endswith("(Tensor[(1, 1, 26, 26), float32], Tensor[(1, 1, 6, 6), float32])")


# sequences ---------------------------------------------------------------------------------------------
def _seq_graph(nodes: list, outputs: list, inits: tuple = (), x_shape: tuple = (2, 6, 3)) -> object:
    return model(nodes, [("x", F, ["n", *x_shape[1:]])], [(o, F, None) for o in outputs], initializers=inits, opset=18)


def _ints(name: str, values: object) -> object:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(values, np.int64)))


@pytest.mark.parametrize(
    "nodes, outputs",
    [
        # the dynamo exporter's chunk and split with optimize=False: parts of 2, sizes [2, 4]
        (
            [
                _ints("two", 2),
                _ints("sizes", [2, 4]),
                _ints("i0", 0),
                _ints("i1", 1),
                _ints("last", -1),
                helper.make_node("SplitToSequence", ["x", "two"], ["s"], axis=1),
                helper.make_node("SequenceAt", ["s", "i0"], ["a"]),
                helper.make_node("SequenceAt", ["s", "last"], ["b"]),
                helper.make_node("SplitToSequence", ["x", "sizes"], ["t"], axis=1),
                helper.make_node("SequenceAt", ["t", "i1"], ["c"]),
            ],
            ["a", "b", "c"],
        ),
        # parts of 4 of 6: the last one shorter
        (
            [
                _ints("four", 4),
                _ints("i1", 1),
                helper.make_node("SplitToSequence", ["x", "four"], ["s"], axis=1),
                helper.make_node("SequenceAt", ["s", "i1"], ["a"]),
                helper.make_node("SequenceLength", ["s"], ["len"]),
                helper.make_node("Cast", ["len"], ["lenf"], to=F),
            ],
            ["a", "lenf"],
        ),
        # no split: parts of 1, squeezed without keepdims; stacked back and concatenated
        (
            [
                helper.make_node("SplitToSequence", ["x"], ["s"], axis=2, keepdims=0),
                helper.make_node("ConcatFromSequence", ["s"], ["a"], axis=1, new_axis=1),
                helper.make_node("ConcatFromSequence", ["s"], ["b"], axis=0),
            ],
            ["a", "b"],
        ),
        # built up: empty, insert at the end and at the front, construct
        (
            [
                _ints("i0", 0),
                helper.make_node("SequenceEmpty", [], ["e"], dtype=F),
                helper.make_node("Relu", ["x"], ["r"]),
                helper.make_node("SequenceInsert", ["e", "x"], ["s1"]),
                helper.make_node("SequenceInsert", ["s1", "r", "i0"], ["s2"]),
                helper.make_node("ConcatFromSequence", ["s2"], ["a"], axis=-1),
                helper.make_node("SequenceConstruct", ["r", "x", "r"], ["c"]),
                helper.make_node("ConcatFromSequence", ["c"], ["b"], axis=0, new_axis=1),
            ],
            ["a", "b"],
        ),
        # the TorchScript exporter's x.split([n // 2, n - n // 2]): sizes computed from the shape, a
        # vector of 2 (it was "needs its 2nd input (split) to be a constant"; outside9)
        (
            [
                _ints("i0", 0),
                _ints("i1", 1),
                _ints("two", 2),
                _ints("axes", [0]),
                helper.make_node("Shape", ["x"], ["shape"]),
                helper.make_node("Gather", ["shape", "i0"], ["n"], axis=0),
                helper.make_node("Div", ["n", "two"], ["h"]),
                helper.make_node("Sub", ["n", "h"], ["rest"]),
                helper.make_node("Unsqueeze", ["h", "axes"], ["h1"]),
                helper.make_node("Unsqueeze", ["rest", "axes"], ["rest1"]),
                helper.make_node("Concat", ["rest1", "h1"], ["sizes"], axis=0),
                helper.make_node("SplitToSequence", ["x", "sizes"], ["s"], axis=0),
                helper.make_node("SequenceAt", ["s", "i0"], ["a"]),
                helper.make_node("SequenceAt", ["s", "i1"], ["b"]),
                helper.make_node("Add", ["a", "a"], ["c"]),
            ],
            ["a", "b", "c"],
        ),
    ],
)
def test_sequences_of_known_length_are_tuples_and_run_as_onnx_says(nodes: list, outputs: list) -> None:
    """The dynamo exporter writes split / chunk with optimize=False as SplitToSequence and
    SequenceAt; they were unsupported operators. Values against ONNX's reference evaluator, at two batch sizes."""
    from onnx.reference import ReferenceEvaluator

    m = _seq_graph(nodes, outputs)
    main_type(m)
    for n in (2, 5):
        x = np.random.default_rng(n).standard_normal((n, 6, 3)).astype(np.float32)
        want = ReferenceEvaluator(m).run(None, {"x": x})
        got = _run(m, x=x)
        got = got if isinstance(got, (list, tuple)) else [got]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)


def test_a_sequence_split_into_a_count_of_parts_known_only_at_runtime_is_reported_at_its_node() -> None:
    """Parts of 1, as many as x has rows (a split vector of n ones: TorchScript's
    repeat_interleave by counts): the count of parts decides the tuple, so it is unsupported."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        _ints("i0", 0),
        _ints("one", [1]),
        _ints("s0", [0]),
        _ints("s1", [1]),
        helper.make_node("Slice", ["shape", "s0", "s1"], ["rows"]),
        helper.make_node("Tile", ["one", "rows"], ["ones"]),
        helper.make_node("SplitToSequence", ["x", "ones"], ["s"], axis=0, name="seq"),
        helper.make_node("SequenceAt", ["s", "i0"], ["y"]),
    ]
    imported = gonnx.import_model(_seq_graph(nodes, ["y"]), path="m.onnx")
    assert not imported.ok
    diag = imported.diagnostics[0]
    assert "SplitToSequence" in diag.message and diag.span.text.startswith("node seq (SplitToSequence)")


@pytest.mark.parametrize("kind", [np.bool_, np.int8, np.uint8, np.int64, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_a_constant_written_into_the_program_holds_python_values_of_its_dtype(kind: type, dtype: str) -> None:
    """inline_constant's values are Python bools for a bool dtype, ints for an integer array and
    floats otherwise, whatever the array's own kind (it reads them with NumPy's tolist)."""
    from gradual.frontends.onnx.node import inline_constant

    array = np.array([[1, 0, 2]]).astype(kind)
    (values, shape, _) = inline_constant(array, dtype, None).attrs
    wanted = bool if dtype == "bool" else int if array.dtype.kind in "iu" else float
    assert [type(v) for v in values.value.items] == [wanted] * 3
    assert list(values.value.items) == [wanted(v) for v in array.reshape(-1)] and shape.value.items == (1, 3)


def test_a_sequence_split_at_computed_sizes_that_do_not_add_up_is_an_error() -> None:
    """Split along rows by the shape (n, 6, 3) itself: n + 9 rows are asked of n, which
    onnxruntime refuses too."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        _ints("i0", 0),
        helper.make_node("SplitToSequence", ["x", "shape"], ["s"], axis=0, name="seq"),
        helper.make_node("SequenceAt", ["s", "i0"], ["y"]),
    ]
    result = gonnx.import_model(_seq_graph(nodes, ["y"]), path="m.onnx").check()
    assert not result.ok
    assert "needs n + 9" in result.diagnostics[0].message


@pytest.mark.parametrize(
    "dtype",
    [
        np.float32,
        np.uint8,
        np.int8,
        np.uint16,
        np.int16,
        np.int32,
        np.int64,
        np.bool_,
        np.float16,
        np.float64,
        np.uint32,
        np.uint64,
    ],
)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 3), (2, 3, 4)])
def test_a_plain_tensor_read_directly_is_what_numpy_helper_reads(dtype: type, shape: tuple) -> None:
    """constants.read's direct path (raw_data of a plain element type) against onnx's reader,
    and a raw_data too short for its dims still goes the checked way and is reported."""
    from gradual.frontends.onnx import constants

    array = (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)
    tensor = numpy_helper.from_array(array, "t")
    mine = constants.read(tensor)
    assert isinstance(mine, np.ndarray) and mine.dtype == array.dtype and mine.shape == array.shape
    np.testing.assert_array_equal(mine, numpy_helper.to_array(tensor))
    if array.size:
        mine[...] = 0  # its own copy, not a view of the protobuf's bytes
        tensor.raw_data = tensor.raw_data[:-1]
        assert "bytes of data" in constants.read(tensor)


def test_a_constant_node_reads_its_tensor_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Constant converter asked for its `value` twice, reading the tensor twice (a real
    transformer export has 5,201 Constant nodes: 0.4 s of its import)."""
    from gradual.frontends.onnx import constants, node

    reads: list = []
    real, plain = constants.read, constants.read_plain
    monkeypatch.setattr(node, "read_tensor", lambda tensor: reads.append(1) or real(tensor))
    monkeypatch.setattr(constants, "read_plain", lambda tensor: reads.append(1) or plain(tensor))  # the importer's
    nodes = [
        helper.make_node("Constant", [], [f"c{i}"], value=numpy_helper.from_array(np.full(3, i, np.float32)))
        for i in range(3)
    ]
    nodes += [helper.make_node("Sum", ["x", "c0", "c1", "c2"], ["y"])]
    m = model(nodes, [("x", F, [3])], [("y", F, None)])
    assert main_type(m) == "fn (Tensor[(3,), float32]) -> Tensor[(3,), float32]"
    assert len(reads) == 3


def _float_range_of_a_size(start: float, delta: float) -> object:
    """y = x * Range(start, Cast<float>(Gather(Shape(x), 0)), delta)[:, None]: the exporters'
    `torch.arange(x.shape[0], dtype=torch.float32)`."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Cast", ["n"], ["nf"], to=F),
        helper.make_node("Range", ["start", "nf", "delta"], ["r"]),
        helper.make_node("Unsqueeze", ["r", "one"], ["u"]),
        helper.make_node("Mul", ["x", "u"], ["y"]),
    ]
    inits = (
        ("zero", np.array(0, np.int64)),
        ("one", np.array([1], np.int64)),
        ("start", np.array(start, np.float32)),
        ("delta", np.array(delta, np.float32)),
    )
    return model(nodes, [("x", F, ["n", 4])], [("y", F, ["n", 4])], inits)


def _run_with_checks(m: object, inputs: dict, checks: int) -> list:
    """The model's outputs on `inputs`, after asserting how many checks its check inserted."""
    imported = gonnx.import_model(m, path="m.onnx")
    result = imported.check()
    assert result.check_count == checks
    return imported.run(inputs, result)


def test_a_float_range_over_a_size_cast_to_float_keeps_its_length() -> None:
    """The cast size carried no shape value, so the Range was `?` and the Mul after it was
    checked (RoPE positions, anchor grids: 3 to 5 checks a model in both exporters)."""
    m = _float_range_of_a_size(0.0, 1.0)
    assert main_type(m) == "fn (Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32]"
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (got,) = _run_with_checks(m, {"x": x}, 0)
    np.testing.assert_array_equal(got, x * np.arange(3, dtype=np.float32)[:, None])


def test_a_float_range_with_a_fractional_bound_stays_float() -> None:
    """A start of 0.5 is no integer: the Range is the float one, its length unknown."""
    m = _float_range_of_a_size(0.5, 1.0)
    assert main_type(m) == "fn (Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32]"
    x = np.ones((3, 4), np.float32)
    (got,) = _run_with_checks(m, {"x": x}, 1)
    np.testing.assert_array_equal(got, x * np.arange(0.5, 3, dtype=np.float32)[:, None])


def test_a_slice_to_a_size_no_longer_than_the_dim_is_that_size() -> None:
    """A causal conv's output cropped to the input's length, `y[..., :seq]` of a `seq + 3` long
    dim (Mamba, wav2vec's positional conv): the end is a shape value that nothing clamps, so
    the length is `seq` (it was `?`, and 5 checks followed it)."""
    nodes = [
        helper.make_node("Pad", ["x", "pads"], ["p"]),
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Slice", ["s", "one", "two"], ["end"]),
        helper.make_node("Slice", ["p", "zero", "end", "one"], ["y"]),
    ]
    inits = (
        ("pads", np.array([0, 0, 0, 3], np.int64)),
        ("zero", np.array([0], np.int64)),
        ("one", np.array([1], np.int64)),
        ("two", np.array([2], np.int64)),
    )
    m = model(nodes, [("x", F, ["b", "seq"])], [("y", F, ["b", "seq"])], inits)
    assert main_type(m) == "fn (Tensor[(b, seq), float32]) -> Tensor[(b, seq), float32]"
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    (got,) = _run_with_checks(m, {"x": x}, 0)
    np.testing.assert_array_equal(got, x)


def test_stft_of_a_signal_without_its_trailing_1_is_real() -> None:
    """The TorchScript exporter writes torch.stft as STFT of the (batch, samples) signal, which
    onnxruntime reads as real; gradual required rank 3 and rejected the model."""
    nodes = [helper.make_node("STFT", ["wav", "step", "window"], ["y"], onesided=1)]
    inits = (("step", np.array(4, np.int64)), ("window", np.hanning(16).astype(np.float32)))
    m = model(nodes, [("wav", F, ["batch", "samples"])], [("y", F, None)], inits)
    assert main_type(m).endswith("-> Tensor[(batch, samples // 4 - 3, 9, 2), float32]")
    imported = gonnx.import_model(m, path="m.onnx")
    result = imported.check()
    wav = np.random.default_rng(0).standard_normal((2, 40)).astype(np.float32)
    (got,) = imported.run({"wav": wav}, result)
    frames = np.stack([wav[:, f * 4 : f * 4 + 16] * np.hanning(16) for f in range(7)], axis=1)
    spectrum = np.fft.rfft(frames, axis=-1)
    np.testing.assert_allclose(got, np.stack([spectrum.real, spectrum.imag], -1), rtol=1e-4, atol=1e-4)
