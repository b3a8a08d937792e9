"""The command line: exit codes, streams, JSON shape (spec §5), and bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradual.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_clean_program_exits_0(capsys) -> None:
    code, out, err = run_cli(capsys, "check", "--color=never", str(EXAMPLES / "mlp.rly"))
    assert code == 0
    assert err == ""
    assert "0 errors, 0 warnings, 0 runtime checks" in out


def test_shape_error_exits_1_with_diagnostic_on_stderr(capsys) -> None:
    code, out, err = run_cli(capsys, "check", "--color=never", str(EXAMPLES / "shape_error.rly"))
    assert code == 1
    assert "error[shape-mismatch]" in err
    assert "shape_error.rly:9:16" in err
    assert "^^^" in err
    assert "1 error" in out


def test_missing_file_exits_2(capsys) -> None:
    code, _, err = run_cli(capsys, "check", str(ROOT / "no" / "such.rly"))
    assert code == 2
    assert "no such file" in err


def test_directory_exits_2(capsys) -> None:
    code, _, err = run_cli(capsys, "check", str(EXAMPLES))
    assert code == 2
    assert "directory" in err


def test_a_path_that_cannot_be_opened_is_said_alike_for_programs_and_models(capsys, tmp_path: Path) -> None:
    """A symbolic link loop was "cannot read (Too many levels of symbolic links)" for a .rly
    file and "no such file" for a .onnx or .pt2 one, as was a path through a regular file
    (`f.rly/m.onnx`); a NUL byte in a path (only the library's `main` can pass one) was an
    internal error for a program. One reading of the system's error for every kind of input."""
    import os

    (tmp_path / "f.rly").write_text("def @main() { 1 }\n")
    messages = {}
    for suffix in (".rly", ".onnx", ".pt2"):
        loop = tmp_path / f"loop{suffix}"
        os.symlink(loop.name, loop)
        paths = [
            str(loop),
            str(tmp_path / "f.rly" / f"m{suffix}"),
            str(tmp_path / f"gone{suffix}"),
            str(tmp_path / f"a\0b{suffix}"),
        ]
        code, out, _ = run_cli(capsys, "check", "--format", "json", *paths)
        assert code == 2
        messages[suffix] = [[d["message"] for d in f["diagnostics"]] for f in json.loads(out)["files"]]
    assert messages[".rly"] == messages[".onnx"] == messages[".pt2"]
    assert [m[0].split(" (")[0] for m in messages[".rly"]] == [
        "cannot read",
        "cannot read",
        "no such file",
        "cannot read",
    ]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_an_input_that_cannot_be_loaded_leaves_the_others_checked(capsys, fmt: str) -> None:
    """A missing file or a directory among the inputs is exit 2, but the others are still
    checked and reported, and --format json/sarif still prints its document (it printed
    nothing: a CI step uploading the SARIF file failed on an empty file)."""
    missing = str(ROOT / "no" / "such.rly")
    code, out, err = run_cli(
        capsys, "check", "--color=never", "--format", fmt, str(EXAMPLES / "shape_error.rly"), missing, str(EXAMPLES)
    )
    assert code == 2
    if fmt == "text":
        assert "error[shape-mismatch]" in err and "error[input-error]: no such file" in err
        assert "is a directory" in err and "3 errors" in out
    elif fmt == "json":
        found = {f["path"]: [(d["code"], d["message"]) for d in f["diagnostics"]] for f in json.loads(out)["files"]}
        assert found[missing] == [("input-error", "no such file")]
        assert found[str(EXAMPLES)] == [("input-error", "is a directory, not a program file")]
        assert [c for c, _ in found[str(EXAMPLES / "shape_error.rly")]] == ["shape-mismatch"]
    else:
        from test_sarif import valid

        results = valid(json.loads(out))["runs"][0]["results"]
        assert sorted(r["ruleId"] for r in results) == ["input-error", "input-error", "shape-mismatch"]


def test_no_command_is_usage_error(capsys) -> None:
    assert main([]) == 2


def test_bad_option_is_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--format", "xml", "x.rly"])
    assert exit_info.value.code == 2


def test_non_utf8_file_is_a_diagnostic(tmp_path, capsys) -> None:
    path = tmp_path / "bad.rly"
    path.write_bytes(b"def @f() { \xff\xfe }")
    code, _, err = run_cli(capsys, "check", "--color=never", str(path))
    assert code == 1
    assert "error[input-error]" in err
    assert "not UTF-8" in err


def test_binary_file_is_a_diagnostic(tmp_path, capsys) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(bytes(range(256)) * 4)
    code, _, err = run_cli(capsys, "check", "--color=never", str(path))
    assert code == 1
    assert "error[" in err
    assert "Traceback" not in err


def test_json_document_shape(capsys) -> None:
    code, out, _ = run_cli(
        capsys, "check", "--format", "json", str(EXAMPLES / "broadcast_add.rly"), str(EXAMPLES / "shape_error.rly")
    )
    assert code == 1
    doc = json.loads(out)
    assert doc["summary"] == {"errors": 1, "warnings": 0, "checks": 2}
    first, second = doc["files"]
    assert first["functions"]["main"] == {
        "type": "fn (Tensor[(2, ?), float32], Tensor[(?, 5), float32]) -> Tensor[(2, 5), float32]",
        "checks": 2,
    }
    (diag,) = second["diagnostics"]
    assert diag["severity"] == "error" and diag["code"] == "shape-mismatch"
    assert (diag["line"], diag["column"], diag["end_line"], diag["end_column"]) == (9, 16, 9, 19)
    assert diag["notes"] and diag["help"]
    assert diag["labels"][0]["line"] == 9 and "`k` was bound to 128" in diag["labels"][0]["message"]


def test_checks_count_annotated_lets_casts_and_contracts(tmp_path, capsys) -> None:
    """spec §5.1: `checks` counts every check site that can fail at runtime, in text and JSON:
    an annotated let over an imprecise value, a written cast, a function contract."""
    path = tmp_path / "sites.rly"
    path.write_text(
        "def @apply(%f: fn (Tensor[(3,), float32]) -> Tensor[(3,), float32], %x: Tensor[(3,), float32]) {\n"
        "  %f(%x)\n}\n"
        "def @main(%x: Tensor[(?,), float32], %w: Tensor[(?,), float32], %z: Tensor[(3,), float32]) {\n"
        "  let %a: Tensor[(3,), float32] = %x;\n"
        "  let %g = fn (%y: Tensor[(?,), float32]) -> Tensor[(?,), float32] { %y };\n"
        "  (%a, %w as Tensor[(3,), float32], %x as Tensor[(3,), float32], @apply(%g, %z))\n}\n",
        encoding="utf-8",
    )  # `%x` was checked at the let: its cast checks nothing more
    code, out, _ = run_cli(capsys, "check", "--format", "json", str(path))
    doc = json.loads(out)
    assert code == 0 and doc["files"][0]["functions"]["main"]["checks"] == 3 and doc["summary"]["checks"] == 3
    code, out, _ = run_cli(capsys, "check", "--color=never", str(path))
    assert "@main: " in out and "(3 checks)" in out and "3 runtime checks" in out


def test_json_for_a_parse_error(tmp_path, capsys) -> None:
    path = tmp_path / "p.rly"
    path.write_text("def @f(%x) {\n  add(%x, \n}\n")
    code, out, _ = run_cli(capsys, "check", "--format=json", str(path))
    assert code == 1
    (diag,) = json.loads(out)["files"][0]["diagnostics"]
    assert diag["code"] == "parse-error"
    assert (diag["line"], diag["column"]) == (3, 1)


def test_elaborate_prints_a_program_that_checks_again(tmp_path, capsys) -> None:
    code, out, _ = run_cli(capsys, "elaborate", str(EXAMPLES / "call_check.rly"))
    assert code == 0
    assert "@square(%x as Tensor[(10, 10), float32])" in out
    again = tmp_path / "again.rly"
    again.write_text(out)
    code, out2, err2 = run_cli(capsys, "check", "--color=never", str(again))
    assert code == 0, err2


def test_elaborate_with_errors_exits_1(capsys) -> None:
    code, out, err = run_cli(capsys, "elaborate", "--color=never", str(EXAMPLES / "shape_error.rly"))
    assert code == 1
    assert out == ""
    assert "shape-mismatch" in err


def test_every_example_elaborates_to_a_program_that_checks(tmp_path, capsys) -> None:
    for example in sorted(EXAMPLES.glob("*.rly")):
        if example.name == "shape_error.rly":
            continue
        code, out, err = run_cli(capsys, "elaborate", "--color=never", str(example))
        assert code == 0, f"{example.name}: {err}"
        again = tmp_path / example.name
        again.write_text(out)
        code, _, err = run_cli(capsys, "check", "--color=never", str(again))
        assert code == 0, f"{example.name} elaborated does not check:\n{out}\n{err}"


def test_console_script_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gradual.cli", "check", str(EXAMPLES / "loop.rly")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Tensor[(?, 1), T]" in proc.stdout


def test_a_reader_that_leaves_early_stops_the_command_quietly(tmp_path) -> None:
    """`gradual check big.rly | head -1`: the pipe closes while gradual still writes. Unix
    tools stop quietly with the SIGPIPE status; this was reported as an internal error."""
    path = tmp_path / "big.rly"
    path.write_text("".join(f"def @f{i}(%x: Tensor[(n, 4), float32]) {{ nn.relu(%x) }}\n" for i in range(3000)))
    reader = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline()"], stdin=subprocess.PIPE)
    proc = subprocess.run(
        [sys.executable, "-m", "gradual.cli", "check", str(path)],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        timeout=120,
    )
    reader.stdin.close()  # type: ignore[union-attr]
    reader.wait(timeout=60)
    assert "internal error" not in proc.stderr.decode(), proc.stderr.decode()
    assert proc.returncode == 141


def test_python_dash_m_gradual_is_the_command() -> None:
    """`python -m gradual` runs the command line, as `python -m gradual.cli` does (it was
    "No module named gradual.__main__")."""
    proc = subprocess.run(
        [sys.executable, "-m", "gradual", "check", "--format", "json", str(EXAMPLES / "shape_error.rly")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["errors"] == 1


def test_no_color_is_honoured_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--color auto` on a terminal leaves out colour when NO_COLOR is set (no-color.org);
    `--color always` still colours (a flag beats the environment). The console was built with
    `no_color=False`, which overrode rich's own reading of NO_COLOR."""
    from gradual.cli.common import console

    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert console("auto").no_color
    assert not console("always").no_color and console("never").no_color
    monkeypatch.delenv("NO_COLOR")
    assert not console("auto").no_color


def test_control_characters_in_a_source_line_are_shown_not_sent(capsys, tmp_path: Path) -> None:
    """A diagnostic shows the source line: an ESC sequence in a comment there (or a name) drove
    the terminal that printed it (`ESC [2J` cleared it) and put the carets out of place. Control
    characters are drawn as their symbols, one for one, so the carets stay under the span."""
    path = tmp_path / "esc.rly"
    path.write_text("def @main(%x: Tensor[(2, 3), float32]) { /* \x1b[2J\x1b]0;title\x07\x9b\u202e */ %y }\n")
    code, _, err = run_cli(capsys, "check", "--color=never", str(path))
    assert code == 1
    assert not any(0x80 <= ord(c) < 0xA0 or (ord(c) < 0x20 and c != "\n") or c == "\u202e" for c in err), repr(err)
    source_line, carets = [line for line in err.splitlines() if line.startswith(("1 |", "  |"))][1:3]
    assert "/* \u241b[2J\u241b]0;title\u2407\ufffd\ufffd */" in source_line
    assert source_line[carets.index("^") : carets.index("^") + 2] == "%y"


def test_a_syntax_error_says_what_was_expected_once(capsys, tmp_path: Path) -> None:
    """What the grammar expected is the label under the caret; it was repeated word for word
    as a `help:` line (and so twice in an editor's message)."""
    path = tmp_path / "broken.rly"
    path.write_text("def @main(%x: Tensor[(2, 3), float32]) {\n  nn.relu(%x\n}\n")
    code, _, err = run_cli(capsys, "check", "--color=never", str(path))
    assert code == 1 and "error[parse-error]: unexpected `}`" in err
    assert err.count("expected `)`") == 1, err


def test_carets_stand_under_the_span_after_wide_characters(capsys, tmp_path: Path) -> None:
    """A terminal draws CJK characters and most emoji two columns wide and a combining accent
    in none: the carets were placed by counting characters, so they stood left of the span
    on a line with `中` or `😀` before it (and right of it after a combining accent)."""
    path = tmp_path / "wide.rly"
    path.write_text("def @main(%x: Tensor[(2, 3), float32]) { /* 中文 😀 e\u0301 */ %y }\n")
    code, _, err = run_cli(capsys, "check", "--color=never", str(path))
    source_line, carets = [line for line in err.splitlines() if line.startswith(("1 |", "  |"))][1:3]
    assert code == 1
    # columns as a terminal draws them: 中, 文 and 😀 take two, the combining accent none
    before = source_line[: source_line.index("%y")]
    drawn = len(before) + sum(1 for c in before if c in "中文😀") - before.count("\u0301")
    assert carets.index("^") == drawn


def test_standard_input_named_twice_is_an_input_error(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """`gradual check - -`: standard input is read to its end by the first `-`; the second
    read nothing and was reported as a clean, empty program."""
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((EXAMPLES / "broadcast_add.rly").read_bytes())))
    code, out, err = run_cli(capsys, "check", "--color=never", "--format", "json", "-", "-")
    files = json.loads(out)["files"]
    assert code == 2 and [f["path"] for f in files] == ["-", "-"]
    assert files[0]["functions"] and [d["code"] for d in files[1]["diagnostics"]] == ["input-error"]


def _terminal_width(text: str) -> int:
    """Columns a terminal gives `text` (the reference for the property below)."""
    import unicodedata

    return sum(
        0
        if unicodedata.combining(c) or c in "\u200b\u200c\u200d\u2060\ufeff"
        else 2
        if unicodedata.east_asian_width(c) in "WF"
        else 1
        for c in text
    )


_COMMENT_TEXT = st.text(
    alphabet=st.sampled_from(
        list("ab */%@é")
        + ["中", "文", "😀", "\u0301", "\t", "\r", "\x1b", "\x07", "\x00", "\x7f", "\x9b", "\u202e", "\u200b"]
    ),
    max_size=40,
).filter(lambda t: "*/" not in t)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(comment=_COMMENT_TEXT)
def test_a_shown_line_never_drives_the_terminal_and_its_carets_stand_under_the_span(capsys, tmp_path, comment) -> None:
    """Any text before a span (control characters, tabs, wide and combining characters):
    nothing but newlines below U+0020 reaches the terminal, no C1 control or bidi override,
    and the carets start at the terminal column where the span starts."""
    path = tmp_path / "p.rly"
    path.write_bytes(f"def @main() {{ /*{comment}*/ %y }}\n".encode("utf-8", "surrogatepass"))
    code, _, err = run_cli(capsys, "check", "--color=never", str(path))
    assert code == 1
    assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0 or 0x202A <= ord(c) <= 0x202E for c in err)
    shown = err.splitlines()  # the span's line (a lone \r in the comment ends a line: a later one)
    at = next(i for i, line in enumerate(shown) if re.match(r"\s*\d+ \|", line) and "%y" in line)
    source_line, carets = shown[at], shown[at + 1]
    assert carets.index("^") == _terminal_width(source_line[: source_line.rindex("%y")])


def test_a_file_name_with_control_characters_is_shown_not_sent(capsys, tmp_path: Path) -> None:
    """The summary lines and `gradual: error:` lines print the path too (an ESC in a file name
    reached the terminal from stdout and stderr alike)."""
    named = tmp_path / "a\x1b[31mred.rly"
    named.write_text((EXAMPLES / "mlp.rly").read_text())
    code, out, _ = run_cli(capsys, "check", "--color=never", str(named))
    assert code == 0 and "\x1b" not in out and "a\u241b[31mred.rly: @main" in out
    code, out, err = run_cli(capsys, "run", "--color=never", str(tmp_path / "gone\x1b[2J.rly"))
    assert code == 2 and "\x1b" not in err and "gone\u241b[2J.rly: no such file" in err


def test_output_the_terminal_cannot_encode_is_escaped_not_a_crash(tmp_path: Path) -> None:
    """On an ASCII (or Windows cp1252) stdout a file name such as `modèle.rly` in the summary
    lines raised UnicodeEncodeError after the whole check: an internal error, exit 4. It is
    written with backslash escapes and the exit status is the check's."""
    import os

    path = tmp_path / "modèle.rly"
    path.write_text((EXAMPLES / "shape_error.rly").read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "gradual.cli", "check", str(path)],
        capture_output=True,
        timeout=120,
        env=dict(os.environ, PYTHONIOENCODING="ascii"),
    )
    assert proc.returncode == 1, proc.stderr
    assert b"mod\\xe8le.rly: @main" in proc.stdout and b"error[shape-mismatch]" in proc.stderr


def test_a_json_diagnostic_names_the_file_its_position_is_in(capsys) -> None:
    """A torch.export archive's diagnostics point at the model's Python line: the JSON gave
    line 23, column 9 under the archive's `path` only, so a consumer marked the binary .pt2.
    Each diagnostic has the `path` of its position, as its labels and `run`'s error had."""
    archive = ROOT / "tests" / "data" / "torch" / "edited.pt2"
    code, out, _ = run_cli(capsys, "check", "--format", "json", str(archive), str(EXAMPLES / "shape_error.rly"))
    pt2, program = json.loads(out)["files"]
    (diag,) = pt2["diagnostics"]
    assert code == 1 and pt2["path"] == str(archive)
    assert diag["path"].endswith("models.py") and (diag["line"], diag["column"]) == (23, 9)
    assert program["diagnostics"][0]["path"] == program["path"]


@pytest.mark.parametrize("stdout", ["closed", "full"])
def test_output_that_cannot_be_written_is_an_io_error(stdout: str) -> None:
    """`gradual check f.rly >&-` ended in a Python traceback (the final flush read
    `sys.stdout.closed` of None), and `> /dev/full` was an internal error (exit 4). Both are
    I/O errors (exit 2) with one line on stderr."""
    if stdout == "full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    command = [sys.executable, "-m", "gradual.cli", "check", "--format", "sarif", str(EXAMPLES / "mlp.rly")]
    if stdout == "closed":
        proc = subprocess.run(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=120,
            pass_fds=(),
            close_fds=True,
            preexec_fn=lambda: __import__("os").close(1),
        )
    else:
        with open("/dev/full", "w") as full:
            proc = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and "internal error" not in err and err.startswith("gradual: error:"), err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--batch", "N"],
        ["check", "--batch", "N", "--batch-reshapes"],
        ["check", "--batch", "N", "--format", "json"],
        ["elaborate", "--batch", "N"],
        ["run", "--batch", "N", "--format", "json", "--shape", "x=2x784"],
    ],
)
def test_a_model_option_no_input_takes_is_a_warning(capsys, argv: list) -> None:
    """`gradual check --batch N prog.rly` silently ignored `--batch` (a program has no graph
    inputs to name). Now a warning on stderr says the option was not used; the result (exit
    code, stdout's document) is the program's own, since a pre-commit hook's fixed arguments
    meet whichever files are staged."""
    program = str(EXAMPLES / "mlp.rly")
    code, out, err = run_cli(capsys, *argv, "--color=never", program)
    assert code == 0
    option = next(a for a in argv if a.startswith("--") and a not in ("--format",))
    assert f"gradual: warning: `{option}` applies to onnx models (.onnx)" in err
    assert "it was not used" in err
    if "json" in argv:
        json.loads(out)


def test_a_model_option_some_input_takes_is_not_warned_about(capsys) -> None:
    """With a model among the inputs the option is used: no warning for the programs."""
    model = ROOT / "tests" / "data" / "torch" / "edited.pt2"
    code, _, err = run_cli(capsys, "check", "--strict-dims", "--color=never", str(EXAMPLES / "mlp.rly"), str(model))
    assert "warning: `--strict-dims`" not in err


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_lone_carriage_return_ends_a_line_in_every_output(capsys, tmp_path: Path, fmt: str) -> None:
    """Classic Mac line breaks (a lone `\\r`) end lines as `\\n` and `\\r\\n` do, as LSP counts
    them: the lexer read a lone `\\r` as a blank, so a `//` comment ran to the end of the file
    and every position was on line 1 while the editor showed line 3.
    Every output of the three files is the same."""
    lines = ["def @main(%x: Tensor[(2,), float32]) {  // a note", '  %0 = nn.relu(%x);  // "', "  nn.relu(%y)", "}", ""]
    outputs = []
    for name, brk in (("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")):
        path = tmp_path / "m.rly"
        path.write_bytes(brk.join(lines).encode())
        code, out, err = run_cli(capsys, "check", "--format", fmt, "--color=never", str(path))
        assert code == 1, (name, err)
        outputs.append((out, err))
    assert outputs[0] == outputs[1] == outputs[2]
    assert (
        "m.rly:3:11" in outputs[0][1]
        if fmt == "text"
        else '"line": 3' in outputs[0][0] or '"startLine": 3' in outputs[0][0]
    )


def test_an_option_without_the_one_it_works_with_is_a_warning(capsys) -> None:
    """`--batch-reshapes` without `--batch` did nothing, silently."""
    model = ROOT / "tests" / "data" / "onnx" / "examples" / "cnn_batch1.onnx"
    code, _, err = run_cli(capsys, "check", "-q", "--batch-reshapes", str(model))
    assert code == 0 and "gradual: warning: `--batch-reshapes` does nothing without `--batch`" in err
    code, _, err = run_cli(capsys, "check", "-q", "--batch", "N", "--batch-reshapes", str(model))
    assert code == 0 and "warning" not in err


_DIAGNOSTIC_KEYS = {
    "path",
    "severity",
    "code",
    "message",
    "line",
    "column",
    "end_line",
    "end_column",
    "label",
    "labels",
    "notes",
    "help",
}


def _a_diagnostic(found: dict, positioned: bool = True) -> None:
    """A JSON diagnostic has exactly README's fields, of their types (positions null only for
    an error of no file: a usage or internal error)."""
    assert set(found) == _DIAGNOSTIC_KEYS, set(found) ^ _DIAGNOSTIC_KEYS
    assert found["severity"] in ("error", "warning", "note") and isinstance(found["code"], str)
    assert isinstance(found["message"], str) and isinstance(found["notes"], list) and isinstance(found["labels"], list)
    for key in ("line", "column", "end_line", "end_column"):
        assert isinstance(found[key], int) if positioned else found[key] is None, (key, found)
    for label in found["labels"]:
        assert set(label) == {"message", "path", "line", "column", "end_line", "end_column"}


@pytest.mark.parametrize("name", ["clean", "broken", "unparsable", "not utf-8", "missing", "model", "archive", "usage"])
def test_the_json_documents_keep_their_schema(capsys, tmp_path: Path, name: str) -> None:
    """`check --format json` and `run --format json` print the same fields, of the same types,
    for every kind of input (spec §5 and README): a consumer's parser written against one
    document reads them all."""
    (tmp_path / "bad.rly").write_bytes(b"def @main() { 1 }\n\xff")
    (tmp_path / "unparsable.rly").write_text("def @main( {")
    inputs = {
        "clean": EXAMPLES / "mlp.rly",
        "broken": EXAMPLES / "shape_error.rly",
        "unparsable": tmp_path / "unparsable.rly",
        "not utf-8": tmp_path / "bad.rly",
        "missing": tmp_path / "gone.rly",
        "model": ROOT / "tests" / "data" / "onnx" / "examples" / "mlp_transposed.onnx",
        "archive": ROOT / "tests" / "data" / "torch" / "constrained.pt2",
        "usage": EXAMPLES / "mlp.rly",
    }
    extra = ["--entry", "nothing"] if name == "usage" else []
    _, out, _ = run_cli(capsys, "check", "--format", "json", str(inputs[name]))
    document = json.loads(out)
    assert set(document) == {"files", "summary"}
    assert set(document["summary"]) == {"errors", "warnings", "checks"}
    for file in document["files"]:
        assert set(file) == {"path", "diagnostics", "functions"}
        for diagnostic in file["diagnostics"]:
            _a_diagnostic(diagnostic)
        for function in file["functions"].values():
            assert set(function) == {"type", "checks"} and isinstance(function["checks"], int)
    _, out, _ = run_cli(capsys, "run", "--format", "json", str(inputs[name]), *extra)
    document = json.loads(out)
    assert set(document) <= {"outputs", "error", "diagnostics"} and ("outputs" in document) != ("error" in document)
    if "error" in document:
        _a_diagnostic(document["error"], positioned=document["error"]["code"] not in ("usage-error", "internal-error"))
    for diagnostic in document.get("diagnostics", []):
        _a_diagnostic(diagnostic)
    for output in document.get("outputs", []):
        assert set(output) <= {"name", "shape", "dtype", "kind", "type"}


@pytest.mark.parametrize("suffix", [".onnx", ".pt2", ".rly"])
def test_a_git_lfs_pointer_is_named_as_such(capsys, tmp_path: Path, suffix: str) -> None:
    """A model tracked by Git LFS in a checkout without LFS (a CI job's default checkout, a
    pre-commit clone) is a small text pointer: it was "Wire format was corrupt" (ONNX), "File
    is not a zip file" (.pt2), "unexpected `version`" (.rly). It says what it is and how to
    fetch the content."""
    path = tmp_path / f"model{suffix}"
    path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 1234\n")
    code, out, err = run_cli(capsys, "check", "--format", "json", str(path))
    (diag,) = json.loads(out)["files"][0]["diagnostics"]
    assert code == 1 and diag["code"] == "input-error" and diag["message"].startswith("the file is a Git LFS pointer")
    assert "git lfs pull" in diag["message"] and diag["help"] is None


def test_a_file_its_suffix_misnames_gets_a_note_naming_its_kind(capsys, tmp_path: Path) -> None:
    """An ONNX model or a torch.export archive saved as `.rly` was only "not UTF-8 text: byte
    0x83 at offset 21", a program saved as `.onnx` "Wire format was corrupt": gradual reads a
    file by its suffix, and now the input-error says which kind the file is and the suffix
    that reads it as one. Files of no kind (random bytes, an empty file) get no such note."""
    pytest.importorskip("onnx")
    import random

    data = {
        "onnx": (ROOT / "tests" / "data" / "onnx" / "examples" / "mlp.onnx").read_bytes(),
        "pt2": (ROOT / "tests" / "data" / "torch" / "cnn.pt2").read_bytes(),
        "rly": (EXAMPLES / "mlp.rly").read_bytes(),
        "random": random.Random(7).randbytes(3000),
        "empty": b"",
    }
    expected = {
        ("onnx", ".rly"): "`.onnx`",
        ("pt2", ".rly"): "`.pt2`",
        ("pt2", ".onnx"): "`.pt2`",
        ("rly", ".onnx"): "`.rly`",
        ("rly", ".pt2"): "`.rly`",
        ("onnx", ".pt2"): "`.onnx`",
        ("random", ".rly"): None,
        ("random", ".onnx"): None,
        ("empty", ".onnx"): None,
        ("empty", ".pt2"): None,
    }
    for (kind, suffix), named in expected.items():
        path = tmp_path / f"{kind}_as{suffix}"
        path.write_bytes(data[kind])
        code, out, _ = run_cli(capsys, "check", "--format", "json", str(path))
        (diag,) = json.loads(out)["files"][0]["diagnostics"]
        assert code == 1 and diag["code"] == "input-error", (kind, suffix)
        notes = [n for n in diag["notes"] if "name it" in n]
        assert [n.rsplit("name it ", 1)[1].split(" ")[0] for n in notes] == ([named] if named else []), (
            kind,
            suffix,
            notes,
        )


def test_a_pipe_is_not_read_again_for_its_kind(tmp_path: Path, monkeypatch) -> None:
    """The kinds a misnamed file might be are tried on regular files only: a named pipe was
    read to its end, and opening it again would wait for a writer that never comes."""
    import os

    from gradual.analysis import inputs

    tried = []

    class Recorder:
        def load(self, path: str, options: dict) -> None:
            tried.append(path)
            raise ValueError("not this kind")

    monkeypatch.setattr(inputs, "frontends", lambda: [Recorder()])
    fifo = tmp_path / "p.rly"
    os.mkfifo(fifo)
    assert inputs._readable_as(str(fifo), None, {}) is None and tried == []
    regular = tmp_path / "r.rly"
    regular.write_bytes(b"\xff")
    inputs._readable_as(str(regular), None, {})
    assert tried == [str(regular)]


@pytest.mark.parametrize("command", ["check", "elaborate", "run"])
def test_strict_dims_makes_a_printed_models_claims_promises(capsys, tmp_path: Path, command: str) -> None:
    """`gradual import model.pt2 > m.rly` writes the exporter's dims as `claimed=[...]`; checked
    with `--strict-dims`, the model's dim-constraint warning is an error, but the printed
    program's stayed a warning (the option was "not used" for a program), while its help line
    said "--strict-dims makes this an error". Now the program answers as its model does."""
    model = str(ROOT / "tests" / "data" / "torch" / "constrained.pt2")
    assert main(["import", model]) == 0
    printed = tmp_path / "constrained.rly"
    printed.write_text(capsys.readouterr().out)
    extra = ["--shape", "x=3x10x8"] if command == "run" else []
    results = {}
    for path in (model, str(printed)):
        code, out, err = run_cli(capsys, command, "--strict-dims", "--color=never", path, *extra)
        results[path] = (
            code,
            [line.split(":")[0] for line in err.splitlines() if line.startswith(("error[", "warning["))],
        )
        assert "it was not used" not in err
    assert results[model] == results[str(printed)] == (1, ["error[shape-mismatch]"])
    code, _, err = run_cli(capsys, "check", "--color=never", str(printed))  # without it: the claim
    assert code == 0 and "warning[dim-constraint]" in err
