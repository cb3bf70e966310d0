#!/usr/bin/env bats
# nnl-emit-dot: the DOT it writes renders with Graphviz (dot -Tsvg), one
# drawing per node, input, constant and output; hostile names come out
# as the text they are; bad input leaves no file.  The DOT text itself
# is checked by the goldens (tests/golden/emit-dot).

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	G="$ROOT/tests/golden/emit-dot"
	cd "$BATS_TEST_TMPDIR"
}

# the drawings of each SVG class, and the graph's counts of each kind
counts() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
svg = ET.parse(sys.argv[2])
cls = {}
for e in svg.iter("{http://www.w3.org/2000/svg}g"):
    c = e.get("class", "")
    cls[c] = cls.get(c, 0) + 1
g = json.load(open(sys.argv[1]))
print(cls.get("node op", 0), cls.get("node input", 0),
      cls.get("node const", 0), cls.get("node output", 0),
      cls.get("cluster", 0), "|", len(g["nodes"]), len(g["inputs"]),
      len(g.get("consts", {})), len(g["outputs"]))
PY
}

@test "every golden graph renders, one drawing per node, input, constant and output" {
	n=0
	for f in "$G"/*.in.json; do
		"$BIN/nnl-emit-dot" "$f" > g.dot
		dot -Tsvg -o g.svg g.dot
		run counts "$f" g.svg
		echo "$f: $output"
		set -- $output
		[ "$1" = "$7" ] && [ "$2" = "$8" ] && [ "$3" = "$9" ] &&
		    [ "$4" = "${10}" ]
		n=$((n + 1))
	done
	[ "$n" -ge 6 ]
}

@test "partitions are clusters: CPU round 0, WebNN partitions 0 and 1" {
	"$BIN/nnl-emit-dot" "$G/partitions.in.json" | dot -Tsvg > p.svg
	run counts "$G/partitions.in.json" p.svg
	[ "$output" = "6 2 0 1 3 | 6 2 0 1" ]
	grep -q '>CPU, round 0<' p.svg
	grep -q '>WebNN partition 1<' p.svg
}

@test "mnist after the middle passes: 7 boxes, the relu folded into fc1, types on the edges" {
	"$BIN/nnl-parse" -w m.weights -m m.manifest.json "$ROOT/examples/mnist/mnist.nnl" |
	    "$BIN/nnl-reorder" | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-fuse" -e ihwo -w f.weights -m f.manifest.json > m.json
	"$BIN/nnl-emit-dot" -o m.dot m.json
	dot -Tsvg m.dot > m.svg
	# div, conv2d, maxPool2d, reshape, gemm + relu, gemm, softmax
	[ "$(grep -c 'class="node op"' m.svg)" -eq 7 ]
	grep -q '<b>gemm</b><br/>fc1<br/><i>+ relu</i>' m.dot
	# 28x28 valid 3x3 conv with 32 filters: 26x26x32, pooled by 2: 13x13
	grep -q 'n1 -> n2 \[label=<float32\[1, 26, 26, 32\]>\]' m.dot
	grep -q 'n2 -> n3 \[label=<float32\[1, 13, 13, 32\]>\]' m.dot
	# fc1's weights: 5408 x 128 float32 = 2768896 bytes = 2.64 MiB
	grep -q 'fc1__weight<br/>float32\[5408, 128\]<br/>2.64 MiB' m.dot
}

@test "hostile names render as the text they are, escapes visible" {
	"$BIN/nnl-emit-dot" "$G/hostile-names.in.json" | dot -Tsvg > h.svg
	run /usr/bin/python3 -c '
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1])
for e in t.iter("{http://www.w3.org/2000/svg}text"):
    print(repr(e.text))' h.svg
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > texts
	cat > want <<'EOF2'
'm"}; digraph x {'
'in<b>"&amp;'
'line\\nbreak\\u{202E}é'
't\\t<br/>'
'out>\\x01'
EOF2
	grep -Fxf want texts > got
	diff want got
	# the const's label: escapes of Graphviz (\N, \G, \l) did not apply
	grep -Fq "' w\\\\N\\\\G\\\\l'" texts
	# two node boxes, no node a name could have added
	[ "$(grep -c 'class="node op"' h.svg)" -eq 2 ]
	[ "$(grep -c 'class="node' h.svg)" -eq 5 ]
}

@test "untyped edges are plain; a multi-output node's edges name the output" {
	run "$BIN/nnl-emit-dot" "$G/untyped-plain-edges.in.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *'  n1 -> n2;'* ]]
	[[ "$output" == *'  n0 -> n1 [label=<#1>];'* ]]
	[[ "$output" == *'  i0 -> n0 [label=<float32[2, 6]>];'* ]]
}

@test "bad input: an error naming the place, exit 1, no output file" {
	printf '{"format": "webnn-graph-json", "version": 1,\n "nodes": [}\n' > bad.json
	run --separate-stderr "$BIN/nnl-emit-dot" -o out.dot bad.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == nnl-emit-dot:\ bad.json:2:* ]]
	[ ! -e out.dot ]
	run --separate-stderr "$BIN/nnl-emit-dot" -x
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: nnl-emit-dot"* ]]
}

@test "names XML cannot hold, bidi controls and control bytes: the SVG stays well-formed, each shown escaped" {
	/usr/bin/python3 "$ROOT/tests/data/xmlnames/make_graph.py" g.json
	"$BIN/nnl-emit-dot" g.json > g.dot
	dot -Tsvg g.dot > g.svg
	"$BIN/nnc" inspect --svg i.svg g.json > /dev/null
	if command -v xmllint; then
		xmllint --noout g.svg i.svg
	fi
	/usr/bin/python3 "$ROOT/tests/data/xmlnames/check.py" g.svg i.svg
	# the four nodes' labels are there, each name escaped once
	[ "$(grep -c 'x\\u{FFFE}\\u{FFFF}\\u{10FFFF}\\u{FDD0}\\u{202A}' g.svg)" -ge 1 ]
	[ "$(grep -c 'class="node' g.svg)" -eq 4 ]
}

@test "a name that reads as an entity (&#1;) stays text: the SVG well-formed, the tooltip the name" {
	# found by scripts/fuzz.py dot: Graphviz read "&#1;" in a tooltip
	# as U+0001, which no XML may hold
	/usr/bin/python3 - <<'PY'
import json
n = "&#1;&#x202e;&lt;&amp"
g = {"format": "webnn-graph-json", "version": 1, "name": "g",
     "inputs": {"x": {"dataType": "float32", "shape": [2]}}, "consts": {},
     "nodes": [{"id": n, "op": "relu", "inputs": ["x"]}],
     "outputs": {"y": n}}
json.dump(g, open("g.json", "w"))
PY
	"$BIN/nnl-emit-dot" g.json > g.dot
	dot -Tsvg g.dot > g.svg
	/usr/bin/python3 - <<'PY'
import xml.etree.ElementTree as ET
t = ET.parse("g.svg")
x = "{http://www.w3.org/1999/xlink}title"
titles = [a.get(x) for a in t.iter("{http://www.w3.org/2000/svg}a")]
print(titles)
assert "&#1;&#x202e;&lt;&amp" in titles, titles
PY
}
