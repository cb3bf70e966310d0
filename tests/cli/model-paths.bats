#!/usr/bin/env bats
# One rule for the files a model names (nnl(7) Reads): an NNL model's
# weights and ONNX external data are read only from inside the model's
# folder; an absolute path, "..", or a symbolic link leading out is an
# error naming the place, exit 1, nothing written; --allow-outside (in
# nnl-parse, nnl-onnx-import and nnc) reads them, with the right result.
# Every expected value is NumPy's, from the arrays the test wrote.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
	cd "$T"
	mkdir -p m outside/w
	# a 3 -> 2 Dense layer's weights, and NumPy's answer for an input
	$PY - <<'PY'
import numpy as np
r = np.random.default_rng(28)
W = r.standard_normal((3, 2)).astype(np.float32)
b = r.standard_normal(2).astype(np.float32)
x = r.standard_normal((1, 3)).astype(np.float32)
np.save("outside/w/fc.weight.npy", W)
np.save("outside/w/fc.bias.npy", b)
np.save("x.npy", x)
np.save("want.npy", (x.astype(np.float64) @ W + b).astype(np.float32))
PY
}

# m/m.nnl naming its weights $1
model() {
	cat > m/m.nnl <<NNL
version 0.9;
model m {
    config { weights: "$1"; }
    layer input = Input(shape: [3]);
    layer fc = Dense(units: 2);
}
NNL
}

# nnl-parse m/m.nnl (arguments $@ before it) into out/
parse() {
	rm -rf out
	mkdir out
	run --separate-stderr "$BIN/nnl-parse" "$@" -o out/g.json m/m.nnl
	echo "$stderr"
}

# the refusal of weights path $1 (as the model writes it): at its
# line and column, exit 1, nothing written
refused() {
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[[ "$stderr" == "nnl-parse: m/m.nnl:3:23: error: weights path '$1' $2"* ]]
	[[ "$stderr" == *"unless --allow-outside is given"* ]]
	[ -z "$(ls out)" ]
}

# the graph in out/ computes NumPy's answer
right() {
	[ "$status" -eq 0 ]
	mkdir -p res
	"$BIN/nnl-run" -d res out/g.json input=x.npy > /dev/null
	$PY -c 'import numpy as np
g, w = np.load("res/fc.npy"), np.load("want.npy")
assert g.shape == w.shape and np.allclose(g, w, rtol=1e-6, atol=1e-6), (g, w)'
}

@test "NNL weights: an absolute path is refused at its place, read with --allow-outside" {
	model "$T/outside/w"
	parse
	refused "$T/outside/w" "is absolute"
	parse --allow-outside
	right
}

@test "NNL weights: a path climbing out with .. is refused, read with --allow-outside" {
	model "../outside/w"
	parse
	refused "../outside/w" "leads outside the model's folder"
	parse --allow-outside
	right
}

@test "NNL weights: a symbolic link in the folder leading out is refused, read with --allow-outside" {
	ln -s ../outside/w m/w
	model "w"
	parse
	refused "w" "leads outside the model's folder"
	parse --allow-outside
	right
}

@test "NNL weights: an .npy file that links out of the folder is refused, read with --allow-outside" {
	mkdir m/w
	ln -s ../../outside/w/fc.weight.npy m/w/fc.weight.npy
	cp outside/w/fc.bias.npy m/w/
	model "./w"
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == "nnl-parse: m/m.nnl:5:11: error: weights path './w/fc.weight.npy' leads outside the model's folder"* ]]
	[ -z "$(ls out)" ]
	parse --allow-outside
	right
}

@test "NNL weights inside the folder, through .. or a link, still read" {
	mkdir m/sub
	cp -r outside/w m/w
	model "sub/../w"
	parse
	right
	ln -s w m/alias
	model "alias"
	parse
	right
}

@test "nnc gives --allow-outside to the front end" {
	model "../outside/w"
	run --separate-stderr "$BIN/nnc" test --input x.npy --expected want.npy \
	    m/m.nnl
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:3:23: error: weights path '../outside/w' leads outside the model's folder"* ]]
	run --separate-stderr "$BIN/nnc" test --allow-outside --input x.npy \
	    --expected want.npy m/m.nnl
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 2/2 elements"* ]]
}

# m/model.onnx: y = x + c, c [2, 3] float32 in external data at $1;
# the data in outside/c.bin, NumPy's answer in onnx-want.npy
onnxmodel() {
	$PY - "$1" <<'PY'
import sys, numpy as np
from onnx import helper as h, TensorProto as P, save
r = np.random.default_rng(6)
c = r.standard_normal((2, 3)).astype(np.float32)
x = r.standard_normal((2, 3)).astype(np.float32)
c.tofile("outside/c.bin")
np.save("onnx-x.npy", x)
np.save("onnx-want.npy", x + c)
t = P(name="c", data_type=P.FLOAT, dims=[2, 3])
t.data_location = P.EXTERNAL
e = t.external_data.add()
e.key, e.value = "location", sys.argv[1]
g = h.make_graph([h.make_node("Add", ["x", "c"], ["y"])], "g",
                 [h.make_tensor_value_info("x", P.FLOAT, [2, 3])],
                 [h.make_tensor_value_info("y", P.FLOAT, [2, 3])], [t])
save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]),
     "m/model.onnx")
PY
}

# nnl-onnx-import m/model.onnx (arguments $@ before it) into out/
import() {
	rm -rf out
	mkdir out
	run --separate-stderr "$BIN/nnl-onnx-import" "$@" -o out/g.json \
	    -w out/g.weights -m out/g.manifest.json m/model.onnx
	echo "$stderr"
}

# the import of out/ computes NumPy's answer
onnxright() {
	[ "$status" -eq 0 ]
	mkdir -p res
	"$BIN/nnl-run" -d res out/g.json x=onnx-x.npy > /dev/null
	$PY -c 'import numpy as np
g, w = np.load("res/y.npy"), np.load("onnx-want.npy")
assert g.shape == w.shape and np.array_equal(g, w), (g, w)'
}

# the importer's refusal of external data path $1: $2
onnxrefused() {
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "nnl-onnx-import: error: m/model.onnx: initializer \"c\": external data path \"$1\" $2; a model may name only files ${3:-in it}, unless --allow-outside is given" ]
	[ -z "$(ls out)" ]
}

@test "ONNX external data outside the folder: refused, read with --allow-outside" {
	onnxmodel ../outside/c.bin
	import
	onnxrefused ../outside/c.bin "leads outside the model's folder"
	import --allow-outside
	onnxright
	onnxmodel "$T/outside/c.bin"
	import
	onnxrefused "$T/outside/c.bin" "is absolute" "in its folder"
	import --allow-outside
	onnxright
	ln -s ../outside/c.bin m/c.bin
	onnxmodel c.bin
	import
	onnxrefused c.bin "leads outside the model's folder"
	import --allow-outside
	onnxright
}

@test "nnc compiles an ONNX model with outside external data only with --allow-outside" {
	onnxmodel ../outside/c.bin
	run --separate-stderr "$BIN/nnc" compile --emit c -o m.c m/model.onnx
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'initializer "c": external data path "../outside/c.bin" leads outside'* ]]
	[ ! -e m.c ]
	run --separate-stderr "$BIN/nnc" test --allow-outside \
	    --input onnx-x.npy --expected onnx-want.npy m/model.onnx
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 6/6 elements"* ]]
}

@test "an NNL model's ONNX weights: their external data follows the rule, the flag passed on" {
	$PY - <<'PY'
import numpy as np
from onnx import helper as h, TensorProto as P, numpy_helper as nh, save
W = np.load("outside/w/fc.weight.npy")
b = np.load("outside/w/fc.bias.npy")
W.tofile("outside/W.bin")
t = P(name="fc.weight", data_type=P.FLOAT, dims=[3, 2])
t.data_location = P.EXTERNAL
e = t.external_data.add()
e.key, e.value = "location", "../outside/W.bin"
g = h.make_graph([h.make_node("MatMul", ["x", "fc.weight"], ["mm"]),
                  h.make_node("Add", ["mm", "fc.bias"], ["fc"])], "g",
                 [h.make_tensor_value_info("x", P.FLOAT, [1, 3])],
                 [h.make_tensor_value_info("fc", P.FLOAT, [1, 2])],
                 [t, nh.from_array(b, "fc.bias")])
save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "m/w.onnx")
PY
	model "w.onnx"
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'initializer "fc.weight": external data path "../outside/W.bin" leads outside'* ]]
	[ -z "$(ls out)" ]
	parse --allow-outside
	right
}

@test "nnl-parse -t nnl warns when its weights directory is outside the model's folder" {
	cp -r outside/w m/w
	model "w"
	parse
	right
	mkdir nnl
	run --separate-stderr "$BIN/nnl-parse" -t nnl -o nnl/back.nnl \
	    -d elsewhere out/g.json
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$stderr" = "nnl-parse: warning: nnl/back.nnl: its weights directory elsewhere is outside its folder: read the model with --allow-outside (nnl(7) Reads)" ]
	grep -qF 'weights: "../elsewhere";' nnl/back.nnl
	rm -rf out && mkdir out
	run --separate-stderr "$BIN/nnl-parse" -o out/g.json nnl/back.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"weights path '../elsewhere' leads outside the model's folder"* ]]
	run --separate-stderr "$BIN/nnl-parse" --allow-outside -o out/g.json \
	    nnl/back.nnl
	right
	# inside its folder: no warning
	run --separate-stderr "$BIN/nnl-parse" -t nnl -o nnl/in.nnl \
	    -d nnl/w out/g.json
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
}

# A graph the user hands a front end by name: the weights and manifest
# it names (JSON's "weights") or finds beside it (.webnn) follow the
# same rule.  outside/g.json and its packed weights come from the NNL
# model (weights in m/w); gmodel writes m/g.json naming weights file $1
# and manifest $2.
packed() {
	cp -r outside/w m/w
	model "w"
	"$BIN/nnl-parse" -w outside/g.weights -m outside/g.manifest.json \
	    -o outside/g.json m/m.nnl
	rm -rf m/w m/m.nnl
}

gmodel() {
	$PY - "$1" "$2" <<'PY'
import json, sys
g = json.load(open("outside/g.json"))
g["weights"] = {"file": sys.argv[1], "manifest": sys.argv[2]}
json.dump(g, open("m/g.json", "w"))
PY
}

# nnl-parse ARGS... FILE into out/, FILE last
gparse() {
	rm -rf out
	mkdir out
	run --separate-stderr "$BIN/nnl-parse" -o out/g.json "$@"
	echo "$stderr"
}

# refused by nnl-parse: exit 1, the file and path named, nothing written
grefused() {
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "nnl-parse: $1: error: $2; a model may name only files $3, unless --allow-outside is given" ]
	[ -z "$(ls out)" ]
}

# nnc compile, test, report and inspect --fused of model $1 (from c/, an
# empty folder), and plain inspect unless $3 is "noread", each refused
# with a message holding $2, exit 1, nothing written.  (nnc inspect
# shows a .webnn model as written, reading no weights beside it.)
nncrefused() {
	local plain=inspect

	[ "${3:-}" = noread ] && plain=
	rm -rf c
	mkdir c
	cd c
	for cmd in "compile --emit c -o m.c" "compile -o m" \
	    "test --input ../x.npy --expected ../want.npy" $plain \
	    "inspect --fused" "report -o r.html"; do
		run --separate-stderr "$BIN/nnc" $cmd "../$1"
		echo "nnc $cmd: $status $output $stderr"
		[ "$status" -eq 1 ]
		[ "$output" = "" ]
		[[ "$stderr" == *"$1: error: $2"* ]]
		[ -z "$(ls -A)" ]
	done
	cd ..
}

# nnc, with --allow-outside, tests model $1 right, compiles and inspects it
nncright() {
	run --separate-stderr "$BIN/nnc" test --allow-outside --input x.npy \
	    --expected want.npy "$1"
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 2/2 elements"* ]]
	run --separate-stderr "$BIN/nnc" compile --allow-outside --emit c \
	    -o m.c "$1"
	[ "$status" -eq 0 ]
	[ -s m.c ]
	run --separate-stderr "$BIN/nnc" inspect --allow-outside "$1"
	[ "$status" -eq 0 ]
}

@test "graph JSON naming absolute weights: refused by nnl-parse FILE and nnc, read with --allow-outside" {
	packed
	gmodel "$T/outside/g.weights" "$T/outside/g.manifest.json"
	gparse m/g.json
	grefused m/g.json \
	    "field \"weights\": file path '$T/outside/g.weights' is absolute" \
	    "in its folder"
	nncrefused m/g.json \
	    "field \"weights\": file path '$T/outside/g.weights' is absolute"
	gparse --allow-outside m/g.json
	right
	nncright m/g.json
	# the manifest alone outside
	cp outside/g.weights m/
	gmodel g.weights "$T/outside/g.manifest.json"
	gparse m/g.json
	grefused m/g.json \
	    "field \"weights\": manifest path '$T/outside/g.manifest.json' is absolute" \
	    "in its folder"
}

@test "graph JSON naming weights through .. out of its folder: refused, read with --allow-outside" {
	packed
	gmodel ../outside/g.weights ../outside/g.manifest.json
	gparse m/g.json
	grefused m/g.json \
	    "field \"weights\": file path '../outside/g.weights' leads outside the model's folder" \
	    "in it"
	nncrefused m/g.json \
	    "field \"weights\": file path '../outside/g.weights' leads outside"
	gparse --allow-outside m/g.json
	right
	nncright m/g.json
}

@test "graph JSON naming a link out of its folder: refused, read with --allow-outside" {
	packed
	ln -s ../outside/g.weights m/w.weights
	cp outside/g.manifest.json m/w.manifest.json
	gmodel w.weights w.manifest.json
	gparse m/g.json
	grefused m/g.json \
	    "field \"weights\": file path 'w.weights' leads outside the model's folder" \
	    "in it"
	nncrefused m/g.json \
	    "field \"weights\": file path 'w.weights' leads outside"
	gparse --allow-outside m/g.json
	right
	nncright m/g.json
}

@test "graph JSON naming weights in its folder, through .. or a link, still read" {
	packed
	mkdir m/sub m/p
	cp outside/g.weights outside/g.manifest.json m/p/
	ln -s p/g.weights m/alias.weights
	gmodel sub/../alias.weights ./p/g.manifest.json
	gparse m/g.json
	right
	nncright m/g.json
}

@test "a graph on standard input is the user's pipe: the paths it names are read" {
	packed
	gmodel "$T/outside/g.weights" "$T/outside/g.manifest.json"
	rm -rf out
	mkdir out
	run --separate-stderr sh -c '"$1/nnl-parse" -o out/g.json < m/g.json' \
	    sh "$BIN"
	right
}

# m/g.webnn, its weights and manifest beside it by its name: $1 and $2
# (w: a copy, l: a link out of the folder)
webnnmodel() {
	"$BIN/nnl-parse" -t webnn -o outside/g.webnn outside/g.json
	cp outside/g.webnn m/g.webnn
	rm -f m/g.weights m/g.manifest.json
	if [ "$1" = l ]; then ln -s ../outside/g.weights m/g.weights
	else cp outside/g.weights m/g.weights; fi
	if [ "$2" = l ]; then ln -s ../outside/g.manifest.json m/g.manifest.json
	else cp outside/g.manifest.json m/g.manifest.json; fi
}

@test ".webnn with weights beside it linking out of its folder: refused, read with --allow-outside" {
	packed
	webnnmodel l w
	gparse m/g.webnn
	grefused m/g.webnn \
	    "weights file g.weights beside it leads outside the model's folder" \
	    "in it"
	nncrefused m/g.webnn "weights file g.weights beside it leads outside" \
	    noread
	gparse --allow-outside m/g.webnn
	right
	nncright m/g.webnn
	webnnmodel w l
	gparse m/g.webnn
	grefused m/g.webnn \
	    "manifest g.manifest.json beside it leads outside the model's folder" \
	    "in it"
	# copies in the folder: read
	webnnmodel w w
	gparse m/g.webnn
	right
	nncright m/g.webnn
}
