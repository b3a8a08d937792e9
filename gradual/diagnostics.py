"""Diagnostics are data: a stable code, a severity, a message, a primary span with a label,
secondary labelled spans, notes and a help line. Building one (messages.py) is separate from
drawing it (render.py: terminal and JSON)."""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from gradual.syntax.source import Span

if TYPE_CHECKING:
    from pathlib import Path


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
DIM_CONSTRAINT = _code(
    "dim-constraint", "an exporter's dynamic dim that the model constrains (checked at runtime)", Severity.WARNING
)
# notes
DIM_UNTRACKED = _code(
    "dim-untracked",
    "a computed dimension too large to track symbolically, or a quotient that is no polynomial: it is `?`",
    Severity.NOTE,
)


@dataclass(frozen=True, slots=True)
class Label:
    """A secondary span with a short explanation (`k` was bound to 3 here)."""

    span: Span
    message: str

    @property
    def path(self) -> str:
        """The file the label is in."""
        return self.span.source.path

    @property
    def line(self) -> int:
        """1-based line of the label's span."""
        return self.span.start_position[0]

    @property
    def column(self) -> int:
        """1-based column of the label's span."""
        return self.span.start_position[1]

    @property
    def data(self) -> object:
        """The payload of the label's location (a frontend's node, `gradual.builder.Loc`), or None."""
        return getattr(self.span.source, "data", None)


@dataclass(slots=True)
class Diagnostic:
    """One problem, located and explained."""

    code: str
    message: str
    span: Span
    label: str = ""
    labels: tuple = ()
    notes: tuple = ()
    help: Optional[str] = None
    severity: Severity = field(default=Severity.ERROR)
    #: facts a tool can act on (a suggested name, the dims in conflict), never shown as text
    facts: dict = field(default_factory=dict)

    @property
    def path(self) -> str:
        """The file of the primary location (a frontend's own file where it located the node)."""
        return self.span.source.path

    @property
    def data(self) -> object:
        """The payload of the primary location (a frontend's node, given to
        `gradual.builder.Loc`), or None; each label has its own (`Label.data`)."""
        return getattr(self.span.source, "data", None)

    @property
    def is_error(self) -> bool:
        """Whether this diagnostic fails the check."""
        return self.severity is Severity.ERROR

    @property
    def line(self) -> int:
        """1-based line of the primary span."""
        return self.span.start_position[0]

    @property
    def column(self) -> int:
        """1-based column of the primary span."""
        return self.span.start_position[1]

    def sort_key(self) -> tuple:
        """Order in which a file's diagnostics are shown: by position, then code."""
        return (self.span.source.path, self.span.offset, self.code)


def docs_url(code: str) -> str:
    """Where a code is documented: its section of docs/diagnostics.md. `GRADUAL_DOCS_URL`
    sets the document's address (a repository's web page, for CI reports); by default it is
    the copy installed with the package (or the repository's own, in a source checkout)."""
    import os

    return f"{os.environ.get('GRADUAL_DOCS_URL') or _installed_docs()}#{code}"


@functools.lru_cache(maxsize=None)
def _installed_docs() -> str:
    """The address of the docs/diagnostics.md beside the package, found once: finding it took
    three file-system calls, most of the time of converting a diagnostic for an editor."""
    return docs_path().as_uri()


def docs_path() -> Path:
    """docs/diagnostics.md: the copy installed with the package, or the repository's own."""
    from pathlib import Path

    here = Path(__file__).resolve().parent
    installed = here / "docs" / "diagnostics.md"
    return installed if installed.is_file() else here.parent / "docs" / "diagnostics.md"
