#!/usr/bin/env bats
# make install / make uninstall into a staging DESTDIR: the installed
# pipeline, nnl.mk and nnc compile run with nothing read from the
# source tree (every file system call traced with strace), and
# uninstall leaves no file behind.  It installs what `make install`
# does, the default build (bin/, built by `all`); make check runs it,
# check-asan leaves it (no sanitized program in it).

bats_require_minimum_version 1.5.0

setup_file() {
	# the same programs as make check runs, built without the
	# sanitizers: under check-asan (NNL_BIN set) a second run of them
	# (setup skips each test)
	[ -z "${NNL_BIN:-}" ] || return 0
	export LC_ALL=C
	ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)"
	export ROOT
	export STAGE="$BATS_FILE_TMPDIR/stage"
	export D="$STAGE/opt/nnl"
	make -s -C "$ROOT" install PREFIX=/opt/nnl DESTDIR="$STAGE" >&2
}

setup() {
	[ -z "${NNL_BIN:-}" ] ||
	    skip "the installed default build: no sanitized program in it"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
}

@test "make install puts programs, pages and share/nnl in place" {
	for f in bin/nnc bin/nnl-parse bin/nnl-emit-c bin/nnl-onnx-import \
	    share/man/man1/nnc.1 share/man/man5/nnl-graph.5 \
	    share/man/man7/nnl.7 share/nnl/pipelines/nnl.mk \
	    share/nnl/pipelines/c.passes share/nnl/js/cpuops.mjs \
	    share/nnl/schema/webnn-graph.schema.json \
	    share/nnl/profiles/cpu.json; do
		[ -f "$D/$f" ] || { echo "missing $f"; false; }
	done
	[ "$(readlink "$D/bin/nnl-infer")" = nnl-shape-infer ]
	for p in "$ROOT"/bin/*; do
		[ -x "$D/bin/${p##*/}" ] || { echo "missing ${p##*/}"; false; }
	done
	run man -l "$D/share/man/man1/nnc.1"
	[ "$status" -eq 0 ]
}

@test "the installed pipeline, nnl.mk and nnc compile read nothing from the source tree" {
	[[ "$T" != "$ROOT"/* ]] && [[ "$D" != "$ROOT"/* ]]
	mkdir "$T/w" && cp -r "$ROOT/examples/mnist/." "$T/w/"
	cd "$T/w"
	$PY -c 'import numpy as np
open("in.bin", "wb").write(np.load("test_input.npy").astype("<f4").tobytes())'
	cat > job.sh <<SH
set -e
nnl-parse -w p.weights -m p.manifest.json mnist.nnl | nnl-reorder |
    nnl-shape-infer | nnl-fuse -e ihwo -w f.weights -m f.manifest.json |
    nnl-plan-memory | nnl-emit-c -m -o pipe.c
cc -O2 -o pipe pipe.c -lm
./pipe < in.bin > pipe.bin
printf 'include $D/share/nnl/pipelines/nnl.mk\\n' > Makefile
make -s mnist
./mnist < in.bin > mk.bin
nnc compile -o nnc_mnist mnist.nnl
./nnc_mnist < in.bin > nnc.bin
SH
	env -i PATH="$D/bin:/usr/bin:/bin" HOME="$T" TMPDIR="$T" \
	    strace -f -qq -o trace.txt -e trace=%file sh job.sh
	# the trace sees the installed files, and none of the checkout's
	grep -q "\"$D/bin/nnl-emit-c\"" trace.txt
	grep -q "\"$D/bin/../share/nnl/pipelines/c.passes\"" trace.txt
	grep -q "\"$D/share/nnl/pipelines/nnl.mk\"" trace.txt
	run grep -F "$ROOT" trace.txt
	echo "$output" | head
	[ "$status" -eq 1 ]
	# and the three programs give NumPy's answer
	$PY -c 'import numpy as np, sys
want = np.load("expected_output.npy").astype(np.float32).ravel()
for f in ("pipe.bin", "mk.bin", "nnc.bin"):
    got = np.fromfile(f, dtype="<f4")
    assert got.shape == want.shape, (f, got.shape)
    assert np.allclose(got, want, rtol=1e-4, atol=1e-5), f'
}

@test "the installed toolkit moves: nnc finds its passes beside itself" {
	cp -r "$STAGE/opt/nnl" "$T/moved"
	cp "$ROOT/examples/mnist/mnist.nnl" "$T/" && cp -r "$ROOT/examples/mnist/weights" "$T/"
	cd "$T"
	env -i PATH=/usr/bin:/bin HOME="$T" TMPDIR="$T" \
	    strace -f -qq -o trace.txt -e trace=%file \
	    "$T/moved/bin/nnc" compile -v -o m mnist.nnl
	grep -q "\"$T/moved/bin/../share/nnl/pipelines/c.passes\"" trace.txt
	run grep -F "$STAGE" trace.txt
	[ "$status" -eq 1 ]
	[ -x m ]
}

@test "make uninstall removes every file it installed" {
	make -s -C "$ROOT" uninstall PREFIX=/opt/nnl DESTDIR="$STAGE"
	run find "$STAGE" ! -type d
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ ! -e "$D/share/nnl" ]
}

@test "the nnl(7) example installs, compiles and uninstalls" {
	awk '/^\.Ss Installing/ { f = 1 } f && /^\.Bd/ { b = 1; next }
	    f && /^\.Ed/ { exit } b { gsub(/\\e/, "\\"); print }' \
	    "$ROOT/man/man7/nnl.7" | sed "s|/tmp/stage|$T/stage|g" > "$T/ex.sh"
	grep -q "make install" "$T/ex.sh"
	(cd "$ROOT" && sh -e "$T/ex.sh" >/dev/null)
	[ -x "$T/stage/mnist" ]
	[ -z "$(find "$T/stage/opt" ! -type d)" ]
}

@test "DESTDIR and PREFIX with blanks and quotes: exactly there, and uninstall removes exactly that" {
	[[ "$T" != "$ROOT"/* ]]
	mkdir "$T/s" && cd "$T/s"
	dest="$T/s/d i r'q\"x"
	pre="/o p/n'l"
	# a decoy named by the first word of DESTDIR, as sh would split it
	printf 'decoy\n' > "$T/s/d"
	before=$(git -C "$ROOT" status --porcelain --ignored)
	make -s -C "$ROOT" install PREFIX="$pre" DESTDIR="$dest"
	[ "$(git -C "$ROOT" status --porcelain --ignored)" = "$before" ]
	# the same files as a plain install, and nothing else anywhere here
	make -s -C "$ROOT" install PREFIX=/o/n DESTDIR="$T/plain"
	(cd "$dest$pre" && find . | sort) > "$T/got"
	(cd "$T/plain/o/n" && find . | sort) > "$T/want"
	diff "$T/want" "$T/got"
	[ "$(ls -A "$T/s" | sort | tr '\n' /)" = "d/d i r'q\"x/" ]
	[ "$(ls -A "$dest")" = "o p" ] && [ "$(ls -A "$dest/o p")" = "n'l" ]
	make -s -C "$ROOT" uninstall PREFIX="$pre" DESTDIR="$dest"
	[ "$(git -C "$ROOT" status --porcelain --ignored)" = "$before" ]
	[ -z "$(find "$dest" ! -type d)" ]
	[ ! -e "$dest$pre/share/nnl" ]
	[ "$(cat "$T/s/d")" = decoy ]
	make -s -C "$ROOT" uninstall PREFIX=/o/n DESTDIR="$T/plain"
}

@test "a DESTDIR or PREFIX holding a line end is refused, nothing installed" {
	mkdir "$T/s"
	run make -s -C "$ROOT" install DESTDIR="$T/s/a
b"
	[ "$status" -ne 0 ]
	[[ "$output" == *"DESTDIR and PREFIX must not hold a line end"* ]]
	[ -z "$(ls -A "$T/s")" ]
	run make -s -C "$ROOT" uninstall PREFIX="/x
y"
	[ "$status" -ne 0 ]
	[[ "$output" == *"DESTDIR and PREFIX must not hold a line end"* ]]
}

@test "a DESTDIR or PREFIX holding a '\$' is refused, nothing installed anywhere" {
	# make would expand $HOME's $H as a variable of its own and install
	# into "...OME"
	mkdir "$T/s"
	run make -s -C "$ROOT" install DESTDIR="$T/s/a\$HOME"
	[ "$status" -ne 0 ]
	[[ "$output" == *"DESTDIR and PREFIX must not hold a '\$'"* ]]
	[ -z "$(ls -A "$T/s")" ]
	run make -s -C "$ROOT" uninstall PREFIX="/x\$(shell touch $T/s/pwned)"
	[ "$status" -ne 0 ]
	[[ "$output" == *"must not hold a '\$'"* ]]
	[ -z "$(ls -A "$T/s")" ]
}
