#!/usr/bin/env bats
# nnl-pack-weights extract / inline / manifest: webnn-graph's
# extract-weights, inline-weights and create-manifest, nnl's spelling.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
	# W = [[1, 2], [3, 4]] as float32 bytes, written by NumPy
	bytes=$(/usr/bin/python3 -c 'import numpy as np
print(", ".join(str(b) for b in np.array([[1, 2], [3, 4]], np.float32).tobytes()))')
	cat > m.webnn <<G
webnn_graph "m" v1 {
  inputs {
    x: f32[1, 2];
  }

  consts {
    W: f32[2, 2] @bytes([$bytes]);
    s: f32[] @scalar(0.5);
  }

  nodes {
    h = matmul(x, W);
    y = mul(h, s);
  }

  outputs { y; }
}
G
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.array([[2, -1]], np.float32))'
}

@test "extract: inline bytes to a weights file beside the graph; inline: back, byte for byte" {
	"$BIN/nnl-pack-weights" extract -o ext.webnn m.webnn
	grep -qxF '    W: f32[2, 2] @weights("W");' ext.webnn
	grep -qxF '    s: f32[] @scalar(0.5);' ext.webnn
	"$BIN/nnl-pack-weights" unpack -d un ext.weights
	/usr/bin/python3 -c 'import numpy as np
assert np.array_equal(np.load("un/W.npy"), np.array([[1, 2], [3, 4]], np.float32))'
	"$BIN/nnl-pack-weights" inline -o back.webnn ext.webnn
	cmp m.webnn back.webnn
	# the extracted graph computes what the inline one does: x W / 2
	mkdir a b
	"$BIN/nnl-run" -d a m.webnn x=x.npy > /dev/null
	"$BIN/nnl-parse" -o ext.json ext.webnn
	"$BIN/nnl-run" -d b ext.json x=x.npy > /dev/null
	/usr/bin/python3 -c 'import numpy as np
want = np.array([[2, -1]]) @ np.array([[1, 2], [3, 4]]) * 0.5
assert np.allclose(np.load("a/y.npy"), want) and np.allclose(np.load("b/y.npy"), want)'
}

@test "extract to JSON with -w and -m names the pair in the graph" {
	"$BIN/nnl-pack-weights" extract -o e.json -w a.weights -m a.manifest.json m.webnn
	grep -qF '"weights": {"file": "a.weights", "manifest": "a.manifest.json"}' e.json
	"$BIN/nnl-pack-weights" verify a.weights
	"$BIN/nnl-pack-weights" inline e.json > i.json
	! grep -q '"weights"' i.json
	grep -q '"kind": "inlineBytes"' i.json
}

@test "extract needs a place for the weights; a graph whose weights are gone is refused" {
	run --separate-stderr "$BIN/nnl-pack-weights" extract m.webnn
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"extract: name the weights file (-w and -m), or the graph's output (-o)"* ]]
	"$BIN/nnl-pack-weights" extract -o ext.webnn m.webnn
	rm ext.weights
	run --separate-stderr "$BIN/nnl-pack-weights" inline -o back.webnn ext.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'ext.webnn: const "W" is in a weights file, and the graph names none (none is beside it)'* ]]
	[ ! -e back.webnn ]
}

@test "manifest: a directory of tensors, described as pack would, no weights written" {
	mkdir npys
	/usr/bin/python3 -c 'import numpy as np
np.save("npys/a.npy", np.ones((2, 3), np.float32)); np.save("npys/b.npy", np.arange(4, dtype=np.int64))'
	"$BIN/nnl-pack-weights" manifest -m dir.manifest.json npys
	[ ! -e dir.manifest.json.weights.tmp ]
	"$BIN/nnl-pack-weights" pack -o p.weights npys
	cmp dir.manifest.json p.manifest.json
	/usr/bin/python3 -c 'import json
t = json.load(open("dir.manifest.json"))["tensors"]
assert t["a"]["shape"] == [2, 3] and t["a"]["byteLength"] == 24, t
assert t["b"]["dataType"] == "int64" and t["b"]["byteLength"] == 32, t'
	run --separate-stderr "$BIN/nnl-pack-weights" manifest npys
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"manifest: name the manifest to write (-m)"* ]]
}
