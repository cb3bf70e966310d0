#!/bin/sh
# asan-build: every pass built with AddressSanitizer and
# UndefinedBehaviorSanitizer into DIR (default build/asan), for the
# fuzzers (scripts/fuzz-graph.py, scripts/fuzz-onnx.py).
# Usage: sh scripts/asan-build.sh [DIR]    (after make)
set -eu
cd "$(dirname "$0")/.."
out=${1:-build/asan}
mkdir -p "$out"
flags="-std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined"
libs="$(pkg-config --libs libcjson libzip) -lxxhash -lz -lm"
common=$(ls common/*.c | grep -v 'common/onnx_')
for p in parse shape-infer fuse plan-memory emit-js cpu-partition; do
	# shellcheck disable=SC2086
	cc $flags -DNNL_RT= -Icommon $(pkg-config --cflags libcjson libzip) \
	    passes/$p.c $common common/rt/*.c build/rtsrc.c build/xxh3js.c \
	    -o "$out/nnl-$p" $libs
done
# shellcheck disable=SC2086
cc $flags -DNNL_RT= -Icommon -Ibuild/onnx $(pkg-config --cflags libcjson libzip) \
    passes/onnx-import.c common/*.c common/rt/*.c build/rtsrc.c build/xxh3js.c \
    build/onnx/onnx.pb-c.c -o "$out/nnl-onnx-import" $libs -lprotobuf-c
echo "asan-build: $out"
