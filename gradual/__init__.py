"""gradual: a gradual type checker for tensor programs.

The public façade: parse and check programs, elaborate them with runtime checks, run them,
draw their diagnostics (`render_diagnostics`), list the operators (`operators`), build
programs from Python (`gradual.builder`, for frontends: docs/frontends.md), and the
OpenVINO-compatible shape algebra.
"""

from gradual.api import CheckResult, SyntaxProblem, check, elaborate, elaborate_text, format_program, parse
from gradual.diagnostics import Diagnostic, Label, Severity
from gradual.diagnostics.render import render_diagnostics
from gradual.infra.version import __version__
from gradual.operators import AttributeInfo, OperatorInfo, operators
from gradual.ops.registry import register_op
from gradual.shapes import Dimension, Interval, PartialShape, Shape, ShapeError, Symbol

#: `run` and what it raises (its docstring names each; InputError and KernelFailure could be
#: caught only through gradual.runtime.errors)
_RUNTIME_NAMES = ("CheckFailure", "InputError", "KernelFailure", "ProgramRejected", "RunFailure", "run")


def __getattr__(name: str) -> object:
    """The runtime (and NumPy) load on first use, so checking never pays for them; so does
    the builder (`gradual.builder`, for frontends)."""
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
