#!/usr/bin/env bats
# Bounded reads: files a graph or a model names (weights, manifest, ONNX
# external data, .npy and .npz weights) must be regular files, and tiny
# hostile files cannot make a program read forever, hang or allocate
# what the file does not hold.  Every command runs under `timeout 20`
# and a 1 GiB address-space limit, so a hang or a runaway allocation
# fails the test instead of the machine; each refusal names the file.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="$BATS_TEST_DIRNAME/../../bin"
	PY=/usr/bin/python3
	T="$BATS_TEST_TMPDIR/t"
	mkdir -p "$T"
	cd "$T"
	$PY -c 'import numpy as np
np.save("w.npy", np.array([1, 2], np.float32))'
	"$BIN/nnl-pack-weights" pack -o m.weights w.npy
	mkfifo fifo
	mkdir dir
}

# Run a command bounded in time (20 s) and memory (1 GiB).
bounded() {
	bash -c 'ulimit -v 1048576 && exec timeout 20 "$@"' bounded "$@"
}

# A graph whose "weights" member names file $1 and manifest $2.
graph() {
	cat > g.json <<G
{"format": "webnn-graph-json", "version": 1,
 "weights": {"file": "$1", "manifest": "$2"},
 "inputs": {"x": {"dataType": "float32", "shape": [2]}},
 "consts": {"w": {"dataType": "float32", "shape": [2],
   "init": {"kind": "weights", "ref": "w"}}},
 "nodes": [{"id": "y", "op": "add", "inputs": ["x", "w"], "options": {},
   "types": [{"dataType": "float32", "shape": [2]}]}],
 "outputs": {"y": "y"}}
G
}

@test "a graph with regular weights files loads" {
	graph m.weights m.manifest.json
	run --separate-stderr bounded "$BIN/nnl-reorder" g.json
	[ "$status" -eq 0 ]
}

@test "weights file that is a FIFO, /dev/zero or a directory is refused" {
	for f in fifo /dev/zero dir; do
		graph "$f" m.manifest.json
		run --separate-stderr bounded "$BIN/nnl-reorder" g.json
		[ "$status" -eq 1 ]
		case $f in
		fifo) k="a FIFO" ;; dir) k="a directory" ;;
		*) k="a character device" ;;
		esac
		[ "$stderr" = "nnl-reorder: g.json: error: field \"weights\": member \"file\": $f: not a regular file ($k)" ]
	done
}

@test "manifest that is a FIFO, /dev/zero or a directory is refused" {
	for f in fifo /dev/zero dir; do
		graph m.weights "$f"
		run --separate-stderr bounded "$BIN/nnl-reorder" g.json
		[ "$status" -eq 1 ]
		[[ "$stderr" == "nnl-reorder: g.json: error: field \"weights\": member \"manifest\": $f: not a regular file"* ]]
	done
}

@test "every pass refuses a FIFO as weights without hanging" {
	graph fifo m.manifest.json
	for p in reorder shape-infer fuse plan-memory emit-js emit-c run \
	    parse; do
		run --separate-stderr bounded "$BIN/nnl-$p" g.json
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"g.json: error: field \"weights\": member \"file\": fifo: not a regular file (a FIFO)"* ]]
	done
}

@test "a manifest over 64 MiB is refused before it is read" {
	cp m.manifest.json big.manifest.json
	truncate -s $((64 * 1024 * 1024 + 1)) big.manifest.json
	graph m.weights big.manifest.json
	run --separate-stderr bounded "$BIN/nnl-reorder" g.json
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-reorder: error: big.manifest.json: 67108865 bytes, over the limit of 67108864" ]
}

@test "a tensor past the end of the weights file is refused, naming it" {
	# 2^40 bytes declared at offset 64 in a 72-byte file
	$PY -c 'import json
m = json.load(open("m.manifest.json"))
m["tensors"]["w"].update(shape=[2**19, 2**19], byteLength=2**40)
json.dump(m, open("huge.manifest.json", "w"))'
	graph m.weights huge.manifest.json
	run --separate-stderr bounded "$BIN/nnl-reorder" g.json
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-reorder: error: m.weights: tensor \"w\": byteOffset 64 + byteLength 1099511627776 overruns the file (72 bytes)" ]
}

@test "pack-weights verify and unpack refuse a FIFO" {
	for cmd in verify unpack; do
		run --separate-stderr bounded "$BIN/nnl-pack-weights" $cmd \
		    -m m.manifest.json fifo
		[ "$status" -eq 1 ]
		[ "$stderr" = "nnl-pack-weights: error: fifo: not a regular file (a FIFO)" ]
	done
}
