"""Every diagnostic's words. Inference and the shape rules pass facts; this module phrases them.

Style (rustc/Elm): lowercase, no final period, code in backticks; the message names the
operator and the argument position; the primary label sits on the smallest span; secondary
labels say where the other side came from; `help` alone suggests a fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from gradual import diagnostics as codes
from gradual.diagnostics import Diagnostic, Label, Severity
from gradual.shapes import Dimension
from gradual.syntax.source import Span
from gradual.types import REF_CONTENT, RefType, Type, format_dims, format_dtype, format_type, type_symbols

if TYPE_CHECKING:
    from gradual.shapes.constraint import Constraint
    from gradual.site import Callee, CallSite, Origin, SDim, SDType


def ordinal(n: int) -> str:
    """1 -> 1st, 2 -> 2nd, 11 -> 11th."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _code(text: object) -> str:
    return f"`{text}`"


# describing call sites ------------------------------------------------------------------------
def _callee_name(callee: "Callee") -> str:
    """A callee as messages name it: code (`nn.dense`, `@f`, `%g`), or "this function" for a
    function expression called where it is written."""
    display = callee.display
    return display if callee.kind == "closure" and display == "this function" else _code(display)


def argument_phrase(site: "CallSite", index: int) -> str:
    """`the 2nd argument to `nn.dense``, naming a user function's parameter when known."""
    callee = site.callee
    if callee.kind == "flow":
        return callee.name
    name = ""
    if index < len(callee.param_names) and callee.kind != "op":
        name = f" (`%{callee.param_names[index]}`)"
    return f"the {ordinal(index + 1)} argument{name} to {_callee_name(callee)}"


def _path_phrase(path: tuple) -> str:
    return "".join(_path_step(i) for i in reversed(path))


def _path_step(step: object) -> str:
    return "the contents of " if step == REF_CONTENT else f"field {step} of "


def origin_phrase(site: "CallSite", origin: Optional["Origin"], short: bool = False) -> str:
    """`dim 1 of the 2nd argument to `nn.dense`` (short: without `to ...`)."""
    if origin is None:
        return "a dimension computed by the rule"
    if short and site.callee.kind != "flow":
        where = _path_phrase(origin.path) + f"the {ordinal(origin.arg + 1)} argument"
    else:
        where = _path_phrase(origin.path) + argument_phrase(site, origin.arg)
    if origin.axis is None:
        return f"the dtype of {where}"
    return f"{dim_name(origin.axis)} of {where}"


def dim_name(axis: int) -> str:
    """`dim 1`; a dim of a value of unknown rank counted from its end: `the last dim`,
    `dim -2 (from the end)`."""
    if axis >= 0:
        return f"dim {axis}"
    return "the last dim" if axis == -1 else f"dim {axis} (from the end)"


def _origin_span(site: "CallSite", origin: Optional["Origin"]) -> Span:
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


def _arg_type(site: "CallSite", origin: Optional["Origin"]) -> str:
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


def _resolved(site: "CallSite", t: Type) -> Type:
    from gradual.types import map_dims

    return map_dims(site.solver.resolve_type(t), lambda d: site.solver.resolve(d, final=True))


def _signature_note(site: "CallSite") -> tuple:
    if not site.callee.signature:
        return ()
    if site.callee.kind == "op":
        return (f"the signature is {site.callee.signature}",)
    return (f"{_callee_name(site.callee)} has type {site.callee.signature}",)


def cast_reason(site: "CallSite", index: int) -> str:
    """Why a cast was inserted: what assumed it."""
    return f"{argument_phrase(site, index)} at {site.arg_infos[index].span.describe()}"


def returned_function_reason(callee: str, span: Span) -> str:
    """Why the result of a call that returns a function is checked: the function was made for
    sizes this call leaves unknown."""
    return f"the function {_code(callee)} returns at {span.describe()}, made for sizes this call does not know"


def dtype_agreement_reason(callee: str, positions: tuple, span: Span) -> str:
    """Why a call is a check site of its arguments' dtypes: they are unknown (or a dtype no
    cast can name) and the callee needs them equal; its parameters check that when it runs."""
    args = " and ".join(ordinal(i) for i in positions)
    which = f"the {args} arguments" if len(positions) > 1 else f"the fields of the {args} argument"
    return f"the dtypes of {which} to {_code(callee)} at {span.describe()}, which must be equal"


def operator_cast_reason(op_name: str, index: int, span: Span) -> str:
    """`cast_reason` for a call of an operator, without a site (a call whose check is reused)."""
    return f"the {ordinal(index + 1)} argument to {_code(op_name)} at {span.describe()}"


# flows: casts, annotations, returns, conditions ---------------------------------------------
def _flow(site: "CallSite", code: str, detail: str) -> Diagnostic:
    """A value whose type can never be the one its annotated position requires."""
    callee = site.callee
    actual = _arg_type(site, _origin0())
    expected = format_type(callee.expected) if callee.expected is not None else "?"
    labels = ()
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
    in them: `m` against `k` (rigid, SPEC 3.3) or `2 * n` against `n` hold for some sizes."""
    rigid = any(t is not None and type_symbols(t) for t in (actual, expected))
    return "is not known to be" if rigid else "can never be"


def _origin0() -> "Origin":
    from gradual.site import Origin

    return Origin(0)


def _flow_where(origin: Optional["Origin"]) -> str:
    if origin is None:
        return "a dim"
    where = "".join("the contents' " if i == REF_CONTENT else f"field {i}'s " for i in origin.path)
    return f"{where}{dim_name(origin.axis)}" if origin.axis is not None else f"{where}dtype"


# shapes at call sites ------------------------------------------------------------------------
def dim_mismatch(
    site: "CallSite", a: "SDim", b: "SDim", symbol: Optional[str], a_dim: Dimension, b_dim: Dimension
) -> Diagnostic:
    """Two dimensions that a call needs equal can never be."""
    if site.callee.kind == "flow":
        known, other = (a, b) if a.origin is not None else (b, a)
        shown, needed = (a_dim, b_dim) if known is a else (b_dim, a_dim)
        return _flow(site, codes.SHAPE_MISMATCH, f"{_flow_where(known.origin)} is {shown}, not {needed}")
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
        data={
            "dims": tuple(
                (_origin_span(site, d.origin), d.origin.path, d.origin.axis)
                for d in (first, second)
                if d.origin is not None and d.origin.axis is not None
            )
        },
    )


def indivisible_dim(site: "CallSite", value: "SDim", coeff: int, written: str, shown: Dimension) -> Diagnostic:
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
        data={
            "dims": ((_origin_span(site, value.origin), value.origin.path, value.origin.axis),)
            if value.origin.axis is not None
            else ()
        },
    )


def dim_constraint(
    site: "CallSite",
    checked: "SDim",
    other: "SDim",
    checked_dim: Dimension,
    other_dim: Dimension,
    constraint: "Constraint",
    inserted: bool = True,
    ones: tuple = (),
) -> Diagnostic:
    """Two dims a call needs equal that differ where an exporter's dynamic dim is involved (SPEC
    6): the constraint the model places on it, at the argument that is checked at runtime
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
    labels = ()
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
        data={"symbols": tuple(claimed)},
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


def _order(d: "SDim") -> tuple:
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


def broadcast_mismatch(site: "CallSite", a: "SDim", b: "SDim", a_dim: Dimension, b_dim: Dimension) -> Diagnostic:
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
        labels=tuple(l for l in labels if l.span != _origin_span(site, primary.origin)),
        notes=("broadcasting needs each pair of trailing dims to be equal, or one of them 1",),
        help="reshape or expand one side so the dims match, or make one of them 1",
    )


def bound_violation(site: "CallSite", d: "SDim", lo: int, hi: Optional[int], shown: Dimension) -> Diagnostic:
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
    site: "CallSite", d: "SDim", symbol: str, lo: int, hi: Optional[int], shown: Dimension
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


def dtype_mismatch(site: "CallSite", a: "SDType", b: "SDType", da: Any, db: Any) -> Diagnostic:
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
        labels = (Label(_origin_span(site, first.origin), f"dtype {format_dtype(fd)} here"),)
        primary = second.origin
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


def _where(site: "CallSite", origin: Optional["Origin"], short: bool = False) -> str:
    if origin is None:
        return "a value"
    if short and site.callee.kind != "flow":
        return _path_phrase(origin.path) + f"the {ordinal(origin.arg + 1)} argument"
    return _path_phrase(origin.path) + argument_phrase(site, origin.arg)


# rule failures -------------------------------------------------------------------------------
_RULE_MESSAGES: dict[str, tuple[str, str, str]] = {
    # code: (diagnostic code, message template, help)
    "rank": (
        codes.RANK_MISMATCH,
        "{arg} has rank {actual}, but {op} needs rank {expected}",
        "reshape the argument to rank {expected}",
    ),
    "rank-too-small": (
        codes.RANK_MISMATCH,
        "{arg} has rank {rank}, but {op} needs at least {needed} dims",
        "add dims with `expand_dims` or `reshape`",
    ),
    "rank-beyond-limit": (
        codes.BAD_ATTRIBUTE,
        "{op} needs {arg} to have at least {needed} dims, more than any array has (at most {limit})",
        "check the axis attributes against the input's rank",
    ),
    "variadic-rank": (
        codes.RANK_MISMATCH,
        "{arg} has {actual} leading dims for `*{name}`, but an earlier argument had {expected}",
        "give every argument the same number of batch dims",
    ),
    "same-rank": (
        codes.RANK_MISMATCH,
        "{arg} has rank {actual}, but {op} needs every input to have rank {expected}",
        "reshape the inputs to the same rank",
    ),
    "not-a-tensor": (codes.TYPE_MISMATCH, "{arg} is {actual_kind}, but {op} needs a tensor", "pass a tensor here"),
    "not-a-tuple": (
        codes.TYPE_MISMATCH,
        "{arg} is {actual_kind}, but {op} needs a tuple of {expected}",
        "pass a tuple here",
    ),
    "tuple-length": (
        codes.TYPE_MISMATCH,
        "{arg} is a tuple of {actual}, but {op} needs {expected}",
        "pass a tuple of {expected}",
    ),
    "not-a-function": (
        codes.TYPE_MISMATCH,
        "{arg} is {actual_kind}, but {op} needs a function",
        "pass a function here",
    ),
    "not-a-reference": (
        codes.TYPE_MISMATCH,
        "{arg} is {actual_kind}, but {op} needs a reference",
        "pass a reference (made by `ref(...)`) here",
    ),
    "function-mismatch": (
        codes.TYPE_MISMATCH,
        "{arg} is a function of type {actual}, but {op} needs {expected}: {detail}",
        "pass a function of that type, or write `?` in the function type where it is only known at runtime",
    ),
    "axis-out-of-range": (
        codes.OP_CONSTRAINT,
        "{op} got {name}={axis}, but the input has rank {rank}",
        "{name} must lie in [-{rank}, {rank})",
    ),
    "negative-dim": (
        codes.OP_CONSTRAINT,
        "{op} would produce a negative dimension ({detail})",
        "check the attributes against the input size",
    ),
    "bad-divisor": (codes.OP_CONSTRAINT, "{op} would divide a dimension by {divisor}", "use a positive stride or size"),
}


def rule_crashed(site: "CallSite", exc: BaseException) -> Diagnostic:
    """A shape rule raised something it should not have: a bug in gradual, not in the program."""
    return Diagnostic(
        codes.INTERNAL_ERROR,
        f"the shape rule of {_callee_name(site.callee)} failed on these arguments ({type(exc).__name__}: {exc})",
        site.span,
        label="while checking this call",
        help="this is a bug in gradual's operator library; please report it with this program",
    )


def register_rule_message(code: str, diagnostic_code: str, template: str, help_text: str) -> None:
    """Let an operator family add the wording of its own rule failures."""
    _RULE_MESSAGES[code] = (diagnostic_code, template, help_text)


def _fact_text(site: "CallSite", key: str, value: Any) -> str:
    from gradual.ops.context import ArgView

    if isinstance(value, ArgView):
        return _path_phrase(value.path) + argument_phrase(site, value.index)
    if isinstance(value, Dimension):
        return str(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, Dimension)) or hasattr(v, "dim") for v in value):
        return format_dims(tuple(site.solver.resolve(v.dim, final=True) if hasattr(v, "dim") else v for v in value))
    if hasattr(value, "dim"):
        return str(site.solver.resolve(value.dim, final=True))
    if isinstance(value, Type):
        return format_type(value)
    return str(value)


def rule_failure(site: "CallSite", code: str, facts: dict) -> Diagnostic:
    """An operator's own constraint failed (axis out of range, reshape size, ...)."""
    facts = dict(facts)
    if code == "function-mismatch":
        facts["detail"] = function_mismatch_detail(facts.pop("where"))
    arg = facts.get("arg")
    if "actual_kind" not in facts and arg is not None:
        facts["actual_kind"] = _kind_of(site, arg)
    texts = {k: _fact_text(site, k, v) for k, v in facts.items()}
    texts["op"] = _callee_name(site.callee)
    diag_code, template, help_text = _RULE_MESSAGES.get(
        code, (codes.OP_CONSTRAINT, "{op} rejects its inputs: " + code, "check the operator's documentation")
    )
    message = _safe_format(template, texts)
    if site.callee.kind == "flow":
        return _flow(site, diag_code, _flow_rule_detail(code, facts, texts))
    span = site.span
    label = ""
    if arg is not None and hasattr(arg, "index"):
        from gradual.site import Origin

        origin = Origin(arg.index, arg.path)
        span = _origin_span(site, origin)
        label = f"type {_arg_type(site, origin)}"
    return Diagnostic(
        diag_code, message, span, label=label, notes=_signature_note(site), help=_safe_format(help_text, texts)
    )


def _flow_rule_detail(code: str, facts: dict, texts: dict) -> str:
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


def _kind_of(site: "CallSite", arg: Any) -> str:
    from gradual.site import Origin

    text = _arg_type(site, Origin(arg.index, arg.path))
    if text.startswith("("):
        return f"a tuple {text}"
    if text.startswith("fn"):
        return f"a function {text}"
    if text.startswith("ref("):
        return f"a reference {text}"
    return f"a tensor {text}" if text else "a value"


def _safe_format(template: str, texts: dict) -> str:
    class _Missing(dict):
        def __missing__(self, key: str) -> str:
            return "{" + key + "}"

    return template.format_map(_Missing(texts))


# names ----------------------------------------------------------------------------------------
def _did_you_mean(suggestion: Optional[str], sigil: str = "") -> Optional[str]:
    return f"did you mean `{sigil}{suggestion}`?" if suggestion else None


def _rename(name: str, suggestion: Optional[str]) -> dict:
    """The data of a did-you-mean: a tool may replace `name` (inside the span) by the suggestion."""
    return {"name": name, "suggestion": suggestion} if suggestion else {}


def unknown_variable(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """A `%name` nothing binds."""
    return Diagnostic(
        codes.UNKNOWN_VARIABLE,
        f"unknown variable `%{name}`",
        span,
        label="not bound here",
        help=_did_you_mean(suggestion, "%") or "bind it with `let` or add it as a parameter",
        data=_rename(name, suggestion),
    )


def unknown_global(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """An `@name` nothing defines."""
    return Diagnostic(
        codes.UNKNOWN_GLOBAL,
        f"unknown function `@{name}`",
        span,
        label="no definition with this name",
        help=_did_you_mean(suggestion, "@") or f"define it with `def @{name}(...) {{ ... }}`",
        data=_rename(name, suggestion),
    )


def unknown_operator(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """An operator the library does not declare."""
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"unknown operator `{name}`",
        span,
        label="not in the operator library",
        help=_did_you_mean(suggestion)
        or "register it with `gradual.register_op`, or see `stdlib/` for the operators there are",
        data=_rename(name, suggestion),
    )


def unknown_dtype(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """A dtype that is not a dtype."""
    return Diagnostic(
        codes.UNKNOWN_DTYPE,
        f"unknown dtype `{name}`",
        span,
        label="not a dtype",
        help=_did_you_mean(suggestion) or "declare a dtype variable with `def @f[T](...)`, or use `?`",
        data=_rename(name, suggestion),
    )


def unknown_dim(span: Span, name: str, suggestion: Optional[str]) -> Diagnostic:
    """A dimension name where no new name may be introduced."""
    return Diagnostic(
        codes.UNKNOWN_DIM,
        f"unknown dimension name `{name}`",
        span,
        label="not in scope here",
        help=_did_you_mean(suggestion) or "hints may only use names already in scope, numbers and `?`",
    )


def bad_signature(span: Span, what: str, facts: dict) -> Diagnostic:
    """An annotation form that is not allowed where it stands."""
    texts = {
        "variadic": "a variadic dimension `*name` may only appear in a signature, a cast or a let annotation",
        "two-runs": "a shape may hold one variadic dimension `*name` only: two cannot say where one ends",
        "broadcast": "a broadcast dimension `e|1` may only appear in a cast",
        "floordiv": "`//` needs a positive constant on its right",
        "negative": f"the dimension `{facts.get('text', '')}` is negative",
        "empty-interval": f"the interval {facts.get('lo')}..{facts.get('hi')} is empty",
        "dim": "this is not a dimension",
    }
    return Diagnostic(
        codes.BAD_SIGNATURE,
        texts.get(what, "this annotation cannot be used here"),
        span,
        help="see the language tour in README.md for the forms a dimension can take",
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


def parse_error(span: Span, found: str, expected: tuple, detail: str) -> Diagnostic:
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


# calls --------------------------------------------------------------------------------------
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


def unknown_attribute(span: Span, op: str, name: str, known: list, suggestion: Optional[str]) -> Diagnostic:
    """An attribute the operator does not take."""
    have = ", ".join(f"`{k}`" for k in known) or "none"
    return Diagnostic(
        codes.UNKNOWN_ATTRIBUTE,
        f"`{op}` has no attribute `{name}`",
        span,
        label="unknown attribute",
        notes=(f"`{op}` takes: {have}",),
        help=_did_you_mean(suggestion) or "remove it",
        data=_rename(name, suggestion),
    )


def bad_attribute(span: Span, op: str, name: str, expected: str, value: str) -> Diagnostic:
    """An attribute value of the wrong kind."""
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        f"attribute `{name}` of `{op}` must be {expected}, not {value}",
        span,
        label=f"expected {expected}",
        help=f"write `{name}=` followed by {expected}",
    )


def missing_attribute(span: Span, op: str, name: str, expected: str) -> Diagnostic:
    """A required attribute is absent."""
    return Diagnostic(
        codes.MISSING_ATTRIBUTE,
        f"`{op}` needs the attribute `{name}`",
        span,
        label=f"`{name}` is missing",
        help=f"add `{name}=` followed by {expected}",
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


# expressions --------------------------------------------------------------------------------
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
    span: Span, context: str, actual: Type, expected: Type, detail: str, labels: tuple = ()
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
        data={"unused": True},
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


# runtime ------------------------------------------------------------------------------------
# The words of `gradual run` (gradual/runtime/): failed runtime checks, operator calls that
# cannot run, and problems with a run's inputs. Appended by the runtime; nothing above uses it.

_RUNTIME_DETAILS: dict[str, str] = {
    "kind": "it is {actual}, not {expected}",
    "tuple-length": "it has {actual} fields, not {expected}",
    "arity": "it takes {actual} {arguments}, not {expected}",
    "no-field": "it is {actual}, which has no field {index}",
    "rank": "its rank is {actual}, not {expected}",
    "rank-at-least": "its rank is {actual}, but the type needs at least {expected} dims",
    "sequence": "its dims from {axis} on are {actual}, but `*{name}` is {expected} here",
    "dim": "dim {axis} is {actual}, not {expected}",
    "interval": "dim {axis} is {actual}, outside {expected}",
    "broadcast": "dim {axis} is {actual}, not 1 or {expected}",
    "broadcast-interval": "dim {axis} is {actual}, neither 1 nor within {expected}",
    "unsolvable": "dim {axis} is {actual}, which is not `{expr}` for any size",
    "broadcast-unsolvable": "dim {axis} is {actual}, which is neither 1 nor `{expr}` for any size",
    "symbol-bounds": "dim {axis} would make `{name}` {actual}, outside its bounds {expected}",
    "symbol-fact": "dim {axis} makes {sizes}, where the exporter's guard needs `{fact}` to be at least 0",
    "dtype": "its dtype is {actual}, not {expected}",
    "dtype-var": "its dtype is {actual}, but `{name}` is {expected} here",
    "cell-type": "its cell must keep the type {actual}, which can never be {expected}",
}

_RUNTIME_LABELS: dict[str, str] = {
    "inserted": "checked here: the checker assumed this",
    "cast": "this cast does not hold",
    "let": "this value does not have the annotated type",
    "parameter": "the input does not have this type",
    "return": "the result does not have this type",
    "argument": "this call passes an argument of the wrong type",
    "result": "this function's result does not have the type it was given",
    "contract": "this function was given a type whose arguments it does not accept",
    "write": "this value does not fit the reference's cell",
    "projection": "this value has no such field",
}

_RUNTIME_HELP: dict[str, str] = {
    "inserted": "the value's static type allowed this (a `?`, an interval, or a symbol the call needs to be "
    "large enough): pass a value of the expected type, or tighten the annotations so the checker "
    "catches it statically",
    "cast": "the cast claims a type the value does not have; cast to `?` dims where the size varies",
    "let": "annotate with `?` where the size varies, or fix the value",
    "parameter": "pass an input of the declared type",
    "return": "the function returned something other than its declared return type",
    "argument": "call the function with arguments of the type it was given",
    "result": "the function does not return the type it was given; change the type or the function",
    "contract": "pass a function whose parameters accept what its type promises, or change the type",
    "write": "a reference's cell keeps the type it was made (or checked) with: write values of that type, "
    "or make the cell with `?` dims where the size varies",
    "projection": "the value's static type was `?`: pass a tuple with this field, or annotate the value with "
    "its tuple type so the checker catches it statically",
}

_RUNTIME_RULES: dict[str, tuple[str, str]] = {
    # rule code at runtime: (message template, help)
    "runtime-dims-differ": (
        "{op} needs {a} and {b} to be equal{named}",
        "the inputs' dims were not known statically; pass inputs whose dims agree",
    ),
    "runtime-broadcast": (
        "{op} cannot broadcast {a} with {b}",
        "broadcasting needs each pair of trailing dims to be equal, or one of them 1",
    ),
    "runtime-outside": ("{op} needs {d} to lie in {lo}..{hi}", "pass an input within the bounds"),
    "runtime-dtypes-differ": (
        "{op} needs {a} and {b} to have the same dtype",
        "insert `cast(x, dtype=...)` to convert one side",
    ),
}


def runtime_check_detail(what: str, facts: dict, path: tuple, axis: Optional[int]) -> str:
    """Which part of a value differed from its type (`dim 1 is 9, not 10`)."""
    texts = {k: _runtime_fact(v) for k, v in facts.items()}
    texts["axis"] = str(axis)
    if what == "broadcast" and facts.get("expected") == 1:
        what = "dim"  # `n|1` with n = 1: not "1 or 1"
    texts["arguments"] = "argument" if facts.get("actual") == 1 else "arguments"
    detail = _safe_format(_RUNTIME_DETAILS.get(what, what), texts)
    if facts.get("expr") and what in ("dim", "broadcast"):
        detail += f" (`{facts['expr']}`)"
    if path:
        detail = "in " + _path_phrase(path).removesuffix(" of ") + ", " + detail
    return detail


def _runtime_fact(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


def runtime_check_failed(
    span: Span, kind: str, reason: str, expected: str, actual: str, detail: str, labels: tuple = ()
) -> Diagnostic:
    """A runtime check found a value outside its type: expected vs found, and which part differs."""
    notes = []
    reason = reason.removesuffix(f" at {span.describe()}")  # the location is shown already
    if reason:
        notes.append(f"the checker inserted this check for {reason}" if kind == "inserted" else reason)
    return Diagnostic(
        codes.CHECK_FAILED,
        f"expected {expected}, found {actual}: {detail}",
        span,
        label=_RUNTIME_LABELS.get(kind, "checked here"),
        labels=tuple(labels),
        notes=tuple(notes),
        help=_RUNTIME_HELP.get(kind),
    )


def _runtime_arg(view: Any) -> str:
    return _path_phrase(view.path) + f"the {ordinal(view.index + 1)} argument"


def _runtime_rule_fact(value: Any, where: bool) -> str:
    """A fact of a rule failure at runtime; `where` names the argument and axis a dim came from."""
    from gradual.ops.context import ArgView

    origin = getattr(value, "origin", None)
    if isinstance(value, ArgView):
        return _runtime_arg(value)
    if where and origin is not None and isinstance(value, int):
        index, path, axis = origin
        return f"dim {axis} of {_path_phrase(path)}the {ordinal(index + 1)} argument ({int(value)})"
    if where and origin is not None and isinstance(value, str):
        index, path, _ = origin
        return f"the dtype of {_path_phrase(path)}the {ordinal(index + 1)} argument ({value})"
    if where and isinstance(value, int) and not isinstance(value, bool):
        return f"a dimension computed from the inputs ({int(value)})"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(int(value))
    return "" if value is None else str(value)


def runtime_rule_failure(span: Span, op: str, code: str, facts: dict, inputs: str, signature: str) -> Diagnostic:
    """An operator's shape rule, run on the concrete inputs before its kernel, rejected them."""
    own = code in _RUNTIME_RULES
    texts = {k: _runtime_rule_fact(v, own and k in ("a", "b", "d")) for k, v in facts.items()}
    texts["op"] = _code(op)
    texts["named"] = f" (`{facts['symbol']}`)" if facts.get("symbol") else ""
    if "hi" in facts and facts["hi"] is None:
        texts["hi"] = ""
    if code in _RUNTIME_RULES:
        template, help_text = _RUNTIME_RULES[code]
    else:
        _, template, help_text = _RULE_MESSAGES.get(code, ("", "{op} rejects its inputs: " + code, "check the inputs"))
    notes = [f"the shape rule of {_code(op)} ran on the inputs before its kernel"]
    if signature:
        notes.append(f"the signature is {signature}")
    return Diagnostic(
        codes.CHECK_FAILED,
        _safe_format(template, texts),
        span,
        label=f"called with {inputs}",
        notes=tuple(notes),
        help=_safe_format(help_text, texts),
    )


def runtime_operator_error(span: Span, op: str, detail: str, inputs: str, help: str = "") -> Diagnostic:
    """An operator call that could not run on NumPy."""
    return Diagnostic(
        codes.RUNTIME_ERROR,
        f"{_code(op)} failed at runtime: {detail}",
        span,
        label=f"called with {inputs}" if inputs else "this call",
        help=help or "check the inputs' values (indices in range, divisors non-zero, ...)",
    )


def runtime_rule_disagrees(span: Span, op: str, detail: str, inputs: str) -> Diagnostic:
    """A kernel whose output is not what its shape rule computed: a bug in gradual."""
    return Diagnostic(
        codes.INTERNAL_ERROR,
        f"{_code(op)}: {detail}",
        span,
        label=f"called with {inputs}" if inputs else "this call",
        notes=("the kernel and the shape rule of this operator disagree; this is a bug in gradual",),
        help="please report it with this program and its inputs",
    )


def runtime_bad_call(span: Span, detail: str, help: str = "") -> Diagnostic:
    """Something that cannot run at all: only in a program that was not checked (a checked
    one checks a `?` value where it is called or projected), unless `help` says otherwise (a
    run past its bounds)."""
    return Diagnostic(
        codes.RUNTIME_ERROR,
        detail,
        span,
        label="here",
        help=help or "run `gradual check` on the program: it reports this statically",
    )


def runtime_disagreement(where: str, rule: str, produced: str) -> str:
    """What the rule computed versus what the kernel produced."""
    return f"{where}the kernel produced {produced}, but the shape rule computed {rule}"


def runtime_value_disagreement(where: str, computed: list, produced: list) -> str:
    """Shape values the rule computed versus the kernel's elements."""
    return f"{where}the kernel produced the values {produced}, but the shape rule computed {computed}"


def runtime_no_kernel_detail(op: str) -> str:
    """An operator with a shape rule but no NumPy kernel."""
    return f"there is no NumPy kernel for {_code(op)} (pass `kernel=` to `gradual.register_op`)"


def runtime_kernel_exception(exc: BaseException) -> str:
    """A NumPy error raised inside a kernel."""
    return str(exc) or type(exc).__name__


def runtime_too_large(needed: int, limit: int) -> str:
    """An operator whose result would exceed the runtime's memory budget."""
    return f"its result would take {needed:,} bytes, more than the runtime's limit of {limit:,} bytes"


def runtime_beyond_indexing(limit: int) -> str:
    """An operator whose result's nonzero dims multiply past what NumPy can index."""
    return f"its result's nonzero dims take more than {limit:,} bytes together, more than NumPy can index, even where another dim is 0"


def runtime_beyond_rank(rank: int, limit: int) -> str:
    """An operator whose result has more dims than NumPy's arrays can have."""
    return f"its result would have {rank} dims, more than the {limit} a NumPy array can have"


def runtime_beyond_rank_help() -> str:
    """What to do about a result of too many dims."""
    return "the dims come from the program's attributes or shape values: make fewer of them"


def runtime_beyond_indexing_help() -> str:
    """What to do about a result shape NumPy cannot represent."""
    return "the sizes come from the program's attributes or shape values: make them smaller"


def runtime_too_large_help(variable: str) -> str:
    """How to raise the runtime's memory budget."""
    return f"set the environment variable {variable} to a larger number of bytes to allow it"


def runtime_kernel_crash(exc: BaseException) -> str:
    """A kernel that crashed (a bug in gradual)."""
    return f"the kernel crashed ({type(exc).__name__}: {exc})"


def runtime_not_callable(value: Any) -> str:
    """A call of a non-function value."""
    return f"this is not a function: it is {type(value).__name__}"


def runtime_arity(expected: int, actual: int) -> str:
    """A call with the wrong number of arguments."""
    return f"the function takes {expected} argument{'s' if expected != 1 else ''}, but {actual} were given"


def runtime_not_a_reference(form: str) -> str:
    """`ref_read` or `ref_write` of something that is not a reference."""
    return f"`{form}` needs a reference, but this is not one"


def runtime_write_reason() -> str:
    """Why a write through a reference is checked."""
    return "a write through a reference is checked against the type its cell keeps"


def runtime_bad_projection(index: int, value: Any) -> str:
    """A projection of something that has no such field."""
    return f"field {index} does not exist in this value"


def runtime_bad_condition(value: Any) -> str:
    """An `if` condition that is not one boolean."""
    return "the condition of this `if` is not a single boolean"


def runtime_operator_value(name: str) -> str:
    """An operator used as a value."""
    return f"operator `{name}` must be called"


def runtime_unknown_operator(name: str) -> str:
    """An operator that is not registered."""
    return f"unknown operator `{name}`"


def runtime_unsupported_dtype(name: str) -> str:
    """A dtype NumPy cannot hold."""
    return f"the NumPy runtime cannot hold {name} values"


def runtime_cast_label() -> str:
    """Secondary label on a user cast's type."""
    return "the type the cast checks"


def runtime_annotation_label() -> str:
    """Secondary label on an annotated let's type."""
    return "annotated here"


def runtime_parameter_label() -> str:
    """Secondary label on a parameter's type."""
    return "the parameter's type"


def runtime_wrapped_label() -> str:
    """Secondary label on the place that gave a function its type."""
    return "the function got its type here"


def runtime_let_reason(name: str) -> str:
    """Why an annotated let is checked."""
    return f"the annotation of `%{name}` is checked at runtime (and binds its new dims)"


def runtime_parameter_reason(function: str, param: str, index: int) -> str:
    """Why a parameter is checked."""
    owner = f"`@{function}`" if function else "this closure"
    return f"the {ordinal(index + 1)} parameter (`%{param}`) of {owner} has this type"


def runtime_return_reason(function: str, inferred: bool = False) -> str:
    """Why a result is checked (an inferred return type failing means inference assumed
    something it did not check)."""
    owner = f"`@{function}`" if function else "this closure"
    if inferred:
        return f"the return type the checker inferred for {owner} (no annotation was written): it assumed something about this result that no check verified"
    return f"the declared return type of {owner}"


def runtime_wrapped_argument_reason(index: int, where: str) -> str:
    """Why an argument of a checked function is checked."""
    return f"the {ordinal(index + 1)} argument of a function whose type was fixed at {where}"


def runtime_wrapped_result_reason(reason: str) -> str:
    """Why the result of a checked function is checked."""
    base = "the function's result must have the return type it was given here"
    return f"{base} ({reason})" if reason else base


def runtime_input_names(entry: str, missing: list, unknown: list) -> str:
    """Inputs that do not name the entry's parameters."""
    parts = []
    if missing:
        parts.append("no input for " + ", ".join(f"`%{m}`" for m in missing))
    if unknown:
        parts.append(f"`@{entry}` has no parameter " + ", ".join(f"`%{u}`" for u in unknown))
    return "; ".join(parts)


def runtime_no_entry(entry: str, available: list) -> str:
    """An entry point that is not defined."""
    have = ", ".join(f"`@{a}`" for a in available) or "none"
    return f"there is no definition `@{entry}` to run (defined: {have})"


def runtime_bad_input_spec(text: str, expected: str) -> str:
    """A malformed `--arg` / `--shape` value."""
    return f"cannot read `{text}`: expected {expected}"


def runtime_bad_input_dtype(name: str, dtype: str) -> str:
    """An input array whose element type the language does not have (strings, complex)."""
    return f"input `{name}` has elements of type {dtype}, which is not a dtype of the language (float16/32/64, int8..int64, uint8..uint64, bool)"


def runtime_unreadable_array(path: str, problem: str) -> str:
    """A `.npy` file that cannot be loaded."""
    return f"{path}: cannot load a NumPy array ({problem})"


def runtime_needs_shape(name: str, declared: str) -> str:
    """A parameter that is not fully static and has no input."""
    return f"no input for `%{name}` (type {declared}): give one with --arg {name}=FILE.npy or --shape {name}=2x3"


def runtime_ungivable_input(name: str, declared: str, part: str) -> str:
    """A parameter whose type holds a function or a reference: no input of a run fills it."""
    return (
        f"`%{name}` has type {declared}, which holds {part}: --arg and --shape give tensors and scalars, "
        f"so run a definition that passes it (--entry)"
    )


def runtime_scalar_for_tensor(name: str, declared: str) -> str:
    """A scalar `--arg` for a parameter that is not a scalar."""
    return f"`%{name}` has type {declared}: a value such as 3 fits only a scalar parameter; use --shape or a .npy file"


def runtime_input_repeated(name: str, given: list) -> str:
    """An input given more than once on the command line (`--arg` and `--shape`)."""
    return f"`%{name}` is given {len(given)} times ({', '.join(given)}): give each input once"


def runtime_bad_seed(text: str) -> str:
    """A `--seed` NumPy's generator does not take."""
    return f"cannot read `{text}` as a seed: expected a whole number, 0 or more"


def runtime_unknown_input(name: str, available: list) -> str:
    """An input for a parameter the entry point does not have."""
    have = ", ".join(f"`%{a}`" for a in available) or "none"
    return f"there is no parameter `%{name}` (parameters: {have})"


def runtime_exhausted(exc: BaseException) -> str:
    """A run that ran out of stack or memory."""
    what = "stack (recursion too deep)" if isinstance(exc, RecursionError) else "memory"
    return f"the program ran out of {what}"


def runtime_exhausted_help() -> str:
    """What to do about a recursion too deep for the stack (not something checking finds)."""
    return "the recursion is too deep for the stack: write the loop as a call in tail position (the last thing a body does), which runs in constant stack"


def runtime_step_limit(limit: int) -> str:
    """A run that made more calls than its bound allows."""
    return f"the run made more than {limit:,} calls (of functions and operators) without finishing"


def runtime_step_limit_help(variable: str) -> str:
    """How to let a long run go on."""
    return f"a loop that never ends stops here; if the program really needs more steps, raise the bound with the environment variable {variable}"


def runtime_called_label() -> str:
    """Secondary label on the call of a function that broke its contract."""
    return "called here"


def runtime_contract_reason(index: int, param: str, reason: str) -> str:
    """Why a function's own parameter check blames the place that gave it its type."""
    base = f"its {ordinal(index + 1)} parameter (`%{param}`) rejects an argument of the type it was given"
    return f"{base} ({reason})" if reason else base


def runtime_wrapped_contract_reason(index: int, reason: str) -> str:
    """Why a checked function's own (narrower) type blames the place that gave it a wider one."""
    base = f"its {ordinal(index + 1)} parameter rejects an argument of the type it was given"
    return f"{base} ({reason})" if reason else base


def runtime_rule_crash(exc: BaseException) -> str:
    """A shape rule that crashed on concrete sizes (a bug in gradual)."""
    return f"the shape rule crashed on these inputs ({type(exc).__name__}: {exc})"


def runtime_internal_crash(exc: BaseException) -> str:
    """The runtime itself failed (a bug in gradual)."""
    return f"the runtime failed ({type(exc).__name__}: {exc}); please report it with the program and its inputs"


def internal_check_error(span: Span, name: str, exc: BaseException) -> Diagnostic:
    """Checking a definition crashed (a bug in gradual); the rest of the program is checked."""
    return Diagnostic(
        codes.INTERNAL_ERROR,
        f"gradual failed while checking `@{name}`: {type(exc).__name__}: {exc}",
        span,
        label="the check of this definition crashed",
        help="this is a bug in gradual; the other definitions are still checked",
    )


def option_not_used(option: str, takers: list) -> str:
    """A frontend option given on the command line where no input is of a kind that takes it
    (`gradual check --batch N prog.rly`): it would have been silently ignored."""
    kinds = " and ".join(takers) or "no file kind"
    return f"`--{option}` applies to {kinds}, and no input here is one: it was not used"


def option_needs(option: str, needed: str) -> str:
    """A frontend option that does nothing without another one."""
    return f"`--{option}` does nothing without `--{needed}`: it was not used"


def internal_crash(exc: BaseException) -> str:
    """gradual itself failed outside a run (a bug in gradual)."""
    return f"gradual failed ({type(exc).__name__}: {exc}); please report it with the program"


# onnx frontend ------------------------------------------------------------------------------
# The words of the ONNX frontend (gradual/frontends/onnx): models it cannot read, and the parts
# of a model it cannot import. Appended by the frontend; nothing above uses it.
def onnx_not_installed() -> str:
    """The `onnx` package is missing (the frontend is an optional extra)."""
    return "reading ONNX models needs the `onnx` package: pip install 'gradual[onnx]'"


def onnx_unreadable(span: Span, detail: str) -> Diagnostic:
    """A file that is not an ONNX model."""
    return Diagnostic(
        codes.INPUT_ERROR,
        f"cannot read the file as an ONNX model: {detail}",
        span,
        label="this file",
        help="pass an ONNX model (a ModelProto in protobuf form, usually `.onnx`)",
    )


def onnx_unsupported_operator(span: Span, op_type: str, domain: str, opset: int) -> Diagnostic:
    """An ONNX operator the frontend does not import."""
    where = f"domain `{domain}`" if domain else f"opset {opset}"
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"the ONNX operator `{op_type}` ({where}) is not supported",
        span,
        label="this node",
        help="the supported operators are listed in gradual/frontends/onnx/__init__.py",
    )


def onnx_function_not_expanded(span: Span, name: str, domain: str, why: str) -> Diagnostic:
    """A call of a model-local function that ONNX's inliner cannot expand (frontends/onnx/functions.py)."""
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"the model-local function `{name}` (domain `{domain}`) cannot be expanded: {why}",
        span,
        label="this call",
        help="gradual imports a model-local function by expanding its body in place "
        "(ONNX's inliner): a function that calls itself, or calls nested more than 100 deep, stays a call",
    )


def onnx_sequence_unsupported(span: Span, op_type: str, what: str) -> Diagnostic:
    """A sequence operator gradual cannot import as tuples (convert/sequence.py)."""
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"`{op_type}` is not supported here: {what}",
        span,
        label="this node",
        help="gradual imports a sequence as a tuple whose length is known where it is made "
        "(SplitToSequence by constant sizes of a static dim, SequenceConstruct, SequenceEmpty, "
        "SequenceInsert at a constant position)",
    )


def onnx_unsupported_attribute(span: Span, op_type: str, name: str, value: str, supported: str) -> Diagnostic:
    """An attribute value (or an output) the frontend does not import."""
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        f"`{op_type}` with {name}={value} is not supported",
        span,
        label="this node",
        help=f"gradual imports `{op_type}` with {supported}",
    )


def onnx_attribute_kind(span: Span, op_type: str, name: str, expected: str, found: str) -> Diagnostic:
    """An attribute whose kind is not the one the operator's schema gives."""
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        f"`{op_type}` needs attribute `{name}` of type {expected}, but it is of type {found}",
        span,
        label="this node",
        help=f"write `{name}` as an {expected} attribute, as ONNX's definition of `{op_type}` says",
    )


def onnx_attribute_missing(span: Span, op_type: str, name: str) -> Diagnostic:
    """A required attribute that the node does not have."""
    return Diagnostic(
        codes.MISSING_ATTRIBUTE,
        f"`{op_type}` needs attribute `{name}`, but the node has none",
        span,
        label="this node",
        help=f"give the node its `{name}` attribute",
    )


def onnx_node_arity(span: Span, op_type: str, role: str, count: int, least: int, most: int) -> Diagnostic:
    """A node with more or fewer inputs or outputs than its operator's schema allows."""
    allowed = str(least) if least == most else f"{least} to {most}" if most < 2**31 - 1 else f"at least {least}"
    noun = role[:-1] if allowed == "1" else role
    return Diagnostic(
        codes.WRONG_ARITY,
        f"`{op_type}` takes {allowed} {noun}, but the node lists {count}",
        span,
        label="this node",
        help=f"give the node the {role} ONNX's definition of `{op_type}` says",
    )


def onnx_bad_tensor_attribute(span: Span, op_type: str, name: str, problem: str) -> Diagnostic:
    """A TENSOR attribute whose data does not fit its declared dims or element type."""
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        f"attribute `{name}` of `{op_type}` cannot be read: {problem}",
        span,
        label="this node",
        help="re-export the model, or repair the tensor's dims or data",
    )


#: what a frontend's unsupported-dtype diagnostic says the runtime holds
_RUNNABLE_DTYPES = "gradual runs bool, int8 to int64, uint8 to uint64, float16, bfloat16, float32 and float64"


def onnx_unsupported_dtype(span: Span, tensor: str, dtype: str) -> Diagnostic:
    """A tensor whose element type gradual cannot run."""
    return Diagnostic(
        codes.UNKNOWN_DTYPE,
        f"tensor `{tensor}` has element type {dtype}, which gradual does not support",
        span,
        label="here",
        help=_RUNNABLE_DTYPES + " (and ONNX's 8-, 4- and 2-bit types)",
    )


def onnx_bad_initializer(span: Span, tensor: str, problem: str) -> Diagnostic:
    """An initializer whose data does not fit its declared dims or element type."""
    return Diagnostic(
        codes.BAD_INITIALIZER,
        f"initializer `{tensor}` cannot be read: {problem}",
        span,
        label="this initializer",
        help="re-export the model, or repair the initializer's dims or data",
    )


def onnx_unsupported_value(span: Span, tensor: str, kind: str) -> Diagnostic:
    """A graph value that is not a tensor (a sequence, a map, an optional)."""
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"`{tensor}` is {kind}, but gradual imports only tensors",
        span,
        label="here",
        help="only graphs whose inputs, outputs and values are tensors can be checked",
    )


def onnx_needs_constant(span: Span, op_type: str, index: int, tensor: str, role: str) -> Diagnostic:
    """An input the frontend needs as a constant (it becomes an attribute)."""
    return Diagnostic(
        codes.OP_CONSTRAINT,
        f"`{op_type}` needs its {ordinal(index + 1)} input `{tensor}` ({role}) to be a constant",
        span,
        label="this node",
        help="make it an initializer or the output of a Constant node",
    )


def onnx_undefined_tensor(span: Span, tensor: str) -> Diagnostic:
    """A node input that nothing produces."""
    return Diagnostic(
        codes.UNKNOWN_VARIABLE,
        f"`{tensor}` is used here, but no graph input, initializer or earlier node produces it",
        span,
        label="this node",
        help="the graph's nodes must be in topological order",
    )


def onnx_duplicate_tensor(span: Span, tensor: str, other: str, nested: bool = False) -> Diagnostic:
    """A tensor name a graph defines twice (ONNX graphs are in single static assignment), or
    a subgraph's node defines again (`nested`: an enclosing graph defined it first)."""
    rule = (
        "an ONNX subgraph reads the tensors of the graphs around it but does not define them again"
        if nested
        else "an ONNX graph defines each tensor once"
    )
    return Diagnostic(
        codes.DUPLICATE_DEFINITION,
        f"`{tensor}` is defined here, but {other} defines it too: {rule}",
        span,
        label="this defines it again",
        help="rename one of the two (ONNX Runtime and onnx.checker reject the model as it is)",
    )


def onnx_hiding_initializer(span: Span, tensor: str, other: str) -> Diagnostic:
    """A subgraph's initializer named as a tensor of an enclosing graph (importer._hides_enclosing)."""
    return Diagnostic(
        codes.DUPLICATE_DEFINITION,
        f"a subgraph of this node has an initializer `{tensor}`, but the enclosing graph's {other} defines "
        f"`{tensor}` too: ONNX Runtime reads the initializer where it folds constants and the enclosing "
        f"tensor where it does not",
        span,
        label="its subgraph defines it again",
        help="rename the initializer (gradual reads the enclosing tensor, as ONNX's reference evaluator does)",
    )


def onnx_inferred_claim(tensor: str) -> str:
    """How a cast asserting what ONNX's shape inference (or the model's value_info) says about
    a tensor names it."""
    return f"tensor {_code(tensor)} (typed by ONNX's shape inference or the model's value_info)"


def onnx_node_header(name: str, index: int, op_type: str, where: str = "") -> str:
    """A node's name as diagnostics show it: `node Conv_3 (Conv)`, `node #4 (Add) in then_branch of If_1`."""
    who = name if name else f"#{index}"
    return f"node {who} ({op_type})" + (f" in {where}" if where else "")


def onnx_node_text(header: str, inputs: list, outputs: list) -> str:
    """A node as diagnostics show it: `node Conv_3 (Conv): X, W -> Y`."""
    return f"{header}: {', '.join(inputs) or '()'} -> {', '.join(outputs) or '()'}"


def onnx_input_text(name: str, described: str) -> str:
    """A graph input as diagnostics show it."""
    return f"graph input {name}: {described}"


def onnx_constant_text(name: str, described: str) -> str:
    """An initializer (or a frozen input) as diagnostics show it."""
    return f"initializer {name}: {described}"


def onnx_output_text(names: list) -> str:
    """The graph's outputs as diagnostics show them (declared types are checked there)."""
    return f"graph outputs: {', '.join(names)}"


def model_unknown_input(name: str, available: list) -> str:
    """An input given by a name that is not one of an imported model's inputs."""
    have = ", ".join(f"`{a}`" for a in available) or "none"
    return f"the model has no input `{name}` (inputs: {have})"


def onnx_unreadable_tensor(path: str, problem: str) -> str:
    """A `.pb` input that is not a TensorProto."""
    return f"cannot read {path} as an ONNX TensorProto: {problem}"


def onnx_import_header(path: str, opset: int, nodes: int) -> str:
    """The first comment line of `gradual import`."""
    return f"imported from {path} (ONNX opset {opset}, {nodes} node{'s' if nodes != 1 else ''}) by gradual"


def onnx_constants_header(params: list) -> str:
    """Which parameters of an imported program hold the model's initializers."""
    shown = ", ".join(f"%{p}" for p in params[:8]) + (f" and {len(params) - 8} more" if len(params) > 8 else "")
    return f"initializers passed as parameters: {shown}"


def onnx_renamed_dims_header(renamed: dict) -> str:
    """Which dim_params are spelled otherwise in the imported program."""
    pairs = [f"`{text}` is {name}" for text, name in list(renamed.items())[:8]]
    more = f" and {len(renamed) - 8} more" if len(renamed) > 8 else ""
    return "dim_params renamed: " + ", ".join(pairs) + more


# torch.export frontend --------------------------------------------------------------------------
# The words of the torch.export frontend (gradual/frontends/torch_export): archives it cannot
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
        data={"operator": target, "why": why},
    )


def torch_unsupported_dtype(span: Span, value: str, dtype: str) -> Diagnostic:
    """A value whose element type gradual cannot run."""
    return Diagnostic(
        codes.UNKNOWN_DTYPE,
        f"`{value}` has element type {dtype}, which gradual does not support",
        span,
        label="here",
        help=_RUNNABLE_DTYPES,
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


def format_bad_width(text: str) -> str:
    """A `gradual format --width` outside what it takes."""
    return f"cannot read `{text}` as a width: expected a whole number of columns from 20 to 1000"


def format_refused(path: str, reason: str) -> str:
    """A file formatting would not keep as it is (the formatter's own check failed)."""
    return f"{path}: not formatted: {reason}; the file is left as it is (a bug in gradual: please report it)"
