#!/usr/bin/python3
"""make_weights: deterministic weights for the resnet_head example.

Usage: make_weights.py DIR   writes DIR/W.npy (float32 [2048, 1000]) and
DIR/b.npy (float32 [1000]) from numpy's PCG64 generator, seed 2048.
"""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(2048)
np.save(os.path.join(out, "W.npy"),
        (rng.standard_normal((2048, 1000)) * 0.02).astype(np.float32))
np.save(os.path.join(out, "b.npy"),
        (rng.standard_normal(1000) * 0.1).astype(np.float32))
