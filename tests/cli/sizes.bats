#!/usr/bin/env bats
# Sizes that wrap: shapes whose byte count sits at and around 2^31,
# 2^32, 2^63 and 2^64 through every pass, against the tensor limit
# (2^31 - 1 bytes unless --max-tensor-bytes or NNL_MAX_TENSOR_BYTES
# says otherwise): a clear error naming the operand and its shape,
# exit 1, no output file, no crash; just under the limit is accepted.
# Every shape below is uint8 (bytes = elements) unless it says
# otherwise; its product was checked by hand and is checked again by
# the first test with Python's integers.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	unset NNL_MAX_TENSOR_BYTES
	# NNL_BIN: run the same tests against a sanitizer build
	BIN=${NNL_BIN:-"$BATS_TEST_DIRNAME/../../bin"}
	cd "$BATS_TEST_TMPDIR"
}

# bytes|dims: the boundary shapes, each over the default limit
OVER='2147483648|2147483648
2147483649|3, 715827883
4294967295|4294967295
4294967296|65536, 65536
4294967297|641, 6700417
9223372036854775807|49, 73, 127, 337, 92737, 649657
9223372036854775808|2147483648, 2147483648, 2
18446744073709551615|3, 5, 17, 257, 641, 65537, 6700417
wrap|65536, 65536, 65536, 65536'

# The message for uint8[dims] of that many bytes ("wrap": over 2^64).
why() {
	if [ "$1" = wrap ]; then
		echo "uint8[$2] is more than 2^64 bytes, above the limit of 2147483647 bytes"
	else
		echo "uint8[$2] is $1 bytes, above the limit of 2147483647 bytes"
	fi
}

# A graph: input x of type $1, const c of type $2 (one value), and
# y = expand(x1, newShape=$3) with x1 a u8[1] input.
graph() {
	cat <<EOF
webnn_graph "g" v1 {
  inputs {
    x: $1;
    x1: u8[1];
  }
  consts {
    c: $2 @scalar(1);
  }
  nodes {
    y = expand(x1, newShape=[$3]);
    z = add(x1, x1);
  }
  outputs { y; z; }
}
EOF
}

# The same graph as JSON with the types shape-infer would give, for
# the passes after it (which refuse bad types when they load them).
typed() {
	cat <<EOF
{"format": "webnn-graph-json", "version": 1, "name": "g",
 "inputs": {"x1": {"dataType": "uint8", "shape": [1]}},
 "consts": {},
 "nodes": [{"id": "y", "op": "expand", "inputs": ["x1"],
   "options": {"newShape": [$1]},
   "types": [{"dataType": "uint8", "shape": [$1]}]$2}],
 "outputs": {"y": "y"}$3}
EOF
}

@test "the boundary shapes have the byte counts their names say" {
	printf '%s\n' "$OVER" | /usr/bin/python3 -c '
import sys
from math import prod
for line in sys.stdin:
    b, d = line.strip().split("|")
    n = prod(int(x) for x in d.split(","))
    assert all(int(x) < 2**32 for x in d.split(",")), d
    assert (n >= 2**64) if b == "wrap" else n == int(b), (b, n)
    assert n > 2**31 - 1
'
	# and the example of the issue: 2^64 + 64 bytes, 64 after a wrap
	[ $((16 * 536903681 * 536838145 * 4)) -eq 64 ]
}

@test "shape-infer refuses every operand over the limit, naming it" {
	printf '%s\n' "$OVER" | while IFS='|' read -r b d; do
		graph "u8[$d]" "u8[1]" "1" > in.webnn
		run --separate-stderr "$BIN/nnl-shape-infer" -o out.json in.webnn
		[ "$status" -eq 1 ]
		[ ! -e out.json ]
		[[ "$stderr" == *"in.webnn:3:5: error: input \"x\": $(why "$b" "$d")"* ]]
		graph "u8[1]" "u8[$d]" "1" > in.webnn
		run --separate-stderr "$BIN/nnl-shape-infer" -o out.json in.webnn
		[ "$status" -eq 1 ]
		[ ! -e out.json ]
		[[ "$stderr" == *"error: const \"c\": $(why "$b" "$d")"* ]]
		graph "u8[1]" "u8[1]" "$d" > in.webnn
		run --separate-stderr "$BIN/nnl-shape-infer" -o out.json in.webnn
		[ "$status" -eq 1 ]
		[ ! -e out.json ]
		[[ "$stderr" == *"error: node \"y\": output \"y\": $(why "$b" "$d")"* ]]
		[[ "$stderr" != *Sanitizer* && "$stderr" != *"runtime error"* ]]
	done
}

@test "shape-infer accepts 2^31 - 1 bytes, and sizes past 2^64 other types" {
	graph "u8[2147483647]" "u8[2147483647]" "2147483647" > in.webnn
	"$BIN/nnl-shape-infer" -o out.json in.webnn
	grep -q '"types": \[{"dataType": "uint8", "shape": \[2147483647\]}\]' out.json
	# float16: 2 * (2^62 + 1) = 2^63 + 2 bytes; float32: 2^64 + 4
	graph "f16[5, 5581, 8681, 49477, 384773]" "u8[1]" "1" > in.webnn
	run --separate-stderr "$BIN/nnl-shape-infer" in.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'float16[5, 5581, 8681, 49477, 384773] is 9223372036854775810 bytes'* ]]
	graph "f32[5, 5581, 8681, 49477, 384773]" "u8[1]" "1" > in.webnn
	run --separate-stderr "$BIN/nnl-shape-infer" in.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'float32[5, 5581, 8681, 49477, 384773] is more than 2^64 bytes'* ]]
}

@test "the issue's expand and tile to 2^64 + 64 bytes are refused" {
	for op in 'expand(x, newShape=[16, 536903681, 536838145])' \
	    'tile(x, repetitions=[16, 536903681, 536838145])'; do
		graph "f32[1, 1, 1]" "u8[1]" "1" |
		    sed "s/y = expand(x1, newShape=\[1\])/y = $op/" > in.webnn
		run --separate-stderr "$BIN/nnl-shape-infer" in.webnn
		[ "$status" -eq 1 ]
		[[ "$stderr" == *'node "y": output "y": float32[16, 536903681, 536838145] is more than 2^64 bytes'* ]]
	done
}

@test "fuse, plan-memory, emit-c, reorder and emit-js refuse given types over the limit" {
	printf '%s\n' "$OVER" | while IFS='|' read -r b d; do
		typed "$d" "" "" > in.json
		for p in fuse plan-memory emit-c reorder emit-js cpu-partition; do
			args=
			[ $p = cpu-partition ] &&
			    args="-p $BATS_TEST_DIRNAME/../../pipelines/profiles/cpu.json"
			run --separate-stderr "$BIN/nnl-$p" $args -o out in.json
			[ "$status" -eq 1 ] && [ ! -e out ] ||
			    { echo "$p $b: $status"; false; }
			[[ "$stderr" == *"error: node \"y\": output \"y\": $(why "$b" "$d")"* ]]
		done
	done
}

@test "plan-memory: the arena is held to the limit too, alignment included" {
	# 2^31 - 1 bytes fits, but aligned to 64 the arena is 2^31
	typed "2147483647" "" "" > in.json
	run --separate-stderr "$BIN/nnl-plan-memory" -o out.json in.json
	[ "$status" -eq 1 ]
	[ ! -e out.json ]
	[[ "$stderr" == *'the memory plan needs an arena of 2147483648 bytes, above the limit of 2147483647 bytes'* ]]
	# 2^31 - 64 bytes: an arena of exactly that
	typed "2147483584" "" "" > in.json
	"$BIN/nnl-plan-memory" -o out.json in.json 2>/dev/null
	grep -q '"arenaBytes": 2147483584' out.json
	# raising the limit lets the first through
	typed "2147483647" "" "" > in.json
	"$BIN/nnl-plan-memory" --max-tensor-bytes=2G -o out.json in.json \
	    2>/dev/null
	grep -q '"arenaBytes": 2147483648' out.json
}

@test "emit-c: an arena beyond the limit is refused; 2^31 - 64 is emitted" {
	# (above 2^53 the plan check refuses it as no exact JSON integer)
	for ab in 2147483648 4294967296 9007199254740992; do
		typed "1" ', "arena": [0]' ", \"memory\": {\"align\": 64, \"arenaBytes\": $ab}" > in.json
		run --separate-stderr "$BIN/nnl-emit-c" -o out.c -H out.h in.json
		[ "$status" -eq 1 ]
		[ ! -e out.c ]
		[ ! -e out.h ]
		[[ "$stderr" == *'memory.arenaBytes is not a size from 0 to the limit of 2147483647 bytes'* ]]
	done
	for ab in 9223372036854775808 18446744073709551616 -1; do
		typed "1" ', "arena": [0]' ", \"memory\": {\"align\": 64, \"arenaBytes\": $ab}" > in.json
		run --separate-stderr "$BIN/nnl-emit-c" -o out.c -H out.h in.json
		[ "$status" -eq 1 ]
		[ ! -e out.c ]
		[ ! -e out.h ]
		[[ "$stderr" == *'memory plan: arenaBytes is '*', not an integer from 0 to 2^53'* ]]
	done
	typed "2147483584" ', "arena": [0]' ', "memory": {"align": 64, "arenaBytes": 2147483584}' > in.json
	"$BIN/nnl-emit-c" -o out.c -H out.h in.json
	grep -q 'static unsigned char g_arena\[2147483584\]' out.c
}

@test "a one-value constant of 2^31 - 1 bytes is a loop, not 2 GB of C" {
	cat > in.webnn <<'EOF'
webnn_graph "g" v1 {
  inputs {
    x: u8[1];
  }
  consts {
    c: u8[2147483647] @scalar(7);
  }
  nodes {
    y = add(x, c);
  }
  outputs { y; }
}
EOF
	[ "$(wc -c < in.webnn)" -lt 200 ]
	"$BIN/nnl-shape-infer" in.webnn | "$BIN/nnl-plan-memory" \
	    --max-tensor-bytes=4G 2>/dev/null > p.json
	"$BIN/nnl-emit-c" --max-tensor-bytes=4G -o out.c -H out.h p.json
	# the runtime kernels are most of the file: it is about the size
	# of the same add's with a one-byte constant
	sed 's/u8\[2147483647\]/u8[1]/' in.webnn | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-plan-memory" | "$BIN/nnl-emit-c" -o small.c -H small.h
	[ "$(wc -c < out.c)" -lt "$(($(wc -c < small.c) + 20000))" ]
	grep -q 'static unsigned char g_c0\[2147483647\]' out.c
	grep -q 'i < 2147483647u' out.c
	grep -q 'fills 2147483647 bytes of constants' out.h
}

@test "a one-value constant filled by a loop computes what a literal would" {
	# y = x + c, c = float32 2.5 and int64 -3 (cast) over [40, 2]: by
	# hand, x + 2.5 - 3 for x = 0..79
	cat > in.webnn <<'EOF'
webnn_graph "g" v1 {
  inputs {
    x: f32[40, 2];
  }
  consts {
    c: f32[40, 2] @scalar(2.5);
    d: i64[40, 2] @scalar(-3);
  }
  nodes {
    s = add(x, c);
    e = cast(d, dataType="float32");
    y = add(s, e);
  }
  outputs { y; }
}
EOF
	"$BIN/nnl-shape-infer" in.webnn | "$BIN/nnl-plan-memory" \
	    2>/dev/null > p.json
	"$BIN/nnl-emit-c" -m -o m.c -H model.h p.json
	grep -q 'g_fill();' m.c
	cc -std=c99 -O1 ${NNL_TEST_CFLAGS:-} -o m m.c -lm
	/usr/bin/python3 -c '
import struct, sys
sys.stdout.buffer.write(struct.pack("80f", *range(80)))' | ./m > y.bin
	/usr/bin/python3 -c '
import struct
y = struct.unpack("80f", open("y.bin", "rb").read())
assert y == tuple(x - 0.5 for x in range(80)), y'
}

@test "run refuses an operand over the limit; the option moves the limit" {
	graph "u8[4]" "u8[1]" "2, 4" | sed 's/expand(x1/expand(x/' > in.webnn
	/usr/bin/python3 -c '
import numpy as np
np.save("x.npy", np.array([1, 2, 3, 4], np.uint8))
np.save("x1.npy", np.array([5], np.uint8))'
	mkdir out
	run --separate-stderr "$BIN/nnl-run" --max-tensor-bytes=7 -d out \
	    in.webnn x=x.npy x1=x1.npy
	[ "$status" -eq 1 ]
	[ -z "$(ls out)" ]
	[[ "$stderr" == *'node "y": output "y": uint8[2, 4] is 8 bytes, above the limit of 7 bytes'* ]]
	NNL_MAX_TENSOR_BYTES=8 "$BIN/nnl-run" -d out in.webnn x=x.npy \
	    x1=x1.npy > /dev/null
	/usr/bin/python3 -c '
import numpy as np
assert np.load("out/y.npy").tolist() == [[1, 2, 3, 4], [1, 2, 3, 4]]
assert np.load("out/z.npy").tolist() == [10]'
	printf '%s\n' "$OVER" | while IFS='|' read -r b d; do
		graph "u8[1]" "u8[1]" "$d" > in.webnn
		run --separate-stderr "$BIN/nnl-run" -d out in.webnn x=x1.npy \
		    x1=x1.npy
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"node \"y\": output \"y\": $(why "$b" "$d")"* ]]
	done
}

@test "the limit's option and variable: sizes, suffixes and bad values" {
	graph "u8[2048]" "u8[1]" "1" > in.webnn
	for ok in 2048 2K 2k 2KB 1M 1G 1T 4611686018427387904; do
		"$BIN/nnl-shape-infer" --max-tensor-bytes="$ok" in.webnn \
		    > /dev/null
		NNL_MAX_TENSOR_BYTES=$ok "$BIN/nnl-shape-infer" in.webnn \
		    > /dev/null
	done
	run --separate-stderr "$BIN/nnl-shape-infer" --max-tensor-bytes=2047 in.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'input "x": uint8[2048] is 2048 bytes, above the limit of 2047 bytes'* ]]
	for bad in 0 -1 x 1.5G 2Q 4611686018427387905 8E 18446744073709551616 ""; do
		run --separate-stderr "$BIN/nnl-shape-infer" --max-tensor-bytes="$bad" in.webnn
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"--max-tensor-bytes: \"$bad\" is not a size"* ]]
	done
	run --separate-stderr env NNL_MAX_TENSOR_BYTES=lots "$BIN/nnl-shape-infer" in.webnn
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'NNL_MAX_TENSOR_BYTES: "lots" is not a size'* ]]
	# the option wins over the variable
	NNL_MAX_TENSOR_BYTES=1 "$BIN/nnl-shape-infer" --max-tensor-bytes=2K \
	    in.webnn > /dev/null
}

@test "every program that loads or sizes tensors takes the option" {
	for p in nnl-parse nnl-shape-infer nnl-fuse nnl-plan-memory \
	    nnl-emit-c nnl-emit-js nnl-reorder nnl-cpu-partition nnl-run \
	    nnl-onnx-import; do
		run "$BIN/$p" --max-tensor-bytes=bad
		[ "$status" -eq 2 ] && [[ "$output" == *'--max-tensor-bytes: "bad"'* ]] ||
		    { echo "$p: $output"; false; }
	done
	run "$BIN/nnl-pack-weights" pack --max-tensor-bytes=bad x.npy
	[ "$status" -eq 2 ]
	[[ "$output" == *'"bad" is not a size'* ]]
	run "$BIN/nnc" compile --max-tensor-bytes=bad x.webnn
	[ "$status" -eq 2 ]
	[[ "$output" == *'"bad" is not a size'* ]]
}

@test "parse refuses a constant over the limit in .webnn and JSON" {
	graph "u8[1]" "u8[65536, 65536]" "1" > in.webnn
	run --separate-stderr "$BIN/nnl-parse" -o out.json in.webnn
	[ "$status" -eq 1 ]
	[ ! -e out.json ]
	[[ "$stderr" == *'in.webnn:7:5: error: const "c": uint8[65536, 65536] is 4294967296 bytes'* ]]
}

@test "nnc passes its limit to every stage" {
	graph "u8[4]" "u8[1]" "2, 4" | sed 's/expand(x1/expand(x/' > in.webnn
	run --separate-stderr "$BIN/nnc" compile --max-tensor-bytes=7 \
	    --emit c -o m.c in.webnn
	[ "$status" -eq 1 ]
	[ ! -e m.c ]
	[[ "$stderr" == *'output "y": uint8[2, 4] is 8 bytes, above the limit of 7 bytes'* ]]
	# two buffers of 64 aligned bytes: an arena of 128
	run --separate-stderr "$BIN/nnc" compile --max-tensor-bytes=127 \
	    --emit c -o m.c in.webnn
	[ "$status" -eq 1 ]
	[ ! -e m.c ]
	[[ "$stderr" == *'an arena of 128 bytes, above the limit of 127 bytes'* ]]
	"$BIN/nnc" compile --max-tensor-bytes=128 --emit c -o m.c in.webnn \
	    2>/dev/null
	[ -s m.c ]
}

@test "pack-weights: tensors over the limit are neither packed nor unpacked" {
	/usr/bin/python3 -c '
import numpy as np
np.save("a.npy", (np.arange(1024).reshape(32, 32) % 251).astype(np.uint8))
np.save("b.npy", np.zeros(1025, np.uint8))'
	run --separate-stderr "$BIN/nnl-pack-weights" pack --max-tensor-bytes=1K \
	    -o w.weights a.npy b.npy
	[ "$status" -eq 1 ]
	[ ! -e w.weights ]
	[ ! -e w.manifest.json ]
	[[ "$stderr" == *'b.npy: tensor "b": uint8[1025] is 1025 bytes, above the limit of 1024 bytes'* ]]
	"$BIN/nnl-pack-weights" pack -o w.weights a.npy b.npy
	for cmd in list verify; do
		run --separate-stderr "$BIN/nnl-pack-weights" $cmd \
		    --max-tensor-bytes=1024 w.weights
		[ "$status" -eq 1 ]
		[[ "$stderr" == *'w.manifest.json: tensor "b": uint8[1025] is 1025 bytes'* ]]
	done
	run --separate-stderr "$BIN/nnl-pack-weights" unpack \
	    --max-tensor-bytes=1024 -d out w.weights
	[ "$status" -eq 1 ]
	[ ! -e out ]
	"$BIN/nnl-pack-weights" unpack --max-tensor-bytes=1025 -d out w.weights
	/usr/bin/python3 -c '
import numpy as np
assert (np.load("out/a.npy") == np.arange(1024).reshape(32, 32) % 251).all()'
}

@test "pack-weights: manifest shapes at 2^32 and 2^64 are refused" {
	/usr/bin/python3 -c '
import numpy as np
np.save("a.npy", np.zeros(4, np.uint8))'
	"$BIN/nnl-pack-weights" pack -o w.weights a.npy
	# the same 4 bytes, declared as a shape whose size wraps to 0 or 4
	for shape in '65536, 65536' '65536, 65536, 65536, 65536'; do
		sed "s/\"shape\": \[4\]/\"shape\": [$shape]/" w.manifest.json > m.json
		run --separate-stderr "$BIN/nnl-pack-weights" list -m m.json w.weights
		[ "$status" -eq 1 ]
		[[ "$stderr" != *Sanitizer* && "$stderr" != *"runtime error"* ]]
	done
}

# ONNX models whose numbers ask for sizes that wrap or do not fit.
onnx_models() {
	/usr/bin/python3 - <<'PY'
import numpy as np
from onnx import helper, numpy_helper as nh, TensorProto as T
def save(name, node, ins, inits=(), out=T.FLOAT):
    g = helper.make_graph([node], "g", ins,
        [helper.make_tensor_value_info("y", out, None)], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(name + ".onnx", "wb").write(m.SerializeToString())
vi = helper.make_tensor_value_info
i64 = lambda v, n: nh.from_array(np.array(v, np.int64), n)
save("in31", helper.make_node("Identity", ["x"], ["y"], name="n"),
     [vi("x", T.UINT8, [2**31])], out=T.UINT8)
save("in31m1", helper.make_node("Identity", ["x"], ["y"], name="n"),
     [vi("x", T.UINT8, [2**31 - 1])], out=T.UINT8)
save("in64", helper.make_node("Identity", ["x"], ["y"], name="n"),
     [vi("x", T.UINT8, [65536, 65536, 65536, 65536])], out=T.UINT8)
save("in63", helper.make_node("Identity", ["x"], ["y"], name="n"),
     [vi("x", T.UINT8, [2**63 - 1])], out=T.UINT8)
# linear Resize to [1, 1, 800000000, 2]: 6.4 GB out, 25.6 GB of taps
save("resize", helper.make_node("Resize", ["x", "", "s"], ["y"], name="r",
     mode="linear"), [vi("x", T.FLOAT, [1, 1, 2, 2])],
     [nh.from_array(np.array([1, 1, 4e8, 1], np.float32), "s")])
for name, k in (("eyemax", 2**63 - 1), ("eyemin", -2**63), ("eyeone", 1)):
    save(name, helper.make_node("EyeLike", ["x"], ["y"], name="e", k=k),
         [vi("x", T.FLOAT, [3, 4])])
for name, v in (("convtmin", -2**63), ("convtmax", 2**63 - 1),
                ("convt32", 2**32)):
    save(name, helper.make_node("ConvTranspose", ["x", "w"],
         ["y"], name="ct", output_shape=[v, 3]), [vi("x", T.FLOAT,
         [1, 1, 3, 3])], [nh.from_array(np.ones((1, 1, 2, 2), np.float32),
         "w")])
save("reshape", helper.make_node("Reshape", ["x", "s"], ["y"], name="rs"),
     [vi("x", T.FLOAT, [1])], [i64([2**32 - 1] * 3 + [-1], "s")])
save("cos", helper.make_node("ConstantOfShape", ["s"], ["y"], name="cs"),
     [], [i64([2**20, 2**20, 2**24], "s")])
save("expand", helper.make_node("Expand", ["x", "s"], ["y"], name="ex"),
     [vi("x", T.FLOAT, [1])], [i64([16, 536903681, 536838145], "s")])
PY
}

# import $1.onnx: exit 1, no output, stderr holding $2
refused() {
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json "$1.onnx"
	[ "$status" -eq 1 ] || { echo "$1: status $status"; false; }
	[ ! -e g.json ]
	[[ "$stderr" == *"$2"* ]] || { echo "$1: $stderr"; false; }
	[[ "$stderr" != *Sanitizer* && "$stderr" != *"runtime error"* ]]
}

@test "onnx-import: inputs at 2^31, 2^63 and 2^64 bytes are refused" {
	onnx_models
	refused in31 'in31.onnx: input "x": uint8[2147483648] is 2147483648 bytes, above the limit'
	refused in63 'in63.onnx: input "x": uint8[9223372036854775807]: dimension 0 (9223372036854775807) is not from 0 to 4294967295'
	refused in64 'in64.onnx: input "x": uint8[65536, 65536, 65536, 65536] is more than 2^64 bytes'
	"$BIN/nnl-onnx-import" -o g.json in31m1.onnx
	grep -q '"shape": \[2147483647\]' g.json
}

@test "onnx-import: a Resize asking for 6.4 GB is refused before allocating" {
	onnx_models
	# with 1 GB of address space (the old importer asked for 25.6 GB;
	# a sanitizer build needs more to start)
	([ -n "${NNL_BIN:-}" ] || ulimit -v 1048576
	 refused resize 'node "r" (Resize): the output float32[1, 1, 800000000, 2] is 6400000000 bytes, above the limit of 2147483647 bytes')
}

@test "onnx-import: ConvTranspose, Reshape, ConstantOfShape and Expand at 2^63 and 2^64" {
	onnx_models
	refused convtmax 'node "ct" (ConvTranspose): output_shape item 0 (9223372036854775807) is not a valid dimension'
	refused convtmin 'node "ct" (ConvTranspose): output_shape item 0 (-9223372036854775808) is not a valid dimension'
	refused convt32 'node "ct" (ConvTranspose): output_shape item 0 (4294967296) is not a valid dimension'
	refused reshape 'node "rs" (Reshape): the shape holds more than 2^63 elements'
	refused cos 'node "cs" (ConstantOfShape): the shape holds over 2^40 elements'
	refused expand 'node "ex" (Expand): the shape holds over 2^40 elements'
}

@test "onnx-import: EyeLike with k at 2^63 - 1 and -2^63 is all zeros" {
	onnx_models
	/usr/bin/python3 -c '
import numpy as np
np.save("x.npy", np.zeros((3, 4), np.float32))'
	for m in eyemax eyemin eyeone; do
		"$BIN/nnl-onnx-import" -o g.json "$m.onnx"
		mkdir "$m"
		"$BIN/nnl-run" -d "$m" g.json x=x.npy > /dev/null
	done
	/usr/bin/python3 -c '
import numpy as np
assert (np.load("eyemax/y.npy") == 0).all()
assert (np.load("eyemin/y.npy") == 0).all()
assert (np.load("eyeone/y.npy") == np.eye(3, 4, k=1)).all()'
}

@test "parse: .nnl layers whose shapes pass 2^64 are refused, naming the layer" {
	cat > m.nnl <<'NNL'
version 0.2;
model m {
    config {
        precision: "float32";
        batch: 1;
    }
    layer input = Input(shape: [4, 4, 3]);
    layer up = Upsample(scale: 999999999);
    layer up2 = Upsample(scale: 999999999);
    layer flat = Flatten();
}
NNL
	run --separate-stderr "$BIN/nnl-parse" -o out.json m.nnl
	[ "$status" -eq 1 ]
	[ ! -e out.json ]
	# 4 * 999999999 = 3999999996; 4 * 3 * 3999999996^2 > 2^64
	[[ "$stderr" == *"m.nnl:8:11: error: layer 'up': its output float32[1, 3999999996, 3999999996, 3] is more than 2^64 bytes"* ]]
	[[ "$stderr" != *"runtime error"* ]]
	sed 's/\[4, 4, 3\]/[999999999, 999999999, 3]/' m.nnl > big.nnl
	run --separate-stderr "$BIN/nnl-parse" -o out.json big.nnl
	[ "$status" -eq 1 ]
	# 4 * 3 * 999999999^2 = 11999999976000000012
	[[ "$stderr" == *"layer 'input': its output float32[1, 999999999, 999999999, 3] is 11999999976000000012 bytes"* ]]
}
