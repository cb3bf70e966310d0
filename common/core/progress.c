/*
 * progress: the progress line of long steps on a terminal (progress.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int state;	/* 0 undecided, 1 on, -1 off */
static int shown;	/* a line is on the terminal */
static char step[96];
static uint64_t total;
static double last;

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
on(void)
{
	if (state == 0) {
		const char *e = getenv("NNL_PROGRESS");

		state = isatty(STDERR_FILENO) && !(e && strcmp(e, "0") == 0) ?
		    1 : -1;
		if (state > 0)
			atexit(progress_clear);
	}
	return state > 0;
}

static void
draw(uint64_t done)
{
	char line[160];
	int n;

	if (total)
		n = snprintf(line, sizeof line, "\r\033[K%s: %s %llu/%llu "
		    "(%d%%)", getprogname_nnl(), step,
		    (unsigned long long)done, (unsigned long long)total,
		    (int)(done >= total ? 100 : done * 100 / total));
	else
		n = snprintf(line, sizeof line, "\r\033[K%s: %s...",
		    getprogname_nnl(), step);
	if (n > 0)
		fputs(line, stderr);
	fflush(stderr);
	shown = 1;
	last = now();
}

void
progress_start(const char *what, uint64_t n)
{
	if (!on())
		return;
	snprintf(step, sizeof step, "%s", what);
	total = n;
	draw(0);
}

void
progress_tick(uint64_t done)
{
	if (!on() || !step[0])
		return;
	if ((total && done >= total) || now() - last >= 0.1)
		draw(done);
}

void
progress_clear(void)
{
	if (shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		shown = 0;
	}
}

void
progress_off(void)
{
	progress_clear();
	state = -1;
}
