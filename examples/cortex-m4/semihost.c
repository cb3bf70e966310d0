/*
 * semihost: the three ARM semihosting operations main.c and startup.c
 * use.  Each is bkpt 0xab with the operation in r0 and its argument (a
 * block of words, or a string) in r1; the result comes back in r0.
 */
#include "semihost.h"

#include <stdint.h>
#include <string.h>

enum {
	SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITE0 = 0x04,
	SYS_WRITE = 0x05, SYS_EXIT = 0x18
};

/* ADP_Stopped_ApplicationExit and ADP_Stopped_RunTimeErrorUnknown */
enum { EXIT_OK = 0x20026, EXIT_ERROR = 0x20023 };

static int
call(int op, const void *arg)
{
	register int r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;

	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

void
semihost_puts(const char *s)
{
	call(SYS_WRITE0, s);
}

int
semihost_writefile(const char *path, const void *buf, size_t n)
{
	/* mode 5: "wb" */
	uint32_t open[3] = { (uint32_t)(uintptr_t)path, 5, strlen(path) };
	uint32_t wr[3];
	int fd = call(SYS_OPEN, open), rc;

	if (fd < 0)
		return -1;
	wr[0] = (uint32_t)fd;
	wr[1] = (uint32_t)(uintptr_t)buf;
	wr[2] = n;
	rc = call(SYS_WRITE, wr);	/* the bytes not written */
	return call(SYS_CLOSE, &(uint32_t){ (uint32_t)fd }) == 0 && rc == 0 ?
	    0 : -1;
}

void
semihost_exit(int status)
{
	/* on 32-bit ARM the reason is the argument itself */
	call(SYS_EXIT, (const void *)(uintptr_t)(status ? EXIT_ERROR :
	    EXIT_OK));
	for (;;)
		;
}
