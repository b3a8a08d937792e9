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
    entry's parameters. Python and NumPy numbers and lists are converted to the declared
    dtype, and so are arrays of NumPy's default dtypes (float64, int64) where the parameter
    declares another float (or int) dtype: `np.ones(3)` for a float32 parameter (ints must
    fit; floats round as `astype` does). Any other array is taken as it is.
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


def _numpy_default(value: Any, declared: Any) -> bool:
    """Whether an input is an array of NumPy's default float64 or int64 where the parameter
    declares another dtype of that kind (NumPy made it so; the model means its own dtype)."""
    if not isinstance(value, np.ndarray) or value.dtype.name not in ("float64", "int64"):
        return False
    dtype = getattr(declared, "dtype", None)
    if not isinstance(dtype, str) or dtype == value.dtype.name:
        return False
    try:
        kind = np.dtype(dtype).kind
    except TypeError:
        return False
    return kind == "f" if value.dtype.kind == "f" else kind in "iu"


def convert_inputs(params: list, inputs: dict) -> dict:
    """Arrays stay as they are (if the language has their dtype), but for NumPy's default
    dtypes where another of the kind is declared (see `run`); Python numbers and lists become
    arrays of the declared dtype, exactly (anything else is an InputError)."""
    declared = dict(params)
    out = {}
    for name, value in inputs.items():
        if _numpy_default(value, declared.get(name)):
            out[name] = python_input(f"{name}=<{value.dtype} array>", value, declared.get(name))
        elif isinstance(value, (np.ndarray, tuple)) or callable(value):
            out[name] = language_value(name, value)
        else:
            out[name] = python_input(f"{name}={value!r}", value, declared.get(name))
    return out
