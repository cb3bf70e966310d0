#!/usr/bin/env bats
# ONNX's DFT, STFT and MelWeightMatrix through nnl's dft (and gather,
# mul, a constant): the attributes and forms the node tests leave out,
# built by tests/onnx/signal_models.py with their NumPy references (the
# backend data's output for MelWeightMatrix), run by nnl-run and by the
# compiled program; and what stays refused.  Then the float64 matmul
# (rt/nn/linalg.c) reading the transposes nnl-fuse folds into it.

bats_require_minimum_version 1.5.0

setup_file() {
	export D="$BATS_FILE_TMPDIR/signal"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/signal_models.py" "$D"
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
}

# Import model $1, run it on its input (if any) through nnl-run and
# through nnc's program, compare both with the reference.
agrees() {
	local args=()
	[ -f "$D/$1-x.npy" ] && args=(x="$D/$1-x.npy")
	"$BIN/nnl-onnx-import" -o g.json "$D/$1.onnx"
	"$BIN/nnl-run" -d out g.json "${args[@]}" >/dev/null
	"$BIN/nnc" compile --emit exe -o prog g.json
	if [ -f "$D/$1-x.npy" ]; then
		/usr/bin/python3 -c 'import numpy as np, sys
sys.stdout.buffer.write(np.load(sys.argv[1]).tobytes())' "$D/$1-x.npy" > in.raw
	else
		: > in.raw
	fi
	./prog < in.raw > got.raw
	run /usr/bin/python3 -c 'import numpy as np, sys
want = np.load(sys.argv[1])
got = np.load("out/y.npy")
raw = np.frombuffer(open("got.raw", "rb").read(), got.dtype)
assert got.shape == want.shape, (got.shape, want.shape)
tol = 1e-12 if got.dtype == np.float64 else 1e-5
assert np.allclose(got, want, rtol=tol, atol=tol), (got, want)
assert np.array_equal(raw, got.reshape(-1)), "the program differs"' \
	    "$D/$1-want.npy"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "DFT onesided=1 of a real signal is NumPy's rfft" {
	agrees dft-onesided
}

@test "DFT-20: axis and dft_length as inputs, inverse, zero-padded" {
	agrees dft-20
}

@test "STFT onesided=0 under a window: NumPy's fft of each frame" {
	agrees stft-twosided
}

@test "MelWeightMatrix of constant inputs, as float64, is the backend's" {
	agrees mel-double
	grep -q '"dataType": "float64", "shape": \[9, 8\]' g.json
}

@test "MelWeightMatrix of graph inputs is the backend's, within its bound" {
	local ins=()
	for n in num_mel_bins dft_length sample_rate lower_edge_hertz \
	    upper_edge_hertz; do
		ins+=("$n=$D/mel-runtime-$n.npy")
	done
	# [9, 8]: 72 items fill a bound of 72
	"$BIN/nnl-onnx-import" --bound 72 -o g.json "$D/mel-runtime.onnx"
	grep -q '"op": "melWeightMatrix"' g.json
	"$BIN/nnl-run" -d out g.json "${ins[@]}"
	run /usr/bin/python3 -c 'import numpy as np, sys
got, want = np.load("out/y.npy"), np.load(sys.argv[1])
print(got.shape, got.dtype)
sys.exit(0 if got.shape == (9, 8) and got.dtype == np.float64 and
         np.allclose(got, want, rtol=1e-12, atol=1e-12) else 1)' \
	    "$D/mel-runtime-want.npy"
	echo "$output"
	[ "$status" -eq 0 ]
	# past a bound of 71, an error naming the node
	"$BIN/nnl-onnx-import" --bound 71 -o g.json "$D/mel-runtime.onnx"
	run --separate-stderr "$BIN/nnl-run" -d out2 g.json "${ins[@]}"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'(melWeightMatrix): its size, known only at run time, is past its bound of 71 elements or invalid'* ]]
}

@test "DFT onesided of a complex signal is refused" {
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json \
	    "$D/dft-complex-one.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'(DFT) [unsupported-attribute]: onesided of a complex signal'* ]]
}

@test "a float64 matmul reads the transposes nnl-fuse folds into it" {
	cat > g.json <<'EOF'
{"format": "webnn-graph-json", "version": 1, "name": "tt",
 "inputs": {"a": {"dataType": "float64", "shape": [2, 4, 3]},
            "b": {"dataType": "float64", "shape": [2, 5, 4]}},
 "consts": {},
 "nodes": [
  {"id": "at", "op": "transpose", "inputs": ["a"],
   "options": {"permutation": [0, 2, 1]}},
  {"id": "bt", "op": "transpose", "inputs": ["b"],
   "options": {"permutation": [0, 2, 1]}},
  {"id": "y", "op": "matmul", "inputs": ["at", "bt"], "options": {}}],
 "outputs": {"y": "y"}}
EOF
	/usr/bin/python3 -c 'import numpy as np
r = np.random.default_rng(7)
a, b = r.standard_normal((2, 4, 3)), r.standard_normal((2, 5, 4))
np.save("a.npy", a)
np.save("b.npy", b)
np.save("want.npy", np.swapaxes(a, 1, 2) @ np.swapaxes(b, 1, 2))'
	"$BIN/nnl-shape-infer" g.json | "$BIN/nnl-fuse" -o f.json
	grep -q '"transposeA": \[0, 2, 1\]' f.json
	grep -q '"transposeB": \[0, 2, 1\]' f.json
	"$BIN/nnl-run" -d out f.json a=a.npy b=b.npy >/dev/null
	run /usr/bin/python3 -c 'import numpy as np
got, want = np.load("out/y.npy"), np.load("want.npy")
assert got.dtype == np.float64 and got.shape == want.shape
assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (got, want)'
	echo "$output"
	[ "$status" -eq 0 ]
}
