"""`gradual check --format sarif`: the diagnostics as one SARIF 2.1.0 run, for CI code scanning.

A rule per diagnostic code (its summary, default level, and its section of
docs/diagnostics.md as help URI); a result per diagnostic, with the primary span as its
location (the label as the region's message), the secondary labels as related locations, and
notes and help in the message. A path is normalized
(`./a/../b.rly` is `b.rly`): a relative one is a relative URI against the `%SRCROOT%` base,
which `originalUriBaseIds` sets to the working directory (as GitHub code scanning wants
relative paths from the repository's root); one outside it (`../x.rly`) or absolute is a
`file:` URI. Each rule carries, as GitHub requires, a full description and help: its section
of docs/diagnostics.md. A file that could not be read has a region at its start. A diagnostic of a model (its
listing: a line per node) is a location in the model file at its start (the file has no
lines: a region is all GitHub needs) with the node as its logical location, the listing line
in its properties, and a fingerprint of its own (see `_location`, `_fingerprint`); so is a
torch.export archive's Python line whose file is not here (`_elsewhere`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, Iterable, Optional
from urllib.parse import quote

from gradual.diagnostics import Diagnostic, Label, Severity, docs_url
from gradual.diagnostics.codes import CODES
from gradual.infra.version import __version__
from gradual.syntax.source import Span, is_placed, python_lines

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def sarif_log(files: Iterable[Any], failure: Optional[tuple] = None) -> dict:
    """A SARIF log of checked inputs (`gradual.analysis.Checked`). `failure`: the (code,
    message) of an error that stopped the command before it checked anything (a usage
    error): the run's invocation then says it failed, with the error as a tool notification
    (SARIF 2.1.0 §3.20.14, §3.58), and has no results."""
    files = list(files)
    located = [
        (diag, checked.input.path if checked.input.model is not None else None)
        for checked in files
        for diag in checked.diagnostics
    ]
    return _log(located, _stdin_artifact(files), failure)


def sarif_of_diagnostics(diagnostics: Iterable[Diagnostic]) -> dict:
    """A SARIF log of diagnostics a library caller holds (`gradual.render_diagnostics`): as
    `gradual check --format sarif` writes them, each of a program or a frontend's own file."""
    return _log([(diag, None) for diag in diagnostics], None, None)


def _log(located: list, stdin: Optional[dict], failure: Optional[tuple]) -> dict:
    """The log of (diagnostic, the path of the binary model file it is of, or None) pairs."""
    _file_lines.cache_clear()
    codes = list(CODES)
    results = [_result(diag, codes, model) for diag, model in located]
    sections = _doc_sections()
    driver = {
        "name": "gradual",
        "version": __version__,
        "informationUri": docs_url("").rstrip("#"),
        "rules": [_rule(CODES[code], sections.get(code, "")) for code in codes],
    }
    run: dict = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}
    if stdin is not None:
        run["artifacts"] = [stdin]
    root = _source_root()
    if root is not None:
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": root}}
    if failure is not None:
        code, message = failure
        run["invocations"] = [
            {
                "executionSuccessful": False,
                "exitCode": 2 if code == "usage-error" else 4,
                "toolExecutionNotifications": [
                    {"level": "error", "message": {"text": message}, "descriptor": {"id": code}}
                ],
            }
        ]
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
    from gradual.diagnostics import docs_path

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


def _result(diag: Diagnostic, codes: list, model: Optional[str]) -> dict:
    """A result; `model`: the path of the binary model file the diagnostic is of (None: a
    program), whose listing locations are not regions of that file (see `_location`)."""
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
    if _in_model(diag.span, model):
        result["partialFingerprints"] = {"primaryLocationLineHash": _fingerprint(diag)}
    return result


def _related(index: int, label: Label, model: Optional[str]) -> dict:
    found = _location(label.span, label.message, model)
    found["id"] = index
    found["message"] = {"text": label.message}
    return found


def _in_listing(span: Span, model: Optional[str]) -> bool:
    """Whether a span is in a model's listing (the text gradual writes of a binary model file,
    a line per node: `node fc2 (Gemm): a, w -> y`), not in a text file (a torch.export
    archive's diagnostics are mostly in the model's Python source)."""
    return model is not None and span.source.path == model and bool(span.source.text)


def _in_model(span: Span, model: Optional[str]) -> bool:
    """Whether a span is located in the model file: its listing, or a Python line of a
    torch.export archive whose file is not here (see `_elsewhere`)."""
    return _in_listing(span, model) or _elsewhere(span, model)


def _elsewhere(span: Span, model: Optional[str]) -> bool:
    """Whether a span of a model's diagnostic is a Python line that no file here holds: the
    archive's stack traces name the exporting machine's files (`/home/alice/proj/model.py`, or
    a path relative to where it ran), which a SARIF viewer of this repository cannot open. The
    line's text is the code the trace recorded (frontends/torch_export/locations.py)."""
    if model is None or span.source.path == model or not span.source.text:
        return False
    line = span.start_position[0]
    return _file_line(span.source.path, line) != span.source.line_text(line).rstrip("\r\n")


def _file_line(path: str, line: int) -> Optional[str]:
    """Line `line` (1-based) of the text file at `path`, None when there is no such file or line."""
    lines = _file_lines(path)
    return lines[line - 1] if lines is not None and 1 <= line <= len(lines) else None


@functools.lru_cache(maxsize=32)
def _file_lines(path: str) -> Optional[tuple]:
    """The lines of a text file (each read once per log: `sarif_log` clears the cache), None
    when it is not a readable file of at most 50 MB (as the torch.export frontend reads them)."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > 50_000_000:
            return None
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            return tuple(python_lines(handle.read()))
    except (OSError, ValueError):
        return None


def _elsewhere_location(span: Span, message: str, model: str) -> dict:
    """A location in a Python file that is not here: the model archive at its start (the
    region GitHub requires), the Python line as the logical location (`models.py:69`, its
    full path as the fully qualified name), and the file, line, column and code recorded in
    the location's properties."""
    line, column = span.start_position
    path = span.source.path
    name = f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}"
    found = {
        "physicalLocation": {"artifactLocation": _artifact(model), "region": {"startLine": 1}},
        "logicalLocations": [{"name": name, "fullyQualifiedName": f"{path}:{line}"}],
        "properties": {
            "pythonFile": path,
            "pythonLine": line,
            "pythonColumn": column,
            "code": span.source.line_text(line).strip(),
        },
    }
    if message:
        found["message"] = {"text": message}
    return found


def _location(span: Span, message: str, model: Optional[str]) -> dict:
    """A location: a region of a text file; in a model, the model file as the artifact (with
    the region GitHub requires, its start: the file has no lines) and the node (or graph
    input, initializer, outputs) it is about as the logical location, with the listing's
    line kept in the location's properties. The listing's line numbers counted nodes, which no
    viewer of the .onnx file can show."""
    physical: dict = {"artifactLocation": _artifact(span.source.path)}
    if (
        not span.source.text or is_placed(span.source) and not span.source.text.strip()
    ):  # a file that could not be read: GitHub needs a region all the same
        line, column = span.start_position if is_placed(span.source) else (1, 1)  # a frontend's own position
        physical["region"] = {"startLine": line, "startColumn": column, "endLine": line, "endColumn": column}
        return {"physicalLocation": physical}
    if _elsewhere(span, model):
        return _elsewhere_location(span, message, model)  # type: ignore[arg-type]
    line, column = span.start_position
    if _in_listing(span, model):
        listed = span.source.line_text(line)
        physical["region"] = {"startLine": 1}
        name, kind = _listed_construct(listed)
        found = {
            "physicalLocation": physical,
            "logicalLocations": [{"name": name, "kind": kind} if kind else {"name": name}],
            "properties": {"listing": listed, "listingLine": line, "listingColumn": column},
        }
        if message:  # about the node's tensors, not about the region (the file's start)
            found["message"] = {"text": message}
        return found
    end_line, end_column = span.end_position
    region: dict[str, object] = {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
    if message:
        region["message"] = {"text": message}
    physical["region"] = region
    return {"physicalLocation": physical}


#: what a listing line describes, by how it begins (frontends/onnx/listing.py, and the
#: torch.export frontend's), as SARIF logical location kinds (SARIF 2.1.0 §3.33.7); a node has
#: none of SARIF's kinds, so its kind is the tool's own `node`
_LISTED_KINDS = (
    ("node ", "node"),
    ("graph input ", "parameter"),
    ("initializer ", "variable"),
    ("graph outputs", "returnType"),
)


def _listed_construct(listed: str) -> tuple:
    """The name of what a listing line describes (the line up to its `: `, e.g. `node fc2
    (Gemm)`, `graph input x`) and its logical location kind."""
    name = listed.split(": ", 1)[0].strip() or listed
    kind = next((k for prefix, k in _LISTED_KINDS if name.startswith(prefix)), "")
    return name, kind


def _fingerprint(diag: Diagnostic) -> str:
    """A model result's `primaryLocationLineHash`, which GitHub otherwise computes from the
    text at the region's line: every result of a model shares the region at its start, so
    each would look like the first (alerts merged). It hashes the rule, the listing line (a
    node's name, operator and tensors: stable when nodes are added elsewhere; for a Python
    line that is not here, its code) and the message."""
    import hashlib

    line = diag.span.source.line_text(diag.span.start_position[0])
    digest = hashlib.sha256("\0".join((diag.code, line, diag.message)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16] + ":1"


#: standard input (`gradual check -`) as SARIF describes an artifact that is no file
STDIN = "-"
_STDIN_DESCRIPTION = {"text": "standard input"}


def _stdin_artifact(files: list) -> Optional[dict]:
    """The run's artifact for standard input when an input is `-` (the run's only artifact,
    index 0), with the text that was read as its contents: a result there has no file to
    point at, so its location names the artifact by index (SARIF 2.1.0 §3.4.5, §3.24.8)."""
    read = [checked.input for checked in files if checked.input.path == STDIN]
    if not read:
        return None
    artifact: dict = {"location": {"description": dict(_STDIN_DESCRIPTION)}, "roles": ["analysisTarget"]}
    text = read[0].text
    if text is not None:
        artifact["contents"] = {"text": text}
        artifact["sourceLanguage"] = "gradual"
    return artifact


def _artifact(path: str) -> dict:
    """A path as an artifact location: normalized, relative to `%SRCROOT%` when it is under
    the working directory, else an absolute `file:` URI; standard input (`-`, as given: a
    file named so is `./-`) is the run's artifact 0 (it was the URI `-` against the working
    directory, a file that is not there)."""
    if path == STDIN:
        return {"index": 0, "description": dict(_STDIN_DESCRIPTION)}
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
