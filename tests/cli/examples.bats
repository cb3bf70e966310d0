#!/usr/bin/env bats
# The NNL examples: each passes nnc test against the NumPy reference's
# output; the committed data is what make_examples.py makes; the
# reference itself is checked on cases worked out by hand.

bats_require_minimum_version 1.5.0

setup_file() {
	# the two large weight sets are made, not committed
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../../examples/make_examples.py" \
	    vgg_block feature_extractor > /dev/null
}

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
}

@test "every example passes nnc test against its expected output" {
	n=0
	for d in "$ROOT"/examples/*/; do
		e=$(basename "$d")
		[ -f "$d/$e.nnl" ] || continue
		run "$BIN/nnc" test --input "$d/test_input.npy" \
		    --expected "$d/expected_output.npy" "$d/$e.nnl"
		echo "$e: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == PASS:* ]]
		n=$((n + 1))
	done
	[ "$n" -eq 9 ]
}

@test "make_examples.py reproduces the committed data exactly" {
	run /usr/bin/python3 "$ROOT/examples/make_examples.py" --check
	echo "$output" | grep -v '^ok' || true
	[ "$status" -eq 0 ]
}

@test "every example parses to canonical JSON that passes the schema" {
	mkdir -p "$T/g" "$T/w"
	for d in "$ROOT"/examples/*/; do
		e=$(basename "$d")
		[ -f "$d/$e.nnl" ] || continue
		"$BIN/nnl-parse" -w "$T/w/$e.weights" -m "$T/w/$e.manifest.json" \
		    -o "$T/g/$e.json" "$d/$e.nnl"
		# its weights lie in w/, beside the graph's folder: the
		# user's own files (nnl(7) Reads)
		"$BIN/nnl-parse" --allow-outside -o "$T/g/again.json" \
		    "$T/g/$e.json"
		cmp "$T/g/$e.json" "$T/g/again.json"
		rm "$T/g/again.json"
	done
	run /usr/bin/python3 "$ROOT/tests/validate-schema.py" \
	    "$ROOT/schema/webnn-graph.schema.json" "$T"/g/*.json
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the NumPy reference on hand-worked cases" {
	cd "$T"
	mkdir w
	cat > m.nnl <<'NNL'
version 0.9;
model hand {
    config { weights: "./w"; }
    layer input = Input(shape: [3, 3, 1]);
    layer c = Conv2D(filters: 1, kernel: 2, padding: "valid");
    layer p = AvgPool2D(kernel: 2, stride: 1, padding: [0, 0, 1, 1]);
    layer q = FakeQuant(scale: 0.5);
}
NNL
	/usr/bin/python3 -c 'import numpy as np
np.save("w/c.weight.npy", np.ones((1, 1, 2, 2), np.float32))
np.save("w/c.bias.npy", np.array([0.25], np.float32))
np.save("x.npy", np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1))'
	/usr/bin/python3 "$ROOT/examples/reference.py" m.nnl x.npy y.npy
	# conv of 0..8 with ones(2x2) + 0.25: [[8.25, 12.25], [20.25, 24.25]];
	# the 2x2 average with the bottom/right padding ignored:
	#   [[16.25, 18.25], [22.25, 24.25]]; FakeQuant rounds x/0.5 to even
	/usr/bin/python3 -c 'import numpy as np
y = np.load("y.npy")[0, :, :, 0]
want = np.array([[16.0, 18.0], [22.0, 24.0]])
assert np.array_equal(y, want), y'
	"$BIN/nnl-run" -d . <("$BIN/nnl-parse" -w m.weights -m m.manifest.json m.nnl) input=x.npy > /dev/null
	/usr/bin/python3 -c 'import numpy as np
assert np.array_equal(np.load("q.npy")[0, :, :, 0], np.load("y.npy")[0, :, :, 0])'
}

@test "the ONNX import example's generator reproduces its files" {
	cp "$ROOT"/examples/import_test/gen_mlp.py "$T/"
	(cd "$T" && /usr/bin/python3 gen_mlp.py)
	for f in model.onnx input.npy expected.npy; do
		cmp "$T/$f" "$ROOT/examples/import_test/$f"
	done
	# and expected.npy is the MLP of its weights, worked out by hand for
	# x = [1, 2, 3, 4]: see gen_mlp.py
	/usr/bin/python3 -c 'import numpy as np
W1 = (np.arange(12).reshape(3, 4) - 5.5) / 10
h = np.maximum(np.array([1, 2, 3, 4]) @ W1.T + [0.1, -0.2, 0.3], 0)
y = h @ ((np.arange(6).reshape(2, 3) - 2.5) / 5).T + [0.05, -0.05]
import sys
assert np.allclose(np.load(sys.argv[1])[0], y, atol=1e-6)' \
	    "$ROOT/examples/import_test/expected.npy"
}

@test "compiled examples run clean under valgrind" {
	for e in model mnist layer_zoo resnet_block; do
		# --portable: valgrind runs no AVX-512, and hides it from
		# the program's run-time choice of kernels; without
		# check-asan's NNC_CFLAGS: valgrind runs no ASan build
		NNC_CFLAGS= "$BIN/nnc" compile --portable -o "$T/$e" \
		    "$ROOT/examples/$e/$e.nnl"
		/usr/bin/python3 -c 'import numpy as np, sys
sys.stdout.buffer.write(np.load(sys.argv[1]).tobytes())' \
		    "$ROOT/examples/$e/test_input.npy" > "$T/$e.in"
		run valgrind -q --error-exitcode=9 --leak-check=full "$T/$e" \
		    < "$T/$e.in"
		echo "$e: $status"
		[ "$status" -eq 0 ]
	done
}
