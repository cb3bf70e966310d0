#!/bin/sh
# Run each unit-test binary; fail if any fails.
status=0
for t in "$@"; do
	echo "# $t"
	"$t" || status=1
done
exit $status
