#!/usr/bin/env bats
# Bare metal: nnc's Cortex-M4F builds (thumbv7em-none-eabi,
# arm-none-eabi), their sections and symbols, and binary_classifier and
# mnist run on QEMU's emulated Cortex-M4 board mps2-an386 through
# examples/cortex-m4, compared with the NumPy reference outputs.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
	EX="$ROOT/examples"
	cd "$T"
}

# The bytes of a model's weights (its .npy tensors' data).
weightbytes() {
	$PY -c 'import sys, glob, numpy as np
print(sum(np.load(f).nbytes for f in glob.glob(sys.argv[1] + "/*.npy")))' "$1"
}

# Section SECTION's size in arm-none-eabi-size -A's report of FILE.
secsize() {
	arm-none-eabi-size -A "$2" | awk -v s="$1" '$1 == s { print $2 }'
}

# Run MODEL's firmware on the emulated board and compare its output.bin
# with EXPECTED at 1e-5.
runboard() {
	NNC="$BIN/nnc" QEMU_ICOUNT=0 run --separate-stderr \
	    sh "$EX/cortex-m4/run.sh" "$1" "$2" "$T/fw"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" =~ systick\ ticks\ per\ inference:\ [1-9][0-9]* ]]
	[[ "$output" =~ emulated:\ [1-9][0-9]*\ instructions\ per\ inference ]]
	# the stack the firmware reserves (16 KB) is enough
	[[ "$stderr" =~ stack\ used:\ ([0-9]+)\ bytes ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[1]}" -lt 16384 ]
	$PY -c 'import sys, numpy as np
got = np.fromfile(sys.argv[1], dtype="<f4")
want = np.load(sys.argv[2]).astype(np.float32).ravel()
assert got.shape == want.shape, (got.shape, want.shape)
d = np.abs(got.astype(np.float64) - want).max()
print("max diff", d)
assert d <= 1e-5, d' "$T/fw/output.bin" "$3"
}

@test "binary_classifier runs on the emulated Cortex-M4 and matches NumPy" {
	runboard "$EX/binary_classifier/binary_classifier.nnl" \
	    "$EX/binary_classifier/test_input.npy" \
	    "$EX/binary_classifier/expected_output.npy"
	# the weights are in flash's .rodata, the arena in RAM's .bss
	w=$(weightbytes "$EX/binary_classifier/weights")
	[ "$(secsize .rodata fw/firmware.elf)" -ge "$w" ]
	[ "$(secsize .stack fw/firmware.elf)" -eq 16384 ]
}

@test "mnist runs on the emulated Cortex-M4 and matches NumPy" {
	runboard "$EX/mnist/mnist.nnl" "$EX/mnist/test_input.npy" \
	    "$EX/mnist/expected_output.npy"
	w=$(weightbytes "$EX/mnist/weights")
	[ "$(secsize .rodata fw/firmware.elf)" -ge "$w" ]
	# 28x28x32 conv output alone: the arena must be in .bss
	[ "$(secsize .bss fw/firmware.elf)" -ge $((26 * 26 * 32 * 4)) ]
}

@test "layer_zoo and signal_zoo (convolutions, pools, LRN, norms, activations, softmax) match NumPy on the board" {
	# the float (nnl_real) paths of the kernels, on the target
	for m in layer_zoo signal_zoo; do
		runboard "$EX/$m/$m.nnl" "$EX/$m/test_input.npy" \
		    "$EX/$m/expected_output.npy"
	done
}

@test "a thumbv7em-none-eabi object is hard-float Cortex-M4F code with its weights read-only" {
	run "$BIN/nnc" compile -v --emit obj --target-triple \
	    thumbv7em-none-eabi -o bc.o \
	    "$EX/binary_classifier/binary_classifier.nnl"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"arm-none-eabi-gcc -O2 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=nano.specs"* ]]
	[[ "$output" != *-march=native* ]]
	run arm-none-eabi-readelf -A bc.o
	[[ "$output" == *"Tag_CPU_arch: v7E-M"* ]]
	[[ "$output" == *"Tag_ABI_VFP_args: VFP registers"* ]]
	[[ "$output" == *"Tag_ABI_HardFP_use: SP only"* ]]
	# the weights are in .rodata (flash), the arena in .bss (RAM)
	w=$(weightbytes "$EX/binary_classifier/weights")
	[ "$(secsize .rodata bc.o)" -ge "$w" ]
	run arm-none-eabi-nm -S bc.o
	[[ "$output" =~ [0-9a-f]+\ [0-9a-f]*[1-9a-f][0-9a-f]*\ b\ [A-Za-z0-9_]*_arena ]]
	[[ "$output" =~ \ r\ [A-Za-z0-9_]*_weights ]]
	[ -z "$(secsize .data bc.o)" ] || [ "$(secsize .data bc.o)" -eq 0 ]
}

@test "Cortex-M4F objects call no libc beyond memcpy, memset and float math, and no double arithmetic" {
	# conversions of the kernels' double parameters (__aeabi_d2f,
	# __aeabi_f2d) and of integers to double in the generic typed load
	# (nnl_loadf, out of line since it has 11 types) are allowed, double arithmetic (__aeabi_dadd,
	# dmul, ddiv, dcmp...) and double math functions (exp) are not
	for m in binary_classifier mnist; do
		"$BIN/nnc" compile --emit obj --target-triple \
		    thumbv7em-none-eabi -o $m.o "$EX/$m/$m.nnl"
		arm-none-eabi-nm -u $m.o | awk '{ print $2 }' > $m.u
		cat $m.u
		# no soft-float double helper (__aeabi_d*, f2d) and no
		# function outside this list
		run grep -Ev '^(memcpy|memset|memmove|expf|logf|sqrtf|tanhf|floorf|ceilf|truncf|roundf|fabsf|powf|sinf|cosf|tanf|erff|fmodf|__aeabi_(l|ui|i|ul)(div|divmod|mod|lsl|lsr|asr|mul|cmp)|__aeabi_(l|ul)2f|__aeabi_f2(l|ul)[z]?|__aeabi_d2f|__aeabi_f2d|__aeabi_(i|ui|l|ul)2d)$' $m.u
		echo "$output"
		[ -z "$output" ]
	done
}

@test "--emit lib for arm-none-eabi is an archive of Cortex-M4F code" {
	run "$BIN/nnc" compile --emit lib --target-triple arm-none-eabi \
	    -o lib/libbc.a "$EX/binary_classifier/binary_classifier.nnl"
	[ "$status" -eq 0 ]
	[ -f lib/binary_classifier.h ]
	arm-none-eabi-ar x lib/libbc.a
	run arm-none-eabi-readelf -A binary_classifier.o
	[[ "$output" == *"Tag_CPU_name: \"7E-M\""* ]]
	[[ "$output" == *"Tag_ABI_VFP_args: VFP registers"* ]]
}

@test "--cflag changes the Cortex-M4F flags, last one wins" {
	run "$BIN/nnc" compile -v --emit obj --target-triple \
	    thumbv7em-none-eabi --cflag -mcpu=cortex-m7 \
	    --cflag -mfpu=fpv5-d16 -o m7.o \
	    "$EX/binary_classifier/binary_classifier.nnl"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"-fdata-sections -mcpu=cortex-m7 -mfpu=fpv5-d16 -I"* ]]
	run arm-none-eabi-readelf -A m7.o
	[[ "$output" == *"Tag_FP_arch: FPv5/FP-D16 for ARMv8"* ]]
}

@test "a bare-metal exe, or nnc test, is refused with a pointer to obj and lib, nothing written" {
	run --separate-stderr "$BIN/nnc" compile --target-triple \
	    thumbv7em-none-eabi -o bc "$EX/binary_classifier/binary_classifier.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nnc: error: thumbv7em-none-eabi: --emit exe: a bare-metal build is linked into its firmware: use --emit obj or lib"* ]]
	[ ! -e bc ]
	run --separate-stderr "$BIN/nnc" test --target-triple arm-none-eabi \
	    --input "$EX/binary_classifier/test_input.npy" \
	    --expected "$EX/binary_classifier/expected_output.npy" \
	    "$EX/binary_classifier/binary_classifier.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nnc: error: arm-none-eabi: nnc test runs programs under qemu-user, not bare-metal builds: see examples/cortex-m4/run.sh"* ]]
}

@test "nnc inspect --target-triple shows the flash and RAM of the Cortex-M4F build" {
	run --separate-stderr "$BIN/nnc" inspect --target-triple \
	    thumbv7em-none-eabi "$EX/mnist/mnist.nnl"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ Flash:\ +2\.[0-9][0-9]\ MB\ \(code\ [0-9.]+\ KB\ \+\ read-only\ data\ 2\.[0-9][0-9]\ MB\ \+\ data\ [0-9.]+\ [KB]+\) ]]
	[[ "$output" =~ RAM:\ +1[0-9][0-9]\.[0-9]\ KB\ \(arena\ 1[0-9][0-9]\.[0-9]\ KB\ \+\ other\ [0-9.]+\ [KB]+\)\ \+\ stack ]]
	# without a triple, no target lines
	run "$BIN/nnc" inspect "$EX/mnist/mnist.nnl"
	[[ "$output" != *Flash:* ]]
}

@test "memory_limit applies to the target build: code counts too (E009)" {
	cp -r "$EX/binary_classifier" bc
	# weights (12.9 KB) + arena fit 16 KB; with the code they do not
	sed 's|io: "stdio";|io: "stdio"; memory_limit: "16KB";|' \
	    "$EX/binary_classifier/binary_classifier.nnl" > bc/bc.nnl
	run "$BIN/nnc" compile --emit obj -o host.o bc/bc.nnl
	[ "$status" -eq 0 ]
	run --separate-stderr "$BIN/nnc" compile --emit obj \
	    --target-triple thumbv7em-none-eabi -o bc.o bc/bc.nnl
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ nnc:\ error:\ .*bc\.nnl:\ E009:\ the\ thumbv7em-none-eabi\ build\ needs\ [0-9.]+\ KB\ \(flash\ [0-9.]+\ KB\ \+\ RAM\ [0-9.]+\ [KB]+,\ without\ the\ stack\),\ more\ than\ memory_limit\ 16\.0\ KB ]]
	[ ! -e bc.o ]
	run --separate-stderr "$BIN/nnc" inspect \
	    --target-triple thumbv7em-none-eabi bc/bc.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *E009* ]]
}

@test "nnc inspect reads a 64-bit object too (aarch64-linux-gnu)" {
	run --separate-stderr "$BIN/nnc" inspect --target-triple \
	    aarch64-linux-gnu "$EX/binary_classifier/binary_classifier.nnl"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Target:          aarch64-linux-gnu"* ]]
	# 12,804 bytes of weights are read-only data: 12.5 KB at least
	[[ "$output" =~ Flash:\ +[0-9.]+\ KB\ \(code\ [0-9.]+\ KB\ \+\ read-only\ data\ 1[2-9]\.[0-9]\ KB\ \+\ data\ [0-9]+\ B\) ]]
	[[ "$output" =~ RAM:\ +[0-9]+\ B\ \(arena\ 384\ B\ \+\ other\ [0-9]+\ B\)\ \+\ stack ]]
}
