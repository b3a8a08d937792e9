"""Coverage of the torch.export frontend on real models: export a corpus of models
and functional calls with dynamic dims, read each archive back with gradual, and report.

    /work/venvs/torchgen/bin/python bench/torch_corpus.py export   # needs torch, torchvision, transformers
    python bench/torch_corpus.py export --group functional nn --deflate --out tests/data/torch/corpus
    python bench/torch_corpus.py check [--markdown]                # needs gradual only (no torch)

`export` writes, for each case and each IR (`default`: torch.export.export's graph, `core`: the
same after `run_decompositions()`, core ATen), `<case>.<ir>.pt2` to bench/out/torch_corpus/
(`--out`), the example inputs and torch's outputs for them (`<case>.inputs.npz`,
`<case>.outputs.npz`; `<case>.alt.*` for a second size when torch's module accepts it) and
`<case>.case.json` (its archives, and what torch refused to export, and why).

`check` imports each archive, type-checks it, runs it on the sample inputs and compares with
torch's outputs. Per archive: the nodes, whether the whole graph imported, the unsupported
operators (counted across the corpus), other errors, warnings, runtime checks, the time to import
and check, and whether `run` matched torch. The corpus: torchvision's classifiers at their real
widths (ResNet-18/50, MobileNet v2/v3, EfficientNet, SqueezeNet, ShuffleNet, DenseNet-121,
RegNet, MNASNet, ConvNeXt, a small ViT, Swin), a segmentation head, an FPN backbone, nn's
Transformer layers, MultiheadAttention, GRU and LSTM, transformers' BERT, GPT-2 and T5 from tiny
configs (nothing downloaded), and a battery of torch.nn.functional and tensor calls.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "torch_corpus"
IRS = ("default", "core")


# the cases (built only by `export`, which imports torch) -------------------------------------------
@dataclass
class Case:
    """One program: how to build the module, its example inputs, their dynamic dims, and another
    size to run (None: only the example)."""

    name: str
    group: str
    build: Callable[[], Any]
    inputs: Callable[[], tuple]
    dynamic: Callable[[tuple], Any]
    alt: Optional[Callable[[], tuple]] = None
    options: dict = field(default_factory=dict)


def cases() -> list:
    """Every case of the corpus (imports torch and the model libraries)."""
    import torch
    from torch import nn
    from torch.export import Dim

    torchvision = _torchvision()
    tvm = torchvision.models
    batch = Dim("batch", min=1, max=64)

    def image(b: int = 2, h: int = 64, w: int = 64, c: int = 3) -> Callable[[], tuple]:
        return lambda: (torch.randn(b, c, h, w),)

    def image_dims(args: tuple) -> tuple:
        return ({0: batch, 2: Dim.AUTO, 3: Dim.AUTO},)

    def batch_only(args: tuple) -> tuple:
        return tuple({0: batch} for _ in args)

    def vision(
        name: str, build: Callable[[], Any], size: int = 64, alt: tuple = (3, 80, 72), dims: Any = image_dims
    ) -> Case:
        return Case(name, "torchvision", build, image(2, size, size), dims, image(*alt))

    out = [
        vision("resnet18", lambda: tvm.resnet18()),
        vision("resnet50", lambda: tvm.resnet50()),
        vision("mobilenet_v2", lambda: tvm.mobilenet_v2()),
        vision("mobilenet_v3_small", lambda: tvm.mobilenet_v3_small()),
        vision("mobilenet_v3_large", lambda: tvm.mobilenet_v3_large()),
        vision("efficientnet_b0", lambda: tvm.efficientnet_b0()),
        vision("squeezenet1_1", lambda: tvm.squeezenet1_1()),
        vision("shufflenet_v2", lambda: tvm.shufflenet_v2_x0_5(), alt=(3, 64, 64), dims=batch_only),
        vision("densenet121", lambda: tvm.densenet121()),
        vision("regnet_y_400mf", lambda: tvm.regnet_y_400mf()),
        vision("mnasnet0_5", lambda: tvm.mnasnet0_5()),
        vision("convnext_tiny", lambda: tvm.convnext_tiny()),
        vision("alexnet", lambda: tvm.alexnet(), alt=(3, 64, 64), dims=batch_only),
        vision("googlenet", lambda: tvm.googlenet(aux_logits=False, init_weights=False)),
        vision(
            "vit_tiny",
            lambda: tvm.VisionTransformer(
                image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10
            ),
            size=32,
            alt=(3, 32, 32),
            dims=batch_only,
        ),
        vision(
            "swin_tiny",
            lambda: tvm.SwinTransformer(
                patch_size=[4, 4], embed_dim=24, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4], num_classes=10
            ),
            alt=(3, 64, 64),
            dims=batch_only,
        ),
        vision(
            "lraspp_mobilenet_v3",
            lambda: _first_output(
                tvm.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=4)
            ),
        ),
        vision(
            "deeplabv3_mobilenet_v3",
            lambda: _first_output(
                tvm.segmentation.deeplabv3_mobilenet_v3_large(
                    weights=None, weights_backbone=None, num_classes=4, aux_loss=False
                )
            ),
        ),
        vision("resnet18_fpn", lambda: _fpn_backbone()),
    ]
    out += _nn_cases(torch, nn, Dim, batch)
    out += _hf_cases(torch, Dim, batch)
    out += _functional_cases(torch, Dim)
    return out


def _first_output(model: Any) -> Any:
    """A segmentation model's `out` tensor (its dict output as one tensor)."""
    import torch

    class Out(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(x)["out"]

    return Out()


def _fpn_backbone() -> Any:
    from torchvision.models.detection.backbone_utils import resnet_fpn_backbone

    return resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=5)


def _nn_cases(torch: Any, nn: Any, Dim: Any, batch: Any) -> list:
    seq = Dim("seq", min=2, max=256)

    def tokens(b: int, s: int, d: int = 32) -> Callable[[], tuple]:
        return lambda: (torch.randn(b, s, d),)

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

        def forward(self, x):
            return self.encoder(x)

    class Decoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = nn.TransformerDecoderLayer(
                d_model=32, nhead=4, dim_feedforward=64, batch_first=True, norm_first=True, activation="gelu"
            )

        def forward(self, x, memory):
            mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
            return self.layer(x, memory, tgt_mask=mask, tgt_is_causal=True)

    class Transformer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = nn.Transformer(
                d_model=32, nhead=4, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=64, batch_first=True
            )

        def forward(self, src, tgt):
            return self.model(src, tgt)

    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = nn.MultiheadAttention(32, 4, batch_first=True)

        def forward(self, q, kv, pad):
            out, weights = self.attn(q, kv, kv, key_padding_mask=pad)
            return out, weights

    class Recurrent(nn.Module):
        def __init__(self, kind: str) -> None:
            super().__init__()
            self.embed = nn.Embedding(100, 16)
            self.rnn = getattr(nn, kind)(16, 32, num_layers=2, batch_first=True, bidirectional=True)
            self.out = nn.Linear(64, 5)

        def forward(self, ids):
            y, _ = self.rnn(self.embed(ids))
            return self.out(y).log_softmax(-1)

    class Conv1dNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(
                nn.Conv1d(8, 16, 5, padding=2),
                nn.GroupNorm(4, 16),
                nn.GELU(),
                nn.Conv1d(16, 16, 3, dilation=2, padding="same"),
                nn.ReLU(),
                nn.ConvTranspose1d(16, 8, 4, stride=2, padding=1),
                nn.InstanceNorm1d(8),
            )

        def forward(self, x):
            return self.net(x)

    class UNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()

            def block(i: int, o: int) -> Any:
                return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

            self.enc1, self.enc2, self.mid = block(3, 8), block(8, 16), block(16, 32)
            self.up2, self.dec2 = nn.ConvTranspose2d(32, 16, 2, stride=2), block(32, 16)
            self.up1, self.dec1 = nn.Upsample(scale_factor=2, mode="bilinear"), block(40, 8)
            self.head = nn.Conv2d(8, 2, 1)

        def forward(self, x):
            e1 = self.enc1(x)
            e2 = self.enc2(nn.functional.max_pool2d(e1, 2))
            m = self.mid(nn.functional.max_pool2d(e2, 2))
            d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
            d1 = self.dec1(
                torch.cat(
                    [self.up1(torch.cat([d2, m.repeat_interleave(2, 2).repeat_interleave(2, 3)[:, :16]], 1)), e1], dim=1
                )
            )
            return self.head(d1)

    ids = lambda b, s: lambda: (torch.randint(0, 100, (b, s)),)  # noqa: E731
    return [
        Case("transformer_encoder", "nn", Encoder, tokens(2, 10), lambda a: ({0: batch, 1: seq},), tokens(3, 7)),
        Case(
            "transformer_decoder",
            "nn",
            Decoder,
            lambda: (torch.randn(2, 10, 32), torch.randn(2, 12, 32)),
            lambda a: ({0: batch, 1: seq}, {0: batch, 1: Dim("mem", min=2, max=256)}),
            lambda: (torch.randn(3, 5, 32), torch.randn(3, 9, 32)),
        ),
        Case(
            "transformer",
            "nn",
            Transformer,
            lambda: (torch.randn(2, 10, 32), torch.randn(2, 12, 32)),
            lambda a: ({0: batch, 1: Dim("src", min=2, max=256)}, {0: batch, 1: Dim("tgt", min=2, max=256)}),
            lambda: (torch.randn(3, 5, 32), torch.randn(3, 9, 32)),
        ),
        Case(
            "multihead_attention",
            "nn",
            Attention,
            lambda: (torch.randn(2, 10, 32), torch.randn(2, 12, 32), torch.rand(2, 12) > 0.8),
            lambda a: (
                {0: batch, 1: seq},
                {0: batch, 1: Dim("kv", min=2, max=256)},
                {0: batch, 1: Dim("kv", min=2, max=256)},
            ),
            lambda: (torch.randn(3, 5, 32), torch.randn(3, 9, 32), torch.rand(3, 9) > 0.8),
        ),
        Case("lstm", "nn", lambda: Recurrent("LSTM"), ids(2, 8), lambda a: ({0: batch},), ids(3, 8)),
        Case("gru", "nn", lambda: Recurrent("GRU"), ids(2, 8), lambda a: ({0: batch},), ids(3, 8)),
        Case(
            "conv1d",
            "nn",
            Conv1dNet,
            lambda: (torch.randn(2, 8, 32),),
            lambda a: ({0: batch, 2: Dim.AUTO},),
            lambda: (torch.randn(3, 8, 40),),
        ),
        Case(
            "unet",
            "nn",
            UNet,
            image_of(torch, 2, 32, 32),
            lambda a: ({0: batch, 2: Dim.AUTO, 3: Dim.AUTO},),
            image_of(torch, 3, 48, 40),
        ),
    ]


def image_of(torch: Any, b: int, h: int, w: int) -> Callable[[], tuple]:
    """Random images (b, 3, h, w)."""
    return lambda: (torch.randn(b, 3, h, w),)


def _hf_cases(torch: Any, Dim: Any, batch: Any) -> list:
    try:
        import transformers
    except ImportError:
        return []
    seq = Dim("seq", min=2, max=64)

    class Bert(torch.nn.Module):
        def __init__(self, attention: str) -> None:
            super().__init__()
            config = transformers.BertConfig(
                vocab_size=100,
                hidden_size=32,
                num_hidden_layers=2,
                num_attention_heads=2,
                intermediate_size=64,
                max_position_embeddings=64,
                attn_implementation=attention,
            )
            self.model = transformers.BertModel(config)

        def forward(self, input_ids, attention_mask):
            out = self.model(input_ids=input_ids, attention_mask=attention_mask)
            return out.last_hidden_state, out.pooler_output

    class GPT2(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            config = transformers.GPT2Config(
                vocab_size=100, n_positions=64, n_embd=32, n_layer=2, n_head=2, use_cache=False
            )
            self.model = transformers.GPT2LMHeadModel(config)

        def forward(self, input_ids):
            return self.model(input_ids=input_ids).logits

    class T5(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            config = transformers.T5Config(
                vocab_size=100,
                d_model=32,
                d_kv=16,
                d_ff=64,
                num_layers=2,
                num_decoder_layers=2,
                num_heads=2,
                use_cache=False,
            )
            self.model = transformers.T5ForConditionalGeneration(config)

        def forward(self, input_ids, decoder_input_ids):
            return self.model(input_ids=input_ids, decoder_input_ids=decoder_input_ids).logits

    def ids(*shapes: tuple) -> Callable[[], tuple]:
        return lambda: tuple(torch.randint(1, 100, s) for s in shapes)

    def bert_inputs(b: int, s: int) -> Callable[[], tuple]:
        return lambda: (torch.randint(1, 100, (b, s)), torch.ones(b, s, dtype=torch.long))

    target = Dim("target", min=2, max=64)
    return [
        Case(
            "bert_eager",
            "transformers",
            lambda: Bert("eager"),
            bert_inputs(2, 8),
            lambda a: ({0: batch, 1: seq}, {0: batch, 1: seq}),
            bert_inputs(3, 5),
        ),
        Case(
            "bert_sdpa",
            "transformers",
            lambda: Bert("sdpa"),
            bert_inputs(2, 8),
            lambda a: ({0: batch, 1: seq}, {0: batch, 1: seq}),
            bert_inputs(3, 5),
        ),
        Case("gpt2", "transformers", GPT2, ids((2, 8)), lambda a: ({0: batch, 1: seq},), ids((3, 5))),
        Case(
            "t5",
            "transformers",
            T5,
            ids((2, 8), (2, 6)),
            lambda a: ({0: batch, 1: seq}, {0: batch, 1: target}),
            ids((3, 5), (3, 9)),
        ),
    ]


class Fn:
    """A module calling one function (the functional battery's cases)."""

    def __new__(cls, fn: Callable) -> Any:
        import torch

        class Call(torch.nn.Module):
            def forward(self, *args):
                return fn(*args)

        return Call()


def _functional_cases(torch: Any, Dim: Any) -> list:
    F = torch.nn.functional

    def rand(*shape: int) -> Any:
        return torch.randn(*shape)

    def auto(args: tuple) -> tuple:
        """Every dim of every input Dim.AUTO (the module's one parameter is `*args`)."""
        return (
            tuple(
                dict.fromkeys(range(a.dim()), Dim.AUTO) if isinstance(a, torch.Tensor) and a.dim() else None
                for a in args
            ),
        )

    def case(name: str, fn: Callable, example: Callable[[], tuple], alt: Optional[Callable[[], tuple]] = None) -> Case:
        return Case(name, "functional", lambda: Fn(fn), example, auto, alt)

    img = lambda: (rand(2, 3, 10, 12),)  # noqa: E731
    img_alt = lambda: (rand(3, 3, 14, 8),)  # noqa: E731
    seq = lambda: (rand(2, 5, 7),)  # noqa: E731
    seq_alt = lambda: (rand(3, 6, 9),)  # noqa: E731
    vol = lambda: (rand(2, 3, 6, 8, 10),)  # noqa: E731
    mean, var, scale, shift = torch.randn(3), torch.rand(3) + 0.5, torch.rand(3), torch.randn(3)
    idx = lambda: (rand(4, 6), torch.randint(0, 4, (3, 6)))  # noqa: E731
    return [
        # resampling
        case("interpolate_nearest", lambda x: F.interpolate(x, scale_factor=2), img, img_alt),
        case("interpolate_nearest_size", lambda x: F.interpolate(x, size=(7, 9)), img, img_alt),
        case(
            "interpolate_nearest_exact",
            lambda x: F.interpolate(x, scale_factor=1.5, mode="nearest-exact"),
            img,
            img_alt,
        ),
        case("interpolate_bilinear", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), img, img_alt),
        case(
            "interpolate_bilinear_aligned",
            lambda x: F.interpolate(x, size=(5, 17), mode="bilinear", align_corners=True),
            img,
            img_alt,
        ),
        case("interpolate_bicubic", lambda x: F.interpolate(x, scale_factor=0.5, mode="bicubic"), img, img_alt),
        case("interpolate_area", lambda x: F.interpolate(x, size=(5, 4), mode="area"), img, img_alt),
        case("interpolate_linear", lambda x: F.interpolate(x, scale_factor=3, mode="linear"), seq, seq_alt),
        case("interpolate_trilinear", lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"), vol),
        case(
            "pixel_shuffle",
            lambda x: F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2),
            lambda: (rand(2, 8, 4, 6),),
            lambda: (rand(3, 12, 3, 5),),
        ),
        case(
            "grid_sample",
            lambda x, g: F.grid_sample(x, g, align_corners=False),
            lambda: (rand(2, 3, 8, 9), rand(2, 5, 4, 2).tanh()),
        ),
        # padding
        case("pad_constant", lambda x: F.pad(x, (1, 2, 3, 0), value=0.5), img, img_alt),
        case("pad_reflect", lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), img, img_alt),
        case("pad_replicate", lambda x: F.pad(x, (2, 1, 1, 2), mode="replicate"), img, img_alt),
        case("pad_circular", lambda x: F.pad(x, (2, 1, 1, 2), mode="circular"), img, img_alt),
        case("pad_reflect_1d", lambda x: F.pad(x, (3, 2), mode="reflect"), seq, seq_alt),
        # pooling
        case("max_pool2d_ceil", lambda x: F.max_pool2d(x, 3, 2, padding=1, ceil_mode=True), img, img_alt),
        case("max_pool1d", lambda x: F.max_pool1d(x, 2), seq, seq_alt),
        case("max_pool3d", lambda x: F.max_pool3d(x, 2), vol),
        case("avg_pool2d_no_pad", lambda x: F.avg_pool2d(x, 3, 2, padding=1, count_include_pad=False), img, img_alt),
        case("avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2), seq, seq_alt),
        case("avg_pool3d", lambda x: F.avg_pool3d(x, 2), vol),
        case("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 4)), img, img_alt),
        case("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), seq, seq_alt),
        case("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), img, img_alt),
        case("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 2), seq, seq_alt),
        case("lp_pool2d", lambda x: F.lp_pool2d(x, 2, 2), img, img_alt),
        case("unfold", lambda x: F.unfold(x, 3, padding=1, stride=2), img, img_alt),
        case("fold", lambda x: F.fold(x, (6, 8), 2, stride=2), lambda: (rand(2, 12, 12),)),
        # normalization
        case("batch_norm", lambda x: F.batch_norm(x, mean, var, scale, shift), img, img_alt),
        case("layer_norm", lambda x: F.layer_norm(x, (7,)), seq, lambda: (rand(3, 6, 7),)),
        case("group_norm", lambda x: F.group_norm(x, 3, scale, shift), img, img_alt),
        case("instance_norm", lambda x: F.instance_norm(x), img, img_alt),
        case("local_response_norm", lambda x: F.local_response_norm(x, 2), img, img_alt),
        case("normalize", lambda x: F.normalize(x, dim=-1), seq, seq_alt),
        case("rms_norm", lambda x: F.rms_norm(x, (7,)), seq, lambda: (rand(3, 6, 7),)),
        # activations
        case(
            "activations",
            lambda x: (
                F.gelu(x, approximate="tanh"),
                F.silu(x),
                F.mish(x),
                F.elu(x),
                F.selu(x),
                F.celu(x),
                F.softplus(x),
                F.softsign(x),
                F.relu6(x),
                F.hardtanh(x),
                F.leaky_relu(x, 0.2),
                F.logsigmoid(x),
                F.hardshrink(x),
                F.softshrink(x),
                F.tanhshrink(x),
                F.threshold(x, 0.1, 2.0),
                F.hardswish(x),
                F.hardsigmoid(x),
            ),
            seq,
            seq_alt,
        ),
        case(
            "prelu_glu",
            lambda x: (F.prelu(x, torch.tensor([0.25])), F.glu(x, dim=1)),
            lambda: (rand(2, 6, 5),),
            lambda: (rand(3, 4, 7),),
        ),
        case(
            "softmax_family",
            lambda x: (
                F.softmin(x, 1),
                F.log_softmax(x, -1, dtype=torch.float64),
                F.softmax(x, 0),
                torch.logsumexp(x, -1),
            ),
            seq,
            seq_alt,
        ),
        # losses
        case(
            "losses",
            lambda x, t: (
                F.cross_entropy(x, t),
                F.nll_loss(F.log_softmax(x, 1), t, reduction="none"),
                F.cross_entropy(x, t, label_smoothing=0.1),
            ),
            lambda: (rand(6, 5), torch.randint(0, 5, (6,))),
            lambda: (rand(4, 5), torch.randint(0, 5, (4,))),
        ),
        case(
            "regression_losses",
            lambda x, y: (
                F.mse_loss(x, y),
                F.l1_loss(x, y),
                F.smooth_l1_loss(x, y),
                F.huber_loss(x, y),
                F.binary_cross_entropy_with_logits(x, y.sigmoid()),
                F.kl_div(x.log_softmax(-1), y.softmax(-1), reduction="batchmean"),
            ),
            lambda: (rand(4, 6), rand(4, 6)),
            lambda: (rand(3, 5), rand(3, 5)),
        ),
        case(
            "margin_losses",
            lambda x, y, t: (
                F.soft_margin_loss(x, y.sign()),
                F.margin_ranking_loss(x[:, 0], y[:, 0], y[:, 1].sign(), margin=0.1),
                F.hinge_embedding_loss(x, y.sign()),
                F.cosine_embedding_loss(x, y, y[:, 0].sign()),
                F.triplet_margin_loss(x, y, 2 * x),
                F.poisson_nll_loss(x, y.abs()),
                F.multi_margin_loss(x, t),
                F.multilabel_margin_loss(x, t.unsqueeze(1).expand(-1, x.shape[1]).contiguous()),
            ),
            lambda: (rand(4, 6), rand(4, 6), torch.randint(0, 6, (4,))),
            lambda: (rand(3, 6), rand(3, 6), torch.randint(0, 6, (3,))),
        ),
        # similarity
        case(
            "distances",
            lambda x, y: (
                F.cosine_similarity(x, y, dim=-1),
                F.pairwise_distance(x, y),
                torch.cdist(x, y),
                torch.linalg.vector_norm(x, dim=-1),
            ),
            lambda: (rand(2, 5, 4), rand(2, 5, 4)),
            lambda: (rand(3, 6, 4), rand(3, 6, 4)),
        ),
        # indexing and gathering
        case(
            "embedding",
            lambda w, i: (F.embedding(i, w), F.one_hot(i, 4)),
            lambda: (rand(4, 6), torch.randint(0, 4, (2, 5))),
            lambda: (rand(4, 6), torch.randint(0, 4, (3, 7))),
        ),
        case(
            "gather_scatter",
            lambda x, i: (
                torch.gather(x, 0, i),
                torch.zeros(4, 6).scatter(0, i, x[:3]),
                torch.zeros(4, 6).scatter_add(0, i, x[:3]),
                x.scatter(1, i[:, :2].clamp(max=3), 1.0),
            ),
            idx,
        ),
        case(
            "index_select",
            lambda x, i: (x.index_select(1, i), x[:, i], x[i]),
            lambda: (rand(5, 6), torch.tensor([4, 0, 2])),
            lambda: (rand(7, 8), torch.tensor([1, 3, 3, 6])),
        ),
        case(
            "take_put",
            lambda x, i: (
                torch.take(x, i),
                torch.take_along_dim(x, i[:2].expand(x.shape[0], 2), 1),
                x.index_fill(1, i, -1.0),
                x.index_copy(1, i[:1], x[:, :1] * 2),
                x.index_reduce(1, i, x[:, :3], "amax"),
                x.clone().put_(i, x[0, :3], accumulate=True),
                torch.diagonal_scatter(x, x.diagonal() * 0),
                F.pdist(x),
                torch.dist(x[0], x[1]),
            ),
            lambda: (rand(5, 6), torch.tensor([4, 0, 2])),
            lambda: (rand(5, 6), torch.tensor([1, 3, 3])),
        ),
        case(
            "index_put",
            lambda x, i: x.clone().index_put_((i,), torch.tensor(1.0)),
            lambda: (rand(5, 6), torch.tensor([4, 0, 2])),
        ),
        case(
            "masked",
            lambda x: (
                x.masked_fill(x > 0, -1.0),
                torch.where(x > 0, x, 0.0),
                x[x > 0],
                torch.where(x > 0, x, torch.zeros_like(x)).nonzero(),
            ),
            seq,
            seq_alt,
        ),
        case(
            "slicing",
            lambda x: (
                x[:, 1:-1, ::2],
                x[..., None, 0],
                x[:, -1],
                x.narrow(2, 1, 3),
                x[:, :, 2:].flip(-1),
                x.unflatten(2, (1, -1)),
                x.movedim(0, -1),
                x.diff(dim=1),
                x.select(1, 2),
            ),
            seq,
            seq_alt,
        ),
        # arrangement
        case(
            "chunk_split",
            lambda x: (*x.chunk(2, dim=-1), *x.split(3, dim=1), *x.unbind(0), *torch.split(x, [2, 3], dim=1)),
            lambda: (rand(2, 5, 8),),
            lambda: (rand(2, 5, 6),),
        ),
        case(
            "repeat_expand",
            lambda x: (
                x.repeat(2, 1, 3),
                x[:, :1].expand(-1, 4, -1),
                x.repeat_interleave(2, dim=1),
                x.tile((2,)),
                torch.stack([x, x], 1),
                torch.cat([x, x], -1),
            ),
            seq,
            seq_alt,
        ),
        case(
            "flip_roll",
            lambda x: (
                x.flip(0, 2),
                x.roll(2, 1),
                x.roll((1, -1), (0, 2)),
                x.rot90(1, (1, 2)),
                x.transpose(0, 1).contiguous(),
                x.mT,
                x.permute(2, 0, 1),
            ),
            seq,
            seq_alt,
        ),
        case(
            "tril_triu",
            lambda x: (x.tril(), x.triu(1), torch.ones(x.shape[-1], x.shape[-1]).tril().bool(), torch.eye(x.shape[-1])),
            lambda: (rand(2, 5, 5),),
            lambda: (rand(3, 4, 4),),
        ),
        # reductions and sorting
        case(
            "reductions",
            lambda x: (
                x.sum(),
                x.mean((0, 2), keepdim=True),
                x.std(1),
                x.var(-1, unbiased=False),
                x.amax(1),
                x.prod(-1),
                x.norm(dim=1),
                (x > 0).all(-1),
                (x > 0).any(),
                x.max(),
                x.min(-1).values,
                x.argmax(-1),
                x.argmin(),
                x.count_nonzero(-1),
                x.median(-1).values,
                x.abs().sum(-1, dtype=torch.float64),
            ),
            seq,
            seq_alt,
        ),
        case(
            "cumulative",
            lambda x: (x.cumsum(1), x.cumprod(-1), x.cummax(1).values, torch.logcumsumexp(x, 1)),
            seq,
            seq_alt,
        ),
        case(
            "sort_topk",
            lambda x: (
                *torch.topk(x, 3),
                *x.sort(-1, descending=True),
                x.argsort(1),
                x.kthvalue(2, -1).values,
                x.msort(),
            ),
            seq,
            seq_alt,
        ),
        # linear algebra
        case(
            "matmuls",
            lambda a, b: (
                a @ b,
                torch.bmm(a, b),
                torch.baddbmm(a @ b, a, b, beta=0.5),
                torch.einsum("bij,bjk->bik", a, b),
                torch.einsum("bij->bj", a),
                a[0, 0] @ b[0],
                torch.outer(a[0, 0], b[0, 0]),
                a[0] @ b[0, :, 0],
                torch.addmm(b[0, 0], a[0], b[0]),
            ),
            lambda: (rand(2, 3, 4), rand(2, 4, 5)),
            lambda: (rand(3, 2, 4), rand(3, 4, 6)),
        ),
        case(
            "conv_functional",
            lambda x, w: (
                F.conv2d(x, w, padding=1, groups=1),
                F.conv_transpose2d(x, w.transpose(0, 1), stride=2),
                F.conv2d(x, w, stride=2, dilation=2),
            ),
            lambda: (rand(2, 3, 9, 9), rand(4, 3, 3, 3)),
        ),
        # math
        case(
            "math",
            lambda x, y: (
                torch.atan2(x, y),
                x.pow(2),
                x.abs().sqrt(),
                x.abs().log1p(),
                x.expm1(),
                torch.lerp(x, y, 0.3),
                torch.addcmul(x, x, y, value=0.5),
                x.clamp(-0.5, 0.5),
                x.clamp(min=0),
                torch.nan_to_num(x / 0),
                torch.isinf(x / 0),
                x.sign(),
                x.trunc(),
                x.frac(),
                torch.fmod(x, 0.7),
                torch.remainder(x, 0.7),
                x // 0.5,
                (x * 10).round(decimals=1),
                x.sin().cos().tan(),
                x.sigmoid().logit(),
                torch.erfinv(x.tanh() * 0.9),
                x.exp2(),
                x.float().half().float(),
                torch.heaviside(x, y),
                torch.hypot(x, y),
                torch.maximum(x, y),
                x.rsqrt().isnan(),
                torch.square(x),
                x.reciprocal(),
                torch.true_divide(x, 3),
                torch.clamp_min(x, 0.1),
            ),
            lambda: (rand(3, 4), rand(3, 4)),
            lambda: (rand(5, 2), rand(5, 2)),
        ),
        case(
            "integer_math",
            lambda a, b: (
                a // b.clamp(min=1),
                a % 3,
                a * b,
                a.bitwise_and(b),
                a << 1,
                a >> 1,
                -a,
                a.abs(),
                (a == b) | (a < 0),
                ~(a > b),
                a.float() / 2,
                a.sum(1),
                a.to(torch.int32) + 1,
                torch.bitwise_xor(a, b),
                a.max(1).indices,
            ),
            lambda: (torch.randint(-9, 9, (3, 4)), torch.randint(0, 9, (3, 4))),
            lambda: (torch.randint(-9, 9, (5, 2)), torch.randint(0, 9, (5, 2))),
        ),
        # creation
        case(
            "creation",
            lambda x: (
                torch.arange(x.shape[1]) * 2,
                torch.zeros(x.shape[0], 3),
                x.new_ones(2, x.shape[1]),
                torch.full_like(x, 7),
                torch.zeros_like(x, dtype=torch.int64),
                x.new_tensor([1.0, 2.0]),
                torch.linspace(0, 1, 5),
                torch.arange(0, x.shape[2], 2).float(),
                torch.ones(x.shape[1], dtype=torch.bool).logical_not(),
                torch.meshgrid(torch.arange(3), torch.arange(x.shape[1]), indexing="ij")[1],
                torch.empty(x.shape[:2]).fill_(3.0),
            ),
            seq,
            seq_alt,
        ),
        case(
            "positional",
            lambda x: (
                x
                + torch.sin(
                    torch.arange(x.shape[1]).unsqueeze(-1) * torch.exp(torch.arange(0, x.shape[2], 2) * -0.1)
                ).repeat_interleave(2, -1)[:, : x.shape[2]]
            ),
            lambda: (rand(2, 5, 8),),
            lambda: (rand(3, 7, 8),),
        ),
        case(
            "in_place",
            lambda x, y: _in_place(x, y),
            lambda: (rand(2, 5, 7), rand(5, 7)),
            lambda: (rand(3, 4, 7), rand(4, 7)),
        ),
        case(
            "dtype_casts",
            lambda x: (
                x.long(),
                x.int(),
                x.bool(),
                x.double(),
                x.to(torch.float16).float(),
                x.type_as(x),
                (x > 0).float().mean(),
                x.half().sum(dtype=torch.float32),
            ),
            seq,
            seq_alt,
        ),
        case(
            "view_ops",
            lambda x: (
                x.view(-1),
                x.reshape(x.shape[0], -1),
                x.flatten(),
                x.unsqueeze(1).squeeze(1),
                x.view(x.shape[0], x.shape[1], 1, x.shape[2]).squeeze(),
                x.t() if x.dim() == 2 else x.mT,
                x.unfold(1, 2, 1),
                x.as_strided((2, 2), (1, 1)),
                x.expand_as(x),
                x.view_as(x),
            ),
            seq,
            seq_alt,
        ),
        case(
            "bucketize",
            lambda x: (
                torch.bucketize(x, torch.tensor([-1.0, 0.0, 1.0])),
                torch.searchsorted(torch.tensor([-1.0, 0.0, 1.0]), x.contiguous()),
            ),
            seq,
            seq_alt,
        ),
        case(
            "where_scalar",
            lambda x, m: (torch.where(m, x, -1.0), x.masked_fill(~m, float("-inf")).softmax(-1)),
            lambda: (rand(2, 5), torch.rand(2, 5) > 0.3),
            lambda: (rand(3, 7), torch.rand(3, 7) > 0.3),
        ),
    ]


def _in_place(x: Any, y: Any) -> tuple:
    """In-place operators (kept as `aten.X_` by the default IR) on fresh tensors, also through
    views (`row` is a view of `d` read after a later write to `d`)."""
    import torch

    a = x.clone()
    a += y
    a.mul_(2.0)
    a.relu_()
    a.clamp_(max=1.0)
    b = x.clone()
    b[:, 0] = 0.0
    b.masked_fill_(b < -1, -1.0)
    b.sub_(y, alpha=0.5)
    b.div_(2).add_(1)
    c = x.new_zeros(x.shape)
    c.copy_(x)
    c.sigmoid_()
    c.tanh_()
    c.exp_().log_()
    torch.nn.functional.hardswish(c, inplace=True)
    c.fill_(0.5)
    c.addcmul_(x, x)
    d = x.clone()
    d.transpose(0, 1)[0].mul_(3)
    d[:, 1:3] += y[:2]
    row = d[0]
    d.add_(1)
    return a, b, c, d, row


def _torchvision() -> Any:
    """torchvision beside a CPU-only torch (as bench/export_corpus.py imports it)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from export_corpus import _torchvision as load

    return load()


# export --------------------------------------------------------------------------------------------
def deflate(path: Path) -> None:
    """Rewrite an archive with its members compressed (torch stores them; the reader takes
    either): what tests/data/torch/corpus keeps, about a third of the size."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        members = [(info.filename, archive.read(info.filename)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members:
            archive.writestr(name, data)


def export_all(out: Path, only: Optional[list], groups: Optional[list], compress: bool = False) -> None:
    """Export every case in both IRs with its sample inputs and torch's outputs (each case's
    entry in `<case>.case.json`, so several exports can run side by side)."""
    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    out.mkdir(parents=True, exist_ok=True)
    for case in cases():
        if (only and case.name not in only) or (groups and case.group not in groups):
            continue
        torch.manual_seed(0)
        started = time.perf_counter()
        entry: dict = {"group": case.group, "archives": {}, "refused": {}}
        try:
            model = case.build().eval()
            example = case.inputs()
            program = torch.export.export(model, example, dynamic_shapes=case.dynamic(example), **case.options)
        except Exception as failure:  # noqa: BLE001 - what torch refused is a row of the report
            entry["refused"]["export"] = _first_line(failure)
            _write_entry(out, case.name, entry)
            print(f"{case.name}: torch refused: {entry['refused']['export']}", flush=True)
            continue
        names = [s.arg.name for s in program.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
        _save_samples(
            out / f"{case.name}.inputs.npz", out / f"{case.name}.outputs.npz", program, names, example, np, torch
        )
        if case.alt is not None:
            try:
                _save_samples(
                    out / f"{case.name}.alt.inputs.npz",
                    out / f"{case.name}.alt.outputs.npz",
                    program,
                    names,
                    case.alt(),
                    np,
                    torch,
                )
            except Exception as failure:  # noqa: BLE001 - torch's guards refused the other size
                entry["refused"]["alt"] = _first_line(failure)
        for ir in IRS:
            try:
                ep = program if ir == "default" else program.run_decompositions()
                path = out / f"{case.name}.{ir}.pt2"
                torch.export.save(ep, str(path))
                if compress:
                    deflate(path)
                entry["archives"][ir] = path.name
            except Exception as failure:  # noqa: BLE001
                entry["refused"][ir] = _first_line(failure)
        _write_entry(out, case.name, entry)
        print(f"{case.name}: {time.perf_counter() - started:.1f} s", flush=True)


def _write_entry(out: Path, name: str, entry: dict) -> None:
    (out / f"{name}.case.json").write_text(json.dumps(entry, indent=1, sort_keys=True) + "\n")


def read_manifest(out: Path) -> dict:
    """Every exported case's entry, by name."""
    return {path.name[: -len(".case.json")]: json.loads(path.read_text()) for path in sorted(out.glob("*.case.json"))}


def _save_samples(
    inputs_path: Path, outputs_path: Path, program: Any, names: list, args: tuple, np: Any, torch: Any
) -> None:
    with torch.no_grad():
        outputs = program.module()(*args)
    leaves = torch.utils._pytree.tree_leaves(outputs)
    np.savez(inputs_path, **{n: a.numpy() for n, a in zip(names, args)})
    np.savez(outputs_path, *[o.detach().numpy() if isinstance(o, torch.Tensor) else np.asarray(o) for o in leaves])


def _first_line(failure: Exception) -> str:
    text = str(failure).strip().splitlines()
    return f"{type(failure).__name__}: {text[0][:200] if text else ''}"


# check ---------------------------------------------------------------------------------------------
@dataclass
class Row:
    """What gradual made of one archive."""

    case: str
    ir: str
    group: str
    nodes: int = 0
    imported: bool = False
    unsupported: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    warnings: int = 0
    checks: int = 0
    seconds: float = 0.0
    run: str = ""

    @property
    def clean(self) -> bool:
        """Imported, checked without errors and (where torch's outputs exist) ran to them."""
        return self.imported and not self.errors and self.run in ("equal", "")


def check_archive(path: Path, out: Path, case: str, ir: str, entry: dict) -> Row:
    """Import, check and run one archive."""
    from gradual.frontends import torch_export as gt

    row = Row(case, ir, entry.get("group", ""))
    started = time.perf_counter()
    try:
        program = gt.import_archive(str(path))
    except gt.LoadError as failure:
        row.errors.append(f"{failure.diagnostic.code}: {failure.diagnostic.message}")
        return row
    row.nodes = program.node_count
    result = program.check()
    row.seconds = time.perf_counter() - started
    row.imported = program.ok
    for diag in result.diagnostics:
        if diag.is_error and diag.code == "unknown-operator" and "operator" in diag.data:
            row.unsupported.append(diag.data["operator"])
        elif diag.is_error:
            row.errors.append(f"{diag.code}: {diag.message} ({diag.span.describe()})")
        else:
            row.warnings += 1
    row.checks = result.check_count if result.ok else 0
    if result.ok:
        row.run = _compare_runs(program, result, out, case)
    return row


def _compare_runs(program: Any, result: Any, out: Path, case: str) -> str:
    """`equal` when every sample's outputs match torch's, else what differed."""
    import numpy as np

    verdicts = []
    for sample in ("", ".alt"):
        inputs_path = out / f"{case}{sample}.inputs.npz"
        if not inputs_path.exists():
            continue
        inputs = dict(np.load(inputs_path))
        expected = np.load(out / f"{case}{sample}.outputs.npz")
        try:
            outputs = program.run(inputs, result)
        except Exception as failure:  # noqa: BLE001 - reported in the table
            verdicts.append(f"run failed{sample}: {type(failure).__name__}: {str(failure).splitlines()[0][:160]}")
            continue
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        verdicts.append(_compare(outputs, [expected[f"arr_{i}"] for i in range(len(expected.files))], sample))
    bad = [v for v in verdicts if v != "equal"]
    return "; ".join(bad) if bad else "equal" if verdicts else ""


def _compare(outputs: list, wanted: list, sample: str) -> str:
    import numpy as np

    if len(outputs) != len(wanted):
        return f"{len(outputs)} outputs, torch {len(wanted)}{sample}"
    for i, (got, want) in enumerate(zip(outputs, wanted)):
        got = np.asarray(got)
        if got.shape != want.shape:
            return f"output {i}{sample}: shape {got.shape}, torch {want.shape}"
        if want.dtype.kind in "fc":
            close = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-4, equal_nan=True)
        else:
            close = np.array_equal(got.astype(want.dtype), want)
        if not close:
            return f"output {i}{sample}: values differ"
    return "equal"


def check_all(out: Path, manifest: dict) -> list:
    """A row per archive of the manifest."""
    rows = []
    for case, entry in sorted(manifest.items()):
        for ir in IRS:
            name = entry.get("archives", {}).get(ir)
            if name:
                row = check_archive(out / name, out, case, ir, entry)
                rows.append(row)
                print(_line(row), flush=True)
    return rows


def _line(row: Row) -> str:
    what = (
        "clean"
        if row.clean
        else "unsupported " + ", ".join(sorted(set(row.unsupported)))
        if row.unsupported
        else "; ".join(row.errors[:2])
        if row.errors
        else row.run
    )
    return f"{row.case:28} {row.ir:7} {row.nodes:5} nodes {row.seconds:6.2f} s  {row.checks:3} checks  {what}"


def summary(rows: list, manifest: dict) -> list:
    """The report's closing lines: totals, unsupported operators by frequency, refusals."""
    from gradual.frontends import torch_export as gt

    lines = []
    clean = sum(r.clean for r in rows)
    cases = {r.case for r in rows}
    clean_cases = {c for c in cases if all(r.clean for r in rows if r.case == c)}
    lines.append(
        f"{len(rows)} archives of {len(cases)} programs: {clean} clean ({100 * clean / max(len(rows), 1):.0f}%), "
        f"{len(clean_cases)} programs clean in both IRs; {sum(r.nodes for r in rows)} nodes in all; "
        f"{len(gt.supported_operators())} ATen operators supported"
    )
    counts = Counter(op for r in rows for op in set(r.unsupported))
    if counts:
        lines.append("unsupported (archives): " + ", ".join(f"{op} {n}" for op, n in counts.most_common()))
    slow = max(rows, key=lambda r: r.seconds / max(r.nodes, 1), default=None)
    if slow is not None:
        lines.append(
            f"slowest per node: {slow.case} ({slow.ir}) {1000 * slow.seconds / max(slow.nodes, 1):.1f} ms/node"
        )
    for case, entry in sorted(manifest.items()):
        for what, why in sorted(entry.get("refused", {}).items()):
            lines.append(f"torch refused {case} ({what}): {why}")
    return lines


def markdown(rows: list) -> str:
    """The per-archive table for the README."""
    out = [
        "| program | IR | nodes | imported | checks | warnings | time | run = torch |",
        "| --- | --- | ---: | --- | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        imported = (
            "yes" if r.imported else "unsupported: " + ", ".join(sorted(set(r.unsupported))) if r.unsupported else "no"
        )
        out.append(
            f"| {r.case} | {r.ir} | {r.nodes} | {imported} | {r.checks} | {r.warnings} | {r.seconds:.2f} s | "
            f"{r.run or ('errors: ' + '; '.join(r.errors) if r.errors else '-')} |"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("export", "check"))
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the archives go (default {OUT})")
    parser.add_argument("--only", nargs="*", help="case names (default: all)")
    parser.add_argument("--group", nargs="*", help="case groups: torchvision, nn, transformers, functional")
    parser.add_argument("--markdown", action="store_true", help="also print the README's table")
    parser.add_argument("--deflate", action="store_true", help="export: compress the archives' members")
    args = parser.parse_args()
    if args.command == "export":
        export_all(args.out, args.only, args.group, args.deflate)
        return
    sys.path.insert(0, str(ROOT))
    manifest = {
        name: entry
        for name, entry in read_manifest(args.out).items()
        if (not args.only or name in args.only) and (not args.group or entry.get("group") in args.group)
    }
    rows = check_all(args.out, manifest)
    print("\n".join(summary(rows, manifest)))
    if args.markdown:
        print(markdown(rows))


if __name__ == "__main__":
    main()
