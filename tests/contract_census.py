"""How much of each operator family's contract is declared, and how much is still checked only
inside Python rules: the table in docs/contracts.md (tests/test_contract_census.py holds the
two equal; `python tests/contract_census.py --write` rewrites it).

Declared: each `where` condition and each dtype class of a declaration in stdlib/. In rules: each
place a rule module decides whether a call is valid: `ctx.fail`, `ctx.require_rank*`,
`ctx.within`, `ctx.assume_within`, `normalize_axis` and the `require_*` helpers of
ops/rules/common.py, called anywhere in the module.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "gradual" / "ops" / "rules"
STDLIB = ROOT / "stdlib"
DOC = ROOT / "docs" / "contracts.md"

#: a family by the stdlib files and rule modules that make it
FAMILIES = {
    "ONNX": (("onnx.rly", "onnx_models.rly"), ("onnx", "onnx_models")),
    "ATen": (("aten.rly", "aten_nn.rly"), ("aten", "aten_index", "aten_nn")),
}
RELAY = "Relay"

_CHECKS = {"fail", "require_rank", "require_rank_at_least", "within", "assume_within", "normalize_axis"}


def family_of_rule_module(name: str) -> str:
    return next((f for f, (_, mods) in FAMILIES.items() if name in mods), RELAY)


def family_of_stdlib(name: str) -> str:
    return next((f for f, (files, _) in FAMILIES.items() if name in files), RELAY)


def rule_checks(path: Path) -> int:
    count = 0
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in _CHECKS or name.startswith("require_"):
                count += 1
    return count


def declared(path: Path) -> tuple[int, int, int]:
    """(operators, where conditions, dtype classes) of a stdlib file."""
    from gradual.syntax.parser import parse_stdlib_source
    from gradual.syntax.source import Source

    module = parse_stdlib_source(Source(path.read_text(encoding="utf-8"), str(path)))
    ops = len(module.defs)
    conditions = sum(len(d.where) for d in module.defs)
    classes = sum(len(d.dtype_classes) for d in module.defs)
    return ops, conditions, classes


def _operator_files() -> list:
    """The stdlib files that declare operators (the prelude holds data types and functions)."""
    from gradual.ops.registry import operator_files

    return operator_files()


def census() -> dict:
    table: dict = {}
    for family in (RELAY, *FAMILIES):
        table[family] = {"operators": 0, "contracted": 0, "declared": 0, "in rules": 0}
    from gradual.ops.registry import operator_files

    for path in operator_files():  # the prelude is a program, not declarations
        ops, conditions, classes = declared(path)
        row = table[family_of_stdlib(path.name)]
        row["operators"] += ops
        row["declared"] += conditions + classes
    from gradual.syntax.parser import parse_stdlib_source
    from gradual.syntax.source import Source

    for path in operator_files():
        module = parse_stdlib_source(Source(path.read_text(encoding="utf-8"), str(path)))
        table[family_of_stdlib(path.name)]["contracted"] += sum(
            1 for d in module.defs if d.where or d.dtype_classes or not d.dtype_params
        )
    for path in sorted(RULES.glob("*.py")):
        if path.stem in ("__init__", "common"):
            continue
        table[family_of_rule_module(path.stem)]["in rules"] += rule_checks(path)
    return table


def markdown(table: dict) -> str:
    lines = [
        "| family | operators | with a contract | conditions declared | conditions checked in rules |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for family, row in table.items():
        lines.append(f"| {family} | {row['operators']} | {row['contracted']} | {row['declared']} | {row['in rules']} |")
    return "\n".join(lines) + "\n"


_TABLE = re.compile(r"<!-- census -->\n(.*?)<!-- /census -->", re.S)


def documented() -> str:
    found = _TABLE.search(DOC.read_text(encoding="utf-8"))
    return found.group(1) if found else ""


def write() -> None:
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(
        _TABLE.sub(lambda m: f"<!-- census -->\n{markdown(census())}<!-- /census -->", text), encoding="utf-8"
    )


if __name__ == "__main__":
    if "--write" in sys.argv:
        write()
    print(markdown(census()))
