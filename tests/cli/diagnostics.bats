#!/usr/bin/env bats
# Names on the terminal: a model's names reach diagnostics and listings
# only through escape_tty (common/core/escape.c).  Each input holds names
# that would set the window title, clear the screen, move the cursor,
# reorder text or forge a second diagnostic line if printed raw, or
# weigh 1 MiB; what the programs print holds no control byte, is UTF-8
# without C1 or bidirectional controls, keeps one line per diagnostic
# and names each item recognisably (the escaped forms below are
# written by hand from the payloads in make_hostile.py).

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	D="$ROOT/tests/data/diag"
	cd "$BATS_TEST_TMPDIR"
	/usr/bin/python3 "$D/make_hostile.py" .
}

# safe FILE PROG: terminal-safe, every line PROG's or indented
safe() {
	/usr/bin/python3 "$D/ttysafe.py" "$1" --prog "$2" --max 4096
}

# fails CMD...: CMD exits 1, its standard error in err
fails() {
	local rc=0

	"$@" 2> err || rc=$?
	[ "$rc" -eq 1 ]
}

# lines FILE PROG: how many lines start a diagnostic of PROG
lines() {
	grep -c "^$2: " "$1"
}

@test "a node id that forges a line: one escaped diagnostic (JSON)" {
	fails "$BIN/nnl-parse" --strict unknown-op.json
	safe err nnl-parse
	[ "$(lines err nnl-parse)" -eq 1 ]
	grep -qxF 'nnl-parse: unknown-op.json: error: node "n\x1B[2J\nnnl-parse: everything ok": field "op": unknown op "frobnicate"' err
	! grep -qx 'nnl-parse: everything ok' err
}

@test "an operand named with a title escape is named escaped" {
	fails "$BIN/nnl-parse" undefined.json
	safe err nnl-parse
	grep -qF 'undefined operand "\x1B]0;pwned\x07"' err
}

@test "a 1 MiB node id is cut at 200 bytes with its length" {
	fails "$BIN/nnl-parse" --strict big.json
	safe err nnl-parse
	[ "$(stat -c %s err)" -lt 1000 ]
	a200=$(printf 'A%.0s' $(seq 200))
	grep -qF "node \"$a200...[1048576 bytes]\": field \"op\"" err
}

@test "a raw control byte in .webnn: the source line under the message is escaped" {
	printf 'webnn_graph "g" v1 {\n  inputs { x: f32[2]; }\n  nodes { y = relu(x\033]0;pwned\007); }\n  outputs { y; }\n}\n' > raw.webnn
	fails "$BIN/nnl-parse" raw.webnn
	safe err nnl-parse
	grep -qxF 'nnl-parse: raw.webnn:3:21: error: unexpected character 0x1b' err
	grep -qxF '      nodes { y = relu(x\x1B]0;pwned\x07); }' err
	# the caret sits under the escaped byte's backslash
	grep -qx '                        ^' err
}

@test "a long source line shows a window around the column" {
	/usr/bin/python3 -c 'import sys
sys.stdout.write("{\"format\": \"webnn-graph-json\", \"x\": \"" +
    "a" * 5000 + "\033" + "b" * 5000 + "\"}")' > wide.json
	fails "$BIN/nnl-parse" wide.json
	safe err nnl-parse
	grep -qF 'error: invalid JSON: control character in a string' err
	[ "$(grep -c '^    \.\.\.a*\\x1Bb*\.\.\.$' err)" -eq 1 ]
	[ "$(stat -c %s err)" -lt 800 ]
}

@test "an op of 300 bytes in .webnn is cut in the message" {
	/usr/bin/python3 -c 'print("webnn_graph \"g\" v1 {\n  inputs { x: f32[2]; }\n  nodes { y = " + "q" * 300 + "(x); }\n  outputs { y; }\n}")' > longop.webnn
	fails "$BIN/nnl-parse" --strict longop.webnn
	safe err nnl-parse
	q200=$(printf 'q%.0s' $(seq 200))
	grep -qF "unknown op \"$q200...[300 bytes]\"" err
}

@test "ONNX: an unsupported node named to forge a line stays in its list" {
	fails "$BIN/nnl-onnx-import" unsupported.onnx
	safe err nnl-onnx-import
	[ "$(lines err nnl-onnx-import)" -eq 1 ]
	grep -qxF '  node "n\x1B[2J\nnnl-parse: everything ok" (StringNormalizer) [unsupported-op]: no converter for this operator' err
}

@test "ONNX: a node error names the node escaped" {
	fails "$BIN/nnl-onnx-import" badaxis.onnx
	safe err nnl-onnx-import
	[ "$(lines err nnl-onnx-import)" -eq 1 ]
	grep -qF 'node "\x1B]0;pwned\x07" (Softmax): axis 7 is out of range' err
}

@test "nnc inspect lists hostile node ids escaped, plain ones as they are" {
	"$BIN/nnc" inspect inspect.json > out
	/usr/bin/python3 "$D/ttysafe.py" out --max 4096
	grep -q '^\\x1B\]0;pwned\\x07 relu ' out
	grep -qF 'n\x1B[2J\nnnl-parse: everything ok relu ' out
	grep -q '^r\\rb\\x08d\\x7F  *relu ' out
	grep -q '^c1\\u{9B}31m  *relu ' out
	grep -q '^bidi\\u{202E}evil relu ' out
	grep -q '^ls\\u{2028}x  *relu ' out
	grep -q '^A\{200\}\.\.\.\[1048576 bytes\] relu ' out
	grep -q '^ReLU_1  *relu ' out
	grep -q '^конв  *relu ' out
}

@test "nnl-run lists an output named with an escape sequence escaped" {
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.array([1, -2], np.float32))'
	mkdir o
	"$BIN/nnl-run" -d o run.json x=x.npy > out
	/usr/bin/python3 "$D/ttysafe.py" out
	grep -qxF 'o\x1B[2J float32[2] o/o\x1B[2J.npy' out
}

@test "nnl-pack-weights list shows a hostile tensor name escaped" {
	/usr/bin/python3 -c 'import numpy as np
np.save("t.npy", np.array([1, 2], np.float32))'
	"$BIN/nnl-pack-weights" pack -o w.weights t.npy
	/usr/bin/python3 -c 'import json
m = json.load(open("w.manifest.json"))
m["tensors"] = {"w\033[2J\rx": m["tensors"]["t"]}
json.dump(m, open("w.manifest.json", "w"))'
	"$BIN/nnl-pack-weights" list w.weights > out
	/usr/bin/python3 "$D/ttysafe.py" out
	grep -q '^w\\x1B\[2J\\rx	float32	\[2\]	' out
}

@test ".nnl: identifiers of 300 bytes are read whole, not cut to equal names" {
	"$BIN/nnl-parse" -o l.json long.nnl
	/usr/bin/python3 -c 'import json
g = json.load(open("l.json"))
want = {"L" * 299 + "a", "L" * 299 + "b"}
assert want <= {n["id"] for n in g["nodes"]}, [len(n["id"]) for n in g["nodes"]]'
}

@test ".nnl: a control character or invalid UTF-8 in a string is refused at its place" {
	printf 'version 0.9;\nmodel m {\n  config { weights: "w\033[2J"; }\n  layer input = Input(shape: [4]);\n}\n' > c.nnl
	fails "$BIN/nnl-parse" -o c.json c.nnl
	safe err nnl-parse
	grep -qxF 'nnl-parse: c.nnl:3:23: error: control character 0x1b in a string' err
	printf 'version 0.9;\nmodel m {\n  config { weights: "w\377"; }\n  layer input = Input(shape: [4]);\n}\n' > u.nnl
	fails "$BIN/nnl-parse" -o u.json u.nnl
	safe err nnl-parse
	grep -qxF 'nnl-parse: u.nnl:3:23: error: invalid UTF-8 in a string (byte 0xff)' err
	printf 'version 0.9;\nmodel m {\n  config { weights: "w\000x"; }\n  layer input = Input(shape: [4]);\n}\n' > z.nnl
	fails "$BIN/nnl-parse" -o z.json z.nnl
	grep -qxF 'nnl-parse: z.nnl:3:23: error: control character 0x00 in a string' err
	[ ! -e c.json ] && [ ! -e u.json ] && [ ! -e z.json ]
}
