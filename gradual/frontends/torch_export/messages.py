"""The words of the torch.export frontend: archives it cannot read, the parts of a program it
cannot import, and how it shows a graph's nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradual.diagnostics import Diagnostic, codes
from gradual.frontends.messages import RUNNABLE_DTYPES
from gradual.syntax.source import Span

if TYPE_CHECKING:
    pass


# read, the parts of a program it cannot import, and how it shows a graph's nodes.
def torch_unreadable(span: Span, detail: str) -> Diagnostic:
    """A file that is not a torch.export archive."""
    return Diagnostic(
        codes.INPUT_ERROR,
        f"cannot read the file as a torch.export archive: {detail}",
        span,
        label="this file",
        help="pass an archive written by torch.export.save (usually `.pt2`)",
    )


def torch_archive_version(span: Span, detail: str) -> Diagnostic:
    """An archive in a format version gradual does not read."""
    return Diagnostic(
        codes.ARCHIVE_VERSION,
        f"this torch.export archive is in a format gradual does not read: {detail}",
        span,
        label="this file",
        help="re-export the model and save it with torch 2.13 (torch.export.save), or load and re-save it there",
    )


def torch_unsupported_node(span: Span, target: str, why: str) -> Diagnostic:
    """An ATen node the frontend does not import."""
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"the node `{target}` is not supported: {why}",
        span,
        label="this node",
        help="the supported operators are declared in stdlib/aten.rly",
        facts={"operator": target, "why": why},
    )


def torch_unsupported_dtype(span: Span, value: str, dtype: str) -> Diagnostic:
    """A value whose element type gradual cannot run."""
    return Diagnostic(
        codes.UNKNOWN_DTYPE,
        f"`{value}` has element type {dtype}, which gradual does not support",
        span,
        label="here",
        help=RUNNABLE_DTYPES,
    )


def torch_unsupported_input(span: Span, name: str, kind: str) -> Diagnostic:
    """A graph input gradual does not import (a custom object, a token)."""
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"the graph input `{name}` is a {kind.replace('_', ' ')}, which gradual does not import",
        span,
        label="here",
        help="only programs whose inputs are tensors, ints and constants can be checked",
    )


def torch_unsupported_output(span: Span, what: str) -> Diagnostic:
    """A program output that is not a tensor or symbolic int."""
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"the program returns {what}, but gradual imports only tensor and int outputs",
        span,
        label="here",
        help="return tensors from the exported module",
    )


def torch_undefined_value(span: Span, name: str) -> Diagnostic:
    """A value that nothing defines before its use."""
    return Diagnostic(
        codes.UNKNOWN_VARIABLE,
        f"`{name}` is used here, but no graph input or earlier node defines it",
        span,
        label="this node",
        help="an edited graph must define each value before its first use",
    )


def torch_node_note(text: str, where: str) -> str:
    """The note naming the ATen node behind a diagnostic at a Python line."""
    return f"from the ATen node `{text}` ({where})"


def torch_node_text(outputs: list, target: str, args: list) -> str:
    """A node as the listing shows it: `conv2d = aten.conv2d.default(x, weight, stride=[1, 1])`."""
    shown = ", ".join(n or "_" for n in outputs) or "_"
    return f"{shown} = {target}({', '.join(args)})"


def torch_input_text(kind: str, name: str, target: str, described: str) -> str:
    """A graph input as the listing shows it."""
    what = {
        "user_input": "graph input",
        "parameter": "parameter",
        "buffer": "buffer",
        "tensor_constant": "constant",
        "constant_input": "constant input",
    }.get(kind, kind.replace("_", " "))
    return f"{what} {name}" + (f" ({target})" if target else "") + f": {described}"


def torch_outputs_text(names: list) -> str:
    """The program's outputs as the listing shows them."""
    return f"graph outputs: {', '.join(names)}"


def torch_import_header(path: str, schema: str, torch_version: str, nodes: int) -> str:
    """The first comment line of `gradual import model.pt2`."""
    return (
        f"imported from {path} (torch.export schema {schema}, torch {torch_version}, "
        f"{nodes} node{'s' if nodes != 1 else ''}) by gradual"
    )


def torch_ranges_header(ranges: list) -> str:
    """The range constraints that bound @main's symbols (the text of a signature cannot)."""
    return f"range constraints: {', '.join(ranges)}"


def torch_guards_header(guards: list) -> str:
    """The guards torch.export recorded, over gradual's symbols (torch checks them on each call)."""
    shown = "; ".join(guards[:3]) + (f"; and {len(guards) - 3} more" if len(guards) > 3 else "")
    return f"torch.export's guards ({len(guards)}, checked by torch on each call): {shown}"


def torch_guards_note(guards: list) -> str:
    """What torch.export recorded about the dims a `dim-constraint` warning names."""
    more = f" (and {len(guards) - 1} more on these dims)" if len(guards) > 1 else ""
    return f"torch.export recorded the guard `{guards[0]}`{more}: torch checks it when the exported module is called"


def torch_missing_state(path: str, target: str) -> str:
    """A parameter, buffer or constant whose value the archive does not hold."""
    return f"{path}: the archive holds no value for `{target}`"


def torch_needs_torch() -> str:
    """The in-memory API without torch."""
    return "importing an ExportedProgram in memory needs torch; archives (.pt2) are read without it"
