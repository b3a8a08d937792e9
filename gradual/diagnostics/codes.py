"""Every diagnostic code: a stable kebab-case name, its default severity and a one-line summary.

docs/diagnostics.md documents each code in a section of its own (a test holds the two equal);
editors and SARIF reports link to that section.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(str, enum.Enum):
    """How bad: errors fail `gradual check`, warnings do not."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Code:
    """A stable, documented diagnostic code."""

    name: str
    severity: Severity
    summary: str


CODES: dict[str, Code] = {}


def _code(name: str, summary: str, severity: Severity = Severity.ERROR) -> str:
    CODES[name] = Code(name, severity, summary)
    return name


# syntax and input
PARSE_ERROR = _code("parse-error", "the text is not a program in the language")
INPUT_ERROR = _code("input-error", "the file cannot be read as UTF-8 text, or is too large")
BAD_INITIALIZER = _code("bad-initializer", "an ONNX initializer whose data does not fit its declared dims or type")
ARCHIVE_VERSION = _code("archive-version", "a model archive in a format version gradual does not read")
# names
UNKNOWN_VARIABLE = _code("unknown-variable", "a `%name` that no parameter or binding introduces")
UNKNOWN_GLOBAL = _code("unknown-global", "an `@name` that no definition introduces")
UNKNOWN_OPERATOR = _code("unknown-operator", "an operator name that the library does not declare")
UNKNOWN_DTYPE = _code("unknown-dtype", "a dtype name that is neither a dtype nor a declared dtype variable")
UNKNOWN_DIM = _code("unknown-dim", "a dimension name that is not in scope where it must be")
DUPLICATE_DEFINITION = _code("duplicate-definition", "two definitions with the same name")
DUPLICATE_PARAMETER = _code("duplicate-parameter", "two parameters with the same name")
BAD_SIGNATURE = _code("bad-signature", "a type annotation that cannot be used where it stands")
UNKNOWN_TYPE = _code("unknown-type", "a type name that no `type` definition or type parameter introduces")
UNKNOWN_CONSTRUCTOR = _code("unknown-constructor", "a constructor name in a pattern that no `type` definition declares")
TYPE_ARITY = _code("type-arity", "an algebraic data type given the wrong number of type arguments")
# calls and attributes
WRONG_ARITY = _code("wrong-arity", "a call with the wrong number of arguments")
UNKNOWN_ATTRIBUTE = _code("unknown-attribute", "an attribute the operator does not take")
BAD_ATTRIBUTE = _code("bad-attribute", "an attribute value of the wrong kind or out of range")
BAD_LITERAL = _code("bad-literal", "a number literal that its dtype cannot hold")
MISSING_ATTRIBUTE = _code("missing-attribute", "a required attribute is absent")
NOT_CALLABLE = _code("not-callable", "a call of something that is not a function")
# types and shapes
SHAPE_MISMATCH = _code("shape-mismatch", "two dimensions that can never be equal")
RANK_MISMATCH = _code("rank-mismatch", "tensors whose ranks can never agree")
DTYPE_MISMATCH = _code("dtype-mismatch", "element types that can never agree")
TYPE_MISMATCH = _code("type-mismatch", "a tensor, tuple or function where another kind is required")
BROADCAST_MISMATCH = _code("broadcast-mismatch", "dimensions that NumPy broadcasting can never combine")
TUPLE_INDEX = _code("tuple-index", "a projection past the end of a tuple")
BAD_CAST = _code("bad-cast", "a cast to a type the value can never have")
OP_CONSTRAINT = _code("op-constraint", "an operator's own constraint on its inputs or attributes fails")
BAD_HINT = _code("bad-hint", "a `can_unify` hint on something that is not an unannotated variable")
NON_EXHAUSTIVE_MATCH = _code("non-exhaustive-match", "a `match` that some value of its type matches no clause of")
PATTERN_MISMATCH = _code("pattern-mismatch", "a pattern that no value of the matched type can match")
# runtime (gradual run)
CHECK_FAILED = _code("check-failed", "an inserted runtime check found a value outside its type")
RUNTIME_ERROR = _code("runtime-error", "an operator failed while running")
INTERNAL_ERROR = _code("internal-error", "a bug in gradual: a shape rule and its kernel disagree, or a check crashed")
USAGE_ERROR = _code(
    "usage-error", "the command line asks for something it cannot do: an unknown option, a bad or missing input"
)
# warnings
UNUSED_HINT = _code("unused-hint", "a hint that inference never needed", Severity.WARNING)
UNUSED_CLAIM = _code(
    "unused-claim", "a `claimed` function attribute names a dim its signature does not have", Severity.WARNING
)
UNREACHABLE_CLAUSE = _code(
    "unreachable-clause", "a `match` clause that the clauses before it leave no value to match", Severity.WARNING
)
DIM_CONSTRAINT = _code(
    "dim-constraint", "an exporter's dynamic dim that the model constrains (checked at runtime)", Severity.WARNING
)
# notes
DIM_UNTRACKED = _code(
    "dim-untracked",
    "a computed dimension too large to track symbolically, or a quotient that is no polynomial: it is `?`",
    Severity.NOTE,
)
