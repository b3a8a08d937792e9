"""ONNX's protobuf messages without the `onnx` package: the ModelProto schema (onnx-ml.proto's
messages, field by field, as the format defines them) described to protobuf's own parser in a
descriptor pool of gradual's, so a model is parsed by protobuf's C parser (upb) into messages
with the very field names, numbers, kinds and `HasField` behaviour of `onnx.ModelProto`.

Why: importing `onnx` costs most of a small model's check (its package imports ml_dtypes,
helper, the reference evaluator's registry...), and the check needs only the messages. The
messages here are not `onnx`'s classes: a function of the `onnx` package that wants its own
(the inliner, the reference evaluator, `onnx.helper.make_graph`) gets one through
`to_onnx`, which re-reads the bytes. Fields this schema leaves out (a node's device
configurations, a model's training info) are kept as unknown fields and serialized again.

The schema is a FileDescriptorProto encoded here by hand (`_file_descriptor`): importing
`descriptor_pb2` to build it would cost more than the parse of a small model.
"""

from __future__ import annotations

from typing import Any, Optional

#: protobuf's field kinds (FieldDescriptorProto.Type) and labels, as used below
_DOUBLE, _FLOAT, _INT64, _UINT64, _INT32, _STRING, _MESSAGE, _BYTES, _ENUM = 1, 2, 3, 4, 5, 9, 11, 12, 14
_KINDS = {
    "double": _DOUBLE,
    "float": _FLOAT,
    "int64": _INT64,
    "uint64": _UINT64,
    "int32": _INT32,
    "string": _STRING,
    "bytes": _BYTES,
}
_OPTIONAL, _REPEATED = 1, 3

#: The messages gradual reads, in onnx-ml.proto's words: `name: fields`, each field
#: `[repeated] kind name = number [packed] [oneof NAME]`; a kind that is no scalar is a
#: message or enum of the file (`.onnx.` prefixed). Nested messages are `Outer.Inner`.
_SCHEMA = """
AttributeProto: string name = 1; string ref_attr_name = 21; string doc_string = 13;
  AttributeProto.AttributeType type = 20; float f = 2; int64 i = 3; bytes s = 4; TensorProto t = 5;
  GraphProto g = 6; SparseTensorProto sparse_tensor = 22; TypeProto tp = 14; repeated float floats = 7;
  repeated int64 ints = 8; repeated bytes strings = 9; repeated TensorProto tensors = 10;
  repeated GraphProto graphs = 11; repeated SparseTensorProto sparse_tensors = 23;
  repeated TypeProto type_protos = 15
ValueInfoProto: string name = 1; TypeProto type = 2; string doc_string = 3;
  repeated StringStringEntryProto metadata_props = 4
NodeProto: repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
  string domain = 7; string overload = 8; repeated AttributeProto attribute = 5; string doc_string = 6;
  repeated StringStringEntryProto metadata_props = 9
ModelProto: int64 ir_version = 1; repeated OperatorSetIdProto opset_import = 8; string producer_name = 2;
  string producer_version = 3; string domain = 4; int64 model_version = 5; string doc_string = 6;
  GraphProto graph = 7; repeated StringStringEntryProto metadata_props = 14;
  repeated FunctionProto functions = 25
StringStringEntryProto: string key = 1; string value = 2
GraphProto: repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated SparseTensorProto sparse_initializer = 15; string doc_string = 10;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
  repeated ValueInfoProto value_info = 13; repeated StringStringEntryProto metadata_props = 16
TensorProto: repeated int64 dims = 1; int32 data_type = 2; TensorProto.Segment segment = 3;
  repeated float float_data = 4 packed; repeated int32 int32_data = 5 packed; repeated bytes string_data = 6;
  repeated int64 int64_data = 7 packed; string name = 8; string doc_string = 12; bytes raw_data = 9;
  repeated StringStringEntryProto external_data = 13; TensorProto.DataLocation data_location = 14;
  repeated double double_data = 10 packed; repeated uint64 uint64_data = 11 packed;
  repeated StringStringEntryProto metadata_props = 16
TensorProto.Segment: int64 begin = 1; int64 end = 2
SparseTensorProto: TensorProto values = 1; TensorProto indices = 2; repeated int64 dims = 3
TensorShapeProto: repeated TensorShapeProto.Dimension dim = 1
TensorShapeProto.Dimension: int64 dim_value = 1 oneof value; string dim_param = 2 oneof value;
  string denotation = 3
TypeProto: TypeProto.Tensor tensor_type = 1 oneof value; TypeProto.Sequence sequence_type = 4 oneof value;
  TypeProto.Map map_type = 5 oneof value; TypeProto.Optional optional_type = 9 oneof value;
  TypeProto.SparseTensor sparse_tensor_type = 8 oneof value; TypeProto.Opaque opaque_type = 7 oneof value;
  string denotation = 6
TypeProto.Tensor: int32 elem_type = 1; TensorShapeProto shape = 2
TypeProto.Sequence: TypeProto elem_type = 1
TypeProto.Map: int32 key_type = 1; TypeProto value_type = 2
TypeProto.Optional: TypeProto elem_type = 1
TypeProto.SparseTensor: int32 elem_type = 1; TensorShapeProto shape = 2
TypeProto.Opaque: string domain = 1; string name = 2
OperatorSetIdProto: string domain = 1; int64 version = 2
FunctionProto: string name = 1; repeated string input = 4; repeated string output = 5;
  repeated string attribute = 6; repeated AttributeProto attribute_proto = 11; repeated NodeProto node = 7;
  string doc_string = 8; repeated OperatorSetIdProto opset_import = 9; string domain = 10; string overload = 13;
  repeated ValueInfoProto value_info = 12; repeated StringStringEntryProto metadata_props = 14
"""

#: enums: `Message.Enum: NAME = number, ...`
_ENUMS = {
    "AttributeProto.AttributeType": (
        "UNDEFINED=0 FLOAT=1 INT=2 STRING=3 TENSOR=4 GRAPH=5 SPARSE_TENSOR=11 TYPE_PROTO=13 FLOATS=6 INTS=7 "
        "STRINGS=8 TENSORS=9 GRAPHS=10 SPARSE_TENSORS=12 TYPE_PROTOS=14"
    ),
    "TensorProto.DataLocation": "DEFAULT=0 EXTERNAL=1",
}

#: AttributeProto.AttributeType's names by number (for messages)
ATTRIBUTE_TYPES = {
    int(number): name for name, number in (item.split("=") for item in _ENUMS["AttributeProto.AttributeType"].split())
}


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _field(number: int, value: Any) -> bytes:
    """One field of a message: an int as a varint, bytes or str length-delimited."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode("utf-8") if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _field_descriptor(text: str, message: str, oneofs: list) -> bytes:
    """A FieldDescriptorProto from `[repeated] kind name = number [packed] [oneof NAME]`."""
    words = text.split()
    label = _OPTIONAL
    if words[0] == "repeated":
        label = _REPEATED
        words = words[1:]
    kind, name, number = words[0], words[1], int(words[3])
    rest = words[4:]
    out = _field(1, name) + _field(3, number) + _field(4, label)
    if kind in _KINDS:
        out += _field(5, _KINDS[kind])
    else:
        out += _field(5, _ENUM if kind in _ENUMS else _MESSAGE) + _field(6, ".onnx." + kind)
    if "oneof" in rest:
        group = rest[rest.index("oneof") + 1]
        if group not in oneofs:
            oneofs.append(group)
        out += _field(9, oneofs.index(group))
    if "packed" in rest:
        out += _field(8, _field(2, 1))  # FieldOptions.packed
    return out


def _message_descriptor(name: str, messages: dict) -> bytes:
    """A DescriptorProto of one message (its nested messages and enums inside it)."""
    oneofs: list = []
    fields = b"".join(_field(2, _field_descriptor(f, name, oneofs)) for f in messages[name] if f)
    nested = b"".join(
        _field(3, _message_descriptor(inner, messages))
        for inner in messages
        if inner.startswith(name + ".") and "." not in inner[len(name) + 1 :]
    )
    enums = b"".join(
        _field(4, _enum_descriptor(inner)) for inner in _ENUMS if inner.rsplit(".", 1)[0] == name and "." in inner
    )
    return (
        _field(1, name.rsplit(".", 1)[-1]) + fields + nested + enums + b"".join(_field(8, _field(1, o)) for o in oneofs)
    )


def _enum_descriptor(name: str) -> bytes:
    values = (item.split("=") for item in _ENUMS[name].split())
    return _field(1, name.rsplit(".", 1)[-1]) + b"".join(
        _field(2, _field(1, value) + _field(2, int(number))) for value, number in values
    )


def _file_descriptor() -> bytes:
    """onnx-ml.proto's messages that gradual reads, as a serialized FileDescriptorProto (proto2)."""
    messages: dict = {}
    for block in _blocks(_SCHEMA.strip()):
        head, _, body = block.partition(":")
        messages[head.strip()] = [f.strip() for f in " ".join(body.split()).split(";")]
    top = b"".join(_field(4, _message_descriptor(name, messages)) for name in messages if "." not in name)
    return _field(1, "gradual/onnx-ml-subset.proto") + _field(2, "onnx") + top + _field(12, "proto2")


def _blocks(text: str) -> list:
    """The message entries of _SCHEMA: a line that does not start with a space begins one."""
    blocks: list = []
    for line in text.splitlines():
        if line.startswith(" ") and blocks:
            blocks[-1] += " " + line.strip()
        elif line.strip():
            blocks.append(line.strip())
    return blocks


def _classes() -> dict:
    from google.protobuf import descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(_file_descriptor())
    get_class = getattr(message_factory, "GetMessageClass", None)  # protobuf 4.22 on
    if get_class is None:
        get_class = message_factory.MessageFactory(pool).GetPrototype
    return {
        name: get_class(pool.FindMessageTypeByName("onnx." + name))
        for name in ("ModelProto", "GraphProto", "NodeProto", "TensorProto", "AttributeProto", "TypeProto")
    }


_CLASSES = _classes()
ModelProto = _CLASSES["ModelProto"]
GraphProto = _CLASSES["GraphProto"]
NodeProto = _CLASSES["NodeProto"]
TensorProto = _CLASSES["TensorProto"]
AttributeProto = _CLASSES["AttributeProto"]
TypeProto = _CLASSES["TypeProto"]


def to_onnx(message: Any) -> Any:
    """The same message as the `onnx` package's class of its name (itself when it is one
    already): for the functions of `onnx` that take only their own messages."""
    import onnx

    cls = getattr(onnx, type(message).DESCRIPTOR.name)
    if isinstance(message, cls):
        return message
    return cls.FromString(message.SerializeToString())


def undecodable_text(message: Any) -> Optional[bytes]:
    """The first text field (a name, an operator, a dim_param) of a message or its parts that
    is not UTF-8, as protobuf hands it over (bytes where a string is due), or None. protobuf
    reads such a proto2 field without a word, and everything that reads names expects str; a
    walk of the whole model, so only asked when an import failed."""
    from google.protobuf.descriptor import FieldDescriptor

    pending = [message]
    while pending:
        current = pending.pop()
        for field, value in current.ListFields():
            if field.type == FieldDescriptor.TYPE_STRING:
                for text in value if _repeated(field) else [value]:
                    if isinstance(text, bytes):
                        return text
            elif field.type == FieldDescriptor.TYPE_MESSAGE:
                pending.extend(value if _repeated(field) else [value])
    return None


def _repeated(field: Any) -> bool:
    if hasattr(field, "is_repeated"):  # protobuf 5.28 on; `label` is gone in later releases
        return bool(field.is_repeated)
    return bool(field.label == _REPEATED)
