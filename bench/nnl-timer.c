/*
 * nnl-timer: times a model that nnc compiled, in process, for
 * bench/ort.py.  Built with -DPFX=stem against the model's library; the
 * model API's names are PFX_infer, PFX_input_bytes, PFX_output_bytes.
 *   nnl-timer IN.bin OUT.bin
 * reads the raw input, runs it once and writes the raw output, then
 * answers commands on standard input, one a line:
 *   run K   run K inferences; prints the K times in milliseconds
 *   rss     prints the peak resident set size (VmHWM) in kilobytes
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(f) CAT(PFX, f)

int API(_infer)(const void *input, void *output);
size_t API(_input_bytes)(void);
size_t API(_output_bytes)(void);

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(int argc, char *argv[])
{
	size_t ni = API(_input_bytes)(), no = API(_output_bytes)();
	void *in = malloc(ni), *out = malloc(no);
	char line[64];
	FILE *f;

	if (argc != 3 || !in || !out)
		return 2;
	if (!(f = fopen(argv[1], "rb")) || fread(in, 1, ni, f) != ni) {
		fprintf(stderr, "nnl-timer: %s: cannot read %zu bytes\n",
		    argv[1], ni);
		return 1;
	}
	fclose(f);
	if (API(_infer)(in, out) != 0)
		return 1;
	if (!(f = fopen(argv[2], "wb")) || fwrite(out, 1, no, f) != no ||
	    fclose(f) != 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof line, stdin)) {
		long k;

		if (sscanf(line, "run %ld", &k) == 1 && k > 0) {
			for (long i = 0; i < k; i++) {
				double t = now_ms();

				API(_infer)(in, out);
				printf("%s%.4f", i ? " " : "", now_ms() - t);
			}
			printf("\n");
		} else if (strncmp(line, "rss", 3) == 0) {
			/* VmHWM, not ru_maxrss: that one carries over
			 * the parent's peak across exec. */
			char l[128];
			long kb = -1;
			FILE *s = fopen("/proc/self/status", "r");

			while (s && fgets(l, sizeof l, s))
				if (sscanf(l, "VmHWM: %ld", &kb) == 1)
					break;
			if (s)
				fclose(s);
			printf("%ld\n", kb);
		} else
			break;
		fflush(stdout);
	}
	return 0;
}
