"""OpenVINO's own shape-algebra tests, ported as data, and how to run them.

`tests/data/openvino/shape_tests.port` holds the assertions of OpenVINO's tests (not their
code), grouped by origin file and test name:

    == src/core/tests/dimension.cpp @ <commit>       the file the cases come from
    -- broadcast_merge_static_1_and_10               the test they come from
    x = D(1, 5)                                      a setup statement (Python)
    dim_broadcast_merge(x, D(10)) == D(10) => True   an assertion: expression => OpenVINO's answer
    D('C').to_string() => raises  !! symbolic-names gradual: 'C'

An answer is a Python literal or `raises`. A line ending in `!! KEY gradual: VALUE` is a
deliberate difference: `KEY` is documented in docs/design.md and gradual answers `VALUE`.
Lines of one test run in order in one namespace, as the statements of the original test did.

Expressions use one vocabulary that both sides provide (`PEER_NAMES`): the classes (`D`, `P`,
`Shape`, `Symbol`, `I` for Interval), symbols by name (`sym('A')`, `labels(shape, 'A', None)`,
`symbols(shape)`), and functions for what OpenVINO's Python API lacks (`dim_merge`, `merged`,
`broadcast_merged`, `eltwise` for an elementwise operator's shape rule, `add`, `mul`, ...).
`gradual_namespace` binds them to gradual; bench/openvino_parity.py binds them to the real
`openvino` package, which (re)derives the answers.
"""

from __future__ import annotations

import ast
import copy
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

PORT_FILE = Path(__file__).parent / "data" / "openvino" / "shape_tests.port"

RAISES = "raises"
#: OpenVINO's `Interval::s_max`: the int64 maximum, "no upper bound"
S_MAX = 2**63 - 1


class Unavailable(Exception):
    """Raised by a peer binding that cannot express an operation (OpenVINO's Python API has
    no Dimension arithmetic, no Interval, ...): the answer then stays the one the original
    test states."""


@dataclass
class Line:
    """A setup statement (no `answer`) or an assertion of one ported test."""

    number: int
    source: str
    answer: Any = None
    is_assertion: bool = False
    difference: Optional[str] = None  # the documented key of a deliberate difference
    gradual_answer: Any = None


@dataclass
class PortedTest:
    """The lines of one test of the peer, with where they come from."""

    origin: str  # the file in the peer's repository
    commit: str
    name: str
    lines: list[Line] = field(default_factory=list)

    @property
    def ident(self) -> str:
        return f"{Path(self.origin).name}::{self.name}"

    @property
    def assertions(self) -> list[Line]:
        return [line for line in self.lines if line.is_assertion]


_DIFFERENCE = re.compile(r"^(?P<key>[a-z0-9-]+) gradual: (?P<value>.*)$")


def read_port(path: Path = PORT_FILE) -> list[PortedTest]:
    """The ported tests of the data file, in order."""
    tests: list[PortedTest] = []
    origin, commit = "", ""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("== "):
            origin, _, commit = text[3:].partition(" @ ")
        elif text.startswith("-- "):
            tests.append(PortedTest(origin.strip(), commit.strip(), text[3:].strip()))
        elif not tests:
            raise ValueError(f"{path}:{number}: a line outside any test")
        else:
            tests[-1].lines.append(_read_line(number, text, path))
    return tests


def _read_line(number: int, text: str, path: Path) -> Line:
    if " => " not in text:
        return Line(number, text)
    source, _, rest = text.partition(" => ")
    answer_text, _, difference = rest.partition("  !! ")
    line = Line(number, source.strip(), _answer(answer_text.strip()), is_assertion=True)
    if difference:
        match = _DIFFERENCE.match(difference.strip())
        if match is None:
            raise ValueError(f"{path}:{number}: a difference reads `!! key gradual: value`")
        line.difference = match["key"]
        line.gradual_answer = _answer(match["value"].strip())
    return line


def _answer(text: str) -> Any:
    return RAISES if text == RAISES else ast.literal_eval(text)


def format_answer(value: Any) -> str:
    """The text of an answer in the data file."""
    return RAISES if value == RAISES else repr(value)


# running -----------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What one assertion gave on one side."""

    line: Line
    value: Any = None  # a plain value, or RAISES
    missing: Optional[str] = None  # the API that does not exist (AttributeError, NameError)
    unavailable: bool = False  # the peer binding cannot express it
    error: Optional[str] = None  # the exception behind RAISES, for reports


def run_test(test: PortedTest, make_namespace: Callable[[], dict], oracle: bool = False) -> list[Outcome]:
    """Run one ported test's lines in order in a fresh namespace; an outcome per assertion.

    Once a line cannot run (an API is missing, or the binding cannot express it) the state
    the later lines depend on is unknown, and they report the same. A setup line that raises
    makes the later assertions raise too; for an `oracle` it means its binding cannot express
    the setup (they are unavailable)."""
    namespace = make_namespace()
    outcomes: list[Outcome] = []
    broken: Optional[Outcome] = None
    for line in test.lines:
        if broken is not None:
            if line.is_assertion:
                outcomes.append(Outcome(line, broken.value, broken.missing, broken.unavailable, broken.error))
            continue
        outcome = _run_line(line, namespace)
        if line.is_assertion:
            outcomes.append(outcome)
        if outcome.missing or outcome.unavailable:
            broken = outcome
        elif not line.is_assertion and outcome.value == RAISES:
            broken = Outcome(
                line,
                None if oracle else RAISES,
                unavailable=oracle,
                error=f"setup line {line.number} raised {outcome.error}",
            )
    return outcomes


def _run_line(line: Line, namespace: dict) -> Outcome:
    try:
        if not line.is_assertion:
            exec(compile(line.source, f"<port line {line.number}>", "exec"), namespace)
            return Outcome(line)
        return Outcome(line, value=plain(eval(compile(line.source, f"<port line {line.number}>", "eval"), namespace)))
    except Unavailable as e:
        return Outcome(line, unavailable=True, error=str(e))
    except (AttributeError, NameError) as e:
        return Outcome(line, missing=f"{type(e).__name__}: {e}")
    except Exception as e:  # noqa: BLE001 - the answer is "raises"; which exception is the peer's business
        return Outcome(line, value=RAISES, error=f"{type(e).__name__}: {e}")


def plain(value: Any) -> Any:
    """An answer as a plain literal (bools, ints, strings, None, tuples of them)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(plain(v) for v in value)
    raise TypeError(f"an assertion must give a plain value, not {type(value).__name__}")


# the gradual side ---------------------------------------------------------------------------
def gradual_namespace() -> dict:
    """The port's vocabulary bound to gradual (a fresh symbol table each call)."""
    from gradual.shapes import INT64_MAX, Dimension, Interval, PartialShape, Shape, ShapeError, Symbol
    from gradual.shapes import symbols as symbol_algebra

    table: dict[str, Symbol] = {}

    def sym(name: "str | Symbol | None") -> "Symbol | None":
        if name is None or isinstance(name, Symbol):
            return name
        return table.setdefault(name, Symbol(name))

    def merged(a: PartialShape, b: PartialShape) -> "PartialShape | None":
        dst = PartialShape(a)
        return dst if PartialShape.merge_into(dst, b) else None

    def broadcast_merged(
        a: PartialShape, b: PartialShape, autob: str = "numpy", axis: int = -1
    ) -> "PartialShape | None":
        dst = PartialShape(a)
        return dst if PartialShape.broadcast_merge_into(dst, b, autob, axis) else None

    def eltwise(a: PartialShape, b: PartialShape, autob: str = "numpy", axis: int = -1) -> PartialShape:
        result = merged(a, b) if autob == "none" else broadcast_merged(a, b, autob, axis)
        if result is None:
            raise ShapeError(f"argument shapes {a} and {b} are inconsistent")
        return result

    names = dict(  # noqa: C408 - the names the ported tests' expressions see, as keywords
        D=Dimension,
        P=PartialShape,
        Shape=Shape,
        Symbol=Symbol,
        I=Interval,
        S_MAX=INT64_MAX,
        sym=sym,
        labelled=lambda d, s: d.with_symbol(sym(s)),
        labels=lambda ps, *names: PartialShape([d.with_symbol(sym(s)) for d, s in zip(ps, names)]),
        are_equal=lambda a, b: symbol_algebra.are_equal(sym(a), sym(b)),
        set_equal=lambda a, b: symbol_algebra.set_equal(sym(a), sym(b)),
        dim_merge=Dimension.merge,
        dim_broadcast_merge=Dimension.broadcast_merge,
        merged=merged,
        merge_into=lambda a, b: merged(a, b) is not None,
        broadcast_merged=broadcast_merged,
        broadcast_merge_into=lambda a, b, autob="numpy", axis=-1: broadcast_merged(a, b, autob, axis) is not None,
        eltwise=eltwise,
        at=lambda shape, index: shape[index],
        add=operator.add,
        sub=operator.sub,
        mul=operator.mul,
        div=operator.truediv,
        intersect=operator.and_,
    )
    return _with_symbol_names(names, table)


def _with_symbol_names(names: dict, table: dict) -> dict:
    """Add `symbol_name` / `symbols` (a label's name in the test's symbol table, by identity;
    '?' for a symbol the test did not name) and the modules the original tests use."""

    def symbol_name(dim: Any) -> Optional[str]:
        found = dim.get_symbol()
        if not found:
            return None
        return next((name for name, s in table.items() if s is found), "?")

    names.update(symbol_name=symbol_name, symbols=lambda ps: tuple(symbol_name(d) for d in ps), copy=copy)
    return names


PEER_NAMES = frozenset(gradual_namespace())
