"""Signature help: the signature of the operator or function whose argument list holds the
cursor, with the parameter being written. Read from the text (it works while the call is
half-typed), the operator registry, and the newest analysis for a function's type.

Offsets are code points: into the document for the cursor, into `Signature.label` for each
parameter (the language server converts both).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from gradual.analysis.document import Analysis
from gradual.analysis.lexical import context_at
from gradual.ops.registry import AttrSpec, Operator, Registry, param_type_text
from gradual.types import FuncType, format_type


@dataclass
class Parameter:
    """One parameter: where it is in its signature's label, and what it is."""

    start: int
    end: int
    doc: str = ""


@dataclass
class Signature:
    """A callee's signature as one line of text, its parameters marked in it."""

    label: str
    parameters: list = field(default_factory=list)
    doc: str = ""
    attributes: dict = field(default_factory=dict)  # attribute name -> its parameter index


@dataclass
class SignatureHelp:
    signature: Signature
    active: Optional[int]


def attribute_text(spec: AttrSpec) -> str:
    """`units: int? = None` as the declaration writes it."""
    text = f"{spec.name}: {spec.describe()}"
    return text + (f" = {value_text(spec.default)}" if spec.has_default else "")


def value_text(value: Any) -> str:
    """An attribute value as the language writes it."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return str(value)


def _build(name: str, pieces: list, ret: str, doc: str = "") -> Signature:
    """`name(piece, piece) -> ret` with each piece a parameter (pieces: (text, doc))."""
    label = f"{name}("
    parameters = []
    for i, (text, piece_doc) in enumerate(pieces):
        if i:
            label += ", "
        parameters.append(Parameter(len(label), len(label) + len(text), piece_doc))
        label += text
    label += f") -> {ret}"
    return Signature(label, parameters, doc)


_MADE: dict = {}  # id(operator) -> (the operator, its signature)


def operator_signature(op: Operator) -> Signature:
    """An operator's tensor parameters (with their types) then its attributes (with their
    kinds and defaults); made once an operator (completion lists a hundred at a time)."""
    kept = _MADE.get(id(op))
    if kept is not None and kept[0] is op:
        return kept[1]
    found = _operator_signature(op)
    _MADE[id(op)] = (op, found)
    return found


def _operator_signature(op: Operator) -> Signature:
    forms = op.forms or ("",) * len(op.param_names)
    pieces = [
        (f"%{n}: {param_type_text(format_type(t), f)}", "")
        for n, t, f in zip(op.param_names, op.signature.params, forms)
    ]
    pieces += [(attribute_text(spec), "required" if not spec.has_default else "") for spec in op.attrs.values()]
    found = _build(op.name, pieces, format_type(op.signature.ret), op.doc)
    found.attributes = {name: op.arity + i for i, name in enumerate(op.attrs)}
    return found


def function_signature(analysis: Optional[Analysis], name: str) -> Optional[Signature]:
    """A definition's signature as the newest analysis inferred it (None when it does not
    know the function)."""
    if analysis is None or analysis.result.resolution is None:
        return None
    d = analysis.result.resolution.defs.get(name)
    fn = analysis.result.functions.get(name) if analysis.result.functions else None
    if d is None:
        return None
    fn_type = fn.type if fn is not None and isinstance(fn.type, FuncType) else None
    pieces = []
    for i, p in enumerate(d.params):
        shown = format_type(fn_type.params[i]) if fn_type is not None and i < len(fn_type.params) else "?"
        pieces.append((f"%{p.var.name}: {shown}", ""))
    return _build(f"@{name}", pieces, format_type(fn_type.ret) if fn_type is not None else "?")


def written_signature(text: str, name: str) -> Optional[Signature]:
    """A definition's signature as its text writes it (for a definition the analysis does not
    know: one that does not parse yet)."""
    from gradual.analysis.lexical import tokens

    found = re.search(rf"(?:^|(?<=[\r\n]))def[ \t]+@{re.escape(name)}(?![A-Za-z0-9_])", text)
    if found is None:
        return None
    pieces: list = []
    depth = 0
    start = -1
    ret_start = -1
    for token in tokens(text, found.end()):
        value = text[token.start : token.end]
        if token.kind == "comment":
            continue
        if depth == 0 and value in ("{", "="):
            break
        if value in "([":
            depth += 1
            if depth == 1 and value == "(" and start == -1 and not pieces:
                start = token.end
        elif value in ")]":
            depth -= 1
            if depth == 0 and start != -1 and ret_start == -1:
                if text[start : token.start].strip():
                    pieces.append(text[start : token.start].strip())
                ret_start = token.end
                start = -2
        elif value == "," and depth == 1 and start >= 0:
            pieces.append(text[start : token.start].strip())
            start = token.end
    if ret_start < 0:
        return None
    ret = text[ret_start : token.start].strip().removeprefix("->").strip() or "?"
    return _build(f"@{name}", [(" ".join(p.split()), "") for p in pieces], ret)


def signature_help(
    text: str, offset: int, registry: Optional[Registry], analysis: Optional[Analysis] = None
) -> Optional[SignatureHelp]:
    """The signature of the call around `offset` and the active parameter: the attribute
    the current argument names (`axis=`), else the argument's position, and past the tensor
    arguments the first attribute not given yet."""
    context = context_at(text, offset)
    if context.in_comment:
        return None
    frame = context.call()
    if frame is None:
        return None
    callee = frame.callee
    if callee.startswith("@"):
        found = function_signature(analysis, callee[1:]) or written_signature(text, callee[1:])
        if found is None:
            return None
        active = frame.argument if frame.argument < len(found.parameters) else None
        return SignatureHelp(found, active)
    op = registry.get(callee) if registry is not None else None
    if op is None:
        return None
    found = operator_signature(op)
    if frame.attribute in found.attributes:
        return SignatureHelp(found, found.attributes[frame.attribute])
    if frame.argument < op.arity:
        return SignatureHelp(found, frame.argument)
    left = [name for name in op.attrs if name not in frame.given]
    return SignatureHelp(found, found.attributes[left[0]] if left else None)
