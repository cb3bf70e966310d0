#!/bin/sh
# run-golden: for every tests/golden/PASS/CASE.in.EXT, run bin/nnl-PASS
# ($NNL_BIN/nnl-PASS if set) on it (with the arguments in CASE.args,
# if present) and compare the output with CASE.out.* byte for byte.
# --update rewrites the .out files instead; review the diff before
# committing.  The checkout's path in outputs reads @ROOT@, so goldens
# do not depend on it.
set -u
cd "$(dirname "$0")/.."
update=0
[ "${1:-}" = --update ] && update=1
pass=0 fail=0
mkdir -p build/golden
root=$(pwd)
tdir=$(mktemp -d)	# a private directory: no name beside mktemp's
trap 'rm -rf "$tdir"' EXIT
tmp=$tdir/out
for in in tests/golden/*/*.in.*; do
	[ -e "$in" ] || continue
	dir=$(dirname "$in")
	prog=${NNL_BIN:-bin}/nnl-$(basename "$dir")
	case=${in%.in.*}
	args=""
	[ -f "$case.args" ] && args=$(cat "$case.args")
	out=$(ls "$case".out.* 2>/dev/null | head -n 1)
	[ -n "$out" ] || out=$case.out.json
	# shellcheck disable=SC2086
	if ! LC_ALL=C "$prog" $args "$in" >"$tmp.raw"; then
		echo "not ok - $case: $prog exited non-zero"
		fail=$((fail + 1))
		continue
	fi
	# paths written on standard output are absolute: name the checkout
	sed "s#$root/#@ROOT@/#g" "$tmp.raw" > "$tmp"
	rm -f "$tmp.raw"
	if [ $update = 1 ]; then
		cp "$tmp" "$out"
	fi
	if diff -u "$out" "$tmp" >/dev/null; then
		pass=$((pass + 1))
	else
		echo "not ok - $case"
		diff -u "$out" "$tmp" | head -n 40
		fail=$((fail + 1))
	fi
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
