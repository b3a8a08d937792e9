"""`gradual run FILE [--entry main] [--arg NAME=FILE.npy|VALUE] [--shape NAME=2x3] [--format json]`.

Checks the program (type errors: diagnostics, exit 1), elaborates it, builds the inputs (bad or
missing inputs: exit 2), runs it and prints each output's type, e.g. `Tensor[(2, 5), float32]`
(or `{"outputs": [{"shape": [2, 5], "dtype": "float32"}]}`). A failed runtime check or an
operator that cannot run prints its diagnostic and exits 3; an internal error (an operator's
kernel disagreeing with its shape rule: a bug in gradual) exits 4.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from .. import messages
from ..api import CheckResult, check, elaborate
from ..diagnostics import INTERNAL_ERROR
from ..render import diagnostic_json, render_all, render_text
from .errors import InputError, ProgramRejected, RunFailure
from .interpreter import Interpreter
from .inputs import build_inputs
from .values import describe_value, flatten_outputs, is_function

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_CHECK_FAILED, EXIT_INTERNAL = 0, 1, 2, 3, 4


def run_command(args: argparse.Namespace) -> int:
    """The `gradual run` command (see the module docstring); returns the exit code."""
    from ..cli import UsageError, _console, read_program

    console = _console(args.color)
    try:
        loaded = read_program(args.file)
        if loaded.text is None:
            return _report_errors(args, [loaded.problem], console)
        result = check(loaded.text, args.file)
        if not result.ok:
            return _report_errors(args, result.diagnostics, console)
        if args.format != "json":
            render_all(result.warnings, console)
        interpreter, inputs = _prepare(result, args)
    except (UsageError, InputError, ProgramRejected) as exc:
        print(f"gradual: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _execute(args, interpreter, inputs, console)


def _execute(args: argparse.Namespace, interpreter: Interpreter, inputs: dict, console: Any) -> int:
    outputs, code = run_reporting(args, interpreter, inputs, console)
    if outputs is not None:
        _print_outputs(args, outputs)
    return code


def run_reporting(args: argparse.Namespace, interpreter: Interpreter, inputs: dict, console: Any) -> tuple:
    """Run the entry: (its flattened outputs, EXIT_OK), or (None, the exit code) after
    printing why it stopped (a failed check, exhausted resources, or a bug in gradual)."""
    try:
        return flatten_outputs(interpreter.run(args.entry, inputs)), EXIT_OK
    except RunFailure as failure:
        return None, _report_failure(args, failure, console)
    except (RecursionError, MemoryError) as exc:
        print(f"gradual: error: {messages.runtime_exhausted(exc)}", file=sys.stderr)
        return None, EXIT_CHECK_FAILED
    except Exception as exc:  # a bug in gradual: reported, never a traceback
        print(f"gradual: internal error: {messages.runtime_internal_crash(exc)}", file=sys.stderr)
        return None, EXIT_INTERNAL


def _prepare(result: CheckResult, args: argparse.Namespace) -> tuple[Interpreter, dict]:
    interpreter = Interpreter(elaborate(result), result.registry)
    params = interpreter.parameters(args.entry)
    return interpreter, build_inputs(params, args.arg, args.shape, args.seed)


def _report_errors(args: argparse.Namespace, diagnostics: list, console: Any) -> int:
    errors = [d for d in diagnostics if d.is_error]
    if args.format == "json":
        print(json.dumps({"error": _error_json(errors[0]), "diagnostics": [diagnostic_json(d) for d in diagnostics]}, indent=2))
    else:
        render_all(diagnostics, console)
    return EXIT_ERRORS


def _report_failure(args: argparse.Namespace, failure: RunFailure, console: Any) -> int:
    diag = failure.diagnostic()
    if args.format == "json":
        print(json.dumps({"error": _error_json(diag)}, indent=2))
    else:
        render_text(diag, console)
    return EXIT_INTERNAL if failure.code == INTERNAL_ERROR else EXIT_CHECK_FAILED


def _error_json(diag: Any) -> dict:
    return {"path": diag.span.source.path, **diagnostic_json(diag)}


def output_json(value: Any) -> dict:
    """One output as JSON: its shape and dtype (or its kind)."""
    if isinstance(value, np.ndarray):
        return {"shape": list(value.shape), "dtype": value.dtype.name}
    return {"kind": "function" if is_function(value) else type(value).__name__}


def _print_outputs(args: argparse.Namespace, outputs: list) -> None:
    if args.format == "json":
        print(json.dumps({"outputs": [output_json(o) for o in outputs]}, indent=2))
        return
    for output in outputs:
        sys.stdout.write(describe_value(output) + "\n")
