#!/usr/bin/env bats
# nnc import to .nnl: the mappings that used to be refused (Resize and
# Upsample, asymmetric pads) computed by the compiled model as ONNX
# defines them (a NumPy reference), and --unsupported comment.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
	cd "$T"
}

# model.onnx from the Python below, in.npy (HWC) and want.npy (the
# NumPy result, HWC)
build() {
	$PY -c "import numpy as np, onnx
from onnx import helper as h, TensorProto as P, numpy_helper as nh
r = np.random.default_rng(11)
f = lambda *s: r.standard_normal(s).astype(np.float32)
def save(nodes, x, y, inits, opset=13):
    g = h.make_graph(nodes, 'g', [h.make_tensor_value_info('x', P.FLOAT, x)],
        [h.make_tensor_value_info('y', P.FLOAT, y)],
        [nh.from_array(a, n) for n, a in inits.items()])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', opset)]), 'model.onnx')
def out(x, y):
    np.save('in.npy', x[0].transpose(1, 2, 0).astype(np.float32))
    np.save('want.npy', y[0].transpose(1, 2, 0).astype(np.float32))
$1"
}

@test "Resize (nearest, scales) becomes Upsample and computes ONNX's result" {
	build "x = f(1, 2, 3, 4)
save([h.make_node('Resize', ['x', '', 's'], ['y'], mode='nearest')],
     [1, 2, 3, 4], [1, 2, 6, 12], {'s': np.array([1, 1, 2, 3], np.float32)})
out(x, x.repeat(2, axis=2).repeat(3, axis=3))"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	[ "$status" -eq 0 ]
	grep -q 'Upsample(scale: \[2, 3\])' m.nnl
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS* ]]
}

@test "Upsample (opset 9) becomes Upsample" {
	build "x = f(1, 3, 2, 2)
save([h.make_node('Upsample', ['x', 's'], ['y'], mode='nearest')],
     [1, 3, 2, 2], [1, 3, 4, 4], {'s': np.array([1, 1, 2, 2], np.float32)}, 9)
out(x, x.repeat(2, axis=2).repeat(2, axis=3))"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -q 'Upsample(scale: \[2, 2\])' m.nnl
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	[ "$status" -eq 0 ]
}

@test "asymmetric pads: Conv and MaxPool per side, as ONNX computes them" {
	build "x = f(1, 2, 5, 6); W = f(3, 2, 3, 2); b = f(3)
save([h.make_node('Conv', ['x', 'W', 'b'], ['c'], pads=[2, 0, 0, 1]),
      h.make_node('MaxPool', ['c'], ['y'], kernel_shape=[2, 2], pads=[0, 1, 1, 0])],
     [1, 2, 5, 6], [1, 3, 4, 6], {'W': W, 'b': b})
# ONNX pads: [top, left, bottom, right]
xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (2, 0), (0, 1)))
c = np.zeros((1, 3, 5, 6))
for o in range(3):
    for i in range(5):
        for j in range(6):
            c[0, o, i, j] = (xp[0, :, i:i + 3, j:j + 2] * W[o]).sum() + b[o]
cp = np.pad(c, ((0, 0), (0, 0), (0, 1), (1, 0)), constant_values=-np.inf)
y = np.zeros((1, 3, 5, 6))
for i in range(5):
    for j in range(6):
        y[0, :, i, j] = cp[0, :, i:i + 2, j:j + 2].max(axis=(1, 2))
out(x, y)"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	cat m.nnl
	grep -q 'Conv2D(filters: 3, kernel: \[3, 2\], stride: \[1, 1\], padding: \[2, 0, 0, 1\])' m.nnl
	grep -q 'MaxPool2D(kernel: \[2, 2\], stride: \[1, 1\], padding: \[0, 1, 1, 0\])' m.nnl
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 90/90 elements"* ]]
}

@test "a Conv2D padding list must have four sizes" {
	cat > bad.nnl <<'NNL'
version 0.9;
model bad {
    layer input = Input(shape: [4, 4, 1]);
    layer c = Conv2D(filters: 1, kernel: 3, padding: [1, 1]);
}
NNL
	run --separate-stderr "$BIN/nnc" inspect bad.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'bad.nnl:4:'*'padding'*'"valid", "same" or [top, left, bottom, right]'* ]]
}

lrn() {
	build "x = f(1, 4, 5, 5)
save([h.make_node('Erf', ['x'], ['e'], name='erf_0'),
      h.make_node('Relu', ['e'], ['y'], name='relu_0')], [1, 4, 5, 5], [1, 4, 5, 5], {})
out(x, x)"
}

@test "an unsupported operator is refused by default, naming the node" {
	lrn
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'1 node fit no NNL layer'* ]]
	[[ "$stderr" == *'node "e" (erf): no NNL layer computes it'* ]]
	[ ! -e m.nnl ]
	[ ! -e w ]
}

@test "an operator whose first input became a folded constant is refused, not a crash" {
	# found by scripts/fuzz.py names: NegativeLogLikelihoodLoss of two
	# initializers; the .nnl writer looked up the ONNX input "x", which
	# no operand of the graph keeps, and read through a null pointer
	build "save([h.make_node('NegativeLogLikelihoodLoss', ['x', 't', 'w'],
     ['y'], reduction='sum')], [5], [],
     {'x': f(3, 5, 6, 6), 't': r.integers(0, 5, (3, 6, 6))})"
	$PY -c "import onnx; m = onnx.load('model.onnx')
m.graph.input[0].name = 'w'; onnx.save(m, 'model.onnx')"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w \
	    model.onnx
	[[ "$stderr" == *'node "y__gather" (gather): no NNL layer computes it'* ]]
	for u in error comment; do
		run --separate-stderr "$BIN/nnc" import --unsupported $u \
		    -o m.nnl --weights-dir w model.onnx
		echo "$stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" != *signal* ]]
		[[ "$stderr" == *'input "w": NNL reads one float32'* ]]
		[ ! -e m.nnl ]
	done
	[[ "$stderr" == *'1 node fit no NNL layer'* ]]
}

@test "--unsupported comment writes the seed's // UNSUPPORTED comments" {
	lrn
	run --separate-stderr "$BIN/nnc" import --unsupported comment -o m.nnl \
	    --weights-dir w model.onnx
	echo "$stderr"
	cat m.nnl
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'warning: m.nnl: 1 node written as // UNSUPPORTED comments'* ]]
	grep -qx '    // UNSUPPORTED: erf(e): no NNL layer computes it' m.nnl
	grep -qx '    layer y = ReLU();' m.nnl
	grep -qx '        x -> e;' m.nnl
	grep -qx '        e -> y;' m.nnl
	# compiling names the missing layer
	run --separate-stderr "$BIN/nnc" compile m.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:"*"'e'"* ]]
	# replacing the comment with a layer of that name completes it
	sed 's|// UNSUPPORTED: erf(e).*|layer e = Sigmoid();|' m.nnl > fixed.nnl
	run "$BIN/nnc" compile -o fixed fixed.nnl
	[ "$status" -eq 0 ]
	run --separate-stderr "$BIN/nnc" import --unsupported maybe model.onnx
	[ "$status" -eq 2 ]
}

@test "LRN becomes LRN and computes ONNX's result" {
	build "x = f(1, 6, 3, 4)
save([h.make_node('LRN', ['x'], ['y'], size=3, alpha=0.5, beta=0.75, bias=2.0)],
     [1, 6, 3, 4], [1, 6, 3, 4], {})
# ONNX: square_sum over channels c - floor((size-1)/2) .. c + ceil((size-1)/2)
x64 = x.astype(np.float64); sq = x64 * x64; s = np.zeros_like(x64)
for c in range(6):
    s[:, c] = sq[:, max(0, c - 1):min(5, c + 1) + 1].sum(axis=1)
out(x, x64 / (2.0 + 0.5 / 3 * s) ** 0.75)"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -q 'LRN(size: 3, alpha: 0.5, beta: 0.75, bias: 2)' m.nnl
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 72/72 elements within tolerance 1.0e-5"* ]]
}

@test "LayerNormalization becomes LayerNorm with its scale and bias" {
	build "x = f(1, 8); g = f(8); b = f(8)
save([h.make_node('Gemm', ['x', 'W', 'c'], ['d']),
      h.make_node('LayerNormalization', ['d', 'g', 'b'], ['y'], epsilon=1e-3)],
     [1, 8], [1, 8], {'W': (W := f(8, 8)), 'c': (c := f(8)), 'g': g, 'b': b}, 17)
d = x.astype(np.float64) @ W + c
m = d.mean(-1, keepdims=True); v = ((d - m) ** 2).mean(-1, keepdims=True)
y = (d - m) / np.sqrt(v + 1e-3) * g + b
np.save('in.npy', x[0]); np.save('want.npy', y[0].astype(np.float32))"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	cat m.nnl
	grep -q 'LayerNorm(epsilon: 0.00100000005)' m.nnl
	[ -f w/y.gamma.npy ] && [ -f w/y.beta.npy ]
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 8/8 elements"* ]]
}

@test "a 1-D Conv and MaxPool become Conv1D and MaxPool1D" {
	build "x = f(1, 3, 12); W = f(4, 3, 3); b = f(4)
save([h.make_node('Conv', ['x', 'W', 'b'], ['c'], pads=[1, 1]),
      h.make_node('Relu', ['c'], ['r']),
      h.make_node('MaxPool', ['r'], ['y'], kernel_shape=[2], strides=[2])],
     [1, 3, 12], [1, 4, 6], {'W': W, 'b': b})
xp = np.pad(x[0].astype(np.float64), ((0, 0), (1, 1)))
c = np.array([[(xp[:, l:l + 3] * W[o]).sum() + b[o] for l in range(12)] for o in range(4)])
r = np.maximum(c, 0)
y = r.reshape(4, 6, 2).max(-1)
np.save('in.npy', x[0].T.astype(np.float32))  # [L, C]
np.save('want.npy', y.T.astype(np.float32))"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	cat m.nnl
	grep -q 'Input(shape: \[12, 3\])' m.nnl
	grep -q 'Conv1D(filters: 4, kernel: 3, stride: 1, padding: "same")' m.nnl
	grep -q 'MaxPool1D(kernel: 2, stride: 2)' m.nnl
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 24/24 elements"* ]]
}

@test "QuantizeLinear + DequantizeLinear become FakeQuant (a uint8 zero point)" {
	build "x = (f(1, 32) * 4).astype(np.float32)
save([h.make_node('QuantizeLinear', ['x', 's', 'z'], ['q']),
      h.make_node('DequantizeLinear', ['q', 's', 'z'], ['y'])], [1, 32], [1, 32],
     {'s': np.array(0.05, np.float32), 'z': np.array(100, np.uint8)})
# ONNX: saturate(round_half_even(x / s) + z) to uint8, then (q - z) * s
q = np.clip(np.round(x / np.float32(0.05)) + 100, 0, 255)
np.save('in.npy', x[0]); np.save('want.npy', ((q - 100) * np.float32(0.05)).astype(np.float32)[0])"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -q 'FakeQuant(scale: 0.0500000007, zero_point: 100, qmin: 0, qmax: 255)' m.nnl
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 32/32 elements"* ]]
}

@test "a MatMul -> Q/DQ -> Add bias chain of DequantizeLinear weights" {
	build "Wq = r.integers(-100, 100, (8, 4)).astype(np.int8); b = f(4); x = f(1, 8)
save([h.make_node('DequantizeLinear', ['Wq', 'ws'], ['W']),
      h.make_node('MatMul', ['x', 'W'], ['m']),
      h.make_node('QuantizeLinear', ['m', 's', 'z'], ['mq']),
      h.make_node('DequantizeLinear', ['mq', 's', 'z'], ['md']),
      h.make_node('Add', ['md', 'b'], ['y'])], [1, 8], [1, 4],
     {'Wq': Wq, 'ws': np.array(0.02, np.float32), 's': np.array(0.05, np.float32),
      'z': np.array(-3, np.int8), 'b': b})
m = x.astype(np.float64) @ (Wq.astype(np.float32) * np.float32(0.02)).astype(np.float64)
q = np.clip(np.round(m / 0.05) - 3, -128, 127)
np.save('in.npy', x[0]); np.save('want.npy', ((q + 3) * np.float32(0.05) + b).astype(np.float32)[0])"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	cat m.nnl
	[ "$status" -eq 0 ]
	grep -q 'Dense(units: 4)' m.nnl
	grep -q 'FakeQuant(scale: 0.0500000007, zero_point: -3, qmin: -128, qmax: 127)' m.nnl
	grep -q 'BatchNorm(epsilon: 0)' m.nnl
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 4/4 elements"* ]]
}

@test "an asymmetrically padded AveragePool becomes AvgPool2D(padding)" {
	build "x = f(1, 2, 4, 5)
save([h.make_node('AveragePool', ['x'], ['y'], kernel_shape=[2, 3], pads=[1, 0, 0, 2])],
     [1, 2, 4, 5], [1, 2, 4, 5], {})
# ONNX count_include_pad=0: the mean of the real cells of each window
xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 0), (0, 2)), constant_values=np.nan)
y = np.zeros((1, 2, 4, 5))
for i in range(4):
    for j in range(5):
        y[0, :, i, j] = np.nanmean(xp[0, :, i:i + 2, j:j + 3], axis=(1, 2))
out(x, y)"
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -q 'AvgPool2D(kernel: \[2, 3\], stride: \[1, 1\], padding: \[1, 0, 0, 2\])' m.nnl
	run "$BIN/nnc" test --input in.npy --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 40/40 elements"* ]]
	# counting the padding is not what AvgPool2D does: refused
	build "x = f(1, 2, 4, 5)
save([h.make_node('AveragePool', ['x'], ['y'], kernel_shape=[2, 3], pads=[1, 0, 0, 2], count_include_pad=1)],
     [1, 2, 4, 5], [1, 2, 4, 5], {})
out(x, x)"
	run --separate-stderr "$BIN/nnc" import -o m2.nnl --weights-dir w2 model.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"a padded AveragePool that counts the padding"* ]]
}
