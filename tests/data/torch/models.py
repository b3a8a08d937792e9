"""The small PyTorch models behind the committed .pt2 archives (see make_archives.py).

Their stack traces point here: tests find a node's expected Python line by its code."""

import torch
import torch.nn.functional as F


class SmallCNN(torch.nn.Module):
    """conv -> batch norm -> relu -> max pool -> conv -> adaptive pool -> flatten -> linear."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        y = F.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        y = torch.relu(self.conv2(y))
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.fc(y)


class Attention(torch.nn.Module):
    """A pre-norm self-attention block over a dynamic sequence, with a causal mask."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.norm = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        q = q.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5
        mask = torch.ones(s, s, dtype=torch.bool).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        out = out.transpose(1, 2).reshape(b, s, d)
        return x + self.proj(out)


class Nonzero(torch.nn.Module):
    """Data-dependent sizes: the positive entries' coordinates, and how many there are."""

    def forward(self, x):
        idx = torch.nonzero(x > 0)
        picked = x.flatten().index_select(0, idx[:, 0] * x.shape[1] + idx[:, 1])
        return picked * 2, idx.shape[0], (x > 0).sum().item()


class PairTokens(torch.nn.Module):
    """Merges neighbouring tokens and projects them: the view needs an even sequence length,
    which torch.export records only as a guard (exported with Dim.AUTO)."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(2 * dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        pairs = x.view(b, s // 2, 2 * d)
        return self.proj(pairs)


class InPlaceBlock(torch.nn.Module):
    """A residual block written the way torchvision writes them: in-place activations
    (relu_, hardswish_), an in-place residual add (add_), a bilinear upsampling, then heads
    split by unflatten and the top score (topk)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.act = torch.nn.Hardswish(inplace=True)

    def forward(self, x):
        y = torch.relu_(self.bn(self.conv(x)))
        y.add_(x)
        y = F.interpolate(self.act(y), scale_factor=2.0, mode="bilinear")
        heads = y.flatten(2).unflatten(1, (2, 2))
        return torch.topk(heads.mean(-1), 1, dim=-1).values


class Layers(torch.nn.Module):
    """Less common ATen operators in one model: recurrent layers (a bidirectional two-layer
    LSTM, a GRU), GroupNorm, a boolean mask, sorting, a cumulative max, and a cross-entropy
    loss against the tokens."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(20, 8)
        self.lstm = torch.nn.LSTM(8, 6, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(12, 5, batch_first=True)
        self.norm = torch.nn.GroupNorm(1, 5)
        self.head = torch.nn.Linear(5, 20)

    def forward(self, tokens):
        y, _ = self.lstm(self.embed(tokens))
        z, h = self.gru(y)
        z = self.norm(z.transpose(1, 2)).transpose(1, 2)
        logits = self.head(z)
        loss = F.cross_entropy(logits.flatten(0, 1), tokens.flatten())
        positive = z[z > 0]
        ranked = torch.sort(h[0], dim=-1, descending=True).values
        return loss, positive.sum(), ranked, torch.cummax(logits, dim=1).values


class HalfSelect(torch.nn.Module):
    """A bfloat16 linear layer (its weights stored as bfloat16 in the archive), and the positive
    outputs picked with masked_select: a length only the data decides."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(6, 4).to(torch.bfloat16)

    def forward(self, x):
        y = self.linear(x.to(torch.bfloat16)).float()
        return y, torch.masked_select(y, y > 0)


class CeilPool(torch.nn.Module):
    """An average pool with ceil_mode over a dynamic height: torch.export records the output
    height as h // 3, which holds only under its guard 3 * (h // 3) >= h."""

    def forward(self, x):
        return F.avg_pool2d(x, (2, 1), (3, 1), ceil_mode=True)


class Counts(torch.nn.Module):
    """Running counts over an attention mask and integers: torch sums and multiplies bool and
    integer tensors in int64 (a bool cumsum counts, it is no running OR), and InstanceNorm1d."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.InstanceNorm1d(3, affine=True)

    def forward(self, mask, a, x):
        positions = mask.cumsum(-1) - 1
        return positions, a.cumsum(1), (a > 0).cumprod(1), mask.cumsum(-1).float(), self.norm(x)


class Resample(torch.nn.Module):
    """Antialiased bilinear and bicubic interpolation, down and up (torch's `_upsample_*_aa`
    kernels, whose filter ONNX Resize's antialias does not reproduce)."""

    def forward(self, x):
        return (F.interpolate(x, scale_factor=0.5, mode="bicubic", antialias=True),
                F.interpolate(x, size=(3, 5), mode="bilinear", antialias=True),
                F.interpolate(x, scale_factor=2.0, mode="bilinear", antialias=True),
                F.interpolate(x, scale_factor=2.0, mode="bicubic", antialias=True))


class PadToSizes(torch.nn.Module):
    """Pads computed from sizes (SymInt lists): up to a multiple of 4 (Swin's windows), up to a
    skip connection's size (U-Net), a weight repeated once per batch entry, and a size as a
    tensor (torch.tensor(x.shape[1]))."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3))

    def forward(self, x, skip):
        right = x.shape[2] // 2
        grown = F.pad(x, (0, right))
        dy, dx = skip.shape[2] - x.shape[1], skip.shape[3] - x.shape[2]
        fitted = F.pad(x.unsqueeze(1), (dx // 2, dx - dx // 2, dy // 2, dy - dy // 2))
        return grown, fitted, self.weight.repeat(x.shape[0]), torch.tensor(x.shape[1])


class Routing(torch.nn.Module):
    """Operators real models use that torch.export records as nodes of their own: LSTMCell,
    GRUCell and RNNCell steps (lstm_cell, gru_cell, rnn_relu_cell without biases), mixture-of-
    experts routing by the one-argument torch.where (nonzero's columns) and index_add, argwhere,
    repeat_interleave by a tensor of counts, x.T (numpy_T), a KV-cache's causal mask
    (tril with a diagonal computed from the past length), F.fold back to the input's own size
    (col2im by a SymInt list), and EmbeddingBag (sum with per_sample_weights and padding_idx,
    mean over a 2-D input, max)."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTMCell(4, 3)
        self.gru = torch.nn.GRUCell(3, 3)
        self.rnn = torch.nn.RNNCell(3, 2, nonlinearity="relu", bias=False)
        self.summed = torch.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)
        self.mean = torch.nn.EmbeddingBag(10, 3, mode="mean")
        self.max = torch.nn.EmbeddingBag(10, 3, mode="max", padding_idx=0)

    def forward(self, x, past, ids, offsets):
        h, c = self.lstm(x)
        g = self.gru(h, c)
        r = self.rnn(g)
        top = x.argmax(-1)
        rows, cols = torch.where(x > 0)
        routed = torch.zeros_like(x).index_add(0, rows, x[rows, cols].unsqueeze(-1) * x[rows])
        t, p = x.shape[0], past.shape[0]
        mask = torch.ones(t, p + t).tril(diagonal=p)
        counts = (x > 0).sum(-1)
        spread = torch.repeat_interleave(top, counts)
        weights = torch.arange(ids.shape[0], dtype=torch.float32) / 4
        bags = (self.summed(ids, offsets, per_sample_weights=weights), self.mean(ids.view(-1, 2)),
                self.max(ids, offsets))
        folded = F.fold(F.unfold(x[None, None], 2), x.shape, 2)
        return (c, g, r, rows, routed, torch.argwhere(x < -1), mask, spread, x.T @ x, folded) + bags


class Statistics(torch.nn.Module):
    """More ATen nodes of real models: var_mean / std_mean (weight standardization), nansum,
    layer_norm and rms_norm over `x.shape[-1:]` (a SymInt normalized_shape), broadcast_to,
    diagonal above and below the main one, tensor_split into sections and at indices, topk of
    k = half a size."""

    def forward(self, x):
        var, mean = torch.var_mean(x, dim=1, keepdim=True)
        std, mean0 = torch.std_mean(x, dim=0, correction=0)
        holes = torch.nansum(x.masked_fill(x > 1, float("nan")), 1)
        norms = (F.layer_norm(x, x.shape[-1:]), F.rms_norm(x, x.shape[-1:], eps=1e-6))
        wide = torch.broadcast_to(x[:, :1], x.shape)
        square = x[:, None] * x[:, :, None]
        diagonals = (torch.diagonal(x, 1), torch.diagonal(x, -1), square.diagonal(0, -2, -1))
        top = x.topk(x.shape[1] // 2, dim=1)
        return (var, mean, std, mean0, holes) + norms + (wide,) + diagonals + torch.tensor_split(x, 3, dim=0) + \
            torch.tensor_split(x, [1, 3], dim=1) + tuple(top)


class Branches(torch.nn.Module):
    """torch.cond on data: two outputs whose true branch uses a parameter and a linear layer
    (lifted to operands), then a cond on the second output, with lambdas."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.scale = torch.nn.Parameter(torch.tensor(3.0))

    def forward(self, x, y):
        def yes(x, y):
            return self.lin(x).relu(), (y * self.scale).sum(0)

        def no(x, y):
            return x - 1, y.mean(0)

        a, b = torch.cond(x.mean() > 0, yes, no, (x, y))
        c = torch.cond(b.sum() > 0, lambda t: t.cumsum(0), lambda t: t.flip(0), (b,))
        return a, b, c


class Windows(torch.nn.Module):
    """Swin-style windows over a padded sequence, and MoE load counts: F.pad to a multiple of
    the window by `(4 - h % 4) % 4` (sizes torch writes with Mod), a view into windows by the
    padded size // 4, torch.roll, the crop back by `[:, :h]` (a slice to a SymInt end), and
    bincount of the routed experts with and without weights."""

    def __init__(self) -> None:
        super().__init__()
        self.mix = torch.nn.Linear(4, 4)

    def forward(self, x, experts):
        b, h, c = x.shape
        pad = (4 - h % 4) % 4
        padded = torch.roll(F.pad(x, (0, 0, 0, pad)), shifts=-1, dims=1)
        windows = padded.view(b, (h + pad) // 4, 4, c)
        mixed = self.mix(windows).view(b, h + pad, c)
        back = torch.roll(mixed, shifts=1, dims=1)[:, :h]
        load = torch.bincount(experts, minlength=4)
        weighted = torch.bincount(experts, weights=experts.to(x.dtype) * 0.5)
        return x + back, windows.mean(2), load, weighted


class Guarded(torch.nn.Module):
    """Sizes that only torch's inequality guards relate: a speculative-decoding verify slices
    the target's predictions to the draft's length (`pred[:, :k]`, guard `k <= k1`), and a
    UNet-style center crop cuts the larger map to the smaller's size (`big[:, top:top + h]`,
    guards `(H - h) // 2 >= 0` and `h + (H - h) // 2 <= H`)."""

    def forward(self, logits, draft, big, small):
        k = draft.shape[1]
        pred = logits.argmax(-1)
        accepted = (pred[:, :k] == draft).long().cumprod(1).sum(1)
        top = (big.shape[1] - small.shape[1]) // 2
        crop = big[:, top:top + small.shape[1]]
        return accepted, torch.cat([crop, small], -1)
