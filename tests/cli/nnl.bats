#!/usr/bin/env bats
# NNL diagnostics: E003 listing every missing weight, shape mismatches,
# suggestions, the version warning, config and connection errors; each
# with file:line:col and no output left behind.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
	mkdir -p w
	cp "$ROOT"/examples/model/weights/*.npy w/
}

model() {	# model BODY [CONFIG]: a test model file m.nnl
	cat > m.nnl <<NNL
version 0.9;
model m {
    config { weights: "./w"; ${2:-} }
$1
}
NNL
}

parse() {
	run --separate-stderr "$BIN/nnl-parse" -w "$T/o.weights" \
	    -m "$T/o.manifest.json" -o "$T/o.json" m.nnl
	[ ! -e "$T/o.json" ] || [ "$status" -eq 0 ]
}

MLP='    layer input = Input(shape: [4]);
    layer fc1 = Dense(units: 3);
    layer fc2 = Dense(units: 2);'

@test "a complete model parses" {
	model "$MLP"
	parse
	[ "$status" -eq 0 ]
	[ -f o.json ] && [ -f o.weights ] && [ -f o.manifest.json ]
}

@test "three missing tensors give one E003 error naming all with shapes" {
	rm w/fc1.bias.npy w/fc2.weight.npy w/fc2.bias.npy
	model "$MLP"
	parse
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | grep -c 'error:')" -eq 1 ]
	[[ "$stderr" == *"m.nnl:3:23: error: E003: 3 missing weights in the directory of .npy files"* ]]
	[[ "$stderr" == *"    fc1.bias [3]"* ]]
	[[ "$stderr" == *"    fc2.weight [3, 2]"* ]]
	[[ "$stderr" == *"    fc2.bias [2]"* ]]
	[[ "$stderr" == *"hint: run 'nnc inspect m.nnl'"* ]]
	[ ! -e o.json ] && [ ! -e o.weights ]
}

@test "missing tensors of an npz archive say so" {
	/usr/bin/python3 -c 'import numpy as np; np.savez("w.npz", x=np.ones(1, np.float32))'
	cat > m.nnl <<'NNL'
version 0.9;
model m {
    config { weights: "w.npz"; }
    layer input = Input(shape: [4]);
    layer fc1 = Dense(units: 3);
}
NNL
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"E003: 2 missing weights in the .npz archive"* ]]
}

@test "a transposed Dense weight is a shape mismatch naming both shapes" {
	/usr/bin/python3 -c 'import numpy as np
np.save("w/fc1.weight.npy", np.load("w/fc1.weight.npy").T.copy())'
	model "$MLP"
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:5:11: error: E003: shape mismatch: fc1.weight: expected [4, 3], found [3, 4]"* ]]
}

@test "an unknown layer type suggests the nearest one" {
	model '    layer input = Input(shape: [4]);
    layer fc1 = Dens(units: 3);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:5:17: error: unknown layer type 'Dens' (did you mean 'Dense'?)"* ]]
	[[ "$stderr" == *"^"* ]]
}

@test "an unknown parameter suggests the nearest one" {
	model '    layer input = Input(shape: [4]);
    layer fc1 = Dense(unit: 3);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"error: Dense has no parameter 'unit' (did you mean 'units'?)"* ]]
	[[ "$stderr" == *"error: Dense needs the parameter 'units'"* ]]
}

@test "a missing version line warns and parses" {
	sed '1d' "$ROOT/examples/model/model.nnl" > nov.nnl
	mkdir -p weights && cp w/*.npy weights/
	run --separate-stderr "$BIN/nnl-parse" -w x.weights -m x.manifest.json nov.nnl
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"nov.nnl:1:1: warning: W002: no 'version' line"* ]]
}

@test "an unsupported precision is an error" {
	model "$MLP" 'precision: "int8";'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'precision "int8" is not supported'* ]]
}

@test "an unknown config key suggests the nearest one" {
	model "$MLP" 'wieghts2: "x"; batchh: 2;'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"unknown config key 'batchh' (did you mean 'batch'?)"* ]]
}

@test "connections to unknown layers, cycles and orphan inputs" {
	model "$MLP
    connections { input -> fc1; fc1 -> fc9; fc2 -> fc2; }"
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"connection to unknown layer 'fc9'"* ]]
	model "$MLP
    connections { input -> fc1; fc2 -> fc1; fc1 -> fc2; }"
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"Dense 'fc1' takes 1 input, it has 2"* ]]
	model '    layer input = Input(shape: [4]);
    layer a = ReLU();
    layer b = ReLU();
    connections { input -> a; b -> a; a -> b; }'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"takes 1 input, it has 2"* ]]
}

@test "a multi-input layer without connections says what is needed" {
	model '    layer input = Input(shape: [4]);
    layer s = Add();'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"multi-input layers need a connections block"* ]]
}

@test "Add of different shapes names both" {
	model '    layer input = Input(shape: [4]);
    layer fc1 = Dense(units: 3);
    layer s = Add();
    connections { input -> fc1; [input, fc1] -> s; }'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"Add: inputs 'input' [4] and 'fc1' [3] differ in shape"* ]]
}

@test "syntax errors point at the token" {
	printf 'version 0.9;\nmodel m {\n    layer x = Input(shape: [4])\n}\n' > m.nnl
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:4:1: error: expected ';' after the layer declaration, found }"* ]]
	printf 'version 0.9;\nmodel m { layer x = Input(shape: [4]); @ }\n' > m.nnl
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:2:40: error:"* ]]
}

@test "io none cannot be an executable" {
	cp -r "$ROOT/examples/signal_zoo" sz
	run --separate-stderr "$BIN/nnc" compile sz/signal_zoo.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'io "none" makes a library without main()'* ]]
	"$BIN/nnc" compile --emit lib sz/signal_zoo.nnl
	[ -f libsignal_zoo.a ]
}

@test "inspect shows the layers, totals and the workspace" {
	cp -r "$ROOT/examples/mnist" mn
	run "$BIN/nnc" inspect mn/mnist.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Model: mnist_classifier (version 0.2)"* ]]
	[[ "$output" == *"Precision: float32 | Target: avx2 | Batch: 1"* ]]
	[[ "$output" =~ conv1\ +Conv2D\ +\[26,\ 26,\ 32\]\ +320 ]]
	[[ "$output" =~ fc1\ +Dense\ +\[128\]\ +692,352 ]]
	[[ "$output" == *"Total params:    693,962"* ]]
}

@test "a bad name inside a connection is an error, not a crash" {
	model "$MLP
    connections { [input, 3] -> fc1; }"
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"expected a layer name, found 3"* ]]
	model "$MLP
    connections { 4 -> fc1; }"
	parse
	[ "$status" -eq 1 ]
}

@test "a cycle of connections is reported as the path it takes" {
	model '    layer input = Input(shape: [4]);
    layer d = ReLU();
    layer b = Add();
    layer c = ReLU();
    connections { b -> d; [input, c] -> b; b -> c; }'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:6:11: error: E006: the connections form a cycle: 'b' -> 'c' -> 'b'"* ]]
	[ "$(printf '%s\n' "$stderr" | grep -c 'error:')" -eq 1 ]
}

@test "a model that ends in two layers names them" {
	model '    layer input = Input(shape: [4]);
    layer a = ReLU();
    layer b = ReLU();
    connections { input -> a; input -> b; }'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:2:7: error: the model must end in one layer, but 'a' and 'b' feed no other"* ]]
	model '    layer input = Input(shape: [4]);
    layer a = ReLU();
    layer b = ReLU();
    connections { input -> a; }'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"ReLU 'b' takes 1 input, it has 0 (no connection leads to it)"* ]]
}

@test "NNL on standard input is told from a graph by its first word" {
	model "$MLP"
	run --separate-stderr "$BIN/nnl-parse" -w o.weights -m o.manifest.json < m.nnl
	[ "$status" -eq 0 ]
	[[ "$output" == *'"name": "m"'* ]]
	[ -f o.weights ]
	# a comment first, and a file name that does not say .nnl
	{ printf '// a model\n/* of\n   nnl */\n'; cat m.nnl; } > model.txt
	run --separate-stderr "$BIN/nnl-parse" -w o.weights -m o.manifest.json model.txt
	[ "$status" -eq 0 ]
	[[ "$output" == *'"fc2": "fc2"'* ]]
	# errors on standard input are located there
	sed 's/Dense(units: 3)/Dense(units: 3, unit: 2)/' m.nnl > bad.txt
	run --separate-stderr "$BIN/nnl-parse" -w o.weights -m o.manifest.json < bad.txt
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"<stdin>:5:33: error: Dense has no parameter 'unit'"* ]]
}

@test "packed weights go to MODEL.weights beside -o, or here for stdout" {
	model "$MLP"
	sed -i 's/^model m {/model tiny_mlp {/' m.nnl
	mkdir out
	run --separate-stderr "$BIN/nnl-parse" -o out/g.json m.nnl
	[ "$status" -eq 0 ]
	[ -f out/tiny_mlp.weights ] && [ -f out/tiny_mlp.manifest.json ]
	grep -q '"file": "tiny_mlp.weights"' out/g.json
	"$BIN/nnl-pack-weights" verify -m out/tiny_mlp.manifest.json out/tiny_mlp.weights
	run --separate-stderr "$BIN/nnl-parse" m.nnl
	[ "$status" -eq 0 ]
	[ -f tiny_mlp.weights ] && [ -f tiny_mlp.manifest.json ]
	[[ "$output" == *'/tiny_mlp.weights"'* ]]
	# and a model with no weights writes none
	model '    layer input = Input(shape: [4]);
    layer r = ReLU();'
	rm -f m.weights
	run --separate-stderr "$BIN/nnl-parse" m.nnl
	[ "$status" -eq 0 ]
	[ ! -e m.weights ]
	[[ "$output" != *'"weights": {"file"'* ]]
}

@test "E003 without a weights key says so" {
	cat > m.nnl <<'NNL'
version 0.9;
model m {
    layer input = Input(shape: [4]);
    layer fc1 = Dense(units: 3);
}
NNL
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:2:7: error: E003: 2 missing weights in the model (no 'weights' in config):"* ]]
	[[ "$stderr" == *"    fc1.weight [4, 3]"* ]]
}

@test "weights of the wrong type or from a missing source" {
	/usr/bin/python3 -c 'import numpy as np
np.save("w/fc1.bias.npy", np.zeros(3, np.int32))'
	model "$MLP"
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:5:11: error: E003: fc1.bias: int32 data, precision float32 needs float32"* ]]
	sed -i 's#"./w"#"./nowhere"#' m.nnl
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:3:23: error: E003: weights './nowhere': No such file or directory"* ]]
}

@test "shape errors name the layer and the shapes" {
	model '    layer input = Input(shape: [4, 4, 3]);
    layer c = Conv2D(filters: 2, kernel: [5, 3]);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:5:15: error: Conv2D: the kernel [5, 3] is larger than its input [4, 4, 3]"* ]]
	model '    layer input = Input(shape: [4, 4, 3]);
    layer c = Conv2D(filters: 4, kernel: 1, groups: 2);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"Conv2D: 4 filters and 3 input channels do not divide into 2 groups"* ]]
	model '    layer input = Input(shape: [4, 4, 3]);
    layer p = MaxPool2D(kernel: 2, padding: [0, 2, 0, 0]);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:5:45: error: padding: expected [top, left, bottom, right], each at least 0 and less than the kernel"* ]]
	model '    layer input = Input(shape: [4]);
    layer p = MaxPool1D(kernel: 2);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"MaxPool1D needs an input of rank 2 (length, channels), 'input' gives [4]"* ]]
	model '    layer input = Input(shape: [2, 3]);
    layer a = Dense(units: 2);
    layer c = Concat(axis: 0);
    connections { input -> a; [input, a] -> c; }'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"Concat: 'input' [2, 3] and 'a' [2] differ off the axis 0"* ]]
}

@test "config values of the wrong type or out of range" {
	model "$MLP" 'batch: 0; align: 3; target: "x86"; preprocess_mean: "0.5";'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'error: target: expected "generic", "avx2", "avx512" or "arm_neon"'* ]]
	[[ "$stderr" == *"error: preprocess_mean: expected a list of numbers"* ]]
	[[ "$stderr" == *"error: align: expected a power of two"* ]]
	[[ "$stderr" == *"error: batch: expected a positive integer"* ]]
	model "$MLP" 'precision: "bfloat16";'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'precision: expected "float32"'* ]]
	model "$MLP" 'preprocess: "standardize"; preprocess_mean: [0.5];'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"standardize needs preprocess_mean and preprocess_std with one number per channel (4)"* ]]
}

@test "parameters: required, of the right type, not given twice" {
	model '    layer input = Input(shape: [4, 4, 3]);
    layer c = Conv2D(kernel: 3, stride: 1.5, stride: 1);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:5:15: error: Conv2D needs the parameter 'filters'"* ]]
	[[ "$stderr" == *"error: parameter 'stride' of Conv2D: expected an integer or [height, width]"* ]]
	[[ "$stderr" == *"error: parameter 'stride' given twice"* ]]
	model '    layer input = Input(shape: [4]);
    layer q = FakeQuant(scale: 0.5, qmin: 10, qmax: -10);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"FakeQuant: qmin 10 is above qmax -10"* ]]
	model '    layer input = Input(shape: [4]);
    layer r = ReLU(alpha: 1);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"ReLU has no parameter 'alpha' (it takes none)"* ]]
}

@test "a layer name that could clash with lowered operands is refused" {
	model '    layer input = Input(shape: [4]);
    layer fc1 = Dense(units: 3);
    layer fc1__gemm = ReLU();'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"layer name 'fc1__gemm' may clash with the operands of layer 'fc1'"* ]]
}

@test "missing tensors are reported after, not instead of, mismatches" {
	rm w/fc1.bias.npy w/fc2.bias.npy
	model '    layer input = Input(shape: [4]);
    layer fc1 = Dense(units: 4);
    layer fc2 = Dense(units: 2);'
	parse
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"shape mismatch: fc1.weight: expected [4, 4], found [4, 3]"* ]]
	[[ "$stderr" == *"shape mismatch: fc2.weight: expected [4, 2], found [3, 2]"* ]]
	[[ "$stderr" == *"E003: 2 missing weights"* ]]
	[[ "$stderr" == *"    fc1.bias [4]"* ]]
}
