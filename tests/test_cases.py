"""Runs every case in tests/cases (see casefile.py for the format).

`GRADUAL_UPDATE_CASES=1 python -m pytest tests/test_cases.py` rewrites the diagnostic, `type`
and `checks` lines of each failing case to what the checker now says (review the diff: it
records whatever the checker does).
"""

from __future__ import annotations

import os
import re

import pytest
from casefile import Case, all_cases
from formatcheck import meaning, too_long

import gradual
from gradual.syntax.formatting import DEFAULT_WIDTH, format_text

CASES = all_cases()

_DIAG = re.compile(r"^(error|warning|note)\s+(\d+):(\d+)\s+([a-z0-9-]+):\s*(.*)$")
_AT = re.compile(r"^(help|label)\s+(\d+):(\d+):\s*(.*)$")


def _check(case: Case) -> gradual.CheckResult:
    return gradual.check(case.program, f"{case.path.name}:{case.name}")


def _function(result: gradual.CheckResult, name: str):
    fn = result.functions.get(name)
    assert fn is not None, f"no function @{name}; have {sorted(result.functions)}"
    return fn


def _expect_diagnostics(case: Case, result: gradual.CheckResult) -> None:
    expected = []
    for number, line in case.expect:
        m = _DIAG.match(line)
        if m:
            expected.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5), number))
    actual = list(result.diagnostics)
    problems = []
    unmatched = list(actual)
    for sev, line, col, code, fragment, number in expected:
        hit = next(
            (
                d
                for d in unmatched
                if d.severity.value == sev
                and d.line == line
                and d.column == col
                and d.code == code
                and fragment in d.message
            ),
            None,
        )
        if hit is None:
            problems.append(f"line {number}: expected {sev} {line}:{col} {code}: {fragment!r}")
        else:
            unmatched.remove(hit)
    for d in unmatched:
        problems.append(f"unexpected {d.severity.value} {d.line}:{d.column} {d.code}: {d.message}")
    assert not problems, "\n".join(problems)


def _diagnostic_at(result: gradual.CheckResult, line: int, col: int):
    found = [d for d in result.diagnostics if d.line == line and d.column == col]
    assert found, f"no diagnostic at {line}:{col}"
    return found[0]


def _expect_line(case: Case, result: gradual.CheckResult, number: int, line: str) -> None:
    if _DIAG.match(line):
        return
    at = _AT.match(line)
    if at:
        where, fragment = (int(at.group(2)), int(at.group(3))), at.group(4)
        if at.group(1) == "help":
            diag = _diagnostic_at(result, *where)
            assert fragment in (diag.help or ""), f"line {number}: help {diag.help!r} lacks {fragment!r}"
        else:
            texts = [lab.message for d in result.diagnostics for lab in d.labels if lab.span.start_position == where]
            assert any(fragment in t for t in texts), f"line {number}: labels at {where}: {texts} lack {fragment!r}"
        return
    key, _, value = line.partition(":")
    value = value.strip()
    words = key.split()
    if words[0] == "type":
        got = str(_function(result, words[1].lstrip("@")).type)
        assert got == value, f"line {number}: type of {words[1]} is {got}, expected {value}"
    elif words[0] == "checks":
        fn = _function(result, words[1].lstrip("@"))
        assert fn.check_count == int(value), (
            f"line {number}: {words[1]} has {fn.check_count} checks, expected {value}\n"
            + gradual.elaborate_text(result)
        )
    elif words[0] == "binding":
        got = result.binding_type(words[1].lstrip("@"), words[2].lstrip("%"))
        assert got is not None, f"line {number}: no binding {words[2]} in {words[1]}"
        assert str(got) == value, f"line {number}: {words[2]} has type {got}, expected {value}"
    elif words[0] == "elaborated" and len(words) == 1:
        text = gradual.elaborate_text(result)
        assert value in text, f"line {number}: elaborated program lacks {value!r}:\n{text}"
    elif words[0] == "elaborated" and words[1:] == ["not"]:
        text = gradual.elaborate_text(result)
        assert value not in text, f"line {number}: elaborated program contains {value!r}:\n{text}"
    else:
        raise AssertionError(f"line {number}: unknown expectation {line!r}")


def _expect_formatted(case: Case) -> None:
    """The program formats to the expected text (a fixed point with the same meaning), or is
    refused."""
    width = case.format_width or DEFAULT_WIDTH
    got = format_text(case.program, width=width)
    if case.formatted.strip() == "refused":
        assert got is None, f"formatting was not refused:\n{got}"
        return
    assert got == case.formatted, f"formatted as:\n{got}"
    assert format_text(got, width=width) == got, "formatting the formatted text changes it"
    assert meaning(got) == meaning(case.program), "the formatted program checks differently"
    assert too_long(got, width) == []


def _rewrite_expectations(case: Case, result: gradual.CheckResult) -> None:
    """Write what the checker says now into the case's `--- expect` section (see the module
    docstring): diagnostics in the order reported, `type` and `checks` lines it already had."""
    lines = case.path.read_text(encoding="utf-8").split("\n")
    start = lines.index(f"### {case.name}")
    expect = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("--- expect"))
    end = next(
        (i for i in range(expect + 1, len(lines)) if lines[i].startswith("---") or lines[i].startswith("###")),
        len(lines),
    )
    kept = []
    for line in lines[expect + 1 : end]:
        words = line.split()
        if _DIAG.match(line.strip()):
            continue
        if words and words[0] in ("type", "checks") and len(words) > 1:
            fn = result.functions.get(words[1].lstrip("@").rstrip(":"))
            if fn is not None:
                value = fn.type if words[0] == "type" else fn.check_count
                line = f"{words[0]} {words[1].rstrip(':')}: {value}"
        kept.append(line)
    blank = len(kept)
    while blank and not kept[blank - 1].strip():
        blank -= 1
    diagnostics = [f"{d.severity.value} {d.line}:{d.column} {d.code}: {d.message}" for d in result.diagnostics]
    lines[expect + 1 : end] = kept[:blank] + diagnostics + kept[blank:]
    case.path.write_text("\n".join(lines), encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    result = _check(case)
    try:
        _expect_diagnostics(case, result)
        for number, line in case.expect:
            _expect_line(case, result, number, line)
    except AssertionError:
        if os.environ.get("GRADUAL_UPDATE_CASES"):
            _rewrite_expectations(case, result)
        raise
    if case.formatted is not None:
        _expect_formatted(case)
    if case.runs:
        from runcases import run_case_section  # the runtime's half of the format

        for spec in case.runs:
            run_case_section(case, result, spec)
