"""Reading a `.pt2` archive (what `torch.export.save` writes) with the standard library only.

The archive is a zip. Everything checking needs is JSON:

    <name>/archive_format                          "pt2"
    <name>/models/model.json                       the serialized ExportedProgram (graph, tensor
                                                   metadata, symbolic sizes, range constraints,
                                                   stack traces, signature, schema version)
    <name>/data/weights/model_weights_config.json  parameters and buffers: dtype, sizes, strides
    <name>/data/weights/weight_0 ...               their raw bytes (read for `run` only)
    <name>/data/constants/model_constants_config.json   tensor constants, likewise

Supported: schema major version 8 (torch 2.13 writes 8.20). Another major version, or the older
layout with `serialized_exported_program.json` at the top (torch 2.5 and earlier), is reported
with `archive-version`; a file that is not such a zip with `input-error`.

A member is read only as far as its declared (and checked) size needs, streamed with that cap:
the member count, a JSON member's size, any member's size and its expansion ratio are held to
gradual/frontends/limits.py's table before anything is inflated, and a payload is read only
up to the bytes its tensor's sizes, strides and offset reach.
"""

from __future__ import annotations

import json
import math
import zipfile
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np

from gradual.frontends import limits
from gradual.frontends.limits import Limit, LimitExceeded

SUPPORTED_MAJOR = 8
WRITTEN_BY_TORCH = "2.13"

#: torch.export's ScalarType numbers -> gradual dtypes (None: gradual cannot hold it)
DTYPES = {
    1: "uint8",
    2: "int8",
    3: "int16",
    4: "int32",
    5: "int64",
    6: "float16",
    7: "float32",
    8: "float64",
    12: "bool",
    13: "bfloat16",
    28: "uint16",
    34: "uint32",
    35: "uint64",
}
SCALAR_TYPE_NAMES = {
    0: "unknown",
    9: "complex32",
    10: "complex64",
    11: "complex128",
    29: "float8_e4m3fn",
    30: "float8_e5m2",
    31: "float8_e4m3fnuz",
    32: "float8_e5m2fnuz",
    33: "float8_e8m0fnu",
}


def dtype_of(scalar_type: Any) -> Optional[str]:
    """The gradual dtype of a torch ScalarType number, or None when gradual cannot run it (or
    a malformed archive gives something other than a number)."""
    return DTYPES.get(scalar_type) if type(scalar_type) is int else None


def scalar_type_name(scalar_type: Any) -> str:
    """A torch ScalarType as torch names it (`bfloat16`), for messages."""
    if type(scalar_type) is not int:
        return f"ScalarType {scalar_type!r}"
    return DTYPES.get(scalar_type) or SCALAR_TYPE_NAMES.get(scalar_type, f"ScalarType {scalar_type}")


class ArchiveError(Exception):
    """The file cannot be read as a supported archive: `kind` is "unreadable" or "version";
    `limit` the limit a part of it passes, when that is why."""

    def __init__(self, kind: str, detail: str, limit: Limit | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.limit = limit


def _past_limit(exc: LimitExceeded) -> ArchiveError:
    return ArchiveError("unreadable", str(exc), exc.limit)


@dataclass
class Archive:
    """One exported program read from an archive: its JSON, and where its payloads are."""

    program: dict
    model: str
    models: list
    weights: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)
    zip_bytes: Optional[bytes] = None
    zip_path: Optional[str] = None
    prefix: str = ""

    @property
    def schema_version(self) -> str:
        """`8.20`."""
        v = self.program.get("schema_version") or {}
        return f"{v.get('major', '?')}.{v.get('minor', '?')}"

    @property
    def torch_version(self) -> str:
        """The torch version that wrote the program (as recorded)."""
        return str(self.program.get("torch_version", "?"))

    def payload(self, fqn: str) -> np.ndarray:
        """A parameter's, buffer's or constant's value by its qualified name (`conv.weight`);
        KeyError when the archive has none, ArchiveError when it cannot be read."""
        where, meta = self._payload_meta(fqn)
        layout = _layout(meta, fqn)
        raw = self._read(f"{self.prefix}data/{where}/{layout.path}", _bytes_reached(layout, fqn))
        return _strided_array(raw, layout, fqn)

    def _payload_meta(self, fqn: str) -> tuple:
        if fqn in self.weights:
            return "weights", self.weights[fqn]
        if fqn in self.constants:
            return "constants", self.constants[fqn]
        raise KeyError(fqn)

    def _read(self, member: str, cap: int) -> bytes:
        """At most `cap` bytes of a payload member (what its tensor reaches: the rest is never
        inflated)."""
        try:
            with _open_zip(self.zip_bytes, self.zip_path) as zf:
                return _read_member(zf, member, limits.MEMBER_BYTES, cap)
        except LimitExceeded as exc:
            raise _past_limit(exc) from None
        except (KeyError, OSError, zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, EOFError, ValueError) as exc:
            raise ArchiveError("unreadable", f"cannot read {member}: {_reason(exc)}") from None


@dataclass(frozen=True)
class _Layout:
    """How a payload's bytes make its tensor: member name, dtype, sizes, strides, offset."""

    path: str
    dtype: str
    sizes: list
    strides: list
    offset: int


def _layout(meta: Any, fqn: str) -> _Layout:
    """A payload's description from the weights or constants config, checked: the file is input
    like any other, so any part missing or of the wrong kind is an ArchiveError."""
    if not isinstance(meta, dict):
        raise ArchiveError("unreadable", f"`{fqn}` has no readable description in the archive")
    if meta.get("use_pickle"):
        raise ArchiveError("unreadable", f"`{fqn}` is pickled (a tensor subclass or custom object)")
    tensor = meta.get("tensor_meta") or {}
    code = tensor.get("dtype", 0) if isinstance(tensor, dict) else None
    if not isinstance(code, int):
        raise ArchiveError("unreadable", f"`{fqn}` has no readable element type")
    dtype = dtype_of(code)
    if dtype is None:
        raise ArchiveError("unreadable", f"`{fqn}` has element type {scalar_type_name(code)}")
    sizes, strides = _int_list(tensor.get("sizes", [])), _int_list(tensor.get("strides", []))
    offset = _int_size(tensor.get("storage_offset", {"as_int": 0}))
    if sizes is None or strides is None or offset is None or len(strides) != len(sizes):
        raise ArchiveError("unreadable", f"`{fqn}` has symbolic or malformed sizes")
    if min(sizes + strides + [offset]) < 0:
        raise ArchiveError("unreadable", f"`{fqn}` has a negative size, stride or offset")
    path = meta.get("path_name", "")
    if not isinstance(path, str):
        raise ArchiveError("unreadable", f"`{fqn}` names no readable payload")
    return _Layout(path, dtype, sizes, strides, offset)


def _bytes_reached(layout: _Layout, fqn: str) -> int:
    """How many bytes of its member a payload's tensor reaches (its last element's end), its
    declared size held to the weight limit first."""
    itemsize = np.dtype(layout.dtype).itemsize
    try:
        limits.check(limits.TENSOR_BYTES, f"`{fqn}`", math.prod(layout.sizes) * itemsize)
    except LimitExceeded as exc:
        raise _past_limit(exc) from None
    if 0 in layout.sizes:
        return 0
    return (layout.offset + 1 + sum((n - 1) * s for n, s in zip(layout.sizes, layout.strides))) * itemsize


def _strided_array(raw: bytes, layout: _Layout, fqn: str) -> np.ndarray:
    """A payload's bytes viewed with its sizes, strides and storage offset, copied (no larger
    than the data or the runtime's tensor limit: a stride of 0 repeats an element)."""
    from gradual.runtime.operators import tensor_byte_limit

    np_dtype = np.dtype(layout.dtype).newbyteorder("<")
    sizes, strides = layout.sizes, layout.strides
    if math.prod(sizes) * np_dtype.itemsize > max(len(raw), tensor_byte_limit()):
        raise ArchiveError("unreadable", f"`{fqn}` has sizes {sizes}, more elements than gradual holds")
    if 0 in sizes:
        return np.zeros(sizes, dtype=layout.dtype)
    flat = np.frombuffer(raw[: len(raw) - len(raw) % np_dtype.itemsize], dtype=np_dtype)
    need = layout.offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    if need > flat.size:
        raise ArchiveError("unreadable", f"`{fqn}` has {flat.size} elements of data, fewer than its shape needs")
    view = np.lib.stride_tricks.as_strided(
        flat[layout.offset :], shape=sizes, strides=[s * np_dtype.itemsize for s in strides]
    )
    return np.array(view, dtype=layout.dtype)


def _int_list(values: Any) -> Optional[list]:
    """A list of `{"as_int": n}` sizes as ints (None: not such a list)."""
    if not isinstance(values, list):
        return None
    ints = [_int_size(v) for v in values]
    return None if None in ints else ints


def _int_size(value: Any) -> Optional[int]:
    if isinstance(value, dict) and type(value.get("as_int")) is int:
        return int(value["as_int"])
    return None


def _open_zip(data: Optional[bytes], path: Optional[str]) -> zipfile.ZipFile:
    """The zip, its member count held to the limit first (from its end record, before
    `zipfile` makes an object per member)."""
    import io

    if data is not None:
        _check_members(io.BytesIO(data))
        return zipfile.ZipFile(io.BytesIO(data))
    with open(path, "rb") as handle:  # type: ignore[arg-type]
        _check_members(handle)
    return zipfile.ZipFile(path)  # type: ignore[arg-type]


def _check_members(handle: Any) -> None:
    count = _declared_members(handle)
    if count is not None:
        limits.check(limits.ARCHIVE_MEMBERS, "the archive", count)


_END = b"PK\x05\x06"  # the end of central directory record's signature
_END64_LOCATOR = b"PK\x06\x07"  # and the zip64 one's locator, 20 bytes before it


def _declared_members(handle: Any) -> int | None:
    """The member count a zip's end record declares (None: no end record found; zipfile then
    says what is wrong). The record is in the last 64 KiB + 22 bytes (its comment is at most
    65,535 bytes); a count of 0xFFFF defers to the zip64 end record."""
    size = handle.seek(0, 2)
    start = max(0, size - (22 + 0xFFFF))
    handle.seek(start)
    tail = handle.read()
    at = tail.rfind(_END)
    if at < 0 or len(tail) < at + 22:
        return None
    count = int.from_bytes(tail[at + 10 : at + 12], "little")
    if count != 0xFFFF or at < 20 or tail[at - 20 : at - 16] != _END64_LOCATOR:
        return count
    offset = int.from_bytes(tail[at - 12 : at - 4], "little")
    if offset + 40 > size:
        return None
    handle.seek(offset)
    record = handle.read(40)
    return int.from_bytes(record[32:40], "little") if record[:4] == b"PK\x06\x06" else None


def _read_member(zf: zipfile.ZipFile, name: str, limit: Limit, cap: int | None = None) -> bytes:
    """A member's bytes, at most `cap` of them: its declared size is held to `limit` and its
    expansion ratio to the ratio limit before it is inflated, and it is streamed with its
    declared size as the cap (a member whose data stops short of it is unreadable)."""
    info = zf.getinfo(name)
    want = info.file_size if cap is None else min(cap, info.file_size)
    part = f"the member {name}"
    limits.check(limit, part, want)
    if info.compress_type != zipfile.ZIP_STORED and want > limits.RATIO_FREE_BYTES:
        limits.check(limits.EXPANSION_RATIO, part, info.file_size // max(info.compress_size, 1))
    with zf.open(info) as stream:
        data = stream.read(want)
    if len(data) != want:
        raise ArchiveError("unreadable", f"{name} holds {len(data):,} bytes, fewer than the {want:,} it declares")
    return data


def read_archive(source: Union[str, bytes], model: Optional[str] = None) -> Archive:
    """Read an archive from a path or bytes; raises ArchiveError (never another exception for a
    bad file). `model` picks one of several programs saved together (default: `model`)."""
    data = source if isinstance(source, bytes) else None
    path = source if isinstance(source, str) else None
    try:
        with _open_zip(data, path) as zf:
            names = zf.namelist()
            prefix = _prefix(names)
            _check_layout(zf, names, prefix)
            models = sorted(
                n[len(prefix) + len("models/") : -len(".json")]
                for n in names
                if n.startswith(prefix + "models/") and n.endswith(".json") and n.count("/") == prefix.count("/") + 1
            )
            chosen = _choose(models, model)
            program = _json(zf, f"{prefix}models/{chosen}.json")
            weights = _config(zf, names, f"{prefix}data/weights/{chosen}_weights_config.json")
            constants = _config(zf, names, f"{prefix}data/constants/{chosen}_constants_config.json")
    except LimitExceeded as exc:
        raise _past_limit(exc) from None
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, EOFError, ValueError) as exc:
        raise ArchiveError("unreadable", _reason(exc)) from None
    _check_program(program)
    return Archive(program, chosen, models, weights, constants, data, path, prefix)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _prefix(names: list) -> str:
    """The archive's top folder (`model/`), from its `archive_format` or `models/` member."""
    for name in names:
        for marker in ("archive_format", "models/"):
            at = name.find(marker)
            if at >= 0 and (at == 0 or name[at - 1] == "/") and name.count("/", 0, at) <= 1:
                return name[:at]
    for name in names:
        if name.endswith("serialized_exported_program.json"):
            raise ArchiveError(
                "version", "it has the archive layout of torch 2.5 and earlier (serialized_exported_program.json)"
            )
    raise ArchiveError("unreadable", "it is a zip file, but not a torch.export archive (no archive_format or models/)")


def _check_layout(zf: zipfile.ZipFile, names: list, prefix: str) -> None:
    member = prefix + "archive_format"
    if member in names:
        fmt = _read_member(zf, member, limits.MEMBER_BYTES, 64).decode("utf-8", errors="replace").strip()
        if fmt != "pt2":
            raise ArchiveError("version", f"its archive_format is {fmt!r}, not 'pt2'")


def _choose(models: list, wanted: Optional[str]) -> str:
    if not models:
        raise ArchiveError(
            "unreadable",
            "the archive holds no exported program (no models/*.json); "
            "an AOTInductor package is not an exported program",
        )
    if wanted is not None:
        if wanted not in models:
            raise ArchiveError("unreadable", f"the archive has no program `{wanted}` (it has {', '.join(models)})")
        return wanted
    return "model" if "model" in models else models[0]


def _json(zf: zipfile.ZipFile, member: str) -> Any:
    data = _read_member(zf, member, limits.JSON_BYTES)
    try:
        text = data.decode("utf-8")
        del data  # the bytes and the text are not both kept while the JSON is parsed
        return json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ArchiveError("unreadable", f"{member} is not JSON ({_reason(exc)})") from None


def _config(zf: zipfile.ZipFile, names: list, member: str) -> dict:
    if member not in names:
        return {}
    config = _json(zf, member)
    entries = config.get("config") if isinstance(config, dict) else None
    return entries if isinstance(entries, dict) else {}


def _check_program(program: Any) -> None:
    if not isinstance(program, dict) or not isinstance(program.get("graph_module"), dict):
        raise ArchiveError("unreadable", "its program JSON has no graph_module")
    version = program.get("schema_version")
    major = version.get("major") if isinstance(version, dict) else None
    if major != SUPPORTED_MAJOR:
        shown = f"{major}.{version.get('minor', '?')}" if isinstance(version, dict) else "missing"
        raise ArchiveError(
            "version",
            f"its schema version is {shown}, and gradual reads schema "
            f"{SUPPORTED_MAJOR}.x (torch {WRITTEN_BY_TORCH} writes 8.20)",
        )


def program_from_json(program: dict) -> Archive:
    """An Archive around a serialized program already in memory (no payloads)."""
    _check_program(program)
    return Archive(program, "model", ["model"])
