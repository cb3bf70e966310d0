#!/usr/bin/env bats
# A small BERT-style encoder (bench/models.py's BertEncoder: 2 layers,
# hidden 32, sequence 8) exported by PyTorch at opset 17 with two int64
# inputs, token ids and an attention mask (tests/onnx/export_bert.py),
# compiled by nnc to C, built with a harness that feeds both inputs
# packed, and checked against PyTorch's output within 1e-4 relative.

bats_require_minimum_version 1.5.0

setup_file() {
	export BD="$BATS_FILE_TMPDIR/bert"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/export_bert.py" "$BD" \
	    >/dev/null 2>&1
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
}

# run.c: reads the packed inputs from IN, runs bert_infer once and
# writes the output to OUT.
harness() {
	cat > run.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include "bert.h"

int
main(int argc, char *argv[])
{
	size_t ni = bert_input_bytes(), no = bert_output_bytes();
	char *in = malloc(ni + 1), *out = malloc(no);
	FILE *f;

	if (argc != 3 || !in || !out || !(f = fopen(argv[1], "rb")))
		return 2;
	if (fread(in, 1, ni + 1, f) != ni) {
		fprintf(stderr, "run: %s is not %zu bytes\n", argv[1], ni);
		return 1;
	}
	fclose(f);
	if (bert_infer(in, out) != 0)
		return 1;
	if (!(f = fopen(argv[2], "wb")) || fwrite(out, 1, no, f) != no ||
	    fclose(f) != 0)
		return 1;
	return 0;
}
EOC
}

@test "the encoder's C takes the int64 ids and mask as two inputs" {
	"$BIN/nnc" compile --emit c --prefix bert -o bert.c "$BD/bert.onnx"
	grep -q 'input_ids int64\[1, 8\]' bert.h
	grep -q 'attention_mask int64\[1, 8\]' bert.h
	grep -q 'BERT_H_NUM_INPUTS = 2' bert.h
	grep -q 'output float32\[1, 8, 32\]' bert.h
}

@test "the encoder compiled by nnc matches PyTorch within 1e-4" {
	"$BIN/nnc" compile --emit c --prefix bert -o bert.c "$BD/bert.onnx"
	harness
	cc -std=c11 -O2 -o run run.c bert.c -lm
	run ./run "$BD/in.bin" out.bin
	echo "$output"
	[ "$status" -eq 0 ]
	run /usr/bin/python3 - "$BD" <<'EOP'
import sys, numpy as np
d = sys.argv[1]
y = np.fromfile("out.bin", "<f4").astype(np.float64)
ref = np.fromfile(d + "/ref.bin", "<f4").astype(np.float64)
nomask = np.fromfile(d + "/nomask.bin", "<f4").astype(np.float64)
assert y.shape == ref.shape == (256,), y.shape
scale = np.abs(ref).max()
err = np.abs(y - ref).max() / scale
# the mask must count: without it PyTorch's output is another
assert np.abs(nomask - ref).max() / scale > 1e-2
print("relative error %.3g" % err)
assert err <= 1e-4
EOP
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a mask of ones gives PyTorch's unmasked output" {
	"$BIN/nnc" compile --emit c --prefix bert -o bert.c "$BD/bert.onnx"
	harness
	cc -std=c11 -O2 -o run run.c bert.c -lm
	# the ids (64 bytes) and eight int64 ones
	head -c 64 "$BD/in.bin" > ones.bin
	/usr/bin/python3 -c 'import sys
sys.stdout.buffer.write((1).to_bytes(8, "little") * 8)' >> ones.bin
	run ./run ones.bin out.bin
	[ "$status" -eq 0 ]
	run /usr/bin/python3 - "$BD" <<'EOP'
import sys, numpy as np
y = np.fromfile("out.bin", "<f4").astype(np.float64)
ref = np.fromfile(sys.argv[1] + "/nomask.bin", "<f4").astype(np.float64)
err = np.abs(y - ref).max() / np.abs(ref).max()
print("relative error %.3g" % err)
assert err <= 1e-4
EOP
	echo "$output"
	[ "$status" -eq 0 ]
}
