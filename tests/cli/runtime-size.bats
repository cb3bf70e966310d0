#!/usr/bin/env bats
# Sizes known only at run time: Range, ConstantOfShape and a window of a
# computed size are held at the bound nnl-onnx-import's --bound gives
# (65536 items by default); the generated program, nnl-run and CpuOps
# compute a value that fits, and refuse one past the bound with an error
# and no output, never a truncated or overrun result.  Elementwise ops
# may read such a value; any other op is refused [dynamic-shape].  The
# expected values are NumPy's.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	PY=/usr/bin/python3
	cd "$BATS_TEST_TMPDIR"
	# range.onnx: y = Range(s, l, d) * 2 (float32 scalars);
	# cos.onnx: y = ConstantOfShape(shape) of 3.0;
	# hann.onnx: y = HannWindow(n), periodic;
	# reduce.onnx: y = ReduceSum(Range(s, l, d)), not elementwise
	$PY - <<'EOF'
import onnx
from onnx import TensorProto as T, helper as h

def save(name, nodes, ins, outs, opset=17):
    g = h.make_graph(nodes, name, ins, outs)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", opset)]),
              name + ".onnx")

sc = [h.make_tensor_value_info(n, T.FLOAT, []) for n in "sld"]
two = h.make_tensor("two", T.FLOAT, [], [2.0])
g = h.make_graph([h.make_node("Range", ["s", "l", "d"], ["r"]),
                  h.make_node("Mul", ["r", "two"], ["y"])], "range", sc,
                 [h.make_tensor_value_info("y", T.FLOAT, None)], [two])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
          "range.onnx")
save("cos", [h.make_node("ConstantOfShape", ["shape"], ["y"],
                         value=h.make_tensor("v", T.FLOAT, [1], [3.0]))],
     [h.make_tensor_value_info("shape", T.INT64, [2])],
     [h.make_tensor_value_info("y", T.FLOAT, None)])
save("hann", [h.make_node("HannWindow", ["n"], ["y"])],
     [h.make_tensor_value_info("n", T.INT64, [])],
     [h.make_tensor_value_info("y", T.FLOAT, None)])
save("reduce", [h.make_node("Range", ["s", "l", "d"], ["r"]),
                h.make_node("ReduceSum", ["r"], ["y"], keepdims=0)], sc,
     [h.make_tensor_value_info("y", T.FLOAT, [])], opset=13)
save("two", [h.make_node("Range", ["s", "l", "d"], ["a"]),
             h.make_node("Range", ["s", "l", "d"], ["b"]),
             h.make_node("Add", ["a", "b"], ["y"])], sc,
     [h.make_tensor_value_info("y", T.FLOAT, None)])
EOF
}

# compile NAME [--bound N]: NAME.onnx to the program NAME
compile() {
	local m=$1
	shift
	"$BIN/nnl-onnx-import" --inline-weights -o "$m.json" "$@" "$m.onnx"
	"$BIN/nnc" compile --emit exe -o "$m" "$m.json"
}

# raw float32 (f) or int64 (q) values on stdout
raw() {
	$PY -c 'import sys, numpy as np
t = {"f": np.float32, "q": np.int64}[sys.argv[1]]
sys.stdout.buffer.write(np.array([float(v) for v in sys.argv[2:]], t).tobytes())' "$@"
}

# same FILE EXPR: the float32 values in FILE are NumPy's EXPR (to 1e-6)
same() {
	$PY -c 'import sys, numpy as np
got = np.fromfile(sys.argv[1], np.float32)
want = np.asarray(eval(sys.argv[2]), np.float32).ravel()
print(got, want)
sys.exit(0 if got.shape == want.shape and np.allclose(got, want,
         rtol=1e-6, atol=1e-6) else 1)' "$@"
}

@test "a Range of a size known at run time within its bound: NumPy's arange" {
	compile range --bound 8
	raw f 1 4.5 0.5 | ./range > y.bin
	same y.bin 'np.arange(1, 4.5, 0.5, dtype=np.float64) * 2'
	# exactly the bound fills it; a limit behind the start gives none
	raw f 0 8 1 | ./range > y.bin
	same y.bin 'np.arange(8) * 2'
	raw f 3 1 1 | ./range > y.bin
	same y.bin '[]'
}

@test "a Range past its bound fails with an error and writes nothing" {
	compile range --bound 8
	raw f 0 9 1 > in.bin
	run --separate-stderr ./range < in.bin
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "range: a size computed at run time is past its bound (--bound when imported) or invalid" ]
	# a delta of 0 (an endless range) likewise
	raw f 0 1 0 > in.bin
	run --separate-stderr ./range < in.bin
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "nnl-run refuses a Range past its bound, naming the node" {
	"$BIN/nnl-onnx-import" --inline-weights --bound 4 -o g.json range.onnx
	for v in s:0 l:5 d:1; do
		$PY -c "import numpy as np; np.save('${v%%:*}.npy', np.float32(${v#*:}))"
	done
	run --separate-stderr "$BIN/nnl-run" -d out g.json s=s.npy l=l.npy \
	    d=d.npy
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "'*'" (range): its size, known only at run time, is past its bound of 4 elements or invalid'* ]]
	# within it, the tensor of the shape it has
	$PY -c "import numpy as np; np.save('l.npy', np.float32(3))"
	run --separate-stderr "$BIN/nnl-run" -d out g.json s=s.npy l=l.npy \
	    d=d.npy
	[ "$status" -eq 0 ]
	$PY -c 'import numpy as np, sys
y = np.load("out/y.npy"); print(y)
sys.exit(0 if y.shape == (3,) and (y == [0, 2, 4]).all() else 1)'
}

@test "ConstantOfShape of a run-time shape: within the bound, and past it" {
	compile cos --bound 10
	raw q 2 5 | ./cos > y.bin
	same y.bin 'np.full(10, 3.0)'
	raw q 0 5 | ./cos > y.bin
	same y.bin '[]'
	for s in "3 4" "-1 2"; do
		raw q $s > in.bin
		run --separate-stderr ./cos < in.bin
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[[ "$stderr" == *"past its bound"* ]]
	done
}

@test "HannWindow of a run-time size: the window's formula, and past the bound" {
	compile hann --bound 16
	raw q 10 | ./hann > y.bin
	same y.bin '0.5 - 0.5 * np.cos(2 * np.pi * np.arange(10) / 10)'
	raw q 17 > in.bin
	run --separate-stderr ./hann < in.bin
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

# mel.onnx: MelWeightMatrix(n, 16, 8192, 0, 4096) of an int64 n
# computed at run time; melc.onnx: the same with n = 8 a constant.
# melref N: the [9, N] matrix by ONNX's reference formulation, NumPy's
melmodels() {
	$PY - <<'EOF2'
import onnx
from onnx import TensorProto as T, helper as h
def save(name, nin, inits):
    k = [h.make_tensor("len", T.INT64, [], [16]),
         h.make_tensor("rate", T.INT64, [], [8192]),
         h.make_tensor("lo", T.FLOAT, [], [0.0]),
         h.make_tensor("hi", T.FLOAT, [], [4096.0])]
    g = h.make_graph([h.make_node("MelWeightMatrix",
                                  ["n", "len", "rate", "lo", "hi"], ["y"])],
                     name, nin, [h.make_tensor_value_info("y", T.FLOAT,
                                                          None)], k + inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
              name + ".onnx")
save("mel", [h.make_tensor_value_info("n", T.INT64, [])], [])
save("melc", [], [h.make_tensor("n", T.INT64, [], [8])])
EOF2
}
melref() {
	echo "(lambda n: (lambda p: np.array([[(j - p[i]) / (p[i + 1] - p[i])
	    if p[i] <= j < p[i + 1] else (p[i + 2] - j) / (p[i + 2] - p[i + 1])
	    if p[i + 1] <= j < p[i + 2] else float(j == p[i + 1])
	    for i in range(n)] for j in range(9)]))(((17 * (700 * (10 ** ((
	    np.arange(n + 2) * (2595 * np.log10(1 + 4096 / 700) / (n + 2)))
	    / 2595) - 1))) // 8192).astype(int)))($1)"
}

@test "MelWeightMatrix of a run-time input: ONNX's matrix, and past the bound" {
	melmodels
	compile mel --bound 80
	grep -q '"op": "melWeightMatrix"' mel.json
	raw q 8 | ./mel > y.bin
	same y.bin "$(melref 8)"
	raw q 5 | ./mel > y.bin
	same y.bin "$(melref 5)"
	# 9 x 9 is past 80 items; no band is invalid
	for n in 9 0; do
		raw q $n > in.bin
		run --separate-stderr ./mel < in.bin
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[[ "$stderr" == *"past its bound"* ]]
	done
	# constant inputs fold to the same matrix, no node left
	compile melc
	! grep -q '"op": "melWeightMatrix"' melc.json
	./melc < /dev/null > y.bin
	same y.bin "$(melref 8)"
}

@test "the default bound is 65536 items, and --bound takes 1 to 2^32 - 1" {
	"$BIN/nnl-onnx-import" --inline-weights -o g.json range.onnx
	grep -q '"bound": 65536' g.json
	for b in 0 -1 4294967296 x ""; do
		run --separate-stderr "$BIN/nnl-onnx-import" --bound "$b" \
		    -o g.json range.onnx
		[ "$status" -eq 2 ]
		[ "$stderr" = "nnl-onnx-import: --bound wants a count from 1 to 4294967295, not \"$b\"" ]
	done
}

@test "a non-elementwise reader of a run-time size is refused [dynamic-shape]" {
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json reduce.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'(ReduceSum) [dynamic-shape]: input "r" has a size known only at run time, which only elementwise ops and graph outputs may read'* ]]
	# two such sizes not known to be equal
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json two.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'(Add) [dynamic-shape]: inputs "a" and "b" have sizes known only at run time, not known to be equal'* ]]
}

@test "CpuOps refuses a range, a constantOfShape and a melWeightMatrix past their bounds" {
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	run node --input-type=module -e '
import { CpuOps } from "./cpuops.mjs";
const f = (v) => ({dataType: "float32", shape: [], data: new Float32Array([v])});
const q = (v) => ({dataType: "int64", shape: [], data: new BigInt64Array([BigInt(v)])});
const [y, n] = CpuOps.range(f(0), f(3), f(1), {bound: 3});
console.log(Array.from(y.data).join(","), n.data[0]);
for (const g of [() => CpuOps.range(f(0), f(4), f(1), {bound: 3}),
                 () => CpuOps.range(f(0), f(4), f(0), {bound: 3}),
                 () => CpuOps.constantOfShape({dataType: "int64", shape: [2],
                   data: new BigInt64Array([2n, 2n])}, {bound: 3}),
                 () => CpuOps.melWeightMatrix(q(2), q(16), q(8192), f(0),
                   f(4096), {bound: 17}),
                 () => CpuOps.melWeightMatrix(q(2), q(16), q(8192), f(9),
                   f(9), {bound: 18})])
  try { g(); console.log("computed"); } catch (e) { console.log(e.message); }'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "0,1,2 3n" ]
	[ "${lines[1]}" = "cpuops: range: 4 items, past its bound of 3" ]
	[ "${lines[2]}" = "cpuops: range: a delta of 0" ]
	[ "${lines[3]}" = "cpuops: constantOfShape: [2,2] is past its bound of 3 elements" ]
	[ "${lines[4]}" = "cpuops: melWeightMatrix: [9, 2] is past its bound of 17 elements" ]
	[ "${lines[5]}" = "cpuops: melWeightMatrix: 2 mel bins, a dft of 16, a rate of 8192, edges 9 to 9 Hz" ]
}

@test "nnc compile --bound gives the importer its bound" {
	"$BIN/nnc" compile --bound 5 --emit exe -o r range.onnx
	raw f 0 5 1 | ./r > y.bin
	same y.bin 'np.arange(5) * 2'
	raw f 0 6 1 > in.bin
	run --separate-stderr ./r < in.bin
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	run --separate-stderr "$BIN/nnc" compile --bound 0 -o r range.onnx
	[ "$status" -eq 2 ]
	[ "$stderr" = 'nnc: error: --bound wants a count from 1 to 4294967295, not "0"' ]
}

@test "an elementwise op reads NonZero's selection: its count, then its shape" {
	$PY - <<'EOF2'
import onnx
from onnx import TensorProto as T, helper as h
g = h.make_graph([h.make_node("NonZero", ["x"], ["i"]),
                  h.make_node("Cast", ["i"], ["f"], to=T.FLOAT),
                  h.make_node("Neg", ["f"], ["y"])], "nz",
                 [h.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                 [h.make_tensor_value_info("y", T.FLOAT, None)])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "nz.onnx")
EOF2
	compile nz
	raw f 0 1 0 2 0 3 | ./nz > y.bin
	same y.bin '-np.array(np.nonzero(np.array([[0, 1, 0], [2, 0, 3]])))'
}

@test "an If or a Loop body giving a value of run-time size is refused [dynamic-shape]" {
	$PY - <<'EOF2'
import onnx
from onnx import TensorProto as T, helper as h
sc = [h.make_tensor_value_info(n, T.FLOAT, []) for n in "sld"]
out = [h.make_tensor_value_info("y", T.FLOAT, None)]
def branch(name):
    return h.make_graph([h.make_node("Range", ["s", "l", "d"], ["r"])],
                        name, [], [h.make_tensor_value_info("r", T.FLOAT,
                                                            None)])
g = h.make_graph([h.make_node("If", ["c"], ["y"], then_branch=branch("t"),
                              else_branch=branch("e"))], "if",
                 sc + [h.make_tensor_value_info("c", T.BOOL, [])], out)
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "if.onnx")
body = h.make_graph([h.make_node("Identity", ["cond"], ["co"]),
                     h.make_node("Range", ["s", "l", "d"], ["r"])], "body",
                    [h.make_tensor_value_info("i", T.INT64, []),
                     h.make_tensor_value_info("cond", T.BOOL, [])],
                    [h.make_tensor_value_info("co", T.BOOL, []),
                     h.make_tensor_value_info("r", T.FLOAT, None)])
n = h.make_tensor("n", T.INT64, [], [2])
g = h.make_graph([h.make_node("Loop", ["n", ""], ["y"], body=body)], "loop",
                 sc, out, [n])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]),
          "loop.onnx")
EOF2
	for m in if loop; do
		run --separate-stderr "$BIN/nnl-onnx-import" -o g.json $m.onnx
		echo "$stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"[dynamic-shape]: its body's output "?" has a size known only at run time, which nnl's inlined control flow does not carry"* ]]
	done
}
