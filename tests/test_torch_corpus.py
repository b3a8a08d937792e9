"""The torch.export corpus (bench/torch_corpus.py) in the suite: every program torch exported
is checked and run by gradual, without torch, and its outputs compared with torch's.

tests/data/torch/corpus holds what `python bench/torch_corpus.py export --group functional nn
--out tests/data/torch/corpus` wrote with torch 2.13: each program in both IRs (`default`:
torch.export.export's graph, `core`: after run_decompositions()), its sample inputs, torch's
outputs for them, another size where torch accepts it, and `<case>.case.json` (what torch
refused, and why). The torchvision and Hugging Face groups are left to the bench: their
weights at real widths are too large to keep here. `FAST` is the default run's representative
subset (a program of each kind); the rest run under `-m deep`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "torch" / "corpus"
sys.path.insert(0, str(ROOT / "bench"))

from torch_corpus import IRS, check_archive, read_manifest  # noqa: E402

MANIFEST = read_manifest(CORPUS)

#: programs of each kind run by default (resampling, padding, pooling, norms, losses,
#: distances, indexing, data-dependent sizes, in-place writes, a recurrent and an attention model)
FAST = frozenset(
    {
        "interpolate_bilinear",
        "pad_reflect",
        "max_pool2d_ceil",
        "group_norm",
        "losses",
        "regression_losses",
        "distances",
        "gather_scatter",
        "masked",
        "in_place",
        "reductions",
        "gru",
        "multihead_attention",
    }
)


def _param(case: str) -> object:
    return case if case in FAST else pytest.param(case, marks=pytest.mark.deep)


def test_the_corpus_is_here_and_its_fast_subset_is_in_it() -> None:
    assert len(MANIFEST) >= 40, "tests/data/torch/corpus holds the exported corpus"
    assert FAST <= set(MANIFEST)


@pytest.mark.parametrize("case", [_param(c) for c in sorted(MANIFEST)])
def test_every_exported_program_checks_and_runs_to_torchs_outputs(case: str) -> None:
    entry = MANIFEST[case]
    archives = entry.get("archives", {})
    if not archives:
        pytest.skip(f"torch refused to export it: {entry.get('refused')}")
    for ir in IRS:
        if ir not in archives:
            continue
        row = check_archive(CORPUS / archives[ir], CORPUS, case, ir, entry)
        assert row.imported and not row.unsupported, f"{case} ({ir}): unsupported {row.unsupported} {row.errors}"
        assert not row.errors, f"{case} ({ir}): {row.errors}"
        assert row.run == "equal", f"{case} ({ir}): {row.run or 'not run'}"


def test_the_corpus_was_written_by_the_bench() -> None:
    """Each entry names archives that exist, and inputs and outputs beside them."""
    for case, entry in MANIFEST.items():
        for name in entry.get("archives", {}).values():
            assert (CORPUS / name).exists(), name
        if entry.get("archives"):
            assert (CORPUS / f"{case}.inputs.npz").exists() and (CORPUS / f"{case}.outputs.npz").exists()
    assert os.path.isdir(CORPUS)
