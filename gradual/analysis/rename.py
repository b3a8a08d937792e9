"""Renaming a `%` variable, an `@` function or a dimension symbol, as text edits; and the
refusals, with their reasons: an operator (the library declares it), a name that is not one
(`%a-b`), a name the definition (or, for a function, the document) already uses, a document
that does not parse (the definitions that do not parse would keep the old name).

A variable and a dim symbol are renamed in their definition (where they are bound); a
function in the whole document. The new name may be given with its sigil or without.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Optional

from gradual.analysis.document import Analysis
from gradual.analysis.fixes import Edit
from gradual.analysis.lexical import CONSTANTS, DTYPE_NAMES, KEYWORDS, TYPE_NAMES
from gradual.analysis.queries import definitions, dim_names, end_of, references, start_of, target_at, walk
from gradual.syntax import ast
from gradual.syntax.source import Span

_LOCAL = re.compile(r"[A-Za-z0-9_]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIGIL = {"var": "%", "global": "@", "dim": ""}
_WHAT = {"var": "variable", "global": "function", "dim": "dimension"}


class RenameRefused(Exception):
    """A rename that cannot be made; the message says why (the editor shows it)."""


@dataclass
class Target:
    """What a rename at an offset renames: its kind ("var", "global", "dim"), its current
    name with its sigil, and the occurrence under the cursor."""

    kind: str
    name: str
    span: Span


def prepare(analysis: Analysis, offset: int) -> Optional[Target]:
    """What would be renamed at `offset`; None where nothing renamable is; RenameRefused
    for an operator or a document that does not parse."""
    found = _renamable(analysis, offset)
    return found[0] if found is not None else None


_LAST: list = [lambda: None, None, None]  # the analysis (weakly), offset and answer of the last `_renamable`


def _renamable(analysis: Analysis, offset: int) -> Optional[tuple]:
    """(the Target, its kind, key and definition, every occurrence's span in the document).
    The last answer is kept: an editor asks `prepareRename`, then `rename` at the same place."""
    if _LAST[0]() is analysis and _LAST[1] == offset:
        return _LAST[2]
    found = _find_renamable(analysis, offset)
    _LAST[:] = [weakref.ref(analysis), offset, found]
    return found


def _find_renamable(analysis: Analysis, offset: int) -> Optional[tuple]:
    found = target_at(analysis, offset)
    if found is None:
        return None
    kind, key, d = found
    if kind == "op":
        raise RenameRefused(f"`{key}` is an operator: the operator library declares it, a program cannot rename it")
    if any(diag.code == "parse-error" for diag in analysis.diagnostics):
        raise RenameRefused("the document does not parse: fix its syntax error first")
    spans = [s for s in references(analysis, offset, True) if s.source.path == analysis.path]
    here = next((s for s in spans if start_of(s) <= offset <= end_of(s)), None)
    if here is None:
        return None
    return Target(kind, analysis.text[start_of(here) : end_of(here)], here), kind, key, d, spans


def rename(analysis: Analysis, offset: int, new_name: str) -> list[Edit]:
    """The edits renaming what is at `offset` to `new_name` (RenameRefused: see the module
    docstring)."""
    found = _renamable(analysis, offset)
    if found is None:
        raise RenameRefused("nothing to rename here: put the cursor on a `%` variable, an `@` function or a dim")
    target, kind, key, d, spans = found
    sigil = _SIGIL[kind]
    bare = new_name[1:] if sigil and new_name.startswith(sigil) else new_name
    pattern = _LOCAL if kind == "var" else _NAME
    if not pattern.fullmatch(bare) or kind == "dim" and bare in KEYWORDS | CONSTANTS | TYPE_NAMES | DTYPE_NAMES:
        raise RenameRefused(f"`{new_name}` is not a {_WHAT[kind]} name")
    if sigil + bare == target.name:
        return []
    if _taken(analysis, kind, d, bare):
        where = "the document" if kind == "global" else f"`@{d.name}`"
        raise RenameRefused(
            f"`{sigil}{bare}` is already a name in {where}: renaming to it would change what names mean"
        )
    edits = {start_of(span): Edit(start_of(span), end_of(span), sigil + bare) for span in spans}
    return [edits[k] for k in sorted(edits)]


def _taken(analysis: Analysis, kind: str, d: ast.Def, name: str) -> bool:
    """Whether a rename of this kind may not take `name`: a function of the document, a dim
    or dtype variable of the definition, a variable of the definition (looked for in its text
    first: a walk of a definition of 1,000 lines for each rename was half its time)."""
    if kind == "global":
        return any(dd.name == name for dd in definitions(analysis))
    if kind == "dim":
        return any(n.name == name for n in dim_names(d)) or name in d.dtype_params
    written = re.compile(rf"%{re.escape(name)}(?![A-Za-z0-9_])")
    if written.search(analysis.text, start_of(d.span), end_of(d.span)) is None:
        return False
    return any(isinstance(n, ast.Var) and n.name == name for n in walk(d))
