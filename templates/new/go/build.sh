#!/bin/sh
# Build the model into a static library with nnc (NNC names it, default
# the nnc on the PATH), then the Go program, which links it with cgo.
set -eu
cd -- "$(dirname -- "$0")"
${NNC:-nnc} compile --emit lib -o build/libsample.a model.nnl
go build -o app .
