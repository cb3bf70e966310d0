#!/bin/sh
# planted-sanitizer: a sanitizer report fails tests/run-asan.sh even
# where the test expected the program to fail.  A copy of
# passes/shape-infer.c gets a fault planted with sed on its error path
# (the one a refused graph takes, where shape-infer.bats expects status
# 1): a signed overflow for UBSan, then a read past a heap block for
# ASan.  Each copy is built against the sanitizer library and run
# through run-asan.sh on shape-infer.bats, which must exit non-zero and
# name the report; the copy as it is must pass the same run.  Also a
# planted program whose status and standard error are both thrown away
# still leaves its UBSan report in a log (tests/harness/ubsan_log.c).
# Usage: planted-sanitizer.sh DIR   (DIR: build/asan, with libnnl.a and
# ubsan_log.o; the environment gives CC, SANFLAGS and LDLIBS, as make
# check-harness does)
set -u
cd "$(dirname "$0")/../.."
asan=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
bad() {
	echo "not ok - $1"
	[ -f "${2:-}" ] && sed 's/^/#   /' "$2" | tail -n 30
	fail=1
}
# build NAME PLANT: the copy of shape-infer.c with PLANT as the first
# statement of its error path, built into $t/NAME/bin/nnl-shape-infer,
# the other programs linked from bin/
build() {
	mkdir -p "$t/$1/bin"
	ln -s "$asan/ubsan_log.o" "$t/$1/ubsan_log.o"
	for p in bin/*; do
		ln -s "$(pwd)/$p" "$t/$1/bin/$(basename "$p")"
	done
	rm "$t/$1/bin/nnl-shape-infer"
	e='\tif (shape_infer(g) != 0 || graph_save(g, out) != 0) {'
	sed "s/^\\($e\\)\$/\\1\\n\\t\\t$2/" passes/shape-infer.c \
	    > "$t/$1/shape-infer.c"
	if [ -n "$2" ] && cmp -s passes/shape-infer.c "$t/$1/shape-infer.c"
	then
		bad "$1: not planted: did passes/shape-infer.c change?"
		return 1
	fi
	# the library's folders, as the Makefile's INC names them
	inc=$(for d in common/*/; do printf ' -I%s' "${d%/}"; done)
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -O1 -g $SANFLAGS $inc \
	    $(pkg-config --cflags libcjson libzip 2>/dev/null) \
	    -o "$t/$1/bin/nnl-shape-infer" "$t/$1/shape-infer.c" \
	    "$asan/libnnl.a" "$asan/ubsan_log.o" $LDLIBS || {
		bad "$1: the planted copy does not build"
		return 1
	}
}
# runs NAME: run-asan.sh on shape-infer.bats with $t/NAME/bin
runs() {
	NNL_SUITES=shape-infer sh tests/run-asan.sh "$t/$1" > "$t/$1.out" 2>&1
}
# (volatile, so that the compiler neither drops the sum nor knows the
# block's size, which UBSan's object-size check would report first)
ubsan='{ volatile int big = __INT_MAX__, sum = big + argc; (void)sum; }'
asanrd='{ char *volatile p = malloc(4); volatile char c = p[argc + 4];'
asanrd="$asanrd (void)c; free(p); }"
# as it is: the run passes
if build clean ""; then
	if runs clean && grep -qx 'check-asan: 0 sanitizer reports' \
	    "$t/clean.out"; then
		echo "ok - shape-infer.bats passes with shape-infer as it is"
	else
		bad "the run fails with shape-infer as it is" "$t/clean.out"
	fi
fi
# a signed overflow: UBSan's report is in a log and the run fails
if build ubsan "$ubsan"; then
	mkdir "$t/logs"
	UBSAN_OPTIONS="halt_on_error=1:exitcode=87:log_path=$t/logs/ubsan" \
	    ASAN_OPTIONS="detect_leaks=0:exitcode=86:log_path=$t/logs/asan" \
	    "$t/ubsan/bin/nnl-shape-infer" \
	    tests/data/shape-invalid/nn-averagePool2d-window-zero.json \
	    > /dev/null 2>&1 || true
	if grep -q 'runtime error (signed-integer-overflow)' \
	    "$t"/logs/ubsan.nnl-shape-infer.* 2>/dev/null; then
		echo "ok - a report thrown away with stderr is in the log"
	else
		bad "no UBSan log from a refused graph"
	fi
	if runs ubsan; then
		bad "the run passes with a signed overflow planted" \
		    "$t/ubsan.out"
	elif ! grep -q '^not ok - sanitizer report ubsan\.nnl-shape-infer\.' \
	    "$t/ubsan.out" || ! grep -q 'signed-integer-overflow' \
	    "$t/ubsan.out"; then
		bad "the run fails without naming the UBSan report" \
		    "$t/ubsan.out"
	else
		echo "ok - a planted signed overflow fails the run:" \
		    "$(grep -c '^not ok - sanitizer report' "$t/ubsan.out")" \
		    "UBSan reports"
	fi
fi
# a read past a heap block: ASan's report fails the run
if build asan "$asanrd"; then
	if runs asan; then
		bad "the run passes with a heap overflow planted" "$t/asan.out"
	elif ! grep -q '^not ok - sanitizer report asan\.nnl-shape-infer\.' \
	    "$t/asan.out" || ! grep -q 'heap-buffer-overflow' \
	    "$t/asan.out"; then
		bad "the run fails without naming the ASan report" \
		    "$t/asan.out"
	else
		echo "ok - a planted heap overflow fails the run:" \
		    "$(grep -c '^not ok - sanitizer report' "$t/asan.out")" \
		    "ASan reports"
	fi
fi
exit $fail
