"""The torch.export frontend's registration: `.pt2` archives (`torch.export.save`), read by
`gradual.frontends.torch_export` without torch.

`gradual run model.pt2` takes the user's inputs by their graph names (`--arg x=x.npy`,
`--shape x=2x3x16x16`); the parameters, buffers and constants come from the archive, read only
when the program runs.
"""

from __future__ import annotations

from gradual.frontends import STRICT_DIMS, Frontend, LoadedModel, register_frontend

OPTIONS = (STRICT_DIMS,)


def load(path: str, options: dict) -> LoadedModel:
    """Import an archive: its program and what running it needs (a file that is not a
    readable archive is a model whose only diagnostic says why)."""
    from gradual.frontends import torch_export

    settings = torch_export.ImportOptions(strict_dims=bool(options.get("strict_dims")))
    try:
        imported = torch_export.import_archive(path, options=settings)
    except torch_export.LoadError as failure:
        return LoadedModel(path, None, [failure.diagnostic])
    user = {i.name: i.param for i in imported.inputs if i.kind == "user_input"}
    return LoadedModel(
        path,
        imported.module,
        list(imported.diagnostics),
        tuple(imported.header),
        inputs=user,
        outputs=tuple(imported.outputs),
        constants=imported.state_values(),
        notes=imported.notes,
    )


register_frontend(Frontend("torch.export", (".pt2",), load, OPTIONS))
