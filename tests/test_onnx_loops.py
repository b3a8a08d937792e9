"""ONNX Loop and Scan (convert/loops.py): a recursive closure per loop, checked by the fixpoint
of recursion (spec §3.5), run by the reference runtime and compared with onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper

from gradual.frontends import onnx as gonnx

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def value(name: str, elem: int, shape: object) -> object:
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes: list, inputs: list, outputs: list, initializers: tuple = (), opset: int = 17) -> object:
    graph = helper.make_graph(
        nodes, "g", inputs, outputs, initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in initializers]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run_both(m: object, inputs: dict) -> tuple:
    """gradual's outputs and onnxruntime's for the same inputs (the model must check clean)."""
    ort = pytest.importorskip("onnxruntime")
    expected = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, inputs)
    imported = gonnx.import_model(m, path="m.onnx")
    assert imported.ok, [d.message for d in imported.diagnostics]
    result = imported.check()
    assert result.ok, [d.message for d in result.diagnostics]
    return imported.run(inputs), expected


def assert_agree(m: object, inputs: dict) -> None:
    mine, theirs = run_both(m, inputs)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)  # float32 sums in another order


def main_type(m: object) -> str:
    imported = gonnx.import_model(m, gonnx.ImportOptions(declared_outputs=False), path="m.onnx")
    result = imported.check()
    assert result.ok, [d.message for d in result.diagnostics]
    return str(result.function_type("main"))


def accumulate_loop(carried_shape: object = (None, 3), cond: bool = True, trip: bool = True, limit: int = 3) -> object:
    """y = x; each iteration y = y + w * i (w from the enclosing graph), and y is a scan output;
    the body's condition is i < limit (a while loop when there is no trip count)."""
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["fi"], to=F),
            helper.make_node("Mul", ["w", "fi"], ["wi"]),
            helper.make_node("Add", ["y_in", "wi"], ["y_out"]),
            helper.make_node("Identity", ["y_out"], ["scan"]),
            helper.make_node("Less", ["i", "three"], ["c_out"]),
        ],
        "body",
        [value("i", I64, []), value("c_in", B, []), value("y_in", F, carried_shape)],
        [value("c_out", B, []), value("y_out", F, carried_shape), value("scan", F, carried_shape)],
        initializer=[numpy_helper.from_array(np.array(limit, np.int64), "three")],
    )
    node = helper.make_node("Loop", ["m" if trip else "", "c" if cond else "", "x"], ["y", "ys"], body=body)
    inputs = [value("m", I64, []), value("c", B, []), value("x", F, ["n", 3])]
    inputs = [v for v, given in zip(inputs, (trip, cond, True)) if given]
    return model([node], inputs, [value("y", F, None), value("ys", F, None)], [("w", np.arange(3, dtype=np.float32))])


@pytest.mark.parametrize("trips", [0, 1, 2, 6])
def test_a_loop_with_a_trip_count_and_a_condition_runs_as_onnxruntime(trips: int) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_agree(accumulate_loop(), {"m": np.array(trips, np.int64), "c": np.array(True), "x": x})


def test_a_loop_stops_when_its_condition_input_is_false() -> None:
    x = np.ones((4, 3), np.float32)
    assert_agree(accumulate_loop(), {"m": np.array(5, np.int64), "c": np.array(False), "x": x})


def test_a_loop_without_a_trip_count_is_a_while_loop_and_without_a_condition_a_for_loop() -> None:
    x = np.ones((1, 3), np.float32)
    assert_agree(accumulate_loop(trip=False), {"c": np.array(True), "x": x})
    assert_agree(accumulate_loop(cond=False), {"m": np.array(7, np.int64), "x": x})


def test_a_carried_value_keeps_the_sizes_the_model_gives_in_all_three_places() -> None:
    """Initial value (n, 3), body input and output (?, 3): dim 1 is 3 in all three places, so
    the loop's results keep it; n is not said by the body, so it is `?`; the scan output's rows
    have the body output's sizes, their count unknown."""
    assert main_type(accumulate_loop()) == (
        "fn (int64, bool, Tensor[(n, 3), float32]) -> (Tensor[(?, 3), float32], Tensor[(?, ?, 3), float32])"
    )
    assert main_type(accumulate_loop(carried_shape=None)).endswith("-> (Tensor[(?, ?), float32], Tensor[*, float32])")


def test_a_named_or_unknown_dim_in_one_declaration_says_nothing_of_the_size() -> None:
    """TorchScript declares a scripted loop's carried h as (batch, 8) at the body's input but
    names the output's dims (`Looph.4_dim_0`, `Looph.4_dim_1`): the 8 of the initial value and
    the body input is kept (it was `?`, and the add in the body was checked)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["y_in", "w"], ["y_out"]), helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body",
        [value("i", I64, []), value("c_in", B, []), value("y_in", F, ["n", 3])],
        [value("c_out", B, []), value("y_out", F, ["Looph.4_dim_0", "Looph.4_dim_1"])],
    )
    node = helper.make_node("Loop", ["m", "", "x"], ["y"], body=body)
    m = model(
        [node],
        [value("m", I64, []), value("x", F, ["n", 3])],
        [value("y", F, None)],
        [("w", np.arange(3, dtype=np.float32))],
    )
    assert main_type(m) == "fn (int64, Tensor[(n, 3), float32]) -> Tensor[(?, 3), float32]"
    assert_agree(m, {"m": np.array(2, np.int64), "x": np.ones((4, 3), np.float32)})


def growing_loop(declared: object) -> object:
    """y = concat(y, x) each iteration: the carried value changes shape."""
    body = helper.make_graph(
        [
            helper.make_node("Concat", ["y_in", "x"], ["y_out"], axis=0),
            helper.make_node("Identity", ["c_in"], ["c_out"]),
        ],
        "body",
        [value("i", I64, []), value("c_in", B, []), value("y_in", F, declared)],
        [value("c_out", B, []), value("y_out", F, declared)],
    )
    node = helper.make_node("Loop", ["m", "", "x"], ["y"], body=body)
    return model([node], [value("m", I64, []), value("x", F, [2, 3])], [value("y", F, None)])


def test_a_carried_value_that_grows_runs_as_onnxruntime() -> None:
    m = growing_loop([None, 3])
    assert main_type(m) == "fn (int64, Tensor[(2, 3), float32]) -> Tensor[(?, 3), float32]"
    assert_agree(m, {"m": np.array(3, np.int64), "x": np.ones((2, 3), np.float32)})


def test_a_model_that_says_three_times_a_growing_value_keeps_its_size_is_caught() -> None:
    """The body says (2, 3) in and out and the initial value is (2, 3), but Concat grows it:
    the checker proves the body's Concat gives (4, 3) where the next iteration needs (2, 3)
    (onnxruntime warns that it cannot merge the shapes and runs leniently: a model's wrong
    declaration is an error here, as a wrong value_info is)."""
    imported = gonnx.import_model(growing_loop([2, 3]), path="m.onnx")
    (error,) = imported.check().errors
    assert error.code == "shape-mismatch" and "is 4" in error.message and "needs 2" in error.message


def scan_model(directions: list, output_axes: list, output_directions: list) -> object:
    """Scan over two inputs (axis 0 of a (t, 2) and axis 1 of a (2, t)): a running sum as the
    state, and the state and the product of the slices as scan outputs."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "a"], ["s_mid"]),
            helper.make_node("Add", ["s_mid", "b"], ["s_out"]),
            helper.make_node("Mul", ["a", "b"], ["ab"]),
            helper.make_node("Identity", ["s_out"], ["s_scan"]),
        ],
        "body",
        [value("s_in", F, [2]), value("a", F, [2]), value("b", F, [2])],
        [value("s_out", F, [2]), value("s_scan", F, [2]), value("ab", F, [2])],
    )
    node = helper.make_node(
        "Scan",
        ["s0", "xa", "xb"],
        ["s", "ss", "abs"],
        body=body,
        num_scan_inputs=2,
        scan_input_axes=[0, 1],
        scan_input_directions=directions,
        scan_output_axes=output_axes,
        scan_output_directions=output_directions,
    )
    return model(
        [node],
        [value("s0", F, [2]), value("xa", F, ["t", 2]), value("xb", F, [2, "t"])],
        [value("s", F, None), value("ss", F, None), value("abs", F, None)],
    )


@pytest.mark.parametrize(
    "directions, output_axes, output_directions",
    [([0, 0], [0, 0], [0, 0]), ([1, 0], [1, 0], [0, 1]), ([0, 1], [-1, 0], [1, 1])],
)
@pytest.mark.parametrize("steps", [0, 1, 4])
def test_scan_runs_as_onnxruntime(directions: list, output_axes: list, output_directions: list, steps: int) -> None:
    rng = np.random.default_rng(steps)
    inputs = {
        "s0": rng.standard_normal(2).astype(np.float32),
        "xa": rng.standard_normal((steps, 2)).astype(np.float32),
        "xb": rng.standard_normal((2, steps)).astype(np.float32),
    }
    m = scan_model(directions, output_axes, output_directions)
    if steps == 0:  # onnxruntime gives empty scan outputs of the body's declared sizes too
        mine = gonnx.import_model(m, path="m.onnx").run(inputs)
        np.testing.assert_allclose(mine[0], inputs["s0"])
        assert mine[1].size == 0 and mine[2].size == 0
        return
    assert_agree(m, inputs)


def test_scan_types_keep_the_states_and_items_sizes() -> None:
    assert main_type(scan_model([0, 0], [0, 0], [0, 0])) == (
        "fn (Tensor[(2,), float32], Tensor[(t, 2), float32], Tensor[(2, t), float32]) -> "
        "(Tensor[(2,), float32], Tensor[(?, 2), float32], Tensor[(?, 2), float32])"
    )


def test_a_long_loop_runs_as_onnxruntime() -> None:
    """3,000 iterations: the recursive call is the closure's tail call (constant stack), and a
    scan output's rows are appended in place (see the scale table's `onnx-loop` axis)."""
    x = np.zeros((1, 3), np.float32)
    mine, theirs = run_both(accumulate_loop(cond=False, limit=10**9), {"m": np.array(3000, np.int64), "x": x})
    assert mine[1].shape == theirs[1].shape == (3000, 1, 3)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-4)


def test_a_loop_inside_a_loop_body_runs_as_onnxruntime() -> None:
    """The inner Loop is a closure inside the outer one's body: it sees the outer iteration's
    carried value, and the outer loop collects what it returns."""
    inner_body = helper.make_graph(
        [helper.make_node("Add", ["z_in", "y_in"], ["z_out"]), helper.make_node("Identity", ["ci"], ["co"])],
        "inner",
        [value("j", I64, []), value("ci", B, []), value("z_in", F, [None, 3])],
        [value("co", B, []), value("z_out", F, [None, 3])],
    )
    outer_body = helper.make_graph(
        [
            helper.make_node("Loop", ["k", "", "y_in"], ["y_out"], body=inner_body),
            helper.make_node("Identity", ["c_in"], ["c_out"]),
            helper.make_node("Identity", ["y_out"], ["scan"]),
        ],
        "outer",
        [value("i", I64, []), value("c_in", B, []), value("y_in", F, [None, 3])],
        [value("c_out", B, []), value("y_out", F, [None, 3]), value("scan", F, [None, 3])],
    )
    m = model(
        [helper.make_node("Loop", ["m", "", "x"], ["y", "ys"], body=outer_body)],
        [value("m", I64, []), value("k", I64, []), value("x", F, ["n", 3])],
        [value("y", F, None), value("ys", F, None)],
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    assert_agree(m, {"m": np.array(3, np.int64), "k": np.array(2, np.int64), "x": x})


def appending_loop(
    new_axis: int, tail: str = "ConcatFromSequence", typed: bool = True, start: str = "empty", axis: int = 0
) -> object:
    """TorchScript's `outs = []; for ...: outs.append(h)` then `torch.stack(outs)` (new_axis 1)
    or `torch.cat(outs)` (new_axis 0): a sequence the loop starts empty and appends to. Untyped:
    the body's sequence input and output have no type (the dynamo exporter's EmbeddingBag).
    start="construct": the sequence starts as `[h0]` (SequenceConstruct, a Viterbi's `path =
    [last]`); `axis`: ConcatFromSequence's axis (`torch.stack(path, 1)`)."""
    seq = (
        helper.make_tensor_sequence_value_info
        if typed
        else (lambda name, *_: helper.make_empty_tensor_value_info(name))
    )
    body = helper.make_graph(
        [
            helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
            helper.make_node("Add", ["h_in", "row"], ["h_out"]),
            helper.make_node("SequenceInsert", ["s_in", "h_out"], ["s_out"]),
            helper.make_node("Identity", ["c_in"], ["c_out"]),
        ],
        "body",
        [value("i", I64, []), value("c_in", B, []), value("h_in", F, [None, None]), seq("s_in", F, [None, None])],
        [value("c_out", B, []), value("h_out", F, [None, None]), seq("s_out", F, [None, None])],
    )
    first = (
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=F)
        if start == "empty"
        else helper.make_node("SequenceConstruct", ["h0"], ["empty"])
    )
    nodes = [
        first,
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["steps"], axis=0),
        helper.make_node("Loop", ["steps", "yes", "h0", "empty"], ["h", "outs"], body=body),
    ]
    if tail == "ConcatFromSequence":
        nodes.append(helper.make_node("ConcatFromSequence", ["outs"], ["y"], axis=axis, new_axis=new_axis))
    elif tail == "SequenceLength":
        nodes.append(helper.make_node("SequenceLength", ["outs"], ["y"]))
    else:
        nodes.append(helper.make_node("SequenceAt", ["outs", "last"], ["y"]))
    y = value("y", I64 if tail == "SequenceLength" else F, None)
    return model(
        nodes,
        [value("x", F, ["t", "b", 3]), value("h0", F, ["b", 3])],
        [value("h", F, None), y],
        [("zero", np.array(0, np.int64)), ("yes", np.array(True)), ("last", np.array(-1, np.int64))],
    )


@pytest.mark.parametrize(
    "new_axis, tail", [(1, "ConcatFromSequence"), (0, "ConcatFromSequence"), (0, "SequenceLength"), (0, "SequenceAt")]
)
def test_a_sequence_a_loop_appends_to_is_its_stacked_items(new_axis: int, tail: str) -> None:
    """The sequence is held as one tensor of its rows (onnx.scan_append), which stack, cat,
    SequenceLength and SequenceAt read; it was an unsupported-operator error."""
    rng = np.random.default_rng(new_axis)
    inputs = {"x": rng.standard_normal((4, 2, 3)).astype(np.float32), "h0": np.zeros((2, 3), np.float32)}
    assert_agree(appending_loop(new_axis, tail), inputs)


@pytest.mark.parametrize("new_axis", [0, 1])
def test_a_sequence_a_loop_appends_to_need_not_declare_its_items(new_axis: int) -> None:
    """The body's sequence input and output are untyped (as the dynamo exporter writes
    EmbeddingBag's per-bag loop): the items take the SequenceEmpty's dtype and any rank; it was
    an unknown-operator error at SequenceInsert ("the length ... is not known")."""
    rng = np.random.default_rng(7)
    inputs = {"x": rng.standard_normal((5, 2, 3)).astype(np.float32), "h0": np.ones((2, 3), np.float32)}
    assert_agree(appending_loop(new_axis, typed=False), inputs)


@pytest.mark.parametrize("axis, typed", [(1, True), (-1, True), (2, True), (0, True), (0, False)])
def test_a_sequence_a_loop_starts_with_items_and_appends_to_stacks_along_any_axis(axis: int, typed: bool) -> None:
    """A scripted Viterbi's backtrace, `path = [last]; for ...: path.append(...)`, then
    `torch.stack(path, 1)`: the loop's sequence starts as a SequenceConstruct's items (it was
    an unknown-operator error at SequenceInsert, "the length ... is not known where it is
    made") and is stacked along axis 1 (it was "joined along axis 0 only"; outside9)."""
    rng = np.random.default_rng(3 + axis)
    inputs = {
        "x": rng.standard_normal((4, 2, 3)).astype(np.float32),
        "h0": rng.standard_normal((2, 3)).astype(np.float32),
    }
    assert_agree(appending_loop(1, typed=typed, start="construct", axis=axis), inputs)
    assert_agree(appending_loop(1, typed=typed, start="construct", axis=axis), {**inputs, "x": inputs["x"][:0]})


@pytest.mark.parametrize("axis", [1, -1])
def test_a_sequence_a_loop_appends_to_concatenates_along_another_axis(axis: int) -> None:
    """`torch.cat(outs, 1)` of a list a loop appends to: the rows' axis moves next to axis 1
    and merges with it (it was "joined along axis 0 only")."""
    rng = np.random.default_rng(11 + axis)
    inputs = {
        "x": rng.standard_normal((4, 2, 3)).astype(np.float32),
        "h0": rng.standard_normal((2, 3)).astype(np.float32),
    }
    assert_agree(appending_loop(0, axis=axis), inputs)


def test_a_sequence_a_loop_starts_with_items_and_concatenates_stays_unsupported() -> None:
    """Concatenated (new_axis 0), a sequence that starts with a SequenceConstruct's items may be
    ragged (`[x[:2]]` then rows of 1, which onnxruntime joins): rows cannot hold it, so it is
    the unknown-operator diagnostic it was, not a run refused at onnx.scan_append."""
    imported = gonnx.import_model(appending_loop(0, start="construct"), path="m.onnx")
    assert not imported.ok
    assert "is not known where it is made" in imported.diagnostics[0].message


def test_a_loop_sequence_of_items_of_unknown_rank_joined_along_another_axis_is_reported() -> None:
    """Untyped items (no declared rank) joined along axis 1: an unsupported diagnostic, not a
    traceback."""
    imported = gonnx.import_model(appending_loop(1, typed=False, axis=1), path="m.onnx")
    assert not imported.ok
    assert "joined along axis 0 only" in imported.diagnostics[0].message


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit.script and the TorchScript exporter
def test_a_torchscript_loop_that_appends_to_a_list_imports_and_runs_as_onnxruntime(tmp_path: object) -> None:
    """A scripted recurrence exported by the TorchScript exporter: a Loop carrying the hidden
    state and a list of them, stacked after the loop."""
    torch = pytest.importorskip("torch")

    class Recurrence(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Linear(4, 4)

        def forward(self, x: "torch.Tensor") -> tuple:
            h = torch.zeros(x.shape[1], 4)
            outs = []
            for t in range(x.shape[0]):
                h = torch.tanh(self.w(x[t]) + h)
                outs.append(h)
            return h, torch.stack(outs)

    torch.manual_seed(0)
    path = str(tmp_path / "recurrence.onnx")  # type: ignore[operator]
    torch.onnx.export(
        torch.jit.script(Recurrence()),
        (torch.randn(3, 2, 4),),
        path,
        dynamo=False,
        input_names=["x"],
        dynamic_axes={"x": {0: "T", 1: "B"}},
        opset_version=17,
    )
    import onnx

    m = onnx.load(path)
    assert_agree(m, {"x": np.random.default_rng(0).standard_normal((5, 3, 4)).astype(np.float32)})


def test_importing_loops_does_not_run_onnx_inference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop reads what its body declares of its inputs and outputs, and what the import knows
    of its initial values: asking the importer about a body's tensors ran ONNX's inference on
    the whole model, which on many Loops grew faster than the model (the scale table's
    `onnx-loops`: 10.1 before)."""
    from onnx import shape_inference

    calls: list = []
    real = shape_inference.infer_shapes
    monkeypatch.setattr(shape_inference, "infer_shapes", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert main_type(accumulate_loop()).startswith("fn (int64, bool, Tensor[(n, 3), float32])")
    assert main_type(scan_model([0, 0], [0, 0], [0, 0])).endswith("Tensor[(?, 2), float32])")
    assert calls == []
