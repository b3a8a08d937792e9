"""The README's and the docs' command examples are real: every `$ gradual ...` block of README.md
and docs/*.md is re-run and compared."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from pathlib import Path

import pytest

from gradual.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: where the command line is documented: the README's tour and docs/cli.md's reference
DOCUMENTS = (README, *sorted((ROOT / "docs").glob("*.md")))
CLI_REFERENCE = ROOT / "docs" / "cli.md"


def _blocks() -> list[tuple[str, str]]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        blocks = re.findall(r"```\n(\$ gradual [^\n]*)\n(.*?)```", text, flags=re.S)
        found += [(command[2:], output) for command, output in blocks]
    return found


def _run(command: str) -> tuple[int, str]:
    argv = shlex.split(command)[1:]
    if argv and argv[0] in ("check", "elaborate", "run"):
        argv.insert(1, "--color=never")
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(cwd)
    return code, err.getvalue() + out.getvalue()


BLOCKS = _blocks()


def test_readme_has_command_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("command,expected", BLOCKS, ids=[c for c, _ in BLOCKS])
def test_readme_output_is_real(command: str, expected: str) -> None:
    if ".onnx" in command:
        pytest.importorskip("onnx")  # an optional extra: CI installs only '.[test]'
    _, actual = _run(command)
    assert actual.strip() == expected.strip()


def update_readme() -> None:
    """Rewrite every `$ gradual ...` block with the command's real output (review the diff!)."""

    def replace(match: re.Match) -> str:
        command = match.group(1)
        _, output = _run(command[2:])
        return f"```\n{command}\n{output.rstrip()}\n```"

    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        updated = re.sub(r"```\n(\$ gradual [^\n]*)\n(.*?)```", replace, text, flags=re.S)
        if updated != text:
            document.write_text(updated, encoding="utf-8")


if __name__ == "__main__":  # python tests/test_readme.py
    update_readme()


def test_ci_runs_the_readme_test_command() -> None:
    """.ci/run runs exactly the test command README.md gives newcomers; after it come only the
    editors' end-to-end tests (`editors/*/test/e2e.sh`: they install more than pip does; the
    installs run beside the tests, `e2e_prepared` waits for them)."""
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- ci: test command -->\n```sh\n([^\n]+)\n```", text)
    assert found is not None, "README.md has no test command block after <!-- ci: test command -->"
    ci_lines = [
        line
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert found.group(1) in ci_lines
    after = ci_lines[ci_lines.index(found.group(1)) + 1 :]
    assert all(re.fullmatch(r"e2e_prepared|editors/[\w-]+/test/e2e\.sh( --run)?", line) for line in after), after


_VALUE_COMMENT = re.compile(r"^(\s*)(\S.*?)\s{2,}# (.*)$")
_LOOKS_LIKE_A_VALUE = re.compile(r"^(['\"\[(<{]|-?\d|True\b|False\b|None\b)")


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def _with_value_checks(block: str) -> str:
    """The block with each `expression  # value...` line turned into a check that the
    expression's repr starts the comment (comments that are prose are left alone)."""
    lines = []
    for line in block.splitlines():
        found = _VALUE_COMMENT.match(line)
        if found and _LOOKS_LIKE_A_VALUE.match(found.group(3)):
            try:
                compile(found.group(2), "<readme>", "eval")
            except SyntaxError:
                lines.append(line)
                continue
            line = f"{found.group(1)}__shows({found.group(2)}, {found.group(3)!r})"
        lines.append(line)
    return "\n".join(lines)


def _shows(value: object, comment: str) -> None:
    assert comment.startswith(repr(value)), f"README says {comment!r}, the code gives {value!r}"


def test_the_readme_fits_on_a_few_screens() -> None:
    """The README says what gradual is, how to try it, a short tour and where to read on; the
    rest lives in docs/."""
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


@pytest.mark.parametrize("block", _python_blocks(), ids=lambda b: b.splitlines()[0][:40])
def test_readme_python_examples_run_and_show_their_values(block: str, capsys) -> None:
    """Every ```python block of README.md runs as pasted (from the repository's root), and
    each `expression  # value` line gives that value (the command blocks are tested above;
    these were not: one used `gradual` without importing it)."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(_with_value_checks(block), "README.md", "exec"), {"__shows": _shows})
    finally:
        os.chdir(cwd)


def test_every_command_line_option_is_documented() -> None:
    """Each option the parser takes (every command's, and every frontend's) is named in the
    command-line reference (docs/cli.md) or the README."""
    import argparse

    from gradual.cli import build_parser

    text = README.read_text(encoding="utf-8") + CLI_REFERENCE.read_text(encoding="utf-8")
    parsers = [build_parser()]
    options = set()
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
            options.update(o for o in action.option_strings if o.startswith("--") and o != "--help")
    mentioned = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))
    assert sorted(options - mentioned) == []


def _example_rows() -> list:
    """The README's table of examples: (file, what its result column says)."""
    text = README.read_text(encoding="utf-8")
    return re.findall(r"^\| \[[\w.]+\]\((examples/[\w.]+\.rly)\) \|[^|]*\| ([^|]*) \|$", text, flags=re.M)


def test_the_examples_table_lists_every_example() -> None:
    listed = {path for path, _ in _example_rows()}
    assert listed == {f"examples/{p.name}" for p in (ROOT / "examples").glob("*.rly")}


@pytest.mark.parametrize("path,result", _example_rows(), ids=[p for p, _ in _example_rows()])
def test_the_examples_table_says_what_check_prints(path: str, result: str) -> None:
    """Each row's result column (the types in backticks, `no check` / `N checks`, an error)
    is what `gradual check` prints for the example; the table was not compared with anything."""
    code, printed = _run(f"gradual check {path}")
    for fragment in re.findall(r"`([^`]+)`", result):
        assert fragment in printed, (fragment, printed[-400:])
    counted = re.search(r"(\d+) runtime checks?$", printed.strip(), flags=re.M)
    assert counted is not None
    if "no check" in result:
        assert counted.group(1) == "0"
    said = re.search(r"(\d+) checks?\b", result)
    if said:
        assert counted.group(1) == said.group(1)
    assert code == (1 if "diagnostic" in result else 0)


def _links(text: str) -> list:
    """The relative link targets of a Markdown text, outside code blocks and code spans."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return [t for t in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) if not re.match(r"^[a-z]+:", t)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d.name)
def test_every_relative_link_leads_to_a_file(document: Path) -> None:
    missing = [t for t in _links(document.read_text(encoding="utf-8")) if not (document.parent / t).exists()]
    assert missing == [], f"{document.name} links to {missing}"
