"""Imports are bounded: a small model file that declares or expands to something huge ends in an
`input-error` naming the part, the limit and the variable that raises it, with the checking
process's peak memory measured (a child process; gradual/frontends/limits.py has the table)."""

from __future__ import annotations

import io
import json
import os
import zipfile

import pytest

from gradual.frontends import limits
from gradual.frontends import torch_export as gt
from gradual.frontends.torch_export.archive import ArchiveError
from tests.limits_support import declare_members, declare_size, rezip, run_measured

DATA = os.path.join(os.path.dirname(__file__), "data")
CNN = os.path.join(DATA, "torch", "cnn.pt2")
#: a check of a small model takes ~50 MiB; one that inflated a bomb took 430
PEAK_MIB = 200


def _cnn() -> bytes:
    with open(CNN, "rb") as handle:
        return handle.read()


def _padded(suffix: str, pad: int):
    def edit(name: str, content: bytes) -> bytes:
        return content + b" " * pad if name.endswith(suffix) else content

    return edit


def _refused(path, variable: str, env: dict | None = None) -> str:
    """Check `path` in a child: one input-error naming `variable`, under PEAK_MIB; its stderr."""
    outcome = run_measured(["check", str(path)], env)
    assert outcome.code == 1, outcome.stderr
    assert "error[input-error]" in outcome.stderr, outcome.stderr
    assert variable in outcome.stderr, outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert outcome.peak_mib < PEAK_MIB, f"{outcome.peak_mib:.0f} MiB"
    return outcome.stderr


# -- torch.export archives ----------------------------------------------------------------------


def test_a_deflate_bomb_in_the_program_is_refused_by_its_ratio(tmp_path):
    """The 0.2 MB archive whose model.json inflates to 200 MB (430 MiB peak before the limits)."""
    path = tmp_path / "bomb.pt2"
    path.write_bytes(rezip(_cnn(), _padded("models/model.json", 200_000_000), zipfile.ZIP_DEFLATED))
    assert path.stat().st_size < 300_000
    stderr = _refused(path, limits.EXPANSION_RATIO.variable)
    assert "model.json expands to" in stderr and "times its compressed size" in stderr


def test_a_bomb_in_a_member_read_only_in_part_is_never_inflated(tmp_path):
    """archive_format is read to its first 64 bytes only: 200 MB of padding there costs nothing."""
    path = tmp_path / "format.pt2"
    path.write_bytes(rezip(_cnn(), _padded("archive_format", 200_000_000), zipfile.ZIP_DEFLATED))
    outcome = run_measured(["check", str(path)])
    assert outcome.code == 0, outcome.stderr
    assert outcome.peak_mib < PEAK_MIB


def test_a_member_declaring_a_small_size_is_read_to_that_size_only(tmp_path):
    """model.json declares 100 bytes and inflates to 20 MB: 100 bytes are read, and are no JSON."""
    bomb = rezip(_cnn(), _padded("models/model.json", 20_000_000), zipfile.ZIP_DEFLATED)
    path = tmp_path / "liar.pt2"
    path.write_bytes(declare_size(bomb, "models/model.json", 100))
    outcome = run_measured(["check", str(path)])
    assert outcome.code == 1 and "error[input-error]" in outcome.stderr, outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert outcome.peak_mib < PEAK_MIB


def test_a_huge_declared_size_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.pt2"
    path.write_bytes(declare_size(_cnn(), "models/model.json", 0xFFFFFFF0))
    stderr = _refused(path, limits.JSON_BYTES.variable)
    assert "4,294,967,280 bytes of JSON" in stderr


def test_a_limit_is_raised_by_its_variable(tmp_path):
    """The same archive checks once the variable allows its ratio (a genuine repetitive graph)."""
    path = tmp_path / "padded.pt2"
    path.write_bytes(rezip(_cnn(), _padded("models/model.json", 5_000_000), zipfile.ZIP_DEFLATED))
    _refused(path, limits.EXPANSION_RATIO.variable)
    outcome = run_measured(["check", str(path)], {limits.EXPANSION_RATIO.variable: "100000"})
    assert outcome.code == 0, outcome.stderr


def test_many_members_are_refused_from_the_end_record(tmp_path):
    path = tmp_path / "many.pt2"
    extra = io.BytesIO()
    with zipfile.ZipFile(extra, "w") as zf:
        with zipfile.ZipFile(CNN) as zin:
            for info in zin.infolist():
                zf.writestr(info.filename, zin.read(info.filename))
        for i in range(3000):
            zf.writestr(f"cnn.pt2/extra/{i}", b"")
    path.write_bytes(extra.getvalue())
    _refused(path, limits.ARCHIVE_MEMBERS.variable, {limits.ARCHIVE_MEMBERS.variable: "1000"})


@pytest.mark.parametrize("count", [100_001, 2**40])
def test_a_declared_member_count_past_the_limit_is_refused(tmp_path, count):
    path = tmp_path / "count.pt2"
    path.write_bytes(declare_members(_cnn(), count))
    stderr = _refused(path, limits.ARCHIVE_MEMBERS.variable)
    assert f"has {count:,} members" in stderr


def test_a_nested_archive_is_bytes_not_an_archive(tmp_path):
    """An archive whose program is itself a zip (of a bomb): it is not JSON, and nothing nested
    is opened."""
    inner = rezip(_cnn(), _padded("models/model.json", 50_000_000), zipfile.ZIP_DEFLATED)
    path = tmp_path / "nested.pt2"
    path.write_bytes(rezip(_cnn(), lambda name, content: inner if name.endswith("models/model.json") else content))
    outcome = run_measured(["check", str(path)])
    assert outcome.code == 1 and "is not JSON" in outcome.stderr, outcome.stderr
    assert outcome.peak_mib < PEAK_MIB


def test_deeply_nested_json_is_not_json(tmp_path):
    deep = b"[" * 2_000_000 + b"]" * 2_000_000
    path = tmp_path / "deep.pt2"
    path.write_bytes(
        rezip(
            _cnn(), lambda name, content: deep if name.endswith("models/model.json") else content, zipfile.ZIP_DEFLATED
        )
    )
    outcome = run_measured(["check", str(path)])
    assert outcome.code == 1 and "error[input-error]" in outcome.stderr, outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert outcome.peak_mib < PEAK_MIB


def _with_weight_sizes(sizes: list) -> bytes:
    def edit(name: str, content: bytes) -> bytes:
        if not name.endswith("model_weights_config.json"):
            return content
        config = json.loads(content)
        first = next(iter(config["config"].values()))
        first["tensor_meta"]["sizes"] = [{"as_int": n} for n in sizes]
        first["tensor_meta"]["strides"] = [{"as_int": 1} for _ in sizes]
        return json.dumps(config).encode()

    return rezip(_cnn(), edit)


def test_a_weight_declaring_more_than_the_limit_is_refused_before_its_member_is_read():
    archive = gt.load_archive(_with_weight_sizes([2**20, 2**20, 2**20]))
    fqn = next(iter(archive.weights))
    with pytest.raises(ArchiveError) as failure:
        archive.payload(fqn)
    assert failure.value.limit is limits.TENSOR_BYTES
    assert "declares 4,611,686,018,427,387,904 bytes of data" in failure.value.detail


def test_a_weight_is_read_only_as_far_as_its_sizes_reach():
    """A weight member longer than its tensor: the tensor's bytes are read, not the member's."""

    def edit(name: str, content: bytes) -> bytes:
        return content + b"\0" * 1_000_000 if name.endswith("weights/weight_0") else content

    archive = gt.load_archive(rezip(_cnn(), edit, zipfile.ZIP_DEFLATED))
    plain = gt.load_archive(_cnn())
    fqn = next(f for f, meta in archive.weights.items() if meta["path_name"] == "weight_0")
    assert (archive.payload(fqn) == plain.payload(fqn)).all()


# -- ONNX models --------------------------------------------------------------------------------
# A protobuf is not compressed: what can be huge is what a few bytes declare (dims, external
# data, a length prefix) and what folding constants would build.


def _onnx_model(tmp_path, name: str, nodes: list, inits: list, x_dims: list, x_type: int = 1):
    onnx = pytest.importorskip("onnx")
    helper = onnx.helper
    x = helper.make_tensor_value_info("x", x_type, x_dims)
    y = helper.make_tensor_value_info("y", x_type, None)
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=inits)
    path = tmp_path / name
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def _onnx_outcome(path, command: str = "check", code: int = 1, words: str = ""):
    outcome = run_measured([command, str(path)])
    assert outcome.code == code, outcome.stderr
    assert "Traceback" not in outcome.stderr and words in outcome.stderr, outcome.stderr
    assert outcome.peak_mib < PEAK_MIB, f"{outcome.peak_mib:.0f} MiB"
    return outcome


def test_an_initializer_declaring_huge_dims_without_data_is_refused(tmp_path):
    from onnx import TensorProto, helper

    weight = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[100_000, 100_000])
    path = _onnx_model(tmp_path, "dims.onnx", [helper.make_node("Add", ["x", "W"], ["y"])], [weight], [2])
    _onnx_outcome(path, words="error[bad-initializer]")


def test_external_data_outside_the_model_directory_is_refused(tmp_path):
    from onnx import TensorProto, helper

    weight = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[100_000, 100_000])
    weight.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "/dev/zero"), ("length", str(4 * 10**10))):
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    path = _onnx_model(tmp_path, "external.onnx", [helper.make_node("Add", ["x", "W"], ["y"])], [weight], [2])
    _onnx_outcome(path, words="error[input-error]")


@pytest.mark.parametrize("op", ["ConstantOfShape", "Expand", "Tile", "Range"])
def test_a_folded_constant_is_never_built_at_check_time_and_is_a_resource_limit_when_run(tmp_path, op):
    """A 10^10-element constant: its type is checked (without the array), a run stops at the
    tensor-size limit naming its variable."""
    import numpy as np
    from onnx import helper, numpy_helper

    def const(name, value, dtype=np.int64):
        return numpy_helper.from_array(np.array(value, dtype=dtype), name)

    x_type = 1
    if op == "ConstantOfShape":
        nodes, inits = [helper.make_node(op, ["S"], ["c"])], [const("S", [100_000, 100_000])]
    elif op == "Expand":
        inits = [const("S", [100_000, 100_000]), const("one", [1.0], np.float32)]
        nodes = [helper.make_node(op, ["one", "S"], ["c"])]
    elif op == "Tile":
        inits = [const("R", [100_000, 100_000]), const("B", [[1.0]], np.float32)]
        nodes = [helper.make_node(op, ["B", "R"], ["c"])]
    else:
        inits, x_type = [const("r0", 0), const("r1", 10**10), const("r2", 1)], 7
        nodes = [helper.make_node(op, ["r0", "r1", "r2"], ["c"])]
    nodes.append(helper.make_node("Add", ["x", "c"], ["y"]))
    path = _onnx_model(tmp_path, f"{op}.onnx", nodes, inits, [1], x_type)
    _onnx_outcome(path, code=0)
    _onnx_outcome(path, "run", code=3, words="GRADUAL_MAX_TENSOR_BYTES")


def test_a_length_prefix_past_the_end_of_the_file_is_an_input_error(tmp_path):
    """A field whose varint length claims 2 GiB in a file of a few bytes."""
    path = tmp_path / "truncated.onnx"
    path.write_bytes(b"\x3a" + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x07]) + b"\x0a\x01g")
    _onnx_outcome(path, words="error[input-error]")


def test_docs_limits_lists_every_limit_with_its_default():
    """docs/limits.md's table is gradual/frontends/limits.py's."""
    with open(os.path.join(os.path.dirname(DATA), "..", "docs", "limits.md"), encoding="utf-8") as handle:
        text = handle.read()
    table = text.split("<!-- limits:")[1].split("<!-- end limits -->")[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    expected = [f"| `{lim.variable}` | {lim.default:,} | {lim.what} |" for lim in limits.TABLE]
    assert rows == expected
