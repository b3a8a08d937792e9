"""A jaxpr as a gradual program, built with the public builder only.

Each equation becomes one binding `%tN = op(...)` located at the user's Python line
(locations.py); sub-jaxprs of `jit`, `custom_jvp_call` and `custom_vjp_call` are inlined,
`cond` becomes `if`, `while` and `scan` recursive closures (a scan's stacked outputs written
step by step). A primitive gradual has no conversion for
becomes a call of the operator `jax.<name>`, which the checker reports (unknown-operator) at
the equation's line: the rest of the program is still checked. Shapes that primitives take as
parameters (`reshape`'s new sizes, `broadcast_in_dim`'s shape) are static lists where JAX's
are static, else int64 vectors whose known values are the symbolic dims (dims.py), built from
the parameters' own shapes. The jaxpr's constants, and literals the language cannot write
(`-inf`), are parameters whose values `JaxProgram.run` passes.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from gradual import builder as gb
from gradual.frontends.jax import dims
from gradual.frontends.jax.locations import Locator, at

Handler = Callable[["Converter", Any, list, Optional[gb.Loc]], Any]

#: primitive name -> conversion (filled by primitives.py)
PRIMITIVES: dict = {}

#: primitives whose sub-jaxpr is the computation (inlined), and the parameter holding it
CALLS = {
    "jit": "jaxpr",
    "pjit": "jaxpr",
    "closed_call": "call_jaxpr",
    "core_call": "call_jaxpr",
    "custom_jvp_call": "call_jaxpr",
    "custom_vjp_call": "call_jaxpr",
    "custom_vjp_call_jaxpr": "fun_jaxpr",
    "remat": "jaxpr",
    "remat2": "jaxpr",
    "checkpoint": "jaxpr",
    "custom_lin": None,
}


#: primitives whose result is worked out while converting when every operand is a known small
#: constant (the index vectors jnp builds for `x[1:]`: a literal broadcast, concatenated)
FOLDABLE = frozenset({"broadcast_in_dim", "concatenate", "convert_element_type", "reshape", "squeeze", "expand_dims"})
#: the most elements a folded value may have
FOLD_LIMIT = 64


def dtype_of(aval: Any) -> str:
    """An abstract value's dtype as gradual names it."""
    dtype = aval.dtype
    found = _DTYPE_NAMES.get(dtype)
    if found is None:
        found = _DTYPE_NAMES[dtype] = str(np.dtype(dtype).name)
    return found


_DTYPE_NAMES: dict = {}


def _is_literal(v: Any) -> bool:
    return type(v).__name__ == "Literal"


def _is_drop(v: Any) -> bool:
    return type(v).__name__ == "DropVar"


class Converter:
    """Converts the equations of one jaxpr (and those it calls) into one function."""

    def __init__(self, function: gb.Function, locator: Locator, default_loc: Optional[gb.Loc]) -> None:
        self.function = function
        self.locator = locator
        self.default_loc = default_loc
        self.env: dict = {}
        self.constants: dict = {}  # parameter name -> value
        self.known: dict = {}  # jaxpr variable -> its value, where FOLDABLE made it of constants
        self.counter = 0
        self.symbol_sources: dict = {}  # symbol -> (input expression, axis)
        self.symbol_values: dict = {}  # symbol -> the bound int64 vector holding its size
        self.loop_count = 0
        #: the location of the call whose sub-jaxpr is being inlined (its equations' own
        #: where JAX recorded no user frame: a library function traced once and cached)
        self.caller_place: Optional[tuple] = None

    # names and values ---------------------------------------------------------------------
    def fresh(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def constant(self, value: Any, aval: Any = None) -> gb.Var:
        """A constant as a parameter (its value passed when run)."""
        array = np.asarray(value)
        if aval is not None:
            array = array.astype(np.dtype(aval.dtype), copy=False)
        name = self.fresh("k")
        self.constants[name] = array
        return self.function.param(name, gb.Tensor(list(array.shape), array.dtype.name), loc=self.default_loc)

    def read(self, v: Any) -> Any:
        """A jaxpr operand as an expression."""
        if _is_literal(v):
            value = np.asarray(v.val)
            dtype = dtype_of(v.aval)
            if value.ndim == 0 and (value.dtype.kind != "f" or np.isfinite(value)):
                return gb.const(value.item(), dtype)
            return self.constant(value, v.aval)
        return self.env[v]

    def bind(self, block: gb.Block, outvars: list, result: Any, loc: Optional[gb.Loc]) -> None:
        """Bind an equation's results: one expression, or a list of them (one per output)."""
        if not isinstance(result, list):
            if len(outvars) == 1:
                result = [result]
            else:
                holder = block.let(self.fresh(), result, loc=loc)
                result = [gb.proj(holder, i, loc=loc) for i in range(len(outvars))]
        for var, expr in zip(outvars, result):
            if _is_drop(var):
                continue
            if isinstance(expr, gb.Var) and expr.bound:
                self.env[var] = expr
            else:
                self.env[var] = block.let(self.fresh(), expr, loc=loc)

    # jaxprs -------------------------------------------------------------------------------
    def inline(self, jaxpr: Any, args: list, block: gb.Block) -> list:
        """The outputs of a jaxpr applied to `args` (its constvars first, then invars)."""
        for var, arg in zip(list(jaxpr.constvars) + list(jaxpr.invars), args):
            self.env[var] = arg
        for eqn in jaxpr.eqns:
            self.equation(eqn, block)
        return [self.read(v) for v in jaxpr.outvars]

    def closed(self, closed: Any, args: list, block: gb.Block) -> list:
        """The outputs of a closed jaxpr (its constants as parameters) applied to `args`."""
        consts = [self.constant(c) for c in getattr(closed, "consts", ())]
        return self.inline(closed.jaxpr, consts + list(args), block)

    def equation(self, eqn: Any, block: gb.Block) -> None:
        place = self.locator.place(eqn) or self.caller_place
        loc = at(place, eqn) if place is not None else self.default_loc
        name = eqn.primitive.name
        ins = [self.read(v) for v in eqn.invars]
        if name in CALLS and CALLS[name] is not None and CALLS[name] in eqn.params:
            sub = eqn.params[CALLS[name]]
            outer, self.caller_place = self.caller_place, place
            try:
                outs = self.closed(sub, ins, block) if hasattr(sub, "jaxpr") else self.inline(sub, ins, block)
            finally:
                self.caller_place = outer
            for var, expr in zip(eqn.outvars, outs):
                if not _is_drop(var):
                    self.env[var] = expr
            return
        if name in FOLDABLE:
            self._fold(eqn)
        handler = PRIMITIVES.get(name)
        try:
            result = handler(self, eqn, ins, loc) if handler is not None else None
        except dims.NotADim:
            result = None
        if result is None:  # no conversion: the checker reports the operator at this line
            result = gb.call(unknown_operator(name), *ins, loc=loc)
        self.bind(block, list(eqn.outvars), result, loc)

    def known_value(self, v: Any) -> Any:
        """The value of a jaxpr operand known while converting (a literal, or FOLDABLE of
        known ones), else None."""
        if _is_literal(v):
            return np.asarray(v.val)
        return self.known.get(v)

    def _fold(self, eqn: Any) -> None:
        """Work out a FOLDABLE equation of known small constants with JAX itself."""
        values = [self.known_value(v) for v in eqn.invars]
        out = eqn.outvars[0]
        if any(v is None for v in values) or len(eqn.outvars) != 1 or _is_drop(out):
            return
        shape = tuple(out.aval.shape)
        if not all(isinstance(d, int) for d in shape) or int(np.prod(shape)) > FOLD_LIMIT:
            return
        try:
            self.known[out] = np.asarray(eqn.primitive.bind(*values, **eqn.params))
        except Exception:  # noqa: BLE001 - not foldable here: converted as any other equation
            return

    # shapes as values ---------------------------------------------------------------------
    def note_input(self, expr: Any, shape: tuple) -> None:
        """Symbols an input's dims are, as the sources of their sizes (first one wins)."""
        for axis, d in enumerate(shape):
            if dims.static_value(d) is None and str(d).isidentifier() and str(d) not in self.symbol_sources:
                self.symbol_sources[str(d)] = (expr, axis)

    def shape_value(self, shape: tuple, loc: Optional[gb.Loc], block: gb.Block) -> Any:
        """An int64 vector whose known value is `shape` (dims static or symbolic)."""
        parts = [self.dim_value(d, loc, block) for d in shape]
        if not parts:
            return gb.call("onnx.constant", values=[], shape=[0], dtype="int64", loc=loc)
        return gb.call("concatenate", gb.tuple_(*parts, loc=loc), axis=0, loc=loc)

    def dim_value(self, d: Any, loc: Optional[gb.Loc], block: gb.Block) -> Any:
        """A one-element int64 vector holding a dim's size."""
        value = dims.static_value(d)
        if value is not None:
            return self.int_vector(value, loc)

        def leaf(item: Any) -> Any:
            if isinstance(item, int):
                return self.int_vector(item, loc)
            return self.symbol_value(item, loc)

        ops = {
            "+": lambda a, b: gb.call("add", a, b, loc=loc),
            "-": lambda a, b: gb.call("subtract", a, b, loc=loc),
            "*": lambda a, b: gb.call("multiply", a, b, loc=loc),
            "floordiv": lambda a, b: gb.call("floor_divide", a, b, loc=loc),
            "mod": lambda a, b: gb.call("onnx.mod", a, b, loc=loc),
            "max": lambda a, b: gb.call("maximum", a, b, loc=loc),
            "min": lambda a, b: gb.call("minimum", a, b, loc=loc),
        }
        return dims.fold(dims.parse(d), leaf, ops)

    def int_vector(self, value: int, loc: Optional[gb.Loc]) -> Any:
        return gb.call("onnx.constant", values=[int(value)], shape=[1], dtype="int64", loc=loc)

    def symbol_value(self, name: str, loc: Optional[gb.Loc]) -> Any:
        found = self.symbol_values.get(name)
        if found is not None:
            return found
        source = self.symbol_sources.get(name)
        if source is None:
            raise dims.NotADim(f"no input has the dim {name}")
        expr, axis = source
        size = gb.call("shape_of", expr, dtype="int64", loc=self.default_loc)
        value = gb.call("strided_slice", size, begin=[axis], end=[axis + 1], loc=self.default_loc)
        var = self.function.let(self.fresh("size_"), value, loc=self.default_loc)
        self.symbol_values[name] = var
        return var


def unknown_operator(primitive: str) -> str:
    """The operator name a primitive without a conversion is called as (`jax.cumsum`)."""
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in primitive) or "primitive"
    return f"jax.{safe if not safe[0].isdigit() else '_' + safe}"
