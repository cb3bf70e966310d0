#!/usr/bin/env bats
# Nodes of many inputs: no stage (importer, shape rules, fuse, planner,
# kernel preparation, emit-c, emit-js, the runtime) holds a fixed
# number of them.  A Concat of 40 inputs and Sum, Max, Min and Mean of
# 17 to 20 through nnl-run, nnc compile and the JS path agree with
# NumPy; a DenseNet-like block (a Concat of 19) with PyTorch
# (tests/data/variadic/check.py).

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	cd "$BATS_TEST_TMPDIR"
}

@test "variadic: concat of 40, sum of 20 and others agree with NumPy on every path" {
	run /usr/bin/python3 "$ROOT/tests/data/variadic/check.py" "$BIN" . ops
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 runs agree" ]]
}

@test "variadic: a DenseNet-like block with a concat of 19 matches PyTorch" {
	run /usr/bin/python3 "$ROOT/tests/data/variadic/check.py" "$BIN" . dense
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"agrees with PyTorch" ]]
}
