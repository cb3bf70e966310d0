#!/usr/bin/python3
"""make_nnc_test: the models and arrays of tests/cli/nnc-test-io.bats.

Usage: make_nnc_test.py OUTDIR

A token-id embedding (a Gather) and one attention block whose scores
an attention mask hides, of random weights, exported by PyTorch at
opset 17 with two int64 inputs, ids and mask, and three outputs: the
hidden states (float32 [2, 6, 16]), their masked mean (float32
[2, 16]) and the nearest token of each position (ArgMax, int64
[2, 6]).  Writes OUTDIR/:
  attn.onnx       the model, every dimension fixed
  attn-dyn.onnx   the same with symbolic dimensions "batch" and "seq"
  ids.npy mask.npy in.npz                 the inputs, apart and together
  hidden.npy pooled.npy tokens.npy want.npz  PyTorch's outputs
  ones.npy        a mask of ones, on which PyTorch's hidden states
                  differ from hidden.npy (the mask counts)
  dims.json       {"freeDimensionOverrides": {"batch": 2, "seq": 6}}
  logic.onnx      a bool and a float32 input; a float32, a bool and a
                  float16 output (onnx.helper)
  a.npy b.npy where.npy not.npy half.npy  its arrays, NumPy's results
Every expected array is PyTorch's or NumPy's, never nnl's.
"""
import json
import math
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper

B, S, VOCAB, D, HEADS = 2, 6, 20, 16, 2


class Attn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, D)
        self.qkv = torch.nn.Linear(D, 3 * D)
        self.proj = torch.nn.Linear(D, D)
        self.norm = torch.nn.LayerNorm(D)

    def forward(self, ids, mask):
        b, s = ids.shape
        x = self.emb(ids)
        q, k, v = self.qkv(x).chunk(3, dim=-1)

        def heads(t):
            return t.reshape(b, s, HEADS, D // HEADS).transpose(1, 2)

        q, k, v = heads(q), heads(k), heads(v)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // HEADS)
        hide = (1 - mask[:, None, None, :]).to(torch.float32) * -1e4
        att = torch.softmax(scores + hide, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, D)
        hidden = self.norm(x + self.proj(y))
        m = mask.to(torch.float32)[:, :, None]
        pooled = (hidden * m).sum(1) / m.sum(1)
        tokens = (hidden @ self.emb.weight.t()).argmax(-1)
        return hidden, pooled, tokens


def attention(out):
    torch.manual_seed(5)
    model = Attn().eval()
    ids = torch.randint(0, VOCAB, (B, S))
    mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]])
    with torch.no_grad():
        hidden, pooled, tokens = model(ids, mask)
        ones = model(ids, torch.ones_like(mask))[0]
        logits = hidden @ model.emb.weight.t()
    # the nearest token is one a rounding error cannot change
    top = logits.topk(2, dim=-1).values
    assert (top[..., 0] - top[..., 1]).min() > 1e-3
    assert (ones - hidden).abs().max() > 1e-2
    names = dict(input_names=["ids", "mask"],
                 output_names=["hidden", "pooled", "tokens"])
    torch.onnx.export(model, (ids, mask), os.path.join(out, "attn.onnx"),
                      opset_version=17, **names)
    torch.onnx.export(model, (ids, mask),
                      os.path.join(out, "attn-dyn.onnx"), opset_version=17,
                      dynamic_axes={"ids": {0: "batch", 1: "seq"},
                                    "mask": {0: "batch", 1: "seq"}},
                      **names)
    arrays = {"ids": ids.numpy().astype(np.int64),
              "mask": mask.numpy().astype(np.int64)}
    for k, v in arrays.items():
        np.save(os.path.join(out, k + ".npy"), v)
    np.savez(os.path.join(out, "in.npz"), **arrays)
    np.save(os.path.join(out, "ones.npy"), np.ones((B, S), np.int64))
    want = {"hidden": hidden.numpy(), "pooled": pooled.numpy(),
            "tokens": tokens.numpy().astype(np.int64)}
    for k, v in want.items():
        np.save(os.path.join(out, k + ".npy"), v)
    np.savez(os.path.join(out, "want.npz"), **want)
    with open(os.path.join(out, "dims.json"), "w") as f:
        json.dump({"freeDimensionOverrides": {"batch": B, "seq": S}}, f)


def logic(out):
    a = helper.make_tensor_value_info("a", TensorProto.BOOL, [2, 3])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])
    outs = [helper.make_tensor_value_info("where", TensorProto.FLOAT,
                                          [2, 3]),
            helper.make_tensor_value_info("not", TensorProto.BOOL, [2, 3]),
            helper.make_tensor_value_info("half", TensorProto.FLOAT16,
                                          [2, 3])]
    nodes = [helper.make_node("Neg", ["b"], ["nb"]),
             helper.make_node("Where", ["a", "b", "nb"], ["where"]),
             helper.make_node("Not", ["a"], ["not"]),
             helper.make_node("Cast", ["b"], ["half"],
                              to=TensorProto.FLOAT16)]
    g = helper.make_graph(nodes, "logic", [a, b], outs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(m, os.path.join(out, "logic.onnx"))
    rng = np.random.default_rng(11)
    av = np.array([[True, False, True], [False, False, True]])
    bv = rng.standard_normal((2, 3)).astype(np.float32)
    np.save(os.path.join(out, "a.npy"), av)
    np.save(os.path.join(out, "b.npy"), bv)
    np.save(os.path.join(out, "where.npy"), np.where(av, bv, -bv))
    np.save(os.path.join(out, "not.npy"), ~av)
    np.save(os.path.join(out, "half.npy"), bv.astype(np.float16))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    attention(out)
    logic(out)


if __name__ == "__main__":
    main()
