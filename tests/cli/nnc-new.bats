#!/usr/bin/env bats
# nnc new: a starter project in Rust, Go, C++ and Python around the
# sample model; each builds with Debian's toolchain (cargo offline, no
# crates; go with cgo; g++; python3 with ctypes), runs one inference
# and prints what NumPy computes from the sample's weights.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	BIN=$(cd "${NNL_BIN:-$ROOT/bin}" && pwd)
	T="$BATS_TEST_TMPDIR"
	export PATH="$BIN:$PATH"
	# the toolchains' caches in the test's own directory
	export CARGO_HOME="$T/cargo" GOCACHE="$T/gocache" GOPATH="$T/gopath"
	export GOFLAGS= GO111MODULE=on GOPROXY=off
	# the projects' own toolchains (cargo, go, g++, ctypes) link what
	# nnc builds, with none of make check-asan's sanitizer flags
	unset NNC_CFLAGS
	cd "$T"
}

# NumPy's output for the sample model's input, as the programs print it
want() {
	/usr/bin/python3 -c 'import numpy as np, sys
w = sys.argv[1] + "/"
x = np.array([0.5, -1.0, 2.0, 0.25])
h = np.maximum(x @ np.load(w + "hidden.weight.npy").astype(np.float64)
               + np.load(w + "hidden.bias.npy"), 0)
l = h @ np.load(w + "output.weight.npy").astype(np.float64) \
    + np.load(w + "output.bias.npy")
e = np.exp(l - l.max())
print(" ".join("%.6f" % v for v in e / e.sum()))' "$1"
}

# the printed line against NumPy's values, within a rounding step
check() {
	echo "got: $1"
	[[ "$1" =~ ^output:( -?[0-9]+\.[0-9]{6}){3}$ ]]
	/usr/bin/python3 -c 'import sys
got = [float(v) for v in sys.argv[1].split()[1:]]
want = [float(v) for v in sys.argv[2].split()]
assert len(got) == 3 and all(abs(a - b) <= 2e-6 for a, b in zip(got, want)), (got, want)
assert abs(sum(got) - 1) < 1e-5' "$1" "$2"
}

@test "nnc new makes each project with the sample model, io none, and a README" {
	for l in rust go cpp python; do
		run "$BIN/nnc" new "demo-$l" --project "$l"
		[ "$status" -eq 0 ]
		[[ "$output" == "created demo-$l: a $l project"* ]]
		grep -q 'io: "none";' "demo-$l/model.nnl"
		[ -f "demo-$l/README.md" ]
		ls "demo-$l/weights/"*.npy
	done
	[ -f demo-rust/build.rs ] && [ -f demo-rust/src/main.rs ]
	grep -q '^\[dependencies\]$' demo-rust/Cargo.toml
	! grep -A5 '^\[dependencies\]' demo-rust/Cargo.toml | grep -q '='
	[ -f demo-go/go.mod ] && grep -q 'import "C"' demo-go/main.go
	[ -f demo-cpp/Makefile ] && [ -f demo-cpp/main.cpp ]
	grep -q 'ctypes.CDLL' demo-python/main.py
	# the model compiles as a library, not as a program
	run "$BIN/nnc" compile -o x demo-cpp/model.nnl
	[ "$status" -eq 1 ]
	[[ "$output" == *'io "none" makes a library without main()'* ]]
}

@test "nnc new: refuses an unknown language (usage, 2) and an existing directory (1), leaving nothing" {
	# a usage error, exit 2 as nnc(1) says
	run "$BIN/nnc" new d --project java
	[ "$status" -eq 2 ]
	[[ "$output" == *"--project java: expected rust, go, cpp or python"* ]]
	[ ! -e d ]
	run "$BIN/nnc" new d
	[ "$status" -eq 2 ]
	[[ "$output" == *"--project (missing): expected rust, go, cpp or python"* ]]
	[ ! -e d ]
	mkdir d
	run "$BIN/nnc" new d --project go
	[ "$status" -eq 1 ]
	[[ "$output" == *"d: already exists"* ]]
	[ -z "$(ls -A d)" ]
	run "$BIN/nnc" new no/such/parent --project go
	[ "$status" -eq 1 ]
	[ "$(ls -A)" = d ]
	# a trailing slash names the same directory
	"$BIN/nnc" new e/ --project go
	[ -f e/main.go ] && [ "$(ls -A | tr '\n' ' ')" = "d e " ]
}

@test "the C++ project builds with g++ and prints NumPy's probabilities" {
	"$BIN/nnc" new demo-cpp --project cpp
	w=$(want demo-cpp/weights)
	cd demo-cpp
	make -s CXX=g++ NNC="$BIN/nnc"
	[ -f build/model.h ] && [ -f build/libsample.a ]
	check "$(./app)" "$w"
}

@test "the Python project loads the shared library with ctypes" {
	"$BIN/nnc" new demo-python --project python
	w=$(want demo-python/weights)
	sh demo-python/build.sh
	[ -f demo-python/build/libsample.so ]
	check "$(/usr/bin/python3 -S demo-python/main.py)" "$w"
}

@test "the Go project links the static library with cgo" {
	command -v go
	"$BIN/nnc" new demo-go --project go
	w=$(want demo-go/weights)
	cd demo-go
	sh build.sh
	check "$(./app)" "$w"
}

@test "the Rust project compiles the model from build.rs, no crates, offline" {
	"$BIN/nnc" new demo-rust --project rust
	w=$(want demo-rust/weights)
	cd demo-rust
	/usr/bin/cargo build --offline -q
	check "$(./target/debug/nnl-demo)" "$w"
	[ ! -d "$CARGO_HOME/registry" ]
}

@test "the sample's committed weights are make_weights.py's" {
	/usr/bin/python3 "$ROOT/templates/new/make_weights.py" w
	for f in "$ROOT"/templates/new/common/weights/*.npy; do
		cmp "$f" "w/$(basename "$f")"
	done
	[ "$(ls w | wc -l)" -eq 4 ]
}

@test "an installed nnc finds its templates in share/nnl; NNL_TEMPLATES overrides" {
	make -s -C "$ROOT" install DESTDIR="$T/inst" PREFIX=/usr > /dev/null
	[ -f "$T/inst/usr/share/nnl/templates/new/common/model.nnl" ]
	"$T/inst/usr/bin/nnc" new p --project python
	cmp p/main.py "$ROOT/templates/new/python/main.py"
	[ -x p/build.sh ]
	mkdir -p mine/common mine/cpp
	echo mine > mine/cpp/only.txt
	NNL_TEMPLATES="$T/mine" "$BIN/nnc" new q --project cpp
	[ "$(ls q)" = only.txt ]
}
