#!/bin/sh
# wasm: resnet18 (bench/models.py: PyTorch at opset 13, weights=None,
# fixed seeds) through nnc compile --emit wasm, run in node by the
# module nnl-emit-js --wasm writes, against the native build of the
# same model (nnc compile --emit lib, bench/nnl-timer.c): the largest
# absolute difference of their outputs (and of each from PyTorch's),
# and with RUNS > 0 the mean and the best time of RUNS runs of each
# after a warm-up and their ratios (the best is the steadier on a
# loaded machine); also against a native build for the x86-64 baseline
# (--target generic: SSE2, four lanes like SIMD128).  Fails when WebAssembly and native differ by more
# than 1e-4 + 1e-4 |native|.
# Usage: bench/wasm.sh [RUNS]  (from the top directory, after make;
# RUNS 0 only checks: make check-wasm-resnet18)
set -eu
runs=${1:-0}
top=$(pwd)
d=$top/build/bench-wasm
mkdir -p "$d"
cd "$d"
if [ ! -s resnet18.onnx ] || [ ! -s resnet18.in.bin ]; then
	echo "exporting resnet18 (bench/models.py)" >&2
	/usr/bin/python3 "$top/bench/models.py" "$d" resnet18 > /dev/null
fi
echo "building the native and WebAssembly modules" >&2
"$top/bin/nnc" compile --emit lib -o libresnet18.a resnet18.onnx
# the API's prefix, as the header names it
pfx=$(sed -n 's/^int \([A-Za-z0-9_]*\)_infer(const void.*/\1/p' resnet18.h)
cc -O2 -DPFX="$pfx" -o timer "$top/bench/nnl-timer.c" libresnet18.a -lm
"$top/bin/nnc" compile --emit lib --target generic -o generic/libresnet18.a \
    resnet18.onnx
cc -O2 -DPFX="$pfx" -o timer-generic "$top/bench/nnl-timer.c" \
    generic/libresnet18.a -lm
"$top/bin/nnc" compile --emit wasm -o web/resnet18.wasm resnet18.onnx
"$top/bin/nnl-onnx-import" -w web/resnet18.weights \
    -m web/resnet18.manifest.json resnet18.onnx |
    "$top/bin/nnl-emit-js" --wasm resnet18.wasm -o web/resnet18.js
/usr/bin/python3 -c 'import numpy as np
np.save("in.npy", np.fromfile("resnet18.in.bin", "<f4").reshape(1, 3, 224, 224))'
echo "running" >&2
if [ "$runs" -gt 0 ]; then
	mean='{ s = 0; b = $1; for (i = 1; i <= NF; i++) { s += $i; if ($i < b) b = $i }
	    printf "%.3f %.3f", s / NF, b }'
	native=$(printf 'run 1\nrun %s\n' "$runs" |
	    ./timer resnet18.in.bin native.bin | tail -n 1 | awk "$mean")
	generic=$(printf 'run 1\nrun %s\n' "$runs" |
	    ./timer-generic resnet18.in.bin generic.bin | tail -n 1 |
	    awk "$mean")
else
	./timer resnet18.in.bin native.bin < /dev/null > /dev/null
	native= generic=
fi
node "$top/tests/js/wasm-run.mjs" web/resnet18.js wasm "$runs" in.npy > wasm.log
cat wasm.log >&2
wasm=$(sed -n 's/^time: \([0-9.]*\) ms per run, best \([0-9.]*\) ms/\1 \2/p' \
    wasm.log)
/usr/bin/python3 - "$native" "$wasm" "$runs" "$generic" <<'PY'
import sys
import numpy as np
w = np.fromfile("wasm.bin", "<f4").astype(np.float64)
n = np.fromfile("native.bin", "<f4").astype(np.float64)
r = np.fromfile("resnet18.ref.bin", "<f4").astype(np.float64)
assert w.size == n.size == r.size == 1000, (w.size, n.size, r.size)
d = np.abs(w - n)
print("resnet18 (1x3x224x224 -> 1000), WebAssembly in node vs native:")
print("  max abs diff WebAssembly-native %.3g (outputs up to %.3g); "
      "WebAssembly-PyTorch %.3g, native-PyTorch %.3g"
      % (d.max(), np.abs(n).max(), np.abs(w - r).max(), np.abs(n - r).max()))
if sys.argv[1] and sys.argv[2]:
    (nt, nb), (wt, wb) = map(float, sys.argv[1].split()), \
        map(float, sys.argv[2].split())
    gt, gb = map(float, sys.argv[4].split())
    print("  %s runs, mean (best): native (-march=native) %.2f (%.2f) ms, "
          "WebAssembly %.2f (%.2f) ms: WebAssembly/native %.2fx (%.2fx)"
          % (sys.argv[3], nt, nb, wt, wb, wt / nt, wb / nb))
    print("  native for the x86-64 baseline (--target generic) %.2f (%.2f) "
          "ms: WebAssembly/baseline %.2fx (%.2fx)"
          % (gt, gb, wt / gt, wb / gb))
if not np.all(d <= 1e-4 + 1e-4 * np.abs(n)):
    sys.exit("FAIL: WebAssembly and native differ beyond 1e-4 + 1e-4|native|")
print("  PASS: within 1e-4 + 1e-4|native|")
PY
