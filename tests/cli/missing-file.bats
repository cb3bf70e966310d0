#!/usr/bin/env bats
# A file that is not there is named with the system's reason for it,
# "No such file or directory", by every program that reads one: not a
# reason left over from another call (isatty, which the progress line
# makes, sets ENOTTY: "Inappropriate ioctl for device").  Standard
# error is a file here, as in a pipeline or a log.  And a directory
# that is not there is made where the user names one for outputs.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	unset NNL_PROGRESS
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	E="$ROOT/examples"
	G="$ROOT/tests/golden/shape-infer/transpose-default.in.json"
	M="$E/resnet_head/resnet_head.manifest.json"
	cd "$BATS_TEST_TMPDIR"
}

@test "every program names a missing input file and says it is not there" {
	n=0
	while IFS='|' read -r file cmd; do
		[ -n "$file" ] || continue
		n=$((n + 1))
		# shellcheck disable=SC2086
		run --separate-stderr env PATH="$BIN:$PATH" $cmd
		echo "$cmd: $status: $stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"$file: No such file or directory"* ]]
		[[ "$stderr" != *ioctl* ]]
	done <<EOF2
none.webnn|nnl-parse none.webnn
none.nnl|nnl-parse none.nnl
none.json|nnl-reorder none.json
none.json|nnl-shape-infer none.json
none.json|nnl-infer none.json
none.json|nnl-fuse none.json
none.json|nnl-plan-memory none.json
none.json|nnl-emit-c -o m.c none.json
none.json|nnl-emit-js none.json
none.json|nnl-emit-dot none.json
none.json|nnl-run none.json
none.npy|nnl-run $G x=none.npy
none.onnx|nnl-onnx-import none.onnx
none.json|nnl-cpu-partition -p none.json none.json
none.npy|nnl-pack-weights pack -o w.weights none.npy
none.weights|nnl-pack-weights list -m $M none.weights
none.json|nnl-pack-weights inline none.json
none.nnl|nnc compile -o m none.nnl
none.onnx|nnc compile -o m none.onnx
none.onnx|nnc inspect none.onnx
none.webnn|nnc report -o r.html none.webnn
none.onnx|nnc import -o m.nnl none.onnx
none.npy|nnc test --input none.npy --expected $E/import_test/expected.npy\
    $E/import_test/model.onnx
EOF2
	[ "$n" -eq 23 ]
}

@test "nnl-run -d makes the directory, and those above it, as mkdir -p" {
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.array([[1, 2, 3], [4, 5, 6]], np.float32))'
	g=$G
	run --separate-stderr sh -c "umask 027 && exec '$BIN/nnl-run' \
	    -d new/deeper $g x=x.npy"
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "y float32[3, 2] new/deeper/y.npy" ]
	/usr/bin/python3 -c 'import numpy as np
y = np.load("new/deeper/y.npy")
assert y.dtype == np.float32 and y.tolist() == [[1, 4], [2, 5], [3, 6]]'
	# 0777 less the umask
	[ "$(stat -c %a new)" = 750 ] && [ "$(stat -c %a new/deeper)" = 750 ]
	# a file in the way is named, and nothing is written
	touch afile
	run --separate-stderr "$BIN/nnl-run" -d afile/out "$g" x=x.npy
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-run: error: afile/out: Not a directory" ]
	run --separate-stderr "$BIN/nnl-run" -d afile "$g" x=x.npy
	[ "$status" -eq 1 ]
	[ "$stderr" = "nnl-run: error: afile: Not a directory" ]
	# a run that fails makes no directory
	run --separate-stderr "$BIN/nnl-run" -d never "$g" x=none.npy
	[ "$status" -eq 1 ]
	[ ! -e never ]
}
