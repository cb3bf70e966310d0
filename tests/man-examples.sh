#!/bin/bash
# man-examples: run every command of every EXAMPLES section of the
# section 1 pages, each block in a directory of its own beside a
# scratch copy of examples/ (with the resnet_head weights packed beside
# its graph) and the repository's tests/, and compile every C source a
# block writes there (tests/c-compiles.sh).
# Prints one line per block; exit 1 if any block fails.  The programs
# are those in $NNL_BIN (default: the checkout's bin/).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${NNL_BIN:-$top/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$top/examples" "$work/examples"
ln -s "$top/tests" "$work/tests"
ln -s "$top/pipelines" "$work/pipelines"
/usr/bin/python3 "$top/examples/resnet_head/make_weights.py" "$work/w"
"$bin/nnl-pack-weights" pack -o "$work/examples/resnet_head/resnet_head.weights" \
    "$work/w" || exit 1
PATH="$bin:$PATH"
export PATH
# under make check-asan, what nnc builds carries the sanitizers
# (NNC_CFLAGS): the C++ project of nnc new links it with them too
[ -n "${NNC_CFLAGS:-}" ] && export CXXFLAGS="-O2 -std=c++17 $NNC_CFLAGS"
fail=0 n=0 nc=0
for page in "$top"/man/man1/*.1; do
	awk '/^\.Sh EXAMPLES/ { f = 1; next } /^\.Sh / { f = 0 }
	    f && /^\.Bd -literal/ { b = 1; next }
	    f && /^\.Ed/ { b = 0; print "\036"; next }
	    f && b { gsub(/\\e/, "\\"); print }' "$page" > "$work/blocks"
	while IFS= read -r -d "$(printf '\036')" block 2>/dev/null ||
	    [ -n "${block:-}" ]; do
		[ -n "$(printf '%s' "$block" | tr -d ' \n')" ] || continue
		n=$((n + 1))
		# a directory of its own: no file an earlier block wrote
		# (a header) stands in for one this block should write
		mkdir "$work/b$n"
		for d in examples tests pipelines; do
			ln -s "$work/$d" "$work/b$n/$d"
		done
		touch "$work/stamp"
		if (cd "$work/b$n" && printf '%s\n' "$block" | sh -e &&
		    sh "$top/tests/c-compiles.sh" "$work/stamp") \
		    > "$work/out" 2>&1; then
			k=$(grep -c '^compile ' "$work/out")
			nc=$((nc + k))
			echo "ok - $(basename "$page"): $(printf '%s' "$block" |
			    sed '/^$/d' | head -n 1 | cut -c1-60)$([ "$k" -eq 0 ] ||
			    echo " ($k C compiled)")"
		else
			echo "not ok - $(basename "$page"):"
			printf '%s\n' "$block" | sed 's/^/#   /'
			sed 's/^/#   /' "$work/out" | head -n 10
			fail=1
		fi
		block=
	done < "$work/blocks"
done
# nnl(7): each pipeline of its Pipelines section runs on a model.webnn
# (resnet_head, its weights beside it) and a model.onnx (import_test),
# and the C it writes compiles.
mkdir "$work/n7"
cp "$work/examples/resnet_head/resnet_head.webnn" "$work/n7/model.webnn"
cp "$work/examples/resnet_head/resnet_head.weights" "$work/n7/model.weights"
cp "$work/examples/resnet_head/resnet_head.manifest.json" \
    "$work/n7/model.manifest.json"
cp "$work/examples/import_test/model.onnx" "$work/n7/model.onnx"
awk '/^\.Ss Pipelines/ { f = 1; next } /^\.S[sh] / { f = 0 }
    f && /^\.Bd -literal/ { b = 1; next }
    f && /^\.Ed/ { b = 0; print "\036"; next }
    f && b { gsub(/\\e/, "\\"); print }' "$top/man/man7/nnl.7" > "$work/blocks"
k7=0
while IFS= read -r -d "$(printf '\036')" block 2>/dev/null; do
	n=$((n + 1)) k7=$((k7 + 1))
	touch "$work/stamp"
	if (cd "$work/n7" && printf '%s\n' "$block" | sh -e &&
	    sh "$top/tests/c-compiles.sh" "$work/stamp") \
	    > "$work/out" 2>&1 && grep -q '^compile ' "$work/out"; then
		nc=$((nc + 1))
		echo "ok - nnl.7: $(printf '%s' "$block" | sed '/^$/d' |
		    head -n 1 | cut -c1-60) (1 C compiled)"
	else
		echo "not ok - nnl.7: a pipeline fails or writes no C:"
		printf '%s\n' "$block" | sed 's/^/#   /'
		sed 's/^/#   /' "$work/out" | head -n 10
		fail=1
	fi
done < "$work/blocks"
if [ "$k7" -ne 2 ]; then
	echo "not ok - nnl.7: $k7 pipelines in its Pipelines section, not 2"
	fail=1
fi
# nnl-graph(5): its .webnn example reads as its JSON example.
awk '/^\.Sh EXAMPLES/ { f = 1; next } /^\.Sh / { f = 0 }
    f && /^\.Bd -literal/ { b++; next } f && /^\.Ed/ { next }
    f && b == 1 { print > "'"$work"'/g.webnn" }
    f && b == 2 { gsub(/\\e$/, ""); printf "%s", $0 > "'"$work"'/g.json" }' \
    "$top/man/man5/nnl-graph.5"
n=$((n + 1))
if nnl-parse "$work/g.webnn" > "$work/p.json" && /usr/bin/python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(a != b)' "$work/p.json" "$work/g.json"; then
	echo "ok - nnl-graph.5: the .webnn example reads as the JSON example"
else
	echo "not ok - nnl-graph.5: the .webnn and JSON examples disagree"
	fail=1
fi
echo "# $n example blocks, $nc C sources compiled"
exit $fail
