#!/usr/bin/env bats
# No shell, no option injection: nnc runs every child from an argument
# vector, and no path it hands to cc, ar, clang, dot or qemu is read as
# an option or a response file.  Model, output and directory names hold
# quotes, ';', $( ), backquotes, blanks, a newline, a leading '-' or
# '@'; beside them a file x holds options that, read as a response
# file, make the compiler run "touch pwned" (gcc -wrapper).  Every
# command either writes what was asked at the named path or refuses
# with a message, and nothing named pwned ever appears.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	EX="$ROOT/examples/binary_classifier"
	cd "$BATS_TEST_TMPDIR"
	mkdir tmp
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	# what is checked here is nnc (sanitized under check-asan) and the
	# names it passes on; the generated code, the same small model
	# compiled dozens of times, is built without the sanitizers
	export NNC_CFLAGS=
	cp -r "$EX/weights" .
	# read as gcc options: "-o out -wrapper ..." runs sh before cc1
	printf '%s\n' 'out -wrapper /bin/sh,-c,touch${IFS}pwned' > x
	# names C can #include, then the two it cannot (refused by
	# nnl-emit-c: tests/cli/hostile-names.bats)
	OK=("a'b" "q';touch pwned;'q" 'a;touch pwned;b' '$(touch pwned)'
	    'a`touch pwned`b' 'a b' '-x' '@x')
	NOINC=('a"b' $'a\nb')
}

# Nothing ran: no pwned anywhere under the test's directory (the
# payloads' working directories are this one and TMPDIR), the
# response file x unchanged and never an output.
no_payload() {
	[ -z "$(find "$BATS_TEST_TMPDIR" -name pwned)" ]
	[ "$(cat x)" = 'out -wrapper /bin/sh,-c,touch${IFS}pwned' ]
	[ ! -e out ]
}

# The first bytes of file $1, in hex.
magic() {
	od -An -tx1 -N"$2" -- "$1" | tr -d ' \n'
}

# An ELF file's type (1 relocatable, 2 executable, 3 shared or PIE).
elftype() {
	[ "$(magic "$1" 4)" = 7f454c46 ]
	od -An -tu2 -j16 -N2 -- "$1" | tr -d ' '
}

# check KIND PATH: PATH is what --emit KIND writes
check() {
	local e

	case $1 in
	exe)
		[ -x "$2" ]
		e=$(elftype "$2")
		[ "$e" = 2 ] || [ "$e" = 3 ] ;;
	obj) [ "$(elftype "$2")" = 1 ] ;;
	shared) [ "$(elftype "$2")" = 3 ] ;;
	lib) [ "$(magic "$2" 8)" = 213c617263683e0a ] ;;	# !<arch>\n
	wasm) [ "$(magic "$2" 4)" = 0061736d ] ;;		# \0asm
	header) grep -q '_infer(const void \*' -- "$2" ;;
	c) grep -q '_infer(const void \*' -- "$2" ;;
	esac
}

# The default output of --emit KIND for the model stem $2.
default_out() {
	case $1 in
	exe) printf '%s' "$2" ;;
	obj) printf '%s.o' "$2" ;;
	lib) printf 'lib%s.a' "$2" ;;
	shared) printf 'lib%s.so' "$2" ;;
	header) printf '%s.h' "$2" ;;
	c) printf '%s.c' "$2" ;;
	wasm) printf '%s.wasm' "$2" ;;
	esac
}

@test "no system() or popen() in the C sources: children run from argument vectors" {
	pat='(^|[^A-Za-z0-9_])(system|popen)[[:space:]]*\('
	# the pattern finds what it is for, and not a longer name
	printf 'rc = system(cmd);\n' | grep -Eq "$pat"
	printf 'p = popen (c, "r");\n' | grep -Eq "$pat"
	! printf 'filesystem(x);\n' | grep -Eq "$pat"
	cd "$ROOT"
	n=$(find passes common -name '*.[ch]' | wc -l)
	[ "$n" -gt 50 ]
	run grep -rEn --include='*.[ch]' "$pat" passes common
	echo "$output"
	[ "$status" -eq 1 ]
	# nor a shell started by name
	run grep -rEn --include='*.[ch]' '"(/bin/)?sh"' passes common
	echo "$output"
	[ "$status" -eq 1 ]
}

@test "nnc compile: hostile model names, every --emit kind: each output at its name, nothing run" {
	for n in "${OK[@]}"; do
		cp "$EX/binary_classifier.nnl" "./$n.nnl"
		for k in exe obj lib shared header c wasm; do
			run --separate-stderr "$BIN/nnc" compile --emit "$k" \
			    --cflag -O0 -- "$n.nnl"
			echo "[$n] $k: $status $stderr"
			[ "$status" -eq 0 ]
			check "$k" "./$(default_out "$k" "$n")"
			# beside obj, lib, shared: named after the model
			case $k in
			obj|lib|shared) check header ./binary_classifier.h
				rm binary_classifier.h ;;
			wasm) check header "./$n.h" ;;
			esac
			no_payload
		done
	done
}

@test "nnc compile: a model name C cannot #include is refused with its reason, nothing written" {
	for n in "${NOINC[@]}"; do
		cp "$EX/binary_classifier.nnl" "./$n.nnl"
		for k in exe obj lib shared header c wasm; do
			run --separate-stderr "$BIN/nnc" compile --emit "$k" \
			    -- "$n.nnl"
			echo "[$n] $k: $status $stderr"
			[ "$status" -eq 1 ]
			# C source beside its weights: the .incbin rule first
			if [ "$k" = c ]; then
				[[ "$stderr" == *"-e beside: the assembler would"* ]]
			else
				[[ "$stderr" == *"nnl-emit-c: error: header name"*"cannot be #included"* ]]
			fi
			[ ! -e "./$(default_out "$k" "$n")" ]
			no_payload
		done
	done
}

@test "nnc compile -o: hostile output and directory names, each writer" {
	cp "$EX/binary_classifier.nnl" m.nnl
	for n in "${OK[@]}" "${NOINC[@]}"; do
		# cc -o (obj and shared too: above), ar, clang, copies
		for k in exe lib wasm header c; do
			o="$n.d/$n.$k"
			[ "$k" = header ] && o="$n.d/$n.h"
			[ "$k" = c ] && o="$n.d/$n.c"
			run --separate-stderr "$BIN/nnc" compile --emit "$k" \
			    --cflag -O0 -o "$o" m.nnl
			echo "[$n] $k: $status $stderr"
			case "$k:$n" in
			c:*\"* | c:*$'\n'*)
				# a source whose .incbin of the weights beside
				# it the assembler would misread (nnl-emit-c(1))
				[ "$status" -eq 1 ]
				[[ "$stderr" == *"-e beside: the assembler would"* ]]
				[ ! -e "./$o" ] ;;
			*)
				[ "$status" -eq 0 ]
				check "$k" "./$o" ;;
			esac
			no_payload
		done
		# the output name itself, in this directory
		run --separate-stderr "$BIN/nnc" compile --cflag -O0 -o "$n" \
		    m.nnl
		[ "$status" -eq 0 ]
		check exe "./$n"
		no_payload
	done
}

@test "nnc test: hostile model, input and expected names run the model, nothing else" {
	for n in "${OK[@]}"; do
		cp "$EX/binary_classifier.nnl" "./$n.nnl"
		cp "$EX/test_input.npy" "./$n.in.npy"
		cp "$EX/expected_output.npy" "./$n.out.npy"
		run --separate-stderr "$BIN/nnc" test --input "$n.in.npy" \
		    --expected "$n.out.npy" -- "$n.nnl"
		echo "[$n]: $status $output $stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == "PASS: 1/1 elements within tolerance"* ]]
		no_payload
	done
	for n in "${NOINC[@]}"; do
		cp "$EX/binary_classifier.nnl" "./$n.nnl"
		run --separate-stderr "$BIN/nnc" test --input \
		    "$EX/test_input.npy" --expected "$EX/expected_output.npy" \
		    -- "$n.nnl"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"cannot be #included"* ]]
		no_payload
	done
}

@test "nnc inspect, inspect --fused --svg and report: hostile model and output names" {
	command -v dot > /dev/null || skip "Graphviz's dot is not installed"
	for n in "${OK[@]}" "${NOINC[@]}"; do
		cp "$EX/binary_classifier.nnl" "./$n.nnl"
		run --separate-stderr "$BIN/nnc" inspect -- "$n.nnl"
		[ "$status" -eq 0 ]
		[[ "$output" == *"Total params:    3,201"* ]]
		run --separate-stderr "$BIN/nnc" inspect --fused \
		    --svg "$n.svg" -- "$n.nnl"
		echo "[$n] svg: $status $stderr"
		[ "$status" -eq 0 ]
		grep -q '<svg' -- "./$n.svg"
		run --separate-stderr "$BIN/nnc" report -o "$n.html" \
		    -- "$n.nnl"
		echo "[$n] report: $status $stderr"
		[ "$status" -eq 0 ]
		grep -qi '<html' -- "./$n.html"
		no_payload
	done
}

@test "nnc import and nnc new: hostile model, output and directory names" {
	for n in "${OK[@]}" "${NOINC[@]}"; do
		mkdir -- "./$n.i"
		cp "$ROOT/examples/import_test/model.onnx" "./$n.i/$n.onnx"
		(cd -- "./$n.i" && "$BIN/nnc" import -- "$n.onnx")
		[ -s "./$n.i/$n.nnl" ]
		[ -n "$(ls -- "./$n.i/weights")" ]
		run --separate-stderr "$BIN/nnc" import -o "$n.j/$n.json" \
		    -- "$n.i/$n.onnx"
		echo "[$n] json: $status $stderr"
		[ "$status" -eq 0 ]
		grep -q '"format": "webnn-graph-json"' -- "./$n.j/$n.json"
		run --separate-stderr "$BIN/nnc" new --project cpp -- "$n.p"
		echo "[$n] new: $status $stderr"
		[ "$status" -eq 0 ]
		[ -s "./$n.p/model.nnl" ]
		no_payload
	done
}

@test "nnc: \$CC and \$AR split at blanks, no shell; a name with a leading @ or - never reaches them as an option" {
	cat > fakecc <<-'EOF'
	#!/bin/sh
	# the first word of CC after the program, then cc's arguments
	[ "$1" = "--first word" ] || [ "$1" = --first ] || exit 9
	shift
	printf '%s\n' "$@" >> "$LOG"
	exec "$REAL" "$@"
	EOF
	chmod +x fakecc
	for n in '@x' '-x'; do
		cp "$EX/binary_classifier.nnl" "./$n.nnl"
		: > cc.log
		LOG=$PWD/cc.log REAL=cc CC="$PWD/fakecc --first" \
		    run --separate-stderr "$BIN/nnc" compile --cflag -O0 \
		    -- "$n.nnl"
		echo "[$n] $status $stderr"; cat cc.log
		[ "$status" -eq 0 ]
		check exe "./$n"
		# nnc builds in its temporary directory and delivers the
		# program itself (nnl(7) FILES): cc sees absolute paths there
		grep -qx -- "$TMPDIR/nnc\.[^/]*/$n\.c" cc.log
		! grep -q -e '^@' -e '^-x' cc.log
		: > ar.log
		LOG=$PWD/ar.log REAL=ar AR="$PWD/fakecc --first" \
		    run --separate-stderr "$BIN/nnc" compile --emit lib \
		    --cflag -O0 -o "$n.a" -- "$n.nnl"
		echo "[$n] lib: $status $stderr"; cat ar.log
		[ "$status" -eq 0 ]
		check lib "./$n.a"
		[[ "$(sed -n 2p ar.log)" == "$TMPDIR"/nnc.*/* ]]
		no_payload
	done
	# quotes in $CC are not a shell's: the word is "--first word"
	# only to a shell, here "--first" and "word" reach the program
	cp "$EX/binary_classifier.nnl" m.nnl
	LOG=$PWD/q.log REAL=cc CC="$PWD/fakecc '--first word'" \
	    run --separate-stderr "$BIN/nnc" compile -o q -- m.nnl
	[ "$status" -eq 1 ]
	[ ! -e q ]
	[ ! -e q.log ]
}

@test "nnc test: a compiled model's exit status and fatal signal are told apart" {
	# a "compiler" whose program exits 3, or kills itself with SIGSEGV
	cat > scriptcc <<-'EOF'
	#!/bin/sh
	for a; do [ "$a" = -dumpmachine ] && exec cc -dumpmachine; done
	while [ $# -gt 0 ]; do
		[ "$1" = -o ] && out=$2
		shift
	done
	printf '#!/bin/sh\n%s\n' "$BODY" > "$out" && chmod +x "$out"
	EOF
	chmod +x scriptcc
	cp "$EX/binary_classifier.nnl" "a'b.nnl"
	BODY='exit 3' CC="$PWD/scriptcc" run --separate-stderr \
	    "$BIN/nnc" test --input "$EX/test_input.npy" \
	    --expected "$EX/expected_output.npy" -- "a'b.nnl"
	echo "$stderr"
	[ "$status" -eq 1 ]
	m="a'b.nnl: the compiled model failed: it exited with status 3"
	[[ "$stderr" == *"$m"* ]]
	BODY='kill -SEGV $$' CC="$PWD/scriptcc" run --separate-stderr \
	    "$BIN/nnc" test --input "$EX/test_input.npy" \
	    --expected "$EX/expected_output.npy" -- "a'b.nnl"
	echo "$stderr"
	[ "$status" -eq 1 ]
	m="failed: it was killed by signal 11 (Segmentation fault)"
	[[ "$stderr" == *"$m"* ]]
	no_payload
}

@test "nnc --target-triple: a triple that is not a name is refused before anything runs" {
	cp "$EX/binary_classifier.nnl" m.nnl
	for t in '../../bin/x-linux' '-x' 'a b' 'x;touch pwned' ''; do
		run --separate-stderr "$BIN/nnc" compile --emit obj \
		    --target-triple "$t" m.nnl
		echo "[$t] $status $stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"--target-triple"*"expected letters, digits"* ]]
		[ ! -e m.o ]
		no_payload
	done
}

@test "examples/cortex-m4/run.sh: a model, input and folder named -x, @x build and run; a quote is refused" {
	command -v arm-none-eabi-gcc > /dev/null &&
	    command -v qemu-system-arm > /dev/null ||
	    skip "arm-none-eabi-gcc and qemu-system-arm are not installed"
	cp "$EX/binary_classifier.nnl" ./@x.nnl
	cp "$EX/test_input.npy" ./-in.npy
	NNC="$BIN/nnc" run --separate-stderr \
	    sh "$ROOT/examples/cortex-m4/run.sh" \
	    @x.nnl -in.npy -fw
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[ "$(elftype ./-fw/firmware.elf)" = 2 ]
	/usr/bin/python3 -c 'import sys, numpy as np
got = np.fromfile(sys.argv[1], dtype="<f4")
want = np.load(sys.argv[2]).astype(np.float32).ravel()
assert got.shape == want.shape and abs(got - want).max() <= 1e-5' \
	    ./-fw/output.bin "$EX/expected_output.npy"
	no_payload
	NNC="$BIN/nnc" run --separate-stderr \
	    sh "$ROOT/examples/cortex-m4/run.sh" \
	    @x.nnl -in.npy 'f"w'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"run.sh: dir: a name with '\"'"* ]]
	[ ! -e 'f"w' ]
}

@test "nnc: a relative TMPDIR named -t or @t: the compiler's temporaries are no options either" {
	cp "$EX/binary_classifier.nnl" m.nnl
	for t in -t @t; do
		mkdir -- "$t"
		for k in exe lib wasm; do
			TMPDIR=$t run --separate-stderr "$BIN/nnc" compile \
			    --emit "$k" --cflag -O0 -o "o.$k" m.nnl
			echo "[$t] $k: $status $stderr"
			[ "$status" -eq 0 ]
			check "$k" "o.$k"
		done
		TMPDIR=$t run --separate-stderr "$BIN/nnc" test \
		    --input "$EX/test_input.npy" \
		    --expected "$EX/expected_output.npy" m.nnl
		[ "$status" -eq 0 ]
		[[ "$output" == "PASS: 1/1 elements within tolerance"* ]]
		# every temporary removed
		[ -z "$(ls -A -- "$t")" ]
		no_payload
	done
}
