"""Diagnostics are data: a stable code (codes.py), a severity, a message, a primary span with a
label, secondary labelled spans, notes and a help line. Building one (each layer's messages) is
separate from drawing it (render.py: terminal and JSON; sarif.py)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from gradual.diagnostics.codes import Severity
from gradual.syntax.source import Span

if TYPE_CHECKING:
    from pathlib import Path


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

    package = Path(__file__).resolve().parent.parent
    installed = package / "docs" / "diagnostics.md"
    return installed if installed.is_file() else package.parent / "docs" / "diagnostics.md"
