#!/bin/sh
# dead-runner: tests/run-all.sh fails when a runner dies or runs fewer
# tests than its suite holds.  A bats that exits 127 (not installed),
# one that prints its plan and is killed midway, and one that stops
# early with status 0 each make the run exit non-zero and say why; a
# unit binary that exits 0 without its plan does too.  The real bats
# on one file passes, counting the file's @test lines.
set -u
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
suite=reorder
holds=$(grep -c '^@test ' tests/cli/$suite.bats)
# expect WHAT MESSAGE FAKE-BATS-BODY: run-all.sh with a bats on PATH
# whose body is FAKE-BATS-BODY must exit non-zero printing MESSAGE
expect() {
	mkdir -p "$t/$1"
	printf '#!/bin/sh\n%s\n' "$3" > "$t/$1/bats"
	chmod +x "$t/$1/bats"
	PATH="$t/$1:$PATH" NNL_SUITES=$suite sh tests/run-all.sh \
	    > "$t/$1.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] || ! grep -qF "$2" "$t/$1.out"; then
		echo "not ok - $1: status $rc, expected non-zero and \"$2\""
		sed 's/^/#   /' "$t/$1.out"
		fail=1
	else
		echo "ok - $1: $2"
	fi
}
expect bats-127 "cli: the runner died (status 127) after 0 of $holds" \
    'echo "bats: not found" >&2; exit 127'
expect bats-killed "cli: the runner died (status 137) after 2 of $holds" \
    'echo "1..'"$holds"'"; echo "ok 1 a"; echo "ok 2 b"; kill -9 $$'
expect bats-short "cli: 1 of its $holds tests ran" \
    'echo "1..1"; echo "ok 1 a"; exit 0'
# a unit binary that ends without its plan
printf '#!/bin/sh\necho "ok 1 - a"\n' > "$t/test_noplan"
chmod +x "$t/test_noplan"
if NNL_SUITES=unit sh tests/run-all.sh "$t/test_noplan" > "$t/unit.out" \
    2>&1 || ! grep -q "unit: 0 of its 1 binaries' plans ran" \
    "$t/unit.out"; then
	echo "not ok - a unit binary without its plan passed"
	sed 's/^/#   /' "$t/unit.out"
	fail=1
else
	echo "ok - a unit binary without its plan fails the run"
fi
# the real bats: every test of the file, and a zero exit
if ! NNL_SUITES=$suite sh tests/run-all.sh > "$t/real.out" 2>&1 ||
    ! grep -qx "check: $holds passed, 0 failed" "$t/real.out"; then
	echo "not ok - $suite.bats under the real bats"
	sed 's/^/#   /' "$t/real.out"
	fail=1
else
	echo "ok - $suite.bats: check: $holds passed, 0 failed"
fi
exit $fail
