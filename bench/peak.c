/*
 * peak: this machine's single-core float32 FMA peak in GFLOP/s,
 * measured, for the percent-of-peak column of bench/ort.py.  Twelve
 * independent multiply-add chains per vector width keep every FMA unit
 * busy; each width the compiler targets (-march=native) is tried and
 * the fastest wins.  Prints one number.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Twelve chains in named variables, so that they live in registers. */
#define CHAINS 12
#define PEAK(NAME, W)							\
static double								\
NAME(long iters)							\
{									\
	typedef float v __attribute__((vector_size(W * 4)));		\
	v a, b, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11;	\
	double t, s = 0;						\
									\
	for (int i = 0; i < W; i++) {					\
		a[i] = 0.999999f;					\
		b[i] = 1e-7f;						\
	}								\
	/* distinct starts: equal chains would be merged by the compiler */ \
	c0 = a * 0.1f; c1 = a * 0.2f; c2 = a * 0.3f; c3 = a * 0.4f;	\
	c4 = a * 0.5f; c5 = a * 0.6f; c6 = a * 0.7f; c7 = a * 0.8f;	\
	c8 = a * 0.9f; c9 = a * 1.1f; c10 = a * 1.2f; c11 = a * 1.3f;	\
	t = now();							\
	for (long k = 0; k < iters; k++) {				\
		c0 = c0 * a + b; c1 = c1 * a + b; c2 = c2 * a + b;	\
		c3 = c3 * a + b; c4 = c4 * a + b; c5 = c5 * a + b;	\
		c6 = c6 * a + b; c7 = c7 * a + b; c8 = c8 * a + b;	\
		c9 = c9 * a + b; c10 = c10 * a + b; c11 = c11 * a + b;	\
	}								\
	t = now() - t;							\
	c0 += c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;	\
	for (int i = 0; i < W; i++)					\
		s += c0[i];						\
	if (s == 42.4242)						\
		puts("");						\
	return 2.0 * W * CHAINS * iters / t / 1e9;			\
}
PEAK(peak4, 4)
PEAK(peak8, 8)
PEAK(peak16, 16)

int
main(void)
{
	long n = 20000000;
	double best = 0, g;

	for (int r = 0; r < 3; r++) {
		if ((g = peak4(n)) > best)
			best = g;
#if defined(__AVX__) || defined(__ARM_NEON)
		if ((g = peak8(n)) > best)
			best = g;
#endif
#if defined(__AVX512F__)
		if ((g = peak16(n)) > best)
			best = g;
#endif
	}
	printf("%.1f\n", best);
	return 0;
}
