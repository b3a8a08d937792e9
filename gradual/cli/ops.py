"""`gradual ops [NAME...] [--where]`: the operators, with their signatures; `--where` says where
each one lives: its declaration in stdlib/, its shape rule and its kernel (file and line), so
that an operator is found from its name even where a family registers rules or kernels under
generated names."""

from __future__ import annotations

import argparse
import inspect
import os
from typing import Any, Callable, Optional

from gradual.cli.common import EXIT_OK, EXIT_USAGE


def command_ops(args: argparse.Namespace) -> int:
    import gradual.runtime.kernels  # noqa: F401  (attaches the kernels)
    from gradual.ops.registry import default_registry

    registry = default_registry()
    names = args.names or registry.names()
    unknown = [n for n in names if registry.get(n) is None]
    if unknown:
        print(f"gradual: unknown operator{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")
        return EXIT_USAGE
    for name in names:
        op = registry.get(name)
        assert op is not None
        print(op.signature_text)
        if args.where:
            for label, place in _places(op):
                print(f"  {label:<12} {place}")
    return EXIT_OK


def _places(op: Any) -> list:
    places = []
    if op.span is not None:
        line, _ = op.span.start_position
        places.append(("declared", f"{_relative(op.span.source.path)}:{line}"))
    if op.contract:
        places.append(("contract", f"{len(op.contract.conditions)} condition(s): see the declaration"))
    if op.rule is not None:
        places.append(("rule", f"{op.rule_name}: {_where(op.rule)}"))
    kernel = op.kernel
    places.append(("kernel", _where(kernel) if kernel is not None else "none (declared for checking only)"))
    if op.rule is not None:
        module = inspect.getmodule(op.rule)
        if module is not None and module.__file__:
            places.append(("words", f"{_relative(module.__file__)} (register_rule_message), gradual/ops/messages.py"))
    return places


def _where(fn: Optional[Callable]) -> str:
    target = inspect.unwrap(fn) if fn is not None else None
    try:
        path = inspect.getsourcefile(target)  # type: ignore[arg-type]
        _, line = inspect.getsourcelines(target)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return getattr(fn, "__qualname__", repr(fn))
    return f"{_relative(path or '?')}:{line} ({getattr(target, '__qualname__', '?')})"


def _relative(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
