"""The checker's words: call sites, flows, names, calls and expressions. Inference and the call
sites pass facts; this module phrases them.

Style (rustc/Elm): lowercase, no final period, code in backticks; the message names the
operator and the argument position; the primary label sits on the smallest span; secondary
labels say where the other side came from; `help` alone suggests a fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from gradual.checker.site.values import Callee, Origin, SDim, SDType
from gradual.diagnostics import Diagnostic, Label, Severity, codes
from gradual.diagnostics.words import backticked, did_you_mean, dim_name, ordinal, rename_data, safe_format
from gradual.ops.messages import RULE_MESSAGES
from gradual.shapes import Dimension
from gradual.syntax.source import Span
from gradual.types import REF_CONTENT, RefType, Type, format_dims, format_dtype, format_type, type_symbols

if TYPE_CHECKING:
    from gradual.checker.site.state import SiteState  # a call site, as its mixins see it
    from gradual.shapes.constraint import Constraint


def path_phrase(path: tuple[Any, ...]) -> str:
    """`field 1 of the contents of `: the way into a value along a tuple/reference path."""
    return "".join(path_step(i) for i in reversed(path))


def path_step(step: object) -> str:
    return "the contents of " if step == REF_CONTENT else f"field {step} of "


def _callee_name(callee: "Callee") -> str:
    """A callee as messages name it: code (`nn.dense`, `@f`, `%g`), or "this function" for a
    function expression called where it is written."""
    display = callee.display
    return display if callee.kind == "closure" and display == "this function" else backticked(display)


def argument_phrase(site: "SiteState", index: int) -> str:
    """`the 2nd argument to `nn.dense``, naming a user function's parameter when known."""
    callee = site.callee
    if callee.kind == "flow":
        return callee.name
    name = ""
    if index < len(callee.param_names) and callee.kind != "op":
        name = f" (`%{callee.param_names[index]}`)"
    return f"the {ordinal(index + 1)} argument{name} to {_callee_name(callee)}"


def origin_phrase(site: "SiteState", origin: Optional["Origin"], short: bool = False) -> str:
    """`dim 1 of the 2nd argument to `nn.dense`` (short: without `to ...`)."""
    if origin is None:
        return "a dimension computed by the rule"
    if short and site.callee.kind != "flow":
        where = path_phrase(origin.path) + f"the {ordinal(origin.arg + 1)} argument"
    else:
        where = path_phrase(origin.path) + argument_phrase(site, origin.arg)
    if origin.axis is None:
        return f"the dtype of {where}"
    return f"{dim_name(origin.axis)} of {where}"


def _origin_span(site: "SiteState", origin: Optional["Origin"]) -> Span:
    if origin is None:
        return site.span
    info = site.arg_infos[origin.arg]
    node = info.node
    for i in origin.path:
        fields = getattr(node, "fields", None)
        if fields is None or not isinstance(i, int) or i >= len(fields):
            break
        node = fields[i]
    span = node.span if node is not None and getattr(node, "span", None) is not None else info.span
    if not span.source.text and site.span.source.text:
        return site.span  # a node built without a location: point at the call's location
    return span


def _arg_type(site: "SiteState", origin: Optional["Origin"]) -> str:
    if origin is None:
        return ""
    t: Any = site.solver.resolve_type(site.arg_infos[origin.arg].type)
    for i in origin.path:
        if i == REF_CONTENT and isinstance(t, RefType):
            t = t.content
            continue
        fields = getattr(t, "fields", None)
        if fields is None or not isinstance(i, int) or i >= len(fields):
            return ""
        t = fields[i]
    return format_type(_resolved(site, t))


def _resolved(site: "SiteState", t: Type) -> Type:
    from gradual.types import map_dims

    return map_dims(site.solver.resolve_type(t), lambda d: site.solver.resolve(d, final=True))


def _signature_note(site: "SiteState") -> tuple[str, ...]:
    if not site.callee.signature:
        return ()
    if site.callee.kind == "op":
        return (f"the signature is {site.callee.signature}",)
    return (f"{_callee_name(site.callee)} has type {site.callee.signature}",)


def cast_reason(site: "SiteState", index: int) -> str:
    """Why a cast was inserted: what assumed it."""
    return f"{argument_phrase(site, index)} at {site.arg_infos[index].span.describe()}"


def returned_function_reason(callee: str, span: Span) -> str:
    """Why the result of a call that returns a function is checked: the function was made for
    sizes this call leaves unknown."""
    return f"the function {backticked(callee)} returns at {span.describe()}, made for sizes this call does not know"


def dtype_agreement_reason(callee: str, positions: tuple[Any, ...], span: Span) -> str:
    """Why a call is a check site of its arguments' dtypes: they are unknown (or a dtype no
    cast can name) and the callee needs them equal; its parameters check that when it runs."""
    args = " and ".join(ordinal(i) for i in positions)
    which = f"the {args} arguments" if len(positions) > 1 else f"the fields of the {args} argument"
    return f"the dtypes of {which} to {backticked(callee)} at {span.describe()}, which must be equal"


def operator_cast_reason(op_name: str, index: int, span: Span) -> str:
    """`cast_reason` for a call of an operator, without a site (a call whose check is reused)."""
    return f"the {ordinal(index + 1)} argument to {backticked(op_name)} at {span.describe()}"


def _flow(site: "SiteState", code: str, detail: str) -> Diagnostic:
    """A value whose type can never be the one its annotated position requires."""
    callee = site.callee
    actual = _arg_type(site, _origin0())
    expected = format_type(callee.expected) if callee.expected is not None else "?"
    labels: tuple[Label, ...] = ()
    if callee.decl_span is not None:
        labels = (Label(callee.decl_span, f"{expected} required here"),)
    verb = _cannot_be(site.arg_infos[0].type if site.arg_infos else None, callee.expected)
    return Diagnostic(
        codes.BAD_CAST if callee.cast else code,
        f"{callee.name} has type {actual}, which {verb} {expected}: {detail}",
        _origin_span(site, _origin0()),
        label=f"type {actual}",
        labels=labels,
        help="change the annotation to match, or use `?` where the value is only known at runtime",
    )


def _cannot_be(actual: Optional[Type], expected: Optional[Type]) -> str:
    """ "can never be" where the types hold only sizes; "is not known to be" where a symbol is
    in them: `m` against `k` (rigid, spec §3.3) or `2 * n` against `n` hold for some sizes."""
    rigid = any(t is not None and type_symbols(t) for t in (actual, expected))
    return "is not known to be" if rigid else "can never be"


def _origin0() -> "Origin":

    return Origin(0)


def _flow_where(origin: Optional["Origin"]) -> str:
    if origin is None:
        return "a dim"
    where = "".join("the contents' " if i == REF_CONTENT else f"field {i}'s " for i in origin.path)
    return f"{where}{dim_name(origin.axis)}" if origin.axis is not None else f"{where}dtype"


def dim_mismatch(
    site: "SiteState", a: "SDim", b: "SDim", symbol: Optional[str], a_dim: Dimension, b_dim: Dimension
) -> Diagnostic:
    """Two dimensions that a call needs equal can never be."""
    if site.callee.kind == "flow":
        known, other = (a, b) if a.origin is not None else (b, a)
        shown, wanted = (a_dim, b_dim) if known is a else (b_dim, a_dim)
        return _flow(site, codes.SHAPE_MISMATCH, f"{_flow_where(known.origin)} is {shown}, not {wanted}")
    first, second = (a, b) if _order(a) <= _order(b) else (b, a)
    first_dim, second_dim = (a_dim, b_dim) if first is a else (b_dim, a_dim)
    name = f"`{symbol}`" if symbol else "the dimension"
    op = _callee_name(site.callee)
    if second.origin is not None and first.origin is not None:
        named = f" ({name})" if symbol else ""
        message = (
            f"{op} needs {origin_phrase(site, first.origin, short=True)} and {origin_phrase(site, second.origin, short=True)} "
            f"to be equal{named}, but they are {first_dim} and {second_dim}"
        )
    else:
        known = second if second.origin is not None else first
        other_dim = first_dim if known is second else second_dim
        shown = second_dim if known is second else first_dim
        needed = name if symbol and not other_dim.is_exact else other_dim  # `2 * n`, not the `?` n was bound to
        message = f"{origin_phrase(site, known.origin)} is {shown}, but {op} needs {needed} there"
    labels = []
    if first.origin is not None and second.origin is not None:
        bound = f"{name} was bound to {first_dim} here" if symbol else f"this is {first_dim}"
        labels.append(Label(_origin_span(site, first.origin), f"{bound} (type {_arg_type(site, first.origin)})"))
    primary = second if second.origin is not None else first
    primary_dim = second_dim if primary is second else first_dim
    here = f"{name} is {primary_dim} here" if symbol else f"this is {primary_dim}"
    return Diagnostic(
        codes.SHAPE_MISMATCH,
        message,
        _origin_span(site, primary.origin),
        label=f"{here} (type {_arg_type(site, primary.origin)})" if primary.origin else "",
        labels=tuple(labels),
        notes=_signature_note(site),
        help=_mismatch_help(first_dim, second_dim, symbol),
        facts={
            "dims": tuple(
                (_origin_span(site, d.origin), d.origin.path, d.origin.axis)
                for d in (first, second)
                if d.origin is not None and d.origin.axis is not None
            )
        },
    )


def indivisible_dim(site: "SiteState", value: "SDim", coeff: int, written: str, shown: Dimension) -> Diagnostic:
    """A dim that a signature writes as a multiple (`2 * n`, `2 * n + 1`) given a size that
    is not of that form for any n: the message names the expression, not the nearest size
    (it said "needs 4" for a 5)."""
    op = _callee_name(site.callee)
    return Diagnostic(
        codes.SHAPE_MISMATCH,
        f"{origin_phrase(site, value.origin)} is {shown}, but {op} needs `{written}` there, which is not {shown} for any size",
        _origin_span(site, value.origin),
        label=f"this is {shown} (type {_arg_type(site, value.origin)})",
        notes=_signature_note(site),
        help=f"pass a size that {coeff} divides, or write `?` for a dimension that is only known at runtime",
        facts={
            "dims": ((_origin_span(site, value.origin), value.origin.path, value.origin.axis),)
            if value.origin is not None and value.origin.axis is not None
            else ()
        },
    )


def dim_constraint(
    site: "SiteState",
    checked: "SDim",
    other: "SDim",
    checked_dim: Dimension,
    other_dim: Dimension,
    constraint: "Constraint",
    inserted: bool = True,
    ones: tuple[Any, ...] = (),
) -> Diagnostic:
    """Two dims a call needs equal that differ where an exporter's dynamic dim is involved (spec §6): the constraint the model places on it, at the argument that is checked at runtime
    (`inserted`: by an inserted check; else a dim the call computes, which its shape rule
    checks when it runs). `ones`: broadcasting, each dim that may instead be 1 with the
    constraint that places, as (dim, constraint)."""
    claimed = sorted({s.name for d in (checked_dim, other_dim) if d.is_symbolic for s in d.symbols() if s.claimed})
    names = ", ".join(f"`{n}`" for n in claimed)
    who = "the body" if site.callee.kind == "flow" else _callee_name(site.callee)
    equations = [f"{checked_dim} = {other_dim}"] + [f"{dim} = 1" for dim, _ in ones]
    whens = [] if constraint.kind == "impossible" else [constraint_text(constraint, checked_dim, other_dim)]
    whens += [constraint_text(one, dim, Dimension.static(1)) for dim, one in ones]
    needs, holds = " or ".join(equations), " or ".join(dict.fromkeys(whens))
    message = f"{who} needs {needs}" + (" to broadcast" if ones else "")
    message += "" if holds == needs else f", which holds only when {holds}"
    dims = "dim" if len(claimed) == 1 else "dims"
    note = (
        f"{names} {'is a' if len(claimed) == 1 else 'are'} dynamic {dims} of the exported model: the exporter's "
        f"claim, not a promise that every size works"
    )
    typed = f" (type {_arg_type(site, checked.origin)})" if checked.origin is not None else ""
    labels: tuple[Label, ...] = ()
    if other.origin is not None and other.origin != checked.origin:
        labels = (
            Label(_origin_span(site, other.origin), f"this is {other_dim} (type {_arg_type(site, other.origin)})"),
        )
    return Diagnostic(
        codes.DIM_CONSTRAINT,
        message,
        _origin_span(site, checked.origin),
        label=f"{'checked at runtime' if inserted else 'checked by its shape rule when it runs'}: this is {checked_dim}{typed}",
        labels=labels,
        notes=(note,) + _signature_note(site),
        help=f"export the model for inputs where {holds} (a fixed size, or a dynamic dim with this constraint); "
        f"--strict-dims makes this an error",
        severity=Severity.WARNING,
        facts={"symbols": tuple(claimed)},
    )


def constraint_text(constraint: "Constraint", a_dim: Dimension, b_dim: Dimension) -> str:
    """`height = 32`, `38 <= height <= 45`, `height is a multiple of 4`, `height % 4 is 0 or 1`."""
    name = constraint.symbol.name if constraint.symbol is not None else ""
    if constraint.kind == "value":
        return f"{name} = {constraint.values[0]}"
    if constraint.kind == "range":
        return f"{constraint.values[0]} <= {name} <= {constraint.values[1]}"
    if constraint.kind == "residues":
        modulus, residues = constraint.values[0], constraint.values[1:]
        if residues == (0,):
            return f"{name} is a multiple of {modulus}"
        shown = ", ".join(str(r) for r in residues[:-1]) + (" or " if len(residues) > 1 else "") + str(residues[-1])
        return f"{name} % {modulus} is {shown}"
    return f"{a_dim} = {b_dim}"


def _order(d: "SDim") -> tuple[Any, ...]:
    if d.origin is None:
        return (10**9,)
    return (d.origin.arg, d.origin.path, d.origin.axis or 0)


def _mismatch_help(a: Dimension, b: Dimension, symbol: Optional[str]) -> str:
    rigid = [d for d in (a, b) if d.is_symbolic]
    if rigid:
        name, other = (a, b) if a.is_symbolic else (b, a)
        return (
            f"`{name}` is not known to be {other}: if they are always equal, use one shared name for both; "
            f"to check it at runtime instead, write `?` for that dim"
        )
    return "make the two agree, or write `?` for a dimension that is only known at runtime"


def broadcast_mismatch(site: "SiteState", a: "SDim", b: "SDim", a_dim: Dimension, b_dim: Dimension) -> Diagnostic:
    """Two dims that NumPy broadcasting can never combine (in a cast: a dim that can never be
    the `e|1` it is cast to)."""
    if site.callee.kind == "flow":
        known, other = (a, b) if a.origin is not None else (b, a)
        shown, needed = (a_dim, b_dim) if known is a else (b_dim, a_dim)
        return _flow(site, codes.BROADCAST_MISMATCH, f"{_flow_where(known.origin)} is {shown}, neither {needed} nor 1")
    message = (
        f"{_callee_name(site.callee)} cannot broadcast {origin_phrase(site, a.origin, short=True)} ({a_dim}) "
        f"with {origin_phrase(site, b.origin, short=True)} ({b_dim})"
    )
    labels = []
    if a.origin is not None:
        labels.append(Label(_origin_span(site, a.origin), f"shape {_arg_type(site, a.origin)}"))
    primary = b if b.origin is not None else a
    return Diagnostic(
        codes.BROADCAST_MISMATCH,
        message,
        _origin_span(site, primary.origin),
        label=f"shape {_arg_type(site, primary.origin)}" if primary.origin else "",
        labels=tuple(label for label in labels if label.span != _origin_span(site, primary.origin)),
        notes=("broadcasting needs each pair of trailing dims to be equal, or one of them 1",),
        help="reshape or expand one side so the dims match, or make one of them 1",
        # each side's (span, type path, axis): the editor's fixes relax an annotated dim or
        # expand one side (analysis/fixes.py)
        facts={
            "dims": tuple(
                (_origin_span(site, d.origin), d.origin.path, d.origin.axis)
                for d in (a, b)
                if d.origin is not None and d.origin.axis is not None
            )
        },
    )


def bound_violation(site: "SiteState", d: "SDim", lo: int, hi: Optional[int], shown: Dimension) -> Diagnostic:
    """A dimension outside the interval a signature requires."""
    bound = f"{lo}..{'' if hi is None else hi}"
    if site.callee.kind == "flow":
        return _flow(site, codes.SHAPE_MISMATCH, f"{_flow_where(d.origin)} is {shown}, outside {bound}")
    return Diagnostic(
        codes.SHAPE_MISMATCH,
        f"{origin_phrase(site, d.origin)} is {shown}, outside the {bound} that {_callee_name(site.callee)} accepts",
        _origin_span(site, d.origin),
        label=f"shape {_arg_type(site, d.origin)}",
        notes=_signature_note(site),
        help=f"pass a value whose dimension can lie in {bound}",
    )


def requirement_violation(
    site: "SiteState", d: "SDim", symbol: str, lo: int, hi: Optional[int], shown: Dimension
) -> Diagnostic:
    """A call whose argument gives a signature symbol a value the callee's body stops."""
    need = f"`{symbol}` >= {lo}" if hi is None else f"{lo} <= `{symbol}` <= {hi}"
    checks = f"the body of {_callee_name(site.callee)} checks {need} before it returns"
    notes = _signature_note(site) + (f"`{symbol}` is {shown} at this call",)
    bound = f"{lo}..{'' if hi is None else hi}"
    if d.origin is None:  # solved from the arguments (`q + 1` matched by a 2)
        return Diagnostic(
            codes.SHAPE_MISMATCH,
            f"this call makes `{symbol}` {shown}, but {checks}: it always fails",
            site.span,
            label=f"`{symbol}` is {shown} here",
            notes=_signature_note(site),
            help=f"pass arguments that make `{symbol}` lie in {bound}",
        )
    return Diagnostic(
        codes.SHAPE_MISMATCH,
        f"{origin_phrase(site, d.origin)} is {shown}, but {checks}: this call always fails",
        _origin_span(site, d.origin),
        label=f"shape {_arg_type(site, d.origin)}",
        notes=notes,
        help=f"pass a value whose dimension lies in {bound}",
    )


def dtype_mismatch(site: "SiteState", a: "SDType", b: "SDType", da: Any, db: Any) -> Diagnostic:
    """Two dtypes that must agree and never can."""
    if site.callee.kind == "flow":
        shown, needed = (da, db) if a.origin is not None else (db, da)
        return _flow(site, codes.DTYPE_MISMATCH, f"its dtype is {format_dtype(shown)}, not {format_dtype(needed)}")
    first, second, fd, sd = (a, b, da, db)
    if (
        first.origin is not None
        and second.origin is not None
        and (second.origin.arg, second.origin.path) < (first.origin.arg, first.origin.path)
    ):
        first, second, fd, sd = b, a, db, da
    if first.origin is not None and second.origin is not None:
        message = (
            f"{_callee_name(site.callee)} needs {_where(site, first.origin, True)} and {_where(site, second.origin, True)} "
            f"to have the same dtype, but they are {format_dtype(fd)} and {format_dtype(sd)}"
        )
        labels: tuple[Label, ...] = (Label(_origin_span(site, first.origin), f"dtype {format_dtype(fd)} here"),)
        primary: Optional[Origin] = second.origin
    else:
        known = second if second.origin is not None else first
        kd, od = (sd, fd) if known is second else (fd, sd)
        message = f"{_where(site, known.origin)} has dtype {format_dtype(kd)}, but {_callee_name(site.callee)} needs {format_dtype(od)}"
        labels = ()
        primary = known.origin
    return Diagnostic(
        codes.DTYPE_MISMATCH,
        message,
        _origin_span(site, primary),
        label=f"type {_arg_type(site, primary)}" if primary else "",
        labels=labels,
        notes=_signature_note(site),
        help="insert `cast(x, dtype=...)` to convert one side",
    )


def _where(site: "SiteState", origin: Optional["Origin"], short: bool = False) -> str:
    if origin is None:
        return "a value"
    if short and site.callee.kind != "flow":
        return path_phrase(origin.path) + f"the {ordinal(origin.arg + 1)} argument"
    return path_phrase(origin.path) + argument_phrase(site, origin.arg)


def rule_crashed(site: "SiteState", exc: BaseException) -> Diagnostic:
    """A shape rule raised something it should not have: a bug in gradual, not in the program."""
    return Diagnostic(
        codes.INTERNAL_ERROR,
        f"the shape rule of {_callee_name(site.callee)} failed on these arguments ({type(exc).__name__}: {exc})",
        site.span,
        label="while checking this call",
        help="this is a bug in gradual's operator library; please report it with this program",
    )


def _fact_text(site: "SiteState", key: str, value: Any) -> str:
    from gradual.ops.context import ArgView

    if isinstance(value, ArgView):
        return path_phrase(value.path) + argument_phrase(site, value.index)
    if isinstance(value, Dimension):
        return str(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, Dimension)) or hasattr(v, "dim") for v in value):
        return format_dims(tuple(site.solver.resolve(v.dim, final=True) if hasattr(v, "dim") else v for v in value))
    if hasattr(value, "dim"):
        return str(site.solver.resolve(value.dim, final=True))
    if isinstance(value, Type):
        return format_type(value)
    return str(value)


def rule_failure(site: "SiteState", code: str, facts: dict[str, Any]) -> Diagnostic:
    """An operator's own constraint failed (axis out of range, reshape size, ...)."""
    facts = dict(facts)
    if code == "function-mismatch":
        facts["detail"] = function_mismatch_detail(facts.pop("where"))
    arg = facts.get("arg")
    if "actual_kind" not in facts and arg is not None:
        facts["actual_kind"] = _kind_of(site, arg)
    texts = {k: _fact_text(site, k, v) for k, v in facts.items()}
    texts["op"] = _callee_name(site.callee)
    diag_code, template, help_text = RULE_MESSAGES.get(
        code, (codes.OP_CONSTRAINT, "{op} rejects its inputs: " + code, "check the operator's documentation")
    )
    message = safe_format(template, texts)
    if site.callee.kind == "flow":
        return _flow(site, diag_code, _flow_rule_detail(code, facts, texts))
    span = site.span
    label = ""
    labels: tuple[Label, ...] = ()
    attr_span = site.attr_spans.get(facts["attr"]) if "attr" in facts else None
    if arg is not None and hasattr(arg, "index"):
        origin = Origin(arg.index, arg.path)
        span = _origin_span(site, origin)
        label = f"type {_arg_type(site, origin)}"
    if attr_span is not None and code in ("contract", "contract-attribute"):
        if label:  # the attribute is what to change; the operand it was held against, beside it
            labels = (Label(span, label),)
        span, label = attr_span, f"`{facts.get('condition')}` does not hold"
    return Diagnostic(
        diag_code,
        message,
        span,
        label=label,
        labels=labels,
        notes=_signature_note(site),
        help=safe_format(help_text, texts),
    )


def _flow_rule_detail(code: str, facts: dict[str, Any], texts: dict[str, str]) -> str:
    if code == "rank":
        return f"its rank is {facts.get('actual')}, not {facts.get('expected')}"
    if code == "tuple-length":
        return f"it has {facts.get('actual')} fields, not {facts.get('expected')}"
    if code in ("not-a-tensor", "not-a-tuple", "not-a-function", "not-a-reference"):
        return f"it is {texts.get('actual_kind', 'something else')}"
    if code == "function-mismatch":
        return texts["detail"]
    return code


def function_mismatch_detail(where: Any) -> str:
    """Where a function's type and the one required can never agree (a contracts.Mismatch):
    `its result's dim 0 is 1, not 3`, `its 2nd parameter has dtype int32, not float32`."""
    if where.what == "arity":
        return f"it takes {where.have} argument{'' if where.have == 1 else 's'}, not {where.want}"
    part = "its result" if where.side == "result" else f"its {ordinal(where.index + 1)} parameter"
    part += "".join(f"'s field {i}" for i in where.path)
    if where.what == "dtype-class":  # the function's body needs a class of the dtype it would be passed
        return f"{part} needs {where.want}, not the {_shown(where.have)} it would be passed"
    # a result is the function's (`have`) against the required (`want`); a parameter is the
    # function's (`want`: what it takes) against what it would be passed (`have`)
    mine, other = (where.have, where.want) if where.side == "result" else (where.want, where.have)
    mine, other = _shown(mine), _shown(other)
    tail = "" if where.side == "result" else " it would be passed"
    fact = {
        "dim": f"'s dim {where.axis} is",
        "rank": " has rank",
        "dtype": " has dtype",
        "length": " is a tuple of",
    }.get(where.what, " is")
    return f"{part}{fact} {mine}, not the {other}{tail}" if tail else f"{part}{fact} {mine}, not {other}"


def _shown(value: Any) -> str:
    if isinstance(value, Type):
        return format_type(value)
    return format_dtype(value) if not isinstance(value, (int, Dimension)) else str(value)


def _kind_of(site: "SiteState", arg: Any) -> str:

    text = _arg_type(site, Origin(arg.index, arg.path))
    if text.startswith("("):
        return f"a tuple {text}"
    if text.startswith("fn"):
        return f"a function {text}"
    if text.startswith("ref("):
        return f"a reference {text}"
    return f"a tensor {text}" if text else "a value"


def unknown_variable(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """A `%name` nothing binds."""
    return Diagnostic(
        codes.UNKNOWN_VARIABLE,
        f"unknown variable `%{name}`",
        span,
        label="not bound here",
        help=did_you_mean(suggestion, "%") or "bind it with `let` or add it as a parameter",
        facts=rename_data(name, suggestion),
    )


def unknown_global(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """An `@name` nothing defines."""
    return Diagnostic(
        codes.UNKNOWN_GLOBAL,
        f"unknown function `@{name}`",
        span,
        label="no definition with this name",
        help=did_you_mean(suggestion, "@") or f"define it with `def @{name}(...) {{ ... }}`",
        facts=rename_data(name, suggestion),
    )


def unknown_operator(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """An operator the library does not declare."""
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"unknown operator `{name}`",
        span,
        label="not in the operator library",
        help=did_you_mean(suggestion)
        or "register it with `gradual.register_op`, or see `stdlib/` for the operators there are",
        facts=rename_data(name, suggestion),
    )


def unknown_dim(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """A dimension name where no new name may be introduced."""
    return Diagnostic(
        codes.UNKNOWN_DIM,
        f"unknown dimension name `{name}`",
        span,
        label="not in scope here",
        help=did_you_mean(suggestion) or "hints may only use names already in scope, numbers and `?`",
    )


def bad_signature(span: Span, what: str, facts: dict[str, Any]) -> Diagnostic:
    """An annotation form that is not allowed where it stands."""
    texts = {
        "variadic": "a variadic dimension `*name` may only appear in a signature, a cast or a let annotation",
        "two-runs": "a shape may hold one variadic dimension `*name` only: two cannot say where one ends",
        "broadcast": "a broadcast dimension `e|1` may only appear in a cast",
        "floordiv": f"`{facts.get('op', '//')}` needs a positive constant on its right",
        "negative": f"the dimension `{facts.get('text', '')}` is negative",
        "empty-interval": f"the interval {facts.get('lo')}..{facts.get('hi')} is empty",
        "dim": "this is not a dimension",
        "dtype-class": f"a dtype class (`{facts.get('text', '')}`) may only restrict an operator declaration's dtype variable",
    }
    return Diagnostic(
        codes.BAD_SIGNATURE,
        texts.get(what, "this annotation cannot be used here"),
        span,
        help="write the dtype variable alone (`[T]`); a definition learns the classes its body needs"
        if what == "dtype-class"
        else "see the language tour in docs/ for the forms a dimension can take",
    )


def duplicate_definition(span: Span, name: str, first: Span) -> Diagnostic:
    """Two `def @name`."""
    return Diagnostic(
        codes.DUPLICATE_DEFINITION,
        f"`@{name}` is defined twice",
        span,
        label="second definition",
        labels=(Label(first, "first defined here"),),
        help="rename one of them",
    )


def duplicate_parameter(span: Span, name: str, first: Span) -> Diagnostic:
    """Two parameters with one name."""
    return Diagnostic(
        codes.DUPLICATE_PARAMETER,
        f"parameter `%{name}` is declared twice",
        span,
        label="second declaration",
        labels=(Label(first, "first declared here"),),
        help="rename one of them",
    )


def duplicate_dtype_parameter(span: Span, name: str) -> Diagnostic:
    """`def @f[T, T]`: one dtype variable declared twice."""
    return Diagnostic(
        codes.DUPLICATE_PARAMETER,
        f"dtype variable `{name}` is declared twice",
        span,
        label="in this definition's dtype variables",
        help="rename one of them, or declare it once",
    )


def parse_error(span: Span, found: str, expected: tuple[str, ...], detail: str) -> Diagnostic:
    """A syntax error: what was expected is its label (as rustc says it), not repeated as a
    help line too (it was both: the same words twice under every syntax error, and twice in an
    editor's message)."""
    if detail:
        return Diagnostic(codes.PARSE_ERROR, detail, span, label="here")
    expect = ""
    if expected:
        shown = list(expected)[:8]
        expect = "expected " + (", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0])
    return Diagnostic(codes.PARSE_ERROR, f"unexpected {found}", span, label=expect or "not expected here")


def text_is_a_file_name(function: str) -> str:
    """The help of a parse error where the text given to the library is a file's name."""
    return (
        f"`{function}` takes the program's text, and this is the name of a file: pass its text, "
        "`open(path).read()`, and the path as the second argument"
    )


def lfs_pointer_detail() -> str:
    """A file that is a Git LFS pointer, not the content it stands for."""
    return (
        "the file is a Git LFS pointer, not its content: fetch it (`git lfs pull`; in GitHub Actions, "
        "`actions/checkout` with `lfs: true`)"
    )


def input_error(span: Span, detail: str) -> Diagnostic:
    """A file that is not readable text."""
    return Diagnostic(codes.INPUT_ERROR, detail, span, help="gradual reads UTF-8 text files of the language")


def misnamed_input(kind: str, suffix: str) -> str:
    """A note on a file that cannot be read as the kind its name says, but can as another."""
    return f"the file is {kind}: gradual reads a file by its name's suffix, so name it `{suffix}` to check it as one"


def input_unavailable(span: Span, detail: str) -> Diagnostic:
    """An input that cannot be loaded at all (missing, a directory, unreadable): reported
    with the others in `--format json` and `sarif`, so a CI step still gets a document."""
    return Diagnostic(codes.INPUT_ERROR, detail, span)


def literal_out_of_range(span: Span, text: str, dtype: str, lo: int, hi: int) -> Diagnostic:
    """An integer literal its dtype cannot hold (`3000000000` is an int32)."""
    return Diagnostic(
        codes.BAD_LITERAL,
        f"the literal `{text}` does not fit {dtype}, which holds {lo} to {hi}",
        span,
        label=f"out of the range of {dtype}",
        help="write a value in range, or give the literal a wider dtype with a suffix such as `i64`",
    )


def wrong_arity(span: Span, callee: str, expected: int, actual: int, signature: str) -> Diagnostic:
    """A call with the wrong number of arguments."""
    plural = "s" if expected != 1 else ""
    notes = (f"`{callee}` has type {signature}",) if signature else ()
    return Diagnostic(
        codes.WRONG_ARITY,
        f"`{callee}` takes {expected} argument{plural}, but {actual} were given",
        span,
        label=f"{actual} argument{'s' if actual != 1 else ''}",
        notes=notes,
        help=f"pass exactly {expected} argument{plural}",
    )


def not_callable(span: Span, t: Type) -> Diagnostic:
    """A call of a non-function."""
    return Diagnostic(
        codes.NOT_CALLABLE,
        f"this is not a function: it has type {format_type(t)}",
        span,
        label="called here",
        help="only functions, `@globals` and operators can be called",
    )


def not_a_reference(span: Span, form: str, t: Type) -> Diagnostic:
    """`ref_read` / `ref_write` of a value that is not a reference."""
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"`{form}` needs a reference, but this has type {format_type(t)}",
        span,
        label="not a reference",
        help="make a reference with `ref(...)`",
    )


def reference_reason(form: str, span: Span) -> str:
    """Why a cast at a reference form was inserted."""
    what = {"ref": "the new reference cell", "ref_read": "the reference read", "ref_write": "the reference written"}
    return f"{what.get(form, form)} at {span.describe()}"


def projection_reason(index: int, span: Span) -> str:
    """Why a projection of a `?` value is a check site."""
    return f"the projection of field {index} at {span.describe()}"


def operator_as_value(span: Span, name: str) -> Diagnostic:
    """An operator used without being called."""
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"operator `{name}` must be called",
        span,
        label="used as a value",
        help=f"write `{name}(...)`, or wrap it in `fn (...) {{ {name}(...) }}`",
    )


def tuple_index(span: Span, index: int, t: Type) -> Diagnostic:
    """A projection past the end of a tuple."""
    return Diagnostic(
        codes.TUPLE_INDEX,
        f"field {index} does not exist: the tuple has type {format_type(t)}",
        span,
        label=f"field {index}",
        help="tuple fields count from 0",
    )


def not_a_tuple(span: Span, index: int, t: Type) -> Diagnostic:
    """A projection of a non-tuple."""
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"cannot take field {index} of a value of type {format_type(t)}",
        span,
        label="not a tuple",
        help="only tuples have fields",
    )


def bad_condition(span: Span, t: Type) -> Diagnostic:
    """An `if` condition that is not a boolean scalar."""
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"the condition of this `if` has type {format_type(t)}, but it must be `bool`",
        span,
        label="condition",
        help="compare with `less`, `equal`, ... to get a `bool`",
    )


def flow_mismatch(
    span: Span, context: str, actual: Type, expected: Type, detail: str, labels: tuple[Label, ...] = ()
) -> Diagnostic:
    """A value whose type can never be the one its position requires (casts, returns, lets)."""
    code = codes.BAD_CAST if context.startswith("cast") else codes.TYPE_MISMATCH
    if "dim" in detail:
        code = codes.SHAPE_MISMATCH if not context.startswith("cast") else code
    if "rank" in detail and not context.startswith("cast"):
        code = codes.RANK_MISMATCH
    if "dtype" in detail and not context.startswith("cast"):
        code = codes.DTYPE_MISMATCH
    return Diagnostic(
        code,
        f"{context} has type {format_type(actual)}, which {_cannot_be(actual, expected)} {format_type(expected)}: {detail}",
        span,
        label=f"type {format_type(actual)}",
        labels=labels,
        help="change the annotation, or use `?` where the value is only known at runtime",
    )


def hint_unused(span: Span, name: str, why: str) -> Diagnostic:
    """A hint that has nothing to seed."""
    return Diagnostic(
        codes.UNUSED_HINT,
        f"the hint for `%{name}` is not used: {why}",
        span,
        label="this hint",
        help="hints seed inference for unannotated parameters; remove it",
        severity=Severity.WARNING,
        facts={"unused": True},
    )


def claim_unused(span: Span, function: str, name: str) -> Diagnostic:
    """A `claimed=[...]` entry that names no dim of the definition's signature."""
    return Diagnostic(
        codes.UNUSED_CLAIM,
        f"`claimed` names `{name}`, which the signature of `{function}` does not have",
        span,
        label="this attribute",
        help=f'remove "{name}" from the list, or fix its spelling',
        severity=Severity.WARNING,
    )


def dim_untracked(span: Span, op: str, reason: str = "size") -> Diagnostic:
    """Dimension arithmetic past the polynomial bounds (shapes/poly.py), computed by `op` or
    written in an annotation (`reason` "annotation"), or a quotient of dims that is no
    polynomial (`reason` "quotient"): the result is `?`."""
    from gradual.shapes.poly import MAX_BITS, MAX_DEGREE, MAX_SIZE

    what = (
        f"`{op}` computes a dimension too large to track, so it is `?` from here on"
        if reason != "annotation"
        else "this annotation writes a dimension too large to track, so it is `?`"
    )

    if reason == "quotient":
        return Diagnostic(
            codes.DIM_UNTRACKED,
            f"`{op}` computes a dimension that is a quotient of sizes gradual cannot write as a "
            f"polynomial, so it is `?` from here on",
            span,
            label="computed here",
            notes=(
                "a dimension divided by another is tracked only where the division is exact "
                "for every size (`(2 * n * m) / m` is `2 * n`)",
            ),
            help="what depends on this dimension is checked at runtime",
            severity=Severity.NOTE,
        )
    return Diagnostic(
        codes.DIM_UNTRACKED,
        what,
        span,
        label="computed here" if reason != "annotation" else "this dimension",
        notes=(
            f"dimensions are tracked as polynomials of degree up to {MAX_DEGREE}, with up to "
            f"{MAX_SIZE} symbols written and {MAX_BITS}-bit coefficients",
        ),
        help="what depends on this dimension is checked at runtime",
        severity=Severity.NOTE,
    )


def bad_hint(span: Span, name: str) -> Diagnostic:
    """A hint naming a variable that does not exist."""
    return Diagnostic(
        codes.BAD_HINT,
        f"`can_unify` names `%{name}`, which is not a variable in scope",
        span,
        label="unknown",
        help="hints must name a parameter of the enclosing function",
    )


def internal_check_error(span: Span, name: str, exc: BaseException) -> Diagnostic:
    """Checking a definition crashed (a bug in gradual); the rest of the program is checked."""
    return Diagnostic(
        codes.INTERNAL_ERROR,
        f"gradual failed while checking `@{name}`: {type(exc).__name__}: {exc}",
        span,
        label="the check of this definition crashed",
        help="this is a bug in gradual; the other definitions are still checked",
    )


def internal_crash(exc: BaseException) -> str:
    """gradual itself failed outside a run (a bug in gradual)."""
    return f"gradual failed ({type(exc).__name__}: {exc}); please report it with the program"
