"""The library entry point of the runtime: `gradual.run(program, inputs)`."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

import numpy as np

from gradual.checker.driver import CheckResult, checked_program, elaborate
from gradual.ops.registry import Registry
from gradual.runtime.errors import ProgramRejected
from gradual.runtime.inputs import language_value, python_input
from gradual.runtime.interpreter import Interpreter
from gradual.runtime.values import flatten_outputs
from gradual.syntax import ast

Program = Union[str, CheckResult, ast.Module]


def checked(program: Program, path: str = "<input>", registry: Optional[Registry] = None) -> CheckResult:
    """A program checked (text and modules are checked here); raises ProgramRejected on errors."""
    result = (
        program
        if isinstance(program, CheckResult)
        else checked_program(
            program, path, registry, "run", "program text (str or UTF-8 bytes), a parsed Module or a CheckResult"
        )
    )
    if not result.ok:
        raise ProgramRejected(result.errors)
    return result


def interpreter_for(result: CheckResult) -> Interpreter:
    """An interpreter over the elaborated form of a checked program."""
    return Interpreter(elaborate(result), result.registry)


def run(
    program: Program,
    inputs: Optional[Mapping[str, Any]] = None,
    entry: str = "main",
    path: str = "<input>",
    registry: Optional[Registry] = None,
) -> list:
    """Check, elaborate and run `@entry` on NumPy inputs (by parameter name); returns the
    outputs as a list (a tuple result is flattened).

    Raises `ProgramRejected` for a program with type errors, `CheckFailure` when a runtime
    check fails (it carries the blamed span, the expected type and the actual value),
    `KernelFailure` when an operator cannot run, `InputError` for inputs that do not name the
    entry's parameters. Python numbers and lists are converted to the declared dtype.
    """
    from gradual.infra.arguments import require

    require(inputs, (Mapping, type(None)), "run", "inputs as a mapping from parameter name to value")
    require(entry, str, "run", "an entry that is a definition's name (a str)")
    interpreter = interpreter_for(checked(program, path, registry))
    values = convert_inputs(interpreter.parameters(entry), dict(inputs or {}))
    return flatten_outputs(interpreter.run(entry, values))


def run_elaborated(
    module: ast.Module, inputs: Mapping[str, Any], entry: str = "main", registry: Optional[Registry] = None
) -> Any:
    """Run an already elaborated module as it is (no checking); returns the raw result value."""
    interpreter = Interpreter(module, registry)
    return interpreter.run(entry, convert_inputs(interpreter.parameters(entry), dict(inputs)))


def convert_inputs(params: list, inputs: dict) -> dict:
    """Arrays stay as they are (if the language has their dtype); Python numbers and lists
    become arrays of the declared dtype, exactly (anything else is an InputError)."""
    declared = dict(params)
    out = {}
    for name, value in inputs.items():
        if isinstance(value, (np.ndarray, tuple)) or callable(value):
            out[name] = language_value(name, value)
        else:
            out[name] = python_input(f"{name}={value!r}", value, declared.get(name))
    return out
