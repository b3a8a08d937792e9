"""The ONNX frontend on the command line: `gradual check | elaborate | run model.onnx` and
`gradual import model.onnx` (the model printed as a program in gradual's language).

gradual/cli.py hands a path ending in `.onnx` to this module. It imports the `onnx` package only
when a model is actually read, so the command line works without it; reading a model without it
is a usage error that says how to install it (`pip install 'gradual[onnx]'`).

Options for models (on check, elaborate, run and import): `--batch N` names the first dim of
every graph input (a symbolic batch); `--batch-reshapes` also lets Reshape targets that
hard-code the original batch size copy the batch. `gradual run` takes inputs by ONNX name or
parameter name, from `.npy` files, ONNX `TensorProto` files (`.pb`), literals or `--shape`; the
initializers are passed along.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional

from .. import messages

SUFFIXES = (".onnx",)


def is_model(path: str) -> bool:
    """Whether a command-line path names an ONNX model."""
    return path.lower().endswith(SUFFIXES)


def add_arguments(sub: Any, *parsers: argparse.ArgumentParser) -> None:
    """The model options on the given subcommands, and the `import` subcommand."""
    for p in parsers:
        _model_options(p)
    p_import = sub.add_parser("import", help="print an ONNX model as a program in gradual's language")
    p_import.add_argument("file", metavar="MODEL.onnx")
    p_import.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    _model_options(p_import)
    p_import.set_defaults(handler=command_import)


def _model_options(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("ONNX models")
    group.add_argument("--batch", metavar="NAME", default=None,
                       help="name the first dim of every graph input (a symbolic batch)")
    group.add_argument("--batch-reshapes", action="store_true",
                       help="with --batch: Reshape targets that hard-code the batch size copy it instead")


def _frontend() -> Any:
    from ..cli import UsageError

    try:
        import onnx  # noqa: F401  (the optional extra)
    except ImportError:
        raise UsageError(messages.onnx_not_installed()) from None
    from . import onnx as frontend

    return frontend


def import_file(path: str, args: argparse.Namespace) -> Any:
    """Import a model file (UsageError when it is missing or onnx is not installed); a file
    that is not a model gives an ImportedModel-like failure through LoadError."""
    from ..cli import UsageError

    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory, not a model file")
    frontend = _frontend()
    options = frontend.ImportOptions(batch=getattr(args, "batch", None),
                                     batch_reshapes=bool(getattr(args, "batch_reshapes", False)))
    return frontend.import_model(path, options)


def check_file(path: str, args: Optional[argparse.Namespace]) -> tuple:
    """(LoadedFile, CheckResult or None) for `gradual check` / `elaborate`, as cli.check_files
    gives for a program file."""
    from ..api import CheckResult
    from ..cli import LoadedFile

    frontend = _frontend()
    try:
        imported = import_file(path, args or argparse.Namespace())
    except frontend.LoadError as failure:
        return LoadedFile(path, None, failure.diagnostic), None
    if not imported.ok:
        return LoadedFile(path, None), CheckResult(None, None, list(imported.diagnostics))
    return LoadedFile(path, None), imported.check()


# gradual import ---------------------------------------------------------------------------------------
def command_import(args: argparse.Namespace) -> int:
    """`gradual import MODEL.onnx`: the program on stdout (import problems on stderr, exit 1)."""
    from ..cli import EXIT_ERRORS, EXIT_OK, _console
    from ..render import render_all

    frontend = _frontend()
    try:
        imported = import_file(args.file, args)
    except frontend.LoadError as failure:
        render_all([failure.diagnostic], _console(args.color))
        return EXIT_ERRORS
    if not imported.ok:
        render_all(imported.diagnostics, _console(args.color))
        return EXIT_ERRORS
    sys.stdout.write(_header(imported) + imported.text())
    return EXIT_OK


def _header(imported: Any) -> str:
    lines = [f"// {messages.onnx_import_header(imported.path, imported.opset, imported.node_count)}"]
    if imported.constants:
        lines.append(f"// {messages.onnx_constants_header(sorted(imported.constants))}")
    return "\n".join(lines) + "\n"


# gradual run ------------------------------------------------------------------------------------------------
def command_run(args: argparse.Namespace) -> int:
    """`gradual run MODEL.onnx`: import, check, elaborate, run; exit codes as for programs."""
    from ..cli import UsageError, _console
    from ..api import elaborate
    from ..runtime.cli import EXIT_USAGE, _report_errors
    from ..runtime.interpreter import Interpreter
    from ..runtime.errors import InputError, ProgramRejected

    console = _console(args.color)
    frontend = _frontend()
    try:
        imported = import_file(args.file, args)
        if not imported.ok:
            return _report_errors(args, list(imported.diagnostics), console)
        result = imported.check()
        if not result.ok:
            return _report_errors(args, result.diagnostics, console)
        interpreter = Interpreter(elaborate(result), result.registry)
        inputs = _model_inputs(imported, interpreter.parameters(args.entry), args)
    except frontend.LoadError as failure:
        return _report_errors(args, [failure.diagnostic], console)
    except (UsageError, InputError, ProgramRejected) as exc:
        print(f"gradual: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _execute(args, imported, interpreter, inputs, console)


def _model_inputs(imported: Any, params: list, args: argparse.Namespace) -> dict:
    """Inputs by parameter name: `--arg` / `--shape` for the graph inputs (ONNX or parameter
    names; `.pb` TensorProto files too), the initializers' values for the rest."""
    from ..runtime.inputs import build_inputs

    renamed = {spec.name: spec.param for spec in imported.inputs}
    graph = [(name, t) for name, t in params if name not in imported.constants]
    given, files = [], {}
    for text in args.arg:
        name, value = _assignment(text, renamed)
        if value.strip().endswith(".pb"):
            files[name] = _tensor_file(value.strip())
        else:
            given.append(f"{name}={value}")
    shapes = ["=".join(_assignment(text, renamed)) for text in args.shape]
    rest = [(name, t) for name, t in graph if name not in files]
    inputs = build_inputs(rest, given, shapes, args.seed)
    inputs.update(files)
    inputs.update(imported.constants)
    return inputs


def _assignment(text: str, renamed: dict) -> tuple:
    from ..runtime.inputs import split_assignment

    name, value = split_assignment(text)
    return renamed.get(name, name), value


def _tensor_file(path: str) -> Any:
    from onnx import TensorProto, numpy_helper

    from ..runtime.errors import InputError

    try:
        with open(path, "rb") as handle:
            tensor = TensorProto()
            tensor.ParseFromString(handle.read())
        return numpy_helper.to_array(tensor)
    except Exception as exc:  # noqa: BLE001 - I/O and protobuf errors alike
        raise InputError(messages.onnx_unreadable_tensor(path, str(exc) or type(exc).__name__)) from None


def _execute(args: argparse.Namespace, imported: Any, interpreter: Any, inputs: dict, console: Any) -> int:
    """Run and print each graph output by name (failures as `gradual run` reports them)."""
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
