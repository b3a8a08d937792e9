"""What torch.export records about shapes, beside what gradual derives from the exported graph
(the README's comparison table):

    python bench/torch_guards.py          # needs torch 2.13 and gradual (e.g. /work/venvs/torchx)

Each program is exported as a user would (a named `Dim` with a range, `Dim.AUTO`, deferred
runtime assertions), saved to an archive in memory and read back by gradual's frontend. For
torch: whether export succeeded (else the first line of its error), the range constraints, how
many guards it stored (`guards_code`, checked when the module is called), the `_assert_scalar`
nodes in the graph, and dims it specialized. For gradual: the input and output types of
`@main`, its warnings and errors (code and message), and how many checks it inserted. The
committed archives (tests/data/torch) are read as they are.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any, Callable, Optional

import torch
from torch.export import Dim, export

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "torch"
sys.path.insert(0, str(DATA))
sys.path.insert(0, str(ROOT))

from models import Attention, Nonzero, PairTokens, SmallCNN  # noqa: E402

from gradual.frontends import torch_export as gt  # noqa: E402


class ConvLinear(torch.nn.Module):
    """A classifier whose Linear layer fixes the flattened features: height must be 8."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 2, 3, padding=1)
        self.fc = torch.nn.Linear(2 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


class PositionAdd(torch.nn.Module):
    """A learned position table of 32 rows added to a sequence: the sequence must be 32."""

    def __init__(self) -> None:
        super().__init__()
        self.pos = torch.nn.Parameter(torch.zeros(1, 32, 16))

    def forward(self, x):
        return x + self.pos


def case(label: str, model: Callable[[], Any], shape: tuple, dims: dict, **options: Any) -> dict:
    """One program to export: a label, the model, the example input's shape, the dynamic dims."""
    return {"label": label, "model": model, "shape": shape, "dims": dims, "options": options}


def cases() -> list:
    """The programs of the table (the committed archives first)."""
    return [
        case("`cnn.pt2`: batch `Dim` 1..64", SmallCNN, (2, 3, 16, 16), {0: Dim("batch", min=1, max=64)}),
        case("`attention.pt2`: seq `Dim` 2..128", Attention, (2, 8, 16), {1: Dim("seq", min=2, max=128)}),
        case("`nonzero.pt2`: data-dependent sizes", Nonzero, None, {}),
        case(
            "`constrained.pt2`: `x.view(b, s // 2, 2 * d)`, `Dim.AUTO`",
            PairTokens,
            (2, 6, 8),
            {0: Dim.AUTO, 1: Dim.AUTO},
        ),
        case('the same, `Dim("seq")`', PairTokens, (2, 6, 8), {0: Dim.AUTO, 1: Dim("seq")}),
        case(
            "the same, `Dim.AUTO`, deferred runtime assertions",
            PairTokens,
            (2, 6, 8),
            {0: Dim.AUTO, 1: Dim.AUTO},
            prefer_deferred_runtime_asserts_over_guards=True,
        ),
        case(
            "conv, flatten, `Linear(128, 10)`: height `Dim.AUTO`", ConvLinear, (2, 3, 8, 8), {0: Dim.AUTO, 2: Dim.AUTO}
        ),
        case(
            "the same, deferred runtime assertions",
            ConvLinear,
            (2, 3, 8, 8),
            {0: Dim.AUTO, 2: Dim.AUTO},
            prefer_deferred_runtime_asserts_over_guards=True,
        ),
        case('the same, height `Dim("h", min=4, max=64)`', ConvLinear, (2, 3, 8, 8), {2: Dim("h", min=4, max=64)}),
        case("`x + pos`, a (1, 32, 16) table: seq `Dim.AUTO`", PositionAdd, (1, 32, 16), {1: Dim.AUTO}),
        case('the same, seq `Dim("seq")`', PositionAdd, (1, 32, 16), {1: Dim("seq")}),
    ]


def example(shape: Optional[tuple]) -> torch.Tensor:
    if shape is None:
        return torch.tensor(
            [
                [1.0, -2.0, 3.0, 0.0, 5.0],
                [-1.0, 2.0, 0.0, 4.0, -5.0],
                [0.5, 0.0, -0.5, 1.5, 2.5],
                [0.0, 0.0, 0.0, 0.0, 1.0],
            ]
        )
    return torch.randn(*shape)


def torch_side(entry: dict) -> tuple:
    """(archive bytes or None, what torch recorded as a cell of the table)."""
    torch.manual_seed(0)
    x = example(entry["shape"])
    dynamic = {"x": entry["dims"]} if entry["dims"] else None
    try:
        ep = export(entry["model"]().eval(), (x,), dynamic_shapes=dynamic, **entry["options"])
    except Exception as failure:  # noqa: BLE001 - the table shows torch's refusal
        return None, refusal(str(failure))
    buffer = io.BytesIO()
    torch.export.save(ep, buffer)
    return buffer.getvalue(), recorded(buffer.getvalue(), entry)


def refusal(text: str) -> str:
    """torch's export error, shortly: its first line and the first guard it could not prove
    (or the specialization it reports)."""
    lines = [line.strip() for line in text.strip().splitlines()]
    first = lines[0].split("!")[0]
    guards = [line.split("generated guard ", 1)[1].rstrip(".") for line in lines if "generated guard " in line]
    marked = next((line.lstrip("- ").split(". If")[0] for line in lines if "specialized it" in line), "")
    if guards:
        return f'export fails: "{first}", {len(guards)} guards not implied by the range, e.g. `{guards[0]}`'
    return f'export fails: "{first}"' + (f': "{marked}"' if marked else "")


def recorded(data: bytes, entry: dict) -> str:
    """Range constraints, guards, assertions and specializations of an archive."""
    program = _program(data)
    ranges = [
        f"`{name}` in [{_bound(r.get('min_val'), '-∞')}, {_bound(r.get('max_val'), '∞')}]"
        for name, r in sorted((program.get("range_constraints") or {}).items())
    ]
    guards = program.get("guards_code") or []
    nodes = program["graph_module"]["graph"]["nodes"]
    asserts = [n for n in nodes if n["target"].endswith("_assert_scalar.default")]
    parts = ["ranges " + ", ".join(ranges) if ranges else "no range constraints"]
    if guards:
        parts.append(f"{len(guards)} guard{'s' if len(guards) != 1 else ''}, e.g. `{guards[0]}`")
    if asserts:
        parts.append(f"{len(asserts)} `_assert_scalar` node{'s' if len(asserts) != 1 else ''}")
    specialized = _specialized(program, entry)
    if specialized:
        parts.append("specialized " + ", ".join(specialized))
    return "; ".join(parts)


def _bound(value: Any, infinite: str) -> str:
    return infinite if not isinstance(value, int) or abs(value) > 2**62 else str(value)


def _specialized(program: dict, entry: dict) -> list:
    """Dims asked to be dynamic that the archive records as a constant."""
    inputs = [
        s["user_input"]["arg"]["as_tensor"]["name"]
        for s in program["graph_module"]["signature"]["input_specs"]
        if "user_input" in s
    ]
    sizes = program["graph_module"]["graph"]["tensor_values"][inputs[0]]["sizes"] if inputs else []
    return [
        f"dim {axis} to {sizes[axis]['as_int']}"
        for axis in sorted(entry["dims"])
        if axis < len(sizes) and "as_int" in sizes[axis]
    ]


def _program(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        member = next(n for n in zf.namelist() if "/models/" in n and n.endswith(".json"))
        return json.loads(zf.read(member))


def gradual_side(data: Optional[bytes], path: str) -> tuple:
    """(gradual's type cell, its diagnostics cell, its checks) for an archive."""
    if data is None:
        return "(no archive)", "", ""
    program = gt.import_archive(data, path=path)
    if not program.ok:
        return "", "; ".join(f"{d.code}: {d.message}" for d in program.diagnostics), ""
    result = program.check()
    said = "; ".join(f"{d.severity.value} `{d.code}`: {d.message}" for d in result.diagnostics) or "nothing"
    if not result.ok:
        return "(rejected)", said, ""
    main_type = str(result.function_type("main")) if result.function_type("main") is not None else "?"
    user = main_type.split("-> ")
    shown = f"`{_last_param(user[0])} -> {user[1]}`" if len(user) == 2 else main_type
    return shown, said, str(result.check_count)


def _last_param(params: str) -> str:
    """The user's input of `fn (weights..., x)`: the last parameter type."""
    inner = params.strip()[len("fn (") :].rstrip(") ")
    depth, start = 0, 0
    pieces = []
    for i, ch in enumerate(inner):
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if ch == "," and depth == 0:
            pieces.append(inner[start:i].strip())
            start = i + 1
    pieces.append(inner[start:].strip())
    return pieces[-1]


def rows() -> list:
    """The table's rows: the exported programs, then the edited archive as committed."""
    out = []
    for entry in cases():
        data, torch_cell = torch_side(entry)
        out.append((entry["label"], torch_cell) + gradual_side(data, "model.pt2"))
    edited = (DATA / "edited.pt2").read_bytes()
    out.append(
        (
            "`edited.pt2`: `cnn.pt2` with linear's weight rewired after export",
            "loads without complaint; fails only when run",
        )
        + gradual_side(edited, "edited.pt2")
    )
    return out


def main() -> None:
    print("| program | what torch.export recorded | what gradual infers | what gradual reports | checks inserted |")
    print("| --- | --- | --- | --- | ---: |")
    for row in rows():
        print("| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in row) + " |")


if __name__ == "__main__":
    main()
