#!/usr/bin/env bats
# Every EXAMPLES block of every page runs; every SYNOPSIS matches the
# program's usage().

bats_require_minimum_version 1.5.0

@test "every man page example runs" {
	run bash "$BATS_TEST_DIRNAME/../man-examples.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	# the C the examples write was compiled: nnc's --emit c, and
	# nnl-emit-c's with -o and on standard output, two of them in
	# nnl-emit-c(1), the pipelines of nnl-fuse(1) and
	# nnl-onnx-import(1), and the two of nnl(7)
	c='(1 C compiled)'
	[ "$(printf '%s\n' "$output" | grep -c "^ok - nnl-emit-c.1: .*$c")" \
	    -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -c "^ok - nnl.7: .*$c")" -eq 2 ]
	nc=$(printf '%s\n' "$output" |
	    sed -n 's/.*, \([0-9]*\) C sources compiled$/\1/p')
	[ "${nc:-0}" -ge 7 ]
}

@test "every program has a page whose SYNOPSIS names its options" {
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	MAN="$BATS_TEST_DIRNAME/../../man/man1"
	for p in "$BIN"/*; do
		name=$(basename "$p")
		[ "$name" = nnl-infer ] && continue
		[ -f "$MAN/$name.1" ] || { echo "no page for $name"; false; }
		usage=$("$p" --help 2>&1 || true)
		[[ "$usage" == *"usage: $name"* ]] || { echo "$name: $usage"; false; }
		# each -x flag of usage() appears in the page's SYNOPSIS
		syn=$(awk '/^\.Sh SYNOPSIS/{f=1;next} /^\.Sh /{f=0} f' "$MAN/$name.1")
		for flag in $(printf '%s\n' "$usage" | grep -o '\[-[a-zA-Z]*' | tr -d '[-' | fold -w1 | sort -u); do
			printf '%s\n' "$syn" | grep -Eq "Fl [a-zA-Z]*$flag" ||
			    { echo "$name: -$flag not in SYNOPSIS"; false; }
		done
	done
}

@test "nnl(7) lists every program, as written, in its list and SEE ALSO" {
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	PAGE="$BATS_TEST_DIRNAME/../../man/man7/nnl.7"
	n=0
	for p in "$BIN"/*; do
		name=$(basename "$p")
		# nnl-shape-infer's alias
		[ "$name" = nnl-infer ] && continue
		n=$((n + 1))
		awk '/^\.Ss Programs/ { f = 1 } /^\.Ss NNL models/ { f = 0 }
		    f' "$PAGE" | grep -qx ".It Xr $name 1" ||
		    { echo "$name: not in nnl(7)'s list of programs"; false; }
		sed -n '/^\.Sh SEE ALSO/,$p' "$PAGE" |
		    grep -q "^\.Xr $name 1" ||
		    { echo "$name: not in nnl(7)'s SEE ALSO"; false; }
	done
	[ "$n" -eq 13 ]
	# no program there is "not written yet"
	[ -z "$(grep -i 'not written' "$PAGE")" ]
}
