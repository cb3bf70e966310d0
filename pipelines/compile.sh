#!/bin/sh
# compile.sh: the default C pipeline as a shell script, for reading and
# for copying into a project.  Usage: compile.sh MODEL OUT.c
# (MODEL is .nnl, .webnn or .json; OUT.h is written beside OUT.c).
set -eu
model=$1
out=$2
stem=${out%.c}
case $model in
*.nnl) parse="nnl-parse -w $stem.weights -m $stem.manifest.json" ;;
*) parse="nnl-parse" ;;
esac
$parse "$model" | nnl-reorder | nnl-shape-infer |
    nnl-fuse -e winograd -e panels -e ihwo -e residual \
    -w "$stem.fused.weights" -m "$stem.fused.manifest.json" |
    nnl-plan-memory | nnl-emit-c -H "$stem.h" -o "$out"
