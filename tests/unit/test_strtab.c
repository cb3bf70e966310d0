/*
 * test_strtab: the name table against a plain array searched linearly,
 * through many insertions and removals (removal shifts clusters back,
 * the part most easily got wrong).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "strtab.h"

enum { NKEYS = 5000 };

static char keys[NKEYS][16];

TEST(put_get_and_duplicates)
{
	struct strtab t = { 0 };
	int a = 1, b = 2;

	CHECK(strtab_get(&t, "x") == NULL);
	CHECK(strtab_del(&t, "x") == NULL);
	CHECK(strtab_put(&t, "x", &a) == NULL);
	CHECK(strtab_put(&t, "x", &b) == &a);	/* first one stays */
	CHECK(strtab_get(&t, "x") == &a);
	CHECK(strtab_get(&t, "") == NULL);
	CHECK(strtab_put(&t, "", &b) == NULL);
	CHECK(strtab_get(&t, "") == &b);
	CHECK(t.n == 2);
	CHECK(strtab_del(&t, "x") == &a);
	CHECK(strtab_get(&t, "x") == NULL);
	CHECK(t.n == 1);
	strtab_free(&t);
}

/* A pseudo-random sequence of puts and deletes; after each step every
 * key is where the model says it is. */
TEST(agrees_with_a_linear_model)
{
	struct strtab t = { 0 };
	static int in[NKEYS];
	uint32_t r = 12345;
	int bad = 0;

	for (int i = 0; i < NKEYS; i++)
		snprintf(keys[i], sizeof keys[i], "k%d", i);
	for (int step = 0; step < 40000; step++) {
		int k;

		r = r * 1103515245u + 12345u;
		k = (int)((r >> 8) % NKEYS);
		if ((r >> 4) & 1) {
			void *old = strtab_put(&t, keys[k], keys[k]);

			bad += in[k] ? old != keys[k] : old != NULL;
			in[k] = 1;
		} else {
			bad += strtab_del(&t, keys[k]) != (in[k] ? keys[k] :
			    NULL);
			in[k] = 0;
		}
		if (step % 997 == 0) {
			size_t n = 0;

			for (int i = 0; i < NKEYS; i++) {
				bad += strtab_get(&t, keys[i]) != (in[i] ?
				    keys[i] : NULL);
				n += (size_t)in[i];
			}
			bad += n != t.n;
		}
	}
	CHECK(bad == 0);
	strtab_free(&t);
}

int
main(void)
{
	RUN(put_get_and_duplicates);
	RUN(agrees_with_a_linear_model);
	return DONE();
}
