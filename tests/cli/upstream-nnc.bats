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
