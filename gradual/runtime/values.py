"""Runtime values and frames.

A tensor is a NumPy array (0-d for scalars), a tuple is a Python tuple, a function is one of
`GlobalFunction`, `Closure` or `Wrapped` (a function checked against a function type each time
it is called), a reference is a `RefCell`. A `Frame` holds one activation's variables and the
concrete values of the dimension symbols and dtype variables bound in it; closures keep their
defining frame as parent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Optional

import numpy as np

from gradual.infra.scopes import Chain
from gradual.shapes import Symbol
from gradual.syntax import ast
from gradual.types import DYN, NARROW_FLOAT_DTYPES, NARROW_INT_DTYPES, FuncType, Type

try:  # registers its types with NumPy by name (np.dtype("bfloat16"))
    import ml_dtypes  # noqa: F401

    NARROW_DTYPES: tuple = ("bfloat16",) + NARROW_FLOAT_DTYPES + NARROW_INT_DTYPES
except ImportError:  # pragma: no cover - onnx brings it
    NARROW_DTYPES = ()

#: dtypes the NumPy runtime can hold: NumPy's own, and where the ml_dtypes package is installed (it
#: comes with onnx) bfloat16, float8, float4 and the 4- and 2-bit integers too.
NUMPY_DTYPES = frozenset(
    {
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    }
    | (set(NARROW_DTYPES) if NARROW_DTYPES else set())
)


_OWN = object()  # in a frame's `seen`: a symbol only this frame may bind
_LATE_RELATIONS = object()  # in a tree's `bound`: a frame got relations after frames inside it were made


class Frame(Chain):
    """One activation: variables by binder, dimension symbols, dtype variables; parent for
    closures. `deferred` holds the checks of expressions a cast could not evaluate yet (`n // 2`
    before any cast bound `n`), made as soon as a later cast binds their symbols. `relations`
    holds what a linear expression's size says of symbols none of which is bound yet: `n - m`
    of size 1 relates `n` to `m + 1` (created on first use)."""

    __slots__ = ("values", "dims", "dtypes", "parent", "deferred", "relations", "related", "enclosing", "seen", "bound")
    parent: Optional["Frame"]  # a closure's frame encloses only frames

    def __init__(self, parent: Optional["Frame"] = None) -> None:
        self.values: dict = {}
        self.dims: dict = {}
        self.dtypes: dict = {}
        self.parent = parent
        self.deferred: dict = {}  # a symbol not yet bound -> the checks waiting for it
        self.relations: Optional[Offsets] = None  # differences between symbols not bound yet
        # relations are made at a frame's entry, before any frame it encloses exists: the
        # nearest enclosing frame that has them is known now (a lookup goes from one such frame
        # to the next, not through every level: closures n deep that each looked up a related
        # symbol walked every level between, quadratic)
        self.related: Optional[Frame] = (
            None if parent is None else parent if parent.relations is not None else parent.related
        )
        self.enclosing = False  # whether a frame was made inside this one
        if parent is not None:
            parent.enclosing = True
        # dims and dtypes of enclosing frames looked up from here, and the symbols this frame
        # owns (`own`); made on first use
        self.seen: Optional[dict] = None
        # every symbol and dtype variable bound in a frame of this frame's tree (the frames
        # below one without a parent, which share the set): one no frame bound is looked up
        # without a walk
        self.bound: set = parent.bound if parent is not None else set()

    def value(self, binder: object) -> Any:
        """The value bound to a binder here or in an enclosing frame (KeyError if none).

        A value found in an enclosing frame is remembered in every frame the lookup passed
        (a binder is bound once per frame, and a frame's enclosing frames never change): a
        closure n levels deep that uses a variable of the outermost level, at every level,
        walked the levels between at each use (quadratic: closures 16,000 deep took 12 s to
        run). Only captured variables are looked up this way, and runtime.liveness never
        drops those, so remembering them keeps nothing alive longer."""
        values = self.values
        if binder in values:
            return values[binder]
        passed = [values]
        frame = self.parent
        while frame is not None:
            found = frame.values
            if binder in found:
                value = found[binder]
                for table in passed:
                    table[binder] = value
                return value
            passed.append(found)
            frame = frame.parent
        raise KeyError(binder)

    def dim(self, sym: Symbol) -> Any:
        """The int (or, for `*b`, the tuple of ints) bound to a symbol; None when unbound."""
        found = self.dims.get(sym)
        return found if found is not None else self._enclosing("dims", sym)

    def bind_dim(self, sym: Symbol, value: Any) -> None:
        """Bind a symbol here."""
        self.dims[sym] = value
        self.bound.add(sym)

    def bind_dtype(self, var: object, dtype: str) -> None:
        """Bind a dtype variable here."""
        self.dtypes[var] = dtype
        self.bound.add(var)

    def own(self, symbols: tuple) -> None:
        """A cast here introduces these symbols: they are bound in this frame or nowhere (a
        lookup from here or below stops here), and bound afresh by the cast."""
        dims = self.dims
        seen = self.seen
        if seen is None:
            seen = self.seen = {}
        for sym in symbols:
            dims.pop(sym, None)
            seen[sym] = _OWN

    def _enclosing(self, table: str, key: Any) -> Any:
        """The innermost non-None entry for `key` in the table `table` (dims or dtypes) of
        this frame's `seen` or an enclosing frame, remembered in the `seen` of the frames
        passed on the way. None when none has one, when a frame that owns the symbol (`own`)
        is reached first, or when no frame of the tree ever bound it (`bound`). A frame binds
        a symbol once and keeps it, so what a frame below remembers stays true. Without
        these, a closure n levels deep that used a symbol of the outermost level at every
        level walked the levels between each time (quadratic), as did a symbol its own cast
        introduces, which no enclosing frame has, and a symbol a signature leaves unbound
        (`a` of `(a * b, 4)`: 8,000 levels took 100 s)."""
        if key not in self.bound:
            return None
        passed: list = []
        frame: Optional[Frame] = self
        while frame is not None:
            if frame is not self:
                found = getattr(frame, table).get(key)
                if found is not None:
                    break
            seen = frame.seen
            if seen is not None:
                found = seen.get(key)
                if found is _OWN:
                    return None
                if found is not None:
                    break
            passed.append(frame)
            frame = frame.parent
        else:
            return None
        for f in passed:
            if f.seen is None:
                f.seen = {}
            f.seen[key] = found
        return found

    @property
    def has_relations(self) -> bool:
        """Whether this frame or an enclosing one relates symbols (`Offsets`)."""
        return self.relations is not None or self.related is not None

    def start_relations(self) -> Offsets:
        """Give this frame its relations (at its entry, as a rule: the frames inside it, made
        later, find it through `related`). Where frames inside it exist already (a function
        value checked against its type in its defining frame), they would not: the tree is
        marked, and lookups in it go through every level. Returns the relations."""
        relations = self.relations = Offsets()
        if self.enclosing:
            self.bound.add(_LATE_RELATIONS)
        return relations

    def _related_frames(self) -> Iterator["Frame"]:
        """The frames, from this one out, that may hold relations."""
        if _LATE_RELATIONS in self.bound:
            yield from (f for f in self.levels() if f.relations is not None)  # type: ignore[misc, attr-defined]
            return
        frame = self if self.relations is not None else self.related
        while frame is not None:
            yield frame
            frame = frame.related

    def relation(self, sym: Symbol) -> Optional[tuple]:
        """(root, offset) of a symbol an entry's difference ties to another (`n8 = n6 + 1`);
        None where none does."""
        for frame in self._related_frames():
            found = frame.relations.root.get(sym)  # type: ignore[union-attr]
            if found is not None:
                return found
        return None

    def tied_to(self, root: Symbol) -> list:
        """(symbol, offset) of every symbol a relation ties to `root` (none when it is no root)."""
        for frame in self._related_frames():
            relations = frame.relations
            if root in relations.members:  # type: ignore[union-attr]
                return [(m, relations.root[m][1]) for m in relations.members[root]]  # type: ignore[union-attr]
        return []

    def dtype(self, var: object) -> Optional[str]:
        """The dtype bound to a dtype variable; None when unbound."""
        found = self.dtypes.get(var)
        return found if found is not None else self._enclosing("dtypes", var)

    def env(self) -> "DimEnv":
        """The bound symbols as a mapping (what `Poly.evaluate` takes)."""
        return DimEnv(self)


class Offsets:
    """Differences between symbols no cast has bound yet, as an entry states them (`%r: (n8 -
    n6,)` of size 1: n8 = n6 + 1): a union-find in which every member names its root and its
    offset from it. A class joins the larger one (each symbol moves O(log n) times), so a
    signature of n such differences costs O(n log n), and binding a root binds its members."""

    __slots__ = ("root", "members")

    def __init__(self) -> None:
        self.root: dict = {}  # a related symbol -> (its root, its offset from the root)
        self.members: dict = {}  # a root -> the symbols related to it

    def find(self, sym: Symbol) -> tuple:
        """(root, offset) of a symbol (a symbol no relation mentions is its own root)."""
        return self.root.get(sym, (sym, 0))

    def relate(self, x: Symbol, y: Symbol, difference: int) -> list:
        """Record x - y = difference for two symbols of different classes; the symbols whose
        root changed."""
        rx, ox = self.find(x)
        ry, oy = self.find(y)
        shift = difference - ox + oy  # rx = ry + shift
        if len(self.members.get(rx, ())) > len(self.members.get(ry, ())):
            rx, ry, shift = ry, rx, -shift
        moved = [(rx, 0)] + [(m, self.root[m][1]) for m in self.members.pop(rx, [])]
        for m, offset in moved:
            self.root[m] = (ry, offset + shift)
        self.members.setdefault(ry, []).extend(m for m, _ in moved)
        return [m for m, _ in moved]


class DimEnv(Mapping):
    """A read-only view of a frame's bound dimension symbols."""

    __slots__ = ("frame",)

    def __init__(self, frame: Frame) -> None:
        self.frame = frame

    def __getitem__(self, sym: Symbol) -> int:
        found = self.frame.dim(sym)
        if found is None or isinstance(found, tuple):
            raise KeyError(sym)
        return found

    def __iter__(self) -> Iterator:
        seen: set = set()
        frame: Optional[Frame] = self.frame
        while frame is not None:
            for sym in frame.dims:
                if sym not in seen:
                    seen.add(sym)
                    yield sym
            frame = frame.parent

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(eq=False)
class GlobalFunction:
    """`@name` as a value."""

    node: ast.Def

    def __repr__(self) -> str:
        return f"@{self.node.name}"


@dataclass(eq=False)
class Closure:
    """A `fn (...) { ... }` value with the frame it was created in."""

    node: ast.Fn
    frame: Frame

    def __repr__(self) -> str:
        return "<closure>"


@dataclass(eq=False)
class Wrapped:
    """A function passed through a function type: its arguments and result are checked at
    every call, blaming the caller for a bad argument and the function for a bad result."""

    inner: Any
    type: FuncType
    frame: Frame
    blame: Any

    def __repr__(self) -> str:
        return f"<{self.inner!r} checked as {self.type}>"


@dataclass(eq=False)
class RefCell:
    """A reference's mutable cell: its value and the type it must keep.

    Monotonic references (see gradual/checker/references.py): `type` is closed (no symbols: sizes
    are written in) and only ever becomes more precise, when a cast to a more precise
    reference type checks the value in the cell; every write is checked against it. So a
    value read from a cell always has every type any reference to the cell was checked at."""

    value: Any
    type: Type = DYN

    def __repr__(self) -> str:
        return f"<ref {self.type}>"


FUNCTION_VALUES = (GlobalFunction, Closure, Wrapped)


def is_function(value: Any) -> bool:
    """Whether a runtime value can be called."""
    return isinstance(value, FUNCTION_VALUES) or isinstance(value, ConstructorFunction)


def function_arity(value: Any) -> int:
    """How many arguments a function value takes."""
    if isinstance(value, Wrapped):
        return len(value.type.params)
    if isinstance(value, ConstructorFunction):
        return len(value.ctor.fields)
    return len(value.node.params)


_DTYPE_NAMES: dict = {}


def dtype_name(array: np.ndarray) -> str:
    """The language's name for an array's element type."""
    dtype = array.dtype
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


class AdtValue:
    """A value of an algebraic data type: the constructor that made it (a CtorInfo) and its
    fields. `checked` remembers the closed types a check found it to have (with every value
    inside it): a list checked against `List[Tensor[(?, 4), float32]]` is not walked again
    when its tail meets that type (a recursion over it would be quadratic)."""

    __slots__ = ("ctor", "fields", "checked")

    def __init__(self, ctor: Any, fields: tuple) -> None:
        self.ctor = ctor
        self.fields = fields
        self.checked: Optional[set] = None

    def __repr__(self) -> str:
        return f"AdtValue({self.ctor.name}, {len(self.fields)} fields)"


class ConstructorFunction:
    """A constructor used as a function value (`@foldr(Cons, %ys, %xs)`)."""

    __slots__ = ("ctor",)

    def __init__(self, ctor: Any) -> None:
        self.ctor = ctor


def describe_value(value: Any) -> str:
    """A value's runtime type as the language writes types: `Tensor[(2, 3), float32]`."""
    if isinstance(value, AdtValue):
        return f"a {value.ctor.adt.name} made by `{value.ctor.name}`"
    if isinstance(value, np.ndarray):
        shape = value.shape
        dims = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
        if not shape:
            return dtype_name(value)
        return f"Tensor[{dims}, {dtype_name(value)}]"
    if isinstance(value, tuple):
        inner = ", ".join(describe_value(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if is_function(value):
        return "a function"
    if isinstance(value, RefCell):
        return f"a reference to {describe_value(value.value)}"
    return type(value).__name__


def value_kind(value: Any) -> str:
    """`a tensor`, `a tuple of 2` or `a function`."""
    if isinstance(value, AdtValue):
        return f"a {value.ctor.adt.name}"
    if isinstance(value, np.ndarray):
        return "a tensor"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)}"
    if is_function(value):
        return "a function"
    if isinstance(value, RefCell):
        return "a reference"
    return "something else"


def flatten_outputs(value: Any) -> list:
    """A result as a flat list of outputs (tuples are flattened, as a graph executor does)."""
    if isinstance(value, tuple):
        return [leaf for field in value for leaf in flatten_outputs(field)]
    return [value]
