"""The prelude (stdlib/prelude.rly): types and definitions a program may use without defining.

Loaded on demand, as Relay's programs have their prelude imported: a program that names a type,
a constructor or a global it does not define, and that the prelude defines, is checked with
the prelude's definitions it needs added (and those they need in turn). A name the program
defines itself is the program's own, everywhere: Relay prints every definition of a module, so
a printed program that holds its own `List` is checked as it stands. Nothing is added to a
program that uses none of the prelude's names.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

from gradual.diagnostics import codes
from gradual.ops.registry import PRELUDE_FILE, stdlib_dir
from gradual.syntax import ast
from gradual.syntax.parser import parse_source
from gradual.syntax.source import Source


@lru_cache(maxsize=1)
def prelude_module() -> ast.Module[ast.Def]:
    """The prelude, parsed once."""
    path = stdlib_dir() / PRELUDE_FILE
    return parse_source(Source(path.read_text(encoding="utf-8"), str(path)))


@lru_cache(maxsize=1)
def _prelude_tables() -> tuple[dict[str, ast.Def], dict[str, ast.TypeDef], dict[str, Any]]:
    """The prelude's definitions and types by name, the constructors' types, and what each
    definition or type uses (names of globals, types and constructors)."""
    module = prelude_module()
    defs = {d.name: d for d in module.defs}
    types = {t.name: t for t in module.types}
    ctors = {c.name: t.name for t in module.types for c in t.ctors}
    uses = {("def", d.name): _names_used([d]) for d in module.defs}
    uses.update({("type", t.name): _names_used([t]) for t in module.types})
    return defs, types, {"ctors": ctors, "uses": uses}


#: the codes of a name nothing defines (a constructor used as a value is an unknown operator,
#: a bare type name an unknown dtype): only a program with one of these can need the prelude
UNKNOWN_NAME_CODES = frozenset(
    {
        codes.UNKNOWN_GLOBAL,
        codes.UNKNOWN_TYPE,
        codes.UNKNOWN_CONSTRUCTOR,
        codes.UNKNOWN_OPERATOR,
        codes.UNKNOWN_DTYPE,
    }
)


def may_use_prelude(text: str) -> bool:
    """Whether a program's text names one of the prelude's definitions, types or constructors
    (a word search: what a tool that has no resolution yet asks before `with_prelude`)."""
    return _prelude_words().search(text) is not None


@lru_cache(maxsize=1)
def _prelude_words() -> "re.Pattern[str]":
    defs, types, tables = _prelude_tables()
    words = sorted({*(f"@{d}" for d in defs), *types, *tables["ctors"]}, key=len, reverse=True)
    return re.compile(r"(?<![A-Za-z0-9_.%@])(?:" + "|".join(re.escape(w) for w in words) + r")(?![A-Za-z0-9_])")


def needs_prelude(diagnostics: Iterable[object]) -> bool:
    """Whether name resolution found a name nothing defines (the prelude may)."""
    return any(getattr(d, "code", None) in UNKNOWN_NAME_CODES for d in diagnostics)


def with_prelude(module: ast.Module[ast.Def]) -> ast.Module[ast.Def]:
    """The module with the prelude's definitions it needs added (see the module docstring);
    the module itself when it needs none."""
    defs, types, tables = _prelude_tables()
    ctors, uses = tables["ctors"], tables["uses"]
    own_defs = {d.name for d in module.defs}
    own_types = {t.name for t in module.types}
    own_ctors = {c.name for t in module.types for c in t.ctors}
    wanted = []
    for kind, name in _names_used(module.defs):
        if kind == "global" and name in defs and name not in own_defs:
            wanted.append(("def", name))
        elif kind == "type" and name in types and name not in own_types:
            wanted.append(("type", name))
        elif kind == "ctor" and name in ctors and name not in own_ctors and name not in own_types:
            wanted.append(("type", ctors[name]))
    if not wanted:
        return module
    needed: set[tuple[str, str]] = set()
    while wanted:
        key = wanted.pop()
        if key in needed:
            continue
        needed.add(key)
        for kind, name in uses[key]:
            if kind == "global" and name in defs and name not in own_defs:
                wanted.append(("def", name))
            elif kind == "type" and name in types and name not in own_types:
                wanted.append(("type", name))
            elif kind == "ctor" and name in ctors and name not in own_ctors:
                wanted.append(("type", ctors[name]))
    added_defs = tuple(d for d in prelude_module().defs if ("def", d.name) in needed)
    added_types = tuple(t for t in prelude_module().types if ("type", t.name) in needed)
    return ast.Module(module.defs + added_defs, module.types + added_types, span=module.span)


def _names_used(nodes: Iterable[object]) -> set[tuple[str, str]]:
    """The (kind, name) of every global, type and constructor the nodes mention (an
    iterative walk of the tree)."""
    found: set[tuple[str, str]] = set()
    stack: list[object] = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
            continue
        if not isinstance(node, ast.Node):
            continue
        cls = node.__class__
        if cls is ast.GlobalVar:
            found.add(("global", node.name))  # type: ignore[attr-defined]
        elif cls is ast.OpRef:
            found.add(("ctor", node.name))  # type: ignore[attr-defined]
        elif cls is ast.PCtor:
            found.add(("ctor", node.name))  # type: ignore[attr-defined]
        elif cls is ast.AdtTypeExpr:
            found.add(("type", node.name))  # type: ignore[attr-defined]
        elif cls is ast.TensorTypeExpr and node.dims == ():  # type: ignore[attr-defined]
            found.add(("type", node.dtype))  # type: ignore[attr-defined]
        elif cls is ast.Dataflow:
            found.update(("ctor", op) for op in node.ops)  # type: ignore[attr-defined]
            continue
        for name in getattr(node, "__dataclass_fields__", ()):
            if name != "span":
                stack.append(getattr(node, name))
    return found
