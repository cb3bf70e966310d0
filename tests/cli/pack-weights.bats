#!/usr/bin/env bats
# nnl-pack-weights: bit-exact round trips, corruption found by tensor
# name, bad manifests refused, no partial outputs.  Arrays are made and
# compared by NumPy.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="$BATS_TEST_DIRNAME/../../bin"
	DATA="$BATS_TEST_DIRNAME/../data/npy"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
	mkdir -p "$T/w"
	$PY -c 'import numpy as np, sys
d = sys.argv[1]
r = np.random.default_rng(7)
np.save(d + "/fc1.weight.npy", r.standard_normal((4, 3)).astype(np.float32))
np.save(d + "/fc1.bias.npy", r.standard_normal(3).astype(np.float32))
np.save(d + "/ids.npy", np.array([3, -1, 2**40], dtype=np.int64))
np.save(d + "/half.npy", r.standard_normal((2, 2)).astype(np.float16))' "$T/w"
}

# Every array in dir a equals, bit for bit, the one of the same name in b.
same_arrays() {
	$PY -c 'import numpy as np, os, sys
a, b = sys.argv[1], sys.argv[2]
names = sorted(f for f in os.listdir(a) if f.endswith(".npy"))
assert names == sorted(f for f in os.listdir(b) if f.endswith(".npy")), names
for f in names:
    x, y = np.load(os.path.join(a, f)), np.load(os.path.join(b, f))
    assert x.dtype == y.dtype and x.shape == y.shape, f
    assert x.tobytes() == y.tobytes(), f
print(len(names))' "$1" "$2"
}

@test "a directory packs and unpacks bit-exactly" {
	run --separate-stderr "$BIN/nnl-pack-weights" pack -o "$T/m.weights" "$T/w"
	[ "$status" -eq 0 ]
	[ -f "$T/m.manifest.json" ]
	"$BIN/nnl-pack-weights" unpack -d "$T/out" "$T/m.weights"
	run same_arrays "$T/w" "$T/out"
	[ "$status" -eq 0 ]
	[ "$output" = 4 ]
}

@test "an npz archive, stored and deflated, packs bit-exactly" {
	"$BIN/nnl-pack-weights" pack -o "$T/z.weights" "$DATA/deflated.npz" \
	    "$DATA/stored.npz"
	"$BIN/nnl-pack-weights" unpack -d "$T/zo" "$T/z.weights"
	$PY -c 'import numpy as np, sys
d = sys.argv[2]
for z in sys.argv[3:]:
    with np.load(z) as f:
        for k in f.files:
            y = np.load(d + "/" + k + ".npy")
            assert f[k].dtype == y.dtype and f[k].shape == y.shape, k
            assert f[k].tobytes() == y.tobytes(), k' x "$T/zo" \
	    "$DATA/deflated.npz" "$DATA/stored.npz"
}

@test "single npy files pack under their names; the manifest is aligned" {
	"$BIN/nnl-pack-weights" pack -a 128 -o "$T/s.weights" \
	    "$DATA/f32.npy" "$DATA/i64.npy" "$DATA/scalar.npy"
	$PY -c 'import json, sys
m = json.load(open(sys.argv[1]))
assert m["format"] == "wg-weights-manifest" and m["version"] == 1
t = m["tensors"]
assert list(t) == ["f32", "i64", "scalar"], list(t)
assert t["f32"] == {"dataType": "float32", "shape": [2, 3], "byteOffset": 128,
    "byteLength": 24, "layout": "row-major", "checksum": t["f32"]["checksum"]}
assert all(v["byteOffset"] % 128 == 0 for v in t.values())
assert t["scalar"]["shape"] == [] and t["scalar"]["byteLength"] == 4' \
	    "$T/s.manifest.json"
	head -c 8 "$T/s.weights" | od -An -c | grep -q "W   G   W   T 001  \\\\0  \\\\0  \\\\0"
}

@test "verify finds a flipped byte and names the tensor" {
	"$BIN/nnl-pack-weights" pack -o "$T/m.weights" "$T/w"
	run "$BIN/nnl-pack-weights" verify "$T/m.weights"
	[ "$status" -eq 0 ]
	off=$($PY -c 'import json, sys
print(json.load(open(sys.argv[1]))["tensors"]["fc1.bias"]["byteOffset"] + 5)' \
	    "$T/m.manifest.json")
	$PY -c 'import sys
p, o = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read()); b[o] ^= 4
open(p, "wb").write(b)' "$T/m.weights" "$off"
	run --separate-stderr "$BIN/nnl-pack-weights" verify "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'tensor "fc1.bias": checksum mismatch'* ]]
	run "$BIN/nnl-pack-weights" list "$T/m.weights"
	[[ "$output" == *"fc1.bias"*"BAD"* ]]
	[[ "$output" == *"fc1.weight"*" ok"* ]]
}

edit_manifest() {
	$PY -c 'import json, sys
p, t, k, v = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
m = json.load(open(p)); m["tensors"][t][k] = v
json.dump(m, open(p, "w"))' "$@"
}

@test "a manifest that overruns the file is rejected" {
	"$BIN/nnl-pack-weights" pack -o "$T/m.weights" "$T/w"
	edit_manifest "$T/m.manifest.json" ids byteOffset 100000
	run --separate-stderr "$BIN/nnl-pack-weights" verify "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'tensor "ids": byteOffset 100000 + byteLength 24 overruns'* ]]
}

@test "overlapping tensors are rejected" {
	"$BIN/nnl-pack-weights" pack -o "$T/m.weights" "$T/w"
	off=$($PY -c 'import json, sys
print(json.load(open(sys.argv[1]))["tensors"]["fc1.bias"]["byteOffset"] + 4)' \
	    "$T/m.manifest.json")
	edit_manifest "$T/m.manifest.json" fc1.weight byteOffset "$off"
	run --separate-stderr "$BIN/nnl-pack-weights" verify "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"overlaps"* ]]
}

@test "a byteLength that disagrees with the type is rejected" {
	"$BIN/nnl-pack-weights" pack -o "$T/m.weights" "$T/w"
	edit_manifest "$T/m.manifest.json" ids byteLength 23
	run --separate-stderr "$BIN/nnl-pack-weights" list "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'tensor "ids": byteLength 23 disagrees with int64[3] (24 bytes)'* ]]
}

@test "a graph whose consts disagree with the manifest is rejected" {
	"$BIN/nnl-pack-weights" pack -o "$T/m.weights" "$T/w"
	cat > "$T/g.webnn" <<'G'
webnn_graph "g" v1 {
  inputs { x: f32[1, 4]; }
  consts { w: f32[3, 4] @weights("fc1.weight"); }
  nodes { y = matmul(x, w); }
  outputs { y; }
}
G
	run --separate-stderr "$BIN/nnl-parse" -w "$T/m.weights" \
	    -m "$T/m.manifest.json" "$T/g.webnn"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'const "w": declared float32[3, 4], manifest'*'has float32[4, 3]'* ]]
}

@test "malformed npy and npz inputs get clear errors, and no outputs" {
	printf 'not numpy' > "$T/bad.npy"
	head -c 100 "$DATA/f32.npy" > "$T/trunc.npy"
	head -c 300 "$DATA/deflated.npz" > "$T/trunc.npz"
	for f in bad.npy trunc.npy trunc.npz; do
		run --separate-stderr "$BIN/nnl-pack-weights" pack \
		    -o "$T/x.weights" "$T/$f"
		[ "$status" -eq 1 ]
		[[ "$stderr" == "nnl-pack-weights: error: $T/$f"* ]]
		[ ! -e "$T/x.weights" ] && [ ! -e "$T/x.manifest.json" ]
	done
	run --separate-stderr "$BIN/nnl-pack-weights" pack -o "$T/x.weights" \
	    "$DATA/f64.npy"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"unsupported dtype '<f8'"* ]]
	! ls "$T" | grep -q "\.tmp"
}

@test "the same tensor name from two sources is an error naming both" {
	mkdir -p "$T/w2"
	cp "$T/w/ids.npy" "$T/w2/"
	run --separate-stderr "$BIN/nnl-pack-weights" pack -o "$T/d.weights" \
	    "$T/w" "$T/w2"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'tensor "ids" comes from both'*'w/ids.npy and'*'w2/ids.npy'* ]]
	[ ! -e "$T/d.weights" ]
}

@test "usage errors exit 2" {
	run --separate-stderr "$BIN/nnl-pack-weights"
	[ "$status" -eq 2 ]
	run --separate-stderr "$BIN/nnl-pack-weights" frob x
	[ "$status" -eq 2 ]
	run --separate-stderr "$BIN/nnl-pack-weights" pack -a 3 x
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: nnl-pack-weights pack"* ]]
}

@test "the default output is named after the first source" {
	cd "$T"
	"$BIN/nnl-pack-weights" pack w/
	[ -f w.weights ] && [ -f w.manifest.json ]
}
