#!/usr/bin/env bats
# nnl-fuse -e residual (nnc's default passes): a conv2d's add merged
# into it, on every convolution path of the C kernels, gives PyTorch's
# result and the bits of the unfused add, at one thread and three; a
# residual field that names no operand, one of another type or one on
# another op is refused, naming the node.

bats_require_minimum_version 1.5.0

setup_file() {
	# residual blocks whose convolutions take each path of rt/nn/nn.c: a
	# 3 x 3 of 16 channels by bands of im2col rows (three at 48 x 48,
	# a thread's band at 3 threads); the 1 x 1
	# projection of an inverted residual block straight on the image
	# (depthwise between); a depthwise one with its own residual;
	# 3 x 3 of 32 channels at 48 x 48 (Winograd, the add then relu);
	# 3 x 3 of 64 channels at 24 x 24 dilated by 2 (the flipped
	# product, its filter in panels)
	export MD="$BATS_FILE_TMPDIR/res"
	mkdir -p "$MD"
	/usr/bin/python3 - "$MD" <<'PY' >/dev/null 2>&1
import sys, numpy as np, torch
from torch import nn
d = sys.argv[1]
torch.manual_seed(1)


class Net(nn.Module):
    def __init__(s):
        super().__init__()
        s.band = nn.Conv2d(16, 16, 3, padding=1)
        s.widen = nn.Conv2d(16, 24, 1)
        s.expand = nn.Conv2d(24, 72, 1)
        s.dw = nn.Conv2d(72, 72, 3, padding=1, groups=72)
        s.project = nn.Conv2d(72, 24, 1)
        s.dw2 = nn.Conv2d(24, 24, 3, padding=1, groups=24)
        s.to32 = nn.Conv2d(24, 32, 1)
        s.w1 = nn.Conv2d(32, 32, 3, padding=1)
        s.w2 = nn.Conv2d(32, 32, 3, padding=1)
        s.down = nn.Conv2d(32, 64, 3, stride=2, padding=1)
        s.flip = nn.Conv2d(64, 64, 3, padding=2, dilation=2)

    def forward(s, x):
        r6 = nn.functional.relu6
        h = torch.relu(s.band(x) + x)
        h = s.widen(h)
        h = s.project(r6(s.dw(r6(s.expand(h))))) + h
        h = s.dw2(h) + h
        h = s.to32(h)
        h = torch.relu(s.w2(torch.relu(s.w1(h))) + h)
        h = s.down(h)
        return torch.relu(s.flip(h) + h)


def export(m, x, name, pre=""):
    """name.onnx, with pre-input.npy and pre-expected.npy beside it."""
    torch.onnx.export(m, x, d + "/" + name + ".onnx", opset_version=13)
    np.save(d + "/" + pre + "input.npy", x.numpy())
    with torch.no_grad():
        np.save(d + "/" + pre + "expected.npy", m(x).numpy())


export(Net().eval(), torch.randn(1, 16, 48, 48), "res")


# inverted residual blocks at 14 x 14 and 7 x 7, whose depthwise
# convolutions nnl-plan-memory writes over their inputs; one more
# depthwise one with its input as its residual, which it may not
class Small(nn.Module):
    def __init__(s):
        super().__init__()
        s.e1, s.d1, s.p1 = (nn.Conv2d(24, 96, 1),
                            nn.Conv2d(96, 96, 3, padding=1, groups=96),
                            nn.Conv2d(96, 24, 1))
        s.down = nn.Conv2d(24, 40, 3, stride=2, padding=1)
        s.e2, s.d2, s.p2 = (nn.Conv2d(40, 240, 1),
                            nn.Conv2d(240, 240, 3, padding=1, groups=240),
                            nn.Conv2d(240, 40, 1))
        s.d3 = nn.Conv2d(40, 40, 3, padding=1, groups=40)

    def forward(s, x):
        r6 = nn.functional.relu6
        x = s.p1(r6(s.d1(r6(s.e1(x))))) + x
        x = s.down(x)
        x = s.p2(r6(s.d2(r6(s.e2(x))))) + x
        return s.d3(x) + x


export(Small().eval(), torch.randn(1, 24, 14, 14), "small", "small-")
PY
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

raw() {
	/usr/bin/python3 -c 'import sys, numpy as np
sys.stdout.buffer.write(np.load(sys.argv[1]).astype("<f4").tobytes())' "$1"
}

@test "every residual add merges into its conv2d" {
	[ -f "$MD/res.onnx" ] || { echo "the PyTorch export failed"; false; }
	"$BIN/nnl-onnx-import" "$MD/res.onnx" | "$BIN/nnl-reorder" |
	    "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-fuse" -e winograd -e panels -e ihwo -e residual \
	    -w f.weights -m f.json > fused.json
	/usr/bin/python3 - fused.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
ops = [n["op"] for n in g["nodes"]]
res = [n for n in g["nodes"] if "residual" in n]
assert "add" not in ops, ops
assert len(res) == 5, [n["id"] for n in res]
# the add, then relu, of the bands, Winograd and flipped forms
acts = sorted(n.get("activation", {}).get("op", "-") for n in res)
assert acts == ["-", "-", "relu", "relu", "relu"], acts
assert sum("winograd" in n for n in res) == 1
assert sum("panels" in n for n in res) == 1
PY
	# the pictures and the report page show each as the add it is too
	"$BIN/nnl-emit-dot" fused.json > m.dot
	[ "$(grep -o '<i>+ add</i>' m.dot | wc -l)" -eq 5 ]
	"$BIN/nnc" report -o r.html "$MD/res.onnx"
	[ "$(grep -o 'conv2d + add' r.html | wc -l)" -eq 5 ]
	[ "$(grep -o 'conv2d + add + relu' r.html | wc -l)" -eq 3 ]
}

@test "merged residuals: PyTorch's result, the unfused bits, 3 threads too" {
	[ -f "$MD/res.onnx" ] || { echo "the PyTorch export failed"; false; }
	run "$BIN/nnc" test --tolerance 1e-4 --input "$MD/input.npy" \
	    --expected "$MD/expected.npy" "$MD/res.onnx"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:\ 36864/36864\ elements* ]]
	raw "$MD/input.npy" > in.bin
	printf '%s\n' nnl-reorder nnl-shape-infer \
	    'nnl-fuse -e winograd -e panels -e ihwo' nnl-plan-memory > \
	    unfused.passes
	"$BIN/nnc" compile -o fused "$MD/res.onnx"
	"$BIN/nnc" compile --passes unfused.passes -o unfused "$MD/res.onnx"
	"$BIN/nnc" compile --threads 3 -o three "$MD/res.onnx"
	./fused < in.bin > fused.out
	./unfused < in.bin > unfused.out
	./three < in.bin > three.out
	[ "$(wc -c < fused.out)" -eq 147456 ]
	cmp fused.out unfused.out
	cmp fused.out three.out
	NNL_RT_THREADS=2 ./three < in.bin > three-2.out
	cmp fused.out three-2.out
}

# a typed graph of one conv2d (and an add after it for the tests that
# need another op); $1: the conv2d's extra fields
graph() {
	cat > g.json <<EOF
{
  "format": "webnn-graph-json",
  "version": 1,
  "inputs": {
    "x": {"dataType": "float32", "shape": [1, 2, 3, 3]},
    "y": {"dataType": "float32", "shape": [1, 1, 3, 3]},
    "h": {"dataType": "float16", "shape": [1, 2, 3, 3]}
  },
  "consts": {
    "w": {"dataType": "float32", "shape": [2, 2, 1, 1], "init": {"kind": "inlineBytes", "bytes": [0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64]}}
  },
  "nodes": [
    {"id": "c", "op": "conv2d", "inputs": ["x", "w"], "options": {}$1},
    {"id": "s", "op": "add", "inputs": ["c", "x"], "options": {}$2}
  ],
  "outputs": {"s": "s"}
}
EOF
}

# nnl-shape-infer refuses g.json, saying $1, and writes nothing
refused() {
	run "$BIN/nnl-shape-infer" -o out.json g.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$1"* ]]
	[ ! -e out.json ]
}

@test "a residual naming no operand, or not a name, is refused" {
	graph ', "residual": "nope"'
	refused 'g.json: error: node "c": field "residual": undefined operand "nope"'
	graph ', "residual": 3'
	refused 'node "c": field "residual": expected the name of an operand'
}

@test "a residual on another op than conv2d is refused" {
	graph '' ', "residual": "x"'
	refused 'node "s": field "residual": only a conv2d has one'
}

@test "a residual of another type than the output is refused" {
	graph ', "residual": "y"'
	refused 'node "c": field "residual": operand "y" is float32[1, 1, 3, 3]; it must be float32 and of the output'"'"'s type, float32[1, 2, 3, 3]'
	graph ', "residual": "h"'
	refused 'node "c": field "residual": operand "h" is float16[1, 2, 3, 3]; it must be float32'
}

@test "nnl-emit-js refuses a merged residual" {
	graph ', "residual": "x"'
	"$BIN/nnl-shape-infer" -o typed.json g.json
	run "$BIN/nnl-emit-js" -o m.js typed.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'node "c": field "residual" (from nnl-fuse, for the C back end) has no WebNN form'* ]]
	[ ! -e m.js ]
}

@test "depthwise convolutions written over their inputs: PyTorch's result" {
	[ -f "$MD/small.onnx" ] || { echo "the PyTorch export failed"; false; }
	"$BIN/nnc" compile --save-temps --emit c -o t/m.c "$MD/small.onnx"
	# the two of small planes share their input's bytes; the one that
	# reads its input again as its residual does not
	/usr/bin/python3 - small.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
at = {o: n["arena"][0] for n in g["nodes"]
      for o in n.get("outputs", [n["id"]])}
dw = [n for n in g["nodes"] if n["op"] == "conv2d" and
      n["options"].get("groups", 1) > 1]
same = [n["arena"][0] == at.get(n["inputs"][0]) for n in dw]
assert same == [True, True, False], same
PY
	for t in 1 3; do
		run "$BIN/nnc" test --threads $t --tolerance 1e-4 \
		    --input "$MD/small-input.npy" \
		    --expected "$MD/small-expected.npy" "$MD/small.onnx"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == PASS:\ 1960/1960\ elements* ]]
	done
	raw "$MD/small-input.npy" > in.bin
	"$BIN/nnc" compile -o one "$MD/small.onnx"
	"$BIN/nnc" compile --threads 3 -o three "$MD/small.onnx"
	./one < in.bin > one.out
	./three < in.bin > three.out
	cmp one.out three.out
}
