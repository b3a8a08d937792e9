"""Regenerate the .pt2 archives the torch.export frontend's tests read (needs torch 2.13):

    python tests/data/torch/make_archives.py

Writes, next to this file:
* cnn.pt2            SmallCNN, dynamic batch (1..64)
* attention.pt2      Attention, dynamic sequence (2..128), torch.export's default IR
* attention_core.pt2 the same after run_decompositions() (core ATen: addmm, view, bmm, ...)
* nonzero.pt2        Nonzero: unbacked sizes (nonzero's rows, .item())
* edited.pt2         cnn.pt2 with its graph edited after export: the linear layer's weight is
                     rewired to conv2's bias, a (16,) vector, so the graph no longer type-checks
* constrained.pt2    PairTokens, batch and sequence Dim.AUTO: the view works only for an even
                     sequence, which torch records as a guard (guards_code), not a range
* inplace.pt2        InPlaceBlock, dynamic batch and height: in-place operators (relu_, add_,
                     hardswish_) in torch.export's default IR, upsample_bilinear2d, unflatten, topk
* layers.pt2         Layers, dynamic batch (sequence fixed: torch specializes it through the
                     LSTM): LSTM, GRU, GroupNorm, a boolean mask, sort, cummax, cross-entropy
* narrow.pt2         HalfSelect, dynamic batch: bfloat16 weights, masked_select
* ceilpool.pt2       CeilPool, dynamic height (Dim.AUTO): an output type torch's guard decides
* counts.pt2         Counts, dynamic batch and length: cumsum/cumprod of bool and int32 (int64
                     results), InstanceNorm1d
* resample.pt2       Resample, dynamic batch, height and width: antialiased interpolation
* padded.pt2         PadToSizes, dynamic sizes: pad and repeat by SymInt lists computed from sizes
* routing.pt2        Routing, dynamic sizes: RNN cells, one-argument where, argwhere, repeat_interleave
                     by counts, x.T, tril by the past length, fold to a SymInt size, EmbeddingBag
* branches.pt2       Branches, dynamic sizes: torch.cond (higher_order.cond) with subgraphs
* statistics.pt2     Statistics, dynamic sizes: var_mean, nansum, layer_norm over x.shape[-1:],
                     broadcast_to, diagonal, tensor_split, topk by a SymInt k
* windows.pt2        Windows, dynamic batch and length (Dim.AUTO): pad to a multiple (Mod sizes),
                     a view by computed sizes, roll, a crop to a SymInt end, bincount
* guarded.pt2        Guarded, named dims: slices whose lengths only torch's inequality guards
                     decide (`pred[:, :k]` with `k <= k1`, a center crop of the larger map)
* *.inputs.npz / *.outputs.npz  sample inputs and torch's outputs for them (to compare `run`)
"""

import io
import json
import os
import sys
import zipfile

import numpy as np
import torch
from torch.export import Dim, export

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from models import (  # noqa: E402
    Attention, Branches, CeilPool, Counts, Guarded, HalfSelect, InPlaceBlock, Layers, Nonzero, PadToSizes, PairTokens,
    Resample, Routing, SmallCNN, Statistics, Windows,
)


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def relative_traces(program):
    """Stack traces name the models' file relative to the repository (as a checkout anywhere
    finds it), not by this machine's absolute path."""
    for node in program["graph_module"]["graph"]["nodes"]:
        meta = node.get("metadata") or {}
        if "stack_trace" in meta:
            meta["stack_trace"] = meta["stack_trace"].replace(ROOT + os.sep, "")


def save(name, ep, inputs):
    path = os.path.join(HERE, name + ".pt2")
    torch.export.save(ep, path + ".tmp")
    edit_archive(path + ".tmp", path, relative_traces)
    os.remove(path + ".tmp")
    outputs = ep.module()(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    np.savez(os.path.join(HERE, name + ".inputs.npz"), **{n: t.numpy() for n, t in zip(arg_names(ep), inputs)})
    np.savez(os.path.join(HERE, name + ".outputs.npz"),
             *[o.detach().numpy() if isinstance(o, torch.Tensor) else np.asarray(o) for o in outputs])
    return path


def arg_names(ep):
    return [s.arg.name for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]


def edit_archive(source, target, edit):
    """Copy an archive, rewriting its program JSON with `edit` (a graph edited after export)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if "/models/" in info.filename and info.filename.endswith(".json"):
                program = json.loads(data)
                edit(program)
                data = json.dumps(program).encode("utf-8")
            zout.writestr(info, data)


def rewire_linear_weight(program):
    """The graph edit: linear's weight becomes conv2's bias, a (16,) vector."""
    for node in program["graph_module"]["graph"]["nodes"]:
        if node["target"] == "torch.ops.aten.linear.default":
            for named in node["inputs"]:
                if named["name"] == "weight":
                    named["arg"] = {"as_tensor": {"name": "p_conv2_bias"}}


def main(only=None):
    """Write every archive (or only the one named, of those with a saver of their own)."""
    if only is not None:
        return SAVERS[only]()
    torch.manual_seed(0)
    cnn = SmallCNN().eval()
    x = torch.randn(2, 3, 16, 16)
    ep = export(cnn, (x,), dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}})
    cnn_path = save("cnn", ep, (x,))
    edit_archive(cnn_path, os.path.join(HERE, "edited.pt2"), rewire_linear_weight)

    attention = Attention().eval()
    x = torch.randn(2, 8, 16)
    ep = export(attention, (x,), dynamic_shapes={"x": {1: Dim("seq", min=2, max=128)}})
    save("attention", ep, (x,))
    save("attention_core", ep.run_decompositions(), (x,))

    x = torch.tensor([[1.0, -2.0, 3.0, 0.0, 5.0], [-1.0, 2.0, 0.0, 4.0, -5.0], [0.5, 0.0, -0.5, 1.5, 2.5],
                      [0.0, 0.0, 0.0, 0.0, 1.0]])
    save("nonzero", export(Nonzero(), (x,)), (x,))

    x = torch.randn(2, 6, 8)
    ep = export(PairTokens().eval(), (x,), dynamic_shapes={"x": {0: Dim.AUTO, 1: Dim.AUTO}})
    save("constrained", ep, (x,))
    for saver in SAVERS.values():
        saver()


def save_inplace():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 6, 5)
    ep = export(InPlaceBlock().eval(), (x,), dynamic_shapes={"x": {0: Dim("batch", min=1, max=64), 2: Dim.AUTO}})
    return save("inplace", ep, (x,))


def save_layers():
    torch.manual_seed(0)
    tokens = torch.randint(0, 20, (3, 7))
    ep = export(Layers().eval(), (tokens,), dynamic_shapes={"tokens": {0: Dim("batch", min=1, max=64)}})
    return save("layers", ep, (tokens,))


def save_narrow():
    torch.manual_seed(0)
    x = torch.randn(3, 6)
    ep = export(HalfSelect().eval(), (x,), dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}})
    return save("narrow", ep, (x,))


def save_ceilpool():
    torch.manual_seed(0)
    x = torch.randn(1, 1, 9, 1)
    return save("ceilpool", export(CeilPool(), (x,), dynamic_shapes={"x": {2: Dim.AUTO}}), (x,))


def save_counts():
    torch.manual_seed(0)
    mask = torch.tensor([[True, True, True, False, True], [False, True, True, True, True]])
    a = torch.randint(-3, 4, (2, 5), dtype=torch.int32)
    x = torch.randn(2, 3, 5)
    batch, length = Dim("batch", min=1, max=64), Dim("length", min=2, max=64)
    dynamic = {"mask": {0: batch, 1: length}, "a": {0: batch, 1: length}, "x": {0: batch, 2: length}}
    return save("counts", export(Counts().eval(), (mask, a, x), dynamic_shapes=dynamic), (mask, a, x))


def save_resample():
    torch.manual_seed(0)
    x = torch.randn(2, 1, 8, 12)
    dynamic = {"x": {0: Dim.AUTO, 2: Dim.AUTO, 3: Dim.AUTO}}
    return save("resample", export(Resample(), (x,), dynamic_shapes=dynamic), (x,))


def save_padded():
    torch.manual_seed(0)
    x, skip = torch.randn(2, 5, 6), torch.randn(2, 1, 8, 9)
    dynamic = {"x": {0: Dim.AUTO, 1: Dim.AUTO, 2: Dim.AUTO}, "skip": {2: Dim.AUTO, 3: Dim.AUTO}}
    return save("padded", export(PadToSizes(), (x, skip), dynamic_shapes=dynamic), (x, skip))


def save_routing():
    torch.manual_seed(0)
    x, past = torch.randn(5, 4), torch.randn(3, 2)
    ids, offsets = torch.tensor([1, 2, 0, 5, 5, 7, 2, 3]), torch.tensor([0, 3, 3, 6])
    dynamic = {"x": {0: Dim("rows", min=3, max=64)}, "past": {0: Dim("past", min=0, max=64)},
               "ids": {0: Dim("pairs", min=2, max=64) * 2}, "offsets": {0: Dim("bags", min=2, max=64)}}
    return save("routing", export(Routing().eval(), (x, past, ids, offsets), dynamic_shapes=dynamic),
                (x, past, ids, offsets))


def save_branches():
    torch.manual_seed(0)
    x, y = torch.ones(3, 4), torch.randn(5, 2)
    dynamic = {"x": {0: Dim("rows", min=1, max=64)}, "y": {0: Dim("count", min=1, max=64)}}
    return save("branches", export(Branches().eval(), (x, y), dynamic_shapes=dynamic), (x, y))


def save_statistics():
    torch.manual_seed(0)
    x = torch.randn(7, 5)
    dynamic = {"x": {0: Dim.AUTO, 1: Dim.AUTO}}
    return save("statistics", export(Statistics().eval(), (x,), dynamic_shapes=dynamic), (x,))


def save_windows():
    torch.manual_seed(0)
    x, experts = torch.randn(2, 7, 4), torch.tensor([0, 2, 2, 1, 0, 2])
    dynamic = {"x": {0: Dim.AUTO, 1: Dim.AUTO}, "experts": {0: Dim.AUTO}}
    return save("windows", export(Windows().eval(), (x, experts), dynamic_shapes=dynamic), (x, experts))


def save_guarded():
    torch.manual_seed(0)
    args = (torch.randn(2, 5, 7), torch.randint(0, 7, (2, 4)), torch.randn(2, 9, 3), torch.randn(2, 6, 3))
    dynamic = {"logits": {0: Dim("batch", min=1, max=64), 1: Dim("k1", min=1, max=64)}, "draft": {1: Dim("k", min=1, max=64)},
               "big": {1: Dim("H", min=1, max=64)}, "small": {1: Dim("h", min=1, max=64)}}
    dynamic["draft"][0] = dynamic["logits"][0]
    return save("guarded", export(Guarded().eval(), args, dynamic_shapes=dynamic), args)


SAVERS = {"inplace": save_inplace, "layers": save_layers, "narrow": save_narrow, "ceilpool": save_ceilpool,
          "counts": save_counts, "resample": save_resample, "padded": save_padded, "routing": save_routing,
          "statistics": save_statistics, "branches": save_branches, "windows": save_windows,
          "guarded": save_guarded}


if __name__ == "__main__":
    main(*sys.argv[1:])
