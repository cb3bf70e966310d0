#!/bin/sh
# install-deps: install the Debian packages nnl builds and tests with,
# only those missing.  Run as root (or with sudo available).
set -eu
# Pictures (graphviz), WebAssembly (lld, wasi-libc, the wasm32 compiler
# runtime), Cortex-M (arm-none-eabi, newlib, qemu-system-arm), project
# scaffolds (g++, rustc/cargo, Go), the install test (strace, script).
# Two bats files at a time (tests/run-all.sh): GNU parallel.
pkgs="make gcc libc6-dev pkg-config libcjson-dev libxxhash-dev libzip-dev
zlib1g-dev bats mandoc clang valgrind python3 python3-numpy python3-jsonschema
python3-torch python3-torchvision python3-onnx protobuf-c-compiler
libprotobuf-c-dev libonnx-dev libonnx-testdata nodejs chromium gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
graphviz lld wasi-libc libclang-rt-14-dev-wasm32
gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
g++ rustc cargo golang-go strace bsdutils parallel"
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
