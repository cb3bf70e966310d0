#!/usr/bin/env bats
# Every output through one safe writer (nnl(7) FILES): nnc's artefacts
# keep a symbolic link and its target's place, a FIFO or a device named
# by -o is written in place and kept; --save-temps never writes over an
# input; no fixed temporary name; nnc new follows the umask.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
	cp -r "$ROOT/examples/binary_classifier/weights" \
	    "$ROOT/examples/binary_classifier/binary_classifier.nnl" .
	M=binary_classifier.nnl
}

# The bytes of an archive, an ELF file's or anything's first $2, in hex.
magic() {
	od -An -tx1 -N"$2" -- "$1" | tr -d ' \n'
}

@test "--emit lib to a symbolic link keeps the link and fills its target" {
	printf 'old' > real.a
	ln -s real.a link.a
	run --separate-stderr "$BIN/nnc" compile --emit lib -o link.a "$M"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -L link.a ]
	[ "$(readlink link.a)" = real.a ]
	# "!<arch>\n"
	[ "$(magic real.a 8)" = 213c617263683e0a ]
}

@test "--emit lib to a FIFO writes the archive into it and keeps it" {
	mkfifo f.a
	cat f.a > got.a &
	reader=$!
	run --separate-stderr timeout 60 "$BIN/nnc" compile --emit lib \
	    -o f.a "$M"
	echo "$stderr"
	# a reader left waiting on a FIFO nnc removed is not waited for
	[ -p f.a ] || kill "$reader"
	wait "$reader" || true
	[ "$status" -eq 0 ]
	[ -p f.a ]
	[ "$(magic got.a 8)" = 213c617263683e0a ]
}

@test "--emit lib to a character device writes into it, never removes it" {
	[ "$(id -u)" -eq 0 ] || skip "mknod needs root"
	# a null device of our own: the same kind of file as /dev/null,
	# which the old nnc removed
	mknod null c 1 3 2>/dev/null || skip "mknod refused here"
	run --separate-stderr "$BIN/nnc" compile --emit lib -o null "$M"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -c null ]
	[ "$(stat -c %t:%T null)" = 1:3 ]
	[ ! -e libbinary_classifier.a ]
}

@test "--emit lib -o /dev/null as root leaves /dev/null a device" {
	[ "$(id -u)" -eq 0 ] || skip "only root may remove /dev/null"
	run --separate-stderr "$BIN/nnc" compile --emit lib -o /dev/null "$M"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -c /dev/null ]
	[ "$(stat -c %t:%T /dev/null)" = 1:3 ]
}

@test "exe, obj and shared keep a symbolic link to their output" {
	for k in exe obj shared; do
		rm -f "real.$k" "link.$k"
		printf 'old' > "real.$k"
		chmod 640 "real.$k"
		ln -s "real.$k" "link.$k"
		run --separate-stderr "$BIN/nnc" compile --emit "$k" \
		    -o "link.$k" "$M"
		echo "$k: $stderr"
		[ "$status" -eq 0 ]
		[ -L "link.$k" ]
		[ "$(magic "real.$k" 4)" = 7f454c46 ]
	done
	# the replaced file's mode, execute bits where it had read bits
	# for a program and a shared library
	[ "$(stat -c %a real.obj)" = 640 ]
	[ "$(stat -c %a real.exe)" = 750 ]
	[ "$(stat -c %a real.shared)" = 750 ]
}

@test "a new program gets 0777 less the umask" {
	umask 027
	run --separate-stderr "$BIN/nnc" compile -o prog "$M"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a prog)" = 750 ]
}

@test "--emit c to a symbolic link keeps it; source, header and weights" {
	mkdir out
	printf 'old' > out/real.c
	ln -s out/real.c gen.c
	run --separate-stderr "$BIN/nnc" compile --emit c -o gen.c "$M"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -L gen.c ]
	grep -q '#include "binary_classifier.h"' out/real.c
	[ -f binary_classifier.h ]
	[ -f gen.c.weights ]
}

# Tensors for nnl-pack-weights: directory $1, $2 elements in "a".
tensors() {
	mkdir "$1"
	/usr/bin/python3 -c 'import numpy as np, sys
np.save(sys.argv[1] + "/a.npy", np.ones(int(sys.argv[2]), np.float32))' \
	    "$1" "$2"
}

@test "pack-weights manifest uses no temporary name anyone could foresee" {
	mkdir w && cd w
	tensors npys 6
	# the name the old nnl-pack-weights packed into and then removed
	printf 'mine\n' > m.json.weights.tmp
	{ ls -A; echo m.json; } | sort > "$T/want"
	run --separate-stderr "$BIN/nnl-pack-weights" manifest -m m.json npys
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(cat m.json.weights.tmp)" = mine ]
	# nothing but the manifest is new in the directory
	ls -A | sort | diff "$T/want" -
}

@test "two pack-weights manifest runs at once in one directory both succeed" {
	mkdir w && cd w
	tensors s 6
	tensors l 600
	"$BIN/nnl-pack-weights" pack -o "$T/s.weights" -m "$T/s.want" s
	"$BIN/nnl-pack-weights" pack -o "$T/l.weights" -m "$T/l.want" l
	for i in $(seq 20); do
		"$BIN/nnl-pack-weights" manifest -m out.json s 2>"$T/err.s" &
		a=$!
		"$BIN/nnl-pack-weights" manifest -m out.json l 2>"$T/err.l" &
		b=$!
		wait "$a" || { cat "$T/err.s"; false; }
		wait "$b" || { cat "$T/err.l"; false; }
		cmp -s out.json "$T/s.want" || cmp -s out.json "$T/l.want"
	done
	# and nothing left beside the manifest
	[ "$(ls -A | tr '\n' ' ')" = "l out.json s " ]
}

@test "pack-weights pack and manifest never write over a source they read" {
	mkdir w && cd w
	tensors npys 3
	first=$(ls npys | head -1)
	sha256sum npys/* > "$T/sums"
	ln -s "npys/$first" link.npy
	for args in "manifest -m npys/$first" "pack -o npys/$first" \
	    "pack -o x.weights -m npys/$first" "manifest -m link.npy"; do
		run --separate-stderr "$BIN/nnl-pack-weights" $args npys
		echo "$args: $status $stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"an input is never an output"* ]]
		sha256sum -c --quiet "$T/sums"
		[ ! -e x.weights ]
	done
	# a source named as a file, not through its directory
	run --separate-stderr "$BIN/nnl-pack-weights" manifest \
	    -m "npys/$first" "npys/$first"
	[ "$status" -eq 1 ]
	sha256sum -c --quiet "$T/sums"
}

# "MODE PATH" for every file and directory under $1, sorted.
modes() {
	(cd "$1" && find . -mindepth 0 -printf '%m %y %p\n' | sort -k3)
}

@test "nnc new follows the umask: 077 gives 0600 and 0700, 022 0644 and 0755" {
	for u in 077 022; do
		(umask "$u" && "$BIN/nnc" new "p$u" --project python)
		modes "p$u" > "m$u"
		cat "m$u"
		# a script (build.sh) executable, every other file not
		grep -q '^[0-7]* f ./build.sh$' "m$u"
	done
	# every file and directory: exactly what 0666/0777 less the
	# umask gives, computed here from the kind of each entry
	while read -r m y p; do
		case $y:$p in
		d:*) want=700 ;;
		f:./build.sh) want=700 ;;
		f:*) want=600 ;;
		esac
		[ "$m" = "$want" ] || { echo "077: $p is $m, want $want"; false; }
	done < m077
	while read -r m y p; do
		case $y:$p in
		d:*) want=755 ;;
		f:./build.sh) want=755 ;;
		f:*) want=644 ;;
		esac
		[ "$m" = "$want" ] || { echo "022: $p is $m, want $want"; false; }
	done < m022
}

# The files under the current directory with their checksums.
snapshot() {
	find . -type f ! -name 'separate-stderr-*' ! -name before -print0 |
	    sort -z |
	    xargs -0 sha256sum
}

@test "--save-temps refuses to write its graph over an input model.json here" {
	"$BIN/nnl-parse" -w model.weights -m model.manifest.json "$M" > model.json
	snapshot > "$T/before"
	run --separate-stderr "$BIN/nnc" compile --save-temps --emit c \
	    -o out.c model.json
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"model.json: --save-temps would write over the input model.json"* ]]
	# the input byte for byte, and nothing written
	snapshot | diff "$T/before" -
}

@test "--save-temps compares files, not names: a hard link to the model is found" {
	mkdir g
	"$BIN/nnl-parse" -w g/w.weights -m g/w.manifest.json -o g/model.json "$M"
	ln g/model.json model.json
	snapshot > "$T/before"
	run --separate-stderr "$BIN/nnc" compile --save-temps --emit lib \
	    g/model.json
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"model.json: --save-temps would write over the input g/model.json"* ]]
	snapshot | diff "$T/before" -
	# from another directory it runs, and leaves the inputs as they were
	mkdir o && cd o
	"$BIN/nnc" compile --save-temps --emit lib ../g/model.json
	[ -f model.json ] && [ -f libmodel.a ]
	cd ..
	sha256sum g/model.json g/w.manifest.json g/w.weights |
	    diff <(grep -e ' ./g/model.json$' -e ' ./g/w.weights$' \
	    -e ' ./g/w.manifest.json$' "$T/before" | sed 's| \./| |') -
}

@test "--save-temps never writes over the --passes file or the weights a graph names" {
	# the graph after its first stage would be binary_classifier.1.nnl-parse.json
	printf 'nnl-reorder\nnnl-shape-infer\nnnl-plan-memory\n' \
	    > binary_classifier.1.nnl-parse.json
	snapshot > "$T/before"
	run --separate-stderr "$BIN/nnc" compile --save-temps \
	    --passes binary_classifier.1.nnl-parse.json --emit obj "$M"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"binary_classifier.1.nnl-parse.json: --save-temps would write over the input binary_classifier.1.nnl-parse.json"* ]]
	snapshot | diff "$T/before" -
	# a graph whose weights file is the name the kept weights take
	rm binary_classifier.1.nnl-parse.json
	mkdir g
	"$BIN/nnl-parse" -w m.weights -m m.manifest.json "$M" > g/m.json
	sed -i 's|"file": "[^"]*"|"file": "../m.weights"|; s|"manifest": "[^"]*"|"manifest": "../m.manifest.json"|' g/m.json
	snapshot > "$T/before"
	run --separate-stderr "$BIN/nnc" compile --save-temps --emit c \
	    -o m.c g/m.json
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"m.weights: --save-temps would write over the input g/../m.weights"* ]]
	snapshot | diff "$T/before" -
}

@test "-o naming the model, or nnc test's arrays, is refused" {
	cp "$M" keep.nnl
	snapshot > "$T/before"
	run --separate-stderr "$BIN/nnc" compile -o keep.nnl keep.nnl
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"keep.nnl: -o would write over the input keep.nnl"* ]]
	snapshot | diff "$T/before" -
	# nnc test --save-temps: its input array where the weights beside
	# the kept C source would go
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.zeros((1, 4), np.float32))'
	mv x.npy binary_classifier.c.weights
	cp binary_classifier.c.weights want.npy
	snapshot > "$T/before"
	run --separate-stderr "$BIN/nnc" test --save-temps \
	    --input binary_classifier.c.weights --expected want.npy "$M"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"binary_classifier.c.weights: --save-temps would write over the input binary_classifier.c.weights"* ]]
	snapshot | diff "$T/before" -
}
