#!/usr/bin/env bats
# The NNL config block: weights read from an ONNX model, align for the
# weights and the workspace base, and target flags that never reach a
# compiler for another architecture.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
	cd "$T"
	cp -r "$ROOT/examples/mnist" mn
}

# An ONNX model of conv 3x3 3->4, BatchNormalization, Relu, Flatten and
# Gemm 64->5 (transB, PyTorch's layout), its input and NumPy's answer.
onnxmodel() {
	$PY - <<'PY'
import numpy as np, onnx
from onnx import helper as h, TensorProto as P, numpy_helper as nh
r = np.random.default_rng(7)
f = lambda *s: r.standard_normal(s).astype(np.float32)
W, b = f(4, 3, 3, 3), f(4)
s, bb, m, v = f(4), f(4), f(4), (np.abs(f(4)) + 0.5).astype(np.float32)
Wf, Bf = f(5, 64), f(5)
g = h.make_graph([
    h.make_node("Conv", ["x", "conv1.weight", "conv1.bias"], ["conv1"]),
    h.make_node("BatchNormalization", ["conv1", "s", "bb", "m", "v"], ["bn1"]),
    h.make_node("Relu", ["bn1"], ["relu1"]),
    h.make_node("Flatten", ["relu1"], ["flat"]),
    h.make_node("Gemm", ["flat", "Wfc", "Bfc"], ["fc"], transB=1)],
    "g", [h.make_tensor_value_info("x", P.FLOAT, [1, 3, 6, 6])],
    [h.make_tensor_value_info("fc", P.FLOAT, [1, 5])],
    [nh.from_array(a, n) for a, n in [(W, "conv1.weight"), (b, "conv1.bias"),
     (s, "s"), (bb, "bb"), (m, "m"), (v, "v"), (Wf, "Wfc"), (Bf, "Bfc")]])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "m.onnx")
x = f(1, 3, 6, 6).astype(np.float64)
c = np.zeros((4, 4, 4))
for o in range(4):
    for i in range(4):
        for j in range(4):
            c[o, i, j] = (x[0, :, i:i + 3, j:j + 3] * W[o]).sum() + b[o]
c = (c - m[:, None, None]) / np.sqrt(v[:, None, None] + 1e-5) * s[:, None, None] + bb[:, None, None]
y = Wf.astype(np.float64) @ np.maximum(c, 0).reshape(-1) + Bf
np.save("in.npy", x[0].transpose(1, 2, 0).astype(np.float32))  # HWC
np.save("want.npy", y.astype(np.float32))
PY
	cat > om.nnl <<'NNL'
version 0.9;
model om {
    config { weights: "m.onnx"; }
    layer input = Input(shape: [6, 6, 3]);
    layer conv1 = Conv2D(filters: 4, kernel: 3, padding: "valid");
    layer bn1 = BatchNorm();
    layer relu1 = ReLU();
    layer flat = Flatten();
    layer fc = Dense(units: 5);
}
NNL
}

@test "weights: an .onnx model's initializers, by name and by node" {
	onnxmodel
	run "$BIN/nnc" test --input in.npy --expected want.npy om.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 5/5 elements within tolerance 1.0e-5"* ]]
}

@test "weights: a tensor the ONNX model lacks is an E003 error" {
	onnxmodel
	before=$(ls -d /tmp/nnl-onnxw.* 2>/dev/null | wc -l)
	printf '%s\n' "$(sed 's/layer fc = Dense(units: 5);/layer fc = Dense(units: 5);\n    layer fc2 = Dense(units: 2);/' om.nnl)" > om2.nnl
	run --separate-stderr "$BIN/nnc" compile -o om2 om2.nnl
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"E003: 2 missing weights in the ONNX model "*"m.onnx:"* ]]
	[[ "$stderr" == *"fc2.weight [5, 2]"* ]]
	[ ! -e om2 ]
	# the importer's temporary directory is gone
	[ "$(ls -d /tmp/nnl-onnxw.* 2>/dev/null | wc -l)" -eq "$before" ]
}

@test "weights: a broken .onnx file is named" {
	onnxmodel
	head -c 100 m.onnx > cut.onnx
	sed 's/m.onnx/cut.onnx/' om.nnl > cut.nnl
	run --separate-stderr "$BIN/nnc" compile -o cut cut.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"cut.onnx"* ]]
}

@test "align: the weights, the arena and the workspace check" {
	sed 's/config {/config {\n        align: 256;/' mn/mnist.nnl > mn/m256.nnl
	"$BIN/nnc" compile --emit c -o c/m256.c mn/m256.nnl
	grep -q '^#define NNL_ALIGNED __attribute__((aligned(256)))$' c/m256.c
	grep -qF '.balign 256' c/m256.c
	grep -qF '(uintptr_t)workspace % 256)' c/m256.c
	grep -q 'static unsigned char mnist_classifier_arena\[[0-9]*\] NNL_ALIGNED;' c/m256.c
	# every tensor of the weights file at a multiple of 256
	"$BIN/nnl-parse" -w c/m256.weights -m c/m256.manifest.json \
	    mn/m256.nnl > /dev/null
	$PY -c 'import json, sys
t = json.load(open("c/m256.manifest.json"))["tensors"]
assert t and all(v["byteOffset"] % 256 == 0 for v in t.values()), t'
	# and the model still computes the example's expected output
	run "$BIN/nnc" test --input mn/test_input.npy \
	    --expected mn/expected_output.npy mn/m256.nnl
	[ "$status" -eq 0 ]
	grep -q 'needs, 256-byte aligned' c/m256.h
	grep -qF ' * aligned to 256, each input' c/m256.h
	# _run takes a workspace aligned to 256, and refuses one aligned
	# only to 64
	cat > use.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "m256.h"
int main(void)
{
	size_t n = mnist_classifier_workspace_size();
	unsigned char *w = aligned_alloc(256, (n + 256 + 255) / 256 * 256);
	static float in[28 * 28], out[10];
	const void *i[] = { in };
	void *o[] = { out };
	int a = mnist_classifier_run(w, i, o),
	    b = mnist_classifier_run(w + 64, i, o);
	printf("%d %d\n", a, b);
	return 0;
}
C
	cc -O1 ${NNL_TEST_CFLAGS:-} -Ic -o use use.c c/m256.c -lm
	[ "$(./use)" = "0 2" ]
	# without align: 64, as before
	"$BIN/nnc" compile --emit c -o c64/mnist.c mn/mnist.nnl
	grep -q 'aligned(64)' c64/mnist.c
	grep -qF '% 64)' c64/mnist.c
}

@test "align: fused weights (BatchNorm folded) keep the alignment" {
	onnxmodel
	sed 's/config {/config {\n        align: 128;/' om.nnl > oa.nnl
	mkdir -p c
	"$BIN/nnl-parse" -w c/oa.weights -m c/oa.manifest.json oa.nnl |
	    "$BIN/nnl-shape-infer" | "$BIN/nnl-fuse" -w c/oa.fused.weights \
	    -m c/oa.fused.manifest.json > /dev/null
	$PY -c 'import json
t = json.load(open("c/oa.fused.manifest.json"))["tensors"]
assert t and all(v["byteOffset"] % 128 == 0 for v in t.values()), t'
	run "$BIN/nnc" test --input in.npy --expected want.npy oa.nnl
	[ "$status" -eq 0 ]
	sed 's/align: 128/align: 8192/' oa.nnl > big.nnl
	run --separate-stderr "$BIN/nnc" compile big.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"align: expected a power of two up to 4096"* ]]
}

@test "target avx2 never reaches an aarch64 compiler" {
	# mnist's config says target: "avx2"
	run --separate-stderr "$BIN/nnc" compile -v --emit obj \
	    --target-triple aarch64-linux-gnu -o a.o mn/mnist.nnl
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'warning: target "avx2" is for x86, not aarch64-linux-gnu'* ]]
	[[ "$stderr" == *"aarch64-linux-gnu-gcc -O2 -I"* ]]
	[[ "$stderr" != *-mavx* ]]
	[[ "$(file a.o)" == *"ARM aarch64"* ]]
	# the same when CC is the cross compiler and no triple is given
	run --separate-stderr env CC=aarch64-linux-gnu-gcc "$BIN/nnc" compile \
	    -v --emit obj -o b.o mn/mnist.nnl
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *-mavx* ]]
	[[ "$stderr" != *-march=native* ]]
	[[ "$(file b.o)" == *"ARM aarch64"* ]]
}

@test "the aarch64 build runs under qemu and matches the example" {
	command -v qemu-aarch64 || skip "qemu-user is not installed"
	run "$BIN/nnc" test --target-triple aarch64-linux-gnu \
	    --input mn/test_input.npy --expected mn/expected_output.npy \
	    mn/mnist.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
}

@test "arm_neon: no flag on x86, AArch64 or a Cortex-M" {
	run --separate-stderr "$BIN/nnc" compile -v --emit obj --target arm_neon \
	    -o x.o mn/mnist.nnl
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'warning: target "arm_neon" is for ARM, not this host'* ]]
	[[ "$stderr" != *-mfpu* ]]
	run --separate-stderr "$BIN/nnc" compile -v --emit obj --target arm_neon \
	    --target-triple aarch64-linux-gnu -o y.o mn/mnist.nnl
	[ "$status" -eq 0 ]
	[[ "$stderr" != *warning* ]]
	[[ "$stderr" != *-mfpu* ]]
	# a bare-metal triple builds for a Cortex-M4F, which has no NEON:
	# the target is dropped, and so are host flags
	run --separate-stderr "$BIN/nnc" compile -v --emit obj --target arm_neon \
	    --target-triple arm-none-eabi -o z.o mn/mnist.nnl
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'ignoring target "arm_neon": building for a Cortex-M4F'* ]]
	[[ "$stderr" != *-mfpu=neon* ]]
	! arm-none-eabi-readelf -A z.o | grep -q 'Tag_Advanced_SIMD_arch: NEON'
}
