#!/bin/sh
# carry: the shared libraries nnl's programs (bin/, after make) load
# beyond the C library, copied into DIR/lib, for a machine that runs
# them without nnl's packages installed: run there with
# LD_LIBRARY_PATH=DIR/lib (bench/ort.py --ort python, say).  A library
# that machine has already need not be used from DIR/lib: carry.sh
# --prune DIR, run there, removes each one its ldconfig knows.
# Usage: carry.sh DIR | carry.sh --prune DIR
set -eu
cd "$(dirname "$0")/.."
if [ "${1-}" = --prune ]; then
	for f in "${2:?usage: carry.sh --prune DIR}"/lib/*; do
		[ -e "$f" ] || continue
		if ldconfig -p | grep -q "^[[:space:]]*$(basename "$f") "; then
			rm -f "$f"
		fi
	done
	exit 0
fi
dir=${1:?usage: carry.sh DIR | carry.sh --prune DIR}
[ -x bin/nnc ] || { echo "carry.sh: no bin/nnc: run make" >&2; exit 1; }
mkdir -p "$dir/lib"
ldd bin/* | awk '$3 ~ /^\// { print $3 }' | sort -u |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
    while read -r l; do
	cp -L "$l" "$dir/lib/"
done
ls "$dir/lib"
