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
