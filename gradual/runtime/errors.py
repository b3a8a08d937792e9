"""What can stop a running program, as exceptions that carry their diagnostic's facts.

`CheckFailure` is the one error a failed runtime check raises: an inserted cast, a user cast,
an annotated let, a parameter or return annotation, a function contract, or an operator's
shape rule evaluated on the concrete inputs. `KernelFailure` is an operator that could not run
(`runtime-error`) or whose kernel disagrees with its shape rule (`internal-error`, a bug in
gradual). Both render like static diagnostics through `diagnostic()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from gradual.diagnostics import Diagnostic, Label
from gradual.diagnostics.codes import CHECK_FAILED, INTERNAL_ERROR, RUNTIME_ERROR
from gradual.runtime import messages
from gradual.syntax.source import Span


class RunFailure(Exception):
    """Base of everything that stops a running program; `code` is a diagnostics code."""

    code: str = RUNTIME_ERROR

    def diagnostic(self) -> Diagnostic:
        """The failure as a diagnostic (rendered like a static one)."""
        raise NotImplementedError

    def __str__(self) -> str:
        diag = self.diagnostic()
        return f"{diag.span.describe()}: {diag.message}"


@dataclass(frozen=True)
class Blame:
    """Who made the assumption a check verifies: the blamed span and why the check exists.

    `kind` says what kind of place it is (`inserted`, `cast`, `let`, `parameter`, `return`,
    `argument`, `result`); `reason` is the checker's own words for inserted checks; `labels`
    are secondary spans (the annotation, the cast that fixed a function's type)."""

    span: Span
    kind: str
    reason: str = ""
    labels: tuple = ()


@dataclass
class Mismatch:
    """Which part of a value differed from its type: the fact, and where inside the value."""

    what: str
    facts: dict = field(default_factory=dict)
    path: tuple = ()
    axis: Optional[int] = None


class CheckFailure(RunFailure):
    """A runtime check failed: the blamed span, the expected type, the actual value's type,
    and which dim (or rank, dtype, kind) differed."""

    code = CHECK_FAILED

    def __init__(
        self,
        blame: Blame,
        expected: str,
        actual: str,
        mismatch: Mismatch,
        shape: Optional[tuple] = None,
        dtype: Optional[str] = None,
    ) -> None:
        super().__init__()
        self.blame = blame
        self.span = blame.span
        self.expected = expected
        self.actual = actual
        self.mismatch = mismatch
        self.shape = shape
        self.dtype = dtype

    @property
    def axis(self) -> Optional[int]:
        """The dimension that differed (None when the rank, dtype or kind did)."""
        return self.mismatch.axis

    def diagnostic(self) -> Diagnostic:
        detail = messages.runtime_check_detail(
            self.mismatch.what, self.mismatch.facts, self.mismatch.path, self.mismatch.axis
        )
        return messages.runtime_check_failed(
            self.blame.span, self.blame.kind, self.blame.reason, self.expected, self.actual, detail, self.blame.labels
        )


class OperatorCheckFailure(CheckFailure):
    """An operator's shape rule rejected the concrete inputs of a call (e.g. two unknown dims
    that do not broadcast): a `check-failed` blamed at the call."""

    def __init__(self, span: Span, op: str, rule_code: str, facts: dict, inputs: str, signature: str) -> None:
        super().__init__(Blame(span, "operator"), "", inputs, Mismatch(rule_code, facts))
        self.op = op
        self.rule_code = rule_code
        self.facts = facts
        self.inputs = inputs
        self.signature = signature

    def diagnostic(self) -> Diagnostic:
        return messages.runtime_rule_failure(
            self.span, self.op, self.rule_code, self.facts, self.inputs, self.signature
        )


class KernelFailure(RunFailure):
    """An operator call that could not run, or whose kernel disagrees with its shape rule."""

    def __init__(self, code: str, span: Span, op: str, detail: str, inputs: str = "", help: str = "") -> None:
        super().__init__()
        self.code = code
        self.span = span
        self.op = op
        self.detail = detail
        self.inputs = inputs
        self.help = help

    def diagnostic(self) -> Diagnostic:
        if self.code == INTERNAL_ERROR:
            return messages.runtime_rule_disagrees(self.span, self.op, self.detail, self.inputs)
        return messages.runtime_operator_error(self.span, self.op, self.detail, self.inputs, self.help)


class CallFailure(RunFailure):
    """A call of something that is not a function, or with the wrong number of arguments
    (only possible in programs that were not checked), or a run past its bounds (stack,
    steps), which `help` says what to do about."""

    def __init__(self, span: Span, detail: str, help: str = "") -> None:
        super().__init__()
        self.span = span
        self.detail = detail
        self.help = help

    def diagnostic(self) -> Diagnostic:
        return messages.runtime_bad_call(self.span, self.detail, self.help)


class ProgramRejected(Exception):
    """`gradual.run` was given a program with type errors; `diagnostics` lists them."""

    def __init__(self, diagnostics: list) -> None:
        first = diagnostics[0] if diagnostics else None
        super().__init__(first.message if first is not None else "the program has errors")
        self.diagnostics = list(diagnostics)


class InputError(ValueError):
    """Inputs that do not fit the entry point: a missing or unknown name, an unreadable file."""


def label_at(span: Span, text: str) -> Label:
    """A secondary label (for `Blame.labels`)."""
    return Label(span, text)
