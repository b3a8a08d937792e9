"""Instrumented runs for the soundness properties: every value an elaborated program computes
is compared with the type the checker inferred for the expression that computed it.

`RecordingElaborator` elaborates like `gradual.elaborate` and remembers, for each node of the
elaborated module, the node of the checked program it came from and the names elaboration gave
the definition's symbols. `TracingInterpreter` runs the elaborated module like the reference
interpreter and, after every expression, checks the value against the checker's type of the
original expression: static dims equal, intervals contain the size, a symbolic dim evaluates
to the size under the symbols the run has bound (a symbol the run never binds is bound by its
first sighting here, and must agree afterwards). A mismatch raises `Unsound`, and so does an
operator's rule that stops a run at a call the checker typed with a dim that is negative there
(`n - 2` of a crop at n = 1: a size the checker assumed and did not check). Each
definition's parameters are checked the same way on entry, against its inferred type (every
symbol of the signature is bound by then, so `n // 2` before `n` is compared too).

`run_outcome` classifies a run: outputs, an allowed stop (`CheckFailure` of an inserted check,
an operator's rule at a call, a written cast or annotated let, a function contract a check
site states), or a problem (anything else). A rank that reaches an operator's rule unchecked
(a dynamic rank into `transpose` with axes) is a problem: every rank a rule needs is checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

import gradual
from gradual.checker.elaboration import Elaborator
from gradual.runtime import CheckFailure, Interpreter, RunFailure
from gradual.runtime.errors import OperatorCheckFailure
from gradual.runtime.values import RefCell, dtype_name, flatten_outputs
from gradual.shapes import Dimension
from gradual.syntax import ast
from gradual.types import DTypeVar, FuncType, RefType, TensorType, TupleType, Variadic

#: the blame kinds of a CheckFailure a sound run may stop with
ALLOWED_BLAME = frozenset({"inserted", "operator", "cast", "let", "write", "projection"})

#: the blame kinds of a function contract: allowed where a check site of the checker states it
#: (and a written return annotation the checker made the check of a quantified function type:
#: no cast can restate its names, finalize.quantifies_functions)
CONTRACT_BLAME = frozenset({"result", "contract", "return"})

#: rule failures that mean the checker let an unknown rank reach the rule: each rank or least
#: rank a rule needs is checked); relations between two unknown ranks (the
#: fields of a concatenate, `same-rank`; a diagonal's or a scatter's indices' rank against the
#: input's, `rank-relation`), a rank's upper bound (broadcast_to, rotary_embedding) and the dims a `dyn.reshape`
#: shape value copies (a 0 in it is a copy code) are left to the rule
RANK_CODES = frozenset(
    {
        "rank",
        "rank-too-small",
        "transpose-axes",
        "slice-length",
        "not-a-scalar",
        "new-axis-out-of-range",
        "axis-out-of-range",
        "pad-width",
    }
)


class Unsound(AssertionError):
    """A value outside the type the checker inferred for its expression."""


class RecordingElaborator(Elaborator):
    """An Elaborator that remembers where each elaborated node came from."""

    def __init__(self, result: Any) -> None:
        super().__init__(result)
        self.origin: dict = {}
        self.keep: list = []
        self.def_names: dict = {}  # definition name -> the names its symbols print as

    def definition(self, d: Any, fn: Any) -> Any:
        """Elaborate a definition, remembering the names of its symbols."""
        out = super().definition(d, fn)
        self.def_names[d.name] = self.names
        return out

    def _keep_type(self, old: object, new: object) -> None:
        super()._keep_type(old, new)
        self.origin[id(new)] = (old, self.names)
        self.keep.append(new)


def elaborate_recorded(result: gradual.CheckResult) -> tuple:
    """The elaborated module and the elaborator that made it."""
    from gradual.infra.deep import run_deep

    elaborator = RecordingElaborator(result)
    module = run_deep(elaborator.module)
    return module, elaborator


class TracingInterpreter(Interpreter):
    """The reference interpreter, checking each expression's value against its inferred type."""

    def __init__(self, result: gradual.CheckResult) -> None:
        module, self.elaborator = elaborate_recorded(result)
        super().__init__(module, result.registry)
        self.result = result
        self.first_sightings: dict = {}
        self.checked = 0
        for kind, fn in list(self._eval.items()):
            self._eval[kind] = self._traced(fn)

    def _traced(self, fn: Any) -> Any:
        def traced(e: Any, frame: Any) -> Any:
            try:
                value = fn(e, frame)
            except OperatorCheckFailure:
                self.verify_sizes(e, frame)
                raise
            self.verify(e, value, frame)
            return value

        return traced

    def verify_sizes(self, node: Any, frame: Any) -> None:
        """An operator's rule stopped the run at a call: the checker's type of the call must not
        hold a negative dim there that the arguments' shapes decide (`n - 2` of a crop at n = 1
        is a size the checker assumed, which a check where the argument comes in must hold). A
        dim that an argument's shape value decides (`dyn.zeros` of `n - m`) is the rule's to
        check at the call."""
        found = self.elaborator.origin.get(id(node))
        if found is None or not isinstance(found[0], ast.Call):
            return
        old, names = found
        valued = set()
        for arg in old.args:
            t = self.argument_type(arg)
            if isinstance(t, TensorType) and t.value is not None:
                valued |= {s.uid for v in t.value if isinstance(v, Dimension) for s in v.symbols()}
        for d in _dims_of(self.result.types.get(id(old))):
            if not d.is_symbolic or {sym.uid for sym in d.symbols()} & valued:
                continue
            env = {sym: self.lookup(sym, frame, names) for sym in d.symbols()}
            if None not in env.values() and d.evaluate(env) < 0:
                raise Unsound(
                    f"{old.span.describe()}: the checker typed this call with the dim {d}, "
                    f"which is {d.evaluate(env)} on this run, and inserted no check of it"
                )

    def argument_type(self, arg: Any) -> Any:
        """The checker's type of an argument expression (a let's for a variable it binds; a
        parameter carries no shape value, so None for it)."""
        binder = self.result.resolution.uses.get(id(arg)) if isinstance(arg, ast.Var) else None
        if binder is not None:
            return self.result.types.get(id(binder.node))
        return self.result.types.get(id(arg))

    def body(self, body: Any, frame: Any, tail: bool = False) -> Any:
        """Run a body as the interpreter does; a definition's body first checks the
        definition's parameters (bound in `frame` by now) against its inferred type."""
        d = self.res.defs.get(getattr(self.def_of_body.get(id(body)), "name", None))
        if d is not None:
            self.verify_parameters(d, frame)
        return super().body(body, frame, tail)

    @property
    def def_of_body(self) -> dict:
        found = getattr(self, "_def_of_body", None)
        if found is None:
            found = self._def_of_body = {id(d.body): d for d in self.res.defs.values()}
        return found

    def verify_parameters(self, d: Any, frame: Any) -> None:
        fn = self.result.functions.get(d.name)
        names = self.elaborator.def_names.get(d.name)
        if fn is None or names is None:
            return
        info = self.res.function(d)
        for binder, t in zip(info.params, fn.type.params):
            problem = self.mismatch(frame.values.get(binder), t, frame, names)
            if problem is not None:
                raise Unsound(f"@{d.name} entered with %{binder.name} outside its type {t}: {problem}")

    def let(self, stmt: Any, frame: Any) -> None:
        """Bind a let as the interpreter does, then check the bound value."""
        super().let(stmt, frame)
        self.verify(stmt, frame.values[self.res.binders[id(stmt)]], frame)

    def verify(self, node: Any, value: Any, frame: Any) -> None:
        """Check a value against the checker's type of the node it came from."""
        found = self.elaborator.origin.get(id(node))
        if found is None:
            return
        old, names = found
        t = self.result.types.get(id(old))
        if t is None:
            return
        self.checked += 1
        problem = self.mismatch(value, t, frame, names)
        if problem is not None:
            span = getattr(old, "span", None)
            where = span.describe() if span is not None else "?"
            text = span.text if span is not None and hasattr(span, "text") else ""
            raise Unsound(f"{where}: {text!r} has inferred type {t} but computed {_describe(value)}: {problem}")

    # matching -----------------------------------------------------------------------------------
    def mismatch(self, value: Any, t: Any, frame: Any, names: Any) -> Optional[str]:
        """Why a value does not have type t (None when it does)."""
        if isinstance(t, TupleType):
            if not isinstance(value, tuple) or len(value) != len(t.fields):
                return "not a tuple of the right length"
            for v, f in zip(value, t.fields):
                problem = self.mismatch(v, f, frame, names)
                if problem is not None:
                    return problem
            return None
        if isinstance(t, RefType):  # what the cell holds now has the contents' type
            if not isinstance(value, RefCell):
                return "not a reference"
            return self.mismatch(value.value, t.content, frame, names)
        if not isinstance(t, TensorType):
            return None
        if not isinstance(value, np.ndarray):
            return "not a tensor"
        if isinstance(t.dtype, str) and t.dtype != "?" and t.dtype != dtype_name(value):
            return f"dtype {dtype_name(value)} is not {t.dtype}"
        if isinstance(t.dtype, DTypeVar):
            pass
        if t.dims is None or any(isinstance(d, Variadic) for d in t.dims):
            return None
        if len(t.dims) != value.ndim:
            return f"rank {value.ndim} is not {len(t.dims)}"
        for axis, (d, size) in enumerate(zip(t.dims, value.shape)):
            problem = self.dim_mismatch(d, size, frame, names)
            if problem is not None:
                return f"dim {axis}: {problem}"
        return None

    def dim_mismatch(self, d: Any, size: int, frame: Any, names: Any) -> Optional[str]:
        """Why a size is not dim d (None when it is, or when d names symbols not yet bound)."""
        if not isinstance(d, Dimension):
            return None
        if d.is_static:
            return None if d.get_length() == size else f"{size} is not {d}"
        if d.is_interval:
            return None if d.contains_value(size) else f"{size} is not in {d}"
        env: dict = {}
        unbound = []
        for sym in d.symbols():
            bound = self.lookup(sym, frame, names)
            if bound is None:
                unbound.append(sym)
            else:
                env[sym] = bound
        if not unbound:
            expected = d.evaluate(env)
            return None if expected == size else f"{size} is not {d} = {expected}"
        if len(unbound) == 1 and d.expr == Dimension.symbol(unbound[0]).expr:
            self.first_sightings[(id(frame), unbound[0].uid)] = (frame, size)
        return None

    def lookup(self, sym: Any, frame: Any, names: Any) -> Optional[int]:
        """A checker symbol's value: the runtime's symbol of the same (elaborated) name in the
        frame chain, else what this tracer saw first. Two existentials of one frame may share a
        name (one bound in an `if` branch, one by a cast after it: the first is out of scope by
        then), so the latest binding of the name wins."""
        name = names.names.get(sym.uid) if names is not None else None
        f = frame
        while f is not None:
            if name is not None:
                for rsym, value in reversed(list(f.dims.items())):
                    if rsym.name == name and isinstance(value, int):
                        return value
            seen = self.first_sightings.get((id(f), sym.uid))
            if seen is not None and seen[0] is f:
                return seen[1]
            f = f.parent
        return None


def _dims_of(t: Any) -> list:
    """Every dimension of a tensor type or of the tensors in a tuple type."""
    if isinstance(t, TupleType):
        return [d for f in t.fields for d in _dims_of(f)]
    if isinstance(t, TensorType) and t.dims is not None:
        return [d for d in t.dims if isinstance(d, Dimension)]
    return []


def every_type_static(result: gradual.CheckResult) -> bool:
    """Whether every tensor the checker typed has a static shape (a join of two different
    branches, `(1, 1)` and `(1, 0)`, is `(1, 0..1)`: not static, though every parameter is)."""
    for t in result.types.values():
        if isinstance(t, TensorType) and t.dims is None:
            return False
        if any(not d.is_static for d in _dims_of(t)):
            return False
    return True


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"a {dtype_name(value)} tensor of shape {value.shape}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_describe(v) for v in value) + ")"
    return type(value).__name__


# outcomes -------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """How a run ended: outputs, or the failure that stopped it."""

    outputs: Optional[list] = None
    failure: Optional[BaseException] = None
    check_sites: frozenset = frozenset()  # (start, end) of the spans of every check site
    constraint_sites: frozenset = frozenset()  # (start, end) of each `dim-constraint` warning

    @property
    def ok(self) -> bool:
        """Whether the run gave outputs."""
        return self.failure is None

    @property
    def allowed_stop(self) -> bool:
        """A check (inserted, written, or an operator's rule at a call) stopped the run; or a
        called function's parameter type did, blaming the call, on a divisibility fact that no
        cast states (`2 * n` of an odd size, or `n // 2` of one argument against another's
        dim): the checker cannot insert that check."""
        if not isinstance(self.failure, CheckFailure):
            return False
        kind = self.failure.blame.kind
        if kind == "operator" and self.failure.mismatch.what in RANK_CODES:
            return False
        if kind in CONTRACT_BLAME:
            span = self.failure.blame.span
            return (span.start, span.end) in self.check_sites
        mismatch = self.failure.mismatch
        divisibility = mismatch.what == "unsolvable" or "//" in str(mismatch.facts.get("expr", ""))
        # dtypes that no cast can name (two `?`s a callee's `T` makes equal): the call is the
        # check site the checker recorded, and the callee's parameters check it there; or a
        # claimed dim the call constrains, whose `dim-constraint` warning names the call (spec §6)
        span = self.failure.blame.span
        agreement = mismatch.what == "dtype-var" and (span.start, span.end) in self.check_sites
        claimed = (span.start, span.end) in self.constraint_sites
        return kind in ALLOWED_BLAME or kind == "argument" and (divisibility or agreement or claimed)

    def describe(self) -> str:
        """The outcome in one line."""
        if self.failure is None:
            return "ok " + ", ".join(_describe(o) for o in self.outputs or [])
        f = self.failure
        if isinstance(f, RunFailure):
            d = f.diagnostic()
            kind = getattr(getattr(f, "blame", None), "kind", "")
            return f"{type(f).__name__}[{d.code}/{kind}] at {d.line}:{d.column}: {d.message}"
        return f"{type(f).__name__}: {f}"


def run_outcome(result: gradual.CheckResult, inputs: dict, entry: str = "main", traced: bool = True) -> Outcome:
    """Run the elaborated program (traced) on inputs; never raises for a failed run, except
    that `Unsound` (and any bug in the tracer itself) propagates."""
    interpreter = TracingInterpreter(result) if traced else Interpreter(gradual.elaborate(result), result.registry)
    try:
        return Outcome(
            outputs=flatten_outputs(interpreter.run(entry, dict(inputs))),
            check_sites=check_sites(result),
            constraint_sites=_constraint_sites(result),
        )
    except Unsound:
        raise
    except Exception as exc:  # noqa: BLE001 - classified by the caller
        return Outcome(failure=exc, check_sites=check_sites(result), constraint_sites=_constraint_sites(result))


def _constraint_sites(result: gradual.CheckResult) -> frozenset:
    """(start, end) of each `dim-constraint` warning: a claimed dim a call constrains, which
    the call checks when it runs (spec §6)."""
    return frozenset((d.span.start, d.span.end) for d in result.diagnostics if d.code == "dim-constraint")


def check_sites(result: gradual.CheckResult) -> frozenset:
    """(start, end) of every span a check site blames: each check's blame and node, the
    call a function was given a contract at (the callee's parameter wraps it too, binding
    the symbols only the function type names when it is first called, and blames that call)."""
    calls = {id(a): node for node in _nodes(result.module) if isinstance(node, ast.Call) for a in node.args}
    spans = set()
    for fn in result.functions.values():
        for c in fn.checks:
            spans.update({c.blame, c.node.span})
            if isinstance(c.type, FuncType) and id(c.node) in calls:
                spans.add(calls[id(c.node)].span)
    return frozenset((s.start, s.end) for s in spans)


def _nodes(root: Any) -> list:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Node):
            found.append(node)
            stack.extend(getattr(node, f) for f in getattr(node, "__dataclass_fields__", {}) if f != "span")
        elif isinstance(node, tuple):
            stack.extend(node)
    return found


def same_outputs(a: list, b: list) -> bool:
    """Outputs equal element by element (NaN equal to NaN), same shapes and dtypes."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            return False
    return True


# precision --------------------------------------------------------------------------------------------
def precision_problem(loose: Any, tight: Any, general: frozenset = frozenset()) -> Optional[str]:
    """Why `loose` (inferred for a less precise program) is more precise than `tight` (None
    when it is not): a rank where `tight` has none, a different exact dim (exact dims are
    compared by how they print: two checks make distinct symbols), or a dim that `tight`
    strictly relaxes (`Dimension.relaxes`: `3` where `tight` has `?` or `1..8`). An interval
    where `tight` has a symbol is incomparable, not more precise: it bounds a value that the
    symbol names, and such bounds come from facts both programs check. A dim made only of
    the symbols a function type of `loose` quantifies over (`general`) is more general than
    any dim: an unannotated parameter generalized to `n` where it was `3`."""
    from gradual.types import DynType, FuncType

    if isinstance(loose, DynType) or loose is None:
        return None
    if isinstance(loose, TupleType):
        if not isinstance(tight, TupleType) or len(tight.fields) != len(loose.fields):
            return f"{loose} is a tuple but the precise type is {tight}"
        return _first(precision_problem(a, b, general) for a, b in zip(loose.fields, tight.fields))
    if isinstance(loose, FuncType):
        if not isinstance(tight, FuncType) or len(tight.params) != len(loose.params):
            return f"{loose} is a function but the precise type is {tight}"
        pairs = list(zip(loose.params, tight.params)) + [(loose.ret, tight.ret)]
        inner = general | {s.name for s in loose.dim_params}
        return _first(precision_problem(a, b, inner) for a, b in pairs)
    if isinstance(loose, TensorType):
        if not isinstance(tight, TensorType):
            return f"{loose} is a tensor but the precise type is {tight}"
        return _tensor_precision(loose, tight, general)
    return None


def _first(problems: Any) -> Optional[str]:
    return next((p for p in problems if p is not None), None)


def _tensor_precision(loose: TensorType, tight: TensorType, general: frozenset) -> Optional[str]:
    if (
        isinstance(loose.dtype, str)
        and loose.dtype != "?"
        and isinstance(tight.dtype, str)
        and loose.dtype != tight.dtype
    ):
        return f"dtype {loose.dtype} is not {tight.dtype}"
    if isinstance(loose.dtype, str) and loose.dtype != "?" and isinstance(tight.dtype, DTypeVar):
        return f"dtype {loose.dtype} is more precise than {tight.dtype}"
    if loose.dims is None:
        return None
    if tight.dims is None:
        return f"{loose} has a rank where the precise type {tight} has none"
    pairs = _aligned_dims(loose.dims, tight.dims)
    if pairs is None:
        return f"{loose} and {tight} differ in rank"
    for axis, (a, b) in pairs:
        if not (isinstance(a, Dimension) and isinstance(b, Dimension)):
            continue
        if a.is_symbolic and {s.name for s in a.symbols()} <= general:
            continue
        if a.is_exact and b.is_exact:
            if str(a) != str(b):
                return f"dim {axis} of {loose} differs from {b} in {tight}"
        elif b.relaxes(a) and not a.relaxes(b):
            return f"dim {axis} of {loose} is more precise than {b} in {tight}"
    return None


def _aligned_dims(loose: tuple, tight: tuple) -> Optional[list]:
    """(axis, loose dim, tight dim) of two shapes of one rank; a run in the loose one (`*b, k`)
    stands for any number of the tight one's dims, so its dims on either side meet the tight
    one's ends (None: the ranks cannot agree)."""
    at = next((i for i, d in enumerate(loose) if isinstance(d, Variadic)), None)
    if at is None:
        return list(enumerate(zip(loose, tight))) if len(loose) == len(tight) else None
    prefix, suffix = loose[:at], loose[at + 1 :]
    if len(tight) < len(prefix) + len(suffix) or any(isinstance(d, Variadic) for d in tight):
        return None
    start = len(tight) - len(suffix)
    return list(enumerate(zip(prefix, tight))) + [(start + i, (a, tight[start + i])) for i, a in enumerate(suffix)]
