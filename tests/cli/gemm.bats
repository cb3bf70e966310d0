#!/usr/bin/env bats
# The SGEMM microkernels and their driver (common/rt/f32-gemm) built the
# three ways generated code builds them: no -march at all (the portable
# kernel), -march=native (the host's kernel, chosen by the compiler's
# macros), and for aarch64 (NEON) run under qemu.  Each build runs
# tests/unit/test_gemm.c, which checks every kernel it holds against a
# double-precision product.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	T="$BATS_TEST_TMPDIR"
	SRC="$ROOT/tests/unit/test_gemm.c $ROOT/common/rt/f32-gemm/gemm.c
	    $ROOT/common/rt/f32-gemm/gemm_f32_*.c
	    $ROOT/common/rt/f32-vmath/vmath.c"
	FLAGS="-std=c11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter
	    -DNNL_RT= -I$ROOT/common -I$ROOT/common/rt
	    -I$ROOT/common/rt/f32-vmath -I$ROOT/tests/unit"
}

@test "the portable build (no -march) passes the SGEMM tests" {
	cc $FLAGS ${NNL_TEST_CFLAGS:-} -o "$T/g" $SRC -lm
	run "$T/g"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 3 - driver_with_every_kernel"* ]]
	[[ "$output" != *"not ok"* ]]
}

@test "the -march=native build passes the SGEMM tests" {
	cc $FLAGS ${NNL_TEST_CFLAGS:-} -march=native -o "$T/g" $SRC -lm
	run "$T/g"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not ok"* ]]
}

@test "clang's run-time-dispatch build passes the SGEMM tests" {
	clang $FLAGS -DNNL_RT_DISPATCH -o "$T/g" $SRC -lm
	run "$T/g"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not ok"* ]]
}

@test "the aarch64 build (NEON kernel) passes the SGEMM tests under qemu" {
	aarch64-linux-gnu-gcc $FLAGS -o "$T/g" $SRC -lm
	run qemu-aarch64 -L /usr/aarch64-linux-gnu "$T/g"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not ok"* ]]
	[[ "$output" != *"f32-8x8-neon: not run"* ]]
}
