#!/usr/bin/env bats
# The C back end: every op of the table compiled to C and run, against
# NumPy/PyTorch (tests/ops); no heap in generated code.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	EX="$BATS_TEST_DIRNAME/../../examples"
	T="$BATS_TEST_TMPDIR"
}

@test "every op compiles to C and computes the reference values" {
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/../ops/run.py" --c
	echo "$output" | grep -v '^ok'
	[ "$status" -eq 0 ]
}

@test "generated objects call no allocator" {
	/usr/bin/python3 -c 'import numpy as np, sys
d = sys.argv[1]
r = np.random.default_rng(0)
np.save(d + "/W.npy", r.standard_normal((2048, 1000)).astype(np.float32))
np.save(d + "/b.npy", r.standard_normal(1000).astype(np.float32))' "$T"
	"$BIN/nnl-pack-weights" pack -o "$T/rh.weights" "$T/W.npy" "$T/b.npy"
	"$BIN/nnl-parse" -w "$T/rh.weights" -m "$T/rh.manifest.json" \
	    "$EX/resnet_head/resnet_head.webnn" | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-plan-memory" | "$BIN/nnl-emit-c" -o "$T/rh.c"
	cc -O2 -c -o "$T/rh.o" "$T/rh.c"
	run nm -u "$T/rh.o"
	echo "$output"
	[[ "$output" != *malloc* && "$output" != *calloc* && \
	   "$output" != *realloc* && "$output" != *free* ]]
}

@test "an int64 input after a float32 one is read aligned from the packed input" {
	# _infer's input packs x (20 bytes) then i: i sits at offset 20,
	# which UBSan's alignment check refuses for int64 loads
	cat > "$T/g.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [5]},
            "i": {"dataType": "int64", "shape": [3]}},
 "nodes": [{"id": "y", "op": "gather", "inputs": ["x", "i"]}],
 "outputs": {"y": "y"}}
JSON
	"$BIN/nnl-shape-infer" "$T/g.json" | "$BIN/nnl-plan-memory" |
	    "$BIN/nnl-emit-c" -m -o "$T/g.c"
	cc -O1 ${NNL_TEST_CFLAGS:-} \
	    -fsanitize=alignment -fno-sanitize-recover=all -o "$T/g" \
	    "$T/g.c" -lm
	/usr/bin/python3 -c 'import struct, sys
sys.stdout.buffer.write(struct.pack("<5f3q", 1, 2, 3, 4, 5, 0, 4, -1))' \
	    > "$T/in.bin"
	"$T/g" < "$T/in.bin" > "$T/out.bin"
	# x[0], x[4], x[-1]
	[ "$(od -An -f "$T/out.bin" | tr -s ' ')" = " 1 5 5" ]
}

@test "types edited after planning are refused, not trusted" {
	# found by scripts/fuzz.py: the resample2d and split kernels read
	# past shapes that no longer matched their options
	cat > "$T/r.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [4]}},
 "nodes": [{"id": "r", "op": "relu", "inputs": ["x"]}],
 "outputs": {"y": "r"}}
JSON
	"$BIN/nnl-shape-infer" "$T/r.json" | "$BIN/nnl-plan-memory" > "$T/p.json"
	"$BIN/nnl-emit-c" -o "$T/ok.c" "$T/p.json"
	sed 's/"shape": \[4\]}$/"shape": [16]}/' "$T/p.json" > "$T/e.json"
	run --separate-stderr "$BIN/nnl-emit-c" -o "$T/e.c" "$T/e.json"
	[ "$status" -eq 1 ] && [ ! -e "$T/e.c" ] && [ ! -e "$T/e.h" ]
	[[ "$stderr" == *'output "r": the graph says float32[4], the relu rule gives float32[16]'* ]]
}
