#!/usr/bin/env bats
# nnc import to .nnl keeps ONNX's numbers across a layout change: a
# Flatten's features are in HWC order in NNL and CHW order in ONNX, and
# every layer between the Flatten and the Dense that consumes them
# (activations, BatchNorm, LayerNorm, Softmax, Add, Concat) keeps that
# order, its parameters permuted to it.  Each model comes from PyTorch,
# which also computes the expected output; what NNL cannot compute
# exactly is refused.  The property test runs 200 random compositions.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	PY=/usr/bin/python3
	cd "$BATS_TEST_TMPDIR"
}

# torch MODEL (a Python expression over nn) on an input of SHAPE:
# model.onnx (opset 17), in.npy in NNL's layout (HWC, LC) and want.npy,
# PyTorch's output, with batch norm statistics and norm parameters
# away from their defaults
torch() {
	$PY - "$1" "$2" <<'PY'
import sys, warnings
warnings.filterwarnings("ignore")
import numpy as np, torch
from torch import nn
torch.manual_seed(29)
m = eval(sys.argv[1]).eval()
for b in m.modules():
    if isinstance(b, (nn.BatchNorm1d, nn.BatchNorm2d)):
        b.running_mean.uniform_(-1, 1)
        b.running_var.uniform_(0.5, 2)
    if isinstance(b, (nn.BatchNorm1d, nn.BatchNorm2d, nn.LayerNorm)):
        b.weight.data.uniform_(0.5, 2)
        b.bias.data.uniform_(-1, 1)
x = torch.randn(*eval(sys.argv[2]))
with torch.no_grad():
    y = m(x).numpy()
torch.onnx.export(m, x, "model.onnx", opset_version=17)
a = x.numpy()[0]
a = a.transpose(1, 2, 0) if a.ndim == 3 else a.T if a.ndim == 2 else a
np.save("in.npy", np.ascontiguousarray(a))
np.save("want.npy", y)
PY
}

# import model.onnx and check the compiled model against want.npy
matches() {
	run --separate-stderr "$BIN/nnc" import -o m.nnl --weights-dir w \
	    model.onnx
	echo "$stderr"
	[ "$status" -eq 0 ]
	run "$BIN/nnc" test --tolerance 1e-4 --input in.npy \
	    --expected want.npy m.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:* ]]
}

# import model.onnx: refused, naming the node and the reason $1
refused() {
	run --separate-stderr "$BIN/nnc" import -o r.nnl --weights-dir rw \
	    model.onnx
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'fit no NNL layer'*"$1"* ]]
	[ ! -e r.nnl ]
	[ ! -e rw ]
}

@test "Conv, Flatten, ReLU, Gemm computes PyTorch's numbers" {
	torch 'nn.Sequential(nn.Conv2d(2, 3, 3), nn.Flatten(), nn.ReLU(),
	    nn.Linear(60, 4))' '(1, 2, 6, 7)'
	matches
}

@test "Conv, Flatten, BatchNorm1d, Gemm: the statistics permuted too" {
	torch 'nn.Sequential(nn.Conv2d(2, 3, 3), nn.Flatten(),
	    nn.BatchNorm1d(60), nn.Linear(60, 4))' '(1, 2, 6, 7)'
	matches
}

@test "Conv, Flatten, LayerNorm, Gemm: gamma and beta in HWC order" {
	torch 'nn.Sequential(nn.Conv2d(2, 3, 3), nn.Flatten(),
	    nn.LayerNorm(60), nn.Linear(60, 4))' '(1, 2, 6, 7)'
	matches
	# LayerNorm's gamma: ONNX's feature (c * 4 + h) * 5 + w at NNL's
	# (h * 5 + w) * 3 + c
	$PY -c 'import glob, numpy as np, onnx
from onnx import numpy_helper as nh
g = {i.name: nh.to_array(i) for i in onnx.load("model.onnx").graph.initializer}
got = np.load(glob.glob("w/*LayerNorm*.gamma.npy")[0])
assert np.array_equal(got, g["2.weight"].reshape(3, 4, 5).transpose(1, 2, 0).ravel())'
}

@test "Conv1d, MaxPool1d, Flatten, LayerNorm, Linear computes PyTorch's" {
	torch 'nn.Sequential(nn.Conv1d(2, 3, 3), nn.MaxPool1d(2),
	    nn.Flatten(), nn.LayerNorm(12), nn.Linear(12, 4))' '(1, 2, 10)'
	matches
}

@test "Conv1d, MaxPool1d, LayerNorm over the length is refused" {
	torch 'nn.Sequential(nn.Conv1d(2, 3, 3), nn.MaxPool1d(2),
	    nn.LayerNorm(4))' '(1, 2, 10)'
	refused 'node "/2/LayerNormalization" (LayerNormalization): a LayerNormalization not over the features'
}

@test "Softmax over the channels of a Conv1d is Softmax; over L refused" {
	torch 'nn.Sequential(nn.Conv1d(2, 3, 3), nn.Softmax(1), nn.Flatten(),
	    nn.Linear(24, 2))' '(1, 2, 10)'
	matches
	torch 'nn.Sequential(nn.Conv1d(2, 3, 3), nn.Softmax(2), nn.Flatten(),
	    nn.Linear(24, 2))' '(1, 2, 10)'
	refused '(softmax): not over the channels'
}

@test "Flatten, Sigmoid, Softmax, Gemm keeps the order" {
	torch 'nn.Sequential(nn.Conv2d(1, 2, 2), nn.Flatten(),
	    nn.Sigmoid(), nn.Softmax(1), nn.Linear(18, 3))' '(1, 1, 4, 4)'
	matches
}

@test "an Add of a Flatten's features and a Linear's is refused" {
	$PY - <<'PY'
import warnings
warnings.filterwarnings("ignore")
import torch
from torch import nn
class M(nn.Module):
    def __init__(s):
        super().__init__()
        s.c, s.l = nn.Conv2d(2, 3, 3), nn.Linear(18, 18)
    def forward(s, x):
        f = s.c(x).flatten(1)
        return f + s.l(f)
torch.onnx.export(M().eval(), torch.randn(1, 2, 4, 5), "model.onnx",
                  opset_version=17)
PY
	refused '(add): its inputs list their features in different orders'
}

@test "a Flatten's features as the model's output are refused" {
	torch 'nn.Sequential(nn.Conv2d(2, 3, 3), nn.Flatten(), nn.ReLU())' \
	    '(1, 2, 5, 5)'
	refused "output \""
	[[ "$stderr" == *"\": a Flatten's features, in HWC order where ONNX has CHW"* ]]
	# in ONNX's order all the same: one channel, or one position
	torch 'nn.Sequential(nn.Conv2d(2, 1, 3), nn.Flatten(), nn.ReLU())' \
	    '(1, 2, 5, 5)'
	matches
	torch 'nn.Sequential(nn.Conv2d(2, 3, 3), nn.AdaptiveAvgPool2d(1),
	    nn.Flatten(), nn.ReLU())' '(1, 2, 5, 5)'
	matches
}

@test "--unsupported comment refuses a node reading a Flatten's features" {
	$PY - <<'PY'
import numpy as np, onnx
from onnx import helper as h, TensorProto as P, numpy_helper as nh
r = np.random.default_rng(3)
nodes = [h.make_node('Conv', ['x', 'W'], ['c']),
         h.make_node('Flatten', ['c'], ['f']),
         h.make_node('Erf', ['f'], ['e']),
         h.make_node('Gemm', ['e', 'B'], ['y'], transB=1)]
g = h.make_graph(nodes, 'g', [h.make_tensor_value_info('x', P.FLOAT, [1, 2, 4, 4])],
    [h.make_tensor_value_info('y', P.FLOAT, [1, 2])],
    [nh.from_array(r.standard_normal((3, 2, 3, 3)).astype(np.float32), 'W'),
     nh.from_array(r.standard_normal((2, 12)).astype(np.float32), 'B')])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 13)]), 'model.onnx')
PY
	run --separate-stderr "$BIN/nnc" import --unsupported comment \
	    -o m.nnl --weights-dir w model.onnx
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "e" (erf): no NNL layer computes it (not a comment: its input is a Flatten'* ]]
	[ ! -e m.nnl ]
}

@test "GlobalAveragePool and a mean over H and W become GlobalAvgPool2D" {
	torch 'nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(),
	    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3))' \
	    '(1, 2, 6, 7)'
	matches
	grep -q '= GlobalAvgPool2D();' m.nnl
	# an AveragePool whose window is the whole input stays a pool a
	# Conv can read
	torch 'nn.Sequential(nn.Conv2d(2, 4, 3), nn.AvgPool2d((4, 5)),
	    nn.Conv2d(4, 3, 1), nn.Flatten(), nn.Linear(3, 2))' '(1, 2, 6, 7)'
	matches
	grep -q 'AvgPool2D(kernel: \[4, 5\]' m.nnl
	$PY - <<'PY'
import warnings
warnings.filterwarnings("ignore")
import numpy as np, torch
from torch import nn
torch.manual_seed(2)
class M(nn.Module):
    def __init__(s):
        super().__init__()
        s.c, s.l = nn.Conv2d(2, 4, 3), nn.Linear(4, 3)
    def forward(s, x):
        return s.l(s.c(x).mean((2, 3)))
m, x = M().eval(), torch.randn(1, 2, 6, 7)
torch.onnx.export(m, x, "model.onnx", opset_version=17)
np.save("in.npy", x.numpy()[0].transpose(1, 2, 0).copy())
np.save("want.npy", m(x).detach().numpy())
PY
	matches
	grep -q '= GlobalAvgPool2D();' m.nnl
	# a mean over W alone is no GlobalAvgPool2D
	$PY - <<'PY'
import warnings
warnings.filterwarnings("ignore")
import torch
from torch import nn
class M(nn.Module):
    def __init__(s):
        super().__init__()
        s.c = nn.Conv2d(2, 4, 3)
    def forward(s, x):
        return s.c(x).mean(3)
torch.onnx.export(M().eval(), torch.randn(1, 2, 6, 7), "model.onnx",
                  opset_version=17)
PY
	refused '(reduceMean): not a mean over H and W'
}

@test "200 random compositions of the 0.9 layers import as PyTorch computes" {
	mkdir models
	run $PY "$BATS_TEST_DIRNAME/../onnx/import_property.py" "$BIN" \
	    models 200 29
	echo "$output"
	[ "$status" -eq 0 ]
	re='^compared ([0-9]+) \(([0-9]+) also through nnc test\), '
	re+='refused ([0-9]+), failed 0$'
	[[ "${lines[-1]}" =~ $re ]]
	[ "${BASH_REMATCH[1]}" -ge 180 ]
	[ "${BASH_REMATCH[2]}" -ge 4 ]
	[ $((BASH_REMATCH[1] + BASH_REMATCH[3])) -eq 200 ]
}

@test "weights: \"model.onnx\": a Dense after Flatten, BatchNorm, ReLU" {
	# an NNL model given an ONNX model's weights: the BatchNorm's
	# statistics and the Dense's rows follow the Flatten's HWC order
	$PY - <<'PY'
import numpy as np, onnx
from onnx import helper as h, TensorProto as P, numpy_helper as nh
r = np.random.default_rng(5)
f = lambda *s: r.standard_normal(s).astype(np.float32)
W, b, Wf, Bf = f(3, 2, 3, 3), f(3), f(4, 48), f(4)
s, bb, m = f(48), f(48), f(48)
v = (np.abs(f(48)) + 0.5).astype(np.float32)
g = h.make_graph([
    h.make_node("Conv", ["x", "W", "b"], ["conv"]),
    h.make_node("Flatten", ["conv"], ["flat"]),
    h.make_node("BatchNormalization", ["flat", "s", "bb", "m", "v"], ["bn"]),
    h.make_node("Relu", ["bn"], ["relu"]),
    h.make_node("Gemm", ["relu", "Wf", "Bf"], ["fc"], transB=1)],
    "g", [h.make_tensor_value_info("x", P.FLOAT, [1, 2, 6, 6])],
    [h.make_tensor_value_info("fc", P.FLOAT, [1, 4])],
    [nh.from_array(a, n) for a, n in [(W, "W"), (b, "b"), (s, "s"),
     (bb, "bb"), (m, "m"), (v, "v"), (Wf, "Wf"), (Bf, "Bf")]])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "m.onnx")
x = f(1, 2, 6, 6).astype(np.float64)
c = np.zeros((3, 4, 4))
for o in range(3):
    for i in range(4):
        for j in range(4):
            c[o, i, j] = (x[0, :, i:i + 3, j:j + 3] * W[o]).sum() + b[o]
k = (c.reshape(-1) - m) / np.sqrt(v + 1e-5) * s + bb
y = Wf.astype(np.float64) @ np.maximum(k, 0) + Bf
np.save("in.npy", x[0].transpose(1, 2, 0).astype(np.float32))
np.save("want.npy", y.astype(np.float32))
PY
	cat > om.nnl <<'NNL'
version 0.9;
model om {
    config { weights: "m.onnx"; }
    layer input = Input(shape: [6, 6, 2]);
    layer conv = Conv2D(filters: 3, kernel: 3, padding: "valid");
    layer flat = Flatten();
    layer bn = BatchNorm();
    layer relu = ReLU();
    layer fc = Dense(units: 4);
}
NNL
	run "$BIN/nnc" test --tolerance 1e-4 --input in.npy \
	    --expected want.npy om.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 4/4 elements"* ]]
	# an Add of the Flatten's features and a Dense's has no ONNX order
	sed '/layer fc =/d; $d' om.nnl > add.nnl
	cat >> add.nnl <<'NNL'
    layer d = Dense(units: 48);
    layer sum = Add();
    layer fc = Dense(units: 4);
    connections {
        input -> conv; conv -> flat; flat -> bn; bn -> relu; relu -> d;
        [relu, d] -> sum; sum -> fc;
    }
}
NNL
	run --separate-stderr "$BIN/nnc" compile -o add add.nnl
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'fc.weight: ONNX weights for features that an Add or Mul before it took in two orders'* ]]
}
