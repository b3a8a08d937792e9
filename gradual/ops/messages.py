"""The words of operator rules: each failure a rule reports (`ctx.fail(key, **facts)`) has a
registered message, as data: its diagnostic code, a template over the facts, and a help line.

The general ones are here; an operator family registers its own beside its rules
(`register_rule_message`). The checker (checker/messages.py) and the runtime
(runtime/messages.py) phrase the facts into a diagnostic.
"""

from __future__ import annotations

from typing import Optional

from gradual.diagnostics import Diagnostic, codes
from gradual.diagnostics.words import did_you_mean, rename_data
from gradual.syntax.source import Span

RULE_MESSAGES: dict[str, tuple[str, str, str]] = {
    # code: (diagnostic code, message template, help)
    "rank": (
        codes.RANK_MISMATCH,
        "{arg} has rank {actual}, but {op} needs rank {expected}",
        "reshape the argument to rank {expected}",
    ),
    "rank-too-small": (
        codes.RANK_MISMATCH,
        "{arg} has rank {rank}, but {op} needs at least {needed} dims",
        "add dims with `expand_dims` or `reshape`",
    ),
    "rank-beyond-limit": (
        codes.BAD_ATTRIBUTE,
        "{op} needs {arg} to have at least {needed} dims, more than any array has (at most {limit})",
        "check the axis attributes against the input's rank",
    ),
    "variadic-rank": (
        codes.RANK_MISMATCH,
        "{arg} has {actual} leading dims for `*{name}`, but an earlier argument had {expected}",
        "give every argument the same number of batch dims",
    ),
    "same-rank": (
        codes.RANK_MISMATCH,
        "{arg} has rank {actual}, but {op} needs every input to have rank {expected}",
        "reshape the inputs to the same rank",
    ),
    "not-a-tensor": (codes.TYPE_MISMATCH, "{arg} is {actual_kind}, but {op} needs a tensor", "pass a tensor here"),
    "not-a-tuple": (
        codes.TYPE_MISMATCH,
        "{arg} is {actual_kind}, but {op} needs a tuple of {expected}",
        "pass a tuple here",
    ),
    "tuple-length": (
        codes.TYPE_MISMATCH,
        "{arg} is a tuple of {actual}, but {op} needs {expected}",
        "pass a tuple of {expected}",
    ),
    "not-a-function": (
        codes.TYPE_MISMATCH,
        "{arg} is {actual_kind}, but {op} needs a function",
        "pass a function here",
    ),
    "not-a-reference": (
        codes.TYPE_MISMATCH,
        "{arg} is {actual_kind}, but {op} needs a reference",
        "pass a reference (made by `ref(...)`) here",
    ),
    "function-mismatch": (
        codes.TYPE_MISMATCH,
        "{arg} is a function of type {actual}, but {op} needs {expected}: {detail}",
        "pass a function of that type, or write `?` in the function type where it is only known at runtime",
    ),
    "axis-out-of-range": (
        codes.OP_CONSTRAINT,
        "{op} got {name}={axis}, but the input has rank {rank}",
        "{name} must lie in [-{rank}, {rank})",
    ),
    "negative-dim": (
        codes.OP_CONSTRAINT,
        "{op} would produce a negative dimension ({detail})",
        "check the attributes against the input size",
    ),
    "bad-divisor": (codes.OP_CONSTRAINT, "{op} would divide a dimension by {divisor}", "use a positive stride or size"),
    # a condition of the operator's contract (its declaration's `where` clause, ops/contracts.py)
    "contract-attribute": (
        codes.BAD_ATTRIBUTE,
        "{op} needs `{condition}`, but {detail}",
        "give `{attr}` a value for which `{condition}` holds",
    ),
    "contract-rank": (
        codes.RANK_MISMATCH,
        "{op} needs `{condition}`, but {detail}",
        "pass {arg} with a rank for which `{condition}` holds",
    ),
    "contract-dim": (
        codes.SHAPE_MISMATCH,
        "{op} needs `{condition}`, but {detail}",
        "pass {arg} with dims for which `{condition}` holds",
    ),
    "contract-dtype": (
        codes.DTYPE_MISMATCH,
        "{op} needs `{condition}`, but {detail}",
        "pass {arg} of a dtype for which `{condition}` holds",
    ),
    "contract-value": (
        codes.OP_CONSTRAINT,
        "{op} needs `{condition}`, but {detail}",
        "pass {arg} whose elements satisfy `{condition}` (elements are data: checked when the program runs)",
    ),
    "contract": (
        codes.OP_CONSTRAINT,
        "{op} needs `{condition}`, but {detail}",
        "give `{attr}` a value for which `{condition}` holds with these arguments",
    ),
}


def register_rule_message(code: str, diagnostic_code: str, template: str, help_text: str) -> None:
    """Let an operator family add the wording of its own rule failures."""
    RULE_MESSAGES[code] = (diagnostic_code, template, help_text)


# attributes and dtypes of a call, checked against the declaration (ops/attributes.py)
def unknown_attribute(span: Span, op: str, name: str, known: list, suggestion: Optional[str]) -> Diagnostic:
    """An attribute the operator does not take."""
    have = ", ".join(f"`{k}`" for k in known) or "none"
    return Diagnostic(
        codes.UNKNOWN_ATTRIBUTE,
        f"`{op}` has no attribute `{name}`",
        span,
        label="unknown attribute",
        notes=(f"`{op}` takes: {have}",),
        help=did_you_mean(suggestion) or "remove it",
        facts=rename_data(name, suggestion),
    )


def bad_attribute(span: Span, op: str, name: str, expected: str, value: str) -> Diagnostic:
    """An attribute value of the wrong kind."""
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        f"attribute `{name}` of `{op}` must be {expected}, not {value}",
        span,
        label=f"expected {expected}",
        help=f"write `{name}=` followed by {expected}",
    )


def missing_attribute(span: Span, op: str, name: str, expected: str) -> Diagnostic:
    """A required attribute is absent."""
    return Diagnostic(
        codes.MISSING_ATTRIBUTE,
        f"`{op}` needs the attribute `{name}`",
        span,
        label=f"`{name}` is missing",
        help=f"add `{name}=` followed by {expected}",
    )


def unknown_dtype(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """A dtype that is not a dtype."""
    return Diagnostic(
        codes.UNKNOWN_DTYPE,
        f"unknown dtype `{name}`",
        span,
        label="not a dtype",
        help=did_you_mean(suggestion) or "declare a dtype variable with `def @f[T](...)`, or use `?`",
        facts=rename_data(name, suggestion),
    )


def contract_violation(span: Span, op: str, condition: str, detail: str, attr: str) -> Diagnostic:
    """A condition of the operator's contract that its attributes alone break."""
    _, template, help_text = RULE_MESSAGES["contract-attribute"]
    texts = {"op": f"`{op}`", "condition": condition, "detail": detail, "attr": attr}
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        template.format(**texts),
        span,
        label=f"`{condition}` does not hold",
        help=help_text.format(**texts),
    )
