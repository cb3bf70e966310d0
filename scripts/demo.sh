#!/bin/sh
# demo: the main job on the bundled example.  Parses the webnn-graph
# seed's resnet_head model, packs its weights (made by a seeded numpy
# script) and prints the canonical JSON that every later pass reads.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
make -s
ex=examples/resnet_head
out=${TMPDIR:-/tmp}/nnl-demo
mkdir -p "$out"
/usr/bin/python3 $ex/make_weights.py "$out/weights"
bin/nnl-pack-weights pack -o "$out/resnet_head.weights" \
    -m "$out/resnet_head.manifest.json" "$out/weights"
bin/nnl-pack-weights verify -m "$out/resnet_head.manifest.json" \
    "$out/resnet_head.weights"
bin/nnl-parse -w "$out/resnet_head.weights" \
    -m "$out/resnet_head.manifest.json" $ex/resnet_head.webnn
