"""`gradual check --format sarif`: the diagnostics as one SARIF 2.1.0 run, for CI code scanning.

A rule per diagnostic code (its summary, default level, and its section of
docs/diagnostics.md as help URI); a result per diagnostic, with the primary span as its
location (the label as the region's message), the secondary labels as related locations, and
notes and help in the message. A path is normalized
(`./a/../b.rly` is `b.rly`): a relative one is a relative URI against the `%SRCROOT%` base,
which `originalUriBaseIds` sets to the working directory (as GitHub code scanning wants
relative paths from the repository's root); one outside it (`../x.rly`) or absolute is a
`file:` URI. Each rule carries, as GitHub requires, a full description and help: its section
of docs/diagnostics.md. A file that could not be read has a region at its start. Model diagnostics point into the model's listing (line k is node #k-1), so
each also names its node as a logical location and carries the listing line as a snippet.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Optional

from . import __version__
from .diagnostics import CODES, Diagnostic, Label, Severity, docs_url
from .syntax.source import Span
from urllib.parse import quote

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def sarif_log(files: Iterable[Any], failure: Optional[tuple] = None) -> dict:
    """A SARIF log of checked inputs (`gradual.analysis.Checked`). `failure`: the (code,
    message) of an error that stopped the command before it checked anything (a usage
    error): the run's invocation then says it failed, with the error as a tool notification
    (SARIF 2.1.0 §3.20.14, §3.58), and has no results."""
    codes = list(CODES)
    results = []
    for checked in files:
        for diag in checked.diagnostics:
            results.append(_result(diag, codes, checked.input.model is not None))
    sections = _doc_sections()
    driver = {
        "name": "gradual",
        "version": __version__,
        "informationUri": docs_url("").rstrip("#"),
        "rules": [_rule(CODES[code], sections.get(code, "")) for code in codes],
    }
    run: dict = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}
    root = _source_root()
    if root is not None:
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": root}}
    if failure is not None:
        code, message = failure
        run["invocations"] = [{"executionSuccessful": False, "exitCode": 2 if code == "usage-error" else 4,
                               "toolExecutionNotifications": [{"level": "error", "message": {"text": message},
                                                               "descriptor": {"id": code}}]}]
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _rule(code: Any, section: str) -> dict:
    """A rule: its code, summary, and its section of docs/diagnostics.md as description and
    help (the summary and the link where the document is not at hand)."""
    summary = code.summary[:1].upper() + code.summary[1:] + "."
    help_text = section or f"{summary} See {docs_url(code.name)}"
    return {
        "id": code.name,
        "name": "".join(part.capitalize() for part in code.name.split("-")),
        "shortDescription": {"text": code.summary},
        "fullDescription": {"text": summary},
        "help": {"text": help_text, "markdown": help_text},
        "helpUri": docs_url(code.name),
        "defaultConfiguration": {"level": _LEVEL[code.severity]},
    }


def _doc_sections() -> dict:
    """Each code's section of docs/diagnostics.md (its text under `## code`), or nothing when
    the document cannot be read."""
    from .diagnostics import docs_path

    try:
        text = docs_path().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    sections = {}
    for part in text.split("\n## ")[1:]:
        name, _, body = part.partition("\n")
        sections[name.strip()] = body.strip()
    return sections


def _source_root() -> Optional[str]:
    """The working directory as a `file:` URI ending in `/` (the `%SRCROOT%` base), or None
    where it cannot be found (removed, or a path too long for the system to return)."""
    try:
        uri = Path.cwd().as_uri()
    except (OSError, ValueError):
        return None
    return uri if uri.endswith("/") else uri + "/"


def _result(diag: Diagnostic, codes: list, model: bool) -> dict:
    text = diag.message
    extra = [f"note: {n}" for n in diag.notes] + ([f"help: {diag.help}"] if diag.help else [])
    if extra:
        text += "\n" + "\n".join(extra)
    result: dict = {
        "ruleId": diag.code,
        "level": _LEVEL[diag.severity],
        "message": {"text": text},
        "locations": [_location(diag.span, diag.label, model)],
    }
    if diag.code in codes:
        result["ruleIndex"] = codes.index(diag.code)
    related = [_related(i, label, model) for i, label in enumerate(diag.labels)]
    if related:
        result["relatedLocations"] = related
    return result


def _related(index: int, label: Label, model: bool) -> dict:
    found = _location(label.span, label.message, model)
    found["id"] = index
    found["message"] = {"text": label.message}
    return found


def _location(span: Span, message: str, model: bool) -> dict:
    physical: dict = {"artifactLocation": _artifact(span.source.path)}
    if not span.source.text:  # a file that could not be read: GitHub needs a region all the same
        physical["region"] = {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}
    else:
        line, column = span.start_position
        end_line, end_column = span.end_position
        region: dict = {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
        if message:
            region["message"] = {"text": message}
        if model:
            region["snippet"] = {"text": span.source.line_text(line)}
        physical["region"] = region
    found: dict = {"physicalLocation": physical}
    if model and span.source.text:
        found["logicalLocations"] = [{"name": span.source.line_text(span.start_position[0]), "kind": "function"}]
    return found


def _artifact(path: str) -> dict:
    """A path as an artifact location: normalized, relative to `%SRCROOT%` when it is under
    the working directory, else an absolute `file:` URI."""
    path = os.path.normpath(path) if path else path
    if not os.path.isabs(path) and (path == os.pardir or path.startswith(os.pardir + os.sep)):
        try:
            path = os.path.abspath(path)
        except OSError:  # no working directory to resolve it against: keep it relative
            pass
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    # the path's bytes, percent-encoded: a file name that is not UTF-8 (undecodable bytes held
    # as surrogates) made `quote` raise, an internal error for the whole report
    return {"uri": quote(os.fsencode(path.replace(os.sep, "/"))), "uriBaseId": "%SRCROOT%"}
