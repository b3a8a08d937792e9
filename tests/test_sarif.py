"""`gradual check --format sarif`: SARIF 2.1.0, valid against the official schema
(tests/data/sarif/), with a rule per diagnostic code and its help URI, results with their
locations and related locations, for programs and ONNX models alike."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import jsonschema
import pytest

from gradual.cli import main
from gradual.diagnostics import CODES

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text())
EXAMPLES = ROOT / "examples"
MODELS = ROOT / "tests" / "data" / "onnx" / "examples"


def sarif(*paths: str) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["check", "--format", "sarif", *paths])
    return code, json.loads(out.getvalue())


def valid(log: dict) -> dict:
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    return log


def test_a_clean_and_a_broken_program() -> None:
    code, log = sarif(str(EXAMPLES / "mlp.rly"), str(EXAMPLES / "shape_error.rly"))
    assert code == 1
    (run,) = valid(log)["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(CODES)
    assert all(r["helpUri"].endswith(f"diagnostics.md#{r['id']}") for r in rules)
    (result,) = run["results"]
    assert result["ruleId"] == "shape-mismatch" and result["level"] == "error"
    assert rules[result["ruleIndex"]]["id"] == "shape-mismatch"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (7, 16, 19)
    (related,) = result["relatedLocations"]
    assert related["message"]["text"].startswith("`k` was bound to 128 here")
    assert related["physicalLocation"]["region"]["startLine"] == 7
    assert "help: make the two agree" in result["message"]["text"]


def test_a_warning_and_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    hinted = tmp_path / "hint.rly"
    hinted.write_text("def @main(%x: Tensor[(2, 3), float32]) {\n  can_unify(%x, shape=(2, 3));\n  %x\n}\n")
    binary = tmp_path / "binary.rly"
    binary.write_bytes(b"def @main() { 1 }\n\xff")
    code, log = sarif(str(hinted), str(binary))
    results = valid(log)["runs"][0]["results"]
    assert code == 1 and [(r["ruleId"], r["level"]) for r in results] == [("unused-hint", "warning"), ("input-error", "error")]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file://")


def test_an_onnx_model() -> None:
    code, log = sarif(str(MODELS / "mlp_transposed.onnx"))
    (result,) = valid(log)["runs"][0]["results"]
    assert code == 1 and result["ruleId"] == "shape-mismatch"
    location = result["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("mlp_transposed.onnx")
    assert location["physicalLocation"]["region"]["snippet"]["text"].startswith("node fc2 (Gemm)")
    assert location["logicalLocations"][0]["name"].startswith("node fc2 (Gemm)")


def test_the_schema_rejects_what_it_should() -> None:
    """The validation is real: a result without a message is not SARIF."""
    _, log = sarif(str(EXAMPLES / "shape_error.rly"))
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        valid(log)


def test_the_pre_commit_hook_runs_gradual_check(capsys: pytest.CaptureFixture) -> None:
    """.pre-commit-hooks.yaml's entry is a working command line that fails on an error."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    hooks = [line for line in text.splitlines() if line.startswith("- id: ")]
    assert hooks == ["- id: gradual-check"]
    entry = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.strip().startswith("entry:"))
    argv = entry.split()
    assert argv[0] == "gradual"
    assert main(argv[1:] + [str(EXAMPLES / "mlp.rly")]) == 0
    assert main(argv[1:] + [str(EXAMPLES / "shape_error.rly")]) == 1
    assert "error[shape-mismatch]" in capsys.readouterr().err
