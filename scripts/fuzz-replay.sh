#!/bin/sh
# fuzz-replay: run the repro.sh of each finding directory scripts/fuzz.py
# kept, in a scratch copy, against the sanitizer build (NNL_BIN, default
# build/asan/bin), and say whether it still fails: a sanitizer report
# (under fuzz.py's memory limits; a report exits 86 from ASan, 87 from
# UBSan, whose GCC runtime writes no log file), a command that exits
# with a status fuzz.py did not allow, or a hang (60 s).
# Usage: fuzz-replay.sh FINDING-DIR...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
NNL_BIN=${NNL_BIN:-$top/build/asan/bin}
export NNL_BIN
lim="detect_leaks=0:hard_rss_limit_mb=2048:max_allocation_size_mb=2048"
lim="$lim:exitcode=86"
still=0
for d in "$@"; do
	[ -f "$d/repro.sh" ] || continue
	w=$(mktemp -d)
	cp -r "$d"/. "$w"
	mkdir "$w/.san"
	(cd "$w" &&
	    ASAN_OPTIONS="$lim:log_path=$w/.san/a" \
	    UBSAN_OPTIONS="halt_on_error=1:exitcode=87:log_path=$w/.san/u" \
	    timeout 60 sh repro.sh > /dev/null 2> "$w/.err")
	rc=$?
	why=$(ls "$w/.san" | head -n 1)
	[ -z "$why" ] && why=$(grep '^exit [0-9]*: ' "$w/.err" | head -n 1)
	[ -z "$why" ] && [ $rc -eq 124 ] && why="hang"
	if [ -n "$why" ]; then
		echo "still: $d ($why)"
		still=$((still + 1))
	else
		echo "gone: $d"
	fi
	rm -rf "$w"
done
echo "fuzz-replay: $still of $# still fail"
[ $still -eq 0 ]
