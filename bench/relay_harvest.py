"""Regenerate tests/data/relay/corpus.jsonl: Relay programs with Relay's own verdict on them.

Runs TVM's Relay tests under a Python that has a TVM build with Relay, with the pytest plugin
`bench/relay_harvest_plugin.py` recording each module the tests type-check (its text before
inference, and the function types Relay inferred or the error it reported). The corpus was
made with `hhb-tvm==3.2.3` (Relay 0.16.dev0; it needs Python 3.10, plus `tqdm` and `tflite`
for its imports) and the tests of apache/tvm at tag v0.16.0:

    python3.10 -m venv /tmp/relay310 && /tmp/relay310/bin/pip install hhb-tvm==3.2.3 tqdm tflite pytest
    git -C tvm archive v0.16.0 tests/python/relay tests/python/conftest.py conftest.py | tar -x -C /tmp/tvmsrc
    python bench/relay_harvest.py --tvm /tmp/tvmsrc --python /tmp/relay310/bin/python

`--adt` harvests the tests of algebraic data types, tensor arrays, unmatched cases, the parser
and the VM (ADT_TEST_FILES) into tests/data/relay/adt_corpus.jsonl: only programs that define
a type or match, ids `a0000` on (the whole prelude is in most of them, so they may be long).

Each corpus line is one distinct program (`/* ty=... */` comments aside), with the first test
that checked it: {"id", "origin", "text", "types": {global: type}} or {..., "error": message}.
Programs Relay prints with metadata (tensor constants: `meta[relay.Constant][0]`) have no text
form and are left out, as are printouts that call a global they do not define (a module Relay
printed in part); the script says how many. A test function contributes at most
`PER_TEST` programs (its first ones): a few parametrized tests (`test_binomials` alone has
2,859 distinct programs) would otherwise be most of the corpus.

`--from-raw FILE...` rebuilds the corpus from the records of earlier runs (`--raw`) without
running any test, in the order given: the corpus is made from several partial harvests.
`--append` keeps the corpus already at `--out` as it is (ids, origins, verdicts) and adds the
programs it lacks after it, so the outcomes recorded for the old ones stay valid: the corpus's
later part (from r3588) was added so, when the plugin began to print attributes inline (the
scatters, scans, trilu, stft and unique were metadata before) and test_vm, test_op_fast_math,
test_op_floordiv and op/annotation/test_annotation joined the list.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "tests" / "data" / "relay" / "corpus.jsonl"
TEST_FILES = [
    "test_any.py",
    "test_type_infer.py",
    "test_op_level1.py",
    "test_op_level2.py",
    "test_op_level3.py",
    "test_op_level4.py",
    "test_op_level5.py",
    "test_op_level6.py",
    "test_op_level10.py",
    "dyn/test_dynamic_op_level2.py",
    "dyn/test_dynamic_op_level3.py",
    "dyn/test_dynamic_op_level4.py",
    "dyn/test_dynamic_op_level5.py",
    "dyn/test_dynamic_op_level6.py",
    "dyn/test_dynamic_op_level10.py",
    "test_op_grad_level1.py",
    "test_op_grad_level2.py",
    "test_op_grad_level3.py",
    "test_op_grad_level4.py",
    "test_op_grad_level10.py",
    "test_pass_gradient.py",
    "test_pass_*.py",
    "test_vm.py",
    "test_op_fast_math.py",
    "test_op_floordiv.py",
    "op/annotation/test_annotation.py",
]
#: the tests of algebraic data types (`--adt`): their programs carry Relay's whole prelude
#: (List, Option, Tree and a tensor array per dtype: 120,000 characters)
ADT_TEST_FILES = [
    "test_adt.py",
    "test_pass_unmatched_cases.py",
    "test_ir_parser.py",
    "test_tensor_array.py",
    "test_vm.py",
    "test_backend_interpreter.py",
    "test_pass_to_a_normal_form.py",
    "test_pass_to_basic_block_normal_form.py",
    "test_pass_partial_eval.py",
    "test_pass_gradient.py",
    "test_ir_well_formed.py",
    "test_pass_remove_unused_functions.py",
    "test_type_infer.py",
]
ADT_OUT = HERE.parent / "tests" / "data" / "relay" / "adt_corpus.jsonl"
ADT_MAX_TEXT = 200_000
ADT_PROGRAM = re.compile(r"^type |\bmatch\??\s*\(", re.M)
MAX_TEXT = 20_000
PER_TEST = 60
GLOBAL_CALL = re.compile(r"@([A-Za-z_][A-Za-z0-9_]*)")
GLOBAL_DEF = re.compile(r"^def @([A-Za-z_][A-Za-z0-9_]*)", re.M)
TYPE_COMMENT = re.compile(r" ?/\* ty=.*? \*/")
PER_FILE_SECONDS = 900


def test_paths(tvm_root, files=None):
    """The Relay test files to run, in TEST_FILES order (or `files`')."""
    relay = Path(tvm_root) / "tests" / "python" / "relay"
    paths = []
    for pattern in files or TEST_FILES:
        for path in sorted(relay.glob(pattern)):
            if path not in paths:
                paths.append(path)
    return paths


def run_one(python, tvm_root, path, out):
    """Run one test file under the plugin, appending its records to `out`."""
    env = dict(os.environ, RELAY_HARVEST_OUT=str(out), TVM_TEST_TARGETS="llvm", PYTHONPATH=str(HERE))
    command = [
        python,
        "-m",
        "pytest",
        "-q",
        "-p",
        "relay_harvest_plugin",
        "-p",
        "no:cacheprovider",
        str(path.relative_to(tvm_root)),
    ]
    try:
        subprocess.run(
            command,
            cwd=tvm_root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=PER_FILE_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        print(f"  {path.name}: timed out after {PER_FILE_SECONDS} s (records so far kept)")


def program_key(text):
    """What makes two records the same program: the text without Relay's type comments."""
    return TYPE_COMMENT.sub("", text)


def test_function(origin):
    """The test a record came from, without its parameters (`test_x.py::test_f`)."""
    return origin.split("[", 1)[0]


def incomplete(text):
    """Whether a printout calls a global it does not define."""
    return bool(set(GLOBAL_CALL.findall(text)) - set(GLOBAL_DEF.findall(text)))


def corpus_entries(records, per_test=PER_TEST, existing=(), adt=False):
    """Distinct usable programs, first occurrence kept, at most `per_test` per test function,
    with counts of what was left out. `existing` entries (an earlier corpus) come first, kept
    as they are with their ids: the new programs are those not among them, numbered on.
    `adt`: only programs with a type definition or a match, up to ADT_MAX_TEXT long, ids `a0000`."""
    max_text = ADT_MAX_TEXT if adt else MAX_TEXT
    entries = list(existing)
    seen = {program_key(entry["text"]) for entry in entries}
    taken = {}
    for entry in entries:
        taken[test_function(entry["origin"])] = taken.get(test_function(entry["origin"]), 0) + 1
    left_out = {
        "duplicate": 0,
        "metadata": 0,
        "too long": 0,
        "unprintable type": 0,
        "incomplete": 0,
        "over the per-test cap": 0,
        "no algebraic data type": 0,
    }
    for record in records:
        text = record["text"]
        key = program_key(text)
        test = test_function(record["test"])
        reason = (
            "duplicate"
            if key in seen
            else "metadata"
            if "meta[" in text
            else "too long"
            if len(text) > max_text
            else "no algebraic data type"
            if adt and not ADT_PROGRAM.search(text)
            else "unprintable type"
            if "types_error" in record
            else "incomplete"
            if incomplete(text)
            else "over the per-test cap"
            if taken.get(test, 0) >= per_test
            else None
        )
        if reason:
            left_out[reason] += 1
            if reason == "over the per-test cap":
                seen.add(key)
            continue
        seen.add(key)
        taken[test] = taken.get(test, 0) + 1
        entry = {"id": f"{'a' if adt else 'r'}{len(entries):04d}", "origin": record["test"], "text": text}
        entry.update({"error": record["error"]} if "error" in record else {"types": record["types"]})
        entries.append(entry)
    return entries, left_out


def main(argv=None):
    """Harvest, deduplicate and write the corpus."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tvm", help="a TVM source tree (tests/python/relay)")
    parser.add_argument("--python", help="a Python with TVM (Relay) and pytest")
    parser.add_argument("--from-raw", nargs="+", help="build the corpus from these record files instead")
    parser.add_argument("--out", help=f"the corpus to write (default {DEFAULT_OUT.name}, or with --adt {ADT_OUT.name})")
    parser.add_argument(
        "--adt", action="store_true", help="harvest the tests of algebraic data types (ADT_TEST_FILES) instead"
    )
    parser.add_argument("--only", nargs="*", help="run only these test files (names)")
    parser.add_argument("--raw", help="keep every record here (default: a scratch file)")
    parser.add_argument(
        "--append",
        action="store_true",
        help="keep the programs already in --out (ids and all) and add the new ones after them",
    )
    args = parser.parse_args(argv)
    args.out = args.out or str(ADT_OUT if args.adt else DEFAULT_OUT)
    existing = []
    if args.append and Path(args.out).exists():
        existing = [json.loads(line) for line in Path(args.out).read_text().splitlines() if line.strip()]
    if args.from_raw:
        records = [json.loads(line) for path in args.from_raw for line in Path(path).read_text().splitlines()]
        return write_corpus(records, Path(args.out), existing, args.adt)
    if not (args.tvm and args.python):
        parser.error("--tvm and --python are needed to run the tests (or give --from-raw)")
    tvm_root = Path(args.tvm).resolve()
    with tempfile.TemporaryDirectory() as scratch:
        raw = Path(args.raw or Path(scratch) / "records.jsonl")
        raw.unlink(missing_ok=True)
        for path in test_paths(tvm_root, ADT_TEST_FILES if args.adt else None):
            if args.only and path.name not in args.only:
                continue
            print(f"running {path.relative_to(tvm_root)}", flush=True)
            run_one(args.python, tvm_root, path, raw)
        records = [json.loads(line) for line in raw.read_text().splitlines()] if raw.exists() else []
    return write_corpus(records, Path(args.out), existing, args.adt)


def write_corpus(records, out_path, existing=(), adt=False):
    """Deduplicate the records into the corpus file (after the `existing` entries); report
    what was left out."""
    entries, left_out = corpus_entries(records, existing=existing, adt=adt)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as out:
        for entry in entries:
            out.write(json.dumps(entry, sort_keys=True) + "\n")
    added = len(entries) - len(existing)
    print(f"{len(records)} records -> {added} new programs, {len(entries)} in {out_path}; left out: {left_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
