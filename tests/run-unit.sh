#!/bin/sh
# Run each unit-test binary; a binary that exits non-zero (a failed
# CHECK, or a crash) adds a "not ok" line of its own.
status=0
for t in "$@"; do
	echo "# $t"
	"$t"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "not ok - $t exited with status $rc"
		status=1
	fi
done
exit $status
