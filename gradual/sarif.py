"""`gradual check --format sarif`: the diagnostics as one SARIF 2.1.0 run, for CI code scanning.

A rule per diagnostic code (its summary, default level, and its section of
docs/diagnostics.md as help URI); a result per diagnostic, with the primary span as its
location (the label as the region's message), the secondary labels as related locations, and
notes and help in the message. Paths are written as given, relative ones against the
`%SRCROOT%` base. Model diagnostics point into the model's listing (line k is node #k-1), so
each also names its node as a logical location and carries the listing line as a snippet.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from . import __version__
from .diagnostics import CODES, Diagnostic, Label, Severity, docs_url
from .syntax.source import Span
from urllib.parse import quote

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def sarif_log(files: Iterable[Any]) -> dict:
    """A SARIF log of checked inputs (`gradual.analysis.Checked`)."""
    codes = list(CODES)
    results = []
    for checked in files:
        for diag in checked.diagnostics:
            results.append(_result(diag, codes, checked.input.model is not None))
    driver = {
        "name": "gradual",
        "version": __version__,
        "informationUri": docs_url("").rstrip("#"),
        "rules": [_rule(CODES[code]) for code in codes],
    }
    return {"$schema": SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}]}


def _rule(code: Any) -> dict:
    return {
        "id": code.name,
        "name": "".join(part.capitalize() for part in code.name.split("-")),
        "shortDescription": {"text": code.summary},
        "helpUri": docs_url(code.name),
        "defaultConfiguration": {"level": _LEVEL[code.severity]},
    }


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
    if span.source.text:
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
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}
