"""What inference records and keeps while it walks a module: check sites, per-definition
results, the environment of a body (variables, facts, aliases, undoable), and a pass's state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from gradual.checker.names import Binder, FunctionInfo, Resolution
from gradual.checker.site.values import SiteOutcome
from gradual.diagnostics import Diagnostic
from gradual.infra.scopes import UndoLog
from gradual.ops.attributes import written_key
from gradual.ops.registry import Registry
from gradual.shapes import Dimension, Symbol
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import (
    DTypeVar,
    FuncType,
    TupleType,
    Type,
    TypeVar,
    map_dims,
    type_symbols,
)
from gradual.types.unify import Solver

MAX_ITERATIONS = 12


#: whole-module rounds a widened hint may cause before every hint is widened (`Checker.run`)
HINT_ROUNDS = 3


@dataclass
class CheckRecord:
    """A check site that can fail at runtime: a cast of `node` to `type` that elaboration
    inserts, or (`inserted` False) a written one, an annotated let or a cast, over an
    imprecise value (spec §5.1: every such site counts)."""

    node: ast.Node
    type: Type
    blame: Span
    reason: str
    verifies: bool
    inserted: bool = True  # False: a check the runtime makes by itself (a write through a reference)


@dataclass
class FunctionResult:
    """What checking one definition produced."""

    name: str
    node: ast.Def
    type: FuncType
    checks: list[CheckRecord] = field(default_factory=list)

    @property
    def check_count(self) -> int:
        """Check sites that verify something (binding-only casts are free): inserted casts and
        contracts, and written casts and let annotations over imprecise values (spec §5.1)."""
        return sum(1 for c in self.checks if c.verifies)


#: a Dataflow checked without its syntax: (the Dataflow, each statement's type, each one's
#: instantiation), None where a statement's syntax was made (`types` has it then)
DataflowRecord = tuple[ast.Dataflow, list[Optional[Type]], list[Any]]


@dataclass
class Frame:
    """What one inference pass over a function body records."""

    types: dict[int, Type] = field(default_factory=dict)
    checks: list[CheckRecord] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    instantiations: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    #: per Dataflow (by id): (the Dataflow, each statement's type, each one's instantiation),
    #: for the statements checked without their syntax (None where it was made: `types` has it)
    dataflow: dict[int, DataflowRecord] = field(default_factory=dict)

    def absorb(self, other: "Frame") -> None:
        """Keep a nested pass's records (its final iteration)."""
        self.types.update(other.types)
        self.checks.extend(other.checks)
        self.diagnostics.extend(other.diagnostics)
        self.instantiations.update(other.instantiations)
        self.dataflow.update(other.dataflow)


@dataclass
class DefinitionRecord:
    """Everything checking one definition produced, kept apart so a tool can reuse it when
    neither the definition nor its callees' signatures change (the language server)."""

    result: FunctionResult
    types: dict[int, Type]
    diagnostics: list[Diagnostic]
    instantiations: dict[int, tuple[Any, ...]]
    #: the type calls are checked against, where it differs from the result's (hints kept)
    call_type: Optional[FuncType] = None
    #: Frame.dataflow, final
    dataflow: dict[int, DataflowRecord] = field(default_factory=dict)


class Env:
    """Types of local variables, and the facts runtime checks have established about them
    (so one fact of one value is checked once). A nested level (a branch, a closure body)
    starts at `mark()` and ends at `undo(mark)`, forgetting what it bound or refined; one dict
    per table serves every depth (scopes.UndoLog)."""

    __slots__ = ("types", "facts", "aliases", "loose", "log")

    def __init__(self) -> None:
        self.types: dict[int, Type] = {}
        self.facts: dict[int, frozenset[Any]] = {}  # every fact checked about a variable, in this level or outside
        #: an existential bound where the value's dim was known (`let %y: (b, 4) = ...` of a
        #: (2, 4) value) is that dim from there on: b is 2
        self.aliases: dict[Symbol, Dimension] = {}
        #: an existential bound where the value's dim was not known (`?`, `0..3`, `2..3`): it
        #: stays a symbol, but one that may equal another (site.CallSite._loose_equal); True where
        #: it may also be 1, which broadcasting must not claim (site.CallSite.loose)
        self.loose: dict[Symbol, bool] = {}
        self.log = UndoLog()

    def alias(self, sym: Symbol, dim: Dimension) -> None:
        """From here on (in this level and the ones inside it) `sym` is `dim`."""
        self.log.set(self.aliases, sym, dim)

    def loosen(self, sym: Symbol, may_be_one: bool = True) -> None:
        """From here on `sym` names a dim that a more precise program knows (and that may be 1)."""
        self.log.set(self.loose, sym, may_be_one)

    def aliased(self, t: Type) -> Type:
        """A written type with the existentials known to be a dim replaced by it."""
        aliases = self.aliases
        if not aliases or not (type_symbols(t) & aliases.keys()):
            return t

        def replace(d: Dimension) -> Dimension:
            if not d.is_symbolic or not (d.expr.symbols() & aliases.keys()):
                return d
            try:
                return Dimension.of_expr(d.expr.substitute(lambda s: aliases[s].expr if s in aliases else None))
            except ValueError:  # `b - 1` with b aliased to 0: no size; the annotation stays, and its flow says so
                return d

        return map_dims(t, replace)

    def facts_of(self, binder: Binder) -> frozenset[Any]:
        """Every fact checked about a variable here or in an enclosing level."""
        return self.facts.get(id(binder), NO_FACTS)

    def add_fact(self, binder: Binder, fact: tuple[Any, ...]) -> None:
        self.log.set(self.facts, id(binder), self.facts.get(id(binder), NO_FACTS) | {fact})

    def lookup(self, binder: Binder) -> Optional[Type]:
        return self.types.get(id(binder))

    def set(self, binder: Binder, t: Type) -> None:
        self.log.set(self.types, id(binder), t)

    def mark(self) -> int:
        """The start of a nested level."""
        return self.log.mark()

    def undo(self, mark: int) -> None:
        """The end of the nested level started at `mark`."""
        self.log.undo(mark)


@dataclass
class Pass:
    """State of one inference pass over one function (or closure)."""

    solver: Solver
    frame: Frame
    kind: str
    info: FunctionInfo
    owner: str = ""  # the definition whose body this is
    #: signature symbol -> (lo, hi) that the body checks before it can return (FuncType.requires)
    requires: dict[Symbol, tuple[int, Optional[int]]] = field(default_factory=dict)
    #: dtype variable -> the dtype classes the body's operators need of it (FuncType.dtype_requires)
    dtype_requires: dict[DTypeVar, Any] = field(default_factory=dict)
    signature_symbols: Optional[frozenset[Symbol]] = None
    #: the nesting level of the env at this function's body (0 for a definition; a closure's
    #: body is one level deeper than where it is written): what is learned is kept only there
    level: int = 0
    #: the finalized records of closed closures in this definition's pass (closed_closure),
    #: one list shared by every nested pass, so no record is finalized twice
    finished: list[Any] = field(default_factory=list)


NO_FACTS: frozenset[Any] = frozenset()


class CheckerState:
    """The tables a module's check keeps (the stacked concerns of `infer.Checker` read and write
    them): records per definition and per call, the diagnostics, inferred types, widening state."""

    def __init__(self, resolution: Resolution, registry: Registry, record_uses: bool = False) -> None:
        self.res = resolution
        #: also record the type of each variable use (tools ask "what is `%x` here?")
        self.record_uses = record_uses
        self.records: dict[str, DefinitionRecord] = {}
        #: per call: what its signature's symbols were bound to (`k := 784`), for tools
        self.instantiations: dict[int, tuple[Any, ...]] = {}
        self.registry = registry
        self.globals: dict[str, FuncType] = {}
        self.assumed: dict[str, FuncType] = {}
        self.results: dict[str, FunctionResult] = {}
        self.diagnostics: list[Diagnostic] = list(resolution.diagnostics)
        self.types: dict[int, Type] = {}
        #: the Dataflow statements' records (Frame.dataflow), which `publish_dataflow` puts in
        #: `types` and `instantiations` under their nodes when a tool asks for those
        self.dataflow: dict[int, DataflowRecord] = {}
        self.widened: set[tuple[Any, ...]] = set()  # hint keys: (binder id, axis) or (binder id, "rank")
        #: unannotated parameters' dims widened to `?` (a recursive call passed another value)
        self.widened_dims: set[Any] = set()
        #: a callee being checked, or a closure a let binds: not used as a value (`expr`)
        self.calling: Optional[ast.Expr] = None
        self.dim_keys: dict[Any, Any] = {}  # each unannotated parameter's dim variable -> its key
        self.current: Optional[Pass] = None
        self.param_vars: dict[tuple[object, ...], Any] = {}
        self.param_var_set: set[Any] = set()  # param_vars' values, for membership
        self.known_calls: dict[tuple[Any, ...], SiteOutcome] = {}
        #: `known_calls`' shared outcomes again, keyed by the identity of the argument types (and
        #: facts) and the attributes as written (calls.quick_key): each value keeps those objects
        #: alive, so an id in a key is never another object's; reset with `known_calls`
        self.quick_calls: dict[tuple[Any, ...], tuple[SiteOutcome, tuple[Any, ...]]] = {}
        #: tuple types of quick calls' tuple arguments, by the identity of their fields (Calls.shared_tuple_type)
        self.tuple_types: dict[tuple[int, ...], TupleType] = {}
        #: every existential a body annotation or cast of the module introduces
        self.existentials: set[Symbol] = {s for syms in resolution.introduced.values() for s in syms}
        #: the types closed closures were given, by identity (held, so no id is reused): they hold
        #: no variable of any solver, so a search for element variables need not enter them
        self.closed_types: dict[int, Type] = {}
        #: the definition each hinted parameter dim belongs to (a widening key -> name)
        self.hint_owner: dict[tuple[Any, ...], str] = {}
        self.stale = False


def quick_key(name: str, binders: list[Any], env: Env, attr_nodes: tuple[ast.Attr, ...]) -> Optional[tuple[Any, ...]]:
    """A key for `quick_outcome` made without hashing a type or checking an attribute: the
    operator, its attributes as written, the identity of each argument's type (and of its
    facts), and which arguments are the same variable; None where `_call_key` must decide
    (an argument not yet typed or still an inference variable, or loose symbols in scope).

    Equal quick keys make equal `_call_key`s: the same operator and arity, attributes that
    check to the same values, the very same (closed) types, facts and sharing. The types and
    facts it names are kept alive beside it (`quick_referents`)."""
    if env.loose:
        return None
    types = env.types
    key: list[Any] = [name, written_key(attr_nodes) if attr_nodes else ()]
    for binder in binders:
        if binder is None:
            return None
        if binder.__class__ is tuple:  # a tuple of variables: its fields' types
            fields = [types.get(id(b)) if b is not None else None for b in binder]
            if None in fields or any(t.__class__ is TypeVar for t in fields):
                return None
            key.append(tuple([id(t) for t in fields]))
            continue
        t = types.get(id(binder))
        if t is None or t.__class__ is TypeVar:
            return None
        key.append(id(t))
    facts = env.facts
    if facts:
        key.append("facts")
        key.extend([id(facts.get(id(binder), NO_FACTS)) for binder in binders])
    if len(binders) > 1:
        key.append(argument_sharing(binders))
    return tuple(key)


def quick_referents(binders: list[Any], env: Env) -> tuple[Any, ...]:
    """The objects a quick key names by identity (each argument's type and facts)."""
    types, facts = env.types, env.facts
    return tuple(
        [
            tuple([types.get(id(f)) for f in b])
            if b.__class__ is tuple
            else (types.get(id(b)), facts.get(id(b), NO_FACTS))
            for b in binders
        ]
    )


def argument_sharing(binders: list[Any]) -> tuple[int, ...]:
    """Each argument: -1 (not a variable), or the first argument that is the same variable (by
    identity)."""
    first: dict[int, int] = {}
    return tuple(
        [-1 if b is None or b.__class__ is tuple else first.setdefault(id(b), i) for i, b in enumerate(binders)]
    )
