#!/usr/bin/env bats
# nnl-parse on good input: the seed's example in both forms, exact round
# trips between .webnn and canonical JSON, options and exit codes.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	T="$BATS_TEST_TMPDIR"
	# the seed's two files alone: make packs weights beside the
	# checkout's copy, which the parser would then name
	EX="$T/resnet_head"
	mkdir -p "$EX"
	cp "$BATS_TEST_DIRNAME/../../examples/resnet_head/resnet_head.webnn" \
	    "$BATS_TEST_DIRNAME/../../examples/resnet_head/resnet_head.json" "$EX/"
}

# JSON equality with python, independent of our printer.
json_equal() {
	/usr/bin/python3 -c 'import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(0 if a == b else 1)' "$1" "$2"
}

@test "resnet_head.webnn parses to the seed's JSON plus its name" {
	run --separate-stderr "$BIN/nnl-parse" "$EX/resnet_head.webnn"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$T/parsed.json"
	/usr/bin/python3 -c 'import json, sys
got = json.load(open(sys.argv[1])); seed = json.load(open(sys.argv[2]))
assert got.pop("name") == "resnet_head", "name"
assert got == seed, (got, seed)' "$T/parsed.json" "$EX/resnet_head.json"
}

@test "the seed's JSON parses to itself, canonically printed" {
	run --separate-stderr "$BIN/nnl-parse" "$EX/resnet_head.json"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$T/c.json"
	json_equal "$T/c.json" "$EX/resnet_head.json"
}

@test ".webnn -> JSON -> .webnn -> JSON is byte-identical at both JSON steps" {
	"$BIN/nnl-parse" "$EX/resnet_head.webnn" > "$T/1.json"
	"$BIN/nnl-parse" -t webnn "$T/1.json" > "$T/2.webnn"
	"$BIN/nnl-parse" "$T/2.webnn" > "$T/3.json"
	cmp "$T/1.json" "$T/3.json"
	"$BIN/nnl-parse" -t webnn "$T/3.json" > "$T/4.webnn"
	cmp "$T/2.webnn" "$T/4.webnn"
}

@test "canonical JSON reads back byte for byte (load | save)" {
	"$BIN/nnl-parse" "$EX/resnet_head.json" > "$T/a.json"
	"$BIN/nnl-parse" < "$T/a.json" > "$T/b.json"
	cmp "$T/a.json" "$T/b.json"
}

@test "every golden graph reads back byte for byte" {
	n=0
	root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	(cd "$root" && sh tests/run-golden.sh > /dev/null)	# their weights
	for f in "$BATS_TEST_DIRNAME"/../golden/*/*.out.json; do
		[ -e "$f" ] || continue
		# goldens name the checkout @ROOT@ (tests/run-golden.sh)
		sed "s#@ROOT@/#$root/#g" "$f" > "$T/in.json"
		"$BIN/nnl-parse" < "$T/in.json" | sed "s#$root/#@ROOT@/#g" > "$T/x.json"
		cmp "$f" "$T/x.json"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

@test "the canonical .webnn form reads back byte for byte" {
	"$BIN/nnl-parse" -t webnn "$EX/resnet_head.webnn" > "$T/a.webnn"
	"$BIN/nnl-parse" -t webnn "$T/a.webnn" > "$T/b.webnn"
	cmp "$T/a.webnn" "$T/b.webnn"
}

@test "-o writes the file and nothing on standard output" {
	run --separate-stderr "$BIN/nnl-parse" -o "$T/o.json" "$EX/resnet_head.webnn"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	"$BIN/nnl-parse" "$EX/resnet_head.webnn" > "$T/p.json"
	cmp "$T/o.json" "$T/p.json"
}

@test "usage errors exit 2 with the usage line" {
	run --separate-stderr "$BIN/nnl-parse" -t yaml "$EX/resnet_head.webnn"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "usage: nnl-parse "* ]]
	run --separate-stderr "$BIN/nnl-parse" a b
	[ "$status" -eq 2 ]
	run --separate-stderr "$BIN/nnl-parse" -w only.weights x.webnn
	[ "$status" -eq 2 ]
}

@test "a missing file is an I/O error naming it" {
	run --separate-stderr "$BIN/nnl-parse" "$T/nope.webnn"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "nnl-parse: error: $T/nope.webnn: No such file or directory" ]]
}

@test "a failed write to a full device is an error" {
	[ -w /dev/full ] || skip "no /dev/full"
	run --separate-stderr sh -c "'$BIN/nnl-parse' '$EX/resnet_head.webnn' > /dev/full"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"write error"* ]]
}
