#!/usr/bin/env bats
# nnc compile --emit wasm and nnl-emit-js --wasm: the WebAssembly build
# of every example, run in node through the emitted module's load(),
# gives the native build's outputs (and the NumPy reference's); headless
# Chromium, which has no WebNN, runs a model through it too.

bats_require_minimum_version 1.5.0

setup_file() {
	# the two large weight sets are made, not committed
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../../examples/make_examples.py" \
	    vgg_block feature_extractor > /dev/null
}

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	cd "$BATS_TEST_TMPDIR"
}

# same A B...: raw float32 files (or .npy arrays) of one length, each
# B equal to A within 1e-5 + 1e-5|B|
same() {
	/usr/bin/python3 - "$@" <<'PY'
import sys
import numpy as np
def load(f):
    return (np.load(f) if f.endswith(".npy") else np.fromfile(f, "<f4")
            ).astype(np.float64).ravel()
a = load(sys.argv[1])
bad = 0
for f in sys.argv[2:]:
    b = load(f)
    if a.size != b.size or a.size == 0:
        sys.exit(f"{sys.argv[1]}: {a.size} values, {f}: {b.size}")
    d = np.abs(a - b)
    print(f"{sys.argv[1]} vs {f}: max abs diff {d.max():.3g} "
          f"over {a.size} values")
    bad += not np.all(d <= 1e-5 + 1e-5 * np.abs(b))
sys.exit(1 if bad else 0)
PY
}

npy2bin() {
	/usr/bin/python3 -c 'import sys, numpy as np
np.load(sys.argv[1]).astype("<f4").tofile(sys.argv[2])' "$1" "$2"
}

# native MODEL IN.bin OUT.bin: the native build's outputs; a model of io
# "none" is a library, run by a main() of ours through its header.
# Built without the sanitizers under check-asan (NNC_CFLAGS): the
# reference here, whose generated code examples.bats runs sanitized
native() {
	local e
	e=$(basename "$1" .nnl)
	if grep -q 'io: *"none"' "$1"; then
		NNC_CFLAGS= "$BIN/nnc" compile --emit lib -o "lib$e.a" "$1"
		p=$(sed -n 's/^int \([A-Za-z0-9_]*\)_infer(const void.*/\1/p' "$e.h")
		[ -n "$p" ]
		cat > main.c <<C
#include <stdio.h>
#include <stdlib.h>
#include "$e.h"
int main(void) {
	size_t ni = ${p}_input_bytes(), no = ${p}_output_bytes();
	void *i = malloc(ni), *o = malloc(no);
	if (!i || !o || fread(i, 1, ni, stdin) != ni || ${p}_infer(i, o))
		return 1;
	return fwrite(o, 1, no, stdout) != no;
}
C
		cc -I. -o native main.c "lib$e.a" -lm
	else
		NNC_CFLAGS= "$BIN/nnc" compile -o native "$1"
	fi
	./native < "$2" > "$3"
}

# wasm_example NAME: the example's WebAssembly build against its native
# build and its expected output
wasm_example() {
	local e=$1 d="$ROOT/examples/$1"
	"$BIN/nnc" compile --emit wasm -o web/m.wasm "$d/$e.nnl"
	[ -s web/m.wasm ] && [ -s "web/$e.h" ]
	"$BIN/nnl-parse" -w m.weights -m m.manifest.json "$d/$e.nnl" |
	    "$BIN/nnl-emit-js" --wasm m.wasm -o web/m.js
	run node "$ROOT/tests/js/wasm-run.mjs" web/m.js got 0 \
	    "$d/test_input.npy"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "backend: wasm (WebNN is not available"* ]]
	native "$d/$e.nnl" got.in.bin native.bin
	same got.bin native.bin "$d/expected_output.npy"
}

@test "the WebAssembly build of every example gives the native outputs in node" {
	n=0
	for d in "$ROOT"/examples/*/; do
		e=$(basename "$d")
		[ -f "$d/$e.nnl" ] && [ -f "$d/expected_output.npy" ] || continue
		mkdir "$e"
		(cd "$e" && wasm_example "$e")
		n=$((n + 1))
	done
	[ "$n" -eq 9 ]
}

@test "headless Chromium, without WebNN, runs a model through its WebAssembly build" {
	command -v chromium
	d="$ROOT/examples/mnist"
	mkdir web
	"$BIN/nnc" compile --emit wasm -o web/mnist.wasm "$d/mnist.nnl"
	"$BIN/nnl-parse" -w m.weights -m m.manifest.json "$d/mnist.nnl" |
	    "$BIN/nnl-emit-js" --wasm mnist.wasm -o web/model.js
	cp "$ROOT/tests/js/wasm-page.html" web/page.html
	npy2bin "$d/test_input.npy" web/input.bin
	native "$d/mnist.nnl" web/input.bin native.bin
	(cd web && exec /usr/bin/python3 -m http.server 0 --bind 127.0.0.1) \
	    > srv.log 2>&1 &
	srv=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q "port [0-9]" srv.log && break
		sleep 0.5
	done
	port=$(grep -o "port [0-9]*" srv.log | head -n 1 | cut -d' ' -f2)
	# the page's virtual time can run out before a loaded machine has
	# fetched and run everything: up to three tries, with more time
	for budget in 20000 40000 80000; do
		run timeout 120 chromium --headless --no-sandbox \
		    --disable-gpu --user-data-dir="$BATS_TEST_TMPDIR/chrome" \
		    --virtual-time-budget=$budget --dump-dom \
		    "http://127.0.0.1:$port/page.html"
		grep -o '<pre id="[a-z]*">[^<]*' <<< "$output" > dom.txt || :
		grep -qx '<pre id="status">ran' dom.txt && break
	done
	kill "$srv"
	cat dom.txt
	grep -qx '<pre id="status">ran' dom.txt
	grep -qx '<pre id="backend">wasm' dom.txt
	sed -n 's/^<pre id="outputs">//p' dom.txt | /usr/bin/python3 -c '
import sys, numpy as np
np.array(sys.stdin.read().split(), np.float64).astype("<f4").tofile("page.bin")'
	same page.bin native.bin
	# the same module in node: the same bits
	node "$ROOT/tests/js/wasm-run.mjs" web/model.js got 0 "$d/test_input.npy"
	cmp page.bin got.bin
}

@test "load() runs through WebNN when navigator.ml gives a context, else through WebAssembly" {
	d="$ROOT/examples/mnist"
	"$BIN/nnc" compile --emit wasm -o mnist.wasm "$d/mnist.nnl"
	"$BIN/nnl-parse" -w mnist.weights -m mnist.manifest.json \
	    "$d/mnist.nnl" | "$BIN/nnl-emit-js" --wasm mnist.wasm -o mnist.js
	run node "$ROOT/tests/js/wasm-select.mjs" mnist.js "$d/test_input.npy"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "webnn: webnn; null; 7; "*" nodes dispatched" ]]
	[[ "${lines[1]}" == "no context: wasm; WebNN is not available: createContext failed: no adapter; 0.135326"*"; 0 nodes dispatched" ]]
	whole=$(cut -d' ' -f5 <<< "${lines[0]}")
	# a partitioned graph (div on the CPU) goes through runPartitioned
	/usr/bin/python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); del p["div"]; json.dump(p, open("p.json", "w"))' \
	    "$ROOT/pipelines/profiles/cpu.json"
	"$BIN/nnl-parse" -w mnist.weights -m mnist.manifest.json \
	    "$d/mnist.nnl" | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-cpu-partition" -p p.json |
	    "$BIN/nnl-emit-js" --wasm mnist.wasm -o part.js
	grep -q 'export async function runPartitioned' part.js
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	run node "$ROOT/tests/js/wasm-select.mjs" part.js "$d/test_input.npy"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "webnn: webnn; null; 7; "*" nodes dispatched" ]]
	[[ "${lines[1]}" == "no context: wasm; "*"; 0.135326"* ]]
	# fewer nodes through WebNN: the CPU ran the division
	part=$(cut -d' ' -f5 <<< "${lines[0]}")
	echo "whole graph $whole nodes, partitions $part"
	[ "$part" -gt 0 ] && [ "$part" -lt "$whole" ]
	# without the module, the WebAssembly path says what is missing
	rm mnist.wasm
	run node "$ROOT/tests/js/wasm-select.mjs" mnist.js "$d/test_input.npy"
	[ "$status" -ne 0 ]
	[[ "$output" == *"mnist.wasm"* ]]
}

@test "nnc compile --emit wasm: the module's exports, and errors" {
	d="$ROOT/examples/model"
	"$BIN/nnc" compile --emit wasm "$d/model.nnl"
	[ -s model.wasm ] && [ -s model.h ]
	p=$(sed -n 's/^int \([A-Za-z0-9_]*\)_infer(const void.*/\1/p' model.h)
	node -e '
const m = new WebAssembly.Module(require("fs").readFileSync("model.wasm"));
console.log(WebAssembly.Module.exports(m).map((e) => e.name).sort().join(" "));
console.log(WebAssembly.Module.imports(m).length);' > exports.txt
	cat exports.txt
	for f in memory _initialize nnl_infer nnl_input_bytes nnl_output_bytes \
	    nnl_alloc nnl_free "${p}_infer" "${p}_input_bytes" "${p}_output_bytes"; do
		grep -qw -- "$f" exports.txt
	done
	# no x86 intrinsics: the portable kernels, vectorized with SIMD128
	"$BIN/nnc" compile --emit c -o c/model.c "$d/model.nnl"
	clang --target=wasm32-wasi -msimd128 -O3 -E -Ic c/model.c > pp.c
	! grep -q '_mm256_\|_mm512_\|vfmaq_f32' pp.c
	# a target for another machine is ignored with a warning
	run --separate-stderr "$BIN/nnc" compile --emit wasm --target avx512 \
	    -o t.wasm "$d/model.nnl"
	[ "$status" -eq 0 ] && [ -s t.wasm ]
	[[ "$stderr" == *'--emit wasm: ignoring target "avx512"'* ]]
	# a compiler that fails leaves no module
	run --separate-stderr env NNC_WASM_CC=false "$BIN/nnc" compile \
	    --emit wasm -o f.wasm "$d/model.nnl"
	[ "$status" -eq 1 ] && [ ! -e f.wasm ]
	[[ "$stderr" == *"f.wasm: the WebAssembly build failed (false"* ]]
	run --separate-stderr "$BIN/nnl-emit-js" --wasm "" "$d/model.nnl"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: nnl-emit-js [-o file.js]"*"[--wasm module.wasm]"* ]]
	run --separate-stderr "$BIN/nnc" compile --emit wasn "$d/model.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"expected exe, obj, lib, shared, header, c or wasm"* ]]
}

@test "--emit wasm: inputs and outputs packed in the graph's order, whatever JavaScript's key order" {
	# inputs "b" then "7", outputs "z" then "1": JavaScript lists the
	# integer-like keys "7" and "1" first
	/usr/bin/python3 - <<'PY'
import json
import numpy as np
r = np.random.default_rng(28)
b = r.standard_normal((2, 3)).astype(np.float32)
s = r.standard_normal(3).astype(np.float32)
g = {"format": "webnn-graph-json", "version": 1, "name": "order",
     "inputs": {"b": {"dataType": "float32", "shape": [2, 3]},
                "7": {"dataType": "float32", "shape": [3]}},
     "consts": {},
     "nodes": [{"id": "d", "op": "sub", "inputs": ["b", "7"]},
               {"id": "q", "op": "mul", "inputs": ["7", "7"]}],
     "outputs": {"z": "d", "1": "q"}}
json.dump(g, open("g.json", "w"))
json.dump({"b": b.ravel().tolist(), "7": s.ravel().tolist()},
          open("values.json", "w"))
json.dump({"z": (b - s).ravel().tolist(), "1": (s * s).tolist()},
          open("expected.json", "w"))
PY
	"$BIN/nnc" compile --emit wasm -o web/g.wasm g.json
	"$BIN/nnl-emit-js" --wasm g.wasm -o web/g.js g.json
	node --input-type=module -e '
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
const m = await import(pathToFileURL(resolve("web/g.js")).href);
const model = await m.load({backend: "wasm"});
const v = JSON.parse(readFileSync("values.json", "utf8")), values = {};
for (const k of Object.keys(v)) values[k] = Float32Array.from(v[k]);
const out = await model.run(values), res = {};
for (const k of Object.keys(out)) res[k] = Array.from(out[k]);
console.log(JSON.stringify(res));' > got.json
	cat got.json
	/usr/bin/python3 - <<'PY'
import json, sys
import numpy as np
got, want = json.load(open("got.json")), json.load(open("expected.json"))
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
for k in want:
    g, w = np.array(got[k]), np.array(want[k])
    print(k, g.shape, w.shape, np.abs(g - w).max() if g.shape == w.shape else "")
    assert g.shape == w.shape and np.allclose(g, w, rtol=1e-6, atol=1e-6), k
PY
	# the module states the order it packs in
	grep -Pzq 'wasmInputOrder = \[\n  "b",\n  "7"\n\]' web/g.js
	grep -Pzq 'wasmOutputOrder = \[\n  "z",\n  "1"\n\]' web/g.js
}

@test "--emit wasm: the API's prefix comes from the graph, not from text a model's name puts in the header" {
	# the name, in the header's comments, declares an evil_infer
	/usr/bin/python3 - <<'PY'
import json
import numpy as np
name = ("net */ int evil_infer(const void *x);\nint evil_input_bytes(void)"
        " /*\u2028\r\nint evil_infer(const void *")
x = np.random.default_rng(7).standard_normal(5).astype(np.float32)
g = {"format": "webnn-graph-json", "version": 1, "name": name,
     "inputs": {"x": {"dataType": "float32", "shape": [5]}}, "consts": {},
     "nodes": [{"id": "y", "op": "relu", "inputs": ["x"]}],
     "outputs": {"y": "y"}}
json.dump(g, open("h.json", "w"))
np.save("x.npy", x)
np.save("want.npy", np.maximum(x, np.float32(0)))
PY
	"$BIN/nnc" compile --emit wasm -o web/h.wasm h.json
	grep -q 'evil_infer(const void' web/h.h
	node -e '
const m = new WebAssembly.Module(require("fs").readFileSync("web/h.wasm"));
console.log(WebAssembly.Module.exports(m).map((e) => e.name).join("\n"));' \
	    > exports.txt
	cat exports.txt
	grep -qx nnl_infer exports.txt
	! grep -q '^evil' exports.txt
	# each of the API's seven functions, under one prefix
	grep -v '^nnl_' exports.txt | sed -n \
	    's/_\(infer\|input_size\|output_size\|input_bytes\|output_bytes\|workspace_size\|run\)$/ \1/p' \
	    > api.txt
	[ "$(cut -d' ' -f2 api.txt | sort | tr '\n' ' ')" = \
	    "infer input_bytes input_size output_bytes output_size run workspace_size " ]
	[ "$(cut -d' ' -f1 api.txt | sort -u | wc -l)" -eq 1 ]
	"$BIN/nnl-emit-js" --wasm h.wasm -o web/h.js h.json
	node "$ROOT/tests/js/wasm-run.mjs" web/h.js got 0 x.npy
	same got.y.npy want.npy
}
