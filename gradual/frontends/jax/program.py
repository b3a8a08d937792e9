"""A traced JAX function as a gradual program: `convert`, `abstract`, `JaxProgram` (the package
docstring describes them)."""

from __future__ import annotations

import contextlib
import gc
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

import numpy as np

import gradual
from gradual import builder as gb
from gradual.frontends.jax import dims, messages
from gradual.frontends.jax import primitives as _primitives  # noqa: F401  (registers the conversions)
from gradual.frontends.jax.converter import Converter, dtype_of, unknown_operator
from gradual.frontends.jax.locations import Locator, at

__all__ = ["JaxProgram", "abstract", "convert", "convert_jaxpr", "unknown_operator"]


@dataclass
class JaxProgram:
    """A JAX function as a gradual program: `module` (built), `inputs` (the parameter names of
    the function's flattened arguments, in order), `constants` (the other parameters' values:
    the jaxpr's constants), `jaxpr` (JAX's ClosedJaxpr) and its `out_avals`."""

    module: Any
    inputs: list
    constants: dict
    jaxpr: Any
    out_avals: list
    name: str = "main"
    _result: Optional[Any] = field(default=None, repr=False)

    def check(self) -> Any:
        """The gradual.CheckResult of the program (checked once)."""
        if self._result is None:
            self._result = gradual.check(self.module)
        return self._result

    def run(self, *args: Any) -> list:
        """Run on gradual's runtime with the function's (flattened) arguments as arrays;
        the outputs as NumPy arrays."""
        leaves = _leaves(args)
        if len(leaves) != len(self.inputs):
            raise TypeError(f"{self.name} takes {len(self.inputs)} arrays (flattened), not {len(leaves)}")
        values = {name: np.asarray(value) for name, value in zip(self.inputs, leaves)}
        values.update(self.constants)
        run: Any = gradual.run  # loaded with the runtime, on first use
        return [np.asarray(v) for v in run(self.check(), values, entry=self.name)]

    def types(self) -> list:
        """The inferred types of the outputs (gradual's), as text."""
        function = self.check().function_type(self.name)
        if function is None:
            return []
        ret = function.ret
        fields = getattr(ret, "fields", None)
        return [str(t) for t in fields] if fields is not None and len(self.out_avals) != 1 else [str(ret)]


def _leaves(args: Any) -> list:
    import jax

    return list(jax.tree_util.tree_leaves(args))


def abstract(*specs: Any) -> list:
    """Arguments as `jax.ShapeDtypeStruct`s: a spec string `"b, 784 float32"` (one symbolic
    scope for all of them; see `parse_spec`), an array, or a ShapeDtypeStruct (as it is)."""
    import jax
    from jax import export

    scope = export.SymbolicScope()
    out = []
    for spec in specs:
        if isinstance(spec, str):
            out.append(parse_spec(spec, scope))
        elif hasattr(spec, "shape") and hasattr(spec, "dtype"):
            out.append(spec if isinstance(spec, jax.ShapeDtypeStruct) else jax.ShapeDtypeStruct(spec.shape, spec.dtype))
        else:
            out.append(spec)
    return out


def parse_spec(spec: str, scope: Any = None) -> Any:
    """`"b, 784 float32"` as a `jax.ShapeDtypeStruct`: the shape as `jax.export.symbolic_shape`
    reads it (`b, 784`, `(b, 784)`, `2*b`; empty or `()` for a scalar), then the dtype's name
    (float32 when left out: `"b, 784"`). A ValueError says what cannot be read."""
    import jax
    from jax import export

    text, _, last = spec.strip().rpartition(" ")
    dtype = _dtype_named(last)
    if dtype is None:
        text = spec.strip()
        dtype = _dtype_named("float32")
    try:
        shape = export.symbolic_shape(text, scope=scope) if text.strip() else ()
    except Exception as exc:  # noqa: BLE001 - JAX's parser raises ValueError, and others on odd text
        reason = str(exc).split("\n", 1)[0].strip() or type(exc).__name__
        raise ValueError(f"the shape `{text.strip()}` does not read as dims ({reason})") from None
    return jax.ShapeDtypeStruct(shape, dtype)


def _dtype_named(word: str) -> Any:
    """The dtype whose canonical name is `word` (`float32`, `bfloat16`), else None: a dim such
    as `b` is no dtype, though NumPy reads `b` as int8."""
    import jax.numpy as jnp

    if not word.isidentifier():
        return None
    try:
        dtype = jnp.dtype(word)
    except TypeError:
        return None
    return dtype if dtype.name == word else None


def convert(fn: Callable, *args: Any, name: str = "main") -> JaxProgram:
    """Trace `fn` on abstract arguments (see `abstract`) and convert its jaxpr."""
    import jax

    if not callable(fn):
        raise TypeError(f"gradual.frontends.jax.convert takes a function, not {type(fn).__name__}")
    specs = abstract(*args)
    locator = Locator()
    default_loc = _definition_loc(fn)
    try:
        closed = jax.make_jaxpr(fn)(*specs)
    except Exception as exc:  # noqa: BLE001 - whatever tracing raises is the traced code's (or JAX's rules')
        traced = getattr(inspect.unwrap(fn), "__qualname__", None) or name
        frames = locator.exception_frames(exc)
        where = at(frames[0][0], exc) if frames else default_loc
        return _failed_trace(exc, where, traced, name, frames[1:])
    return convert_jaxpr(closed, _input_names(fn, specs, len(closed.jaxpr.invars)), name, default_loc, locator)


def convert_jaxpr(
    closed: Any,
    names: Optional[list] = None,
    name: str = "main",
    default_loc: Optional[gb.Loc] = None,
    locator: Optional[Locator] = None,
) -> JaxProgram:
    """Convert a ClosedJaxpr (`jax.make_jaxpr(fn)(*args)`); `names` name its inputs (`arg0`,
    ... by default), `default_loc` locates what has no line of its own (the inputs)."""
    with _collection_paused():
        return _convert_jaxpr(closed, names, name, default_loc, locator or Locator())


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while converting (as gradual pauses it while
    checking): building a program makes many objects while a large jaxpr stays alive, and
    repeated full collections cost more than the conversion."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _convert_jaxpr(
    closed: Any, names: Optional[list], name: str, default_loc: Optional[gb.Loc], locator: Locator
) -> JaxProgram:
    function = gb.Function(name)
    converter = Converter(function, locator, default_loc)
    jaxpr = closed.jaxpr
    names = names or [f"arg{i}" for i in range(len(jaxpr.invars))]
    inputs = []
    for var, param in zip(jaxpr.invars, names):
        aval = var.aval
        expr = function.param(param, dims.shape_type(tuple(aval.shape), dtype_of(aval)), loc=default_loc)
        converter.env[var] = expr
        converter.note_input(expr, tuple(aval.shape))
        inputs.append(param)
    consts = [converter.constant(value) for value in closed.consts]
    outs = converter.inline(jaxpr, consts + [converter.env[v] for v in jaxpr.invars], function)
    result = outs[0] if len(outs) == 1 else gb.tuple_(*outs, loc=default_loc)
    module = gb.module(function.returns(result))
    return JaxProgram(module, inputs, converter.constants, closed, list(closed.out_avals), name)


def _failed_trace(
    exc: BaseException, loc: Optional[gb.Loc], traced: str, name: str, callers: Optional[list] = None
) -> JaxProgram:
    """A function JAX could not trace (its own shape rules refused an operation, or the
    function's code raised): the error as a diagnostic at the user's line (`op-constraint`,
    the exception as its data)."""
    import jax

    where = loc if loc is not None else gb.Loc("<jax>", "the traced function")
    shape_rule = isinstance(exc, (TypeError, ValueError, ArithmeticError, IndexError, jax.errors.JAXTypeError))
    diagnostic = messages.trace_failed(exc, where.span, traced, shape_rule, callers or [])
    program = JaxProgram(None, [], {}, None, [], name)
    program._result = gradual.CheckResult(None, None, [diagnostic])
    return program


def _input_names(fn: Callable, specs: list, count: int) -> list:
    """Parameter names for the flattened arguments: the function's own where each argument is
    one array, else `name_i` for the leaves of a structured one."""
    import jax

    try:
        own = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        own = []
    names: list = []
    for i, spec in enumerate(specs):
        base = own[i].name if i < len(own) else f"arg{i}"
        base = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in base)
        leaves = jax.tree_util.tree_leaves(spec)
        names += [base] if len(leaves) == 1 else [f"{base}_{j}" for j in range(len(leaves))]
    while len(names) < count:
        names.append(f"arg{len(names)}")
    seen: set = set()
    unique = []
    for n in names[:count]:
        while n in seen:
            n += "_"
        seen.add(n)
        unique.append(n)
    return unique


def _definition_loc(fn: Callable) -> Optional[gb.Loc]:
    """The line that defines `fn` (where its parameters and constants are located)."""
    try:
        fn = inspect.unwrap(fn)  # a `jax.jit` of a function: the function's own line
        path = inspect.getsourcefile(fn)
        _, line = inspect.getsourcelines(fn)
    except (TypeError, OSError, ValueError):
        return None
    return gb.Loc.at(path, max(line, 1), 1) if path else None
