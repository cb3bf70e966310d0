#!/usr/bin/env bats
# The C back end: every op of the table compiled to C and run, against
# NumPy/PyTorch (tests/ops), nnl's own ops in random configurations
# too (tests/ops/sweep.py); no heap in generated code.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	EX="$BATS_TEST_DIRNAME/../../examples"
	T="$BATS_TEST_TMPDIR"
}

@test "every op compiles to C and computes the reference values" {
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/../ops/run.py" --c
	echo "$output" | grep -v '^ok'
	[ "$status" -eq 0 ]
}

@test "random shapes of the ops beyond WebNN: nnl-run and C agree with NumPy and PyTorch" {
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/../ops/sweep.py" --c
	echo "$output" | grep -v '^ok'
	[ "$status" -eq 0 ]
}

@test "two models in one translation unit: the runtime once, each model's values; other thread counts refused" {
	cd "$T"
	cat > g.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
 "nodes": [{"id": "r", "op": "relu", "inputs": ["x"], "options": {}},
           {"id": "s", "op": "mul", "inputs": ["r", "x"], "options": {}}],
 "outputs": {"s": "s"}}
JSON
	"$BIN/nnl-shape-infer" g.json | "$BIN/nnl-plan-memory" |
	    "$BIN/nnl-emit-c" -p a -o a.c
	sed 's/"mul"/"add"/' g.json | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-plan-memory" | "$BIN/nnl-emit-c" -p b -o b.c
	"$BIN/nnl-shape-infer" g.json | "$BIN/nnl-plan-memory" --threads 2 |
	    "$BIN/nnl-emit-c" --threads 2 -p t -o t.c
	cat > u.c <<'C'
#include <stdio.h>
#include "a.c"
#include "b.c"
int main(void) {
	float x[6] = { -1, 2, -3, 4, -5, 6 }, y[6], z[6];
	if (a_infer(x, y) || b_infer(x, z))
		return 1;
	for (int i = 0; i < 6; i++)
		printf("%g %g\n", y[i], z[i]);
	return 0;
}
C
	cc -std=c99 -Wall -Wextra -Werror -O1 $NNL_TEST_CFLAGS -o u u.c -lm
	# relu(x) * x and relu(x) + x, by hand (0 * -1 is -0)
	run ./u
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' '-0 -1' '4 4' '-0 -3' '16 8' '-0 -5' '36 12')" ]
	printf '#include "a.c"\n#include "t.c"\n' > v.c
	run cc -c -o v.o v.c
	[ "$status" -ne 0 ]
	[[ "$output" == *'#error "t: built for 2 threads, a model before it in this translation unit for another count"'* ]]
}

@test "generated objects call no allocator" {
	/usr/bin/python3 -c 'import numpy as np, sys
d = sys.argv[1]
r = np.random.default_rng(0)
np.save(d + "/W.npy", r.standard_normal((2048, 1000)).astype(np.float32))
np.save(d + "/b.npy", r.standard_normal(1000).astype(np.float32))' "$T"
	"$BIN/nnl-pack-weights" pack -o "$T/rh.weights" "$T/W.npy" "$T/b.npy"
	"$BIN/nnl-parse" -w "$T/rh.weights" -m "$T/rh.manifest.json" \
	    "$EX/resnet_head/resnet_head.webnn" | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-plan-memory" | "$BIN/nnl-emit-c" -o "$T/rh.c"
	cc -O2 -c -o "$T/rh.o" "$T/rh.c"
	run nm -u "$T/rh.o"
	echo "$output"
	[[ "$output" != *malloc* && "$output" != *calloc* && \
	   "$output" != *realloc* && "$output" != *free* ]]
}

@test "an int64 input after a float32 one is read aligned from the packed input" {
	# _infer's input packs x (20 bytes) then i: i sits at offset 20,
	# which UBSan's alignment check refuses for int64 loads
	cat > "$T/g.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [5]},
            "i": {"dataType": "int64", "shape": [3]}},
 "nodes": [{"id": "y", "op": "gather", "inputs": ["x", "i"]}],
 "outputs": {"y": "y"}}
JSON
	"$BIN/nnl-shape-infer" "$T/g.json" | "$BIN/nnl-plan-memory" |
	    "$BIN/nnl-emit-c" -m -o "$T/g.c"
	cc -O1 ${NNL_TEST_CFLAGS:-} \
	    -fsanitize=alignment -fno-sanitize-recover=all -o "$T/g" \
	    "$T/g.c" -lm
	/usr/bin/python3 -c 'import struct, sys
sys.stdout.buffer.write(struct.pack("<5f3q", 1, 2, 3, 4, 5, 0, 4, -1))' \
	    > "$T/in.bin"
	"$T/g" < "$T/in.bin" > "$T/out.bin"
	# x[0], x[4], x[-1]
	[ "$(od -An -f "$T/out.bin" | tr -s ' ')" = " 1 5 5" ]
}

@test "types edited after planning are refused, not trusted" {
	# found by scripts/fuzz.py: the resample2d and split kernels read
	# past shapes that no longer matched their options
	cat > "$T/r.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [4]}},
 "nodes": [{"id": "r", "op": "relu", "inputs": ["x"]}],
 "outputs": {"y": "r"}}
JSON
	"$BIN/nnl-shape-infer" "$T/r.json" | "$BIN/nnl-plan-memory" > "$T/p.json"
	"$BIN/nnl-emit-c" -o "$T/ok.c" "$T/p.json"
	sed 's/"shape": \[4\]}$/"shape": [16]}/' "$T/p.json" > "$T/e.json"
	run --separate-stderr "$BIN/nnl-emit-c" -o "$T/e.c" "$T/e.json"
	[ "$status" -eq 1 ] && [ ! -e "$T/e.c" ] && [ ! -e "$T/e.h" ]
	[[ "$stderr" == *'output "r": the graph says float32[4], the relu rule gives float32[16]'* ]]
}

# build_run DIR WEIGHTS [EMBED SOURCE]: examples/model with its weights
# packed into DIR/WEIGHTS, compiled (nnl-emit-c -e EMBED, incbin by
# default, into DIR/SOURCE, with a copy of the weights beside it for
# -e beside) and run on in.bin
build_run() {
	"$BIN/nnl-parse" -w "$1/$2" -m "$1/m.manifest.json" \
	    "$EX/model/model.nnl" | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-plan-memory" |
	    "$BIN/nnl-emit-c" -m -e "${3:-incbin}" -H "$1/m.h" \
	    -o "$1/${4:-m.c}" &&
	{ [ "${3:-incbin}" != beside ] || cp "$1/$2" "$1/${4:-m.c}.weights"; } &&
	cc -std=c99 -Wall -Wextra -Werror ${NNL_TEST_CFLAGS:-} \
	    -o "$1/prog" "$1/${4:-m.c}" -lm &&
	"$1/prog" < "$T/in.bin" > "$1/out.bin"
}

@test ".incbin: a weights path with quotes, backslashes, spaces, a line end or non-ASCII embeds that file" {
	cd "$T"
	printf '\0\0\200?\0\0\0@\0\0@@\0\0\200@' > in.bin   # 1 2 3 4
	mkdir plain
	build_run plain w
	n=0
	for w in 'w"q' 'w\156' 'w\\x' 'w x' "$(printf 'w\nl')" 'wü' \
	    'w\"' "$(printf 'w\tt')"; do
		d=d$n
		mkdir "$d"
		# what an assembler reading the name unescaped would find
		for decoy in wn 'w\x' 'w'; do
			head -c 264 /dev/urandom > "$d/$decoy"
		done
		build_run "$d" "$w"
		cmp plain/out.bin "$d/out.bin"
		n=$((n + 1))
	done
	[ "$n" -eq 8 ]
	# and the plain build is the model's: numpy with the packed weights
	/usr/bin/python3 - <<'PY'
import json
import numpy as np
m = json.load(open("plain/m.manifest.json"))
raw = open("plain/w", "rb").read()
def t(name):
    e = m["tensors"][name]
    return np.frombuffer(raw, "<f4", e["byteLength"] // 4,
                         e["byteOffset"]).reshape(e["shape"])
x = np.fromfile("in.bin", "<f4").reshape(1, 4)
h = x @ t("fc1.weight") + t("fc1.bias")
y = h @ t("fc2.weight") + t("fc2.bias")
got = np.fromfile("plain/out.bin", "<f4")
print(y.ravel(), got)
assert np.allclose(got, y.ravel(), rtol=1e-5, atol=1e-6)
PY
}

@test "-e beside: a source path the assembler would misread is refused, by nnl-emit-c and nnc alike" {
	cd "$T"
	printf '\0\0\200?\0\0\0@\0\0@@\0\0\200@' > in.bin
	mkdir plain
	build_run plain w beside m.c
	for s in 'a\156.c' 'a"b.c' "$(printf 'a\nb.c')" "$(printf 'a\rb.c')"; do
		mkdir d
		head -c 264 /dev/urandom > d/an.c.weights
		run --separate-stderr build_run d w beside "$s"
		echo "$s: $status $stderr"
		[ "$status" -eq 1 ] && [ ! -e "d/$s" ]
		[[ "$stderr" == *"-e beside: the assembler would read another weights file"* ]]
		run --separate-stderr "$BIN/nnc" compile --emit c -o "d/$s" \
		    "$EX/model/model.nnl"
		[ "$status" -eq 1 ] && [ ! -e "d/$s" ]
		[[ "$stderr" == *"-e beside: the assembler would read another weights file"* ]]
		rm -r d
	done
	# spaces and non-ASCII are read back as they are
	mkdir e
	build_run e w beside 'ü x.c'
	cmp plain/out.bin e/out.bin
	# moved under a folder whose name the assembler would misread, GCC
	# refuses the source rather than embed the decoy
	mkdir 'q\156' qn
	cp plain/m.c plain/m.c.weights plain/m.h 'q\156/'
	head -c 264 /dev/urandom > qn/m.c.weights
	run gcc -std=c99 -c -o q.o 'q\156/m.c'
	[ "$status" -ne 0 ] && [ ! -e q.o ]
	[[ "$output" == *"source_path_has_no_quote_backslash_or_line_end"* ]]
}
