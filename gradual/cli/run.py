"""`gradual run FILE [--entry main] [--arg NAME=FILE.npy|VALUE] [--shape NAME=2x3] [--format json]`.

Loads the program or model (gradual.analysis), checks it (type errors: diagnostics, exit 1),
elaborates it, builds the inputs (bad or missing inputs: exit 2), runs it on NumPy and prints
each output's type, e.g. `Tensor[(2, 5), float32]` (or `{"outputs": [{"shape": [2, 5],
"dtype": "float32"}]}`); a model's outputs are printed by name. A model's inputs may be
named as in the model, may come from tensor files of its format (ONNX `.pb`), and the
constants its import turned into parameters are passed along. A failed runtime check or an
operator that cannot run prints its diagnostic and exits 3; an internal error (an operator's
kernel disagreeing with its shape rule: a bug in gradual) exits 4.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Optional

from gradual.analysis.inputs import check_input
from gradual.checker.driver import elaborate
from gradual.cli.common import (
    EXIT_CHECK_FAILED,
    EXIT_ERRORS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    command_values,
    console,
    error_json,
    load_input,
)
from gradual.diagnostics.codes import INTERNAL_ERROR, RUNTIME_ERROR, USAGE_ERROR
from gradual.diagnostics.render import diagnostic_json, render_all, render_text, visible
from gradual.frontends import LoadedModel
from gradual.runtime import messages


def command_run(args: argparse.Namespace) -> int:
    """The `gradual run` command (see the module docstring); returns the exit code."""
    from gradual.runtime.errors import InputError, ProgramRejected
    from gradual.runtime.interpreter import Interpreter

    out = console(args.color)
    try:
        loaded = load_input(args.file, args)
        checked = check_input(loaded)
        if any(d.is_error for d in checked.diagnostics) or checked.result is None:
            return _report_errors(args, checked.diagnostics, out)
        args.warnings = [d for d in checked.diagnostics if not d.is_error]
        if args.format != "json":
            render_all(args.warnings, out)
        result = checked.result
        interpreter = Interpreter(elaborate(result), result.registry)
        inputs = _inputs(loaded.model, interpreter.parameters(args.entry), args)
    except (UsageError, InputError, ProgramRejected) as exc:
        _error_document(args, USAGE_ERROR, str(exc))
        print(f"gradual: error: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    notes = loaded.model.notes if loaded.model is not None else None
    outputs, code = run_reporting(args, interpreter, inputs, out, notes)
    if outputs is None:
        return code
    reference = None
    if loaded.model is not None and loaded.model.reference is not None:
        reference = compare_with_reference(args.file, loaded.model.reference, inputs, outputs)
    _print_outputs(args, outputs, loaded.model.outputs if loaded.model is not None else None, reference)
    if reference is not None and not reference["agrees"]:
        print(f"gradual: error: {visible(reference['message'])}", file=sys.stderr)
        return EXIT_CHECK_FAILED
    return code


def compare_with_reference(path: str, reference: Callable[[dict], list], inputs: dict, outputs: list) -> dict:
    """The model's own framework run on the same inputs, held against gradual's outputs:
    `{"framework", "agrees", "message"}` (and `"largest_difference"` where every output
    compared); floats within `_tolerance`, other dtypes equal."""
    import numpy as np

    from gradual.frontends import frontend_for

    frontend = frontend_for(path)
    framework = frontend.name if frontend is not None else "the framework"
    try:
        theirs = reference(dict(inputs))
    except Exception as exc:  # noqa: BLE001 - the framework's own failure on these inputs is reported
        return {"framework": framework, "agrees": False, "message": messages.reference_failed(framework, exc)}
    if len(theirs) != len(outputs):
        message = messages.reference_count(framework, len(outputs), len(theirs))
        return {"framework": framework, "agrees": False, "message": message}
    largest = 0.0
    for index, (ours, want) in enumerate(zip(outputs, theirs)):
        ours, want = np.asarray(ours), np.asarray(want)
        if ours.shape != want.shape or ours.dtype != want.dtype:
            detail = f"{ours.dtype.name}{list(ours.shape)} against {want.dtype.name}{list(want.shape)}"
            message = messages.reference_differs(framework, index, detail)
            return {"framework": framework, "agrees": False, "message": message}
        if ours.size == 0:
            continue
        if ours.dtype.kind in "fc":
            same_nan = np.isnan(ours) & np.isnan(want)
            gap = np.where(same_nan | (ours == want), 0.0, np.abs(ours.astype(np.float64) - want.astype(np.float64)))
            bad = ~(gap <= _tolerance(want))
            largest = max(largest, float(np.nanmax(np.where(np.isnan(gap), np.inf, gap))))
        else:
            bad = ours != want
            largest = max(largest, 0.0 if not bad.any() else float("inf"))
        if bad.any():
            at = tuple(int(i) for i in np.argwhere(bad)[0])
            detail = f"at {list(at)} gradual gives {ours[at]!r}, {framework} gives {want[at]!r}"
            return {
                "framework": framework,
                "agrees": False,
                "message": messages.reference_differs(framework, index, detail),
            }
    message = messages.reference_agrees(framework, len(outputs), largest)
    return {"framework": framework, "agrees": True, "message": message, "largest_difference": largest}


def _inputs(model: Optional[LoadedModel], params: list, args: argparse.Namespace) -> dict:
    """Inputs by parameter name from `--arg` and `--shape` (for a model: by input or
    parameter name, from its tensor files too, plus its constants)."""
    from gradual.runtime.inputs import build_inputs

    values = command_values(args, "arg")
    _given_once(values, args.shape, model.inputs if model is not None else {})
    if model is None:
        return build_inputs(params, values, args.shape, args.seed)
    graph = [(name, t) for name, t in params if name not in model.constants]
    given, files = [], {}
    for text in values:
        name, value = _assignment(text, model.inputs)
        if model.read_tensor is not None and value.strip().lower().endswith(
            tuple(s.lower() for s in model.tensor_suffixes)
        ):
            files[name] = model.read_tensor(value.strip())
        else:
            given.append(f"{name}={value}")
    shapes = ["=".join(_assignment(text, model.inputs)) for text in args.shape]
    rest = [(name, t) for name, t in graph if name not in files]
    inputs = build_inputs(rest, given, shapes, args.seed)
    inputs.update(files)
    inputs.update(model.constants)
    return inputs


def _given_once(values: list, shapes: list, renamed: dict) -> None:
    """A usage error when `--arg` and `--shape` give one input more than once (the last one
    silently won)."""
    given: dict = {}
    for flag, texts in (("--arg", values), ("--shape", shapes)):
        for text in texts:
            given.setdefault(_assignment(text, renamed)[0], []).append(f"{flag} {text}")
    for name, where in given.items():
        if len(where) > 1:
            raise UsageError(messages.runtime_input_repeated(name, where))


def _assignment(text: str, renamed: dict) -> tuple:
    from gradual.runtime.inputs import split_assignment

    name, value = split_assignment(text)
    return renamed.get(name, name), value


def run_reporting(
    args: argparse.Namespace, interpreter: Any, inputs: dict, out: Any, notes: Optional[Callable] = None
) -> tuple:
    """Run the entry: (its flattened outputs, EXIT_OK), or (None, the exit code) after
    printing why it stopped (a failed check, exhausted resources, or a bug in gradual);
    `notes`: a model's notes for the failure's diagnostic."""
    from gradual.runtime.errors import RunFailure
    from gradual.runtime.values import flatten_outputs

    try:
        return flatten_outputs(interpreter.run(args.entry, inputs)), EXIT_OK
    except RunFailure as failure:
        return None, _report_failure(args, failure, out, notes)
    except (RecursionError, MemoryError) as exc:
        _error_document(args, RUNTIME_ERROR, messages.runtime_exhausted(exc))
        print(f"gradual: error: {messages.runtime_exhausted(exc)}", file=sys.stderr)
        return None, EXIT_CHECK_FAILED
    except Exception as exc:  # noqa: BLE001 - a bug in gradual: reported, never a traceback
        _error_document(args, INTERNAL_ERROR, messages.runtime_internal_crash(exc))
        print(f"gradual: internal error: {messages.runtime_internal_crash(exc)}", file=sys.stderr)
        return None, EXIT_INTERNAL


def _error_document(args: argparse.Namespace, code: str, message: str) -> None:
    """`--format json`: the error that stopped the run as `{"error": ...}` on stdout (with the
    check's warnings), as a failed check's is (stdout was empty: JSON consumers got nothing)."""
    if getattr(args, "format", None) == "json":
        print(json.dumps({"error": error_json(code, message), **_warnings_json(args)}, indent=2))


def _report_errors(args: argparse.Namespace, diagnostics: list, out: Any) -> int:
    errors = [d for d in diagnostics if d.is_error]
    if args.format == "json":
        print(
            json.dumps(
                {"error": _error_json(errors[0]), "diagnostics": [diagnostic_json(d) for d in diagnostics]}, indent=2
            )
        )
    else:
        render_all(diagnostics, out)
    return EXIT_ERRORS


def _report_failure(args: argparse.Namespace, failure: Any, out: Any, notes: Optional[Callable]) -> int:
    diag = failure.diagnostic()
    if notes is not None:
        diag.notes = tuple(notes(diag)) + tuple(diag.notes)
    if args.format == "json":
        print(json.dumps({"error": _error_json(diag), **_warnings_json(args)}, indent=2))
    else:
        render_text(diag, out)
    return EXIT_INTERNAL if failure.code == INTERNAL_ERROR else EXIT_CHECK_FAILED


def _warnings_json(args: argparse.Namespace) -> dict:
    """The warnings (and notes) of the check, as `diagnostics`, where there are any: the text
    form prints them before running, and `--format json` dropped them."""
    warnings = getattr(args, "warnings", None)
    return {"diagnostics": [diagnostic_json(d) for d in warnings]} if warnings else {}


def _error_json(diag: Any) -> dict:
    return diagnostic_json(diag)


def output_json(value: Any) -> dict:
    """One output as JSON: its shape and dtype (or its kind)."""
    import numpy as np

    from gradual.runtime.values import RefCell, describe_value, is_function

    if isinstance(value, np.ndarray):
        return {"shape": list(value.shape), "dtype": value.dtype.name}
    if isinstance(value, RefCell):  # as the text form says it: "a reference to <its value's type>"
        return {"kind": "reference", "type": describe_value(value.value)}
    if is_function(value):
        return {"kind": "function"}
    return {"kind": "value", "type": describe_value(value)}


def _tolerance(want: Any) -> float:
    """How far a float output may be from the framework's: the square root of its dtype's
    epsilon (3.5e-4 for float32), relative to the output's largest magnitude (at least 1): a
    sum of many terms in another order differs by about that much, a wrong conversion more."""
    import numpy as np

    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return float(np.sqrt(np.finfo(want.dtype).eps)) * scale


def _print_outputs(
    args: argparse.Namespace, outputs: list, names: Optional[tuple], reference: Optional[dict] = None
) -> None:
    """Each output's type (`--format json`: a document of them); then, for a model its framework
    ran too, whether the framework agrees (on stdout where it does: the error says where not)."""
    from gradual.runtime.values import describe_value

    if args.format == "json":
        shown = [output_json(o) for o in outputs]
        if names:  # a model whose outputs have no names (a JAX function's) has ()
            shown = [{"name": n, **o} for n, o in zip(names, shown)]
        extra = {"reference": reference} if reference is not None else {}
        print(json.dumps({"outputs": shown, **extra, **_warnings_json(args)}, indent=2))
        return
    for i, output in enumerate(outputs):
        prefix = f"{names[i]}: " if names is not None and i < len(names) else ""
        sys.stdout.write(prefix + describe_value(output) + "\n")
    if reference is not None and reference["agrees"]:
        sys.stdout.write(reference["message"] + "\n")
