#!/usr/bin/env bats
# The depthwise convolution kernels (common/rt/dwconv.c) built the ways
# generated code builds them: no -march (4-float vectors), -march=native
# (the host's widest), AVX2 (8 floats), no vector extensions at all
# (NNL_RT_NOVEC), clang, and aarch64 under qemu.  Each build runs
# tests/unit/test_dwconv.c, which checks them against a double-precision
# convolution.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	T="$BATS_TEST_TMPDIR"
	SRC="$ROOT/tests/unit/test_dwconv.c $ROOT/common/rt/dwconv.c"
	FLAGS="-std=c11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter
	    -DNNL_RT= -I$ROOT/common -I$ROOT/tests/unit"
}

ok() {
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 2 - depthwise_epilogue"* ]]
	[[ "$output" != *"not ok"* ]]
}

@test "depthwise: the portable build (no -march)" {
	cc $FLAGS -o "$T/d" $SRC -lm
	run "$T/d"
	ok
}

@test "depthwise: the -march=native build" {
	cc $FLAGS -march=native -o "$T/d" $SRC -lm
	run "$T/d"
	ok
}

@test "depthwise: the AVX2 build" {
	grep -qw avx2 /proc/cpuinfo || skip "no AVX2 here"
	cc $FLAGS -mavx2 -mfma -o "$T/d" $SRC -lm
	run "$T/d"
	ok
}

@test "depthwise: the build without vector extensions" {
	cc $FLAGS -DNNL_RT_NOVEC -o "$T/d" $SRC -lm
	run "$T/d"
	ok
}

@test "depthwise: clang's -march=native build" {
	clang $FLAGS -march=native -o "$T/d" $SRC -lm
	run "$T/d"
	ok
}

@test "depthwise: the aarch64 build (NEON vectors) under qemu" {
	aarch64-linux-gnu-gcc $FLAGS -o "$T/d" $SRC -lm
	run qemu-aarch64 -L /usr/aarch64-linux-gnu "$T/d"
	ok
}
