"""What gradual reads of ONNX's operator schemas (the default domain), without importing `onnx`
on every start: the schemas are read once from the installed `onnx` (`onnx.defs`) and kept in
the user cache (`gradual.infra.usercache`) under a key naming that installation (the path, size and
time of its compiled module, which holds the schemas), so a check whose cache is warm never
imports `onnx`, and a new `onnx` is read again.

`schema(op, opset)` answers as `onnx.defs.get_schema(op, opset, "")` does (the version of the
operator with the highest `since_version` not above `opset`, or None where there is none) and
`known_operator(op)` as `onnx.defs.has(op)`; tests/test_onnx_schemas.py compares them over
every operator and opset.
"""

from __future__ import annotations

import functools
import marshal
import os
from dataclasses import dataclass

from gradual.infra import usercache


@dataclass(frozen=True)
class Schema:
    """What gradual reads of an operator's ONNX schema: {attribute: (AttributeProto type,
    required)}, the least and most inputs and outputs a node may list, and the required
    attributes' names in the schema's order."""

    attributes: dict
    inputs: tuple
    outputs: tuple
    required: tuple


#: the table's form, in the cache key: a change to `_read_table` must change it
_FORMAT = "onnx-schemas-1"


def installed_onnx() -> str | None:
    """The directory of the installed `onnx` package (found without importing it), or None."""
    from importlib.util import find_spec

    try:
        spec = find_spec("onnx")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def _identity(where: str) -> list:
    """What names one installation of `onnx`: its compiled modules' paths, sizes and times."""
    found = []
    try:
        names = sorted(os.listdir(where))
    except OSError:
        return [where]
    for name in names:
        if name.startswith("onnx_cpp2py_export") or name == "version.py":
            try:
                info = os.stat(os.path.join(where, name))
            except OSError:
                continue
            found += [name, info.st_size, info.st_mtime_ns]
    return [where, *found]


def _read_table() -> dict:
    """{op: [(since_version, attributes, (min, max) inputs, (min, max) outputs), ...]} of every
    operator of the default domain, each op's versions in ascending order, from `onnx.defs`."""
    import onnx.defs

    table: dict = {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain not in ("", "ai.onnx"):
            continue
        attributes = {name: (int(a.type), bool(a.required)) for name, a in s.attributes.items()}  # type: ignore[call-overload]
        table.setdefault(s.name, []).append(
            (int(s.since_version), attributes, (s.min_input, s.max_input), (s.min_output, s.max_output))
        )
    for versions in table.values():
        versions.sort(key=lambda v: v[0])
    return table


@functools.lru_cache(maxsize=1)
def table() -> dict:
    """The schema table (see `_read_table`), from the user cache when it holds this onnx's."""
    where = installed_onnx()
    key = usercache.key(_FORMAT, *_identity(where)) if where is not None else None
    if key is not None:
        data = usercache.load("onnx-schemas.marshal", key)
        if data is not None:
            try:
                found = marshal.loads(data)
                if isinstance(found, dict):
                    return found
            except (ValueError, EOFError, TypeError):
                pass  # a damaged entry: read again
    found = _read_table()
    if key is not None:
        usercache.store("onnx-schemas.marshal", key, marshal.dumps(found))
    return found


@functools.cache
def schema(op_type: str, opset: int) -> Schema | None:
    """The schema of an operator of the default domain at an opset (None: onnx has none)."""
    best = None
    for version in table().get(op_type, ()):
        if version[0] <= opset:
            best = version
    if best is None:
        return None
    _, attributes, inputs, outputs = best
    required = tuple(name for name, (_, needed) in attributes.items() if needed)
    return Schema(attributes, tuple(inputs), tuple(outputs), required)


def known_operator(op_type: str) -> bool:
    """Whether ONNX defines the operator in the default domain at some opset."""
    return op_type in table()
