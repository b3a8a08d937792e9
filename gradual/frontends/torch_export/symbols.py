"""torch.export's symbolic sizes as gradual dims.

A size in the archive is an int or a SymPy expression in `srepr` form
(`Mul(Integer(2), Symbol('s27', positive=True, integer=True))`; older writers used `2*s27`).
It is parsed with Python's own `ast` module (no SymPy, nothing evaluated) into a builder `Dim`:
symbols stay symbols (`s27`), `Add`/`Mul`/`Pow` with an integer exponent/`FloorDiv` become dim
arithmetic, `Mod(a, m)` by a positive m is `a % m` (SymPy's Mod of an integer by a positive one
is floor division's remainder, as torch writes padding to a multiple: `Mod(4 - Mod(t, 4), 4)`),
a term times a negative number is subtracted within the sum it is a term of, `Min`/`Max` are
`min(a, b)`/`max(a, b)`, `CeilDiv(a, m)` and `CeilToInt(IntTrueDiv(a, m))` the quotient rounded
up and `FloorToInt(IntTrueDiv(a, m))` the one rounded down (by a positive constant m), anything
else an unknown dim `?`.

Symbols named `s<N>` are backed (a graph input's size), `u<N>` unbacked (data-dependent: the
row count of `nonzero`, the value of `.item()`). Range constraints (`s27` in `[2, 512]`) become
the bounds of the symbol where it is a graph input's dim.
"""

from __future__ import annotations

import ast as pyast
import re
from types import MappingProxyType
from typing import Any, Mapping, Optional

from gradual import builder as gb
from gradual.syntax import ast

#: torch's "infinity" bounds (int_oo) as serialized, and anything this large, mean "no bound"
UNBOUNDED = 2**62
MAX_EXPR_CHARS = 10_000
EMPTY: Mapping[str, int] = MappingProxyType({})
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def dim_of_size(size: Any, fixed: Mapping[str, int] = EMPTY) -> Any:
    """A serialized SymInt (`{"as_int": 3}` / `{"as_expr": {...}}`) as a dimension item for the
    builder: an int, a Dim, or None (`?`); a symbol in `fixed` is that value."""
    if not isinstance(size, dict):
        return None
    if isinstance(size.get("as_int"), int):
        return int(size["as_int"])
    expr = size.get("as_expr")
    if isinstance(expr, dict) and isinstance(expr.get("expr_str"), str):
        return parse_expr(expr["expr_str"], fixed)
    return None


def parse_expr(text: str, fixed: Mapping[str, int] = EMPTY) -> Any:
    """A symbolic size as an int, a Dim, or None when it is not a polynomial gradual writes
    (a symbol in `fixed` is that value)."""
    if len(text) > MAX_EXPR_CHARS:
        return None
    try:
        tree = pyast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        return _top(_Reader(fixed).read(tree.body))
    except (_NotADim, RecursionError):
        return None


def symbols_in(text: str) -> set:
    """The symbol names a serialized expression mentions."""
    return set(re.findall(r"Symbol\('([A-Za-z_][A-Za-z0-9_]*)'", text)) or {
        n for n in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if re.match(r"^[su]\d+$", n)
    }


class _NotADim(Exception):
    pass


class _Negated:
    """`-term` (SymPy's `Mul(Integer(-1), x)`): a dim only as a term of a sum, which subtracts it."""

    __slots__ = ("term",)

    def __init__(self, term: Any) -> None:
        self.term = term


class _Ratio:
    """`IntTrueDiv(a, m)` (SymPy's `a / m` as a real): a dim only rounded (`CeilToInt`, `FloorToInt`)."""

    __slots__ = ("num", "den")

    def __init__(self, num: Any, den: Any) -> None:
        self.num, self.den = num, den


def _dim(value: Any) -> Any:
    """A value that must be a dim or an int on its own (not a negated term, not a ratio)."""
    if isinstance(value, (_Negated, _Ratio)):
        raise _NotADim()
    return value


def _top(value: Any) -> Any:
    """The whole expression as a dim."""
    return _dim(value)


class _Reader:
    """Python syntax of a SymPy expression -> builder dims (ints where constant)."""

    def __init__(self, fixed: Mapping[str, int]) -> None:
        self.fixed = fixed

    def read(self, node: pyast.AST) -> Any:
        if isinstance(node, pyast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, pyast.Name) and _NAME.match(node.id):
            return self.fixed.get(node.id, symbol_dim(node.id))
        if isinstance(node, pyast.UnaryOp) and isinstance(node.op, pyast.USub):
            return self._mul([-1, self.read(node.operand)])
        if isinstance(node, pyast.BinOp):
            return self._binary(node)
        if isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name):
            return self._call(node.func.id, node.args)
        raise _NotADim()

    def _binary(self, node: pyast.BinOp) -> Any:
        left, right = self.read(node.left), self.read(node.right)
        if isinstance(left, _Ratio) or isinstance(right, _Ratio):
            raise _NotADim()  # a real inside arithmetic: `?`
        if isinstance(node.op, pyast.Add):
            return self._add([left, right])
        if isinstance(node.op, pyast.Sub):
            return self._add([left, self._mul([-1, right])])
        if isinstance(node.op, pyast.Mult):
            return self._mul([left, right])
        if isinstance(node.op, pyast.FloorDiv):
            return self._floordiv(left, right)
        if isinstance(node.op, pyast.Pow):
            return self._pow(left, right)
        if isinstance(node.op, pyast.Mod):
            return self._mod(left, right)
        raise _NotADim()

    def _call(self, name: str, args: list) -> Any:
        if name == "Symbol" and args and isinstance(args[0], pyast.Constant) and isinstance(args[0].value, str):
            if not _NAME.match(args[0].value):
                raise _NotADim()
            return self.fixed.get(args[0].value, symbol_dim(args[0].value))
        if name == "Integer" and len(args) == 1:
            value = self.read(args[0])
            if isinstance(value, int):
                return value
        values = [self.read(a) for a in args]
        if name not in ("CeilToInt", "FloorToInt") and any(isinstance(v, _Ratio) for v in values):
            raise _NotADim()  # a real inside arithmetic: `?`
        if name == "Add" and values:
            return self._add(values)
        if name == "Mul" and values:
            return self._mul(values)
        if name == "FloorDiv" and len(values) == 2:
            return self._floordiv(*values)
        if name == "Pow" and len(values) == 2:
            return self._pow(*values)
        if name == "Mod" and len(values) == 2:
            return self._mod(*values)
        if name in ("Min", "Max") and len(values) >= 2:
            return self._extreme(name == "Min", values)
        if name in ("IntTrueDiv", "TrueDiv") and len(values) == 2:
            return _Ratio(*values)
        if name in ("CeilToInt", "FloorToInt") and len(values) == 1 and isinstance(values[0], _Ratio):
            ratio = values[0]
            rounded = self._ceildiv if name == "CeilToInt" else self._floordiv
            return rounded(ratio.num, ratio.den)
        if name == "CeilDiv" and len(values) == 2:
            return self._ceildiv(*values)
        raise _NotADim()

    @staticmethod
    def _extreme(smaller: bool, values: list) -> Any:
        """Min / Max of sizes: `min(a, b)` / `max(a, b)` (of constants, the one)."""
        if any(isinstance(v, (_Negated, _Ratio)) for v in values):
            raise _NotADim()
        constants = [v for v in values if isinstance(v, int)]
        dims = [v for v in values if not isinstance(v, int)]
        if constants:
            constant = min(constants) if smaller else max(constants)
            if not dims:
                return constant
            if constant < 0:
                raise _NotADim()
            dims.append(constant)
        return gb.Dim.min(*dims) if smaller else gb.Dim.max(*dims)

    @staticmethod
    def _add(values: list) -> Any:
        positive = [v for v in values if not isinstance(v, _Negated)]
        negated = [v.term for v in values if isinstance(v, _Negated)]
        if not positive:
            raise _NotADim()
        total: Any = positive[0]
        for v in positive[1:]:
            if isinstance(v, int) and v < 0 and not isinstance(total, int):
                total = total - (-v)
            elif isinstance(total, int) and total < 0 and not isinstance(v, int):
                total = v - (-total)
            else:
                total = total + v
        for term in negated:
            total = (gb.Dim(ast.DimInt(total)) if isinstance(total, int) else total) - term
        return total

    @staticmethod
    def _mul(values: list) -> Any:
        constant = 1
        rest: Any = None
        for v in map(_dim, values):
            if isinstance(v, int):
                constant *= v
            else:
                rest = v if rest is None else rest * v
        if rest is None:
            return constant
        if constant < 0:
            return _Negated(rest if constant == -1 else -constant * rest)
        return rest if constant == 1 else constant * rest

    @staticmethod
    def _floordiv(left: Any, right: Any) -> Any:
        left, right = _dim(left), _dim(right)
        if not isinstance(right, int) or right <= 0:
            raise _NotADim()
        return left // right

    @classmethod
    def _mod(cls, left: Any, right: Any) -> Any:
        left, right = _dim(left), _dim(right)
        if not isinstance(right, int) or right <= 0:
            raise _NotADim()
        return left % right

    @staticmethod
    def _ceildiv(left: Any, right: Any) -> Any:
        left, right = _dim(left), _dim(right)
        if not isinstance(right, int) or right <= 0:
            raise _NotADim()
        if isinstance(left, int):
            return -(-left // right)
        return left.ceildiv(right)

    def _pow(self, base: Any, exponent: Any) -> Any:
        base, exponent = _dim(base), _dim(exponent)
        if not isinstance(exponent, int) or not 0 <= exponent <= 8:
            raise _NotADim()
        return self._mul([1] + [base] * exponent)


# ------------------------------------------------------------------------------------------------
# SYMBOLS ARE CREATED HERE, and only here. torch.export's `s0` is the exporter's claim that a dim
# is dynamic (spec §6), not a promise the user wrote: importer.Importer._declare_symbols marks
# the inputs' symbols as claims (a constraint the model puts on one is a `dim-constraint`
# warning plus a runtime check, an error under --strict-dims).
# ------------------------------------------------------------------------------------------------
def symbol_dim(name: str) -> gb.Dim:
    """The dimension for torch's symbol `name` (`s27`, `u0`)."""
    return gb.Dim(name)


def is_unbacked(name: str) -> bool:
    """Whether a symbol is data-dependent (torch names those `u<N>`)."""
    return name.startswith("u")


def fixed_values(ranges: Mapping[str, tuple]) -> dict:
    """The symbols a range constraint pins to one value (`s53` in 32..32: torch specialized the
    size while exporting with deferred runtime assertions): {name: value}."""
    return {name: lo for name, (lo, hi) in ranges.items() if lo == hi}


def bounds(constraint: Any) -> Optional[tuple]:
    """A range constraint (`{"min_val": 2, "max_val": 512}`) as (lo, hi) with hi None for
    unbounded; None when it says nothing beyond "a size" (lo <= 0 and no upper bound)."""
    if not isinstance(constraint, dict):
        return None
    lo, hi = constraint.get("min_val"), constraint.get("max_val")
    lo = lo if isinstance(lo, int) and not isinstance(lo, bool) and lo > 0 else 0
    hi = hi if isinstance(hi, int) and not isinstance(hi, bool) and 0 <= hi < UNBOUNDED else None
    if lo == 0 and hi is None:
        return None
    if hi is not None and hi < lo:
        return None
    return lo, hi
