#!/usr/bin/env bats
# The back ends that draw or wrap a whole graph cost time linear in it:
# nnl-emit-dot of a graph cut into thousands of partitions, nnl-emit-js
# --polyfill and nnc report, on a 40,000-node graph.  Each was
# quadratic (16,000 nodes took 5 to 12 s, so 40,000 take 30 s to over a
# minute); linear, each takes a few seconds of CPU at most.  The bound of 15 s of CPU
# each (60 s under the sanitizers) is coarse on purpose: it cannot fail from
# a busy machine, only from a cost that grows with the square.  The
# growth itself is measured by make bench-passes (bench/passes.py),
# where speed targets belong.

bats_require_minimum_version 1.5.0

N=40000

setup_file() {	# the graph, planned, once for every test
	cd "$BATS_FILE_TMPDIR"
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../../bench/gengraph.py" dag $N \
	    g.webnn
	"$BIN/nnl-parse" g.webnn | "$BIN/nnl-shape-infer" | "$BIN/nnl-fuse" |
	    "$BIN/nnl-plan-memory" > g.p.json
}

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR"/g.* .
}

# within 15 s of CPU time per process (ulimit -t: a busy machine
# stretches the wall clock, not the CPU time), or a message that says it
# was not; the sanitizer build (tests/run-asan.sh sets ASAN_OPTIONS) runs
# some times slower, the quadratic code as much slower, so the bound
# grows as much.  The wall clock is bounded too, loosely, against a hang.
bounded() {
	local limit=15

	[ -n "${ASAN_OPTIONS:-}" ] && limit=60
	run --separate-stderr timeout $((limit * 20)) \
	    sh -c 'ulimit -t "$0" && exec "$@"' "$limit" "$@"
	case $status in 124|137|152)	# timeout, SIGKILL or SIGXCPU
		echo "$1 took over $limit s of CPU on $N nodes: quadratic?" >&2
		return 1
	esac
	[ "$status" -eq 0 ]
}

@test "nnl-emit-dot draws thousands of partitions in linear time" {
	# no relu on the CPU profile: each relu is a CPU round between two
	# WebNN partitions
	/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
del p["relu"]
json.dump(p, open("norelu.json", "w"))' "$ROOT/pipelines/profiles/cpu.json"
	"$BIN/nnl-cpu-partition" -p norelu.json -o g.c.json g.p.json
	bounded "$BIN/nnl-emit-dot" -o g.dot g.c.json
	# one cluster per placement the graph holds, counted here
	want=$(/usr/bin/python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
print(len({(n["placement"]["device"], n["placement"]["partition"])
           for n in g["nodes"]}))' g.c.json)
	[ "$want" -gt 1000 ]
	[ "$(grep -c '^  subgraph cluster_' g.dot)" -eq "$want" ]
}

@test "nnl-emit-js --polyfill is linear in the constants and nodes" {
	"$BIN/nnl-cpu-partition" -p "$ROOT/pipelines/profiles/cpu.json" \
	    -o g.c.json g.p.json
	bounded "$BIN/nnl-emit-js" --polyfill -o g.js g.c.json
	# one builder.constant per constant the text declares
	[ "$(grep -c '^  const [sw][0-9]* = builder.constant(' g.js)" -eq \
	    "$(grep -c '^    [sw][0-9]*: f32' g.webnn)" ]
}

@test "nnc report's memory chart is linear in the buffers" {
	# a stand-in for Graphviz, whose own layout is bounded apart
	# (NNL_DOT_TIMEOUT, report.bats)
	mkdir fake
	cat > fake/dot <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
echo '<svg xmlns="http://www.w3.org/2000/svg"></svg>' >"$out"
SH
	chmod +x fake/dot
	PATH="$PWD/fake:$PATH" bounded "$BIN/nnc" report -o g.html g.webnn
	# one bar per node output the plan places in the arena
	want=$(/usr/bin/python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
print(sum(1 for n in g["nodes"] for a in n["arena"] if a is not None))' \
	    g.p.json)
	[ "$want" -gt 10000 ]
	[ "$(grep -c '<rect class="buffer"' g.html)" -eq "$want" ]
}
