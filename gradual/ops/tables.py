"""The tables operators are registered in: shape rules by the name declarations give them
(`= name`), NumPy kernels by operator name.

They sit below everything else in ops/, so the rule families (ops/rules/) and the kernels
(runtime/kernels/) register into them without importing the registry that loads them.
"""

from __future__ import annotations

from typing import Any, Callable

Rule = Callable[[Any], Any]
Kernel = Callable[..., Any]

RULES: dict[str, Rule] = {}
KERNELS: dict[str, Kernel] = {}


def shape_rule(name: str) -> Callable[[Rule], Rule]:
    """Decorator: register a Python shape rule under the name declarations use (`= name`);
    one per name (a second would silently replace the first)."""

    def register(fn: Rule) -> Rule:
        if name in RULES:
            raise ValueError(f"the shape rule {name} is defined twice: {RULES[name].__name__} and {fn.__name__}")
        RULES[name] = fn
        return fn

    return register
