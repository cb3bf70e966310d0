#!/usr/bin/env bats
# Hostile names: a model's graph name, inputs, constants, node ids,
# intermediate operands and outputs holding comment ends, preprocessor
# lines, quotes, backslashes, U+2028, </script>, ${, backticks,
# __proto__, constructor or 1 MB reach generated C, its header and JS
# only through escape.c.  Each payload would create MARKER (or print
# INJECTED) if it ever ran; the programs compute what numpy does with
# the same graph.  Names that cannot be names (NUL, invalid UTF-8) are
# refused with their place.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	H="$ROOT/tests/data/hostile"
	cd "$BATS_TEST_TMPDIR"
}

# No payload ran: no marker file anywhere near, nothing printed.
no_payload() {
	[ ! -e MARKER ] && [ ! -e "$1/MARKER" ]
	! grep -rq INJECTED "$1"/*.log 2>/dev/null
}

# graph JSON in $1/g.json -> C program, run on $1/in.bin, vs numpy
c_run() {
	"$BIN/nnl-shape-infer" "$1/g.json" | "$BIN/nnl-plan-memory" |
	    "$BIN/nnl-emit-c" -m -o "$1/g.c"
	cc -std=c99 -Wall -Wextra -Werror -O1 ${NNL_TEST_CFLAGS:-} -o "$1/g" \
	    "$1/g.c" -lm
	(cd "$1" && ./g < in.bin > out.bin 2> run.log)
	/usr/bin/python3 "$H/compare.py" "$1/expected.json" "$1/out.bin"
}

@test "hostile names in a JSON graph: the C program computes numpy's outputs, runs no payload" {
	mkdir hostile plain
	/usr/bin/python3 "$H/make_graph.py" hostile
	/usr/bin/python3 "$H/make_graph.py" plain --plain
	c_run plain
	c_run hostile
	no_payload hostile
	# every payload is in the generated text, inside comments only
	grep -q 'system("touch MARKER")' hostile/g.c
	grep -q 'system("touch MARKER")' hostile/g.h
	! grep -q '^#define float' hostile/g.c hostile/g.h
	! grep -q '^#include "/etc/passwd"' hostile/g.c
	# the 1 MB name is cut in comments: the program is about the size
	# of the plain one (the runtime kernels are most of both)
	[ "$(stat -c %s hostile/g.c)" -lt "$(($(stat -c %s plain/g.c) + 50000))" ]
}

@test "hostile names through nnl-emit-js: run() gives numpy's outputs, tables hold __proto__ and constructor" {
	mkdir hostile
	/usr/bin/python3 "$H/make_graph.py" hostile
	"$BIN/nnl-emit-js" -o hostile/g.js hostile/g.json
	node "$ROOT/tests/js/run-module.mjs" "$BIN" hostile/g.js \
	    hostile/values.json > hostile/res.json 2> hostile/node.log
	/usr/bin/python3 "$H/compare.py" hostile/expected.json \
	    hostile/res.json --js hostile/values.json
	no_payload hostile
	! grep -q INJECTED hostile/res.json
	# ASCII only: no raw U+2028, no </script> or <!-- for a page
	! grep -qP '[^\x00-\x7f]' hostile/g.js
	! grep -qi '</script' hostile/g.js
	! grep -q '<!--' hostile/g.js
	grep -q '^export const inputs = {__proto__: null,$' hostile/g.js
	grep -q '^  \["__proto__"\]: {dataType: "float32", shape: \[2, 3\]},$' \
	    hostile/g.js
}

@test "an ONNX model with hostile names: nnc compile runs it as numpy does, no payload" {
	mkdir hostile plain
	/usr/bin/python3 "$H/make_onnx.py" plain --plain
	/usr/bin/python3 "$H/make_onnx.py" hostile
	for d in plain hostile; do
		(cd "$d" && "$BIN/nnc" compile -o prog model.onnx &&
		    ./prog < in.bin > out.bin 2> run.log)
		/usr/bin/python3 "$H/compare.py" "$d/expected.json" "$d/out.bin"
	done
	no_payload hostile
}

@test "an imported hostile ONNX model: weights under a hostile path, C and JS agree with numpy" {
	mkdir hostile
	/usr/bin/python3 "$H/make_onnx.py" hostile
	# the weights file the assembler includes, in a directory whose
	# name holds a quote, a backslash and a line end
	d=$'we"ird\\dir\n#x'
	mkdir "$d"
	"$BIN/nnl-onnx-import" -o "$d/m.json" hostile/model.onnx
	grep -q '"kind": "weights"' "$d/m.json"
	"$BIN/nnl-shape-infer" "$d/m.json" | "$BIN/nnl-plan-memory" |
	    "$BIN/nnl-emit-c" -m -o hostile/m.c
	cc -std=c99 -Wall -Wextra -Werror -O1 ${NNL_TEST_CFLAGS:-} \
	    -o hostile/m hostile/m.c -lm
	(cd hostile && ./m < in.bin > out.bin 2> run.log)
	/usr/bin/python3 "$H/compare.py" hostile/expected.json hostile/out.bin
	"$BIN/nnl-emit-js" -o hostile/m.js "$d/m.json"
	node "$ROOT/tests/js/run-module.mjs" "$BIN" hostile/m.js \
	    hostile/values.json "$d/m.weights" > hostile/res.json \
	    2> hostile/node.log
	/usr/bin/python3 "$H/compare.py" hostile/expected.json \
	    hostile/res.json --js hostile/values.json
	no_payload hostile
}

@test "C identifiers from -p are readable and valid: four prefixes link into one program" {
	mkdir p
	/usr/bin/python3 "$H/make_graph.py" p --plain
	"$BIN/nnl-shape-infer" p/g.json | "$BIN/nnl-plan-memory" > p/planned.json
	for pf in my-net MY_NET int 3d; do
		"$BIN/nnl-emit-c" -p "$pf" -o "p/$pf.c" p/planned.json
	done
	# nnl(7), Names: a run of other bytes is one '_'; "_m" after a
	# keyword, "m_" before a digit
	grep -q 'int my_net_infer(' p/my-net.h
	grep -q 'int MY_NET_infer(' p/MY_NET.h
	grep -q 'int int_m_infer(' p/int.h
	grep -q 'int m_3d_infer(' p/3d.h
	grep -q '^#ifndef MY_NET_H$' p/my-net.h
	grep -q '^#ifndef MY_NET__H$' p/MY_NET.h
	cat > p/main.c <<'C'
#include <stdio.h>
#include <string.h>
#include "my-net.h"
#include "MY_NET.h"
#include "int.h"
#include "3d.h"

int
main(void)
{
	static float in[12], a[24], b[24], c[24], d[24];

	fread(in, 4, 12, stdin);
	if (my_net_infer(in, a) || MY_NET_infer(in, b) ||
	    int_m_infer(in, c) || m_3d_infer(in, d))
		return 1;
	fwrite(a, 4, 24, stdout);
	return memcmp(a, b, sizeof a) || memcmp(a, c, sizeof a) ||
	    memcmp(a, d, sizeof a);
}
C
	cc -std=c99 -Wall -Werror ${NNL_TEST_CFLAGS:-} \
	    -Ip -o p/all p/main.c p/my-net.c p/MY_NET.c \
	    p/int.c p/3d.c -lm
	p/all < p/in.bin > p/out.bin
	/usr/bin/python3 "$H/compare.py" p/expected.json p/out.bin
	# the header name goes into #include "...", which has no escapes
	run --separate-stderr "$BIN/nnl-emit-c" -H 'a"b.h' -o p/x.c p/planned.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"cannot be #included"* ]]
	[ ! -e p/x.c ]
}

@test "NUL and invalid UTF-8 in JSON names are refused with file:line:col" {
	hdr='{"format": "webnn-graph-json", "version": 1,'
	printf '%s\n"inputs": {"x\\u0000y": {"dataType": "float32", "shape": [1]}},\n"nodes": [], "outputs": {}}\n' "$hdr" > nul.json
	run --separate-stderr "$BIN/nnl-shape-infer" nul.json
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-shape-infer: nul.json:2:14: error: '\\u0000' is not allowed in a string" ]
	printf '%s\n"inputs": {},\n"nodes": [{"id": "a\0b", "op": "relu", "inputs": []}], "outputs": {}}\n' "$hdr" > raw.json
	run --separate-stderr "$BIN/nnl-shape-infer" raw.json
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-shape-infer: raw.json:3:20: error: a NUL byte is not allowed in a string" ]
	printf '%s "name": "g\xc3\x28",\n"inputs": {}, "nodes": [], "outputs": {}}\n' "$hdr" > utf.json
	run --separate-stderr "$BIN/nnl-shape-infer" utf.json
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-shape-infer: utf.json:1:56: error: invalid UTF-8 in string (byte 0xc3)" ]
	printf '%s\n"inputs": {}, "nodes": [], "outputs": {"o\\udc00": "x"}}\n' "$hdr" > sur.json
	run --separate-stderr "$BIN/nnl-shape-infer" sur.json
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-shape-infer: sur.json:2:42: error: unpaired surrogate in '\\u' escape" ]
	# the .webnn text reader says the same of the same names
	printf 'webnn_graph "g\\u0000" v1 {\n  inputs { x: f32[1]; }\n  nodes { y = relu(x); }\n  outputs { y; }\n}\n' > nul.webnn
	run --separate-stderr "$BIN/nnl-shape-infer" nul.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nul.webnn:1:15: error: '\\u0000' is not allowed in a string"* ]]
	# valid UTF-8 and escaped pairs are names like others
	printf '%s\n"inputs": {"\\ud83d\\ude00\xc3\xa9": {"dataType": "float32", "shape": [1]}},\n"nodes": [{"id": "y", "op": "relu", "inputs": ["\xf0\x9f\x98\x80\\u00e9"]}], "outputs": {"y": "y"}}\n' "$hdr" > ok.json
	"$BIN/nnl-shape-infer" ok.json > /dev/null
}

@test "ONNX names with NUL or invalid UTF-8 are refused naming the node" {
	/usr/bin/python3 "$H/make_onnx.py" . --nul
	run --separate-stderr "$BIN/nnl-onnx-import" -o m.json model.onnx
	[ "$status" -eq 1 ]
	[ "$stderr" = 'nnl-onnx-import: error: model.onnx: node 0 (Add "out_t"): its output 0 holds a NUL byte' ]
	[ ! -e m.json ]
	/usr/bin/python3 "$H/make_onnx.py" . --utf8
	run --separate-stderr "$BIN/nnl-onnx-import" -o m.json model.onnx
	[ "$status" -eq 1 ]
	[ "$stderr" = 'nnl-onnx-import: error: model.onnx: node 0 (Add "out_t"): its output 0 is not valid UTF-8' ]
	run "$BIN/nnc" compile -o p model.onnx
	[ "$status" -eq 1 ]
	[ ! -e p ]
}

@test "an ONNX graph name with NUL or invalid UTF-8 is refused as the graph's name" {
	# the fields of the graph itself belong to no node (a crash once)
	/usr/bin/python3 - <<'PY'
from onnx import helper, TensorProto as T
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "gQQQQ",
                      [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])])
b = helper.make_model(g).SerializeToString()
assert b.count(b"gQQQQ") == 1
open("utf8.onnx", "wb").write(b.replace(b"gQQQQ", b"g\xff\xfeQQ"))
open("nul.onnx", "wb").write(b.replace(b"gQQQQ", b"g\x00QQQ"))
PY
	run --separate-stderr "$BIN/nnl-onnx-import" -o m.json utf8.onnx
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-onnx-import: error: utf8.onnx: the graph's name is not valid UTF-8" ]
	run --separate-stderr "$BIN/nnl-onnx-import" -o m.json nul.onnx
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-onnx-import: error: nul.onnx: the graph's name holds a NUL byte" ]
	[ ! -e m.json ]
}

@test "nnl-parse -t nnl: a hostile graph name stays inside its comment" {
	/usr/bin/python3 "$ROOT/tests/data/nnl-write/make_cnn.py" .
	/usr/bin/python3 - <<'PY'
import json
g = json.load(open("cnn.json"))
g["name"] = "cnn\n}\nmodel evil {\n/* */ \u2028 \"quoted\""
json.dump(g, open("cnn.json", "w"))
PY
	"$BIN/nnl-parse" -t nnl -o out/cnn.nnl cnn.json
	[ "$(grep -c '^model ' out/cnn.nnl)" -eq 1 ]
	grep -q '^// Written by nnl-parse -t nnl from the graph "cnn\\n}\\nmodel evil {\\n/\\\* \*\\/ \\u{2028} "quoted""\.$' out/cnn.nnl
	run "$BIN/nnc" test --input in_hwc.npy --expected want.npy out/cnn.nnl
	echo "$output"
	[ "$status" -eq 0 ]
}
