#!/usr/bin/env python3
"""Runs the sample model through the shared library nnc built
(build/libsample.so, see build.sh) with ctypes, and prints the class
probabilities."""
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Model:
    """The C API of a model nnc compiled: PREFIX_infer and its sizes."""

    def __init__(self, path, prefix):
        self.lib = ctypes.CDLL(path)
        self.infer_fn = getattr(self.lib, prefix + "_infer")
        self.infer_fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.infer_fn.restype = ctypes.c_int
        self.inputs = getattr(self.lib, prefix + "_input_size")()
        self.outputs = getattr(self.lib, prefix + "_output_size")()

    def infer(self, values):
        if len(values) != self.inputs:
            raise ValueError("the model wants %d inputs" % self.inputs)
        x = (ctypes.c_float * self.inputs)(*values)
        y = (ctypes.c_float * self.outputs)()
        if self.infer_fn(x, y) != 0:
            raise RuntimeError("infer failed")
        return list(y)


def main():
    model = Model(os.path.join(HERE, "build", "libsample.so"), "sample")
    out = model.infer([0.5, -1.0, 2.0, 0.25])
    print("output:" + "".join(" %.6f" % v for v in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
