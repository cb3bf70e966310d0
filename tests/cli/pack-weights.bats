#!/usr/bin/env bats
# nnl-pack-weights: bit-exact round trips (cmp, and NumPy loading both
# sides), corruption found by tensor name, bad manifests and malformed
# .npy/.npz inputs refused with exit status 1 and no output left behind,
# usage errors, and the man page's SYNOPSIS and EXAMPLES.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	PW="$BIN/nnl-pack-weights"
	DATA="$BATS_TEST_DIRNAME/../data/npy"
	MAN="$BATS_TEST_DIRNAME/../../man/man1/nnl-pack-weights.1"
	# a directory of our own: bats keeps its stderr files in the other
	T="$BATS_TEST_TMPDIR/t"
	PY=/usr/bin/python3
	E="nnl-pack-weights: error:"
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

# Only the files named may be in dir $1: no leftovers, no temporaries.
only() {
	local dir=$1 want=
	shift
	[ $# -eq 0 ] || want=$(printf '%s ' "$@")
	[ "$(cd "$dir" && ls -A | sort | tr '\n' ' ')" = "$want" ] ||
	    { echo "in $dir: $(ls -A "$dir")"; false; }
}

pristine() {
	"$PW" pack -o "$T/m.weights" "$T/w"
}

edit_manifest() {
	$PY -c 'import json, sys
p, t, k, v = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
m = json.load(open(p)); m["tensors"][t][k] = json.loads(v)
json.dump(m, open(p, "w"))' "$@"
}

@test "a directory packs and unpacks bit-exactly" {
	run --separate-stderr "$PW" pack -o "$T/m.weights" "$T/w"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	only "$T" m.manifest.json m.weights w
	run --separate-stderr "$PW" unpack -d "$T/out" "$T/m.weights"
	[ "$status" -eq 0 ]
	for f in "$T"/w/*.npy; do
		cmp "$f" "$T/out/$(basename "$f")"
	done
	run same_arrays "$T/w" "$T/out"
	[ "$status" -eq 0 ]
	[ "$output" = 4 ]
	only "$T/out" fc1.bias.npy fc1.weight.npy half.npy ids.npy
}

@test "npz archives, stored, deflated and mixed, pack bit-exactly" {
	"$PW" pack -o "$T/z.weights" "$DATA/deflated.npz" "$DATA/stored.npz" \
	    "$DATA/mixed.npz"
	"$PW" unpack -d "$T/zo" "$T/z.weights"
	for z in deflated stored mixed; do
		for m in $(zipinfo -1 "$DATA/$z.npz"); do
			unzip -p "$DATA/$z.npz" "$m" | cmp - "$T/zo/$m"
		done
	done
	$PY -c 'import numpy as np, sys
d = sys.argv[1]
n = 0
for z in sys.argv[2:]:
    with np.load(z) as f:
        for k in f.files:
            y = np.load(d + "/" + k + ".npy")
            assert f[k].dtype == y.dtype and f[k].shape == y.shape, k
            assert f[k].tobytes() == y.tobytes(), k
            n += 1
assert n == 6, n' "$T/zo" "$DATA/deflated.npz" "$DATA/stored.npz" \
	    "$DATA/mixed.npz"
}

@test "single npy files pack under their names; the manifest is aligned" {
	"$PW" pack -a 128 -o "$T/s.weights" \
	    "$DATA/f32.npy" "$DATA/i64.npy" "$DATA/scalar.npy" "$DATA/u8.npy"
	$PY -c 'import json, sys, numpy as np
m = json.load(open(sys.argv[1]))
assert m["format"] == "wg-weights-manifest" and m["version"] == 1
assert m["endianness"] == "little"
t = m["tensors"]
assert list(t) == ["f32", "i64", "scalar", "u8"], list(t)
assert t["f32"] == {"dataType": "float32", "shape": [2, 3], "byteOffset": 128,
    "byteLength": 24, "layout": "row-major", "checksum": t["f32"]["checksum"]}
assert all(v["byteOffset"] % 128 == 0 for v in t.values())
assert t["scalar"]["shape"] == [] and t["scalar"]["byteLength"] == 4
w = open(sys.argv[2], "rb").read()
assert w[:8] == b"WGWT\x01\x00\x00\x00"
for k, v in t.items():
    a = np.load(sys.argv[3] + "/" + k + ".npy")
    o = v["byteOffset"]
    assert w[o:o + v["byteLength"]] == a.tobytes(), k' \
	    "$T/s.manifest.json" "$T/s.weights" "$DATA"
	run --separate-stderr "$PW" list "$T/s.weights"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$(printf 'f32\tfloat32\t[2, 3]\t128\t24\tok')" ]
	[ "${lines[2]}" = "$(printf 'scalar\tfloat32\t[]\t384\t4\tok')" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "Fortran-order, version 2 and 3 files unpack as the same arrays" {
	"$PW" pack -o "$T/f.weights" "$DATA/fortran.npy" "$DATA/fortran3.npy" \
	    "$DATA/v2.npy" "$DATA/v3.npy" "$DATA/empty.npy" "$DATA/pad64.npy"
	"$PW" unpack -d "$T/fo" "$T/f.weights"
	cmp "$DATA/empty.npy" "$T/fo/empty.npy"
	cmp "$DATA/pad64.npy" "$T/fo/pad64.npy"
	$PY -c 'import numpy as np, sys
for k in ("fortran", "fortran3", "v2", "v3", "empty", "pad64"):
    x = np.load(sys.argv[1] + "/" + k + ".npy")
    y = np.load(sys.argv[2] + "/" + k + ".npy")
    assert x.dtype == y.dtype and x.shape == y.shape, k
    assert np.array_equal(x, y), k
    assert y.flags.c_contiguous, k' "$DATA" "$T/fo"
}

@test "verify finds a flipped byte in any tensor and names it" {
	pristine
	run --separate-stderr "$PW" verify "$T/m.weights"
	[ "$status" -eq 0 ]
	[ "$output" = "$T/m.weights: 4 tensors, 280 bytes: ok" ]
	cp "$T/m.weights" "$T/good"
	for t in fc1.bias fc1.weight half ids; do
		$PY -c 'import json, sys
p, m, t = sys.argv[1], sys.argv[2], sys.argv[3]
e = json.load(open(m))["tensors"][t]
o = e["byteOffset"] + e["byteLength"] // 2
b = bytearray(open(p, "rb").read()); b[o] ^= 4
open(p, "wb").write(b)' "$T/m.weights" "$T/m.manifest.json" "$t"
		run --separate-stderr "$PW" verify "$T/m.weights"
		[ "$status" -eq 1 ]
		want="$E $T/m.weights: tensor \"$t\": checksum mismatch"
		want="$want (manifest xxh3-64:"
		[[ "$stderr" == *"$want"*", data xxh3-64:"* ]]
		[ "$(grep -c 'checksum mismatch' <<<"$stderr")" -eq 1 ]
		run --separate-stderr "$PW" list "$T/m.weights"
		[ "$status" -eq 1 ]
		[ "$(grep -c 'BAD$' <<<"$output")" -eq 1 ]
		grep -q "^$t	.*BAD$" <<<"$output"
		run --separate-stderr "$PW" unpack -d "$T/u" "$T/m.weights"
		[ "$status" -eq 1 ]
		[ ! -e "$T/u" ]
		cp "$T/good" "$T/m.weights"
	done
}

@test "a manifest that overruns the file is rejected" {
	pristine
	# ids is the last tensor: 24 bytes at 256 of 280
	edit_manifest "$T/m.manifest.json" ids byteOffset 264
	for cmd in verify list unpack; do
		run --separate-stderr "$PW" $cmd "$T/m.weights"
		[ "$status" -eq 1 ]
		[ "$stderr" = "$E $T/m.weights: tensor \"ids\": byteOffset\
 264 + byteLength 24 overruns the file (280 bytes)" ]
	done
	edit_manifest "$T/m.manifest.json" ids byteOffset 4
	run --separate-stderr "$PW" verify "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'tensor "ids": byteOffset 4 lies in the 8-byte'\
' header' ]]
}

@test "overlapping tensors are rejected" {
	pristine
	# fc1.bias is at 64 (12 bytes), fc1.weight at 128 (48 bytes)
	edit_manifest "$T/m.manifest.json" fc1.weight byteOffset 72
	run --separate-stderr "$PW" verify "$T/m.weights"
	[ "$status" -eq 1 ]
	[ "$stderr" = "$E $T/m.weights: tensors \"fc1.bias\" (bytes 64 to 76)\
 and \"fc1.weight\" (bytes 72 to 120) overlap" ]
}

@test "a byteLength that disagrees with type and shape is rejected" {
	pristine
	edit_manifest "$T/m.manifest.json" ids byteLength 23
	run --separate-stderr "$PW" list "$T/m.weights"
	[ "$status" -eq 1 ]
	[ "$stderr" = "$E $T/m.manifest.json: tensor \"ids\": byteLength 23\
 disagrees with int64[3] (24 bytes)" ]
	pristine
	edit_manifest "$T/m.manifest.json" half shape '[2, 3]'
	run --separate-stderr "$PW" verify "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'tensor "half": byteLength 8 disagrees with'\
' float16[2, 3] (12 bytes)' ]]
}

@test "a graph whose consts disagree with the manifest is rejected" {
	pristine
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
	[[ "$stderr" == *'const "w": declared float32[3, 4], manifest'*\
'has float32[4, 3]'* ]]
}

@test "malformed npy and npz inputs get clear errors and exit 1, no outputs" {
	mkdir "$T/in"
	printf 'not numpy' > "$T/in/bad.npy"
	head -c 100 "$DATA/f32.npy" > "$T/in/trunc.npy"
	head -c 140 "$DATA/f32.npy" > "$T/in/short.npy"
	head -c 300 "$DATA/deflated.npz" > "$T/in/trunc.npz"
	$PY -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.index(b"\x93NUMPY") + 128 + 4; b[i] ^= 1
open(sys.argv[2], "wb").write(b)' "$DATA/stored.npz" "$T/in/crc.npz"
	mkdir "$T/in/d"
	cp "$DATA/f32.npy" "$DATA/object.npy" "$T/in/d/"
	printf 'x' > "$T/in/notes.txt"
	mkdir "$T/out"
	while IFS='|' read -r src want; do
		run --separate-stderr "$PW" pack -o "$T/out/x.weights" "$src"
		echo "$src: $status: $stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == "$E $want"* ]]
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
		only "$T/out"
	done <<E
$T/in/bad.npy|$T/in/bad.npy: not an .npy file (bad magic)
$T/in/trunc.npy|$T/in/trunc.npy: truncated header (118 bytes announced, 90
$T/in/short.npy|$T/in/short.npy: truncated data: float32[2, 3] needs 24
$T/in/trunc.npz|$T/in/trunc.npz: not a zip archive, or one cut short
$T/in/crc.npz|$T/in/crc.npz: fc1.weight.npy: CRC error
$DATA/badmember.npz|$DATA/badmember.npz: x.npy: not an .npy file (bad magic)
$DATA/c64.npy|$DATA/c64.npy: unsupported dtype '<c8'
$DATA/bool.npy|$DATA/bool.npy: unsupported dtype '|b1'
$DATA/bigendian.npy|$DATA/bigendian.npy: big-endian data ('>f4') is not
$DATA/object.npy|$DATA/object.npy: object arrays are not supported
$DATA/structured.npy|$DATA/structured.npy: structured arrays are not supported
$T/in/d|$T/in/d/object.npy: object arrays are not supported
$T/in/notes.txt|$T/in/notes.txt: expected a directory, an .npz or an .npy file
$T/in/none.npy|$T/in/none.npy: No such file or directory
E
	run --separate-stderr "$PW" pack -o "$T/out/x.weights" "$T/in/d" \
	    "$DATA/c64.npy"
	[ "$status" -eq 1 ]
	only "$T/out"
}

@test "the same tensor name from two sources is an error naming both" {
	mkdir -p "$T/w2"
	cp "$T/w/ids.npy" "$T/w2/"
	run --separate-stderr "$PW" pack -o "$T/d.weights" "$T/w" "$T/w2"
	[ "$status" -eq 1 ]
	[ "$stderr" = "$E tensor \"ids\" comes from both $T/w/ids.npy and\
 $T/w2/ids.npy" ]
	run --separate-stderr "$PW" pack -o "$T/d.weights" "$DATA/mixed.npz" \
	    "$DATA/f32.npy" "$T/w/ids.npy" "$DATA/mixed.npz"
	[ "$status" -eq 1 ]
	want="\"mixed.w\" comes from both $DATA/mixed.npz and $DATA/mixed.npz"
	[[ "$stderr" == *"tensor $want" ]]
	only "$T" w w2
}

@test "a failed write leaves no output, pack or unpack" {
	pristine
	# the manifest cannot be written: no weights file either
	run --separate-stderr "$PW" pack -o "$T/p.weights" -m "$T/no/p.json" \
	    "$T/w"
	[ "$status" -eq 1 ]
	[ ! -e "$T/p.weights" ]
	run --separate-stderr "$PW" pack -o "$T/no/p.weights" "$T/w"
	[ "$status" -eq 1 ]
	only "$T" m.manifest.json m.weights w
	# the last tensor's file exists: refused before any write
	mkdir -p "$T/out/ids.npy"
	run --separate-stderr "$PW" unpack -d "$T/out" "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/out/ids.npy: exists (-f overwrites it)" ]]
	only "$T/out" ids.npy
	# with -f, it cannot be written: the first three are not either
	run --separate-stderr "$PW" unpack -f -d "$T/out" "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/out/ids.npy: Is a directory" ]]
	only "$T/out" ids.npy
	# a name no file can have: nothing written
	$PY -c 'import json, sys
p = sys.argv[1]; m = json.load(open(p))
m["tensors"]["a/b"] = m["tensors"].pop("half")
json.dump(m, open(p, "w"))' "$T/m.manifest.json"
	run --separate-stderr "$PW" unpack -d "$T/o2" "$T/m.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'tensor "a/b": not usable as a file name in '"$T/o2"* ]]
	[ ! -e "$T/o2" ]
}

@test "int4 tensors verify and list, but have no .npy form to unpack to" {
	pristine
	# half: 4 float16 values, 8 bytes; the same bytes as 16 int4 values
	edit_manifest "$T/m.manifest.json" half dataType '"int4"'
	edit_manifest "$T/m.manifest.json" half shape '[16]'
	"$PW" verify "$T/m.weights"
	run --separate-stderr "$PW" list "$T/m.weights"
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "$(printf 'half\tint4\t[16]\t192\t8\tok')" ]
	run --separate-stderr "$PW" unpack -d "$T/o" "$T/m.weights"
	[ "$status" -eq 1 ]
	[ "$stderr" = "$E $T/m.weights: tensor \"half\": int4 has no .npy type" ]
	[ ! -e "$T/o" ]
}

@test "usage errors exit 2" {
	for args in "" "frob x" "pack" "pack -a 3 x" "pack -a 0 x" \
	    "pack -a 8192 x" "pack -a x x" "pack -z x" "unpack" \
	    "unpack a b" "verify" "verify -d x a.weights" "list a b"; do
		run --separate-stderr "$PW" $args
		echo "$args: $status"
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"usage: nnl-pack-weights pack"* ]]
	done
	run --separate-stderr "$PW" pack -a 3 x
	[[ "$stderr" == "$E -a 3: expected a power of two from 1 to 4096"* ]]
	cd "$T"
	run --separate-stderr "$PW" pack .
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"cannot name the output after it; use -o"* ]]
	only "$T" w
}

@test "the default output is named after the first source" {
	cd "$T"
	"$PW" pack w/
	[ -f w.weights ]
	[ -f w.manifest.json ]
	cp "$DATA/stored.npz" model.npz
	"$PW" pack model.npz "$DATA/f32.npy"
	"$PW" verify model.weights
	[ -f model.manifest.json ]
	"$PW" pack -o plain "$DATA/f32.npy"
	"$PW" list plain
	[ -f plain.manifest.json ]
}

@test "-m names the manifest for every command" {
	"$PW" pack -o "$T/a.weights" -m "$T/meta.json" "$T/w"
	[ -f "$T/meta.json" ]
	[ ! -e "$T/a.manifest.json" ]
	run --separate-stderr "$PW" verify "$T/a.weights"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/a.manifest.json: No such file or directory" ]]
	"$PW" verify -m "$T/meta.json" "$T/a.weights"
	"$PW" list -m "$T/meta.json" "$T/a.weights"
	"$PW" unpack -m "$T/meta.json" -d "$T/o" "$T/a.weights"
	run same_arrays "$T/w" "$T/o"
	[ "$status" -eq 0 ]
}

@test "the round trip runs clean under valgrind" {
	command -v valgrind >/dev/null || skip "no valgrind"
	# a sanitizer build (make check-asan) checks this itself
	! ldd "$PW" | grep -q libasan || skip "a sanitizer build"
	vg="valgrind -q --error-exitcode=99 --leak-check=full"
	vg="$vg --errors-for-leak-kinds=definite"
	$vg "$PW" pack -o "$T/v.weights" "$T/w" "$DATA/mixed.npz" \
	    "$DATA/fortran3.npy"
	$vg "$PW" verify "$T/v.weights"
	$vg "$PW" list "$T/v.weights" > /dev/null
	$vg "$PW" unpack -d "$T/vo" "$T/v.weights"
	run --separate-stderr $vg "$PW" pack -o "$T/x.weights" \
	    "$DATA/object.npy"
	[ "$status" -eq 1 ]
	cmp "$T/w/ids.npy" "$T/vo/ids.npy"
}

@test "the page's SYNOPSIS is usage()" {
	syn=$(mandoc -T ascii "$MAN" | col -b |
	    awk '/^SYNOPSIS/ { f = 1; next } /^[A-Z]/ { f = 0 } f' |
	    tr -s ' \t\n' ' ')
	usage=$("$PW" 2>&1 | sed 's/^usage: //' | tr -s ' \t\n' ' ')
	[ "$(echo $syn)" = "$(echo $usage)" ]
}

@test "the page's EXAMPLES run" {
	mkdir "$T/ex"
	ln -s "$BATS_TEST_DIRNAME/.." "$T/ex/tests"
	awk '/^\.Sh EXAMPLES/ { f = 1; next } /^\.Sh / { f = 0 }
	    f && /^\.Bd -literal/ { b = 1; next } f && /^\.Ed/ { b = 0; next }
	    f && b { gsub(/\\e/, "\\"); print }' "$MAN" > "$T/ex.sh"
	[ "$(grep -c nnl-pack-weights "$T/ex.sh")" -ge 6 ]
	cd "$T/ex"
	export PATH="$BIN:$PATH"
	run --separate-stderr sh -ex "$T/ex.sh"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -f model.weights ]
	[ -f unpacked/fc1.weight.npy ]
	[ -f params.weights ]
	[ -f params.json ]
}
