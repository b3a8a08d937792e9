"""The words of algebraic data types: type and constructor names, patterns, matches.

Style as checker/messages.py: lowercase, code in backticks, the primary label on the smallest
span, `help` alone suggests a fix.
"""

from __future__ import annotations

from typing import Optional

from gradual.diagnostics import Diagnostic, Label, Severity, codes
from gradual.diagnostics.words import did_you_mean, ordinal, rename_data
from gradual.syntax.source import Span
from gradual.types import Type, format_type


def unknown_type(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """A type name that is no ADT and no type parameter in scope."""
    return Diagnostic(
        codes.UNKNOWN_TYPE,
        f"unknown type `{name}`",
        span,
        label="no `type` definition or type parameter has this name",
        help=did_you_mean(suggestion)
        or f"define it (`type {name}[A] {{ ... }}`), or declare it as a type parameter (`def @f[{name}](...)`)",
        facts=rename_data(name, suggestion),
    )


def type_arity(span: Span, name: str, expected: int, actual: int) -> Diagnostic:
    """`List[A, B]` of a one-parameter `List`."""
    takes = f"{expected} type argument{'s' if expected != 1 else ''}"
    return Diagnostic(
        codes.TYPE_ARITY,
        f"`{name}` takes {takes}, but {actual} {'are' if actual != 1 else 'is'} given",
        span,
        label=f"{actual} type argument{'s' if actual != 1 else ''} here",
        help=f"write `{name}[{', '.join(['T'] * expected)}]`" if expected else f"write `{name}` or `{name}[]`",
    )


def unknown_constructor(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """A pattern's constructor that no type declares."""
    return Diagnostic(
        codes.UNKNOWN_CONSTRUCTOR,
        f"unknown constructor `{name}`",
        span,
        label="no `type` definition declares this constructor",
        help=did_you_mean(suggestion) or f"to bind the value to a variable, write `%{name}`",
        facts=rename_data(name, suggestion),
    )


def duplicate_type(span: Span, name: str, first: Span) -> Diagnostic:
    """Two `type` definitions of one name."""
    return Diagnostic(
        codes.DUPLICATE_DEFINITION,
        f"the type `{name}` is defined twice",
        span,
        label="second definition",
        labels=(Label(first, "first defined here"),),
        help="rename one of them",
    )


def duplicate_constructor(span: Span, name: str, first: Span) -> Diagnostic:
    """Two constructors of one name (in one type or two)."""
    return Diagnostic(
        codes.DUPLICATE_DEFINITION,
        f"the constructor `{name}` is declared twice",
        span,
        label="second declaration",
        labels=(Label(first, "first declared here"),),
        help="constructor names are global: rename one of them",
    )


def constructor_arity(span: Span, name: str, expected: int, actual: int) -> Diagnostic:
    """A constructor pattern with the wrong number of subpatterns."""
    return Diagnostic(
        codes.WRONG_ARITY,
        f"the constructor `{name}` has {expected} field{'s' if expected != 1 else ''}, but this pattern gives {actual}",
        span,
        label=f"{actual} subpattern{'s' if actual != 1 else ''}",
        help="write one subpattern per field (`_` for a field not needed)",
    )


def pattern_mismatch(span: Span, pattern: str, t: Type, detail: str = "") -> Diagnostic:
    """A pattern that no value of the scrutinee's type can match."""
    return Diagnostic(
        codes.PATTERN_MISMATCH,
        f"the pattern `{pattern}` cannot match a value of type {format_type(t)}",
        span,
        label=detail or f"the value matched here has type {format_type(t)}",
        help="match the value with a pattern of its type, or `_`",
    )


def non_exhaustive(span: Span, missing: list[str], scrutinee: Type) -> Diagnostic:
    """A complete `match` that some values match no clause of (Relay rejects it too)."""
    shown = ", ".join(f"`{m}`" for m in missing[:8]) + (", ..." if len(missing) > 8 else "")
    return Diagnostic(
        codes.NON_EXHAUSTIVE_MATCH,
        f"this match does not handle {shown}",
        span,
        label=f"a value of type {format_type(scrutinee)} may match none of its clauses",
        help="add a clause for each missing pattern (or `_ => ...`), or write `match?` for a partial match "
        "that stops the run where no clause matches",
        facts={"missing": list(missing)},
    )


def unreachable_clause(span: Span, index: int) -> Diagnostic:
    """A clause that every value reaching it was matched by an earlier one."""
    return Diagnostic(
        codes.UNREACHABLE_CLAUSE,
        f"the {ordinal(index + 1)} clause can never match",
        span,
        label="the clauses before it match every value this one matches",
        help="remove it, or move it before the clause that covers it",
        severity=Severity.WARNING,
    )


def constructor_reason(name: str, index: int, span: Span) -> str:
    """Why a cast was inserted on a constructor's argument (for check-failed notes)."""
    return f"the {ordinal(index + 1)} field of `{name}` at {span.describe()}"


def match_reason(span: Span) -> str:
    """Why a partial match may fail at runtime."""
    return f"the partial match (`match?`) at {span.describe()}"
