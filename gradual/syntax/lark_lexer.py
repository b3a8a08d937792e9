"""FastLexer as lark's own LALR parser calls it (interface 2: it sees the parser state).

A module of its own so that lark is imported only where it is used (building the tables
on a first start, reporting a syntax error), and lark can pickle the class in its cache.
"""

from __future__ import annotations

from typing import Any, Iterator

from lark.lexer import Lexer

from gradual.syntax.lexer import FastLexer, Tok


class LarkLexer(Lexer):
    """lark's view of FastLexer: the string terminals from lark's lexer configuration."""

    __future_interface__ = 2

    def __init__(self, lexer_conf: Any) -> None:
        terminals = lexer_conf.terminals
        self.fast = FastLexer({t.pattern.value: t.name for t in terminals if t.pattern.type == "str"})

    # lark's driver reads a token's type and positions only: FastLexer's lighter Tok stands
    # in for lark.Token (see lexer.Tok)
    def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Tok]:  # type: ignore[override]
        """The tokens for lark's driver."""
        return self.fast.lex(lexer_state, parser_state)
