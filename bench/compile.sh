#!/bin/sh
# compile: time and peak memory of nnc compile on a graph with
# ResNet-18's parameter count (11,703,888 float32 weights: one gemm
# 2048 x 5712 plus its bias), the issue's bound being 10 s and 1 GB.
# Usage: bench/compile.sh  (from the top directory, after make)
set -eu
top=$(pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
/usr/bin/python3 -c '
import numpy as np
r = np.random.default_rng(0)
np.save("W.npy", (r.standard_normal((2048, 5712)) * 0.01).astype(np.float32))
np.save("b.npy", r.standard_normal(5712).astype(np.float32))'
"$top/bin/nnl-pack-weights" pack -o big.weights W.npy b.npy
cat > big.webnn <<'G'
webnn_graph "big" v1 {
  inputs { x: f32[1, 2048]; }
  consts { W: f32[2048, 5712] @weights("W"); b: f32[5712] @weights("b"); }
  nodes { y = gemm(x, W, c=b); }
  outputs { y; }
}
G
/usr/bin/time -f "compile: %e s, peak %M KB (11,703,888 parameters)" \
    "$top/bin/nnc" compile big.webnn
