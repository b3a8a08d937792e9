"""`gradual check --format sarif`: SARIF 2.1.0, valid against the official schema
(tests/data/sarif/), with a rule per diagnostic code and its help URI, results with their
locations and related locations, for programs and ONNX models alike."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest

from gradual.cli import main
from gradual.diagnostics.codes import CODES

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
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (9, 16, 19)
    (related,) = result["relatedLocations"]
    assert related["message"]["text"].startswith("`k` was bound to 128 here")
    assert related["physicalLocation"]["region"]["startLine"] == 9
    assert "help: make the two agree" in result["message"]["text"]


def test_a_warning_and_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    hinted = tmp_path / "hint.rly"
    hinted.write_text("def @main(%x: Tensor[(2, 3), float32]) {\n  can_unify(%x, shape=(2, 3));\n  %x\n}\n")
    binary = tmp_path / "binary.rly"
    binary.write_bytes(b"def @main() { 1 }\n\xff")
    code, log = sarif(str(hinted), str(binary))
    results = valid(log)["runs"][0]["results"]
    assert code == 1 and [(r["ruleId"], r["level"]) for r in results] == [
        ("unused-hint", "warning"),
        ("input-error", "error"),
    ]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file://")


def test_an_onnx_model() -> None:
    code, log = sarif(str(MODELS / "mlp_transposed.onnx"))
    (result,) = valid(log)["runs"][0]["results"]
    assert code == 1 and result["ruleId"] == "shape-mismatch"
    location = result["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("mlp_transposed.onnx")
    assert location["physicalLocation"]["region"] == {"startLine": 1}
    assert location["logicalLocations"] == [{"name": "node fc2 (Gemm)", "kind": "node"}]
    assert location["properties"]["listing"].startswith("node fc2 (Gemm): a, fc2.weight")
    assert location["message"]["text"].startswith("`k` is 4 here")


def test_a_model_result_is_in_the_model_file_at_the_node_it_names(tmp_path: Path) -> None:
    """A model's results located a region at listing line k (node #k-1) of the binary .onnx
    file: no CI viewer shows that, and GitHub's fingerprint (the region's line) was of the
    binary. Now the region is the file's start, the node a logical location, and each result
    its own fingerprint (one model's alerts would merge); a .pt2 result in its Python source
    keeps a text region there."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    # two independent errors of one rule in one model: distinct fingerprints
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 5])
    out = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("p", "q")]
    nodes = [
        helper.make_node("MatMul", ["x", "y"], ["p"], name="first"),
        helper.make_node("MatMul", ["y", "x"], ["q"], name="second"),
    ]
    path = tmp_path / "two.onnx"
    onnx.save(helper.make_model(helper.make_graph(nodes, "g", [x, y], out)), str(path))
    code, log = sarif(str(path))
    results = github_acceptable(log)["results"]
    assert code == 1 and len(results) == 2
    for result, node in zip(results, ("first", "second")):
        (location,) = result["locations"]
        assert location["physicalLocation"]["region"] == {"startLine": 1}
        assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("two.onnx")
        assert location["logicalLocations"] == [{"name": f"node {node} (MatMul)", "kind": "node"}]
    hashes = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
    assert len(set(hashes)) == 2 and all(re.fullmatch(r"[0-9a-f]{16}:1", h) for h in hashes)
    # the same model again: the same fingerprints (stable across runs)
    assert [
        r["partialFingerprints"]["primaryLocationLineHash"] for r in sarif(str(path))[1]["runs"][0]["results"]
    ] == hashes
    # a torch.export archive: a diagnostic in the model's Python source is a text region there
    code, log = sarif(str(ROOT / "tests" / "data" / "torch" / "edited.pt2"))
    (result,) = github_acceptable(log)["results"]
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"].endswith("models.py") and physical["region"]["startLine"] == 23
    assert "logicalLocations" not in result["locations"][0] and "partialFingerprints" not in result


def test_the_schema_rejects_what_it_should() -> None:
    """The validation is real: a result without a message is not SARIF."""
    _, log = sarif(str(EXAMPLES / "shape_error.rly"))
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        valid(log)


def test_the_pre_commit_hook_runs_gradual_check(capsys: pytest.CaptureFixture) -> None:
    """.pre-commit-hooks.yaml's entries are working command lines that fail on an error (the
    two hooks differ only in what they install: test_onnx_missing.py)."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    hooks = [line for line in text.splitlines() if line.startswith("- id: ")]
    assert hooks == ["- id: gradual-check", "- id: gradual-check-models"]
    entries = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.strip().startswith("entry:")]
    assert len(entries) == 2
    for entry in entries:
        argv = entry.split()
        assert argv[0] == "gradual"
        assert main(argv[1:] + [str(EXAMPLES / "mlp.rly")]) == 0
        assert main(argv[1:] + [str(EXAMPLES / "shape_error.rly")]) == 1
        assert "error[shape-mismatch]" in capsys.readouterr().err


def github_acceptable(log: dict) -> dict:
    """What GitHub code scanning requires beyond the schema (docs.github.com, "SARIF support
    for code scanning"): each rule's id, short and full description and help text; each
    result's message, a rule for its ruleId, and a location with a URI and a start line; a
    URI is relative to a base the run defines, or an absolute `file:` URI."""
    (run,) = valid(log)["runs"]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    for rule in rules.values():
        for key in ("shortDescription", "fullDescription", "help"):
            assert rule[key]["text"].strip(), (rule["id"], key)
    bases = run.get("originalUriBaseIds", {})
    for base in bases.values():
        assert base["uri"].startswith("file:///") and base["uri"].endswith("/")
    for result in run["results"]:
        assert result["message"]["text"] and result["ruleId"] in rules
        assert result["locations"]
        for location in result["locations"] + result.get("relatedLocations", []):
            physical = location["physicalLocation"]
            uri, base = physical["artifactLocation"]["uri"], physical["artifactLocation"].get("uriBaseId")
            assert uri and physical["region"]["startLine"] >= 1
            if base is None:
                assert uri.startswith("file:///"), uri
            else:
                assert base in bases and ":" not in uri.split("/")[0] and not uri.startswith(("/", "../", "./")), uri
    return run


def test_github_accepts_every_kind_of_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths are normalized and resolved against the working directory the run
    names (`originalUriBaseIds`), a path outside it is a file URI, a file that cannot be read
    still has a region, and every rule has the description and help GitHub requires."""
    work = tmp_path / "repo"
    (work / "models").mkdir(parents=True)
    (work / "models" / "bad.rly").write_text((EXAMPLES / "shape_error.rly").read_text())
    (tmp_path / "outside.rly").write_text((EXAMPLES / "shape_error.rly").read_text())
    monkeypatch.chdir(work)
    code, log = sarif(
        "./models/../models/bad.rly", "../outside.rly", "missing.rly", "models", str(MODELS / "mlp_transposed.onnx")
    )
    run = github_acceptable(log)
    assert code == 2
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == work.as_uri() + "/"
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]]
    assert uris[:4] == ["models/bad.rly", (tmp_path / "outside.rly").as_uri(), "missing.rly", "models"]
    rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == "shape-mismatch")
    assert "**Fix.**" in rule["help"]["markdown"]


def test_sarif_without_a_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A working directory that is gone leaves the base undefined (still valid SARIF)."""
    program = tmp_path / "bad.rly"
    program.write_text((EXAMPLES / "shape_error.rly").read_text())
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    code, log = sarif(str(program))
    assert code == 1 and "originalUriBaseIds" not in valid(log)["runs"][0]


def test_the_pre_commit_hook_takes_every_file_kind_check_reads() -> None:
    """The hook's `files` pattern matches programs and every kind of model a registered
    frontend reads from the file alone (.pt2 archives, which `gradual check` reads without
    torch, were skipped); a kind that names a member (`model.py:NAME`, with its arguments) is
    not a file a hook can check, and the pattern leaves it out."""
    import re

    from gradual.frontends import frontends

    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    pattern = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.strip().startswith("files:"))
    whole = [f for f in frontends() if not f.members]
    suffixes = [".rly"] + [suffix for frontend in whole for suffix in frontend.suffixes]
    assert [s for s in suffixes if not re.search(pattern, f"models/m{s}")] == []
    members = [suffix for frontend in frontends() if frontend.members for suffix in frontend.suffixes]
    assert members and [s for s in members if re.search(pattern, f"models/m{s}")] == []
    assert not re.search(pattern, "README.md") and not re.search(pattern, "m.rly.bak")
    # `gradual check` reads `MODEL.ONNX` (suffixes are matched without case): so does the hook
    assert [s for s in suffixes if not re.search(pattern, f"models/M{s.upper()}")] == []


def test_a_file_name_that_is_not_utf8_is_percent_encoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file name with bytes that are not UTF-8 (held by Python as surrogates) made `quote`
    raise: the whole SARIF report was an internal error. Its URI is its bytes, percent-encoded."""
    import os

    name = os.fsdecode(b"bad\xff name.rly")
    try:
        (tmp_path / name).write_text((EXAMPLES / "shape_error.rly").read_text())
    except (UnicodeEncodeError, OSError):
        pytest.skip("this file system does not take such a name")
    monkeypatch.chdir(tmp_path)
    code, log = sarif(name)
    run = github_acceptable(log)
    assert (
        code == 1
        and run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF%20name.rly"
    )


def test_a_command_line_argparse_refuses_is_a_sarif_log_too(capsys: pytest.CaptureFixture) -> None:
    """`check --format sarif --unknown f.rly` exited 2 with an empty stdout: a CI step that
    uploads the report failed on an empty file. Now a valid log whose invocation failed, with
    the error as a tool notification, and no results."""
    with pytest.raises(SystemExit) as exited:
        main(["check", "--format", "sarif", "--unknown", str(EXAMPLES / "mlp.rly")])
    assert exited.value.code == 2
    run = github_acceptable(json.loads(capsys.readouterr().out))
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    (note,) = invocation["toolExecutionNotifications"]
    assert note["descriptor"]["id"] == "usage-error" and "--unknown" in note["message"]["text"]
    assert run["results"] == []


def test_standard_input_is_an_artifact_of_the_run_not_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """`check --format sarif -` located its results at the URI `-` against the working
    directory: a file of that name, which is not there (and `./-`, a file really named so, is
    one). Standard input is the run's artifact 0, described as such, with the text read as its
    contents; the second `-` (an input-error: read once) points at it too."""
    import io
    import sys

    source = (EXAMPLES / "shape_error.rly").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source)))
    code, log = sarif("-", "-")
    (run,) = valid(log)["runs"]
    assert code == 2
    (artifact,) = run["artifacts"]
    assert artifact["location"] == {"description": {"text": "standard input"}}
    assert artifact["contents"]["text"] == source.decode()
    assert [r["ruleId"] for r in run["results"]] == ["shape-mismatch", "input-error"]
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location == {"index": 0, "description": {"text": "standard input"}}
    assert run["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 9


def _moved_archive(source: Path, target: Path, old: str, new: str) -> None:
    """A copy of a torch.export archive whose stack traces name `new` for the file `old`."""
    import zipfile

    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if "/models/" in info.filename and info.filename.endswith(".json"):
                data = data.replace(old.encode(), new.encode())
            zout.writestr(info, data)


def test_an_archive_whose_python_files_are_not_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A .pt2 archive's stack traces name the exporting machine's files: an absolute
    `/home/alice/...` path was a `file:` URI no viewer of this repository can open, and a path
    relative to where the exporter ran resolved against this run's directory (another file,
    or none). Such a location is the archive at its start, with the Python line as its logical
    location and the file, line and code in its properties, and a fingerprint of its own; a
    Python file that is here stays a region of it."""
    torch_dir = ROOT / "tests" / "data" / "torch"
    alice = tmp_path / "alice.pt2"
    _moved_archive(torch_dir / "edited.pt2", alice, "tests/data/torch/models.py", "/home/alice/proj/models.py")
    monkeypatch.chdir(tmp_path)
    for archive in (str(alice), str(torch_dir / "edited.pt2")):  # the second's relative paths are not under tmp_path
        code, log = sarif(archive)
        (result,) = github_acceptable(log)["results"]
        assert code == 1
        (location,) = result["locations"]
        assert location["physicalLocation"]["region"] == {"startLine": 1}
        assert location["physicalLocation"]["artifactLocation"]["uri"].endswith(Path(archive).name)
        assert location["logicalLocations"][0]["name"] == "models.py:23"
        assert location["properties"]["pythonLine"] == 23 and location["properties"]["code"] == "return self.fc(y)"
        assert re.fullmatch(r"[0-9a-f]{16}:1", result["partialFingerprints"]["primaryLocationLineHash"])
    assert location["properties"]["pythonFile"] == "tests/data/torch/models.py"
    # run from the repository's root, where the traces' relative path is the model's source
    monkeypatch.chdir(ROOT)
    _, log = sarif(str(torch_dir / "edited.pt2"))
    (result,) = github_acceptable(log)["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "tests/data/torch/models.py"
