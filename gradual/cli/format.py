"""`gradual format [--check] [--diff] [--width N] FILE...`: programs formatted in place.

Each FILE is a program (or a file of operator declarations, as in stdlib/), a directory (its
`.rly` files, recursively, skipping hidden directories), or `-` (standard input, written
formatted to standard output). With `--check` nothing is written: the files that would change
are listed; with `--diff`, their unified diffs are printed. A file formats only when the result
provably keeps its program and every comment (`gradual.syntax.formatting`).

Exit status: 0 nothing to change (or every change made); 1 a file would change (`--check`,
`--diff`) or does not parse; 2 a usage or I/O error (a file that cannot be read or written);
4 a file that formatting would not keep as it is (a bug in gradual).
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gradual.analysis.inputs import Unavailable, read_text
from gradual.cli import messages

#: the command line's exit statuses (gradual.cli, which imports this module when it runs it)
from gradual.cli.common import EXIT_ERRORS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE
from gradual.diagnostics.render import render_all, visible
from gradual.infra.deep import run_deep
from gradual.syntax.formatting import Refused, format_source
from gradual.syntax.parser import ParseError

SUFFIX = ".rly"


@dataclass
class Tally:
    """What became of the files."""

    changed: list = field(default_factory=list)
    unchanged: int = 0
    status: int = EXIT_OK

    def fail(self, status: int) -> None:
        self.status = max(self.status, status)


def files_of(paths: list) -> list:
    """The files named: each path, a directory's `.rly` files (sorted, recursively, hidden
    directories skipped). A path that is not there raises Unavailable."""
    found = []
    for path in paths:
        if path == "-" or not os.path.isdir(path):
            found.append(path)
            continue
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found += [os.path.join(root, name) for name in sorted(names) if name.endswith(SUFFIX)]
    return found


def command_format(args: argparse.Namespace, console: Callable[[], Any]) -> int:
    """`gradual format`: see the module docstring (`console()`: where diagnostics go, made
    when there is one to show)."""
    tally = Tally()
    write = not (args.check or args.diff)
    for path in files_of(args.files):
        try:
            loaded = read_text(path)
        except Unavailable as exc:
            _say(f"gradual: error: {visible(str(exc))}")
            tally.fail(EXIT_USAGE)
            continue
        if loaded.problem is not None or loaded.text is None:
            problems: list = [loaded.problem]  # why the file cannot be read as text
            render_all(problems, console())
            tally.fail(EXIT_USAGE)
            continue
        text = loaded.text
        try:
            formatted = run_deep(format_source, text, path if path != "-" else "<stdin>", args.width)
        except ParseError as exc:
            from gradual.checker.driver import parse_diagnostic  # the checker loads for a syntax error only

            render_all([parse_diagnostic(exc)], console())
            tally.fail(EXIT_ERRORS)
            continue
        except (Refused, RecursionError) as exc:
            reason = str(exc) or "it nests too deep to print"
            _say(f"gradual: internal error: {visible(messages.format_refused(path, reason))}")
            tally.fail(EXIT_INTERNAL)
            continue
        if path == "-" and write:
            sys.stdout.write(formatted)
            continue
        if formatted == text:
            tally.unchanged += 1
            continue
        tally.changed.append(path)
        if args.diff:
            sys.stdout.writelines(
                difflib.unified_diff(
                    text.splitlines(keepends=True),
                    formatted.splitlines(keepends=True),
                    path,
                    f"{path} (formatted)",
                )
            )
        if args.check:
            print(f"would reformat: {visible(path)}")
        if write and not _write(path, formatted, tally):
            tally.changed.pop()
    if not write and tally.changed:
        tally.fail(EXIT_ERRORS)
    if args.files != ["-"]:
        _say(_summary(tally, write))
    return tally.status


def _write(path: str, text: str, tally: Tally) -> bool:
    try:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as exc:
        _say(f"gradual: error: {visible(path)}: cannot write ({exc.strerror or exc})")
        tally.fail(EXIT_USAGE)
        return False
    return True


def _summary(tally: Tally, wrote: bool) -> str:
    changed, unchanged = len(tally.changed), tally.unchanged
    if wrote:
        return f"{_files(changed)} reformatted, {_files(unchanged)} left unchanged"
    return f"{_files(changed)} would be reformatted, {_files(unchanged)} already formatted"


def _files(count: int) -> str:
    return f"{count} file{'' if count == 1 else 's'}"


def _say(text: str) -> None:
    print(text, file=sys.stderr)
