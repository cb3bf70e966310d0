#!/bin/sh
# test: install what is missing, build, and run every test.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
make -s
make -s check
make -s check-clang
