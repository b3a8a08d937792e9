"""What PyTorch's exporters write, on small models built with onnx.helper: graph outputs
declared without (full) shapes, output dims written as expressions, exporter dims that the model
constrains, and the shape-value subgraphs of strided convolutions and position buffers."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from test_onnx_frontend import model as frontend_model  # noqa: E402

import gradual  # noqa: E402
from gradual.frontends import onnx as gonnx  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes: list, inputs: list, outputs: list, initializers: tuple = ()) -> object:
    """A ModelProto (opset 18) from nodes and (name, elem_type, shape) inputs/outputs."""
    return frontend_model(nodes, inputs, outputs, initializers, opset=18)


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
    return model(
        [helper.make_node("Concat", ["x", "x"], ["y"], axis=0)], [("x", F, ["N", 64])], [("y", F, output_shape)]
    )


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
    result = checked(
        model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, ["N"])], [("y", TensorProto.INT64, None)])
    )
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
    nodes = [
        helper.make_node("Constant", [], ["b"], value=starts),
        helper.make_node("Constant", [], ["e"], value=ends),
        helper.make_node("Slice", ["x", "b", "e"], ["tail"]),
        helper.make_node("Concat", ["x", "tail"], ["y"], axis=0),
    ]
    return model(nodes, [("x", F, ["seq", 4])], [("y", F, output_shape)])


@pytest.mark.parametrize("text", ["2*seq - 1", "(2*seq) - 1", "seq + seq - 1", "((2*seq - 2)) + 1"])
def test_output_dim_params_that_are_expressions_are_dims(text: str) -> None:
    result = checked(_sliced_concat([text, 4]))
    assert result.ok, [d.message for d in result.diagnostics]
    assert str(result.function_type("main").ret) == "Tensor[(2 * seq - 1, 4), float32]"
    # x[1:] of a seq of 0 is empty (ONNX clamps), so the sum is not known to be 2 * seq - 1:
    # the declared output is checked where the model returns it, the one check
    assert checked(_sliced_concat(None)).check_count == 0 and result.check_count == 1


def test_the_dynamo_exporters_strided_output_dims_are_dims() -> None:
    """A stride-2 conv: dynamo writes `(((height - 3)//2)) + 1`."""
    w = np.zeros((4, 3, 3, 3), np.float32)
    m = model(
        [helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2])],
        [("x", F, ["batch", 3, "height", "width"])],
        [("y", F, ["batch", 4, "(((height - 3)//2)) + 1", "(((width - 3)//2)) + 1"])],
        initializers=[("w", w)],
    )
    assert signature(m).endswith("-> Tensor[(batch, 4, (height - 1) // 2, (width - 1) // 2), float32]")


def test_a_wrong_output_expression_is_an_error_at_the_outputs() -> None:
    doubled = model(
        [helper.make_node("Concat", ["x", "x"], ["y"], axis=0)], [("x", F, ["seq", 4])], [("y", F, ["2*seq + 1", 4])]
    )
    result = checked(doubled)
    assert [e.code for e in result.errors] == ["shape-mismatch"]


@pytest.mark.parametrize("text", ["seq-len", "Max(1, seq)", "seq // 0", "(" * 300 + "seq" + ")" * 300])
def test_other_dim_params_stay_names(text: str) -> None:
    """Names with punctuation, calls, and division by zero are not arithmetic over dims."""
    m = model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [text])], [("y", F, [text])])
    result = checked(m)
    assert result.ok, [d.message for d in result.diagnostics]
    (param,) = result.function_type("main").params
    assert str(param.dims[0]).isidentifier()


def test_an_input_dim_that_is_arithmetic_with_a_number_is_that_expression() -> None:
    """PyTorch's dynamo exporter writes a derived dynamic dim (`2 * Dim("h")`) as `2*h`: the
    input is `2 * h`, so a Reshape to (-1, 2) is (h, 2) with no constraint to warn about, the
    declared output `2*h - 1` is proven, and an odd size stops at the entry."""
    shape = helper.make_node("Constant", [], ["s"], value=helper.make_tensor("s", I64, [2], [-1, 2]))
    m = model(
        [
            shape,
            helper.make_node("Reshape", ["x", "s"], ["y"]),
            helper.make_node("Slice", ["x", "starts", "ends"], ["z"]),
        ],
        [("x", F, ["2*h"])],
        [("y", F, ["h", 2]), ("z", F, ["2*h - 1"])],
        initializers=[("starts", np.array([1], np.int64)), ("ends", np.array([2**62], np.int64))],
    )
    imported = gonnx.import_model(m, gonnx.ImportOptions(), path="m.onnx")
    result = imported.check()
    assert result.ok and not result.diagnostics, [d.message for d in result.diagnostics]
    assert str(result.function_type("main")) == (
        "fn (Tensor[(2 * h,), float32]) -> (Tensor[(h, 2), float32], Tensor[(2 * h - 1,), float32])"
    )
    y, z = imported.run({"x": np.arange(6, dtype=np.float32)}, result)
    assert y.shape == (3, 2) and z.shape == (5,)
    with pytest.raises(gradual.CheckFailure):
        imported.run({"x": np.arange(5, dtype=np.float32)}, result)


# 2. exporter dims are the exporter's claim --------------------------------------------------------
def _cnn(height: object = "height", width: object = "width") -> object:
    """Conv 3x3 -> MaxPool 2 -> Flatten -> Gemm with 512 inputs: only some sizes work."""
    w = np.random.default_rng(0).standard_normal((8, 3, 3, 3)).astype(np.float32)
    fc = np.random.default_rng(1).standard_normal((10, 512)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
        helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1, name="fc"),
    ]
    return model(
        nodes, [("x", F, ["batch", 3, height, width])], [("y", F, ["batch", 10])], initializers=[("w", w), ("fc", fc)]
    )


def _unet_skip() -> object:
    """MaxPool 2 twice, Resize x2, Concat with the once-pooled skip: 2 * (h // 4) = h // 2."""
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    nodes = [
        helper.make_node("MaxPool", ["x"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="down1"),
        helper.make_node("MaxPool", ["p1"], ["p2"], kernel_shape=[2, 2], strides=[2, 2], name="down2"),
        helper.make_node("Constant", [], ["s"], value=scales),
        helper.make_node("Resize", ["p2", "", "s"], ["up"], mode="nearest", name="up"),
        helper.make_node("Concat", ["up", "p1"], ["y"], axis=1, name="skip"),
    ]
    return model(nodes, [("x", F, ["batch", 4, "height", "width"])], [("y", F, None)])


def test_a_gemm_that_needs_one_size_is_a_warning_with_the_constraint_and_a_check() -> None:
    result = checked(_cnn(width=6))
    assert result.ok and not result.errors
    (warning,) = result.warnings
    assert warning.code == "dim-constraint"
    assert warning.message == "`nn.dense` needs 16 * (height // 2) - 16 = 512, which holds only when 66 <= height <= 67"
    assert warning.span.text == "f"  # the flattened features, in the Gemm's line
    assert "`height` is a dynamic dim of the exported model" in warning.notes[0]
    assert "--strict-dims" in warning.help
    assert result.check_count == 3  # and the conv and pool windows over the symbolic height
    assert str(result.function_type("main").ret) == "Tensor[(batch, 10), float32]"


def test_the_model_runs_on_sizes_that_satisfy_the_constraint_and_the_check_blames_others() -> None:
    import gradual

    imported = gonnx.import_model(_cnn(width=6), path="m.onnx")
    (y,) = imported.run({"x": np.ones((2, 3, 67, 6), np.float32)})
    assert y.shape == (2, 10)
    with pytest.raises(gradual.CheckFailure) as failure:
        imported.run({"x": np.ones((2, 3, 32, 6), np.float32)})
    assert failure.value.diagnostic().span.text == "f"


def test_a_constraint_over_two_dims_is_stated_as_the_equation() -> None:
    result = checked(_cnn())
    (warning,) = result.warnings
    assert warning.message == (
        "`nn.dense` needs 8 * (height // 2) * (width // 2) - 8 * (height // 2) - 8 * (width // 2) + 8 = 512"
    )
    assert "`height`, `width` are dynamic dims" in warning.notes[0]


def test_a_unet_skip_connection_needs_the_height_modulo_4() -> None:
    result = checked(_unet_skip())
    assert result.ok
    messages = [w.message for w in result.warnings]
    assert messages == [
        "`concatenate` needs height // 2 = 2 * (height // 4), which holds only when height % 4 is 0 or 1",
        "`concatenate` needs width // 2 = 2 * (width // 4), which holds only when width % 4 is 0 or 1",
    ]
    assert result.check_count == 1  # one cast of the skip tensor checks both dims
    imported = gonnx.import_model(_unet_skip(), path="m.onnx")
    (y,) = imported.run({"x": np.ones((1, 4, 16, 20), np.float32)})
    assert y.shape == (1, 8, 8, 10)


def test_strict_dims_keeps_the_error() -> None:
    result = checked(_unet_skip(), strict_dims=True)
    assert {e.code for e in result.errors} == {"shape-mismatch"}
    assert not result.warnings


def test_a_gemm_that_no_size_fits_stays_an_error() -> None:
    """8 * 3 * ((height - 2) // 2) is never 512."""
    assert [e.code for e in checked(_cnn(width=8)).errors] == ["shape-mismatch"]


def test_a_constraint_no_size_can_meet_stays_an_error() -> None:
    """Concat(x, x) declared as (2 * seq - 1): no seq makes 2 * seq = 2 * seq - 1."""
    result = checked(
        model([helper.make_node("Concat", ["x", "x"], ["y"], axis=0)], [("x", F, ["seq"])], [("y", F, ["2*seq - 1"])])
    )
    assert [e.code for e in result.errors] == ["shape-mismatch"]


def test_a_written_signature_stays_strict() -> None:
    """The same constraint in a program: the signature's `h` is the user's promise."""
    import gradual

    text = """
def @main(%x: Tensor[(h,), float32], %w: Tensor[(4,), float32]) -> Tensor[(4,), float32] {
  add(%x, %w)
}
"""
    result = gradual.check(text)
    assert [e.code for e in result.errors] == ["broadcast-mismatch"]


def test_the_command_line_has_strict_dims(tmp_path: object) -> None:
    from gradual.cli import main as cli_main

    path = tmp_path / "unet.onnx"  # type: ignore[operator]
    onnx.save(_unet_skip(), str(path))
    assert cli_main(["check", str(path)]) == 0
    assert cli_main(["check", "--strict-dims", str(path)]) == 1


# 4. shape values in the subgraphs exporters write ---------------------------------------------------
def _const(name: str, value: object) -> object:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(value, np.int64)))


def test_a_shape_value_minus_one_divided_by_truncation_is_not_floor_division() -> None:
    """Shape -> Gather -> Squeeze -> Add(-1) -> Div(2) -> Add(1), as dynamo writes a strided conv's
    output size, used as a Reshape target: (h - 1) // 2 + 1."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        _const("i2", [2]),
        helper.make_node("Gather", ["s", "i2"], ["h1"]),
        _const("ax", [0]),
        helper.make_node("Squeeze", ["h1", "ax"], ["h"]),
        _const("m1", -1),
        helper.make_node("Add", ["h", "m1"], ["hm1"]),
        _const("two", 2),
        helper.make_node("Div", ["hm1", "two"], ["q"]),
        _const("one", 1),
        helper.make_node("Add", ["q", "one"], ["o"]),
        helper.make_node("Unsqueeze", ["o", "ax"], ["o1"]),
        _const("pre", [0, 3]),
        _const("post", [-1]),
        helper.make_node("Concat", ["pre", "o1", "post"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    m = model(nodes, [("x", F, ["n", 3, "h", 4])], [("y", F, None)])
    # ONNX's integer Div truncates: at h = 0 it gives 1 where (h - 1) // 2 + 1 is 0, so the value
    # is not known exactly); the rank still is
    assert signature(m).endswith("-> Tensor[(n, 3, ?, ?), float32]")


def test_a_position_buffer_sliced_to_the_sequence_length_clamps_as_onnx_does() -> None:
    """positions[:, :seq] of a (1, 64) buffer is (1, 0..64): ONNX clamps the end, so a seq past
    the buffer gets the whole buffer (the checker once said (1, seq), which a run at 65 broke)."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["s"]),
        _const("i1", 1),
        helper.make_node("Gather", ["s", "i1"], ["seq"]),
        _const("ax", [0]),
        helper.make_node("Unsqueeze", ["seq", "ax"], ["end"]),
        _const("zero", [0]),
        _const("one", [1]),
        helper.make_node("Slice", ["positions", "zero", "end", "one", "one"], ["y"]),
    ]
    m = model(
        nodes,
        [("ids", I64, ["batch", "seq"])],
        [("y", I64, None)],
        initializers=[("positions", np.arange(64, dtype=np.int64).reshape(1, 64))],
    )
    result = checked(m)
    assert str(result.function_type("main").ret) == "Tensor[(1, 0..64), int64]" and result.check_count == 0
    imported = gonnx.import_model(m, path="m.onnx")
    assert imported.run({"ids": np.zeros((2, 5), np.int64)})[0].tolist() == [[0, 1, 2, 3, 4]]
    assert imported.run({"ids": np.zeros((2, 65), np.int64)})[0].tolist() == [list(range(64))]


def test_an_expand_to_a_shape_with_minus_ones_replaced_is_exact() -> None:
    """TorchScript's expand(n, -1, -1): Where(Equal(shape, -1 * ones), ones, shape) -> Expand."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        _const("i0", [0]),
        helper.make_node("Gather", ["s", "i0"], ["n"]),
        _const("minus", [-1, -1]),
        helper.make_node("Concat", ["n", "minus"], ["target"], axis=0),
        _const("len", [3]),
        helper.make_node("ConstantOfShape", ["len"], ["ones"], value=numpy_helper.from_array(np.array([1], np.int64))),
        _const("m1", -1),
        helper.make_node("Mul", ["ones", "m1"], ["neg"]),
        helper.make_node("Equal", ["target", "neg"], ["is_neg"]),
        helper.make_node("Where", ["is_neg", "ones", "target"], ["shape"]),
        helper.make_node("Expand", ["token", "shape"], ["y"]),
    ]
    m = model(
        nodes,
        [("x", F, ["batch", 16, 32])],
        [("y", F, None)],
        initializers=[("token", np.zeros((1, 1, 32), np.float32))],
    )
    assert signature(m).endswith("-> Tensor[(batch, 1, 32), float32]")


@pytest.mark.parametrize(
    "starts, ends, step, typed, runs",
    [
        ([0], [3], 1, "0..3", {2: 2, 5: 3}),  # x[:, :3] of a shorter sequence is all of it
        ([1], [2**62], 1, "?", {0: 0, 4: 3}),  # x[:, 1:] of an empty one is empty
        ([0], [-1], 1, "?", {0: 0, 4: 3}),  # x[:, :-1]
        ([100], [0], -2, "0..50", {4: 2, 300: 50}),
    ],
)
def test_a_slice_of_an_exporters_dynamic_dim_clamps_as_onnx_does(starts, ends, step, typed, runs) -> None:
    """A dim_param is the exporter's claim (spec §6), and Slice clamps its bounds to the dim:
    the checker assumed seq >= 3 for x[:, :3] and stopped a run on a sequence of 2, which
    onnxruntime runs. A length not provable from the symbol's
    bounds is the clamped one's interval; nothing is checked, and every length runs."""
    import onnxruntime as ort

    nodes = [
        _const("st", starts),
        _const("en", ends),
        _const("ax", [1]),
        _const("sp", [step]),
        helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"]),
    ]
    m = model(nodes, [("x", F, ["b", "seq"])], [("y", F, None)])
    result = checked(m)
    assert result.ok and result.check_count == 0
    assert str(result.function_type("main").ret) == f"Tensor[(b, {typed}), float32]"
    imported = gonnx.import_model(m, path="m.onnx")
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for seq, length in runs.items():
        x = np.arange(2 * seq, dtype=np.float32).reshape(2, seq)
        ours = imported.run({"x": x})[0]
        assert ours.shape == (2, length)
        np.testing.assert_array_equal(ours, session.run(None, {"x": x})[0])
