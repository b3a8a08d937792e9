"""A program being edited, re-analyzed incrementally: only what an edit touched is parsed,
resolved and checked again.

The text is cut into *pieces* at each line that starts with `def` (outside comments and
strings): the prelude (the `#[version]` header, comments) and one piece per definition. A
piece is parsed on its own, in a `Source` that knows where it sits in the document, so a piece
that an edit above merely moved is reused as it is: only its base offset and line change.
Parsing the pieces one by one gives the module that parsing the whole text gives (every piece
starts where the parser stands between two definitions); when that is not so (a piece holding
no definition, or two) the whole text is parsed as one piece.

Each definition is then resolved on its own unless it, or the set of definition names,
changed; and checked again only when it changed, when its component (mutual recursion)
changed, or when the signature of a function it calls changed. Everything else is the record
kept from the previous analysis. The diagnostics are exactly those of `gradual check` on the
same text: a syntax error anywhere is the only diagnostic, as there (the pieces that do parse
are still checked, so hover and inlay hints keep working elsewhere).

Analysis stops between two pieces parsed, two definitions resolved or two components checked
when `cancelled()` says so (a newer edit arrived); `cancelled` may also block, to let another
analysis run first (`scheduling.Turns`).
"""

from __future__ import annotations

import bisect
import gc
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from gradual.checker import messages
from gradual.checker.adt_names import declare_types
from gradual.checker.driver import CheckResult, parse_diagnostic
from gradual.checker.infer import Checker
from gradual.checker.names import Resolution, callee_first, declare, resolve_definition
from gradual.checker.prelude import may_use_prelude, with_prelude
from gradual.checker.records import DefinitionRecord
from gradual.diagnostics import Diagnostic
from gradual.infra.arguments import require
from gradual.infra.deep import gc_paused, run_deep
from gradual.ops.registry import Registry, default_registry
from gradual.syntax import ast
from gradual.syntax.parser import ParseError, parse_source
from gradual.syntax.source import Source, Span, count_breaks
from gradual.types import FuncType, TensorType, TupleType, Type, format_dims, format_dtype, format_type
from gradual.types.annotations import suggestion_budget


class Cancelled(Exception):
    """The analysis was abandoned because a newer one supersedes it."""


_DEF_AT_START = re.compile(r"def\b")


def piece_bounds(text: str) -> list[tuple[int, int]]:
    """Where each piece of a program text starts and ends: at each `def` that begins a line
    outside a block comment (strings and line comments end with their line, so they cannot
    hide one). A `/*` that is really inside a string only joins two pieces, which parsing
    then notices (`_regular`)."""
    comments = _block_comments(text)
    starts = [0]
    for newline in ("\ndef", "\rdef"):  # a lone `\r` ends a line too (source.LINE_BREAK)
        at = text.find(newline, 0)
        while at != -1:
            start = at + 1
            if _DEF_AT_START.match(text, start) and not _inside(comments, start):
                starts.append(start)
            at = text.find(newline, start)
    starts.sort()
    ends = starts[1:] + [len(text)]
    return list(zip(starts, ends))


def _block_comments(text: str) -> list[tuple[int, int]]:
    found = []
    at = text.find("/*")
    while at != -1:
        end = text.find("*/", at + 2)
        end = len(text) if end == -1 else end + 2
        found.append((at, end))
        at = text.find("/*", end)
    return found


def _inside(ranges: list, offset: int) -> bool:
    i = bisect.bisect_right(ranges, (offset, 1 << 62)) - 1
    return i >= 0 and ranges[i][0] <= offset < ranges[i][1]


@dataclass(eq=False)
class Piece:
    """One piece of the text, parsed: its source and the definitions in it."""

    text: str
    source: Source
    defs: tuple = ()
    error: Optional[ParseError] = None
    types: tuple = ()  # the `type` definitions in it


@dataclass(eq=False)
class Analysis:
    """One version of a document, checked: the library's CheckResult (module, types, checks,
    diagnostics) plus where each piece sits, for tools that look things up by offset."""

    path: str
    text: str
    version: Optional[int]
    result: CheckResult
    pieces: list
    source: Source
    internal_errors: list = field(default_factory=list)
    rechecked: tuple = ()

    _piece_starts: Optional[list] = field(default=None, repr=False)

    @property
    def diagnostics(self) -> list:
        """The document's diagnostics (as `gradual check` reports them)."""
        return self.result.diagnostics

    @property
    def piece_starts(self) -> list:
        """Where each piece starts in the document, for bisecting (made once: a lookup by
        offset that listed them each time cost the number of pieces, and the editor's
        symbols and hints look up every parameter, quadratic in the definitions)."""
        if self._piece_starts is None:
            self._piece_starts = [p.source.base for p in self.pieces]
        return self._piece_starts


@dataclass(eq=False)
class _Kept:
    """A definition's resolution and check, with what they depended on."""

    resolution: Resolution
    names: tuple
    record: Optional[DefinitionRecord] = None
    component: tuple = ()
    callees: tuple = ()


class Document:
    """A program text that changes; `analyze` checks its newest version (see the module
    docstring). Not thread-safe: one analysis at a time."""

    def __init__(self, path: str, registry: Optional[Registry] = None) -> None:
        self.path = path
        self._registry = registry
        self.reset()

    @property
    def registry(self) -> Registry:
        """The operators the program is checked against (the stdlib's unless given), loaded
        by the first analysis: the server makes documents on its event loop and analyzes them
        on its worker thread, where loading the stdlib belongs."""
        if self._registry is None:
            self._registry = default_registry()
        return self._registry

    def reset(self) -> None:
        """Forget everything kept: the next analysis starts afresh."""
        self.pieces: dict[str, list[Piece]] = {}
        self.kept: dict[int, _Kept] = {}
        self.resolution: Optional[Resolution] = None
        self.names: tuple = ()
        # the types and instantiations of every kept record, by node: updated per definition
        self.types: dict = {}
        self.instantiations: dict = {}
        # the hints the kept records were checked with widened (a caller passed another size)
        self.widened: frozenset = frozenset()
        # the module's type definitions (their text), as declared (adt_names.declare_types)
        self.types_key: Optional[tuple] = None
        self.adts: tuple = ({}, {})
        self.type_problems: list = []

    def analyze(
        self, text: str, version: Optional[int] = None, cancelled: Callable[[], bool] = lambda: False
    ) -> Analysis:
        """Check `text` (raises Cancelled when `cancelled()` turns true midway; TypeError
        when it is no str, as `gradual.check` says)."""
        require(text, str, "analysis.Document.analyze", "the document's text (a str)")
        return run_deep(self._analyze, text, version, cancelled)

    def _analyze(self, text: str, version: Optional[int], cancelled: Callable[[], bool]) -> Analysis:
        with gc_paused():
            source = Source(text, self.path)
            pieces, syntax = self._parse(text, source, cancelled)
            module = ast.Module(
                tuple(d for p in pieces for d in p.defs),
                tuple(t for p in pieces for t in p.types),
                span=Span(source, 0, len(text)),
            )
            if may_use_prelude(text):  # names only the prelude may define: its definitions join
                module = with_prelude(module)
            with suggestion_budget(len(text)):
                result, internal, rechecked = self._check(module, cancelled)
            result.source = source
            if syntax is not None:
                result.diagnostics = [syntax]
            analysis = Analysis(self.path, text, version, result, pieces, source, internal, rechecked)
            # What an analysis made lives until a later edit replaces it, and holds no reference
            # cycle (refcounting frees it): it is frozen out of the cyclic collector, whose
            # first collection after a large analysis traversed all of it at once (365 ms of
            # CPU at 20,000 lines, with the GIL held: a smaller document's check waited).
            gc.freeze()
            return analysis

    # parsing ------------------------------------------------------------------------------
    def _parse(
        self, text: str, source: Source, cancelled: Callable[[], bool] = lambda: False
    ) -> tuple[list, Optional[Diagnostic]]:
        """The pieces of the text (reused where their text did not change) and the syntax
        error `gradual check` would report, if any. Cancelled between two pieces, it keeps
        every piece it has for the next analysis."""
        available = self.pieces
        kept: dict[str, list[Piece]] = {}
        pieces = []
        line = 0
        for start, end in piece_bounds(text):
            if cancelled():
                for chunk, parsed in kept.items():
                    available.setdefault(chunk, []).extend(parsed)
                raise Cancelled()
            chunk = text[start:end]
            reusable = available.get(chunk)
            piece = reusable.pop(0) if reusable else self._parse_piece(chunk, start, line)
            piece.source.base, piece.source.line_base = start, line
            kept.setdefault(chunk, []).append(piece)
            pieces.append(piece)
            line += count_breaks(chunk)
        self.pieces = kept
        if not _regular(pieces):
            return self._parse_whole(text, source)
        broken = next((p for p in pieces if p.error is not None), None)
        if broken is None:
            return pieces, None
        return [p for p in pieces if p.error is None], self._syntax_error(text, broken)

    def _parse_piece(self, chunk: str, start: int, line: int) -> Piece:
        source = Source(chunk, self.path, start, line)
        try:
            parsed = parse_source(source)
            return Piece(chunk, source, parsed.defs, types=parsed.types)
        except ParseError as exc:
            return Piece(chunk, source, (), exc)

    def _syntax_error(self, text: str, broken: Piece) -> Diagnostic:
        """The first syntax error of the whole text: parsing resumes where the broken piece
        starts (everything before it parsed), so an error the piece alone would find only at
        its end (`}` missing) is found where the whole text has it."""
        start, line = broken.source.base, broken.source.line_base
        rest = Source(text[start:], self.path, start, line)
        try:
            parse_source(rest)
        except ParseError as exc:
            return parse_diagnostic(exc)
        assert broken.error is not None  # the rest parses: the piece was cut inside a comment
        return parse_diagnostic(broken.error)

    def _parse_whole(self, text: str, source: Source) -> tuple[list, Optional[Diagnostic]]:
        self.pieces = {}
        try:
            parsed = parse_source(source)
            return [Piece(text, source, parsed.defs, types=parsed.types)], None
        except ParseError as exc:
            return [], parse_diagnostic(exc)

    # checking -----------------------------------------------------------------------------
    def _check(self, module: ast.Module, cancelled: Callable[[], bool]) -> tuple[CheckResult, list, tuple]:
        defs, duplicates = declare(module)
        types_key = tuple(t.span.text for t in module.types)
        if types_key != self.types_key:  # the types changed: every definition is resolved again
            self.types_key = types_key
            found: list = []
            self.adts = declare_types(module.types, found.append, lambda *_: None) if module.types else ({}, {})
            self.type_problems = found
        duplicates = list(duplicates) + list(self.type_problems)
        names = (tuple(defs), types_key)
        resolution = self._resolve(module, defs, names, cancelled)
        widened, kept_widening = self.widened, bool(self.widened)
        rounds = 0
        while True:
            checker, internal, rechecked = self._check_components(resolution, defs, widened, cancelled)
            if checker.stale:  # a call widened a hint of a definition checked before it
                rounds += 1
                widened = checker.next_widening(rounds)
            elif kept_widening and rechecked:  # one kept from before may be needed no more
                widened, kept_widening = frozenset(), False
            else:
                break
            for kept in self.kept.values():
                self._drop_record(kept)
        self.widened = widened
        diagnostics = list(duplicates)
        for d in defs.values():
            diagnostics.extend(self.kept[id(d)].resolution.diagnostics)
        diagnostics.extend(checker.diagnostics)
        diagnostics.extend(internal)
        diagnostics.sort(key=lambda d: d.sort_key())
        result = CheckResult(
            module, None, diagnostics, checker.results, checker.types, resolution, self.registry, checker.instantiations
        )
        return result, internal, tuple(rechecked)

    def _check_components(
        self, resolution: Resolution, defs: dict, widened: frozenset, cancelled: Callable[[], bool]
    ) -> tuple:
        """Check (or reuse) every component, callees first, with these hints widened."""
        checker = Checker(resolution, self.registry, record_uses=True)
        checker.types, checker.instantiations = self.types, self.instantiations
        checker.widened |= widened
        internal: list = []
        rechecked: list = []
        for component in resolution.order:
            if cancelled():
                raise Cancelled()
            group = [defs[name] for name in component]
            if not self._reuse(checker, group, component):
                rechecked.extend(component)
                self._check_component(checker, group, component, internal)
        return checker, internal, rechecked

    def _resolve(
        self, module: ast.Module, defs: dict, names: tuple, cancelled: Callable[[], bool] = lambda: False
    ) -> Resolution:
        """The module's resolution: each definition's part reused unless it changed (each
        definition resolved is kept: cancelled between two, the call graph is found again
        next time)."""
        if names != self.names or self.resolution is None:
            self.kept = {}
            self.resolution = Resolution(module)
            self.names = names
            self.types.clear()
            self.instantiations.clear()
        whole = self.resolution
        whole.module = module
        whole.defs = defs
        whole.adts, whole.ctors = self.adts
        present = {id(d) for d in defs.values()}
        changed = False
        for key in [k for k in self.kept if k not in present]:
            gone = self.kept.pop(key)
            whole.forget(gone.resolution)
            self._drop_record(gone)
            changed = True
        for d in defs.values():
            if id(d) not in self.kept:
                if cancelled():
                    whole.order = []
                    raise Cancelled()
                part = resolve_definition(module, d, defs, self.registry, adts=self.adts[0], ctors=self.adts[1])
                self.kept[id(d)] = _Kept(part, names)
                whole.absorb(part)
                changed = True
        whole.diagnostics = []
        if changed or not whole.order:  # the call graph changes only with a definition
            whole.order = callee_first(whole)
        return whole

    def _reuse(self, checker: Checker, group: list, component: list) -> bool:
        """Install the kept records of a component if nothing they depended on changed."""
        records = []
        for d in group:
            kept = self.kept[id(d)]
            if kept.record is None or kept.component != tuple(component):
                return False
            if not _same_callees(kept.callees, checker):
                return False
            records.append(kept.record)
        for record in records:
            checker.install(record, tables=False)
        return True

    def _drop_record(self, kept: _Kept) -> None:
        """Forget a record's types before its definition is checked again (or is gone):
        its nodes' ids may be reused by new nodes."""
        if kept.record is not None:
            for key in kept.record.types:
                self.types.pop(key, None)
            for key in kept.record.instantiations:
                self.instantiations.pop(key, None)
            kept.record = None

    def _check_component(self, checker: Checker, group: list, component: list, internal: list) -> None:
        callees = {d.name: self._callees(checker, d.name, component) for d in group}
        for d in group:
            self._drop_record(self.kept[id(d)])
        try:
            checker.component(group)
        except Exception as exc:  # noqa: BLE001 - a bug in gradual: reported at the definition, checking goes on
            checker.current = None
            for d in group:
                checker.assumed.pop(d.name, None)
                internal.append(messages.internal_check_error(d.name_span, d.name, exc))
            return
        for d in group:
            kept = self.kept[id(d)]
            kept.record = checker.records.get(d.name)
            kept.component = tuple(component)
            kept.callees = callees[d.name]

    def _callees(self, checker: Checker, name: str, component: list) -> tuple:
        """What a definition's check depends on outside itself: the types (and parameter
        names, which messages quote) of the functions it calls."""
        res = checker.res
        found = []
        for callee in sorted(res.calls.get(name, ())):
            if callee in component:
                continue
            params = tuple(b.name for b in res.function(res.defs[callee]).params) if callee in res.defs else ()
            found.append((callee, checker.globals.get(callee), params))
        return tuple(found)


def _same_callees(before: tuple, checker: Checker) -> bool:
    """Whether a kept definition sees the callees it was checked against (it calls the same
    ones: its text did not change): the very same types (their records were reused), or types
    that print alike with the same parameter names (a callee checked again whose signature
    did not change)."""
    res = checker.res
    for name, fn, params in before:
        now = checker.globals.get(name)
        if now is fn:
            continue
        if signature_key(now) != signature_key(fn) or name not in res.defs:
            return False
        if tuple(b.name for b in res.function(res.defs[name]).params) != params:
            return False
    return True


def _regular(pieces: list) -> bool:
    """Whether parsing piece by piece gave what parsing the whole text gives: a prelude
    without definitions, then one definition per piece (broken pieces aside)."""
    for i, piece in enumerate(pieces):
        if piece.error is not None:
            continue
        if len(piece.defs) != (0 if i == 0 and not _DEF_AT_START.match(piece.text) else 1):
            return False
    return True


def signature_key(fn: Optional[FuncType]) -> Optional[tuple]:
    """A function type as its callers see it, comparable across analyses (symbols are new
    objects each time a definition is resolved: they compare by what they print)."""
    if fn is None:
        return None
    return (
        format_type(fn),
        tuple(s.name for s in fn.dim_params),
        tuple(v.name for v in fn.dtype_params),
        tuple(_values(p) for p in fn.params),
        _values(fn.ret),
    )


def _values(t: Type) -> object:
    if isinstance(t, TensorType):
        return None if t.value is None else (format_dims(t.dims), format_dtype(t.dtype), str(t.value))
    if isinstance(t, TupleType):
        return tuple(_values(f) for f in t.fields)
    return None
