#!/usr/bin/env bats
# The op cases against faults planted in the kernels (tests/ops/mutate.py):
# each of its mutants must fail a case; a mutant that changes nothing
# must be reported as surviving, and one whose text is gone must stop
# the script, so that neither a weak suite nor a stale list passes.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	M="$BATS_TEST_DIRNAME/../ops/mutate.py"
	# mutants are built from the plain build's objects (make all);
	# a sanitizer run (NNL_BIN set) has no such objects to reuse
	[ -z "${NNL_BIN:-}" ] ||
	    skip "mutants are built against the plain build (make check)"
}

@test "every planted kernel fault fails an op case" {
	run /usr/bin/python3 "$M"
	echo "$output" | grep -v '^ok'
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok - unmutated: "* ]]
	[[ "$output" =~ mutants:\ ([0-9]+)\ killed,\ 0\ survived ]]
	[ "${BASH_REMATCH[1]}" -ge 20 ]
}

@test "a mutant that changes nothing survives, and fails the run" {
	# notEqual as not-equal: the same function, so no case can fail
	run /usr/bin/python3 "$M" --extra '{"name": "equivalent",
	    "path": "common/rt/elementwise/ew.c", "old": "case NNL_NE: return a != b;",
	    "new": "case NNL_NE: return !(a == b);",
	    "cases": ["notEqual-float"], "modes": ["run"]}' equivalent
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not ok - SURVIVED common/rt/elementwise/ew.c: equivalent (run)"* ]]
	[[ "$output" == *"mutants: 0 killed, 1 survived"* ]]
}

@test "a mutant whose text is not in its file stops the run" {
	run /usr/bin/python3 "$M" --extra '{"name": "stale",
	    "path": "common/rt/elementwise/ew.c", "old": "no such text",
	    "new": "x", "cases": ["add-broadcast"], "modes": ["run"]}' stale
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"mutant 'stale': its text appears 0 times"* ]]
}
