#!/usr/bin/env bats
# Files named after a model stay in their directory, and the programs
# that write several files write all of them or none: on failure no new
# file remains and no existing file changes.  Each failure is injected
# after a first file is complete (in its temporary).

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	EX="$BATS_TEST_DIRNAME/../../examples"
	T="$BATS_TEST_TMPDIR"
}

# a listing of $1 with each file's checksum: compared before and after
snap() {
	(cd "$1" && find . -print0 | sort -z | xargs -0 -I{} sh -c \
	    'if [ -f "{}" ]; then printf "%s %s\n" "{}" "$(cksum < "{}")"; \
	    else echo "{}"; fi')
}

# a graph with two outputs named $1 and $2
twoout() {
	/usr/bin/python3 -c 'import json, sys
print(json.dumps({"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [3]}},
 "nodes": [{"id": "a", "op": "relu", "inputs": ["x"], "options": {}},
           {"id": "b", "op": "neg", "inputs": ["x"], "options": {}}],
 "outputs": {sys.argv[1]: "a", sys.argv[2]: "b"}}))' "$1" "$2" > "$T/g.json"
}

@test "nnl-run refuses output names that leave its directory" {
	mkdir -p "$T/sub/out"
	/usr/bin/python3 -c 'import numpy as np
np.save("'"$T"'/x.npy", np.array([-1, 0, 2], np.float32))'
	for name in ../x a/b /tmp/abs .. . ""; do
		twoout ok "$name"
		run --separate-stderr "$BIN/nnl-run" -d "$T/sub/out" \
		    "$T/g.json" x="$T/x.npy"
		echo "$name: $stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"output \"$name\" cannot name a file in $T/sub/out"* ]]
		[ -z "$(ls -A "$T/sub/out")" ]
		[ "$(ls -A "$T/sub")" = out ]
	done
	[ ! -e /tmp/abs.npy ]
	# names with dots inside are fine
	twoout ..y .z
	run "$BIN/nnl-run" -d "$T/sub/out" "$T/g.json" x="$T/x.npy"
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import numpy as np
d = "'"$T"'/sub/out/"
assert (np.load(d + "..y.npy") == [0, 0, 2]).all()
assert (np.load(d + ".z.npy") == [1, 0, -2]).all()'
}

@test "nnl-run writes every output or none" {
	mkdir "$T/out"
	/usr/bin/python3 -c 'import numpy as np
np.save("'"$T"'/x.npy", np.array([-1, 0, 2], np.float32))'
	twoout y1 y2
	echo old > "$T/out/y1.npy"
	mkdir "$T/out/y2.npy"	# the second output cannot be written
	before=$(snap "$T/out")
	run --separate-stderr "$BIN/nnl-run" -d "$T/out" "$T/g.json" \
	    x="$T/x.npy"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/out/y2.npy: Is a directory"* ]]
	[ -z "$output" ]
	[ "$(snap "$T/out")" = "$before" ]
	rmdir "$T/out/y2.npy"
	run "$BIN/nnl-run" -d "$T/out" "$T/g.json" x="$T/x.npy"
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import numpy as np
assert (np.load("'"$T"'/out/y1.npy") == [0, 0, 2]).all()'
}

@test "nnl-emit-c writes the source and the header, or neither" {
	cat > "$T/g.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [3]}},
 "nodes": [{"id": "a", "op": "relu", "inputs": ["x"], "options": {}}],
 "outputs": {"a": "a"}}
JSON
	"$BIN/nnl-shape-infer" "$T/g.json" | "$BIN/nnl-plan-memory" > "$T/p.json"
	mkdir "$T/out"
	echo old header > "$T/out/m.h"
	echo old source > "$T/out/m.c"
	before=$(snap "$T/out")
	# the header is complete when the source cannot be opened
	run --separate-stderr "$BIN/nnl-emit-c" -H "$T/out/m.h" \
	    -o "$T/nodir/m.c" "$T/p.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/nodir/m.c: No such file or directory"* ]]
	[ "$(snap "$T/out")" = "$before" ]
	# the source cannot be opened: a directory
	mkdir "$T/out/d.c"
	run --separate-stderr "$BIN/nnl-emit-c" -H "$T/out/m.h" \
	    -o "$T/out/d.c" "$T/p.json"
	[ "$status" -eq 1 ]
	rmdir "$T/out/d.c"
	[ "$(snap "$T/out")" = "$before" ]
	# a graph emit-c refuses: neither file touched
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1])); del g["memory"]
json.dump(g, open(sys.argv[2], "w"))' "$T/p.json" "$T/bad.json"
	run "$BIN/nnl-emit-c" -o "$T/out/m.c" "$T/bad.json"
	[ "$status" -eq 1 ]
	[ "$(snap "$T/out")" = "$before" ]
	run "$BIN/nnl-emit-c" -o "$T/out/m.c" "$T/p.json"
	[ "$status" -eq 0 ]
	grep -q '#include "m.h"' "$T/out/m.c"
	grep -q 'model_infer' "$T/out/m.h"
}

# m.weights with tensors a, b, c (float32) and a manifest whose key
# for b is renamed to $1 (when given)
weights3() {
	/usr/bin/python3 -c 'import numpy as np
for k, n in (("a", 2), ("b", 3), ("c", 4)):
    np.save("'"$T"'/%s.npy" % k, np.arange(n, dtype=np.float32) + n)'
	"$BIN/nnl-pack-weights" pack -o "$T/m.weights" "$T/a.npy" "$T/b.npy" \
	    "$T/c.npy"
	[ $# -eq 0 ] || /usr/bin/python3 -c 'import json, sys
p = sys.argv[1]; m = json.load(open(p))
m["tensors"] = {sys.argv[2] if k == "b" else k: v
                for k, v in m["tensors"].items()}
json.dump(m, open(p, "w"))' "$T/m.manifest.json" "$1"
}

@test "unpack refuses tensor names that leave its directory" {
	mkdir -p "$T/u/out"
	for name in ../x a/b /tmp/abs .. . ""; do
		weights3 "$name"
		run --separate-stderr "$BIN/nnl-pack-weights" unpack \
		    -d "$T/u/out" "$T/m.weights"
		echo "$name: $stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"tensor \"$name\": not usable as a file name in $T/u/out"* ||
		   ( -z "$name" && "$stderr" == *"a tensor has an empty name"* ) ]]
		[ -z "$(ls -A "$T/u/out")" ] && [ "$(ls -A "$T/u")" = out ]
	done
	[ ! -e /tmp/abs.npy ]
}

@test "a failed unpack changes no file that was there before" {
	weights3
	mkdir "$T/out"
	echo mine > "$T/out/a.npy"
	chmod 0600 "$T/out/a.npy"
	mkdir "$T/out/b.npy"	# the tensor in the middle cannot be written
	before=$(snap "$T/out")
	run --separate-stderr "$BIN/nnl-pack-weights" unpack -d "$T/out" \
	    "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/out/a.npy: exists (-f overwrites it)"* ]]
	[ "$(snap "$T/out")" = "$before" ]
	run --separate-stderr "$BIN/nnl-pack-weights" unpack -f -d "$T/out" \
	    "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/out/b.npy: Is a directory"* ]]
	[ "$(snap "$T/out")" = "$before" ]
	# a bad checksum in the middle: nothing written either
	rmdir "$T/out/b.npy"
	before=$(snap "$T/out")
	/usr/bin/python3 -c 'import json, sys
p = sys.argv[1]; m = json.load(open(p))
off = m["tensors"]["b"]["byteOffset"]
w = bytearray(open(sys.argv[2], "rb").read()); w[off] ^= 1
open(sys.argv[2], "wb").write(w)' "$T/m.manifest.json" "$T/m.weights"
	run "$BIN/nnl-pack-weights" unpack -f -d "$T/out" "$T/m.weights"
	[ "$status" -eq 1 ]
	[ "$(snap "$T/out")" = "$before" ]
	# and with -f and good weights, all three replace what was there
	weights3
	run "$BIN/nnl-pack-weights" unpack -f -d "$T/out" "$T/m.weights"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$T/out/a.npy")" = 600 ]
	/usr/bin/python3 -c 'import numpy as np
d = "'"$T"'/out/"
assert (np.load(d + "a.npy") == [2, 3]).all()
assert (np.load(d + "c.npy") == [4, 5, 6, 7]).all()'
}

@test "a failed nnl-parse of an .nnl leaves no weights and changes none" {
	mkdir -p "$T/out/g.json"	# the graph cannot be written
	echo old > "$T/out/mnist.weights"
	echo old > "$T/out/mnist.manifest.json"
	before=$(snap "$T/out")
	run --separate-stderr "$BIN/nnl-parse" -o "$T/out/g.json" \
	    "$EX/mnist/mnist.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/out/g.json: Is a directory"* ]]
	[ "$(snap "$T/out")" = "$before" ]
	# with -w and -m: the output's directory does not exist
	run --separate-stderr "$BIN/nnl-parse" -w "$T/out/m.weights" \
	    -m "$T/out/m.manifest.json" -o "$T/nodir/g.json" \
	    "$EX/mnist/mnist.nnl"
	[ "$status" -eq 1 ]
	[ "$(snap "$T/out")" = "$before" ]
	# and when it succeeds, the weights it wrote are the ones it read
	rmdir "$T/out/g.json"
	run "$BIN/nnl-parse" -o "$T/out/g.json" "$EX/mnist/mnist.nnl"
	[ "$status" -eq 0 ]
	"$BIN/nnl-pack-weights" verify "$T/out/mnist_classifier.weights"
	[ "$(cat "$T/out/mnist.weights")" = old ]
}

@test "a failed nnl-parse -t nnl changes no .npy file" {
	"$BIN/nnl-onnx-import" -o "$T/g.json" "$EX/import_test/model.onnx"
	mkdir -p "$T/w"
	for x in h.bias h.weight y.bias y.weight; do
		echo mine > "$T/w/$x.npy"
	done
	mkdir "$T/m.nnl"	# the model cannot be written, after its weights
	before=$(snap "$T/w")
	run --separate-stderr "$BIN/nnl-parse" -t nnl -o "$T/m.nnl" \
	    -d "$T/w" "$T/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/m.nnl: Is a directory"* ]]
	[ "$(snap "$T/w")" = "$before" ]
	rmdir "$T/m.nnl"
	run "$BIN/nnl-parse" -t nnl -o "$T/m.nnl" -d "$T/w" "$T/g.json"
	[ "$status" -eq 0 ]
	[ "$(snap "$T/w")" != "$before" ]
	[ "$(ls "$T/w" | wc -l)" -eq 4 ]
}

@test "a failed nnc import changes no file of the weights directory" {
	mkdir "$T/d"
	cd "$T/d"
	mkdir weights out
	echo mine > weights/h.bias.npy
	mkdir out/model.nnl	# fails after the .npy files are complete
	before=$(snap "$T/d")
	run --separate-stderr "$BIN/nnc" import -o out/model.nnl \
	    "$EX/import_test/model.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"out/model.nnl: Is a directory"* ]]
	[ "$(snap "$T/d")" = "$before" ]
	rmdir out/model.nnl
	run "$BIN/nnc" import -o out/model.nnl "$EX/import_test/model.onnx"
	[ "$status" -eq 0 ]
	[ "$(ls weights)" = "$(printf '%s\n' h.bias.npy h.weight.npy y.bias.npy y.weight.npy)" ]
	[ "$(cat weights/h.bias.npy)" != mine ]
}
