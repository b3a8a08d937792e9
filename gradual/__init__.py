"""gradual: a gradual type checker for tensor programs.

The public façade: parse and check programs, elaborate them with runtime checks, run them,
draw their diagnostics (`render_diagnostics`), list the operators (`operators`), build
programs from Python (`gradual.builder`, for frontends: docs/frontends.md), and the
OpenVINO-compatible shape algebra.
"""

from typing import TYPE_CHECKING

from gradual.infra.version import __version__

if TYPE_CHECKING:
    from gradual.api import CheckResult, SyntaxProblem, check, elaborate, elaborate_text, format_program, parse
    from gradual.diagnostics import Diagnostic, Label, Severity
    from gradual.diagnostics.render import render_diagnostics
    from gradual.operator_info import AttributeInfo, OperatorInfo, operators
    from gradual.ops.registry import register_op
    from gradual.shapes import Dimension, Interval, PartialShape, Shape, ShapeError, Symbol

#: each public name and the module it comes from, loaded on first use: a command that needs
#: none of them (`gradual format` reads and prints syntax only) does not pay for the checker
_LAZY = {
    **dict.fromkeys(
        ("CheckResult", "SyntaxProblem", "check", "elaborate", "elaborate_text", "format_program", "parse"),
        "gradual.api",
    ),
    **dict.fromkeys(("Diagnostic", "Label", "Severity"), "gradual.diagnostics"),
    "render_diagnostics": "gradual.diagnostics.render",
    **dict.fromkeys(("AttributeInfo", "OperatorInfo", "operators"), "gradual.operator_info"),
    "register_op": "gradual.ops.registry",
    **dict.fromkeys(("Dimension", "Interval", "PartialShape", "Shape", "ShapeError", "Symbol"), "gradual.shapes"),
}

#: `run` and what it raises (its docstring names each; InputError and KernelFailure could be
#: caught only through gradual.runtime.errors)
_RUNTIME_NAMES = ("CheckFailure", "InputError", "KernelFailure", "ProgramRejected", "RunFailure", "run")


def __getattr__(name: str) -> object:
    """The public names load on first use (and stay, as if imported); the runtime (and NumPy)
    with `run`, so checking never pays for them; so does the builder (`gradual.builder`, for
    frontends)."""
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name == "builder":
        import gradual.builder as builder

        return builder
    if name in _RUNTIME_NAMES:
        from gradual import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module 'gradual' has no attribute {name!r}")


__all__ = [
    "__version__",
    "AttributeInfo",
    "CheckFailure",
    "CheckResult",
    "Diagnostic",
    "Dimension",
    "InputError",
    "Interval",
    "KernelFailure",
    "Label",
    "PartialShape",
    "OperatorInfo",
    "ProgramRejected",
    "RunFailure",
    "Severity",
    "Shape",
    "ShapeError",
    "Symbol",
    "SyntaxProblem",
    "builder",
    "check",
    "elaborate",
    "elaborate_text",
    "format_program",
    "operators",
    "parse",
    "register_op",
    "render_diagnostics",
    "run",
]
