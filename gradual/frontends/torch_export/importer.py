"""Importing a serialized ExportedProgram into a gradual module (decisions in the package
docstring).

`Importer` walks the graph once, in node order: the graph's inputs (parameters, buffers,
constants, the user's inputs) become parameters of `@main` typed from their recorded metadata,
with torch's symbols and range constraints; each node becomes `let` bindings of its outputs
under torch's names, located at the model's Python line; the user outputs are the result,
annotated with their recorded types.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from gradual import builder as gb
from gradual.checker.driver import CheckResult, check
from gradual.diagnostics.codes import DIM_CONSTRAINT
from gradual.frontends import messages as frontend_messages
from gradual.frontends.torch_export import (
    conversions,  # noqa: F401  (registers the conversions beyond convert.py's)
    messages,
)
from gradual.frontends.torch_export.aliases import Aliases
from gradual.frontends.torch_export.archive import Archive, ArchiveError, dtype_of, scalar_type_name
from gradual.frontends.torch_export.convert import SKIP, SKIPPED, NodeConverter, Unsupported, convert, packet, written
from gradual.frontends.torch_export.graph import GraphNode, InputSpec, Opaque, Program, Ref
from gradual.frontends.torch_export.guards import asserted, equated, inequalities, mentioning, rewritten
from gradual.frontends.torch_export.locations import Listing, PythonLines, model_frame, parse_trace
from gradual.frontends.torch_export.symbols import bounds, dim_of_size, fixed_values, parse_expr, symbols_in
from gradual.ops.registry import default_registry
from gradual.syntax import ast

STATE_KINDS = ("parameter", "buffer", "tensor_constant")


@dataclass(frozen=True)
class ImportOptions:
    """How to import a program. `strict_dims`: torch's symbolic sizes are promises, so a node
    that constrains one (a `view` that needs an even `s27`) is an error. By default they are
    the exporter's claim (spec §6): such a node gets a `dim-constraint` warning and a runtime
    check. Range constraints bound the symbols either way."""

    strict_dims: bool = False


@dataclass
class ProgramInput:
    """A graph input: its name in the graph, its `@main` parameter, its kind (user_input,
    parameter, buffer, tensor_constant) and, for state, the qualified name of its value."""

    name: str
    param: str
    kind: str
    target: str = ""


@dataclass
class ImportedProgram:
    """An imported program: the module (None when the import failed), the import's diagnostics,
    the inputs and outputs, and where the state's values are (read only to run)."""

    path: str
    module: Optional[ast.Module]
    diagnostics: list
    inputs: list
    outputs: list
    archive: Optional[Archive] = None
    node_notes: dict = field(default_factory=dict)
    header: list = field(default_factory=list)
    node_count: int = 0
    guards: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the whole graph was imported."""
        return self.module is not None and not any(d.is_error for d in self.diagnostics)

    @property
    def state(self) -> dict:
        """Parameters of `@main` that hold the model's state, by their qualified names."""
        return {i.param: i.target for i in self.inputs if i.kind in STATE_KINDS}

    def check(self) -> CheckResult:
        """Type-check the module; each diagnostic at a node's Python line notes the ATen node."""
        if self.module is None:
            return CheckResult(None, None, list(self.diagnostics))
        result = check(self.module, self.path)
        for diag in result.diagnostics:
            diag.notes = self.notes(diag) + tuple(diag.notes)
        result.diagnostics[:0] = [d for d in self.diagnostics if not d.is_error]
        return result

    def state_values(self) -> "StateValues":
        """The state's values as NumPy arrays, by parameter, each read from the archive when
        first asked for (InputError when the archive cannot give it)."""
        return StateValues(self)

    def notes(self, diagnostic: Any) -> tuple:
        """The notes a diagnostic of the check gets: the ATen node behind a Python line and,
        for a constraint on torch's symbols, the guard torch.export recorded about them."""
        node = self.node_notes.get(id(diagnostic.span.source))
        notes: tuple[Any, ...] = () if node is None else (node,)
        if diagnostic.code == DIM_CONSTRAINT:
            guards = mentioning(self.guards, (diagnostic.facts or {}).get("symbols", ()))
            notes += (messages.torch_guards_note(guards),) if guards else ()
        return notes

    def feeds(self, inputs: Mapping[str, Any]) -> dict:
        """`@main`'s arguments: the user's inputs (by graph name) and the state's values."""
        user = {i.name: i.param for i in self.inputs if i.kind == "user_input"}
        out = dict(self.state_values())
        for name, value in inputs.items():
            if name not in user and name not in user.values():
                raise KeyError(frontend_messages.model_unknown_input(name, list(user)))
            out[user.get(name, name)] = value
        return out

    def run(self, inputs: Mapping[str, Any], checked: Optional[CheckResult] = None) -> list:
        """Check (unless `checked` is given), elaborate and run on NumPy; the user outputs."""
        from gradual.runtime import run

        return run(checked if checked is not None else self.check(), self.feeds(inputs))

    def text(self) -> str:
        """The module in gradual's language."""
        from gradual.syntax.printer import format_module

        return "" if self.module is None else format_module(self.module)


class StateValues(Mapping):
    """An imported program's parameters, buffers and constants by `@main` parameter, each read
    from the archive when first asked for (checking never reads the weights)."""

    def __init__(self, program: ImportedProgram) -> None:
        self.program = program
        self.targets = program.state
        self.read: dict = {}

    def __getitem__(self, param: str) -> Any:
        if param not in self.read:
            self.read[param] = self._payload(self.targets[param])
        return self.read[param]

    def _payload(self, target: str) -> Any:
        from gradual.runtime.errors import InputError

        try:
            if self.program.archive is None:
                raise KeyError(target)
            return self.program.archive.payload(target)
        except KeyError:
            raise InputError(messages.torch_missing_state(self.program.path, target)) from None
        except ArchiveError as error:
            raise InputError(f"{self.program.path}: {error.detail}") from None

    def __contains__(self, param: object) -> bool:
        return param in self.targets  # Mapping's own reads the value (and a malformed one raises)

    def __iter__(self) -> Iterator[str]:
        return iter(self.targets)

    def __len__(self) -> int:
        return len(self.targets)


_IDENT = re.compile(r"[^A-Za-z0-9_]")


class Namer:
    """Unique `%names` from the graph's names."""

    def __init__(self) -> None:
        self.taken: set = set()
        self.next: dict = {}  # base -> the suffix to try first for it

    def name(self, wanted: str) -> str:
        """A fresh variable name close to `wanted`. Suffixes go on from the last one a base
        was given: trying `_1`, `_2`, ... afresh each time made a name every torch.cond
        branch binds (`x`, `linear`) cost the number of branches before it (quadratic)."""
        base = _IDENT.sub("_", wanted) or "v"
        name, k = base, self.next.get(base, 1)
        while name in self.taken:
            name, k = f"{base}_{k}", k + 1
        self.taken.add(name)
        self.next[base] = k
        return name


class Importer:
    """One import of one program (see the module docstring)."""

    def __init__(self, archive: Archive, path: str, options: Optional[ImportOptions] = None) -> None:
        self.archive = archive
        self.options = options or ImportOptions()
        self.program = Program(archive.program)
        self.path = path
        self.registry = default_registry()
        self.fn = gb.Function("main")
        self.namer = Namer()
        self.exprs: MutableMapping[str, Any] = {}  # a torch.cond branch layers its names over these
        self.literals: dict = {}
        self.poisoned: set = set()
        self.skipped: set = set()
        self.diagnostics: list = []
        self.inputs: list = []
        self.node_notes: dict = {}
        self.lines = PythonLines()
        self.aliases = Aliases(self, self.program.nodes)
        self.fixed: dict = fixed_values(self._bounds())
        self.user_inputs = {spec.name for spec in self.program.inputs if spec.kind == "user_input"}
        self.equal_to = self._equal_symbols()
        self.fixed.update({name: gb.Dim(kept) for name, kept in self.equal_to.items()})
        self.listing = self._listing()
        self.asserting = self.program.only_asserting(lambda node: packet(node.op) in SKIPPED)
        self.guards = self._guards()

    # the walk -----------------------------------------------------------------------------------
    def run(self) -> ImportedProgram:
        """Import the whole program."""
        self.fn.loc = self.listing.outputs()
        for index, spec in enumerate(self.program.inputs):
            self._declare_input(index, spec)
        for node in self.program.nodes:
            self._import_node(node)
        result = self._result()
        module = None
        if result is not None and not any(d.is_error for d in self.diagnostics):
            declared = self._declared_outputs()
            self.fn.ret = gb.located(declared, self.fn.loc.span) if declared is not None else None
            self._declare_symbols()
            module = gb.module(self.fn.returns(result))
        outputs = [v.name if isinstance(v, Ref) else str(v) for v in self.program.user_outputs()]
        return ImportedProgram(
            self.path,
            module,
            self.diagnostics,
            self.inputs,
            outputs,
            self.archive,
            self.node_notes,
            self._header(),
            len(self.program.nodes),
            self.guards,
        )

    def _listing(self) -> Listing:
        nodes = [
            messages.torch_node_text(node.output_names(), node.op, _shown_args(node)) for node in self.program.nodes
        ]
        inputs = [
            messages.torch_input_text(spec.kind, spec.name, spec.target, self._described(spec.name))
            for spec in self.program.inputs
        ]
        outputs = messages.torch_outputs_text(
            [v.name if isinstance(v, Ref) else str(v) for v in self.program.user_outputs()]
        )
        return Listing(self.path, nodes, inputs, outputs)

    def _described(self, name: str) -> str:
        meta = self.program.tensor_meta(name)
        if meta is None:
            return "?"
        dims = [self.dim(s) for s in meta.get("sizes") or []]
        shown = ", ".join("?" if d is None else str(d if isinstance(d, int) else _dim_text(d)) for d in dims)
        return f"{scalar_type_name(meta.get('dtype', 0))}[{shown}]"

    def _header(self) -> list:
        lines = [
            messages.torch_import_header(
                self.path, self.archive.schema_version, self.archive.torch_version, len(self.program.nodes)
            )
        ]
        ranges = [f"{name} in {lo}..{'' if hi is None else hi}" for name, (lo, hi) in sorted(self._bounds().items())]
        if ranges:
            lines.append(messages.torch_ranges_header(ranges))
        if self.guards:
            lines.append(messages.torch_guards_header(self.guards))
        return lines

    def _guards(self) -> list:
        """torch's guards and deferred assertions over gradual's symbols (see guards.py)."""
        return rewritten(self.program.guards, self._size_text) + asserted(
            node.arg("assert_msg") for node in self.program.nodes if packet(node.op) == "aten._assert_scalar"
        )

    def _equal_symbols(self) -> dict:
        """{symbol: the symbol it is equal to} for the inputs' symbols that torch's guards
        equate (`(s14 + s27) == (s27 + s57)`: two caches' lengths exported with one Dim that
        torch still traced as two symbols). torch checks the guard on every call; gradual reads
        the two as one symbol, which the entry binds from the first input and checks against
        the second (it was a dim-constraint warning and a check inside the model). The symbol
        kept is the one an earlier input's dim names."""
        order = self._input_symbol_order()
        parent: dict = {}

        def root(name: str) -> str:
            while parent.get(name, name) != name:
                name = parent[name]
            return name

        for a, b in equated(self._guards()):
            if a in order and b in order and a not in self.fixed and b not in self.fixed:
                a, b = sorted((root(a), root(b)), key=order.index)
                if a != b:
                    parent[b] = a
        return {name: root(name) for name in parent}

    def _input_symbol_order(self) -> list:
        """The inputs' symbols in the order their dims first name them."""
        order: list = []
        for spec in self.program.inputs:
            meta = self.program.tensor_meta(spec.name) if spec.kind != "constant_input" else None
            for size in (meta or {}).get("sizes") or []:
                expr = size.get("as_expr") if isinstance(size, dict) else None
                if isinstance(expr, dict) and isinstance(expr.get("expr_str"), str):
                    order += [n for n in sorted(symbols_in(expr["expr_str"])) if n not in order]
        return order

    def _size_text(self, name: str, axis: int) -> Optional[str]:
        """A user input's recorded size as gradual writes it (None: not known)."""
        dims = self.recorded_dims(name) if name in self.user_inputs else None
        if dims is None or axis >= len(dims) or dims[axis] is None:
            return None
        return str(dims[axis]) if isinstance(dims[axis], int) else _dim_text(dims[axis])

    # inputs ---------------------------------------------------------------------------------------
    def _declare_input(self, index: int, spec: InputSpec) -> None:
        loc = self.listing.input(index)
        if spec.kind == "constant_input":
            self.literals[spec.name] = spec.value
            return
        if spec.kind not in STATE_KINDS + ("user_input",):
            self._report(loc, lambda span: messages.torch_unsupported_input(span, spec.name, spec.kind))
            self.poisoned.add(spec.name)
            return
        value = spec.value
        type_expr: Optional[ast.TypeExpr]
        if isinstance(value, Ref) and value.kind == "sym_int":
            type_expr = gb.Scalar("int64")
        else:
            type_expr = self._tensor_type(spec.name, loc)
            if type_expr is None:
                self.poisoned.add(spec.name)
                return
        param = self.namer.name(spec.name)
        self.exprs[spec.name] = self.fn.param(param, type_expr, loc=loc)
        self.inputs.append(ProgramInput(spec.name, param, spec.kind, spec.target))

    def _tensor_type(self, name: str, loc: gb.Loc) -> Optional[ast.TypeExpr]:
        """A tensor's recorded type (None, reported, when gradual cannot hold it)."""
        meta = self.program.tensor_meta(name)
        if meta is None:
            return gb.Tensor(None, "?")
        dtype = dtype_of(meta.get("dtype", 0))
        if dtype is None:
            shown = scalar_type_name(meta.get("dtype", 0))
            self._report(loc, lambda span: messages.torch_unsupported_dtype(span, name, shown))
            return None
        return gb.Tensor([self.dim(s) for s in meta.get("sizes") or []], dtype)

    def dim(self, size: Any) -> Any:
        """A recorded size as a dimension item for the builder (a pinned symbol is its value)."""
        return dim_of_size(size, self.fixed)

    def _bounds(self) -> dict:
        """Range constraints that bound a symbol: {name: (lo, hi)}."""
        found = {}
        for name, constraint in self.program.range_constraints.items():
            bound = bounds(constraint)
            if bound is not None:
                found[str(name)] = bound
        return found

    def _declare_symbols(self) -> None:
        """Torch's range constraints bound the symbols of `@main`'s signature, and (unless
        `strict_dims`) its symbols are the exporter's claim (spec §6). A lower bound of 2 is
        torch's 0/1 specialization (a Dim.AUTO, or any Dim, reads 2..), which the exported module
        does not check: it runs a batch of 1 (or 0). gradual reads it as 1.. (its checks still
        stop what the graph cannot run at 1; 0 stays refused, which keeps `s * a = s * b`
        reading as `a = b`); any other bound is checked, by torch's module and by the entry."""
        for name, (lo, hi) in self._merged_bounds().items():
            if name not in self.fixed and name.isidentifier():  # a bound of `2*s3` names no symbol
                self.fn.bound_dim(name, 1 if lo == 2 else lo, hi)  # torch's 0/1 specialization
        if not self.options.strict_dims:
            self.fn.claim_dims(self._input_symbols() - set(self.fixed))
        for fact in self._facts():
            self.fn.dim_fact(fact)

    def _facts(self) -> list:
        """torch's inequality guards over the inputs' symbols as facts `larger - smaller - gap
        >= 0` (`s12 <= s3`: a slice `[:s12]` of an s3-long dim is s12 long; ViT's `1 + (h // 4)
        * (w // 4) <= 65`: the position table's slice is the patches' count). torch checks its
        guards on each call; gradual relies on these and checks them where the entry binds
        their symbols (a guard whose sides are no polynomial of the inputs' symbols is left
        out)."""
        facts = []
        inputs = self._input_symbols()
        for smaller, larger, gap in inequalities(self._guards()):
            if not symbols_in(smaller + " " + larger) <= inputs:
                continue  # an unbacked size (`u0`) is not bound on entry, where facts are checked
            low, high = parse_expr(smaller, self.fixed), parse_expr(larger, self.fixed)
            if low is None or high is None or isinstance(low, int) and isinstance(high, int):
                continue
            if any(isinstance(d, gb.Dim) and isinstance(d.expr, ast.DimInterval) for d in (low, high)):
                continue
            facts.append(high - gap - low)
        return facts

    def _merged_bounds(self) -> dict:
        """`_bounds`, a kept symbol bounded by the intersection of its own and its equals' (its
        own where they do not meet: then the guard never holds, and the entry stops anyway)."""
        found = self._bounds()
        for name, kept in self.equal_to.items():
            if name in found:
                lo, hi = found[name]
                have_lo, have_hi = found.get(kept, (0, None))
                highs = [h for h in (hi, have_hi) if h is not None]
                low, high = max(lo, have_lo), (min(highs) if highs else None)
                if high is None or low <= high:
                    found[kept] = (low, high)
        return found

    def _input_symbols(self) -> set:
        """The symbols in the graph inputs' recorded sizes (torch's backed sizes)."""
        found: set = set()
        for spec in self.program.inputs:
            meta = self.program.tensor_meta(spec.name) if spec.kind != "constant_input" else None
            for size in (meta or {}).get("sizes") or []:
                expr = size.get("as_expr") if isinstance(size, dict) else None
                if isinstance(expr, dict) and isinstance(expr.get("expr_str"), str):
                    found |= symbols_in(expr["expr_str"])
        return found

    # nodes ---------------------------------------------------------------------------------------
    def node_loc(self, node: GraphNode) -> gb.Loc:
        """The node's Python line (or its line in the listing), noted as the node's place."""
        frame = model_frame(parse_trace(node.stack_trace)) if node.stack_trace else None
        listing = self.listing.node(node.index)
        loc = self.lines.loc(frame) if frame is not None and frame.line >= 1 else listing
        at = listing.span.describe()
        self.node_notes[id(loc.span.source)] = messages.torch_node_note(listing.span.text, at)
        return loc

    def _import_node(self, node: GraphNode) -> None:
        names = [n for n in node.output_names() if n]
        if node.index in self.asserting:
            self.skipped.update(names)
            return
        if self.poisoned.intersection(node.used_names()):
            self.poisoned.update(names)
            return
        c = NodeConverter(self, node, self.node_loc(node))
        try:
            result = convert(c)
            if result is SKIP:
                self.skipped.update(names)
                return
            self._bind(node, c, result)
            self._written(node, c)
            self.aliases.defined(node)
        except Unsupported as problem:
            self._report(c.loc, problem.make)
            self.poisoned.update(names)

    def _written(self, node: GraphNode, c: NodeConverter) -> None:
        """An in-place node's result is also the tensor it wrote into (aliases.py)."""
        target = written(node)
        if target is None:
            return
        names = [n for n in node.output_names() if n]
        value = self.exprs[names[0]] if names else self.bind_value(target.name, c.operand(target), c)
        self.aliases.write(target.name, value, c)
        for name in names[:1]:
            self.aliases.alias(name, target.name)

    def import_branch(self, graph: dict, operands: list, c: NodeConverter, as_tuple: bool) -> Any:
        """A torch.cond branch (a subgraph) as a block of lets: its inputs bound to the operands,
        its nodes imported at their Python lines (else the cond node's listing line), its
        outputs the block's result (a tuple for several). Names are the subgraph's own: what
        it binds, and what failed in it, is forgotten after it."""
        from gradual.frontends.torch_export.graph import _dict, _list, _node, decode

        nodes = [_node(c.node.index, raw) for raw in _list(graph.get("nodes"))]
        inputs = [decode(i) for i in _list(graph.get("inputs"))]
        outputs = [decode(o) for o in _list(graph.get("outputs"))]
        saved = (self.fn, self.exprs, self.program.tensor_values, set(self.poisoned), set(self.skipped), self.asserting)
        # the branch's names over the graph's, each a layer of its own: copying the graph's
        # tables for every branch cost the graph's size per torch.cond
        # the branch's block stands in for the function while the branch is imported (restored below)
        self.fn = gb.Block()  # type: ignore[assignment]
        self.exprs = ChainMap({}, saved[1])
        self.program.tensor_values = ChainMap(_dict(graph.get("tensor_values")), saved[2])
        self.asserting = set()
        reported = len(self.diagnostics)
        try:
            if len(inputs) != len(operands) or not all(isinstance(i, Ref) for i in inputs):
                raise c.unsupported("a branch whose inputs are not the operands")
            for ref, operand in zip(inputs, operands):
                self.exprs[ref.name] = self.fn.let(self.namer.name(ref.name), operand, loc=c.loc)
            for node in nodes:
                self._import_node(node)
            names = [o.name for o in outputs if isinstance(o, Ref)]
            if len(names) != len(outputs) or any(n in self.poisoned or n not in self.exprs for n in names) or not names:
                if len(self.diagnostics) > reported:
                    raise Unsupported(lambda span: None)  # reported at its node
                raise c.unsupported("a branch whose outputs are not tensors it computes")
            results = [gb.Var(self.exprs[n].name, c.loc) for n in names]
            return self.fn.body(gb.tuple_(*results, loc=c.loc) if as_tuple or len(results) > 1 else results[0])
        finally:
            self.fn, self.exprs, self.program.tensor_values = saved[0], saved[1], saved[2]
            self.poisoned, self.skipped, self.asserting = saved[3], saved[4], saved[5]

    def recompute(self, node: GraphNode) -> None:
        """Convert a node again (a view whose storage was written since; aliases.py)."""
        c = NodeConverter(self, node, self.node_loc(node))
        self._bind(node, c, convert(c))

    def bind_value(self, name: str, expr: Any, c: NodeConverter) -> Any:
        """`let` a value under a fresh name close to `name`, at node `c`; the variable."""
        return self.fn.let(self.namer.name(name), expr, loc=c.loc)

    def var(self, binding: Any, c: NodeConverter) -> Any:
        """A use of a bound variable at node `c`."""
        return gb.Var(binding.name, c.loc)

    def _bind(self, node: GraphNode, c: NodeConverter, expr: Any) -> None:
        """Bind a node's outputs: one, or the fields of the tuple a node of several (or of a
        list of tensors: split, unbind) gives."""
        names = node.output_names()
        if len(names) == 1 and not isinstance(node.outputs[0], list):
            if names[0]:
                self.exprs[names[0]] = self.fn.let(self.namer.name(names[0]), expr, loc=c.loc)
            return
        wanted = [(j, n) for j, n in enumerate(names) if n]
        if not wanted:
            return
        holder = self.fn.let(self.namer.name(wanted[0][1] + "_all"), expr, loc=c.loc)
        for j, name in wanted:
            self.exprs[name] = self.fn.let(self.namer.name(name), gb.proj(holder, j, loc=c.loc), loc=c.loc)

    def value(self, ref: Ref, c: NodeConverter) -> Any:
        """A graph value used by node `c`: its variable, located at the node."""
        if ref.name in self.exprs:
            self.aliases.current(ref.name)
            return gb.Var(self.exprs[ref.name].name, c.loc)
        if ref.name in self.literals:
            return c.operand(self.literals[ref.name])
        if ref.name in self.poisoned:
            raise Unsupported(lambda span: None)
        if ref.name in self.skipped:
            raise c.unsupported(f"the value `{ref.name}`, a result of torch.export's own assertions")
        name = ref.name
        raise Unsupported(lambda span: messages.torch_undefined_value(span, name))

    def recorded_dtype(self, name: str) -> Optional[str]:
        """A tensor's dtype as the graph records it."""
        meta = self.program.tensor_meta(name)
        return None if meta is None else dtype_of(meta.get("dtype", 0))

    def recorded_dims(self, name: str) -> Optional[list]:
        """A tensor's sizes as the graph records them (ints, Dims, None for unreadable)."""
        meta = self.program.tensor_meta(name)
        return None if meta is None else [self.dim(s) for s in meta.get("sizes") or []]

    def _report(self, loc: gb.Loc, make: Any) -> None:
        diagnostic = make(loc.span)
        if diagnostic is not None:  # None: already reported where it went wrong
            self.diagnostics.append(diagnostic)

    # the result ----------------------------------------------------------------------------------
    def _result(self) -> Any:
        values = self.program.user_outputs()
        loc = self.listing.outputs()
        exprs = []
        for value in values:
            if isinstance(value, Ref) and value.name in self.poisoned:
                return None
            if not isinstance(value, Ref):
                self._report(loc, lambda span, v=value: messages.torch_unsupported_output(span, str(v)))
                return None
            if value.name not in self.exprs:
                name = value.name
                self._report(loc, lambda span, n=name: messages.torch_undefined_value(span, n))
                return None
            self.aliases.current(value.name)
            exprs.append(gb.Var(self.exprs[value.name].name, loc))
        if not exprs:
            self._report(loc, lambda span: messages.torch_unsupported_output(span, "no user output"))
            return None
        return exprs[0] if len(exprs) == 1 else gb.tuple_(*exprs, loc=loc)

    def _declared_outputs(self) -> Optional[ast.TypeExpr]:
        """The user outputs' recorded types (what torch.export claims the program returns)."""
        types = []
        for value in self.program.user_outputs():
            if value.kind == "sym_int":
                types.append(gb.Scalar("int64"))
            elif value.kind == "sym_float":
                types.append(gb.Scalar("float64"))
            else:
                meta = self.program.tensor_meta(value.name)
                if meta is None:
                    return None
                dtype = dtype_of(meta.get("dtype", 0))
                if dtype is None:
                    return None
                types.append(gb.Tensor([self.dim(s) for s in meta.get("sizes") or []], dtype))
        return types[0] if len(types) == 1 else gb.TupleOf(*types)


def _dim_text(dim: Any) -> str:
    from gradual.syntax.printer import format_dim

    return format_dim(dim.expr)


def _shown_args(node: GraphNode) -> list:
    """A node's arguments as torch prints them (`x`, `[1, 1]`, `s0`), keywords by name."""
    shown: list[str] = []
    for name, value in node.args.items():
        text = _show(value)
        shown.append(text if name in ("self", "input", "a", "b") or not shown else f"{name}={text}")
    return shown


def _show(value: Any) -> str:
    if isinstance(value, Ref):
        return value.name
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, Opaque):
        return f"<{value.kind}>"
    if value.__class__.__name__ == "ScalarType":
        return scalar_type_name(value.number)
    return repr(value) if isinstance(value, str) else str(value)


__all__ = ["ImportedProgram", "Importer", "ProgramInput", "packet", "symbols_in"]
