"""`gradual check | elaborate | run | import` on ONNX models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import gradual  # noqa: E402
from gradual.cli import main  # noqa: E402

F = TensorProto.FLOAT


def run_cli(capsys: object, *argv: str) -> tuple:
    code = main(list(argv))
    captured = capsys.readouterr()  # type: ignore[attr-defined]
    return code, captured.out, captured.err


def save(tmp_path: Path, nodes: list, inputs: list, outputs: list, initializers: tuple = ()) -> str:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in initializers],
    )
    path = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


@pytest.fixture
def mlp(tmp_path: Path) -> str:
    """x (batch, 4) -> Gemm (4 -> 3) -> Relu -> y; the weight is a parameter, the (small) bias is
    written into the program."""
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["h"], name="fc", transB=1),
        helper.make_node("Relu", ["h"], ["y"], name="act"),
    ]
    return save(
        tmp_path,
        nodes,
        [("x", F, ["batch", 4])],
        [("y", F, ["batch", 3])],
        initializers=[("w", np.ones((3, 4), np.float32)), ("b", np.zeros(3, np.float32))],
    )


@pytest.fixture
def broken(tmp_path: Path) -> str:
    """A MatMul whose inner dims disagree."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="proj")]
    return save(
        tmp_path, nodes, [("x", F, ["n", 4])], [("y", F, None)], initializers=[("w", np.ones((5, 3), np.float32))]
    )


def test_check_prints_the_type_of_main(capsys: object, mlp: str) -> None:
    code, out, err = run_cli(capsys, "check", "--color=never", mlp)
    assert code == 0 and err == ""
    assert (
        "@main: fn (Tensor[(batch, 4), float32], Tensor[(3, 4), float32]) -> Tensor[(batch, 3), float32]  (0 checks)"
        in out
    )


def test_check_reports_a_shape_error_at_the_node(capsys: object, broken: str) -> None:
    code, out, err = run_cli(capsys, "check", "--color=never", broken)
    assert code == 1
    assert "error[shape-mismatch]" in err
    assert "node proj (MatMul): x, w -> y" in err
    assert "model.onnx:1:" in err
    assert "1 error" in out


def test_check_json(capsys: object, broken: str) -> None:
    code, out, _ = run_cli(capsys, "check", "--format", "json", broken)
    doc = json.loads(out)
    (diag,) = doc["files"][0]["diagnostics"]
    assert code == 1 and diag["code"] == "shape-mismatch" and diag["line"] == 1


def test_check_with_a_symbolic_batch(capsys: object, tmp_path: Path) -> None:
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="flat")]
    path = save(
        tmp_path,
        nodes,
        [("x", F, [1, 3, 4])],
        [("y", F, [1, 12])],
        initializers=[("shape", np.array([1, 12], np.int64))],
    )
    code, _, err = run_cli(capsys, "check", "--color=never", "--batch", "N", path)
    assert code == 1 and "node flat (Reshape)" in err
    code, out, _ = run_cli(capsys, "check", "--batch", "N", "--batch-reshapes", path)
    assert code == 0 and "-> Tensor[(N, 12), float32]" in out


def test_import_prints_a_program_that_checks_alike(capsys: object, mlp: str) -> None:
    code, out, err = run_cli(capsys, "import", mlp)
    assert code == 0 and err == ""
    assert out.startswith("// imported from ")
    assert "nn.dense(%x, %w)" in out
    result = gradual.check(out, "mlp.rly")
    assert result.ok and str(result.function_type("main")).endswith("-> Tensor[(batch, 3), float32]")


def test_import_of_an_unsupported_model_exits_1(capsys: object, tmp_path: Path) -> None:
    path = save(
        tmp_path, [helper.make_node("Bernoulli", ["x"], ["y"], name="coin")], [("x", F, [2, 2])], [("y", F, None)]
    )
    code, out, err = run_cli(capsys, "import", "--color=never", path)
    assert code == 1 and out == ""
    assert "error[unknown-operator]" in err and "`Bernoulli`" in err


def test_elaborate(capsys: object, mlp: str) -> None:
    code, out, _ = run_cli(capsys, "elaborate", mlp)
    assert code == 0 and "def @main(" in out and "/* ty=" in out


def test_run_with_npy_and_pb_inputs(capsys: object, mlp: str, tmp_path: Path) -> None:
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.save(tmp_path / "x.npy", x)
    (tmp_path / "x.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    (tmp_path / "X.NPY").write_bytes((tmp_path / "x.npy").read_bytes())
    (tmp_path / "X.PB").write_bytes((tmp_path / "x.pb").read_bytes())
    # a file's suffix is matched without case, as a model's is (`X.NPY` was read as a literal)
    for given in ("x.npy", "x.pb", "X.NPY", "X.PB"):
        code, out, err = run_cli(capsys, "run", mlp, "--arg", f"x={tmp_path / given}")
        assert (code, err) == (0, "")
        assert out == "y: Tensor[(2, 3), float32]\n"


def test_run_json_names_the_outputs(capsys: object, mlp: str) -> None:
    code, out, _ = run_cli(capsys, "run", mlp, "--shape", "x=5x4", "--format", "json")
    assert code == 0
    assert json.loads(out) == {"outputs": [{"name": "y", "shape": [5, 3], "dtype": "float32"}]}


def test_run_blames_the_graph_input_for_a_bad_input(capsys: object, mlp: str) -> None:
    code, _, err = run_cli(capsys, "run", "--color=never", mlp, "--shape", "x=2x5")
    assert code == 3
    assert "error[check-failed]" in err and "graph input x: float32[batch, 4]" in err


def test_run_usage_errors(capsys: object, mlp: str) -> None:
    code, _, err = run_cli(capsys, "run", mlp, "--arg", "nope=1")
    assert code == 2 and "nope" in err
    code, _, err = run_cli(capsys, "run", mlp)
    assert code == 2 and "no input for `%x`" in err


def test_missing_and_unreadable_models(capsys: object, tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "check", str(tmp_path / "none.onnx"))
    assert code == 2 and "no such file" in err
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07 certainly not a model")
    code, _, err = run_cli(capsys, "check", "--color=never", str(bad))
    assert code == 1 and "error[input-error]" in err and "cannot read the file as an ONNX model" in err


EXAMPLES = Path(__file__).parent / "data" / "onnx" / "examples"


def test_the_readme_example_models(capsys: object) -> None:
    code, out, _ = run_cli(capsys, "check", str(EXAMPLES / "mlp.onnx"))
    assert code == 0 and "-> Tensor[(batch, 4), float32]  (0 checks)" in out
    code, _, err = run_cli(capsys, "check", "--color=never", str(EXAMPLES / "mlp_transposed.onnx"))
    assert code == 1 and "node fc2 (Gemm): a, fc2.weight, fc2.bias -> logits" in err
    code, out, _ = run_cli(capsys, "check", "--batch", "N", str(EXAMPLES / "cnn_batch1.onnx"))
    assert code == 0 and "-> Tensor[(1, 256 * N), float32]" in out
    code, out, _ = run_cli(capsys, "check", "--batch", "N", "--batch-reshapes", str(EXAMPLES / "cnn_batch1.onnx"))
    assert code == 0 and "-> Tensor[(N, 256), float32]" in out


def test_the_command_line_checks_declared_outputs_as_the_library_does(tmp_path: Path, capsys: object) -> None:
    """One output declared with an exporter's dim (says nothing), one declared (4,): the library
    checked the (4,), the command line dropped every declaration when one was incomplete and
    ran a (5,) input clean."""
    path = save(
        tmp_path,
        [helper.make_node("Relu", ["x"], ["y1"]), helper.make_node("Neg", ["x"], ["y2"])],
        [("x", F, ["N"])],
        [("y1", F, ["Relu_dim_0"]), ("y2", F, [4])],
    )
    from gradual.frontends import onnx as gonnx

    library = gonnx.import_model(path).check()
    code, out, err = run_cli(capsys, "check", path)
    assert str(library.function_type("main")) in out and "N = 4" in err
    code, out, err = run_cli(capsys, "run", path, "--shape", "x=5")
    assert code == 3 and "in field 1, dim 0 is 5, not 4" in err


def test_the_summary_line_leaves_out_a_models_many_weights_and_json_keeps_them(capsys: object) -> None:
    """A model's weights are parameters after its inputs; a transformer's summary line listed
    2,400 of them. Past 8 the line shows the inputs and says how many it left out; `--format
    json` keeps the whole type (spec §5)."""
    path = str(Path(__file__).parent / "data/onnx/exported/unet.ts.onnx")
    code, out, _ = run_cli(capsys, "check", "--color=never", path)
    assert code == 0
    assert (
        "@main: fn (Tensor[(batch, 3, height, width), float32]) -> "
        "Tensor[(batch, 2, 4 * (height // 4), 4 * (width // 4)), float32]  (2 checks; 12 weight parameters not shown)"
    ) in out
    code, out, _ = run_cli(capsys, "check", "--format", "json", path)
    (entry,) = json.loads(out)["files"]
    assert entry["functions"]["main"]["type"].count("Tensor[") == 14


EXAMPLE_MLP = Path(__file__).resolve().parents[1] / "tests" / "data" / "onnx" / "examples" / "mlp.onnx"


@pytest.mark.parametrize("name", ["", "n m", "3", "def", "float32", "n+1", "%x", "1..8"])
def test_a_batch_that_is_no_dimension_name_is_a_usage_error(capsys, name: str) -> None:
    """`--batch` was written into the program as it was: `--batch ""` printed `Tensor[(, 16)]`,
    `--batch "n m"` a program that does not parse, `--batch 3` a symbol named `3` that reads
    back as the static dim 3."""
    with pytest.raises(SystemExit) as exited:
        main(["check", "--batch", name, str(EXAMPLE_MLP)])
    assert exited.value.code == 2
    assert f"argument --batch: `{name}` is not a dimension name" in capsys.readouterr().err
    from gradual.frontends.onnx import ImportOptions

    with pytest.raises(ValueError, match="is not a dimension name"):
        ImportOptions(batch=name)


def test_an_imported_program_with_a_batch_claims_no_dim_it_lost(capsys, tmp_path: Path) -> None:
    """`gradual import --batch N` printed `claimed=["batch"]`, the dim_param `--batch`
    replaced, which the signature no longer has: checking the printed program warned
    `unused-claim` where the model checked clean. A dim_param elsewhere in an input stays
    claimed."""
    code, out, _ = run_cli(capsys, "import", "--batch", "N", str(EXAMPLE_MLP))
    assert code == 0 and "claimed=" not in out and "Tensor[(N, 16), float32]" in out
    printed = tmp_path / "imported.rly"
    printed.write_text(out)
    assert run_cli(capsys, "check", "--color=never", str(printed))[0:3:2] == (0, "")
    x = helper.make_tensor_value_info("x", F, ["batch", "seq"])
    y = helper.make_tensor_value_info("y", F, None)
    model = tmp_path / "seq.onnx"
    onnx.save(
        helper.make_model(
            helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]),
            opset_imports=[helper.make_opsetid("", 17)],
        ),
        str(model),
    )
    code, out, _ = run_cli(capsys, "import", "--batch", "N", str(model))
    assert code == 0 and 'claimed=["seq"]' in out


@pytest.mark.parametrize("brk", ["\r", "\n", "\r\n"])
def test_a_line_break_in_a_name_keeps_each_node_on_its_line(tmp_path: Path, brk: str) -> None:
    """ONNX names are any strings; the listing wrote them as they were, so a node or tensor
    name with a line break split its node's line: every later node's line number was off and
    the diagnostic showed half a line. The break is drawn as a visible symbol, one character for one."""
    x = helper.make_tensor_value_info(f"x{brk}1", F, [2, 3])
    y = helper.make_tensor_value_info("y", F, [4, 5])
    out = helper.make_tensor_value_info("o", F, None)
    nodes = [
        helper.make_node("Relu", [f"x{brk}1"], [f"r{brk}r"], name=f"first{brk}node"),
        helper.make_node("Relu", [f"r{brk}r"], ["s"], name="middle"),
        helper.make_node("MatMul", ["s", "y"], ["o"], name=f"last{brk}"),
    ]
    path = tmp_path / "breaks.onnx"
    onnx.save(helper.make_model(helper.make_graph(nodes, "g", [x, y], [out])), str(path))
    from gradual.analysis.inputs import check_input, load

    (error,) = check_input(load(str(path))).diagnostics
    line, column = error.span.start_position
    assert line == 3  # node #2
    shown = error.span.source.line_text(line)
    assert shown.startswith("node last") and "MatMul" in shown and shown[column - 1] == "y"
    assert (
        "\r" not in error.span.source.text.replace("\n", "")
        and error.span.source.text.count("\n") == len(error.span.source.line_starts()) - 1
    )
