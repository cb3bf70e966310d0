#!/usr/bin/env bats
# Bounded reads: files a graph or a model names (weights, manifest, ONNX
# external data, .npy and .npz weights) must be regular files, and tiny
# hostile files cannot make a program read forever, hang or allocate
# what the file does not hold.  Every command runs under `timeout 20`
# and a 1 GiB address-space limit, so a hang or a runaway allocation
# fails the test instead of the machine; each refusal names the file.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	PY=/usr/bin/python3
	T="$BATS_TEST_TMPDIR/t"
	mkdir -p "$T"
	cd "$T"
	$PY -c 'import numpy as np
np.save("w.npy", np.array([1, 2], np.float32))'
	"$BIN/nnl-pack-weights" pack -o m.weights w.npy
	mkfifo fifo
	mkdir dir
}

# Run a command bounded in time (20 s) and memory (1 GiB).  A sanitizer
# build (make check-asan) reserves terabytes of address space to start,
# so there ASan bounds the memory itself, failing as malloc does.
bounded() {
	if ldd "$BIN/nnl-reorder" | grep -q libasan; then
		a="max_allocation_size_mb=1024:hard_rss_limit_mb=1024"
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:$a:allocator_may_return_null=1" \
		    timeout 20 "$@"
	else
		bash -c 'ulimit -v 1048576 && exec timeout 20 "$@"' bounded "$@"
	fi
}

# A graph whose "weights" member names file $1 and manifest $2.
graph() {
	cat > g.json <<G
{"format": "webnn-graph-json", "version": 1,
 "weights": {"file": "$1", "manifest": "$2"},
 "inputs": {"x": {"dataType": "float32", "shape": [2]}},
 "consts": {"w": {"dataType": "float32", "shape": [2],
   "init": {"kind": "weights", "ref": "w"}}},
 "nodes": [{"id": "y", "op": "add", "inputs": ["x", "w"], "options": {},
   "types": [{"dataType": "float32", "shape": [2]}]}],
 "outputs": {"y": "y"}}
G
}

@test "a graph with regular weights files loads" {
	graph m.weights m.manifest.json
	run --separate-stderr bounded "$BIN/nnl-reorder" g.json
	[ "$status" -eq 0 ]
}

@test "weights file that is a FIFO, /dev/zero or a directory is refused" {
	for f in fifo /dev/zero dir; do
		graph "$f" m.manifest.json
		run --separate-stderr bounded "$BIN/nnl-reorder" g.json
		[ "$status" -eq 1 ]
		case $f in
		fifo) k="a FIFO" ;; dir) k="a directory" ;;
		*) k="a character device" ;;
		esac
		[ "$stderr" = "nnl-reorder: g.json: error: field \"weights\": member \"file\": $f: not a regular file ($k)" ]
	done
}

@test "manifest that is a FIFO, /dev/zero or a directory is refused" {
	for f in fifo /dev/zero dir; do
		graph m.weights "$f"
		run --separate-stderr bounded "$BIN/nnl-reorder" g.json
		[ "$status" -eq 1 ]
		[[ "$stderr" == "nnl-reorder: g.json: error: field \"weights\": member \"manifest\": $f: not a regular file"* ]]
	done
}

@test "every pass refuses a FIFO as weights without hanging" {
	graph fifo m.manifest.json
	for p in reorder shape-infer fuse plan-memory emit-js emit-c run \
	    parse; do
		run --separate-stderr bounded "$BIN/nnl-$p" g.json
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"g.json: error: field \"weights\": member \"file\": fifo: not a regular file (a FIFO)"* ]]
	done
}

@test "a manifest over 64 MiB is refused before it is read" {
	cp m.manifest.json big.manifest.json
	truncate -s $((64 * 1024 * 1024 + 1)) big.manifest.json
	graph m.weights big.manifest.json
	run --separate-stderr bounded "$BIN/nnl-reorder" g.json
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-reorder: error: big.manifest.json: 67108865 bytes, over the limit of 67108864" ]
}

@test "a tensor past the end of the weights file is refused, naming it" {
	# 2^40 bytes declared at offset 64 in a 72-byte file
	$PY -c 'import json
m = json.load(open("m.manifest.json"))
m["tensors"]["w"].update(shape=[2**19, 2**19], byteLength=2**40)
json.dump(m, open("huge.manifest.json", "w"))'
	graph m.weights huge.manifest.json
	run --separate-stderr bounded "$BIN/nnl-reorder" g.json
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-reorder: error: m.weights: tensor \"w\": byteOffset 64 + byteLength 1099511627776 overruns the file (72 bytes)" ]
}

@test "pack-weights verify and unpack refuse a FIFO" {
	for cmd in verify unpack; do
		run --separate-stderr bounded "$BIN/nnl-pack-weights" $cmd \
		    -m m.manifest.json fifo
		[ "$status" -eq 1 ]
		[ "$stderr" = "nnl-pack-weights: error: fifo: not a regular file (a FIFO)" ]
	done
}

# zipbomb OUT COUNT SIZE: an .npz of COUNT deflated members a0.npy ...,
# each a float32 .npy of SIZE bytes of zeros after its 128-byte header,
# written by hand from one compressed 1 MiB block repeated (so that a
# 3 MB archive declaring gigabytes takes a second to make); CRCs and
# sizes are true.
zipbomb() {
	$PY - "$@" <<'PY'
import struct, sys, zlib
out, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
assert size % (1 << 20) == 0 or size < (1 << 20)
hdr = b"{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % (size // 4)
hdr = b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) + hdr.ljust(117) + b"\n"
assert len(hdr) == 128
co = zlib.compressobj(9, zlib.DEFLATED, -15)
parts = [co.compress(hdr) + co.flush(zlib.Z_FULL_FLUSH)]
crc = zlib.crc32(hdr)
block = min(size, 1 << 20)
z = bytes(block)
c = co.compress(z) + co.flush(zlib.Z_FULL_FLUSH)
for _ in range(size // block):
    parts.append(c)
    crc = zlib.crc32(z, crc)
parts.append(co.flush())
data = b"".join(parts)
usize = len(hdr) + size
local, central = [], []
off = 0
for i in range(count):
    name = b"a%d.npy" % i
    lh = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0x21, crc,
                     len(data), usize, len(name), 0) + name
    central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20,
                   0, 8, 0, 0x21, crc, len(data), usize, len(name), 0, 0,
                   0, 0, 0, off) + name)
    local.append(lh + data)
    off += len(lh) + len(data)
cd = b"".join(central)
end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, count, count, len(cd),
                  off, 0)
with open(out, "wb") as f:
    f.write(b"".join(local) + cd + end)
PY
}

@test "an .npz inflating to 3 GiB is refused before inflating" {
	zipbomb bomb.npz 3 $((1 << 30))
	[ "$(stat -c %s bomb.npz)" -lt $((4 << 20)) ]
	run --separate-stderr bounded "$BIN/nnl-pack-weights" pack \
	    -o b.weights bomb.npz
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-pack-weights: error: bomb.npz: a1.npy: the members inflate to more than 2147483648 bytes, the limit" ]
	[ ! -e b.weights ]
}

@test "pack-weights -l sets the .npz limit, to the byte" {
	zipbomb small.npz 3 $((1 << 20))
	# three members of 128 + 1 MiB bytes each
	total=$((3 * (128 + (1 << 20))))
	run --separate-stderr bounded "$BIN/nnl-pack-weights" pack \
	    -l $((total - 1)) -o s.weights small.npz
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-pack-weights: error: small.npz: a2.npy: the members inflate to more than $((total - 1)) bytes, the limit" ]
	run --separate-stderr bounded "$BIN/nnl-pack-weights" pack \
	    -l $total -o s.weights small.npz
	[ "$status" -eq 0 ]
	$PY -c 'import numpy as np
z = np.load("small.npz")
assert sorted(z.files) == ["a0", "a1", "a2"]
assert all(z[k].shape == (1 << 18,) and not z[k].any() for k in z.files)'
	run --separate-stderr "$BIN/nnl-pack-weights" list s.weights
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	run --separate-stderr "$BIN/nnl-pack-weights" pack -l 2X small.npz
	[ "$status" -eq 2 ]
	[[ "$stderr" == "nnl-pack-weights: error: -l 2X: expected a size such as 4096, 512M or 2G"* ]]
}

@test "an .npz member whose .npy header wants more than the member holds" {
	$PY -c 'import io, zipfile, numpy.lib.format as f
b = io.BytesIO()
f.write_array_header_1_0(b, {"descr": "<f4", "fortran_order": False,
    "shape": (2**30,)})
with zipfile.ZipFile("lie.npz", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("x.npy", b.getvalue() + bytes(16))'
	run --separate-stderr bounded "$BIN/nnl-pack-weights" pack \
	    -o l.weights lie.npz
	[ "$status" -eq 1 ]
	[[ "$stderr" == "nnl-pack-weights: error: lie.npz: x.npy: truncated data: float32[1073741824] needs 4294967296 bytes, the file has 16"* ]]
}

@test "an .npy whose header wants terabytes, a FIFO .npy, are refused" {
	$PY -c 'import numpy.lib.format as f
with open("big.npy", "wb") as o:
    f.write_array_header_1_0(o, {"descr": "<f4", "fortran_order": False,
        "shape": (2**40,)})
    o.write(bytes(16))'
	run --separate-stderr bounded "$BIN/nnl-pack-weights" pack \
	    -o x.weights big.npy
	[ "$status" -eq 1 ]
	[[ "$stderr" == "nnl-pack-weights: error: big.npy: truncated data: float32[1099511627776] needs 4398046511104 bytes, the file has 16"* ]]
	mkfifo f.npy
	mkdir d && mkfifo d/g.npy
	run --separate-stderr bounded "$BIN/nnl-pack-weights" pack \
	    -o x.weights f.npy
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-pack-weights: error: f.npy: not a regular file (a FIFO)" ]
	run --separate-stderr bounded "$BIN/nnl-pack-weights" pack \
	    -o x.weights d
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-pack-weights: error: d/g.npy: not a regular file (a FIFO)" ]
	graph m.weights m.manifest.json
	mkfifo in.npy
	run --separate-stderr bounded "$BIN/nnl-run" g.json x=in.npy
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-run: error: in.npy: not a regular file (a FIFO)" ]
}

# model.onnx in directory $1: y = x + c, c being the initializer the
# Python statements in $2 build (TensorProto c of dims [2, 3] to start).
onnx_model() {
	mkdir -p "$1"
	$PY - "$1" "$2" <<'PY'
import sys
from onnx import TensorProto, helper, save
d, body = sys.argv[1], sys.argv[2]
c = TensorProto(name="c", data_type=TensorProto.FLOAT, dims=[2, 3])
exec(body)
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
g = helper.make_graph([helper.make_node("Add", ["x", "c"], ["y"])], "g",
                      [x], [y], [c])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
     d + "/model.onnx")
PY
}

@test "ONNX external data that is a FIFO in the model's folder is refused" {
	onnx_model m '
c.data_location = TensorProto.EXTERNAL
e = c.external_data.add()
e.key, e.value = "location", "w.bin"'
	mkfifo m/w.bin
	run --separate-stderr bounded "$BIN/nnl-onnx-import" -o g.json \
	    m/model.onnx
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-onnx-import: error: m/model.onnx: initializer \"c\": external data \"w.bin\": not a regular file (a FIFO)" ]
	[ ! -e g.json ]
}

@test "ONNX external data past the end of its file is refused by size" {
	onnx_model m '
c.dims[:] = [2**19, 2**19]
c.data_location = TensorProto.EXTERNAL
for k, v in (("location", "w.bin"), ("offset", "8")):
    e = c.external_data.add()
    e.key, e.value = k, v'
	printf '0123456789abcdef' > m/w.bin
	run --separate-stderr bounded "$BIN/nnl-onnx-import" -o g.json \
	    m/model.onnx
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-onnx-import: error: m/model.onnx: initializer \"c\": external data \"w.bin\" holds 16 bytes; offset 8 and length 1099511627776 run past its end" ]
}

@test "ONNX initializer whose dims disagree with its data names both sizes" {
	onnx_model m 'c.dims[:] = [2**19, 2**19]; c.raw_data = bytes(24)'
	run --separate-stderr bounded "$BIN/nnl-onnx-import" -o g.json \
	    m/model.onnx
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-onnx-import: error: m/model.onnx: initializer \"c\": raw_data holds 24 bytes, FLOAT[274877906944 elements] needs 1099511627776" ]
	onnx_model n 'c.dims[:] = [2**19, 2**19]; c.float_data[:] = [1] * 6'
	run --separate-stderr bounded "$BIN/nnl-onnx-import" -o g.json \
	    n/model.onnx
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-onnx-import: error: n/model.onnx: initializer \"c\": 6 values for FLOAT[274877906944 elements]" ]
}
