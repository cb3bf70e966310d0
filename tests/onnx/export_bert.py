#!/usr/bin/python3
"""export_bert: a small BERT-style encoder of bench/models.py
(BertEncoder: 2 layers, hidden 32, 2 heads, sequence 8, vocabulary 50)
of random weights, exported by PyTorch at opset 17 with its two int64
inputs, token ids and an attention mask whose last 3 positions are 0.

Writes OUTDIR/bert.onnx, OUTDIR/in.bin (the ids then the mask, int64
little-endian, packed: the layout of nnc's NAME_infer), OUTDIR/ref.bin
(PyTorch's float32 output, [1, 8, 32]) and OUTDIR/nomask.bin (PyTorch's
output for the same ids and a mask of ones, to show that the mask
counts).

Usage: export_bert.py OUTDIR
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench"))
from models import BertEncoder  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(3)
    model = BertEncoder(vocab=50, seq=8, hidden=32, layers=2, heads=2,
                        ff=64).eval()
    ids = torch.randint(0, 50, (1, 8))
    mask = torch.tensor([[1, 1, 1, 1, 1, 0, 0, 0]])
    with torch.no_grad():
        y = model(ids, mask)
        y1 = model(ids, torch.ones_like(mask))
    torch.onnx.export(model, (ids, mask), os.path.join(out, "bert.onnx"),
                      opset_version=17,
                      input_names=["input_ids", "attention_mask"],
                      output_names=["output"])
    with open(os.path.join(out, "in.bin"), "wb") as f:
        f.write(ids.numpy().astype("<i8").tobytes())
        f.write(mask.numpy().astype("<i8").tobytes())
    y.numpy().astype("<f4").tofile(os.path.join(out, "ref.bin"))
    y1.numpy().astype("<f4").tofile(os.path.join(out, "nomask.bin"))


if __name__ == "__main__":
    main()
