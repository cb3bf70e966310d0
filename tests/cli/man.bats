#!/usr/bin/env bats
# Every EXAMPLES block of every page runs; every SYNOPSIS matches the
# program's usage().

bats_require_minimum_version 1.5.0

@test "every man page example runs" {
	run bash "$BATS_TEST_DIRNAME/../man-examples.sh"
	echo "$output"
	[ "$status" -eq 0 ]
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
