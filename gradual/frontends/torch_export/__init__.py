"""The torch.export frontend: check an exported PyTorch program, with errors at the model's
Python line.

    from gradual.frontends import torch_export as gt

    program = gt.import_archive("model.pt2")      # no torch needed
    result = program.check()                       # a gradual.CheckResult
    str(result.function_type("main"))              # 'fn (Tensor[(s27, 16), float32], ...) -> ...'
    outputs = program.run({"x": x})                # NumPy arrays (the weights come from the archive)
    program = gt.import_program(ep)                # an ExportedProgram in memory (needs torch)

Decisions, where torch.export leaves room:

* **Archives without torch.** `.pt2` archives (`torch.export.save`) are zips whose program is
  JSON; it is read with the standard library, weights (raw bytes) with NumPy and only to run.
  Schema 8.x is read (torch 2.13 writes 8.20); other versions get `archive-version`.
* **One definition.** The graph becomes `def @main`: its inputs in order (parameters, buffers
  and constants first, as torch.export lists them, then the user's inputs) are the parameters,
  typed from their recorded metadata; each node binds its outputs with `let` under torch's
  names; the user outputs are the result (a tuple for several), annotated with their recorded
  types (what torch.export claims the program returns is checked).
* **Symbols.** torch's symbolic sizes are dims of the same names (`s27`, `2 * s27`); range
  constraints bound them (`s27` in 2..512: the checker relies on it, running checks it on
  entry; `gradual import` lists them in its header), and a range that pins one (`[8, 8]`)
  makes it that size. The inputs' symbols are the exporter's claim (spec §6): a node that
  constrains one (a `view` that needs an even `s27`) is a `dim-constraint` warning with a
  runtime check; `ImportOptions(strict_dims=True)` (`--strict-dims`) makes it an error.
  torch's own guards (`guards_code`, `_assert_scalar` messages) are shown beside it, over the
  same symbols (`ImportedProgram.guards`), never evaluated. Unbacked sizes (`u0`: nonzero's row count,
  `.item()`) are what the operators' rules give: `nonzero` of a (4, 5) tensor has 0..20 rows.
* **Symbolic ints** (`sym_size`, `2 * s0`, `.item()`) are int64 scalars whose values are
  dims (spec §3.7), so `view(x, [2, sym_size_int_1, 16])` has the dims it names. The
  assertions torch.export inserts (`_assert_scalar`, `_assert_tensor_metadata`), and the nodes
  only they read, are not imported: gradual inserts the checks its own inference needs
  (compare them in README, `bench/torch_guards.py`).
* **Operators** are stdlib/aten.rly's, one per ATen operator (overloads share one; conv1d/2d/3d
  are `aten.convolution`); both torch.export's default IR (`conv2d`, `linear`) and the core ATen
  IR after `run_decompositions()` (`convolution`, `addmm`, `view`) are read. An unsupported
  operator or argument is reported at its node; the rest of the graph is still checked.
* **Inference only.** Dropout is the identity; dropout or batch norm in training mode is
  unsupported at the node.
* **Locations.** Each node is located at the innermost frame of its stack trace outside torch's
  own package: `model.py:9:9`, showing the line (from the file when it still holds the recorded
  code, else the code the trace recorded); the ATen node is a note. Nodes without a trace, the
  inputs and the outputs are lines of a listing of the graph under the archive's path.
"""

from __future__ import annotations

import io
import os
from typing import Any, Optional, Union

from gradual import builder as gb
from gradual.frontends import LoadError
from gradual.frontends import messages as frontend_messages
from gradual.frontends.torch_export import messages
from gradual.frontends.torch_export.archive import Archive, ArchiveError, program_from_json, read_archive
from gradual.frontends.torch_export.importer import ImportedProgram, Importer, ImportOptions
from gradual.infra.deep import gc_paused

__all__ = [
    "ImportedProgram",
    "ImportOptions",
    "LoadError",
    "import_archive",
    "import_program",
    "load_archive",
    "supported_operators",
]


def _failure(where: str, error: ArchiveError) -> LoadError:
    span = gb.Loc(where, os.path.basename(where) or where).span
    if error.limit is not None:
        return LoadError(frontend_messages.past_limit(span, "a torch.export archive", error.detail, error.limit))
    make = messages.torch_archive_version if error.kind == "version" else messages.torch_unreadable
    return LoadError(make(span, error.detail))


def load_archive(source: Union[str, bytes], path: Optional[str] = None, model: Optional[str] = None) -> Archive:
    """The archive at a path (or in bytes); raises LoadError with a diagnostic."""
    where = path or (source if isinstance(source, str) else "<archive>.pt2")
    try:
        return read_archive(source, model)
    except ArchiveError as error:
        raise _failure(where, error) from None


def import_archive(
    source: Union[str, bytes],
    path: Optional[str] = None,
    model: Optional[str] = None,
    options: Optional[ImportOptions] = None,
) -> ImportedProgram:
    """Import a `.pt2` archive (a path or its bytes) without torch. An unsupported node is a
    diagnostic in the result; an unreadable file raises LoadError."""
    where = path or (source if isinstance(source, str) else "<archive>.pt2")
    with gc_paused():  # as for ONNX: reading and importing make many objects that all stay alive,
        archive = load_archive(source, path, model)  # and collections would only re-walk them
        return Importer(archive, where, options).run()


def import_json(program: dict, path: str = "<program>.pt2", options: Optional[ImportOptions] = None) -> ImportedProgram:
    """Import a serialized ExportedProgram already parsed from JSON (no weights)."""
    try:
        archive = program_from_json(program)
    except ArchiveError as error:
        raise _failure(path, error) from None
    with gc_paused():
        return Importer(archive, path, options).run()


def import_program(
    exported: Any, path: str = "<ExportedProgram>", options: Optional[ImportOptions] = None
) -> ImportedProgram:
    """Import an `ExportedProgram` in memory (needs torch: it is saved to an archive in memory
    with torch's own serializer, then read as any archive)."""
    try:
        import torch
    except ImportError:
        raise ImportError(messages.torch_needs_torch()) from None
    buffer = io.BytesIO()
    torch.export.save(exported, buffer)
    return import_archive(buffer.getvalue(), path, options=options)


def supported_operators() -> list:
    """The ATen operators (without overload) the frontend imports, sorted."""
    from gradual.frontends.torch_export.convert import OPERATORS, SPECIAL, SYM_ARITHMETIC
    from gradual.ops.registry import default_registry

    declared = [n for n in default_registry().names() if n.startswith("aten.")]
    return sorted(
        set(declared) | set(OPERATORS) | {op for op in SPECIAL if op.startswith("aten.")} | set(SYM_ARITHMETIC)
    )
