#!/usr/bin/env bats
# nnl-emit-js --weights-at-load: one module, emitted from the graph
# alone, run in node against the WebIDL stub with two weights files (at
# different offsets) gives each one's answer, computed by numpy; the
# loader takes paths, URLs, bytes and webnn-graph's WeightsFile shape;
# a manifest that disagrees with the graph is refused, naming the tensor.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	cd "$BATS_TEST_TMPDIR"
	# y = x W + b; set b holds a tensor before W and packs at 8 bytes,
	# so that its offsets are not set a's
	/usr/bin/python3 - <<'PY'
import json, numpy as np
r = np.random.default_rng(29)
f = np.float32
g = {"format": "webnn-graph-json", "version": 1, "name": "lin",
 "inputs": {"x": {"dataType": "float32", "shape": [2, 4]}},
 "consts": {
  "W": {"dataType": "float32", "shape": [4, 3],
        "init": {"kind": "weights", "ref": "W"}},
  "bias": {"dataType": "float32", "shape": [3],
           "init": {"kind": "weights", "ref": "b"}}},
 "nodes": [
  {"id": "h", "op": "matmul", "inputs": ["x", "W"], "options": {}},
  {"id": "y", "op": "add", "inputs": ["h", "bias"], "options": {}}],
 "outputs": {"y": "y"}}
json.dump(g, open("g.json", "w"))
x = r.standard_normal((2, 4)).astype(f)
json.dump({"x": x.ravel().tolist()}, open("vals.json", "w"))
for s in "ab":
    W = r.standard_normal((4, 3)).astype(f)
    b = r.standard_normal(3).astype(f)
    np.save(f"W_{s}.npy", W)
    np.save(f"b_{s}.npy", b)
    np.save(f"want_{s}.npy", (x.astype(np.float64) @ W + b).astype(f))
np.savez("a.npz", W=np.load("W_a.npy"), b=np.load("b_a.npy"))
np.savez("b.npz", pad=np.zeros(5, f), b=np.load("b_b.npy"),
         W=np.load("W_b.npy"))
PY
	"$BIN/nnl-pack-weights" pack -o a.weights -m a.manifest.json a.npz
	"$BIN/nnl-pack-weights" pack -a 8 -o b.weights -m b.manifest.json b.npz
}

# the result of run-module.mjs (out.json) against want_$1.npy
same() {
	/usr/bin/python3 -c 'import json, sys, numpy as np
y = np.array(json.load(open("out.json"))["result"]["y"], np.float32)
want = np.load(sys.argv[1]).ravel()
assert np.allclose(y, want, rtol=1e-5, atol=1e-5), (y, want)' "want_$1.npy"
}

@test "one module, two weights files: each gives its own answer" {
	"$BIN/nnl-emit-js" --weights-at-load -o m.js g.json
	# no offset in the module: the constants are read by name
	grep -qF 'builder.constant({dataType: "float32", shape: [4, 3]}, w("W"));' m.js
	grep -qF 'bias: {tensor: "b", dataType: "float32", shape: [3]}' m.js
	! grep -q 'weightsTensors' m.js
	# the offsets differ between the two files
	! cmp -s <(grep -o '"byteOffset": [0-9]*' a.manifest.json) \
	    <(grep -o '"byteOffset": [0-9]*' b.manifest.json)
	for s in a b; do
		run node "$ROOT/tests/js/run-module.mjs" "$BIN" m.js vals.json \
		    $s.weights $s.manifest.json
		echo "$s: $output"
		[ "$status" -eq 0 ]
		printf '%s\n' "$output" > out.json
		same $s
	done
	# the same module from a graph that names weights files: those play
	# no part
	"$BIN/nnl-parse" -w a.weights -m a.manifest.json -o ga.json g.json
	"$BIN/nnl-emit-js" --weights-at-load -o ma.js ga.json
	cmp m.js ma.js
	# by default the offsets are baked in, and a graph without weights
	# is refused, pointing to the option
	run --separate-stderr "$BIN/nnl-emit-js" g.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'constant "W" is in a weights file, but the graph names none'*'--weights-at-load'* ]]
	"$BIN/nnl-emit-js" -o baked.js ga.json
	grep -q 'w([0-9]*, 48)' baked.js
	# WebAssembly has its weights compiled in: not with --weights-at-load
	run --separate-stderr "$BIN/nnl-emit-js" --weights-at-load --wasm m.wasm g.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'--wasm and --weights-at-load: the WebAssembly build has its weights compiled in'* ]]
}

@test "the loader takes paths, URLs, bytes, a manifest object and webnn-graph's WeightsFile" {
	"$BIN/nnl-emit-js" --weights-at-load -o m.js g.json
	cat > forms.mjs <<JS
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { createStub } from "$ROOT/tests/js/webnn-stub.mjs";
const stub = createStub();
globalThis.MLGraphBuilder = stub.MLGraphBuilder;
const m = await import(pathToFileURL("m.js").href);
const bytes = (f) => { const b = readFileSync(f); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); };
const json = (f) => JSON.parse(readFileSync(f, "utf8"));
const url = (f) => pathToFileURL(f);
const forms = {
  paths: (s) => m.loadWeights(s + ".weights", s + ".manifest.json"),
  urls: (s) => m.loadWeights(url(s + ".weights"), url(s + ".manifest.json").href),
  bytes: (s) => m.loadWeights(bytes(s + ".weights"), new Uint8Array(bytes(s + ".manifest.json"))),
  object: (s) => m.loadWeights(bytes(s + ".weights"), json(s + ".manifest.json")),
  load: (s) => m.WeightsFile.load(s + ".weights", s + ".manifest.json"),
  // webnn-graph's emitted code: new WeightsFile(buffer, manifest)
  upstream: async (s) => new m.WeightsFile(bytes(s + ".weights"), json(s + ".manifest.json")),
  // an object of its shape with getSlice() and no manifest
  getSlice: async (s) => { const t = json(s + ".manifest.json").tensors;
    return {buffer: bytes(s + ".weights"), getSlice: (n) => t[n]}; },
};
const out = {};
for (const [k, f] of Object.entries(forms))
  for (const s of ["a", "b"]) {
    await m.buildGraph(stub.context, await f(s));
    // the stub names constants c0, c1, ...: W is the [4, 3] one
    const c = Object.values(stub.graph().consts);
    const by = (n) => c.find((x) => x.shape.length === n).init.bytes;
    out[k + "_" + s] = {W: by(2), b: by(1)};
  }
const wf = await m.loadWeights("a.weights", "a.manifest.json");
out.names = wf.getTensorNames();
out.data = Array.from(new Uint8Array(wf.getData("b")));
console.log(JSON.stringify(out));
JS
	run node forms.mjs
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	printf '%s\n' "$output" > forms.json
	/usr/bin/python3 -c 'import json, numpy as np
o = json.load(open("forms.json"))
n = 0
for k in ["paths", "urls", "bytes", "object", "load", "upstream", "getSlice"]:
    for s in "ab":
        got = o[k + "_" + s]
        assert bytes(got["W"]) == np.load("W_%s.npy" % s).tobytes(), (k, s)
        assert bytes(got["b"]) == np.load("b_%s.npy" % s).tobytes(), (k, s)
        n += 1
assert o["names"] == ["W", "b"], o["names"]
assert bytes(o["data"]) == np.load("b_a.npy").tobytes()
print(n, "forms right")' | grep -qx '14 forms right'
}

@test "a manifest that disagrees with the graph is refused, naming the tensor" {
	"$BIN/nnl-emit-js" --weights-at-load -o m.js g.json
	cat > bad.mjs <<JS
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { createStub } from "$ROOT/tests/js/webnn-stub.mjs";
const stub = createStub();
globalThis.MLGraphBuilder = stub.MLGraphBuilder;
const m = await import(pathToFileURL("m.js").href);
const b = readFileSync("a.weights");
const buf = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
const good = () => JSON.parse(readFileSync("a.manifest.json", "utf8"));
const bad = {
  dataType: (t) => { t.tensors.W.dataType = "float16"; },
  shape: (t) => { t.tensors.W.shape = [3, 4]; },
  range: (t) => { t.tensors.b.byteOffset = buf.byteLength - 8; },
  header: (t) => { t.tensors.b.byteOffset = 4; },
  length: (t) => { t.tensors.b.byteLength = 16; },
  missing: (t) => { delete t.tensors.W; },
  inherited: (t) => { delete t.tensors.W; Object.prototype.W = good().tensors.W; },
  endianness: (t) => { t.endianness = "big"; },
  checksum: (t) => { new Uint8Array(buf)[t.tensors.W.byteOffset + 5] ^= 1; },
};
for (const [k, f] of Object.entries(bad)) {
  const t = good();
  f(t);
  try {
    await m.buildGraph(stub.context, await m.loadWeights(buf.slice(0), t));
    console.log(k + ": accepted");
  } catch (e) { console.log(k + ": " + e.message); }
  delete Object.prototype.W;
  if (k === "checksum") new Uint8Array(buf)[t.tensors.W.byteOffset + 5] ^= 1;
}
// checked by buildGraph too, without loadWeights
const t = good();
t.tensors.W.shape = [4, 4];
try { await m.buildGraph(stub.context, new m.WeightsFile(buf, t)); console.log("build: accepted"); }
catch (e) { console.log("build: " + e.message); }
// a bare weights buffer has no offsets
try { await m.buildGraph(stub.context, buf); console.log("bare: accepted"); }
catch (e) { console.log("bare: " + e.message); }
// the module knows no weights file: both must be given
for (const a of [[], ["a.weights"]])
  try { await m.loadWeights(...a); console.log("none: accepted"); }
  catch (e) { console.log("none: " + e.message); }
// the good pair passes
await m.buildGraph(stub.context, await m.loadWeights(buf, good()));
console.log("good: built");
JS
	run node bad.mjs
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 14 ]
	! grep -q accepted <<< "$output"
	T='weights: tensor "W" (constant "W")'
	[ "${lines[0]}" = "dataType: $T: the manifest says dataType \"float16\", the graph \"float32\"" ]
	[ "${lines[1]}" = "shape: $T: the manifest says shape [3, 4], the graph [4, 3]" ]
	[[ "${lines[2]}" == 'range: weights: tensor "b" (constant "bias"): bytes '*' are not inside the weights file'* ]]
	[[ "${lines[3]}" == 'header: weights: tensor "b" (constant "bias"): bytes 4 to 16 are not inside the weights file (its 8-byte header'* ]]
	[ "${lines[4]}" = 'length: weights: tensor "b" (constant "bias"): byteLength 16, and float32 [3] takes 12 bytes' ]
	[ "${lines[5]}" = "missing: $T: not in the manifest" ]
	[ "${lines[6]}" = "inherited: $T: not in the manifest" ]
	[ "${lines[7]}" = 'endianness: manifest: endianness "big": WebNN reads little-endian bytes' ]
	[[ "${lines[8]}" == 'checksum: weights: tensor "W" is corrupt (XXH3-64 '* ]]
	[ "${lines[9]}" = "build: $T: the manifest says shape [4, 4], the graph [4, 3]" ]
	[[ "${lines[10]}" == 'bare: weights: expected a WeightsFile'* ]]
	[[ "${lines[11]}" == 'none: loadWeights: no weights file given: this module (nnl-emit-js --weights-at-load) takes'* ]]
	[ "${lines[12]}" = 'none: loadWeights: no manifest given with the weights file' ]
	[ "${lines[13]}" = "good: built" ]
}

@test "--weights-at-load with CPU nodes: --polyfill and the partitioned run read the chosen weights" {
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	# an int64 constant from the weights file, computed on the CPU
	/usr/bin/python3 - <<'PY'
import json, numpy as np
g = {"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
 "consts": {"c": {"dataType": "int64", "shape": [2],
                  "init": {"kind": "weights", "ref": "c"}}},
 "nodes": [
  {"id": "m", "op": "mul", "inputs": ["c", "c"], "options": {}},
  {"id": "s", "op": "cast", "inputs": ["m"], "options": {"dataType": "float32"}},
  {"id": "s2", "op": "reshape", "inputs": ["s"], "options": {"newShape": [2, 1]}},
  {"id": "z", "op": "add", "inputs": ["x", "s2"], "options": {}}],
 "outputs": {"z": "z"}}
json.dump(g, open("c.json", "w"))
x = np.array([0.5, -1, 2, 0, 1, -3], np.float32).reshape(2, 3)
json.dump({"x": x.ravel().tolist()}, open("cvals.json", "w"))
np.save("x.npy", x)
for s, c in [("a", [3, -2]), ("b", [7, 5])]:
    np.savez("c_%s.npz" % s, c=np.array(c, np.int64))
    np.save("cwant_%s.npy" % s, x + (np.array(c) ** 2).reshape(2, 1))
PY
	for s in a b; do
		"$BIN/nnl-pack-weights" pack -o c_$s.weights -m c_$s.manifest.json c_$s.npz
	done
	"$BIN/nnl-cpu-partition" -p "$ROOT/pipelines/profiles/cpu-no-int64.json" \
	    -o p.json c.json
	"$BIN/nnl-emit-js" --weights-at-load --polyfill -o pf.mjs p.json
	grep -qF 'const c = cpuTensor("int64", [2], new ARRAYS["int64"](w("c").slice().buffer));' pf.mjs
	"$BIN/nnl-emit-js" --weights-at-load -o pt.mjs p.json
	grep -qF 'v["c"] = c("int64", [2], "c");' pt.mjs
	for s in a b; do
		run node "$ROOT/tests/js/run-module.mjs" "$BIN" pf.mjs cvals.json \
		    c_$s.weights c_$s.manifest.json
		echo "polyfill $s: $output"
		[ "$status" -eq 0 ]
		printf '%s\n' "$output" > out.json
		/usr/bin/python3 -c 'import json, sys, numpy as np
z = np.array(json.load(open("out.json"))["result"]["z"])
assert np.allclose(z, np.load(sys.argv[1]).ravel(), atol=1e-6), z' cwant_$s.npy
		mkdir -p $s
		run node "$ROOT/tests/js/run-partitioned.mjs" "$BIN" pt.mjs $s \
		    c_$s.weights c_$s.manifest.json x=x.npy
		echo "partitioned $s: $output"
		[ "$status" -eq 0 ]
		/usr/bin/python3 -c 'import sys, numpy as np
z = np.load(sys.argv[1] + "/z.npy")
assert np.allclose(z, np.load(sys.argv[2]), atol=1e-6), z' $s cwant_$s.npy
	done
}

@test "--weights-at-load: constant and tensor names of any characters" {
	# __proto__, a quote, </script> and U+2028, constructor; tensors
	# __proto__, r/1.w$ü and toString (Object.prototype has one)
	/usr/bin/python3 - <<'PY'
import json, numpy as np
names = ["__proto__", "a\"b</script>\u2028", "constructor"]
refs = ["__proto__", "r/1.w$\u00fc", "toString"]
g = {"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [3]}},
 "consts": {n: {"dataType": "float32", "shape": [3],
                "init": {"kind": "weights", "ref": r}}
            for n, r in zip(names, refs)},
 "nodes": [{"id": "s1", "op": "add", "inputs": ["x", names[0]], "options": {}},
           {"id": "s2", "op": "add", "inputs": ["s1", names[1]], "options": {}},
           {"id": "y", "op": "mul", "inputs": ["s2", names[2]], "options": {}}],
 "outputs": {"y": "y"}}
json.dump(g, open("h.json", "w"))
c = [np.array([1, -2, 3], np.float32) * (i + 1) for i in range(3)]
np.savez("h.npz", **dict(zip(refs, c)))
x = np.array([0.5, 2, -1], np.float32)
json.dump({"x": x.tolist()}, open("hv.json", "w"))
np.save("want_h.npy", (x + c[0] + c[1]) * c[2])
PY
	"$BIN/nnl-pack-weights" pack -o h.weights -m h.manifest.json h.npz
	"$BIN/nnl-emit-js" --weights-at-load -o h.js h.json
	run node "$ROOT/tests/js/run-module.mjs" "$BIN" h.js hv.json \
	    h.weights h.manifest.json
	echo "$output"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > out.json
	same h
	/usr/bin/python3 -c 'import json
m = json.load(open("h.manifest.json"))
del m["tensors"]["toString"]
json.dump(m, open("h2.manifest.json", "w"))'
	run node "$ROOT/tests/js/run-module.mjs" "$BIN" h.js hv.json \
	    h.weights h2.manifest.json
	[ "$status" -eq 1 ]
	[[ "$output" == *'weights: tensor "toString" (constant "constructor"): not in the manifest'* ]]
}
