#!/bin/sh
# c-compiles STAMP: compile, as C99 to an object, every C source under
# the current directory that is newer than the file STAMP (what a
# documented example just wrote), from this directory as the example
# would, with its own directory on the include path and make
# check-asan's sanitizers (NNL_TEST_CFLAGS).  Prints "compile FILE"
# for each; exits 1 if one does not compile.
set -u
find . -name '*.c' -type f -newer "$1" | sort > "$1.c-list"
st=0
while IFS= read -r c; do
	echo "compile $c"
	# shellcheck disable=SC2086
	cc -std=c99 -pthread ${NNL_TEST_CFLAGS:-} -I "$(dirname "$c")" \
	    -c -o /dev/null "$c" || { echo "$c does not compile"; st=1; }
done < "$1.c-list"
exit $st
