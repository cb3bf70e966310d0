#!/bin/sh
# demo: the main job on two bundled models.  Installs the Debian
# packages (skip with --no-deps), builds nnl, then compiles an ONNX model
# (examples/import_test/model.onnx) and an NNL one (examples/mnist) to
# native programs, runs each on its bundled input and prints the result,
# its difference from the NumPy reference output and the time per
# inference; with `nnc report` available it writes a report page too.
# Everything it writes goes to $NNL_DEMO_DIR, by default a new directory
# $TMPDIR/nnl-demo.XXXXXX (mktemp: no name another user could foresee).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
[ "${1:-}" = --no-deps ] || sh scripts/install-deps.sh
make -s
bin=${NNL_BIN:-$top/bin}	# the programs (make check-asan: its build)
if [ -n "${NNL_DEMO_DIR:-}" ]; then
	out=$NNL_DEMO_DIR
	mkdir -p "$out"
else
	out=$(mktemp -d "${TMPDIR:-/tmp}/nnl-demo.XXXXXX")
fi
py=/usr/bin/python3
report=
if "$bin/nnc" report --help 2>&1 | grep -q 'nnc report'; then
	report=1
fi

# demo NAME KIND MODEL INPUT.npy EXPECTED.npy
demo() {
	name=$1 kind=$2 model=$3 input=$4 want=$5
	echo "$name ($kind model $model)"
	"$bin/nnc" compile --emit obj -o "$out/$name.o" "$model"
	# the API, and the header beside the object, are named after the
	# model: its header where the demo names it, its prefix from there
	"$bin/nnc" compile --emit header -o "$out/$name.h" "$model"
	pfx=$(sed -n 's/^int \([A-Za-z0-9_]*\)_infer(.*/\1/p' "$out/$name.h")
	# (NNL_TEST_CFLAGS: make check-asan's sanitizers, which its
	# NNC_CFLAGS gave the object too)
	cc -O2 -Wall -Werror ${NNL_TEST_CFLAGS:-} -DDEMO_PREFIX="$pfx" \
	    -DDEMO_HEADER="\"$out/$name.h\"" -o "$out/$name" \
	    scripts/demo-time.c "$out/$name.o" -lm
	echo "  compiled:  $out/$name  (nnc compile --emit obj -o $name.o $model)"
	$py -c 'import numpy as np, sys
open(sys.argv[2], "wb").write(np.load(sys.argv[1]).astype("<f4").tobytes())' \
	    "$input" "$out/$name.in"
	time=$("$out/$name" "$out/$name.in" "$out/$name.out")
	$py -c 'import numpy as np, sys
want = np.load(sys.argv[2])
got = np.fromfile(sys.argv[1], dtype="<f4").reshape(want.shape)
print("  input:     %s" % sys.argv[3])
print("  output:    float32%s" % list(got.shape))
print("  top class: %d" % int(np.argmax(got)))
print("  values:    %s" % " ".join("%.6g" % v for v in got.ravel()))
print("  vs NumPy:  max difference %.2g (%s)" % (
    float(np.max(np.abs(got.astype(np.float64) - want))), sys.argv[2]))' \
	    "$out/$name.out" "$want" "$input"
	echo "  time:      $time"
	if [ -n "$report" ]; then
		if "$bin/nnc" report -o "$out/$name.html" "$model"; then
			echo "  report:    $out/$name.html"
		else
			echo "  report:    not written (nnc report failed)"
		fi
	fi
	echo
}

demo mlp ONNX examples/import_test/model.onnx \
    examples/import_test/input.npy examples/import_test/expected.npy
demo mnist NNL examples/mnist/mnist.nnl \
    examples/mnist/test_input.npy examples/mnist/expected_output.npy
echo "Each program above is native code with its weights built in; see"
echo "nnc(1) for the other forms (library, shared object, C source)."
