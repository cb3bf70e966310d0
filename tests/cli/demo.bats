#!/usr/bin/env bats
# scripts/demo.sh, the README's first command (without installing
# packages): both bundled models compiled to native programs, run on
# their inputs, their printed results checked against the NumPy
# reference outputs, the time per inference printed.

bats_require_minimum_version 1.5.0

setup_file() {
	ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
	export ROOT
	export BIN="${NNL_BIN:-$ROOT/bin}"
	export DEMO="$BATS_FILE_TMPDIR/demo"
	NNL_DEMO_DIR="$DEMO" sh "$ROOT/scripts/demo.sh" --no-deps \
	    > "$BATS_FILE_TMPDIR/out.txt" 2> "$BATS_FILE_TMPDIR/err.txt" || {
		cat "$BATS_FILE_TMPDIR/err.txt" >&2
		return 1
	}
}

setup() {
	OUT="$BATS_FILE_TMPDIR/out.txt"
}

# check NAME EXPECTED.npy: the "values:" and "top class:" lines of the
# block for NAME against the reference output
check() {
	/usr/bin/python3 - "$OUT" "$1" "$ROOT/$2" <<'PY'
import sys, numpy as np
text = open(sys.argv[1]).read()
lines = text.splitlines()
i = next(k for k, l in enumerate(lines) if l.startswith(sys.argv[2] + " ("))
f = {}
for l in lines[i + 1:]:
    if not l.strip():
        break
    k, v = l.strip().split(":", 1)
    f[k] = v
want = np.load(sys.argv[3]).astype(np.float64).ravel()
got = np.array([float(v) for v in f["values"].split()])
assert got.shape == want.shape, (got.shape, want.shape)
assert np.allclose(got, want, rtol=1e-5, atol=1e-6), (got, want)
assert int(f["top class"]) == int(np.argmax(want)), f["top class"]
us = float(f["time"].split()[0])
assert us > 0 and f["time"].split()[1:3] == ["us", "per"], f["time"]
PY
}

@test "the ONNX model's printed result is NumPy's" {
	grep -q '^mlp (ONNX model examples/import_test/model.onnx)$' "$OUT"
	check mlp examples/import_test/expected.npy
	[ -x "$DEMO/mlp" ]
}

@test "the NNL model's printed result is NumPy's" {
	grep -q '^mnist (NNL model examples/mnist/mnist.nnl)$' "$OUT"
	check mnist examples/mnist/expected_output.npy
	[ -x "$DEMO/mnist" ]
}

@test "the report page is named when nnc report exists, and exists" {
	if "$BIN/nnc" report --help 2>&1 | grep -q 'nnc report'; then
		for m in mlp mnist; do
			grep -q "^  report:    $DEMO/$m.html$" "$OUT"
			[ -s "$DEMO/$m.html" ]
		done
	else
		run grep -c 'report:' "$OUT"
		[ "$output" = 0 ]
	fi
}

@test "the README's first set-up command is the demo" {
	run grep -m1 -A0 '^    sh scripts/' "$ROOT/README.md"
	[ "$output" = "    sh scripts/demo.sh" ]
}
