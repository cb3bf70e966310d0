#!/usr/bin/env bats
# bench/trivial.py's model of several inputs of other types than
# float32 (bench/ort.py's fixed-cost model for the BERT-style encoder),
# compiled by nnc and run by bench/nnl-timer.c on packed int64 inputs:
# the inputs flattened, cast and concatenated, then sliced or each
# element repeated, as worked out by hand below.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	B="$BATS_TEST_DIRNAME/../../bench"
	cd "$BATS_TEST_TMPDIR"
	# ids [3, 1, 4, 1] then mask [1, 1, 0, 0], int64 little-endian
	/usr/bin/python3 -c 'import sys
for v in (3, 1, 4, 1, 1, 1, 0, 0):
    sys.stdout.buffer.write(v.to_bytes(8, "little"))' > in.bin
}

# trivial OSHAPE: builds t.onnx of the two [1, 4] int64 inputs and
# output OSHAPE, its timer, and runs it on in.bin into out.bin
trivial() {
	/usr/bin/python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import trivial
trivial.model("t.onnx", [("ids", "int64", [1, 4]),
                         ("mask", "int64", [1, 4])],
              [int(x) for x in sys.argv[2].split(",")])' "$B" "$1"
	"$BIN/nnc" compile --emit c --prefix t -o t.c t.onnx
	cc -std=c11 -O2 -DPFX=t -o timer "$B/nnl-timer.c" t.c -lm
	./timer in.bin out.bin < /dev/null > /dev/null
}

floats() {
	/usr/bin/python3 -c 'import sys, numpy as np
print(" ".join("%g" % v for v in np.fromfile(sys.argv[1], "<f4")))' "$1"
}

@test "trivial.py repeats each input element to fill a larger output" {
	# 16 output elements from 8: each twice
	trivial 1,4,4
	run floats out.bin
	[ "$output" = "3 3 1 1 4 4 1 1 1 1 1 1 0 0 0 0" ]
}

@test "trivial.py slices a smaller output from the inputs" {
	trivial 1,5
	run floats out.bin
	[ "$output" = "3 1 4 1 1" ]
}
