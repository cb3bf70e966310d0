#!/usr/bin/env bats
# nnc report: one self-contained HTML page, opened in headless Chromium:
# its DOM has one table row per node, the graph and memory SVGs, the
# multiply-adds derived by hand below, no script and nothing from
# outside; a screenshot is taken.  nnc inspect --svg draws a model.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	cd "$BATS_TEST_TMPDIR"
}

chrome() {	# chromium, headless, with no network at all
	timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu \
	    --host-resolver-rules='MAP * ~NOTFOUND' "$@" 2>/dev/null
}

# facts of a page's DOM, one per line
facts() {
	/usr/bin/python3 - "$1" <<'PY'
import sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.rows, self.cells, self.cell = [], [], None, None
        self.tags, self.classes, self.urls = {}, {}, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        c = a.get("class")
        if c:
            self.classes[(tag, c)] = self.classes.get((tag, c), 0) + 1
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "action", "data") or (
                    v and ("//" in v or "url(" in v and "url(#" not in v)):
                self.urls.append((tag, k, v))
        self.stack.append((tag, a.get("id")))
        if tag == "tr" and ("table", "layers") in self.stack and \
                "tbody" in [t for t, _ in self.stack]:
            self.cells = []
        if tag == "td" and self.cells is not None:
            self.cell = ""
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.cells.append(self.cell)
            self.cell = None
        if tag == "tr" and self.cells is not None:
            self.rows.append(self.cells)
            self.cells = None
        while self.stack:
            if self.stack.pop()[0] == tag:
                break
    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d

p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
print("rows", len(p.rows))
print("svg", p.tags.get("svg", 0))
print("script", p.tags.get("script", 0), "link", p.tags.get("link", 0),
      "img", p.tags.get("img", 0), "iframe", p.tags.get("iframe", 0))
print("urls", len(p.urls), p.urls[:3])
print("ops", p.classes.get(("g", "node op"), 0))
print("buffers", p.classes.get(("rect", "buffer"), 0))
print("lowerbound", p.classes.get(("line", "lowerbound"), 0))
for r in p.rows:
    print("row", "|".join(r))
PY
}

@test "the mnist page in Chromium: a row per node, both SVGs, hand-derived multiply-adds, nothing from outside" {
	run --separate-stderr "$BIN/nnc" report -o mnist.html "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# nothing the page could fetch, even before a browser reads it
	! grep -Eiq 'https?:|<script|<link|@import|<img|<iframe' mnist.html
	chrome --dump-dom "file://$PWD/mnist.html" > dom.html
	chrome --window-size=1280,2400 --screenshot="$PWD/shot.png" \
	    "file://$PWD/mnist.html" > /dev/null
	run facts dom.html
	printf '%s\n' "$output"
	# after nnl-fuse: div (the 0..1 scaling), conv2d, maxPool2d,
	# reshape, gemm + relu, gemm, softmax
	[ "${lines[0]}" = "rows 7" ]
	[ "${lines[1]}" = "svg 2" ]
	[ "${lines[2]}" = "script 0 link 0 img 0 iframe 0" ]
	[ "${lines[3]}" = "urls 0 []" ]
	[ "${lines[4]}" = "ops 7" ]
	[ "${lines[5]}" = "buffers 7" ]
	[ "${lines[6]}" = "lowerbound 1" ]
	# multiply-adds by hand: conv1, 3x3 valid on 28x28x1, 32 filters:
	# 26*26*32 outputs * 1*3*3 = 194688; fc1: 5408 (13*13*32) inputs *
	# 128 = 692224; output: 128 * 10 = 1280.  Parameters: conv1 32*9 +
	# 32 = 320, fc1 5408*128 + 128 = 692352, output 128*10 + 10 = 1290.
	[[ "${lines[8]}" == "row 1|conv1|conv2d|float32[1, 26, 26, 32]|320|194,688|"* ]]
	[[ "${lines[11]}" == "row 4|fc1|gemm + relu|float32[1, 128]|692,352|692,224|"* ]]
	[[ "${lines[12]}" == "row 5|output__gemm|gemm|float32[1, 10]|1,290|1,280|"* ]]
	[[ "${lines[9]}" == "row 2|pool1|maxPool2d|float32[1, 13, 13, 32]|0|0|"* ]]
	# 26*26*32 float32 = 86528 bytes in the arena
	[[ "${lines[8]}" == *"|86,528" ]]
	grep -q '888,192 multiply-adds' dom.html
	# the memory bars: conv1 (node 1) is last read by pool1 (node 2);
	# flatten (3) by fc1 (4); the softmax output lives to the end
	grep -Eq '<title>conv1: 86528 bytes at offset [0-9]+, node 1 to 2</title>' dom.html
	grep -Eq '<title>flatten: 21632 bytes at offset [0-9]+, node 3 to 4</title>' dom.html
	grep -Eq '<title>output: 40 bytes at offset [0-9]+, node 6 to the end</title>' dom.html
	# the screenshot is a 1280-pixel-wide PNG
	[ "$(head -c 8 shot.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	[ "$(od -An -tu1 -j16 -N4 shot.png | awk '{print $1*16777216+$2*65536+$3*256+$4}')" -eq 1280 ]
}

@test "hostile names stay text on the page" {
	cat > h.json <<'JSON'
{"format": "webnn-graph-json", "version": 1, "name": "<script>alert(1)</script>",
 "inputs": {"x": {"dataType": "float32", "shape": [2, 2]}},
 "consts": {"<img src=x onerror=alert(1)>": {"dataType": "float32", "shape": [2, 2],
   "init": {"kind": "inlineBytes", "bytes": [0,0,128,63, 0,0,0,64, 0,0,64,64, 0,0,128,64]}}},
 "nodes": [
  {"id": "</td></tr><tr><td>&amp;", "op": "matmul", "inputs": ["x", "<img src=x onerror=alert(1)>"], "options": {}},
  {"id": "y\"'\\", "op": "abs", "inputs": ["</td></tr><tr><td>&amp;"], "options": {}}],
 "outputs": {"y\"'\\": "y\"'\\"}}
JSON
	run --separate-stderr "$BIN/nnc" report -o h.html h.json
	[ "$status" -eq 0 ]
	chrome --dump-dom "file://$PWD/h.html" > dom.html
	run facts dom.html
	printf '%s\n' "$output"
	[ "${lines[0]}" = "rows 2" ]
	[ "${lines[2]}" = "script 0 link 0 img 0 iframe 0" ]
	[ "${lines[3]}" = "urls 0 []" ]
	# matmul [2,2] x [2,2]: 4 outputs * 2 = 8 multiply-adds
	[[ "${lines[7]}" == "row 0|</td></tr><tr><td>&amp;|matmul|float32[2, 2]|0|8|"* ]]
	[[ "${lines[8]}" == "row 1|y\"'\\|abs|"* ]]
}

@test "nnc inspect --svg draws the model after the passes" {
	run --separate-stderr "$BIN/nnc" inspect --svg m.svg "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Total params:"* ]]
	/usr/bin/python3 -c '
import sys, xml.etree.ElementTree as ET
g = [e for e in ET.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}g")
     if e.get("class") == "node op"]
assert len(g) == 7, len(g)' m.svg
}

@test "errors: no -o is a usage error; without Graphviz or with a bad model, no page" {
	run --separate-stderr "$BIN/nnc" report "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"nnc report [-v] -o file.html"* ]]
	run --separate-stderr env PATH=/nonexistent "$BIN/nnc" report -o m.html "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"dot -Tsvg failed"* ]]
	[ ! -e m.html ]
	printf 'webnn_graph "g" v1 {\n  inputs { x: f32[2]; }\n  nodes { y = nosuchop(x); }\n  outputs { y; }\n}\n' > bad.webnn
	run --separate-stderr "$BIN/nnc" report -o b.html bad.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad.webnn:3:"* ]]
	[ ! -e b.html ]
}

@test "names XML cannot hold, bidi controls and control bytes: the page's SVGs stay well-formed" {
	/usr/bin/python3 "$ROOT/tests/data/xmlnames/make_graph.py" g.json
	"$BIN/nnc" report -o g.html g.json
	/usr/bin/python3 "$ROOT/tests/data/xmlnames/check.py" g.html
	# both pictures: the graph and the memory plan
	[ "$(grep -c '<svg' g.html)" -eq 2 ]
}

# a stand-in for Graphviz's dot, first on PATH: $1 is its body
fakedot() {
	mkdir -p fake
	printf '#!/bin/sh\n%s\n' "$1" > fake/dot
	chmod +x fake/dot
}

@test "Graphviz past NNL_DOT_TIMEOUT is killed: no page, no picture, the limit named" {
	fakedot 'exec sleep 60'
	export PATH="$PWD/fake:$PATH" NNL_DOT_TIMEOUT=1
	SECONDS=0
	run --separate-stderr timeout 50 "$BIN/nnc" report -o m.html "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"dot -Tsvg ran over 1 s (NNL_DOT_TIMEOUT)"* ]]
	[ ! -e m.html ]
	run --separate-stderr timeout 50 "$BIN/nnc" inspect --svg m.svg "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"dot -Tsvg ran over 1 s (NNL_DOT_TIMEOUT)"* ]]
	[ ! -e m.svg ]
	# killed, not waited for: two runs well under the 60 s it sleeps
	[ "$SECONDS" -lt 40 ]
}

@test "Graphviz may write at most NNL_DOT_MAX_BYTES of SVG" {
	# 4,000 x's inside a comment: a picture of 44 + 4000 + 10 = 4,054 bytes
	fakedot 'while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
exec >"$out"
printf "<svg xmlns=\"http://www.w3.org/2000/svg\"><!--"
head -c 4000 /dev/zero | tr "\\0" x
printf -- "--></svg>\\n"'
	export PATH="$PWD/fake:$PATH"
	NNL_DOT_MAX_BYTES=1000 run --separate-stderr "$BIN/nnc" inspect --svg m.svg "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"dot -Tsvg drew over 1000 bytes (NNL_DOT_MAX_BYTES)"* ]]
	[ ! -e m.svg ]
	NNL_DOT_MAX_BYTES=5000 run --separate-stderr "$BIN/nnc" inspect --svg m.svg "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 0 ]
	[ "$(wc -c < m.svg)" -eq 4054 ]
	[ "$(tr -cd x < m.svg | wc -c)" -eq 4001 ]	# and xmlns
}

@test "a bound that is not a positive whole number is refused by name" {
	for v in abc 0 -5 1x ''; do
		[ -z "$v" ] && continue
		NNL_DOT_TIMEOUT=$v run --separate-stderr "$BIN/nnc" report -o m.html "$ROOT/examples/mnist/mnist.nnl"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"NNL_DOT_TIMEOUT=$v: expected a positive whole number"* ]]
		[ ! -e m.html ]
	done
	NNL_DOT_MAX_BYTES=12k run --separate-stderr "$BIN/nnc" inspect --svg m.svg "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"NNL_DOT_MAX_BYTES=12k: expected a positive whole number"* ]]
}
