"""Data-driven test cases: a program and what checking (and running) it must produce.

A case file (`tests/cases/*.case`) holds several cases:

    ### the name of the case
    def @main(%x: Tensor[(2, ?), float32], %y: Tensor[(?, 5), float32]) {
      add(%x, %y)
    }
    --- expect
    type @main: fn (Tensor[(2, ?), float32], Tensor[(?, 5), float32]) -> Tensor[(2, 5), float32]
    checks @main: 2
    --- run main x=2x5 y=1x5
    ok (2, 5) float32

Expectation lines (section `--- expect`):

    type @f: <type>                 the function's inferred type, exactly as printed
    checks @f: <n>                  inserted check sites that verify something
    binding @f %v: <type>           the type of the (last) `let`/graph binding of %v in @f
    error <line>:<col> <code>: <fragment>    a diagnostic: position relative to the first
    warning <line>:<col> <code>: <fragment>  program line, code, and a fragment of the message
    note <line>:<col> <code>: <fragment>     (errors, warnings and notes alike)
    help <line>:<col>: <fragment>   the help line of the diagnostic at that position
    label <line>:<col>: <fragment>  a secondary label (its own position) contains the fragment
    elaborated: <fragment>          the elaborated program text contains the fragment
    elaborated not: <fragment>      ... and does not contain this one

Diagnostics are exhaustive: every error, warning and note the checker reports must be listed.
`--- run` sections (one or more) run the elaborated program; their header names the entry
and inputs (`NAME=2x3` random of the declared dtype, `NAME=2x3:int32`, `NAME=7` a scalar,
`NAME=[1,2,3]` a literal vector) and their body says `ok <shape> <dtype>` (one line per
output), `equals numpy: <expression over the inputs>`, or `fails <line>:<col> <code>`.

A `--- formatted` section holds, verbatim, the text formatting the program gives (comments
kept: `gradual.syntax.formatting`), or the single word `refused` when formatting must leave
the program alone; `--- formatted width=40` formats to 40 columns instead of the default 100.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

CASES_DIR = Path(__file__).parent / "cases"


@dataclass
class RunSpec:
    """One `--- run` section."""

    entry: str
    inputs: list
    expect: list = field(default_factory=list)
    line: int = 0


@dataclass
class Case:
    """One case: its program and expectations."""

    name: str
    path: Path
    line: int
    program: str
    expect: list = field(default_factory=list)
    runs: list = field(default_factory=list)
    formatted: Optional[str] = None
    format_width: int | None = None

    @property
    def id(self) -> str:
        return f"{self.path.stem}::{self.name}"


_HEADER = re.compile(r"^###\s+(.*)$")
_SECTION = re.compile(r"^---\s+(expect|run|formatted)\b(.*)$")


def parse_case_file(path: Path) -> list[Case]:
    """Every case in one file."""
    cases: list[Case] = []
    current: Case | None = None
    section = "program"
    program_lines: list[str] = []
    formatted_lines: list[str] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        header = _HEADER.match(raw)
        if header:
            if current is not None:
                cases.append(_finish(current, program_lines, formatted_lines))
            current = Case(header.group(1).strip(), path, number, "")
            program_lines, formatted_lines = [], []
            section = "program"
            continue
        if current is None:
            continue
        sec = _SECTION.match(raw)
        if sec:
            section = sec.group(1)
            if section == "run":
                words = sec.group(2).split()
                current.runs.append(RunSpec(words[0] if words else "main", words[1:], [], number))
            elif section == "formatted":
                width = re.fullmatch(r"\s*width=(\d+)\s*", sec.group(2))
                if sec.group(2).strip() and width is None:
                    raise ValueError(f"{path}:{number}: `--- formatted` takes nothing or `width=N`")
                current.format_width = int(width.group(1)) if width else None
            continue
        if section == "program":
            program_lines.append(raw)
        elif section == "formatted":
            formatted_lines.append(raw)
        elif raw.strip() and not raw.strip().startswith("#"):
            target = current.expect if section == "expect" else current.runs[-1].expect
            target.append((number, raw.strip()))
    if current is not None:
        cases.append(_finish(current, program_lines, formatted_lines))
    return cases


def _finish(case: Case, program_lines: list, formatted_lines: list) -> Case:
    case.program = "\n".join(program_lines).rstrip() + "\n"
    if formatted_lines:
        case.formatted = "\n".join(formatted_lines).rstrip() + "\n"
    return case


def all_cases(directory: Path = CASES_DIR) -> list[Case]:
    """Every case under tests/cases."""
    cases: list[Case] = []
    for path in sorted(directory.glob("*.case")):
        cases.extend(parse_case_file(path))
    return cases
