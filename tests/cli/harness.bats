#!/usr/bin/env bats
# The test harness itself: make check-asan runs these same files
# against the sanitizer build by setting NNL_BIN, so every file and
# helper must take its programs from there, never from bin/ alone.

setup() {
	ROOT="$BATS_TEST_DIRNAME/../.."
}

@test "every test file and helper that names bin/ honours NNL_BIN" {
	cd "$ROOT"
	# files that name the checkout's bin directory ...
	run grep -lE '(\.\./\.\./bin|ROOT/bin|top/bin|"bin"\)?)' \
	    tests/cli/*.bats tests/*.sh tests/*/*.py tests/*/*/*.py \
	    examples/*.py
	# ... other than the generators of committed data, run by hand
	bad=""
	for f in $output; do
		case $f in tests/fuse/make_goldens.py|tests/onnx/conformance.py|\
		    tests/cli/harness.bats) continue ;; esac
		grep -q NNL_BIN "$f" || bad="$bad $f"
	done
	echo "without NNL_BIN:$bad"
	[ -z "$bad" ]
}

@test "the check finds a file that ignores NNL_BIN" {
	d="$BATS_TEST_TMPDIR"
	printf 'setup() {\n\tBIN="$BATS_TEST_DIRNAME/../../bin"\n}\n' \
	    > "$d/x.bats"
	run grep -lE '(\.\./\.\./bin|ROOT/bin|top/bin|"bin"\)?)' "$d/x.bats"
	[ "$output" = "$d/x.bats" ]
	! grep -q NNL_BIN "$d/x.bats"
}
