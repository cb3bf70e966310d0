#!/usr/bin/env bats
# matmul through the SGEMM driver: a transformer encoder exported by
# PyTorch (Linear layers over [B, S, E], whose bias adds nnl-fuse's
# bias rewrite merges into the matmul, and attention's batched
# products) gives PyTorch's result, with the adds unfused too, and at
# three threads the bits of one; transposes read in place by the matmul
# after them give NumPy's result; a matmul bias or transposed view that
# names no operand, one of another type, no permutation or one on
# another op is refused, naming the node.

bats_require_minimum_version 1.5.0

setup_file() {
	export MD="$BATS_FILE_TMPDIR/enc"
	mkdir -p "$MD"
	/usr/bin/python3 - "$MD" <<'PY' >/dev/null 2>&1
import sys, numpy as np, torch
d = sys.argv[1]
torch.manual_seed(0)
t = torch.nn.TransformerEncoderLayer(48, 3, 80, dropout=0.0,
                                     batch_first=True).eval()
x = torch.randn(2, 37, 48)
torch.onnx.export(t, x, d + "/enc.onnx", opset_version=13)
np.save(d + "/input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/expected.npy", t(x).numpy())
PY
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
}

@test "a Linear layer's bias add merges into its matmul" {
	[ -f "$MD/enc.onnx" ] || { echo "the PyTorch export failed"; false; }
	"$BIN/nnl-onnx-import" "$MD/enc.onnx" | "$BIN/nnl-reorder" |
	    "$BIN/nnl-shape-infer" | "$BIN/nnl-fuse" \
	    -w f.weights -m f.json > fused.json
	/usr/bin/python3 - fused.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
mm = [n for n in g["nodes"] if n["op"] == "matmul"]
b = [n for n in mm if "bias" in n]
# the two feed-forward layers (the attention's projections are gemm or
# matmul by export); every bias is float32 [N], N the output's columns
assert len(b) >= 2, [n["id"] for n in mm]
for n in b:
    c = g["consts"][n["bias"]]
    assert c["shape"] == [n["types"][0]["shape"][-1]], (n["id"], c)
PY
}

raw() {
	/usr/bin/python3 -c 'import sys, numpy as np
sys.stdout.buffer.write(np.load(sys.argv[1]).astype("<f4").tobytes())' "$1"
}

@test "merged matmul biases: PyTorch's result, unfused too, 3 threads" {
	[ -f "$MD/enc.onnx" ] || { echo "the PyTorch export failed"; false; }
	run "$BIN/nnc" test --tolerance 1e-4 --input "$MD/input.npy" \
	    --expected "$MD/expected.npy" "$MD/enc.onnx"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:\ 3552/3552\ elements* ]]
	# the bias starts the sums instead of ending them: not the same
	# bits as the add, the same values to rounding
	printf '%s\n' nnl-reorder nnl-shape-infer 'nnl-fuse -d bias' \
	    nnl-plan-memory > unfused.passes
	run "$BIN/nnc" test --tolerance 1e-4 --passes unfused.passes \
	    --input "$MD/input.npy" --expected "$MD/expected.npy" \
	    "$MD/enc.onnx"
	echo "$output"
	[ "$status" -eq 0 ]
	raw "$MD/input.npy" > in.bin
	"$BIN/nnc" compile -o fused "$MD/enc.onnx"
	"$BIN/nnc" compile --threads 3 -o three "$MD/enc.onnx"
	./fused < in.bin > fused.out
	./three < in.bin > three.out
	[ "$(wc -c < fused.out)" -eq 14208 ]
	cmp fused.out three.out
	NNL_RT_THREADS=2 ./three < in.bin > three-2.out
	cmp fused.out three-2.out
}

# a typed graph of one matmul [2, 3, 4] x [4, 2] and an add after it;
# $1: the matmul's extra fields, $2 the add's
graph() {
	cat > g.json <<EOF
{
  "format": "webnn-graph-json",
  "version": 1,
  "inputs": {
    "x": {"dataType": "float32", "shape": [2, 3, 4]},
    "r": {"dataType": "float32", "shape": [3]},
    "h": {"dataType": "float16", "shape": [2]},
    "k": {"dataType": "float32", "shape": [2]}
  },
  "consts": {
    "w": {"dataType": "float32", "shape": [4, 2], "init": {"kind": "inlineBytes", "bytes": [0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64]}}
  },
  "nodes": [
    {"id": "m", "op": "matmul", "inputs": ["x", "w"], "options": {}$1},
    {"id": "s", "op": "add", "inputs": ["m", "k"], "options": {}$2}
  ],
  "outputs": {"s": "s"}
}
EOF
}

refused() {
	run "$BIN/nnl-shape-infer" -o out.json g.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$1"* ]]
	[ ! -e out.json ]
}

@test "a matmul bias naming no operand, or not a name, is refused" {
	graph ', "bias": "nope"'
	refused 'g.json: error: node "m": field "bias": undefined operand "nope"'
	graph ', "bias": 3'
	refused 'node "m": field "bias": expected the name of an operand'
}

@test "a bias field on another op than matmul is refused" {
	graph '' ', "bias": "k"'
	refused 'node "s": field "bias": only a matmul has one'
}

@test "a matmul bias of another type than [N] float32 is refused" {
	graph ', "bias": "r"'
	refused 'node "m": field "bias": operand "r" is float32[3]; it must be float32[2], of a float32 product'
	graph ', "bias": "h"'
	refused 'node "m": field "bias": operand "h" is float16[2]; it must be float32[2]'
}

@test "nnl-emit-js refuses a merged matmul bias" {
	graph ', "bias": "k"'
	"$BIN/nnl-shape-infer" -o typed.json g.json
	run "$BIN/nnl-emit-js" -o m.js typed.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'node "m": field "bias" (from nnl-fuse, for the C back end) has no WebNN form'* ]]
	[ ! -e m.js ]
}

@test "transposes read in place by matmul: NumPy's result in C, 3 threads" {
	local g="$BATS_TEST_DIRNAME/../golden/fuse/fold-transpose-into-matmul.in.json"
	"$BIN/nnc" compile -o one "$g"
	"$BIN/nnc" compile --threads 3 -o three "$g"
	# the C reads the transposes' inputs: none is left
	"$BIN/nnc" compile --emit c -o m.c "$g"
	! grep -q 'nnl_k_transpose' m.c
	/usr/bin/python3 - "$g" <<'PY'
import json, subprocess, sys
import numpy as np
g = json.load(open(sys.argv[1]))
rng = np.random.default_rng(5)
x = {n: rng.standard_normal(d["shape"]).astype(np.float32)
     for n, d in g["inputs"].items()}
raw = b"".join(x[n].astype("<f4").tobytes() for n in g["inputs"])
q, k, v = (x[n].transpose(1, 0, 2) for n in "qkv")
want = [(q @ k.transpose(0, 2, 1)) @ v,
        x["z"].transpose(0, 2, 1) @ x["w"],
        x["x"].transpose(1, 0, 2) @ x["w"]]
outs = []
for prog in ("./one", "./three"):
    outs.append(subprocess.run([prog], input=raw, capture_output=True,
                               check=True).stdout)
assert outs[0] == outs[1], "3 threads differ from one"
y = np.frombuffer(outs[0], "<f4")
ref = np.concatenate([w.ravel() for w in want])
assert y.shape == ref.shape, (y.shape, ref.shape)
np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
PY
}

@test "a transposeA or transposeB that is no permutation is refused" {
	graph ', "transposeA": [0, 0, 2]'
	refused 'node "m": field "transposeA": expected a permutation of the 3 axes of [2, 3, 4]'
	graph ', "transposeB": [1, 0, 2]'
	refused 'node "m": field "transposeB": expected a permutation of the 2 axes of [4, 2]'
	graph ', "transposeA": [2, 0, 1]'
	refused 'node "m": field "transposeA": the last axis of [2, 3, 4] must stay one of the matrix axes'
	graph '' ', "transposeB": [1, 0]'
	refused 'node "s": field "transposeB": only a matmul has one'
}

@test "a transposed view's shape is checked as the matmul reads it" {
	# [2, 3, 4] read as [2, 4, 3]: 3 columns against b's 4 rows
	graph ', "transposeA": [0, 2, 1]'
	refused 'node "m": input "a" [2, 4, 3] has 3 columns, input "b" [4, 2] has 4 rows'
}
