#!/bin/sh
# Build the model into a shared library with nnc (NNC names it, default
# the nnc on the PATH); main.py loads it with ctypes.
set -eu
cd -- "$(dirname -- "$0")"
${NNC:-nnc} compile --emit shared -o build/libsample.so model.nnl
