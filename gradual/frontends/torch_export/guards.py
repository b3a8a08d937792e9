"""torch.export's guards, written over gradual's symbols, to set beside what gradual derives.

An archive keeps the guards torch.export assumed while tracing (`guards_code`): Python
expressions over the example inputs' sizes, `(32*L['x'].size()[1]) == (64*(L['x'].size()[1] //
2))`, which torch checks when the exported module is called. They are text from the file: they
are never evaluated, only rewritten so that `L['x'].size()[1]` reads as the symbol (or size) the
graph records for that dim: `(32*s27) == (64*(s27 // 2))`. A program exported with
`prefer_deferred_runtime_asserts_over_guards=True` keeps them in the graph instead, as
`_assert_scalar` nodes whose message names the expression (`Eq(s27, 2*((s27//2)))`).
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Optional

MAX_GUARD_CHARS = 2_000
_SIZE = re.compile(r"L\['([^'\]]{1,200})'\]\.size\(\)\[(\d{1,4})\]")
_SYMBOL = re.compile(r"\b[su]\d+\b")
_ASSERTED = re.compile(r"for expression (.{1,2000}?) on node '")


def rewritten(guards: Iterable[str], size_text: Callable[[str, int], str | None]) -> list:
    """The guards with each `L['x'].size()[i]` replaced by `size_text(x, i)` (kept where that
    is None); guards too long to show are left out."""

    def replace(match: re.Match) -> str:
        text = size_text(match.group(1), int(match.group(2)))
        return match.group(0) if text is None else text

    return [_SIZE.sub(replace, g) for g in guards if isinstance(g, str) and len(g) <= MAX_GUARD_CHARS]


def mentioning(guards: Iterable[str], names: Iterable[str]) -> list:
    """The guards that mention one of the symbol names, those that mention more of them first
    (the one a note cites is about the whole constraint, not the batch alone); a guard that
    reads `s17 == s17` once rewritten (two inputs' batch dims are one symbol) says nothing."""
    wanted = set(names)
    found = []
    for guard in guards:
        shared = wanted.intersection(_SYMBOL.findall(guard))
        if shared and not _says_nothing(guard):
            found.append((len(shared), guard))
    found.sort(key=lambda pair: -pair[0])  # stable: torch's order among equals
    return [guard for _, guard in found]


def _says_nothing(guard: str) -> bool:
    """Whether a guard is `a == a`."""
    sides = guard.split("==")
    return len(sides) == 2 and _bare(sides[0]) == _bare(sides[1])


def _bare(text: str) -> str:
    """An expression without spaces and without parentheses around the whole of it."""
    text = text.replace(" ", "")
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def asserted(messages: Iterable[str]) -> list:
    """The expressions of torch.export's deferred runtime assertions, from their messages
    (`Runtime assertion failed for expression Eq(s27, 2*((s27//2))) on node 'eq'`)."""
    found = (_ASSERTED.search(m) for m in messages if isinstance(m, str))
    return [m.group(1) for m in found if m is not None]


def equated(guards: Iterable[str]) -> list:
    """The pairs of symbols that a guard (or a deferred assertion) makes equal: `s14 == s57`,
    `(s14 + s27) == (s27 + s57)`, `Eq(s14, s57)`; a guard whose two sides are linear in the
    symbols and differ by `c * (a - b)` equates `a` and `b`. Anything else says nothing here."""
    pairs = []
    for guard in guards:
        sides = _sides(guard)
        if sides is None:
            continue
        left, right = (_linear(side) for side in sides)
        if left is None or right is None:
            continue
        difference = dict(left)
        for name, coefficient in right.items():
            difference[name] = difference.get(name, 0) - coefficient
        terms = {name: c for name, c in difference.items() if c}
        names = sorted(n for n in terms if n != 1)
        if len(terms) == 2 and len(names) == 2 and terms[names[0]] == -terms[names[1]]:
            pairs.append((names[0], names[1]))
    return pairs


def inequalities(guards: Iterable[str]) -> list:
    """The inequalities a guard states, as (smaller, larger, gap) texts with `larger - smaller
    - gap >= 0`: `s12 <= s3` is ("s12", "s3", 0), `a < b` has gap 1, and a conjunction
    (`x >= 0 and x <= s53`, as torch guards a slice's bounds) gives each of its parts.
    Anything else (`!=`, `or`, chains) says nothing here."""
    import ast as pyast

    found = []
    for guard in guards:
        if not isinstance(guard, str) or len(guard) > MAX_GUARD_CHARS:
            continue
        try:
            work = [pyast.parse(guard.strip(), mode="eval").body]
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        while work:
            tree = work.pop()
            if isinstance(tree, pyast.BoolOp) and isinstance(tree.op, pyast.And):
                work.extend(reversed(tree.values))
            elif isinstance(tree, pyast.Compare) and len(tree.ops) == 1:
                found.extend(_inequality(tree))
    return found


def _inequality(tree: object) -> list:
    """[(smaller, larger, gap)] of one comparison `a op b` (none for == and !=)."""
    import ast as pyast

    op, left, right = tree.ops[0], tree.left, tree.comparators[0]  # type: ignore[attr-defined]
    try:
        a, b = pyast.unparse(left), pyast.unparse(right)
    except (ValueError, RecursionError):
        return []
    if isinstance(op, (pyast.LtE, pyast.Lt)):
        return [(a, b, 1 if isinstance(op, pyast.Lt) else 0)]
    if isinstance(op, (pyast.GtE, pyast.Gt)):
        return [(b, a, 1 if isinstance(op, pyast.Gt) else 0)]
    return []


def _sides(guard: str) -> tuple | None:
    """The two sides of `a == b` or `Eq(a, b)` as Python syntax trees, else None."""
    import ast as pyast

    if not isinstance(guard, str) or len(guard) > MAX_GUARD_CHARS:
        return None
    try:
        tree = pyast.parse(guard.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if isinstance(tree, pyast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], pyast.Eq):
        return tree.left, tree.comparators[0]
    if (
        isinstance(tree, pyast.Call)
        and isinstance(tree.func, pyast.Name)
        and tree.func.id == "Eq"
        and len(tree.args) == 2
        and not tree.keywords
    ):
        return tree.args[0], tree.args[1]
    return None


def _linear(node: object) -> dict | None:
    """A sum of integer multiples of backed symbols (`s27`) and a constant, as {name: c, 1: c};
    None for anything else. Iterative: a 10,000-term guard does not recurse."""
    import ast as pyast

    total: dict = {}
    work = [(node, 1)]
    while work:
        item, sign = work.pop()
        if isinstance(item, pyast.Constant) and isinstance(item.value, int) and not isinstance(item.value, bool):
            total[1] = total.get(1, 0) + sign * item.value
        elif isinstance(item, pyast.Name) and re.fullmatch(r"s\d+", item.id):
            total[item.id] = total.get(item.id, 0) + sign
        elif isinstance(item, pyast.UnaryOp) and isinstance(item.op, pyast.USub):
            work.append((item.operand, -sign))
        elif isinstance(item, pyast.BinOp) and isinstance(item.op, (pyast.Add, pyast.Sub)):
            work.append((item.left, sign))
            work.append((item.right, sign if isinstance(item.op, pyast.Add) else -sign))
        elif isinstance(item, pyast.BinOp) and isinstance(item.op, pyast.Mult):
            factor: Optional[int] = None
            other: object = None
            for s, rest in ((item.left, item.right), (item.right, item.left)):
                if isinstance(s, pyast.Constant) and isinstance(s.value, int) and not isinstance(s.value, bool):
                    factor, other = s.value, rest
                    break
            if factor is None:
                return None
            work.append((other, sign * factor))
        else:
            return None
    return total
