#!/usr/bin/env bats
# A file that is not there is named with the system's reason for it,
# "No such file or directory", by every program that reads one: not a
# reason left over from another call (isatty, which the progress line
# makes, sets ENOTTY: "Inappropriate ioctl for device").  Standard
# error is a file here, as in a pipeline or a log.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	unset NNL_PROGRESS
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	E="$ROOT/examples"
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
none.npy|nnl-run $ROOT/tests/golden/shape-infer/transpose-default.in.json x=none.npy
none.onnx|nnl-onnx-import none.onnx
none.json|nnl-cpu-partition -p none.json none.json
none.npy|nnl-pack-weights pack -o w.weights none.npy
none.weights|nnl-pack-weights list -m $E/resnet_head/resnet_head.manifest.json none.weights
none.json|nnl-pack-weights inline none.json
none.nnl|nnc compile -o m none.nnl
none.onnx|nnc compile -o m none.onnx
none.onnx|nnc inspect none.onnx
none.webnn|nnc report -o r.html none.webnn
none.onnx|nnc import -o m.nnl none.onnx
none.npy|nnc test --input none.npy --expected $E/import_test/expected.npy $E/import_test/model.onnx
EOF2
	[ "$n" -eq 23 ]
}
