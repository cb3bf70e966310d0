#!/usr/bin/env bats
# bench/flops.py: the effective (direct-convolution) and executed
# (Winograd where the C runs it) flops that bench/ort.py divides by
# the time, on a graph whose counts are worked out by hand below.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	T="$BATS_TEST_TMPDIR"
}

# a: 3x3 conv2d 24 -> 32 channels at 13 x 13, stride 1 (nnl-fuse's
#    Winograd: at least 24 channels each way and 12 x 12 outputs);
# b: 3x3 conv2d 32 -> 16 at stride 2 (7 x 7 outputs: direct);
# y: gemm [1, 784] x [784, 10].
@test "flops.py counts direct multiply-adds and what Winograd executes" {
	cat > "$T/g.json" <<'EOG'
{"format": "webnn-graph-json", "version": 1, "name": "f",
 "inputs": {"x": {"dataType": "float32", "shape": [1, 24, 13, 13]}},
 "consts": {"w1": {"dataType": "float32", "shape": [32, 24, 3, 3],
                   "init": {"kind": "scalar", "value": 0.01}},
            "w2": {"dataType": "float32", "shape": [16, 32, 3, 3],
                   "init": {"kind": "scalar", "value": 0.01}},
            "w3": {"dataType": "float32", "shape": [784, 10],
                   "init": {"kind": "scalar", "value": 0.01}}},
 "nodes": [{"id": "a", "op": "conv2d", "inputs": ["x", "w1"],
            "options": {"padding": [1, 1, 1, 1]}},
           {"id": "b", "op": "conv2d", "inputs": ["a", "w2"],
            "options": {"padding": [1, 1, 1, 1], "strides": [2, 2]}},
           {"id": "r", "op": "reshape", "inputs": ["b"],
            "options": {"newShape": [1, 784]}},
           {"id": "y", "op": "gemm", "inputs": ["r", "w3"]}],
 "outputs": {"y": "y"}}
EOG
	"$BIN/nnc" compile --emit c -o "$T/g.c" "$T/g.json"
	run --separate-stderr /usr/bin/python3 \
	    "$BATS_TEST_DIRNAME/../../bench/flops.py" "$T/g.c"
	[ "$status" -eq 0 ]
	# direct multiply-adds: a 32*13*13*24*9 = 1168128,
	# b 16*7*7*32*9 = 225792, y 784*10 = 7840; 2 flops each
	[ "${lines[0]}" = "effective 2803520" ]
	# a by F(2x2, 3x3): 7*7 = 49 tiles; products 2*16*49*24*32 =
	# 1204224, input transform 32*49*24 = 37632, output transform
	# 24*49*32 = 37632; b and y as above: 2*(225792 + 7840) = 467264
	[ "${lines[1]}" = "executed 1746752" ]
	[ "${lines[2]}" = "winograd 1 of 2 convolutions" ]
}
