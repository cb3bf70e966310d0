#!/usr/bin/env bats
# The first call of a generated model's _run fills its constants of
# one value (nnl-emit-c): two threads that call it first at once must
# not race (ThreadSanitizer says so) and both must get the right
# answer; the guard still builds for every target the project supports
# (C99 and C11 hosts, Cortex-M0 and -M4 bare metal, wasm32).

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	# NNL_BIN: run the same tests against a sanitizer build
	BIN=${NNL_BIN:-"$BATS_TEST_DIRNAME/../../bin"}
	cd "$BATS_TEST_TMPDIR"
	# y = x + c, c = 2.5 over [40, 2]: 320 bytes, above the 64 that
	# are written as a literal, so filled at the first run
	cat > in.webnn <<'W'
webnn_graph "g" v1 {
  inputs {
    x: f32[40, 2];
  }
  consts {
    c: f32[40, 2] @scalar(2.5);
  }
  nodes {
    y = add(x, c);
  }
  outputs { y; }
}
W
	"$BIN/nnl-shape-infer" in.webnn | "$BIN/nnl-plan-memory" \
	    2>/dev/null > p.json
	"$BIN/nnl-emit-c" -o g.c -H g.h p.json
	grep -q 'g_fill();' g.c
}

@test "two threads calling _run first at once: no race, both right" {
	printf 'int main(void) { return 0; }\n' > probe.c
	cc -fsanitize=thread -pthread -o probe probe.c 2>/dev/null &&
	    ./probe || skip "the C compiler has no ThreadSanitizer"
	cat > main.c <<'C'
#define _POSIX_C_SOURCE 200809L	/* pthread_barrier_t */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "g.h"

static pthread_barrier_t start;
static float x[80];

/* one call of g_run on a workspace of its own, right after the other
 * thread is ready too: 0 when y = x + 2.5 */
static void *
call(void *arg)
{
	static _Alignas(64) unsigned char ws[2][1 << 16];
	unsigned char *w = ws[(size_t)arg];
	float y[80];
	const void *in[1] = { x };
	void *out[1] = { y };

	if (g_workspace_size() > sizeof ws[0])
		return (void *)1;
	pthread_barrier_wait(&start);
	if (g_run(w, in, out))
		return (void *)1;
	for (int i = 0; i < 80; i++)
		if (y[i] != (float)i + 2.5f)
			return (void *)1;
	return NULL;
}

int
main(void)
{
	pthread_t t[2];
	void *r[2];

	for (int i = 0; i < 80; i++)
		x[i] = (float)i;
	pthread_barrier_init(&start, NULL, 2);
	for (size_t i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, call, (void *)i))
			return 2;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &r[i]);
	puts(r[0] || r[1] ? "wrong" : "right");
	return 0;
}
C
	cc -std=c11 -O1 -g -fsanitize=thread -pthread -o tsan main.c g.c -lm
	# 20 runs: the threads meet at the fill in different orders
	for i in $(seq 20); do
		TSAN_OPTIONS=halt_on_error=1:exitcode=66 ./tsan > out \
		    2> tsan.log || { cat tsan.log; false; }
		[ "$(cat out)" = right ]
		! grep -q ThreadSanitizer tsan.log
	done
}

@test "the first-run guard builds as C99 and C11, pedantic" {
	cc -std=c99 -pedantic -Wall -Werror -O1 -c -o c99.o g.c
	cc -std=c11 -pedantic -Wall -Werror -O1 -c -o c11.o g.c
	# C11 atomics, the __atomic builtins, as the preprocessor chose
	cc -std=c11 -E g.c | grep -q 'static atomic_int state;'
	cc -std=c99 -E g.c | grep -q '__atomic_compare_exchange_n'
}

@test "the first-run guard builds for Cortex-M0, Cortex-M4 and wasm32" {
	command -v arm-none-eabi-gcc ||
	    skip "no arm-none-eabi-gcc (scripts/install-deps.sh)"
	# M0 has no lock-free int atomics: the plain flag, no libatomic
	# call left to link
	arm-none-eabi-gcc -std=c99 -O2 -mcpu=cortex-m0 -mthumb \
	    -ffreestanding -Werror -c -o m0.o g.c
	! arm-none-eabi-nm m0.o | grep -q __atomic
	arm-none-eabi-gcc -std=c11 -O2 -mcpu=cortex-m0 -mthumb \
	    -ffreestanding -Werror -c -o m0.o g.c
	! arm-none-eabi-nm m0.o | grep -q __atomic
	arm-none-eabi-gcc -std=c11 -O2 -mcpu=cortex-m4 -mthumb \
	    -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Werror -c -o m4.o g.c
	! arm-none-eabi-nm m4.o | grep -q __atomic
	# wasm32 as nnc --emit wasm builds it (no threads: the atomics
	# are plain loads and stores there)
	if command -v clang > /dev/null; then
		clang --target=wasm32-wasi -std=c11 -O2 -Werror -c -o w.o g.c
	fi
}
