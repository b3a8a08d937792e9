"""The command line: `gradual check`, `elaborate`, `run`, `import` and `lsp` (SPEC 5).

A front end over `gradual.analysis`: every command loads its input there (a program, or a
model through the frontend registered for its file kind, whose options it offers) and only
decides what to print. Exit codes: 0 ok (warnings allowed), 1 type or parse errors, 2 usage
or I/O errors, 3 a runtime check failed (or an operator failed at runtime), 4 an internal
error (a bug in gradual). A traceback is never the answer to bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from collections import Counter
from typing import Any, Optional, Sequence

from .. import messages
from ..analysis.inputs import Checked, Input, Unavailable, check_input, load
from ..api import elaborate_text, run_deep
from ..frontends import frontends
from ..render import diagnostic_json, render_all

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_CHECK_FAILED, EXIT_INTERNAL = 0, 1, 2, 3, 4


class UsageError(Exception):
    """Bad command-line usage or an unusable input (exit 2)."""


def console(color: str) -> Any:
    """A rich console on stderr (rich is imported only when there is something to draw)."""
    from rich.console import Console

    force = {"always": True, "never": False}.get(color)
    return Console(stderr=True, highlight=False, force_terminal=force, no_color=color == "never",
                   width=200 if force is False else None, soft_wrap=True)


def frontend_options(args: Any) -> dict:
    """The registered frontends' options as given on the command line."""
    return {option.dest: getattr(args, option.dest, None) for frontend in frontends() for option in frontend.options}


def load_input(path: str, args: Any) -> Any:
    """Load a program or model (UsageError when it cannot be loaded at all)."""
    try:
        return load(path, frontend_options(args))
    except Unavailable as exc:
        raise UsageError(str(exc)) from None


def check_files(paths: Sequence[str], args: Any = None) -> list[Checked]:
    """Load and check each file."""
    return [check_input(load_input(path, args)) for path in paths]


def check_available(paths: Sequence[str], args: Any = None) -> tuple[list[Checked], bool]:
    """Load and check each file that can be loaded; one that cannot (missing, a directory,
    unreadable) is an `input-error` of its own, so the others are still checked and a JSON
    or SARIF report still comes out. Whether any could not be loaded (exit 2)."""
    from ..syntax.source import Source, Span

    files, unavailable = [], False
    for path in paths:
        try:
            files.append(check_input(load_input(path, args)))
        except UsageError as exc:
            unavailable = True
            detail = str(exc).removeprefix(f"{path}: ")
            problem = messages.input_unavailable(Span(Source("", path), 0, 0), detail)
            files.append(Checked(Input(path, problem=problem), None, [problem]))
    return files, unavailable


# gradual check -------------------------------------------------------------------------------
def command_check(args: argparse.Namespace) -> int:
    """`gradual check`: diagnostics on stderr; function types and a summary on stdout (or
    one JSON or SARIF document on stdout, even when an input cannot be loaded: exit 2)."""
    files, unavailable = check_available(args.files, args)
    all_diags = [d for f in files for d in f.diagnostics]
    errors = sum(1 for d in all_diags if d.is_error)
    if args.format == "json":
        print(json.dumps(_check_json(files, all_diags), indent=2))
    elif args.format == "sarif":
        from ..sarif import sarif_log

        print(json.dumps(sarif_log(files), indent=2))
    else:
        _print_check(files, all_diags, args)
    return EXIT_USAGE if unavailable else EXIT_ERRORS if errors else EXIT_OK


def _check_json(files: list[Checked], all_diags: list) -> dict:
    return {"files": [_file_json(f) for f in files], "summary": _summary(files, all_diags)}


def _summary(files: list[Checked], all_diags: list) -> dict:
    return {"errors": sum(1 for d in all_diags if d.is_error),
            "warnings": sum(1 for d in all_diags if d.severity.value == "warning"),
            "checks": sum(f.result.check_count for f in files if f.result is not None)}


def _file_json(checked: Checked) -> dict:
    functions = {}
    if checked.result is not None:
        for name, fn in checked.result.functions.items():
            functions[name] = {"type": str(fn.type), "checks": fn.check_count}
    return {"path": checked.input.path, "diagnostics": [diagnostic_json(d) for d in checked.diagnostics],
            "functions": functions}


def _print_check(files: list[Checked], all_diags: list, args: argparse.Namespace) -> None:
    if all_diags:
        render_all(all_diags, console(args.color))
    for checked in files:
        if checked.result is not None and not args.quiet:
            for name, fn in checked.result.functions.items():
                print(f"{checked.input.path}: @{name}: {fn.type}  ({_plural(fn.check_count, 'check')})")
    summary = _summary(files, all_diags)
    print(f"{_plural(summary['errors'], 'error')}, {_plural(summary['warnings'], 'warning')}, "
          f"{_plural(summary['checks'], 'runtime check')}")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


# gradual elaborate / import / lsp ------------------------------------------------------------
def command_elaborate(args: argparse.Namespace) -> int:
    """`gradual elaborate`: the program with types and inserted checks, on stdout."""
    (checked,) = check_files([args.file], args)
    render_all(checked.diagnostics, console(args.color))
    if any(d.is_error for d in checked.diagnostics) or checked.result is None or checked.result.module is None:
        return EXIT_ERRORS
    sys.stdout.write(elaborate_text(checked.result))
    return EXIT_OK


def command_import(args: argparse.Namespace) -> int:
    """`gradual import MODEL`: the model as a program in gradual's language, on stdout
    (import problems on stderr, exit 1)."""
    loaded = load_input(args.file, args)
    model = loaded.model
    if model is None:
        raise UsageError(f"{args.file}: not a model file (no frontend reads this kind of file)")
    if not model.ok:
        render_all(model.diagnostics, console(args.color))
        return EXIT_ERRORS
    sys.stdout.write(model.text())
    return EXIT_OK


def command_run(args: argparse.Namespace) -> int:
    """`gradual run`: check, elaborate, run on NumPy (see cli/run.py)."""
    from .run import command_run as run

    return run(args)


def command_lsp(args: argparse.Namespace) -> int:
    """`gradual lsp`: the language server on stdin/stdout."""
    from ..lsp import serve

    return serve()


# the parser ------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation)."""
    parser = argparse.ArgumentParser(prog="gradual", description="A gradual type checker for tensor programs.")
    parser.add_argument("--version", action="version", version=f"gradual {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_check = sub.add_parser("check", help="type-check programs; diagnostics on stderr")
    p_check.add_argument("files", nargs="+", metavar="FILE", help="program or model files (`-` for standard input)")
    p_check.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p_check.add_argument("--quiet", "-q", action="store_true", help="only diagnostics and the summary")
    p_check.set_defaults(handler=command_check)
    p_elab = sub.add_parser("elaborate", help="print the program with its types and inserted checks")
    p_elab.add_argument("file", metavar="FILE")
    p_elab.set_defaults(handler=command_elaborate)
    p_run = sub.add_parser("run", help="check, elaborate and run on NumPy")
    p_run.add_argument("file", metavar="FILE")
    p_run.add_argument("--entry", default="main", help="the definition to run (default: main)")
    p_run.add_argument("--arg", action="append", default=[], metavar="NAME=FILE.npy|VALUE",
                       help="an input from a .npy file (or a model format's tensor file), or a scalar value")
    p_run.add_argument("--shape", action="append", default=[], metavar="NAME=2x3",
                       help="a random input of this shape and the declared dtype")
    p_run.add_argument("--seed", type=seed, default=0, help="seed for random inputs (an integer, at least 0)")
    p_run.add_argument("--format", choices=("text", "json"), default="text")
    p_run.set_defaults(handler=command_run)
    p_import = sub.add_parser("import", help="print a model as a program in gradual's language")
    p_import.add_argument("file", metavar="MODEL")
    p_import.set_defaults(handler=command_import)
    for p in (p_check, p_elab, p_run, p_import):
        p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
        _add_frontend_options(p)
    p_lsp = sub.add_parser("lsp", help="run the language server on stdin/stdout (for editors)")
    p_lsp.add_argument("--stdio", action="store_true", help="accepted for editors that pass it (stdio is the default)")
    p_lsp.set_defaults(handler=command_lsp)
    return parser


def _add_frontend_options(p: argparse.ArgumentParser) -> None:
    """Each registered frontend's options, in a group named after it; an option several
    frontends take (`--strict-dims`), once, in a group of its own."""
    registered = frontends()
    counts = Counter(option.name for frontend in registered for option in frontend.options)
    shared = {option.name: option for frontend in registered for option in frontend.options if counts[option.name] > 1}
    groups = [(f"{f.name} models ({', '.join(f.suffixes)})", [o for o in f.options if o.name not in shared])
              for f in registered]
    groups.append(("models of every format", list(shared.values())))
    for title, options in groups:
        if options:
            group = p.add_argument_group(title)
            for option in options:
                _add_option(group, option)


def _add_option(group: Any, option: Any) -> None:
    if option.flag:
        group.add_argument(f"--{option.name}", dest=option.dest, action="store_true", help=option.help)
    else:
        group.add_argument(f"--{option.name}", dest=option.dest, metavar=option.metavar, default=None,
                           help=option.help)


def _version() -> str:
    from .. import __version__

    return __version__


def seed(text: str) -> int:
    """`--seed`: an integer of at least 0, as NumPy's generators take (a negative one was an
    internal error, exit 4); anything else is a usage error, exit 2."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid seed: {text!r} (an integer, at least 0)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid seed: {value} (an integer, at least 0)")
    return value


def main(argv: Optional[Sequence[str]] = None, exiting: bool = False) -> int:
    """Entry point of the `gradual` command (`exiting`: the process ends right after it)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        if args.command == "lsp":  # a server: it stays on the main thread (its event loop)
            return args.handler(args)
        # types and programs nest as deep as their source: printing recurses over them too
        with _collector_paused(args.command, exiting):
            return run_deep(args.handler, args)
    except UsageError as exc:
        print(f"gradual: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()
    except Exception as exc:  # a bug in gradual: reported in one line, never a traceback
        print(f"gradual: internal error: {messages.internal_crash(exc)}", file=sys.stderr)
        return EXIT_INTERNAL


EXIT_BROKEN_PIPE = 141  # what a shell reports for a command stopped by SIGPIPE


def _reader_gone() -> int:
    """The reader of the output left (`gradual check f | head -1`): stop quietly, as Unix tools
    do, with stdout pointed at /dev/null so that the interpreter's last flush does not fail too."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (an embedding caller): nothing to redirect
        pass
    return EXIT_BROKEN_PIPE


def _collector_paused(command: str, exiting: bool = False) -> Any:
    """The cyclic garbage collector paused for a whole command that only loads, checks and
    prints: everything it makes stays alive until the process ends, so each collection
    would traverse the whole program for nothing (a 100,000-node model: seconds). `run`
    pauses it only while checking (the library does), since a running program makes garbage.
    When the process ends with the command (`exiting`), the collector stays paused."""
    from ..api import gc_paused

    if command == "run":
        return contextlib.nullcontext()
    if exiting:
        gc.disable()
        return contextlib.nullcontext()
    return gc_paused()


def entry() -> None:
    """The `gradual` command as a process: `main`, then exit at once, without tearing down
    the interpreter (freeing a large checked program object by object, and the final
    collection, cost as much as a fifth of checking it). Output is flushed first. A command
    that pauses the collector leaves it paused when it ends: the first collection after it
    resumed would walk every object the command made (0.17 s of a 100,000-node model's 1.25 s)
    just before the process exits."""
    code = main(exiting=True)
    for stream in (sys.stdout, sys.stderr):
        if stream.closed:  # closed on purpose (the language server closes stdout on `exit`)
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to say
            code = code or EXIT_USAGE
    os._exit(code)
