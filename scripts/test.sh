#!/bin/sh
# test: install what is missing, build, and run every test.  The last
# lines count the suites: "check: N passed, M failed" (then the same
# under the sanitizers, and the conformance reports).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
make -s
make -s check-clang
make -s check
make -s check-asan
make -s conformance
make -s conformance-js
