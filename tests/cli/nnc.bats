#!/usr/bin/env bats
# nnc: every --emit kind, used from a C program; test, inspect; the
# pipeline it runs, its temps, a user's pass list; the Make fragment.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
	cp "$ROOT/examples/resnet_head/resnet_head.webnn" "$T/"
	$PY "$ROOT/examples/resnet_head/make_weights.py" "$T/w"
	"$BIN/nnl-pack-weights" pack -o "$T/resnet_head.weights" "$T/w"
	$PY -c 'import numpy as np, sys
d = sys.argv[1]
x = np.random.default_rng(5).standard_normal((1, 2048)).astype(np.float32)
W = np.load(d + "/w/W.npy").astype(np.float64)
b = np.load(d + "/w/b.npy").astype(np.float64)
l = x @ W + b
e = np.exp(l - l.max())
np.save(d + "/in.npy", x)
np.save(d + "/want.npy", (e / e.sum()).astype(np.float32))
open(d + "/in.bin", "wb").write(x.tobytes())' "$T"
	cd "$T"
}

@test "nnc test passes against NumPy's result and prints the summary" {
	run "$BIN/nnc" test --input in.npy --expected want.npy resnet_head.webnn
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^PASS:\ 1000/1000\ elements\ within\ tolerance\ 1\.0e-5\ \(max\ diff:\ [0-9.e+-]+\)$ ]]
}

@test "nnc test fails with the mismatches on a wrong expectation" {
	$PY -c 'import numpy as np
w = np.load("want.npy"); w[0, 3] += 0.5; w[0, 7] -= 0.25
np.save("bad.npy", w)'
	run "$BIN/nnc" test --input in.npy --expected bad.npy resnet_head.webnn
	[ "$status" -eq 1 ]
	[[ "$output" == *"  mismatch at [0, 3]: got "*", expected "*", diff 5.00e-1"* ]]
	[[ "$output" == *"FAIL: 2/1000 elements exceed tolerance 1.0e-5"* ]]
}

@test "exe: raw float32 in, raw float32 out" {
	"$BIN/nnc" compile resnet_head.webnn
	[ -x resnet_head ]
	./resnet_head < in.bin > exe.bin
	[ "$(stat -c %s exe.bin)" -eq 4000 ]
	run ./resnet_head < /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected 8192 bytes of input, got 0"* ]]
}

@test "obj, lib and shared link into a C program that matches the exe" {
	"$BIN/nnc" compile resnet_head.webnn
	./resnet_head < in.bin > exe.bin
	"$BIN/nnc" compile --emit obj resnet_head.webnn
	[ -f resnet_head.o ] && [ -f resnet_head.h ]
	cc -O2 ${NNL_TEST_CFLAGS:-} \
	    -I. -o app_o "$ROOT/tests/data/app/app.c" resnet_head.o -lm
	./app_o < in.bin > o.bin
	cmp exe.bin o.bin
	"$BIN/nnc" compile --emit lib -o build/libresnet_head.a resnet_head.webnn
	[ -f build/libresnet_head.a ] && [ -f build/resnet_head.h ]
	cc -O2 ${NNL_TEST_CFLAGS:-} \
	    -Ibuild -o app_a "$ROOT/tests/data/app/app.c" -Lbuild \
	    -lresnet_head -lm
	./app_a < in.bin > a.bin
	cmp exe.bin a.bin
	"$BIN/nnc" compile --emit shared resnet_head.webnn
	[ -f libresnet_head.so ]
	cc -O2 ${NNL_TEST_CFLAGS:-} -I. -o app_so \
	    "$ROOT/tests/data/app/app.c" -L. -lresnet_head -lm
	LD_LIBRARY_PATH=. ./app_so < in.bin > so.bin
	cmp exe.bin so.bin
}

@test "header and c emit the sources; the C is warning-free C99" {
	"$BIN/nnc" compile --emit header resnet_head.webnn
	grep -q "int resnet_head_infer(const void \*input, void \*output);" resnet_head.h
	grep -q "#ifndef RESNET_HEAD_H" resnet_head.h
	"$BIN/nnc" compile --emit c -o gen.c resnet_head.webnn
	[ -f gen.c ] && [ -f gen.h ] || [ -f resnet_head.h ]
	cc -std=c99 -Wall -Wextra -Werror -O2 -I. -c gen.c -o gen.o
	clang -std=c99 -Wall -Wextra -Werror -O2 -I. -c gen.c -o gen2.o
}

@test "-v prints the pipeline; --save-temps keeps every stage" {
	run --separate-stderr "$BIN/nnc" compile -v --save-temps --emit c resnet_head.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"nnl-parse"*"nnl-reorder"*"nnl-shape-infer"*"nnl-fuse"*"nnl-plan-memory"* ]]
	ls resnet_head.1.nnl-parse.json resnet_head.2.nnl-reorder.json \
	    resnet_head.3.nnl-shape-infer.json resnet_head.4.nnl-fuse.json \
	    resnet_head.json resnet_head.c resnet_head.h
}

@test "-v --save-temps: every file the printed commands name is there after nnc" {
	mkdir here && cd here
	run --separate-stderr "$BIN/nnc" compile -v --save-temps -o prog \
	    ../resnet_head.webnn
	[ "$status" -eq 0 ]
	# the folder nnc worked in is kept, here, and named
	d=$(printf '%s\n' "$stderr" | sed -n 's/^nnc: --save-temps: kept //p')
	[ -n "$d" ] && [ -d "$d" ] && [ "$(dirname "$d")" = "$(pwd -P)" ]
	# nnl-emit-c's source and header, and the C compiler's program
	[[ "$stderr" == *"nnl-emit-c "*" -H $d/resnet_head.h -o $d/resnet_head.c "* ]]
	[[ "$stderr" == *" -o $d/artifact.exe resnet_head.c "* ]]
	n=0
	for f in $(printf '%s\n' "$stderr" | grep -o "$d/[^ ]*"); do
		[ -e "$f" ] || { echo "$f: gone"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 3 ]
	# the program it built is the one delivered
	cmp "$d/artifact.exe" prog
	# without --save-temps nothing is kept
	cd .. && mkdir there && cd there
	run --separate-stderr "$BIN/nnc" compile -v -o prog ../resnet_head.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" != *kept* ]]
	[ "$(ls)" = prog ]
}

@test "--save-temps keeps the weights its graphs name: each runs on after nnc" {
	mkdir k && cd k
	"$BIN/nnc" compile --save-temps --emit c -o m.c \
	    "$ROOT/examples/import_test/model.onnx"
	"$BIN/nnc" compile --save-temps --emit c -o n.c \
	    "$ROOT/examples/mnist/mnist.nnl"
	[ -s m.weights ] && [ -s n.weights ]
	# no graph names a file in nnc's temporary directory, gone now
	! grep -l 'nnc\.[A-Za-z0-9]\{6\}/' ./*.json
	for g in m.2.nnl-reorder.json n.2.nnl-reorder.json; do
		"$BIN/nnl-shape-infer" "$g" | "$BIN/nnl-fuse" -o f.json
		"$BIN/nnl-plan-memory" f.json | "$BIN/nnl-emit-c" -o again.c
		[ -s again.c ]
	done
	"$BIN/nnl-plan-memory" m.4.nnl-fuse.json | "$BIN/nnl-emit-c" -o x.c
	"$BIN/nnl-plan-memory" n.4.nnl-fuse.json | "$BIN/nnl-emit-c" -o y.c
}

@test "nnc runs the passes beside it, not those on PATH" {
	# so the sanitizer build's nnc (make check-asan) runs sanitized passes
	d=$(cd "$BIN" && pwd -P)
	run --separate-stderr env PATH=/usr/bin:/bin "$BIN/nnc" compile -v \
	    --emit c -o r.c resnet_head.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"$d/nnl-parse "*"$d/nnl-plan-memory"* ]]
	[[ "$stderr" == *"$d/nnl-emit-c "* ]]
}

@test "--passes runs a user's own pass in the pipeline" {
	cat > mypass <<'SH'
#!/bin/sh
# a custom pass: tags the graph, passes everything else through
/usr/bin/python3 -c 'import json, sys
g = json.load(sys.stdin); g["x-tagged"] = True; json.dump(g, sys.stdout)'
SH
	chmod +x mypass
	printf 'nnl-shape-infer\n%s/mypass\nnnl-plan-memory\n' "$PWD" > my.passes
	run --separate-stderr "$BIN/nnc" compile -v --save-temps --passes my.passes \
	    --emit c resnet_head.webnn
	[ "$status" -eq 0 ]
	grep -q '"x-tagged": true' resnet_head.json
}

@test "inspect prints the table and totals" {
	run "$BIN/nnc" inspect resnet_head.webnn
	[ "$status" -eq 0 ]
	[[ "$output" == *"Model: resnet_head"* ]]
	[[ "$output" == *"Total params:    2,049,000"* ]]
	[[ "$output" == *"Weight memory:   7.82 MB"* ]]
	[[ "$output" == *"Workspace:"*"(static buffer)"* ]]
}

@test "usage and bad input" {
	run "$BIN/nnc" compile --emit bogus resnet_head.webnn
	[ "$status" -eq 1 ]
	run "$BIN/nnc"
	[ "$status" -eq 2 ]
	run "$BIN/nnc" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "nnc "* ]]
	run --separate-stderr "$BIN/nnc" compile missing.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"missing.webnn: No such file or directory"* ]]
}

@test "the Make fragment builds a program from a model" {
	cat > Makefile <<MK
include $ROOT/pipelines/nnl.mk
NNL_BIN = $BIN/
MK
	make -s resnet_head
	./resnet_head < in.bin > mk.bin
	"$BIN/nnc" compile -o ref resnet_head.webnn
	./ref < in.bin > ref.bin
	cmp mk.bin ref.bin
	[ -f resnet_head.typed.json ] && [ -f resnet_head.planned.json ]
}

@test "a cross-compiled aarch64 build passes nnc test under qemu" {
	run "$BIN/nnc" test --target-triple aarch64-linux-gnu --input in.npy \
	    --expected want.npy resnet_head.webnn
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 1000/1000"* ]]
}

@test "the compiled model runs clean under valgrind" {
	# without check-asan's NNC_CFLAGS: valgrind runs no ASan build
	NNC_CFLAGS= "$BIN/nnc" compile --portable resnet_head.webnn
	run valgrind -q --error-exitcode=9 --leak-check=full ./resnet_head \
	    < in.bin
	[ "$status" -eq 0 ]
}

@test "nnc compile builds for the host by default" {
	run --separate-stderr "$BIN/nnc" compile -v -o h resnet_head.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" == *" -O2 -march=native "* ]]
	./h < in.bin > h.bin
	"$BIN/nnc" test --input in.npy --expected want.npy resnet_head.webnn
}

@test "--target avx2 under an aarch64 triple keeps x86 flags from the cross compiler" {
	run --separate-stderr "$BIN/nnc" compile -v --target avx2 \
	    --target-triple aarch64-linux-gnu -o x resnet_head.webnn
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'warning: target "avx2" is for x86, not aarch64-linux-gnu'* ]]
	[[ "$stderr" != *-mavx* && "$stderr" != *-march* ]]
	[[ "$stderr" == *"aarch64-linux-gnu-gcc -O2 -I"* ]]
}

@test "--target avx512 asks the compiler for AVX-512 and FMA" {
	run --separate-stderr "$BIN/nnc" compile -v --target avx512 \
	    --emit obj -o k.o resnet_head.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" == *" -O2 -mavx512f -mfma "* ]]
}

@test "--portable builds for the baseline and picks kernels at run time" {
	run --separate-stderr "$BIN/nnc" compile -v --portable -o p \
	    resnet_head.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" == *" -O2 -DNNL_RT_DISPATCH "* ]]
	[[ "$stderr" != *-march* && "$stderr" != *-mavx* ]]
	run "$BIN/nnc" test --portable --input in.npy --expected want.npy \
	    resnet_head.webnn
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 1000/1000"* ]]
}

@test "an unknown --target is an error naming the choices" {
	run --separate-stderr "$BIN/nnc" compile --target sse9 resnet_head.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'target "sse9": expected native, generic, avx2, avx512 or arm_neon'* ]]
	[ ! -e resnet_head ]
}
