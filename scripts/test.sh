#!/bin/sh
# test: install what is missing, build, and run every test.  The last
# line is the count: "check: N passed, M failed".
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
make -s
make -s check-clang
make -s check
make -s conformance
make -s conformance-js
