"""Drawing diagnostics: rustc-style text through rich, and the JSON of SPEC 5.

Both take diagnostics as data; neither knows how they were produced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Optional

from .diagnostics import Diagnostic, Label, Severity
from .syntax.source import Span

if TYPE_CHECKING:
    from rich.console import Console


def escape(text: str) -> str:
    """Text shown literally by rich (rich is imported only when something is drawn: a
    clean check never pays for it)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.NOTE: "bold cyan"}
_TAB = "    "


def _display(line: str) -> str:
    return line.replace("\t", _TAB)


def _display_col(line: str, col: int) -> int:
    """A 1-based character column as a 1-based display column (tabs are 4 wide)."""
    prefix = line[: col - 1]
    return len(prefix) + prefix.count("\t") * (len(_TAB) - 1) + 1


def _label_rows(span: Span) -> tuple[int, int, int]:
    """(line, first display column, width) of a span's first line."""
    line, col = span.start_position
    end_line, end_col = span.end_position
    text = span.source.line_text(line)
    start = _display_col(text, col)
    if end_line != line:
        stop = len(_display(text)) + 1
    else:
        stop = _display_col(text, end_col)
    return line, start, max(1, stop - start)


def render_text(diag: Diagnostic, console: Console) -> None:
    """Print one diagnostic, rustc style: header, location, source lines with labels, notes."""
    style = _STYLE[diag.severity]
    header = f"[{style}]{diag.severity.value}{escape('[' + diag.code + ']')}[/]: [bold]{escape(diag.message)}[/]"
    console.print(header, highlight=False)
    line, col = diag.span.start_position
    labels: list[tuple[Span, str, bool]] = [(diag.span, diag.label, True)]
    labels += [(l.span, l.message, False) for l in diag.labels if l.span.source is diag.span.source]
    rows = [(_label_rows(span), message, primary) for span, message, primary in labels]
    gutter = len(str(max(r[0][0] for r in rows)))
    pad = " " * gutter
    if not diag.span.source.text:
        _render_tail(diag, console, pad_width=1, at=escape(diag.span.source.path))
        return
    console.print(f"[blue]{pad}-->[/] {escape(diag.span.source.path)}:{line}:{col}", highlight=False)
    console.print(f"[blue]{pad} |[/]", highlight=False)
    previous: Optional[int] = None
    for number in sorted({r[0][0] for r in rows}):
        if previous is not None and number > previous + 1:
            console.print(f"[blue]{'.' * gutter} |[/]", highlight=False)
        text = _display(diag.span.source.line_text(number))
        console.print(f"[blue]{number:>{gutter}} |[/] {escape(text)}", highlight=False)
        on_line = sorted((r for r in rows if r[0][0] == number), key=lambda r: (not r[2], -r[0][1]))
        for (_, start, width), message, primary in on_line:
            mark = "^" if primary else "-"
            color = style if primary else "bold blue"
            underline = " " * (start - 1) + mark * width
            console.print(f"[blue]{pad} |[/] [{color}]{underline} {escape(message)}[/]", highlight=False)
        previous = number
    _render_tail(diag, console, gutter)


def _render_tail(diag: Diagnostic, console: Console, pad_width: int, at: str = "") -> None:
    """Labels from other sources, notes and help (and the location, when there is no text)."""
    pad = " " * pad_width
    if at:
        console.print(f"[blue]{pad}-->[/] {at}", highlight=False)
        if diag.label:
            console.print(f"[blue]{pad} =[/] {escape(diag.label)}", highlight=False)
    for label in diag.labels:
        if label.span.source is not diag.span.source or at:
            console.print(f"[blue]{pad} =[/] [bold]note[/]: {escape(label.message)} at {escape(label.span.describe())}", highlight=False)
    for note in diag.notes:
        console.print(f"[blue]{pad} =[/] [bold]note[/]: {escape(note)}", highlight=False)
    if diag.help:
        console.print(f"[blue]{pad} =[/] [bold]help[/]: {escape(diag.help)}", highlight=False)
    console.print("", highlight=False)


def render_all(diagnostics: Iterable[Diagnostic], console: Console) -> None:
    """Print several diagnostics."""
    for diag in diagnostics:
        render_text(diag, console)


def _position(span: Span) -> dict[str, int]:
    line, col = span.start_position
    end_line, end_col = span.end_position
    return {"line": line, "column": col, "end_line": end_line, "end_column": end_col}


def _label_json(label: Label) -> dict[str, Any]:
    return {"message": label.message, "path": label.span.source.path, **_position(label.span)}


def diagnostic_json(diag: Diagnostic) -> dict[str, Any]:
    """One diagnostic as a JSON object (SPEC 5, plus label, labels and help)."""
    return {
        "severity": diag.severity.value,
        "code": diag.code,
        "message": diag.message,
        **_position(diag.span),
        "label": diag.label,
        "labels": [_label_json(l) for l in diag.labels],
        "notes": list(diag.notes),
        "help": diag.help,
    }
