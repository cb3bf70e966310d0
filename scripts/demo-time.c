/*
 * demo-time: the program scripts/demo.sh builds around a model compiled
 * with `nnc compile --emit obj`.  Runs the model on the raw input file,
 * writes the raw output file, then times the model alone (no process
 * start, no file reads): at least 20 runs and 0.5 s, and prints
 * "US us per inference (N runs)".
 * Build: cc -DDEMO_PREFIX=prefix -DDEMO_HEADER='"model.h"' demo-time.c model.o -lm
 * Usage: demo-time IN.bin OUT.bin
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include DEMO_HEADER

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(f) CAT(DEMO_PREFIX, f)

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	size_t ni = API(_input_bytes)(), no = API(_output_bytes)(), got;
	unsigned char *in = malloc(ni + 1), *out = malloc(no);
	FILE *fp;
	double t0, t;
	long n = 0;

	if (argc != 3 || !in || !out) {
		fprintf(stderr, "usage: demo-time IN.bin OUT.bin\n");
		return 2;
	}
	if (!(fp = fopen(argv[1], "rb"))) {
		perror(argv[1]);
		return 1;
	}
	got = fread(in, 1, ni + 1, fp);
	fclose(fp);
	if (got != ni) {
		fprintf(stderr, "%s: expected %zu bytes of input, got %zu\n",
		    argv[1], ni, got);
		return 1;
	}
	if (API(_infer)(in, out) != 0) {
		fprintf(stderr, "demo-time: the model failed\n");
		return 1;
	}
	if (!(fp = fopen(argv[2], "wb")) || fwrite(out, 1, no, fp) != no ||
	    fclose(fp) != 0) {
		perror(argv[2]);
		return 1;
	}
	t0 = now();
	do {
		API(_infer)(in, out);
		n++;
		t = now() - t0;
	} while (n < 20 || t < 0.5);
	printf("%.1f us per inference (%ld runs)\n", t / (double)n * 1e6, n);
	free(in);
	free(out);
	return 0;
}
