#!/usr/bin/env bats
# Files as upstream nnc (gdesouza/nnl) reads and writes them: LayerNorm
# weights named {id}.scale and {id}.bias, float64 .npy weights cast to
# float32 with a warning, upstream's diagnostic codes, the header beside
# a library.  Expected numbers come from NumPy, never from nnl.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
	mkdir -p w
}

# LayerNorm over 4 features; writes x.npy and y.npy (NumPy's answer)
# and the weights under the names given: ln SCALE BIAS [DTYPE]
ln() {
	cat > m.nnl <<'NNL'
version 0.9;
model m {
    config { weights: "./w"; }
    layer x = Input(shape: [4]);
    layer ln = LayerNorm(epsilon: 0.001);
}
NNL
	/usr/bin/python3 - "$@" <<'PY'
import sys, numpy as np
s, b = sys.argv[1], sys.argv[2]
dt = sys.argv[3] if len(sys.argv) > 3 else "float32"
g = np.array([0.5, -1.25, 2.0, 3.0])
be = np.array([0.1, 0.2, -0.3, 4.0])
x = np.array([[1.0, 2.0, -3.0, 0.5]], np.float32)
np.save("w/ln.%s.npy" % s, g.astype(dt))
np.save("w/ln.%s.npy" % b, be.astype(dt))
m = x.mean(-1, keepdims=True)
v = ((x - m) ** 2).mean(-1, keepdims=True)
np.save("x.npy", x)
np.save("y.npy", ((x - m) / np.sqrt(v + 1e-3) * g + be).astype(np.float32))
PY
}

@test "LayerNorm reads upstream's ln.scale and ln.bias" {
	ln scale bias
	run --separate-stderr "$BIN/nnc" test --tolerance 1e-5 \
	    --input x.npy --expected y.npy m.nnl
	[ "$status" -eq 0 ]
}

@test "LayerNorm still reads nnl's ln.gamma and ln.beta" {
	ln gamma beta
	run --separate-stderr "$BIN/nnc" test --tolerance 1e-5 \
	    --input x.npy --expected y.npy m.nnl
	[ "$status" -eq 0 ]
}

@test "LayerNorm with both ln.scale and ln.gamma is refused" {
	ln scale bias
	cp w/ln.scale.npy w/ln.gamma.npy
	run --separate-stderr "$BIN/nnl-parse" -o o.json m.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.nnl:5:11: error: ln.gamma and ln.scale both given: keep one"* ]]
	[ ! -e o.json ]
}

@test "a missing LayerNorm vector names both of its names" {
	ln scale bias
	rm w/ln.bias.npy
	run --separate-stderr "$BIN/nnl-parse" -o o.json m.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"E003: 1 missing weight in"*"    ln.beta [4] (or ln.bias)"* ]]
}

@test "float64 LayerNorm weights are cast to float32 with a warning" {
	ln scale bias float64
	run --separate-stderr "$BIN/nnc" test --tolerance 1e-5 \
	    --input x.npy --expected y.npy m.nnl
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"m.nnl:5:11: warning: ./w/ln.scale.npy: float64 weights cast to float32"* ]]
	[[ "$stderr" == *"m.nnl:5:11: warning: ./w/ln.bias.npy: float64 weights cast to float32"* ]]
}

# The cast rounds to nearest, ties to even, and overflows to an
# infinity as upstream's Rust "v as f32" does; expected bits from NumPy.
@test "the float64 cast rounds to nearest and counts infinities" {
	cat > m.nnl <<'NNL'
version 0.9;
model m {
    config { weights: "w.npz"; }
    layer x = Input(shape: [8]);
    layer fc = Dense(units: 1);
}
NNL
	/usr/bin/python3 - <<'PY'
import numpy as np
f32max = float(np.finfo(np.float32).max)
ulp = 2.0 ** 104                 # float32's spacing just below 2^128
v = np.array([1 + 2**-24,        # tie: to even, 1.0
              1 + 3 * 2**-24,    # tie: to even, 1 + 2^-22
              1 + 2**-24 + 2**-40,  # above the tie: up
              0.1, -1e-50,       # inexact; underflow to -0.0
              f32max + ulp / 2 - 2.0 ** 75,  # just below the midpoint: FLT_MAX
              f32max + ulp / 2,  # the midpoint: infinity
              -1e300])           # far beyond: -infinity
np.savez("w.npz", **{"fc.weight": v.reshape(8, 1),
                     "fc.bias": np.zeros(1)})
with np.errstate(over="ignore"):
    want = v.astype(np.float32)  # IEEE round to nearest
assert np.isinf(want[6]) and want[5] == np.float32(f32max)
open("want.hex", "w").write(want.tobytes().hex())
PY
	run --separate-stderr "$BIN/nnl-parse" -w o.weights -m o.manifest.json \
	    -o o.json m.nnl
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"m.nnl:5:11: warning: w.npz: fc.weight: float64 weights cast to float32; 2 values beyond float32's range became infinite"* ]]
	/usr/bin/python3 - <<'PY'
import json
t = json.load(open("o.manifest.json"))["tensors"]["fc.weight"]
b = open("o.weights", "rb").read()
got = b[t["byteOffset"]:t["byteOffset"] + t["byteLength"]].hex()
assert t["dataType"] == "float32" and got == open("want.hex").read(), got
PY
}

# Upstream's diagnostic codes where nnl means the same condition
# (nnc(1), DIAGNOSTICS): code MODEL-BODY EXPECTED-STDERR-PART
coded() {
	cat > m.nnl <<NNL
version 0.9;
model m {
    config { weights: "./w"; $3 }
$1
}
NNL
	run --separate-stderr "$BIN/nnl-parse" -o o.json m.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$2"* ]]
	[ ! -e o.json ]
}

@test "E001: a layer declared twice, an unknown connection, no input" {
	coded '    layer x = Input(shape: [4]);
    layer x = ReLU();' "m.nnl:5:11: error: E001: layer 'x' is declared twice"
	coded '    layer x = Input(shape: [4]);
    layer r = ReLU();
    connections { x -> q; }' "error: E001: connection to unknown layer 'q'"
	coded '    layer x = Input(shape: [4]);
    layer r = ReLU();
    layer s = ReLU();
    connections { x -> r; }' "error: E001: ReLU 's' takes 1 input, it has 0"
}

@test "E002: a layer given an input of the wrong rank" {
	coded '    layer x = Input(shape: [4]);
    layer p = MaxPool2D(kernel: 2);' \
	    "m.nnl:5:15: error: E002: MaxPool2D needs an input of rank 3"
}

@test "E003: a weight of the wrong shape" {
	mkdir -p w && /usr/bin/python3 -c 'import numpy as np
np.save("w/d.weight.npy", np.zeros((3, 2), np.float32))
np.save("w/d.bias.npy", np.zeros(2, np.float32))'
	coded '    layer x = Input(shape: [4]);
    layer d = Dense(units: 2);' \
	    "m.nnl:5:11: error: E003: shape mismatch: d.weight: expected [4, 2], found [3, 2]"
}

@test "E004: Add inputs that differ in shape, or too few" {
	coded '    layer x = Input(shape: [4]);
    layer p = Dense(units: 3);
    layer a = Add();
    connections { x -> p; [x, p] -> a; }' \
	    "error: E004: Add: inputs 'x' [4] and 'p' [3] differ in shape"
	coded '    layer x = Input(shape: [4]);
    layer a = Add();' "m.nnl:5:11: error: E004: Add 'a' takes at least 2 inputs, it has 1"
}

@test "E005: Concat inputs that differ off the axis, or an axis out of range" {
	coded '    layer x = Input(shape: [2, 3]);
    layer f = Flatten();
    layer c = Concat(axis: 0);
    connections { x -> f; [x, f] -> c; }' \
	    "error: E005: Concat: 'x' [2, 3] and 'f' [6] differ off the axis 0"
	coded '    layer x = Input(shape: [2, 3]);
    layer r = ReLU();
    layer c = Concat(axis: 2);
    connections { x -> r; [x, r] -> c; }' \
	    "error: E005: Concat: axis 2 is out of range for an input of rank 2"
}

@test "E006: a cycle" {
	coded '    layer x = Input(shape: [4]);
    layer a = Add();
    layer b = ReLU();
    connections { [x, b] -> a; a -> b; }' \
	    "error: E006: the connections form a cycle: 'a' -> 'b' -> 'a'"
}

@test "E007: a precision nnl does not compute, standardize without its numbers" {
	coded '    layer x = Input(shape: [4]);' \
	    "m.nnl:3:41: error: E007: precision \"float64\" is not supported" \
	    'precision: "float64";'
	coded '    layer x = Input(shape: [4]);' \
	    "error: E007: standardize needs preprocess_mean and preprocess_std" \
	    'preprocess: "standardize";'
}
