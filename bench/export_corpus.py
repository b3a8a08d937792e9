"""Export the corpus of real models that tests/test_onnx_corpus.py checks.

    python bench/export_corpus.py            # needs torch, torchvision, transformers, onnxscript

Small models with random weights (widths reduced, so the files stay small) from torchvision
(ResNet, MobileNet v2 and v3, EfficientNet, SqueezeNet, ShuffleNet, ViT), transformers (BERT,
GPT-2, T5, built from tiny configs: nothing is downloaded) and hand-written blocks (a CNN with a
fixed-size classifier, multi-head attention, a U-Net, an LSTM tagger), each exported by both of
PyTorch's exporters with dynamic axes: the TorchScript one (`dynamo=False`, `dynamic_axes`) and
the dynamo one (`dynamo=True`, `dynamic_shapes`). The `.onnx` files and `manifest.json` (each
model's inputs with the sizes the tests run it on) go to tests/data/onnx/exported/.

Torch is not a test dependency: the tests read the stored files. Regenerate in a separate
environment, e.g. `pip install torch==2.13.0 torchvision==0.28.0 --no-deps transformers
onnxscript` (torchvision's wheel beside a CPU torch needs its CUDA-only `nms` operators
registered before import, which this script does).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import torch
from torch import nn

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "onnx" / "exported"
SEED = 0


def _torchvision() -> Any:
    """torchvision, importable beside a CPU-only torch (its C++ `nms` operators registered as
    stubs when the wheel's own library does not load)."""
    if "torchvision" not in sys.modules and not _has_nms():
        library = torch.library.Library("torchvision", "DEF")
        for signature in (
            "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
            "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
        ):
            library.define(signature)
        _torchvision.library = library  # type: ignore[attr-defined]  # kept alive
    import torchvision

    return torchvision


def _has_nms() -> bool:
    try:
        import torchvision.extension  # noqa: F401  (loads the C++ operators where they exist)
    except Exception:  # noqa: BLE001 - an extension that does not load: nms is looked up below either way
        pass
    for name in [n for n in sys.modules if n.startswith("torchvision")]:
        del sys.modules[name]
    try:
        _ = torch.ops.torchvision.nms  # the lookup raises where the operator is missing
        return True
    except (AttributeError, RuntimeError):
        return False


# the models ---------------------------------------------------------------------------------------
def resnet() -> nn.Module:
    """torchvision's ResNet with BasicBlocks, widths 8-64, one block per stage."""
    _torchvision()
    from torchvision.models.resnet import BasicBlock, ResNet

    model = ResNet(BasicBlock, [1, 1, 1, 1], num_classes=10)
    model.inplanes = 8
    model.conv1 = nn.Conv2d(3, 8, kernel_size=7, stride=2, padding=3, bias=False)
    model.bn1 = nn.BatchNorm2d(8)
    model.layer1 = model._make_layer(BasicBlock, 8, 1)
    model.layer2 = model._make_layer(BasicBlock, 16, 1, stride=2)
    model.layer3 = model._make_layer(BasicBlock, 32, 1, stride=2)
    model.layer4 = model._make_layer(BasicBlock, 64, 1, stride=2)
    model.fc = nn.Linear(64, 10)
    return model


def mobilenet_v2() -> nn.Module:
    tv = _torchvision()
    model = tv.models.mobilenet_v2(width_mult=0.25, num_classes=10)
    return model


def mobilenet_v3() -> nn.Module:
    tv = _torchvision()
    from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf

    setting, last = _mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
    del tv
    return MobileNetV3(setting, 128, num_classes=10)


def efficientnet() -> nn.Module:
    _torchvision()
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf

    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
    return EfficientNet(setting, 0.2, num_classes=10, last_channel=128)


def squeezenet() -> nn.Module:
    tv = _torchvision()
    model = tv.models.squeezenet1_1(num_classes=10)
    return _shrink_convs(model, 4)


def shufflenet() -> nn.Module:
    tv = _torchvision()
    from torchvision.models.shufflenetv2 import ShuffleNetV2

    del tv
    return ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10)


def vit() -> nn.Module:
    """torchvision's VisionTransformer for 32x32 images, patches of 8 (16 patches and a class token)."""
    _torchvision()
    from torchvision.models.vision_transformer import VisionTransformer

    return VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10
    )


def _shrink_convs(model: nn.Module, factor: int) -> nn.Module:
    """Every conv with more than 16 channels narrowed by `factor` (SqueezeNet's Fire modules)."""

    def narrow(c: int) -> int:
        return c if c <= 16 or c == 10 else c // factor

    for _name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, nn.Conv2d):
                new = nn.Conv2d(
                    narrow(child.in_channels) if child.in_channels != 3 else 3,
                    narrow(child.out_channels),
                    child.kernel_size,
                    child.stride,
                    child.padding,
                )
                setattr(module, child_name, new)
    return model


class BertWrap(nn.Module):
    """BertModel's last hidden state (the tuple/dict outputs flattened)."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import BertConfig, BertModel

        config = BertConfig(
            vocab_size=100,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=64,
            attn_implementation="eager",
        )
        self.model = BertModel(config)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


class GPT2Wrap(nn.Module):
    """GPT2LMHeadModel's logits."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import GPT2Config, GPT2LMHeadModel

        config = GPT2Config(
            vocab_size=100, n_positions=64, n_embd=32, n_layer=2, n_head=2, use_cache=False, attn_implementation="eager"
        )
        self.model = GPT2LMHeadModel(config)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids).logits


class T5Wrap(nn.Module):
    """T5ForConditionalGeneration's logits for encoder and decoder ids."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import T5Config, T5ForConditionalGeneration

        config = T5Config(
            vocab_size=100,
            d_model=32,
            d_kv=16,
            d_ff=64,
            num_layers=2,
            num_decoder_layers=2,
            num_heads=2,
            use_cache=False,
            attn_implementation="eager",
        )
        self.model = T5ForConditionalGeneration(config)

    def forward(self, input_ids: torch.Tensor, decoder_input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, decoder_input_ids=decoder_input_ids).logits


class FixedCNN(nn.Module):
    """Three conv + pool stages, then a Linear over 32 * 4 * 4 = 512 features: only inputs whose
    height and width pool down to 4 x 4 (such as 32 x 32) work."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(512, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


class Attention(nn.Module):
    """Multi-head self-attention with scaled_dot_product_attention and a residual."""

    def __init__(self, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.out(y.transpose(1, 2).reshape(b, s, d))


class UNet(nn.Module):
    """Two down and two up stages with skip connections: the upsampled path must match the skip,
    which holds when height and width are multiples of 4."""

    def __init__(self) -> None:
        super().__init__()

        def block(i: int, o: int) -> nn.Module:
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())

        self.enc1, self.enc2, self.mid = block(3, 8), block(8, 16), block(16, 32)
        self.up2, self.dec2 = nn.ConvTranspose2d(32, 16, 2, stride=2), block(32, 16)
        self.up1, self.dec1 = nn.ConvTranspose2d(16, 8, 2, stride=2), block(16, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(nn.functional.max_pool2d(e1, 2))
        m = self.mid(nn.functional.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


class LSTMTagger(nn.Module):
    """Embedding -> bidirectional LSTM -> per-token tag scores."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 16, batch_first=True, bidirectional=True)
        self.tags = nn.Linear(32, 5)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(tokens))
        return self.tags(out)


# inputs -------------------------------------------------------------------------------------------
IMAGE = {"name": "x", "dtype": "float32", "dims": ["batch", 3, "height", "width"]}


def image(example: list, runs: list, dynamic: tuple = ("batch", "height", "width")) -> list:
    """One image input: the example size exported with, the sizes the tests run, the dynamic dims."""
    spec = dict(IMAGE, example=example, runs=runs)
    spec["dims"] = [d if isinstance(d, int) or d in dynamic else example[i] for i, d in enumerate(IMAGE["dims"])]
    return [spec]


def tokens(*names: str, runs: list, vocab: int = 100, example: tuple = (2, 8)) -> list:
    """Integer token inputs (batch, seq) (an attention_mask is all ones)."""
    return [
        {
            "name": n,
            "dtype": "int64",
            "dims": ["batch", "seq" if not n.startswith("decoder") else "target"],
            "example": list(example),
            "runs": runs,
            "high": vocab if "mask" not in n else 2,
        }
        for n in names
    ]


#: name -> (builder, inputs, exporters)
MODELS: dict[str, tuple] = {
    "resnet": (resnet, image([2, 3, 32, 32], [[1, 3, 32, 32], [2, 3, 40, 56]]), ("ts", "dynamo")),
    "mobilenet_v2": (mobilenet_v2, image([2, 3, 32, 32], [[1, 3, 32, 32], [2, 3, 48, 40]]), ("ts", "dynamo")),
    "mobilenet_v3": (mobilenet_v3, image([2, 3, 32, 32], [[1, 3, 32, 32], [2, 3, 48, 40]]), ("ts", "dynamo")),
    "efficientnet": (efficientnet, image([2, 3, 32, 32], [[1, 3, 32, 32], [2, 3, 48, 40]]), ("ts", "dynamo")),
    "squeezenet": (squeezenet, image([2, 3, 48, 48], [[1, 3, 48, 48], [2, 3, 64, 56]]), ("ts", "dynamo")),
    "shufflenet": (shufflenet, image([2, 3, 32, 32], [[1, 3, 32, 32], [2, 3, 48, 40]]), ("ts",)),
    # torch.export specializes ShuffleNet's height and width to 32 ("Suggested fixes: height = 32")
    "shufflenet_batch": (
        shufflenet,
        image([2, 3, 32, 32], [[1, 3, 32, 32], [3, 3, 32, 32]], dynamic=("batch",)),
        ("dynamo",),
    ),
    "vit": (vit, image([2, 3, 32, 32], [[1, 3, 32, 32], [3, 3, 32, 32]]), ("ts",)),
    "vit_batch": (vit, image([2, 3, 32, 32], [[1, 3, 32, 32], [3, 3, 32, 32]], dynamic=("batch",)), ("dynamo",)),
    "bert": (BertWrap, tokens("input_ids", "attention_mask", runs=[[1, 5], [3, 16]]), ("ts", "dynamo")),
    "gpt2": (GPT2Wrap, tokens("input_ids", runs=[[1, 5], [3, 16]]), ("ts", "dynamo")),
    "t5": (T5Wrap, tokens("input_ids", "decoder_input_ids", runs=[[1, 5], [2, 12]]), ("ts", "dynamo")),
    "cnn_fixed": (FixedCNN, image([2, 3, 32, 32], [[1, 3, 32, 32], [4, 3, 32, 32]]), ("ts", "dynamo")),
    "attention": (
        Attention,
        [
            {
                "name": "x",
                "dtype": "float32",
                "dims": ["batch", "seq", 32],
                "example": [2, 8, 32],
                "runs": [[1, 5, 32], [3, 16, 32]],
            }
        ],
        ("ts", "dynamo"),
    ),
    "unet": (UNet, image([2, 3, 32, 32], [[1, 3, 32, 32], [2, 3, 24, 40]]), ("ts", "dynamo")),
    "lstm_tagger": (LSTMTagger, tokens("tokens", runs=[[1, 5], [3, 16]]), ("ts", "dynamo")),
}


#: sizes a model cannot take although its exported dims are dynamic: the inserted check must stop them
BREAKS = {"cnn_fixed": [{"x": [1, 3, 40, 40]}], "unet": [{"x": [1, 3, 30, 30]}], "vit": [{"x": [1, 3, 48, 48]}]}
#: per file: the dynamo exporter declares the LSTM tagger's output as (batch, 8, 5), the example's
#: length, so only seq = 8 keeps the model's own declaration
RUNS = {"lstm_tagger.dynamo.onnx": ([[1, 8], [3, 8]], [{"tokens": [2, 5]}])}


def example_inputs(specs: list) -> tuple:
    """The example tensors exported with."""
    out = []
    for spec in specs:
        if spec["dtype"] == "int64":
            out.append(torch.randint(0, spec.get("high", 100), spec["example"]))
        else:
            out.append(torch.randn(spec["example"]))
    return tuple(out)


# exporting -------------------------------------------------------------------------------------------
def export(name: str, model: nn.Module, specs: list, exporter: str) -> Path:
    """Export one model with one exporter; the path written."""
    path = OUT / f"{name}.{exporter}.onnx"
    args = example_inputs(specs)
    names = [s["name"] for s in specs]
    if exporter == "ts":
        axes = {s["name"]: {i: d for i, d in enumerate(s["dims"]) if isinstance(d, str)} for s in specs}
        axes["y"] = {0: "batch"}
        torch.onnx.export(
            model,
            args,
            str(path),
            dynamo=False,
            input_names=names,
            output_names=["y"],
            dynamic_axes=axes,
            opset_version=17,
        )
    else:
        dims: dict = {}
        shapes = {
            s["name"]: {
                i: dims.setdefault(d, torch.export.Dim(d, min=1 if d == "batch" else 2, max=4096))
                for i, d in enumerate(s["dims"])
                if isinstance(d, str)
            }
            for s in specs
        }
        program = torch.onnx.export(
            model, args, dynamo=True, input_names=names, output_names=["y"], dynamic_shapes=shapes, external_data=False
        )
        program.save(str(path), external_data=False)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="model names to export (default: all)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    OUT.mkdir(parents=True, exist_ok=True)
    manifest_path = OUT / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    for name, (build, specs, exporters) in MODELS.items():
        if args.only and name not in args.only:
            continue
        torch.manual_seed(SEED)
        model = build().eval()
        for exporter in exporters:
            try:
                path = export(name, model, specs, exporter)
            except Exception as exc:  # noqa: BLE001 - report and go on with the others
                print(f"{name} ({exporter}): export failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
                continue
            runs, breaks = RUNS.get(path.name, (None, BREAKS.get(name, [])))
            inputs = [dict(spec, runs=runs) if runs else spec for spec in specs]
            manifest[path.name] = {"model": name, "exporter": exporter, "inputs": inputs, "breaks": breaks}
            print(f"{path.name}: {path.stat().st_size / 1e6:.2f} MB")
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
