"""What PyTorch's exporters write, on small models built with onnx.helper (issue 14): graph outputs
declared without (full) shapes, output dims written as expressions, exporter dims that the model
constrains, and the shape-value subgraphs of strided convolutions and position buffers."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from gradual.frontends import onnx as gonnx  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes: list, inputs: list, outputs: list, initializers: tuple = (), opset: int = 18) -> object:
    """A ModelProto from nodes and (name, elem_type, shape) inputs/outputs."""
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def checked(m: object, **options: object) -> object:
    imported = gonnx.import_model(m, gonnx.ImportOptions(**options), path="m.onnx")
    assert imported.ok, [d.message for d in imported.diagnostics]
    return imported.check()


def signature(m: object, **options: object) -> str:
    result = checked(m, **options)
    assert result.ok, [d.message for d in result.diagnostics]
    return str(result.function_type("main"))


def _doubling(output_shape: object) -> object:
    """y = Concat(x, x) along 0: (2 * N, 64), declared as `output_shape`."""
    return model([helper.make_node("Concat", ["x", "x"], ["y"], axis=0)], [("x", F, ["N", 64])],
                 [("y", F, output_shape)])


# 1. outputs declared without a (full) shape show the inferred type ---------------------------------
def test_an_output_declared_without_a_shape_shows_the_inferred_type() -> None:
    assert signature(_doubling(None)) == "fn (Tensor[(N, 64), float32]) -> Tensor[(2 * N, 64), float32]"


@pytest.mark.parametrize("declared", [[None, 64], [None, None], ["Concaty_dim_0", 64]])
def test_a_partly_declared_output_shows_the_inferred_dims(declared: list) -> None:
    """`?` dims and names the exporter made up (no input has them) say nothing."""
    assert signature(_doubling(declared)).endswith("-> Tensor[(2 * N, 64), float32]")


def test_the_declared_part_of_an_output_is_still_checked() -> None:
    result = checked(_doubling([None, 32]))
    (error,) = result.errors
    assert error.code == "shape-mismatch" and "64" in error.message and "32" in error.message


def test_a_declared_output_dim_the_checker_cannot_prove_is_checked_at_runtime() -> None:
    """Reshape to a runtime shape gives `?`; the declaration says N: one check, and the type says N."""
    nodes = [helper.make_node("Reshape", ["x", "s"], ["y"])]
    m = model(nodes, [("x", F, ["N", 4]), ("s", I64, [2])], [("y", F, ["N", None])])
    result = checked(m)
    assert result.ok, [d.message for d in result.diagnostics]
    assert str(result.function_type("main").ret) == "Tensor[(N, ?), float32]"
    assert result.check_count >= 1


def test_the_declared_dtype_of_a_shapeless_output_is_checked() -> None:
    result = checked(model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, ["N"])], [("y", TensorProto.INT64, None)]))
    assert [e.code for e in result.errors] == ["dtype-mismatch"]


def test_several_outputs_each_keep_what_is_declared_and_show_the_rest() -> None:
    nodes = [helper.make_node("Concat", ["x", "x"], ["y"], axis=0), helper.make_node("Relu", ["x"], ["z"])]
    m = model(nodes, [("x", F, ["N", 64])], [("y", F, None), ("z", F, ["N", 64])])
    assert signature(m).endswith("-> (Tensor[(2 * N, 64), float32], Tensor[(N, 64), float32])")


# 3. output dims written as expressions ------------------------------------------------------------
def _sliced_concat(output_shape: object) -> object:
    """Concat(x, x[1:]) along 0: (2 * seq - 1, 4)."""
    starts = numpy_helper.from_array(np.array([1], np.int64), "starts")
    ends = numpy_helper.from_array(np.array([2**62], np.int64), "ends")
    nodes = [helper.make_node("Constant", [], ["b"], value=starts), helper.make_node("Constant", [], ["e"], value=ends),
             helper.make_node("Slice", ["x", "b", "e"], ["tail"]),
             helper.make_node("Concat", ["x", "tail"], ["y"], axis=0)]
    return model(nodes, [("x", F, ["seq", 4])], [("y", F, output_shape)])


@pytest.mark.parametrize("text", ["2*seq - 1", "(2*seq) - 1", "seq + seq - 1", "((2*seq - 2)) + 1"])
def test_output_dim_params_that_are_expressions_are_dims(text: str) -> None:
    result = checked(_sliced_concat([text, 4]))
    assert result.ok, [d.message for d in result.diagnostics]
    assert str(result.function_type("main").ret) == "Tensor[(2 * seq - 1, 4), float32]"
    assert result.check_count == checked(_sliced_concat(None)).check_count  # the slice's seq >= 1 only


def test_the_dynamo_exporters_strided_output_dims_are_dims() -> None:
    """A stride-2 conv: dynamo writes `(((height - 3)//2)) + 1`."""
    w = np.zeros((4, 3, 3, 3), np.float32)
    m = model([helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2])], [("x", F, ["batch", 3, "height", "width"])],
              [("y", F, ["batch", 4, "(((height - 3)//2)) + 1", "(((width - 3)//2)) + 1"])], initializers=[("w", w)])
    assert signature(m).endswith("-> Tensor[(batch, 4, (height - 1) // 2, (width - 1) // 2), float32]")


def test_a_wrong_output_expression_is_an_error_at_the_outputs() -> None:
    result = checked(_sliced_concat(["2*seq", 4]))
    assert [e.code for e in result.errors] == ["shape-mismatch"]


@pytest.mark.parametrize("text", ["2*other - 1", "seq-len", "Max(1, seq)", "seq // 0", "(" * 300 + "seq" + ")" * 300])
def test_other_dim_params_stay_names(text: str) -> None:
    """Names no input has, calls, and division by zero are not arithmetic over the inputs' dims."""
    m = model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [text])], [("y", F, [text])])
    result = checked(m)
    assert result.ok, [d.message for d in result.diagnostics]
    (param,) = result.function_type("main").params
    assert str(param.dims[0]).isidentifier()
