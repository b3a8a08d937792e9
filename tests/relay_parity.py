"""gradual against TVM Relay on the programs Relay's own tests type-check.

The corpus (tests/data/relay/corpus.jsonl, made by bench/relay_harvest.py) holds each program
as Relay prints it and Relay's verdict: the type of every global function, or an error. This
module checks each program with gradual and compares, function by function and dim by dim:

  equal          gradual infers the types Relay infers
  more-precise   every dim is equal or Relay's is `?` where gradual knows more
  both-reject    both report an error
  unreadable     gradual cannot read the program (syntax, or an operator it does not declare)
  rejected       gradual reports an error where Relay accepts
  accepted       gradual accepts where Relay reports an error
  disagree       the types conflict (different static dims, dtypes or ranks)
  less-precise   gradual infers `?` (or a range, or a symbol) where Relay knows the dim

tests/data/relay/outcomes.json records each program's outcome; `python tests/relay_parity.py`
prints the table, `--update` rewrites the record, `--show OUTCOME` lists programs.
"""

from __future__ import annotations

import argparse
import collections
import functools
import gzip
import json
import re
import sys
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

import gradual.infra.deep  # noqa: E402
from gradual.diagnostics import codes  # noqa: E402
from gradual.types import DTYPES, AdtType, DynType, FuncType, RefType, TensorType, TupleType, Type  # noqa: E402

DATA = HERE / "data" / "relay"
CORPUS = DATA / "corpus.jsonl"
OUTCOMES = DATA / "outcomes.json"
#: the programs of Relay's tests of algebraic data types (bench/relay_harvest.py --adt), gzipped:
#: most hold Relay's whole prelude
ADT_CORPUS = DATA / "adt_corpus.jsonl.gz"
ADT_OUTCOMES = DATA / "adt_outcomes.json"

ORDER = ("equal", "more-precise", "both-reject", "unreadable", "rejected", "accepted", "disagree", "less-precise")
AGREE = ("equal", "more-precise", "both-reject")
LABELS = {
    "equal": "equal",
    "more-precise": "gradual more precise",
    "both-reject": "both reject",
    "unreadable": "gradual cannot read",
    "rejected": "gradual rejects, Relay accepts",
    "accepted": "gradual accepts, Relay rejects",
    "disagree": "types disagree",
    "less-precise": "gradual less precise",
}
UNREADABLE_CODES = frozenset({codes.PARSE_ERROR, codes.UNKNOWN_OPERATOR, codes.UNKNOWN_ATTRIBUTE})
_RANK = {"equal": 0, "more-precise": 1, "less-precise": 2, "disagree": 3}


def load_corpus(path: Path = CORPUS) -> list[dict]:
    """Every corpus entry, in file order (a `.gz` file is read through gzip)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def load_outcomes(path: Path = OUTCOMES) -> dict[str, str]:
    """The recorded outcome of each program, by id."""
    return json.loads(path.read_text(encoding="utf-8"))["outcomes"]


_TYPE_DEF = re.compile(r"^type .*?^}", re.M | re.S)
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
_NOT_VARIABLES = {"Tensor", "fn", "ref", *DTYPES}


def type_definitions(program: str) -> str:
    """The `type` definitions of a program's text (what its printed types may name)."""
    return "\n".join(_TYPE_DEF.findall(program))


@functools.lru_cache(maxsize=None)
def relay_type(text: str, types: str = "") -> Optional[Type]:
    """Relay's printed type read with gradual's own annotation syntax (None if unreadable),
    with the program's type definitions (`types`) and the type variables it names (`A`)
    declared; remembered, since most types repeat."""
    defined = {m.group(1) for m in re.finditer(r"^type ([A-Za-z_][A-Za-z0-9_]*)", types, re.M)}
    variables = sorted({w for w in _WORD.findall(text) if w not in _NOT_VARIABLES and w not in defined})
    params = f"[{', '.join(variables)}]" if variables else ""
    result = gradual.check(f"{types}\ndef @relay_type{params}(%t: {text}) {{ %t }}")
    if result.errors:
        return None
    return result.function_type("relay_type").params[0]


def compare_dims(relay_dim, gradual_dim) -> str:
    """One dim: equal, more-precise, less-precise or disagree."""
    r, g = str(relay_dim), str(gradual_dim)
    if r == g:
        return "equal"
    if r == "?":
        return "more-precise"
    if g == "?":
        return "less-precise"
    if relay_dim.is_static and gradual_dim.is_static:
        return "disagree"
    if relay_dim.is_static and not gradual_dim.is_symbolic:  # an interval
        value = relay_dim.get_length()
        inside = gradual_dim.get_min_length() <= value and (
            gradual_dim.get_max_length() < 0 or value <= gradual_dim.get_max_length()
        )
        return "less-precise" if inside else "disagree"
    if relay_dim.is_static:  # gradual keeps a symbol where Relay found the value
        return "less-precise"
    return "disagree"


def _worst(grades) -> str:
    return max(grades, key=_RANK.__getitem__, default="equal")


def compare_types(relay: Type, mine: Type) -> str:
    """Two types, structurally; the worst grade of their parts."""
    if isinstance(mine, DynType):
        return "equal" if isinstance(relay, DynType) else "less-precise"
    if isinstance(relay, DynType):
        return "more-precise"  # the main corpus's harvest wrote `?` for a type it could not print (an ADT's)
    if isinstance(relay, TensorType) and isinstance(mine, TensorType):
        return _compare_tensors(relay, mine)
    if isinstance(relay, TupleType) and isinstance(mine, TupleType):
        if len(relay.fields) != len(mine.fields):
            return "disagree"
        return _worst(compare_types(r, m) for r, m in zip(relay.fields, mine.fields))
    if isinstance(relay, FuncType) and isinstance(mine, FuncType):
        if len(relay.params) != len(mine.params):
            return "disagree"
        pairs = list(zip(relay.params, mine.params)) + [(relay.ret, mine.ret)]
        return _worst(compare_types(r, m) for r, m in pairs)
    if isinstance(relay, RefType) and isinstance(mine, RefType):
        return compare_types(relay.content, mine.content)
    if isinstance(relay, AdtType) and isinstance(mine, AdtType):
        if relay.name != mine.name or len(relay.args) != len(mine.args):
            return "disagree"
        # a type argument Relay could not infer (`box[?]`): gradual's is as precise or more
        return _worst(
            "more-precise" if isinstance(r, DynType) and not isinstance(m, DynType) else compare_types(r, m)
            for r, m in zip(relay.args, mine.args)
        )
    if type(relay) is type(mine) and str(relay) == str(mine):
        return "equal"
    return "disagree"


def _compare_tensors(relay: TensorType, mine: TensorType) -> str:
    grades = []
    if str(relay.dtype) != str(mine.dtype):
        grades.append("less-precise" if str(mine.dtype) == "?" else "disagree")
    if mine.dims is None:
        grades.append("equal" if relay.dims is None else "less-precise")
    elif relay.dims is None:
        grades.append("more-precise")
    elif len(relay.dims) != len(mine.dims):
        grades.append("disagree")
    else:
        grades.extend(compare_dims(r, m) for r, m in zip(relay.dims, mine.dims))
    return _worst(grades)


def classify(entry: dict) -> str:
    """The outcome of one corpus program."""
    result = gradual.check(entry["text"], entry["id"])
    types = type_definitions(entry["text"]) if "\ntype " in entry["text"] or entry["text"].startswith("type ") else ""
    error_codes = {d.code for d in result.errors}
    if error_codes & UNREADABLE_CODES:
        return "unreadable"
    if "error" in entry:
        return "both-reject" if error_codes else "accepted"
    if error_codes:
        return "rejected"
    grades = []
    for name, text in entry["types"].items():
        relay = relay_type(text, types)
        mine = result.function_type(name)
        if relay is None or mine is None:
            return "unreadable"
        grades.append(compare_types(relay, mine))
    return _worst(grades)


def classify_all(entries: list[dict]) -> dict[str, str]:
    """Every program's outcome, by id."""
    return {entry["id"]: classify(entry) for entry in entries}


def table(outcomes: dict[str, str]) -> str:
    """The parity table (markdown), with the share that agrees or is more precise."""
    counts = collections.Counter(outcomes.values())
    total = len(outcomes)
    rows = ["| outcome | programs | % |", "| --- | ---: | ---: |"]
    for outcome in ORDER:
        rows.append(f"| {LABELS[outcome]} | {counts[outcome]} | {100 * counts[outcome] / total:.1f} |")
    agree = sum(counts[o] for o in AGREE)
    rows.append(f"| **agree or better** | **{agree}** | **{100 * agree / total:.1f}** |")
    rows.append(f"| total | {total} | |")
    return "\n".join(rows)


def main(argv=None) -> int:
    """Print the table; --update rewrites the recorded outcomes; --show lists programs."""
    parser = argparse.ArgumentParser(description="gradual against Relay on Relay's own tests")
    parser.add_argument("--update", action="store_true", help="rewrite tests/data/relay/outcomes.json")
    parser.add_argument("--show", help="list the programs with this outcome")
    parser.add_argument("--adt", action="store_true", help="the corpus of algebraic data types (adt_corpus.jsonl.gz)")
    args = parser.parse_args(argv)
    entries = load_corpus(ADT_CORPUS if args.adt else CORPUS)
    outcomes = gradual.infra.deep.run_deep(classify_all, entries)
    print(table(outcomes))
    if args.show:
        for entry in entries:
            if outcomes[entry["id"]] == args.show:
                print(f"{entry['id']} {entry['origin']}")
    if args.update:
        path = ADT_OUTCOMES if args.adt else OUTCOMES
        path.write_text(json.dumps({"outcomes": outcomes}, indent=0, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
