#!/usr/bin/env bats
# README.md's commands work as written: every ```sh block and every
# indented block runs, from a directory laid out like the checkout
# after `make`, with bin/ on the PATH, and every C source a block
# writes compiles (tests/c-compiles.sh).  The set-up scripts (which
# install packages as root) and the make targets other than `make`
# itself (the whole test suite, sanitizer builds, benchmarks) are
# checked, not run: the scripts must parse, each make target must
# exist (make -n).  And every example ships complete: `make` made the
# data `nnc test` needs for each one.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

# README.md's command blocks, each ended by a line "\036"
blocks() {
	awk '
	/^```/ {
		if (fence) { fence = 0; if (sh) print "\036"; sh = 0; next }
		fence = 1; sh = ($0 == "```sh"); next
	}
	fence { if (sh) print; next }
	/^    / && (blank || inblock) { inblock = 1; print substr($0, 5); next }
	{ if (inblock) print "\036"; inblock = 0; blank = ($0 == "") }
	END { if (inblock) print "\036" }' "$ROOT/README.md"
}

@test "README.md's commands run as written" {
	mkdir w
	for f in "$ROOT"/*; do
		ln -s "$f" "w/$(basename "$f")"
	done
	rm w/bin
	ln -s "$BIN" w/bin
	cat > prelude.sh <<SH
set -e
# the runners of the whole suite are checked, not run (see above)
make() {
	if [ \$# -eq 0 ]; then command make -s -C "$ROOT"; return; fi
	command make -n -C "$ROOT" "\$@" > /dev/null
}
# make check-asan's sanitizers (its NNC_CFLAGS) in what nnc builds,
# so in what links it
cc() {
	command cc \${NNL_TEST_CFLAGS:-} "\$@"
}
sh() {
	case "\$1" in
	scripts/test.sh|scripts/demo.sh) [ -f "\$1" ] && command sh -n "\$1" ;;
	*) command sh "\$@" ;;
	esac
}
SH
	blocks > blocks.txt
	n=0
	while IFS= read -r -d $'\036' block; do
		[ -n "$(printf '%s' "$block" | tr -d ' \n')" ] || continue
		n=$((n + 1))
		printf '%s\n' "$block" > "b$n.sh"
		echo "# block $n:"; sed 's/^/#   /' "b$n.sh"
		touch stamp
		(cd w && PATH="$T/w/bin:$PATH" && cat ../prelude.sh ../b$n.sh | bash &&
		    sh "$ROOT/tests/c-compiles.sh" ../stamp) > "b$n.log" 2>&1 ||
		    { cat "b$n.log"; false; }
	done < blocks.txt
	# the first pipeline's model.c, on standard output, compiles alone;
	# so does the one of the fourth block, with its header
	grep -qx 'compile ./model.c' b1.log
	grep -qx 'compile ./model.c' b5.log
	# the blocks: the first pipeline, demo, test, the PATH,
	# compile+link+test+pipeline, the mnist test, the ONNX pair, the
	# two-input test, MNIST on the emulated Cortex-M4, the make lines
	# (three blocks)
	echo "$n blocks"
	[ "$n" -eq 12 ]
	# what the commands made, where they said
	[ -s w/libhead.a ] && [ -s w/resnet_head.h ] && [ -x w/app ]
	[ -s w/model.c ] && [ -s w/mlp.nnl ] && [ -d w/weights ]
	grep -q 'int resnet_head_infer(' w/resnet_head.h
	grep -q "PASS: 1000/1000" b5.log
	grep -q "PASS: 10/10" b6.log
	grep -qx "PASS: 3/3 outputs within tolerance" b8.log
}

@test "make made every example's data: each one passes nnc test" {
	n=0
	for d in "$ROOT"/examples/*/; do
		e=$(basename "$d")
		m=$(ls "$d$e.nnl" "$d$e.webnn" 2>/dev/null | head -n 1)
		[ -n "$m" ] || continue
		run "$BIN/nnc" test --input "$d/test_input.npy" \
		    --expected "$d/expected_output.npy" "$m"
		echo "$e: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == PASS:* ]]
		n=$((n + 1))
	done
	[ "$n" -eq 10 ]
}

@test "resnet_head's expected output is NumPy's, from its own weights" {
	/usr/bin/python3 "$ROOT/examples/resnet_head/make_weights.py" w
	"$BIN/nnl-pack-weights" pack -o r.weights w
	cmp r.weights "$ROOT/examples/resnet_head/resnet_head.weights"
	/usr/bin/python3 -c 'import numpy as np, sys
r = sys.argv[1]
x = np.load(r + "/test_input.npy").astype(np.float64)
W = np.load("w/W.npy").astype(np.float64)
b = np.load("w/b.npy").astype(np.float64)
y = np.exp(x @ W + b - (x @ W + b).max()); y /= y.sum()
e = np.load(r + "/expected_output.npy")
assert e.shape == (1, 1000) and np.abs(e - y).max() < 1e-7
assert x.shape == (1, 2048) and abs(float(y.sum()) - 1) < 1e-9' \
	    "$ROOT/examples/resnet_head"
}
