"""The operator registry: declarations from stdlib/, Python shape rules, NumPy kernels.

Each operator is declared once in `stdlib/*.rly` in the language itself. A declaration whose
signature says everything (`nn.dense`) needs nothing else; one that names a rule
(`add ... = broadcast`) gets its dims from a Python rule written against `ShapeContext`,
while its signature still gives arity and dtypes. Kernels are attached by the runtime.
Frontends add operators at runtime with `register_op`.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from gradual.ops.contracts import EMPTY as EMPTY_CONTRACT
from gradual.ops.contracts import Contract, ContractError, compile_contract
from gradual.ops.tables import KERNELS, RULES, Kernel, Rule
from gradual.syntax import ast
from gradual.syntax.parser import ParseError, parse_stdlib_source
from gradual.syntax.source import Source, Span
from gradual.types import DTypeVar, FuncType, Type
from gradual.types.annotations import Converter, DimScope, TypeScope


@dataclass(frozen=True)
class AttrSpec:
    """An attribute an operator takes: its kind, whether it is a list, and its default."""

    name: str
    kind: str
    is_list: bool = False
    optional: bool = False
    has_default: bool = False
    default: Any = None

    def describe(self) -> str:
        """`int`, `[int]`, `int?` ... as written in the declaration."""
        text = f"[{self.kind}]" if self.is_list else self.kind
        return text + ("?" if self.optional else "")


@dataclass
class Operator:
    """One operator: its signature, attributes, shape rule and kernel."""

    name: str
    param_names: tuple
    signature: FuncType
    attrs: dict
    rule: Optional[Rule] = None
    rule_name: Optional[str] = None
    kernel: Optional[Kernel] = None
    doc: str = ""
    span: Optional[Span] = None
    signature_text: str = field(default="", repr=False)
    #: the declaration's `where` conditions (ops/contracts.py)
    contract: Contract = field(default=EMPTY_CONTRACT, repr=False)
    #: per operand: "" (its type), "optional" (`%x: T?`: T or absent, `()`) or "list" (`%x: [T]`:
    #: a tuple of any length of T); signature.params holds T
    forms: tuple = ()
    _defaults: Optional[tuple] = field(default=None, init=False, repr=False, compare=False)

    @property
    def arity(self) -> int:
        """Number of tensor arguments."""
        return len(self.signature.params)

    def defaults(self) -> Optional[dict]:
        """The attributes of a call that gives none (each one's default), or None when one is
        required. Computed once; callers copy it before changing it."""
        if self._defaults is None:
            specs = list(self.attrs.values())
            complete = all(a.has_default for a in specs)
            self._defaults = ({a.name: a.default for a in specs} if complete else None,)
        return self._defaults[0]


class StdlibError(ValueError):
    """An operator declaration is malformed: in stdlib/, a bug in the library; given to
    `register_op`, the caller's (a ValueError, as register_op says)."""


def stdlib_dir() -> Path:
    """Where the operator declarations live: inside the installed package, or the repo root."""
    packaged = Path(__file__).resolve().parent.parent / "stdlib"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "stdlib"


#: stdlib/'s program of definitions (types and functions), not of operator declarations
PRELUDE_FILE = "prelude.rly"


def operator_files() -> list:
    """The files of operator declarations in stdlib/ (every `.rly` there but the prelude)."""
    return [p for p in sorted(stdlib_dir().glob("*.rly")) if p.name != PRELUDE_FILE]


def operator_from_decl(decl: ast.OpDecl) -> Operator:
    """Convert a parsed declaration into an Operator (rules are linked by name)."""
    problems: list[str] = []

    def report(code: str, span: Span, facts: dict) -> None:
        problems.append(f"{span.describe()}: {code} {facts}")

    dims = DimScope(mode="quantify")
    types = TypeScope(dtype_vars={n: DTypeVar(n) for n in decl.dtype_params})
    conv = Converter(dims, types, report)
    params = tuple(conv.convert(p.type) if p.type is not None else _missing(p) for p in decl.params)
    ret = conv.convert(decl.ret)
    if problems:
        raise StdlibError("; ".join(problems))
    dtype_requires = tuple((types.dtype_vars[name], cls) for name, cls in decl.dtype_classes if cls != "any")
    sig = FuncType(params, ret, tuple(dims.introduced), tuple(types.dtype_vars.values()), (), dtype_requires)
    attrs = {a.name: _attr_spec(a) for a in decl.attrs}
    try:
        contract = compile_contract(
            decl, tuple(p.var.name for p in decl.params), frozenset(s.name for s in dims.introduced)
        )
    except ContractError as exc:
        raise StdlibError(f"{decl.span.describe()}: the contract of `{decl.name}`: {exc}") from None
    rule = None
    if decl.rule is not None:
        rule = RULES.get(decl.rule)
        if rule is None:
            raise StdlibError(f"{decl.span.describe()}: `{decl.name}` names the unknown rule `{decl.rule}`")
    return Operator(
        decl.name,
        tuple(p.var.name for p in decl.params),
        sig,
        attrs,
        rule,
        decl.rule,
        doc=decl.doc,
        span=decl.span,
        signature_text=_signature_text(decl),
        contract=contract,
        forms=tuple(p.form for p in decl.params) if any(p.form for p in decl.params) else (),
    )


def _signature_text(decl: ast.OpDecl) -> str:
    """`nn.dense[T](%data: Tensor[(*b, k), T], ...) -> Tensor[(*b, u), T]` (attributes left out)."""
    from gradual.syntax.printer import format_type

    classes = dict(decl.dtype_classes)
    names = [f"{n}: {classes[n]}" if n in classes else n for n in decl.dtype_params]
    tparams = f"[{', '.join(names)}]" if names else ""
    params = ", ".join(
        f"%{p.var.name}: {param_type_text(format_type(p.type) if p.type is not None else '?', p.form)}"
        for p in decl.params
    )
    text = f"{decl.name}{tparams}({params}) -> {format_type(decl.ret)}"
    if decl.rule:
        text += f" (dims computed by the `{decl.rule}` rule)"
    return text


def param_type_text(text: str, form: str) -> str:
    """An operand's type as its declaration writes it: `T`, `T?` (optional) or `[T]` (list)."""
    return f"[{text}]" if form == "list" else f"{text}?" if form == "optional" else text


def _missing(p: ast.Param) -> Type:
    raise StdlibError(f"{p.span.describe()}: operator parameter `%{p.var.name}` needs a type")


def _attr_spec(a: ast.AttrParam) -> AttrSpec:
    default: object = a.default  # as AttrSpec holds it: a name as its string, a list as a tuple
    if isinstance(default, ast.Ident):
        default = default.name
    elif isinstance(default, ast.AttrSeq):
        default = tuple(i.name if isinstance(i, ast.Ident) else i for i in default.items)
    return AttrSpec(a.name, a.kind, a.is_list, a.optional, a.has_default, default)


class Registry:
    """Operators by name."""

    def __init__(self) -> None:
        self.ops: dict[str, Operator] = {}

    def get(self, name: str) -> Optional[Operator]:
        """The operator called `name`, if declared."""
        return self.ops.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self.ops

    def names(self) -> list[str]:
        """Every operator name, sorted."""
        return sorted(self.ops)

    def add(self, op: Operator) -> None:
        """Add or replace an operator."""
        op.kernel = op.kernel or KERNELS.get(op.name)
        self.ops[op.name] = op

    def load_file(self, path: Path) -> None:
        """Load every declaration in one stdlib file."""
        module = _parse_stdlib(Source(path.read_text(encoding="utf-8"), str(path)))
        for decl in module.defs:
            self.add(operator_from_decl(decl))

    def load_text(self, text: str, path: str = "<ops>") -> list[Operator]:
        """Load declarations from text (each added, replacing an operator of the same name)."""
        module = _parse_stdlib(Source(text, path))
        ops = [operator_from_decl(d) for d in module.defs]
        for op in ops:
            self.add(op)
        return ops


_DEFAULT: Optional[Registry] = None
_DEFAULT_LOCK = threading.Lock()


def default_registry() -> Registry:
    """The registry with every stdlib operator (loaded on first use, by one thread)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            from gradual.ops import rules  # noqa: F401  (registers the Python shape rules)

            registry = Registry()
            for module in _stdlib_modules(operator_files()):
                for decl in module.defs:
                    registry.add(operator_from_decl(decl))
            _DEFAULT = registry
    return _DEFAULT


def _stdlib_modules(paths: list) -> list:
    """The stdlib files parsed, from the user cache when none of them (nor the parser)
    changed since they were last parsed: unpickling the declarations takes a tenth of
    parsing them, which every start of the language server and the command line pays."""
    import pickle

    from gradual.infra import usercache
    from gradual.syntax import parser

    texts = [path.read_text(encoding="utf-8") for path in paths]
    try:  # what the parsed form depends on: the files, and the parser's and AST's code
        syntax = sorted(Path(parser.__file__).parent.glob("*.py"))
        key = usercache.files_key(syntax, *(str(p) for p in paths), *texts, parser._grammar_text(), sys.version)
    except OSError:
        key = b""
    name = stdlib_cache_name(paths)
    cached = usercache.load(name, key) if key else None
    if cached is not None:
        try:
            return pickle.loads(cached)
        except Exception:  # noqa: BLE001 - a damaged entry: parse again (and rewrite it)
            pass
    modules = [_parse_stdlib(Source(text, str(path))) for path, text in zip(paths, texts)]
    if key:
        usercache.store(name, key, pickle.dumps(modules, protocol=pickle.HIGHEST_PROTOCOL))
    return modules


def stdlib_cache_name(paths: list) -> str:
    """The cache entry of these operator files: one per install's directory (two checkouts or
    virtual environments sharing the user's cache would otherwise rewrite each other's entry,
    and each start would parse the library again)."""
    from gradual.infra.usercache import sha256

    folder = str(paths[0].parent) if paths else ""
    return f"stdlib-{sha256(folder.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}.pickle"


def _parse_stdlib(source: Source) -> ast.Module:
    try:
        return parse_stdlib_source(source)
    except ParseError as exc:
        raise StdlibError(f"{exc.span.describe()}: {exc}") from None


def register_op(
    declaration: str,
    rule: Optional[Rule] = None,
    kernel: Optional[Kernel] = None,
    registry: Optional[Registry] = None,
    replace: bool = False,
) -> Operator:
    """Add an operator at runtime from a declaration in the language.

    `declaration` is one stdlib-style line, e.g.
    `def my.swap[T](%x: Tensor[(n, m), T]) -> Tensor[(m, n), T];`. A Python `rule` (written
    against ShapeContext) may replace the signature's dims; `kernel` runs it on NumPy arrays.

    Raises ValueError (a StdlibError) when the declaration does not parse, declares no
    operator or more than one, or names an operator the registry has, unless `replace`: a
    second declaration of `nn.relu` silently replaced the stdlib's for every later check in
    the process (and a declaration of two operators registered both, then failed).
    """
    from gradual.infra.arguments import require

    require(declaration, str, "register_op", "a declaration in the language (a str)")
    require(registry, (Registry, type(None)), "register_op", "a Registry (or None: the default operators)")
    for value, what in ((rule, "rule"), (kernel, "kernel")):
        if value is not None and not callable(value):
            raise TypeError(f"gradual.register_op takes a callable {what} (or None), not {type(value).__name__}")
    registry = registry or default_registry()
    if rule is not None:
        name = f"__user_rule_{len(RULES)}"
        RULES[name] = rule
        if "=" not in declaration.split("->")[-1]:
            declaration = declaration.rstrip().rstrip(";") + f" = {name};"
    decls = _parse_stdlib(Source(declaration, "<register_op>")).defs
    if len(decls) != 1:
        raise StdlibError(f"gradual.register_op takes one operator declaration; this text declares {len(decls)}")
    if decls[0].name in registry.ops and not replace:
        raise StdlibError(
            f"`{decls[0].name}` is already an operator of this registry: register another name, or "
            "pass replace=True to replace it"
        )
    op = operator_from_decl(decls[0])
    registry.add(op)
    if kernel is not None:
        op.kernel = kernel
    return op


def attach_kernels(kernels: Iterable[tuple[str, Kernel]]) -> None:
    """Record NumPy kernels by operator name (and attach them to loaded operators)."""
    for name, fn in kernels:
        KERNELS[name] = fn
        if _DEFAULT is not None and name in _DEFAULT.ops:
            _DEFAULT.ops[name].kernel = fn
