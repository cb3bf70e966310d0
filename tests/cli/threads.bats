#!/usr/bin/env bats
# nnc --threads N: generated code that splits its matrix products over
# a pool of POSIX threads gives bit for bit the output of one thread
# (examples, an ONNX model exported by PyTorch, checked against PyTorch
# too); with N = 1 the C is the C of today, with no thread code; the
# pool runs clean under ThreadSanitizer and on AArch64 under qemu.

bats_require_minimum_version 1.5.0

setup_file() {
	# a small CNN in PyTorch: convolutions of several shapes (one
	# depthwise), pools and a linear layer, exported at opset 13: the
	# 5 x 5 convolution's bands of output rows go to threads whole; the
	# 3 x 3 convolutions at 24 x 24 take the Winograd path, each thread
	# a third (or half) of the rows of tiles, the products of 64 output
	# channels taken with the tiles as rows (the last rows of each
	# thread's a ragged panel), those of 40 with the tiles as columns
	# (par.c, wino.c); the last convolution (12 x 12 outputs
	# of 864 products each) runs flipped, each thread transposing the
	# columns it computed
	export MD="$BATS_FILE_TMPDIR/cnn"
	mkdir -p "$MD"
	/usr/bin/python3 - "$MD" <<'PY' >/dev/null 2>&1
import sys, numpy as np, torch
d = sys.argv[1]
torch.manual_seed(0)
m = torch.nn.Sequential(
    torch.nn.Conv2d(3, 48, 5, padding=2), torch.nn.ReLU(),
    torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(48, 64, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Conv2d(64, 40, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Conv2d(40, 40, 3, padding=1, groups=40), torch.nn.ReLU6(),
    torch.nn.Conv2d(40, 96, 1), torch.nn.ReLU(),
    torch.nn.Conv2d(96, 64, 3, stride=2, padding=1), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
    torch.nn.Linear(64, 10)).eval()
x = torch.randn(1, 3, 48, 48)
torch.onnx.export(m, x, d + "/cnn.onnx", opset_version=13)
np.save(d + "/input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/expected.npy", m(x).numpy())
# Winograd at 13 x 13 (7 rows of tiles, too few for 3 threads to share
# evenly): the threads share each step by channels, 96 -> 96 with the
# tiles as rows, 96 -> 40 as columns
w = torch.nn.Sequential(torch.nn.Conv2d(96, 96, 3, padding=1),
                        torch.nn.ReLU(),
                        torch.nn.Conv2d(96, 40, 3, padding=1)).eval()
x = torch.randn(1, 96, 13, 13)
torch.onnx.export(w, x, d + "/wino.onnx", opset_version=13)
np.save(d + "/wino-input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/wino-expected.npy", w(x).numpy())
# a flipped convolution of 42 outputs positions and 64 channels (two
# panels): at 3 threads its rows share it more evenly than its columns
f = torch.nn.Sequential(torch.nn.Conv2d(64, 64, 3, stride=2, padding=1),
                        torch.nn.ReLU()).eval()
x = torch.randn(1, 64, 12, 14)
torch.onnx.export(f, x, d + "/flip.onnx", opset_version=13)
np.save(d + "/flip-input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/flip-expected.npy", f(x).numpy())
# depthwise 5 x 5 at stride 2, 7 x 7, and 5 x 5 dilated, 40 channels
# (channel blocks of 16, 16 and 8): each thread whole blocks
k = torch.nn.Sequential(
    torch.nn.Conv2d(3, 40, 3, padding=1),
    torch.nn.Conv2d(40, 40, 5, stride=2, padding=2, groups=40),
    torch.nn.ReLU(),
    torch.nn.Conv2d(40, 40, 7, padding=3, groups=40),
    torch.nn.Conv2d(40, 40, 5, padding=4, dilation=2, groups=40),
    torch.nn.ReLU6()).eval()
x = torch.randn(1, 3, 28, 28)
torch.onnx.export(k, x, d + "/dwk.onnx", opset_version=13)
np.save(d + "/dwk-input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/dwk-expected.npy", k(x).numpy())
# a transformer's norms at opset 13: LayerNorm spelled out (nnl-fuse
# makes one layerNormalization of it), a softmax over the last axis of
# 37, attention's products, ConvNeXt's channels-first norm written out
# and a mean over the tokens (the rows and columns of rt.h's sums)
class Norms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(48)
        self.fc = torch.nn.Linear(48, 48)
        self.g = torch.nn.Parameter(torch.rand(37, 1) + 0.5)
    def forward(self, x):
        h = self.ln(x)
        a = torch.softmax(h @ h.transpose(1, 2) / 7, -1)
        y = a @ self.fc(h)
        u = y.mean(1, keepdim=True)
        s = (y - u).pow(2).mean(1, keepdim=True)
        y = (y - u) / torch.sqrt(s + 1e-6)
        y = self.g * y
        return y.mean(1)
n = Norms().eval()
x = torch.randn(1, 37, 48)
torch.onnx.export(n, x, d + "/norms.onnx", opset_version=13)
np.save(d + "/norms-input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/norms-expected.npy", n(x).numpy())
# efficientnet's and convnext's elementwise work: SiLU after
# convolutions (fused as swish), squeeze-and-excite (a [1, C, H, W] by
# [1, C, 1, 1] mul, split by rows), hardswish, tokens through a linear
# layer, GELU (exported as erf and four nodes, fused into one), a
# layer scale ([1, N, D] by [D]) and a residual add
class EW(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 32, 3, padding=1)
        self.s1 = torch.nn.Conv2d(32, 8, 1)
        self.s2 = torch.nn.Conv2d(8, 32, 1)
        self.c2 = torch.nn.Conv2d(32, 64, 3, stride=2, padding=1)
        self.l1 = torch.nn.Linear(64, 128)
        self.l2 = torch.nn.Linear(128, 64)
        self.g = torch.nn.Parameter(torch.randn(64))

    def forward(self, x):
        y = torch.nn.functional.silu(self.c1(x))
        e = y.mean((2, 3), keepdim=True)
        e = torch.sigmoid(self.s2(torch.nn.functional.silu(self.s1(e))))
        y = torch.nn.functional.hardswish(self.c2(y * e))
        t = y.flatten(2).transpose(1, 2)
        u = self.l2(torch.nn.functional.gelu(self.l1(t)))
        return t + self.g * u
e = EW().eval()
x = torch.randn(1, 3, 32, 32)
torch.onnx.export(e, x, d + "/ew.onnx", opset_version=13)
np.save(d + "/ew-input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/ew-expected.npy", e(x).numpy())
# MobileNetV3's last squeeze-and-excite (960 -> 240 -> 960 on the
# pooled 1x1 image: products of one column, 240 and 960 rows, split by
# rows of 64) between hardswish convolutions at 7 x 7, and its
# classifier's first layer (one row)
class SE(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(16, 960, 1)
        self.s1 = torch.nn.Conv2d(960, 240, 1)
        self.s2 = torch.nn.Conv2d(240, 960, 1)
        self.c2 = torch.nn.Conv2d(960, 160, 1)
        self.fc = torch.nn.Linear(160, 300)

    def forward(self, x):
        y = torch.nn.functional.hardswish(self.c1(x))
        e = y.mean((2, 3), keepdim=True)
        e = torch.nn.functional.hardsigmoid(self.s2(torch.relu(
            self.s1(e))))
        y = self.c2(y * e).mean((2, 3))
        return torch.nn.functional.hardswish(self.fc(y))
s = SE().eval()
x = torch.randn(1, 16, 7, 7)
torch.onnx.export(s, x, d + "/se.onnx", opset_version=13)
np.save(d + "/se-input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/se-expected.npy", s(x).numpy())
# a transformer encoder layer over [S, 1, E]: its products are matmuls,
# batched by heads (attention) or of S batches of one row against one
# weight matrix (the batches one product, rt/nn/nn.c)
t = torch.nn.TransformerEncoderLayer(64, 4, 96, dropout=0.0).eval()
x = torch.randn(45, 1, 64)
torch.onnx.export(t, x, d + "/enc.onnx", opset_version=13)
np.save(d + "/enc-input.npy", x.numpy())
with torch.no_grad():
    np.save(d + "/enc-expected.npy", t(x).numpy())
PY
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	EX="$BATS_TEST_DIRNAME/../../examples"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

# raw float32 bytes of an .npy file
raw() {
	/usr/bin/python3 -c 'import sys, numpy as np
sys.stdout.buffer.write(np.load(sys.argv[1]).astype("<f4").tobytes())' "$1"
}

# MODEL: built for 1 and 3 threads, the same output bytes; and the same
# again with NNL_RT_THREADS=1 (the 3 parts of each product on one
# thread) and =2.  Under check-asan the sanitizers check the threaded
# program, which runs the kernels on one thread too (NNL_RT_THREADS=1);
# the reference is built without them (NNC_CFLAGS)
same_bits() {
	local m=$1 in=$2
	raw "$in" > in.bin
	NNC_CFLAGS= "$BIN/nnc" compile --threads 1 -o one "$m"
	"$BIN/nnc" compile --threads 3 -o three "$m"
	./one < in.bin > one.out
	./three < in.bin > three.out
	[ -s one.out ]
	cmp one.out three.out
	NNL_RT_THREADS=1 ./three < in.bin > three-1.out
	cmp one.out three-1.out
	NNL_RT_THREADS=2 ./three < in.bin > three-2.out
	cmp one.out three-2.out
}

@test "resnet_block: 3 threads give the bits of one" {
	same_bits "$EX/resnet_block/resnet_block.nnl" \
	    "$EX/resnet_block/test_input.npy"
}

@test "mnist: 3 threads give the bits of one" {
	same_bits "$EX/mnist/mnist.nnl" "$EX/mnist/test_input.npy"
}

@test "inception_module: 3 threads give the bits of one" {
	same_bits "$EX/inception_module/inception_module.nnl" \
	    "$EX/inception_module/test_input.npy"
}

@test "an ONNX CNN: 2 threads give the bits of one and match PyTorch" {
	[ -f "$MD/cnn.onnx" ] || { echo "the PyTorch export failed"; false; }
	run "$BIN/nnc" test --threads 2 --tolerance 1e-4 \
	    --input "$MD/input.npy" --expected "$MD/expected.npy" "$MD/cnn.onnx"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:\ 10/10\ elements* ]]
	same_bits "$MD/cnn.onnx" "$MD/input.npy"
}

# the PyTorch export NAME: at 3 threads within 1e-4 of PyTorch, and
# the bits of one thread
three_threads() {
	local m="$MD/$1"
	[ -f "$m.onnx" ] || { echo "the PyTorch export failed"; false; }
	run "$BIN/nnc" test --threads 3 --tolerance 1e-4 \
	    --input "$m-input.npy" --expected "$m-expected.npy" "$m.onnx"
	echo "$output"
	[ "$status" -eq 0 ]
	same_bits "$m.onnx" "$m-input.npy"
}

@test "a transformer encoder's matmuls: 3 threads give the bits of one" {
	same_bits "$MD/enc.onnx" "$MD/enc-input.npy"
	run /usr/bin/python3 -c 'import sys, numpy as np
y = np.fromfile("one.out", "<f4")
e = np.load(sys.argv[1]).ravel()
assert y.shape == e.shape, (y.shape, e.shape)
np.testing.assert_allclose(y, e, rtol=1e-4, atol=1e-4)' "$MD/enc-expected.npy"
	[ "$status" -eq 0 ]
}

@test "a flipped convolution split by rows: 3 threads give the bits of one" {
	three_threads flip
}

@test "Winograd shared by channels: 3 threads give the bits of one" {
	three_threads wino
}

@test "depthwise 5 x 5 and 7 x 7 in blocks: 3 threads give the bits of one" {
	three_threads dwk
}

@test "layer norms, softmax and means: 3 threads give the bits of one" {
	three_threads norms
	"$BIN/nnc" compile --emit c -o norms.c "$MD/norms.onnx"
	# the two norms fused, each one call
	[ "$(grep -cE '^[[:space:]]+nnl_k_normalize_f32\(' norms.c)" -eq 2 ]
	# NEON's vectors too, within 1e-4 of PyTorch
	command -v aarch64-linux-gnu-gcc && command -v qemu-aarch64 || return 0
	"$BIN/nnc" compile --target-triple aarch64-linux-gnu -o arm \
	    "$MD/norms.onnx"
	raw "$MD/norms-input.npy" > in.bin
	qemu-aarch64 -L /usr/aarch64-linux-gnu ./arm < in.bin > arm.out
	/usr/bin/python3 -c 'import sys, numpy as np
g = np.fromfile(sys.argv[1], "<f4")
w = np.load(sys.argv[2]).ravel()
sys.exit(not (g.size == w.size and
              np.max(np.abs(g - w)) <= 1e-4 * np.max(np.abs(w))))' \
	    arm.out "$MD/norms-expected.npy"
}

@test "squeeze-and-excite at MobileNetV3's widths: 3 threads give the bits of one" {
	three_threads se
}

@test "the threaded program does start threads" {
	raw "$EX/resnet_block/test_input.npy" > in.bin
	"$BIN/nnc" compile --threads 3 -o three "$EX/resnet_block/resnet_block.nnl"
	strace -f -e trace=clone,clone3 -o trace ./three < in.bin > /dev/null
	# two workers, started once
	[ "$(grep -c 'clone' trace)" -ge 2 ]
	NNL_RT_THREADS=1 strace -f -e trace=clone,clone3 -o trace1 ./three \
	    < in.bin > /dev/null
	[ "$(grep -c 'clone' trace1)" -eq 0 ]
}

plan() {
	"$BIN/nnl-parse" -w w.bin -m w.json "$EX/resnet_block/resnet_block.nnl" |
	    "$BIN/nnl-reorder" | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-fuse" -e ihwo > f.json
}

@test "one thread: the same C as without the option, no thread code" {
	plan
	"$BIN/nnl-plan-memory" f.json > p.json
	"$BIN/nnl-plan-memory" --threads 1 f.json > p1.json
	cmp p.json p1.json
	"$BIN/nnl-emit-c" -p m -H m.h -o a.c p.json
	"$BIN/nnl-emit-c" -p m -H m.h -o b.c --threads 1 p.json
	cmp a.c b.c
	! grep -q 'pthread\|NNL_RT_THREADS\|nnl_par' a.c
	# and nnc says so too
	"$BIN/nnc" compile -v --threads 1 --emit c -o c1/m.c \
	    "$EX/resnet_block/resnet_block.nnl" 2> log
	! grep -q 'pthread\|NNL_RT_THREADS\|nnl_par' c1/m.c
	! grep -q -- -pthread log
}

@test "more threads: a larger workspace, recorded in the plan" {
	plan
	"$BIN/nnl-plan-memory" f.json > p.json
	"$BIN/nnl-plan-memory" --threads 2 f.json > p2.json
	/usr/bin/python3 - p.json p2.json <<'PY'
import json, sys
a, b = (json.load(open(f))["memory"] for f in sys.argv[1:])
assert "threads" not in a and b["threads"] == 2, (a, b)
assert b["arenaBytes"] > a["arenaBytes"], (a, b)
PY
	"$BIN/nnl-emit-c" -p m -o a.c p2.json
	grep -q '^#define NNL_RT_THREADS 2$' a.c
	grep -q 'pthread_create' a.c
}

@test "emit-c refuses more threads than the plan has room for" {
	plan
	"$BIN/nnl-plan-memory" --threads 2 f.json > p2.json
	run "$BIN/nnl-emit-c" --threads 4 -o a.c p2.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the memory plan is for 2 threads, not 4: run nnl-plan-memory --threads 4"* ]]
	[ ! -e a.c ]
}

@test "--threads takes 1 to 64" {
	for n in 0 65 -1 x 2x ""; do
		run "$BIN/nnc" compile --threads "$n" "$EX/mnist/mnist.nnl"
		[ "$status" -eq 2 ]
		run "$BIN/nnl-plan-memory" --threads "$n" /dev/null
		[ "$status" -eq 2 ]
		run "$BIN/nnl-emit-c" --threads "$n" /dev/null
		[ "$status" -eq 2 ]
	done
}

@test "no threads for a bare-metal target" {
	run "$BIN/nnc" compile --emit obj --threads 2 \
	    --target-triple arm-none-eabi -o m.o "$EX/mnist/mnist.nnl"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"mnist.nnl: 2 threads: target arm-none-eabi has no POSIX threads"* ]]
	[ ! -e m.o ]
}

@test "config threads: the model's thread count" {
	cp -r "$EX/mnist" .
	sed 's/^    config {/&\n        threads: 2;/' mnist/mnist.nnl > mnist/t.nnl
	grep -q 'threads: 2' mnist/t.nnl
	"$BIN/nnc" compile --emit c -o c/t.c mnist/t.nnl
	grep -q '^#define NNL_RT_THREADS 2$' c/t.c
	# --threads overrides it
	"$BIN/nnc" compile --threads 1 --emit c -o d/t.c mnist/t.nnl
	! grep -q NNL_RT_THREADS d/t.c
	run "$BIN/nnc" test --input mnist/test_input.npy \
	    --expected mnist/expected_output.npy mnist/t.nnl
	[ "$status" -eq 0 ]
	sed 's/^    config {/&\n        threads: 0;/' mnist/mnist.nnl > mnist/z.nnl
	run "$BIN/nnc" compile mnist/z.nnl
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"z.nnl:"*":"*"threads: expected an integer from 1 to 64"* ]]
}

@test "ThreadSanitizer: the pool and the split kernels race on nothing" {
	# the ONNX CNN (nchw): products split by columns and rows, im2col,
	# depthwise convolution and pooling split by channels
	[ -f "$MD/cnn.onnx" ] || { echo "the PyTorch export failed"; false; }
	raw "$MD/input.npy" > in.bin
	"$BIN/nnc" compile --threads 3 --emit c -o c/cnn.c "$MD/cnn.onnx"
	"$BIN/nnc" compile --threads 1 --emit c -o c1/cnn.c "$MD/cnn.onnx"
	cat > main.c <<'C'
#include <stdio.h>
#include "cnn.h"

int
main(void)
{
	static unsigned char in[1 << 20], out[1 << 20];
	size_t n = fread(in, 1, sizeof in, stdin);

	/* three inferences: the pool started, then reused */
	for (int i = 0; i < 3; i++)
		if (n != cnn_input_bytes() || cnn_infer(in, out))
			return 1;
	fwrite(out, 1, cnn_output_bytes(), stdout);
	return 0;
}
C
	cc -O1 -g -fsanitize=thread -pthread -Ic -o tsan main.c c/cnn.c -lm
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 ./tsan < in.bin > tsan.out \
	    2> tsan.log || { cat tsan.log; false; }
	! grep -q ThreadSanitizer tsan.log
	# the bits of one thread built with the same flags
	cc -O1 -g -Ic1 -o one main.c c1/cnn.c -lm
	./one < in.bin > one.out
	cmp one.out tsan.out
}

@test "AArch64 under qemu: 2 threads give the bits of one" {
	command -v aarch64-linux-gnu-gcc && command -v qemu-aarch64 ||
	    skip "no aarch64-linux-gnu-gcc or qemu-aarch64 (scripts/install-deps.sh)"
	raw "$EX/resnet_block/test_input.npy" > in.bin
	for n in 1 2; do
		"$BIN/nnc" compile --target-triple aarch64-linux-gnu \
		    --threads $n -o a$n "$EX/resnet_block/resnet_block.nnl"
		qemu-aarch64 -L /usr/aarch64-linux-gnu ./a$n < in.bin > a$n.out
	done
	[ -s a1.out ]
	cmp a1.out a2.out
}

@test "fused activations and broadcast ops: 3 threads give the bits of one" {
	three_threads ew
	# the SiLUs went into their convolutions, GELU into one node
	"$BIN/nnl-onnx-import" -w w -m m.json "$MD/ew.onnx" |
	    "$BIN/nnl-shape-infer" | "$BIN/nnl-fuse" -v -o f.json 2> fuse.err
	cat fuse.err
	[ "$(grep -c 'as swish' fuse.err)" -eq 2 ]
	[ "$(grep -c 'as one gelu' fuse.err)" -eq 1 ]
	! grep -q '"op": "erf"' f.json
}
