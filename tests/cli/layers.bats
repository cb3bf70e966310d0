#!/usr/bin/env bats
# make check-layers (scripts/check-layers.py): the library's folders
# against common/LAYERS.  The expectations are written out by hand
# here, not read from the script: a copy of common/ with one include
# planted where LAYERS forbids it must fail naming that line, a circle
# of six planted files must fail naming them, a folder or a rule gone
# wrong must fail, a call the rules forbid must fail naming caller and
# callee, and the copy as it is must pass.

bats_require_minimum_version 1.5.0

setup() {
	# the same programs as make check runs, built without the
	# sanitizers: under check-asan (NNL_BIN set) a second run of them
	[ -z "${NNL_BIN:-}" ] ||
	    skip "a script over the sources: no sanitized program in it"
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	T="$BATS_TEST_TMPDIR"
	cp -R "$ROOT/common" "$T/common"
	CL="/usr/bin/python3 $ROOT/scripts/check-layers.py --no-calls"
}

@test "the library as it is keeps its layers (includes)" {
	run --separate-stderr $CL --root "$T/common"
	[ "$status" -eq 0 ]
	[[ "$output" != *"error"* ]]
}

@test "core including a back end's header fails, naming the line" {
	# after the first line of core/graph.c, so line 2
	sed -i '1a #include "emitc.h"' "$T/common/core/graph.c"
	run --separate-stderr $CL --root "$T/common"
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: $T/common/core/graph.c:2: includes back/emitc.h: core may not use back"* ]]
	[[ "$stderr" == *"check-layers: "*" problem(s)"* ]]
}

@test "a front end using the other front end fails" {
	sed -i '1a #include "nnl_ast.h"' "$T/common/onnx/onnx_read.c"
	run --separate-stderr $CL --root "$T/common"
	[ "$status" -eq 1 ]
	[[ "$output" == *"onnx/onnx_read.c:2: includes nnl/nnl_ast.h: onnx may not use nnl"* ]]
}

@test "a circle of more than five files fails, naming its files" {
	# six new modules of core, each including the next, the last the first
	for i in 1 2 3 4 5 6; do
		j=$((i % 6 + 1))
		printf '#include "ring%d.h"\n' "$j" > "$T/common/core/ring$i.c"
		: > "$T/common/core/ring$i.h"
	done
	run --separate-stderr $CL --root "$T/common"
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: circle of 6 modules (6 .c files): core/ring1 core/ring2 core/ring3 core/ring4 core/ring5 core/ring6"* ]]
}

@test "a folder LAYERS does not name fails" {
	mkdir "$T/common/extra"
	: > "$T/common/extra/x.c"
	run --separate-stderr $CL --root "$T/common"
	[ "$status" -eq 1 ]
	[[ "$output" == *"folder extra is not named"* ]]
}

@test "rules that go round fail" {
	sed -i 's/^core:$/core: back/' "$T/common/LAYERS"
	run --separate-stderr $CL --root "$T/common"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the rules go round"* ]]
}

@test "a call across a forbidden line fails, naming caller and callee" {
	# the objects make built; LAYERS as it is but back without middle:
	# report.c's call of memplan_bytes (memplan.c) is then forbidden
	sed -i 's/^back: middle host formats core$/back: host formats core/' \
	    "$T/common/LAYERS"
	grep -q '^back: host formats core$' "$T/common/LAYERS"
	run --separate-stderr /usr/bin/python3 "$ROOT/scripts/check-layers.py" \
	    --root "$ROOT/common" --rules "$T/common/LAYERS" \
	    --build "${NNL_BUILD:-$ROOT/build}"
	[ "$status" -eq 1 ]
	[[ "$output" == *"common/back/report.c: report_write calls memplan_bytes ("*"/common/middle/memplan.c): back may not use middle"* ]]
}
