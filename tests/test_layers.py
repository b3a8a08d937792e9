"""The layers of gradual, bottom to top, and the rule that imports only run downward.

Every import in gradual/ is read from the source (module-level, inside functions, and under
`if TYPE_CHECKING:`), resolved to the module it names, and held against the table below: a
module may import its own layer or a lower one, never a higher one. Within and across layers
the runtime imports form no cycle (lazy ones included; imports made only for type checking
are not executed, so they count for direction but not for cycles). Nothing inside gradual
imports the public front door (`gradual` itself, `gradual.api`), except what is built on it
(the JAX frontend, written on the public API alone as a third party's would be).

docs/architecture.md describes each layer; a new package gets its row here.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gradual"

#: (module prefix, layer): the longest matching prefix decides; a higher layer may import a lower one
LAYERS: tuple[tuple[str, int], ...] = (
    ("gradual.infra", 0),
    ("gradual.shapes", 0),
    ("gradual.syntax", 1),
    ("gradual.builder", 1),
    ("gradual.diagnostics", 2),
    ("gradual.types", 3),
    ("gradual.ops", 4),
    ("gradual.checker", 5),
    ("gradual.runtime", 6),
    ("gradual.frontends", 6),
    ("gradual.analysis", 7),
    ("gradual.cli", 8),
    ("gradual.lsp", 8),
    ("gradual.api", 8),
    ("gradual.operator_info", 8),
    ("gradual.__main__", 8),
    ("gradual", 8),
    # a frontend written on the public API alone, as a third party would write one
    ("gradual.frontends.jax", 9),
)

#: the public front door: only the package's own __init__ and __main__ re-export it
FRONT_DOOR = ("gradual", "gradual.api")


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    lazy: bool
    typing_only: bool


def layer_of(module: str) -> int:
    best = max((p for p, _ in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return dict(LAYERS)[best]


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> list[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Every import with whether it is lazy (not at module level) and for type checking only."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool, bool]] = []

    def walk(node: ast.AST, lazy: bool, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child, lazy, typing_only))
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    walk(ast.Module(body=[stmt], type_ignores=[]), lazy, True)
                for stmt in child.orelse:
                    walk(ast.Module(body=[stmt], type_ignores=[]), lazy, typing_only)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                walk(child, True, typing_only)
            else:
                walk(child, lazy, typing_only)

    walk(tree, False, False)
    return found


def _targets(node: ast.Import | ast.ImportFrom, source: str, is_package: bool, known: dict) -> list[str]:
    """The gradual modules an import statement loads (a name imported from a package that is
    itself a module counts as that module)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = source.split(".") if is_package else source.split(".")[:-1]
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join(parts + ([node.module] if node.module else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    out = []
    for name in names:
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in known and name.split(".")[0] == "gradual":
            out.append(name)
    return out


def edges() -> list[Edge]:
    known = modules()
    found = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, lazy, typing_only in _imports(tree):
            for target in _targets(node, name, path.name == "__init__.py", known):
                if target != name:
                    found.append(Edge(name, target, node.lineno, lazy, typing_only))
    return found


def test_every_module_has_a_layer() -> None:
    for name in modules():
        assert any(name == p or name.startswith(p + ".") for p, _ in LAYERS), name


def test_imports_only_run_down_the_layers() -> None:
    upward = [
        f"{e.source}:{e.line} imports {e.target} (layer {layer_of(e.source)} -> {layer_of(e.target)})"
        for e in edges()
        if layer_of(e.target) > layer_of(e.source)
    ]
    assert not upward, "imports that run up the layers:\n" + "\n".join(upward)


def test_nothing_inside_imports_the_front_door() -> None:
    allowed = {"gradual", "gradual.__main__", "gradual.api"}
    found = [
        f"{e.source}:{e.line} imports {e.target}"
        for e in edges()
        if e.target in FRONT_DOOR and e.source not in allowed and layer_of(e.source) <= layer_of("gradual")
    ]
    assert not found, "\n".join(found)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {}
    for e in edges():
        if not e.typing_only:
            graph.setdefault(e.source, set()).add(e.target)
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_cycle_finder_finds_cycles(graph: dict, expected: list) -> None:
    assert cycles(graph) == expected


def test_the_scan_sees_lazy_and_type_only_imports() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import gradual.api\n"
        "def f():\n    from gradual.checker import driver\n"
    )
    kinds = [(lazy, typing_only) for _, lazy, typing_only in _imports(tree)]
    assert kinds == [(False, False), (False, True), (True, False)]
