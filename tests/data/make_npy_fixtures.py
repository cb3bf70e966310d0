#!/usr/bin/python3
"""make_npy_fixtures: small .npy/.npz files written by NumPy itself, for
the reader's and writer's tests.  Usage: make_npy_fixtures.py DIR

Every array is a deterministic function of its index, so a test can
state the expected values by hand (see tests/unit/test_npy.c).  The
files nnl refuses to read (complex64, bool, big-endian, object,
structured) are here so the tests see the headers NumPy really writes.
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


def npy_bytes(a):
    b = io.BytesIO()
    np.lib.format.write_array(b, a)
    return b.getvalue()


save("f32.npy", np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5)
save("f16.npy", np.array([1.0, -2.0, 0.5], dtype=np.float16))
save("i64.npy", np.array([-1, 2**40, 7], dtype=np.int64))
save("u8.npy", np.arange(256, dtype=np.uint8))
save("i8.npy", np.array([-128, 0, 127], dtype=np.int8))
save("i32.npy", np.array([[1, -2], [3, -4]], dtype=np.int32))
save("u32.npy", np.array([0, 1, 2**32 - 1], dtype=np.uint32))
save("u64.npy", np.array([2**64 - 1, 5], dtype=np.uint64))
save("scalar.npy", np.array(3.25, dtype=np.float32))
save("empty.npy", np.zeros((0, 3), dtype=np.float32))
save("fortran.npy", np.asfortranarray(
    np.arange(6, dtype=np.float32).reshape(2, 3)))
save("fortran3.npy", np.asfortranarray(
    np.arange(24, dtype=np.int32).reshape(2, 3, 4)))
save("v2.npy", np.arange(4, dtype=np.float32), version=(2, 0))
save("v3.npy", np.arange(3, dtype=np.int8), version=(3, 0))
# The one shape family whose header needs all 64 padding spaces (NumPy
# never pads with none); zero elements keep the file small.
save("pad64.npy", np.zeros((0, 1, 1, 1, 1, 1, 1, 1, 10, 100000, 100000),
                           dtype=np.float32))
save("f64.npy", np.arange(3, dtype=np.float64))
save("c64.npy", np.arange(3, dtype=np.complex64))
save("bool.npy", np.array([True, False]))
save("bigendian.npy", np.arange(3, dtype=">f4"))
save("object.npy", np.array([1, "a"], dtype=object))
save("structured.npy", np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]))
np.savez(os.path.join(out, "stored.npz"),
         **{"fc1.weight": np.ones((2, 3), dtype=np.float32),
            "fc1.bias": np.array([1, 2, 3], dtype=np.float32)})
np.savez_compressed(os.path.join(out, "deflated.npz"),
                    a=np.arange(1000, dtype=np.float32),
                    b=np.array([5], dtype=np.int32))
# One archive with both kinds of member, zip64 headers as NumPy writes
# them, and a fixed time stamp so the file is the same on every run.
with zipfile.ZipFile(os.path.join(out, "mixed.npz"), "w") as z:
    for name, a, method in (
            ("mixed.w", np.arange(64, dtype=np.float32).reshape(8, 8),
             zipfile.ZIP_DEFLATED),
            ("mixed.b", np.arange(8, dtype=np.int64) - 4, zipfile.ZIP_STORED)):
        info = zipfile.ZipInfo(name + ".npy", (2020, 1, 1, 0, 0, 0))
        info.compress_type = method
        with z.open(info, "w", force_zip64=True) as f:
            f.write(npy_bytes(a))
# An archive that is a sound zip but whose member is no .npy inside.
with zipfile.ZipFile(os.path.join(out, "badmember.npz"), "w") as z:
    z.writestr(zipfile.ZipInfo("x.npy", (2020, 1, 1, 0, 0, 0)),
               b"not numpy")
