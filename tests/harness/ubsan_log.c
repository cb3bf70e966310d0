/*
 * ubsan_log: each UBSan report into a file beside ASan's, for the
 * sanitizer build (make asan links it into every program, and
 * tests/run-asan.sh into the C that tests and nnc compile).  GCC's
 * combined runtime (libubsan beside libasan) ignores UBSAN_OPTIONS's
 * log_path and prints on standard error, where a test that discards it
 * or expects a failure loses the report.  libubsan calls the weak hook
 * __ubsan_on_report before each report; this definition, in the
 * program, takes its place and appends the report's kind, message and
 * place to LOG_PATH.EXE.PID (log_path from UBSAN_OPTIONS, as ASan's
 * log_exe_name names its files).  Without log_path it does nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void __ubsan_get_current_report_data(const char **kind, const char **msg,
    const char **file, unsigned *line, unsigned *col, char **addr);
void __ubsan_on_report(void);

/* log_path's value in a sanitizer option string, into buf */
static int
logpath(const char *o, char *buf, size_t len)
{
	const char *p = o;
	size_t n;

	for (;;) {
		if (!strncmp(p, "log_path=", 9))
			break;
		if (!(p = strchr(p, ':')))
			return -1;
		p++;
	}
	p += 9;
	n = strcspn(p, ":");
	if (n == 0 || n >= len)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

void
__ubsan_on_report(void)
{
	const char *kind = "", *msg = "", *file = "", *exe;
	const char *o = getenv("UBSAN_OPTIONS");
	unsigned line = 0, col = 0;
	char *addr, lp[2048], self[2048], path[4096], buf[4096];
	ssize_t n;
	int fd, len;

	if (!o || logpath(o, lp, sizeof lp) != 0)
		return;
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	exe = strrchr(self, '/') ? strrchr(self, '/') + 1 : "unknown";
	snprintf(path, sizeof path, "%s.%s.%ld", lp, exe, (long)getpid());
	__ubsan_get_current_report_data(&kind, &msg, &file, &line, &col,
	    &addr);
	len = snprintf(buf, sizeof buf, "%s:%u:%u: runtime error (%s): %s\n",
	    file ? file : "", line, col, kind ? kind : "", msg ? msg : "");
	if (len < 0)
		return;
	if (len >= (int)sizeof buf)
		len = (int)sizeof buf - 1;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666)) < 0)
		return;
	if (write(fd, buf, (size_t)len) < 0)
		buf[0] = '\0';	/* nothing else to do with the failure */
	close(fd);
}
