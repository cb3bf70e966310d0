#!/bin/sh
# run-all: every suite (unit, golden, command line), with one closing
# line that counts them all: "check: N passed, M failed".
# Usage: run-all.sh UNIT-TEST-BINARY...
set -u
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
sh tests/run-unit.sh "$@" 2>&1 | tee -a "$log" || status=1
grep -q '^not ok' "$log" && status=1
sh tests/run-golden.sh 2>&1 | tee -a "$log"
grep -q '^not ok' "$log" && status=1
bats --formatter tap tests/cli 2>&1 | tee -a "$log"
grep -q '^not ok' "$log" && status=1
gp=$(sed -n 's/^golden: \([0-9]*\) passed.*/\1/p' "$log")
passed=$(( $(grep -c '^ok ' "$log") + ${gp:-0} ))
failed=$(grep -c '^not ok' "$log")
# A suite that died without reporting counts as a failure too.
[ $status -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
