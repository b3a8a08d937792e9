"""`gradual run` (spec §5): outputs, exit codes (0 ok, 1 type error, 2 usage, 3 a runtime check
failed, 4 internal error), the blame printed like a diagnostic, and the JSON documents."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gradual.cli import main
from gradual.ops.registry import default_registry

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["run", "--color=never", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def program(tmp_path: Path):
    def write(text: str, name: str = "m.rly") -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


ADD = "def @main(%x: Tensor[(2, ?), float32], %y: Tensor[(?, 5), float32]) {\n  add(%x, %y)\n}\n"


def test_a_run_prints_each_outputs_type(capsys, program) -> None:
    code, out, err = run_cli(capsys, program(ADD), "--shape", "x=2x1", "--shape", "y=2x5")
    assert (code, out, err) == (0, "Tensor[(2, 5), float32]\n", "")


def test_json_outputs(capsys, program) -> None:
    src = program("def @main(%x: Tensor[(?, 3), float32]) { (%x, shape_of(%x)) }")
    code, out, _ = run_cli(capsys, src, "--shape", "x=4x3", "--format", "json")
    assert code == 0
    assert json.loads(out) == {"outputs": [{"shape": [4, 3], "dtype": "float32"}, {"shape": [2], "dtype": "int64"}]}


def test_json_names_functions_and_references_by_their_kind(capsys, program) -> None:
    """A reference was `{"kind": "RefCell"}`, the runtime's class name."""
    src = program("def @main(%x: Tensor[(2,), float32]) { (fn (%z: float32) { %z }, ref(%x)) }")
    code, out, _ = run_cli(capsys, src, "--shape", "x=2", "--format", "json")
    assert json.loads(out) == {
        "outputs": [{"kind": "function"}, {"kind": "reference", "type": "Tensor[(2,), float32]"}]
    }


def test_a_failed_check_prints_the_blame_and_exits_3(capsys) -> None:
    code, out, err = run_cli(capsys, str(EXAMPLES / "call_check.rly"), "--shape", "x=10x9")
    assert code == 3 and out == ""
    assert (
        "error[check-failed]: expected Tensor[(10, 10), float32], found Tensor[(10, 9), float32]: dim 1 is 9, not 10"
        in err
    )
    assert "call_check.rly:8:11" in err
    assert "  @square(%x)" in err and "^^ checked here" in err
    assert "the 1st argument (`%a`) to `@square`" in err


def test_a_failed_check_as_json(capsys) -> None:
    code, out, _ = run_cli(capsys, str(EXAMPLES / "call_check.rly"), "--shape", "x=10x9", "--format=json")
    error = json.loads(out)["error"]
    assert code == 3
    assert (error["code"], error["line"], error["column"]) == ("check-failed", 8, 11)
    assert error["message"].startswith("expected Tensor[(10, 10), float32]")


def test_a_shape_rule_failing_at_runtime_exits_3(capsys, program) -> None:
    src = program("def @main(%x: Tensor[(?,), float32], %y: Tensor[(?,), float32]) { add(%x, %y) }")
    code, _, err = run_cli(capsys, src, "--shape", "x=3", "--shape", "y=(4,)")
    assert code == 3 and "`add` cannot broadcast dim 0 of the 1st argument (3)" in err
    code, _, err = run_cli(capsys, src, "--arg", "x=[1,2,3]", "--arg", "y=[1.5,2,3]")
    assert code == 0


def test_type_errors_exit_1(capsys) -> None:
    code, out, err = run_cli(capsys, str(EXAMPLES / "shape_error.rly"))
    assert code == 1 and "error[shape-mismatch]" in err and out == ""
    code, out, _ = run_cli(capsys, str(EXAMPLES / "shape_error.rly"), "--format", "json")
    assert code == 1 and json.loads(out)["error"]["code"] == "shape-mismatch"


def test_an_internal_error_exits_4(capsys, program, monkeypatch) -> None:
    monkeypatch.setattr(default_registry().get("nn.relu"), "kernel", lambda data: data[:-1])
    code, _, err = run_cli(capsys, program("def @main(%x: Tensor[(4,), float32]) { nn.relu(%x) }"))
    assert code == 4
    assert "error[internal-error]: `nn.relu`: the kernel produced Tensor[(3,), float32]" in err


def test_inputs_from_npy_files_and_scalars(capsys, program, tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    src = program("def @main(%x: Tensor[(?, 3), float32], %n: int32) { (sum(%x), add(%n, 1)) }")
    code, out, _ = run_cli(capsys, src, "--arg", f"x={tmp_path / 'x.npy'}", "--arg", "n=41")
    assert (code, out) == (0, "float32\nint32\n")


def test_fully_static_parameters_get_random_inputs(capsys) -> None:
    code, out, _ = run_cli(capsys, str(EXAMPLES / "loop.rly"))
    assert (code, out) == (0, "Tensor[(1024, 1), float32]\n")


@pytest.mark.parametrize("declared, shape", [("(1000,), int64", []), ("(?,), float32", ["--shape", "x=3000"])])
def test_random_inputs_larger_than_the_tensor_limit_are_a_usage_error(
    capsys, program, monkeypatch, declared: str, shape: list
) -> None:
    """A model declaring an input of 2^31 int64s made `run` allocate and fill 16 GiB (found by
    mutating ONNX models): random inputs obey the same limit as an operator's result."""
    monkeypatch.setenv("GRADUAL_MAX_TENSOR_BYTES", "4000")
    code, _, err = run_cli(capsys, *shape, program(f"def @main(%x: Tensor[{declared}]) {{ %x }}"))
    assert code == 2 and "at most 4,000 bytes (GRADUAL_MAX_TENSOR_BYTES raises the limit)" in err, err


def test_another_entry_point(capsys, program) -> None:
    src = program("def @f(%x: Tensor[(n,), float32]) { concatenate((%x, %x)) }\ndef @main() { 0 }\n")
    code, out, _ = run_cli(capsys, src, "--entry", "f", "--shape", "x=(3,)")
    assert (code, out) == (0, "Tensor[(6,), float32]\n")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--entry", "nope"], "no definition `@nope`"),
        ([], "no input for `%x`"),
        (["--shape", "z=2x2"], "no parameter `%z`"),
        (["--shape", "x=two"], "cannot read `two`"),
        (["--arg", "x"], "cannot read `x`"),
        (["--arg", "x=missing.npy"], "missing.npy: cannot load"),
    ],
)
def test_usage_errors_exit_2(capsys, program, argv: list, message: str) -> None:
    code, out, err = run_cli(capsys, program(ADD), *argv)
    assert code == 2 and out == ""
    assert message in err


def test_a_missing_program_file_exits_2(capsys) -> None:
    code, _, err = run_cli(capsys, str(ROOT / "no" / "such.rly"))
    assert code == 2 and "no such file" in err


def test_a_wrong_input_is_a_failed_check_on_its_parameter(capsys, program) -> None:
    src = program("def @main(%x: Tensor[(2, 3), float32]) {\n  nn.relu(%x)\n}\n")
    code, _, err = run_cli(capsys, src, "--shape", "x=3x2")
    assert code == 3
    assert "m.rly:1:15" in err and "the input does not have this type" in err


def test_the_module_entry_point_reports_failures_without_tracebacks() -> None:
    import subprocess
    import sys

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "gradual.cli", "run", "--color=never", *argv],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )

    failed = run("examples/call_check.rly", "--shape", "x=10x9")
    assert failed.returncode == 3 and "error[check-failed]" in failed.stderr
    usage = run("examples/call_check.rly", "--shape", "x=100000x100000x1000")
    assert usage.returncode == 2 and "Traceback" not in usage.stderr


def test_json_keeps_the_warnings_the_text_form_prints(capsys, program) -> None:
    """`run --format json` of a program with warnings: they are its `diagnostics`, on success
    and when a check fails, as the text form prints them before running (they were dropped:
    stdout held only the outputs and stderr nothing). A clean run's document is unchanged."""
    hinted = program(
        "def @main(%x: Tensor[(?, 3), float32]) {\n  can_unify(%x, shape=(2, 3));\n  %x as Tensor[(2, 3), float32]\n}\n"
    )
    code, out, err = run_cli(capsys, hinted, "--shape", "x=2x3", "--format", "json")
    document = json.loads(out)
    assert (code, err) == (0, "") and document["outputs"] == [{"shape": [2, 3], "dtype": "float32"}]
    assert [(d["code"], d["severity"]) for d in document["diagnostics"]] == [("unused-hint", "warning")]
    code, out, _ = run_cli(capsys, hinted, "--shape", "x=4x3", "--format", "json")
    document = json.loads(out)
    assert code == 3 and document["error"]["code"] == "check-failed"
    assert [d["code"] for d in document["diagnostics"]] == ["unused-hint"]
    code, out, _ = run_cli(capsys, program(ADD), "--shape", "x=2x1", "--shape", "y=2x5", "--format", "json")
    assert json.loads(out) == {"outputs": [{"shape": [2, 5], "dtype": "float32"}]}


def test_an_input_given_twice_or_a_negative_seed_is_a_usage_error(capsys, program) -> None:
    """`--shape x=... --arg x=...` silently kept the last; `--seed -1` got through argparse
    and failed inside NumPy as an internal error (exit 4). Both are usage errors (exit 2)."""
    code, out, err = run_cli(capsys, program(ADD), "--shape", "x=2x1", "--arg", "x=[[1], [2]]", "--shape", "y=2x5")
    assert (code, out) == (2, "") and "`%x` is given 2 times (--arg x=[[1], [2]], --shape x=2x1)" in err
    code, out, err = run_cli(capsys, program(ADD), "--shape", "x=2x1", "--shape", "x=2x5", "--shape", "y=2x5")
    assert code == 2 and "`%x` is given 2 times" in err
    with pytest.raises(SystemExit) as exited:
        run_cli(capsys, program(ADD), "--seed", "-1", "--shape", "x=2x1", "--shape", "y=2x5")
    assert exited.value.code == 2 and "cannot read `-1` as a seed" in capsys.readouterr().err
    code, out, _ = run_cli(capsys, program(ADD), "--seed", "7", "--shape", "x=2x1", "--shape", "y=2x5")
    assert (code, out) == (0, "Tensor[(2, 5), float32]\n")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--entry", "nope"], "no definition `@nope`"),
        ([], "no input for `%x`"),
        (["--shape", "z=2x2"], "no parameter `%z`"),
        (["--shape", "x=two"], "cannot read `two`"),
        (["--arg", "x=missing.npy"], "missing.npy: cannot load"),
        (["--shape", "x=2x1", "--shape", "x=2x1"], "`%x` is given 2 times"),
    ],
)
def test_a_usage_error_is_a_json_document_too(capsys, program, argv: list, message: str) -> None:
    """`run --format json` printed nothing on stdout for a usage error (the text on stderr
    only): a JSON consumer read an empty document. Now
    `{"error": ...}` with code `usage-error`, no path and no position; stderr unchanged."""
    code, out, err = run_cli(capsys, program(ADD), "--format", "json", *argv)
    assert code == 2 and message in err
    error = json.loads(out)["error"]
    assert error["code"] == "usage-error" and message in error["message"]
    assert error["severity"] == "error" and error["line"] is None and error["path"] is None


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--format", "json"],
        ["run", "--format=json", "m.rly", "--seed", "-1"],
        ["run", "--form", "json", "--bad", "m.rly"],
        ["check", "--format", "json"],
        ["check", "--format", "json", "--nope", "m.rly"],
    ],
)
def test_a_command_line_argparse_refuses_is_a_json_document_too(capsys, argv: list) -> None:
    """argparse's own errors (a missing FILE, an unknown option, a bad `--seed`) exit 2 with
    its usage on stderr, and with `--format json` the document on stdout."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    assert exited.value.code == 2 and "usage: gradual" in err and "error:" in err
    document = json.loads(out)
    assert document["error"]["code"] == "usage-error" and document["error"]["message"] in err
    if argv[0] == "check":
        assert document["files"] == [] and document["summary"]["errors"] == 1


def test_a_run_that_stops_inside_is_a_json_document_too(capsys, program, monkeypatch) -> None:
    """An operator that crashes the runtime (a bug in gradual, exit 4) or exhausts memory
    (exit 3) printed only a line on stderr with `--format json`."""
    from gradual.runtime.interpreter import Interpreter

    def crash(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(Interpreter, "run", crash)
    code, out, _ = run_cli(capsys, program(ADD), "--format", "json", "--shape", "x=2x1", "--shape", "y=2x5")
    assert code == 4 and json.loads(out)["error"]["code"] == "internal-error"

    def exhausted(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(Interpreter, "run", exhausted)
    code, out, _ = run_cli(capsys, program(ADD), "--format", "json", "--shape", "x=2x1", "--shape", "y=2x5")
    assert code == 3 and json.loads(out)["error"]["code"] == "runtime-error"


def test_a_parameter_no_input_can_fill_is_a_usage_error(capsys, program) -> None:
    """A function or reference parameter (alone or in a tuple) of the entry: left out, it
    said "give one with --arg f=FILE.npy or --shape f=2x3", which no value can do; given
    `--shape f=2`, the tensor failed the entry's check (exit 3). Either is a usage error that
    says to run a definition that passes it."""
    src = program(
        "def @apply(%f: fn (Tensor[(2,), float32]) -> Tensor[(2,), float32], %x: Tensor[(2,), float32]) { %f(%x) }\n"
        "def @r(%q: ref(Tensor[(2,), float32])) { ref_read(%q) }\n"
        "def @tf(%t: (fn (float32) -> float32, float32)) { %t.1 }\n"
    )
    for argv, holds in (
        (["--entry", "apply", "--shape", "x=2"], "a function"),
        (["--entry", "apply", "--shape", "x=2", "--shape", "f=2"], "a function"),
        (["--entry", "apply", "--shape", "x=2", "--arg", "f=3"], "a function"),
        (["--entry", "r"], "a reference"),
        (["--entry", "tf"], "a function"),
    ):
        code, out, err = run_cli(capsys, src, *argv)
        assert code == 2 and out == "", argv
        assert f"which holds {holds}: --arg and --shape give tensors and scalars" in err and "(--entry)" in err, argv
