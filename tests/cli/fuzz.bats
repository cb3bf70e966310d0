#!/usr/bin/env bats
# scripts/fuzz.py: a fault planted in a throw-away bin directory (-b)
# is a finding and fails the run, whether it is a report the way GCC's
# sanitizer runtimes make one (on standard error, exit status from
# ASAN_OPTIONS/UBSAN_OPTIONS' exitcode, else 1, as a refusal's), a
# signal or a hang; the caller's sanitizer options reach the programs;
# -r fails a run whose inputs do not reach the target's back end.  The
# npy target is used: its one program, nnl-pack-weights, is cheap.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN=$(cd "${NNL_BIN:-$ROOT/bin}" && pwd)
	FUZZ="/usr/bin/python3 $ROOT/scripts/fuzz.py"
	T="$BATS_TEST_TMPDIR/t"
	mkdir -p "$T/bin"
	ln -s "$BIN/nnl-parse" "$T/bin/nnl-parse"
	# the caller's options are tested on their own below
	unset ASAN_OPTIONS UBSAN_OPTIONS
}

# plant SHELL-CODE: a nnl-pack-weights that runs SHELL-CODE (with the
# subcommand in $1), then the real program.  $code is the exit status
# a sanitizer runtime would give: OPTS' exitcode, else 1.
plant() {
	cat > "$T/bin/nnl-pack-weights" <<EOF
#!/bin/sh
echo "\$UBSAN_OPTIONS|\$ASAN_OPTIONS" >> "$T/env"
code() {
	c=\$(echo ":\$1" | sed -n 's/.*:exitcode=\([0-9]*\).*/\1/p')
	echo \${c:-1}
}
$1
exec "$BIN/nnl-pack-weights" "\$@"
EOF
	chmod +x "$T/bin/nnl-pack-weights"
}

# fuzz N [ARG...]: N inputs of the npy target against $T/bin
fuzz() {
	n=$1
	shift
	$FUZZ -b "$T/bin" -f "$T/f" -n "$n" -s 1 "$@" npy
}

findings() {
	echo "$output" | sed -n 's/.*"findings": \([0-9]*\).*/\1/p'
}

@test "the programs as they are: no finding, exit 0" {
	plant ":"
	run fuzz 6
	[ "$status" -eq 0 ]
	[ "$(findings)" -eq 0 ]
	# every run of the wrapper was a step of some input
	[ "$(wc -l < "$T/env")" -ge 6 ]
}

@test "a UBSan report that exits 1 (no exitcode= set) is still a finding" {
	# the report's text alone must tell: exit 1 is a refusal's status
	plant '[ "$1" = verify ] && {
		echo "common/npy.c:9:5: runtime error: signed integer overflow" >&2
		exit 1; }'
	run fuzz 6
	[ "$status" -eq 1 ]
	[ "$(findings)" -ge 1 ]
	grep -q "runtime error" "$T"/f/npy-ubsan-*/report.txt
}

@test "UBSan's exit status 87 is a finding though stderr reads as a refusal" {
	plant '[ "$1" = verify ] && {
		echo "nnl-pack-weights: error: w.weights: bad" >&2
		exit $(code "$UBSAN_OPTIONS"); }'
	run fuzz 6
	[ "$status" -eq 1 ]
	[ "$(findings)" -ge 1 ]
	echo "$output" | grep -q '^finding ubsan nnl-pack-weights verify'
	grep -q ":exitcode=87" "$T/env"
}

@test "ASan's exit status 86 is a finding" {
	plant '[ "$1" = list ] && {
		echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow" >&2
		exit $(code "$ASAN_OPTIONS"); }'
	run fuzz 6
	[ "$status" -eq 1 ]
	echo "$output" | grep -q \
	    '^finding asan-heap-buffer-overflow nnl-pack-weights list'
	grep -q ":exitcode=86" "$T/env"
}

@test "a signal is a finding" {
	plant '[ "$1" = unpack ] && kill -SEGV $$'
	run fuzz 6
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^finding signal11 nnl-pack-weights unpack'
}

@test "a hang is a finding" {
	plant '[ "$1" = list ] && exec sleep 30'
	run fuzz 3 -t 1
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^finding hang nnl-pack-weights list'
}

@test "the caller's sanitizer options reach the programs, exitcode added" {
	plant ":"
	UBSAN_OPTIONS=print_summary=1 ASAN_OPTIONS=check_initialization_order=1 \
	    run fuzz 3
	[ "$status" -eq 0 ]
	grep -q '^print_summary=1:.*:exitcode=87|' "$T/env"
	grep -q '|check_initialization_order=1:.*:exitcode=86$' "$T/env"
}

@test "the caller's own exitcode is kept, and its status still a finding" {
	plant '[ "$1" = verify ] && {
		echo "nnl-pack-weights: error: w.weights: bad" >&2
		exit $(code "$UBSAN_OPTIONS"); }'
	UBSAN_OPTIONS=exitcode=99 run fuzz 6
	[ "$status" -eq 1 ]
	! grep -q "exitcode=87" "$T/env"
	echo "$output" | grep -q '^finding exit99 nnl-pack-weights verify'
}

@test "-r: a back end no input reaches fails the run and is named" {
	# pack refuses every input: list, verify and unpack never run
	plant '[ "$1" = pack ] && {
		echo "nnl-pack-weights: error: planted refusal" >&2; exit 1; }'
	run fuzz 6
	[ "$status" -eq 0 ]
	echo "$output" | grep -q \
	    '^fuzz: npy: 6 inputs (4 sound); nnl-pack-weights pack 6 (0 ok),'
	run fuzz 6 -r 0.5
	[ "$status" -eq 1 ]
	echo "$output" | grep -q \
	    'nnl-pack-weights unpack reached by 0 of 6 inputs, fewer than'
}

@test "-r 0.5 passes with the real program: the sound inputs reach unpack" {
	plant ":"
	run fuzz 6 -r 0.5
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^fuzz: npy: 6 inputs (4 sound);'
}

@test "fuzz-replay.sh: a kept UBSan finding still fails on replay" {
	plant '[ "$1" = verify ] && {
		echo "nnl-pack-weights: error: w.weights: bad" >&2
		exit $(code "$UBSAN_OPTIONS"); }'
	run fuzz 3
	[ "$status" -eq 1 ]
	NNL_BIN="$T/bin" run sh "$ROOT/scripts/fuzz-replay.sh" "$T"/f/npy-*
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^still: .* (exit 87: nnl-pack-weights)$'
	echo "$output" | grep -q '^fuzz-replay: [1-9][0-9]* of [1-9]'
}

# plant_nnc SHELL-CODE: an nnc that runs SHELL-CODE (its subcommand in
# $1), then the real one, beside links to the real passes
plant_nnc() {
	for p in "$BIN"/nnl-*; do
		ln -sf "$p" "$T/bin/"
	done
	cat > "$T/bin/nnc" <<EOF
#!/bin/sh
$1
exec "$BIN/nnc" "\$@"
EOF
	chmod +x "$T/bin/nnc"
}

# names N [ARG...]: N inputs of the names target against $T/bin
names() {
	n=$1
	shift
	$FUZZ -b "$T/bin" -f "$T/f" -n "$n" -s 1 "$@" names
}

@test "names: a shell that ran a name's code (a file PWNED) is a finding" {
	plant_nnc '[ "$1" = report ] && touch PWNED'
	run names 6
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^finding shell-ran nnc report'
}

@test "names: a file made outside the scratch directory is a finding" {
	# a name's "fzq" in /tmp; fuzz.py removes what it finds
	plant_nnc '[ "$1" = report ] && : > "/tmp/fzq.$$"'
	run names 6
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^finding outside-write nnc report'
	! ls /tmp | grep -q "^fzq\.[0-9]*$"
}

@test "names: an input changed is a finding" {
	# the model, the last argument
	plant_nnc '[ "$1" = report ] && for m; do :; done && echo >> "$m"'
	run names 6
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^finding input-changed nnc report'
}

@test "fuzzcheck: malformed SVG, a page's SVG and DOT are told apart" {
	cd "$ROOT/scripts"
	/usr/bin/python3 - <<'PY'
import fuzzcheck as K
assert K.xml_error("<svg><text>a &amp; b</text></svg>") is None
assert "not well-formed" in K.xml_error("<svg><text>&#1;</text></svg>")
assert "not well-formed" in K.xml_error("<svg><text>a < b</text></svg>")
page = "<html><svg><a xlink:title='x'>y</a></svg>%s</html>"
assert K.page_error(page % "") is None
assert "SVG 2" in K.page_error(page % "<svg><g></svg>")
assert "loads" in K.page_error(page % "<script>1</script>")
assert K.dot_error('digraph { a [label="x\\"}"]; b [label=<<b>y</b>>] }') \
    is None
assert "never ends" in K.dot_error('digraph { a [label="x\\"] }')
assert "never ends" in K.dot_error('digraph { a [label=<<b>y</b>] }')
assert "unclosed" in K.dot_error('digraph { subgraph { a }')
PY
}

@test "the new surfaces' targets, a few inputs each: no finding, back ends reached" {
	for t in dot report manifest wasm scaffold; do
		run $FUZZ -b "$BIN" -f "$T/f" -n 6 -s 1 -r 0.5 "$t"
		echo "$output" | grep -v '^{'
		[ "$status" -eq 0 ]
	done
}
