"""gradual: a gradual type checker for tensor programs.

The public façade: parse and check programs, elaborate them with runtime checks, and the
OpenVINO-compatible shape algebra.
"""

from gradual.api import CheckResult, SyntaxProblem, check, elaborate, elaborate_text, format_program, parse
from gradual.diagnostics import Diagnostic, Label, Severity
from gradual.ops.registry import register_op
from gradual.shapes import Dimension, Interval, PartialShape, Shape, ShapeError, Symbol

#: `run` and what it raises (its docstring names each; InputError and KernelFailure could be
#: caught only through gradual.runtime.errors)
_RUNTIME_NAMES = ("CheckFailure", "InputError", "KernelFailure", "ProgramRejected", "RunFailure", "run")


def __getattr__(name: str) -> object:
    """The runtime (and NumPy) load on first use, so checking never pays for them."""
    if name in _RUNTIME_NAMES:
        from gradual import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module 'gradual' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "CheckFailure",
    "CheckResult",
    "Diagnostic",
    "Dimension",
    "InputError",
    "Interval",
    "KernelFailure",
    "Label",
    "PartialShape",
    "ProgramRejected",
    "RunFailure",
    "Severity",
    "Shape",
    "ShapeError",
    "Symbol",
    "SyntaxProblem",
    "check",
    "elaborate",
    "elaborate_text",
    "format_program",
    "parse",
    "register_op",
    "run",
]
