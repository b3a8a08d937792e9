"""The checker's driver: parse, check, elaborate, as the public API (gradual.api) offers them. No
printing, no exits.

`check` accepts program text or a parsed module and returns a `CheckResult` holding the typed
program, its diagnostics and its check sites as Python objects. Bad input never raises: a
syntax error is a diagnostic like any other. Phases recurse over the syntax tree, so they run
on a worker thread with a large stack; a 20,000-deep program checks like a shallow one.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional, TypeVar, Union

from gradual.checker import messages
from gradual.checker.finalize import publish_dataflow
from gradual.checker.infer import check_module
from gradual.checker.names import Resolution, resolve
from gradual.checker.prelude import needs_prelude, with_prelude
from gradual.checker.records import CheckRecord, DataflowRecord, FunctionResult
from gradual.diagnostics import Diagnostic, Severity
from gradual.infra.arguments import require
from gradual.infra.deep import gc_paused, run_deep
from gradual.ops.registry import Registry, default_registry
from gradual.syntax import ast
from gradual.syntax.parser import ParseError, parse_source
from gradual.syntax.source import Source, Span, wide_encoding
from gradual.types import FuncType, Type
from gradual.types.annotations import suggestion_budget

R = TypeVar("R")


class CheckResult:
    """A checked program: its AST, types, diagnostics and the runtime checks it needs."""

    def __init__(
        self,
        module: Optional[ast.Module[ast.Def]],
        source: Optional[Source],
        diagnostics: Optional[list[Diagnostic]] = None,
        functions: Optional[dict[str, FunctionResult]] = None,
        types: Optional[dict[int, Type]] = None,
        resolution: Optional[Resolution] = None,
        registry: Optional[Registry] = None,
        instantiations: Optional[dict[int, tuple[Any, ...]]] = None,
        dataflow: Optional[dict[int, DataflowRecord]] = None,
    ) -> None:
        """`dataflow`: the checker's records of Dataflow statements checked without their
        syntax (Checker.dataflow), put in the tables the first time one is asked for."""
        self._module = module
        self.source = source
        self.diagnostics: list[Diagnostic] = diagnostics if diagnostics is not None else []
        self.functions: dict[str, FunctionResult] = functions if functions is not None else {}
        self._types: dict[int, Type] = types if types is not None else {}
        self._resolution = resolution
        self.registry = registry
        self._instantiations: dict[int, tuple[Any, ...]] = instantiations if instantiations is not None else {}
        self._dataflow = dataflow

    def _published(self) -> None:
        """Every Dataflow statement as a let with its records (once, when a tool first asks
        for the syntax or the tables: checking alone never makes them)."""
        dataflow, self._dataflow = self._dataflow, None
        if dataflow and self._resolution is not None:
            publish_dataflow(self._resolution, self._types, self._instantiations, dataflow)
        if dataflow and self._module is not None:
            ast.expand_dataflow(self._module)

    # the tables hold every Dataflow statement's records once read (see _published)
    @property
    def module(self) -> Optional[ast.Module[ast.Def]]:
        """The checked module."""
        if self._dataflow:
            self._published()
        return self._module

    @property
    def types(self) -> dict[int, Type]:
        """The inferred type of each expression and binding, by node identity."""
        if self._dataflow:
            self._published()
        return self._types

    @property
    def resolution(self) -> Optional[Resolution]:
        """What each name means (names.Resolution)."""
        if self._dataflow:
            self._published()
        return self._resolution

    @property
    def instantiations(self) -> dict[int, tuple[Any, ...]]:
        """Per call node (by id): what its signature's symbols were bound to, `(("k", 784), ...)`."""
        if self._dataflow:
            self._published()
        return self._instantiations

    @property
    def errors(self) -> list[Diagnostic]:
        """The error diagnostics."""
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The warning diagnostics."""
        return [d for d in self.diagnostics if d.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        """True when there are no errors (warnings allowed)."""
        return not self.errors

    @property
    def check_count(self) -> int:
        """Check sites that can fail at runtime in the whole program (spec §5.1)."""
        return sum(f.check_count for f in self.functions.values())

    def function_type(self, name: str) -> Optional[FuncType]:
        """The type of `def @name`, as inferred."""
        fn = self.functions.get(name)
        return None if fn is None else fn.type

    def checks(self, name: str) -> list[CheckRecord]:
        """The check sites of `def @name` that can fail at runtime: the casts elaboration
        inserts (`inserted`), and written casts and let annotations over imprecise values."""
        fn = self.functions.get(name)
        return [] if fn is None else [c for c in fn.checks if c.verifies]

    def type_of(self, node: object) -> Optional[Type]:
        """The inferred type of an expression or binding node: a literal's scalar type, a
        variable's its binding's (a `let`'s, or a definition's parameter's as inferred); None
        for a node of no checked definition (or a closure's parameter). The checker records
        only compound expressions, so a literal or a variable answered None."""
        found = self.types.get(id(node))
        if found is not None or self.module is None:
            return found
        if isinstance(node, ast.Literal):
            from gradual.checker.expressions import literal_type

            return literal_type(node)
        if isinstance(node, ast.Var) and self.resolution is not None:
            return self._binder_type(self.resolution.binder_of(node))
        return None

    def _binder_type(self, binder: Any) -> Optional[Type]:
        """The type a `let` or a definition's parameter binds."""
        if binder is None:
            return None
        if isinstance(binder.node, (ast.Let, ast.PVar)):  # a pattern variable's type is recorded on it
            return self.types.get(id(binder.node))
        found = self._parameters().get(id(binder.node))
        if found is None:
            return None
        d, index = found
        fn = self.functions.get(d.name)
        if fn is not None and isinstance(fn.type, FuncType):
            return fn.type.params[index] if index < len(fn.type.params) else None
        return None

    def _parameters(self) -> dict[int, tuple[ast.Def, int]]:
        """Each definition's parameter (by identity) -> (the definition, its position), made
        once: each question went through every definition's parameters, so asking the type of
        every variable of a module of n definitions cost n^2 (and compared parameters by value)."""
        table = self.__dict__.get("_parameter_table")
        if table is None:
            defs = self.module.defs if self.module is not None else ()
            table = {id(p): (d, i) for d in defs for i, p in enumerate(d.params)}
            self.__dict__["_parameter_table"] = table
        return table

    def binding_type(self, function: str, variable: str) -> Optional[Type]:
        """The type of `%variable`'s last binding inside `def @function` (tests and tools)."""
        if self.module is None:
            return None
        d = self.module.find(function)
        if d is None:
            return None
        found: Optional[Type] = None
        stack: list[object] = [d.body]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Let) and node.var.name == variable:
                found = self.types.get(id(node), found)
            if isinstance(node, ast.Node):
                for name in getattr(node, "__dataclass_fields__", {}):
                    if name != "span":
                        stack.append(getattr(node, name))
            elif isinstance(node, tuple):
                stack.extend(reversed(node))
        return found


class SyntaxProblem(Exception):
    """Raised by `parse` on a syntax error; carries the diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def parse_diagnostic(exc: ParseError) -> Diagnostic:
    """A syntax error as a diagnostic."""
    return messages.parse_error(exc.span, exc.found, exc.expected, exc.detail)


def parse(text: Union[str, bytes], path: str = "<input>") -> ast.Module[ast.Def]:
    """Parse program text (str or UTF-8 bytes, as `check` takes); raises SyntaxProblem (with a
    diagnostic) on a syntax error or bytes that are not UTF-8, TypeError on anything else."""
    require(path, str, "parse", "a path that is a str")
    if isinstance(text, (bytes, bytearray)):
        decoded, problem = decode_program(bytes(text), path)
        if problem is not None:
            raise SyntaxProblem(problem)
        text = decoded or ""  # decoded whenever there is no problem
    require(text, str, "parse", "program text (str or UTF-8 bytes)")
    assert isinstance(text, str)  # require raised TypeError otherwise
    source = Source(text, path)
    try:
        return run_deep(_parse_quietly, source)
    except ParseError as exc:
        raise SyntaxProblem(_named_file_help(parse_diagnostic(exc), text, "gradual.parse")) from None


def _named_file_help(diag: Diagnostic, text: str, function: str) -> Diagnostic:
    """A syntax error of a text that is a file's name (`gradual.check("model.rly")`) says so
    in its help (it was "unexpected `model`" alone)."""
    name = text.strip()
    if diag.help is None and name and len(name) < 4096 and "\n" not in name and os.path.isfile(name):
        diag.help = messages.text_is_a_file_name(function)
    return diag


def _parse_quietly(source: Source) -> ast.Module[ast.Def]:
    with gc_paused():
        return parse_source(source)


def _check(program: Union[str, ast.Module[ast.Def]], path: str, registry: Registry) -> CheckResult:
    with gc_paused():
        return _check_now(program, path, registry)


def _check_now(program: Union[str, ast.Module[ast.Def]], path: str, registry: Registry) -> CheckResult:
    if isinstance(program, str):
        source = Source(program, path)
        try:
            module = ast.compact_lets(parse_source(source))  # no tool has seen it: read as arrays
        except ParseError as exc:
            diagnostic = parse_diagnostic(exc)
            if path == "<input>":  # a library call that gave no path (the command line reads files)
                diagnostic = _named_file_help(diagnostic, program, "gradual.check")
            return CheckResult(None, source, [diagnostic], registry=registry)
    else:
        module = program
        source = module.span.source if module.span is not None else None
    with suggestion_budget(len(program) if isinstance(program, str) else _built_size(module)):
        resolution = resolve(module, registry)
        if needs_prelude(resolution.diagnostics):  # names it does not define: the prelude's?
            extended = with_prelude(module)
            if extended is not module:
                module, resolution = extended, resolve(extended, registry)
        checker = check_module(resolution, registry)
    diagnostics = checker.diagnostics
    if not isinstance(program, str) and diagnostics:  # a built module: nodes made without a location
        from gradual.diagnostics.placement import place

        place(module, diagnostics)
    diagnostics = sorted(diagnostics, key=lambda d: d.sort_key())
    return CheckResult(
        module,
        source,
        diagnostics,
        checker.results,
        checker.types,
        resolution,
        registry,
        checker.instantiations,
        checker.dataflow,
    )


def _built_size(module: ast.Module[ast.Def]) -> int:
    """About how many characters a built module's text would take (the did-you-mean budget's
    measure): its statements counted, not its text, which a frontend writes only when asked."""
    statements = sum(len(s) if s.__class__ is ast.Dataflow else 1 for d in module.defs for s in d.body.stmts)
    return 10_000 + 64 * statements


def decode_program(data: bytes, path: str) -> tuple[Optional[str], Optional[Diagnostic]]:
    """Program bytes as UTF-8 text, or an input-error diagnostic where they are not."""
    wide = wide_encoding(data)
    if wide is not None:  # read as UTF-8 it was "unexpected `d`" or "byte 0xff at offset 0"
        span = Span(Source("", path), 0, 0)
        return None, messages.input_error(span, f"the file is not UTF-8 text: it is {wide} text (save it as UTF-8)")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8", errors="replace")
        span = Span(Source(good, path), len(good), len(good))
        return None, messages.input_error(
            span, f"the file is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        )


def check(
    program: Union[str, bytes, ast.Module[ast.Def]], path: str = "<input>", registry: Optional[Registry] = None
) -> CheckResult:
    """Type-check a program (text, UTF-8 bytes or a module). Never raises for a bad program;
    anything else is a `TypeError`."""
    return checked_program(program, path, registry, "check")


def checked_program(
    program: Any,
    path: str,
    registry: Optional[Registry],
    function: str,
    takes: str = "program text (str or UTF-8 bytes) or a parsed Module",
) -> CheckResult:
    """`check`, its arguments' TypeErrors naming the library `function` the user called
    (`gradual.run(None)` said "gradual.check takes ..."); the path and registry are looked at
    first (`check(b"...", 3)` decoded the bytes with a path that is no str)."""
    require(path, str, function, "a path that is a str")
    require(registry, (Registry, type(None)), function, "a Registry (or None: the default operators)")
    if isinstance(program, (bytes, bytearray)):
        text, problem = decode_program(bytes(program), path)
        if problem is not None:
            return CheckResult(None, problem.span.source, [problem], registry=registry or default_registry())
        program = text
    require(program, (str, ast.Module), function, takes)
    return run_deep(_check, program, path, registry or default_registry())


def _require_module(result: CheckResult, function: str) -> None:
    """A ValueError for a result there is nothing sound to elaborate of: a program that did
    not parse, or one with type errors (its elaboration came back without a word, as if
    sound: an erroneous call left as it was, no check before it, so running it handed the
    operator the very shapes the checker rejected; `gradual elaborate` exits 1 there)."""
    require(result, CheckResult, function, "the CheckResult of gradual.check")
    if result.module is None or result.resolution is None:
        raise ValueError("cannot elaborate a program that did not parse; see result.diagnostics")
    if not result.ok:
        first = result.errors[0]
        raise ValueError(
            f"cannot elaborate a program with {len(result.errors)} type error(s), the first "
            f"`{first.code}` at {first.span.describe()}; see result.errors"
        )


def elaborate(result: CheckResult) -> ast.Module[ast.Def]:
    """The program with its runtime checks inserted as casts (see elaboration.py); a
    ValueError when the program did not parse or has type errors (nothing sound to run)."""
    from gradual.checker.elaboration import elaborate_module

    _require_module(result, "elaborate")
    module: ast.Module[ast.Def]
    module, _ = run_deep(_gc_paused_call, elaborate_module, result)
    return module


def elaborate_text(result: CheckResult) -> str:
    """The elaborated program as text, with each binding's type in a `/* ty=... */` comment
    (a ValueError as for `elaborate`)."""
    from gradual.checker.elaboration import elaborated_text

    _require_module(result, "elaborate_text")
    text: str = run_deep(_gc_paused_call, elaborated_text, result)
    return text


def format_program(text: str | bytes, path: str = "<input>", width: int = 100) -> str:
    """The program text (str or UTF-8 bytes) formatted to `width` columns, every comment kept
    (docs/formatting.md). Raises SyntaxProblem (with a diagnostic) when it does not parse,
    `gradual.syntax.formatting.Refused` when formatting would not keep the program and its
    comments as they are (a bug in gradual), TypeError on anything else."""
    from gradual.syntax.formatting import format_source

    require(path, str, "format_program", "a path that is a str")
    require(width, int, "format_program", "a width that is an int")
    if isinstance(text, (bytes, bytearray)):
        decoded, problem = decode_program(bytes(text), path)
        if problem is not None:
            raise SyntaxProblem(problem)
        text = decoded or ""  # decoded whenever there is no problem
    require(text, str, "format_program", "program text (str or UTF-8 bytes)")
    try:
        formatted: str = run_deep(_gc_paused_call, format_source, text, path, width)
        return formatted
    except ParseError as exc:
        raise SyntaxProblem(parse_diagnostic(exc)) from None


def _gc_paused_call(fn: Callable[..., R], *args: Any) -> R:
    """`fn(*args)` with the cyclic collector paused, as for parsing and checking: elaboration
    rebuilds and prints a tree as large as the program while it stays alive."""
    with gc_paused():
        return fn(*args)
