#!/usr/bin/env bats
# nnc's generated API is named after the model (--prefix overrides);
# --emit c output is relocatable and reproducible (--weights embed
# puts the weights in the source); --version names the NNL language;
# tolerances print as the NNL documentation does; an unknown NNL
# version is a warning at its file:line:col.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
	EX="$ROOT/examples/mnist"
	cd "$T"
	# a host program for any prefix: raw input on stdin, raw output
	# on stdout, the sizes the seed's API promises checked
	cat > app.c <<'C'
#include <stdio.h>
#include MODEL_H
#define CAT(a, b) a##b
#define API(p, s) CAT(p, s)
static float in[784], out[10];
int
main(void)
{
	if (API(PFX, _input_size)() != 784 || API(PFX, _output_size)() != 10)
		return 3;
	if (fread(in, 4, 784, stdin) != 784)
		return 4;
	if (API(PFX, _infer)(in, out) != 0)
		return 5;
	fwrite(out, 4, 10, stdout);
	return 0;
}
C
	$PY -c 'import numpy as np, sys
open("in.bin", "wb").write(np.load(sys.argv[1]).astype(np.float32).tobytes())' \
	    "$EX/test_input.npy"
}

# compare raw float32 output with the example's NumPy expectation
close_to_expected() {
	$PY -c 'import numpy as np, sys
got = np.fromfile(sys.argv[1], dtype=np.float32)
want = np.load(sys.argv[2]).ravel()
assert got.shape == want.shape, (got.shape, want.shape)
d = np.abs(got - want).max()
assert d <= 1e-5, d' "$1" "$2"
}

@test "the API and its header are named after the NNL model, not the file: mnist_classifier_infer" {
	"$BIN/nnc" compile --emit lib -o build/libmnist.a "$EX/mnist.nnl"
	# upstream nnc's header beside the library: <model>.h
	[ -f build/libmnist.a ] && [ -f build/mnist_classifier.h ]
	[ ! -e build/mnist.h ]
	grep -q '^int mnist_classifier_infer(const void \*input, void \*output);$' build/mnist_classifier.h
	grep -q '^int mnist_classifier_input_size(void);$' build/mnist_classifier.h
	grep -q '^int mnist_classifier_output_size(void);$' build/mnist_classifier.h
	! grep -q 'mnist_infer' build/mnist_classifier.h
	cc -O2 ${NNL_TEST_CFLAGS:-} -Ibuild \
	    -DMODEL_H='"mnist_classifier.h"' -DPFX=mnist_classifier -o app \
	    app.c -Lbuild -lmnist -lm
	./app < in.bin > out.bin
	close_to_expected out.bin "$EX/expected_output.npy"
}

@test "--prefix names the API; a name that is no C identifier is made one" {
	"$BIN/nnc" compile --emit obj --prefix digits -o d.o "$EX/mnist.nnl"
	[ -f digits.h ] && [ ! -e mnist.h ]	# named after the API
	grep -q '^int digits_infer(' digits.h
	cc -O2 ${NNL_TEST_CFLAGS:-} -I. -DMODEL_H='"digits.h"' -DPFX=digits \
	    -o app app.c d.o -lm
	./app < in.bin > out.bin
	close_to_expected out.bin "$EX/expected_output.npy"
	"$BIN/nnc" compile --emit header --prefix my-net -o h.h "$EX/mnist.nnl"
	grep -q '^int my_net_infer(' h.h
	grep -q '^int my_net_output_size(void);$' h.h
}

@test "a .webnn graph's API takes the graph's name, made an identifier" {
	sed 's/webnn_graph "resnet_head"/webnn_graph "head v2"/' \
	    "$ROOT/examples/resnet_head/resnet_head.webnn" > r.webnn
	grep -q '"head v2"' r.webnn
	$PY "$ROOT/examples/resnet_head/make_weights.py" w
	"$BIN/nnl-pack-weights" pack -o r.weights w
	"$BIN/nnc" compile --emit header -o r.h r.webnn
	grep -q '^int head_v2_infer(' r.h
	"$BIN/nnc" compile --emit header --prefix head -o r2.h r.webnn
	grep -q '^int head_infer(' r2.h
}

@test "an ONNX model's API takes the file's stem" {
	cp "$ROOT/examples/import_test/model.onnx" my-mlp.onnx
	"$BIN/nnc" compile --emit header my-mlp.onnx
	grep -q '^int my_mlp_infer(' my-mlp.h
	# the issue's example: dots and underscores as a user reads them
	cp my-mlp.onnx efficientnet_b0.op13.onnx
	"$BIN/nnc" compile --emit header efficientnet_b0.op13.onnx
	grep -q '^int efficientnet_b0_op13_infer(' efficientnet_b0.op13.h
	# beside an object, the header takes the API's name
	"$BIN/nnc" compile --emit obj -o e.o efficientnet_b0.op13.onnx
	grep -q '^int efficientnet_b0_op13_infer(' efficientnet_b0_op13.h
	# never over the library itself
	run --separate-stderr "$BIN/nnc" compile --emit lib \
	    -o efficientnet_b0_op13.h efficientnet_b0.op13.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"--emit lib would write its header ./efficientnet_b0_op13.h over it"* ]]
	cp my-mlp.onnx mlp.onnx
	"$BIN/nnc" compile --emit header mlp.onnx
	grep -q '^int mlp_infer(' mlp.h
}

@test "--emit c is byte-identical from two directories and builds anywhere" {
	mkdir -p a/t b/t/deeper
	(cd a && TMPDIR="$T/a/t" "$BIN/nnc" compile --emit c -o gen/m.c \
	    "$EX/mnist.nnl")
	cp -r "$EX" b/src
	(cd b && TMPDIR="$T/b/t/deeper" "$BIN/nnc" compile --emit c \
	    -o gen/m.c src/mnist.nnl)
	ls a/gen
	[ "$(ls a/gen | tr '\n' ' ')" = "m.c m.c.weights mnist.h " ]
	for f in m.c m.c.weights mnist.h; do
		cmp "a/gen/$f" "b/gen/$f"
	done
	# no path of the machine that made them
	! grep -q "$T" a/gen/m.c a/gen/mnist.h
	! grep -q "/tmp" a/gen/m.c a/gen/mnist.h
	! grep -q "$ROOT" a/gen/m.c a/gen/mnist.h
	# the weights are the model's, byte for byte: 3,2*32 conv, ...
	[ "$(stat -c %s a/gen/m.c.weights)" -gt 100000 ]
	# copied into another build, compiled from another directory
	mkdir -p other/project/vendor
	cp a/gen/* other/project/vendor/
	rm -rf a b
	cd other
	cc -O2 ${NNL_TEST_CFLAGS:-} \
	    -Iproject/vendor -DMODEL_H='"mnist.h"' -DPFX=mnist_classifier \
	    -o app ../app.c project/vendor/m.c -lm
	clang -O2 -Iproject/vendor -DMODEL_H='"mnist.h"' \
	    -DPFX=mnist_classifier -o app2 ../app.c project/vendor/m.c -lm
	./app < ../in.bin > out.bin
	close_to_expected out.bin "$EX/expected_output.npy"
	./app2 < ../in.bin > out2.bin
	cmp out.bin out2.bin
	# and included by another source from elsewhere
	printf '#include "../project/vendor/m.c"\n' > inc.c
	mkdir -p wrap && mv inc.c wrap/
	cc -O2 -Iproject/vendor -c wrap/inc.c -o inc.o
}

@test "--weights embed: the source alone holds the weights" {
	"$BIN/nnc" compile --emit c --weights embed -o e/m.c "$EX/mnist.nnl"
	[ "$(ls e | tr '\n' ' ')" = "m.c mnist.h " ]
	! grep -q incbin e/m.c
	mkdir far && mv e/m.c e/mnist.h far/
	cc -O2 ${NNL_TEST_CFLAGS:-} \
	    -Ifar -DMODEL_H='"mnist.h"' -DPFX=mnist_classifier -o app \
	    app.c far/m.c -lm
	./app < in.bin > out.bin
	close_to_expected out.bin "$EX/expected_output.npy"
	run "$BIN/nnc" compile --emit c --weights elsewhere "$EX/mnist.nnl"
	[ "$status" -eq 2 ]
}

@test "--weights embed refuses weights over 64 MiB, naming the bound" {
	# one tensor of 2^24 + 1 floats: 4 bytes over 64 MiB, sparse zeros
	# after the 64-byte WGWT header, its manifest and text beside it
	n=16777217
	printf 'webnn_graph "big" v1 {\n  inputs { x: f32[%d]; }\n  consts { w: f32[%d]; }\n  nodes { y = add(x, w); }\n  outputs { y; }\n}\n' $n $n > big.webnn
	printf '{"format": "wg-weights-manifest", "version": 1, "endianness": "little", "tensors": {"w": {"dataType": "float32", "shape": [%d], "byteOffset": 64, "byteLength": %d}}}\n' $n $((4 * n)) > big.manifest.json
	printf 'WGWT\001\000\000\000' > big.weights
	truncate -s $((64 + 4 * n)) big.weights
	run --separate-stderr "$BIN/nnc" compile --emit c --weights embed \
	    -o e/m.c big.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"over the 67108864 that -e array (nnc's --weights embed) writes as a C array"* ]]
	[ ! -e e/m.c ]
	"$BIN/nnl-parse" big.webnn | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-plan-memory" > big.json
	run --separate-stderr "$BIN/nnl-emit-c" -e array -o a.c big.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the weights are $((64 + 4 * n)) bytes, over the 67108864"* ]]
	[ ! -e a.c ]
}

@test "--version names the NNL language version" {
	run "$BIN/nnc" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^nnc\ [0-9]+\.[0-9]+\.[0-9]+\ \(NNL\ language\ 0\.9\)$ ]]
}

@test "tolerances and differences print as the NNL documentation shows" {
	run "$BIN/nnc" test --input "$EX/test_input.npy" \
	    --expected "$EX/expected_output.npy" "$EX/mnist.nnl"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^PASS:\ 10/10\ elements\ within\ tolerance\ 1\.0e-5\ \(max\ diff:\ [0-9]\.[0-9][0-9]e(-?[1-9][0-9]*|0)\)$ ]]
	run "$BIN/nnc" test --tolerance 1e-3 --input "$EX/test_input.npy" \
	    --expected "$EX/expected_output.npy" "$EX/mnist.nnl"
	[[ "$output" == "PASS: 10/10 elements within tolerance 1.0e-3 (max diff: "* ]]
	$PY -c 'import numpy as np, sys
w = np.load(sys.argv[1]); w.ravel()[3] += 0.5; np.save("bad.npy", w)' \
	    "$EX/expected_output.npy"
	run "$BIN/nnc" test --input "$EX/test_input.npy" --expected bad.npy \
	    "$EX/mnist.nnl"
	[ "$status" -eq 1 ]
	[[ "$output" == *"  mismatch at [0, 3]: got "*", diff 5.00e-1"* ]]
	[[ "$output" == *"FAIL: 1/10 elements exceed tolerance 1.0e-5 (max diff: 5.00e-1)"* ]]
}

@test "version 5.0 draws a warning naming file:line:col; 0.2 to 0.9 do not" {
	cp -r "$ROOT/examples/model/weights" .
	sed 's/^version 0.2;/version 5.0;/' "$ROOT/examples/model/model.nnl" > m.nnl
	run --separate-stderr "$BIN/nnl-parse" -w w.weights -m w.json -o o.json m.nnl
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"m.nnl:1:9: warning: version 5.0: this nnl reads NNL 0.2 to 0.9"* ]]
	for v in 0.2 0.6 0.9; do
		sed "s/^version 0.2;/version $v;/" "$ROOT/examples/model/model.nnl" > m.nnl
		run --separate-stderr "$BIN/nnl-parse" -w w.weights -m w.json -o o.json m.nnl
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
	done
	sed 's/^version 0.2;/version 0.10;/' "$ROOT/examples/model/model.nnl" > m.nnl
	run --separate-stderr "$BIN/nnl-parse" -w w.weights -m w.json -o o.json m.nnl
	[[ "$stderr" == *"m.nnl:1:9: warning: version 0.10"* ]]
}

@test "the Make fragment names the API after the model too; NNL_PREFIX overrides" {
	cp -r "$EX" mk
	cd mk
	printf 'include %s/pipelines/nnl.mk\nNNL_BIN = %s/\n' "$ROOT" "$BIN" > Makefile
	make -s mnist.c
	grep -q '^int mnist_classifier_infer(' mnist.h
	rm -f mnist.c mnist.h
	make -s NNL_PREFIX=digits mnist.c
	grep -q '^int digits_infer(' mnist.h
}

@test "nnl-emit-c -e beside: the source includes SOURCE.weights through __FILE__" {
	cp -r "$EX" m
	"$BIN/nnl-parse" -w m/p.weights -m m/p.manifest.json m/mnist.nnl |
	    "$BIN/nnl-shape-infer" | "$BIN/nnl-plan-memory" > planned.json
	mkdir out
	"$BIN/nnl-emit-c" -e beside -o out/m.c planned.json
	grep -q '\.incbin \\"" __FILE__ "\.weights\\""' out/m.c
	! grep -q "$T" out/m.c
	cp m/p.weights out/m.c.weights
	cd out
	cc -O2 ${NNL_TEST_CFLAGS:-} \
	    -I. -DMODEL_H='"m.h"' -DPFX=mnist_classifier -o ../app2 \
	    ../app.c m.c -lm
	cd ..
	./app2 < in.bin > out.bin
	close_to_expected out.bin "$EX/expected_output.npy"
	# without the file beside it, the assembler says which file
	rm out/m.c.weights
	run cc -c -Iout out/m.c -o x.o
	[ "$status" -ne 0 ]
	[[ "$output" == *"out/m.c.weights"* ]]
}

@test "--save-temps keeps a C source that rebuilds on its own, with no temporary path" {
	mkdir st && cd st
	"$BIN/nnc" compile --save-temps -o prog "$EX/mnist.nnl"
	[ -s mnist.c ] && [ -s mnist.c.weights ] && [ -x prog ]
	! grep -q "/tmp" mnist.c mnist.h
	! grep -q "$T" mnist.c mnist.h
	mkdir again && cp mnist.c mnist.c.weights mnist.h again/
	cc -O2 ${NNL_TEST_CFLAGS:-} -o prog2 again/mnist.c -lm
	./prog < ../in.bin > a.bin
	./prog2 < ../in.bin > b.bin
	# (prog has the model's avx2 flags, prog2 none: both NumPy's)
	close_to_expected a.bin "$EX/expected_output.npy"
	close_to_expected b.bin "$EX/expected_output.npy"
}
