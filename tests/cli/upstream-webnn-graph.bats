#!/usr/bin/env bats
# Files as tarekziade/webnn-graph writes them, read by nnl.  Each
# fixture is written here by hand from upstream's own definitions:
# the JSON from its serde structs (src/ast.rs: "quantized" always
# written, a node's "outputs" written as null when it has one output,
# "version" 2 from new_graph_json), the text from its grammar
# (src/wg.pest: header "v" Int, names (ALPHA|_|/|$)(ALNUM|_|.|/)*), the
# tensor directories from create-manifest (src/weights_io.rs: NAME.bin
# raw bytes beside NAME.meta.json, as examples/tensors/W.meta.json),
# the manifest check from validate --weights-manifest (src/main.rs,
# src/validate.rs) and --endianness from create-manifest.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

# Two float32 tensors as create-manifest's input: W [3, 2], b [2].
tensors() {
	mkdir -p tensors
	/usr/bin/python3 - <<'PY'
import struct
open("tensors/W.bin", "wb").write(struct.pack("<6f", 1, 2, 3, 4, 5, 6))
open("tensors/b.bin", "wb").write(struct.pack("<2f", 0.5, -0.5))
open("tensors/W.meta.json", "w").write('{\n  "dataType": "float32",\n'
    '  "shape": [\n    3,\n    2\n  ],\n  "byteOffset": 8,\n'
    '  "byteLength": 24,\n  "layout": "row-major"\n}')
open("tensors/b.meta.json", "w").write('{\n  "dataType": "float32",\n'
    '  "shape": [\n    2\n  ],\n  "byteOffset": 32,\n'
    '  "byteLength": 8,\n  "layout": "row-major"\n}')
PY
}

# The graph over them, with plain names and v1, so that each test
# below fails only for its own reason.
graph() {
	cat > g.webnn <<'G'
webnn_graph "g" v1 {
  inputs {
    x: f32[1, 3];
  }

  consts {
    W: f32[3, 2] @weights("W");
    b: f32[2] @weights("b");
  }

  nodes {
    h = matmul(x, W);
    y = add(h, b);
  }

  outputs { y; }
}
G
}

@test "JSON as webnn-graph's serializer writes it reads, and back to text" {
	cat > up.json <<'J'
{
  "format": "webnn-graph-json",
  "version": 2,
  "quantized": false,
  "inputs": {
    "input/x.0": {
      "dataType": "float32",
      "shape": [1, 3]
    }
  },
  "consts": {
    "$W.a": {
      "dataType": "float32",
      "shape": [3, 2],
      "init": {"kind": "weights", "ref": "W"}
    }
  },
  "nodes": [
    {
      "id": "/fc/MatMul",
      "op": "matmul",
      "inputs": ["input/x.0", "$W.a"],
      "options": {},
      "outputs": null
    },
    {
      "id": "out.y",
      "op": "relu",
      "inputs": ["/fc/MatMul"],
      "options": {},
      "outputs": null
    }
  ],
  "outputs": {"out.y": "out.y"}
}
J
	# the schema takes it as it is
	/usr/bin/python3 "$ROOT/tests/validate-schema.py" \
	    "$ROOT/schema/webnn-graph.schema.json" up.json
	run --separate-stderr "$BIN/nnl-parse" -o a.json up.json
	echo "$stderr"
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
assert g["version"] == 2, g["version"]
assert [n["id"] for n in g["nodes"]] == ["/fc/MatMul", "out.y"]
assert all("outputs" not in n for n in g["nodes"]), g["nodes"]
assert g["nodes"][0]["inputs"] == ["input/x.0", "$W.a"]' a.json
	# to .webnn as upstream's grammar reads it, and back the same
	run --separate-stderr "$BIN/nnl-parse" -t webnn -o up.webnn up.json
	[ "$status" -eq 0 ]
	grep -qx 'webnn_graph "" v2 {' up.webnn
	grep -qxF '    /fc/MatMul = matmul(input/x.0, $W.a);' up.webnn
	grep -qxF '    $W.a: f32[3, 2] @weights("W");' up.webnn
	# every token is one of upstream's (src/wg.pest): its ident,
	# string, number, punctuation and annotations
	/usr/bin/python3 -c 'import re, sys
tok = re.compile(r"\s+|#[^\n]*|\"(?:\\.|[^\"\\])*\"|"
    r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|"
    r"[A-Za-z_/$][A-Za-z0-9_./]*|[{}\[\](),;:=]|"
    r"@(?:weights|scalar|bytes|quantized)\b")
t = open(sys.argv[1]).read()
i = 0
while i < len(t):
    m = tok.match(t, i)
    assert m and m.end() > i, t[i:i + 20]
    i = m.end()' up.webnn
	run --separate-stderr "$BIN/nnl-parse" -o b.json up.webnn
	[ "$status" -eq 0 ]
	cmp a.json b.json
	# a name upstream's grammar cannot hold is still refused
	sed 's/out\.y/out-y/g' up.json > bad.json
	run --separate-stderr "$BIN/nnl-parse" -t webnn bad.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'"out-y" is not a valid .webnn identifier'* ]]
}

@test ".webnn text v2 with /, . and dollars in names reads; v3 is refused" {
	cat > g.webnn <<'G'
webnn_graph "g" v2 {
  inputs {
    input/x.0: f32[1, 3];
  }

  consts {
    $W.a: f32[3, 2] @weights("W");
  }

  nodes {
    /fc/MatMul = matmul(input/x.0, $W.a);
    out.y = relu(/fc/MatMul);
  }

  outputs { out.y; }
}
G
	run --separate-stderr "$BIN/nnl-parse" -t webnn g.webnn
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat g.webnn)" ]
	sed 's/ v2 / v3 /' g.webnn > v3.webnn
	run --separate-stderr "$BIN/nnl-parse" v3.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'v3.webnn:1:17: error: unsupported version v3'* ]]
}

@test "pack reads NAME.bin + NAME.meta.json; an empty directory is an error" {
	tensors
	run --separate-stderr "$BIN/nnl-pack-weights" pack -o m.weights \
	    tensors
	echo "$stderr"
	[ "$status" -eq 0 ]
	# each tensor's bytes, where the manifest says, are the .bin's
	/usr/bin/python3 -c 'import json
m = json.load(open("m.manifest.json"))
w = open("m.weights", "rb").read()
for n, shape in (("W", [3, 2]), ("b", [2])):
    t = m["tensors"][n]
    assert t["dataType"] == "float32" and t["shape"] == shape, t
    raw = open("tensors/%s.bin" % n, "rb").read()
    got = w[t["byteOffset"]:t["byteOffset"] + t["byteLength"]]
    assert got == raw, n'
	run --separate-stderr "$BIN/nnl-pack-weights" manifest \
	    -m only.manifest.json tensors
	[ "$status" -eq 0 ]
	cmp m.manifest.json only.manifest.json
	# a .bin whose size disagrees with its meta, and one without meta
	mkdir short && cp tensors/W.meta.json short/ &&
	    head -c 20 tensors/W.bin > short/W.bin
	run --separate-stderr "$BIN/nnl-pack-weights" pack -o s.weights short
	[ "$status" -eq 1 ]
	m='short/W.bin: 20 bytes, but W.meta.json gives a float32 tensor'
	[[ "$stderr" == *"$m of 24 bytes"* ]]
	mkdir nometa && cp tensors/W.bin nometa/
	run --separate-stderr "$BIN/nnl-pack-weights" pack -o n.weights nometa
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nometa/W.meta.json: No such file'* ]]
	mkdir fifo && cp tensors/W.meta.json fifo/ && mkfifo fifo/W.bin
	run --separate-stderr timeout 10 "$BIN/nnl-pack-weights" pack \
	    -o f.weights fifo
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'fifo/W.bin: not a regular file'* ]]
	mkdir empty
	run --separate-stderr "$BIN/nnl-pack-weights" pack -o e.weights empty
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'empty: no tensors'* ]]
	[ ! -e e.weights ] && [ ! -e e.manifest.json ] && [ ! -e s.weights ]
}

@test "nnl-parse -m checks a graph against a manifest without weights" {
	tensors
	graph
	"$BIN/nnl-pack-weights" manifest -m m.manifest.json tensors
	run --separate-stderr "$BIN/nnl-parse" -m m.manifest.json -o ok.json \
	    g.webnn
	echo "$stderr"
	[ "$status" -eq 0 ]
	! grep -q '"weights": {' ok.json
	sed 's/b: f32\[2\]/b: f32[3]/' g.webnn > bad.webnn
	run --separate-stderr "$BIN/nnl-parse" -m m.manifest.json bad.webnn
	[ "$status" -eq 1 ]
	m='bad.webnn:8:5: error: const "b": declared float32[3], manifest'
	[[ "$stderr" == *"$m m.manifest.json has float32[2]"* ]]
	sed 's/"W")/"V")/' g.webnn > miss.webnn
	run --separate-stderr "$BIN/nnl-parse" -m m.manifest.json miss.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'const "W": weights "V" not in manifest'* ]]
}

@test "--endianness little is taken; big is refused, never misread" {
	tensors
	run --separate-stderr "$BIN/nnl-pack-weights" manifest \
	    --endianness little -m l.manifest.json tensors
	[ "$status" -eq 0 ]
	grep -q '"endianness": "little"' l.manifest.json
	run --separate-stderr "$BIN/nnl-pack-weights" pack \
	    --endianness big -o b.weights tensors
	[ "$status" -eq 2 ]
	m='--endianness big: nnl writes little-endian weights only'
	[[ "$stderr" == *"$m"* ]]
	[ ! -e b.weights ]
	"$BIN/nnl-pack-weights" pack -o m.weights tensors
	sed 's/"little"/"big"/' m.manifest.json > big.manifest.json
	run --separate-stderr "$BIN/nnl-pack-weights" verify \
	    -m big.manifest.json m.weights
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'field "endianness": only "little" is supported'* ]]
}

@test "nnl-run, nnl-shape-infer (and emit-c) find the weights beside .webnn" {
	tensors
	graph
	"$BIN/nnl-pack-weights" pack -o g.weights tensors
	/usr/bin/python3 -c 'import struct
h = (b"{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, "
    b"\x27shape\x27: (1, 3), }")
h += b" " * (63 - 10 - len(h)) + b"\n"
open("x.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h
    + struct.pack("<3f", 1, 1, 2))'
	run --separate-stderr "$BIN/nnl-run" -d out g.webnn x=x.npy
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	# x W + b = [1+3+10, 2+4+12] + [0.5, -0.5], by hand
	/usr/bin/python3 -c 'import struct
d = open("out/y.npy", "rb").read()
assert struct.unpack("<2f", d[-8:]) == (14.5, 17.5), d[-8:]'
	run --separate-stderr "$BIN/nnl-shape-infer" -o s.json g.webnn
	[ "$status" -eq 0 ]
	grep -q '"weights": {"file": "g.weights"' s.json
	# and so nnl-emit-c gets them down the pipeline
	"$BIN/nnl-shape-infer" g.webnn | "$BIN/nnl-plan-memory" |
	    "$BIN/nnl-emit-c" -o m.c -
	[ -s m.c ] && [ -s m.h ]
}

# An ONNX MatMul with a symbolic batch and a 2 KiB weight (above the 64
# bytes kept inline), x [batch, 64] times W [64, 8].
bigonnx() {
	/usr/bin/python3 - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
W = (np.arange(512, dtype=np.float32).reshape(64, 8) / 100)
g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])],
    "big", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 64])],
    [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 8])],
    [numpy_helper.from_array(W, "W")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
    "big.onnx")
np.save("x.npy", np.linspace(-1, 1, 128, dtype=np.float32).reshape(2, 64))
np.save("want.npy", np.load("x.npy").astype(np.float64) @ W)
PY
}

@test "nnl-onnx-import reads STEM.dims.json beside the model" {
	bigonnx
	echo '{"freeDimensionOverrides": {"batch": 2}}' > big.dims.json
	run --separate-stderr "$BIN/nnl-onnx-import" -o big.json big.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import json
g = json.load(open("big.json"))
assert g["inputs"]["x"]["shape"] == [2, 64], g["inputs"]'
	# --dim still takes precedence; --dims replaces the sidecar
	run --separate-stderr "$BIN/nnl-onnx-import" -d batch=3 big.onnx
	[ "$status" -eq 0 ]
	[[ "$output" == *'"x": {"dataType": "float32", "shape": [3, 64]}'* ]]
	echo '{"batch": 0}' > big.dims.json
	run --separate-stderr "$BIN/nnl-onnx-import" big.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'big.dims.json'* ]]
}

@test "nnl-onnx-import -o model.webnn writes text, its weights beside" {
	bigonnx
	run --separate-stderr "$BIN/nnl-onnx-import" -d batch=2 \
	    -o big.webnn big.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -qx 'webnn_graph "big" v1 {' big.webnn
	grep -qxF '    x: f32[2, 64];' big.webnn
	grep -qxF '    W: f32[64, 8] @weights("W");' big.webnn
	[ -f big.weights ] && [ -f big.manifest.json ]
	# found beside it and run, against NumPy
	run --separate-stderr "$BIN/nnl-run" -d out big.webnn x=x.npy
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import numpy as np
d = np.abs(np.load("out/y.npy") - np.load("want.npy")).max()
assert d < 1e-4, d'
	# nnc import writes the text too, its weights beside it
	run --separate-stderr "$BIN/nnc" import -o sub/n.webnn big.onnx \
	    2>/dev/null
	[ "$status" -eq 1 ]	# batch is not pinned: nnc has no --dim
	echo '{"batch": 2}' > big.dims.json
	run --separate-stderr "$BIN/nnc" import -o sub/n.webnn big.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -f sub/n.weights ] && [ -f sub/n.manifest.json ]
	grep -qxF '    W: f32[64, 8] @weights("W");' sub/n.webnn
}

@test "nnl-onnx-import --inline-weights puts every constant in the graph" {
	mkdir w && cd w	# bats keeps files of its own in $T
	bigonnx
	TMPDIR="$PWD" run --separate-stderr "$BIN/nnl-onnx-import" \
	    --inline-weights -d batch=2 -o i.json big.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import json, numpy as np
g = json.load(open("i.json"))
c = g["consts"]["W"]
assert c["init"]["kind"] == "inlineBytes", c["init"]["kind"]
b = np.frombuffer(bytes(c["init"]["bytes"]), "<f4").reshape(64, 8)
assert (b == np.arange(512, dtype=np.float32).reshape(64, 8) / 100).all()
assert "weights" not in g'
	# no weights file written, here or left in a temporary
	[ "$(ls -A | sort | tr '\n' ' ')" = "big.onnx i.json want.npy x.npy " ]
	run --separate-stderr "$BIN/nnl-onnx-import" --inline-weights \
	    -w a.weights -m a.manifest.json big.onnx
	[ "$status" -eq 2 ]
}

@test "int4 and uint4 .bin tensors are refused, never read as nibbles" {
	# upstream's .bin holds a byte per 4-bit value; nnl packs two to a
	# byte, so the same bytes would be other numbers
	for t in int4 uint4; do
		mkdir "$t"
		printf '\001\002\003\004' > "$t/q.bin"
		printf '{"dataType": "%s", "shape": [4], "byteLength": 4}' \
		    "$t" > "$t/q.meta.json"
		run --separate-stderr "$BIN/nnl-pack-weights" pack \
		    -o "$t.weights" "$t"
		[ "$status" -eq 1 ]
		m="$t/q.meta.json: $t: webnn-graph stores a byte per"
		[[ "$stderr" == *"$m 4-bit value; give the tensor as .npy"* ]]
		[ ! -e "$t.weights" ] && [ ! -e "$t.manifest.json" ]
		run --separate-stderr "$BIN/nnl-pack-weights" manifest \
		    -m "$t.m.json" "$t"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"$m 4-bit value"* ]]
		[ ! -e "$t.m.json" ]
	done
}
