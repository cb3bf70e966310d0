#!/usr/bin/python3
"""make_npy_fixtures: small .npy/.npz files written by NumPy itself, for
the reader's tests.  Usage: make_npy_fixtures.py DIR

Every array is a deterministic function of its index, so a test can
state the expected values by hand (see tests/unit/test_npy.c).
"""
import io
import os
import sys
import zipfile

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, a, version=None):
    path = os.path.join(out, name)
    if version is None:
        np.save(path, a)
    else:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, a, version=version)


save("f32.npy", np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5)
save("f16.npy", np.array([1.0, -2.0, 0.5], dtype=np.float16))
save("i64.npy", np.array([-1, 2**40, 7], dtype=np.int64))
save("u8.npy", np.arange(256, dtype=np.uint8))
save("i8.npy", np.array([-128, 0, 127], dtype=np.int8))
save("i32.npy", np.array([[1, -2], [3, -4]], dtype=np.int32))
save("scalar.npy", np.array(3.25, dtype=np.float32))
save("fortran.npy", np.asfortranarray(
    np.arange(6, dtype=np.float32).reshape(2, 3)))
save("v2.npy", np.arange(4, dtype=np.float32), version=(2, 0))
save("f64.npy", np.arange(3, dtype=np.float64))
save("bool.npy", np.array([True, False]))
np.savez(os.path.join(out, "stored.npz"),
         **{"fc1.weight": np.ones((2, 3), dtype=np.float32),
            "fc1.bias": np.array([1, 2, 3], dtype=np.float32)})
np.savez_compressed(os.path.join(out, "deflated.npz"),
                    a=np.arange(1000, dtype=np.float32),
                    b=np.array([5], dtype=np.int32))
