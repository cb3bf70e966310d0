#!/usr/bin/env bats
# nnl-emit-js: modules whose calls match the WebNN IDL (checked by the
# WebIDL-derived stub in tests/js), whose recorded graph computes what
# the original does through the C back end, and a stub that does refuse
# calls the IDL does not allow.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	cd "$BATS_TEST_TMPDIR"
}

@test "a module's graph, recorded through the IDL stub, computes the original's outputs" {
	cp -r "$ROOT/examples/import_test" .
	"$BIN/nnl-onnx-import" -o mlp.json import_test/model.onnx
	"$BIN/nnl-emit-js" -o mlp.js mlp.json
	grep -q 'export function loadModelGraph(operand_input, weights_buffer, builder)' mlp.js
	grep -q 'const r = builder.relu(h);' mlp.js
	node "$ROOT/tests/js/record.mjs" mlp.js > rec.json
	run "$BIN/nnc" test --input import_test/input.npy \
	    --expected import_test/expected.npy rec.json
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "weights come from the weights file at the manifest's offsets" {
	/usr/bin/python3 "$ROOT/tests/data/nnl-write/make_cnn.py" .
	run "$BIN/nnl-emit-js" cnn.json
	[ "$status" -eq 1 ] && [[ "$output" == *'constant "cw" is in a weights file, but the graph names none'* ]]
	"$BIN/nnl-parse" cnn.json | "$BIN/nnl-emit-js" -o cnn.js
	grep -q 'builder.constant({dataType: "float32", shape: \[4, 3, 3, 3\]}, w(' cnn.js
	grep -q 'builder.conv2d(x, cw, {padding: \[1, 1, 1, 1\], bias: cb})' cnn.js
	grep -q 'builder.softmax(d, 1)' cnn.js
	node "$ROOT/tests/js/record.mjs" cnn.js cnn.weights > rec.json
	/usr/bin/python3 -c 'import numpy as np
x = np.load("in_hwc.npy").transpose(2, 0, 1)[None].copy()
np.save("in.npy", x)'
	"$BIN/nnc" compile -o orig cnn.json
	"$BIN/nnc" compile -o recd rec.json
	/usr/bin/python3 -c 'import numpy as np; open("in.bin","wb").write(np.load("in.npy").tobytes())'
	./orig < in.bin > a.bin
	./recd < in.bin > b.bin
	cmp a.bin b.bin
	# a weights buffer of the wrong size is refused by the module
	head -c 100 cnn.weights > short.weights
	run node "$ROOT/tests/js/record.mjs" cnn.js short.weights
	[ "$status" -eq 1 ]
	[[ "$output" == *"weights: cnn.weights has "*" bytes, this buffer 100"* ]]
}

@test "the stub refuses calls that do not match the WebNN IDL" {
	cat > bad.mjs <<'JS'
import { createStub } from "STUB";
const s = createStub();
const b = new s.MLGraphBuilder(s.context);
const x = b.input("x", {dataType: "float32", shape: [2, 3]});
const tries = [
  () => b.softmax(x, {axis: 1}),             // webnn-graph's trailing object
  () => b.relu(x, {alpah: 1}),               // an option the IDL lacks
  () => b.conv2d(x, x, {padding: [1, 1]}, 3), // too many arguments
  () => b.transpose(x, {permutation: [1, -1]}),
  () => b.cast(x, "float64"),
  () => b.input("y", {dataType: "float32"}),  // shape is required
  () => b.nosuchop(x),
];
for (const t of tries) {
  try { t(); console.log("accepted"); } catch (e) { console.log("refused: " + e.message); }
}
console.log(b.softmax(x, 1) ? "softmax(x, 1) ok" : "");
JS
	sed -i "s|STUB|$ROOT/tests/js/webnn-stub.mjs|" bad.mjs
	run node bad.mjs
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^refused' <<< "$output")" -eq 7 ]
	[[ "$output" == *'softmax(): argument 2 (axis): expected an unsigned long, got an object'* ]]
	[[ "$output" == *'has no member "alpah"'* ]]
	[[ "$output" == *'"float64" is not a value of MLOperandDataType'* ]]
	[[ "$output" == *'needs its member "shape"'* ]]
	[[ "$output" == *"softmax(x, 1) ok"* ]]
}

@test "usage errors exit 2" {
	run "$BIN/nnl-emit-js" -x
	[ "$status" -eq 2 ]
	run node "$ROOT/tests/js/record.mjs"
	[ "$status" -eq 2 ]
}

@test "every example and resnet_head: the recorded graph gives the C outputs exactly" {
	/usr/bin/python3 "$ROOT/examples/make_examples.py" vgg_block \
	    feature_extractor > /dev/null
	/usr/bin/python3 "$ROOT/examples/resnet_head/make_weights.py" rw
	"$BIN/nnl-pack-weights" pack -o resnet_head.weights rw
	cp "$ROOT/examples/resnet_head/resnet_head.webnn" .
	/usr/bin/python3 -c 'import numpy as np
np.save("rh_in.npy", np.random.default_rng(3).standard_normal((1, 2048)).astype(np.float32))'
	n=0
	for m in "$ROOT"/examples/*/*.nnl resnet_head.webnn; do
		e=$(basename "${m%.*}")
		d=$(dirname "$m")
		in="$d/test_input.npy"
		[ "$e" = resnet_head ] && in=rh_in.npy
		"$BIN/nnl-parse" -w "$e.weights" -m "$e.manifest.json" -o "$e.json" "$m"
		"$BIN/nnl-emit-js" -o "$e.js" "$e.json"
		node "$ROOT/tests/js/record.mjs" "$e.js" "$e.weights" \
		    "$e.manifest.json" > "$e.rec.json"
		# a model without main() (io "none") gets one for the comparison
		/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
g.get("nnl", {}).get("config", {}).pop("io", None)
json.dump(g, open(sys.argv[1], "w"))' "$e.json"
		# generic: the host build's bits may differ in the last
		# place between the two graphs (see issue 12's report)
		"$BIN/nnc" compile --target generic -o "$e.orig" "$e.json"
		# the recorder, like a pass writing to a pipe, names the
		# weights by absolute path (nnl(7) Reads).  Under check-asan
		# the sanitizers check the generated code of the first
		# program; the second, the same kernels, is built without
		# them (NNC_CFLAGS), its bits compared all the same
		NNC_CFLAGS= "$BIN/nnc" compile --target generic --allow-outside \
		    -o "$e.recd" "$e.rec.json"
		/usr/bin/python3 -c 'import numpy as np, sys
open(sys.argv[2], "wb").write(np.load(sys.argv[1]).astype(np.float32).tobytes())' "$in" "$e.in"
		"./$e.orig" < "$e.in" > "$e.a"
		"./$e.recd" < "$e.in" > "$e.b"
		cmp "$e.a" "$e.b"
		[ -s "$e.a" ]
		echo "$e: same $(stat -c %s "$e.a") bytes"
		n=$((n + 1))
	done
	[ "$n" -eq 10 ]
}

@test "headless Chromium loads an emitted module and shows its WebNN message" {
	command -v chromium
	cp -r "$ROOT/examples/import_test" .
	"$BIN/nnl-onnx-import" -o mlp.json import_test/model.onnx
	"$BIN/nnl-emit-js" -o model.js mlp.json
	cp "$ROOT/tests/js/page.html" .
	/usr/bin/python3 -m http.server 0 --bind 127.0.0.1 > srv.log 2>&1 &
	srv=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q "port [0-9]" srv.log && break
		sleep 0.5
	done
	port=$(grep -o "port [0-9]*" srv.log | head -n 1 | cut -d' ' -f2)
	# the page's virtual time can run out on a loaded machine before
	# createContext has answered ("module loaded: x", the message not
	# yet in): up to three tries, with more time
	for budget in 10000 30000 90000; do
		run timeout 120 chromium --headless --no-sandbox \
		    --disable-gpu --user-data-dir="$BATS_TEST_TMPDIR/chrome" \
		    --enable-features=WebMachineLearningNeuralNetwork \
		    --virtual-time-budget=$budget --dump-dom \
		    "http://127.0.0.1:$port/page.html"
		status_line=$(grep -o '<pre id="status">[^<]*' <<< "$output" ||
		    :)
		[[ "$status_line" == *"module loaded; "* ||
		    "$status_line" == *"graph built"* ||
		    "$status_line" == *uncaught* ]] && break
	done
	kill "$srv"
	echo "$status_line"
	[[ "$status_line" == *"module loaded; WebNN is not available"* ]]
	[[ "$status_line" != *uncaught* ]]
}

@test "the modules' XXH3-64 is libxxhash's, and verifyWeights finds a flipped byte" {
	cat > x.c <<'C'
#include <stdio.h>
#include <xxhash.h>
int main(void) {
	static unsigned char b[5000];
	unsigned s = 12345;
	for (int i = 0; i < 5000; i++) { s = s * 1103515245u + 12345u; b[i] = s >> 16; }
	for (int n = 0; n <= 4999; n += n < 300 ? 1 : 97)
		printf("%d %016llx\n", n, (unsigned long long)XXH3_64bits(b, n));
	return 0;
}
C
	cc ${NNL_TEST_CFLAGS:-} -o x x.c -lxxhash
	./x > c.txt
	cat > x.mjs <<JS
import { xxh3 } from "$ROOT/common/rt/js/xxh3.mjs";
const b = new Uint8Array(5000);
let s = 12345;
for (let i = 0; i < 5000; i++) { s = (Math.imul(s, 1103515245) + 12345) >>> 0; b[i] = (s >>> 16) & 255; }
for (let n = 0; n <= 4999; n += n < 300 ? 1 : 97)
  console.log(n, xxh3(b.subarray(0, n)).toString(16).padStart(16, "0"));
JS
	node x.mjs > js.txt
	[ "$(wc -l < c.txt)" -gt 300 ]
	diff c.txt js.txt
	/usr/bin/python3 "$ROOT/tests/data/nnl-write/make_cnn.py" .
	"$BIN/nnl-parse" cnn.json | "$BIN/nnl-emit-js" -o cnn.js
	cat > v.mjs <<'JS'
import { readFileSync } from "node:fs";
const m = await import("./cnn.js");
const b = readFileSync("cnn.weights");
const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
m.verifyWeights(ab);
console.log("verified");
const bad = new Uint8Array(ab.slice(0));
bad[700] ^= 1;
try { m.verifyWeights(bad.buffer); } catch (e) { console.log(e.message); }
JS
	run node v.mjs
	echo "$output"
	[ "${lines[0]}" = verified ]
	[[ "${lines[1]}" == 'weights: tensor "fw" is corrupt (XXH3-64 '*', the manifest says '*')' ]]
}

@test "a weights file name that reads as a URL with a scheme is refused, naming it" {
	m="$ROOT/examples/model/model.nnl"
	for w in 'data:,x' 'http:w' 'HTTPS:w' 'javascript:alert(1)' \
	    'file:w' 'blob:w' 'a+b.c-d:w' ' data:x' "$(printf 'da\tta:x')"; do
		"$BIN/nnl-parse" -w "$w" -m m.manifest.json "$m" > g.json
		run --separate-stderr "$BIN/nnl-emit-js" -o g.js g.json
		echo "$w: $status $stderr"
		[ "$status" -eq 1 ] && [ ! -e g.js ]
		[[ "$stderr" == *"g.json: weights file name \""*"\" reads as a URL with a scheme"* ]]
		rm -f -- "$w"
	done
	# the name, escaped for the terminal, is in the message
	"$BIN/nnl-parse" -w 'javascript:alert(1)' -m m.manifest.json "$m" > g.json
	run --separate-stderr "$BIN/nnl-emit-js" g.json
	[[ "$stderr" == *'"javascript:alert(1)"'* ]]
	# not schemes: a colon after a character no scheme has, or first
	for w in '1a:w' 'a_b:w' ':w' 'a b:w'; do
		"$BIN/nnl-parse" -w "$w" -m m.manifest.json "$m" > g.json
		"$BIN/nnl-emit-js" -o g.js g.json
	done
}

@test "the module fetches its weights file beside itself, whatever characters its name holds" {
	m="$ROOT/examples/model/model.nnl"
	mkdir web
	for w in 'w #1?a=%41&b.weights' 'w%2e%2e' '..\..\w' 'ü w\\x.weights'; do
		"$BIN/nnl-parse" -w "web/$w" -m m.manifest.json "$m" > g.json
		"$BIN/nnl-emit-js" --wasm m.wasm -o web/g.js g.json
		# the URL loadWeights() and load() fetch, as a path: the file
		# beside the module
		W="$w" node --input-type=module -e '
import { fileURLToPath, pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { readFileSync } from "node:fs";
const m = await import(pathToFileURL(resolve("web/g.js")).href);
const want = resolve("web", process.env.W);
let asked = null;
globalThis.fetch = async (u) => {
  asked = fileURLToPath(new URL(u));
  const b = readFileSync(asked);
  return {ok: true, arrayBuffer: async () => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)};
};
const buf = await m.loadWeights();
if (asked !== want) throw new Error(`fetched ${asked}, not ${want}`);
if (buf.byteLength !== m.weightsFile.bytes) throw new Error("size");
// load(), with WebNN missing, reads the same file through wasmFetchBytes
const got = await m.wasmFetchBytes(new URL(encodeURIComponent(m.weightsFile.name), pathToFileURL(resolve("web/g.js"))));
if (got.byteLength !== m.weightsFile.bytes) throw new Error("wasm size");
console.log("ok", asked);'
		grep -q 'wasmFetchBytes(options.weights || new URL(encodeURIComponent(weightsFile.name), import.meta.url))' web/g.js
	done
}
