#!/usr/bin/env bats
# nnl-emit-c with its source on standard output (or /dev/stdout, or a
# FIFO) and no -H writes no header: the source holds the header's text
# where it would include it, so `nnl-emit-c > model.c` compiles alone.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
	# y = relu(x) - x: the negative part of x, negated
	cat > g.json <<'JSON'
{"format": "webnn-graph-json", "version": 1, "name": "neg",
 "inputs": {"x": {"dataType": "float32", "shape": [4]}},
 "nodes": [{"id": "r", "op": "relu", "inputs": ["x"]},
           {"id": "y", "op": "sub", "inputs": ["r", "x"]}],
 "outputs": {"y": "y"}}
JSON
	"$BIN/nnl-shape-infer" g.json | "$BIN/nnl-plan-memory" > p.json
	/usr/bin/python3 -c 'import struct, sys
sys.stdout.buffer.write(struct.pack("<4f", -2, 3, -0.5, 0))' > in.bin
}

# runs C source $1 built with -m on in.bin: y = max(x, 0) - x
runs() {
	cc -std=c99 ${NNL_TEST_CFLAGS:-} -o "${1%.c}" "$1" -lm
	"./${1%.c}" < in.bin > out.bin
	[ "$(od -An -f out.bin | tr -s ' ')" = " 2 0 0.5 0" ]
}

@test "on standard output: one source, the header's text in place of its #include" {
	"$BIN/nnl-emit-c" -m p.json > s.c
	[ "$(ls)" = "g.json
in.bin
p.json
s.c" ]
	[ -z "$(grep '^#include "' s.c)" ]
	runs s.c
	# the same source as with -o and its header, the header's text
	# where that one includes it
	"$BIN/nnl-emit-c" -m -o m.c p.json
	[ "$(grep -c '^#include "m.h"$' m.c)" -eq 1 ]
	/usr/bin/python3 -c 'import sys
s, m, h = (open(f).read() for f in ("s.c", "m.c", "m.h"))
sys.exit(s != m.replace("#include \"m.h\"\n", h, 1))'
	# with -H, the header is written and included as before
	"$BIN/nnl-emit-c" -m -H api.h p.json > i.c
	grep -q '^#include "api.h"$' i.c && grep -q 'int neg_infer(' api.h
	runs i.c
}

@test "-o /dev/stdout or a FIFO: no header beside it, one source that compiles" {
	"$BIN/nnl-emit-c" -m -o /dev/stdout p.json > d.c
	[ -z "$(grep '^#include "' d.c)" ]
	runs d.c
	mkfifo f
	cat f > fifo.c &
	"$BIN/nnl-emit-c" -m -o f p.json
	wait
	[ ! -e f.h ]
	runs fifo.c
}
