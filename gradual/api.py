"""The library entry points: parse, check, elaborate. No printing, no exits.

`check` accepts program text or a parsed module and returns a `CheckResult` holding the typed
program, its diagnostics and its check sites as Python objects. Bad input never raises: a
syntax error is a diagnostic like any other.

This is the public front door: nothing inside gradual imports it. The implementation is the
checker's driver (gradual.checker.driver).
"""

from gradual.checker.driver import (
    CheckResult,
    SyntaxProblem,
    check,
    elaborate,
    elaborate_text,
    format_program,
    parse,
)

__all__ = ["CheckResult", "SyntaxProblem", "check", "elaborate", "elaborate_text", "format_program", "parse"]
