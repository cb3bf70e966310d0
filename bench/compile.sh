#!/bin/sh
# compile: time and peak memory of nnc compile on ResNet-18, from the
# ONNX file bench/models.py exports (torchvision's, opset 13) to an
# executable, the issue's bound being 10 s and 1 GB.
#
# First the whole `nnc compile -o resnet18 resnet18.onnx` as a user
# runs it, its programs a pipeline: seconds, and the peak resident set
# of its largest process (/usr/bin/time's %M of nnc, which counts the
# largest of the children it waited for; the pipeline's processes
# overlap, so their sum at one moment may be more).  Then each program
# it runs, alone: the command lines that nnc -v --save-temps prints,
# each rerun under /usr/bin/time on the file the one before wrote.
#
# Usage: bench/compile.sh  (from the top directory, after make; reads
# build/bench/models/resnet18.onnx, or exports it there with PyTorch)
set -eu
top=$(pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
model=$top/build/bench/models/resnet18.onnx
if [ ! -f "$model" ]; then
	# where bench/ort.py finds it (models.py adds it to models.json)
	echo "bench: exporting resnet18 with PyTorch" >&2
	/usr/bin/python3 "$top/bench/models.py" "$top/build/bench/models" \
	    resnet18
fi
params=$(/usr/bin/python3 -c '
import sys, onnx, numpy as np
m = onnx.load(sys.argv[1])
print("{:,}".format(sum(int(np.prod(t.dims)) for t in m.graph.initializer
          if t.data_type == onnx.TensorProto.FLOAT)))' "$model")
mkdir "$d/all" "$d/each"
cd "$d/all"
/usr/bin/time -o time.txt -f "%e %M" "$top/bin/nnc" compile -o resnet18 \
    "$model"
read -r s kb < time.txt
printf 'compile: resnet18 (ONNX, %s float32 parameters) to an executable:\n' \
    "$params"
printf '  nnc compile: %.2f s, peak %.1f MB (its largest process)\n' \
    "$s" "$(echo "$kb / 1024" | bc -l)"
cd "$d/each"
# nnc makes the C and header in a temporary directory of its own
# (TMPDIR), which the commands it prints name and which is gone when
# it is done: made again here for the rerun.
mkdir "$d/tmp"
TMPDIR=$d/tmp "$top/bin/nnc" compile -v --save-temps -o resnet18 \
    "$model" 2> cmds
# the command lines, not nnc's own notes ("nnc: --save-temps: kept")
grep -v '^nnc: ' cmds > runs
grep -o "$d/tmp/nnc\.[A-Za-z0-9]*" runs | sort -u | while read -r t; do
	mkdir -p "$t"
done
printf '  each program alone (nnc -v --save-temps, rerun one at a time):\n'
printf '  %-18s %7s %9s\n' program s "peak MB"
total=0
while read -r line; do
	prog=$(basename "${line%% *}")
	/usr/bin/time -o time.txt -f "%e %M" sh -c "$line" < /dev/null
	read -r s kb < time.txt
	printf '  %-18s %7.2f %9.1f\n' "$prog" "$s" \
	    "$(echo "$kb / 1024" | bc -l)"
	total=$(echo "$total + $s" | bc -l)
done < runs
printf '  %-18s %7.2f\n' sum "$total"
