"""The command line: `gradual check`, `gradual elaborate`, `gradual run` (SPEC 5).

Exit codes: 0 ok (warnings allowed), 1 type or parse errors, 2 usage or I/O errors,
3 a runtime check failed (or an operator failed at runtime), 4 an internal error (a shape rule
and its kernel disagree: a bug in gradual). A traceback is never the answer to bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any, Optional, Sequence


from . import messages
from .api import CheckResult, check, elaborate_text
from .frontends import onnx_cli  # ONNX models (gradual/frontends/onnx_cli.py)
from .render import diagnostic_json, render_all
from .syntax.source import Source, Span

MAX_FILE_BYTES = 64 * 1024 * 1024
EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_CHECK_FAILED, EXIT_INTERNAL = 0, 1, 2, 3, 4


class UsageError(Exception):
    """Bad command-line usage or an unreadable file (exit 2)."""


@dataclass
class LoadedFile:
    """A file read from disk: its text, or the diagnostic explaining why it has none."""

    path: str
    text: Optional[str]
    problem: Optional[Any] = None


def read_program(path: str) -> LoadedFile:
    """Read a program file as UTF-8; unreadable files raise UsageError, undecodable ones
    come back with an input-error diagnostic."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a program file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        source = Source("", path)
        return LoadedFile(path, None, messages.input_error(Span(source, 0, 0), f"the file is larger than {MAX_FILE_BYTES // 2**20} MiB"))
    try:
        return LoadedFile(path, data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8", errors="replace")
        source = Source(good, path)
        span = Span(source, len(good), len(good))
        return LoadedFile(path, None, messages.input_error(span, f"the file is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}"))


def _console(color: str) -> Any:
    from rich.console import Console  # only when there is something to draw

    force = {"always": True, "never": False}.get(color)
    return Console(stderr=True, highlight=False, force_terminal=force, no_color=color == "never", width=200 if force is False else None, soft_wrap=True)


def check_files(paths: Sequence[str], options: Any = None) -> list[tuple[LoadedFile, Optional[CheckResult]]]:
    """Read and check each file (I/O problems raise UsageError); ONNX models are imported
    (`options`: the command's arguments, for the model options)."""
    out = []
    for path in paths:
        if onnx_cli.is_model(path):  # ONNX frontend
            out.append(onnx_cli.check_file(path, options))
            continue
        loaded = read_program(path)
        result = check(loaded.text, path) if loaded.text is not None else None
        out.append((loaded, result))
    return out


def _file_json(loaded: LoadedFile, result: Optional[CheckResult]) -> dict[str, Any]:
    diagnostics = [loaded.problem] if loaded.problem is not None else list(result.diagnostics if result else [])
    functions = {}
    if result is not None:
        for name, fn in result.functions.items():
            functions[name] = {"type": str(fn.type), "checks": fn.check_count}
    return {"path": loaded.path, "diagnostics": [diagnostic_json(d) for d in diagnostics], "functions": functions}


def _diagnostics_of(loaded: LoadedFile, result: Optional[CheckResult]) -> list:
    if loaded.problem is not None:
        return [loaded.problem]
    return list(result.diagnostics) if result is not None else []


def command_check(args: argparse.Namespace) -> int:
    """`gradual check`: diagnostics on stderr; function types and a summary on stdout."""
    files = check_files(args.files, args)
    all_diags = [d for loaded, result in files for d in _diagnostics_of(loaded, result)]
    errors = sum(1 for d in all_diags if d.is_error)
    warnings = sum(1 for d in all_diags if d.severity.value == "warning")
    checks = sum(r.check_count for _, r in files if r is not None)
    if args.format == "json":
        doc = {"files": [_file_json(l, r) for l, r in files],
               "summary": {"errors": errors, "warnings": warnings, "checks": checks}}
        print(json.dumps(doc, indent=2))
    else:
        if all_diags:
            render_all(all_diags, _console(args.color))
        for loaded, result in files:
            if result is not None and not args.quiet:
                for name, fn in result.functions.items():
                    print(f"{loaded.path}: @{name}: {fn.type}  ({_plural(fn.check_count, 'check')})")
        print(f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}, {_plural(checks, 'runtime check')}")
    return EXIT_ERRORS if errors else EXIT_OK


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def command_elaborate(args: argparse.Namespace) -> int:
    """`gradual elaborate`: the program with types and inserted checks, on stdout."""
    ((loaded, result),) = check_files([args.file], args)
    diags = _diagnostics_of(loaded, result)
    if any(d.is_error for d in diags) or result is None:
        render_all(diags, _console(args.color))
        return EXIT_ERRORS
    render_all(diags, _console(args.color))
    sys.stdout.write(elaborate_text(result))
    return EXIT_OK


def command_run(args: argparse.Namespace) -> int:
    """`gradual run`: check, elaborate, run on NumPy (gradual/runtime)."""
    from .runtime.cli import run_command

    if onnx_cli.is_model(args.file):  # ONNX frontend
        return onnx_cli.command_run(args)
    return run_command(args)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation)."""
    parser = argparse.ArgumentParser(prog="gradual", description="A gradual type checker for tensor programs.")
    parser.add_argument("--version", action="version", version=f"gradual {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_check = sub.add_parser("check", help="type-check programs; diagnostics on stderr")
    p_check.add_argument("files", nargs="+", metavar="FILE", help="program files (`-` for standard input)")
    p_check.add_argument("--format", choices=("text", "json"), default="text")
    p_check.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p_check.add_argument("--quiet", "-q", action="store_true", help="only diagnostics and the summary")
    p_check.set_defaults(handler=command_check)
    p_elab = sub.add_parser("elaborate", help="print the program with its types and inserted checks")
    p_elab.add_argument("file", metavar="FILE")
    p_elab.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p_elab.set_defaults(handler=command_elaborate)
    p_run = sub.add_parser("run", help="check, elaborate and run on NumPy")
    p_run.add_argument("file", metavar="FILE")
    p_run.add_argument("--entry", default="main", help="the definition to run (default: main)")
    p_run.add_argument("--arg", action="append", default=[], metavar="NAME=FILE.npy|VALUE",
                       help="an input from a .npy file, or a scalar value")
    p_run.add_argument("--shape", action="append", default=[], metavar="NAME=2x3",
                       help="a random input of this shape and the declared dtype")
    p_run.add_argument("--seed", type=int, default=0, help="seed for random inputs")
    p_run.add_argument("--format", choices=("text", "json"), default="text")
    p_run.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p_run.set_defaults(handler=command_run)
    onnx_cli.add_arguments(sub, p_check, p_elab, p_run)  # model options and `gradual import` (ONNX frontend)
    return parser


def _version() -> str:
    from . import __version__

    return __version__


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `gradual` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.handler(args)
    except UsageError as exc:
        print(f"gradual: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug in gradual: reported in one line, never a traceback
        print(f"gradual: internal error: {messages.internal_crash(exc)}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
