#!/usr/bin/python3
"""Compare an output with the expected one, bit for bit.

Usage: check.py WANT.npy GOT.npy|GOT.bin   A .npy must match in data
type and shape too; a .bin (a compiled program's raw output) in bytes.
Prints the differing elements and exits 1 on a mismatch.
"""
import sys

import numpy as np


def main():
    want = np.load(sys.argv[1])
    path = sys.argv[2]
    if path.endswith(".npy"):
        got = np.load(path)
        if got.dtype != want.dtype or got.shape != want.shape:
            sys.exit("%s: %s%s, expected %s%s" % (
                path, got.dtype, list(got.shape), want.dtype,
                list(want.shape)))
    else:
        with open(path, "rb") as f:
            raw = f.read()
        if len(raw) != want.nbytes:
            sys.exit("%s: %d bytes, expected %d" % (path, len(raw),
                                                    want.nbytes))
        got = np.frombuffer(raw, dtype=want.dtype).reshape(want.shape)
    if got.tobytes() != want.tobytes():
        sys.exit("%s: got %s, expected %s" % (path, got.tolist(),
                                              want.tolist()))


if __name__ == "__main__":
    main()
