"""Regenerate tests/data/relay/corpus.jsonl: Relay programs with Relay's own verdict on them.

Runs TVM's Relay tests under a Python that has a TVM build with Relay, with the pytest plugin
`bench/relay_harvest_plugin.py` recording each module the tests type-check (its text before
inference, and the function types Relay inferred or the error it reported). The corpus was
made with `hhb-tvm==3.2.3` (Relay 0.16.dev0; it needs Python 3.10, plus `tqdm` and `tflite`
for its imports) and the tests of apache/tvm at tag v0.16.0:

    python3.10 -m venv /tmp/relay310 && /tmp/relay310/bin/pip install hhb-tvm==3.2.3 tqdm tflite pytest
    git -C tvm archive v0.16.0 tests/python/relay tests/python/conftest.py conftest.py | tar -x -C /tmp/tvmsrc
    python bench/relay_harvest.py --tvm /tmp/tvmsrc --python /tmp/relay310/bin/python

Each corpus line is one distinct program (`/* ty=... */` comments aside), with the first test
that checked it: {"id", "origin", "text", "types": {global: type}} or {..., "error": message}.
Programs Relay prints with metadata (tensor constants: `meta[relay.Constant][0]`) have no text
form and are left out; the script says how many.
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
]
MAX_TEXT = 20_000
TYPE_COMMENT = re.compile(r" ?/\* ty=.*? \*/")
PER_FILE_SECONDS = 900


def test_paths(tvm_root):
    """The Relay test files to run, in TEST_FILES order."""
    relay = Path(tvm_root) / "tests" / "python" / "relay"
    paths = []
    for pattern in TEST_FILES:
        for path in sorted(relay.glob(pattern)):
            if path not in paths:
                paths.append(path)
    return paths


def run_one(python, tvm_root, path, out):
    """Run one test file under the plugin, appending its records to `out`."""
    env = dict(os.environ, RELAY_HARVEST_OUT=str(out), TVM_TEST_TARGETS="llvm",
               PYTHONPATH=str(HERE))
    command = [python, "-m", "pytest", "-q", "-p", "relay_harvest_plugin", "-p",
               "no:cacheprovider", str(path.relative_to(tvm_root))]
    try:
        subprocess.run(command, cwd=tvm_root, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=PER_FILE_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        print(f"  {path.name}: timed out after {PER_FILE_SECONDS} s (records so far kept)")


def program_key(text):
    """What makes two records the same program: the text without Relay's type comments."""
    return TYPE_COMMENT.sub("", text)


def corpus_entries(records):
    """Distinct usable programs, first occurrence kept, with counts of what was left out."""
    seen, entries = set(), []
    left_out = {"duplicate": 0, "metadata": 0, "too long": 0, "unprintable type": 0}
    for record in records:
        text = record["text"]
        key = program_key(text)
        reason = ("duplicate" if key in seen else "metadata" if "meta[" in text
                  else "too long" if len(text) > MAX_TEXT
                  else "unprintable type" if "types_error" in record else None)
        if reason:
            left_out[reason] += 1
            continue
        seen.add(key)
        entry = {"id": f"r{len(entries):04d}", "origin": record["test"], "text": text}
        entry.update({"error": record["error"]} if "error" in record else {"types": record["types"]})
        entries.append(entry)
    return entries, left_out


def main(argv=None):
    """Harvest, deduplicate and write the corpus."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tvm", required=True, help="a TVM source tree (tests/python/relay)")
    parser.add_argument("--python", required=True, help="a Python with TVM (Relay) and pytest")
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument("--only", nargs="*", help="run only these test files (names)")
    parser.add_argument("--raw", help="keep every record here (default: a scratch file)")
    args = parser.parse_args(argv)
    tvm_root = Path(args.tvm).resolve()
    with tempfile.TemporaryDirectory() as scratch:
        raw = Path(args.raw or Path(scratch) / "records.jsonl")
        raw.unlink(missing_ok=True)
        for path in test_paths(tvm_root):
            if args.only and path.name not in args.only:
                continue
            print(f"running {path.relative_to(tvm_root)}", flush=True)
            run_one(args.python, tvm_root, path, raw)
        records = [json.loads(line) for line in raw.read_text().splitlines()] if raw.exists() else []
    entries, left_out = corpus_entries(records)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as out:
        for entry in entries:
            out.write(json.dumps(entry, sort_keys=True) + "\n")
    print(f"{len(records)} records -> {len(entries)} programs in {args.out}; left out: {left_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
