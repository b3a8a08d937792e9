"""A lean LALR driver over the tables and callbacks lark builds for the grammar, kept so
that parsing needs no lark at all until a syntax error.

lark's own driver spends most of a parse on bookkeeping that a well-formed program does not
need: it hashes each grammar rule to find its callback, looks up the rule's size and origin
at every reduction, and routes each token through a `ParserState`. Here every action is
precomputed once per parser: a shift is the next state (an int), a reduction is the tuple
(rule size, callback, nonterminal, kept children). The loop then only indexes lists and dicts.

`describe_tables` reads lark's tables and callbacks into plain data (ints, strings, tuples:
what marshal writes), which the parser keeps in the user's cache; `Tables(description,
builder)` binds that data to the AST builder's methods. Importing lark (a fifth of a start)
and building its parser are then only paid by the first start, and by a syntax error: then
the caller parses the text again with lark's driver, which produces the error exactly as
before (expected tokens, interactive parser).
"""

from __future__ import annotations

import functools
import itertools
import sys
from typing import Any, Callable, Iterator, Optional

#: the version of what `describe_tables` writes (a cached description of another is rebuilt)
FORMAT = 1


#: the parse table: per state, per symbol, the action (the state a shift goes to, an int, or a
#: reduction, see `_reduction`). Data marshal writes, decoded by the loop of `drive`.
Rows = dict[int, dict[str, Any]]

#: a reduction as data: (size, callback spec, nonterminal, kept children)
Reduction = tuple[int, Any, str, Optional[tuple[int, ...]]]


class SyntaxRejected(Exception):
    """The fast driver met input the grammar does not accept (the caller re-parses)."""


def describe_tables(lark_parser: Any) -> dict[str, Any]:
    """lark's LALR tables, each reduction's callback as data (see `Tables`), and the string
    terminals the lexer needs; ValueError for a callback this driver does not know."""
    from lark.parsers.lalr_analysis import Shift

    inner = lark_parser.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
    table = inner.parse_table
    rows: Rows = {}
    for state, actions in table.states.items():
        row: dict[str, Any] = {}
        for symbol, (action, arg) in actions.items():
            row[_plain(symbol)] = arg if action is Shift else _reduction(arg, inner.callbacks[arg])
        rows[state] = row
    literals = {
        _plain(t.pattern.value): _plain(t.name) for t in lark_parser.lexer_conf.terminals if t.pattern.type == "str"
    }
    return {
        "format": FORMAT,
        "rows": rows,
        "literals": literals,
        "start": {_plain(k): v for k, v in table.start_states.items()},
        "end": {_plain(k): v for k, v in table.end_states.items()},
    }


def _plain(name: str) -> str:
    """A symbol name as an exact `str`: lark names nonterminals with its Token (a str
    subclass whose Python `__eq__` each dict lookup would call)."""
    return sys.intern(str.__str__(name))


def _reduction(rule: Any, callback: Any) -> Reduction:
    """(size, callback, nonterminal, kept) with the callback as data:

    * None: a `?rule` of one symbol, whose value is its child's (lark's ExpandSingleChild);
    * ("call", name): the builder's method `name`, given the `kept` children (None: all;
      lark's filter only drops tokens such as punctuation);
    * ("tree", name): lark's default, a tree of the children (the repetitions `x*` build);
    * ("expand", to_include, target): lark's filter that splices the children of such trees
      into the children it passes to `target` (a "call" or a "tree").
    """
    from lark.parse_tree_builder import ChildFilterLALR_NoPlaceholders, ExpandSingleChild

    size = len(rule.expansion)
    origin = _plain(rule.origin.name)
    if isinstance(callback, ExpandSingleChild):
        if size != 1:
            raise ValueError(f"a ?rule of {size} symbols: {rule}")
        return (1, None, origin, None)
    if isinstance(callback, ChildFilterLALR_NoPlaceholders):
        included = tuple((int(i), bool(expand)) for i, expand in callback.to_include)
        if any(expand for _, expand in included):
            return (size, ("expand", included, _target(callback.node_builder)), origin, None)
        kept = tuple(i for i, _ in included)
        return (size, _target(callback.node_builder), origin, None if kept == tuple(range(size)) else kept)
    return (size, _target(callback), origin, None)


def _target(callback: Any) -> tuple[str, str]:
    if isinstance(callback, functools.partial) and callback.func.__name__ in ("Tree", "default_callback"):
        return ("tree", _plain(callback.args[0]))  # lark's tree of the children, for a rule the builder leaves
    name = getattr(callback, "__name__", None)
    if name is None or getattr(getattr(callback, "__self__", None), name, None) is None:
        raise ValueError(f"a callback the driver does not know: {callback!r}")
    return ("call", _plain(name))


class Tree:
    """What a repetition (`x*`) builds: lark's default tree, its children spliced by the rule
    that uses it."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list[Any]) -> None:
        self.data = data
        self.children = children


class _Expand:
    """lark's ChildFilterLALR_NoPlaceholders: the included children, a tree's spliced in."""

    __slots__ = ("to_include", "target")

    def __init__(self, to_include: tuple[tuple[int, bool], ...], target: Callable[[list[Any]], Any]) -> None:
        self.to_include = to_include
        self.target = target

    def __call__(self, children: list[Any]) -> Any:
        filtered: list[Any] = []
        for i, to_expand in self.to_include:
            if to_expand:
                if filtered:
                    filtered += children[i].children
                else:  # left recursion: the repetition's own list grows (no tree is shared)
                    filtered = children[i].children
            else:
                filtered.append(children[i])
        return self.target(filtered)


class Tables:
    """The tables of a `describe_tables` description with each callback bound to `builder`."""

    def __init__(self, description: dict[str, Any], builder: Any) -> None:
        bound: dict[Any, Any] = {}

        def bind(spec: Any) -> Any:
            if spec is None:
                return None
            if spec not in bound:
                kind = spec[0]
                if kind == "call":
                    bound[spec] = getattr(builder, spec[1])
                elif kind == "tree":
                    bound[spec] = functools.partial(Tree, spec[1])
                else:
                    bound[spec] = _Expand(spec[1], bind(spec[2]))
            return bound[spec]

        self.rows: Rows = {}
        for state, actions in description["rows"].items():
            self.rows[state] = {
                symbol: action if action.__class__ is int else (action[0], bind(action[1]), action[2], action[3])
                for symbol, action in actions.items()
            }
        self.start_states: dict[str, int] = description["start"]
        self.end_states: dict[str, int] = description["end"]


TokenSource = Callable[[Rows, list[int]], Iterator[Any]]


class _EndOfInput:
    """The token after the last: lark's `$END`."""

    type = "$END"


_END = _EndOfInput()


def drive(tables: Tables, tokens: TokenSource, start: str) -> Any:
    """Parse the tokens `tokens(rows, stack)` yields (it reads the state stack to know what
    the parser accepts), then the end of input; the start rule's value. Raises SyntaxRejected
    on a syntax error."""
    rows = tables.rows
    stack = [tables.start_states[start]]
    end = tables.end_states[start]
    values: list[Any] = []
    for token in itertools.chain(tokens(rows, stack), (_END,)):
        kind = token.type
        while True:
            action = rows[stack[-1]].get(kind)
            if action.__class__ is int and token is not _END:
                stack.append(action)
                values.append(token)
                break
            if action is None or action.__class__ is int:
                raise SyntaxRejected()
            size, callback, origin, kept = action
            if callback is None:  # a unit rule: the value stays, the state moves
                stack[-1] = rows[stack[-2]][origin]
            else:
                if size:
                    children = values[-size:]
                    del stack[-size:]
                    del values[-size:]
                    if kept is not None:
                        children = [children[i] for i in kept]
                else:
                    children = []
                values.append(callback(children))
                stack.append(rows[stack[-1]][origin])
            if token is _END and stack[-1] == end:
                return values[-1]
    raise SyntaxRejected()  # not reached: the end of input either completes the parse or is rejected
