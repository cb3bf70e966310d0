/*
 * main: runs a model nnc compiled for the Cortex-M4F once on the input
 * linked into the firmware (input.S), writes its output to the host
 * file output.bin through semihosting, and prints the SysTick ticks
 * the inference took.  MODEL names the model's API (MODEL_infer, ...:
 * the prefix of its header's functions), MODEL_H its header.
 */
#include <stdint.h>

#include "semihost.h"
#include MODEL_H

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(f) CAT(MODEL, f)

#ifndef OUTPUT_MAX
#define OUTPUT_MAX 4096
#endif

extern const unsigned char nnl_input[], nnl_input_end[];
extern volatile uint32_t systick_wraps;
uint32_t stack_used(void);

static unsigned char output[OUTPUT_MAX] __attribute__((aligned(8)));

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)
#define SYST_MAX 0xFFFFFFu

static void
putnum(const char *before, uint64_t v, const char *after)
{
	char b[24], *p = b + sizeof b;

	*--p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	semihost_puts(before);
	semihost_puts(p);
	semihost_puts(after);
}

int
main(void)
{
	size_t n = (size_t)(nnl_input_end - nnl_input);
	uint32_t w0, w1, c0, c1;
	uint64_t ticks;

	if (n != API(_input_bytes)() || API(_output_bytes)() > sizeof output) {
		putnum("cortex-m4: input of ", n, " bytes, or output too big\n");
		return 1;
	}
	/* SysTick from the processor clock, its wraps counted */
	SYST_RVR = SYST_MAX;
	SYST_CVR = 0;
	SYST_CSR = 7;
	while (SYST_CVR == 0)	/* the first reload is no wrap */
		;
	do {
		w0 = systick_wraps;
		c0 = SYST_CVR;
	} while (w0 != systick_wraps);
	if (API(_infer)(nnl_input, output) != 0) {
		semihost_puts("cortex-m4: infer failed\n");
		return 1;
	}
	do {
		w1 = systick_wraps;
		c1 = SYST_CVR;
	} while (w1 != systick_wraps);
	SYST_CSR = 0;
	/* the counter counts down from SYST_MAX */
	ticks = (uint64_t)(w1 - w0) * (SYST_MAX + 1) + c0 - c1;
	putnum("cortex-m4: systick ticks per inference: ", ticks, "\n");
	putnum("cortex-m4: stack used: ", stack_used(), " bytes\n");
	if (semihost_writefile("output.bin", output, API(_output_bytes)())) {
		semihost_puts("cortex-m4: cannot write output.bin\n");
		return 1;
	}
	return 0;
}
