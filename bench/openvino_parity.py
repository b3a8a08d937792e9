"""Parity of gradual's shape algebra with OpenVINO, measured on OpenVINO's own tests.

    python bench/openvino_parity.py            # the parity table (pass / different / missing)
    python bench/openvino_parity.py --oracle   # + re-derive every answer with `openvino`
    python bench/openvino_parity.py --derive   # + write the derived answers into the data file
    python bench/openvino_parity.py --verbose  # + every assertion that is not a plain pass

The data is tests/data/openvino/shape_tests.port (OpenVINO's assertions, format in
tests/peer_port.py); tests/test_openvino_parity.py runs it in the default suite. The answers
come from the original tests; `--oracle` recomputes them with the real `openvino` package
(`pip install openvino`: the oracle, not a test dependency) wherever its Python API can
express the assertion: directly (Dimension, PartialShape, Shape, Symbol), through an
elementwise Add node (a merge is AutoBroadcast NONE, a broadcast NUMPY or PDPD with its axis,
and both merge symbols), through Concat (a sum of dims) or Tile (a product with a static
size). Dimension subtraction and division, `Interval` and `merge_rank` are C++ only: those
answers stay as the original test states them. `--derive` rewrites the answers the oracle
can give (deliberate differences keep their `!!` note).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import peer_port  # noqa: E402
from peer_port import RAISES, Outcome, PortedTest, Unavailable  # noqa: E402

KINDS = ("pass", "different (documented)", "different", "missing", "raises")


def classify(outcome: Outcome) -> str:
    """Where one gradual outcome goes in the parity table."""
    line = outcome.line
    if outcome.missing:
        return "missing"
    if outcome.value == line.answer:
        return "pass"
    if line.difference and outcome.value == line.gradual_answer:
        return "different (documented)"
    if outcome.value == RAISES:
        return "raises"
    return "different"


def parity(tests: list[PortedTest]) -> tuple[dict, list]:
    """Counts per origin file and in total, and the outcomes that are not a plain pass."""
    table: dict[str, Counter] = {}
    notable = []
    for test in tests:
        row = table.setdefault(test.origin, Counter())
        for outcome in peer_port.run_test(test, peer_port.gradual_namespace):
            kind = classify(outcome)
            row[kind] += 1
            if kind != "pass":
                notable.append((test, outcome, kind))
    return table, notable


def print_table(table: dict) -> None:
    """The parity table as Markdown (the README's)."""
    print("| OpenVINO test file | assertions | pass | different (documented) | different | missing | raises |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    total: Counter = Counter()
    for origin, row in table.items():
        total.update(row)
        print(f"| `{origin}` | {sum(row.values())} | " + " | ".join(str(row[k]) for k in KINDS) + " |")
    count = sum(total.values())
    print(f"| **all** | **{count}** | " + " | ".join(f"**{total[k]}**" for k in KINDS) + " |")
    print(f"\npass rate: {total['pass'] / count:.1%} ({total['pass']} of {count})")


# the oracle ---------------------------------------------------------------------------------
def openvino_namespace() -> dict:
    """The port's vocabulary bound to the real `openvino` package."""
    import openvino as ov
    import openvino.opset13 as ops
    from openvino import Dimension, PartialShape, Shape, Symbol, Type
    from openvino.utils.node_factory import NodeFactory

    factory = NodeFactory("opset13")
    table: dict[str, Any] = {}

    def sym(name: Any) -> Any:
        if name is None or isinstance(name, Symbol):
            return name
        return table.setdefault(name, Symbol())

    def labelled(dim: Any, symbol: Any) -> Any:
        dim.set_symbol(sym(symbol)) if symbol is not None else dim.set_symbol(None)
        return dim

    def fresh(dim: Any) -> Any:
        copy = Dimension(dim.get_min_length(), dim.get_max_length())
        if dim.has_symbol():
            copy.set_symbol(dim.get_symbol())
        return copy

    def labels(ps: Any, *names: Any) -> Any:
        return PartialShape([labelled(fresh(d), s) for d, s in zip(ps, names)])

    def parameter(shape: Any) -> Any:
        return ops.parameter(shape, Type.f32).output(0)

    def eltwise(a: Any, b: Any, autob: str = "numpy", axis: int = -1) -> Any:
        node = factory.create(
            "Add", [parameter(a), parameter(b)], {"auto_broadcast": autob, "auto_broadcast.auto_broadcast_axis": axis}
        )
        return node.get_output_partial_shape(0)

    def attempt(a: Any, b: Any, autob: str, axis: int = -1) -> Optional[Any]:
        try:
            return eltwise(a, b, autob, axis)
        except RuntimeError:
            return None

    def dim_pair(op: str, a: Any, b: Any) -> Optional[Any]:
        result = attempt(PartialShape([a]), PartialShape([b]), op)
        return None if result is None else result[0]

    def broadcast_merged(a: Any, b: Any, autob: str = "numpy", axis: int = -1) -> Optional[Any]:
        return a if autob == "none" else attempt(a, b, autob, axis)

    def concat_add(a: Any, b: Any) -> Any:
        return ops.concat([parameter(PartialShape([a])), parameter(PartialShape([b]))], 0).get_output_partial_shape(0)[
            0
        ]

    def tile_mul(a: Any, b: Any) -> Any:
        if not b.is_static:
            if not a.is_static:
                raise Unavailable("OpenVINO's Python API multiplies dims only by a static size (Tile)")
            a, b = b, a
        repeats = ops.constant([b.get_length()], dtype=ov.Type.i64)
        return ops.tile(parameter(PartialShape([a])), repeats).get_output_partial_shape(0)[0]

    def set_equal(a: Any, b: Any) -> None:
        dims = [PartialShape([labelled(Dimension(), s)]) for s in (a, b)]
        eltwise(dims[0], dims[1], "none")  # merging two labelled dims makes their symbols equal

    def at(shape: Any, index: int) -> Any:
        if not -len(shape) <= index < len(shape):
            raise Unavailable("OpenVINO's Python binding does not check indexes as C++'s operator[] does")
        return shape[index]

    def unavailable(what: str) -> Any:
        def fail(*args: Any, **kwargs: Any) -> Any:
            raise Unavailable(f"{what} is not in OpenVINO's Python API")

        return fail

    names = dict(  # noqa: C408 - the names the ported tests' expressions see, as keywords
        D=Dimension,
        P=PartialShape,
        Shape=Shape,
        Symbol=Symbol,
        I=unavailable("Interval"),
        S_MAX=peer_port.S_MAX,
        sym=sym,
        labelled=labelled,
        labels=labels,
        are_equal=lambda a, b: bool(sym(a) is not None and sym(b) is not None and sym(a) == sym(b)),
        set_equal=set_equal,
        dim_merge=lambda a, b: dim_pair("none", a, b),
        dim_broadcast_merge=lambda a, b: dim_pair("numpy", a, b),
        merged=lambda a, b: attempt(a, b, "none"),
        merge_into=lambda a, b: attempt(a, b, "none") is not None,
        broadcast_merged=broadcast_merged,
        broadcast_merge_into=lambda a, b, autob="numpy", axis=-1: broadcast_merged(a, b, autob, axis) is not None,
        eltwise=eltwise,
        at=at,
        add=concat_add,
        mul=tile_mul,
        sub=unavailable("Dimension subtraction"),
        div=unavailable("Dimension division"),
        intersect=unavailable("Dimension intersection"),
    )
    return peer_port._with_symbol_names(names, table)


def run_oracle(tests: list[PortedTest]) -> tuple[dict, Counter]:
    """The oracle's answer per line number (where it can give one), and how many of each."""
    answers: dict[int, Any] = {}
    counts: Counter = Counter()
    for test in tests:
        for outcome in peer_port.run_test(test, openvino_namespace, oracle=True):
            if outcome.unavailable or outcome.missing:
                counts["from the original test"] += 1
                continue
            answers[outcome.line.number] = outcome.value
            counts["derived, agrees" if outcome.value == outcome.line.answer else "derived, DISAGREES"] += 1
            if outcome.value != outcome.line.answer:
                print(
                    f"  oracle disagrees: line {outcome.line.number} ({test.ident}): {outcome.line.source}"
                    f" => {peer_port.format_answer(outcome.value)} (data: {peer_port.format_answer(outcome.line.answer)})"
                    + (f"  [{outcome.error}]" if outcome.error else "")
                )
    return answers, counts


def rewrite(path: Path, answers: dict) -> int:
    """Write the derived answers into the data file; how many lines changed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    changed = 0
    for number, value in answers.items():
        text = lines[number - 1]
        source, _, rest = text.partition(" => ")
        _, sep, difference = rest.partition("  !! ")
        new = f"{source} => {peer_port.format_answer(value)}" + (f"  !! {difference}" if sep else "")
        if new != text:
            lines[number - 1] = new
            changed += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--oracle", action="store_true", help="re-derive the answers with openvino")
    parser.add_argument("--derive", action="store_true", help="write the derived answers into the data file")
    parser.add_argument("--verbose", action="store_true", help="list every assertion that is not a plain pass")
    args = parser.parse_args(argv)
    tests = peer_port.read_port()
    if args.oracle or args.derive:
        answers, counts = run_oracle(tests)
        print("oracle: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
        if args.derive:
            print(f"rewrote {rewrite(peer_port.PORT_FILE, answers)} answers")
            tests = peer_port.read_port()
    table, notable = parity(tests)
    print_table(table)
    if args.verbose:
        for test, outcome, kind in notable:
            note = f" [{outcome.line.difference}]" if outcome.line.difference else ""
            print(
                f"  {kind}{note}: {test.ident}: {outcome.line.source} => "
                f"{peer_port.format_answer(outcome.value)} (OpenVINO: {peer_port.format_answer(outcome.line.answer)})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
