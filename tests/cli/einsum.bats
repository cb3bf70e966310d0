#!/usr/bin/env bats
# ONNX Einsum, lowered to transposes, gathers (diagonals), matmul,
# mul and reduceSum: fixed and random equations (ellipses, repeated
# labels, implicit outputs, 1 to 3 operands, broadcast 1s) through
# nnl-run and nnc compile agree with numpy.einsum
# (tests/data/einsum/check.py); a malformed equation is an error that
# names the node.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	cd "$BATS_TEST_TMPDIR"
}

@test "einsum: fixed and random equations agree with numpy.einsum" {
	run /usr/bin/python3 "$ROOT/tests/data/einsum/check.py" "$BIN" . 1
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "170 equations" ]
}

# an Einsum model of equation $1 over inputs of shapes $2 (Python), of
# type $3 (default FLOAT)
model() {
	/usr/bin/python3 - "$1" "$2" "${3:-FLOAT}" <<'PY'
import sys
import onnx
from onnx import TensorProto, helper
eq, shapes = sys.argv[1], eval(sys.argv[2])
t = getattr(TensorProto, sys.argv[3])
ins = [helper.make_tensor_value_info("x%d" % i, t, s)
       for i, s in enumerate(shapes)]
y = helper.make_tensor_value_info("y", t, None)
n = helper.make_node("Einsum", [i.name for i in ins], ["y"], name="E",
                     equation=eq)
g = helper.make_graph([n], "g", ins, [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 12)]),
          "m.onnx")
PY
}

@test "einsum: malformed equations are errors naming the node" {
	while IFS='|' read -r eq shapes msg; do
		model "$eq" "$shapes"
		run --separate-stderr "$BIN/nnl-onnx-import" -o g.json m.onnx
		echo "$eq: $stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *'node "E" (Einsum)'*"$msg"* ]]
		[ ! -e g.json ]
	done <<'EOF_'
ij,jk|[(2, 3)]|the equation has more terms than the 1 inputs
ij|[(2, 3), (3, 2)]|the equation has fewer terms than the 2 inputs
ijk|[(2, 3)]|a term of 3 labels for an input of rank 2
i.j|[(2, 3)]|a malformed ellipsis
i1|[(2, 3)]|'1' is not a label
ij->k|[(2, 3)]|output label 'k' is in no input
ij->ii|[(2, 3)]|output label 'i' appears twice
...i->i|[(2, 3)]|the inputs have an ellipsis of 1 dimensions, the output none
ij,jk->ik|[(2, 3), (4, 2)]|label 'j' is 4 wide in input 1, 3 before
ii|[(2, 3)]|label 'i' is 3 wide in input 0, 2 before
EOF_
}

@test "einsum: a type reduceSum does not take is refused, with its code" {
	model "ij,jk->ik" "[(2, 3), (3, 4)]" INT8
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json m.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "E" (Einsum) [unsupported-type]: Einsum on int8'* ]]
	[ ! -e g.json ]
}
