"""docs/diagnostics.md: a section per diagnostic code (editors and SARIF reports link to it),
and each section's example program still produces its code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gradual
from gradual.diagnostics import docs_url
from gradual.diagnostics.codes import CODES

DOC = Path(__file__).resolve().parents[1] / "docs" / "diagnostics.md"


def sections() -> dict[str, str]:
    """Each `## code` heading and the text under it."""
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.M)[1:]
    return {part.split("\n", 1)[0].strip(): part for part in parts}


def test_every_code_has_a_section_and_nothing_else_does() -> None:
    assert set(sections()) == set(CODES)


@pytest.mark.parametrize("code", sorted(CODES))
def test_the_example_produces_its_code(code: str) -> None:
    body = sections()[code]
    assert "**Fix.**" in body
    found = re.search(r"```gradual\n(.*?)```", body, flags=re.S)
    if found is None:  # runtime codes (gradual run), unreadable files and imported models show a command
        assert code in (
            "input-error",
            "check-failed",
            "runtime-error",
            "internal-error",
            "bad-initializer",
            "dim-constraint",
            "archive-version",
            "usage-error",
        )
        return
    result = gradual.check(found.group(1), "example.rly")
    produced = [d for d in result.diagnostics if d.code == code]
    assert produced, [d.code for d in result.diagnostics]
    assert f"[{code}]: {produced[0].message}" in body


def test_links_point_at_the_section() -> None:
    url = docs_url("shape-mismatch")
    assert url.endswith("diagnostics.md#shape-mismatch")
    assert url.startswith("file://") and Path(url[len("file://") :].split("#")[0]).is_file()


def _commands() -> list:
    """The `$ gradual ...` examples of the document (an `echo '...' |` before one is its
    standard input, `NAME=value` its environment) whose files are in the repository, each
    with the lines it shows."""
    found = []
    for block in re.findall(r"```text\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S):
        command, shown = None, []
        for line in block.splitlines() + ["$"]:
            if line.startswith("$"):
                if command is not None:
                    found.append((command, shown))
                command, shown = line[2:], []
            else:
                shown.append(line)
    return [(c, s) for c, s in found if "gradual " in c and _runnable(c)]


def _runnable(command: str) -> bool:
    """A `gradual` command line (not a shell pipeline) whose files the repository has: the
    others are shown for their output only, and are not collected (a skip runs nothing)."""
    import shlex

    words = shlex.split(command.split(" | ", 1)[1] if command.startswith("echo ") else command)
    while words and "=" in words[0]:
        words.pop(0)
    if not words or words[0] != "gradual" or "&&" in words:
        return False
    files = [a for a in words[2:] if a.endswith((".rly", ".onnx", ".pt2"))]
    return all((DOC.parents[1] / f).exists() for f in files)


def test_most_commands_shown_are_run() -> None:
    assert len(_commands()) >= 4


@pytest.mark.parametrize("command, shown", _commands(), ids=lambda value: str(value)[:60])
def test_the_commands_shown_print_what_they_show(command: str, shown: list, monkeypatch, capsys) -> None:
    """Each example command prints the lines shown under it (the `runtime-error` example
    printed a usage error for a year: its random inputs were themselves over the limit it set). Examples that need a file not in the repository are not collected."""
    import io
    import shlex
    import sys

    from gradual.cli import main

    stdin = None
    if command.startswith("echo "):
        echoed, command = command.split(" | ", 1)
        stdin = shlex.split(echoed)[1] + "\n"
    words = shlex.split(command)
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        monkeypatch.setenv(name, value)
    argv = words[1:]
    root = DOC.parents[1]
    monkeypatch.chdir(root)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    main([argv[0], "--color=never", *argv[1:]])
    captured = capsys.readouterr()
    printed = (captured.err + captured.out).splitlines()
    for line in shown:
        if not line.startswith("{"):  # a JSON document is shown abridged
            assert line in printed, (line, printed[:5])


def test_the_index_table_is_the_code_registry() -> None:
    """The table at the top of docs/diagnostics.md lists every code, in the registry's order,
    with its severity and summary (gradual/diagnostics/codes.py is the one registry)."""
    rows = re.findall(r"^\| \[`([a-z0-9-]+)`\]\(#\1\) \| (\w+) \| (.*) \|$", DOC.read_text(encoding="utf-8"), re.M)
    assert rows == [(c.name, c.severity.value, c.summary) for c in CODES.values()]


def _rule_keys() -> set:
    """Every failure key a rule or contract reports (`ctx.fail("key", ...)` anywhere in the ops
    layer, with a literal key), read from the source."""
    import ast as pyast

    root = Path(__file__).resolve().parents[1] / "gradual" / "ops"
    keys = set()
    for path in root.rglob("*.py"):
        for node in pyast.walk(pyast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, pyast.Call)
                and isinstance(node.func, pyast.Attribute)
                and node.func.attr == "fail"
                and node.args
                and isinstance(node.args[0], pyast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                keys.add(node.args[0].value)
    return keys


def test_every_rule_failure_has_words_and_a_documented_code() -> None:
    """Each key a rule reports has registered words (`register_rule_message`), whose code is a
    documented one: an unregistered key read "`op` rejects its inputs: key"."""
    import gradual.ops.rules  # noqa: F401  (registers every family's words)
    from gradual.ops.contracts import EMPTY  # noqa: F401  (the contract keys are in ops/messages.py)
    from gradual.ops.messages import RULE_MESSAGES

    keys = _rule_keys()
    assert keys, "no ctx.fail call found: the scan is broken"
    unregistered = sorted(k for k in keys if k not in RULE_MESSAGES and not k.startswith("runtime-"))
    assert unregistered == []
    assert sorted({code for code, _, _ in RULE_MESSAGES.values()} - set(CODES)) == []
