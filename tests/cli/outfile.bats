#!/usr/bin/env bats
# How every program writes -o FILE (common/core/outfile.c): a regular file
# through a temporary renamed over it, keeping its mode; a FIFO, a
# device or /dev/stdout written in place, never replaced; a symbolic
# link kept, its target's content replaced.  nnl-shape-infer stands for
# all of them: they share the code.  The tests run as root, so a
# regression here would replace device nodes.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	T="$BATS_TEST_TMPDIR"
	cat > "$T/g.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [4]}},
 "nodes": [{"id": "y", "op": "relu", "inputs": ["x"], "options": {}}],
 "outputs": {"y": "y"}}
JSON
	"$BIN/nnl-shape-infer" "$T/g.json" > "$T/want.json"
	grep -q '"types"' "$T/want.json"
}

# no temporary (NAME.tmpXXXXXX, NAME.oldXXXXXX) left in $1
notemps() {
	! ls -A "$1" | grep -E '\.(tmp|old)[A-Za-z0-9]{6}$'
}

@test "-o onto a FIFO writes into it and leaves the FIFO" {
	mkfifo "$T/fifo"
	cat "$T/fifo" > "$T/got" &
	run "$BIN/nnl-shape-infer" -o "$T/fifo" "$T/g.json"
	wait
	[ "$status" -eq 0 ]
	[ -p "$T/fifo" ]
	cmp "$T/want.json" "$T/got"
	notemps "$T"
}

@test "-o /dev/null leaves /dev/null a character device" {
	[ -c /dev/null ] || skip "/dev/null was no device before the test"
	run "$BIN/nnl-shape-infer" -o /dev/null "$T/g.json"
	[ "$status" -eq 0 ]
	[ -c /dev/null ]
	[ "$(stat -c %t:%T /dev/null)" = "1:3" ]
	notemps /dev
}

@test "-o onto a device node outside /dev writes into it" {
	mknod "$T/null" c 1 3
	run "$BIN/nnl-shape-infer" -o "$T/null" "$T/g.json"
	[ "$status" -eq 0 ]
	[ -c "$T/null" ]
	# and through a symbolic link to it
	ln -s null "$T/link"
	run "$BIN/nnl-shape-infer" -o "$T/link" "$T/g.json"
	[ "$status" -eq 0 ]
	[ -c "$T/null" ] && [ -L "$T/link" ]
	notemps "$T"
}

@test "-o /dev/stdout writes to standard output" {
	run --separate-stderr "$BIN/nnl-shape-infer" -o /dev/stdout "$T/g.json"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$T/want.json")" ]
	# standard output a regular file: written, not replaced
	"$BIN/nnl-shape-infer" -o /dev/stdout "$T/g.json" > "$T/out"
	cmp "$T/want.json" "$T/out"
}

@test "a replaced regular file keeps its mode" {
	echo old > "$T/o.json"
	chmod 0640 "$T/o.json"
	run "$BIN/nnl-shape-infer" -o "$T/o.json" "$T/g.json"
	[ "$status" -eq 0 ]
	cmp "$T/want.json" "$T/o.json"
	[ "$(stat -c %a "$T/o.json")" = 640 ]
	chmod 0755 "$T/o.json"
	"$BIN/nnl-shape-infer" -o "$T/o.json" "$T/g.json"
	[ "$(stat -c %a "$T/o.json")" = 755 ]
	notemps "$T"
}

@test "a new file gets 0666 less the umask" {
	(umask 027 && "$BIN/nnl-shape-infer" -o "$T/n.json" "$T/g.json")
	[ "$(stat -c %a "$T/n.json")" = 640 ]
	(umask 022 && "$BIN/nnl-shape-infer" -o "$T/m.json" "$T/g.json")
	[ "$(stat -c %a "$T/m.json")" = 644 ]
}

@test "a symbolic link to a regular file stays; its target is replaced" {
	mkdir "$T/d"
	echo old > "$T/d/target.json"
	chmod 0600 "$T/d/target.json"
	ln -s d/target.json "$T/link.json"
	run "$BIN/nnl-shape-infer" -o "$T/link.json" "$T/g.json"
	[ "$status" -eq 0 ]
	[ -L "$T/link.json" ]
	[ "$(readlink "$T/link.json")" = d/target.json ]
	cmp "$T/want.json" "$T/d/target.json"
	[ "$(stat -c %a "$T/d/target.json")" = 600 ]
	notemps "$T" && notemps "$T/d"
}

@test "-o a directory is an error that changes nothing" {
	mkdir "$T/dir"
	run --separate-stderr "$BIN/nnl-shape-infer" -o "$T/dir" "$T/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/dir: Is a directory"* ]]
	[ -d "$T/dir" ] && [ -z "$(ls -A "$T/dir")" ]
	notemps "$T"
}

@test "a failed run leaves the old file as it was" {
	echo old > "$T/o.json"
	echo '{"format": "webnn-graph-json"' > "$T/bad.json"
	run "$BIN/nnl-shape-infer" -o "$T/o.json" "$T/bad.json"
	[ "$status" -eq 1 ]
	[ "$(cat "$T/o.json")" = old ]
	notemps "$T"
}
