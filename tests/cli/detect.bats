#!/usr/bin/env bats
# Detection post-processing beyond WebNN: scores -> TopK -> Gather of
# the boxes -> NonMaxSuppression, built by tests/onnx/detect_post.py
# with its NumPy reference.  The selection's size is data-dependent:
# held at its bound with its actual shape as the output
# "selected.shape" after it (nnl-graph(5)); nnl-run, the -m program and
# a C caller of the generated API each see only the rows it holds.

bats_require_minimum_version 1.5.0

setup_file() {
	export D="$BATS_FILE_TMPDIR/detect"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/detect_post.py" "$D" \
	    >/dev/null
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
	"$BIN/nnl-onnx-import" -o post.json "$D/post.onnx"
}

@test "nnl-run writes the rows selected, as NumPy selects them" {
	"$BIN/nnl-run" -d out post.json boxes="$D/boxes.npy" \
	    scores="$D/scores.npy" >/dev/null
	run /usr/bin/python3 -c 'import numpy as np, sys
d = sys.argv[1]
for n in ("values", "indices", "selected"):
    got, want = np.load("out/%s.npy" % n), np.load("%s/want_%s.npy" % (d, n))
    assert got.dtype == want.dtype and np.array_equal(got, want), (n, got, want)
assert list(np.load("out/selected.shape.npy")) == [len(want), 3]' "$D"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the -m program writes the selection's rows, not its padding nor shape" {
	"$BIN/nnc" compile --emit exe -o prog post.json
	./prog < "$D/raw.in" > got.raw
	run /usr/bin/python3 -c 'import numpy as np, sys
d = sys.argv[1]
want = b"".join(np.load("%s/want_%s.npy" % (d, n)).tobytes()
                for n in ("values", "indices", "selected"))
assert open("got.raw", "rb").read() == want' "$D"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a C caller of post_infer reads the shape, and -1 rows after it" {
	"$BIN/nnc" compile --emit c --prefix post -o post.c post.json
	grep -qx ' \*   selected.shape int64\[2\]' post.h
	cat > main.c <<'C'
#include <stdio.h>
#include <string.h>
#include "post.h"

int
main(void)
{
	static unsigned char in[24 * 4 * 4 + 24 * 4], out[40 + 80 + 8 * 24 + 16];
	int64_t sel[8][3], shape[2];

	if (fread(in, 1, sizeof in, stdin) != sizeof in ||
	    post_output_bytes() != sizeof out || post_infer(in, out) != 0)
		return 1;
	memcpy(sel, out + 120, sizeof sel);
	memcpy(shape, out + 120 + sizeof sel, sizeof shape);
	printf("%lld %lld\n", (long long)shape[0], (long long)shape[1]);
	for (int i = 0; i < 8; i++)
		printf("%lld %lld %lld\n", (long long)sel[i][0],
		    (long long)sel[i][1], (long long)sel[i][2]);
	return 0;
}
C
	cc -std=c11 -O1 -o caller main.c post.c -lm
	./caller < "$D/raw.in" > got.txt
	run /usr/bin/python3 -c 'import numpy as np, sys
want = np.load(sys.argv[1] + "/want_selected.npy")
lines = open("got.txt").read().split("\n")
n, three = (int(v) for v in lines[0].split())
assert three == 3, lines[0]
rows = np.array([[int(v) for v in l.split()] for l in lines[1:9]])
assert n == len(want) < 8, n
assert np.array_equal(rows[:n], want), rows
assert (rows[n:] == -1).all(), rows' "$D"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a node reading the selection is refused: its size is known at run time only" {
	run --separate-stderr "$BIN/nnl-onnx-import" -o r.json "$D/reads.onnx"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'(Gather) [dynamic-shape]: input "selected" has a size known only at run time'* ]]
}
