#!/usr/bin/env bats
# nnl-compat(7): the seed tools' features that no other file shows, tried
# as the seeds' users would; and the page itself checked: every row Y, P
# or D, each P or D explained, each test it names there.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	PY=/usr/bin/python3
	cd "$BATS_TEST_TMPDIR"
}

@test "nnc -V prints what --version prints" {
	run --separate-stderr "$BIN/nnc" -V
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^nnc\ [0-9]+\.[0-9]+ ]]
	[ "$output" = "$("$BIN/nnc" --version)" ]
}

@test "compile without -o names each kind's output after the source" {
	# the seed's emit table: exe <stem>, obj <stem>.o, lib lib<stem>.a,
	# shared lib<stem>.so, header <stem>.h, each library with <stem>.h;
	# the model is named as its file so either naming of the header fits
	sed 's/model test_mlp/model mlp/' "$ROOT/examples/model/model.nnl" \
	    > mlp.nnl
	cp -R "$ROOT/examples/model/weights" .
	"$BIN/nnc" compile mlp.nnl
	[ -x mlp ]
	printf '\0\0\200\77\0\0\0\100\0\0\100\100\0\0\200\100' | ./mlp > y.bin
	[ "$(stat -c %s y.bin)" -eq 8 ]		# two float32 outputs
	"$BIN/nnc" compile --emit obj mlp.nnl
	[ -f mlp.o ] && [ -f mlp.h ] && rm mlp.h
	"$BIN/nnc" compile --emit lib mlp.nnl
	ar t libmlp.a | grep -q '\.o$' && [ -f mlp.h ] && rm mlp.h
	"$BIN/nnc" compile --emit shared mlp.nnl
	[ -f libmlp.so ] && [ -f mlp.h ] && rm mlp.h
	"$BIN/nnc" compile --emit header mlp.nnl
	grep -q 'mlp_infer' mlp.h
	"$BIN/nnc" compile --emit obj --output other.o mlp.nnl
	[ -f other.o ]
}

@test "nnc import with no options writes MODEL.nnl and ./weights" {
	cp "$ROOT"/examples/import_test/model.onnx \
	    "$ROOT"/examples/import_test/input.npy \
	    "$ROOT"/examples/import_test/expected.npy .
	run --separate-stderr "$BIN/nnc" import model.onnx
	[ "$status" -eq 0 ]
	[ -f model.nnl ]
	[ "$(ls weights/*.npy | wc -l)" -eq 4 ]	# two Gemm weights, biases
	run --separate-stderr "$BIN/nnc" test model.nnl --input input.npy \
	    --expected expected.npy
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:* ]]
}

@test "nnc import: an initializer with no data is an error naming it" {
	$PY - <<-'PY'
	import onnx
	from onnx import helper as h, TensorProto as T
	t = T(); t.name = "W"; t.data_type = T.FLOAT; t.dims.extend([3, 4])
	g = h.make_graph([h.make_node("Gemm", ["x", "W"], ["y"], transB=1)],
	    "g", [h.make_tensor_value_info("x", T.FLOAT, [1, 4])],
	    [h.make_tensor_value_info("y", T.FLOAT, [1, 3])], [t])
	onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]),
	    "nodata.onnx")
	PY
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w nodata.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'initializer "W": 0 values for FLOAT[12 elements]'* ]]
	[ ! -e m.nnl ] && [ ! -e w ]
}

@test "ONNX shape arithmetic is folded at import: no number reaches the graph" {
	# Reshape(x, Concat(Slice(Shape(x), 0, 1), [-1])), then Relu: x as
	# [1, 6], what OnnxConverter leaves to its CpuOps polyfill
	$PY - <<-'PY'
	import numpy as np, onnx
	from onnx import helper as h, TensorProto as T, numpy_helper as nh
	c = lambda n, v: nh.from_array(np.array(v, np.int64), n)
	g = h.make_graph([
	    h.make_node("Shape", ["x"], ["s"]),
	    h.make_node("Slice", ["s", "z", "o"], ["b"]),
	    h.make_node("Concat", ["b", "m"], ["t"], axis=0),
	    h.make_node("Reshape", ["x", "t"], ["r"]),
	    h.make_node("Relu", ["r"], ["y"])],
	    "g", [h.make_tensor_value_info("x", T.FLOAT, [1, 2, 3])],
	    [h.make_tensor_value_info("y", T.FLOAT, [1, 6])],
	    [c("z", [0]), c("o", [1]), c("m", [-1])])
	onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]),
	    "shape.onnx")
	np.save("x.npy", np.array([[[1, -2, 3], [-4, 5, -6]]], np.float32))
	PY
	"$BIN/nnl-onnx-import" shape.onnx > s.json
	[ "$(grep -o '"op": "[a-zA-Z]*"' s.json | tr '\n' ' ')" = \
	    '"op": "reshape" "op": "relu" ' ]
	"$BIN/nnl-run" -d out s.json x=x.npy
	$PY -c 'import numpy as np
y = np.load("out/y.npy")
assert y.shape == (1, 6) and y.tolist() == [[1, 0, 3, 0, 5, 0]], y'
}

@test "NNL line and block comments read as nothing" {
	cat > plain.nnl <<-'EOF'
	version 0.2;
	model m {
	    config { weights: "./weights"; io: "stdio"; }
	    layer input = Input(shape: [8]);
	    layer fc1 = Dense(units: 3, activation: "relu");
	}
	EOF
	cat > commented.nnl <<-'EOF'
	// a line comment before everything
	version 0.2; // after a statement
	/* a block comment
	   over two lines */
	model m {
	    config { weights: /* inside */ "./weights"; io: "stdio"; }
	    layer input = Input(shape: [8]);	// the input
	    /* layer gone = Dense(units: 9); */
	    layer fc1 = Dense(units: 3, /* x */ activation: "relu");
	}
	EOF
	run --separate-stderr "$BIN/nnc" inspect commented.nnl
	[ "$status" -eq 0 ]
	[ "$output" = "$("$BIN/nnc" inspect plain.nnl)" ]
	[[ "$output" != *gone* ]]
}

@test "webnn-graph text: eight dtypes, outputs split by commas, no semicolon" {
	cat > d.webnn <<-'EOF'
	webnn_graph "dt" v1 {
	  inputs {
	    a: f32[2]; b: f16[2]; c: i32[2]; d: u32[2];
	    e: i64[2]; f: u64[2]; g: i8[2]; h: u8[2];
	  }
	  nodes { y = relu(a); z = neg(c); }
	  outputs { y, z }
	}
	EOF
	run --separate-stderr "$BIN/nnl-parse" d.webnn
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | $PY -c 'import json, sys
g = json.load(sys.stdin)
t = {k: v["dataType"] for k, v in g["inputs"].items()}
assert t == dict(a="float32", b="float16", c="int32", d="uint32",
                 e="int64", f="uint64", g="int8", h="uint8"), t
assert g["outputs"] == {"y": "y", "z": "z"}, g["outputs"]'
}

@test "nnl-compat(7): every row Y, P or D, explained, naming tests that exist" {
	page="$ROOT/man/man7/nnl-compat.7"
	run $PY "$ROOT/tests/check-compat.py" "$page" "$ROOT"
	echo "$output"
	[ "$status" -eq 0 ]
	# at least the issue's 98 features, and no P that nobody explains
	[[ "${lines[-1]}" =~ ^rows\ ([0-9]+)\ \(Y ]]
	[ "${BASH_REMATCH[1]}" -ge 98 ]
	# the checker's own negative twins: each fault is found and named
	sed '0,/ Ta Y Ta$/s// Ta N Ta/' "$page" > n.7
	run $PY "$ROOT/tests/check-compat.py" n.7 "$ROOT"
	[ "$status" -eq 1 ] && [[ "$output" == *"status 'N' (only Y, P or D)"* ]]
	# a D row with its reason cut off
	awk '/ Ta D Ta$/ && !d { print; getline; print; getline; print;
	    d = 1; skip = 1; next }
	    skip && /^\.(It|El)/ { skip = 0 } !skip' "$page" > d.7
	run $PY "$ROOT/tests/check-compat.py" d.7 "$ROOT"
	[ "$status" -eq 1 ] && [[ "$output" == *"D row that does not say why"* ]]
	sed '0,/tests\/cli\/nnc.bats/s//tests\/cli\/gone.bats/' "$page" > f.7
	run $PY "$ROOT/tests/check-compat.py" f.7 "$ROOT"
	[ "$status" -eq 1 ] && [[ "$output" == *"no file tests/cli/gone.bats"* ]]
	sed '0,/^\.Dq "exe: raw/s//.Dq "exe: cooked/' "$page" > t.7
	run $PY "$ROOT/tests/check-compat.py" t.7 "$ROOT"
	[ "$status" -eq 1 ] &&
	    [[ "$output" == *'no test "exe: cooked float32 in,'* ]]
}

@test "nnc(1), nnl-parse(1) and nnl(7) point to nnl-compat(7)" {
	for p in man1/nnc.1 man1/nnl-parse.1 man7/nnl.7; do
		sed -n '/^\.Sh SEE ALSO/,$p' "$ROOT/man/$p" |
		    grep -q '^\.Xr nnl-compat 7' || { echo "$p"; false; }
	done
	for p in man1/nnc.1 man1/nnl-parse.1; do
		sed -n '/^\.Sh DESCRIPTION/,/^\.Sh /p' "$ROOT/man/$p" |
		    grep -q '^\.Xr nnl-compat 7' || { echo "$p"; false; }
	done
}
