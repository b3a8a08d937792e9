"""The torch.export frontend on the command line: `gradual check | elaborate | run model.pt2`
and `gradual import model.pt2` (the program printed in gradual's language).

gradual/cli.py hands a path ending in `.pt2` to this module (beside the ONNX dispatch). Nothing
here imports torch: archives are read with the standard library. `gradual run` takes the user's
inputs by their graph names (`--arg x=x.npy`, `--shape x=2x3x16x16`); the parameters, buffers
and constants come from the archive.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

SUFFIXES = (".pt2",)


def is_model(path: str) -> bool:
    """Whether a command-line path names a torch.export archive."""
    return path.lower().endswith(SUFFIXES)


def import_file(path: str) -> Any:
    """Import an archive (UsageError when it is missing); LoadError when it is not one."""
    from ..cli import UsageError
    from . import torch_export

    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory, not a model file")
    return torch_export.import_archive(path)


def check_file(path: str, args: Any = None) -> tuple:
    """(LoadedFile, CheckResult or None) for `gradual check` / `elaborate`."""
    from ..api import CheckResult
    from ..cli import LoadedFile
    from . import torch_export

    try:
        imported = import_file(path)
    except torch_export.LoadError as failure:
        return LoadedFile(path, None, failure.diagnostic), None
    if not imported.ok:
        return LoadedFile(path, None), CheckResult(None, None, list(imported.diagnostics))
    return LoadedFile(path, None), imported.check()


def hook_import(sub: Any) -> None:
    """`gradual import` reads archives too (the subcommand is the ONNX frontend's)."""
    parser = sub.choices.get("import")
    if parser is None:
        return
    other = parser.get_default("handler")

    def dispatch(args: argparse.Namespace) -> int:
        return command_import(args) if is_model(args.file) else other(args)

    parser.set_defaults(handler=dispatch)


def command_import(args: argparse.Namespace) -> int:
    """`gradual import MODEL.pt2`: the program on stdout (import problems on stderr, exit 1)."""
    from ..cli import EXIT_ERRORS, EXIT_OK, _console
    from ..render import render_all
    from . import torch_export

    try:
        imported = import_file(args.file)
    except torch_export.LoadError as failure:
        render_all([failure.diagnostic], _console(args.color))
        return EXIT_ERRORS
    if not imported.ok:
        render_all(imported.diagnostics, _console(args.color))
        return EXIT_ERRORS
    sys.stdout.write("".join(f"// {line}\n" for line in imported.header) + imported.text())
    return EXIT_OK


def command_run(args: argparse.Namespace) -> int:
    """`gradual run MODEL.pt2`: import, check, elaborate, run; exit codes as for programs."""
    from ..api import elaborate
    from ..cli import UsageError, _console
    from ..runtime.cli import EXIT_USAGE, _report_errors
    from ..runtime.errors import InputError, ProgramRejected
    from ..runtime.interpreter import Interpreter
    from . import torch_export
    from .torch_export.archive import ArchiveError

    console = _console(args.color)
    try:
        imported = import_file(args.file)
        if not imported.ok:
            return _report_errors(args, list(imported.diagnostics), console)
        result = imported.check()
        if not result.ok:
            return _report_errors(args, result.diagnostics, console)
        interpreter = Interpreter(elaborate(result), result.registry)
        inputs = _inputs(imported, interpreter.parameters(args.entry), args)
    except torch_export.LoadError as failure:
        return _report_errors(args, [failure.diagnostic], console)
    except (UsageError, InputError, ProgramRejected, ArchiveError) as exc:
        print(f"gradual: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _execute(args, imported, interpreter, inputs, console)


def _inputs(imported: Any, params: list, args: argparse.Namespace) -> dict:
    """`--arg` / `--shape` for the user's inputs (by graph name), the archive's state for the rest."""
    from ..runtime.inputs import build_inputs, split_assignment

    renamed = {i.name: i.param for i in imported.inputs}
    state = imported.state

    def by_param(text: str) -> str:
        name, value = split_assignment(text)
        return f"{renamed.get(name, name)}={value}"

    user = [(name, t) for name, t in params if name not in state]
    inputs = build_inputs(user, [by_param(t) for t in args.arg], [by_param(t) for t in args.shape], args.seed)
    inputs.update(imported.state_values())
    return inputs


def _execute(args: argparse.Namespace, imported: Any, interpreter: Any, inputs: dict, console: Any) -> int:
    """Run and print each user output by its graph name."""
    from ..runtime.cli import EXIT_OK, output_json, run_reporting
    from ..runtime.values import describe_value

    outputs, code = run_reporting(args, interpreter, inputs, console)
    if outputs is None:
        return code
    names = list(imported.outputs)
    if args.format == "json":
        print(json.dumps({"outputs": [{"name": n, **output_json(o)} for n, o in zip(names, outputs)]}, indent=2))
    else:
        for name, output in zip(names, outputs):
            print(f"{name}: {describe_value(output)}")
    return EXIT_OK
