#!/bin/sh
# run-all: every suite (unit, golden, command line), with one closing
# line that counts them all: "check: N passed, M failed".  What each
# suite ran is counted against what it holds (the unit binaries named,
# the golden cases on disk, the @test lines of the bats files): a
# runner that dies (a non-zero exit with no "not ok" line) or reports
# fewer tests than its suite holds fails the run with a line that says
# so.  POSIX sh has no pipefail: each runner's status goes through a
# file, not through tee.  The command-line tests run two files at a
# time (bats --jobs 2) when GNU parallel is installed.
# Usage: run-all.sh UNIT-TEST-BINARY...
# NNL_SUITES, if set, names the suites to run, separated by spaces:
# unit, golden, cli (every file of tests/cli) or one file of tests/cli
# without .bats (shape-infer); tests/run-asan.sh reads "fuzz" in it
# too.  Unset: all of them.
set -u
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
all=${NNL_SUITES-unit golden cli fuzz}
# whether the suite $1 is one to run
want() {
	case " $all " in *" $1 "*) return 0 ;; esac
	return 1
}
# run SUITE COMMAND...: its output to the terminal and to SUITE.log,
# its status to SUITE.rc
run() {
	s=$1
	shift
	{ "$@" 2>&1; echo $? > "$dir/$s.rc"; } | tee "$dir/$s.log"
}
# ran SUITE HOLDS RAN [WHAT]: fail unless the suite exited 0, or
# exited non-zero with a "not ok" line of its own, and ran all HOLDS
# tests (or WHAT)
bad=0
ran() {
	rc=$(cat "$dir/$1.rc" 2>/dev/null || echo none)
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$dir/$1.log"; then
		echo "not ok - $1: the runner died (status $rc) after" \
		    "$3 of $2 ${4:-tests}"
		bad=$((bad + 1))
	elif [ "$3" -ne "$2" ]; then
		echo "not ok - $1: $3 of its $2 ${4:-tests} ran"
		bad=$((bad + 1))
	fi
}
# tests a TAP log reports: ok and not ok lines (bats --jobs keeps
# its plan, "1..N", at the top, where a dead bats may leave it alone)
tap() {
	grep -c -E '^(not )?ok ' "$1" || true
}
: > "$dir/unit.log"
if want unit; then
	run unit sh tests/run-unit.sh "$@"
	# each binary ends with its plan: the sum of the plans ran
	n=0
	for p in $(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$dir/unit.log"); do
		n=$((n + p))
	done
	ran unit "$n" "$(tap "$dir/unit.log")"
	# and every binary named printed one
	ran unit "$#" "$(grep -c '^1\.\.[0-9]' "$dir/unit.log" || true)" \
	    "binaries' plans"
fi
gp=0
: > "$dir/golden.log"
if want golden; then
	run golden sh tests/run-golden.sh
	gp=$(sed -n 's/^golden: \([0-9]*\) passed.*/\1/p' "$dir/golden.log")
	gf=$(sed -n 's/^golden: [0-9]* passed, \([0-9]*\) failed$/\1/p' \
	    "$dir/golden.log")
	ran golden "$(ls tests/golden/*/*.in.* | wc -l)" \
	    "$(( ${gp:-0} + ${gf:-0} ))"
fi
files=""
for f in tests/cli/*.bats; do
	b=$(basename "$f" .bats)
	if want cli || want "$b"; then
		files="$files $f"
	fi
done
: > "$dir/cli.log"
if [ -n "$files" ]; then
	jobs=""
	command -v parallel >/dev/null 2>&1 &&
	    jobs="--jobs 2 --no-parallelize-within-files"
	# shellcheck disable=SC2086
	run cli bats $jobs --formatter tap $files
	# shellcheck disable=SC2086
	holds=$(cat $files | grep -c '^[[:space:]]*@test ' || true)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$dir/cli.log" | head -n 1)
	[ "${plan:-0}" -ne "$holds" ] &&
	    echo "# cli: bats planned ${plan:-no} tests, the files hold $holds"
	ran cli "$holds" "$(tap "$dir/cli.log")"
fi
cat "$dir/unit.log" "$dir/cli.log" > "$dir/tap.log"
passed=$(( $(grep -c '^ok ' "$dir/tap.log" || true) + ${gp:-0} ))
failed=$(( $(grep -c '^not ok' "$dir/tap.log" || true) + \
    $(grep -c '^not ok' "$dir/golden.log" || true) + bad ))
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
