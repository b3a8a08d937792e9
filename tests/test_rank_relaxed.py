"""Every rank an operator's rule needs is checked), over the operators the
program generator does not write: the ONNX and ATen ones, as the frontends use them.

Each ONNX node test of the sample (shape inputs frozen, as the conformance tests freeze them)
and each committed torch.export archive is imported, and one input at a time is relaxed to
`Tensor[*, dtype]` (the return annotation dropped: it may name that input's symbols). The
relaxed program checks without errors (static gradual guarantee), runs on the test's inputs
to the precise program's outputs (dynamic gradual guarantee), and on that input with one dim
more or one less it runs or stops at a check: never at a rank the rule needs and no check
stated (tests/tracing.py, RANK_CODES), never in a kernel.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from test_onnx_conformance import CASES, graph_inputs, load, shape_inputs  # noqa: E402
from tracing import run_outcome  # noqa: E402

import gradual  # noqa: E402
from gradual.frontends import onnx as gonnx  # noqa: E402
from gradual.frontends import torch_export as gt  # noqa: E402

TORCH = os.path.join(os.path.dirname(__file__), "data", "torch")
ARCHIVES = ["cnn", "attention", "attention_core", "nonzero", "constrained"]

#: the rules of these operators accept shapes their kernels cannot run, whatever the rank is
#: known as (a static program with the changed shape checks clean too): not a rank left
#: unchecked, a rule that is not exact yet
RULE_GAPS: dict = {}  # none left (the last, rotary_embedding's rank above 4, is an upper bound the rule stops)


def relaxed(text: str, param: str) -> str:
    """The program with `@main`'s parameter `param` of unknown rank and no return annotation."""
    head, brace, body = text.partition(" {\n")
    start = head.index("def @main(")
    main = re.sub(rf"%{re.escape(param)}: Tensor\[\([^)]*\), (\w+)\]", rf"%{param}: Tensor[*, \1]", head[start:])
    main = re.sub(r"\) -> .*$", ")", main)
    return head[:start] + main + brace + body


def other_ranks(value: np.ndarray) -> list:
    """The value with one leading dim more, and (if it has one) one less."""
    return [value[None]] + ([np.asarray(value[0])] if value.ndim and value.shape[0] else [])


def identical(a: list, b: list) -> bool:
    """The same outputs bit for bit (the same kernels ran on the same inputs; NaN included)."""
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()
        for x, y in zip(map(np.asarray, a), map(np.asarray, b))
    )


def assert_rank_is_checked(text: str, param: str, feeds: dict) -> None:
    precise = gradual.check(text)
    loose = gradual.check(relaxed(text, param))
    assert loose.ok, [d.message for d in loose.errors]
    want, got = run_outcome(precise, feeds, traced=False), run_outcome(loose, feeds, traced=False)
    assert want.ok and got.ok and identical(want.outputs, got.outputs), f"{want.describe()} / {got.describe()}"
    for value in other_ranks(feeds[param]):
        outcome = run_outcome(loose, {**feeds, param: value}, traced=False)
        assert outcome.ok or outcome.allowed_stop, f"{param} of shape {value.shape}: {outcome.describe()}"


def _onnx_params() -> list:
    found = []
    for name in CASES:
        model, inputs, *_ = load(name)
        given = graph_inputs(model, inputs)
        for graph_name, value in given.items():
            if graph_name in shape_inputs(given) or not isinstance(value, np.ndarray) or value.ndim == 0:
                continue
            gap = RULE_GAPS.get((name, graph_name))
            marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
            found.append(pytest.param(name, graph_name, marks=marks, id=f"{name}-{graph_name}"))
    return found


@pytest.mark.parametrize("name, graph_name", _onnx_params())
def test_an_onnx_input_of_unknown_rank_is_checked_where_a_rule_needs_its_rank(name: str, graph_name: str) -> None:
    model, inputs, *_ = load(name)
    given = graph_inputs(model, inputs)
    imported = gonnx.import_model(model, gonnx.ImportOptions(declared_outputs=False, freeze=shape_inputs(given)))
    params = {spec.name: spec.param for spec in imported.inputs}
    feeds = {params[k]: v for k, v in given.items() if k in params}
    assert_rank_is_checked(imported.text(), params[graph_name], feeds)


@pytest.mark.parametrize("name", ARCHIVES)
def test_a_torch_input_of_unknown_rank_is_checked_where_a_rule_needs_its_rank(name: str) -> None:
    program = gt.import_archive(os.path.join(TORCH, name + ".pt2"))
    inputs = dict(np.load(os.path.join(TORCH, name + ".inputs.npz")))
    feeds = program.feeds(inputs)
    for user in (i.param for i in program.inputs if i.kind == "user_input"):
        assert_rank_is_checked(program.text(), user, feeds)
