#!/usr/bin/python3
"""models: the benchmark's models exported by PyTorch.

For each model it writes NAME.onnx, NAME.in.bin (its random inputs,
raw little-endian, packed one after another in the model's order, the
layout of nnc's NAME_infer), NAME.ref.bin (PyTorch's float32 output
for them) and an entry of models.json: the inputs (name, dtype,
shape), the output's shape and the multiply-add count of the
convolutions and matrix products (the FLOP count is twice that).
torchvision models are built with weights=None (no download), their
batch-norm statistics randomised so that the normalisation is not the
identity (and ViT's zero head and ConvNeXt's 1e-6 layer scale too, see
randomise), and put in eval mode.  The first four are exported at opset
13, the others at 17.  bert_encoder is built here: a BERT-style encoder
(token and position embeddings, 4 post-norm layers of 4-head
self-attention and a GELU feed-forward, hidden 256) of random weights
whose inputs are int64 token ids and an int64 attention mask (1 keeps
a position, 0 masks it as a key), sequence 128.

Usage: models.py OUTDIR [NAME...]   (by default every model; the
NAMEs' entries replace or join those models.json has, in MODELS' order)
"""
import inspect
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


class MnistCnn(nn.Module):
    """The small CNN of the NNL documentation's MNIST example."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(64 * 7 * 7, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc2(torch.relu(self.fc1(x)))


class BertLayer(nn.Module):
    """One post-norm encoder layer, BERT's: self-attention with an
    additive mask, then a GELU feed-forward, each residual and
    layer-normalised."""

    def __init__(self, hidden, heads, ff):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(hidden, hidden)
        self.k = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, hidden)
        self.o = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ff1 = nn.Linear(hidden, ff)
        self.ff2 = nn.Linear(ff, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

    def split(self, x):
        n, s, h = x.shape
        return x.reshape(n, s, self.heads, h // self.heads).transpose(1, 2)

    def forward(self, x, bias):
        n, s, h = x.shape
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), \
            self.split(self.v(x))
        a = torch.matmul(q, k.transpose(-1, -2)) * (h // self.heads) ** -0.5
        a = torch.softmax(a + bias, dim=-1)
        c = torch.matmul(a, v).transpose(1, 2).reshape(n, s, h)
        x = self.ln1(x + self.o(c))
        return self.ln2(x + self.ff2(nn.functional.gelu(self.ff1(x))))


class BertEncoder(nn.Module):
    """A BERT-style encoder: (token ids, attention mask) -> the last
    layer's hidden states."""

    def __init__(self, vocab=8192, seq=128, hidden=256, layers=4, heads=4,
                 ff=1024):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(seq, hidden)
        self.ln = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(hidden, heads, ff)
                                    for _ in range(layers))

    def forward(self, ids, mask):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.ln(self.tok(ids) + self.pos(pos))
        bias = (1.0 - mask[:, None, None, :].to(torch.float32)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x


def tv(name):
    return lambda: getattr(torchvision.models, name)(weights=None)


def image(shape):
    return [("input", "float32", shape)]


def tokens(seq, vocab):
    return [("input_ids", "int64", (1, seq), vocab),
            ("attention_mask", "int64", (1, seq), "mask")]


# name: (constructor, inputs (name, dtype, shape[, integer range]), opset)
MODELS = {
    "resnet18": (tv("resnet18"), image((1, 3, 224, 224)), 13),
    "mobilenet_v2": (tv("mobilenet_v2"), image((1, 3, 224, 224)), 13),
    "squeezenet1_1": (tv("squeezenet1_1"), image((1, 3, 224, 224)), 13),
    "mnist_cnn": (MnistCnn, image((1, 1, 28, 28)), 13),
    "efficientnet_b0": (tv("efficientnet_b0"), image((1, 3, 224, 224)), 17),
    "mobilenet_v3_large": (tv("mobilenet_v3_large"),
                           image((1, 3, 224, 224)), 17),
    "convnext_tiny": (tv("convnext_tiny"), image((1, 3, 224, 224)), 17),
    "vit_b_16": (tv("vit_b_16"), image((1, 3, 224, 224)), 17),
    "bert_encoder": (BertEncoder, tokens(128, 8192), 17),
    # not tuned for: channel shuffles, grouped convolutions, SE blocks
    "shufflenet_v2_x1_0": (tv("shufflenet_v2_x1_0"),
                           image((1, 3, 224, 224)), 17),
    "regnet_y_400mf": (tv("regnet_y_400mf"), image((1, 3, 224, 224)), 17),
}


def randomise(model, gen):
    """Batch-norm statistics and affine parameters at random, and the
    parameters torchvision sets to constants that would hide the
    computation before them: ViT's classifier head (zeros) and
    ConvNeXt's layer scale (1e-6)."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)
    for name, p in model.named_parameters():
        if name == "heads.head.weight":
            p.data.copy_(torch.randn(p.shape, generator=gen) * 0.02)
        elif name.endswith("layer_scale"):
            p.data.copy_(torch.rand(p.shape, generator=gen) * 0.5 + 0.25)


def macs(model, xs):
    """Multiply-adds of every Conv2d and Linear, and of the matrix
    products of attention, from hooks."""
    total = [0]

    def conv_hook(m, inp, out):
        k = m.kernel_size[0] * m.kernel_size[1]
        total[0] += out.numel() * (m.in_channels // m.groups) * k

    def lin_hook(m, inp, out):
        total[0] += out.numel() * m.in_features

    def mha_hook(m, inp, out):
        # torchvision's ViT: its packed in-projection and the
        # out-projection (not called as modules), QK^T and AV; called
        # with keywords, which hooks do not see: the output's shape
        n, s, e = out[0].shape
        total[0] += n * s * 4 * e * e + 2 * n * s * s * e

    def bert_hook(m, inp, out):
        # QK^T and AV of a BertLayer (its projections are nn.Linear)
        n, s, e = inp[0].shape
        total[0] += 2 * n * s * s * e

    hooks = []
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            hooks.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            hooks.append(m.register_forward_hook(lin_hook))
        elif isinstance(m, nn.MultiheadAttention):
            assert m.batch_first
            hooks.append(m.register_forward_hook(mha_hook))
        elif isinstance(m, BertLayer):
            hooks.append(m.register_forward_hook(bert_hook))
    with torch.no_grad():
        model(*xs)
    for h in hooks:
        h.remove()
    return total[0]


def make_input(spec, gen):
    """A random input: float32 normal, token ids uniform below the
    vocabulary, a mask of ones with the last quarter zero."""
    name, dtype, shape = spec[:3]
    if dtype == "float32":
        return torch.randn(shape, generator=gen)
    if spec[3] == "mask":
        m = torch.ones(shape, dtype=torch.int64)
        m[..., shape[-1] * 3 // 4:] = 0
        return m
    return torch.randint(0, spec[3], shape, generator=gen)


def export(outdir, name):
    make, specs, opset = MODELS[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = make()
    randomise(model, gen)
    model.eval()
    xs = tuple(make_input(s, gen) for s in specs)
    with torch.no_grad():
        y = model(*xs)
    path = os.path.join(outdir, name + ".onnx")
    # the TorchScript exporter, where a newer PyTorch defaults to
    # dynamo's; dynamo's where the TorchScript one is gone
    kw = {"dynamo": False} if "dynamo" in inspect.signature(
        torch.onnx.export).parameters else {}
    try:
        torch.onnx.export(model, xs, path, opset_version=opset,
                          input_names=[s[0] for s in specs],
                          output_names=["output"], **kw)
    except Exception as e:      # noqa: BLE001 (whatever the removal raises)
        if not kw:
            raise
        print("models.py: %s: the TorchScript exporter failed (%s); "
              "dynamo's" % (name, e), file=sys.stderr)
        torch.onnx.export(model, xs, path, opset_version=opset,
                          input_names=[s[0] for s in specs],
                          output_names=["output"], dynamo=True)
    with open(os.path.join(outdir, name + ".in.bin"), "wb") as f:
        for x in xs:
            f.write(x.numpy().astype(x.numpy().dtype.newbyteorder("<"))
                    .tobytes())
    y.numpy().astype("<f4").tofile(os.path.join(outdir, name + ".ref.bin"))
    return {"name": name,
            "inputs": [{"name": s[0], "dtype": s[1], "shape": list(s[2])}
                       for s in specs],
            "output": list(y.shape), "macs": macs(model, xs)}


def main():
    outdir = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    for n in names:
        if n not in MODELS:
            sys.exit("models.py: no model %s (%s)" % (n, ", ".join(MODELS)))
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    path = os.path.join(outdir, "models.json")
    try:
        with open(path) as f:
            info = {m["name"]: m for m in json.load(f)
                    if m.get("name") in MODELS}
    except (OSError, ValueError):
        info = {}
    for n in names:
        info[n] = export(outdir, n)
    with open(path, "w") as f:
        json.dump([info[n] for n in MODELS if n in info], f, indent=1)


if __name__ == "__main__":
    main()
