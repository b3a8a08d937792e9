"""Completion: what may be written at the cursor, as data.

Read from the newest text (it rarely parses while being typed) with `lexical.context_at`:

* after `%`: the variables written before the cursor in the definition (their types from the
  newest analysis that knows the definition);
* after `@`: the document's functions;
* inside a tensor type: its dims' symbols (and `?`), after the dims a dtype;
* after `:` or `->`: a type;
* inside an operator's argument list: its attributes not given yet (kind and default), and
  after `name=` a dtype or a boolean where the attribute takes one;
* elsewhere in a body: operators (signature and doc line), variables, keywords (functions
  are one `@` away: a document may define hundreds).

Operators are offered by namespace: `nn.` and the like stand for their members until the
prefix names the namespace (545 operators at once would cost the editor more than they help);
a prefix of two or more characters also finds members by their short name (`dense` offers
`nn.dense`). The list is then incomplete: the editor asks again as the prefix grows.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from typing import Optional

from gradual.analysis.document import Analysis
from gradual.analysis.lexical import Context, context_at, word_range
from gradual.analysis.signature_help import attribute_text, operator_signature
from gradual.ops.registry import Registry
from gradual.types import DTYPES, FuncType, Type, format_type

#: the most `@` functions offered at once (the list is incomplete past it)
MAX_ITEMS = 200
KINDS = ("operator", "namespace", "function", "variable", "dim", "dtype", "attribute", "keyword", "value", "type")


@dataclass
class Item:
    """One completion: `label` is also the text inserted (over the word being typed) unless
    `insert` says otherwise; `kind` is one of KINDS; `group` orders the list."""

    label: str
    kind: str
    detail: str = ""
    doc: str = ""
    insert: str = ""
    group: int = 5


@dataclass
class Completions:
    """The items, and the document range [start, end) they replace (the word being typed)."""

    start: int
    end: int
    items: list = field(default_factory=list)
    incomplete: bool = False


_DEF_NAME = re.compile(r"def[ \t]+@([A-Za-z_][A-Za-z0-9_]*)")
_DEFINED = re.compile(r"(?:^|(?<=[\r\n]))def[ \t]+@([A-Za-z_][A-Za-z0-9_]*)")


def complete(text: str, offset: int, registry: Registry, analysis: Optional[Analysis] = None) -> Completions:
    """The completions at `offset` of `text` (see the module docstring). `analysis` may be of
    an older version: it only gives types, looked up by name."""
    offset = max(0, min(offset, len(text)))
    start, end = word_range(text, offset)
    word = text[start:end]
    context = context_at(text, offset)
    found = Completions(start, end)
    if context.in_comment:
        return found
    if word.startswith("%"):
        found.items = _variables(text, offset, context, analysis, word)
    elif word.startswith("@"):
        found.items = _functions(text, analysis, word)
        found.incomplete = len(found.items) >= MAX_ITEMS
    elif word.startswith("?"):
        pass
    else:
        found.items, found.incomplete = _by_place(text, offset, context, registry, analysis, word)
    return found


def _by_place(
    text: str, offset: int, context: Context, registry: Registry, analysis: Optional[Analysis], word: str
) -> tuple[list, bool]:
    """What may stand where no sigil says it: by the brackets around the cursor."""
    frame = context.frames[-1] if context.frames else None
    previous = text[context.previous.start : context.previous.end] if context.previous is not None else ""
    if frame is not None and frame.kind == "dims":
        dims = [Item(n, "dim", "dimension of this definition", group=0) for n in context.dim_names if n != word]
        return _matching(dims + [Item("?", "dim", "a dimension known only at runtime", group=1)], word), False
    if frame is not None and frame.kind == "tensor":
        if frame.argument == 0:
            return [], False
        return _matching(_dtypes(context), word), False
    if frame is not None and frame.kind == "typeparams":
        return [], False
    if previous in (":", "->") and (frame is None or frame.kind != "call"):
        types = [Item("Tensor", "type", "Tensor[(dims), dtype]", group=0), Item("fn", "keyword", "a function type")]
        return _matching(types + _dtypes(context), word), False
    call = context.call()
    if call is not None:
        op = registry.get(call.callee)
        if call.attribute and previous == "=":
            return _matching(_attribute_values(op, call.attribute), word), False
        items = []
        if op is not None and call.argument >= 0:
            for spec in op.attrs.values():
                if spec.name not in call.given:
                    items.append(Item(spec.name, "attribute", attribute_text(spec), "", f"{spec.name}=", group=0))
        items += _expression(text, offset, context, registry, analysis, word)
        return _matching(items, word), True
    if frame is not None and frame.kind == "params":
        return [], False
    if context.in_definition and frame is not None:
        return _matching(_expression(text, offset, context, registry, analysis, word), word), True
    if frame is None:
        return _matching([Item("def", "keyword", "define a function", group=0)], word), False
    return [], False


def _matching(items: list, word: str) -> list:
    """The items whose label starts with the word (ignoring case); an operator also when its
    name after the namespace does."""
    if not word:
        return items
    lowered = word.lower()
    out = []
    for item in items:
        label = item.label.lower()
        if label.startswith(lowered):
            out.append(item)
        elif (
            item.kind == "operator"
            and len(word) >= 2
            and "." not in word
            and label.rsplit(".", 1)[-1].startswith(lowered)
        ):
            out.append(item)
    return out


def _expression(
    text: str, offset: int, context: Context, registry: Registry, analysis: Optional[Analysis], word: str
) -> list:
    """Operators, functions, variables and keywords (see the module docstring for how
    operators are grouped by namespace)."""
    items = _variables(text, offset, context, analysis, "%")
    items += _operators(registry, word)
    items += [
        Item("let", "keyword", "bind a value: let %x = e;", group=4),
        Item("if", "keyword", "if (cond) { ... } else { ... }", group=4),
        Item("fn", "keyword", "a closure: fn (%x) { ... }", group=4),
    ]
    return items


def _operators(registry: Registry, word: str) -> list:
    """Operators in the namespace the word names (`nn.de`), or those outside any namespace
    and the namespaces themselves; with two or more characters, also members whose short
    name starts with the word."""
    items = []
    namespace = word.rsplit(".", 1)[0] + "." if "." in word else ""
    spaces: set = set()
    lowered = word.lower()
    for name in registry.names():
        head, dot, short = name.rpartition(".")
        if namespace:
            if not name.lower().startswith(namespace.lower()):
                continue
        elif dot:
            if not (len(word) >= 2 and short.lower().startswith(lowered)):
                top = name.split(".", 1)[0] + "."
                if top not in spaces:
                    spaces.add(top)
                    items.append(Item(top, "namespace", f"operators {top}*", group=3))
                continue
        op = registry.get(name)
        if op is None:
            continue
        items.append(Item(name, "operator", operator_signature(op).label, op.doc, group=2))
    return items


def _variables(text: str, offset: int, context: Context, analysis: Optional[Analysis], word: str) -> list:
    """The `%` names written before the cursor in this definition, newest first."""
    types = _local_types(text, offset, analysis)
    seen = set()
    items = []
    for name in reversed(context.locals_before):
        if name in seen or name == word or len(name) < 2:
            continue
        seen.add(name)
        items.append(Item(name, "variable", types.get(name, ""), group=0))
    return items


def _local_types(text: str, offset: int, analysis: Optional[Analysis]) -> dict:
    """`%name` -> its type as the analysis inferred it, for the definition around the cursor
    (found by its name, so an analysis of an older version serves)."""
    if analysis is None or analysis.result.resolution is None:
        return {}
    from gradual.analysis.lexical import definition_bounds
    from gradual.analysis.queries import param_type

    start, _ = definition_bounds(text, offset)
    named = _DEF_NAME.match(text, start)
    d = analysis.result.resolution.defs.get(named.group(1)) if named else None
    if d is None:
        return {}
    out = {}
    for index, p in enumerate(d.params):
        t = param_type(analysis, d, d, index)
        if t is not None:
            out[f"%{p.var.name}"] = format_type(t)
    for stmt in d.body.stmts:
        lt = analysis.result.types.get(id(stmt))
        var = getattr(stmt, "var", None)
        if lt is not None and var is not None:
            out[f"%{var.name}"] = format_type(lt)
    return out


def _functions(text: str, analysis: Optional[Analysis], word: str) -> list:
    """The document's `@` functions that start with the word (their types from the
    analysis), at most MAX_ITEMS."""
    seen = set()
    items = []
    prefix = word[1:].lower()
    for m in _DEFINED.finditer(text):
        name = m.group(1)
        if name in seen or not name.lower().startswith(prefix):
            continue
        seen.add(name)
        items.append(Item(f"@{name}", "function", _function_type(analysis, name), group=1))
        if len(items) >= MAX_ITEMS:
            break
    return items


_TYPES: "weakref.WeakKeyDictionary[Analysis, dict]" = weakref.WeakKeyDictionary()


def _function_type(analysis: Optional[Analysis], name: str) -> str:
    """A function's type as text, made once an analysis (completing `@` in a document of 900
    functions printed every type each time: 0.3 s)."""
    if analysis is None or not analysis.result.functions:
        return ""
    known = _TYPES.setdefault(analysis, {})
    if name not in known:
        fn = analysis.result.functions.get(name)
        t: Optional[Type] = fn.type if fn is not None else None
        known[name] = format_type(t) if isinstance(t, FuncType) else ""
    return known[name]


def _dtypes(context: Context) -> list:
    items = [Item(name, "dtype", "dtype variable of this definition", group=0) for name in context.dtype_params]
    return items + [Item(name, "dtype", "dtype", group=1) for name in DTYPES]


def _attribute_values(op: object, name: str) -> list:
    spec = getattr(op, "attrs", {}).get(name)
    if spec is None:
        return []
    if spec.kind == "dtype":
        return [Item(f'"{d}"', "value", "dtype") for d in DTYPES]
    if spec.kind == "bool":
        return [Item("True", "value", "bool"), Item("False", "value", "bool")]
    return []
