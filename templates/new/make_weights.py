#!/usr/bin/python3
"""make_weights: the weights of `nnc new`'s sample model (common/model.nnl),
from NumPy's PCG64 generator, seed 8; committed as common/weights/*.npy.

Usage: make_weights.py DIR   writes DIR/hidden.weight.npy [4, 8],
DIR/hidden.bias.npy [8], DIR/output.weight.npy [8, 3], DIR/output.bias.npy [3].
"""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(8)
for name, shape in (("hidden.weight", (4, 8)), ("hidden.bias", (8,)),
                    ("output.weight", (8, 3)), ("output.bias", (3,))):
    np.save(os.path.join(out, name + ".npy"),
            (rng.standard_normal(shape) * 0.5).astype(np.float32))
