"""`gradual.operators()`: every registered operator, for frontend authors and tools.

Each is an `OperatorInfo`: its name, its signature as the language writes it, its attributes
(kind, default, and the domain a value must lie in beyond its kind), the first line of its
documentation, and whether the runtime can run it. Built from the registry, never by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from gradual.ops.attr_domains import DOMAINS, Lengths, OneOf, Within
from gradual.ops.registry import Operator, Registry, default_registry


@dataclass(frozen=True)
class AttributeInfo:
    """One attribute of an operator: `kind` as declared (`int`, `[int]`, `str?`: a list, an
    optional one), whether a call must give it, its default, and what a value must be beyond
    its kind (`at least 1`, `one of "ij", "xy"`; None: any value of the kind)."""

    name: str
    kind: str
    required: bool
    default: Any
    domain: Optional[str]


@dataclass(frozen=True)
class OperatorInfo:
    """One operator: `signature` is its declaration's (`nn.dense[T, U](%data: Tensor[(*b, k),
    T], %weight: Tensor[(u, k), U]) -> Tensor[(*b, u), T]`, attributes left out), `arity` the
    number of tensor arguments, `doc` the first line of its documentation ("" without),
    `runnable` whether `gradual.run` has a kernel for it."""

    name: str
    signature: str
    arity: int
    attributes: tuple
    doc: str
    runnable: bool


def operators(registry: Optional[Registry] = None) -> list[OperatorInfo]:
    """Every operator of `registry` (the default operators when None), sorted by name. The
    runtime is loaded, so that `runnable` is known."""
    from gradual.infra.arguments import require

    require(registry, (Registry, type(None)), "operators", "a Registry (or None: the default operators)")
    import gradual.runtime.kernels  # noqa: F401  (attaches the kernels)

    found = registry or default_registry()
    return [_info(found.ops[name]) for name in found.names()]


def _info(op: Operator) -> OperatorInfo:
    domains = DOMAINS.get(op.name, {})
    attributes = tuple(
        AttributeInfo(
            spec.name,
            spec.describe(),
            not spec.has_default and not spec.optional,
            spec.default if spec.has_default else None,
            _domain_text(domains.get(spec.name)),
        )
        for spec in op.attrs.values()
    )
    doc = op.doc.strip().splitlines()[0] if op.doc.strip() else ""
    return OperatorInfo(op.name, op.signature_text, op.arity, attributes, doc, op.kernel is not None)


def _domain_text(domain: Any) -> Optional[str]:
    if isinstance(domain, Within):
        return f"at least {domain.low}" if domain.high is None else f"from {domain.low} to {domain.high}"
    if isinstance(domain, OneOf):
        return "one of " + ", ".join(f'"{c}"' if isinstance(c, str) else str(c) for c in domain.choices)
    if isinstance(domain, Lengths):
        return f"a list of {' or '.join(str(n) for n in domain.allowed)} entries"
    return None
