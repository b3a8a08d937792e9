"""Random well-formed programs for the property tests, built from shapes the
generator tracks.

A program is generated against *concrete* inputs: every value the generator creates has a
concrete shape on those inputs (the "intended" inputs), and every operator is applied only
where its rule accepts those shapes. Parameters are made on demand: when `add` needs a partner
for `%v3`, a new parameter with a shape that broadcasts is created. So the intended inputs
always run, and any failure on them is a bug in gradual or in this generator.

Each dimension (`Dim`) also carries its *form*: what the checker should infer for it in the
definition it lives in (a static size, a symbol of the signature, `2 * n`, `(h - 1) // 2 + 1`,
or `?` where the generator does not predict the checker), and, inside helper definitions and
closures, the same dimension in the caller (`outer`), so a call site can pass arguments whose
types fit. Annotations are `Slot`s rendered by a `Variant`:

* `SYMBOLIC`: the program as generated (fresh dims of parameters are symbols or static sizes);
* `STATIC`: every annotation is the concrete shape (a fully static program);
* `Relaxed`: some dims of some annotations made less precise (`?`, a wider interval, an
  interval around a static size) or a whole shape made `Tensor[*, dtype]`.

`programs()` is the hypothesis strategy; `generate(seed)` makes one program from a seed.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np
from hypothesis import strategies as st

from gradual.shapes import Dimension, Symbol

FLOAT = "float32"
DYNAMIC = Dimension.dynamic()


# randomness ---------------------------------------------------------------------------------------
class Draw:
    """Choices, from hypothesis (`st.data().draw`) or from a seeded `random.Random`."""

    def __init__(self, draw: Optional[Callable[[Any], Any]] = None, seed: int = 0) -> None:
        self._draw = draw
        self._rng = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        if self._draw is not None:
            return self._draw(st.integers(lo, hi))
        return self._rng.randint(lo, hi)

    def choice(self, items: Sequence[Any]) -> Any:
        """One of `items` (earlier ones shrink better)."""
        return items[self.int(0, len(items) - 1)]

    def chance(self, percent: int) -> bool:
        """True with about this probability (in percent)."""
        return self.int(0, 99) < percent


# dimensions -------------------------------------------------------------------------------------------
class Dim:
    """One dimension: its concrete size on the intended inputs, its form in the definition it
    lives in, and the same dimension in the caller (`outer`; a constant is its own outer)."""

    __slots__ = ("value", "form", "outer")

    def __init__(self, value: int, form: Dimension, outer: Optional["Dim"]) -> None:
        self.value = value
        self.form = form
        self.outer = outer

    @staticmethod
    def const(value: int) -> "Dim":
        """A constant: the same static size in every definition."""
        d = Dim(value, Dimension(value), None)
        d.outer = d
        return d

    @property
    def is_const(self) -> bool:
        """Whether this is a constant."""
        return self.outer is self

    def __repr__(self) -> str:
        return f"Dim({self.value}, {self.form})"


def lift(fn: Callable[..., Any], *dims: Dim) -> Dim:
    """Apply an arithmetic function to sizes and forms alike (forms that are not exact give `?`)."""
    if all(d.is_const for d in dims):
        return Dim.const(fn(*(d.value for d in dims)))
    value = fn(*(d.value for d in dims))
    exact = all(d.form.is_exact for d in dims)
    form = fn(*(d.form for d in dims)) if exact else DYNAMIC
    if not form.is_exact:
        form = DYNAMIC
    outers = [d.outer for d in dims]
    outer = lift(fn, *outers) if all(o is not None for o in outers) else None
    return Dim(value, form, outer)


def dim_add(a: Dim, b: Dim) -> Dim:
    """a + b."""
    return lift(lambda x, y: x + y, a, b)


def dim_mul(a: Dim, b: Dim) -> Dim:
    """a * b."""
    return lift(lambda x, y: x * y, a, b)


def dim_scale(a: Dim, k: int) -> Dim:
    """a * k for a constant k."""
    return lift(lambda x: x * k, a)


def dim_product(dims: Sequence[Dim]) -> Dim:
    """The product of dims (1 for none)."""
    out = Dim.const(1)
    for d in dims:
        out = dim_mul(out, d)
    return out


def window(size: Dim, kernel: int, pad: int, stride: int, dilation: int) -> Dim:
    """A sliding window's output length, as the conv/pool rules compute it."""
    span = (kernel - 1) * dilation + 1
    return lift(lambda x: (x + pad - span) // stride + 1, size)


def join_dim(a: Dim, b: Dim) -> Dim:
    """The join of two branches' dims, as spec §3.4 (the value is the taken branch's, `a`)."""
    if a.form.is_exact and b.form.is_exact and a.form == b.form:
        form = a.form
    elif a.form.is_static and b.form.is_static:
        lo, hi = sorted((a.form.get_length(), b.form.get_length()))
        form = Dimension(lo, hi)
    else:
        form = DYNAMIC
    outer = join_dim(a.outer, b.outer) if a.outer is not None and b.outer is not None and not a.is_const else None
    if a.is_const and b.is_const and a.value == b.value:
        return a
    return Dim(a.value, form, outer)


# values and annotations ----------------------------------------------------------------------------------
@dataclass(eq=False)
class Val:
    """A value in scope: how to write it, its dims (None for a tuple) and dtype, its fields."""

    text: str
    dims: Optional[tuple] = None
    dtype: str = FLOAT
    fields: Optional[tuple] = None
    shape_value: Optional[tuple] = None  # the Dims an int64 shape vector holds

    @property
    def rank(self) -> int:
        """The rank."""
        return len(self.dims)

    @property
    def shape(self) -> tuple:
        """The concrete shape on the intended inputs."""
        return tuple(d.value for d in self.dims)


@dataclass(eq=False)
class Slot:
    """An annotation the variants render: a tensor type over Dims (`dims=None` is `*`)."""

    uid: int
    kind: str  # param, helper-param, poly-param (symbolic in every variant), let, cast
    dims: Optional[tuple]
    dtype: str
    existentials: frozenset = frozenset()
    scope: Any = None  # a let's Builder: the parameters whose symbols are bound where it is


@dataclass(eq=False)
class FnSlot:
    """A function type annotation `fn (P) -> R` over tensor slots (each relaxed on its own)."""

    params: tuple
    ret: Slot


@dataclass(eq=False)
class HoleSlot:
    """A parameter to infer: written `%x`, or `%x: ?T` where the variant says so."""


@dataclass(eq=False)
class Hint:
    """A `can_unify` hint statement: written unless the variant leaves hints out."""

    text: str


class Variant:
    """How annotations are written (see the module docstring). The base is SYMBOLIC.
    `hints`: write `can_unify` hints; `holes`: write parameters to infer as `%x: ?T`."""

    name = "symbolic"
    hints = True
    holes = False

    def render(self, slot: Any, program: "Program") -> Optional[str]:
        """The annotation as source text (None: none is written)."""
        if isinstance(slot, FnSlot):
            params = ", ".join(self.render(p, program) or "?" for p in slot.params)
            return f"fn ({params}) -> {self.render(slot.ret, program)}"
        if isinstance(slot, HoleSlot):
            return "?T" if self.holes else None
        if slot.dims is None:
            return f"Tensor[*, {slot.dtype}]"
        dims = [self.dim_text(slot, i, d, program) for i, d in enumerate(slot.dims)]
        return tensor_text(dims, slot.dtype)

    def dim_text(self, slot: Slot, index: int, d: Dim, program: "Program") -> str:
        """One dim of an annotation as source text."""
        return base_dim_text(slot, d, program)


def base_dim_text(slot: Slot, d: Dim, program: "Program") -> str:
    """A dim as the generated program writes it: its form, or `?`; a parameter never names an
    existential (it would become a symbol of the signature)."""
    if not d.form.is_exact:
        return "?"
    if slot.kind in ("param", "helper-param", "fn-type") and d.form.symbols() & program.existentials:
        return "?"
    return str(d.form)


def tensor_text(dims: Sequence[str], dtype: str) -> str:
    """`Tensor[(d1, d2), dtype]` from dim texts."""
    inner = ", ".join(dims) + ("," if len(dims) == 1 else "")
    return f"Tensor[({inner}), {dtype}]"


class Static(Variant):
    """Every annotation is the concrete shape."""

    name = "static"

    def dim_text(self, slot: Slot, index: int, d: Dim, program: "Program") -> str:
        """One dim of an annotation as source text (a polymorphic helper's stay its symbols:
        it is called with different sizes)."""
        if slot.kind == "poly-param":
            return base_dim_text(slot, d, program)
        return str(d.value)


SYMBOLIC = Variant()
STATIC = Static()


class Spelled(Variant):
    """A base variant with hints left out, or parameters to infer written `%x: ?T`: the same
    program, which must check (and run) alike."""

    def __init__(self, base: Variant, hints: bool = True, holes: bool = False) -> None:
        self.base, self.hints, self.holes = base, hints, holes
        self.name = f"{base.name}{'' if hints else ' without hints'}{' with ?T' if holes else ''}"

    def render(self, slot: Any, program: "Program") -> Optional[str]:
        """The annotation as the base writes it (holes as this variant says)."""
        if isinstance(slot, (FnSlot, HoleSlot)):
            return super().render(slot, program)
        return self.base.render(slot, program)

    def dim_text(self, slot: Slot, index: int, d: Dim, program: "Program") -> str:
        """One dim as the base writes it."""
        return self.base.dim_text(slot, index, d, program)


class Relaxed(Variant):
    """A base variant with some annotations made less precise: `dims[(slot, index)]` replaces
    one dim's text, `dynamic_rank` holds slots written `Tensor[*, dtype]`."""

    name = "relaxed"

    def __init__(
        self,
        base: Variant,
        dims: dict,
        dynamic_rank: frozenset,
        dynamic_dtype: frozenset = frozenset(),
        runs: frozenset = frozenset(),
    ) -> None:
        self.base = base
        self.dims = dims
        self.dynamic_rank = dynamic_rank
        self.dynamic_dtype = dynamic_dtype
        self.runs = runs  # slots whose leading dims are written as a run: `Tensor[(*b7, k), dtype]`

    def render(self, slot: Any, program: "Program") -> Optional[str]:
        """The annotation as source text."""
        if isinstance(slot, (FnSlot, HoleSlot)):
            return super().render(slot, program)
        dtype = "?" if slot.uid in self.dynamic_dtype else slot.dtype
        if slot.uid in self.runs and slot.dims:
            return tensor_text(
                [f"*b{slot.uid}", self.dim_text(slot, len(slot.dims) - 1, slot.dims[-1], program)], dtype
            )
        if slot.uid in self.dynamic_rank:
            return f"Tensor[*, {dtype}]"
        if slot.dims is None:
            return f"Tensor[*, {dtype}]"
        dims = [self.dim_text(slot, i, d, program) for i, d in enumerate(slot.dims)]
        return tensor_text(dims, dtype)

    def dim_text(self, slot: Slot, index: int, d: Dim, program: "Program") -> str:
        """One dim of an annotation as source text."""
        found = self.dims.get((slot.uid, index))
        return found if found is not None else self.base.dim_text(slot, index, d, program)

    def describe(self) -> str:
        """What was relaxed."""
        return (
            f"relaxed dims {self.dims}, dynamic rank {sorted(self.dynamic_rank)}, "
            f"unknown dtype {sorted(self.dynamic_dtype)}, runs {sorted(self.runs)}"
        )


# the generated program ---------------------------------------------------------------------------
@dataclass(eq=False)
class Param:
    """A parameter: its name, dims, dtype, annotation slot and the intended input."""

    name: str
    val: Val
    slot: Optional[Slot]
    data: Any = None  # the intended input (main only)


class Block:
    """A body being built: statements (lists of text pieces and Slots) and a result."""

    def __init__(self) -> None:
        self.stmts: list = []
        self.result: Any = None


@dataclass(eq=False)
class Definition:
    """A generated `def`: name, parameters, body."""

    name: str
    params: list
    body: Block
    dtype_params: tuple = ()
    claimed: tuple = ()  # signature names written `claimed=[...]` (an exporter's claim, spec §6)
    ret: str = ""  # a written return type (else none)


@dataclass(eq=False)
class Program:
    """A generated program: definitions (helpers first, `@main` last), the intended inputs."""

    defs: list = field(default_factory=list)
    slots: list = field(default_factory=list)
    existentials: set = field(default_factory=set)
    symbols: set = field(default_factory=set)  # names of main's signature symbols
    ops: list = field(default_factory=list)  # operators used, in order
    data_dependent: bool = False  # some shape depends on data or a branch join
    features: set = field(default_factory=set)
    helpers: list = field(default_factory=list)  # helper builders, in creation order
    bindings: dict = field(default_factory=dict)  # (definition, variable) -> Val
    allow_data_dependent: bool = True
    focus: frozenset = frozenset()  # features made ten times as likely (FOCUS names them)
    #: closures bound by a let, which `draw_claims` may give a written function type
    typable: list = field(default_factory=list)
    #: helpers returning a polymorphic closure (its builder, its parameter's type text, the value
    #: x it is made for, @main's builder, block and binding statement where @main calls it, the
    #: closure's variable), which `draw_claims` may give a written
    #: return type `-> fn (Tensor[(q1, q2), dtype]) -> Tensor[(q1, q2), dtype]`
    typed_returns: list = field(default_factory=list)

    @property
    def main(self) -> Definition:
        """The entry point, @main."""
        return self.defs[-1]

    def __repr__(self) -> str:
        return "Program:\n" + self.text()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """How hypothesis shows a failing example: the program's text."""
        printer.text(repr(self))

    def text(self, variant: Variant = SYMBOLIC) -> str:
        """The program's source under a variant."""
        return "\n".join(render_def(d, variant, self) for d in self.defs)

    def intended_inputs(self) -> dict:
        """The inputs the program was generated for (copies)."""
        return {p.name: np.array(p.data, copy=True) for p in self.main.params}


def render_pieces(pieces: Sequence[Any], variant: Variant, program: Program, indent: str) -> str:
    """A statement from its pieces (text, Slots, Blocks, closures)."""
    out = []
    for piece in pieces:
        if isinstance(piece, (Slot, FnSlot)):
            out.append(variant.render(piece, program))
        elif isinstance(piece, Hint):
            out.append(piece.text if variant.hints else "")
        elif isinstance(piece, Block):
            out.append(render_block(piece, variant, program, indent + "  "))
        elif isinstance(piece, Inline):
            h = piece.builder
            out.append(
                f"fn ({render_params(h.params, variant, program)}) "
                + render_block(h.block, variant, program, indent + "  ")
            )
        else:
            out.append(piece)
    return "".join(out)


def render_block(block: Block, variant: Variant, program: Program, indent: str) -> str:
    """A body: its statements and its result, in braces."""
    lines = [indent + render_pieces(s, variant, program, indent) for s in block.stmts]
    lines.append(indent + render_pieces(block.result, variant, program, indent))
    return "{\n" + "\n".join(lines) + "\n" + indent[:-2] + "}"


def render_params(params: Sequence[Param], variant: Variant, program: Program) -> str:
    """A parameter list with its annotations."""
    parts = []
    for p in params:
        written = None if p.slot is None else variant.render(p.slot, program)
        parts.append(f"%{p.name}" if written is None else f"%{p.name}: {written}")
    return ", ".join(parts)


def render_def(d: Definition, variant: Variant, program: Program) -> str:
    """A whole definition."""
    tps = f"[{', '.join(d.dtype_params)}]" if d.dtype_params else ""
    params = render_params(d.params, variant, program)
    # only the names this variant still writes (a relaxed or static signature drops some)
    claimed = [n for n in d.claimed if re.search(rf"(?<![%@\w]){n}(?![\w])", params)]
    if claimed:
        params += (", " if params else "") + "claimed=[" + ", ".join(f'"{n}"' for n in claimed) + "]"
    head = f"def @{d.name}{tps}({params}) " + (f"-> {d.ret} " if d.ret else "")
    return head + render_block(d.body, variant, program, "  ") + "\n"


# the builder ----------------------------------------------------------------------------------------
SYMBOL_LETTERS = "nkmhwbcstu"
UNARY = [
    "nn.relu",
    "negative",
    "abs",
    "exp",
    "tanh",
    "sigmoid",
    "floor",
    "ceil",
    "round",
    "sign",
    "sqrt",
    "erf",
    "copy",
    "zeros_like",
    "ones_like",
    "nn.leaky_relu",
    "clip",
    "full_like",
    "rsqrt",
    "log",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "log2",
    "log10",
    "trunc",
    "fast_exp",
    "fast_tanh",
    "fast_erf",
]
BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "maximum",
    "minimum",
    "power",
    "floor_divide",
    "mod",
    "floor_mod",
    "trunc_divide",
    "trunc_mod",
]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]
PREDICATES = ["isnan", "isinf", "isfinite"]
COMPARE = ["less", "greater", "equal", "not_equal", "less_equal", "greater_equal"]
REDUCE = ["sum", "mean", "max", "min", "prod"]
NO_IDENTITY = ("max", "min", "argmax", "argmin")


class Builder:
    """Builds one definition (or closure) of a program; `parent` is the caller's builder."""

    def __init__(
        self,
        program: Program,
        draw: Draw,
        parent: Optional["Builder"] = None,
        name: str = "main",
        rng: Optional[np.random.Generator] = None,
    ) -> None:
        self.program = program
        self.draw = draw
        self.parent = parent
        self.name = name
        self.params: list = []
        self.block = Block()
        self.scopes: list = [[]]
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.counter = 0
        self.depth = 0 if parent is None else parent.depth + 1
        self.dtype = FLOAT  # the dtype of float values here (a dtype variable in some helpers)
        self.def_name = name  # the definition whose body this is (a closure's is its parent's)

    # names -------------------------------------------------------------------------------------
    def fresh_name(self, prefix: str) -> str:
        """A name unique in the program (`p3`, `v7`)."""
        root = self.root()
        root.counter += 1
        return f"{prefix}{root.counter}"

    def root(self) -> "Builder":
        """The builder of @main."""
        b = self
        while b.parent is not None:
            b = b.parent
        return b

    def symbol(self) -> Dimension:
        """A new symbol (of @main, a helper or a closure)."""
        letter = self.draw.choice(SYMBOL_LETTERS)
        name = self.fresh_name(letter)
        if self.parent is None:
            self.program.symbols.add(name)
        return Dimension.symbol(name)

    # dims ------------------------------------------------------------------------------------------
    def fresh(self, value: int, symbolic: Optional[bool] = None) -> Dim:
        """A new dimension of a new parameter: a symbol or its static size."""
        if symbolic is None:
            symbolic = self.draw.chance(45)
        outer = self.parent.fresh(value, symbolic) if self.parent is not None else None
        return Dim(value, self.symbol() if symbolic else Dimension(value), outer)

    def fresh_from(self, outer: Dim) -> Dim:
        """A helper parameter's dim for an argument dim of the caller (static only where the
        caller's is static, so the call can never be a static mismatch)."""
        if outer.is_const or (outer.form.is_static and self.draw.chance(50)):
            return Dim(outer.value, Dimension(outer.value), outer) if not outer.is_const else outer
        return Dim(outer.value, self.symbol(), outer)

    def size(self, lo: int = 1, hi: int = 4) -> int:
        """A random concrete size."""
        return self.draw.int(lo, hi)

    # scope -------------------------------------------------------------------------------------------
    def values(self, pred: Callable[[Val], bool] = lambda v: True) -> list:
        """The tensor values in scope satisfying pred (an empty one only where made: a
        reduction of nothing has no value)."""
        return [
            v for scope in self.scopes for v in scope if v.dims is not None and all(d.value for d in v.dims) and pred(v)
        ]

    def add_value(self, val: Val) -> Val:
        """Put a value in the innermost scope."""
        self.scopes[-1].append(val)
        return val

    # parameters ------------------------------------------------------------------------------------
    def new_param(self, dims: Sequence[Dim], dtype: Optional[str] = None, data: Any = None, prefix: str = "p") -> Val:
        """A new parameter of this definition with these dims and its intended input."""
        dtype = dtype or self.dtype
        name = self.fresh_name(prefix)
        val = Val(f"%{name}", tuple(dims), dtype)
        slot = self.slot("param" if self.parent is None else "helper-param", val.dims, dtype)
        if data is None:
            data = random_data(val.shape, FLOAT if dtype == self.dtype else dtype, self.rng)
        self.params.append(Param(name, val, slot, data))
        return self.add_value(val)

    def slot(self, kind: str, dims: Optional[tuple], dtype: str, existentials: frozenset = frozenset()) -> Slot:
        """A new annotation slot of the program."""
        s = Slot(len(self.program.slots), kind, dims, dtype, existentials)
        self.program.slots.append(s)
        return s

    def fresh_param(self, rank: Optional[int] = None, lo: int = 1, hi: int = 4) -> Val:
        """A new parameter of fresh dims (now and then an empty one, where `lo` allows)."""
        r = self.draw.int(1, 3) if rank is None else rank
        return self.new_param([self.fresh(self.size_or_empty(lo, hi)) for _ in range(r)])

    def size_or_empty(self, lo: int = 1, hi: int = 4) -> int:
        """A random size; 0 now and then (zero-size dims: empty tensors), where lo is 1."""
        if lo == 1 and self.draw.chance(6):
            self.program.features.add("zero-dim")
            return 0
        return self.size(lo, hi)

    def pick(self, pred: Callable[[Val], bool] = lambda v: True, make: Optional[Callable[[], Val]] = None) -> Val:
        """A float value in scope satisfying pred, else a new parameter from `make`."""
        found = self.values(lambda v: v.dtype == self.dtype and pred(v))
        if found and (make is None or self.draw.chance(85)):
            return self.draw.choice(found[::-1])
        return (make or self.fresh_param)()

    # statements --------------------------------------------------------------------------------------
    def bind(
        self,
        expr: Sequence[Any],
        dims: Optional[tuple],
        dtype: Optional[str] = None,
        fields: Optional[tuple] = None,
        shape_value: Optional[tuple] = None,
        plain: bool = False,
    ) -> Val:
        """`let %v = expr;` (or `%v = expr;`, or, unless `plain`, an annotated let); the new
        value. A value that a later operator relates to another one (flattened and shaped
        back) is bound `plain`: an existential would hide the relation."""
        dtype = dtype or self.dtype
        name = self.fresh_name("v")
        style = self.draw.int(0, 9)
        if fields is None and dims is not None and style == 0 and not plain:
            dims = self.annotated_let(name, expr, dims, dtype)
        elif style <= 3:
            self.block.stmts.append([f"%{name} = ", *expr, ";"])
        else:
            self.block.stmts.append([f"let %{name} = ", *expr, ";"])
        val = self.add_value(Val(f"%{name}", dims, dtype, fields, shape_value))
        self.program.bindings[(self.def_name, name)] = val
        return val

    def annotated_let(self, name: str, expr: Sequence[Any], dims: tuple, dtype: str) -> tuple:
        """`let %v: T = expr;` with T the value's forms, some dims `?` or new existential names."""
        new_dims = []
        existentials = set()
        for d in dims:
            kind = self.draw.int(0, 5)
            if kind == 0 or not d.form.is_exact and kind <= 3:
                sym = self.symbol_existential()
                existentials.add(sym)
                new_dims.append(Dim(d.value, Dimension.symbol(sym), self._outer_existential(d)))
            else:
                new_dims.append(d)
        slot = self.slot("let", tuple(new_dims), dtype, frozenset(existentials))
        slot.scope = self
        self.program.features.add("annotated-let")
        self.block.stmts.append([f"let %{name}: ", slot, " = ", *expr, ";"])
        return tuple(new_dims)

    def bind_opaque(self, expr: Sequence[Any], values: Sequence[int], dtype: Optional[str] = None) -> Val:
        """`let %v: Tensor[(e1, e2), T] = expr;` with a new existential for every dim: for a
        value whose type the generator does not predict (the checker may know it exactly, so
        no later operator may rely on its dims being `?`), named from here on."""
        dtype = dtype or self.dtype
        name = self.fresh_name("v")
        names = [self.symbol_existential() for _ in values]
        dims = tuple(Dim(v, Dimension.symbol(n), None) for v, n in zip(values, names))
        slot = self.slot("let", dims, dtype, frozenset(names))
        slot.scope = self
        self.program.features.add("annotated-let")
        self.block.stmts.append([f"let %{name}: ", slot, " = ", *expr, ";"])
        val = self.add_value(Val(f"%{name}", dims, dtype))
        self.program.bindings[(self.def_name, name)] = val
        return val

    def symbol_existential(self) -> str:
        """A new existential name (bound by an annotated let)."""
        name = self.fresh_name("e")
        self.program.existentials.add(Symbol.named(name))
        self.program.features.add("existential")
        return name

    def _outer_existential(self, d: Dim) -> Optional[Dim]:
        return None if d.is_const else d.outer

    def call(self, op: str, args: Sequence[str], **attrs: Any) -> list:
        """The pieces of `op(args, attrs)`."""
        self.program.ops.append(op)
        parts = list(args) + [f"{k}={attr_text(v)}" for k, v in attrs.items()]
        return [f"{op}({', '.join(parts)})"]


def attr_text(v: Any) -> str:
    """An attribute value as source text."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(attr_text(x) for x in v) + "]"
    return repr(v)


def random_data(shape: tuple, dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Random input data of a shape and dtype (floats standard normal, ints in [0, 4))."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 4, size=shape).astype(dtype)
    return rng.standard_normal(size=shape).astype(dtype)


# operators ------------------------------------------------------------------------------------------
# Each takes the builder, applies one operator (or a small idiom) to values in scope or new
# parameters, binds the result and returns it; None when it does not apply.
def has_rank(lo: int, hi: int = 9) -> Callable[[Val], bool]:
    """A value filter: rank within [lo, hi]."""
    return lambda v: lo <= v.rank <= hi


def op_unary(b: Builder) -> Val:
    """A shape-preserving unary operator (some with attributes or a fill value)."""
    x = b.pick()
    op = b.draw.choice(UNARY)
    attrs: dict = {}
    args = [x.text]
    if op == "nn.leaky_relu":
        attrs["alpha"] = 0.1
    elif op == "clip":
        attrs = {"a_min": -1.0, "a_max": 1.0}
    elif op == "full_like":
        args.append("1f")
    return b.bind(b.call(op, args, **attrs), x.dims)


def op_softmax(b: Builder) -> Val:
    """softmax / log_softmax along a random axis."""
    x = b.pick(has_rank(1), lambda: b.fresh_param(b.draw.int(1, 3)))
    axis = b.draw.int(-x.rank, x.rank - 1)
    op = b.draw.choice(["nn.softmax", "nn.log_softmax"])
    return b.bind(b.call(op, [x.text], axis=axis), x.dims)


def partner_dims(b: Builder, x: Val) -> tuple:
    """Dims of a new parameter that broadcasts with x: each aligned dim copied or 1, maybe
    fewer dims (aligned right) or more (new leading dims)."""
    dims = [d if b.draw.chance(70) else Dim.const(1) for d in x.dims]
    if dims and b.draw.chance(20):
        dims = dims[b.draw.int(1, len(dims)) :]
    elif b.draw.chance(10):
        dims = [b.fresh(b.size())] + dims
    return tuple(dims)


def broadcast_result(xs: tuple, ys: tuple) -> tuple:
    """NumPy broadcasting of two dim tuples the generator made compatible."""
    n = max(len(xs), len(ys))
    xs = (Dim.const(1),) * (n - len(xs)) + tuple(xs)
    ys = (Dim.const(1),) * (n - len(ys)) + tuple(ys)
    return tuple(y if _is_one(x) else x for x, y in zip(xs, ys))


def _is_one(d: Dim) -> bool:
    return d.value == 1 and d.form.is_static


def compatible(xs: tuple, ys: tuple) -> bool:
    """Whether two values' dims broadcast in every world: exact equal forms, or a static 1."""
    for x, y in zip(reversed(xs), reversed(ys)):
        if _is_one(x) or _is_one(y):
            continue
        if not (x.form.is_exact and y.form.is_exact and x.form == y.form and x.value == y.value):
            return False
        if not _same_outer(x, y):
            return False
    return True


def _same_outer(x: Dim, y: Dim) -> bool:
    while x is not None and y is not None and not (x.is_const and y.is_const):
        if not (x.form.is_exact and y.form.is_exact and x.form == y.form):
            return False
        x, y = x.outer, y.outer
    return (x is None) == (y is None)


def partner(b: Builder, x: Val, dims: Optional[tuple] = None) -> Val:
    """A value that broadcasts with x (with `dims`, when given: the shape x already
    broadcasts to): one in scope, or a new parameter."""
    target = Val(x.text, x.dims if dims is None else dims, x.dtype)
    found = b.values(lambda v: v is not x and v.dtype == x.dtype and compatible(target.dims, v.dims))
    if found and b.draw.chance(40):
        return b.draw.choice(found)
    if b.draw.chance(10):
        return x
    return b.new_param(partner_dims(b, target), x.dtype)


def op_binary(b: Builder) -> Val:
    """A broadcasting binary operator with a compatible partner."""
    x = b.pick()
    y = partner(b, x)
    if b.draw.chance(50):
        x, y = y, x
    op = b.draw.choice(BINARY)
    return b.bind(b.call(op, [x.text, y.text]), broadcast_result(x.dims, y.dims))


def op_where(b: Builder) -> Val:
    """where(compare(x, y), ...) over three broadcast-compatible values."""
    x = b.pick()
    y = partner(b, x)
    z = partner(b, x, broadcast_result(x.dims, y.dims))
    cond = b.call(b.draw.choice(COMPARE), [x.text, y.text])
    xy = broadcast_result(x.dims, y.dims)
    dims = broadcast_result(xy, broadcast_result(x.dims, z.dims))
    if b.draw.chance(50):
        return b.bind(b.call("where", ["".join(cond), y.text, z.text]), broadcast_result(xy, z.dims))
    c = b.bind(cond, broadcast_result(x.dims, y.dims), "bool", plain=True)
    return b.bind(b.call("where", [c.text, x.text, z.text]), dims)


def op_dense(b: Builder) -> Val:
    """nn.dense with a new weight (u, k)."""
    x = b.pick(has_rank(1, 3))
    k = x.dims[-1]
    u = b.fresh(b.size())
    w = b.new_param([u, k])
    attrs = {"units": u.value} if u.form.is_static and b.draw.chance(30) else {}
    return b.bind(b.call("nn.dense", [x.text, w.text], **attrs), x.dims[:-1] + (u,))


def op_matmul(b: Builder) -> Val:
    """nn.matmul with a new (k, m) weight (or (m, k) with transpose_b)."""
    x = b.pick(has_rank(1, 3))
    k, m = x.dims[-1], b.fresh(b.size())
    if b.draw.chance(30):
        w = b.new_param([m, k])
        call = b.call("nn.matmul", [x.text, w.text], transpose_b=True)
    else:
        w = b.new_param([k, m])
        call = b.call("nn.matmul", [x.text, w.text])
    return b.bind(call, x.dims[:-2] + x.dims[-2:-1] + (m,))


def op_batch_matmul(b: Builder) -> Val:
    """nn.batch_matmul (b, n, k) x (b or 1, m, k)."""
    x = b.pick(has_rank(3, 3), lambda: b.fresh_param(3))
    batch, n, k = x.dims
    m = b.fresh(b.size())
    y = b.new_param([batch if b.draw.chance(80) else Dim.const(1), m, k])
    return b.bind(b.call("nn.batch_matmul", [x.text, y.text], transpose_b=True), (batch, n, m))


def op_bias_add(b: Builder) -> Val:
    """nn.bias_add along axis 1 or -1."""
    x = b.pick(has_rank(2, 4), lambda: b.fresh_param(b.draw.int(2, 4)))
    axis = b.draw.choice([1, -1, 1])
    bias = b.new_param([x.dims[axis]])
    return b.bind(b.call("nn.bias_add", [x.text, bias.text], axis=axis), x.dims)


def op_reshape(b: Builder) -> Val:
    """reshape with codes -1 and 0, or a static factor of the element count."""
    x = b.pick(has_rank(1, 4))
    total = dim_product(x.dims)
    kind = b.draw.int(0, 3)
    if kind == 0:
        return b.bind(b.call("reshape", [x.text], newshape=[-1]), (total,))
    if kind == 1 and x.rank >= 2:
        rest = dim_product(x.dims[1:])
        return b.bind(b.call("reshape", [x.text], newshape=[0, -1]), (x.dims[0], rest))
    if kind == 2:
        return b.bind(b.call("reshape", [x.text], newshape=[1, -1, 1]), (Dim.const(1), total, Dim.const(1)))
    divisors = [d for d in range(2, 7) if total.value % d == 0 and _divides(total, d)]
    if not divisors:
        return b.bind(b.call("reshape", [x.text], newshape=[-1, 1]), (total, Dim.const(1)))
    d = b.draw.choice(divisors)
    rest = Dim(total.value // d, _exact_div(total, d), None)
    rest.outer = _div_outer(total.outer, d)
    if b.draw.chance(50):
        return b.bind(b.call("reshape", [x.text], newshape=[d, -1]), (Dim.const(d), rest))
    return b.bind(b.call("reshape", [x.text], newshape=[-1, d]), (rest, Dim.const(d)))


def _divides(total: Dim, d: int) -> bool:
    """Whether the checker can know that d divides the total (a rigid symbol is not divisible)."""
    while total is not None and not total.is_const:
        if total.form.is_exact and total.form.exact_div(Dimension(d)) is None:
            return False
        total = total.outer
    return True


def _exact_div(total: Dim, d: int) -> Dimension:
    if not total.form.is_exact:
        return DYNAMIC
    q = total.form.exact_div(Dimension(d))
    return q if q is not None else DYNAMIC


def _div_outer(outer: Optional[Dim], d: int) -> Optional[Dim]:
    if outer is None:
        return None
    if outer.is_const:
        return Dim.const(outer.value // d)
    out = Dim(outer.value // d, _exact_div(outer, d), None)
    out.outer = _div_outer(outer.outer, d)
    return out


def op_empty_reshape(b: Builder) -> Val:
    """An empty tensor (0, k) reshaped to [0, c] (both hold no element, whatever c and k),
    joined to a value of c columns, so nothing empty flows on."""
    y = b.pick(
        lambda v: v.rank == 2 and v.dims[1].form.is_static,
        lambda: b.new_param([b.fresh(b.size()), Dim.const(b.size())]),
    )
    c = y.dims[1].value
    empty = b.new_param([Dim.const(0), Dim.const(b.draw.choice([k for k in (1, 2, 3, 4, 6) if k != c]))])
    flat = "".join(b.call("reshape", [empty.text], newshape=[0, c]))
    return b.bind(b.call("concatenate", [f"({flat}, {y.text})"], axis=0), (dim_add(Dim.const(0), y.dims[0]), y.dims[1]))


def op_transpose(b: Builder) -> Val:
    """transpose by a random permutation (or reversed)."""
    x = b.pick(has_rank(2, 4))
    if b.draw.chance(25):
        return b.bind(b.call("transpose", [x.text]), tuple(reversed(x.dims)))
    perm = list(range(x.rank))
    for i in range(len(perm) - 1, 0, -1):
        j = b.draw.int(0, i)
        perm[i], perm[j] = perm[j], perm[i]
    return b.bind(b.call("transpose", [x.text], axes=perm), tuple(x.dims[p] for p in perm))


def op_expand_dims(b: Builder) -> Val:
    """expand_dims of one or two new axes."""
    x = b.pick(has_rank(0, 3))
    axis = b.draw.int(-x.rank - 1, x.rank)
    count = b.draw.choice([1, 1, 2])
    at = axis if axis >= 0 else x.rank + 1 + axis
    dims = x.dims[:at] + (Dim.const(1),) * count + x.dims[at:]
    attrs = {"axis": axis} if count == 1 else {"axis": axis, "num_newaxis": count}
    return b.bind(b.call("expand_dims", [x.text], **attrs), dims)


def op_squeeze(b: Builder) -> Optional[Val]:
    """squeeze an axis statically known to be 1."""
    x = b.pick(lambda v: any(_is_one(d) for d in v.dims))
    ones = [i for i, d in enumerate(x.dims) if _is_one(d)]
    if not ones:
        return None
    axis = b.draw.choice(ones)
    return b.bind(b.call("squeeze", [x.text], axis=[axis]), x.dims[:axis] + x.dims[axis + 1 :])


def op_reverse(b: Builder) -> Val:
    """reverse along an axis."""
    x = b.pick(has_rank(1, 4))
    return b.bind(b.call("reverse", [x.text], axis=b.draw.int(-x.rank, x.rank - 1)), x.dims)


def op_concatenate(b: Builder) -> Val:
    """concatenate with a parameter equal but along the axis (or with itself)."""
    x = b.pick(has_rank(1, 4))
    axis = b.draw.int(0, x.rank - 1)
    if b.draw.chance(20):
        y = x
    else:
        dims = list(x.dims)
        dims[axis] = b.fresh(b.size())
        y = b.new_param(dims)
    dims = list(x.dims)
    dims[axis] = dim_add(x.dims[axis], y.dims[axis])
    written = axis if b.draw.chance(70) else axis - x.rank
    return b.bind(b.call("concatenate", [f"({x.text}, {y.text})"], axis=written), tuple(dims))


def op_stack(b: Builder) -> Val:
    """stack with an equally shaped parameter (or itself)."""
    x = b.pick(has_rank(0, 3))
    y = x if b.draw.chance(30) else b.new_param(list(x.dims))
    axis = b.draw.int(0, x.rank)
    dims = x.dims[:axis] + (Dim.const(2),) + x.dims[axis:]
    return b.bind(b.call("stack", [f"({x.text}, {y.text})"], axis=axis), dims)


def op_split(b: Builder) -> Optional[Val]:
    """split an even, non-symbolic axis in two, then project; or split any axis at indices
    (its last part `n - k`, over a symbol or a product of them, is a size only where the dim
    reaches k)."""
    if b.draw.chance(40):
        return _split_at(b)
    splittable = lambda d: d.value % 2 == 0 and d.value > 0 and not (d.form.is_symbolic)  # noqa: E731
    x = b.pick(lambda v: any(splittable(d) for d in v.dims))
    axes = [i for i, d in enumerate(x.dims) if splittable(d)]
    if not axes:
        return None
    axis = b.draw.choice(axes)
    d = x.dims[axis]
    half = Dim(d.value // 2, _exact_div(d, 2) if d.form.is_static else DYNAMIC, None)
    half.outer = None
    part = x.dims[:axis] + (half,) + x.dims[axis + 1 :]
    parts = b.bind(
        b.call("split", [x.text], indices_or_sections=2, axis=axis), None, fields=(Val("", part), Val("", part))
    )
    b.program.features.add("tuple")
    return b.bind([f"{parts.text}.{b.draw.int(0, 1)}"], part)


def _split_at(b: Builder) -> Optional[Val]:
    x = b.pick(lambda v: 1 <= v.rank <= 3 and any(d.value for d in v.dims))
    axes = [i for i, d in enumerate(x.dims) if d.value]
    if not axes:
        return None
    axis = b.draw.choice(axes)
    d = x.dims[axis]
    last = b.draw.int(1, d.value)
    indices = [b.draw.int(1, last - 1), last] if last > 1 and b.draw.chance(50) else [last]
    b.program.features.add("split-at")
    sizes = [Dim.const(j - i) for i, j in zip([0] + indices, indices)] + [lift(lambda s: s - last, d)]
    parts = [x.dims[:axis] + (size,) + x.dims[axis + 1 :] for size in sizes]
    held = b.bind(
        b.call("split", [x.text], indices_or_sections=indices, axis=axis),
        None,
        fields=tuple(Val("", part) for part in parts),
    )
    b.program.features.add("tuple")
    pick = b.draw.int(0, len(parts) - 1)
    return b.bind([f"{held.text}.{pick}"], parts[pick])


def op_tile(b: Builder) -> Val:
    """tile by 1 or 2 along each axis."""
    x = b.pick(has_rank(1, 3))
    reps = [b.draw.int(1, 2) for _ in range(x.rank)]
    dims = tuple(d if r == 1 else dim_scale(d, r) for d, r in zip(x.dims, reps))
    return b.bind(b.call("tile", [x.text], reps=reps), dims)


def op_repeat(b: Builder) -> Val:
    """repeat along an axis."""
    x = b.pick(has_rank(1, 3))
    axis = b.draw.int(0, x.rank - 1)
    r = b.draw.int(1, 3)
    dims = list(x.dims)
    dims[axis] = dim_scale(dims[axis], r)
    return b.bind(b.call("repeat", [x.text], repeats=r, axis=axis), tuple(dims))


def op_take(b: Builder) -> Val:
    """take by a literal index (drops the axis) or by an index vector parameter."""
    x = b.pick(has_rank(1, 3))
    axis = b.draw.int(0, x.rank - 1)
    if x.dims[axis].value == 0:  # nothing to pick from: no indices
        idx = b.new_param([Dim.const(0)], "int32", prefix="i")
        return b.bind(
            b.call("take", [x.text, idx.text], axis=axis), x.dims[:axis] + (Dim.const(0),) + x.dims[axis + 1 :]
        )
    if b.draw.chance(40):
        index = f"{b.draw.int(0, x.dims[axis].value - 1)}"
        return b.bind(b.call("take", [x.text, index], axis=axis), x.dims[:axis] + x.dims[axis + 1 :])
    j = b.fresh(b.size())
    idx = b.new_param([j], "int32", prefix="i")
    dims = x.dims[:axis] + (j,) + x.dims[axis + 1 :]
    return b.bind(b.call("take", [x.text, idx.text], axis=axis), dims)


def op_gather(b: Builder) -> Val:
    """gather at zero indices shaped like x, or gather_nd of zero addresses of dim 0 (one per
    element of x: the result is (numel, x's other dims))."""
    x = b.pick(has_rank(1, 3))
    zeros = "".join(b.call("cast", ["".join(b.call("zeros_like", [x.text]))], dtype="int32"))
    if b.draw.chance(50):
        return b.bind(b.call("gather", [x.text, zeros], axis=b.draw.int(-x.rank, x.rank - 1)), x.dims)
    addresses = "".join(b.call("reshape", [zeros], newshape=[1, -1]))
    return b.bind(b.call("gather_nd", [x.text, addresses]), (dim_product(x.dims),) + x.dims[1:])


def op_position_slice(b: Builder) -> Val:
    """onnx.slice of a static buffer up to a dim of x read as a shape value (`positions[:seq]`).
    ONNX clamps the end to the buffer, which may be shorter than the dim: the checker once typed
    the slice `seq` long where the run clamped it (found on an exported ViT)."""
    x = b.pick(has_rank(1, 3))
    axis = b.draw.int(0, x.rank - 1)
    d = x.dims[axis]
    size = max(0, d.value + b.draw.int(-2, 2))
    buffer = b.new_param([Dim.const(size)], prefix="q")
    end = "".join(b.call("strided_slice", ["".join(b.call("shape_of", [x.text]))], begin=[axis], end=[axis + 1]))
    one = 'onnx.constant(values=[{}], shape=[1], dtype="int64")'
    length = min(d.value, size)
    dim = Dim.const(length) if d.is_const else Dim(length, DYNAMIC, None)
    return b.bind(b.call("onnx.slice", [buffer.text, one.format(0), end, one.format(0), one.format(1)]), (dim,))


def op_strided_slice(b: Builder) -> Val:
    """strided_slice of one axis within its size: from the start, from the end (a negative
    begin) or backwards (a negative stride)."""
    x = b.pick(has_rank(1, 3))
    axis = b.draw.int(0, x.rank - 1)
    d = x.dims[axis]
    kind = b.draw.int(0, 5)
    if kind == 0 and d.value > 0:  # the last j elements
        j = b.draw.int(1, d.value)
        b.program.features.add("negative-attribute")
        return _sliced(b, x, axis, Dim.const(j), begin=[-j], end=[2**31 - 1])
    if kind == 1:  # backwards, every element or every other one
        step = b.draw.choice([-1, -2])
        b.program.features.add("negative-attribute")
        # every other element from the last: ceil(d / 2), which the checker knows exactly (a
        # `?` here let a reshape by 2 follow, which a rigid d cannot promise)
        length = d if step == -1 else lift(lambda v: (v + 1) // 2, d)  # (d - 1) // 2 + 1, and 0 at 0
        return _sliced(b, x, axis, length, begin=[-1], end=[-(2**31)], strides=[step])
    begin = b.draw.int(0, d.value - 1) if d.value > 0 else 0
    end = b.draw.int(begin + 1, d.value) if d.value > begin else d.value
    if d.form.is_static and b.draw.chance(40):
        end = d.value + b.draw.int(1, 3)  # past the end: NumPy clamps (`?` in a relaxed variant too)
    # on a symbol the checker assumes (and checks) that the dim reaches `end`
    return _sliced(b, x, axis, Dim.const(max(0, min(end, d.value) - begin)), begin=[begin], end=[end])


def _sliced(b: Builder, x: Val, axis: int, length: Dim, **attrs: Any) -> Val:
    dims = list(x.dims)
    dims[axis] = length
    return b.bind(b.call("strided_slice", [x.text], axes=[axis], **attrs), tuple(dims))


def image(b: Builder, lo: int = 1) -> Val:
    """A value of rank 4 (NCHW) with spatial dims of at least `lo`."""
    return b.pick(
        lambda v: v.rank == 4 and v.dims[2].value >= lo and v.dims[3].value >= lo,
        lambda: b.new_param(
            [b.fresh(b.size(1, 2)), b.fresh(b.size(1, 3)), b.fresh(b.size(lo, lo + 3)), b.fresh(b.size(lo, lo + 3))]
        ),
    )


def op_conv2d(b: Builder) -> Val:
    """nn.conv2d with a new weight; strides, padding and kernel_size vary."""
    x = image(b)
    n, c, h, w = x.dims
    pad = b.draw.int(0, 3) if b.draw.chance(25) else b.draw.int(0, 1)  # padding may exceed the input
    kh = b.draw.int(1, min(3, h.value + 2 * pad))
    kw = b.draw.int(1, min(3, w.value + 2 * pad))
    stride = b.draw.int(1, 2)
    out_c = b.fresh(b.size(1, 3))
    weight = b.new_param([out_c, c, Dim.const(kh), Dim.const(kw)])
    attrs: dict = {"strides": [stride, stride], "padding": [pad, pad]}
    if b.draw.chance(30):
        attrs["kernel_size"] = [kh, kw]
    oh, ow = window(h, kh, 2 * pad, stride, 1), window(w, kw, 2 * pad, stride, 1)
    return b.bind(b.call("nn.conv2d", [x.text, weight.text], **attrs), (n, out_c, oh, ow))


def op_conv2d_transpose(b: Builder) -> Val:
    """nn.conv2d_transpose with a new weight."""
    x = image(b)
    n, c, h, w = x.dims
    k, stride = b.draw.int(1, 3), b.draw.int(1, 2)
    out_c = b.fresh(b.size(1, 3))
    weight = b.new_param([c, out_c, Dim.const(k), Dim.const(k)])
    room = min((h.value - 1) * stride + k, (w.value - 1) * stride + k) // 2
    pad = b.draw.int(0, room) if b.draw.chance(40) else 0  # shrinks the output: `h - 2` of padding 2
    if pad:
        b.program.features.add("negative-attribute")
    grow = lambda d: lift(lambda s: (s - 1) * stride + k - 2 * pad, d)  # noqa: E731
    attrs = {"strides": [stride, stride], "padding": [pad, pad]} if pad else {"strides": [stride, stride]}
    return b.bind(b.call("nn.conv2d_transpose", [x.text, weight.text], **attrs), (n, out_c, grow(h), grow(w)))


def op_pool(b: Builder) -> Val:
    """max / avg pooling with a window that fits, or its gradient."""
    x = image(b, 2)
    n, c, h, w = x.dims
    size = b.draw.int(1, min(h.value, w.value, 3))
    stride = b.draw.int(1, 2)
    op = b.draw.choice(["nn.max_pool2d", "nn.avg_pool2d"])
    dims = (n, c, window(h, size, 0, stride, 1), window(w, size, 0, stride, 1))
    pooled = b.call(op, [x.text], pool_size=[size, size], strides=[stride, stride])
    if b.draw.chance(20):  # the pooling's gradient for the image, from the pooled values
        grad = "".join(
            b.call(op + "_grad", ["".join(pooled), x.text], pool_size=[size, size], strides=[stride, stride])
        )
        return b.bind([grad], x.dims)
    return b.bind(pooled, dims)


def op_conv2d_nchwc(b: Builder) -> Val:
    """nn.contrib_conv2d_NCHWc of an image packed by layout_transform (NCHW1c: one channel a
    block), 1 x 1, into blocks of two output channels."""
    x = image(b)
    n, c, h, w = x.dims
    packed = "".join(b.call("layout_transform", [x.text], src_layout="NCHW", dst_layout="NCHW1c"))
    out_blocks = b.draw.int(1, 2)
    weight = b.new_param([Dim.const(out_blocks), c, Dim.const(1), Dim.const(1), Dim.const(1), Dim.const(2)])
    made = b.call(
        "nn.contrib_conv2d_NCHWc",
        [packed, weight.text],
        channels=2 * out_blocks,
        kernel_size=[1, 1],
        data_layout="NCHW1c",
        kernel_layout="OIHW1i2o",
        out_layout="NCHW2c",
    )
    return b.bind(made, (n, Dim.const(out_blocks), h, w, Dim.const(2)))


def op_bitserial(b: Builder) -> Val:
    """Relay's bit-serial operators on 8 x 8 int16 values (one uint8 word per row): bitpack,
    bitserial_dense against a new weight, bitserial_conv2d of a 1 x 1 kernel (as float)."""
    rows = b.new_param([b.fresh(b.size()), Dim.const(8)], "int16", prefix="i")
    kind = b.draw.int(0, 2)
    if kind == 0:
        packed = b.call("nn.bitpack", [rows.text], bits=2, pack_axis=1, bit_axis=2, pack_type="uint8")
        return b.bind(
            ["".join(b.call("cast", ["".join(packed)], dtype=b.dtype))], (rows.dims[0], Dim.const(1), Dim.const(2))
        )
    if kind == 1:
        weight = b.new_param([Dim.const(3), Dim.const(8)], "int16", prefix="i")
        made = b.call(
            "nn.bitserial_dense", [rows.text, weight.text], units=3, pack_dtype="uint8", unipolar=b.draw.chance(50)
        )
        return b.bind(["".join(b.call("cast", ["".join(made)], dtype=b.dtype))], (rows.dims[0], Dim.const(3)))
    image = b.new_param([Dim.const(1), Dim.const(8), b.fresh(b.size()), b.fresh(b.size())], "int16", prefix="i")
    weight = b.new_param([Dim.const(2), Dim.const(8), Dim.const(1), Dim.const(1)], "int16", prefix="i")
    made = b.call(
        "nn.bitserial_conv2d",
        [image.text, weight.text],
        kernel_size=[1, 1],
        channels=2,
        pack_dtype="uint8",
        out_dtype="int32",
    )
    dims = (Dim.const(1), Dim.const(2)) + image.dims[2:]
    return b.bind(["".join(b.call("cast", ["".join(made)], dtype=b.dtype))], dims)


def op_correlation(b: Builder) -> Val:
    """nn.correlation of an image with itself: displacements of at most 1, padded by as much
    (every position of the image is an output position)."""
    x = image(b)
    n, c, h, w = x.dims
    displacement = b.draw.int(0, 1)
    pad = [displacement, displacement]
    side = 2 * displacement + 1
    made = b.call(
        "nn.correlation", [x.text, x.text], max_displacement=displacement, padding=pad, is_multiply=b.draw.chance(50)
    )
    return b.bind(made, (n, Dim.const(side * side), h, w))


def op_global_pool(b: Builder) -> Val:
    """global average / max pooling."""
    x = image(b)
    op = b.draw.choice(["nn.global_avg_pool2d", "nn.global_max_pool2d"])
    return b.bind(b.call(op, [x.text]), x.dims[:2] + (Dim.const(1), Dim.const(1)))


def op_adaptive_pool(b: Builder) -> Val:
    """adaptive average / max pooling to a static size."""
    x = image(b)
    oh, ow = b.draw.int(1, 3), b.draw.int(1, 3)
    op = b.draw.choice(["nn.adaptive_avg_pool2d", "nn.adaptive_max_pool2d"])
    return b.bind(b.call(op, [x.text], output_size=[oh, ow]), x.dims[:2] + (Dim.const(oh), Dim.const(ow)))


def op_resize(b: Builder) -> Val:
    """image.resize2d to a static size, or resize1d / resize3d of the image as NCW / NCDHW
    (the width, or height and width, taken as the spatial dims)."""
    x = image(b)
    oh, ow = b.draw.int(1, 4), b.draw.int(1, 4)
    method = b.draw.choice(["nearest_neighbor", "linear"])
    op = b.draw.choice(["image.resize2d", "image.resize2d", "image.resize1d", "image.resize3d"])
    if op == "image.resize1d":
        n, c, h, w = x.dims
        flat = "".join(b.call("reshape", [x.text], newshape=[0, -3, 0]))
        return b.bind(b.call(op, [flat], size=[ow], method=method), (n, dim_mul(c, h), Dim.const(ow)))
    if op == "image.resize3d":
        od = b.draw.int(1, 3)
        deep = "".join(b.call("expand_dims", [x.text], axis=2))
        return b.bind(
            b.call(op, [deep], size=[od, oh, ow], method=method),
            x.dims[:2] + (Dim.const(od), Dim.const(oh), Dim.const(ow)),
        )
    return b.bind(b.call(op, [x.text], size=[oh, ow], method=method), x.dims[:2] + (Dim.const(oh), Dim.const(ow)))


def op_batch_flatten(b: Builder) -> Val:
    """nn.batch_flatten."""
    x = b.pick(has_rank(1, 4))
    return b.bind(b.call("nn.batch_flatten", [x.text]), (x.dims[0], dim_product(x.dims[1:])))


def op_pad(b: Builder) -> Val:
    """nn.pad by -2..2 on each side: negative widths crop (as much as the dim holds, so a
    symbolic result such as `n - 2` is a size only where the checker checks it)."""
    x = b.pick(has_rank(1, 3))
    widths = [_pad_pair(b, d.value) for d in x.dims]
    dims = tuple(
        d if lo + hi == 0 else lift(lambda s, e=lo + hi: s + e if e > 0 else s - (-e), d)
        for d, (lo, hi) in zip(x.dims, widths)
    )
    return b.bind(b.call("nn.pad", [x.text, "0f"], pad_width=widths), dims)


def _pad_pair(b: Builder, size: int) -> list:
    """[before, after] widths whose crops fit in a dim of this size."""
    before, after = b.draw.int(-2, 2), b.draw.int(-2, 2)
    while max(0, -before) + max(0, -after) > size:
        before, after = before + 1, max(after, 0)
    if before < 0 or after < 0:
        b.program.features.add("negative-attribute")
    return [before, after]


def op_layer_norm(b: Builder) -> Val:
    """nn.layer_norm over the last axis."""
    x = b.pick(has_rank(1, 3))
    d = x.dims[-1]
    gamma, beta = b.new_param([d]), b.new_param([d])
    return b.bind(b.call("nn.layer_norm", [x.text, gamma.text, beta.text]), x.dims)


def op_batch_norm(b: Builder) -> Val:
    """nn.batch_norm with new statistics; its first output."""
    x = b.pick(has_rank(2, 4), lambda: b.fresh_param(b.draw.int(2, 4)))
    c = x.dims[1]
    stats = [b.new_param([c]) for _ in range(4)]
    call = b.call("nn.batch_norm", [x.text] + [s.text for s in stats])
    b.program.features.add("tuple")
    return b.bind([call[0], ".0"], x.dims)


def op_dropout(b: Builder) -> Val:
    """nn.dropout, bound as a tuple, then projected."""
    x = b.pick()
    out = b.bind(b.call("nn.dropout", [x.text]), None, fields=(Val("", x.dims), Val("", x.dims)))
    b.program.features.add("tuple")
    return b.bind([f"{out.text}.0"], x.dims)


def op_reduce(b: Builder) -> Val:
    """A reduction (sum, mean, max, min, prod, argmax, argmin)."""
    x = b.pick(has_rank(1, 4))
    op = b.draw.choice(REDUCE + ["argmax", "argmin"])
    keep = b.draw.chance(30)
    if b.draw.chance(20):
        if op in NO_IDENTITY and any(d.value == 0 for d in x.dims):
            op = "sum"  # max of nothing is undefined
        dims = tuple(Dim.const(1) for _ in x.dims) if keep else ()
        return b.bind(b.call(op, [x.text], keepdims=keep), dims, "int32" if op.startswith("arg") else None)
    axes = sorted({b.draw.int(0, x.rank - 1) for _ in range(b.draw.int(1, 2))})
    if op in NO_IDENTITY and any(x.dims[a].value == 0 for a in axes):
        op = "sum"
    dims = tuple(Dim.const(1) if i in axes else d for i, d in enumerate(x.dims) if keep or i not in axes)
    written = [a if b.draw.chance(70) else a - x.rank for a in axes]
    return b.bind(b.call(op, [x.text], axis=written, keepdims=keep), dims, "int32" if op.startswith("arg") else None)


def op_variance(b: Builder) -> Val:
    """variance around the mean taken with keepdims, or a test with all / any of a comparison."""
    x = b.pick(has_rank(1, 4))
    axes = sorted({b.draw.int(0, x.rank - 1) for _ in range(b.draw.int(1, 2))})
    keep = b.draw.chance(30)
    dims = tuple(Dim.const(1) if i in axes else d for i, d in enumerate(x.dims) if keep or i not in axes)
    if b.draw.chance(50):
        test = "".join(b.call("less", [x.text, "".join(b.call("zeros_like", [x.text]))]))
        op = b.draw.choice(["all", "any"])
        return b.bind(b.call(op, [test], axis=axes, keepdims=keep), dims, "bool")
    mean = "".join(b.call("mean", [x.text], axis=axes, keepdims=True))
    return b.bind(b.call("variance", [x.text, mean], axis=axes, keepdims=keep), dims)


def op_shape_values(b: Builder) -> Val:
    """shape_of -> take -> concatenate -> dyn.reshape (spec §3.7): (d0, -1) from x's own shape."""
    x = b.pick(has_rank(2, 4))
    shape = b.bind(b.call("shape_of", [x.text]), (Dim.const(x.rank),), "int64", shape_value=x.dims)
    first = b.bind(b.call("take", [shape.text, "0i64"], axis=0), (), "int64")
    target = b.bind(
        b.call("concatenate", [f"(expand_dims({first.text}, axis=0), expand_dims(-1i64, axis=0))"]),
        (Dim.const(2),),
        "int64",
    )
    b.program.ops.append("expand_dims")
    return b.bind(b.call("dyn.reshape", [x.text, target.text]), (x.dims[0], dim_product(x.dims[1:])))


def op_chosen_shape(b: Builder) -> Val:
    """`dyn.zeros(if (%c) { shape_of(%x) } else { shape_of(%y) })`: the join of two shape values
    keeps, element by element, what the branches share (`[n, 4..5]`, spec §3.4 and 3.7; it was
    no value at all, so the result lost even the dims both shapes have)."""
    x = b.pick(has_rank(1, 3))
    others = b.values(lambda v: v is not x and v.rank == x.rank and v.dims is not None)
    y = b.draw.choice(others) if others else x
    taken = b.draw.chance(50)
    cond = b.new_param([], "bool", data=np.array(taken), prefix="c")
    name = b.fresh_name("s")
    b.block.stmts.append([f"%{name} = if (", cond.text, f") {{ shape_of({x.text}) }} else {{ shape_of({y.text}) }};"])
    b.program.ops.append("shape_of")
    b.program.data_dependent = True
    b.program.features.add("chosen-shape")
    chosen = x if taken else y
    dims = tuple(
        d if d.value == e.value and str(d.form) == str(e.form) else Dim(c.value, DYNAMIC, None)
        for d, e, c in zip(x.dims, y.dims, chosen.dims)
    )
    return b.bind(b.call("dyn.zeros", [f"%{name}"], dtype="float32"), dims, "float32")


def op_reshape_back(b: Builder) -> Optional[Val]:
    """Flatten x, then dyn.reshape it back to shape_of(x)."""
    x = b.pick(lambda v: 1 <= v.rank <= 3 and all(d.value for d in v.dims))
    if not all(d.value for d in x.dims):
        return None  # a 0 entry of dyn.reshape copies the input's dim (Relay's code 0), which a flat input lacks
    flat = b.bind(b.call("reshape", [x.text], newshape=[-1]), (dim_product(x.dims),), plain=True)
    return b.bind(b.call("dyn.reshape", [flat.text, "".join(b.call("shape_of", [x.text]))]), x.dims)


def op_arange(b: Builder) -> Val:
    """arange up to a dim read from a shape value, less c, by a step above c: its length is
    (d - c + step - 1) // step, which never needs max(0, ...) (an unfold's patch starts)."""
    x = b.pick(has_rank(1, 3))
    axis = b.draw.int(0, x.rank - 1)
    step = b.draw.int(1, 4)
    less = b.draw.int(0, step - 1)
    stop = "".join(b.call("take", ["".join(b.call("shape_of", [x.text])), f"{axis}i64"], axis=0))
    if less:
        stop = "".join(b.call("subtract", [stop, f"{less}i64"]))
    length = lift(lambda d: (d + (step - 1 - less)) // step, x.dims[axis]) if step > 1 or less else x.dims[axis]
    return b.bind(b.call("arange", ["0i64", stop, f"{step}i64"], dtype="float32"), (length,))


def op_crop_back(b: Builder) -> Val:
    """nn.pad along an axis, then onnx.slice back to the dim read from x's shape (a causal
    conv's `[..., :seq]`): the end never passes the padded dim, so the length is the dim."""
    x = b.pick(has_rank(1, 3))
    axis = b.draw.int(0, x.rank - 1)
    grow = b.draw.int(1, 3)
    widths = [[0, grow] if i == axis else [0, 0] for i in range(x.rank)]
    padded = b.bind(
        b.call("nn.pad", [x.text, "0f"], pad_width=widths),
        tuple(dim_add(d, Dim.const(grow)) if i == axis else d for i, d in enumerate(x.dims)),
    )
    end = "".join(b.call("strided_slice", ["".join(b.call("shape_of", [x.text]))], begin=[axis], end=[axis + 1]))
    one = 'onnx.constant(values=[{}], shape=[1], dtype="int64")'
    return b.bind(b.call("onnx.slice", [padded.text, one.format(0), end, one.format(axis), one.format(1)]), x.dims)


def op_size_extremes(b: Builder) -> Val:
    """dyn.zeros of minimum / maximum of a dim and a constant or its half, read as shape values."""
    x = b.pick(has_rank(1, 3))
    d = x.dims[b.draw.int(0, x.rank - 1)]
    axis = x.dims.index(d)
    size = "".join(b.call("take", ["".join(b.call("shape_of", [x.text])), f"{axis}i64"], axis=0))
    smaller = b.draw.chance(50)
    if b.draw.chance(50):
        other = "".join(b.call("floor_divide", [size, "2i64"]))
        dim = lift(lambda v: v // 2, d) if smaller else d
    else:
        k = b.draw.int(0, 5)
        other = f"{k}i64"
        dim = (
            Dim.const(min(d.value, k) if smaller else max(d.value, k))
            if d.is_const
            else Dim(min(d.value, k) if smaller else max(d.value, k), DYNAMIC, None)
        )
    picked = "".join(b.call("minimum" if smaller else "maximum", [size, other]))
    b.program.ops.append("expand_dims")
    return b.bind(b.call("dyn.zeros", [f"expand_dims({picked}, axis=0)"], dtype="float32"), (dim,))


def op_rank_branch(b: Builder) -> Val:
    """`if` on x's rank against a constant (TorchScript's `If(Size(Shape(x)) == 0)`): the
    checker knows the condition, so the result has the taken branch's type, x's; the other
    branch flattens x (a join would be dynamic rank)."""
    x = b.pick(has_rank(1, 3))
    k = x.rank if b.draw.chance(50) else b.draw.choice([0, 4])
    rank = "".join(b.call("ndarray_size", ["".join(b.call("shape_of", [x.text]))], dtype="int64"))
    cond = "".join(b.call("equal", [rank, f"{k}i64"]))
    flat = "".join(b.call("reshape", [x.text], newshape=[-1]))
    then, other = (x.text, flat) if k == x.rank else (flat, x.text)
    b.program.features.add("if")
    return b.bind([f"if ({cond}) {{ {then} }} else {{ {other} }}"], x.dims)


def op_values_tile_narrow(b: Builder) -> Val:
    """onnx.tile by repeats read as shape values (`y.repeat(1, x.shape[1], 1)`), onnx.slice
    between two shape values (`x.narrow(1, t // q, t // h)`) or onnx.split_sizes by them (the
    halves of `x.split([t // 2, t - t // 2], 1)` swapped back together), as both ONNX exporters
    write them: the checker once gave all three `?` (outside9)."""
    x = b.pick(has_rank(1, 3))
    axis = b.draw.int(0, x.rank - 1)
    shape = "".join(b.call("shape_of", [x.text]))
    one = 'onnx.constant(values=[{}], shape=[1], dtype="int64")'
    dims = list(x.dims)
    if b.draw.chance(50):
        other = b.draw.int(0, x.rank - 1)
        size = "".join(b.call("strided_slice", [shape], begin=[other], end=[other + 1], axes=[0]))
        parts = [size if i == axis else one.format(1) for i in range(x.rank)]
        reps = "".join(b.call("concatenate", ["(" + ", ".join(parts) + ("," if x.rank == 1 else "") + ")"], axis=0))
        dims[axis] = dim_mul(x.dims[axis], x.dims[other])
        return b.bind(b.call("onnx.tile", [x.text, reps]), tuple(dims))
    size = "".join(b.call("strided_slice", [shape], begin=[axis], end=[axis + 1], axes=[0]))
    if b.draw.chance(33):
        half = "".join(b.call("divide", [size, one.format(2)]))
        sizes = "".join(b.call("concatenate", [f"({half}, " + "".join(b.call("subtract", [size, half])) + ")"], axis=0))
        low, high = lift(lambda d: d // 2, x.dims[axis]), lift(lambda d: d - d // 2, x.dims[axis])
        fields = tuple(Val("", x.dims[:axis] + (d,) + x.dims[axis + 1 :]) for d in (low, high))
        parts = b.bind(b.call("onnx.split_sizes", [x.text, sizes], num_outputs=2, axis=axis), None, fields=fields)
        b.program.features.add("tuple")
        return b.bind(b.call("concatenate", [f"({parts.text}.1, {parts.text}.0)"], axis=axis), x.dims)
    q, h = b.draw.choice([(4, 2), (3, 2), (2, 2), (3, 3)])
    start = "".join(b.call("divide", [size, one.format(q)]))
    end = "".join(b.call("add", [start, "".join(b.call("divide", [size, one.format(h)]))]))
    dims[axis] = lift(lambda d: d // h, x.dims[axis])
    return b.bind(b.call("onnx.slice", [x.text, start, end, one.format(axis), one.format(1)]), tuple(dims))


def op_resize_to_values(b: Builder) -> Val:
    """onnx.resize to sizes read as shape values (`F.interpolate(x, size=skip.shape[-2:])`):
    the image's own spatial dims, doubled or kept."""
    x = image(b)
    scale = b.draw.int(1, 2)
    shape = "".join(b.call("shape_of", [x.text]))
    lead = "".join(b.call("strided_slice", [shape], begin=[0], end=[2], axes=[0]))
    tail = "".join(
        b.call("multiply", ["".join(b.call("strided_slice", [shape], begin=[2], end=[4], axes=[0])), f"{scale}i64"])
    )
    sizes = "".join(b.call("concatenate", [f"({lead}, {tail})"], axis=0))
    empty = 'onnx.constant(values=[], shape=[0], dtype="float32")'
    dims = x.dims[:2] + tuple(dim_scale(d, scale) if scale > 1 else d for d in x.dims[2:])
    return b.bind(
        b.call(
            "onnx.resize",
            [x.text, empty, empty, sizes],
            mode="nearest",
            coordinate_transformation_mode="asymmetric",
            nearest_mode="floor",
            cubic_coeff_a=-0.75,
            exclude_outside=False,
            extrapolation_value=0.0,
            keep_aspect_ratio_policy="stretch",
            antialias=False,
        ),
        dims,
    )


def op_argwhere(b: Builder) -> Val:
    """argwhere of a tensor of ones: numel rows (data-dependent for the checker)."""
    x = b.pick(has_rank(1, 2))
    b.program.data_dependent = True
    rows = Dim(dim_product(x.dims).value, DYNAMIC, None)
    found = b.bind(b.call("argwhere", ["".join(b.call("ones_like", [x.text]))]), (rows, Dim.const(x.rank)), "int64")
    return b.bind(b.call("cast", [found.text], dtype="float32"), found.dims)


def op_topk(b: Builder) -> Val:
    """topk values along the last axis."""
    x = b.pick(has_rank(1, 3))
    k = b.draw.int(1, x.dims[-1].value) if x.dims[-1].value > 0 else 0
    dims = x.dims[:-1] + (Dim.const(k) if k else x.dims[-1],)  # k < 1 selects every element
    return b.bind(b.call("topk", [x.text], k=k, ret_type="values"), dims)


def op_one_hot(b: Builder) -> Val:
    """one_hot of an index vector parameter."""
    j = b.fresh(b.size())
    idx = b.new_param([j], "int32", prefix="i")
    depth = b.draw.int(1, 4)
    return b.bind(b.call("one_hot", [idx.text, "1f", "0f"], depth=depth), (j, Dim.const(depth)))


def op_create(b: Builder) -> Val:
    """zeros / ones / full of a static shape."""
    shape = [b.draw.int(1, 3) for _ in range(b.draw.int(0, 3))]
    op = b.draw.choice(["zeros", "ones", "full"])
    args = ["2f"] if op == "full" else []
    return b.bind(b.call(op, args, shape=shape), tuple(Dim.const(s) for s in shape))


def op_broadcast_to(b: Builder) -> Optional[Val]:
    """broadcast_to a static shape (static inputs only)."""
    x = b.pick(lambda v: v.rank <= 3 and all(d.form.is_static for d in v.dims))
    if not all(d.form.is_static for d in x.dims):
        return None
    target = [b.draw.int(1, 3)] + [d.value if d.value != 1 else b.draw.int(1, 3) for d in x.dims]
    return b.bind(b.call("broadcast_to", [x.text], shape=target), tuple(Dim.const(t) for t in target))


def op_cast_roundtrip(b: Builder) -> Val:
    """cast to int32 and back to float32."""
    x = b.pick()
    inner = "".join(b.call("cast", [x.text], dtype="int32"))
    return b.bind(b.call("cast", [inner], dtype="float32"), x.dims)


def op_bitwise(b: Builder) -> Val:
    """Bit operations on int32 casts of two broadcasting float32 values, cast back."""
    x = b.pick()
    y = partner(b, x)
    lhs = "".join(b.call("cast", [x.text], dtype="int32"))
    rhs = "".join(b.call("cast", [y.text], dtype="int32"))
    op = b.draw.choice(BITWISE + ["bitwise_not"])
    bits = "".join(b.call(op, [lhs] if op == "bitwise_not" else [lhs, rhs]))
    dims = x.dims if op == "bitwise_not" else broadcast_result(x.dims, y.dims)
    return b.bind(b.call("cast", [bits], dtype=FLOAT), dims)


def op_special_values(b: Builder) -> Val:
    """`where(isfinite(x), x, zeros_like(x))` and the other predicates on special values."""
    x = b.pick()
    test = "".join(b.call(b.draw.choice(PREDICATES), [x.text]))
    return b.bind(b.call("where", [test, x.text, "".join(b.call("zeros_like", [x.text]))]), x.dims)


def op_user_cast(b: Builder) -> Val:
    """`%x as T` with T the value's forms, some dims `?`: a cast that always holds. Its type
    keeps what the checker knew of x (a cast to `?` forgets nothing)."""
    x = b.pick()
    dims = tuple(d if d.form.is_exact and b.draw.chance(60) else Dim(d.value, DYNAMIC, d.outer) for d in x.dims)
    slot = b.slot("cast", dims, x.dtype)
    b.program.features.add("cast")
    return b.bind([x.text, " as ", slot], x.dims)


def op_logical(b: Builder) -> Val:
    """Boolean algebra on comparisons, then `where`."""
    x = b.pick()
    y = partner(b, x)
    z = partner(b, x, broadcast_result(x.dims, y.dims))
    left = "".join(b.call(b.draw.choice(COMPARE), [x.text, y.text]))
    right = "".join(b.call(b.draw.choice(COMPARE), [x.text, z.text]))
    dims_l, dims_r = broadcast_result(x.dims, y.dims), broadcast_result(x.dims, z.dims)
    op = b.draw.choice(["logical_and", "logical_or", "logical_xor", "logical_not"])
    if op == "logical_not":
        cond = b.bind(b.call(op, [left]), dims_l, "bool", plain=True)
        return b.bind(b.call("where", [cond.text, x.text, y.text]), dims_l)
    cond = b.bind(b.call(op, [left, right]), broadcast_result(dims_l, dims_r), "bool", plain=True)
    return b.bind(b.call("where", [cond.text, x.text, z.text]), broadcast_result(cond.dims, dims_r))


def op_dyn_creation(b: Builder) -> Val:
    """dyn.zeros / dyn.ones / dyn.full / dyn.broadcast_to of a shape read with shape_of."""
    x = b.pick(has_rank(0, 3))
    shape = "".join(b.call("shape_of", [x.text]))
    op = b.draw.choice(["dyn.zeros", "dyn.ones", "dyn.full", "dyn.broadcast_to"])
    if op == "dyn.full":
        return b.bind(b.call(op, ["3f", shape], dtype="float32"), x.dims, FLOAT)
    if op == "dyn.broadcast_to":
        y = b.new_param([Dim.const(1) if b.draw.chance(50) else d for d in x.dims[b.draw.int(0, x.rank) :]])
        return b.bind(b.call(op, [y.text, shape]), x.dims)
    return b.bind(b.call(op, [shape], dtype="float32"), x.dims, FLOAT)


SIGNED_STEPS = ("power", "mod", "floor_divide", "divide", "multiply", "none")


def op_signed_values(b: Builder) -> Val:
    """Shape values that go negative on the way (`k - shape_of(x)`), through power, mod,
    floor_divide, divide or a negative factor, then into dyn.zeros / dyn.ones / dyn.full
    (shifted to sizes on the intended inputs) or into arange (an empty range where it is past
    the end). The generator does not predict the types (tracing checks them): the result is
    bound with new existential names."""
    x = b.pick(has_rank(1, 3))
    k = b.draw.int(0, 5)
    shape = "".join(b.call("shape_of", [x.text]))
    sizes = np.array(x.shape, dtype=np.int64)
    expr, vals = (
        (f"subtract({k}i64, {shape})", k - sizes) if b.draw.chance(50) else (f"subtract({shape}, {k}i64)", sizes - k)
    )
    b.program.ops.append("subtract")
    expr, vals = _signed_step(b, expr, vals, b.draw.choice(SIGNED_STEPS))
    b.program.features.add("signed-value")
    b.program.data_dependent = True  # the checker may know these sizes only at runtime
    if b.draw.chance(30):  # a range to the value, or from it (empty where it is past the end)
        axis = b.draw.int(0, x.rank - 1)
        v = "".join(b.call("take", [expr, f"{axis}i64"], axis=0))
        if b.draw.chance(50):
            start, stop, length = "0i64", v, max(0, int(vals[axis]))
        else:
            end = b.draw.int(-2, 5)
            start, stop, length = v, f"{end}i64", max(0, end - int(vals[axis]))
        return b.bind_opaque(b.call("arange", [start, stop, "1i64"], dtype="float32"), [length])
    shift = max(0, -int(vals.min()))
    if shift:
        expr, vals = "".join(b.call("add", [expr, f"{shift}i64"])), vals + shift
    op = b.draw.choice(["dyn.zeros", "dyn.ones", "dyn.full"])
    args = ["3f", expr] if op == "dyn.full" else [expr]
    return b.bind_opaque(b.call(op, args, dtype="float32"), [int(v) for v in vals], FLOAT)


def _signed_step(b: Builder, expr: str, vals: np.ndarray, step: str) -> tuple:
    """One arithmetic step on a shape value, as the kernels compute it on the intended inputs
    (NumPy's floor_divide; Relay's truncating divide and mod)."""
    if step == "none":
        return expr, vals
    m = b.draw.int(1, 3)
    if step == "power":
        return "".join(b.call("power", [expr, "2i64"])), vals**2
    if step == "mod":
        return "".join(b.call("mod", [expr, f"{m}i64"])), np.fmod(vals, m)
    if step == "floor_divide":
        return "".join(b.call("floor_divide", [expr, f"{m}i64"])), vals // m
    if step == "divide":
        return "".join(b.call("divide", [expr, f"{m}i64"])), np.sign(vals) * (np.abs(vals) // m)
    return "".join(b.call("multiply", [expr, f"-{m}i64"])), vals * -m


def op_reshape_like(b: Builder) -> Val:
    """Flatten x, then reshape_like it back to x."""
    x = b.pick(has_rank(1, 3))
    flat = b.bind(b.call("reshape", [x.text], newshape=[-1]), (dim_product(x.dims),), plain=True)
    return b.bind(b.call("reshape_like", [flat.text, x.text]), x.dims)


def op_sizes(b: Builder) -> Val:
    """ndarray_size of a value and unique of a vector of ones (its values padded to the
    vector's length, as Relay's)."""
    x = b.pick(has_rank(1, 2))
    size = "".join(b.call("ndarray_size", [x.text]))
    flat = "".join(b.call("reshape", ["".join(b.call("ones_like", [x.text]))], newshape=[-1]))
    parts = b.bind(b.call("unique", [flat]), None, fields=())
    b.program.features.add("tuple")
    count = dim_product(x.dims)
    first = b.bind([f"{parts.text}.0"], (count,))
    return b.bind(b.call("add", [first.text, f'cast({size}, dtype="float32")']), (count,))


def op_tuple(b: Builder) -> Val:
    """`let %t = (%a, %b);` then a projection."""
    a, c = b.pick(), b.pick()
    t = b.bind([f"({a.text}, {c.text})"], None, fields=(a, c))
    b.program.features.add("tuple")
    i = b.draw.int(0, 1)
    return b.bind([f"{t.text}.{i}"], (a, c)[i].dims)


def op_reference(b: Builder) -> Val:
    """A reference cell holding x, updated in place (directly, or by a closure, as Relay's
    gradients do) with values of x's shape, then read: `let %r[: ref(T)] = ref(%x); ...`.
    The annotation (a slot, so variants relax it) may leave dims `?`: writes through it are
    then checked against the cell, and hold."""
    x = b.pick()
    name = b.fresh_name("r")
    if b.draw.chance(40):
        dims = tuple(d if d.form.is_exact and b.draw.chance(60) else Dim(d.value, DYNAMIC, d.outer) for d in x.dims)
        slot = b.slot("cast", dims, x.dtype)
        b.block.stmts.append([f"let %{name}: ref(", slot, f") = ref({x.text});"])
    else:
        b.block.stmts.append([f"let %{name} = ref({x.text});"])
    update = "".join(b.call(b.draw.choice(["negative", "nn.relu", "copy"]), [f"ref_read(%{name})"]))
    if b.draw.chance(50):
        step = b.fresh_name("f")
        b.block.stmts.append([f"let %{step} = fn () {{ ref_write(%{name}, add({update}, {x.text})) }};"])
        b.block.stmts.append([f"let %{b.fresh_name('u')} = %{step}();"])
        b.program.features.add("closure")
    else:
        b.block.stmts.append([f"let %{b.fresh_name('u')} = ref_write(%{name}, {update});"])
    b.program.features.add("reference")
    return b.bind([f"ref_read(%{name})"], x.dims, x.dtype)


def op_like(b: Builder) -> Val:
    """broadcast_to_like of a new parameter that broadcasts to x, collapse_sum_like of x to one,
    slice_like of x to static dims it holds, or cast_like of x's int32 cast back to x."""
    x = b.pick()
    kind = b.draw.int(0, 3)
    if kind == 0:
        source = b.new_param(_broadcasting_to(b, x.dims), x.dtype)
        return b.bind(b.call("broadcast_to_like", [source.text, x.text]), x.dims)
    if kind == 1:
        like = b.new_param(_broadcasting_to(b, x.dims), x.dtype)
        return b.bind(b.call("collapse_sum_like", [x.text, like.text]), like.dims)
    if kind == 2 and x.rank >= 1:
        axes = sorted({b.draw.int(0, x.rank - 1) for _ in range(b.draw.int(1, x.rank))})
        like_dims = [
            Dim.const(b.draw.int(1, d.value)) if i in axes and d.value >= 1 else d for i, d in enumerate(x.dims)
        ]
        like = b.new_param(like_dims, "int32", prefix="s")
        dims = tuple(like_dims[i] if i in axes else d for i, d in enumerate(x.dims))
        return b.bind(b.call("slice_like", [x.text, like.text], axes=axes), dims)
    inner = "".join(b.call("cast", [x.text], dtype="int32"))
    return b.bind(b.call("cast_like", [inner, x.text]), x.dims)


def _broadcasting_to(b: Builder, dims: tuple) -> list:
    """Dims that broadcast to `dims`: each aligned dim kept or 1, maybe fewer of them."""
    kept = [d if b.draw.chance(60) else Dim.const(1) for d in dims]
    return kept[b.draw.int(0, len(kept)) :] if kept and b.draw.chance(25) else kept


def op_sort(b: Builder) -> Val:
    """sort, argsort (cast back to the float dtype) or dyn.topk with a literal k."""
    x = b.pick(has_rank(1, 3))
    axis = b.draw.int(-x.rank, x.rank - 1)
    kind = b.draw.int(0, 2)
    if kind == 0:
        return b.bind(b.call("sort", [x.text], axis=axis, is_ascend=b.draw.chance(50)), x.dims)
    if kind == 1:
        order = "".join(b.call("argsort", [x.text], axis=axis, dtype="int32"))
        return b.bind(b.call("cast_like", [order, x.text]), x.dims)
    size = x.dims[axis].value
    if size < 1:
        return b.bind(b.call("sort", [x.text], axis=axis), x.dims)
    k = b.draw.int(1, size)
    dims = list(x.dims)
    dims[axis] = Dim.const(k)
    return b.bind(b.call("dyn.topk", [x.text, f"{k}i64"], axis=axis, ret_type="values"), tuple(dims))


def op_reverse_reshape(b: Builder) -> Val:
    """contrib_reverse_reshape keeping the last dim and merging the rest (codes read from the right)."""
    x = b.pick(has_rank(2, 4))
    return b.bind(b.call("contrib_reverse_reshape", [x.text], newshape=[-1, 0]), (dim_product(x.dims[:-1]), x.dims[-1]))


QNN_UNARY = [
    "qnn.sqrt",
    "qnn.rsqrt",
    "qnn.exp",
    "qnn.erf",
    "qnn.sigmoid",
    "qnn.tanh",
    "qnn.log",
    "qnn.abs",
    "qnn.hardswish",
]
QNN_BINARY = ["qnn.add", "qnn.subtract", "qnn.mul"]


def op_qnn(b: Builder) -> Val:
    """x quantized to int8, through one quantized operator, dequantized and cast back to x's
    dtype: requantize, a unary function, binary arithmetic, concatenate, dense or conv2d."""
    x = b.pick()
    q = "".join(b.call("qnn.quantize", [x.text, "0.5f", "1"], out_dtype="int8"))
    params = ["0.5f", "1"]
    kind = b.draw.int(0, 7)
    dims = x.dims
    if kind == 0:
        inner = b.call("qnn.requantize", [q] + params + ["0.25f", "0"], out_dtype="int8")
    elif kind == 1:
        inner = [q]
        for _ in range(3):
            inner = b.call(b.draw.choice(QNN_UNARY), ["".join(inner)] + params * 2)
    elif kind == 2:
        inner = b.call(b.draw.choice(QNN_BINARY), [q, q] + params * 3)
    elif kind == 3 and x.rank >= 1:
        axis = b.draw.int(0, x.rank - 1)
        inner = b.call("qnn.concatenate", [f"({q}, {q})", "(0.5f, 0.5f)", "(1, 1)"] + params, axis=axis)
        dims = tuple(dim_scale(d, 2) if i == axis else d for i, d in enumerate(x.dims))
    elif kind == 4 and 1 <= x.rank <= 3:
        u = b.fresh(b.size())
        w = b.new_param([u, x.dims[-1]], "int8")
        inner = b.call("qnn.dense", [q, w.text, "1", "0", "0.5f", "0.5f"], out_dtype="int32")
        inner = b.call("qnn.requantize", ["".join(inner), "0.25f", "0", "0.5f", "1"], out_dtype="int8")
        dims = x.dims[:-1] + (u,)
    elif kind >= 5 and x.rank == 4 and min(d.value for d in x.dims[2:]) >= 1:
        n, c, h, w = x.dims
        out_c = b.fresh(b.size(1, 3))
        op, wdims, dims = "qnn.conv2d", [out_c, c, Dim.const(1), Dim.const(1)], (n, out_c, h, w)
        if kind == 6:
            op, wdims = "qnn.conv2d_transpose", [c, out_c, Dim.const(1), Dim.const(1)]
        weight = b.new_param(wdims, "int8")
        inner = b.call(op, [q, weight.text, "1", "0", "0.5f", "0.5f"], out_dtype="int32")
        inner = b.call("qnn.requantize", ["".join(inner), "0.25f", "0", "0.5f", "1"], out_dtype="int8")
    elif kind >= 5 and x.rank == 3:
        m = b.fresh(b.size())
        y = b.new_param([x.dims[0], m, x.dims[2]], "int8")
        inner = b.call("qnn.batch_matmul", [q, y.text, "1", "0", "0.5f", "0.5f"], out_dtype="int32", transpose_b=True)
        inner = b.call("qnn.requantize", ["".join(inner), "0.25f", "0", "0.5f", "1"], out_dtype="int8")
        dims = (x.dims[0], x.dims[1], m)
    else:
        inner = b.call("qnn.requantize", [q] + params * 2, out_dtype="int8")
    real = "".join(b.call("qnn.dequantize", ["".join(inner)] + params))
    return b.bind(b.call("cast_like", [real, x.text]), dims, x.dtype)


def op_upsampling(b: Builder) -> Val:
    """nn.upsampling / nn.upsampling3d by whole scales (exact dims), or dyn.nn.upsampling by
    scalar tensors (unknown dims)."""
    if b.draw.chance(30):
        x = volume(b, 3)
        scales = [b.draw.int(1, 2) for _ in range(3)]
        dims = x.dims[:2] + tuple(dim_scale(d, k) for d, k in zip(x.dims[2:], scales))
        if b.program.allow_data_dependent and b.draw.chance(30):
            b.program.data_dependent = True
            unknown = x.dims[:2] + tuple(Dim(d.value, DYNAMIC, None) for d in dims[2:])
            return b.bind(b.call("dyn.nn.upsampling3d", [x.text] + [f"{float(k)}f" for k in scales]), unknown)
        return b.bind(
            b.call(
                "nn.upsampling3d",
                [x.text],
                scale_d=float(scales[0]),
                scale_h=float(scales[1]),
                scale_w=float(scales[2]),
            ),
            dims,
        )
    x = image(b)
    sh, sw = b.draw.int(1, 3), b.draw.int(1, 2)
    dims = x.dims[:2] + (dim_scale(x.dims[2], sh), dim_scale(x.dims[3], sw))
    if b.program.allow_data_dependent and b.draw.chance(30):
        b.program.data_dependent = True
        unknown = x.dims[:2] + tuple(Dim(d.value, DYNAMIC, None) for d in dims[2:])
        return b.bind(
            b.call("dyn.nn.upsampling", [x.text, f"{float(sh)}f", f"{float(sw)}f"], method="bilinear"), unknown
        )
    method = b.draw.choice(["nearest_neighbor", "bilinear", "bicubic"])
    return b.bind(b.call("nn.upsampling", [x.text], scale_h=float(sh), scale_w=float(sw), method=method), dims)


def op_blocks(b: Builder) -> Val:
    """layout_transform to NHWC and back, depth_to_space or space_to_depth (Relay's floor)."""
    x = image(b)
    n, c, h, w = x.dims
    kind = b.draw.int(0, 2)
    if kind == 0:
        inner = "".join(b.call("layout_transform", [x.text], src_layout="NCHW", dst_layout="NHWC"))
        return b.bind(b.call("layout_transform", [inner], src_layout="NHWC", dst_layout="NCHW"), x.dims)
    k = b.draw.int(1, 2)
    if kind == 1:
        dims = (n, lift(lambda v: v // (k * k), c), dim_scale(h, k), dim_scale(w, k))
        return b.bind(b.call("nn.depth_to_space", [x.text], block_size=k, mode=b.draw.choice(["DCR", "CRD"])), dims)
    dims = (n, dim_scale(c, k * k), lift(lambda v: v // k, h), lift(lambda v: v // k, w))
    return b.bind(b.call("nn.space_to_depth", [x.text], block_size=k), dims)


def op_matrix(b: Builder) -> Val:
    """matrix_set_diag of a matrix (or batch of them) with static sizes, nll_loss against
    argmax's classes, or einsum of the rows' products."""
    x = b.pick(
        lambda v: v.rank >= 2 and v.dims[-1].form.is_static and v.dims[-2].form.is_static,
        lambda: b.new_param([b.fresh(b.size())] + [Dim.const(b.size()) for _ in range(2)]),
    )
    if b.draw.chance(50) and x.rank == 2:
        weights = b.new_param([x.dims[1]])
        classes = "".join(b.call("argmax", [x.text], axis=[1]))
        return b.bind(b.call("nn.nll_loss", [x.text, classes, weights.text], reduction="none"), (x.dims[0],))
    if b.draw.chance(25):  # the rows' pairwise products, batched over the leading dims
        product = b.call("einsum", [f"({x.text}, {x.text})"], equation="...ab,...cb->...ac")
        return b.bind(product, x.dims[:-1] + (x.dims[-2],))
    m, n = x.dims[-2].value, x.dims[-1].value
    diagonal = b.new_param(list(x.dims[:-2]) + [Dim.const(min(m, n))])
    return b.bind(b.call("matrix_set_diag", [x.text, diagonal.text]), x.dims)


def op_sparse(b: Builder) -> Val:
    """The sparse operators on the coordinates of every element (argwhere of ones): sparse_to_dense
    back to the dense shape, sparse_reshape to a vector, sparse_fill_empty_rows, unravel_index."""
    x = b.pick(has_rank(1, 2))
    b.program.data_dependent = True
    coords = "".join(b.call("argwhere", ["".join(b.call("ones_like", [x.text]))]))
    shape = "".join(b.call("shape_of", [x.text]))
    total = dim_product(x.dims)
    kind = b.draw.int(0, 3)
    if kind == 0:
        flat = "".join(b.call("reshape", [x.text], newshape=[-1]))
        if all(d.form.is_static for d in x.dims) and b.draw.chance(80):
            static = [d.value for d in x.dims]  # indices within the static shape, whatever x's size at runtime
            grid = "".join(b.call("argwhere", ["".join(b.call("ones", [], shape=static))]))
            dense = "".join(b.call("sparse_to_dense", [grid, flat, "0f"], output_shape=static))
        else:
            dense = "".join(b.call("dyn.sparse_to_dense", [coords, flat, "0f", shape]))
        return b.bind(b.call("cast_like", [dense, x.text]), x.dims)
    if kind == 1:
        vector = "".join(b.call("shape_of", ["".join(b.call("reshape", [x.text], newshape=[-1]))]))
        parts = b.bind(b.call("sparse_reshape", [coords, shape, vector]), None, fields=())
        return b.bind(b.call("cast", [f"{parts.text}.1"], dtype=b.dtype), (Dim.const(1),))
    if kind == 2 and x.rank == 2:
        values = "".join(b.call("reshape", ["".join(b.call("ones_like", [x.text]))], newshape=[-1]))
        parts = b.bind(b.call("sparse_fill_empty_rows", [coords, values, shape, "ones(shape=[1])"]), None, fields=())
        b.program.ops.append("ones")
        filled = total.value or x.dims[0].value  # a (r, 0) input: every row is empty, and each gets one value
        return b.bind(b.call("cast", [f"{parts.text}.1"], dtype=b.dtype), (Dim(filled, DYNAMIC, None),))
    index = "".join(b.call("reshape", [coords], newshape=[-1]))
    out = "".join(b.call("unravel_index", [index, shape]))
    return b.bind(b.call("cast", [out], dtype=b.dtype), (Dim.const(x.rank), Dim(total.value * x.rank, DYNAMIC, None)))


def op_dyn_window(b: Builder) -> Val:
    """dyn.strided_slice over the whole of x, or dyn.nn.pad by zeros: tensors the checker cannot
    read, so every dim is unknown until the run."""
    x = b.pick(has_rank(1, 3))
    b.program.data_dependent = True
    unknown = tuple(Dim(d.value, DYNAMIC, None) for d in x.dims)
    if b.draw.chance(50):
        begin = "".join(b.call("zeros", [], shape=[x.rank], dtype="int64"))
        step = "".join(b.call("ones", [], shape=[x.rank], dtype="int64"))
        end = "".join(b.call("shape_of", [x.text]))
        return b.bind(b.call("dyn.strided_slice", [x.text, begin, end, step]), unknown)
    widths = "".join(b.call("zeros", [], shape=[x.rank, 2], dtype="int64"))
    return b.bind(b.call("dyn.nn.pad", [x.text, widths, "0f"]), unknown)


def op_dyn_attrs(b: Builder) -> Val:
    """dyn.tile, dyn.squeeze and dyn.one_hot with their tensor operand a shape value (of a
    constant, or of x): known values give the static operator's dims; x's own symbolic dims as
    tile repeats give unknown ones (data-dependent)."""
    x = b.pick(lambda v: 1 <= v.rank <= 3 and v.dtype == b.dtype)
    kind = b.draw.int(0, 2)
    if kind == 0 and b.program.allow_data_dependent and b.draw.chance(50):
        b.program.data_dependent = True
        reps = "".join(b.call("shape_of", [x.text]))
        dims = tuple(Dim(d.value * d.value, DYNAMIC, None) for d in x.dims)
        return b.bind(b.call("dyn.tile", [x.text, reps]), dims)
    if kind == 0:
        reps = "".join(b.call("shape_of", ["".join(b.call("zeros", [], shape=[1] * x.rank))]))
        return b.bind(b.call("dyn.tile", [x.text, reps]), x.dims)
    if kind == 1:
        wide = "".join(b.call("expand_dims", [x.text], axis=0))
        axes = "".join(b.call("shape_of", ["".join(b.call("zeros", [], shape=[0]))]))
        return b.bind(b.call("dyn.squeeze", [wide, axes]), x.dims)
    j = b.fresh(b.size())
    idx = b.new_param([j], "int32", prefix="i")
    axis = b.draw.int(0, x.rank - 1)
    depth = "".join(b.call("take", ["".join(b.call("shape_of", [x.text])), f"{axis}i64"], axis=0))
    return b.bind(b.call("dyn.one_hot", [idx.text, "1f", "0f", depth], dtype=FLOAT), (j, x.dims[axis]), FLOAT)


def op_bits(b: Builder) -> Val:
    """reinterpret to int32 and back, or fixed_point_multiply of an int32 cast (cast back)."""
    x = b.pick(lambda v: v.dtype == FLOAT)
    if b.draw.chance(50):
        bits = "".join(b.call("reinterpret", [x.text], dtype="int32"))
        return b.bind(b.call("reinterpret", [bits], dtype=FLOAT), x.dims, FLOAT)
    whole = "".join(b.call("cast", [x.text], dtype="int32"))
    scaled = "".join(b.call("fixed_point_multiply", [whole], multiplier=1073741824, shift=b.draw.int(-2, 2)))
    return b.bind(b.call("cast", [scaled], dtype=FLOAT), x.dims, FLOAT)


def op_annotation(b: Builder) -> Val:
    """annotation.checkpoint / stop_fusion / compiler_begin / compiler_end of x, or of a pair,
    projected; or on_device of x, placed as Relay prints it."""
    x = b.pick()
    if b.draw.chance(15):
        b.program.ops.append("on_device")
        placed = f"on_device({x.text}, virtual_device=VirtualDevice(device_type=1, virtual_device_id=0), constrain_result=True)"
        return b.bind([placed], x.dims, x.dtype)
    op = b.draw.choice(
        ["annotation.checkpoint", "annotation.stop_fusion", "annotation.compiler_begin", "annotation.compiler_end"]
    )
    attrs = {"compiler": "dnnl"} if "compiler" in op else {}
    if b.draw.chance(50):
        y = b.pick()
        pair = "".join(b.call(op, [f"({y.text}, {x.text})"], **attrs))
        return b.bind([f"{pair}.1"], x.dims, x.dtype)
    return b.bind(b.call(op, [x.text], **attrs), x.dims, x.dtype)


def op_relay_nn(b: Builder) -> Val:
    """nn.prelu (alpha along axis 1), nn.lrn, nn.l2_normalize, sequence_mask (valid lengths
    along the batch dim), or nn.cross_entropy(_with_logits) of two (batch, classes) values."""
    x = b.pick(lambda v: 2 <= v.rank <= 4 and v.dtype == b.dtype, lambda: b.fresh_param(b.draw.int(2, 4)))
    kind = b.draw.int(0, 4)
    if kind == 0:
        alpha = b.new_param([x.dims[1]], x.dtype)
        return b.bind(b.call("nn.prelu", [x.text, alpha.text]), x.dims)
    if kind == 1:
        return b.bind(b.call("nn.lrn", [x.text], size=b.draw.int(1, 3), axis=1), x.dims)
    if kind == 2:
        return b.bind(b.call("nn.l2_normalize", [x.text], eps=0.001, axis=[x.rank - 1]), x.dims)
    if kind == 3:
        axis = b.draw.int(0, 1)
        lengths = b.new_param([x.dims[1 - axis]], "int32", prefix="i")
        return b.bind(b.call("sequence_mask", [x.text, lengths.text], axis=axis), x.dims)
    flat = b.bind(b.call("reshape", [x.text], newshape=[0, -1]), (x.dims[0], dim_product(x.dims[1:])), plain=True)
    targets = b.new_param(flat.dims, x.dtype)
    op = b.draw.choice(["nn.cross_entropy", "nn.cross_entropy_with_logits"])
    return b.bind(b.call(op, [flat.text, targets.text]), ())


def op_relay_scatter_scan(b: Builder) -> Val:
    """Relay's scatters, scans and sequence operators on x, with indices that are zeros shaped
    so that every input size indexes validly (an empty dim gets no index)."""
    x = b.pick(has_rank(1, 3))
    zeros = "".join(b.call("cast", ["".join(b.call("zeros_like", [x.text]))], dtype="int64"))
    kind = b.draw.int(0, 11)
    if kind == 0:
        reduction = b.draw.choice(["update", "add", "max"])
        return b.bind(
            b.call("scatter_elements", [x.text, zeros, x.text], axis=b.draw.int(0, x.rank - 1), reduction=reduction),
            x.dims,
        )
    if kind == 1:
        x = b.pick(has_rank(1, 1), lambda: b.fresh_param(1))
        zeros = "".join(b.call("cast", ["".join(b.call("zeros_like", [x.text]))], dtype="int64"))
        rows = "".join(b.call("expand_dims", [zeros], axis=0))
        return b.bind(b.call("scatter_nd", [x.text, rows, x.text], mode=b.draw.choice(["update", "add"])), x.dims)
    if kind == 2:
        begin = "".join(b.call("zeros", [], shape=[x.rank], dtype="int32"))
        end = "".join(b.call("shape_of", [x.text], dtype="int32"))
        step = "".join(b.call("ones", [], shape=[b.draw.int(1, x.rank)], dtype="int32"))
        return b.bind(b.call("strided_set", [x.text, x.text, begin, end, step]), x.dims)
    if kind == 3 and x.rank <= 2:
        return b.bind(b.call("adv_index", [f"({x.text}, {zeros})"]), x.dims + x.dims[1:])
    if kind == 4:
        op = b.draw.choice(["cumsum", "cumprod"])
        if b.draw.chance(50):
            return b.bind(b.call(op, [x.text], exclusive=b.draw.chance(50)), (dim_product(x.dims),))
        return b.bind(b.call(op, [x.text], axis=b.draw.int(-x.rank, x.rank - 1)), x.dims)
    if kind == 5 and x.rank >= 2:
        lengths = b.new_param([x.dims[0]], "int32", prefix="i")
        return b.bind(b.call("reverse_sequence", [x.text, lengths.text], seq_axis=1, batch_axis=0), x.dims)
    if kind == 6 and x.rank >= 2:
        return b.bind(b.call("trilu", [x.text, f"{b.draw.int(-1, 1)}i64"], upper=b.draw.chance(50)), x.dims)
    if kind == 7:
        x = b.pick(lambda v: v.rank == 1 and v.dims[0].value >= 2, lambda: b.new_param([b.fresh(b.size(2, 5))]))
        n_fft = b.draw.int(1, min(3, x.dims[0].value))
        window = b.new_param([Dim.const(n_fft)])
        frames = lift(lambda v: (v - n_fft) // 1 + 1, x.dims[0])
        dims = (Dim.const(n_fft // 2 + 1), frames, Dim.const(2))
        return b.bind(b.call("stft", [x.text, window.text], n_fft=n_fft, hop_length=1, win_length=n_fft), dims)
    if kind == 8:
        sequence = b.new_param([b.fresh(b.size())])
        found = "".join(b.call("searchsorted", [sequence.text, x.text], right=b.draw.chance(50)))
        return b.bind(b.call("cast", [found], dtype=b.dtype), x.dims)
    if kind == 9 and x.rank == 1:
        other = b.pick(has_rank(1, 1), lambda: b.new_param([b.fresh(b.size())]))  # meshgrid takes vectors
        grids = b.bind(b.call("meshgrid", [f"({x.text}, {other.text})"]), None, fields=())
        b.program.features.add("tuple")
        return b.bind([f"{grids.text}.1"], (x.dims[0], other.dims[0]))
    if kind == 10:
        window = b.call("sliding_window", [x.text], axis=x.rank - 1, window_shape=[1], strides=[1])
        return b.bind(window, x.dims + (Dim.const(1),))
    if x.rank >= 2:
        target = "".join(b.call("shape_of", ["".join(b.call("sum", [x.text], axis=[0]))]))
        return b.bind(b.call("collapse_sum_to", [x.text, target]), x.dims[1:])
    return b.bind(b.call("cumsum", [x.text], axis=0), x.dims)


def op_relay_sampling(b: Builder) -> Val:
    """Relay's image sampling operators on an image: grid_sample at a new grid, affine_grid,
    a 1 x 1 dilation2d, crop_and_resize of one box per image, dyn.image.resize2d."""
    x = image(b)
    n, c, h, w = x.dims
    kind = b.draw.int(0, 4)
    if kind == 0:
        out = (b.fresh(b.size()), b.fresh(b.size()))
        grid = b.new_param([n, Dim.const(2), *out])
        method = b.draw.choice(["bilinear", "nearest", "bicubic"])
        return b.bind(b.call("image.grid_sample", [x.text, grid.text], method=method), (n, c, *out))
    if kind == 1:
        theta = b.new_param([b.fresh(b.size()), Dim.const(2), Dim.const(3)])
        return b.bind(
            b.call("image.affine_grid", [theta.text], target_shape=[2, 3]),
            (theta.dims[0], Dim.const(2), Dim.const(2), Dim.const(3)),
        )
    if kind == 2:
        weight = b.new_param([c, Dim.const(1), Dim.const(1)])
        return b.bind(b.call("image.dilation2d", [x.text, weight.text]), x.dims)
    if kind == 3:
        boxes = b.new_param([n, Dim.const(4)])
        first = "".join(
            b.call(
                "cast",
                ["".join(b.call("sum", ["".join(b.call("zeros_like", [x.text]))], axis=[1, 2, 3]))],
                dtype="int32",
            )
        )
        size = [b.size(), b.size()]
        crops = b.call("image.crop_and_resize", [x.text, boxes.text, first], crop_size=size)
        return b.bind(crops, (n, c, Dim.const(size[0]), Dim.const(size[1])))
    size = [b.size(), b.size()]
    target = "".join(b.call("shape_of", ["".join(b.call("zeros", [], shape=size))]))
    roi = "".join(b.call("zeros", [], shape=[4]))
    return b.bind(b.call("dyn.image.resize2d", [x.text, target, roi]), (n, c, Dim.const(size[0]), Dim.const(size[1])))


def op_relay_vision(b: Builder) -> Val:
    """Relay's vision operators on an image: roi_align / roi_pool of a region per image,
    yolo_reorg by 1, multibox_prior; multibox_transform_loc of the image's scores; the boxes
    get_valid_counts keeps, suppressed by non_max_suppression; all_class_non_max_suppression's
    kept scores; proposal's rows (as many as the batch asks)."""
    x = image(b)
    n, c, h, w = x.dims
    kind = b.draw.int(0, 7)
    if kind in (0, 1):
        # one region [0, 0, 0, 0, 0] per image: image 0 exists wherever a region does
        zeros = "".join(b.call("sum", ["".join(b.call("zeros_like", [x.text]))], axis=[1, 2, 3], keepdims=True))
        column = "".join(b.call("reshape", [zeros], newshape=[0, -1]))
        rois = "".join(b.call("tile", [column], reps=[1, 5]))
        size = [b.size(1, 3), b.size(1, 3)]
        if kind == 0:
            pooled = b.call("vision.roi_align", [x.text, rois], pooled_size=size, spatial_scale=0.5, sample_ratio=2)
        else:
            pooled = b.call("vision.roi_pool", [x.text, rois], pooled_size=size, spatial_scale=1.0)
        return b.bind(pooled, (n, c, Dim.const(size[0]), Dim.const(size[1])))
    if kind == 2:
        return b.bind(b.call("vision.yolo_reorg", [x.text], stride=1), x.dims)
    if kind == 3:
        sizes, ratios = [0.5, 1.0][: b.draw.int(1, 2)], [1.0, 2.0][: b.draw.int(1, 2)]
        per_cell = len(sizes) + len(ratios) - 1
        boxes = lift(lambda v: v * per_cell, dim_product((h, w)))
        prior = b.call("vision.multibox_prior", [x.text], sizes=sizes, ratios=ratios, clip=b.draw.chance(50))
        return b.bind(prior, (Dim.const(1), boxes, Dim.const(4)))
    # rows of six entries [class, score, x1, y1, x2, y2] per batch entry, one per image row
    rows = b.new_param([n, h, Dim.const(6)])
    if kind == 4:
        scores = b.new_param([n, c, h])
        locs = b.new_param([n, lift(lambda v: 4 * v, h)])
        anchors = b.new_param([Dim.const(1), h, Dim.const(4)])
        decoded = b.bind(
            b.call("vision.multibox_transform_loc", [scores.text, locs.text, anchors.text]), None, fields=()
        )
        b.program.features.add("tuple")
        return b.bind([f"{decoded.text}.0"], (n, h, Dim.const(6)))
    if kind == 5:
        valid = b.bind(b.call("vision.get_valid_counts", [rows.text, "0.5f"], score_index=1), None, fields=())
        b.program.features.add("tuple")
        args = [f"{valid.text}.1", f"{valid.text}.0", f"{valid.text}.2", "-1", "0.5f"]
        return b.bind(b.call("vision.non_max_suppression", args, return_indices=False), rows.dims)
    if kind == 6:
        corners = b.new_param([n, h, Dim.const(4)])
        scores = b.new_param([n, c, h])
        kept = b.call(
            "vision.all_class_non_max_suppression",
            [corners.text, scores.text, "2", "0.5f", "0f"],
            output_format="tensorflow",
        )
        selected = b.bind(kept, None, fields=())
        b.program.features.add("tuple")
        return b.bind([f"{selected.text}.1"], (n, dim_product((c, h))), "float32")
    scores = b.new_param([n, Dim.const(2), h, w])
    deltas = b.new_param([n, Dim.const(4), h, w])
    info = b.new_param([n, Dim.const(3)])
    top = b.draw.int(1, 3)
    rows_out = lift(lambda v: v * top, n)
    made = b.call(
        "vision.proposal", [scores.text, deltas.text, info.text], scales=[1.0], ratios=[1.0], rpn_post_nms_top_n=top
    )
    return b.bind(made, (rows_out, Dim.const(5)))


def op_relay_rearrange(b: Builder) -> Val:
    """nn.dilate, nn.mirror_pad (SYMMETRIC, by at most 1 around dims of at least 1), space_to_batch_nd
    then batch_to_space_nd back (blocks of 1 along padded dims), or dyn.expand_dims at 0."""
    x = b.pick(has_rank(1, 3))
    kind = b.draw.int(0, 3)
    if kind == 0:
        # strides of 1 (a larger one makes (d - 1) * s + 1, which no empty caller dim has)
        return b.bind(b.call("nn.dilate", [x.text], strides=[1] * x.rank), x.dims)
    if kind == 1:
        # a SYMMETRIC mirror pads a dim by at most its size: an empty dim by nothing
        widths = [[b.draw.int(0, min(1, d.value)), b.draw.int(0, min(1, d.value))] for d in x.dims]
        dims = tuple(lift(lambda v, w=w: v + w[0] + w[1], d) for d, w in zip(x.dims, widths))
        return b.bind(b.call("nn.mirror_pad", [x.text], pad_width=widths), dims)
    if kind == 2 and x.rank >= 2:
        pads = [[1, 0] for _ in x.dims[1:]]
        batch = "".join(b.call("nn.space_to_batch_nd", [x.text], block_shape=[1] * (x.rank - 1), paddings=pads))
        return b.bind(b.call("nn.batch_to_space_nd", [batch], block_shape=[1] * (x.rank - 1), crops=pads), x.dims)
    return b.bind(b.call("dyn.expand_dims", [x.text, "0i64"]), (Dim.const(1),) + x.dims)


def op_conv_gradients(b: Builder) -> Val:
    """nn.conv2d_backward_weight of a 1 x 1 convolution, or nn.deformable_conv2d with 1 x 1
    taps moved by new offsets."""
    x = image(b)
    n, c, h, w = x.dims
    out_c = b.fresh(b.size(1, 3))
    if b.draw.chance(50):
        grad = b.new_param([n, out_c, h, w])
        return b.bind(
            b.call("nn.conv2d_backward_weight", [grad.text, x.text], kernel_size=[1, 1]),
            (out_c, c, Dim.const(1), Dim.const(1)),
        )
    offset = b.new_param([n, Dim.const(2), h, w])
    weight = b.new_param([out_c, c, Dim.const(1), Dim.const(1)])
    return b.bind(
        b.call("nn.deformable_conv2d", [x.text, offset.text, weight.text], kernel_size=[1, 1]), (n, out_c, h, w)
    )


SPATIAL_LETTERS = {1: "W", 3: "DHW"}


def volume(b: Builder, k: int, lo: int = 1) -> Val:
    """A value of rank 2 + k (NCW or NCDHW) with spatial dims of at least `lo`."""
    return b.pick(
        lambda v: v.rank == 2 + k and all(d.value >= lo for d in v.dims[2:]),
        lambda: b.new_param(
            [b.fresh(b.size(1, 2)), b.fresh(b.size(1, 3))] + [b.fresh(b.size(lo, lo + 2)) for _ in range(k)]
        ),
    )


def op_conv_nd(b: Builder) -> Val:
    """nn.conv1d / nn.conv3d (or their transposes) with a new weight."""
    k = b.draw.choice([1, 3])
    x = volume(b, k)
    n, c, sizes = x.dims[0], x.dims[1], x.dims[2:]
    out_c = b.fresh(b.size(1, 3))
    stride = b.draw.int(1, 2)
    kernel = [b.draw.int(1, 2) for _ in range(k)]
    if b.draw.chance(40):
        weight = b.new_param([c, out_c] + [Dim.const(kk) for kk in kernel])
        grown = tuple(lift(lambda s, kk=kk: (s - 1) * stride + kk, d) for d, kk in zip(sizes, kernel))
        return b.bind(b.call(f"nn.conv{k}d_transpose", [x.text, weight.text], strides=[stride]), (n, out_c) + grown)
    weight = b.new_param([out_c, c] + [Dim.const(kk) for kk in kernel])
    pad = 1 if any(kk > d.value for kk, d in zip(kernel, sizes)) else b.draw.int(0, 1)
    out = tuple(window(d, kk, 2 * pad, stride, 1) for d, kk in zip(sizes, kernel))
    return b.bind(b.call(f"nn.conv{k}d", [x.text, weight.text], strides=[stride], padding=[pad]), (n, out_c) + out)


def op_pool_nd(b: Builder) -> Val:
    """1-D / 3-D max, average or adaptive pooling."""
    k = b.draw.choice([1, 3])
    x = volume(b, k, 2)
    kind = b.draw.choice(["max", "avg", "adaptive_avg", "adaptive_max"])
    if kind.startswith("adaptive"):
        size = [b.draw.int(1, 3) for _ in range(k)]
        return b.bind(
            b.call(f"nn.{kind}_pool{k}d", [x.text], output_size=size), x.dims[:2] + tuple(Dim.const(v) for v in size)
        )
    size = b.draw.int(1, min(d.value for d in x.dims[2:]))
    stride = b.draw.int(1, 2)
    dims = x.dims[:2] + tuple(window(d, size, 0, stride, 1) for d in x.dims[2:])
    return b.bind(b.call(f"nn.{kind}_pool{k}d", [x.text], pool_size=[size], strides=[stride]), dims)


# language features ------------------------------------------------------------------------------------
class Inline:
    """A closure as a piece of a statement: `fn (params) { body }`, rendered from its builder."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder


def outer_of(d: Dim) -> Dim:
    """A helper's dim as its caller sees it (`?` where the generator does not know)."""
    return d.outer if d.outer is not None else Dim(d.value, DYNAMIC, None)


def run_ops(b: Builder, steps: int, first: Optional[Val] = None) -> Val:
    """Apply `steps` random operators; the last value made (or `first`)."""
    last = first
    for _ in range(steps):
        made = apply_random(b)
        if made is not None and made.dims is not None:
            last = made
    if last is None:
        last = b.pick()
    return last


def apply_random(b: Builder) -> Optional[Val]:
    """One random operator or language feature allowed here."""
    table = [(fn, w * (10 if fn in b.program.focus else 1)) for fn, w, needs in OPERATORS if _allowed(b, needs)]
    total = sum(w for _, w in table)
    at = b.draw.int(0, total - 1)
    for fn, w in table:
        if at < w:
            return fn(b)
        at -= w
    return None


def _allowed(b: Builder, needs: str) -> bool:
    """Whether an operator table entry applies here (`needs`: space-separated conditions)."""
    for need in needs.split():
        if need == "float32" and b.dtype != FLOAT:
            return False
        if need == "data" and (not b.program.allow_data_dependent or b.dtype != FLOAT):
            return False
        if need == "nest" and b.depth >= 2:
            return False
    return True


def feature_if(b: Builder) -> Val:
    """`let %v = if (%c) { ... } else { ... };` over a bool parameter choosing the branch the
    intended inputs take; the branches differ unless the program must stay precise."""
    taken = b.draw.chance(50)
    cond = b.new_param([], "bool", data=np.array(taken), prefix="c")
    then_block, then_val = branch(b, lambda: run_ops(b, b.draw.int(1, 2)))
    if b.program.allow_data_dependent and b.draw.chance(60):
        else_block, else_val = branch(b, lambda: run_ops(b, b.draw.int(1, 2)))
    else:
        twin = b.new_param(list(then_val.dims), then_val.dtype)
        op = "nn.relu" if twin.dtype == b.dtype else "copy"  # an int32 or bool branch keeps its dtype
        else_block, else_val = branch(b, lambda: b.bind(b.call(op, [twin.text]), twin.dims, twin.dtype))
    first, second = (then_val, else_val) if taken else (else_val, then_val)
    if first.rank == second.rank:
        dims = tuple(join_dim(x, y) for x, y in zip(first.dims, second.dims))
    else:
        b.program.data_dependent = True
        dims = tuple(Dim(d.value, DYNAMIC, None) for d in first.dims)
    if any(not d.form.is_exact for d in dims) or first.dtype != second.dtype:
        b.program.data_dependent = True
    b.program.features.add("if")
    return b.bind(["if (", cond.text, ") ", then_block, " else ", else_block], dims, first.dtype)


def branch(b: Builder, make: Callable[[], Val]) -> tuple:
    """Build a branch body: its block and its result value (branch-local values go out of scope)."""
    saved = b.block
    b.block = Block()
    b.scopes.append([])
    val = make()
    block = b.block
    block.result = [val.text]
    b.block = saved
    b.scopes.pop()
    return block, val


def feature_call(b: Builder, inline: bool = False) -> Val:
    """A call of a helper definition (or of a closure bound by a let), made for a value in
    scope: the helper's first parameter takes it; its other parameters become new parameters
    here (or values in scope) passed at the call."""
    x = b.pick()
    h = Builder(b.program, b.draw, b, b.fresh_name("f" if inline else "h"), b.rng)
    h.dtype = b.dtype
    h.def_name = b.def_name if inline else h.name
    if not inline and b.draw.chance(30):
        h.dtype = "T"
    first = h.new_param([h.fresh_from(d) for d in x.dims])
    if b.draw.chance(15) and (not inline or b.program.allow_data_dependent):
        # unannotated: inferred and generalized for a helper; `?` for a closure (not generalized,
        # design.md), so the result is checked where it is used: not in a precise program
        h.params[0].slot = None
        b.program.features.add("unannotated-param")
    result = run_ops(h, b.draw.int(1, 3), first)
    h.block.result = [result.text]
    args = [x.text] + [call_argument(b, h, p) for p in h.params[1:]]
    dims = tuple(outer_of(d) for d in result.dims)
    dtype = b.dtype if result.dtype == h.dtype else result.dtype
    if inline:
        fn = b.fresh_name("f")
        stmt = [f"let %{fn} = ", Inline(h), ";"]
        b.block.stmts.append(stmt)
        b.program.typable.append((stmt, h, result))
        b.program.features.add("closure")
        return b.bind([f"%{fn}({', '.join(args)})"], dims, dtype)
    b.program.helpers.append(h)
    b.program.features.add("helper")
    return b.bind([f"@{h.name}({', '.join(args)})"], dims, dtype)


def call_argument(b: Builder, h: Builder, p: Param) -> str:
    """What the caller passes for a helper's extra parameter: a new parameter of its own."""
    dtype = b.dtype if p.val.dtype == h.dtype else p.val.dtype
    return b.new_param([outer_of(d) for d in p.val.dims], dtype, data=p.data).text


def new_helper(b: Builder, prefix: str = "h") -> Builder:
    """The builder of a new helper definition called from `b`, registered with the program."""
    h = Builder(b.program, b.draw, b, b.fresh_name(prefix), b.rng)
    h.dtype = b.dtype
    b.program.helpers.append(h)
    b.program.features.add("helper")
    return h


def feature_expression_dims(b: Builder) -> Val:
    """A helper whose parameter dims are expressions of symbols other parameters bind
    (`n // 2`, `2 * n`, `n - m`), in any parameter order, called with new parameters of the
    caller written alike (`?` in relaxed variants):."""
    h = new_helper(b)
    kind = b.draw.choice(["half", "double", "double-alone", "difference"])
    if kind == "half":  # pooling by 2 halves n; `n // 2` is checked against it
        n = h.fresh(b.size(2, 6))
        roles = {"a": (lift(lambda x: x // 2, n),), "b": (Dim.const(1), Dim.const(1), n, Dim.const(1))}
        body = [
            "%z{} = nn.max_pool2d(%{b}, pool_size=[2, 1], strides=[2, 1]);",
            "add(reshape(%z{}, newshape=[-1]), %{a})",
        ]
        b.program.ops.append("nn.max_pool2d")
    elif kind == "double":
        n = h.fresh(b.size())
        roles = {"a": (dim_scale(n, 2),), "b": (n,)}
        body = ["add(%{a}, concatenate((%{b}, %{b})))"]
    elif kind == "double-alone":  # n is solved from the `2 * n` argument alone
        n = h.fresh(b.size(), symbolic=True)
        roles = {"a": (dim_scale(n, 2),)}
        body = ["add(%{a}, %{a})"]
    else:
        m = h.fresh(b.size(1, 3))
        n = h.fresh(m.value + b.size(0, 3))
        roles = {"a": (lift(lambda x, y: x - y, n, m),), "b": (n,), "c": (m,)}
        body = ["add(concatenate((%{a}, %{c})), %{b})"]
    order = list(roles)
    for i in range(len(order) - 1, 0, -1):
        j = b.draw.int(0, i)
        order[i], order[j] = order[j], order[i]
    names = {role: h.new_param(list(roles[role])).text[1:] for role in order}
    tag = h.fresh_name("")
    lines = [line.replace("{}", tag).format(**names) for line in body]
    h.block.stmts.extend([line] for line in lines[:-1])
    h.block.result = [lines[-1]]
    b.program.ops.extend(["add", "concatenate", "reshape"])
    b.program.features.add("expression-dims")
    # the caller's arguments: written alike (`(2 * k,)` for `(2 * n,)`), `?` where the caller knows
    # no relation, or the first one of new symbols of the caller's own and the others `?`
    # (`(m,)` for `(2 * n,)`: rigid, so n = m / 2 is a check that 2 divides m; two rigid
    # symbols related by the callee would be an error); all but `alike` are checked at the call
    kind_of_args = b.draw.choice(["alike", "alike", "unknown", "rigid"])
    args = [
        caller_argument(b, h, p, kind_of_args if kind_of_args != "rigid" or i == 0 else "unknown")
        for i, p in enumerate(h.params)
    ]
    result = roles["a"] if kind != "difference" else roles["b"]
    if kind_of_args == "rigid":  # the result is in the caller's new symbols: not predicted
        return b.bind([f"@{h.name}({', '.join(args)})"], tuple(Dim(d.value, DYNAMIC, None) for d in result))
    return b.bind([f"@{h.name}({', '.join(args)})"], tuple(outer_of(d) for d in result))


def caller_argument(b: Builder, h: Builder, p: Param, kind: str) -> str:
    """A new parameter of the caller passed for a helper's parameter: its dims the helper's
    forms as the caller sees them (`alike`), `?` (`unknown`) or new symbols of the caller
    (`rigid`: for each dim the helper does not write static)."""
    if kind == "alike":
        return call_argument(b, h, p)
    if kind == "unknown":
        dims = [Dim(d.value, DYNAMIC, None) for d in p.val.dims]
    else:
        dims = [d if d.form.is_static else Dim(d.value, b.symbol(), None) for d in p.val.dims]
        b.program.features.add("rigid-argument")
    return b.new_param(dims, data=p.data).text


def feature_function_argument(b: Builder) -> Val:
    """A closure (or a helper) passed to a helper that calls it, `@h(%f: fn (T) -> T, %x: T)`:
    the closure's parameter is written with the caller's forms, its own symbols (it is
    polymorphic) or `?`; relaxed variants make either function type imprecise, which needs a
    contract."""
    x = b.pick()
    h = new_helper(b)
    dims = tuple(h.fresh_from(d) for d in x.dims)
    fn_type = FnSlot((h.slot("fn-type", dims, h.dtype),), h.slot("fn-type", dims, h.dtype))
    f_name = h.fresh_name("f")
    function = Param(f_name, Val(f"%{f_name}", None, h.dtype), fn_type)
    value = h.new_param(list(dims))
    if b.draw.chance(50):
        h.params.insert(0, function)
    else:
        h.params.append(function)
    called = h.bind([f"%{f_name}({value.text})"], dims, plain=True)
    last = run_ops(h, b.draw.int(0, 1), called)
    h.block.result = [last.text]
    passed = function_value(b, x)
    args = [passed if p is function else x.text if p.val is value else call_argument(b, h, p) for p in h.params]
    b.program.features.add("function-argument")
    return b.bind([f"@{h.name}({', '.join(args)})"], tuple(outer_of(d) for d in last.dims), last.dtype)


def feature_returned_closure(b: Builder) -> Val:
    """A helper that returns a closure over its parameter, `@mk(%x: (n, m)) { fn () { op(%x) } }`,
    called for x and for another value of x's rank and dtype, of other sizes: each call's
    closure is typed by its own argument (the callee's symbols were left in the returned type,
    so two calls shared them and an `add` of a (4,) and a (3,) checked clean). The parameter's dims are symbols in every variant (`poly-param`)."""
    x = b.pick()
    h = new_helper(b, "mk")
    dims = tuple(Dim(d.value, h.symbol(), d) for d in x.dims)
    value = h.new_param(list(dims))
    h.params[-1].slot.kind = "poly-param"
    op = b.draw.choice(["nn.relu", "negative", "copy"])
    b.program.ops.append(op)
    h.block.result = [f"fn () {{ {op}({value.text}) }}"]
    others = b.values(lambda v: v is not x and v.rank == x.rank and v.dtype == x.dtype)
    if x.dtype == FLOAT and b.draw.chance(40):
        # or a closure polymorphic in its own names, `fn (%y: Tensor[(k1, k2), float32]) { op(%y) }`,
        # called with x and with another value: elaboration writes its type as @mk's return
        # type, whose names were read as @mk's existentials, bound by the closure's first call
        # (the second call failed at runtime)
        y = h.fresh_name("y")
        own = tensor_text([h.fresh_name("k") for _ in x.dims], x.dtype)
        h.block.result = [f"fn (%{y}: {own}) {{ {op}(%{y}) }}"]
        name = b.fresh_name("c")
        b.block.stmts.append([f"%{name} = @{h.name}({x.text});"])
        results = [b.bind([f"%{name}({arg.text})"], arg.dims, arg.dtype) for arg in [x] + others[-1:]]
        b.program.typed_returns.append((h, own, x, (b, b.block, b.block.stmts[-1]) if b.parent is None else None, name))
        b.program.features.update({"polymorphic-closure-result", "polymorphic-helper"})
        return results[-1]
    if b.draw.chance(25):
        # or a function generalized over a dtype of its own: a closed closure over an unannotated
        # parameter, `fn (%y) { op(%y) }`, or a helper definition `def @g[T](%y: (k1, k2) T)`
        # returned as a value, called with x and another value. No written type quantifies
        # such a dtype, so elaboration wrote @mk's return type with `?` for it, and the
        # elaborated program checked again to another type
        y = h.fresh_name("y")
        if b.draw.chance(50):
            h.block.result = [f"fn (%{y}) {{ {op}(%{y}) }}"]
        else:
            g = new_helper(b, "g")
            g.dtype = "T"
            param = g.new_param([Dim(d.value, g.symbol(), None) for d in x.dims])
            g.params[-1].slot.kind = "poly-param"
            g.block.result = [f"{op}({param.text})"]
            h.block.result = [f"@{g.name}"]
        name = b.fresh_name("c")
        b.block.stmts.append([f"%{name} = @{h.name}({x.text});"])
        results = [b.bind([f"%{name}({arg.text})"], arg.dims, arg.dtype) for arg in [x] + others[-1:]]
        b.program.features.update({"generic-function-result", "polymorphic-helper"})
        return results[-1]
    if x.dtype == FLOAT and b.draw.chance(30):
        # or a closure whose parameter is typed by @mk's own symbols, `fn (%y: Tensor[(n1,
        # n2), float32]) { add(%x, %y) }`, called with a value of x's sizes: where the caller
        # sees x's dims as `?`, the closure keeps x's sizes while the caller's type of it says
        # `?` (a call with other sizes stopped at the closure's parameter, blamed on a call no
        # check site stated)
        y = h.fresh_name("y")
        h.block.result = [
            f"fn (%{y}: {tensor_text([str(d.form) for d in dims], x.dtype)}) {{ add({value.text}, %{y}) }}"
        ]
        name = b.fresh_name("c")
        b.block.stmts.append([f"%{name} = @{h.name}({x.text});"])
        same = [
            v
            for v in others
            if [(d.value, str(d.form)) for d in v.dims] == [(d.value, str(d.form)) for d in x.dims]
            and all(d.form.is_exact for d in x.dims)
        ]  # the same forms: the closure takes exactly x's
        plain = all(
            d.form.is_static or d.form.is_symbolic and {sym.name for sym in d.form.symbols()} <= b.program.symbols
            for d in x.dims
        )
        if b.parent is None and plain and b.draw.chance(60):  # a parameter of x's forms: relaxed, of other sizes
            arg = b.new_param(list(x.dims), x.dtype)
        else:
            arg = b.draw.choice(same) if same else x
        b.program.features.update({"captured-symbol-closure-result", "polymorphic-helper"})
        return b.bind([f"%{name}({arg.text})"], x.dims, x.dtype)
    results = []
    for arg in [x] + ([b.draw.choice(others)] if others else []):
        name = b.fresh_name("c")
        b.block.stmts.append([f"%{name} = @{h.name}({arg.text});"])
        results.append(b.bind([f"%{name}()"], arg.dims, arg.dtype))
    b.program.features.add("polymorphic-helper")
    return results[-1]


def function_value(b: Builder, x: Val) -> str:
    """A shape-preserving function of x's type as the caller writes it: a closure bound by a
    let (its parameter's dims x's forms, its own symbols or `?`), or a helper definition. Where
    x's first dim is 1, the closure may instead sum it away (keepdims) under a return type
    with `?` there: it keeps the shape on these inputs only, so it needs a contract."""
    if x.rank and x.dims[0].value == 1 and b.draw.chance(40):
        return hidden(b, summing_closure(b, x))
    op = b.draw.choice(["nn.relu", "negative", "abs", "tanh", "copy"])
    b.program.ops.append(op)
    dims = []
    for d in x.dims:
        choice = b.draw.int(0, 4)
        if choice <= 1 or not d.form.is_exact and choice <= 2:
            dims.append(Dim(d.value, DYNAMIC, None))
        elif choice == 2:
            dims.append(Dim(d.value, Dimension.symbol(b.fresh_name("k")), None))
        else:
            dims.append(d)
    if b.draw.chance(25):
        g = new_helper(b, "g")
        y = g.new_param(dims, x.dtype)
        g.block.result = [f"{op}({y.text})"]
        if b.draw.chance(40):  # through a variable, `%gv = @g`: it keeps what its body needs (`_as_value`)
            name = b.fresh_name("gv")
            b.block.stmts.append([f"%{name} = @{g.name};"])
            b.program.features.add("definition-value")
            return hidden(b, f"%{name}")
        return hidden(b, f"@{g.name}")
    if b.program.allow_data_dependent and x.rank and b.draw.chance(20):
        # a closed closure over an unannotated parameter with a `can_unify` guess that may be
        # wrong: a contract that lets other sizes in widens it (its body was typed with the
        # guess: values outside their types, false errors)
        name, param = b.fresh_name("g"), b.fresh_name("y")
        guess = ", ".join(str(d.value if b.draw.chance(50) else b.draw.int(1, 3)) for d in x.dims)
        hint = Hint(f"can_unify(%{param}, shape=({guess}{',' if x.rank == 1 else ''}));")
        b.block.stmts.append([f"%{name} = fn (%{param}) {{ ", hint, f" {op}(%{param}) }};"])
        b.program.features.add("hinted-closure-argument")
        return hidden(b, f"%{name}")
    slot = b.slot("closure-param", tuple(dims), x.dtype)
    name, param = b.fresh_name("g"), b.fresh_name("y")
    b.block.stmts.append([f"let %{name} = fn (%{param}: ", slot, f") {{ {op}(%{param}) }};"])
    b.program.features.add("closure")
    return hidden(b, f"%{name}")


def hidden(b: Builder, function: str) -> str:
    """Sometimes the function passed through `fn (%f: ?) -> ? { %f }`: a value of type `?`
    where the helper needs a function type, cast to it at the call (a contract). Not in a
    precise program: the `?` is written, no variant makes it static. Or through an identity
    whose parameter nothing constrains, `fn (%f) { %f }`, in any program: its result is the
    function itself (a function passed to such a parameter was typed a tensor from a later
    use: 0 checks, unsound). Not in a precise program either: such
    a parameter is `?` (closures are not generalized, design.md), so the result is cast back
    to the function type, a check a static program must not have."""
    if b.program.allow_data_dependent and b.draw.chance(15):
        name, f = b.fresh_name("same"), b.fresh_name("f")
        b.block.stmts.append([f"let %{name} = fn (%{f}) {{ %{f} }};"])
        b.program.features.add("identity-closure")
        return f"%{name}({function})"
    if not b.program.allow_data_dependent or not b.draw.chance(20):
        return function
    name, f = b.fresh_name("hide"), b.fresh_name("f")
    b.block.stmts.append([f"let %{name} = fn (%{f}: ?) -> ? {{ %{f} }};"])
    b.program.features.add("hidden-function")
    return f"%{name}({function})"


def summing_closure(b: Builder, x: Val) -> str:
    """`fn (%y: Tensor[(?, ...)]) -> Tensor[(?, ...)] { sum(%y, axis=[0], keepdims=True) }`."""
    dims = (Dim(1, DYNAMIC, None),) + tuple(x.dims[1:])
    param, ret = b.slot("closure-param", dims, x.dtype), b.slot("closure-param", dims, x.dtype)
    name, y = b.fresh_name("g"), b.fresh_name("y")
    b.program.ops.append("sum")
    b.block.stmts.append(
        [f"let %{name} = fn (%{y}: ", param, ") -> ", ret, f" {{ sum(%{y}, axis=[0], keepdims=True) }};"]
    )
    b.program.features.add("closure")
    return f"%{name}"


def feature_chosen_function(b: Builder) -> Val:
    """`%sel = if (%c) { @ga } else { @gb }; %sel(x)`: two helper definitions of one signature,
    each with its own symbols in a symbolic program, chosen by a condition and called. Their
    join is that signature (it was `?`, so a symbolic program had its calls of `%sel` checked); in a relaxed program their parameters may differ, and the
    join is `?` or keeps the parameters and joins the results."""
    x = b.pick()
    cond = b.new_param([], "bool", data=np.array(b.draw.chance(50)), prefix="c")
    names, static = [], None
    for _ in range(2):
        g = new_helper(b, "g")
        g.dtype = x.dtype
        dims = (
            [g.fresh_from(d) for d in x.dims]
            if static is None
            else [
                Dim(d.value, Dimension(d.value), d)
                if keep and not d.is_const
                else d
                if keep
                else Dim(d.value, g.symbol(), d)
                for d, keep in zip(x.dims, static)
            ]
        )
        static = [d.form.is_static for d in dims]  # the second helper's dims alike: one signature
        y = g.new_param(dims)
        op = b.draw.choice(["negative", "copy", "abs"] if x.dtype != "bool" else ["copy"])
        b.program.ops.append(op)
        g.block.result = [f"{op}({y.text})"]
        names.append(f"@{g.name}")
    sel = b.fresh_name("sel")
    b.block.stmts.append([f"%{sel} = if (", cond.text, f") {{ {names[0]} }} else {{ {names[1]} }};"])
    b.program.features.add("chosen-function")
    return b.bind([f"%{sel}({x.text})"], x.dims, x.dtype)


def feature_dynamic_elimination(b: Builder) -> Val:
    """A value typed `?` used as a tuple or a function: an `if` joins a pair with a tuple of
    another length or a tensor, or a closure with a closure of another arity or a tensor, and
    the join is projected or called. The intended inputs take the good branch; a random
    condition takes the other, which must stop at the projection's or the call's check (both
    stopped with an unblamed `runtime-error`)."""
    x = b.pick()
    taken = b.draw.chance(50)
    cond = b.new_param([], "bool", data=np.array(taken), prefix="c")
    if b.draw.chance(50):
        good = f"({x.text}, {x.text})"
        bad = b.draw.choice([f"({x.text},)", x.text])
        use = "{}.1"
    else:
        op = b.draw.choice(["nn.relu", "negative", "copy"])
        b.program.ops.append(op)
        y, z = b.fresh_name("y"), b.fresh_name("z")
        good = f"fn (%{y}) {{ {op}(%{y}) }}"
        bad = b.draw.choice([x.text, f"fn (%{y}, %{z}) {{ %{y} }}"])
        use = "{}(" + x.text + ")"
    then, other = (good, bad) if taken else (bad, good)
    name = b.fresh_name("dyn")
    b.block.stmts.append([f"%{name} = if (", cond.text, f") {{ {then} }} else {{ {other} }};"])
    b.program.data_dependent = True
    b.program.features.add("dynamic-elimination")
    return b.bind([use.format(f"%{name}")], x.dims, x.dtype)


def feature_hinted_loop(b: Builder) -> Val:
    """A recursive helper over an unannotated (or `?T`) loop variable seeded by a
    `can_unify` hint whose guess may differ from the value passed: hints never fail, and the
    guess is no constraint on the caller."""
    x = b.pick(has_rank(1, 3))
    h = new_helper(b, "loop")
    steps = b.draw.int(0, 2)
    grow = x.rank and b.draw.chance(50)
    pad = grow and b.draw.chance(50)  # grows by a constant (d0 + 1 against d0), not a multiple
    swap = x.rank == 2 and not grow and b.draw.chance(40)  # transposed each step: (d1, d0) for (d0, d1)
    axis = b.draw.int(0, x.rank - 1)
    i, v = h.fresh_name("i"), h.fresh_name("x")
    h.params = [
        Param(i, Val(f"%{i}", (), "int32"), Slot(-1, "counter", (), "int32")),
        Param(v, Val(f"%{v}", x.dims, x.dtype), HoleSlot()),
    ]
    guess = ", ".join(str(d.value if b.draw.chance(50) else b.draw.int(1, 3)) for d in x.dims)
    widths = ", ".join("[0, 1]" if k == axis else "[0, 0]" for k in range(x.rank))
    step = (
        f"nn.pad(%{v}, 0f, pad_width=[{widths}])"
        if pad
        else f"concatenate((%{v}, %{v}), axis={axis})"
        if grow
        else f"transpose(%{v}, axes=[1, 0])"
        if swap
        else f"nn.relu(%{v})"
    )
    b.program.ops.extend(
        ["nn.pad" if pad else "concatenate" if grow else "transpose" if swap else "nn.relu", "less", "add"]
    )
    if not (pad or swap) or b.draw.chance(50):  # these loops also run without a hint (an unannotated parameter)
        h.block.stmts.append([Hint(f"can_unify(%{v}, shape=({guess}{',' if x.rank == 1 else ''}));")])
    h.block.result = [f"if (less(%{i}, {steps})) {{ @{h.name}(add(%{i}, 1), {step}) }} else {{ %{v} }}"]
    b.program.features.add("hinted-loop")
    b.program.data_dependent = True
    sizes = [
        d.value + steps if pad and k == axis else d.value * (2**steps if grow and k == axis else 1)
        for k, d in enumerate(x.dims)
    ]
    if swap and steps % 2:
        sizes.reverse()
    return b.bind([f"@{h.name}(0, {x.text})"], tuple(Dim(s, DYNAMIC, None) for s in sizes))


def feature_hinted_closure(b: Builder) -> Val:
    """A closed closure over an unannotated parameter seeded by a `can_unify` hint whose guess
    may differ from the values it is called with (x, and another value of x's rank and dtype):
    a call passing another size widens the hint, as it does a definition's (the guess was a
    hard requirement of the closure: a false static error)."""
    x = b.pick(has_rank(1, 3))
    f, a = b.fresh_name("f"), b.fresh_name("a")
    sizes = [d.value if b.draw.chance(50) else b.draw.int(1, 3) for d in x.dims]
    if b.draw.chance(20):  # a guess of another rank: widened too (it was a false rank error)
        sizes = sizes[1:] if len(sizes) > 1 and b.draw.chance(50) else sizes + [1]
    guess = ", ".join(map(str, sizes))
    op = b.draw.choice(["nn.relu", "negative", "copy"])
    b.program.ops.append(op)
    b.block.stmts.append(
        [
            f"%{f} = fn (%{a}) {{ ",
            Hint(f"can_unify(%{a}, shape=({guess}{',' if len(sizes) == 1 else ''}));"),
            f" {op}(%{a}) }};",
        ]
    )
    others = b.values(lambda v: v is not x and v.rank == x.rank and v.dtype == x.dtype)
    results = [
        b.bind([f"%{f}({arg.text})"], tuple(Dim(d.value, DYNAMIC, None) for d in arg.dims), arg.dtype)
        for arg in [x] + others[-1:]
    ]
    b.program.features.add("hinted-closure")
    b.program.data_dependent = True
    return results[-1]


OPERATORS: list = [
    (op_unary, 4, ""),
    (op_softmax, 1, ""),
    (op_binary, 5, ""),
    (op_where, 1, ""),
    (op_dense, 2, ""),
    (op_matmul, 1, ""),
    (op_batch_matmul, 1, ""),
    (op_bias_add, 1, ""),
    (op_reshape, 2, ""),
    (op_transpose, 2, ""),
    (op_expand_dims, 1, ""),
    (op_squeeze, 1, ""),
    (op_reverse, 1, ""),
    (op_concatenate, 2, ""),
    (op_stack, 1, ""),
    (op_split, 1, ""),
    (op_tile, 1, ""),
    (op_repeat, 1, ""),
    (op_take, 1, ""),
    (op_strided_slice, 1, ""),
    (op_position_slice, 1, ""),
    (op_conv2d, 2, ""),
    (op_conv2d_transpose, 1, ""),
    (op_pool, 1, ""),
    (op_global_pool, 1, ""),
    (op_adaptive_pool, 1, ""),
    (op_resize, 1, ""),
    (op_batch_flatten, 1, ""),
    (op_pad, 1, ""),
    (op_layer_norm, 1, ""),
    (op_batch_norm, 1, ""),
    (op_dropout, 1, ""),
    (op_reduce, 2, ""),
    (op_shape_values, 1, "float32"),
    (op_reshape_back, 1, ""),
    (op_arange, 1, "float32"),
    (op_chosen_shape, 1, "data"),
    (op_crop_back, 1, ""),
    (op_size_extremes, 1, "float32"),
    (op_argwhere, 1, "data"),
    (op_topk, 1, ""),
    (op_one_hot, 1, "float32"),
    (op_create, 1, "float32"),
    (op_broadcast_to, 1, ""),
    (op_cast_roundtrip, 1, "float32"),
    (op_logical, 1, ""),
    (op_dyn_creation, 1, "float32"),
    (op_reshape_like, 1, ""),
    (op_sizes, 1, "data"),
    (op_user_cast, 1, ""),
    (op_tuple, 1, ""),
    (op_bitwise, 1, "float32"),
    (op_special_values, 1, ""),
    (op_variance, 1, ""),
    (op_gather, 1, ""),
    (op_reference, 1, ""),
    (op_like, 1, ""),
    (op_sort, 1, ""),
    (op_reverse_reshape, 1, ""),
    (op_conv_nd, 1, ""),
    (op_pool_nd, 1, ""),
    (op_qnn, 2, ""),
    (op_upsampling, 1, ""),
    (op_blocks, 1, ""),
    (op_matrix, 1, ""),
    (op_sparse, 1, "data"),
    (op_dyn_window, 1, "data"),
    (op_conv_gradients, 1, ""),
    (op_dyn_attrs, 1, ""),
    (op_bits, 1, "float32"),
    (op_annotation, 1, ""),
    (op_relay_nn, 1, ""),
    (op_relay_scatter_scan, 2, ""),
    (op_relay_sampling, 1, ""),
    (op_relay_rearrange, 1, ""),
    (op_relay_vision, 1, "float32"),
    (op_correlation, 1, "float32"),
    (op_bitserial, 1, "float32"),
    (op_conv2d_nchwc, 1, "float32"),
    (feature_if, 1, "nest"),
    (feature_call, 2, "nest"),
    (op_signed_values, 1, "float32"),
    (op_rank_branch, 1, ""),
    (op_resize_to_values, 1, ""),
    (op_values_tile_narrow, 1, ""),
    (lambda b: feature_call(b, inline=True), 1, "nest"),
    (op_empty_reshape, 1, ""),
    (feature_expression_dims, 1, "nest float32"),
    (feature_function_argument, 1, "nest float32"),
    (feature_hinted_loop, 1, "data"),
    (feature_hinted_closure, 1, "data"),
    (feature_returned_closure, 1, "nest"),
    (feature_dynamic_elimination, 1, "data"),
    (feature_chosen_function, 1, "nest"),
]


# programs -------------------------------------------------------------------------------------------
#: features a property can ask for more often (`programs(focus=...)`)
FOCUS = {
    "hints": frozenset({feature_hinted_loop, feature_hinted_closure}),
    "functions": frozenset(
        {feature_function_argument, feature_returned_closure, feature_dynamic_elimination, feature_chosen_function}
    ),
    "expressions": frozenset({feature_expression_dims}),
    "edges": frozenset(
        {op_strided_slice, op_position_slice, op_empty_reshape, op_crop_back}
    ),  # slices past the end, empty tensors
}


def build_program(
    draw: Draw, steps: Optional[int] = None, precise: bool = False, seed: int = 0, focus: str = ""
) -> Program:
    """One random program. `precise`: no data-dependent shapes and no branches that differ
    (so a program with static parameters has only static types). `focus`: a FOCUS key."""
    program = Program(allow_data_dependent=not precise, focus=FOCUS.get(focus, frozenset()))
    main = Builder(program, draw, rng=np.random.default_rng(seed))
    count = draw.int(1, 6) if steps is None else steps
    last = run_ops(main, count)
    others = main.values(lambda v: v is not last)
    if others and draw.chance(30):
        main.block.result = [f"({last.text}, {draw.choice(others).text})"]
    else:
        main.block.result = [last.text]
    if not main.params:
        main.fresh_param()
    for h in program.helpers:
        program.defs.append(Definition(h.name, h.params, h.block, ("T",) if h.dtype == "T" else ()))
    program.defs.append(Definition("main", main.params, main.block))
    draw_claims(program, draw)
    return program


def draw_claims(program: Program, draw: Draw) -> None:
    """Some definitions claim some of their signature names (`claimed=["n"]`, spec §6: an
    exporter's dynamic dims, whose conflicts are warnings and runtime checks, not errors). Drawn
    after everything else, so the programs that claim nothing are drawn as they were."""
    for d in program.defs:
        names = sorted(
            {
                s.name
                for p in d.params
                if p.slot is not None
                for dim in p.val.dims or ()
                for s in dim.form.symbols()
                if s not in program.existentials
            }
        )
        if names and draw.chance(25):
            d.claimed = tuple(n for n in names if draw.chance(60)) or (names[0],)
            program.features.add("claimed")
    for stmt, h, result in program.typable:
        if draw.chance(30):
            # `let %f: fn (Tensor[(n5, 3)]) -> Tensor[(n5, 3)] = fn ...`: the names are the type's,
            # bound at each call (design.md); relaxed variants relax its parameter or result
            params = tuple(
                h.slot("fn-type", None if p.val.dims is None else tuple(p.val.dims), p.val.dtype) for p in h.params
            )
            fn_type = FnSlot(params, h.slot("fn-type", tuple(result.dims), result.dtype))
            stmt[0:1] = [stmt[0][:-3] + ": ", fn_type, " = "]
            program.features.add("typed-closure")
    for h, own, x, main, closure in program.typed_returns:
        if draw.chance(50):
            # the returned closure's type written with names of its own, bound at each call of it
            # (elaborated as a cast, they were bound once: a call of other sizes stopped), and in @main called once more with a new parameter one larger in each dim
            t = tensor_text([f"q{i + 1}" for i in range(x.rank)], x.dtype)
            next(d for d in program.defs if d.name == h.name).ret = f"fn ({t}) -> {t}"
            if draw.chance(50):  # the closure's parameter `?`: the return type is its contract
                h.block.result = [h.block.result[0].replace(own, tensor_text(["?"] * x.rank, x.dtype))]
            if main is not None:  # after the closure's binding, in its block (a branch, maybe)
                builder, block, binding = main
                arg = builder.new_param([builder.fresh(d.value + 1) for d in x.dims], x.dtype)
                at = next(i for i, stmt in enumerate(block.stmts) if stmt is binding) + 1
                block.stmts.insert(at, [f"%{builder.fresh_name('v')} = %{closure}({arg.text});"])
            program.features.add("polymorphic-return-type")


def generate(seed: int, precise: bool = False, steps: Optional[int] = None) -> Program:
    """A program from a seed (without hypothesis)."""
    return build_program(Draw(seed=seed), steps, precise, seed)


@st.composite
def programs(draw: Any, precise: bool = False, max_steps: int = 6, focus: str = "") -> Program:
    """The hypothesis strategy: random well-formed programs (`focus`: a FOCUS key)."""
    d = Draw(draw)
    return build_program(d, d.int(1, max_steps), precise, d.int(0, 2**16), focus)


# inputs ---------------------------------------------------------------------------------------------
def consistent_inputs(program: Program, variant: Variant, rng: np.random.Generator, wild: int = 30) -> dict:
    """Random inputs that fit main's parameter types as `variant` writes them: symbols get
    random sizes (the same for every use), `?` and intervals random sizes within their bounds,
    dynamic ranks the intended shape (or, `wild` percent of the time, another rank). Data is
    random too, except that conditions keep their intended value half of the time."""
    for _ in range(20):
        env = {Symbol.named(name): int(rng.integers(0, 6)) for name in program.symbols}
        shapes = [param_shape(p, program, variant, env, rng, wild) for p in program.main.params]
        if all(s is not None for s in shapes):
            break
    else:
        shapes = [p.val.shape for p in program.main.params]
    inputs = {}
    for p, shape in zip(program.main.params, shapes):
        if p.val.dtype == "bool" and shape == () and rng.integers(0, 2):
            inputs[p.name] = np.array(p.data, copy=True)
        else:
            inputs[p.name] = random_data(shape, p.val.dtype, rng)
    return inputs


def param_shape(
    p: Param, program: Program, variant: Variant, env: dict, rng: np.random.Generator, wild: int
) -> Optional[tuple]:
    """One parameter's random shape (None when a symbolic dim came out negative)."""
    slot = p.slot
    if slot is None:
        return p.val.shape
    if isinstance(variant, Relaxed) and slot.uid in variant.dynamic_rank:
        if rng.integers(0, 100) < wild:
            return tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 4))))
        return p.val.shape
    if isinstance(variant, Relaxed) and slot.uid in variant.runs:  # `(*b, k)`: any leading dims, then k
        last = dim_size(variant.dim_text(slot, len(slot.dims) - 1, slot.dims[-1], program), slot.dims[-1], env, rng)
        lead = p.val.shape[:-1]
        if rng.integers(0, 100) < wild:
            lead = tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3))))
        return None if last is None else lead + (last,)
    shape = []
    for i, d in enumerate(slot.dims):
        size = dim_size(variant.dim_text(slot, i, d, program), d, env, rng)
        if size is None:
            return None
        shape.append(size)
    return tuple(shape)


def dim_size(text: str, d: Dim, env: dict, rng: np.random.Generator) -> Optional[int]:
    """A random size fitting a written dim."""
    if text.isidentifier() and Symbol.named(text) in env and text != str(d.form):
        return env[Symbol.named(text)]  # a perturbed dim naming another symbol
    if text == "?":
        return int(rng.integers(0, 6)) if rng.integers(0, 4) else d.value
    if ".." in text:
        lo_text, hi_text = text.split("..")
        lo = int(lo_text) if lo_text else 0
        hi = int(hi_text) if hi_text else lo + 5
        return int(rng.integers(lo, hi + 1))
    if text.isdigit():
        return int(text)
    value = d.form.evaluate(env)
    return value if value >= 0 else None


def relax(program: Program, draw: Draw, base: Variant = SYMBOLIC, percent: int = 40) -> Relaxed:
    """A less precise variant of `base`: about `percent` of the annotations lose precision in
    one or more dims (to `?`, to an interval around a static size, to a wider interval), or
    become `Tensor[*, dtype]` (or, for every other parameter, let and cast with dims, a run of
    leading dims and the last one: `Tensor[(*b7, k), dtype]`); some lose their dtype (`?`)."""
    dims: dict = {}
    dynamic: set = set()
    runs: set = set()
    dtypes: set = set()
    for slot in program.slots:
        if slot.dims is None or not draw.chance(percent):
            continue
        if draw.chance(10) and slot.dtype != "T":
            dtypes.add(slot.uid)
        if draw.chance(15) and not any(binds_existential(slot, d, program) for d in slot.dims):
            if slot.uid % 2 and slot.dims and slot.kind in RUN_KINDS:  # no draw: the other choices stay
                runs.add(slot.uid)
            else:
                dynamic.add(slot.uid)
            continue
        for i, d in enumerate(slot.dims):
            if draw.chance(50) and not binds_existential(slot, d, program):
                dims[(slot.uid, i)] = looser(base.dim_text(slot, i, d, program), draw)
    return Relaxed(base, dims, frozenset(dynamic), frozenset(dtypes), frozenset(runs))


#: the annotations `relax` may write with a run of leading dims
RUN_KINDS = ("param", "helper-param", "let", "cast")


class Perturbed(Relaxed):
    """A variant with one parameter dim changed to another size or symbol (see `perturb`)."""

    name = "perturbed"


def perturb(program: Program, draw: Draw, base: Variant = SYMBOLIC) -> Variant:
    """One dim of one parameter of @main changed to another size (0, 1, 2, 3 or 5) or to
    another symbol of the program: mostly an ill-typed program, sometimes one that checks."""
    slots = [s for s in program.slots if s.kind == "param" and s.dims]
    functions = [s for s in program.slots if s.kind == "fn-type" and s.dims]
    if functions and draw.chance(50):
        slots = functions  # a function type that no longer fits the functions passed
    if not slots:
        return base
    slot = draw.choice(slots)
    i = draw.int(0, len(slot.dims) - 1)
    old = base.dim_text(slot, i, slot.dims[i], program)
    choices = [str(v) for v in (0, 1, 2, 3, 5) if str(v) != old] + sorted(s for s in program.symbols if s != old)
    return Perturbed(base, {(slot.uid, i): draw.choice(choices)}, frozenset())


def binds_existential(slot: Slot, d: Dim, program: "Program") -> bool:
    """Whether this dim of an annotation introduces an existential name. Such a dim is a
    binder, not a precision annotation: relaxing it would remove the name (and the checker
    then knows the value's own dim where the existential hid it; see tests/test_gradual_guarantee.py).
    A let's symbol that no parameter in scope binds is one too: a call's result named after the
    callee's symbols (`n11`) where the arguments passed were `?`."""
    if not d.form.is_symbolic:
        return False
    names = {s.name for s in d.form.symbols()}
    if names & slot.existentials:
        return True
    return slot.kind == "let" and slot.scope is not None and bool(names - symbols_in_scope(slot.scope, program))


def tensor_slots(slot: Any) -> list:
    """The tensor annotations a parameter's slot holds: itself, a function type's parameters
    and result, none for a parameter to infer."""
    if isinstance(slot, Slot):
        return [slot]
    if isinstance(slot, FnSlot):
        return [s for part in slot.params + (slot.ret,) for s in tensor_slots(part)]
    return []


def symbols_in_scope(builder: "Builder", program: "Program") -> set:
    """The symbols the parameters of a definition (and of the closures around a closure) name."""
    names: set = set()
    scope: Optional[Builder] = builder
    while scope is not None:
        for p in scope.params:
            for slot in tensor_slots(p.slot):
                for d in slot.dims or ():
                    if base_dim_text(slot, d, program) != "?":
                        names |= {s.name for s in d.form.symbols()}
        parent = scope.parent
        scope = parent if parent is not None and parent.def_name == scope.def_name else None
    return names


def looser(text: str, draw: Draw) -> str:
    """A dim less precise than `text`: `?`, or an interval containing it."""
    if text == "?" or draw.chance(40):
        return "?"
    if ".." in text:
        lo_text, hi_text = text.split("..")
        lo = max(0, (int(lo_text) if lo_text else 0) - draw.int(0, 2))
        hi = "" if not hi_text or draw.chance(30) else str(int(hi_text) + draw.int(0, 2))
        return f"{lo}..{hi}"
    if text.isdigit():
        v = int(text)
        lo = "" if draw.chance(20) else str(max(0, v - draw.int(0, 2)))
        hi = "" if draw.chance(30) else str(v + draw.int(0, 2))
        return f"{lo}..{hi}" if lo or hi else "?"
    return "?"
