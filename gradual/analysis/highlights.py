"""Document highlight: every occurrence in the document of the variable, function, dim
symbol or operator under the cursor, each marked as where it is bound ("write": a parameter,
a `let`, a definition's name, a dim's binding occurrence) or where it is used ("read");
an operator's uses are plain text (it is bound in the library)."""

from __future__ import annotations

from dataclasses import dataclass

from gradual.analysis.document import Analysis
from gradual.analysis.queries import definition, references, start_of, target_at
from gradual.syntax.source import Span


@dataclass
class Highlight:
    span: Span
    kind: str  # "write", "read" or "text"


def highlights(analysis: Analysis, offset: int) -> list[Highlight]:
    """The occurrences of what is at `offset` (none where nothing named is)."""
    found = target_at(analysis, offset)
    if found is None:
        return []
    bound = {(start_of(s), s.source.path) for s in definition(analysis, offset)}
    out = []
    for span in references(analysis, offset, True):
        if span.source.path != analysis.path:
            continue
        if found[0] == "op":
            kind = "text"
        else:
            kind = "write" if (start_of(span), span.source.path) in bound else "read"
        out.append(Highlight(span, kind))
    return out
