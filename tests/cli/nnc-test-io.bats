#!/usr/bin/env bats
# nnc test with several inputs and outputs of any type: a token-id
# embedding and attention block exported by PyTorch at opset 17 (two
# int64 inputs, ids and an attention mask; float32 and int64 outputs),
# an ONNX bool/float16 model, and the same attention model with
# symbolic dimensions pinned by --dim and --dims.  Every expected array
# is PyTorch's or NumPy's (tests/onnx/make_nnc_test.py), never nnl's.

bats_require_minimum_version 1.5.0

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/make_nnc_test.py" "$FX" \
	    >/dev/null 2>&1
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
}

# The report of a passing run of attn.onnx's three outputs.
passes_all() {
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'PASS: "hidden": 192/192 elements within tolerance 1.0e-5'* ]]
	[[ "$output" == *'PASS: "pooled": 32/32 elements within tolerance 1.0e-5'* ]]
	[[ "$output" == *'PASS: "tokens": 12/12 elements within tolerance 1.0e-5 (max diff: 0.00e0)'* ]]
	[[ "$output" == *'PASS: 3/3 outputs within tolerance' ]]
}

@test "an int64 embedding and attention model passes nnc test with its two inputs" {
	run "$BIN/nnc" test --input ids="$FX/ids.npy" --input mask="$FX/mask.npy" \
	    --expected hidden="$FX/hidden.npy" --expected pooled="$FX/pooled.npy" \
	    --expected tokens="$FX/tokens.npy" "$FX/attn.onnx"
	passes_all
}

@test "inputs and outputs as .npz archives, members by name" {
	run "$BIN/nnc" test --input "$FX/in.npz" --expected "$FX/want.npz" \
	    "$FX/attn.onnx"
	passes_all
}

@test "every output is compared: a mask of ones, or a wrong token, fails" {
	# PyTorch's outputs differ without the mask (make_nnc_test.py
	# asserts it): the program's must too
	run "$BIN/nnc" test --input ids="$FX/ids.npy" --input mask="$FX/ones.npy" \
	    --expected "$FX/want.npz" "$FX/attn.onnx"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'FAIL: "hidden": '*'/192 elements exceed tolerance'* ]]
	[[ "$output" == *'FAIL: 2/3 outputs differ' ]]
	# integers compare exactly: one token off by one is a mismatch
	/usr/bin/python3 -c 'import numpy as np, sys
t = np.load(sys.argv[1]); t[1, 2] += 1; np.save("tok.npy", t)' "$FX/tokens.npy"
	run "$BIN/nnc" test --input "$FX/in.npz" --expected hidden="$FX/hidden.npy" \
	    --expected pooled="$FX/pooled.npy" --expected tokens=tok.npy \
	    "$FX/attn.onnx"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'"tokens": mismatch at [1, 2]: got '*', expected '* ]]
	[[ "$output" == *'FAIL: "tokens": 1/12 elements exceed tolerance'* ]]
	[[ "$output" == *'PASS: "hidden": 192/192'* ]]
}

@test "ONNX bool inputs and outputs take NumPy's bool arrays; float16 compares" {
	run "$BIN/nnc" test --input a="$FX/a.npy" --input b="$FX/b.npy" \
	    --expected where="$FX/where.npy" --expected not="$FX/not.npy" \
	    --expected half="$FX/half.npy" "$FX/logic.onnx"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'PASS: "where": 6/6 elements'* ]]
	[[ "$output" == *'PASS: "not": 6/6 elements'* ]]
	[[ "$output" == *'PASS: "half": 6/6 elements'* ]]
	# a float16 value off by one step of float16 is caught
	/usr/bin/python3 -c 'import numpy as np, sys
h = np.load(sys.argv[1]); h[0, 0] = np.nextafter(h[0, 0], np.float16(9))
np.save("half.npy", h)' "$FX/half.npy"
	run "$BIN/nnc" test --input a="$FX/a.npy" --input b="$FX/b.npy" \
	    --expected where="$FX/where.npy" --expected not="$FX/not.npy" \
	    --expected half=half.npy "$FX/logic.onnx"
	[ "$status" -eq 1 ]
	[[ "$output" == *'FAIL: "half": 1/6 elements exceed tolerance'* ]]
}

@test "an unknown input name, a wrong dtype or shape, a missing input: errors naming them" {
	run --separate-stderr "$BIN/nnc" test --input idz="$FX/ids.npy" \
	    --input mask="$FX/mask.npy" --expected "$FX/want.npz" "$FX/attn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nnc: error: $FX/ids.npy: \"idz\" is not an input of the model (its inputs: \"ids\", \"mask\")"* ]]
	run --separate-stderr "$BIN/nnc" test --input ids="$FX/ids.npy" \
	    --input mask="$FX/b.npy" --expected "$FX/want.npz" "$FX/attn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nnc: error: $FX/b.npy: input \"mask\" is int64[2, 6], the array float32[2, 3]"* ]]
	/usr/bin/python3 -c 'import numpy as np, sys
np.save("m32.npy", np.load(sys.argv[1]).astype(np.int32))
np.save("m5.npy", np.load(sys.argv[1])[:, :5])' "$FX/mask.npy"
	run --separate-stderr "$BIN/nnc" test --input ids="$FX/ids.npy" \
	    --input mask=m32.npy --expected "$FX/want.npz" "$FX/attn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nnc: error: m32.npy: input "mask" is int64[2, 6], the array int32[2, 6]'* ]]
	run --separate-stderr "$BIN/nnc" test --input ids="$FX/ids.npy" \
	    --input mask=m5.npy --expected "$FX/want.npz" "$FX/attn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nnc: error: m5.npy: input "mask" is int64[2, 6], the array int64[2, 5]'* ]]
	run --separate-stderr "$BIN/nnc" test --input ids="$FX/ids.npy" \
	    --expected "$FX/want.npz" "$FX/attn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nnc: error: input "mask" (int64[2, 6]) is not given: --input mask=FILE.npy, or a member of an .npz'* ]]
	# an expected output missing, or of the wrong shape
	run --separate-stderr "$BIN/nnc" test --input "$FX/in.npz" \
	    --expected hidden="$FX/hidden.npy" --expected pooled="$FX/hidden.npy" \
	    "$FX/attn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$FX/hidden.npy: output \"pooled\" is float32[2, 16], the array float32[2, 6, 16]"* ]]
	[[ "$stderr" == *'output "tokens" (int64[2, 6]) is not given'* ]]
	# nothing was compiled or run: no report on stdout
	[ -z "$output" ]
}

@test "one .npy for a model of two inputs, or an input given twice, is an error" {
	run --separate-stderr "$BIN/nnc" test --input "$FX/ids.npy" \
	    --expected "$FX/want.npz" "$FX/attn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$FX/ids.npy: the model has 2 inputs (\"ids\", \"mask\"): name each, as --input NAME=FILE.npy, or give an .npz of them"* ]]
	run --separate-stderr "$BIN/nnc" test --input "$FX/in.npz" \
	    --input mask="$FX/mask.npy" --expected "$FX/want.npz" "$FX/attn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"input \"mask\" is given twice: $FX/in.npz and $FX/mask.npy"* ]]
	run --separate-stderr "$BIN/nnc" test --input mask= \
	    --expected "$FX/want.npz" "$FX/attn.onnx"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'--input wants NAME=FILE.npy, FILE.npz or FILE.npy, not "mask="'* ]]
	# --input is nnc test's
	run --separate-stderr "$BIN/nnc" compile --input "$FX/in.npz" \
	    "$FX/attn.onnx"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: nnc compile"* ]]
}

@test "--dim and --dims pin a symbolic model's dimensions for test, compile and inspect" {
	run --separate-stderr "$BIN/nnc" test --input "$FX/in.npz" \
	    --expected "$FX/want.npz" "$FX/attn-dyn.onnx"
	[ "$status" -eq 1 ]
	# the importer's advice is an option nnc takes
	[[ "$stderr" == *'4 dimensions are not known; pin them with --dim NAME=N:'* ]]
	[[ "$stderr" == *'input "ids" dimension 0 ("batch")'* ]]
	run "$BIN/nnc" test --dim batch=2 --dim seq=6 --input "$FX/in.npz" \
	    --expected "$FX/want.npz" "$FX/attn-dyn.onnx"
	passes_all
	run "$BIN/nnc" test --dims "$FX/dims.json" --input "$FX/in.npz" \
	    --expected "$FX/want.npz" "$FX/attn-dyn.onnx"
	passes_all
	# --dim takes precedence over the file, as nnl-onnx-import's does
	run --separate-stderr "$BIN/nnc" test --dims "$FX/dims.json" --dim seq=5 \
	    --input "$FX/in.npz" --expected "$FX/want.npz" "$FX/attn-dyn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$FX/in.npz: input \"ids\" is int64[2, 5], the array int64[2, 6]"* ]]
	run "$BIN/nnc" inspect --dim batch=3 --dim seq=4 "$FX/attn-dyn.onnx"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nids             Input       [3, 4] '* ]]
	"$BIN/nnc" compile --dims "$FX/dims.json" --emit c --prefix attn \
	    -o attn.c "$FX/attn-dyn.onnx"
	grep -q 'ids int64\[2, 6\]' attn-dyn.h
}

@test "a bad --dim, a bad --dims file, or either for a model not ONNX" {
	run --separate-stderr "$BIN/nnc" compile --dim batch "$FX/attn-dyn.onnx"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'nnc: error: --dim wants NAME=N with N positive, not "batch"'* ]]
	for d in batch=0 batch=3x =3 batch= batch=-1 batch=4294967296; do
		run --separate-stderr "$BIN/nnc" compile --dim "$d" "$FX/attn-dyn.onnx"
		[ "$status" -eq 2 ] || { echo "--dim $d: $status"; false; }
		[[ "$stderr" == *"not \"$d\""* ]]
		# nnl-onnx-import reads its --dim alike
		run --separate-stderr "$BIN/nnl-onnx-import" --dim "$d" "$FX/attn-dyn.onnx"
		[ "$status" -eq 2 ] || { echo "nnl-onnx-import --dim $d: $status"; false; }
	done
	printf '{"freeDimensionOverrides": {"batch": 2, "seq": "six"}}\n' > bad.json
	run --separate-stderr "$BIN/nnc" test --dims bad.json --input "$FX/in.npz" \
	    --expected "$FX/want.npz" "$FX/attn-dyn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nnc: bad.json: error: entry "seq": expected a positive integer, found "six"'* ]]
	run --separate-stderr "$BIN/nnc" inspect --dims none.json "$FX/attn-dyn.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nnc: none.json: error: No such file or directory'* ]]
	cp "$BATS_TEST_DIRNAME/../../examples/model/model.nnl" .
	run --separate-stderr "$BIN/nnc" compile --dim batch=1 model.nnl
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'nnc: error: model.nnl: --dim, --dims and --bound size the values of an ONNX model (.onnx)'* ]]
	[ ! -e model ]
}
