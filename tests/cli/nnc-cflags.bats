#!/usr/bin/env bats
# NNC_CFLAGS: its words reach the host's C compiler, at compile and at
# link, after nnc's flags and before --cflag's, never through a shell;
# builds for another machine take none.  make check-asan sets it so
# every program nnc compiles runs under the sanitizers.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cp -r "$ROOT/examples/mnist" "$T/mn"
	cd "$T"
	/usr/bin/python3 -c 'import numpy as np
x = np.load("mn/test_input.npy").astype("<f4")
open("in.bin", "wb").write(x.tobytes())'
	# a fault the sanitizer sees: a read past a stack array, before
	# main(), in every program that includes it
	cat > fault.h <<'C'
__attribute__((constructor)) static void
planted_fault(void)
{
	volatile char a[4];
	volatile int i = 4;

	a[0] = a[i];
}
C
}

@test "NNC_CFLAGS's sanitizer links and reports a planted fault" {
	NNC_CFLAGS="-fsanitize=address -include $T/fault.h" \
	    "$BIN/nnc" compile -o m mn/mnist.nnl
	ldd m | grep -q libasan
	run --separate-stderr env ASAN_OPTIONS=exitcode=86 ./m < in.bin
	[ "$status" -eq 86 ]
	[[ "$stderr" == *"ERROR: AddressSanitizer: stack-buffer-overflow"* ]]
	[[ "$stderr" == *"planted_fault"* ]]
	# the same fault without the sanitizer: unseen, the program runs
	NNC_CFLAGS="-include $T/fault.h" "$BIN/nnc" compile -o plain \
	    mn/mnist.nnl
	! ldd plain | grep -q libasan
	./plain < in.bin > out.bin
	[ "$(wc -c < out.bin)" -eq 40 ]
}

@test "NNC_CFLAGS reaches obj, lib and shared builds" {
	NNC_CFLAGS=-fsanitize=address "$BIN/nnc" compile --emit obj \
	    -o m.o mn/mnist.nnl
	nm -u m.o | grep -q __asan_
	NNC_CFLAGS=-fsanitize=address "$BIN/nnc" compile --emit shared \
	    -o libm.so mn/mnist.nnl
	ldd libm.so | grep -q libasan
}

@test "a flag the compiler refuses fails the compile" {
	run --separate-stderr env NNC_CFLAGS="-O2 -fno-such-nnc-flag" \
	    "$BIN/nnc" compile -o m mn/mnist.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"-fno-such-nnc-flag"* ]]
	[ ! -e m ]
}

@test "NNC_CFLAGS splits at blanks, no shell, before --cflag's" {
	run --separate-stderr env NNC_CFLAGS=' -O0	-DX=$(touch${IFS}shell)
	  -DY=`touch${IFS}shell` ' "$BIN/nnc" compile -v --target avx2 \
	    --cflag -O3 --emit obj -o m.o mn/mnist.nnl
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ ! -e shell ]
	# -v quotes each word that holds a character the shell reads
	w=" -O2 -mavx2 -mfma -O0 '-DX=\$(touch\${IFS}shell)'"
	w="$w '-DY=\`touch\${IFS}shell\`' -O3 -I"
	[[ "$stderr" == *"$w"* ]]
}

@test "more than 16 words of NNC_CFLAGS is an error" {
	run --separate-stderr env NNC_CFLAGS="$(printf -- '-DA%d ' $(seq 17))" \
	    "$BIN/nnc" compile --emit obj -o m.o mn/mnist.nnl
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnc: error: NNC_CFLAGS: more than 16 words" ]
}

@test "builds for another machine take no NNC_CFLAGS" {
	command -v aarch64-linux-gnu-gcc || skip "no aarch64 cross compiler"
	run --separate-stderr env NNC_CFLAGS=-fno-such-nnc-flag \
	    "$BIN/nnc" compile -v --target-triple aarch64-linux-gnu \
	    --emit obj -o a.o mn/mnist.nnl
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"aarch64-linux-gnu-gcc -O2 -I"* ]]
	[[ "$stderr" != *-fno-such-nnc-flag* ]]
	# a CC for another architecture, without a triple
	run --separate-stderr env NNC_CFLAGS=-fno-such-nnc-flag \
	    CC=aarch64-linux-gnu-gcc "$BIN/nnc" compile -v --emit obj \
	    -o b.o mn/mnist.nnl
	[ "$status" -eq 0 ]
	[[ "$stderr" != *-fno-such-nnc-flag* ]]
}

@test "the WebAssembly build takes no NNC_CFLAGS" {
	run --separate-stderr env NNC_CFLAGS=-fno-such-nnc-flag \
	    "$BIN/nnc" compile -v --emit wasm -o m.wasm mn/mnist.nnl
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *clang*--target=wasm32* ]]
	[[ "$stderr" != *-fno-such-nnc-flag* ]]
	[ -s m.wasm ]
}
