"""gradual: a gradual type checker for tensor programs.

The public façade: parse and check programs, elaborate them with runtime checks, and the
OpenVINO-compatible shape algebra.
"""

from .api import CheckResult, SyntaxProblem, check, elaborate, elaborate_text, parse
from .diagnostics import Diagnostic, Label, Severity
from .ops.registry import register_op
from .runtime import CheckFailure, ProgramRejected, RunFailure, run
from .shapes import Dimension, PartialShape, ShapeError

__version__ = "0.1.0"

__all__ = [
    "CheckFailure",
    "CheckResult",
    "Diagnostic",
    "Dimension",
    "Label",
    "PartialShape",
    "ProgramRejected",
    "RunFailure",
    "Severity",
    "ShapeError",
    "SyntaxProblem",
    "check",
    "elaborate",
    "elaborate_text",
    "parse",
    "register_op",
    "run",
]
