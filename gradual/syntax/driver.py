"""A lean LALR driver over the tables and callbacks lark builds for the grammar.

lark's own driver spends most of a parse on bookkeeping that a well-formed program does not
need: it hashes each grammar rule to find its callback, looks up the rule's size and origin
at every reduction, and routes each token through a `ParserState`. Here every action is
precomputed once per parser: a shift is the next state (an int), a reduction is the tuple
(rule size, callback, nonterminal). The loop then only indexes lists and dicts.

Only the happy path runs here. On any syntax error the caller parses the text again with
lark's driver, which produces the error exactly as before (expected tokens, interactive
parser); errors are rare, and a second parse costs less than keeping both paths identical.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterator

from lark.parse_tree_builder import ChildFilterLALR_NoPlaceholders, ExpandSingleChild
from lark.parsers.lalr_analysis import Shift


class SyntaxRejected(Exception):
    """The fast driver met input the grammar does not accept (the caller re-parses)."""


class Tables:
    """lark's LALR tables with each action resolved to what the driver needs."""

    def __init__(self, lark_parser: Any) -> None:
        inner = lark_parser.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
        table = inner.parse_table
        callbacks = inner.callbacks
        self.rows: dict = {}
        for state, actions in table.states.items():
            row: dict = {}
            for symbol, (action, arg) in actions.items():
                if action is Shift:
                    row[_plain(symbol)] = arg
                else:
                    row[_plain(symbol)] = _reduction(arg, callbacks[arg])
            self.rows[state] = row
        self.start_states = dict(table.start_states)
        self.end_states = dict(table.end_states)


def _plain(name: str) -> str:
    """A symbol name as an exact `str`: lark names nonterminals with its Token (a str
    subclass whose Python `__eq__` each dict lookup would call)."""
    return sys.intern(str.__str__(name))


def _reduction(rule: Any, callback: Any) -> tuple:
    """(size, callback, nonterminal, kept): callback None for a `?rule` of one symbol, whose
    value is its child's (lark's ExpandSingleChild would return it unchanged); `kept` the
    children lark's filter would pass (None: all, or the filter is lark's own to run)."""
    size = len(rule.expansion)
    origin = _plain(rule.origin.name)
    if size == 1 and isinstance(callback, ExpandSingleChild):
        return (1, None, origin, None)
    included = getattr(callback, "to_include", None)
    if isinstance(callback, ChildFilterLALR_NoPlaceholders) and not any(expand for _, expand in included):
        # lark's filter only drops tokens (punctuation): the driver does that, calling the builder directly
        kept = tuple(i for i, _ in included)
        return (size, callback.node_builder, origin, None if kept == tuple(range(size)) else kept)
    return (size, callback, origin, None)


TokenSource = Callable[[dict, list], Iterator[Any]]


def drive(tables: Tables, tokens: TokenSource, start: str) -> Any:
    """Parse the tokens `tokens(rows, stack)` yields (it reads the state stack to know what
    the parser accepts); the start rule's value. Raises SyntaxRejected on a syntax error.
    Reductions are inlined here (`_reduce` does the same at the end of input)."""
    rows = tables.rows
    stack = [tables.start_states[start]]
    values: list = []
    for token in tokens(rows, stack):
        kind = token.type
        while True:
            action = rows[stack[-1]].get(kind)
            if action.__class__ is int:
                stack.append(action)
                values.append(token)
                break
            if action is None:
                raise SyntaxRejected()
            size, callback, origin, kept = action
            if callback is None:  # a unit rule: the value stays, the state moves
                stack[-1] = rows[stack[-2]][origin]
                continue
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
    end = tables.end_states[start]
    while True:
        action = rows[stack[-1]].get("$END")
        if action is None or action.__class__ is int:
            raise SyntaxRejected()
        _reduce(rows, stack, values, action)
        if stack[-1] == end:
            return values[-1]


def _reduce(rows: dict, stack: list, values: list, action: tuple) -> None:
    size, callback, origin, kept = action
    if callback is None:  # a unit rule: the value stays, the state moves
        stack[-1] = rows[stack[-2]][origin]
        return
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
