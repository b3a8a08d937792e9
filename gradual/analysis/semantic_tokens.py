"""Semantic tokens: what each name of the document is, for an editor that colours by meaning
(Neovim and VS Code have no grammar of the language of their own).

The text is read lexically (`lexical.tokens`) and each name classified by where it stands:
a keyword; `Tensor` and dtypes are types; names inside a tensor type's dims, and a
definition's `[T, U]` and the dtype variables they name, are type parameters; a name before
`(` is a function (an operator: with the `defaultLibrary` modifier); `name=` in a call is a
property (an attribute). `%x` is a parameter or a variable as the analysis resolved it, with
the `declaration` modifier where it is bound, read from the text (the parameter lists of the
definition and its closures bind parameters); `@f` is a function (declared at its `def`).

Each token is (start, end, type, modifiers) in the document's code points; types and
modifiers are indices into LEGEND and MODIFIERS. A token never spans lines (a block comment
is one token per line).
"""

from __future__ import annotations

from typing import Callable, Optional

from gradual.analysis.document import Analysis
from gradual.analysis.lexical import CONSTANTS, DTYPE_NAMES, KEYWORDS, Token, tokens
from gradual.ops.registry import Registry
from gradual.syntax.source import LINE_BREAK

LEGEND = (
    "keyword",
    "function",
    "variable",
    "parameter",
    "type",
    "typeParameter",
    "number",
    "string",
    "comment",
    "property",
    "macro",
)
MODIFIERS = ("declaration", "defaultLibrary")
_TYPE = {name: i for i, name in enumerate(LEGEND)}
DECLARATION, DEFAULT_LIBRARY = 1, 2


def semantic_tokens(
    analysis: Analysis, registry: Optional[Registry] = None, pause: Callable[[], object] = lambda: None
) -> list[tuple]:
    """(start, end, type index, modifier bits) of each token, in document order. `pause()` is
    called every PAUSE_EVERY tokens (the server lets a more recently edited document's
    analysis run there)."""
    text = analysis.text
    found = list(tokens(text))
    out: list[tuple] = []
    depth = 0  # brackets open inside a `Tensor[`
    typeparams = False
    dtype_vars: set = set()
    after_def_name = False
    params: set = set()  # the `%` names the definition's and its closures' parameters bind
    parens = 0  # depth of parentheses in the definition
    params_at = -1  # the depth of the parameter list being read (-1: none)
    for i, token in enumerate(found):
        if i % PAUSE_EVERY == 0:
            pause()
        value = text[token.start : token.end]
        kind = token.kind
        if kind == "punct":
            if value in "([" and (depth or _before(found, i, text) == "Tensor"):
                depth += 1
            elif value in ")]" and depth:
                depth -= 1
            elif value == "[" and after_def_name:
                typeparams = True
            elif value == "]" and typeparams:
                typeparams = False
            if value == "(":
                parens += 1
                if params_at < 0 and (after_def_name or _before(found, i, text) == "fn"):
                    params_at = parens
            elif value == ")":
                if parens == params_at:
                    params_at = -1
                parens -= 1
            after_def_name = after_def_name and value == "["
            continue
        if kind == "comment":
            out.extend(_lines_of(text, token, _TYPE["comment"]))
            continue
        if kind == "global":
            declared = _before(found, i, text) == "def"
            after_def_name = declared
            if declared:
                dtype_vars, params, parens, params_at = set(), set(), 0, -1
            out.append((token.start, token.end, _TYPE["function"], DECLARATION if declared else 0))
            continue
        if kind == "local":
            role, bits = _local_role(value, found, i, text, params, params_at == parens)
            out.append((token.start, token.end, _TYPE[role], bits))
            continue
        simple = {"number": "number", "string": "string", "header": "macro", "hole": "typeParameter"}.get(kind)
        if simple is not None:
            out.append((token.start, token.end, _TYPE[simple], 0))
            continue
        if kind != "name":
            continue
        if typeparams:
            dtype_vars.add(value)
            out.append((token.start, token.end, _TYPE["typeParameter"], DECLARATION))
            continue
        role, bits = _name_role(value, depth, found, i, text, registry, dtype_vars)
        if role is not None:
            out.append((token.start, token.end, _TYPE[role], bits))
    return out


#: tokens between two calls of `pause`
PAUSE_EVERY = 2000


def _local_role(value: str, found: list, i: int, text: str, params: set, in_params: bool) -> tuple:
    """A `%x`'s role, read from the text: a parameter where a parameter list binds it (and
    after, until a `let` or `%x =` binds the name again), a variable otherwise; `declaration`
    where it is bound. (Walking the resolved tree for this took as long as the rest.)"""
    following = _after(found, i, text)
    if in_params and following in (":", ",", ")"):
        params.add(value)
        return "parameter", DECLARATION
    if _before(found, i, text) == "let" or following == "=" and _after(found, i + 1, text) != "=":
        params.discard(value)
        return "variable", DECLARATION
    return ("parameter", 0) if value in params else ("variable", 0)


def _name_role(
    value: str, depth: int, found: list, i: int, text: str, registry: Optional[Registry], dtype_vars: set
) -> tuple:
    """The role of a name token, by where it stands (see the module docstring)."""
    following = _after(found, i, text)
    if value in KEYWORDS or value in CONSTANTS:
        return "keyword", 0
    if value == "Tensor" or value in DTYPE_NAMES:
        return "type", 0
    if value in dtype_vars:
        return "typeParameter", 0
    if depth:
        return "typeParameter", 0
    if following == "(":
        known = registry is not None and value in registry
        return "function", DEFAULT_LIBRARY if known else 0
    if following == "=" and _before(found, i, text) in ("(", ","):
        return "property", 0
    return None, 0


def _before(found: list, i: int, text: str) -> str:
    for j in range(i - 1, -1, -1):
        if found[j].kind != "comment":
            return text[found[j].start : found[j].end]
    return ""


def _after(found: list, i: int, text: str) -> str:
    for j in range(i + 1, len(found)):
        if found[j].kind != "comment":
            return text[found[j].start : found[j].end]
    return ""


def _lines_of(text: str, token: Token, kind: int) -> list:
    """A token cut at its line breaks."""
    out = []
    at = token.start
    for m in LINE_BREAK.finditer(text, token.start, token.end):
        if m.start() > at:
            out.append((at, m.start(), kind, 0))
        at = m.end()
    if token.end > at:
        out.append((at, token.end, kind, 0))
    return out
