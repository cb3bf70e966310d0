#!/usr/bin/env bats
# The kernels written in rt.h's vectors, depthwise convolution
# (common/rt/f32-dwconv/dwconv.c: 3 x 3, 5 x 5, 7 x 7 and other sizes,
# strides, dilation, padding, ragged channel blocks), pooling and
# im2col (common/rt/nn/nn.c) and Winograd's convolution
# (common/rt/f32-winograd/wino.c), built the ways generated code builds
# them: no -march (4-float vectors), -march=native (the
# host's widest), AVX2 (8 floats), no vector extensions at all
# (NNL_RT_NOVEC), clang, and aarch64 under qemu.  Each build runs
# tests/unit/test_dwconv.c, test_pool.c, test_wino.c and test_conv.c,
# which check them against double-precision computations from the
# definitions, and test_vmath.c, the transcendental functions of
# common/rt/f32-vmath against double-precision libm over the float
# range, within nnl-emit-c(1)'s ACCURACY bounds (every 1021st float;
# every 16381st under qemu).

bats_require_minimum_version 1.5.0

setup() {
	# the same programs as make check runs, built without the
	# sanitizers: under check-asan (NNL_BIN set) a second run of them
	[ -z "${NNL_BIN:-}" ] ||
	    skip "kernels built here without sanitizers: no sanitized program in it"
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	T="$BATS_TEST_TMPDIR"
	RT="$ROOT/common/rt"
	FLAGS="-std=c11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter
	    -DNNL_RT= -I$ROOT/common -I$ROOT/common/rt
	    -I$ROOT/common/rt/f32-vmath -I$ROOT/tests/unit"
}

# check CC [FLAGS...] [-- RUNNER...]: build both tests, run each
check() {
	local cc=$1 run=()
	shift
	local fl=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do fl+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift && run=("$@")
	$cc $FLAGS "${fl[@]}" -o "$T/d" "$ROOT/tests/unit/test_dwconv.c" \
	    "$RT/f32-dwconv/dwconv.c" "$RT/f32-vmath/vmath.c" -lm
	$cc $FLAGS "${fl[@]}" -o "$T/p" "$ROOT/tests/unit/test_pool.c" \
	    "$RT/nn/nn.c" "$RT/f32-dwconv/dwconv.c" \
	    "$RT/f32-winograd/wino.c" "$RT"/f32-gemm/gemm.c \
	    "$RT"/f32-gemm/gemm_f32_*.c "$RT/f32-vmath/vmath.c" -lm
	$cc $FLAGS "${fl[@]}" -o "$T/w" "$ROOT/tests/unit/test_wino.c" \
	    "$RT/f32-winograd/wino.c" "$RT"/f32-gemm/gemm.c \
	    "$RT"/f32-gemm/gemm_f32_*.c "$RT/f32-vmath/vmath.c" -lm
	$cc $FLAGS "${fl[@]}" -o "$T/c" "$ROOT/tests/unit/test_conv.c" \
	    "$RT/nn/nn.c" "$RT/f32-dwconv/dwconv.c" \
	    "$RT/f32-winograd/wino.c" "$RT"/f32-gemm/gemm.c \
	    "$RT"/f32-gemm/gemm_f32_*.c "$RT/f32-vmath/vmath.c" -lm
	$cc $FLAGS "${fl[@]}" -o "$T/v" "$ROOT/tests/unit/test_vmath.c" \
	    "$RT/f32-vmath/vmath.c" -lm
	run "${run[@]}" "$T/v" $([ ${#run[@]} -gt 0 ] && echo 16381)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 1 - vmath_within_documented_bounds"* ]]
	[[ "$output" == *"ok 2 - vmath_pow_within_documented_bounds"* ]]
	[[ "$output" != *"not ok"* ]]
	run "${run[@]}" "$T/d"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 2 - depthwise_epilogue"* ]]
	[[ "$output" == *"ok 4 - depthwise_in_place_general"* ]]
	[[ "$output" != *"not ok"* ]]
	run "${run[@]}" "$T/p"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 2 - pooling_nan"* ]]
	[[ "$output" != *"not ok"* ]]
	run "${run[@]}" "$T/w"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 2 - winograd_activation"* ]]
	[[ "$output" != *"not ok"* ]]
	run "${run[@]}" "$T/c"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 1 - conv_im2col_matches_definition"* ]]
	[[ "$output" != *"not ok"* ]]
}

@test "vector kernels: the portable build (no -march)" {
	check cc
}

@test "vector kernels: the -march=native build" {
	check cc -march=native
}

@test "vector kernels: the AVX2 build" {
	grep -qw avx2 /proc/cpuinfo || skip "no AVX2 here"
	check cc -mavx2 -mfma
}

@test "vector kernels: the build without vector extensions" {
	check cc -DNNL_RT_NOVEC
}

@test "vector kernels: clang's -march=native build" {
	check clang -march=native
}

@test "vector kernels: the aarch64 build (NEON vectors) under qemu" {
	check aarch64-linux-gnu-gcc -- qemu-aarch64 -L /usr/aarch64-linux-gnu
}
