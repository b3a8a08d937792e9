"""JAX's symbolic dimensions (`jax.export.symbolic_shape`) as gradual dims and shape values.

A JAX dim is an int or a symbolic expression whose text is Python syntax over its symbols:
`b`, `2*b + 1`, `floordiv(b, 2)`, `mod(b, 4)`, `max(b, 1)`, `min(b, s)`, `non_negative(b - 4)`.
The text is read with Python's own `ast` module (nothing evaluated) into a builder `Dim`
(for types) or into operator calls on int64 vectors whose known values are the dims (for the
shapes that primitives such as `reshape` and `broadcast_in_dim` take as parameters).
"""

from __future__ import annotations

import ast as pyast
from typing import Any, Callable, Optional

from gradual import builder as gb


class NotADim(Exception):
    """A dimension gradual cannot write (a construct of JAX's it does not know)."""


def is_static(d: Any) -> bool:
    """Whether a JAX dim is a known size."""
    return isinstance(d, int) or hasattr(d, "__index__") and _try_int(d) is not None


def _try_int(d: Any) -> Optional[int]:
    try:
        return int(d)
    except Exception:  # noqa: BLE001 - a symbolic dim refuses int()
        return None


def static_value(d: Any) -> Optional[int]:
    """The size of a static dim, None for a symbolic one."""
    if isinstance(d, int):
        return d
    return _try_int(d) if _text(d).lstrip("-").isdigit() else None


def _text(d: Any) -> str:
    return str(d)


def parse(d: Any) -> pyast.expr:
    """The syntax of a JAX dim's text."""
    try:
        return pyast.parse(_text(d), mode="eval").body
    except (SyntaxError, ValueError, RecursionError) as exc:
        raise NotADim(str(d)) from exc


def symbols(d: Any) -> set:
    """The names a JAX dim mentions."""
    if static_value(d) is not None:
        return set()
    return {n.id for n in pyast.walk(parse(d)) if isinstance(n, pyast.Name)}


def fold(node: pyast.expr, leaf: Callable[[Any], Any], ops: dict) -> Any:
    """Evaluate a dim's syntax: `leaf` maps an int or a name to a value, `ops[name](*values)`
    computes `+ - * floordiv mod max min non_negative`."""
    if isinstance(node, pyast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return leaf(node.value)
    if isinstance(node, pyast.Name):
        return leaf(node.id)
    if isinstance(node, pyast.UnaryOp) and isinstance(node.op, pyast.USub):
        return ops["-"](leaf(0), fold(node.operand, leaf, ops))
    if isinstance(node, pyast.BinOp):
        kind = {pyast.Add: "+", pyast.Sub: "-", pyast.Mult: "*", pyast.FloorDiv: "floordiv", pyast.Mod: "mod"}.get(
            type(node.op)
        )
        if kind is None:
            raise NotADim(pyast.unparse(node))
        return ops[kind](fold(node.left, leaf, ops), fold(node.right, leaf, ops))
    if isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name) and not node.keywords:
        name = node.func.id
        args = [fold(a, leaf, ops) for a in node.args]
        if name in ("floordiv", "mod", "max", "min") and len(args) == 2:
            return ops[name](*args)
        if name == "non_negative" and len(args) == 1:
            return ops["max"](args[0], leaf(0))
    raise NotADim(pyast.unparse(node))


_DIM_OPS: dict = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "floordiv": lambda a, b: _dim_floordiv(a, b),
    "mod": lambda a, b: _dim_mod(a, b),
    "max": lambda a, b: max(a, b) if isinstance(a, int) and isinstance(b, int) else gb.Dim.max(a, b),
    "min": lambda a, b: min(a, b) if isinstance(a, int) and isinstance(b, int) else gb.Dim.min(a, b),
}


def _dim_floordiv(a: Any, b: Any) -> Any:
    if not isinstance(b, int) or b <= 0:
        raise NotADim("a quotient by a symbolic or non-positive divisor")
    return a // b if not isinstance(a, int) else a // b


def _dim_mod(a: Any, b: Any) -> Any:
    if not isinstance(b, int) or b <= 0:
        raise NotADim("a remainder by a symbolic or non-positive divisor")
    return a % b


def _leaf(value: Any) -> Any:
    if isinstance(value, int):
        return value
    return gb.Dim(value)


def to_dim(d: Any) -> Any:
    """A JAX dim as a shape item for `gb.Tensor`: an int or a `gb.Dim` (None: one gradual
    cannot write, which the type leaves unknown)."""
    value = static_value(d)
    if value is not None:
        return value
    try:
        result = fold(parse(d), _leaf, _DIM_OPS)
    except NotADim:
        return None
    if isinstance(result, int):
        return result if result >= 0 else None
    return result


def shape_type(shape: tuple, dtype: str) -> Any:
    """A JAX shape and dtype as a tensor type."""
    return gb.Tensor([to_dim(d) for d in shape], dtype)
