"""The command line: `gradual check`, `elaborate`, `run`, `import`, `format` and `lsp` (spec §5).

A front end over `gradual.analysis`: every command loads its input there (a program, or a
model through the frontend registered for its file kind, whose options it offers) and only
decides what to print. Exit codes: 0 ok (warnings allowed), 1 type or parse errors, 2 usage
or I/O errors, 3 a runtime check failed (or an operator failed at runtime), 4 an internal
error (a bug in gradual). A traceback is never the answer to bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import json
import os
import sys
from collections import Counter
from typing import Any, Optional, Sequence

from gradual.analysis.inputs import Checked, Input, check_input
from gradual.cli import messages
from gradual.cli.common import (
    EXIT_ERRORS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    SHARED,
    UsageError,
    console,
    error_json,
    frontend_value,
    load_input,
)
from gradual.diagnostics.codes import INTERNAL_ERROR, USAGE_ERROR
from gradual.diagnostics.render import diagnostic_json, render_all, visible
from gradual.frontends import frontend_for, frontends
from gradual.infra.deep import run_deep
from gradual.syntax.printer import DEFAULT_WIDTH

#: the widths `gradual format --width` takes
FORMAT_WIDTHS = range(20, 1001)


class _BadArguments(Exception):
    """argparse found the command line wrong (`message`, from the (sub)`parser` that did)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser, self.message = parser, message


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors `main` hears of before argparse prints them and exits:
    `--format json` or `sarif` then prints its document too (JSON consumers got no stdout)."""

    def error(self, message: str) -> Any:
        raise _BadArguments(self, message)


def error_document(command: Optional[str], fmt: Optional[str], code: str, message: str) -> Optional[dict]:
    """What `--format json` or `sarif` prints when the command stops before its result (a
    usage or internal error), so a consumer of the format always gets a document: `run`'s
    `{"error": ...}` (spec §5), `check`'s document with no files, the error, and the error
    counted in its summary, or a SARIF log whose invocation failed. None for text."""
    if fmt == "sarif" and command == "check":
        from gradual.diagnostics.sarif import sarif_log

        return sarif_log([], failure=(code, message))
    if fmt != "json" or command not in ("check", "run"):
        return None
    if command == "check":
        return {"files": [], "summary": {"errors": 1, "warnings": 0, "checks": 0}, "error": error_json(code, message)}
    return {"error": error_json(code, message)}


def _print_error_document(command: Optional[str], fmt: Optional[str], code: str, message: str) -> None:
    document = error_document(command, fmt, code, message)
    if document is not None:
        print(json.dumps(document, indent=2))


def _requested(argv: Sequence[str]) -> tuple[Optional[str], Optional[str]]:
    """The command and `--format` of a command line argparse refused, read leniently (as
    argparse would: `--format=json`, an unambiguous prefix `--form json`)."""
    command = next((a for a in argv if a in ("check", "elaborate", "run", "import", "lsp")), None)
    fmt = None
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        if len(name) >= 4 and "--format".startswith(name):
            fmt = value if eq else (argv[i + 1] if i + 1 < len(argv) else None)
    return command, fmt


def check_files(paths: Sequence[str], args: Any = None) -> list[Checked]:
    """Load and check each file."""
    return [check_input(load_input(path, args)) for path in paths]


def check_available(paths: Sequence[str], args: Any = None) -> tuple[list[Checked], bool]:
    """Load and check each file that can be loaded; one that cannot (missing, a directory,
    unreadable) is an `input-error` of its own, so the others are still checked and a JSON
    or SARIF report still comes out. Whether any could not be loaded (exit 2)."""
    from gradual.syntax.source import Source, Span

    files, unavailable = [], False
    for index, path in enumerate(paths):
        try:
            if path == "-" and "-" in paths[:index]:  # it was read to its end the first time
                raise UsageError("-: standard input is read once; give `-` once")
            files.append(check_input(load_input(path, args)))
        except UsageError as exc:
            unavailable = True
            detail = str(exc).removeprefix(f"{path}: ")
            from gradual.checker import messages as checker_messages

            problem = checker_messages.input_unavailable(Span(Source("", path), 0, 0), detail)
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
        from gradual.diagnostics.sarif import sarif_log

        print(json.dumps(sarif_log(files), indent=2))
    else:
        _print_check(files, all_diags, args)
    return EXIT_USAGE if unavailable else EXIT_ERRORS if errors else EXIT_OK


def _check_json(files: list[Checked], all_diags: list) -> dict:
    return {"files": [_file_json(f) for f in files], "summary": _summary(files, all_diags)}


def _summary(files: list[Checked], all_diags: list) -> dict:
    return {
        "errors": sum(1 for d in all_diags if d.is_error),
        "warnings": sum(1 for d in all_diags if d.severity.value == "warning"),
        "checks": sum(f.result.check_count for f in files if f.result is not None),
    }


def _file_json(checked: Checked) -> dict:
    functions = {}
    if checked.result is not None:
        for name, fn in checked.result.functions.items():
            functions[name] = {"type": str(fn.type), "checks": fn.check_count}
    return {
        "path": checked.input.path,
        "diagnostics": [diagnostic_json(d) for d in checked.diagnostics],
        "functions": functions,
    }


def _print_check(files: list[Checked], all_diags: list, args: argparse.Namespace) -> None:
    if all_diags:
        render_all(all_diags, console(args.color))
    for checked in files:
        if checked.result is not None and not args.quiet:
            for name, fn in checked.result.functions.items():
                shown, hidden = _shown_type(checked, name, fn.type)
                weights = f"; {hidden:,} weight parameters not shown" if hidden else ""
                print(f"{visible(checked.input.path)}: @{name}: {shown}  ({_plural(fn.check_count, 'check')}{weights})")
    summary = _summary(files, all_diags)
    print(
        f"{_plural(summary['errors'], 'error')}, {_plural(summary['warnings'], 'warning')}, "
        f"{_plural(summary['checks'], 'runtime check')}"
    )


#: a model's summary line shows its weight parameters up to this many
SHOWN_WEIGHTS = 8


def _shown_type(checked: Checked, name: str, fn_type: Any) -> tuple:
    """A function's type as the summary line shows it, and how many parameters it leaves out:
    a model's weights, passed as parameters after its inputs, are left out when there are more
    than SHOWN_WEIGHTS of them (a transformer's line listed 2,400); `--format json` keeps the
    whole type."""
    model = checked.input.model
    params = getattr(fn_type, "params", ())
    if model is None or len(model.constants) <= SHOWN_WEIGHTS:
        return fn_type, 0
    names = _entry_params(model, name)
    if len(names) != len(params):
        return fn_type, 0
    kept = tuple(t for n, t in zip(names, params) if n not in model.constants)
    return fn_type.with_parts(kept, fn_type.ret), len(params) - len(kept)


def _entry_params(model: Any, name: str) -> list:
    """The parameter names of a model's definition `name` (none when it has no such one)."""
    for definition in getattr(model.module, "defs", ()):
        if definition.name == name:
            return [p.var.name for p in definition.params]
    return []


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


# gradual elaborate / import / lsp ------------------------------------------------------------
def command_elaborate(args: argparse.Namespace) -> int:
    """`gradual elaborate`: the program with types and inserted checks, on stdout."""
    from gradual.checker.driver import elaborate_text

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
    from gradual.cli.run import command_run as run

    return run(args)


def command_format(args: argparse.Namespace) -> int:
    """`gradual format`: programs formatted in place (see cli/format.py)."""
    from gradual.cli.format import command_format as format_files

    return format_files(args, lambda: console(args.color))


def command_ops(args: argparse.Namespace) -> int:
    """`gradual ops`: the operators and where they live (see cli/ops.py)."""
    from gradual.cli.ops import command_ops as ops

    return ops(args)


def command_lsp(args: argparse.Namespace) -> int:
    """`gradual lsp`: the language server on stdin/stdout."""
    from gradual.lsp import serve

    return serve()


# the parser ------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation)."""
    parser = _Parser(prog="gradual", description="A gradual type checker for tensor programs.")
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
    p_run.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=FILE.npy|VALUE",
        help="an input from a .npy file (or a model format's tensor file), or a scalar value",
    )
    p_run.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=2x3",
        help="a random input of this shape and the declared dtype",
    )
    p_run.add_argument("--seed", type=_seed, default=0, help="seed for random inputs (a whole number, 0 or more)")
    p_run.add_argument("--format", choices=("text", "json"), default="text")
    p_run.set_defaults(handler=command_run)
    p_import = sub.add_parser("import", help="print a model as a program in gradual's language")
    p_import.add_argument("file", metavar="MODEL")
    p_import.set_defaults(handler=command_import)
    for p in (p_check, p_elab, p_run, p_import):
        p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
        _add_frontend_options(p)
    p_format = sub.add_parser("format", help="format programs in place (`--check` for CI)")
    p_format.add_argument("files", nargs="+", metavar="FILE", help="programs or directories (`-` for standard input)")
    p_format.add_argument("--check", action="store_true", help="write nothing; list the files that would change")
    p_format.add_argument("--diff", action="store_true", help="write nothing; print the changes as a unified diff")
    p_format.add_argument("--width", type=_width, default=DEFAULT_WIDTH, metavar="N", help="columns (default 100)")
    p_format.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p_format.set_defaults(handler=command_format)
    p_ops = sub.add_parser("ops", help="list the operators and their signatures (`--where`: where each is defined)")
    p_ops.add_argument("names", nargs="*", metavar="NAME", help="operators to show (default: every one)")
    p_ops.add_argument("--where", action="store_true", help="where each operator's declaration, rule and kernel are")
    p_ops.set_defaults(handler=command_ops)
    p_lsp = sub.add_parser("lsp", help="run the language server on stdin/stdout (for editors)")
    p_lsp.add_argument("--stdio", action="store_true", help="accepted for editors that pass it (stdio is the default)")
    p_lsp.set_defaults(handler=command_lsp)
    return parser


def _width(text: str) -> int:
    """`--width`: a whole number of columns, 20 to 1,000."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value not in FORMAT_WIDTHS:
        raise argparse.ArgumentTypeError(messages.format_bad_width(text))
    return value


def _seed(text: str) -> int:
    """`--seed`: NumPy's generator takes a whole number, 0 or more (a negative one failed as
    an internal error after the program was checked)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(messages.runtime_bad_seed(text))
    return value


def _add_frontend_options(p: argparse.ArgumentParser) -> None:
    """Each registered frontend's options, in a group named after it; an option several
    frontends take (`--strict-dims`), once, in a group of its own. An option the command has
    of its own (`run --arg`) is not added again: the command's option carries the frontend's
    values too (`common.SHARED` tells them apart), and its help says so."""
    registered = frontends()
    counts = Counter(option.name for frontend in registered for option in frontend.options)
    shared = {option.name: option for frontend in registered for option in frontend.options if counts[option.name] > 1}
    own = p._option_string_actions  # argparse's own table of the options the parser has
    groups = [(f"{f.name} models ({f.kinds})", [o for o in f.options if o.name not in shared]) for f in registered]
    groups.append(("models of every format", list(shared.values())))
    for title, options in groups:
        kept = [o for o in options if f"--{o.name}" not in own]
        for option in options:
            if option not in kept and own[f"--{option.name}"].help:
                action = own[f"--{option.name}"]
                action.help = f"{action.help}; for {title}: {option.help}"
        if kept:
            group = p.add_argument_group(title)
            for option in kept:
                _add_option(group, option)


def _add_option(group: Any, option: Any) -> None:
    if option.flag:
        group.add_argument(f"--{option.name}", dest=option.dest, action="store_true", help=option.help)
    else:
        group.add_argument(
            f"--{option.name}",
            dest=option.dest,
            metavar=option.metavar,
            default=None,
            action="append" if option.repeated else "store",
            help=option.help,
            type=_option_parser(option),
        )


def _option_parser(option: Any) -> Any:
    """argparse's `type` for a frontend option: its `parse`, whose ValueError is argparse's
    usage error (`argument --batch: ...`)."""
    if option.parse is None:
        return None

    def parse(text: str) -> Any:
        try:
            return option.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def _version() -> str:
    from gradual.infra.version import __version__

    return __version__


def main(argv: Optional[Sequence[str]] = None, exiting: bool = False) -> int:
    """Entry point of the `gradual` command (`exiting`: the process ends right after it)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _BadArguments as bad:  # argparse's message and exit (2), after the document
        _print_error_document(*_requested(argv), USAGE_ERROR, bad.message)
        argparse.ArgumentParser.error(bad.parser, bad.message)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        if args.command == "lsp":  # a server: it stays on the main thread (its event loop)
            return args.handler(args)
        if exiting:  # the process's own streams (a caller of `main` keeps its streams as they are)
            if sys.stdout is None:  # `gradual check f.rly >&-`: every output would be lost
                raise UsageError("standard output is closed: nothing could be written")
            _encodable_output()
        _warn_unused_options(args)
        # types and programs nest as deep as their source: printing recurses over them too
        with _collector_paused(args.command, exiting):
            return run_deep(args.handler, args)
    except UsageError as exc:
        _print_error_document(args.command, getattr(args, "format", None), USAGE_ERROR, str(exc))
        print(f"gradual: error: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()
    except Exception as exc:  # noqa: BLE001 - a bug in gradual: reported in one line, never a traceback
        # writing the output failed (loading reports its own I/O errors, as input-errors)
        if isinstance(exc, OSError) and exc.errno in _WRITE_ERRNOS:
            _say(f"gradual: error: cannot write the output ({exc.strerror or exc})")
            return EXIT_USAGE
        from gradual.checker import messages as checker_messages

        _print_error_document(
            args.command, getattr(args, "format", None), INTERNAL_ERROR, checker_messages.internal_crash(exc)
        )
        print(f"gradual: internal error: {checker_messages.internal_crash(exc)}", file=sys.stderr)
        return EXIT_INTERNAL


def _warn_unused_options(args: argparse.Namespace) -> None:
    """A warning on stderr for each frontend option given where no input is of a kind that
    takes it (`--batch N prog.rly` was silently ignored), or without the option it works with
    (`--batch-reshapes` without `--batch`). Not an error: a pre-commit hook's
    fixed arguments meet whichever files are staged, models or not (docs/design.md)."""
    paths = getattr(args, "files", None) or [getattr(args, "file", None)]
    kinds = [frontend_for(path) for path in paths if path is not None]
    for frontend in frontends():
        for option in frontend.options:
            if frontend_value(args, option) in (None, False):
                continue
            if (args.command, option.name) in SHARED:
                continue  # the command reads (or refuses) what no frontend takes
            if option.needs is not None and getattr(args, option.needs.replace("-", "_"), None) in (None, False):
                _say(f"gradual: warning: {visible(messages.option_needs(option.name, option.needs))}")
                continue
            if any(kind is not None and option in kind.options or kind is None and option.programs for kind in kinds):
                continue
            takers = [f"{f.name} models ({f.kinds})" for f in frontends() if option in f.options]
            _say(f"gradual: warning: {visible(messages.option_not_used(option.name, takers))}")
            setattr(args, option.dest, None if not option.flag else False)  # warned once


#: what writing stdout fails with when the disk is full, quota exceeded, the file too big,
#: the device failed or the descriptor is gone (`> /dev/full`: an internal error, exit 4)
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF})


def _say(text: str) -> None:
    """A line on stderr, if there is a stderr to write it to."""
    try:
        print(text, file=sys.stderr)
    except (OSError, ValueError, AttributeError):
        pass


def _encodable_output() -> None:
    """Text the output's encoding cannot hold (a file name `modèle.rly` or `中.rly` on an
    ASCII or cp1252 stdout, a name that is not UTF-8) is written as backslash escapes: it was
    a UnicodeEncodeError, reported as an internal error after the whole check had run."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "strict") == "strict":
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream that cannot change now: leave it
                pass


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
    from gradual.infra.deep import gc_paused

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
        if stream is None or stream.closed:  # closed by the shell (`>&-`), or on purpose (the
            continue  # language server closes stdout on `exit`)
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to say
            code = code or EXIT_USAGE
    os._exit(code)
