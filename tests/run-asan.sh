#!/bin/sh
# run-asan: every suite of tests/run-all.sh against the sanitizer build
# (make asan), with the C that tests generate and run, and the programs
# nnc compiles, built with the same sanitizers (NNL_TEST_CFLAGS, and
# NNC_CFLAGS, which nnc appends to its C compiler's flags).  A report
# exits with a status of its own, 86 from ASan, 87 from UBSan, never a
# refusal's 1, and goes to a log file too: ASan's log_path, and for
# UBSan, which GCC's combined runtime prints on standard error whatever
# log_path says, the hook tests/harness/ubsan_log.c linked into every
# program, which honours it.  So a report fails the run even from a
# program whose failure a test expected or whose stderr it discarded;
# each is printed at the end.
# Then six seeded inputs of each scripts/fuzz.py target, all clean.
# Usage: run-asan.sh DIR UNIT-TEST-BINARY...   (DIR: build/asan)
# NNL_SUITES restricts the run as in tests/run-all.sh; "fuzz" in it
# names the fuzz targets' inputs.
set -u
cd "$(dirname "$0")/.."
NNL_BIN=$(cd "$1/bin" && pwd) || exit 1
hook=$(cd "$1" && pwd)/ubsan_log.o
[ -f "$hook" ] || { echo "run-asan: no $hook: run make asan" >&2; exit 1; }
shift
mkdir -p build/tests    # the unit tests' scratch files
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# float-cast-overflow by name, as in the Makefile's SANFLAGS
rec=undefined,float-cast-overflow
NNL_TEST_CFLAGS="-fsanitize=address,$rec -fno-sanitize-recover=$rec"
# the hook where a program is linked; ignored by cc -c
NNL_TEST_CFLAGS="$NNL_TEST_CFLAGS -Wl,$hook"
NNC_CFLAGS=$NNL_TEST_CFLAGS
# Leaks are not checked: every program is a short-lived process whose
# error paths exit with their allocations live by design (die()), and
# a leak report changes the exit status of a run that succeeded.
# Memory errors and undefined behaviour stop at the first report.
o="halt_on_error=1:log_exe_name=1"
ASAN_OPTIONS="$o:detect_leaks=0:exitcode=86:log_path=$logs/asan"
UBSAN_OPTIONS="$o:print_stacktrace=1:exitcode=87:log_path=$logs/ubsan"
export NNL_BIN NNL_TEST_CFLAGS NNC_CFLAGS ASAN_OPTIONS UBSAN_OPTIONS
sh tests/run-all.sh "$@"
status=$?
# a few seeded inputs of every fuzz target: none may be a finding, and
# half of them must reach the target's back ends (-r): each prints how
# many inputs reached each step of its pipeline
case " ${NNL_SUITES-fuzz} " in *" fuzz "*)
for t in json webnn nnl onnx npy weights emitc emitjs run nnc dot report \
    manifest wasm scaffold; do
	if /usr/bin/python3 scripts/fuzz.py -b "$NNL_BIN" -f "$logs/fuzz" \
	    -n 6 -s 1 -r 0.5 "$t" > "$logs/fuzz.out" 2>&1; then
		echo "ok - fuzz.py $t: 6 inputs, no finding, back ends reached"
		sed -n 's/^fuzz: /# /p' "$logs/fuzz.out"
	else
		echo "not ok - fuzz.py $t: 6 inputs"
		grep -v '^{' "$logs/fuzz.out" | sed 's/^/#   /' | head -n 20
		status=1
	fi
done
;; esac
rm -rf "$logs/fuzz" "$logs/fuzz.out"
n=0
for f in "$logs"/*; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	echo "not ok - sanitizer report $(basename "$f")"
	sed 's/^/#   /' "$f" | head -n 40
done
echo "check-asan: $n sanitizer reports"
[ $status -eq 0 ] && [ $n -eq 0 ]
