"""The words of `gradual run` (gradual/runtime/): failed runtime checks, operator calls that
cannot run, and problems with a run's inputs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from gradual.checker.messages import path_phrase
from gradual.diagnostics import Diagnostic, codes
from gradual.diagnostics.words import backticked, ordinal, safe_format
from gradual.ops.messages import RULE_MESSAGES
from gradual.syntax.source import Span

if TYPE_CHECKING:
    pass


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
    "no-clause": "it was made by `{actual}`, which no clause matches",
    "constructor": "it was made by `{actual}`, a constructor of {adt}, not of {expected}",
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
    "match": "no clause of this match takes the value",
    "pattern": "the value bound here does not have the annotated type",
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
    "match": "a partial match (`match?`) stops the run where no clause matches: add a clause for this value, "
    "or make it `match` so the checker says which values are missing",
    "pattern": "annotate the pattern variable with `?` where the size varies",
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
    detail = safe_format(_RUNTIME_DETAILS.get(what, what), texts)
    if facts.get("expr") and what in ("dim", "broadcast"):
        detail += f" (`{facts['expr']}`)"
    if path:
        detail = "in " + path_phrase(path).removesuffix(" of ") + ", " + detail
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
    return path_phrase(view.path) + f"the {ordinal(view.index + 1)} argument"


def _runtime_rule_fact(value: Any, where: bool) -> str:
    """A fact of a rule failure at runtime; `where` names the argument and axis a dim came from."""
    from gradual.ops.context import ArgView

    origin = getattr(value, "origin", None)
    if isinstance(value, ArgView):
        return _runtime_arg(value)
    if where and origin is not None and isinstance(value, int):
        index, path, axis = origin
        return f"dim {axis} of {path_phrase(path)}the {ordinal(index + 1)} argument ({int(value)})"
    if where and origin is not None and isinstance(value, str):
        index, path, _ = origin
        return f"the dtype of {path_phrase(path)}the {ordinal(index + 1)} argument ({value})"
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
    texts["op"] = backticked(op)
    texts["named"] = f" (`{facts['symbol']}`)" if facts.get("symbol") else ""
    if "hi" in facts and facts["hi"] is None:
        texts["hi"] = ""
    if code in _RUNTIME_RULES:
        template, help_text = _RUNTIME_RULES[code]
    else:
        _, template, help_text = RULE_MESSAGES.get(code, ("", "{op} rejects its inputs: " + code, "check the inputs"))
    notes = [f"the shape rule of {backticked(op)} ran on the inputs before its kernel"]
    if signature:
        notes.append(f"the signature is {signature}")
    return Diagnostic(
        codes.CHECK_FAILED,
        safe_format(template, texts),
        span,
        label=f"called with {inputs}",
        notes=tuple(notes),
        help=safe_format(help_text, texts),
    )


def runtime_operator_error(span: Span, op: str, detail: str, inputs: str, help: str = "") -> Diagnostic:
    """An operator call that could not run on NumPy."""
    return Diagnostic(
        codes.RUNTIME_ERROR,
        f"{backticked(op)} failed at runtime: {detail}",
        span,
        label=f"called with {inputs}" if inputs else "this call",
        help=help or "check the inputs' values (indices in range, divisors non-zero, ...)",
    )


def runtime_rule_disagrees(span: Span, op: str, detail: str, inputs: str) -> Diagnostic:
    """A kernel whose output is not what its shape rule computed: a bug in gradual."""
    return Diagnostic(
        codes.INTERNAL_ERROR,
        f"{backticked(op)}: {detail}",
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
    return f"there is no NumPy kernel for {backticked(op)} (pass `kernel=` to `gradual.register_op`)"


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


def reference_agrees(framework: str, count: int, largest: float) -> str:
    """`gradual run` of a model: its framework gave the same outputs."""
    outputs = "the output agrees" if count == 1 else f"all {count} outputs agree"
    return f"{framework}: {outputs} (largest difference {largest:.3g})"


def reference_differs(framework: str, index: int, detail: str) -> str:
    """`gradual run` of a model: its framework gave another output than gradual's runtime."""
    return f"output {index} differs from {framework}'s: {detail}"


def reference_count(framework: str, ours: int, theirs: int) -> str:
    """`gradual run` of a model: its framework gave another number of outputs."""
    return f"gradual's run gave {ours} output{'' if ours == 1 else 's'}, {framework} gave {theirs}"


def reference_failed(framework: str, exc: BaseException) -> str:
    """`gradual run` of a model: its framework could not run it on the same inputs."""
    message = str(exc).split("\n", 1)[0].strip()
    return f"{framework} could not run it on these inputs ({type(exc).__name__}{': ' + message if message else ''})"


def runtime_match_reason() -> str:
    """Why a partial match may stop a run."""
    return "a partial match (`match?`) takes only the values its clauses match"


def runtime_pattern_reason(name: str) -> str:
    """Why a pattern variable's annotation is checked."""
    return f"the annotation of the pattern variable `%{name}`"
