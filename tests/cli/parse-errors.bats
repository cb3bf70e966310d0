#!/usr/bin/env bats
# Malformed .webnn and JSON inputs: each must exit 1 (not crash, not
# usage), say where (file:line:col, or the node and field), and leave no
# output file behind with -o.  The cases and their expected messages
# are in tests/data/malformed/cases.tsv, derived by hand.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	DATA="$BATS_TEST_DIRNAME/../data/malformed"
}

@test "at least 50 malformed inputs are in the corpus" {
	n=$(wc -l < "$DATA/cases.tsv")
	[ "$n" -ge 50 ]
}

@test "every malformed input fails cleanly with a located error" {
	fails=0
	dir="$BATS_TEST_TMPDIR/out"
	mkdir -p "$dir"
	while IFS="$(printf '\t')" read -r file expect; do
		out="$dir/out.json"
		run --separate-stderr "$BIN/nnl-parse" --strict -o "$out" "$DATA/$file"
		msg="$file: status $status; stderr: $stderr"
		if [ "$status" -ne 1 ]; then
			echo "wrong exit: $msg"; fails=$((fails + 1)); continue
		fi
		case "$stderr" in
		"nnl-parse: $DATA/$file"*) ;;
		*) echo "stderr does not start with prog: file: $msg"
		   fails=$((fails + 1)); continue ;;
		esac
		case "$stderr" in
		*"$expect"*) ;;
		*) echo "missing '$expect': $msg"; fails=$((fails + 1)) ;;
		esac
		if ls "$dir" | grep -q .; then
			echo "output left behind: $file"; ls "$dir"
			fails=$((fails + 1))
			rm -f "$dir"/*
		fi
	done < "$DATA/cases.tsv"
	[ "$fails" -eq 0 ]
}

@test "malformed input on standard input names <stdin>" {
	run --separate-stderr "$BIN/nnl-parse" < "$DATA/bad-dtype.webnn"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "nnl-parse: <stdin>:3:8: error:"* ]]
}

@test "syntax errors show the source line and a caret" {
	run --separate-stderr "$BIN/nnl-parse" "$DATA/bad-dtype.webnn"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"x: f31"* ]]
	[[ "$stderr" == *"^"* ]]
}
