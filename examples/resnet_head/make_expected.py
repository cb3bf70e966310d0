#!/usr/bin/python3
"""make_expected: the resnet_head example's test input and the output
NumPy computes for it, softmax(x @ W + b), in float64.

Usage: make_expected.py WDIR OUTDIR   reads WDIR/W.npy and WDIR/b.npy
(make_weights.py's), writes OUTDIR/test_input.npy (float32 [1, 2048],
PCG64 seed 5) and OUTDIR/expected_output.npy (float32 [1, 1000]).
"""
import os
import sys

import numpy as np

wdir, out = sys.argv[1], sys.argv[2]
x = np.random.default_rng(5).standard_normal((1, 2048)).astype(np.float32)
W = np.load(os.path.join(wdir, "W.npy")).astype(np.float64)
b = np.load(os.path.join(wdir, "b.npy")).astype(np.float64)
logits = x.astype(np.float64) @ W + b
e = np.exp(logits - logits.max())
np.save(os.path.join(out, "test_input.npy"), x)
np.save(os.path.join(out, "expected_output.npy"),
        (e / e.sum()).astype(np.float32))
