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
	$PY -c 'import numpy as np, onnx
from onnx import numpy_helper as nh
m = onnx.load("model.onnx")
g = [nh.to_array(i) for i in m.graph.initializer if i.name == "2.weight"][0]
got = np.load([l for l in __import__("glob").glob("w/*LayerNorm*.gamma.npy")][0])
assert np.array_equal(got, g.reshape(3, 4, 5).transpose(1, 2, 0).ravel())'
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
	[[ "${lines[-1]}" =~ ^compared\ ([0-9]+),\ refused\ ([0-9]+),\ failed\ 0$ ]]
	[ "${BASH_REMATCH[1]}" -ge 180 ]
	[ $((BASH_REMATCH[1] + BASH_REMATCH[2])) -eq 200 ]
}
