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
}

@test "nnc import with no options writes MODEL.nnl and ./weights that pass nnc test" {
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

@test "webnn-graph text: all eight dtypes, outputs split by commas without a semicolon" {
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
