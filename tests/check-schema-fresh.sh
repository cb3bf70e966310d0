#!/bin/sh
# check-schema-fresh: are the committed schemas what scripts/gen-schema.py
# writes from the tables in common/ now?  Regenerates them into a
# temporary directory and compares; a difference is shown as a diff and
# means: run scripts/gen-schema.py and commit its output.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$top/scripts/gen-schema.py" "$tmp" || exit 1
status=0
for f in webnn-graph.schema.json weights-manifest.schema.json; do
	if ! diff -u "$top/schema/$f" "$tmp/$f"; then
		echo "check-schema-fresh: schema/$f is stale;" \
		    "run scripts/gen-schema.py" >&2
		status=1
	fi
done
exit $status
