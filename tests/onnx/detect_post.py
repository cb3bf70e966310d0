#!/usr/bin/python3
"""detect_post: a tiny detection post-processing model and what it must
compute, for tests/cli/detect.bats.

Usage: detect_post.py DIR

Writes DIR/post.onnx (scores -> TopK -> Gather of the boxes -> NonMax-
Suppression, the selection a graph output), DIR/boxes.npy and
DIR/scores.npy (random boxes, overlapping, and scores), DIR/raw.in (the
two inputs' bytes, for a program reading stdin), and the reference
outputs computed here with NumPy: DIR/want_values.npy,
DIR/want_indices.npy and DIR/want_selected.npy (the selection's rows,
as many as it holds).  Also DIR/reads.onnx, in which a Gather reads
the selection (to be refused: its size is known only at run time).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

N, K, MAX, IOU, SCORE = 24, 10, 8, 0.45, 0.2


def model(reads):
    f = TensorProto.FLOAT
    init = [helper.make_tensor("k", TensorProto.INT64, [1], [K]),
            helper.make_tensor("max", TensorProto.INT64, [1], [MAX]),
            helper.make_tensor("iou", f, [1], [IOU]),
            helper.make_tensor("thr", f, [1], [SCORE]),
            helper.make_tensor("shape", TensorProto.INT64, [3], [1, K, 4]),
            helper.make_tensor("ax", TensorProto.INT64, [1], [1])]
    nodes = [helper.make_node("TopK", ["scores", "k"], ["values", "indices"],
                              axis=1),
             helper.make_node("Gather", ["boxes", "indices"], ["g"], axis=1),
             helper.make_node("Reshape", ["g", "shape"], ["top"]),
             helper.make_node("Unsqueeze", ["values", "ax"], ["s3"]),
             helper.make_node("NonMaxSuppression",
                              ["top", "s3", "max", "iou", "thr"],
                              ["selected"])]
    outs = [helper.make_tensor_value_info("values", f, [1, K]),
            helper.make_tensor_value_info("indices", TensorProto.INT64,
                                          [1, K]),
            helper.make_tensor_value_info("selected", TensorProto.INT64,
                                          ["n", 3])]
    if reads:
        nodes.append(helper.make_node("Gather", ["values", "selected"],
                                      ["bad"], axis=1))
        outs = [helper.make_tensor_value_info("bad", f, [1, "n", 3])]
    g = helper.make_graph(
        nodes, "post",
        [helper.make_tensor_value_info("boxes", f, [1, N, 4]),
         helper.make_tensor_value_info("scores", f, [1, N])], outs, init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    return m


def iou(a, b):
    """Intersection over union of two [y1, x1, y2, x2] boxes."""
    a = np.r_[np.minimum(a[:2], a[2:]), np.maximum(a[:2], a[2:])]
    b = np.r_[np.minimum(b[:2], b[2:]), np.maximum(b[:2], b[2:])]
    hw = np.minimum(a[2:], b[2:]) - np.maximum(a[:2], b[:2])
    if (hw <= 0).any():
        return 0.0
    inter = hw.prod()
    return inter / ((a[2:] - a[:2]).prod() + (b[2:] - b[:2]).prod() - inter)


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(7)
    # boxes in clusters around 4 centres, so that some overlap a lot
    c = rng.uniform(0, 8, (3, 2))[rng.integers(0, 3, N)]
    y0x0 = c + rng.normal(0, 0.15, (N, 2))
    boxes = np.c_[y0x0, y0x0 + rng.uniform(0.8, 1.5, (N, 2))][None]
    scores = rng.uniform(0, 1, (1, N))
    boxes, scores = boxes.astype(np.float32), scores.astype(np.float32)
    onnx.save(model(False), os.path.join(d, "post.onnx"))
    onnx.save(model(True), os.path.join(d, "reads.onnx"))
    np.save(os.path.join(d, "boxes.npy"), boxes)
    np.save(os.path.join(d, "scores.npy"), scores)
    with open(os.path.join(d, "raw.in"), "wb") as f:
        f.write(boxes.tobytes() + scores.tobytes())
    # the reference: a stable sort for TopK, then greedy suppression
    order = np.argsort(-scores[0], kind="stable")[:K]
    values = scores[0, order]
    top = boxes[0, order].astype(np.float64)
    kept = []
    for j in range(K):
        if values[j] > SCORE and len(kept) < MAX and \
                all(iou(top[k], top[j]) <= IOU for k in kept):
            kept.append(j)
    # the data must exercise suppression and a count below the bound
    assert len(kept) < MAX and kept != list(range(len(kept))), kept
    sel = np.array([[0, 0, j] for j in kept], np.int64).reshape(-1, 3)
    np.save(os.path.join(d, "want_values.npy"), values[None])
    np.save(os.path.join(d, "want_indices.npy"), order[None].astype(np.int64))
    np.save(os.path.join(d, "want_selected.npy"), sel)
    print("%d of %d boxes kept" % (len(kept), K))


if __name__ == "__main__":
    main()
