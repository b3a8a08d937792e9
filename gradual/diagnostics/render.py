"""Drawing diagnostics: rustc-style text through rich, and the JSON of spec §5.

Both take diagnostics as data; neither knows how they were produced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Optional

from gradual.diagnostics import Diagnostic, Label, Severity
from gradual.syntax.source import Source, Span, is_placed

if TYPE_CHECKING:
    from rich.console import Console


def escape(text: str) -> str:
    """Text shown literally by rich (rich is imported only when something is drawn: a
    clean check never pays for it), its control characters made visible (`visible`)."""
    from rich.markup import escape as rich_escape

    return rich_escape(visible(text))


#: control characters as visible symbols, one character for one (so columns stay right): C0
#: controls but tab and newline as their Unicode pictures (ESC is `␛`), DEL as `␡`, C1
#: controls and the bidirectional overrides and isolates (which reorder what a terminal shows,
#: "Trojan Source") as U+FFFD. Printed raw, a source line or a name could drive the terminal
#: that shows the diagnostic (`ESC [2J` clears it; a title or a link could be set) and its
#: carets no longer stood under the characters they mark.
_VISIBLE = {
    **{c: 0x2400 + c for c in range(0x20) if c not in (0x09, 0x0A)},
    0x7F: 0x2421,
    **dict.fromkeys((*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)), 0xFFFD),
}


def visible(text: str) -> str:
    """`text` with its control characters replaced by visible symbols (see `_VISIBLE`)."""
    return text if text.isprintable() else text.translate(_VISIBLE)


_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.NOTE: "bold cyan"}
_TAB = "    "


def _display(line: str) -> str:
    return line.replace("\t", _TAB)


def _width(text: str) -> int:
    """How many terminal columns `text` takes: East Asian wide and full-width characters
    (CJK, most emoji) take two, combining marks and zero-width characters none (as rustc
    counts them), so the carets under a line with `中` or `😀` before the span stand under it."""
    if text.isascii():
        return len(text)
    import unicodedata

    width = 0
    for char in text:
        if unicodedata.combining(char) or char in _ZERO_WIDTH:
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")


#: the most of one source line a diagnostic shows, in characters: a longer line is cut to this
#: much around its labels, with `...` where it is cut (as rustc does). Showing the whole line
#: made a program with many errors on one long line cost the line's length per error, which is
#: quadratic in the line (2,000 errors on a 60,000-character line took 20 s).
_WIDTH = 160
_MARGIN = 40  # characters shown before the first label on a cut line
_CUT = "..."


def _label_rows(span: Span) -> tuple[int, int, int]:
    """(line, first character's offset in the line, offset just past the span on that line)
    of a span's first line (0-based offsets, in characters)."""
    line, col = span.start_position
    end_line, end_col = span.end_position
    start = col - 1
    stop = span.source.line_length(line) if end_line != line else end_col - 1
    return line, start, max(start + 1, stop)


def _excerpt(source: Source, number: int, rows: list) -> tuple[str, list]:
    """Line `number` as displayed (cut around its labels when it is long, tabs expanded) and
    each label's (display column, width) on it, in the order of `rows`. Costs the part shown,
    not the line."""
    length = source.line_length(number)
    lo, hi = 0, length
    if length > _WIDTH:
        first = min(start for (_, start, _), _, _ in rows)
        lo = max(0, min(first - _MARGIN, length - _WIDTH))
        hi = lo + _WIDTH
    text = source.line_slice(number, lo, hi)
    lead = _CUT if lo > 0 else ""
    shown = lead + _display(text) + (_CUT if hi < length else "")
    marks = []
    for (_, start, stop), _, _ in rows:
        s = min(max(start, lo), hi) - lo
        e = min(max(stop, lo), hi) - lo
        column = len(lead) + _width(_display(text[:s])) + 1
        width = _width(_display(text[s:e])) if e > s else 0
        marks.append((column, max(1, width)))
    return shown, marks


def render_text(diag: Diagnostic, console: Console) -> None:
    """Print one diagnostic, rustc style: header, location, source lines with labels, notes.
    Its lines are drawn by one `console.print` (rich costs about 0.3 ms a call, markup parsed
    and the terminal asked: a line a call made 10,000 errors take 30 s to print)."""
    out: list[str] = []
    _render_lines(diag, out)
    console.print("\n".join(out), highlight=False)


def _render_lines(diag: Diagnostic, out: list) -> None:
    """The markup lines of one diagnostic (its last one empty)."""
    style = _STYLE[diag.severity]
    header = f"[{style}]{diag.severity.value}{escape('[' + diag.code + ']')}[/]: [bold]{escape(diag.message)}[/]"
    out.append(header)
    line, col = diag.span.start_position
    labels: list[tuple[Span, str, bool]] = [(diag.span, diag.label, True)]
    labels += [(lab.span, lab.message, False) for lab in diag.labels if lab.span.source is diag.span.source]
    rows = [(_label_rows(span), message, primary) for span, message, primary in labels]
    gutter = len(str(max(r[0][0] for r in rows)))
    pad = " " * gutter
    source = diag.span.source
    if not source.text or is_placed(source) and not source.text.strip():  # generated, or a file not here
        at = diag.span.describe() if is_placed(source) else source.path
        _render_tail(diag, out, pad_width=1, at=escape(at))
        return
    out.append(f"[blue]{pad}-->[/] {escape(diag.span.source.path)}:{line}:{col}")
    out.append(f"[blue]{pad} |[/]")
    previous: Optional[int] = None
    for number in sorted({r[0][0] for r in rows}):
        if previous is not None and number > previous + 1:
            out.append(f"[blue]{'.' * gutter} |[/]")
        on_line = [r for r in rows if r[0][0] == number]
        text, marks = _excerpt(source, number, on_line)
        out.append(f"[blue]{number:>{gutter}} |[/] {escape(text)}")
        placed = sorted(zip(marks, on_line), key=lambda m: (not m[1][2], -m[0][0]))
        for (start, width), (_, message, primary) in placed:
            mark = "^" if primary else "-"
            color = style if primary else "bold blue"
            underline = " " * (start - 1) + mark * width
            out.append(f"[blue]{pad} |[/] [{color}]{underline} {escape(message)}[/]")
        previous = number
    _render_tail(diag, out, gutter)


def _render_tail(diag: Diagnostic, out: list, pad_width: int, at: str = "") -> None:
    """Labels from other sources, notes and help (and the location, when there is no text)."""
    pad = " " * pad_width
    if at:
        out.append(f"[blue]{pad}-->[/] {at}")
        if diag.label:
            out.append(f"[blue]{pad} =[/] {escape(diag.label)}")
    for label in diag.labels:
        if label.span.source is not diag.span.source or at:
            out.append(f"[blue]{pad} =[/] [bold]note[/]: {escape(label.message)} at {escape(label.span.describe())}")
    for note in diag.notes:
        out.append(f"[blue]{pad} =[/] [bold]note[/]: {escape(note)}")
    if diag.help:
        out.append(f"[blue]{pad} =[/] [bold]help[/]: {escape(diag.help)}")
    out.append("")


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
    """One diagnostic as a JSON object (spec §5, plus the path its position is in, label,
    labels and help). The path is the file's, except where a frontend locates the diagnostic
    in another file (a torch.export archive: the model's Python source), which the file's
    `path` alone misnamed."""
    return {
        "path": diag.span.source.path,
        "severity": diag.severity.value,
        "code": diag.code,
        "message": diag.message,
        **_position(diag.span),
        "label": diag.label,
        "labels": [_label_json(label) for label in diag.labels],
        "notes": list(diag.notes),
        "help": diag.help,
    }


#: the forms `render_diagnostics` writes
FORMATS = ("text", "json", "sarif")


def render_diagnostics(diagnostics: Iterable[Diagnostic], format: str = "text", color: bool = False) -> str:
    """Diagnostics as `gradual check` writes them, as a string: `text` the rustc-style report
    (ANSI colours when `color`), `json` a JSON array of the objects of `gradual check
    --format json` (each diagnostic's `path`, `severity`, `code`, `message`, positions,
    `label`, `labels`, `notes`, `help`), `sarif` a SARIF 2.1.0 log (one run, a result per
    diagnostic). Each is drawn by the command line's own code."""
    if not isinstance(format, str) or format not in FORMATS:
        raise ValueError(f"gradual.render_diagnostics: format must be one of {', '.join(FORMATS)}, not {format!r}")
    if isinstance(diagnostics, Diagnostic):
        diagnostics = [diagnostics]
    try:
        diags = list(diagnostics)
    except TypeError:
        raise TypeError(
            f"gradual.render_diagnostics takes diagnostics (a list of gradual.Diagnostic), not {type(diagnostics).__name__}"
        ) from None
    for diag in diags:
        if not isinstance(diag, Diagnostic):
            raise TypeError(f"gradual.render_diagnostics takes gradual.Diagnostic items, not {type(diag).__name__}")
    if format == "json":
        import json

        return json.dumps([diagnostic_json(d) for d in diags], indent=2)
    if format == "sarif":
        import json

        from gradual.diagnostics.sarif import sarif_of_diagnostics

        return json.dumps(sarif_of_diagnostics(diags), indent=2)
    import io

    from rich.console import Console

    out = io.StringIO()
    console = Console(
        file=out,
        highlight=False,
        force_terminal=bool(color),
        no_color=not color,
        color_system="standard" if color else None,
        width=200,
        soft_wrap=True,
    )
    render_all(diags, console)
    return out.getvalue()
