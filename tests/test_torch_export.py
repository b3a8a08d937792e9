"""The torch.export frontend: archives read without torch, types, checks, Python-line
diagnostics, runs that match torch's outputs, unsupported versions and nodes.

The archives in tests/data/torch were written by torch 2.13 (make_archives.py regenerates them);
reading them needs no torch. Only the in-memory API needs torch (skipped without it)."""

from __future__ import annotations

import io
import json
import os
import re
import zipfile

import numpy as np
import pytest

from gradual.cli import main
from gradual.frontends import torch_export as gt
from gradual.frontends.torch_export.symbols import bounds, parse_expr

DATA = os.path.join(os.path.dirname(__file__), "data", "torch")
MODELS = os.path.join(DATA, "models.py")


def archive(name: str) -> str:
    return os.path.join(DATA, name + ".pt2")


def model_line(code: str) -> int:
    """The line of models.py holding `code` (where the node's stack trace points)."""
    with open(MODELS, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip() == code:
                return number
    raise AssertionError(code)


def test_traces_name_the_models_file_relative_to_the_repository():
    program = _program("cnn")
    traces = [n["metadata"].get("stack_trace", "") for n in program["graph_module"]["graph"]["nodes"]]
    assert any('File "tests/data/torch/models.py"' in t for t in traces)


def checked(name: str):
    program = gt.import_archive(archive(name))
    return program, program.check()


# types --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, main_type, checks",
    [
        ("cnn", "Tensor[(s77, 3, 16, 16), float32]) -> Tensor[(s77, 10), float32]", 0),
        ("attention", "Tensor[(2, s27, 16), float32]) -> Tensor[(2, s27, 16), float32]", 0),
        ("attention_core", "Tensor[(2, s27, 16), float32]) -> Tensor[(2, s27, 16), float32]", 0),
        ("nonzero", "fn (Tensor[(4, 5), float32]) -> (Tensor[(u0,), float32], int64, int64)", 0),
        ("constrained", "Tensor[(s77, s27, 8), float32]) -> Tensor[(s77, s27 // 2, 8), float32]", 0),
        ("inplace", "Tensor[(s77, 4, s53, 5), float32]) -> Tensor[(s77, 2, 1), float32]", 0),
        (
            "layers",
            "Tensor[(s52, 7), int64]) -> (float32, float32, Tensor[(s52, 5), float32], Tensor[(s52, 7, 20), float32])",
            0,
        ),
        ("narrow", "Tensor[(s77, 6), float32]) -> (Tensor[(s77, 4), float32], Tensor[(u0,), float32])", 0),
        (
            "windows",
            "Tensor[(s77, s27, 4), float32], Tensor[(s38,), int64]) -> (Tensor[(s77, s27, 4), float32], "
            "Tensor[(s77, s27 - 3 * s27 // 4, 4), float32], Tensor[(u0,), int64], Tensor[(u1,), float32])",
            0,
        ),
        ("guarded", "Tensor[(2, s68, 3), float32]) -> (Tensor[(s36,), int64], Tensor[(2, s68, 6), float32])", 0),
    ],
)
def test_archives_check_with_torchs_symbols(name, main_type, checks):
    program, result = checked(name)
    assert result.ok, [d.message for d in result.diagnostics]
    assert str(result.function_type("main")).endswith(main_type)
    assert result.check_count == checks


def test_range_constraints_bound_the_symbols():
    """torch's range 2..128: the upper bound is checked; the lower bound 2 is torch's 0/1
    specialization, which the exported module does not check (it runs 1), so it reads 1.."""
    program, result = checked("attention")
    assert "s27 in 2..128" in " ".join(program.header)
    x = np.zeros((2, 200, 16), np.float32)
    with pytest.raises(Exception, match="outside its bounds 1..128"):
        program.run({"x": x}, result)
    with pytest.raises(Exception, match="outside its bounds 1..128"):
        program.run({"x": x[:, :0]}, result)


def test_a_lower_bound_of_2_is_torchs_specialization_and_a_batch_of_1_runs():
    """Dim.AUTO records `s77 in 2..` (0/1 specialization), yet the exported module runs a batch
    of 1 (and 0); gradual stopped it at the entry ("outside its bounds 2..": outside7 and 8's
    open item, every Dim.AUTO archive of outside9). A batch of 1 now runs, row by row as the
    batch of 2 it is part of; a bound other than 2 still stops the run."""
    program, result = checked("constrained")
    x = np.random.default_rng(0).standard_normal((2, 6, 8)).astype(np.float32)
    (both,) = program.run({"x": x}, result)
    (one,) = program.run({"x": x[:1]}, result)
    assert one.shape == (1, 3, 8)
    np.testing.assert_allclose(one, both[:1], rtol=1e-6)
    with pytest.raises(Exception, match="outside its bounds 1.."):
        program.run({"x": x[:0]}, result)


def test_unbacked_rows_of_nonzero_keep_their_bounds():
    program = gt.import_archive(archive("nonzero"))
    text = program.text()
    assert "aten.nonzero(%gt)" in text
    from gradual.api import check

    result = check(text.replace(" -> (Tensor[(u0,), float32], int64, int64)", ""), "nonzero.rly")
    assert "0..20" in str(result.function_type("main"))


def test_windows_over_a_padded_length_keep_their_sizes():
    """Padding to a multiple of 4 by `(4 - h % 4) % 4`, a view into windows by `(h + pad) // 4`
    and the crop back by `[:, :h]` keep exact sizes (found by an outside pass with a Swin-like
    block: the view's entries were not provably sizes, so it lost even its rank; the crop to a
    SymInt end was `?`; 10 checks where none is needed), torch's sizes written with Mod are
    read, and bincount converts (it was an unknown operator)."""
    from gradual.api import elaborate_text

    _, result = checked("windows")
    types = {
        line.split(" = ")[0].strip(): line.rsplit("/* ty=", 1)[1].rstrip(" */;")
        for line in elaborate_text(result).splitlines()
        if " = " in line and "/* ty=" in line
    }
    assert types["%view"] == "Tensor[(s77, s27 - 3 * s27 // 4, 4, 4), float32]"
    assert types["%slice_1"] == "Tensor[(s77, s27, 4), float32]"
    assert types["%bincount"] == "Tensor[(4..,), int64]" and types["%bincount_1"] == "Tensor[(?,), float32]"


def test_core_aten_ir_and_default_ir_agree():
    _, default = checked("attention")
    _, core = checked("attention_core")
    assert str(default.function_type("main")) == str(core.function_type("main"))


# running ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "cnn",
        "attention",
        "attention_core",
        "nonzero",
        "constrained",
        "inplace",
        "layers",
        "narrow",
        "ceilpool",
        "counts",
        "resample",
        "padded",
        "routing",
        "statistics",
        "branches",
        "windows",
        "guarded",
    ],
)
def test_run_matches_torchs_outputs(name):
    program, result = checked(name)
    inputs = dict(np.load(os.path.join(DATA, name + ".inputs.npz")))
    expected = np.load(os.path.join(DATA, name + ".outputs.npz"))
    outputs = program.run(inputs, result)
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    assert len(outputs) == len(expected.files)
    for i, out in enumerate(outputs):
        want = expected[f"arr_{i}"]
        assert np.shape(out) == want.shape and np.asarray(out).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(out, dtype=np.float64), want.astype(np.float64), rtol=1e-4, atol=1e-5)


def test_cond_takes_either_branch():
    """torch.cond's branches are gradual's `if` over two blocks (higher_order.cond was "not an
    ATen operator"): the false branch too."""
    program, result = checked("branches")
    assert result.check_count == 0
    x, y = -np.ones((2, 4), np.float32), np.random.default_rng(0).standard_normal((3, 2)).astype(np.float32)
    a, b, c = program.run({"x": x, "y": y}, result)
    mean = y.mean(0)
    np.testing.assert_allclose(a, x - 1)
    np.testing.assert_allclose(b, mean, rtol=1e-6)
    np.testing.assert_allclose(c, np.cumsum(mean) if mean.sum() > 0 else mean[::-1], rtol=1e-6)


def test_an_unsupported_node_in_a_branch_is_reported_once():
    program = _program("branches")
    cond = next(n for n in program["graph_module"]["graph"]["nodes"] if n["target"].endswith("higher_order.cond"))
    branch = cond["inputs"][2]["arg"]["as_graph"]["graph"]
    branch["nodes"][0]["target"] = "torch.ops.aten.special_i0.default"
    imported = gt.import_json(program, path=archive("branches"))
    (diag,) = imported.diagnostics
    assert diag.code == "unknown-operator" and "special_i0" in diag.message


def test_run_with_another_sequence_length():
    program, result = checked("attention")
    out = program.run({"x": np.random.default_rng(0).standard_normal((2, 5, 16)).astype(np.float32)}, result)
    assert np.shape(out[0] if isinstance(out, list) else out) == (2, 5, 16)


def test_an_output_type_torch_recorded_is_checked_and_its_guard_at_the_entry(capsys):
    """ceil_mode pooling: torch records h // 3, true only under its guard `3 * (h // 3) >= h`; a
    height of 16 gives 6 rows. The output's recorded type is checked, and the guard, a fact
    since outside9, stops the run at the input first, as torch's own check does (the run
    stopped at the outputs' check before)."""
    _, result = checked("ceilpool")
    assert result.check_count == 1
    code = main(["run", archive("ceilpool"), "--shape", "x=1x1x16x1"])
    err = capsys.readouterr().err
    assert code == 3
    assert "expected Tensor[(1, 1, s53, 1), float32], found Tensor[(1, 1, 16, 1), float32]" in err
    assert "guard needs `3 * (s53 // 3) - s53` to be at least 0" in err and "ceilpool.pt2:2:1" in err


# diagnostics at the Python line -------------------------------------------------------------------
def test_edited_graph_error_is_at_the_models_python_line():
    _, result = checked("edited")
    (diag,) = [d for d in result.diagnostics if d.is_error]
    assert diag.code == "rank-mismatch"
    assert "`aten.linear`" in diag.message
    assert os.path.basename(diag.span.source.path) == "models.py"
    assert diag.line == model_line("return self.fc(y)")
    assert diag.span.text == "return self.fc(y)"
    assert any("ATen node `linear = aten.linear.default(flatten, weight=p_conv2_bias" in n for n in diag.notes)


def test_edited_graph_on_the_command_line(capsys):
    assert main(["check", "--format", "json", archive("edited")]) == 1
    doc = json.loads(capsys.readouterr().out)
    (diag,) = doc["files"][0]["diagnostics"]
    assert diag["code"] == "rank-mismatch" and diag["line"] == model_line("return self.fc(y)")
    assert main(["check", "--color", "never", archive("edited")]) == 1
    err = capsys.readouterr().err
    assert "models.py:%d:9" % model_line("return self.fc(y)") in err
    assert "return self.fc(y)" in err and "edited.pt2:" in err


def test_the_line_shown_is_the_traces_when_the_file_is_gone(tmp_path):
    data = open(archive("edited"), "rb").read()
    moved = _rewrite(data, lambda p: _replace_paths(p, "tests/data/torch/models.py", str(tmp_path / "gone.py")))
    (diag,) = [d for d in gt.import_archive(moved, path="moved.pt2").check().diagnostics if d.is_error]
    assert diag.span.source.path.endswith("gone.py")
    assert diag.span.text == "return self.fc(y)"


def test_a_python_file_with_a_form_feed_is_numbered_as_python_numbers_it(tmp_path, capsys):
    """A model source with a page break (a form feed, which PEP 8 allows) above the node's line:
    `str.splitlines` made the form feed a line of its own, so every later line was off by one,
    the file no longer held the trace's code, and the diagnostic showed the recorded code
    without its indentation (column 1), as if the file were gone; SARIF pointed into the
    archive. Python (and torch's trace) ends lines at \n, \r\n and \r only."""
    lines = open(MODELS, encoding="utf-8").read().split("\n")
    lines.insert(5, "\f")  # a page break above every model
    source = tmp_path / "paged.py"
    source.write_text("\n".join(lines), encoding="utf-8")
    line = model_line("return self.fc(y)") + 1

    def moved(program: dict) -> None:
        _replace_paths(program, "tests/data/torch/models.py", str(source))
        text = json.dumps(program)
        text = re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + (int(m.group(1)) > 5)}", text)
        program.clear()
        program.update(json.loads(text))

    path = tmp_path / "paged.pt2"
    path.write_bytes(_rewrite(open(archive("edited"), "rb").read(), moved))
    (diag,) = [d for d in gt.import_archive(str(path)).check().diagnostics if d.is_error]
    assert (diag.line, diag.column, diag.span.text) == (line, 9, "return self.fc(y)")
    assert main(["check", "--format", "sarif", str(path)]) == 1
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (line, 9)


def _replace_paths(program: dict, old: str, new: str) -> None:
    for node in program["graph_module"]["graph"]["nodes"]:
        meta = node.get("metadata", {})
        if "stack_trace" in meta:
            meta["stack_trace"] = meta["stack_trace"].replace(old, new)


def _rewrite(data: bytes, edit) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if "/models/" in info.filename and info.filename.endswith(".json"):
                program = json.loads(body)
                edit(program)
                body = json.dumps(program).encode()
            zout.writestr(info, body)
    return out.getvalue()


def _program(name: str) -> dict:
    with zipfile.ZipFile(archive(name)) as zf:
        member = next(n for n in zf.namelist() if "/models/" in n and n.endswith(".json"))
        return json.loads(zf.read(member))


def test_an_unsupported_node_is_reported_at_its_line_and_the_rest_is_checked():
    def rename(program: dict) -> None:
        for node in program["graph_module"]["graph"]["nodes"]:
            if node["target"] == "torch.ops.aten.relu.default":
                node["target"] = "torch.ops.aten.frobnicate.default"

    program = gt.import_archive(_rewrite(open(archive("cnn"), "rb").read(), rename), path="cnn.pt2")
    codes = [(d.code, d.line) for d in program.diagnostics]
    assert codes and all(code == "unknown-operator" for code, _ in codes)
    assert "aten.frobnicate.default" in program.diagnostics[0].message
    assert not program.ok


def test_a_shape_error_in_an_edited_view_names_the_counts():
    def shrink(program: dict) -> None:
        for node in program["graph_module"]["graph"]["nodes"]:
            if node["name"] == "reshape":
                for named in node["inputs"]:
                    if named["name"] == "shape":
                        named["arg"]["as_sym_ints"][-1] = {"as_int": 12}

    program = gt.import_archive(_rewrite(open(archive("attention"), "rb").read(), shrink), path="attention.pt2")
    (diag,) = [d for d in program.check().diagnostics if d.is_error]
    assert diag.code == "shape-mismatch" and "aten.view" in diag.message
    assert diag.line == model_line("out = out.transpose(1, 2).reshape(b, s, d)")


# archives gradual does not read -----------------------------------------------------------------------
def test_another_schema_version_is_reported(tmp_path):
    def bump(program: dict) -> None:
        program["schema_version"] = {"major": 7, "minor": 3}

    path = tmp_path / "old.pt2"
    path.write_bytes(_rewrite(open(archive("cnn"), "rb").read(), bump))
    with pytest.raises(gt.LoadError) as failure:
        gt.import_archive(str(path))
    assert failure.value.diagnostic.code == "archive-version"
    assert "7.3" in failure.value.diagnostic.message
    doc = open(os.path.join(os.path.dirname(__file__), "..", "docs", "diagnostics.md"), encoding="utf-8").read()
    assert f"[archive-version]: {failure.value.diagnostic.message}" in doc


def test_the_old_layout_is_reported(tmp_path):
    path = tmp_path / "old.pt2"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("old/serialized_exported_program.json", "{}")
    with pytest.raises(gt.LoadError) as failure:
        gt.import_archive(str(path))
    assert failure.value.diagnostic.code == "archive-version"


@pytest.mark.parametrize("content", [b"", b"not a zip", b"PK\x03\x04garbage"])
def test_a_file_that_is_not_an_archive_is_a_diagnostic(tmp_path, capsys, content):
    path = tmp_path / "bad.pt2"
    path.write_bytes(content)
    assert main(["check", str(path)]) == 1
    assert "input-error" in capsys.readouterr().err


def test_a_zip_whose_program_is_not_json(tmp_path):
    path = tmp_path / "bad.pt2"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("m/archive_format", "pt2")
        zf.writestr("m/models/model.json", "{not json")
    with pytest.raises(gt.LoadError) as failure:
        gt.import_archive(str(path))
    assert "not JSON" in failure.value.diagnostic.message


def _edit_member(data: bytes, suffix: str, edit) -> bytes:
    """The archive with the JSON member ending in `suffix` edited."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename.endswith(suffix):
                document = json.loads(body)
                edit(document)
                body = json.dumps(document).encode()
            zout.writestr(info, body)
    return out.getvalue()


def _set_weight(field: str, value):
    def edit(config: dict) -> None:
        entry = config["config"]["conv1.weight"]
        if field == "entry":
            config["config"]["conv1.weight"] = value
        elif field in entry:
            entry[field] = value
        else:
            entry["tensor_meta"][field] = value

    return edit


@pytest.mark.parametrize(
    "field, value, says",
    [
        ("entry", 3, "no readable description"),
        ("dtype", [7], "no readable element type"),
        ("sizes", 8, "symbolic or malformed sizes"),
        ("strides", [{"as_int": -27}, {"as_int": 9}, {"as_int": 3}, {"as_int": 1}], "negative size, stride or offset"),
        ("strides", [{"as_int": 0}] * 4, None),  # one element repeated: a valid (broadcast) payload
        ("sizes", [{"as_int": 2**40}, {"as_int": 3}, {"as_int": 3}, {"as_int": 3}], None),
        ("path_name", ["weight_0"], "names no readable payload"),
    ],
)
def test_a_damaged_weights_config_stops_the_run_with_a_diagnostic(tmp_path, capsys, field, value, says):
    """Weights are read for `run` only: a config entry of the wrong JSON kind crashed it (exit 4)."""
    path = tmp_path / "damaged.pt2"
    path.write_bytes(
        _edit_member(open(archive("cnn"), "rb").read(), "model_weights_config.json", _set_weight(field, value))
    )
    code = main(["run", str(path), "--shape", "x=1x3x8x8"])
    err = capsys.readouterr().err
    assert code in (0, 1, 2, 3) and "internal error" not in err, err
    if says is not None:
        assert code == 2 and says in err, err


@pytest.mark.parametrize(
    "edit",
    [
        lambda p: p["graph_module"]["graph"]["nodes"][0].update(outputs=[{"as_tensor": "name"}]),
        lambda p: p["graph_module"]["graph"]["nodes"][0].update(outputs=7),
        lambda p: p["graph_module"]["graph"]["nodes"][0]["inputs"][0].update(arg={"as_int": "x"}),
        lambda p: p["graph_module"]["graph"].update(
            tensor_values={k: {**v, "sizes": 3} for k, v in p["graph_module"]["graph"]["tensor_values"].items()}
        ),
        lambda p: p["graph_module"]["signature"].update(input_specs=[True]),
        lambda p: p.update(range_constraints=[1, 2], verifiers=5),
    ],
)
def test_a_damaged_program_is_a_diagnostic(tmp_path, capsys, edit):
    """JSON values of the wrong kind in the program crashed the import (exit 4)."""
    path = tmp_path / "damaged.pt2"
    path.write_bytes(_rewrite(open(archive("cnn"), "rb").read(), edit))
    for command in ("check", "run"):
        code = main([command, str(path)])
        err = capsys.readouterr().err
        assert code in (0, 1, 2, 3) and "internal error" not in err, err


@pytest.mark.parametrize(
    "name, target, value, shown",
    [
        ("attention", "softmax", {"as_none": ""}, "None"),
        ("attention", "softmax", {"as_string": "x"}, "'x'"),
        ("nonzero", "select.int", {"as_none": ""}, "None"),
        (
            "attention",
            "softmax",
            {"as_sym_int": {"as_name": "sym_size_int_1"}},
            "the symbolic int `sym_size_int_1`, known only when the model runs,",
        ),
    ],
)
def test_a_constant_argument_of_another_kind_is_a_diagnostic_at_its_node(tmp_path, capsys, name, target, value, shown):
    """int(dim) of an archive whose dim is None or a string crashed the converter (exit 4). A
    SymInt where a constant is needed (a hypernetwork's `F.conv2d(..., groups=b)`, outside9) is
    named as the graph's value; the message showed Python's `Ref(name=..., kind=...)`."""

    def edit(program: dict) -> None:
        for node in program["graph_module"]["graph"]["nodes"]:
            if target in node["target"]:
                for named in node["inputs"]:
                    if named["name"] == "dim":
                        named["arg"] = value

    path = tmp_path / "damaged.pt2"
    path.write_bytes(_rewrite(open(archive(name), "rb").read(), edit))
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"`dim` is {shown} where gradual needs a constant int" in err and "internal error" not in err, err


def test_a_missing_archive_is_a_usage_error(capsys):
    assert main(["check", "no-such-model.pt2"]) == 2


# torch's sizes are the exporter's claim (spec §6) -------------------------------------------------------
def test_a_size_the_model_constrains_is_a_warning_at_the_python_line():
    """`x.view(b, s // 2, 2 * d)` works only for an even `s`; torch.export (Dim.AUTO) kept `s`
    symbolic and recorded the guard. gradual states the constraint at the line, with the fix."""
    program, result = checked("constrained")
    assert result.ok
    (diag,) = result.diagnostics
    assert diag.code == "dim-constraint" and diag.severity.value == "warning"
    assert diag.message.endswith("which holds only when s27 is a multiple of 2")
    assert diag.line == model_line("pairs = x.view(b, s // 2, 2 * d)")
    assert diag.label.startswith("checked by its shape rule when it runs: this is 16 * s77 * (s27 // 2)")
    assert "export the model for inputs where s27 is a multiple of 2" in diag.help
    assert any(n.startswith("from the ATen node `view = aten.view.default(x") for n in diag.notes)
    assert any("torch.export recorded the guard `(8*s27*s77) == (16*s77*(s27 // 2))`" in n for n in diag.notes)


def test_the_constrained_model_runs_on_sizes_that_hold_and_stops_on_others(capsys):
    assert main(["run", archive("constrained"), "--shape", "x=3x10x8"]) == 0
    assert "linear: Tensor[(3, 5, 8), float32]" in capsys.readouterr().out
    assert main(["run", "--color", "never", archive("constrained"), "--shape", "x=3x9x8"]) == 3
    err = capsys.readouterr().err
    assert "error[check-failed]" in err and "216 elements do not fill 192" in err
    assert "from the ATen node `view = aten.view.default" in err


def test_strict_dims_makes_the_constraint_an_error(capsys):
    program = gt.import_archive(archive("constrained"), options=gt.ImportOptions(strict_dims=True))
    (diag,) = program.check().diagnostics
    assert diag.code == "shape-mismatch" and diag.is_error
    assert main(["check", "--strict-dims", "--format", "json", archive("constrained")]) == 1
    (diag,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert diag["code"] == "shape-mismatch" and diag["line"] == model_line("pairs = x.view(b, s // 2, 2 * d)")


def test_the_import_header_lists_torchs_guards_in_gradual_symbols(capsys):
    assert main(["import", archive("constrained")]) == 0
    header = [line for line in capsys.readouterr().out.splitlines() if line.startswith("//")]
    assert header[1] == "// range constraints: s27 in 2.., s77 in 2.."
    assert header[2].startswith(
        "// torch.export's guards (16, checked by torch on each call): "
        "(8*s27*s77) == (16*s77*(s27 // 2)); (s27 // 2) != s27;"
    )


def test_a_range_that_pins_a_symbol_makes_it_that_size():
    """A range constraint `s27` in 6..6 (torch specialized the size, as it does with deferred
    runtime assertions) is the size 6: nothing is left to claim or warn about."""

    def pin(program: dict) -> None:
        program["range_constraints"]["s27"] = {"min_val": 6, "max_val": 6}

    program = gt.import_archive(_rewrite(open(archive("constrained"), "rb").read(), pin), path="pinned.pt2")
    result = program.check()
    assert result.ok and result.diagnostics == []
    assert str(result.function_type("main")).endswith("Tensor[(s77, 6, 8), float32]) -> Tensor[(s77, 3, 8), float32]")


def test_nodes_that_only_feed_torchs_assertions_are_not_imported():
    """A deferred runtime assertion (`prefer_deferred_runtime_asserts_over_guards`) brings
    symbolic-int nodes such as `torch.sym_not` that only the assertion reads."""

    def assert_odd_half(program: dict) -> None:
        nodes = program["graph_module"]["graph"]["nodes"]
        floordiv = next(n for n in nodes if n["target"] == "_operator.floordiv")
        seq = floordiv["inputs"][0]["arg"]
        sym = lambda name: {"as_sym_bool": {"as_name": name}}  # noqa: E731
        added = [
            {
                "target": "_operator.eq",
                "inputs": [{"name": "a", "arg": {"as_sym_int": {"as_name": "floordiv"}}}, {"name": "b", "arg": seq}],
                "outputs": [sym("eq_9")],
                "metadata": {},
            },
            {
                "target": "torch.sym_not",
                "inputs": [{"name": "a", "arg": sym("eq_9")}],
                "outputs": [sym("not_9")],
                "metadata": {},
            },
            {
                "target": "torch.ops.aten._assert_scalar.default",
                "inputs": [
                    {"name": "self", "arg": sym("not_9")},
                    {
                        "name": "assert_msg",
                        "arg": {
                            "as_string": "Runtime assertion failed for expression Ne((s27//2), s27) on node 'not_9'"
                        },
                    },
                ],
                "outputs": [],
                "metadata": {},
            },
        ]
        at = nodes.index(floordiv) + 1
        nodes[at:at] = added

    program = gt.import_archive(
        _rewrite(open(archive("constrained"), "rb").read(), assert_odd_half), path="deferred.pt2"
    )
    assert program.ok, [d.message for d in program.diagnostics]
    assert "sym_not" not in program.text()
    assert "Ne((s27//2), s27)" in program.guards


def test_sarif_for_an_archive(capsys):
    assert main(["check", "--format", "sarif", archive("constrained")]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    (result,) = run["results"]
    assert result["ruleId"] == "dim-constraint" and result["level"] == "warning"
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"].endswith("tests/data/torch/models.py")
    assert where["region"]["startLine"] == model_line("pairs = x.view(b, s // 2, 2 * d)")


def test_the_registry_reads_pt2_and_the_cli_names_no_frontend():
    from pathlib import Path

    from gradual.frontends import frontend_for

    assert frontend_for("model.PT2").name == "torch.export"
    cli = Path(__file__).resolve().parents[1] / "gradual" / "cli"
    assert not any("torch" in path.read_text(encoding="utf-8") for path in cli.glob("*.py"))


# command line ---------------------------------------------------------------------------------------
def test_import_prints_a_program_that_checks_again(capsys, tmp_path):
    assert main(["import", archive("attention")]) == 0
    text = capsys.readouterr().out
    assert text.startswith("// imported from") and "aten.view(%getitem, (2i64, %sym_size_int_1, 2i64, 8i64))" in text
    path = tmp_path / "attention.rly"
    path.write_text(text)
    assert main(["check", "-q", str(path)]) == 0


def test_run_on_the_command_line(capsys):
    assert main(["run", "--format", "json", archive("cnn"), "--shape", "x=3x3x16x16"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["outputs"] == [{"name": "linear", "shape": [3, 10], "dtype": "float32"}]
    assert main(["run", archive("attention"), "--shape", "x=2x500x16"]) == 3


def test_elaborate_output_parses_and_runs(capsys, tmp_path):
    assert main(["elaborate", archive("attention_core")]) == 0
    path = tmp_path / "core.rly"
    path.write_text(capsys.readouterr().out)
    assert main(["run", str(path), "--shape", "x=2x3x16"]) == 0


# symbolic sizes ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, shown",
    [
        ("Symbol('s27', positive=True, integer=True)", "s27"),
        ("Mul(Integer(2), Symbol('s0', positive=True, integer=True))", "2 * s0"),
        ("Add(Symbol('s0', integer=True), Integer(-1))", "s0 - 1"),
        ("Add(Integer(-3), Mul(Integer(4), Symbol('s0')))", "4 * s0 - 3"),
        ("FloorDiv(Symbol('s1'), Integer(2))", "s1 // 2"),
        ("2*s0 + 1", "2 * s0 + 1"),
        ("Mod(Symbol('s0'), Integer(4))", "s0 % 4"),
        ("Add(Integer(4), Mul(Integer(-1), Mod(Symbol('s0'), Integer(4))))", "4 - s0 % 4"),
        ("Add(Symbol('s0'), Mul(Integer(-2), Symbol('s1')))", "s0 - 2 * s1"),
        ("s0 % 3", "s0 % 3"),
        ("Add(Symbol('s0'), Mod(Integer(7), Integer(4)))", "s0 + 3"),
        ("Min(Integer(10), Symbol('s0'))", "mins0, 10"),  # a detector's k = min(10, n), exact
        ("Max(Symbol('s0'), Integer(2))", "maxs0, 2"),
        ("Max(Symbol('s0'), Symbol('s1'))", "maxs0, s1"),
        ("Max(Symbol('s0'), Symbol('s1'), Integer(3))", "maxmaxs0, s1, 3"),
        ("Add(Min(Integer(10), Symbol('s0')), Integer(1))", "mins0, 10 + 1"),
        ("CeilDiv(Symbol('s0'), Integer(4))", "s0 + 3 // 4"),
        ("CeilToInt(IntTrueDiv(Symbol('s0'), Integer(2)))", "s0 + 1 // 2"),
        ("FloorToInt(IntTrueDiv(Symbol('s0'), Integer(2)))", "s0 // 2"),
    ],
)
def test_sympy_sizes_become_dims(text, shown):
    """Parentheses are left out of the comparison (`min(s0, 10)` reads `mins0, 10`)."""
    from gradual.syntax.printer import format_dim

    assert format_dim(parse_expr(text).expr).replace("(", "").replace(")", "") == shown


@pytest.mark.parametrize(
    "text",
    [
        "Mul(Integer(-1), Symbol('s0'))",
        "CeilDiv(Symbol('s0'), Symbol('s1'))",
        "Add(IntTrueDiv(Symbol('s0'), Integer(2)), Integer(1))",
        "Min(Integer(-1), Symbol('s0'))",
        "Mod(Symbol('s0'), Integer(-4))",
        "Mod(Symbol('s0'), Symbol('s1'))",
        "FloorDiv(Mul(Integer(-1), Symbol('s0')), Integer(2))",
        "__import__('os')",
        "s0 ** s1",
        "(" * 500,
        "x" * 20000,
    ],
)
def test_other_sizes_are_unknown(text):
    assert parse_expr(text) is None


def test_bounds_of_range_constraints():
    assert bounds({"min_val": 2, "max_val": 512}) == (2, 512)
    assert bounds({"min_val": 0, "max_val": 9223372036854775806}) is None
    assert bounds({"min_val": -9223372036854775808, "max_val": 20}) == (0, 20)


def test_supported_operators_cover_the_models():
    ops = set(gt.supported_operators())
    for op in (
        "aten.conv2d",
        "aten.linear",
        "aten.view",
        "aten.nonzero",
        "aten.scaled_dot_product_attention",
        "aten.addmm",
        "aten._softmax",
        "aten.native_layer_norm",
    ):
        assert op in ops


# the in-memory API (needs torch) -------------------------------------------------------------------------
def test_an_exported_program_in_memory():
    torch = pytest.importorskip("torch")
    import importlib.util

    # loaded from its path under a name of its own: a module `models` another test imported
    # (the JAX models) may already be in sys.modules
    spec = importlib.util.spec_from_file_location("torch_export_models", os.path.join(DATA, "models.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    Attention = module.Attention

    ep = torch.export.export(
        Attention().eval(), (torch.randn(2, 8, 16),), dynamic_shapes={"x": {1: torch.export.Dim("seq", min=2, max=64)}}
    )
    program = gt.import_program(ep)
    result = program.check()
    assert result.ok and result.check_count == 0
    x = torch.randn(2, 6, 16)
    out = program.run({"x": x.numpy()}, result)
    want = ep.module()(x).detach().numpy()
    np.testing.assert_allclose(out[0] if isinstance(out, list) else out, want, rtol=1e-4, atol=1e-5)


def test_the_guard_a_constraint_cites_is_about_all_its_dims_and_says_something():
    """`s17 == s17` (two inputs' batch, one symbol once rewritten) says nothing; a guard over
    more of the constraint's dims comes before one over the batch alone."""
    from gradual.frontends.torch_export.guards import mentioning

    guards = [
        "s17 == s17",
        "(s17) == (s17)",
        "s17 >= 2",
        "(3*s17*(s27 + s94)) == (6*s17*((s27 + s94) // 2))",
        "s5 >= 2",
    ]
    assert mentioning(guards, ("s17", "s27", "s94")) == [guards[3], "s17 >= 2"]


def _export_and_run(module, args, dynamic, more_args=()):
    """Export `module` in memory with `dynamic` shapes, check it, run it on `args` and each of
    `more_args`, and compare with torch; the check result."""
    torch = pytest.importorskip("torch")
    ep = torch.export.export(module.eval(), args, dynamic_shapes=dynamic)
    program = gt.import_program(ep)
    result = program.check()
    assert result.ok, [d.message for d in result.diagnostics]
    names = [s.arg.name for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    for sample in (args, *more_args):
        got = program.run({n: a.numpy() for n, a in zip(names, sample)}, result)
        want = ep.module()(*sample)
        got, want = (list(v) if isinstance(v, (list, tuple)) else [v] for v in (got, want))
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w.detach().numpy(), rtol=1e-4, atol=1e-5)
    return result


def test_masked_scatter_converts_and_runs():
    """torch.masked_scatter (a real export's sparse write) was an unknown-operator error."""
    torch = pytest.importorskip("torch")

    class Scatter(torch.nn.Module):
        def forward(self, x, src):
            return torch.zeros_like(x).masked_scatter(x > 0, src)

    n = torch.export.Dim("n", min=1, max=64)
    result = _export_and_run(
        Scatter(),
        (torch.randn(5, 3), torch.randn(20)),
        {"x": {0: n}, "src": {}},
        [(torch.randn(2, 3), torch.randn(20))],
    )
    assert str(result.function_type("main")).endswith("-> Tensor[(s77, 3), float32]")
    assert result.check_count == 0


def test_a_float_arange_over_a_size_keeps_its_length():
    """`torch.arange(x.shape[1], dtype=torch.float32)` (RoPE positions, anchor grids): the
    importer cast the size to a float scalar, which carries no shape value, so the range was
    `?` and everything it met was checked (5 checks in an anchor generator, 4 in LLaMA's RoPE)."""
    torch = pytest.importorskip("torch")

    class Positions(torch.nn.Module):
        def forward(self, x):
            b, s, d = x.shape
            t = torch.arange(s, dtype=torch.float32) + 2
            inv = torch.arange(0, d, 2, dtype=torch.float32) / d
            f = torch.outer(t, inv)
            return x * torch.cat([f, f], dim=-1).cos()

    seq = torch.export.Dim("seq", min=1, max=64)
    result = _export_and_run(Positions(), (torch.randn(2, 5, 8),), {"x": {1: seq}}, [(torch.randn(2, 9, 8),)])
    assert str(result.function_type("main")) == "fn (Tensor[(2, s27, 8), float32]) -> Tensor[(2, s27, 8), float32]"
    assert result.check_count == 0


def test_sym_min_of_sizes_converts():
    """`k = min(10, scores.shape[1])` before a top-k (detection) is `torch.sym_min`, which was
    an unknown-operator error; the k is exactly `min(s, 10)`."""
    torch = pytest.importorskip("torch")

    class TopK(torch.nn.Module):
        def forward(self, scores):
            k = min(10, scores.shape[1])
            return scores.topk(k, dim=1)[0] * 2

    result = _export_and_run(
        TopK(), (torch.rand(2, 30),), {"scores": {1: torch.export.Dim.AUTO}}, [(torch.rand(2, 6),)]
    )
    assert result.check_count == 0
    assert re.search(r"-> Tensor\[\(2, min\(s\d+, 10\)\), float32\]$", str(result.function_type("main")))  # Min(10, s)


def test_affine_grid_generator_converts():
    """F.affine_grid in a spatial transformer exports as aten.affine_grid_generator, which was
    an unknown-operator error."""
    torch = pytest.importorskip("torch")

    class Warp(torch.nn.Module):
        def forward(self, x, theta):
            grid = torch.nn.functional.affine_grid(theta, list(x.size()), align_corners=False)
            return torch.nn.functional.grid_sample(x, grid, align_corners=False)

    result = _export_and_run(Warp(), (torch.randn(2, 3, 5, 7), torch.randn(2, 2, 3)), None)
    assert str(result.function_type("main")).endswith("-> Tensor[(2, 3, 5, 7), float32]")
    assert result.check_count == 0


def test_a_cond_on_a_size_comparison_converts_and_takes_either_branch():
    """torch.cond(x.shape[0] > 4, ...): the predicate is a comparison of symbolic ints, which
    the importer skipped as if only torch's own assertions used it, so the cond was an
    unknown-operator error ("a result of torch.export's own assertions")."""
    torch = pytest.importorskip("torch")

    class CondLen(torch.nn.Module):
        def forward(self, x):
            return torch.cond(
                x.shape[0] > 4,
                lambda x: x[: x.shape[0] // 2].sum(0, keepdim=True),
                lambda x: x.mean(0, keepdim=True) * 2,
                (x,),
            )

    result = _export_and_run(
        CondLen(), (torch.randn(6, 8),), {"x": {0: torch.export.Dim.AUTO}}, [(torch.randn(4, 8),), (torch.randn(9, 8),)]
    )
    assert str(result.function_type("main")).endswith("-> Tensor[(1, 8), float32]")
    assert result.check_count == 0


def test_two_symbols_a_guard_equates_are_one():
    """Two caches exported with one Dim: torch traces their lengths as two symbols (s57, s14)
    and guards `(s14 + s27) == (s27 + s57)`. gradual read them as two and warned at the matmul
    that needs them equal (a dim-constraint and a check); it reads them as one symbol now,
    which the entry checks (a call with two lengths stops there, as torch's guard does)."""
    torch = pytest.importorskip("torch")
    from gradual.runtime import CheckFailure

    class Caches(torch.nn.Module):
        def forward(self, x, past_k, past_v):
            b, s, _ = x.shape
            p = past_k.shape[2]
            k = torch.cat([past_k, x.view(b, s, 2, 4).transpose(1, 2)], dim=2)
            v = torch.cat([past_v, x.view(b, s, 2, 4).transpose(1, 2)], dim=2)
            kk = k[:, :, None].expand(b, 2, 2, p + s, 4).reshape(b, 4, p + s, 4)
            return (kk @ kk.transpose(-1, -2)) @ torch.repeat_interleave(v, 2, dim=1)

    batch, seq, past = (torch.export.Dim(n, min=1, max=64) for n in ("batch", "seq", "past"))
    args = (torch.randn(2, 5, 8), torch.randn(2, 2, 3, 4), torch.randn(2, 2, 3, 4))
    result = _export_and_run(
        Caches(),
        args,
        {"x": {0: batch, 1: seq}, "past_k": {0: batch, 2: past}, "past_v": {0: batch, 2: past}},
        [(torch.randn(1, 2, 8), torch.randn(1, 2, 6, 4), torch.randn(1, 2, 6, 4))],
    )
    assert result.check_count == 0 and not result.diagnostics
    (k_type, v_type) = (str(t) for t in result.function_type("main").params[-2:])
    assert k_type == v_type, (k_type, v_type)
    ep = torch.export.export(
        Caches(),
        args,
        dynamic_shapes={"x": {0: batch, 1: seq}, "past_k": {0: batch, 2: past}, "past_v": {0: batch, 2: past}},
    )
    program = gt.import_program(ep)
    with pytest.raises(CheckFailure):
        program.run(
            {
                "x": np.zeros((1, 2, 8), np.float32),
                "past_k": np.zeros((1, 2, 3, 4), np.float32),
                "past_v": np.zeros((1, 2, 4, 4), np.float32),
            },
            program.check(),
        )


def test_torchs_inequality_guards_are_facts_the_check_relies_on_and_the_entry_checks():
    """`pred[:, :k]` of a k1-long dim is k long under torch's guard `k <= k1`, and a center crop
    `big[:, top:top + h]` is h long under `(H - h) // 2 >= 0` and `h + (H - h) // 2 <= H`: gradual
    read no inequality guard, so both slices were `?` and the compare and the concatenation
    after them were checked (outside9; ViT's position table, `1 + (h // 4) * (w // 4) <= 65`,
    likewise). The entry checks the facts, as torch checks its guards on each call."""
    program, result = checked("guarded")
    assert result.ok and result.check_count == 0
    rng = np.random.default_rng(0)
    inputs = {
        "logits": rng.standard_normal((2, 3, 7)).astype(np.float32),
        "draft": np.zeros((2, 4), np.int64),
        "big": rng.standard_normal((2, 9, 3)).astype(np.float32),
        "small": rng.standard_normal((2, 6, 3)).astype(np.float32),
    }
    with pytest.raises(Exception, match=r"guard needs `s3 - s12` to be at least 0"):
        program.run(inputs, result)
    inputs.update(logits=rng.standard_normal((2, 5, 7)).astype(np.float32), big=inputs["big"][:, :5])
    with pytest.raises(Exception, match=r"s47 = 5, s68 = 6, where the exporter's guard needs"):
        program.run(inputs, result)
    inputs["big"] = rng.standard_normal((2, 6, 3)).astype(np.float32)
    accepted, joined = program.run(inputs, result)
    assert joined.shape == (2, 6, 6) and np.array_equal(joined[..., :3], inputs["big"])


def _losses(torch):
    F = torch.nn.functional

    class Losses(torch.nn.Module):
        def forward(self, x, y, t, labels):
            sign = y.sign()
            return (
                F.soft_margin_loss(x, sign),
                F.margin_ranking_loss(x[:, 0], y[:, 0], sign[:, 1], margin=0.1, reduction="sum"),
                F.hinge_embedding_loss(x, sign, margin=0.5, reduction="none"),
                F.cosine_embedding_loss(x, y, sign[:, 0], margin=0.2),
                F.triplet_margin_loss(x, y, x * 2, swap=True),
                F.poisson_nll_loss(x, y.abs()),
                F.poisson_nll_loss(x.abs() + 0.1, y.abs() * 3, log_input=False, full=True, reduction="none"),
                F.multi_margin_loss(x, t, p=2, margin=0.5, weight=y[0].abs()),
                F.multilabel_margin_loss(x, labels, reduction="none"),
            )

    n = torch.export.Dim("n", min=2, max=64)

    def sample(rows):
        return (
            torch.randn(rows, 6),
            torch.randn(rows, 6),
            torch.randint(0, 6, (rows,)),
            torch.randint(-1, 6, (rows, 6)),
        )

    return Losses(), sample(4), {"x": {0: n}, "y": {0: n}, "t": {0: n}, "labels": {0: n}}, [sample(3)]


def _indexing(torch):
    class Indexing(torch.nn.Module):
        def forward(self, x, i):
            out = x.clone()
            out.put_(i, x[0, :3], accumulate=True)
            written = x.clone()
            written.diagonal(1).zero_()  # a write through a diagonal view
            written.as_strided((2, 2), (6, 2), 1).mul_(3)  # and through a strided one
            return (
                written,
                x.index_fill(1, i, -1.0),
                x.index_copy(0, i[:2].clamp(0, 1), x[:2] * 2),
                x.index_reduce(0, i.clamp(0, 1), x[:3], "amax", include_self=False),
                torch.take(x, i),
                torch.take_along_dim(x, i[:2].unsqueeze(0).expand(x.shape[0], 2), 1),
                torch.take_along_dim(x, i),
                out,
                torch.diagonal_scatter(x, x.diagonal(1) * 0, 1),
                torch.as_strided_scatter(x, x[0, :4].reshape(2, 2), (2, 2), (6, 1), 1),
                torch.unique(x.round(), dim=1, return_inverse=True, return_counts=True)[1],
                torch.unique_consecutive(x.round() > 0, return_counts=True)[1],
            )

    i = torch.tensor([4, 0, 2])  # the indices' bounds pin x's size: exported static
    return Indexing(), (torch.randn(5, 6), i), None, [(torch.randn(5, 6), torch.tensor([1, 3, 3]))]


def _distances_and_projections(torch):
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(6, 8, num_layers=2, proj_size=3, bidirectional=True, batch_first=True)

        def forward(self, x):
            return torch.nn.functional.pdist(x[0]), torch.dist(x[0], x[1], 3), self.lstm(x)[0]

    b = torch.export.Dim("b", min=2, max=64)
    return Model(), (torch.randn(2, 5, 6),), {"x": {0: b}}, [(torch.randn(3, 5, 6),)]


@pytest.mark.parametrize("ir", ["default", "core"])
@pytest.mark.parametrize("build", [_losses, _indexing, _distances_and_projections], ids=lambda f: f.__name__[1:])
def test_losses_distances_and_indexing_convert_and_run_to_torchs_values(build, ir):
    """The losses, distances, indexing and unique forms torch.export leaves whole (in the
    default IR; some also in the core IR: index_reduce, put, diagonal_scatter,
    as_strided_scatter, pdist, dist, unique_dim, empty_permuted) were unknown operators, a write
    through a diagonal or strided view was refused, and an LSTM with proj_size was refused for its five weights per layer; each converts, checks with 0 errors and runs to torch's
    values, at the exported size and another."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    module, args, dynamic, more = build(torch)
    ep = torch.export.export(module.eval(), args, dynamic_shapes=dynamic)
    ep = ep if ir == "default" else ep.run_decompositions()
    program = gt.import_program(ep)
    result = program.check()
    assert result.ok, [d.message for d in result.diagnostics]
    names = [s.arg.name for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    for sample in (args, *more):
        got = program.run({n: a.numpy() for n, a in zip(names, sample)}, result)
        with torch.no_grad():
            want = ep.module()(*sample)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w.detach().numpy(), rtol=1e-4, atol=1e-5)
